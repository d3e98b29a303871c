"""The remove_unused_functions pass (being written)."""

from __future__ import annotations
