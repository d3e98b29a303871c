"""Samplers of the ``arith`` operator group (being written)."""

from __future__ import annotations

from .samplers import Sampler

SAMPLERS: dict[str, Sampler] = {}
"""The samplers of this group's operators, by name (merged into ``samplers.SAMPLERS``)."""
