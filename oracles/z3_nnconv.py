"""Z3 encodings of the type relations of the ``nnconv`` operator group: 1-D and 3-D and
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

from relay.semantics.ops.nn.activation import PReluAttrs
from relay.semantics.ops.nn.conv import (
    Conv1DAttrs,
    Conv1DTransposeAttrs,
    Conv2DTransposeAttrs,
    Conv3DAttrs,
)
from relay.semantics.ops.nn.dense import BatchMatmulAttrs, MatmulAttrs
from relay.semantics.ops.nn.pool import (
    AdaptivePool2DAttrs,
    AvgPool1DAttrs,
    AvgPool3DAttrs,
    GlobalPool2DAttrs,
    MaxPool1DAttrs,
    MaxPool3DAttrs,
)
from relay.semantics.ops.registry import Attrs

from .z3_relations import (
    Arg,
    Cond,
    Encoded,
    Encoding,
    IllTyped,
    Shape,
    Term,
    _attrs,
    _tensor,
    well_typed,
)
from .z3_relations import _global_pool2d as _global_pool2d_rule


def _order(layout: str, letters: str, what: str) -> list[int]:
    """Where each of ``letters`` sits in ``layout``, which must be a permutation of them."""
    if len(layout) != len(letters) or sorted(layout) != sorted(letters):
        raise IllTyped(f"{what} {layout!r} is not a permutation of {letters}")
    return [layout.index(c) for c in letters]


def _exactly(values: tuple[int, ...] | None, count: int, what: str, low: int) -> tuple[int, ...]:
    if values is None or len(values) != count or min(values) < low:
        raise IllTyped(f"{what} needs {count} values >= {low}, found {values}")
    return values


def _pad_totals(padding: tuple[int, ...], count: int) -> list[int]:
    """Total padding per spatial axis from 1, ``count`` (both ends) or ``2 * count`` values
    (befores then afters), none negative."""
    if min(padding, default=0) < 0:
        raise IllTyped(f"negative padding {padding}")
    if len(padding) == 1:
        return [2 * padding[0]] * count
    if len(padding) == count:
        return [2 * p for p in padding]
    if len(padding) == 2 * count:
        return [padding[i] + padding[count + i] for i in range(count)]
    raise IllTyped(f"padding {padding} has the wrong length for {count} spatial axes")


def _place(canonical: Sequence[Term], letters: str, layout: str) -> Shape:
    """Values given in ``letters`` order, rearranged into ``layout`` order."""
    return [canonical[letters.index(c)] for c in layout]


# ---------------------------------------------------------------------------------------------
# Convolutions


def _conv(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Conv1DRel / Conv3DRel: data in a permutation of NCW / NCDHW, weight of OIW / OIDHW;
    C = I * groups, O a multiple of groups, O = channels and k = kernel_size when given, every
    k >= 1; each dilated kernel fits the padded input; out extent (x + pad - window) // stride
    + 1; output in data_layout (conv1d, which has no out_layout) or out_layout; dtype out_dtype
    or data's."""
    if not isinstance(attrs, Conv1DAttrs | Conv3DAttrs):
        raise IllTyped("expected convolution attributes")
    space = "W" if isinstance(attrs, Conv1DAttrs) else "DHW"
    nd = len(space)
    data, weight = _tensor(args, 0), _tensor(args, 1)
    if len(data.shape) != nd + 2 or len(weight.shape) != nd + 2:
        raise IllTyped(f"convolution needs rank-{nd + 2} data and weight")
    d = [data.shape[i] for i in _order(attrs.data_layout, "NC" + space, "data_layout")]
    w = [weight.shape[i] for i in _order(attrs.kernel_layout, "OI" + space, "kernel_layout")]
    out_layout = (
        attrs.data_layout
        if isinstance(attrs, Conv1DAttrs)
        else (attrs.out_layout or attrs.data_layout)
    )
    _order(out_layout, "NC" + space, "out_layout")
    strides = _exactly(attrs.strides, nd, "strides", 1)
    dilation = _exactly(attrs.dilation, nd, "dilation", 1)
    pads = _pad_totals(attrs.padding, nd)
    if attrs.groups < 1:
        raise IllTyped(f"groups {attrs.groups} < 1")
    g = attrs.groups
    cons: list[Cond] = [d[1] == w[1] * g, w[0] % g == 0]
    cons += [k >= 1 for k in w[2:]]
    if attrs.kernel_size is not None:
        ks = _exactly(attrs.kernel_size, nd, "kernel_size", 0)
        cons += [k == v for k, v in zip(w[2:], ks, strict=True)]
    if attrs.channels is not None:
        cons.append(w[0] == attrs.channels)
    extents: list[Term] = []
    for x, k, s, dil, p in zip(d[2:], w[2:], strides, dilation, pads, strict=True):
        window = (k - 1) * dil + 1
        cons.append(x + p >= window)
        extents.append((x + p - window) / s + 1)
    out = _place([d[0], w[0], *extents], "NC" + space, out_layout)
    return well_typed([out], cons, [attrs.out_dtype or data.dtype])


def _conv_transpose(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Conv1DTransposeRel / Conv2DTransposeRel: data NCW / NCHW permutation, weight IOW / IOHW
    (C, O, k..); C = I, C a multiple of groups; channels, when given, a multiple of groups with
    O = channels / groups; k = kernel_size when given, every k >= 1; 0 <= output_padding <
    stride; out channels groups * O, extent stride * (x - 1) + (k - 1) * dilation + 1 - pad +
    output_padding (>= 0); layout out_layout or data_layout; dtype out_dtype or data's."""
    if not isinstance(attrs, Conv1DTransposeAttrs | Conv2DTransposeAttrs):
        raise IllTyped("expected transposed convolution attributes")
    space = "W" if isinstance(attrs, Conv1DTransposeAttrs) else "HW"
    nd = len(space)
    data, weight = _tensor(args, 0), _tensor(args, 1)
    if len(data.shape) != nd + 2 or len(weight.shape) != nd + 2:
        raise IllTyped(f"transposed convolution needs rank-{nd + 2} data and weight")
    d = [data.shape[i] for i in _order(attrs.data_layout, "NC" + space, "data_layout")]
    w = [weight.shape[i] for i in _order(attrs.kernel_layout, "IO" + space, "kernel_layout")]
    out_layout = attrs.out_layout or attrs.data_layout
    _order(out_layout, "NC" + space, "out_layout")
    strides = _exactly(attrs.strides, nd, "strides", 1)
    dilation = _exactly(attrs.dilation, nd, "dilation", 1)
    opad = _exactly(attrs.output_padding, nd, "output_padding", 0)
    if any(p >= s for p, s in zip(opad, strides, strict=True)):
        raise IllTyped(f"output_padding {opad} not below strides {strides}")
    pads = _pad_totals(attrs.padding, nd)
    if attrs.groups < 1:
        raise IllTyped(f"groups {attrs.groups} < 1")
    g = attrs.groups
    cons: list[Cond] = [d[1] == w[0], d[1] % g == 0]
    cons += [k >= 1 for k in w[2:]]
    if attrs.kernel_size is not None:
        ks = _exactly(attrs.kernel_size, nd, "kernel_size", 0)
        cons += [k == v for k, v in zip(w[2:], ks, strict=True)]
    if attrs.channels is not None:
        if attrs.channels % g:
            raise IllTyped(f"channels {attrs.channels} not a multiple of groups {g}")
        cons.append(w[1] * g == attrs.channels)
    extents = [
        s * (x - 1) + (k - 1) * dil + 1 - p + op
        for x, k, s, dil, p, op in zip(d[2:], w[2:], strides, dilation, pads, opad, strict=True)
    ]
    out = _place([d[0], w[1] * g, *extents], "NC" + space, out_layout)
    return well_typed([out], cons, [attrs.out_dtype or data.dtype])


# ---------------------------------------------------------------------------------------------
# Products


def _matmul(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """MatmulRel: a (.., k), or (.., k, m) with transpose_a (rank >= 2); b rank 2, (k, n), or
    (n, k) with transpose_b; n = units when given; out (.., n) / (.., m, n), dtype out_dtype
    or a's."""
    a = _attrs(attrs, MatmulAttrs)
    x, y = _tensor(args, 0), _tensor(args, 1)
    if len(x.shape) < (2 if a.transpose_a else 1) or len(y.shape) != 2:
        raise IllTyped("matmul needs a of rank >= 1 (2 with transpose_a) and a rank-2 b")
    if a.transpose_a:
        k, lead = x.shape[-2], [*x.shape[:-2], x.shape[-1]]
    else:
        k, lead = x.shape[-1], list(x.shape[:-1])
    bk, n = (y.shape[1], y.shape[0]) if a.transpose_b else (y.shape[0], y.shape[1])
    cons: list[Cond] = [bk == k]
    if a.units is not None:
        cons.append(n == a.units)
    return well_typed([[*lead, n]], cons, [a.out_dtype or x.dtype])


def _batch_matmul(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """BatchMatmulRel: rank-3 a (B, m, k) / (B, k, m) and b (B', k, n) / (B', n, k); the
    reduction sizes equal; B = B' or one is 1 (the result takes the other); dtype out_dtype
    or a's."""
    a = _attrs(attrs, BatchMatmulAttrs)
    x, y = _tensor(args, 0), _tensor(args, 1)
    if len(x.shape) != 3 or len(y.shape) != 3:
        raise IllTyped("batch_matmul needs rank-3 operands")
    xb, xm, xk = (x.shape[0], x.shape[2], x.shape[1]) if a.transpose_a else tuple(x.shape)
    yb, yk, yn = (y.shape[0], y.shape[2], y.shape[1]) if a.transpose_b else tuple(y.shape)
    cons: list[Cond] = [xk == yk, z3.Or(xb == yb, xb == 1, yb == 1)]
    batch = z3.If(xb == 1, yb, xb)
    return well_typed([[batch, xm, yn]], cons, [a.out_dtype or x.dtype])


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


# ---------------------------------------------------------------------------------------------
# Pooling

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
    return _global_pool2d_rule(args, attrs)


RULES: dict[str, Encoding] = {
    "nn.conv1d": _conv,
    "nn.conv3d": _conv,
    "nn.conv1d_transpose": _conv_transpose,
    "nn.conv2d_transpose": _conv_transpose,
    "nn.matmul": _matmul,
    "nn.batch_matmul": _batch_matmul,
    "nn.prelu": _prelu,
    "nn.max_pool1d": _pool,
    "nn.avg_pool1d": _pool,
    "nn.max_pool3d": _pool,
    "nn.avg_pool3d": _pool,
    "nn.adaptive_avg_pool2d": _adaptive_pool2d,
    "nn.adaptive_max_pool2d": _adaptive_pool2d,
    "nn.global_max_pool2d": _global_max_pool2d,
}
"""The encodings of this group's operators, by name (merged into ``Z3_ENCODINGS``)."""
