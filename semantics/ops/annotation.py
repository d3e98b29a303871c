"""Operators of the ``annotation`` module (being written: see the operator-library issue)."""

from __future__ import annotations
