"""Convolutions: nn.conv1d/2d/3d and the transposed convolutions.

::

    nn.conv1d(data, weight, strides=(1,), padding=(0, 0), dilation=(1,), groups=1,
              channels=None, kernel_size=None, data_layout="NCW", kernel_layout="OIW",
              out_dtype="")                                   Conv1DAttrs           out-fusable
    nn.conv2d(data, weight, strides=(1, 1), ...)              Conv2DAttrs           out-fusable
    nn.conv3d(data, weight, strides=(1, 1, 1), padding=(0, 0, 0), ..., data_layout="NCDHW",
              kernel_layout="OIDHW", out_layout="", out_dtype="")
                                                              Conv3DAttrs           out-fusable
    nn.conv1d_transpose(data, weight, channels=None, kernel_size=None, strides=(1,),
              output_padding=(0,), padding=(0,), dilation=(1,), groups=1, data_layout="NCW",
              kernel_layout="IOW", out_layout="", out_dtype="")
                                                              Conv1DTransposeAttrs  out-fusable
    nn.conv2d_transpose(data, weight, ..., strides=(1, 1), output_padding=(0, 0),
              padding=(0, 0), dilation=(1, 1), groups=1, data_layout="NCHW",
              kernel_layout="IOHW", out_layout="", out_dtype="")
                                                              Conv2DTransposeAttrs  out-fusable

out-fusable is out_elemwise_fusable. ``Conv1DAttrs`` has an ``out_layout`` member in TVM but
never declared it with ``TVM_ATTR_FIELD``, so conv1d has no ``out_layout`` attribute and its
output is in ``data_layout``. ``Conv2DAttrs`` also carries ``auto_scheduler_rewritten_layout``
and ``meta_schedule_original_shape`` as plain members, which are not attributes.

Shared by the convolutions: padding is read per spatial axis count as ``common`` says, and
``output_padding`` holds exactly one integer per spatial axis. Both operands are cast to the
output dtype first and the sums of products are computed as ``common._contract`` does: float16
in float32, rounded once. Undefined in every convolution: 32/64-bit integer overflow of a
product or of the total (nsw/nuw; partial sums are not checked: the total is exact); an
operand cast to the output dtype from NaN or an out-of-range float (fptosi/fptoui poison); a
bool output dtype (topi sums in the output dtype, for which TVM defines no arithmetic).

Packed layouts (TVM's ``tir::Layout``: upper-case primal axes, ``<factor><lower-case>``
sub-axes, e.g. ``NCHW16c``, VTA's ``NCHW1n16c`` data and ``OIHW16o16i`` weight) are accepted by
``nn.conv2d`` and ``nn.contrib_conv2d_NCHWc``: the meaning is the convolution of the operands
unpacked by ``layout_transform``, packed into the output layout.

Departures from TVM 0.18, in every relation: layouts other than ``nn.conv2d``'s and
``nn.contrib_conv2d_NCHWc``'s must permute the canonical ones (no GOIHW); strides and
dilation hold one positive integer per spatial axis, kernel_size one integer per axis, padding
(forward convolution) is non-negative, groups >= 1, the kernel non-empty; C and (forward) O,
or (transposed) channels, are divisible by groups. TVM's relations checked few of these; topi
asserted some at compile time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ...syntax import ANY, AnyDim, Dim, TensorType, Type
from ..registry import (
    AttrKind,
    Attrs,
    OpPattern,
    OpRegistrar,
    RelationError,
    attr_field,
    tensor_reference,
)
from ..shape import LayoutTransformAttrs, _layout_transform_reference, _layout_transform_relation
from ..shapes import add_dims, dims_equal, floordiv_dims, mul_dims, sub_dims, tensor_arg
from .common import (
    _LAYOUT_DOC,
    _OUT_DTYPE_DOC,
    _OUT_LAYOUT_DOC,
    _attrs,
    _check_rank,
    _compute_dtype,
    _contract,
    _convert,
    _Num,
    _padding4,
    _pair,
    _shape_str,
    _show,
    _windows,
)


@dataclass(frozen=True, slots=True)
class Conv2DAttrs(Attrs):
    """Attributes of ``nn.conv2d``: window geometry, grouping and layouts."""

    type_key: ClassVar[str] = "relay.attrs.Conv2DAttrs"
    strides: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Stride per spatial axis.")
    padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0, 0), doc="Zero padding: 1, 2 or 4 ints (top, left, bottom, right)."
    )
    dilation: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Dilation per spatial axis.")
    groups: int = attr_field(AttrKind.INT, 1, doc="Number of groups the channels split into.")
    channels: int | None = attr_field(
        AttrKind.INT, None, optional=True, doc="Output channels; None infers them from weight."
    )
    kernel_size: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, None, optional=True, doc="Window size; None infers it from weight."
    )
    data_layout: str = attr_field(AttrKind.STR, "NCHW", doc=_LAYOUT_DOC)
    kernel_layout: str = attr_field(AttrKind.STR, "OIHW", doc="Weight layout, e.g. OIHW.")
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)
    out_dtype: str = attr_field(AttrKind.DTYPE, "", doc=_OUT_DTYPE_DOC)


def _permutation(layout: str, canonical: str, what: str) -> tuple[int, ...]:
    """Indices taking an array in ``layout`` to ``canonical`` order (``np.transpose``)."""
    if len(layout) != len(canonical) or sorted(layout) != sorted(canonical):
        raise RelationError(
            f'{what}="{layout}" is not supported: expected a permutation of {canonical} '
            f"(packed layouts such as NCHW4c are not supported)"
        )
    return tuple(layout.index(axis) for axis in canonical)


def _window_extent(k: Dim, dilation: int) -> Dim:
    """``(k - 1) * dilation + 1``: the span of a dilated window."""
    return add_dims(mul_dims(sub_dims(k, 1), dilation), 1)


def _out_extent(n: int, pad: int, k: int, dilation: int, stride: int) -> int:
    return (n + pad - ((k - 1) * dilation + 1)) // stride + 1


def _conv2d_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Conv2D``: data in a permutation of NCHW, weight of OIHW, output of NCHW (``out_layout``
    ``""`` is ``data_layout``), or packed layouts (``_packed_conv2d_relation``); each spatial
    extent becomes ``floor((x + pad - ((k-1)*dil+1)) / stride) + 1`` (>= 0), ``?`` stays ``?``;
    dtype ``out_dtype`` or data's. ``channels`` and ``kernel_size``, when set, must agree with the
    weight (both set: the weight must be ``(channels, C/groups, kh, kw)``, or
    ``(C, channels/C, kh, kw)`` for a depthwise call, ``groups == C ==`` weight's O)."""
    a = _attrs(attrs, Conv2DAttrs)
    data = tensor_arg(arg_types[0], "data")
    weight = tensor_arg(arg_types[1], "weight")
    if _is_packed(a):
        return _packed_conv2d_relation(a, data, weight, "nn.conv2d")
    data_perm = _permutation(a.data_layout, "NCHW", "data_layout")
    kernel_perm = _permutation(a.kernel_layout, "OIHW", "kernel_layout")
    out_layout = a.out_layout or a.data_layout
    _permutation(out_layout, "NCHW", "out_layout")
    _check_rank(data, 4, f'data in data_layout="{a.data_layout}"')
    _check_rank(weight, 4, f'weight in kernel_layout="{a.kernel_layout}"')
    sh, sw = _pair(a.strides, "strides")
    dh, dw = _pair(a.dilation, "dilation")
    pt, pl, pb, pr = _padding4(a.padding)
    groups = a.groups
    if groups < 1:
        raise RelationError(f"expected groups >= 1, found groups={groups}")
    n, c, h, w = (data.shape[i] for i in data_perm)
    wshape = tuple(weight.shape[i] for i in kernel_perm)
    depthwise = groups > 1 and c == groups and wshape[0] == groups
    kernel_size = None if a.kernel_size is None else _pair(a.kernel_size, "kernel_size")
    channels: Dim
    kh: Dim
    kw: Dim
    if kernel_size is not None and a.channels is not None:
        if depthwise:
            expected = (c, floordiv_dims(a.channels, c), *kernel_size)
        else:
            expected = (a.channels, floordiv_dims(c, groups), *kernel_size)
        if any(dims_equal(f, e) is False for f, e in zip(wshape, expected, strict=True)):
            in_layout = tuple(expected["OIHW".index(axis)] for axis in a.kernel_layout)
            raise RelationError(
                f"weight shape {_shape_str(weight.shape)} does not match "
                f"{_shape_str(in_layout)} implied by channels={a.channels}, "
                f"kernel_size={_show(kernel_size)} and groups={groups}"
            )
        channels, (kh, kw) = a.channels, kernel_size
    else:
        if kernel_size is not None and any(
            dims_equal(f, e) is False for f, e in zip(wshape[2:], kernel_size, strict=True)
        ):
            raise RelationError(
                f"shape of weight {_shape_str(weight.shape)} is inconsistent with "
                f"kernel_size={_show(kernel_size)}"
            )
        if a.channels is not None and dims_equal(wshape[0], a.channels) is False:
            raise RelationError(
                f"weight {_shape_str(weight.shape)} has {wshape[0]} output channels, "
                f"expected channels={a.channels}"
            )
        if dims_equal(floordiv_dims(c, groups), wshape[1]) is False:
            raise RelationError(
                f"the input channels ({c}) divided by groups={groups} must match the input "
                f"channels of the weight ({wshape[1]}), weight shape {_shape_str(weight.shape)}"
            )
        channels, kh, kw = wshape[0], wshape[2], wshape[3]
    if groups > 1 and isinstance(c, int) and c % groups:
        raise RelationError(f"groups={groups} does not divide the input channels ({c})")
    if groups > 1 and not depthwise and isinstance(channels, int) and channels % groups:
        outputs = "" if a.channels is None else f" (channels={a.channels})"
        raise RelationError(
            f"groups={groups} does not divide the output channels ({channels}){outputs}"
        )
    # kernel_size, when set, is positive (_pair) and equals the weight's extents.
    if any(isinstance(k, int) and k < 1 for k in (kh, kw)):
        raise RelationError(
            f"expected a non-empty kernel, found weight shape {_shape_str(weight.shape)}"
        )
    oh = _conv_extent(h, pt + pb, _window_extent(kh, dh), sh)
    ow = _conv_extent(w, pl + pr, _window_extent(kw, dw), sw)
    nchw = (n, channels, oh, ow)
    oshape = tuple(nchw["NCHW".index(axis)] for axis in out_layout)
    return TensorType(oshape, a.out_dtype or data.dtype)


def _conv_extent(x: Dim, pad: int, window: Dim, stride: int) -> Dim:
    if isinstance(x, AnyDim):
        return ANY
    out = add_dims(floordiv_dims(sub_dims(add_dims(x, pad), window), stride), 1)
    if isinstance(out, int) and out < 0:
        raise RelationError(
            f"the kernel window ({window}) is longer than the padded input ({add_dims(x, pad)})"
        )
    return out


def _conv2d_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.conv2d``: cross-correlation on the zero-padded input, per group, both operands cast
    to the output dtype first (packed layouts: ``_packed_conv2d_reference``); a depthwise
    weight ``(C, m, kh, kw)`` is the grouped weight ``(C*m, 1, kh, kw)`` (topi's
    ``depthwise_conv2d_nchw``).

    Undefined: the convolutions' cases (the module docstring)."""
    a = _attrs(attrs, Conv2DAttrs)
    data, weight = args
    if _is_packed(a):
        return _packed_conv2d_reference(data, weight, a)
    dtype = np.dtype(a.out_dtype or data.dtype)
    x = _convert(
        np.transpose(data, _permutation(a.data_layout, "NCHW", "data_layout")), dtype, "nn.conv2d"
    )
    w = _convert(
        np.transpose(weight, _permutation(a.kernel_layout, "OIHW", "kernel_layout")),
        dtype,
        "nn.conv2d",
    )
    n, c, h, wd = x.shape
    o, i, kh, kw = w.shape
    g = a.groups
    if g > 1 and i != c // g:
        # Depthwise with a channel multiplier: TVM's weight (C, m, kh, kw) is the grouped
        # weight (C*m, 1, kh, kw) (topi depthwise_conv2d_nchw reads W[c, q] for channel c*m+q).
        o, i = o * i, 1
        w = w.reshape(o, i, kh, kw)
    pt, pl, pb, pr = _padding4(a.padding)
    strides, dilation = _pair(a.strides, "strides"), _pair(a.dilation, "dilation")
    oh = _out_extent(h, pt + pb, kh, dilation[0], strides[0])
    ow = _out_extent(wd, pl + pr, kw, dilation[1], strides[1])
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    cols = _windows(xp, (kh, kw), strides, dilation, (oh, ow))  # (N, C, OH, OW, KH, KW)
    cg, og = c // g, o // g
    cols = cols.reshape(n, g, cg, oh, ow, kh, kw).transpose(0, 1, 3, 4, 2, 5, 6)
    cols = cols.reshape(n, g, oh * ow, cg * kh * kw)
    wm = w.reshape(g, og, cg * kh * kw).transpose(0, 2, 1)
    out = _contract(cols, wm, "nn.conv2d")  # (N, G, OH*OW, O/G)
    out = out.reshape(n, g, oh, ow, og).transpose(0, 1, 4, 2, 3).reshape(n, o, oh, ow)
    out_layout = a.out_layout or a.data_layout
    return np.ascontiguousarray(np.transpose(out, tuple("NCHW".index(ax) for ax in out_layout)))


_op = OpRegistrar(__name__, inputs=("data", "weight"), pattern=OpPattern.OUT_ELEMWISE_FUSABLE)


_op(
    "nn.conv2d",
    "2-D convolution (cross-correlation) of data with weight.",
    relation=_conv2d_relation,
    reference=tensor_reference(_conv2d_reference),
    check="onnxruntime:Conv",
    relation_name="Conv2D",
    attrs_type=Conv2DAttrs,
)


_CHANNELS_DOC = "Output channels; None infers them from weight."


_KERNEL_DOC = "Window size; None infers it from weight."


_GROUPS_DOC = "Number of groups the channels split into."


@dataclass(frozen=True, slots=True)
class Conv1DAttrs(Attrs):
    """Attributes of ``nn.conv1d``: window geometry, grouping and layouts."""

    type_key: ClassVar[str] = "relay.attrs.Conv1DAttrs"
    strides: tuple[int, ...] = attr_field(AttrKind.INTS, (1,), doc="Stride of the window.")
    padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0, 0), doc="Zero padding: 1 or 2 ints (left, right)."
    )
    dilation: tuple[int, ...] = attr_field(AttrKind.INTS, (1,), doc="Dilation of the window.")
    groups: int = attr_field(AttrKind.INT, 1, doc=_GROUPS_DOC)
    channels: int | None = attr_field(AttrKind.INT, None, optional=True, doc=_CHANNELS_DOC)
    kernel_size: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, None, optional=True, doc=_KERNEL_DOC
    )
    data_layout: str = attr_field(AttrKind.STR, "NCW", doc="Input layout, e.g. NCW or NWC.")
    kernel_layout: str = attr_field(AttrKind.STR, "OIW", doc="Weight layout, e.g. OIW or WIO.")
    out_dtype: str = attr_field(AttrKind.DTYPE, "", doc=_OUT_DTYPE_DOC)


@dataclass(frozen=True, slots=True)
class Conv3DAttrs(Attrs):
    """Attributes of ``nn.conv3d``: window geometry, grouping and layouts."""

    type_key: ClassVar[str] = "relay.attrs.Conv3DAttrs"
    strides: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1, 1), doc="Stride per spatial axis.")
    padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0, 0, 0), doc="Zero padding: 1, 3 or 6 ints (front, top, left, ...)."
    )
    dilation: tuple[int, ...] = attr_field(
        AttrKind.INTS, (1, 1, 1), doc="Dilation per spatial axis."
    )
    groups: int = attr_field(AttrKind.INT, 1, doc=_GROUPS_DOC)
    channels: int | None = attr_field(AttrKind.INT, None, optional=True, doc=_CHANNELS_DOC)
    kernel_size: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, None, optional=True, doc=_KERNEL_DOC
    )
    data_layout: str = attr_field(AttrKind.STR, "NCDHW", doc="Input layout, e.g. NCDHW.")
    kernel_layout: str = attr_field(AttrKind.STR, "OIDHW", doc="Weight layout, e.g. OIDHW.")
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)
    out_dtype: str = attr_field(AttrKind.DTYPE, "", doc=_OUT_DTYPE_DOC)


@dataclass(frozen=True, slots=True)
class Conv1DTransposeAttrs(Attrs):
    """Attributes of ``nn.conv1d_transpose``: window geometry, grouping and layouts."""

    type_key: ClassVar[str] = "relay.attrs.Conv1DTransposeAttrs"
    channels: int | None = attr_field(AttrKind.INT, None, optional=True, doc=_CHANNELS_DOC)
    kernel_size: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, None, optional=True, doc=_KERNEL_DOC
    )
    strides: tuple[int, ...] = attr_field(AttrKind.INTS, (1,), doc="Stride of the window.")
    output_padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0,), doc="Extra output elements added at the end."
    )
    padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0,), doc="Padding removed from the output: 1 or 2 ints (left, right)."
    )
    dilation: tuple[int, ...] = attr_field(AttrKind.INTS, (1,), doc="Dilation of the window.")
    groups: int = attr_field(AttrKind.INT, 1, doc=_GROUPS_DOC)
    data_layout: str = attr_field(AttrKind.STR, "NCW", doc="Input layout, e.g. NCW or NWC.")
    kernel_layout: str = attr_field(AttrKind.STR, "IOW", doc="Weight layout, e.g. IOW.")
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)
    out_dtype: str = attr_field(AttrKind.DTYPE, "", doc=_OUT_DTYPE_DOC)


@dataclass(frozen=True, slots=True)
class Conv2DTransposeAttrs(Attrs):
    """Attributes of ``nn.conv2d_transpose``: window geometry, grouping and layouts."""

    type_key: ClassVar[str] = "relay.attrs.Conv2DTransposeAttrs"
    channels: int | None = attr_field(AttrKind.INT, None, optional=True, doc=_CHANNELS_DOC)
    kernel_size: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, None, optional=True, doc=_KERNEL_DOC
    )
    strides: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Stride per spatial axis.")
    output_padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0, 0), doc="Extra output rows and columns added at the end."
    )
    padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0, 0), doc="Padding removed from the output: 1, 2 or 4 ints."
    )
    dilation: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Dilation per spatial axis.")
    groups: int = attr_field(AttrKind.INT, 1, doc=_GROUPS_DOC)
    data_layout: str = attr_field(AttrKind.STR, "NCHW", doc=_LAYOUT_DOC)
    kernel_layout: str = attr_field(AttrKind.STR, "IOHW", doc="Weight layout, e.g. IOHW.")
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)
    out_dtype: str = attr_field(AttrKind.DTYPE, "", doc=_OUT_DTYPE_DOC)


def _per_axis(values: tuple[int, ...], nd: int, what: str, *, low: int = 1) -> tuple[int, ...]:
    """``values`` as exactly ``nd`` integers, each at least ``low``."""
    if len(values) != nd:
        plural = "integer" if nd == 1 else "integers"
        raise RelationError(f"{what} must hold {nd} {plural}, found {len(values)}: {values}")
    if min(values) < low:
        kind = "positive" if low == 1 else "non-negative"
        raise RelationError(f"{what} must be {kind}, found {values}")
    return values


def _padding_nd(
    padding: tuple[int, ...], nd: int, *, negative_ok: bool = False
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(befores, afters) from 1, ``nd`` or ``2 * nd`` integers (``GetPadding*`` in op_common.h)."""
    if len(padding) == 1:
        before = after = padding * nd
    elif len(padding) == nd:
        before = after = padding
    elif len(padding) == 2 * nd:
        before, after = padding[:nd], padding[nd:]
    else:
        counts = sorted({1, nd, 2 * nd})
        allowed = ", ".join(str(c) for c in counts[:-1]) + f" or {counts[-1]}"
        raise RelationError(f"padding must hold {allowed} integers, found {len(padding)}")
    if not negative_ok and min(padding) < 0:
        raise RelationError(f"padding must be non-negative, found {padding}")
    return tuple(before), tuple(after)


def _out_layout_perm(layout: str, canonical: str) -> tuple[int, ...]:
    """Indices taking an array in ``canonical`` order to ``layout`` (``np.transpose``)."""
    return tuple(canonical.index(axis) for axis in layout)


def _groups(groups: int) -> int:
    if groups < 1:
        raise RelationError(f"groups must be at least 1, found {groups}")
    return groups


def _divisible(d: Dim, groups: int, what: str) -> None:
    if groups > 1 and isinstance(d, int) and d % groups:
        raise RelationError(f"the {what} ({d}) are not divisible by groups ({groups})")


_ConvAttrs = Conv1DAttrs | Conv3DAttrs


def _conv_spatial(attrs: _ConvAttrs) -> str:
    return "W" if isinstance(attrs, Conv1DAttrs) else "DHW"


def _conv_out_layout(a: _ConvAttrs) -> str:
    if isinstance(a, Conv1DAttrs):
        return a.data_layout  # Conv1DAttrs declares no out_layout field
    return a.out_layout or a.data_layout


def _conv_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Conv1D``, ``Conv3D``: data in a permutation of NCW / NCDHW, weight of OIW / OIDHW
    ``(O, C/groups, k..)``, output in ``data_layout`` (conv1d) or ``out_layout`` (``""`` is
    ``data_layout``); each spatial extent becomes ``floor((x + pad - ((k-1)*dil+1)) / stride) +
    1``, ``?`` stays ``?``; ``channels`` and ``kernel_size``, when set, must match the weight;
    C and O divisible by groups; dtype ``out_dtype`` or data's.

    There is no depthwise weight form (TVM's conv2d reads ``(C, m, kh, kw)`` specially; its 1-D
    and 3-D relations do not either)."""
    if not isinstance(attrs, Conv1DAttrs | Conv3DAttrs):
        raise RelationError(f"expected convolution attributes, found {type(attrs).__name__}")
    a = attrs
    spatial = _conv_spatial(a)
    nd = len(spatial)
    data = tensor_arg(arg_types[0], "data")
    weight = tensor_arg(arg_types[1], "weight")
    data_perm = _permutation(a.data_layout, "NC" + spatial, "data_layout")
    kernel_perm = _permutation(a.kernel_layout, "OI" + spatial, "kernel_layout")
    out_layout = _conv_out_layout(a)
    _permutation(out_layout, "NC" + spatial, "out_layout")
    _check_rank(data, nd + 2, f"data in layout {a.data_layout}")
    _check_rank(weight, nd + 2, f"weight in layout {a.kernel_layout}")
    strides = _per_axis(a.strides, nd, "strides")
    dilation = _per_axis(a.dilation, nd, "dilation")
    before, after = _padding_nd(a.padding, nd)
    groups = _groups(a.groups)
    dshape = tuple(data.shape[i] for i in data_perm)
    wshape = tuple(weight.shape[i] for i in kernel_perm)
    n, c = dshape[0], dshape[1]
    if a.kernel_size is not None:
        kernel_size = _per_axis(a.kernel_size, nd, "kernel_size", low=0)
        if any(dims_equal(f, e) is False for f, e in zip(wshape[2:], kernel_size, strict=True)):
            raise RelationError(
                f"shape of weight {_shape_str(weight.shape)} is inconsistent with "
                f"kernel_size={kernel_size}"
            )
    if a.channels is not None and dims_equal(wshape[0], a.channels) is False:
        raise RelationError(
            f"weight {_shape_str(weight.shape)} has {wshape[0]} output channels, "
            f"expected channels={a.channels}"
        )
    if dims_equal(floordiv_dims(c, groups), wshape[1]) is False:
        raise RelationError(
            f"the input channels ({c}) divided by groups ({groups}) must match the input "
            f"channels of the weight ({wshape[1]}), weight shape {_shape_str(weight.shape)}"
        )
    channels = wshape[0] if a.channels is None else a.channels
    _divisible(c, groups, "input channels")
    _divisible(channels, groups, "output channels")
    extents: list[Dim] = []
    for axis in range(nd):
        k = wshape[2 + axis]
        if isinstance(k, int) and k < 1:
            raise RelationError(f"the kernel must be non-empty, found extent {k}")
        extents.append(
            _forward_extent(
                dshape[2 + axis],
                before[axis] + after[axis],
                _window_extent(k, dilation[axis]),
                strides[axis],
            )
        )
    canonical = (n, channels, *extents)
    oshape = tuple(canonical[("NC" + spatial).index(ax)] for ax in out_layout)
    return TensorType(oshape, a.out_dtype or data.dtype)


def _forward_extent(x: Dim, pad: int, window: Dim, stride: int) -> Dim:
    """``floor((x + pad - window) / stride) + 1``; the window must fit the padded input."""
    if isinstance(x, AnyDim):
        return ANY
    numerator = sub_dims(add_dims(x, pad), window)
    if isinstance(numerator, int) and numerator < 0:
        raise RelationError(
            f"the kernel window ({window}) is longer than the padded input ({add_dims(x, pad)})"
        )
    return add_dims(floordiv_dims(numerator, stride), 1)


def _correlate(
    x: _Num,
    w: _Num,
    strides: tuple[int, ...],
    dilation: tuple[int, ...],
    groups: int,
    op: str,
) -> _Num:
    """Grouped cross-correlation of ``x`` (N, C, *spatial), already padded, with ``w``
    (O, C/groups, *kernel), both in the output dtype, as an im2col matrix product."""

    nd = x.ndim - 2
    n, c = x.shape[:2]
    o, cg = w.shape[:2]
    kernel = w.shape[2:]
    spans = tuple((k - 1) * d + 1 for k, d in zip(kernel, dilation, strict=True))
    out = tuple(
        (size - span) // s + 1 for size, span, s in zip(x.shape[2:], spans, strides, strict=True)
    )
    axes = tuple(range(2, 2 + nd))
    if any(e <= 0 for e in out):
        cols = np.zeros((n, c, *(max(e, 0) for e in out), *kernel), x.dtype)
    else:
        view = sliding_window_view(x, spans, axis=axes)
        index = (
            slice(None),
            slice(None),
            *tuple(slice(0, (e - 1) * s + 1, s) for e, s in zip(out, strides, strict=True)),
            *tuple(slice(None, None, d) for d in dilation),
        )
        cols = np.asarray(view[index])  # (N, C, *out, *kernel)
    positions = int(np.prod(out, dtype=np.int64)) if all(e > 0 for e in out) else 0
    size = int(np.prod(kernel, dtype=np.int64))
    og = o // groups
    cols = cols.reshape(n, groups, cg, positions, size).transpose(0, 1, 3, 2, 4)
    cols = cols.reshape(n, groups, positions, cg * size)
    wm = w.reshape(groups, og, cg * size).transpose(0, 2, 1)
    result = _contract(cols, wm, op)  # (N, G, P, O/G)
    result = result.transpose(0, 1, 3, 2).reshape(n, o, *(max(e, 0) for e in out))
    return result


def _conv_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.conv1d``, ``nn.conv3d``: cross-correlation of the zero-padded input with the weight,
    per group, both operands cast to the output dtype first (as ``nn.conv2d``).

    Undefined: the convolutions' cases (the module docstring)."""
    if not isinstance(attrs, Conv1DAttrs | Conv3DAttrs):
        raise RelationError(f"expected convolution attributes, found {type(attrs).__name__}")
    a = attrs
    op = "nn.conv1d" if isinstance(a, Conv1DAttrs) else "nn.conv3d"
    spatial = _conv_spatial(a)
    nd = len(spatial)
    data, weight = args
    dtype = np.dtype(a.out_dtype or data.dtype)
    x = _convert(np.transpose(data, _permutation(a.data_layout, "NC" + spatial, "")), dtype, op)
    w = _convert(np.transpose(weight, _permutation(a.kernel_layout, "OI" + spatial, "")), dtype, op)
    before, after = _padding_nd(a.padding, nd)
    xp = np.pad(x, ((0, 0), (0, 0), *zip(before, after, strict=True)))
    out = _correlate(xp, w, a.strides, a.dilation, a.groups, op)
    perm = _out_layout_perm(_conv_out_layout(a), "NC" + spatial)
    return np.ascontiguousarray(np.transpose(out, perm))


_TransposeAttrs = Conv1DTransposeAttrs | Conv2DTransposeAttrs


def _transpose_spatial(a: _TransposeAttrs) -> str:
    return "W" if isinstance(a, Conv1DTransposeAttrs) else "HW"


def _transpose_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Conv1DTranspose``, ``Conv2DTranspose``: data in a permutation of NCW / NCHW, weight of
    IOW / IOHW ``(C, O/groups, k..)``; C must equal the weight's I; the output has
    ``O = groups *`` weight's O channels (or ``channels`` when set) and spatial extents
    ``stride*(x-1) + (k-1)*dil + 1 - pad + output_padding`` (``?`` stays ``?``), which must be
    >= 0; ``0 <= output_padding < stride`` (topi asserted it).

    Departures from TVM: a grouped call without both ``channels`` and ``kernel_size`` has
    ``groups * O`` output channels, what topi's ``group_conv2d_transpose`` computes (TVM's
    relation said the weight's O); dilation and groups are accepted for 1-D as for 2-D (TVM's
    strategy refused dilation other than 1, and groups other than 1 for 1-D)."""
    if not isinstance(attrs, Conv1DTransposeAttrs | Conv2DTransposeAttrs):
        raise RelationError(
            f"expected transposed convolution attributes, found {type(attrs).__name__}"
        )
    a = attrs
    spatial = _transpose_spatial(a)
    nd = len(spatial)
    data = tensor_arg(arg_types[0], "data")
    weight = tensor_arg(arg_types[1], "weight")
    data_perm = _permutation(a.data_layout, "NC" + spatial, "data_layout")
    kernel_perm = _permutation(a.kernel_layout, "IO" + spatial, "kernel_layout")
    out_layout = a.out_layout or a.data_layout
    _permutation(out_layout, "NC" + spatial, "out_layout")
    _check_rank(data, nd + 2, f"data in layout {a.data_layout}")
    _check_rank(weight, nd + 2, f"weight in layout {a.kernel_layout}")
    strides = _per_axis(a.strides, nd, "strides")
    dilation = _per_axis(a.dilation, nd, "dilation")
    output_padding = _per_axis(a.output_padding, nd, "output_padding", low=0)
    if any(p >= s for p, s in zip(output_padding, strides, strict=True)):
        raise RelationError(
            f"output_padding={output_padding} must be smaller than strides={strides}"
        )
    before, after = _padding_nd(a.padding, nd)
    groups = _groups(a.groups)
    dshape = tuple(data.shape[i] for i in data_perm)
    wshape = tuple(weight.shape[i] for i in kernel_perm)
    n, c = dshape[0], dshape[1]
    if a.kernel_size is not None:
        kernel_size = _per_axis(a.kernel_size, nd, "kernel_size", low=0)
        if any(dims_equal(f, e) is False for f, e in zip(wshape[2:], kernel_size, strict=True)):
            raise RelationError(
                f"shape of weight {_shape_str(weight.shape)} is inconsistent with "
                f"kernel_size={kernel_size}"
            )
    if a.channels is not None:
        if a.channels % groups:
            raise RelationError(f"channels={a.channels} is not divisible by groups ({groups})")
        if dims_equal(wshape[1], a.channels // groups) is False:
            raise RelationError(
                f"weight {_shape_str(weight.shape)} has {wshape[1]} output channels per "
                f"group, expected channels / groups = {a.channels} / {groups}"
            )
    if dims_equal(c, wshape[0]) is False:
        raise RelationError(
            f"the input channels ({c}) must match the weight's input channels ({wshape[0]}), "
            f"weight shape {_shape_str(weight.shape)}"
        )
    _divisible(c, groups, "input channels")
    channels: Dim = a.channels if a.channels is not None else mul_dims(wshape[1], groups)
    extents: list[Dim] = []
    for axis in range(nd):
        k = wshape[2 + axis]
        if isinstance(k, int) and k < 1:
            raise RelationError(f"the kernel must be non-empty, found extent {k}")
        x = dshape[2 + axis]
        if isinstance(x, AnyDim):
            extents.append(ANY)
            continue
        grown = add_dims(mul_dims(sub_dims(x, 1), strides[axis]), _window_extent(k, dilation[axis]))
        extent = add_dims(grown, output_padding[axis] - before[axis] - after[axis])
        if isinstance(extent, int) and extent < 0:
            raise RelationError(
                f"the padding ({before[axis] + after[axis]}) removes more than the "
                f"transposed convolution's output extent ({add_dims(grown, output_padding[axis])})"
            )
        extents.append(extent)
    canonical = (n, channels, *extents)
    oshape = tuple(canonical[("NC" + spatial).index(ax)] for ax in out_layout)
    return TensorType(oshape, a.out_dtype or data.dtype)


def _transpose_scatter(
    x: _Num,
    w: _Num,
    groups: int,
    strides: tuple[int, ...],
    dilation: tuple[int, ...],
    before: tuple[int, ...],
    out_extents: tuple[int, ...],
) -> _Num:
    """The float transposed convolution as its sum: each window offset ``j`` adds
    ``x[n, c, i..] * w[c, o, j..]`` at ``y = i*stride - pad_before + j*dil``. Only those terms:
    the zeros of topi's stride-dilated, padded input would add ``0 * w``, NaN where ``w`` is
    infinite, to outputs that ``x`` does not reach. Accumulated in the compute dtype, rounded
    once (as ``_contract``)."""
    n, c, *size = x.shape
    og, kernel = w.shape[1], w.shape[2:]
    cg = c // groups
    cd = _compute_dtype(x.dtype)
    full = tuple(
        max(s * (e - 1) + (k - 1) * d + 1, b + o)
        for e, s, k, d, b, o in zip(
            size, strides, kernel, dilation, before, out_extents, strict=True
        )
    )
    acc = np.zeros((n, groups * og, *full), cd)
    # (N, G, positions, C/G) @ (G, C/G, O/G) for each window offset
    xs = x.astype(cd).reshape(n, groups, cg, -1).transpose(0, 1, 3, 2)
    wg = w.astype(cd).reshape(groups, cg, og, *kernel)
    with np.errstate(all="ignore"):
        for j in np.ndindex(*kernel):
            part = np.matmul(xs, wg[(Ellipsis, *j)]).transpose(0, 1, 3, 2)
            at = tuple(
                slice(jj * d, jj * d + (e - 1) * s + 1, s)
                for jj, d, e, s in zip(j, dilation, size, strides, strict=True)
            )
            acc[(slice(None), slice(None), *at)] += part.reshape(n, groups * og, *size)
    crop = tuple(slice(b, b + o) for b, o in zip(before, out_extents, strict=True))
    return acc[(slice(None), slice(None), *crop)].astype(x.dtype)


def _transpose_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.conv1d_transpose``, ``nn.conv2d_transpose``: the adjoint of the forward
    correlation, ``out[n, g*O/G + o, y..] = sum`` over ``c`` in group ``g`` and window offsets
    ``j`` of ``x[n, c, i..] * w[c, o, j..]`` where ``y = i*stride - pad_before + j*dil``;
    equivalently (topi) a correlation of the stride-dilated input, padded
    ``(k-1)*dil - pad_before`` before and ``(k-1)*dil - pad_after + output_padding`` after
    (negative crops), with the kernel flipped, except that the dilation's and padding's zeros
    contribute nothing (not ``0 * w``, NaN for an infinite weight): output positions nothing
    reaches are 0; this is the standard meaning, which onnxruntime's ConvTranspose agrees with.

    Undefined: the convolutions' cases (the module docstring)."""
    if not isinstance(attrs, Conv1DTransposeAttrs | Conv2DTransposeAttrs):
        raise RelationError(
            f"expected transposed convolution attributes, found {type(attrs).__name__}"
        )
    a = attrs
    op = "nn.conv1d_transpose" if isinstance(a, Conv1DTransposeAttrs) else "nn.conv2d_transpose"
    spatial = _transpose_spatial(a)
    nd = len(spatial)
    data, weight = args
    dtype = np.dtype(a.out_dtype or data.dtype)
    x = _convert(np.transpose(data, _permutation(a.data_layout, "NC" + spatial, "")), dtype, op)
    w = _convert(np.transpose(weight, _permutation(a.kernel_layout, "IO" + spatial, "")), dtype, op)
    n, c = x.shape[:2]
    cin, og = w.shape[:2]
    kernel = w.shape[2:]
    groups = a.groups
    cg = cin // groups
    before, after = _padding_nd(a.padding, nd)
    strides, dilation, opad = a.strides, a.dilation, a.output_padding
    out_extents = tuple(
        s * (size - 1) + (k - 1) * d + 1 - b - e + p
        for size, s, k, d, b, e, p in zip(
            x.shape[2:], strides, kernel, dilation, before, after, opad, strict=True
        )
    )
    if any(size == 0 for size in x.shape[2:]):
        # No input position contributes: every output is the empty sum.
        out = np.zeros((n, og * groups, *out_extents), dtype)
    elif dtype.kind == "f":
        out = _transpose_scatter(x, w, groups, strides, dilation, before, out_extents)
    else:
        # Integers: the stride-dilated, padded input's zeros add exactly nothing.
        # The grouped forward weight (O, C/groups, *k), flipped: w'[g*og + j, i] = w[g*cg + i, j].
        flipped = w[(slice(None), slice(None)) + (slice(None, None, -1),) * nd]
        wf = flipped.reshape(groups, cg, og, *kernel).transpose(0, 2, 1, *range(3, 3 + nd))
        wf = wf.reshape(groups * og, cg, *kernel)
        # Dilate the input by the stride, then pad (k-1)*d - before and (k-1)*d - after + opad
        # (a negative amount crops).
        dilated_shape = tuple(
            (size - 1) * s + 1 for size, s in zip(x.shape[2:], strides, strict=True)
        )
        xd = np.zeros((n, c, *dilated_shape), dtype)
        xd[(slice(None), slice(None), *tuple(slice(None, None, s) for s in strides))] = x
        lead = [(k - 1) * d - b for k, d, b in zip(kernel, dilation, before, strict=True)]
        tail = [
            (k - 1) * d - e + p for k, d, e, p in zip(kernel, dilation, after, opad, strict=True)
        ]
        xp = np.pad(
            xd,
            (
                (0, 0),
                (0, 0),
                *((max(lo, 0), max(hi, 0)) for lo, hi in zip(lead, tail, strict=True)),
            ),
        )
        crop = tuple(
            slice(max(-lo, 0), xp.shape[2 + i] - max(-hi, 0))
            for i, (lo, hi) in enumerate(zip(lead, tail, strict=True))
        )
        xp = xp[(slice(None), slice(None), *crop)]
        out = _correlate(xp, wf, (1,) * nd, dilation, groups, op)
    perm = _out_layout_perm(a.out_layout or a.data_layout, "NC" + spatial)
    return np.ascontiguousarray(np.transpose(out, perm))


for _name, _attrs_type, _relation_name, _doc, _check in (
    ("nn.conv1d", Conv1DAttrs, "Conv1D", "1-D convolution (cross-correlation).", "Conv"),
    ("nn.conv3d", Conv3DAttrs, "Conv3D", "3-D convolution (cross-correlation).", "Conv"),
):
    _op(
        _name,
        _doc,
        relation=_conv_relation,
        reference=tensor_reference(_conv_reference),
        check=f"onnxruntime:{_check}",
        relation_name=_relation_name,
        attrs_type=_attrs_type,
    )


for _name, _transpose_attrs, _relation_name, _doc in (
    (
        "nn.conv1d_transpose",
        Conv1DTransposeAttrs,
        "Conv1DTranspose",
        "Transposed 1-D convolution (the adjoint of conv1d).",
    ),
    (
        "nn.conv2d_transpose",
        Conv2DTransposeAttrs,
        "Conv2DTranspose",
        "Transposed 2-D convolution (the adjoint of conv2d).",
    ),
):
    _op(
        _name,
        _doc,
        relation=_transpose_relation,
        reference=tensor_reference(_transpose_reference),
        check="onnxruntime:ConvTranspose",
        relation_name=_relation_name,
        attrs_type=_transpose_attrs,
    )


# nn.contrib_conv2d_NCHWc: conv2d over packed layouts (TVM's Conv2DAttrs).


def _repack_type(t: TensorType, src: str, dst: str, what: str, layout: str) -> TensorType:
    """``t``'s shape moved from layout ``src`` to ``dst`` as ``layout_transform`` does; its
    errors are said of the attribute ``what="layout"`` that named the packed layout."""
    try:
        out = _layout_transform_relation((t,), LayoutTransformAttrs(src_layout=src, dst_layout=dst))
    except RelationError as e:
        raise RelationError(f'{what}="{layout}": {e}') from None
    assert isinstance(out, TensorType)
    return out


def _nchwc_attrs(a: Conv2DAttrs) -> Conv2DAttrs:
    """The ``nn.conv2d`` attributes of the unpacked call: the same window and dtype over
    NCHW data, an OIHW weight and an NCHW result."""
    return Conv2DAttrs(
        strides=a.strides,
        padding=a.padding,
        dilation=a.dilation,
        groups=a.groups,
        channels=a.channels,
        kernel_size=a.kernel_size,
        out_dtype=a.out_dtype,
    )


def _is_packed(a: Conv2DAttrs) -> bool:
    """Whether a layout of ``a`` has a sub-axis (is not a permutation of plain axes)."""
    layouts = (a.data_layout, a.kernel_layout, a.out_layout)
    return any(not c.isupper() for layout in layouts for c in layout)


def _conv2d_nchwc_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """Conv2DNCHWc (TVM 0.18 registers ``Conv2DWinogradRel<Conv2DAttrs>`` under that name):
    ``_packed_conv2d_relation``, and, like TVM's relation, channels and kernel_size must both
    be set (TVM: set or inferred by the layout-altering pass that made the call)."""
    a = _attrs(attrs, Conv2DAttrs)
    data = tensor_arg(arg_types[0], "data")
    weight = tensor_arg(arg_types[1], "weight")
    if a.channels is None or a.kernel_size is None:
        missing = "channels" if a.channels is None else "kernel_size"
        raise RelationError(
            f"{missing} must be set: nn.contrib_conv2d_NCHWc needs both channels and "
            "kernel_size (TVM: set or inferred by a previous pass)"
        )
    return _packed_conv2d_relation(a, data, weight, "nn.contrib_conv2d_NCHWc")


def _packed_conv2d_relation(
    a: Conv2DAttrs, data: TensorType, weight: TensorType, op: str
) -> TensorType:
    """A convolution over packed layouts (``nn.conv2d`` with a packed layout, and
    ``nn.contrib_conv2d_NCHWc``).

    data is in ``data_layout`` (``NCHW4c``: (N, C/4, H, W, 4); VTA's ``NCHW1n16c``: (N, C/16,
    H, W, 1, 16)), weight in ``kernel_layout`` (``OIHW4i4o``: (O/4, I/4, KH, KW, 4, 4)), the
    result in ``out_layout`` ("" = data_layout); each layout holds the primal axes NCHW (OIHW)
    once each, in any order, and at most one sub-axis ``<factor><letter>`` per primal axis, as
    ``layout_transform`` reads them. The unpacked shapes (data (N, C, H, W), weight (O, I, KH,
    KW)) must type ``nn.conv2d`` with the same strides, padding, dilation, channels,
    kernel_size and out_dtype, whose NCHW result is packed into out_layout; a split axis of
    the result must be divisible by its factor. The result dtype is out_dtype or data's.

    Departures, each a RelationError naming the attribute: groups must be 1 (TVM's
    NCHWc relation ignored groups, and topi's conv2d_NCHWc computes an ungrouped convolution;
    the packed depthwise form is ``nn.contrib_depthwise_conv2d_NCHWc``, not registered here);
    the weight is checked against channels and kernel_size when they are set."""
    if a.groups != 1:
        raise RelationError(
            f"groups={a.groups} is not supported: {op} over packed layouts computes an "
            "ungrouped convolution (groups=1)"
        )
    out_layout = a.out_layout or a.data_layout
    nchw = _repack_type(data, a.data_layout, "NCHW", "data_layout", a.data_layout)
    oihw = _repack_type(weight, a.kernel_layout, "OIHW", "kernel_layout", a.kernel_layout)
    # Check out_layout names NCHW's axes before the conv2d relation's messages.
    _repack_type(TensorType((ANY,) * 4, data.dtype), "NCHW", out_layout, "out_layout", out_layout)
    try:
        result = _conv2d_relation((nchw, oihw), _nchwc_attrs(a))
    except RelationError as e:
        raise RelationError(
            f"unpacked to NCHW data {_shape_str(nchw.shape)} and OIHW weight "
            f"{_shape_str(oihw.shape)}: {e}"
        ) from None
    assert isinstance(result, TensorType)
    return _repack_type(result, "NCHW", out_layout, "out_layout", out_layout)


def _conv2d_nchwc_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``_packed_conv2d_reference``. topi's conv2d_NCHWc computes the same sums directly in
    the packed layout."""
    data, weight = args
    return _packed_conv2d_reference(data, weight, _attrs(attrs, Conv2DAttrs))


def _packed_conv2d_reference(data: _Num, weight: _Num, a: Conv2DAttrs) -> _Num:
    """A convolution over packed layouts: the ``nn.conv2d`` meaning on the unpacked operands:
    data unpacked from data_layout to NCHW and the weight from kernel_layout to OIHW
    (``layout_transform``'s meaning), the ``nn.conv2d`` reference with the same window and
    out_dtype (so its integer, float16 and undefined cases are conv2d's), and the NCHW result
    packed into out_layout."""
    out_layout = a.out_layout or a.data_layout

    def repack(x: _Num, src: str, dst: str) -> _Num:
        out = _layout_transform_reference(
            (x,), LayoutTransformAttrs(src_layout=src, dst_layout=dst)
        )
        assert isinstance(out, np.ndarray)
        return out

    x = repack(data, a.data_layout, "NCHW")
    w = repack(weight, a.kernel_layout, "OIHW")
    out = _conv2d_reference((x, w), _nchwc_attrs(a))
    assert isinstance(out, np.ndarray)
    return np.ascontiguousarray(repack(out, "NCHW", out_layout))


_op(
    "nn.contrib_conv2d_NCHWc",
    "2-D convolution over packed layouts (NCHW4c data, OIHW4i4o weight).",
    relation=_conv2d_nchwc_relation,
    reference=tensor_reference(_conv2d_nchwc_reference),
    check="independent:direct loops in the packed layout",
    relation_name="Conv2DNCHWc",
    attrs_type=Conv2DAttrs,
)
