"""Operators of the ``nn_pool`` module (being written: see the operator-library issue)."""

from __future__ import annotations
