"""Operators of the ``dyn`` module (being written: see the operator-library issue)."""

from __future__ import annotations
