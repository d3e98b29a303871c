"""Operators: the registry and one module per op family.

Importing this package registers every built-in operator.
"""

from . import elementwise, nn, reduce, transform
from .registry import OPS, AttrError, AttrKind, Attrs, OpDef, OpPattern, lookup, register

__all__ = [
    "OPS",
    "AttrError",
    "AttrKind",
    "Attrs",
    "OpDef",
    "OpPattern",
    "elementwise",
    "lookup",
    "nn",
    "reduce",
    "register",
    "transform",
]
