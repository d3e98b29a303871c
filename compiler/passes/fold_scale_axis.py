"""The fold_scale_axis pass (being written)."""

from __future__ import annotations
