"""The dynamic_to_static pass (being written)."""

from __future__ import annotations
