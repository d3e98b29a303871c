"""The simplify_inference pass (being written)."""

from __future__ import annotations
