"""Helpers shared by the operator tests (``tests/test_ops_*.py``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

import numpy.typing as npt

from relay.semantics.ops import OPS
from relay.semantics.syntax import dim_symbol

T = TypeVar("T")

Array = npt.NDArray[Any]
"""An array of any element type."""

FLOATS = ("float16", "float32", "float64")
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
INTEGERS = SIGNED + UNSIGNED
INTS = INTEGERS
NUMERIC = FLOATS + INTS
"""Dtype groups: float, signed, unsigned, every integer (``INTS`` is ``INTEGERS``), numeric."""

n = dim_symbol("n")
m = dim_symbol("m")
h = dim_symbol("h")
w = dim_symbol("w")
"""Symbolic dimensions."""


def _op_name(case: object) -> str | None:
    """The operator a parametrization case names: the case itself or its first op name."""
    values = getattr(case, "values", None)  # a pytest.param
    if values is not None:
        case = values
    items = case if isinstance(case, tuple) else (case,)
    for item in items:
        if isinstance(item, str) and item in OPS:
            return item
    return None


def of_family(cases: Iterable[T] | Mapping[Any, Any], family: str) -> list[T]:
    """The cases of ``cases`` whose operator is of ``family`` (``OpDef.family``).

    A case is an operator name, or a tuple (or ``pytest.param``) whose first operator name
    says its operator; a mapping's keys are its cases.
    """
    out = []
    for case in cases:
        name = _op_name(case)
        if name is not None and OPS[name].family == family:
            out.append(case)
    return out
