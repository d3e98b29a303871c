"""Lowerings of ``semantics/ops/image.py``: ``image.resize2d`` is unsupported (reason below)."""

from __future__ import annotations

from .. import te

te.unsupported(
    "image.resize2d",
    "not lowered yet: its coordinate modes, roundings and cubic kernel are a compute to write",
)
