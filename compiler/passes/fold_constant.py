"""The fold_constant pass (being written)."""

from __future__ import annotations
