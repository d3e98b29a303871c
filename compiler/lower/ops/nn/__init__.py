"""Lowerings of the ``nn.*`` operators, one module per ``semantics/ops/nn`` module."""
