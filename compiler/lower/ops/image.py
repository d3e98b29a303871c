"""Lowerings of ``semantics/ops/image.py``: ``image.resize2d`` as a compute, the reference's
float32 steps one IR operation each (the CPU target's float arithmetic is exact IEEE outside
accumulations, so every rounding is the reference's).

Per output row and column (``resize_axis``), the input coordinate of the coordinate
transformation mode, with its constants (``scale = float32(in) / float32(out)``, the
align_corners and tf_crop_and_resize ratios) folded at lowering time in float32 as the
reference computes them; then the taps: one clamped index for nearest_neighbor (its rounding
method, or TOPI's integer division for a whole asymmetric upscale), two with ``1 - t`` and
``t`` for linear, four with Keys' weights for cubic (``cubic_exclude`` zeroes the outside
taps and renormalises). The taps of the two axes combine in the reference's order (along x
within each row tap, then along y), tf_crop_and_resize substitutes ``extrapolation_value``
outside the image, and the float32 result is cast to the output dtype (TVM's cast; to bool:
``!= 0`` with NaN false). The extents H and W must be static. ``resize2d`` is the shared
entry point: ``nn.upsampling`` (``compiler/lower/ops/nn/shape.py``) lowers through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ....semantics.ops.image import Resize, Resize2DAttrs
from ....semantics.ops.registry import Attrs
from ....semantics.syntax import Type
from .. import ir, te
from .. import schedules as sch
from .nn.common import out_shape, tensor

F32 = "float32"
_f32 = np.float32


def _c(v: float | np.floating[Any]) -> ir.Const:
    return ir.const(float(v), F32)


def _bin(op: ir.BinOp, a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    return ir.Binary(op, a, b)


def _add(a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    return _bin(ir.BinOp.ADD, a, b)


def _sub(a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    return _bin(ir.BinOp.SUB, a, b)


def _mul(a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    return _bin(ir.BinOp.MUL, a, b)


def _call(name: str, x: ir.PrimExpr) -> ir.PrimExpr:
    return ir.Call(name, (x,), F32)


def _clamp(i: ir.PrimExpr, extent: int) -> ir.PrimExpr:
    return _bin(ir.BinOp.MAX, _bin(ir.BinOp.MIN, i, ir.index(max(extent - 1, 0))), ir.index(0))


def _coordinate(r: Resize, x: ir.PrimExpr, extent: int, target: int, axis: int) -> ir.PrimExpr:
    """The float32 input coordinate of output position ``x`` along one axis (``axis`` 0: y, 1:
    x, for the roi)."""
    xf = ir.Cast(F32, x)
    with np.errstate(all="ignore"):
        scale = _f32(extent) / _f32(target)
        match r.mode:
            case "half_pixel":
                return _sub(_mul(_add(xf, _c(0.5)), _c(scale)), _c(0.5))
            case "align_corners":
                return _mul(_c(_f32(extent - 1) / _f32(target - 1)), xf)
            case "asymmetric":
                return _mul(_c(scale), xf)
            case "pytorch_half_pixel":
                if target > 1:
                    return _sub(_mul(_add(xf, _c(0.5)), _c(scale)), _c(0.5))
                return _c(0.0)
            case "tf_half_pixel_for_nn":
                return _mul(_add(xf, _c(0.5)), _c(scale))
            case _:
                s, e = _f32(r.roi[axis]), _f32(r.roi[axis + 2])
                big = _f32(extent - 1)
                if target > 1:
                    along = _mul(_mul(xf, _c(e - s)), _c(big))
                    return _add(_c(s * big), _bin(ir.BinOp.DIV, along, _c(_f32(target - 1))))
                return _c(_f32(0.5) * (s + e) * big)


def _index(c: ir.PrimExpr) -> ir.PrimExpr:
    """A float32 coordinate already rounded, as an index (NaN or out of range: undefined)."""
    return ir.Cast(ir.INDEX, c)


@dataclass(frozen=True)
class Axis:
    """The taps of one axis: ``(clamped index, float32 weight)`` pairs, and the coordinate."""

    taps: tuple[tuple[ir.PrimExpr, ir.PrimExpr], ...]
    coordinate: ir.PrimExpr


def resize_axis(r: Resize, x: ir.PrimExpr, extent: int, target: int, axis: int) -> Axis:
    """The taps of output position ``x`` along one axis (see the module docstring)."""
    c = _coordinate(r, x, extent, target, axis)
    one = _c(1.0)
    if r.method == "nearest_neighbor":
        if r.mode == "asymmetric" and extent > 0 and target % extent == 0:
            k = target // extent
            if k <= 1 / (1e-5 * extent + 1e-5):
                return Axis(((_clamp(sch.floordiv(x, k), extent), one),), c)
        rounding = r.rounding or ("round" if r.mode == "align_corners" else "floor")
        eps = _c(_f32(1e-5))
        match rounding:
            case "round":
                rounded = _call("round", c)
            case "round_prefer_floor":
                rounded = _call("ceil", _sub(c, _c(0.5)))
            case "round_prefer_ceil":
                rounded = _call("floor", _add(c, _c(0.5)))
            case "floor":
                rounded = _call("floor", _add(c, eps))
            case _:
                rounded = _call("ceil", _sub(c, eps))
        return Axis(((_clamp(_index(rounded), extent), one),), c)
    floor = _call("floor", c)
    base = _index(floor)
    if r.method == "linear":
        t = _sub(c, ir.Cast(F32, base))
        taps = ((_clamp(base, extent), _sub(one, t)), (_clamp(sch.add(base, 1), extent), t))
        return Axis(taps, c)
    t = _sub(c, floor)
    a = _c(_f32(r.alpha))
    t2 = _mul(t, t)
    t3 = _mul(_mul(t, t), t)
    two, three = _c(2.0), _c(3.0)
    weights = [
        _mul(a, _add(_sub(t3, _mul(two, t2)), t)),
        _add(_sub(_mul(_add(a, two), t3), _mul(_add(three, a), t2)), one),
        _sub(
            _add(
                _mul(ir.Unary(ir.UnOp.NEG, _add(a, two)), t3), _mul(_add(three, _mul(two, a)), t2)
            ),
            _mul(a, t),
        ),
        _add(_mul(ir.Unary(ir.UnOp.NEG, a), t3), _mul(a, t2)),
    ]
    if r.exclude:
        for i in range(4):
            outside = _bin(
                ir.BinOp.OR,
                _bin(ir.BinOp.LT, sch.add(base, i - 1), ir.index(0)),
                _bin(ir.BinOp.GT, sch.add(base, i), ir.index(extent)),
            )
            weights[i] = ir.Select(outside, _c(0.0), weights[i])
        total = _add(_add(_add(weights[0], weights[1]), weights[2]), weights[3])
        weights = [_bin(ir.BinOp.DIV, w, total) for w in weights]
    return Axis(tuple((_clamp(sch.add(base, i - 1), extent), weights[i]) for i in range(4)), c)


def _combine(values: list[ir.PrimExpr], weights: list[ir.PrimExpr]) -> ir.PrimExpr:
    """The weighted sum of the taps in the reference's order."""
    if len(values) == 1:
        return values[0]
    out = _mul(values[0], weights[0])
    for v, w in zip(values[1:], weights[1:], strict=True):
        out = _add(out, _mul(v, w))
    return out


def convert(v: ir.PrimExpr, dtype: str) -> ir.PrimExpr:
    """A float32 value as ``dtype`` (TVM's cast; to bool ``!= 0`` with NaN false)."""
    if dtype == F32:
        return v
    if dtype == "bool":
        zero = _c(0.0)
        return _bin(ir.BinOp.OR, _bin(ir.BinOp.LT, v, zero), _bin(ir.BinOp.GT, v, zero))
    return ir.Cast(dtype, v)


def resize2d(
    name: str,
    data: te.Tensor,
    layout: str,
    r: Resize,
    shape: tuple[ir.PrimExpr, ...],
    dtype: str,
    op: str,
) -> te.Tensor:
    """``data`` (rank 4, ``layout`` NCHW or NHWC) resized by ``r`` to ``shape``, as ``dtype``."""
    h, w = layout.index("H"), layout.index("W")
    ih, iw = sch.static(data.shape[h]), sch.static(data.shape[w])
    if ih is None or iw is None:
        raise te.LoweringError(op, "the input height and width must be static")
    oh, ow = r.size
    if (ih == 0 or iw == 0) and sch.static(sch.product(shape)) != 0:
        raise te.LoweringError(op, "a non-empty output from an empty input (undefined)")

    def element(ix: te.Indices) -> ir.PrimExpr:
        ya = resize_axis(r, ix[h], ih, oh, 0)
        xa = resize_axis(r, ix[w], iw, ow, 1)

        def pixel(yi: ir.PrimExpr, xi: ir.PrimExpr) -> ir.PrimExpr:
            at = list(ix)
            at[h], at[w] = yi, xi
            v = data(*at)
            return v if v.dtype == F32 else ir.Cast(F32, v)

        rows = [
            _combine([pixel(yi, xi) for xi, _ in xa.taps], [wx for _, wx in xa.taps])
            for yi, _ in ya.taps
        ]
        value = _combine(rows, [wy for _, wy in ya.taps])
        if r.mode == "tf_crop_and_resize":
            outside = _bin(
                ir.BinOp.OR,
                _bin(
                    ir.BinOp.OR,
                    _bin(ir.BinOp.LT, ya.coordinate, _c(0.0)),
                    _bin(ir.BinOp.GT, ya.coordinate, _c(_f32(ih - 1))),
                ),
                _bin(
                    ir.BinOp.OR,
                    _bin(ir.BinOp.LT, xa.coordinate, _c(0.0)),
                    _bin(ir.BinOp.GT, xa.coordinate, _c(_f32(iw - 1))),
                ),
            )
            value = ir.Select(outside, _c(_f32(r.extrapolation)), value)
        return convert(value, dtype)

    return te.compute(shape, dtype, element, name)


@te.lowering("image.resize2d")
def lower_resize2d(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``image.resize2d`` (see the module docstring)."""
    assert isinstance(attrs, Resize2DAttrs)
    assert attrs.size is not None and attrs.roi is not None
    data = tensor(args, 0, "image.resize2d")
    r = Resize(
        size=(attrs.size[0], attrs.size[1]),
        roi=(attrs.roi[0], attrs.roi[1], attrs.roi[2], attrs.roi[3]),
        method=attrs.method,
        mode=attrs.coordinate_transformation_mode,
        rounding=attrs.rounding_method,
        alpha=attrs.cubic_alpha,
        exclude=bool(attrs.cubic_exclude),
        extrapolation=attrs.extrapolation_value,
    )
    shape = out_shape(ctx, out_type, "image.resize2d")
    dtype = attrs.out_dtype or data.dtype
    return resize2d(ctx.fresh("resize2d"), data, attrs.layout, r, shape, dtype, "image.resize2d")
