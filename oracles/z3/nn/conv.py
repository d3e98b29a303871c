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

import re
from collections.abc import Sequence

import z3

from relay.semantics.ops.nn.conv import (
    Conv1DAttrs,
    Conv1DTransposeAttrs,
    Conv2DAttrs,
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
    _attrs,
    _conv2d,
    _exactly,
    _pad_totals,
    _pads,
    _pair,
    _tensor,
    floordiv,
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


def _packed(layout: str, letters: str, what: str) -> list[tuple[str, int]]:
    """``layout`` as (letter, factor) per axis, factor 0 for a primal axis: each of
    ``letters`` once as an upper-case axis, at most one ``<factor><lower-case>`` sub-axis
    (factor >= 1) for each."""
    if not layout or re.fullmatch(r"(\d*[A-Za-z])+", layout) is None:
        raise IllTyped(f"{what} {layout!r} is not a layout")
    axes = [(c, int(f) if f else 0) for f, c in re.findall(r"(\d*)([A-Za-z])", layout)]
    names = [c for c, _ in axes]
    if sorted(c for c in names if c.isupper()) != sorted(letters) or len(set(names)) < len(names):
        raise IllTyped(f"{what} {layout!r} does not hold the axes {letters} once each")
    for c, f in axes:
        if c.isupper() != (f == 0) or (c.islower() and c.upper() not in letters):
            raise IllTyped(f"{what} {layout!r}: bad axis {f or ''}{c}")
    return axes


def _unpacked(shape: Shape, axes: list[tuple[str, int]], cons: list[Cond]) -> dict[str, Term]:
    """Each primal axis's extent: its own extent times its sub-axis's factor; every sub-axis
    extent must equal its factor."""
    full: dict[str, Term] = {c: d for (c, f), d in zip(axes, shape, strict=True) if f == 0}
    for (c, f), d in zip(axes, shape, strict=True):
        if f:
            cons.append(d == f)
            full[c.upper()] = full[c.upper()] * f
    return full


def _conv2d_nchwc(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Conv2DNCHWc: ``_conv2d_packed`` with channels and kernel_size both set."""
    a = _attrs(attrs, Conv2DAttrs)
    if a.channels is None or a.kernel_size is None:
        raise IllTyped("contrib_conv2d_NCHWc needs channels and kernel_size")
    return _conv2d_packed(args, a)


def _conv2d_any(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Conv2DRel: plain layouts as ``core._conv2d``; a layout with a sub-axis (a digit or a
    lower-case letter) as ``_conv2d_packed``."""
    a = _attrs(attrs, Conv2DAttrs)
    layouts = a.data_layout + a.kernel_layout + a.out_layout
    if any(not c.isupper() for c in layouts):
        return _conv2d_packed(args, a)
    return _conv2d(args, attrs)


def _conv2d_packed(args: Sequence[Arg], a: Conv2DAttrs) -> Encoded:
    """Convolution over packed layouts: data and weight in layouts holding NCHW / OIHW with
    at most one factor sub-axis each (sub-axis extent = factor; primal extent = outer *
    factor); groups 1; the unpacked weight is (O, C, KH, KW), O = channels and (KH, KW) =
    kernel_size when set, KH, KW >= 1; dilated kernel fits the padded input; result (N, O,
    (H + pad - window) // stride + 1, ...) packed into out_layout ("" = data_layout), a split
    axis divisible by its factor; dtype out_dtype or data's."""
    data, weight = _tensor(args, 0), _tensor(args, 1)
    if a.groups != 1:
        raise IllTyped(f"a packed convolution needs groups 1, found {a.groups}")
    d_axes = _packed(a.data_layout, "NCHW", "data_layout")
    k_axes = _packed(a.kernel_layout, "OIHW", "kernel_layout")
    o_axes = _packed(a.out_layout or a.data_layout, "NCHW", "out_layout")
    if len(data.shape) != len(d_axes) or len(weight.shape) != len(k_axes):
        raise IllTyped("data or weight rank differs from its layout's")
    sh, sw = _pair(a.strides, "strides")
    dh, dw = _pair(a.dilation, "dilation")
    pad_h, pad_w = _pads(a.padding)
    cons: list[Cond] = []
    d = _unpacked(data.shape, d_axes, cons)
    k = _unpacked(weight.shape, k_axes, cons)
    kh, kw = k["H"], k["W"]
    cons += [k["I"] == d["C"], kh >= 1, kw >= 1]
    if a.channels is not None:
        cons.append(k["O"] == a.channels)
    if a.kernel_size is not None:
        ks = _pair(a.kernel_size, "kernel_size")
        cons += [kh == ks[0], kw == ks[1]]
    window_h, window_w = 1 + (kh - 1) * dh, 1 + (kw - 1) * dw
    cons += [d["H"] + pad_h >= window_h, d["W"] + pad_w >= window_w]
    full = {
        "N": d["N"],
        "C": k["O"],
        "H": floordiv(d["H"] + pad_h - window_h, sh) + 1,
        "W": floordiv(d["W"] + pad_w - window_w, sw) + 1,
    }
    factors = {c.upper(): f for c, f in o_axes if f}
    out: Shape = []
    for c, f in o_axes:
        if f:
            out.append(z3.IntVal(f))
        elif c in factors:
            cons.append(full[c] % factors[c] == 0)
            out.append(floordiv(full[c], factors[c]))
        else:
            out.append(full[c])
    return well_typed([out], cons, [a.out_dtype or data.dtype])


RULES: dict[str, Encoding] = {
    "nn.conv2d": _conv2d_any,
    "nn.conv1d": _conv,
    "nn.conv3d": _conv,
    "nn.conv1d_transpose": _conv_transpose,
    "nn.conv2d_transpose": _conv_transpose,
    "nn.contrib_conv2d_NCHWc": _conv2d_nchwc,
}
"""This module's entries, by op name."""
