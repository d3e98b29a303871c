"""The div_to_mul pass (being written)."""

from __future__ import annotations
