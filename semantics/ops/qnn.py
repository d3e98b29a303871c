"""Operators of the ``qnn`` module (being written: see the operator-library issue)."""

from __future__ import annotations
