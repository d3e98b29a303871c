"""Lowerings of the ``nn.*`` operators, one module per ``semantics/ops/nn`` module; importing
the package registers them all."""

from __future__ import annotations

from . import activation, conv, dense, loss, norm, pool, shape

__all__ = ["activation", "conv", "dense", "loss", "norm", "pool", "shape"]
