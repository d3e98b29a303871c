"""Operators: the registry and one module per op family.

Importing this package registers every built-in operator.
"""

from . import (
    annotation,
    arith,
    dyn,
    elementwise,
    image,
    indexing,
    nn,
    nn_conv,
    nn_norm,
    nn_pool,
    nn_resample,
    qnn,
    reduce,
    scan,
    shaping,
    transform,
)
from .registry import OPS, AttrError, AttrKind, Attrs, OpDef, OpPattern, lookup, register

__all__ = [
    "OPS",
    "AttrError",
    "AttrKind",
    "Attrs",
    "OpDef",
    "OpPattern",
    "annotation",
    "arith",
    "dyn",
    "elementwise",
    "image",
    "indexing",
    "lookup",
    "nn",
    "nn_conv",
    "nn_norm",
    "nn_pool",
    "nn_resample",
    "qnn",
    "reduce",
    "register",
    "scan",
    "shaping",
    "transform",
]
