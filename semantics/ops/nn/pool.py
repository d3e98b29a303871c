"""Pooling: max, average, global and adaptive pools in 1, 2 and 3 dimensions.

::

    nn.max_pool1d(data, pool_size=, strides=(1,), dilation=(1,), padding=(0,),
                  layout="NCW", out_layout="", ceil_mode=False)      MaxPool1DAttrs  out-fusable
    nn.avg_pool1d(data, ..., count_include_pad=False)                AvgPool1DAttrs  out-fusable
    nn.max_pool2d(data, pool_size=, ...)                             MaxPool2DAttrs  out-fusable
    nn.avg_pool2d(data, pool_size=, ...)                             AvgPool2DAttrs  out-fusable
    nn.max_pool3d(data, pool_size=, strides=(1, 1, 1), dilation=(1, 1, 1), padding=(0, 0, 0),
                  layout="NCDHW", out_layout="", ceil_mode=False)    MaxPool3DAttrs  out-fusable
    nn.avg_pool3d(data, ..., count_include_pad=False)                AvgPool3DAttrs  out-fusable
    nn.adaptive_avg_pool2d | nn.adaptive_max_pool2d(data, output_size=(), layout="NCHW",
                  out_layout="")                                AdaptivePool2DAttrs  out-fusable
    nn.global_avg_pool2d | nn.global_max_pool2d(data, layout="NCHW", out_layout="")
                                                                GlobalPool2DAttrs    out-fusable

out-fusable is out_elemwise_fusable. Shared by the pools:

- A pooling layout is a TVM layout string (``NCW``, ``NHWC``, ``NCDHW``, ``NCHW16c``) with one
  axis per data axis, holding each pooled axis once and not split (no ``w`` sub-axis);
  ``out_layout`` is not used by any relation.
- Padding holds 1 integer (every side), one per pooled axis (both ends of it), or two per
  pooled axis (all the befores, then all the afters: ``(left, right)`` in 1-D, ``(front, top,
  left, back, bottom, right)`` in 3-D), as ``Pool1DRel``, ``Pool2DRel`` and ``Pool3DRel`` read
  it.
- Max pools pad with, and start their reduction from, the dtype's lowest finite value
  (``tvm::min_value``, not -inf: float16 -65504, INT_MIN, 0, false), and a window holding NaN
  is undefined (Max is ``select(a > b, a, b)``, an ordered compare, so the result depends on
  the reduction order).
- Average pools compute float16 in float32 and round once (``common``); on integers a 32/64-bit
  overflow of a sum and a zero divisor are undefined, and so is bool data.
- Departures from TVM 0.18: a window longer than the padded input (TVM's relation divided with
  truncation there, topi with floor, so the two disagreed), negative padding, non-positive
  pool_size, strides or dilation, and lists of the wrong length are rejected; adaptive output
  sizes must be non-negative and at most 2 of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...syntax import ANY, AnyDim, Dim, TensorType, Type
from ..elementwise import _exact
from ..registry import (
    AttrKind,
    Attrs,
    OpPattern,
    OpRegistrar,
    RelationError,
    attr_field,
    tensor_reference,
)
from ..shapes import add_dims, floordiv_dims, sub_dims, tensor_arg
from .common import (
    _LAYOUT_DOC,
    _OUT_LAYOUT_DOC,
    _attrs,
    _compute_dtype,
    _int_result,
    _Num,
    _padding4,
    _pair,
    _ub,
    _windows,
)
from .conv import _padding_nd, _per_axis


@dataclass(frozen=True, slots=True)
class MaxPool2DAttrs(Attrs):
    """Attributes of ``nn.max_pool2d``: window geometry and layouts."""

    type_key: ClassVar[str] = "relay.attrs.MaxPool2DAttrs"
    pool_size: tuple[int, ...] = attr_field(AttrKind.INTS, doc="Size of the pooling window.")
    strides: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Stride per spatial axis.")
    dilation: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Dilation per spatial axis.")
    padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0, 0), doc="Padding: 1, 2 or 4 ints (top, left, bottom, right)."
    )
    layout: str = attr_field(AttrKind.STR, "NCHW", doc=_LAYOUT_DOC)
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)
    ceil_mode: bool = attr_field(
        AttrKind.BOOL, False, doc="Round the output extent up instead of down."
    )


@dataclass(frozen=True, slots=True)
class AvgPool2DAttrs(Attrs):
    """Attributes of ``nn.avg_pool2d``: window geometry, layouts and padding policy."""

    type_key: ClassVar[str] = "relay.attrs.AvgPool2DAttrs"
    pool_size: tuple[int, ...] = attr_field(AttrKind.INTS, doc="Size of the pooling window.")
    strides: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Stride per spatial axis.")
    dilation: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Dilation per spatial axis.")
    padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0, 0), doc="Padding: 1, 2 or 4 ints (top, left, bottom, right)."
    )
    layout: str = attr_field(AttrKind.STR, "NCHW", doc=_LAYOUT_DOC)
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)
    ceil_mode: bool = attr_field(
        AttrKind.BOOL, False, doc="Round the output extent up instead of down."
    )
    count_include_pad: bool = attr_field(
        AttrKind.BOOL, False, doc="Count padded elements in each average's divisor."
    )


@dataclass(frozen=True, slots=True)
class GlobalPool2DAttrs(Attrs):
    """Attributes of ``nn.global_avg_pool2d``: the layouts."""

    type_key: ClassVar[str] = "relay.attrs.GlobalPool2DAttrs"
    layout: str = attr_field(AttrKind.STR, "NCHW", doc=_LAYOUT_DOC)
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)


_LAYOUT_AXIS = re.compile(r"[A-Z]|[0-9]*[a-z]")


def _spatial_axes(layout: str, rank: int) -> tuple[int, int]:
    """The H and W positions of a pooling ``layout`` (a TVM layout string of ``rank`` axes)."""
    axes = _LAYOUT_AXIS.findall(layout)
    if "".join(axes) != layout or not axes:
        raise RelationError(f'layout="{layout}" is not a layout string')
    primal = [a for a in axes if a.isupper()]
    if len(set(primal)) != len(primal) or "H" not in primal or "W" not in primal:
        raise RelationError(f'layout="{layout}" is invalid: expected one H and one W axis')
    if any(a[-1] in "hw" for a in axes):
        raise RelationError(f'layout="{layout}" is invalid: H and W cannot be split')
    if len(axes) != rank:
        raise RelationError(f'layout="{layout}" has {len(axes)} axes but the data has rank {rank}')
    return axes.index("H"), axes.index("W")


def _trunc_div(a: _Num, b: _Num) -> _Num:
    """Integer division truncating toward zero, on exact (object) integers."""
    q = np.abs(a) // np.abs(b)
    return np.asarray(np.where((a < 0) != (b < 0), -q, q))


def _known(d: Dim) -> int:
    assert isinstance(d, int), f"expected a known extent, found {d}"
    return d


_Pool2DAttrs = MaxPool2DAttrs | AvgPool2DAttrs


class _PoolGeometry:
    """A pooling call's window, resolved: H/W axes, window, strides, dilation, padding."""

    def __init__(self, a: _Pool2DAttrs, rank: int) -> None:
        self.hidx, self.widx = _spatial_axes(a.layout, rank)
        self.kernel = _pair(a.pool_size, "pool_size")
        self.strides = _pair(a.strides, "strides")
        self.dilation = _pair(a.dilation, "dilation")
        top, left, bottom, right = _padding4(a.padding)
        self.head = (top, left)
        self.tail = (bottom, right)
        # ceil_mode pads stride - 1 more at the end (pool_impl_nd's offset).
        self.offset = (self.strides[0] - 1, self.strides[1] - 1) if a.ceil_mode else (0, 0)

    def extent(self, axis: int, x: Dim) -> Dim:
        """The output extent along spatial ``axis`` (0: H, 1: W) of an input extent ``x``."""
        if isinstance(x, AnyDim):
            return ANY
        pad = self.head[axis] + self.tail[axis] + self.offset[axis]
        window = (self.kernel[axis] - 1) * self.dilation[axis] + 1
        numerator = sub_dims(add_dims(x, pad), window)
        if isinstance(numerator, int) and numerator < 0:
            raise RelationError(
                f"the pooling window ({window}) is longer than the padded input "
                f"({add_dims(x, pad)})"
            )
        return add_dims(floordiv_dims(numerator, self.strides[axis]), 1)


def _pool2d_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``MaxPool2D``, ``AvgPool2D``: H and W of ``layout`` become
    ``floor((x + pad - ((k-1)*dil+1) [+ stride-1 when ceil_mode]) / stride) + 1``;
    the other axes and the dtype are kept."""
    if not isinstance(attrs, MaxPool2DAttrs | AvgPool2DAttrs):
        raise RelationError(f"expected pooling attributes, found {type(attrs).__name__}")
    data = tensor_arg(arg_types[0], "data")
    if len(data.shape) < 2:
        raise RelationError(f"expected data of rank at least 2, found rank {len(data.shape)}")
    geometry = _PoolGeometry(attrs, len(data.shape))
    shape = list(data.shape)
    for axis, index in enumerate((geometry.hidx, geometry.widx)):
        shape[index] = geometry.extent(axis, data.shape[index])
    return TensorType(tuple(shape), data.dtype)


def _pool_windows(
    data: _Num, g: _PoolGeometry, fill: np.number[Any] | np.bool_ | int
) -> tuple[_Num, tuple[int, int]]:
    """Windows ``(.., OH, OW, KH, KW)`` of ``data`` with H and W moved last, padded with
    ``fill`` (the ceil_mode extension included), and the output extents."""
    x = np.moveaxis(data, (g.hidx, g.widx), (-2, -1))
    oh, ow = (_known(g.extent(i, x.shape[-2 + i])) for i in range(2))
    pads = [(0, 0)] * (x.ndim - 2) + [(g.head[i], g.tail[i] + g.offset[i]) for i in range(2)]
    xp = np.pad(x, pads, constant_values=fill)
    return _windows(xp, g.kernel, g.strides, g.dilation, (oh, ow)), (oh, ow)


def _restore_axes(out: _Num, g: _PoolGeometry) -> _Num:
    return np.ascontiguousarray(np.moveaxis(out, (-2, -1), (g.hidx, g.widx)))


def _lowest(dtype: np.dtype[Any]) -> np.number[Any] | np.bool_:
    """``tvm::min_value``: the lowest finite value (float16: -65504), INT_MIN, 0, false."""
    if dtype.kind == "f":
        finite: np.number[Any] = np.finfo(dtype).min
        return finite
    if dtype == np.bool_:
        return np.bool_(False)
    lowest: np.number[Any] = dtype.type(np.iinfo(dtype).min)
    return lowest


def _max_pool2d_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.max_pool2d``: the max over the dilated window of the input padded with the lowest
    finite value (an all -inf window gives that value); ``ceil_mode`` pads stride-1 more at the
    end (``pool_impl_nd`` in ``topi/nn/pooling.h``) and keeps a last window starting in that
    padding (onnxruntime drops it).

    Undefined: a window holding NaN."""
    a = _attrs(attrs, MaxPool2DAttrs)
    data = args[0]
    g = _PoolGeometry(a, data.ndim)
    lowest = _lowest(data.dtype)
    win, _ = _pool_windows(data, g, lowest)
    if data.dtype.kind == "f" and np.isnan(win).any():
        raise _ub("nn.max_pool2d", "a pooling window holds NaN (the result depends on order)")
    # te.max starts its reduction from the lowest finite value.
    out: _Num = win.max(axis=(-2, -1), initial=lowest)
    return _restore_axes(out.astype(data.dtype), g)


def _avg_divisor(
    g: _PoolGeometry, extent: tuple[int, int], out: tuple[int, int], include_pad: bool
) -> _Num:
    """The divisor of every output position, as topi's ``pool_impl_nd`` computes it."""
    factors = []
    for i in range(2):
        k, s, d = g.kernel[i], g.strides[i], g.dilation[i]
        start = np.arange(out[i], dtype=np.int64) * s - g.head[i]
        end = start + (k - 1) * d
        if include_pad:
            last = extent[i] + g.tail[i] - 1  # the ceil_mode extension is not counted
            first = start
        else:
            last = extent[i] - 1
            jumps = np.maximum(_trunc_div(_exact(d - 1 - start), np.asarray(d)), 0)
            first = start + d * jumps.astype(np.int64)
        span = _exact(np.minimum(end, last) - first)
        factors.append(_trunc_div(span, np.asarray(d)).astype(np.int64) + 1)
    count = factors[0][:, None] * factors[1][None, :]
    return count if include_pad else np.maximum(count, 1)


def _avg_pool2d_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.avg_pool2d``: the window sum of the zero-padded input divided by, with
    ``count_include_pad``, the number of window positions up to the end of the user padding
    (the ceil_mode extension excluded), otherwise ``max(1, positions inside the input)``. Both
    counts use TVM's formulas, truncating integer division included.

    Undefined on integers: 32/64-bit overflow of a window sum; a zero divisor (a ceil_mode
    window wholly in the extension counts 0 with ``count_include_pad``; for floats that is
    NaN); bool data."""
    a = _attrs(attrs, AvgPool2DAttrs)
    data = args[0]
    op = "nn.avg_pool2d"
    if data.dtype == np.bool_:
        raise _ub(op, "bool data (sums of bool have no defined meaning)")
    g = _PoolGeometry(a, data.ndim)
    extent = (data.shape[g.hidx], data.shape[g.widx])
    if data.dtype.kind == "f":
        win, out = _pool_windows(data.astype(_compute_dtype(data.dtype)), g, 0)
        divisor = _avg_divisor(g, extent, out, a.count_include_pad)
        with np.errstate(all="ignore"):
            result = win.sum(axis=(-2, -1)) / divisor.astype(win.dtype)
        return _restore_axes(np.asarray(result).astype(data.dtype), g)
    win, out = _pool_windows(data, g, 0)
    total = _int_result(_exact(win).sum(axis=(-2, -1)), data.dtype, op, "a window sum")
    divisor = _avg_divisor(g, extent, out, a.count_include_pad)
    if (divisor == 0).any():
        raise _ub(op, "integer division by a zero element count")
    quotient = _trunc_div(_exact(total), _exact(np.broadcast_to(divisor, total.shape)))
    return _restore_axes(_int_result(quotient, data.dtype, op, "an average"), g)


def _global_pool2d_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``GlobalAvgPool2D``, ``GlobalMaxPool2D``: H and W of ``layout`` become 1."""
    a = _attrs(attrs, GlobalPool2DAttrs)
    data = tensor_arg(arg_types[0], "data")
    if len(data.shape) < 2:
        raise RelationError(f"expected data of rank at least 2, found rank {len(data.shape)}")
    hidx, widx = _spatial_axes(a.layout, len(data.shape))
    shape = list(data.shape)
    shape[hidx] = shape[widx] = 1
    return TensorType(tuple(shape), data.dtype)


def _global_avg_pool2d_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.global_avg_pool2d``: the mean over H and W, ``sum / (H*W)``.

    Undefined on integers: 32/64-bit overflow of the sum; ``H*W`` 0 or not representable in the
    dtype (``cast(dtype, extent)`` in topi's ``adaptive_pool_impl``); bool data."""
    a = _attrs(attrs, GlobalPool2DAttrs)
    data = args[0]
    op = "nn.global_avg_pool2d"
    axes = _spatial_axes(a.layout, data.ndim)
    count = data.shape[axes[0]] * data.shape[axes[1]]
    if data.dtype.kind == "f":
        x = data.astype(_compute_dtype(data.dtype))
        with np.errstate(all="ignore"):
            result = x.sum(axis=axes, keepdims=True) / x.dtype.type(count)
        return np.asarray(result).astype(data.dtype)
    if data.dtype == np.bool_:
        raise _ub(op, "bool data (sums of bool have no defined meaning)")
    info = np.iinfo(data.dtype)
    if not 0 < count <= info.max:
        raise _ub(op, f"the element count {count} is 0 or not representable in {data.dtype}")
    total = _int_result(_exact(data).sum(axis=axes, keepdims=True), data.dtype, op, "the sum")
    return _int_result(_trunc_div(_exact(total), np.asarray(count)), data.dtype, op, "a mean")


_op = OpRegistrar(__name__, inputs=("data",), pattern=OpPattern.OUT_ELEMWISE_FUSABLE)


_op(
    "nn.max_pool2d",
    "2-D max pooling.",
    relation=_pool2d_relation,
    reference=tensor_reference(_max_pool2d_reference),
    check="onnxruntime:MaxPool",
    relation_name="MaxPool2D",
    attrs_type=MaxPool2DAttrs,
)


_op(
    "nn.avg_pool2d",
    "2-D average pooling.",
    relation=_pool2d_relation,
    reference=tensor_reference(_avg_pool2d_reference),
    check="onnxruntime:AveragePool",
    relation_name="AvgPool2D",
    attrs_type=AvgPool2DAttrs,
)


_op(
    "nn.global_avg_pool2d",
    "Average over the whole of each spatial plane.",
    relation=_global_pool2d_relation,
    reference=tensor_reference(_global_avg_pool2d_reference),
    check="onnxruntime:GlobalAveragePool",
    relation_name="GlobalAvgPool2D",
    attrs_type=GlobalPool2DAttrs,
)


_POOL_SIZE_DOC = "Size of the pooling window."


_CEIL_DOC = "Round the output extent up instead of down."


_INCLUDE_PAD_DOC = "Count padded elements in each average's divisor."


@dataclass(frozen=True, slots=True)
class MaxPool1DAttrs(Attrs):
    """Attributes of ``nn.max_pool1d``: window geometry and layouts."""

    type_key: ClassVar[str] = "relay.attrs.MaxPool1DAttrs"
    pool_size: tuple[int, ...] = attr_field(AttrKind.INTS, doc=_POOL_SIZE_DOC)
    strides: tuple[int, ...] = attr_field(AttrKind.INTS, (1,), doc="Stride of the window.")
    dilation: tuple[int, ...] = attr_field(AttrKind.INTS, (1,), doc="Dilation of the window.")
    padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0,), doc="Padding: 1 or 2 ints (left, right)."
    )
    layout: str = attr_field(AttrKind.STR, "NCW", doc="Input layout, e.g. NCW or NWC.")
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)
    ceil_mode: bool = attr_field(AttrKind.BOOL, False, doc=_CEIL_DOC)


@dataclass(frozen=True, slots=True)
class AvgPool1DAttrs(Attrs):
    """Attributes of ``nn.avg_pool1d``: window geometry, layouts and padding policy."""

    type_key: ClassVar[str] = "relay.attrs.AvgPool1DAttrs"
    pool_size: tuple[int, ...] = attr_field(AttrKind.INTS, doc=_POOL_SIZE_DOC)
    strides: tuple[int, ...] = attr_field(AttrKind.INTS, (1,), doc="Stride of the window.")
    dilation: tuple[int, ...] = attr_field(AttrKind.INTS, (1,), doc="Dilation of the window.")
    padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0,), doc="Padding: 1 or 2 ints (left, right)."
    )
    layout: str = attr_field(AttrKind.STR, "NCW", doc="Input layout, e.g. NCW or NWC.")
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)
    ceil_mode: bool = attr_field(AttrKind.BOOL, False, doc=_CEIL_DOC)
    count_include_pad: bool = attr_field(AttrKind.BOOL, False, doc=_INCLUDE_PAD_DOC)


@dataclass(frozen=True, slots=True)
class MaxPool3DAttrs(Attrs):
    """Attributes of ``nn.max_pool3d``: window geometry and layouts."""

    type_key: ClassVar[str] = "relay.attrs.MaxPool3DAttrs"
    pool_size: tuple[int, ...] = attr_field(AttrKind.INTS, doc=_POOL_SIZE_DOC)
    strides: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1, 1), doc="Stride per pooled axis.")
    dilation: tuple[int, ...] = attr_field(
        AttrKind.INTS, (1, 1, 1), doc="Dilation per pooled axis."
    )
    padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0, 0, 0), doc="Padding: 1, 3 or 6 ints (front, top, left, ...)."
    )
    layout: str = attr_field(AttrKind.STR, "NCDHW", doc="Input layout, e.g. NCDHW or NDHWC.")
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)
    ceil_mode: bool = attr_field(AttrKind.BOOL, False, doc=_CEIL_DOC)


@dataclass(frozen=True, slots=True)
class AvgPool3DAttrs(Attrs):
    """Attributes of ``nn.avg_pool3d``: window geometry, layouts and padding policy."""

    type_key: ClassVar[str] = "relay.attrs.AvgPool3DAttrs"
    pool_size: tuple[int, ...] = attr_field(AttrKind.INTS, doc=_POOL_SIZE_DOC)
    strides: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1, 1), doc="Stride per pooled axis.")
    dilation: tuple[int, ...] = attr_field(
        AttrKind.INTS, (1, 1, 1), doc="Dilation per pooled axis."
    )
    padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0, 0, 0), doc="Padding: 1, 3 or 6 ints (front, top, left, ...)."
    )
    layout: str = attr_field(AttrKind.STR, "NCDHW", doc="Input layout, e.g. NCDHW or NDHWC.")
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)
    ceil_mode: bool = attr_field(AttrKind.BOOL, False, doc=_CEIL_DOC)
    count_include_pad: bool = attr_field(AttrKind.BOOL, False, doc=_INCLUDE_PAD_DOC)


@dataclass(frozen=True, slots=True)
class AdaptivePool2DAttrs(Attrs):
    """Attributes of the adaptive 2-D pools: the output size and the layouts."""

    type_key: ClassVar[str] = "relay.attrs.AdaptivePool2DAttrs"
    output_size: tuple[int, ...] = attr_field(
        AttrKind.INTS, (), doc="Output (height, width); one int for both; () keeps the input's."
    )
    layout: str = attr_field(AttrKind.STR, "NCHW", doc="Input layout, e.g. NCHW or NHWC.")
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)


_MaxAttrs = MaxPool1DAttrs | MaxPool3DAttrs


_AvgAttrs = AvgPool1DAttrs | AvgPool3DAttrs


_PoolAttrs = MaxPool1DAttrs | MaxPool3DAttrs | AvgPool1DAttrs | AvgPool3DAttrs


def _pooled_axes(layout: str, rank: int, letters: str) -> tuple[int, ...]:
    """The positions of ``letters`` (``W`` or ``DHW``) in a pooling ``layout`` of ``rank`` axes."""
    axes = _LAYOUT_AXIS.findall(layout)
    if "".join(axes) != layout or not axes:
        raise RelationError(f'invalid layout "{layout}"')
    primal = [a for a in axes if a.isupper()]
    wanted = " and ".join(f"one {x}" for x in letters)
    if len(set(primal)) != len(primal) or any(x not in primal for x in letters):
        raise RelationError(f'invalid layout "{layout}": expected {wanted} axis')
    if any(a[-1] in letters.lower() for a in axes):
        raise RelationError(f'invalid layout "{layout}": {", ".join(letters)} cannot be split')
    if len(axes) != rank:
        raise RelationError(f'layout "{layout}" has {len(axes)} axes but the data has rank {rank}')
    return tuple(axes.index(x) for x in letters)


class _Geometry:
    """A pooling call's window, resolved: pooled axes, window, strides, dilation, padding."""

    def __init__(self, a: _PoolAttrs, rank: int) -> None:
        letters = "W" if isinstance(a, MaxPool1DAttrs | AvgPool1DAttrs) else "DHW"
        nd = len(letters)
        if rank < nd:
            raise RelationError(f"expected data of rank at least {nd}, found rank {rank}")
        self.axes = _pooled_axes(a.layout, rank, letters)
        self.kernel = _per_axis(a.pool_size, nd, "pool_size")
        self.strides = _per_axis(a.strides, nd, "strides")
        self.dilation = _per_axis(a.dilation, nd, "dilation")
        self.head, self.tail = _padding_nd(a.padding, nd)
        # ceil_mode pads stride - 1 more at the end (pool_impl_nd's offset).
        self.offset = tuple(s - 1 if a.ceil_mode else 0 for s in self.strides)

    def extent(self, i: int, x: Dim) -> Dim:
        """The output extent along pooled axis ``i`` of an input extent ``x``."""
        if isinstance(x, AnyDim):
            return ANY
        pad = self.head[i] + self.tail[i]
        window = (self.kernel[i] - 1) * self.dilation[i] + 1
        fit = sub_dims(add_dims(x, pad), window)
        if isinstance(fit, int) and fit < 0:
            raise RelationError(
                f"the pooling window ({window}) is longer than the padded input "
                f"({add_dims(x, pad)})"
            )
        return add_dims(floordiv_dims(add_dims(fit, self.offset[i]), self.strides[i]), 1)


def _pool_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``MaxPool1D``, ``AvgPool1D``, ``MaxPool3D``, ``AvgPool3D``: the W axis of ``layout``
    (D, H, W for the 3-D pools) becomes
    ``floor((x + pad - ((k-1)*dil+1) [+ stride-1 when ceil_mode]) / stride) + 1``;
    the dilated window must fit the padded input (``x + pad``); the other axes and the dtype
    are kept; ``?`` stays ``?``."""
    if not isinstance(attrs, MaxPool1DAttrs | MaxPool3DAttrs | AvgPool1DAttrs | AvgPool3DAttrs):
        raise RelationError(f"expected pooling attributes, found {type(attrs).__name__}")
    data = tensor_arg(arg_types[0], "data")
    g = _Geometry(attrs, len(data.shape))
    shape = list(data.shape)
    for i, axis in enumerate(g.axes):
        shape[axis] = g.extent(i, data.shape[axis])
    return TensorType(tuple(shape), data.dtype)


def _windows_nd(data: _Num, g: _Geometry, fill: Any) -> _Num:
    """Windows ``(.., *out, *kernel)`` of ``data`` with the pooled axes moved last, padded with
    ``fill`` (the ceil_mode extension included)."""
    nd = len(g.axes)
    x = np.moveaxis(data, g.axes, tuple(range(-nd, 0)))
    out = tuple(_known(g.extent(i, x.shape[x.ndim - nd + i])) for i in range(nd))
    pads = [(0, 0)] * (x.ndim - nd) + [(g.head[i], g.tail[i] + g.offset[i]) for i in range(nd)]
    xp = np.pad(x, pads, constant_values=fill)
    return _windows(xp, g.kernel, g.strides, g.dilation, out)


def _restore(out: _Num, g: _Geometry) -> _Num:
    nd = len(g.axes)
    return np.ascontiguousarray(np.moveaxis(out, tuple(range(-nd, 0)), g.axes))


def _max_pool_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.max_pool1d``, ``nn.max_pool3d``: as ``nn.max_pool2d``, per pooled axis.

    Undefined: a window holding NaN."""
    if not isinstance(attrs, MaxPool1DAttrs | MaxPool3DAttrs):
        raise RelationError(f"expected max pooling attributes, found {type(attrs).__name__}")
    op = "nn.max_pool1d" if isinstance(attrs, MaxPool1DAttrs) else "nn.max_pool3d"
    data = args[0]
    g = _Geometry(attrs, data.ndim)
    lowest = _lowest(data.dtype)
    win = _windows_nd(data, g, lowest)
    if data.dtype.kind == "f" and np.isnan(win).any():
        raise _ub(op, "a pooling window holds NaN (the result depends on order)")
    nd = len(g.axes)
    out: _Num = win.max(axis=tuple(range(-nd, 0)), initial=lowest)
    return _restore(out.astype(data.dtype), g)


def _avg_divisor_nd(
    g: _Geometry, extent: tuple[int, ...], out: tuple[int, ...], include: bool
) -> _Num:
    """The divisor of every output position, as topi's ``pool_impl_nd`` computes it."""
    count: _Num = np.ones((), np.int64)
    for i in range(len(g.axes)):
        k, s, d = g.kernel[i], g.strides[i], g.dilation[i]
        start = np.arange(out[i], dtype=np.int64) * s - g.head[i]
        end = start + (k - 1) * d
        if include:
            last = extent[i] + g.tail[i] - 1  # the ceil_mode extension is not counted
            first = start
        else:
            last = extent[i] - 1
            jumps = np.maximum(_trunc_div(_exact(d - 1 - start), np.asarray(d)), 0)
            first = start + d * jumps.astype(np.int64)
        span = _exact(np.minimum(end, last) - first)
        factor = _trunc_div(span, np.asarray(d)).astype(np.int64) + 1
        count = np.multiply.outer(count, factor)
    return count if include else np.maximum(count, 1)


def _avg_pool_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.avg_pool1d``, ``nn.avg_pool3d``: as ``nn.avg_pool2d``, per pooled axis.

    Undefined: as for ``nn.avg_pool2d``."""
    if not isinstance(attrs, AvgPool1DAttrs | AvgPool3DAttrs):
        raise RelationError(f"expected average pooling attributes, found {type(attrs).__name__}")
    op = "nn.avg_pool1d" if isinstance(attrs, AvgPool1DAttrs) else "nn.avg_pool3d"
    data = args[0]
    if data.dtype == np.bool_:
        raise _ub(op, "bool data (sums of bool have no defined meaning)")
    g = _Geometry(attrs, data.ndim)
    nd = len(g.axes)
    reduce = tuple(range(-nd, 0))
    extent = tuple(data.shape[axis] for axis in g.axes)
    if data.dtype.kind == "f":
        win = _windows_nd(data.astype(_compute_dtype(data.dtype)), g, 0)
        out = win.shape[-2 * nd : -nd]
        divisor = _avg_divisor_nd(g, extent, out, attrs.count_include_pad)
        with np.errstate(all="ignore"):
            result = win.sum(axis=reduce) / divisor.astype(win.dtype)
        return _restore(np.asarray(result).astype(data.dtype), g)
    win = _windows_nd(data, g, 0)
    out = win.shape[-2 * nd : -nd]
    total = _int_result(_exact(win).sum(axis=reduce), data.dtype, op, "a window sum")
    divisor = _avg_divisor_nd(g, extent, out, attrs.count_include_pad)
    if (divisor == 0).any():
        raise _ub(op, "integer division by a zero element count")
    quotient = _trunc_div(_exact(total), _exact(np.broadcast_to(divisor, total.shape)))
    return _restore(_int_result(quotient, data.dtype, op, "an average"), g)


def _output_size(a: AdaptivePool2DAttrs, h: Dim, w: Dim) -> tuple[Dim, Dim]:
    size = a.output_size
    if len(size) > 2:
        raise RelationError(f"output_size can hold at most 2 integers, found {len(size)}: {size}")
    if size and min(size) < 0:
        raise RelationError(f"output_size must be non-negative, found {size}")
    if not size:
        return h, w
    if len(size) == 1:
        return size[0], size[0]
    return size[0], size[1]


def _adaptive_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``AdaptiveAvgPool2D``, ``AdaptiveMaxPool2D``: H and W of ``layout`` become
    ``output_size``: ``()`` keeps them, ``(s,)`` is ``(s, s)``, ``(h, w)`` as given."""
    a = _attrs(attrs, AdaptivePool2DAttrs)
    data = tensor_arg(arg_types[0], "data")
    if len(data.shape) < 2:
        raise RelationError(f"expected data of rank at least 2, found rank {len(data.shape)}")
    hidx, widx = _spatial_axes(a.layout, len(data.shape))
    shape = list(data.shape)
    shape[hidx], shape[widx] = _output_size(a, data.shape[hidx], data.shape[widx])
    return TensorType(tuple(shape), data.dtype)


def _cells(n: int, o: int) -> tuple[_Num, _Num]:
    """Start and end (exclusive) of each of the ``o`` cells over an extent ``n``."""
    i = np.arange(o, dtype=np.int64)
    return (i * n) // o, -((-(i + 1) * n) // o)


def _gather_cells(x: _Num, axis: int, n: int, o: int, fill: Any) -> tuple[_Num, _Num]:
    """``x`` with ``axis`` replaced by (cell, offset) axes holding each cell's elements, the
    positions past a cell's end filled with ``fill``; and each cell's element count."""
    start, end = _cells(n, o)
    longest = int((end - start).max()) if o else 0
    index = start[:, None] + np.arange(longest, dtype=np.int64)[None, :]
    inside = index < end[:, None]
    picked = (
        np.take(x, np.minimum(index, max(n - 1, 0)), axis=axis)
        if n
        else np.zeros((*x.shape[:axis], o, longest, *x.shape[axis + 1 :]), x.dtype)
    )
    mask = inside.reshape(inside.shape + (1,) * (x.ndim - axis - 1))
    return np.where(mask, picked, np.asarray(fill, dtype=x.dtype)), end - start


def _adaptive_windows(data: _Num, a: AdaptivePool2DAttrs, fill: Any) -> tuple[_Num, _Num]:
    """Cells ``(.., OH, OW, LH, LW)`` (H and W moved last; short cells filled with ``fill``)
    and the element count of every cell ``(OH, OW)``."""
    hidx, widx = _spatial_axes(a.layout, data.ndim)
    x = np.moveaxis(data, (hidx, widx), (-2, -1))
    h, w = x.shape[-2:]
    oh, ow = (_known(v) for v in _output_size(a, h, w))
    rows, hcount = _gather_cells(x, x.ndim - 2, h, oh, fill)  # (.., OH, LH, W)
    cells, wcount = _gather_cells(rows, rows.ndim - 1, w, ow, fill)  # (.., OH, LH, OW, LW)
    cells = np.moveaxis(cells, -2, -3)  # (.., OH, OW, LH, LW)
    return cells, np.multiply.outer(hcount, wcount)


def _adaptive_restore(out: _Num, a: AdaptivePool2DAttrs) -> _Num:
    hidx, widx = _spatial_axes(a.layout, out.ndim)
    return np.ascontiguousarray(np.moveaxis(out, (-2, -1), (hidx, widx)))


def _adaptive_max_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.adaptive_max_pool2d``: output cell ``i`` of an axis of extent ``n`` pooled to ``o``
    covers input positions ``[floor(i*n/o), ceil((i+1)*n/o))`` (``adaptive_pool_impl``); the
    max starts from the lowest finite value.

    Undefined: a cell holding NaN."""
    a = _attrs(attrs, AdaptivePool2DAttrs)
    data = args[0]
    lowest = _lowest(data.dtype)
    cells, _ = _adaptive_windows(data, a, lowest)
    if data.dtype.kind == "f" and np.isnan(cells).any():
        raise _ub("nn.adaptive_max_pool2d", "a cell holds NaN (the result depends on order)")
    out: _Num = cells.max(axis=(-2, -1), initial=lowest)
    return _adaptive_restore(out.astype(data.dtype), a)


def _adaptive_avg_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.adaptive_avg_pool2d``: the cells of ``nn.adaptive_max_pool2d``; each cell's sum
    divided by its element count cast to the dtype (0/0 is NaN for floats).

    Undefined on integers: 32/64-bit overflow of a sum; a cell's element count 0 (an empty
    input axis) or not representable in the dtype; bool data."""
    a = _attrs(attrs, AdaptivePool2DAttrs)
    data = args[0]
    op = "nn.adaptive_avg_pool2d"
    if data.dtype == np.bool_:
        raise _ub(op, "bool data (sums of bool have no defined meaning)")
    if data.dtype.kind == "f":
        cd = _compute_dtype(data.dtype)
        cells, count = _adaptive_windows(data.astype(cd), a, 0)
        with np.errstate(all="ignore"):
            result = cells.sum(axis=(-2, -1)) / count.astype(cd)
        return _adaptive_restore(np.asarray(result).astype(data.dtype), a)
    cells, count = _adaptive_windows(data, a, 0)
    info = np.iinfo(data.dtype)
    if count.size and (count.min() <= 0 or count.max() > info.max):
        raise _ub(op, f"a cell's element count is 0 or not representable in {data.dtype}")
    total = _int_result(_exact(cells).sum(axis=(-2, -1)), data.dtype, op, "a cell sum")
    quotient = _trunc_div(_exact(total), _exact(np.broadcast_to(count, total.shape)))
    return _adaptive_restore(_int_result(quotient, data.dtype, op, "an average"), a)


def _global_max_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``GlobalMaxPool2D``, shared with ``nn.global_avg_pool2d``: H and W of the layout
    become 1."""
    return _global_pool2d_relation(arg_types, attrs)


def _global_max_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.global_max_pool2d``: the max over H and W, starting from the lowest finite value.

    Undefined: a plane holding NaN."""
    a = _attrs(attrs, GlobalPool2DAttrs)
    data = args[0]
    axes = _spatial_axes(a.layout, data.ndim)
    if data.dtype.kind == "f" and np.isnan(data).any():
        raise _ub("nn.global_max_pool2d", "a plane holds NaN (the result depends on order)")
    lowest = _lowest(data.dtype)
    out: _Num = data.max(axis=axes, keepdims=True, initial=lowest)
    return out.astype(data.dtype)


for _name, _attrs_type, _relation_name, _doc, _reference, _check in (
    ("nn.max_pool1d", MaxPool1DAttrs, "MaxPool1D", "1-D max pooling.", _max_pool_reference,
     "MaxPool"),
    ("nn.avg_pool1d", AvgPool1DAttrs, "AvgPool1D", "1-D average pooling.", _avg_pool_reference,
     "AveragePool"),
    ("nn.max_pool3d", MaxPool3DAttrs, "MaxPool3D", "3-D max pooling.", _max_pool_reference,
     "MaxPool"),
    ("nn.avg_pool3d", AvgPool3DAttrs, "AvgPool3D", "3-D average pooling.", _avg_pool_reference,
     "AveragePool"),
):  # fmt: skip
    _op(
        _name,
        _doc,
        relation=_pool_relation,
        reference=tensor_reference(_reference),
        check=f"onnxruntime:{_check}",
        relation_name=_relation_name,
        attrs_type=_attrs_type,
    )


_op(
    "nn.adaptive_avg_pool2d",
    "2-D average pooling over cells that tile the input to a given output size.",
    relation=_adaptive_relation,
    reference=tensor_reference(_adaptive_avg_reference),
    check="independent:direct loops over the output cells",
    relation_name="AdaptiveAvgPool2D",
    attrs_type=AdaptivePool2DAttrs,
)


_op(
    "nn.adaptive_max_pool2d",
    "2-D max pooling over cells that tile the input to a given output size.",
    relation=_adaptive_relation,
    reference=tensor_reference(_adaptive_max_reference),
    check="independent:direct loops over the output cells",
    relation_name="AdaptiveMaxPool2D",
    attrs_type=AdaptivePool2DAttrs,
)


_op(
    "nn.global_max_pool2d",
    "Maximum over the whole of each spatial plane.",
    relation=_global_max_relation,
    reference=tensor_reference(_global_max_reference),
    check="onnxruntime:GlobalMaxPool",
    relation_name="GlobalMaxPool2D",
    attrs_type=GlobalPool2DAttrs,
)
