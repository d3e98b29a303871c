"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.nn.conv``.

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

from collections.abc import Sequence

from relay.semantics.ops.nn.conv import (
    Conv1DAttrs,
    Conv1DTransposeAttrs,
    Conv2DTransposeAttrs,
    Conv3DAttrs,
)
from relay.semantics.ops.registry import Attrs

from ..core import (
    Arg,
    Cond,
    Encoded,
    Encoding,
    IllTyped,
    Shape,
    Term,
    _conv2d,
    _exactly,
    _pad_totals,
    _tensor,
    well_typed,
)


def _order(layout: str, letters: str, what: str) -> list[int]:
    """Where each of ``letters`` sits in ``layout``, which must be a permutation of them."""
    if len(layout) != len(letters) or sorted(layout) != sorted(letters):
        raise IllTyped(f"{what} {layout!r} is not a permutation of {letters}")
    return [layout.index(c) for c in letters]


def _place(canonical: Sequence[Term], letters: str, layout: str) -> Shape:
    """Values given in ``letters`` order, rearranged into ``layout`` order."""
    return [canonical[letters.index(c)] for c in layout]


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


RULES: dict[str, Encoding] = {
    "nn.conv2d": _conv2d,
    "nn.conv1d": _conv,
    "nn.conv3d": _conv,
    "nn.conv1d_transpose": _conv_transpose,
    "nn.conv2d_transpose": _conv_transpose,
}
"""This module's entries, by op name."""
