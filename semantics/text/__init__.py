"""Relay's text format: lexer, parser, printer and TVM's metadata section."""
