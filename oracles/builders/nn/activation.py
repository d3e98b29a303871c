"""Dataflow-generator builders of the operators of
``relay.semantics.ops.nn.activation`` (well-typed calls by construction).

From the former ``builders_nnconv`` module:

Dataflow-generator builders of the ``nnconv`` operator group.

Each builds a well-typed call whose meaning is defined for the generator's default arguments
(``gen_args``: small non-zero values): convolutions take non-empty data, a weight derived from
its channels and groups, windows that fit the padded input and accumulators that hold the
data's values (``gen_dataflow._accumulators``); transposed convolutions crop no more than the
kernel adds, so every output extent is at least 1; average pools never divide by an empty
integer count and adaptive average pools keep cell counts representable in int8; results have
rank 4 or less.

``nn.conv3d``'s data, weight and result have rank 5, beyond the generator's ``MAX_RANK``: its
inputs are always fresh and its result is only a sink (``MAX_RESULT_RANK``).

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

from relay.semantics.ops.nn.activation import LeakyReluAttrs, PReluAttrs, SoftmaxAttrs
from relay.semantics.ops.registry import Attrs
from relay.semantics.syntax import TensorType

from ..core import ALL, FLOATS, Builder, Built, _dims, _Graph, _unary


def _leaky_relu_attrs(g: _Graph, dtype: str) -> Attrs:
    # Between 0 and 1, so the slope converts to every dtype, bool included.
    return LeakyReluAttrs.from_kwargs({"alpha": g.pick([0.25, 0.0, 0.1, 0.5, 1.0])})


def _softmax(g: _Graph) -> Built:
    """Float data (softmax of other dtypes is undefined), rank at least 1."""
    data = g.tensor(FLOATS, min_rank=1)
    ndim = len(data[1].shape)
    return (data,), SoftmaxAttrs.from_kwargs({"axis": g.axis(g.integer(0, ndim - 1), ndim)})


def _prelu(g: _Graph) -> Built:
    """Data of rank >= 1 and any dtype; alpha (data[axis],) of its dtype."""
    data = g.tensor(ALL, min_rank=1)
    shape = _dims(data[1])
    axis = g.integer(0, len(shape) - 1)
    alpha = g.exactly(TensorType((shape[axis],), data[1].dtype))
    return (data, alpha), PReluAttrs.from_kwargs({"axis": axis})


def _fast_softmax(g: _Graph) -> Built:
    data = g.tensor(FLOATS, min_rank=1)
    ndim = len(data[1].shape)
    return (data,), SoftmaxAttrs.from_kwargs({"axis": g.axis(g.integer(0, ndim - 1), ndim)})


BUILDERS: dict[str, Builder] = {
    "nn.relu": _unary(ALL),
    "nn.leaky_relu": _unary(ALL, _leaky_relu_attrs),
    "nn.softmax": _softmax,
    "nn.log_softmax": _softmax,
    "nn.prelu": _prelu,
    "nn.fast_softmax": _fast_softmax,
}
"""This module's entries, by op name."""
