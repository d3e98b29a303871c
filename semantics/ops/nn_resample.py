"""Operators of the ``nn_resample`` module (being written: see the operator-library issue)."""

from __future__ import annotations
