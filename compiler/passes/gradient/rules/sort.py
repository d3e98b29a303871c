"""Gradient facts of ``semantics/ops/sort.py``: ``argsort`` and ``searchsorted`` have integer
results (``ZERO``); ``sort`` and ``topk`` permute values and have no rule yet."""

from __future__ import annotations

ZERO: frozenset[str] = frozenset({"argsort", "searchsorted"})
