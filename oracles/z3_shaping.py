"""Z3 encodings of the type relations of the ``shaping`` operator group (being written)."""

from __future__ import annotations

from .z3_relations import Encoding

RULES: dict[str, Encoding] = {}
"""The encodings of this group's operators, by name (merged into ``Z3_ENCODINGS``)."""
