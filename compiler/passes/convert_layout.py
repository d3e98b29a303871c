"""The convert_layout pass (being written)."""

from __future__ import annotations
