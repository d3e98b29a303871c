"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.nn.activation``.

From the former ``z3_nnconv`` module:

Z3 encodings of the type relations of the ``nnconv`` operator group: 1-D and 3-D and
transposed convolutions, matmul, batch_matmul, prelu, 1-D and 3-D pooling, adaptive 2-D pooling
and global max pooling.

Written from TVM 0.18's relations (``src/relay/op/nn/convolution.cc``, ``nn.cc``, ``nn.h``,
``pooling.cc``) and the departures ``ops.nn_conv`` and ``ops.nn_pool`` document (windows that
fit the padded input, lists of one entry per spatial axis, grouped transposed convolutions
giving groups * O channels, batch_matmul checking what it can), independently of the relation
functions: ``relay.oracles.validate`` checks one against the other.

From the former ``z3_nnnorm`` module:

Z3 encodings of the type relations of the ``nnnorm`` operator group.

Normalisations and losses (``ops.nn_norm``), resampling (``ops.nn_resample``) and
``image.resize2d`` (``ops.image``), written from TVM 0.18's relations (``src/relay/op/nn/nn.cc``,
``nn/pad.cc``, ``nn/upsampling.cc``, ``image/resize.cc``) and the departures those modules
document (``group_norm``'s groups, ``lrn``'s rank/axis/size, NCHW/NHWC layouts only, TOPI's
divisibility checks for the ``*_nd`` ops). Each encoding's docstring states its rule.
"""

from __future__ import annotations

from collections.abc import Sequence

from relay.semantics.ops.nn.activation import PReluAttrs, SoftmaxAttrs
from relay.semantics.ops.registry import Attrs

from ..core import Arg, Encoded, Encoding, IllTyped, _attrs, _axis, _identity, _tensor, well_typed


def _softmax(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """SoftmaxRel: axis in [-ndim, ndim); out = data."""
    data = _tensor(args, 0)
    _axis(_attrs(attrs, SoftmaxAttrs).axis, len(data.shape))
    return well_typed([data.shape], dtypes=[data.dtype])


def _prelu(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """PReluRel: 0 <= axis < rank (no negative axis); alpha a vector of data's dtype whose
    length is data[axis]; out = data."""
    data, alpha = _tensor(args, 0), _tensor(args, 1)
    axis = _attrs(attrs, PReluAttrs).axis
    if not 0 <= axis < len(data.shape):
        raise IllTyped(f"prelu axis {axis} not in [0, {len(data.shape)})")
    if len(alpha.shape) != 1 or alpha.dtype != data.dtype:
        raise IllTyped(f"alpha must be a vector of {data.dtype}")
    return well_typed([data.shape], [alpha.shape[0] == data.shape[axis]], [data.dtype])


def _fast_softmax(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """SoftmaxRel: axis in range; out = data."""
    data = _tensor(args, 0, "data")
    _axis(_attrs(attrs, SoftmaxAttrs).axis, len(data.shape))
    return well_typed([data.shape], dtypes=[data.dtype])


RULES: dict[str, Encoding] = {
    **{name: _identity for name in ("nn.relu", "nn.leaky_relu")},
    "nn.softmax": _softmax,
    "nn.log_softmax": _softmax,
    "nn.prelu": _prelu,
    "nn.fast_softmax": _fast_softmax,
}
"""This module's entries, by op name."""
