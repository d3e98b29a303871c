"""Dataflow-generator builders of the operators of
``relay.semantics.ops.nn.norm`` (well-typed calls by construction).

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

from relay.semantics.ops.nn.norm import (
    BatchNormAttrs,
    DropoutAttrs,
    GroupNormAttrs,
    InstanceNormAttrs,
    L2NormalizeAttrs,
    LayerNormAttrs,
    LRNAttrs,
)
from relay.semantics.ops.registry import Attrs
from relay.semantics.syntax import TensorType

from ..core import ALL, FLOATS, Builder, Built, _dims, _divisors, _Graph, _nonempty


def _batch_norm(g: _Graph) -> Built:
    """Float data (others are undefined); four ``(C,)`` vectors of its dtype, the variance
    surely positive."""
    data = g.tensor(FLOATS, min_rank=1)
    shape = _dims(data[1])
    axis = g.integer(-1, len(shape) - 1)
    vector = TensorType((shape[axis],), data[1].dtype)
    # The moving variance is surely positive: sqrt(var + eps) of a negative one is NaN.
    vectors = tuple(g.exactly(vector, positive=i == 3) for i in range(4))
    attrs = BatchNormAttrs.from_kwargs(
        {
            "axis": axis,
            "epsilon": g.pick([1e-5, 1e-3, 0.5]),
            "center": not g.flag(),
            "scale": not g.flag(),
        }
    )
    return (data, *vectors), attrs


def _dropout(g: _Graph) -> Built:
    data = g.tensor(ALL)
    return (data,), DropoutAttrs.from_kwargs({"rate": g.pick([0.5, 0.0, 0.25, 0.9])})


def _norm(kind: str) -> Builder:
    """Float data (rank >= 3 for instance_norm), a channel axis, gamma and beta of its length;
    group_norm's groups divide the channels."""

    def build(g: _Graph) -> Built:
        data = g.tensor(FLOATS, min_rank=3 if kind == "instance" else 1, fits=_nonempty)
        shape = _dims(data[1])
        axis = g.integer(0, len(shape) - 1)
        vector = TensorType((shape[axis],), data[1].dtype)
        gamma, beta = g.exactly(vector), g.exactly(vector)
        common: dict[str, object] = {
            "axis": g.axis(axis, len(shape)),
            "epsilon": g.pick([1e-5, 1e-3, 0.5]),
            "center": not g.flag(),
            "scale": not g.flag(),
        }
        attrs: Attrs
        if kind == "layer":
            attrs = LayerNormAttrs.from_kwargs(common)
        elif kind == "group":
            groups = g.pick(_divisors(shape[axis]) or [1])
            attrs = GroupNormAttrs.from_kwargs({**common, "num_groups": groups})
        else:
            attrs = InstanceNormAttrs.from_kwargs(common)
        return (data, gamma, beta), attrs

    return build


def _l2_normalize(g: _Graph) -> Built:
    data = g.tensor(FLOATS, min_rank=1)
    ndim = len(data[1].shape)
    axis = tuple(g.axis(a, ndim) for a in g.subset(ndim, min_size=1))
    attrs = L2NormalizeAttrs.from_kwargs({"eps": g.pick([1e-12, 1e-3, 1.0]), "axis": axis})
    return (data,), attrs


def _lrn(g: _Graph) -> Built:
    data = g.tensor(FLOATS, min_rank=4, max_rank=4)
    attrs = LRNAttrs.from_kwargs(
        {
            "size": g.pick([5, 1, 3]),
            "axis": g.pick([1, 3]),
            "bias": g.pick([2.0, 1.0]),
            "alpha": g.pick([1e-4, 0.5]),
            "beta": g.pick([0.75, 0.5]),
        }
    )
    return (data,), attrs


BUILDERS: dict[str, Builder] = {
    "nn.batch_norm": _batch_norm,
    "nn.dropout": _dropout,
    "nn.layer_norm": _norm("layer"),
    "nn.group_norm": _norm("group"),
    "nn.instance_norm": _norm("instance"),
    "nn.l2_normalize": _l2_normalize,
    "nn.lrn": _lrn,
}
"""This module's entries, by op name."""
