"""Operators of the ``arith`` module (being written: see the operator-library issue)."""

from __future__ import annotations
