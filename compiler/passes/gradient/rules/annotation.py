"""Gradient rules of ``semantics/ops/annotation.py``: annotations are the identity, ``dx = g``."""

from __future__ import annotations

from .....semantics.syntax import Expr
from .common import GradCall, GradRule


def _identity(c: GradCall) -> tuple[Expr | None]:
    return (c.grad,)


RULES: dict[str, GradRule] = {"annotation.stop_fusion": _identity, "device_copy": _identity}
