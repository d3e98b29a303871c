"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.nn.pool``.

From the former ``z3_nnconv`` module:

Z3 encodings of the type relations of the ``nnconv`` operator group: 1-D and 3-D and
transposed convolutions, matmul, batch_matmul, prelu, 1-D and 3-D pooling, adaptive 2-D pooling
and global max pooling.

Written from TVM 0.18's relations (``src/relay/op/nn/convolution.cc``, ``nn.cc``, ``nn.h``,
``pooling.cc``) and the departures ``ops.nn_conv`` and ``ops.nn_pool`` document (windows that
fit the padded input, lists of one entry per spatial axis, grouped transposed convolutions
giving groups * O channels, batch_matmul checking what it can), independently of the relation
functions: ``relay.oracles.validate`` checks one against the other.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import z3

from relay.semantics.ops.nn.pool import (
    AdaptivePool2DAttrs,
    AvgPool1DAttrs,
    AvgPool2DAttrs,
    AvgPool3DAttrs,
    GlobalPool2DAttrs,
    MaxPool1DAttrs,
    MaxPool2DAttrs,
    MaxPool3DAttrs,
)
from relay.semantics.ops.registry import Attrs

from ..core import (
    ONE,
    Arg,
    Cond,
    Encoded,
    Encoding,
    IllTyped,
    _attrs,
    _exactly,
    _pad_totals,
    _pads,
    _pair,
    _tensor,
    well_typed,
)


def _hw(layout: str, ndim: int) -> tuple[int, int]:
    """Where H and W sit in a pooling layout: one distinct upper-case letter per input axis,
    H and W among them. (TVM only checks that the H and W positions exist.)"""
    if not layout.isalpha() or not layout.isupper() or len(set(layout)) != len(layout):
        raise IllTyped(f"invalid layout {layout!r}")
    if "H" not in layout or "W" not in layout:
        raise IllTyped(f"layout {layout!r} needs H and W")
    if len(layout) != ndim:
        raise IllTyped(f"layout {layout!r} does not fit a rank-{ndim} input")
    return layout.index("H"), layout.index("W")


def _pool2d(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Pool2DRel: the dilated window fits the padded input; H and W become (size + pad -
    window [+ stride - 1 with ceil_mode]) // stride + 1, other axes kept. (TVM's relation
    also accepted a window longer than the input, truncating a negative quotient;
    ``ops.nn`` rejects it.)"""
    data = _tensor(args, 0)
    a = attrs if isinstance(attrs, MaxPool2DAttrs | AvgPool2DAttrs) else None
    if a is None:
        raise IllTyped("expected pooling attributes")
    hi, wi = _hw(a.layout, len(data.shape))
    pool = _pair(a.pool_size, "pool_size")
    strides = _pair(a.strides, "strides")
    dilation = _pair(a.dilation, "dilation")
    pads = _pads(a.padding)
    out = list(data.shape)
    cons: list[Cond] = []
    for at, k, s, d, p in zip((hi, wi), pool, strides, dilation, pads, strict=True):
        window = (k - 1) * d + 1
        cons.append(data.shape[at] + p >= window)
        numerator = data.shape[at] + p - window + (s - 1 if a.ceil_mode else 0)
        out[at] = numerator / s + 1
    return well_typed([out], cons, [data.dtype])


def _global_pool2d(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """GlobalPool2DRel: out = data with H and W set to 1."""
    data = _tensor(args, 0)
    hi, wi = _hw(_attrs(attrs, GlobalPool2DAttrs).layout, len(data.shape))
    out = [ONE if k in (hi, wi) else d for k, d in enumerate(data.shape)]
    return well_typed([out], dtypes=[data.dtype])


_AXIS = re.compile(r"[A-Z]|[0-9]*[a-z]")


def _pool_positions(layout: str, ndim: int, letters: str) -> list[int]:
    """Positions of ``letters`` in a layout of upper-case axes (each at most once) and split
    sub-axes like ``4c``; the pooled axes present and not split; one layout axis per dim."""
    tokens = _AXIS.findall(layout)
    if not tokens or "".join(tokens) != layout:
        raise IllTyped(f"invalid layout {layout!r}")
    upper = [t for t in tokens if t.isupper()]
    if len(upper) != len(set(upper)) or not set(letters) <= set(upper):
        raise IllTyped(f"layout {layout!r} needs {letters} once each")
    if any(t[-1].upper() in letters for t in tokens if not t.isupper()):
        raise IllTyped(f"layout {layout!r} splits a pooled axis")
    if len(tokens) != ndim:
        raise IllTyped(f"layout {layout!r} does not fit a rank-{ndim} input")
    return [tokens.index(c) for c in letters]


def _pool(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Pool1DRel / Pool3DRel: pooled axes W (or D, H, W) of layout; per pooled axis the
    dilated window fits the padded input, and the extent is (x + pad - window [+ stride - 1
    with ceil_mode]) // stride + 1; other axes and dtype kept."""
    if not isinstance(attrs, MaxPool1DAttrs | AvgPool1DAttrs | MaxPool3DAttrs | AvgPool3DAttrs):
        raise IllTyped("expected pooling attributes")
    letters = "W" if isinstance(attrs, MaxPool1DAttrs | AvgPool1DAttrs) else "DHW"
    nd = len(letters)
    data = _tensor(args, 0)
    at = _pool_positions(attrs.layout, len(data.shape), letters)
    pool = _exactly(attrs.pool_size, nd, "pool_size", 1)
    strides = _exactly(attrs.strides, nd, "strides", 1)
    dilation = _exactly(attrs.dilation, nd, "dilation", 1)
    pads = _pad_totals(attrs.padding, nd)
    out = list(data.shape)
    cons: list[Cond] = []
    for i, k, s, dil, p in zip(at, pool, strides, dilation, pads, strict=True):
        window = (k - 1) * dil + 1
        cons.append(data.shape[i] + p >= window)
        extra = s - 1 if attrs.ceil_mode else 0
        out[i] = (data.shape[i] + p - window + extra) / s + 1
    return well_typed([out], cons, [data.dtype])


def _adaptive_pool2d(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """AdaptivePool2DRel: H and W of layout become output_size (() keeps them, one value is
    both); at most two non-negative values."""
    a = _attrs(attrs, AdaptivePool2DAttrs)
    data = _tensor(args, 0)
    hi, wi = _pool_positions(a.layout, len(data.shape), "HW")
    size = a.output_size
    if len(size) > 2 or min(size, default=0) < 0:
        raise IllTyped(f"bad output_size {size}")
    out = list(data.shape)
    if size:
        out[hi] = z3.IntVal(size[0])
        out[wi] = z3.IntVal(size[-1])
    return well_typed([out], dtypes=[data.dtype])


def _global_max_pool2d(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """GlobalPool2DRel: H and W of layout become 1 (as for global_avg_pool2d)."""
    _attrs(attrs, GlobalPool2DAttrs)
    return _global_pool2d(args, attrs)


RULES: dict[str, Encoding] = {
    "nn.max_pool2d": _pool2d,
    "nn.avg_pool2d": _pool2d,
    "nn.global_avg_pool2d": _global_pool2d,
    "nn.max_pool1d": _pool,
    "nn.avg_pool1d": _pool,
    "nn.max_pool3d": _pool,
    "nn.avg_pool3d": _pool,
    "nn.adaptive_avg_pool2d": _adaptive_pool2d,
    "nn.adaptive_max_pool2d": _adaptive_pool2d,
    "nn.global_max_pool2d": _global_max_pool2d,
}
"""This module's entries, by op name."""
