"""The eliminate_common_subexpr pass (being written)."""

from __future__ import annotations
