"""The fuse_ops pass (being written)."""

from __future__ import annotations
