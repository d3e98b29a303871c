"""The Relay language definition: syntax, text format, operators, typing and evaluation.

Chapters:

- ``syntax``      the abstract syntax (expressions, patterns, types, modules);
- ``errors``      source spans, diagnostics and the error hierarchy;
- ``equality``    structural equality and alpha-equivalence;
- ``ops``         the operator registry, one module per op family;
- ``text``        the text format: lexer, parser, printer and the metadata section.

This package imports numpy and sympy only.
"""
