"""Helpers shared by the operator tests (``tests/test_ops_*.py``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeVar

from relay.semantics.ops import OPS

T = TypeVar("T")


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
