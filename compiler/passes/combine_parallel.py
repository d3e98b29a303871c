"""The combine_parallel pass (being written)."""

from __future__ import annotations
