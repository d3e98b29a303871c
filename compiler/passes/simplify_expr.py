"""The simplify_expr pass (being written)."""

from __future__ import annotations
