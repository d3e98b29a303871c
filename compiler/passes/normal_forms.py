"""The normal_forms pass (being written)."""

from __future__ import annotations
