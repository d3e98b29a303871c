"""Dataflow-generator builders of the ``indexing`` operator group (being written)."""

from __future__ import annotations

from .gen_dataflow import Builder

BUILDERS: dict[str, Builder] = {}
"""How to build a call of each of this group's operators (merged into ``gen_dataflow.BUILDERS``)."""
