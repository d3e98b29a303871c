"""The one place that maps ONNX operators to Relay: converters keyed by op and opset.

``CONVERTERS[op_type]`` is a list of ``(since, converter)`` pairs, sorted by ``since``: the
converter for a model whose default-domain opset is ``v`` is the one with the largest
``since <= v`` (an ONNX operator changes meaning only at the opsets its schema lists, so a
converter registered ``since=13`` serves opsets 13 up to the next entry). ``UNSUPPORTED``
names the ONNX operators that have no Relay equivalent (no operator of the registry, nor a
composition of them, computes them), ``NOT_YET`` those that a composition could compute but
that have no converter yet; each with the reason the import error gives.

A converter takes the node's ``NodeContext`` (inputs as Relay expressions, attributes,
types through the Relay type checker) and returns one expression per ONNX output that the
node declares, or a single expression for a one-output node.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, TypeAlias

from ....semantics.syntax import Expr

if TYPE_CHECKING:
    from .importer import NodeContext

Converter: TypeAlias = "Callable[[NodeContext], Expr | list[Expr]]"

CONVERTERS: dict[str, list[tuple[int, Converter]]] = {}
"""The converters of each ONNX op (default domain), by the opset each one starts at."""

UNSUPPORTED: dict[str, str] = {}
"""ONNX ops with no Relay equivalent, with the reason."""

NOT_YET: dict[str, str] = {}
"""ONNX ops that Relay could express but that have no converter yet, with the reason."""


def converter(op_type: str, since: int = 1) -> Callable[[Converter], Converter]:
    """Register the decorated function as ``op_type``'s converter from opset ``since``."""

    def register(fn: Converter) -> Converter:
        entries = CONVERTERS.setdefault(op_type, [])
        if any(s == since for s, _ in entries):
            raise ValueError(f"ONNX op {op_type} has two converters for opset {since}")
        entries.append((since, fn))
        entries.sort(key=lambda entry: entry[0])
        return fn

    return register


def unsupported(reason: str, *op_types: str) -> None:
    """Record ``op_types`` as having no translation, for ``reason``."""
    for op_type in op_types:
        UNSUPPORTED[op_type] = reason


def not_yet(reason: str, *op_types: str) -> None:
    """Record ``op_types`` as expressible in Relay but not translated yet, for ``reason``."""
    for op_type in op_types:
        NOT_YET[op_type] = reason


def lookup(op_type: str, opset: int) -> Converter | None:
    """The converter of ``op_type`` for a model of default-domain opset ``opset``, if any."""
    chosen: Converter | None = None
    for since, fn in CONVERTERS.get(op_type, []):
        if since <= opset:
            chosen = fn
    return chosen


__all__ = [
    "CONVERTERS",
    "NOT_YET",
    "UNSUPPORTED",
    "Converter",
    "converter",
    "lookup",
    "not_yet",
    "unsupported",
]
