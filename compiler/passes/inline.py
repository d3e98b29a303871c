"""The inline pass (being written)."""

from __future__ import annotations
