"""Dataflow-generator builders of the operators of
``relay.semantics.ops.nn.loss`` (well-typed calls by construction).

From the former ``builders_nnnorm`` module:

Dataflow-generator builders of the ``nnnorm`` operator group.

Each builder makes a well-typed call whose meaning is defined for the generator's default
arguments: float data for the float-only normalisations and losses (and positive
probabilities for ``nn.cross_entropy``'s log), ``nn.nll_loss`` targets that are constants
inside ``[0, C)`` or the ignore index, mirror padding of at most one reflection, space/batch
blocks that divide their extents, and no ``align_corners`` resize to an extent of 1 (whose
coordinates are 0 / 0). Float results of integer data stay in range for the default
arguments (small values; interpolation and cubic overshoot keep them inside the dtype).
"""

from __future__ import annotations

import math

import numpy as np

from relay.semantics.ops.nn.loss import NLLLossAttrs
from relay.semantics.syntax import Constant, TensorType

from ..core import FLOATS, SIGNED, Builder, Built, _dims, _Graph


def _cross_entropy(g: _Graph) -> Built:
    """Positive probabilities x (log of a non-positive value is NaN or -inf), y alike."""
    x = g.tensor(FLOATS, min_rank=2, max_rank=2, positive=True)
    return (x, g.exactly(x[1])), None


_TARGET_ELEMENTS = 36
"""The most targets a ``nn.nll_loss`` call draws (one class per target)."""


def _nll_loss(g: _Graph) -> Built:
    """Float predictions (N, C, d..) or (C,); targets a constant of in-range classes (and the
    ignore index); weights (C,)."""

    def fits(t: TensorType) -> bool:
        d = _dims(t)
        targets = () if len(d) == 1 else (d[0], *d[2:])
        return d[0 if len(d) == 1 else 1] >= 1 and math.prod(targets) <= _TARGET_ELEMENTS

    # Rank 3 at most: a fresh (6, C, 6) has 36 targets, each drawn.
    predictions = g.tensor(FLOATS, min_rank=1, max_rank=3, fits=fits)
    shape = _dims(predictions[1])
    classes = shape[0] if len(shape) == 1 else shape[1]
    target_shape = () if len(shape) == 1 else (shape[0], *shape[2:])
    ignore = g.pick([-100, 0, 1])
    values = [g.integer(0, classes - 1) for _ in range(math.prod(target_shape))]
    dtype = g.dtype(SIGNED)
    t = TensorType(target_shape, dtype)
    constant = Constant(np.array(values, dtype=dtype).reshape(target_shape))
    targets = g.use(g.add(constant, t, (False,)))
    weights = g.exactly(TensorType((classes,), predictions[1].dtype))
    attrs = NLLLossAttrs.from_kwargs(
        {"reduction": g.pick(["mean", "sum", "none"]), "ignore_index": ignore}
    )
    return (predictions, targets, weights), attrs


BUILDERS: dict[str, Builder] = {
    "nn.cross_entropy": _cross_entropy,
    "nn.nll_loss": _nll_loss,
}
"""This module's entries, by op name."""
