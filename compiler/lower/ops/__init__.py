"""Operator lowerings, one module per ``semantics/ops`` module (the same partition and names).

Importing this package registers every lowering (``te.LOWERINGS``) and every operator that is
explicitly not lowered, with its reason (``te.UNSUPPORTED``). ``elementwise`` also holds the
scalar helpers the other modules share, as its semantics module does. The modules of the
``nn`` families, ``linalg``, ``sort``, ``image``, ``dyn`` and ``qnn`` are imported when
present.
"""

from __future__ import annotations

import importlib

from . import annotation, broadcast, create, elementwise, index, reduce, shape, vm

_OPTIONAL = (
    "nn", "linalg", "sort", "image", "dyn", "qnn",
)  # fmt: skip

for _name in _OPTIONAL:
    try:
        importlib.import_module(f"{__name__}.{_name}")
    except ModuleNotFoundError as error:  # a family whose lowering module is not written yet
        if error.name != f"{__name__}.{_name}":
            raise

__all__ = ["annotation", "broadcast", "create", "elementwise", "index", "reduce", "shape", "vm"]
