"""Operators: the registry and one module per op family.

Importing this package registers every built-in operator.
"""

from .registry import OPS, Attrs, AttrError, AttrKind, OpDef, OpPattern, lookup, register

__all__ = ["OPS", "AttrError", "AttrKind", "Attrs", "OpDef", "OpPattern", "lookup", "register"]
