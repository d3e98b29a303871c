"""The eta_expand pass (being written)."""

from __future__ import annotations
