"""Operators of the ``nn_norm`` module (being written: see the operator-library issue)."""

from __future__ import annotations
