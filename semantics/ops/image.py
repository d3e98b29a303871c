"""Image operators: image.resize2d, two-dimensional resizing.

::

    image.resize2d(data, size=, roi=, layout="NCHW", method="linear",
                   coordinate_transformation_mode="half_pixel", rounding_method="round",
                   cubic_alpha=-0.5, cubic_exclude=0, extrapolation_value=0.0, out_dtype="")
                                                    Resize2DAttrs    Resize2D    injective

``size`` and ``roi`` default to nothing in TVM 0.18's ``Resize2DAttrs``
(``include/tvm/relay/attrs/image.h``) but its relation requires both (2 sizes, 4 roi values),
so a call must give them; the other fields and defaults are TVM's (the attribute default of
``rounding_method`` is ``"round"``; the Python builder's ``""`` is also accepted).

The relation's and the reference's docstrings state the operator's rule, its undefined
cases and its departures from TVM.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..syntax import Dim, TensorType, Type
from .nn.common import _attrs, _convert, _Num, _show, _ub
from .registry import (
    AttrKind,
    Attrs,
    OpPattern,
    OpRegistrar,
    RelationError,
    attr_field,
    tensor_reference,
)
from .shapes import tensor_arg

_F32 = np.float32


METHODS = ("nearest_neighbor", "linear", "cubic")


COORDINATE_MODES = (
    "half_pixel",
    "align_corners",
    "asymmetric",
    "pytorch_half_pixel",
    "tf_half_pixel_for_nn",
    "tf_crop_and_resize",
)


ROUNDING_METHODS = ("", "round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


LAYOUTS = ("NCHW", "NHWC")


@dataclass(frozen=True, slots=True)
class Resize2DAttrs(Attrs):
    """Attributes of ``image.resize2d``: output size, layout and interpolation options."""

    type_key: ClassVar[str] = "relay.attrs.Resize2DAttrs"
    size: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, None, optional=True, doc="Output (height, width); required in practice."
    )
    roi: tuple[float, ...] | None = attr_field(
        AttrKind.FLOATS,
        None,
        optional=True,
        doc="Region of interest (start_h, start_w, end_h, end_w) for tf_crop_and_resize.",
    )
    layout: str = attr_field(AttrKind.STR, "NCHW", doc="Data layout: NCHW or NHWC.")
    method: str = attr_field(
        AttrKind.STR, "linear", doc="nearest_neighbor, linear or cubic interpolation."
    )
    coordinate_transformation_mode: str = attr_field(
        AttrKind.STR, "half_pixel", doc="How an output coordinate maps to an input one."
    )
    rounding_method: str = attr_field(
        AttrKind.STR, "round", doc="How nearest_neighbor rounds a coordinate to an index."
    )
    cubic_alpha: float = attr_field(AttrKind.FLOAT, -0.5, doc="Coefficient of the cubic kernel.")
    cubic_exclude: int = attr_field(
        AttrKind.INT, 0, doc="Non-zero: cubic weights outside the image are dropped."
    )
    extrapolation_value: float = attr_field(
        AttrKind.FLOAT, 0.0, doc="Value outside the image for tf_crop_and_resize."
    )
    out_dtype: str = attr_field(AttrKind.DTYPE, "", doc='Output dtype; "" means the data\'s.')


def spatial_axes(layout: str, rank: int, what: str = "layout") -> tuple[int, int]:
    """The H and W positions of ``layout`` (NCHW or NHWC) for data of ``rank`` 4."""
    if layout not in LAYOUTS:
        raise RelationError(f'{what} "{layout}" is not supported: expected NCHW or NHWC')
    if rank != 4:
        raise RelationError(f"expected 4-D data in layout {layout}, found rank {rank}")
    return layout.index("H"), layout.index("W")


def _choice(value: str, options: Sequence[str], what: str) -> None:
    if value not in options:
        shown = ", ".join(f'"{o}"' for o in options)
        raise RelationError(f'{what}="{value}" is not supported: expected one of {shown}')


def _resize2d_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Resize2D``: data of rank 4 in layout NCHW or NHWC; ``size`` is ``(out_h, out_w)``,
    two non-negative integers; ``roi`` holds 4 floats; the result replaces H and W by ``size`` and
    has dtype ``out_dtype`` ("" keeps the data's). ``method`` is nearest_neighbor, linear or cubic;
    ``coordinate_transformation_mode`` is half_pixel, align_corners, asymmetric,
    pytorch_half_pixel, tf_half_pixel_for_nn or tf_crop_and_resize; ``rounding_method`` is "",
    round, round_prefer_floor, round_prefer_ceil, floor or ceil.

    Deliberate departures from TVM 0.18: only the layouts NCHW and NHWC (TVM also took packed
    NCHWc layouts) and data of rank 4; unknown methods, coordinate modes and rounding methods are
    type errors rather than TOPI's ``ValueError`` at compile time.
    """
    a = _attrs(attrs, Resize2DAttrs)
    data = tensor_arg(arg_types[0], "data")
    h, w = spatial_axes(a.layout, len(data.shape))
    if a.size is None or len(a.size) != 2:
        raise RelationError(
            f"size must hold 2 integers (height, width), found size={_show(a.size or ())}"
        )
    if min(a.size) < 0:
        raise RelationError(f"size must be non-negative, found size={_show(a.size)}")
    if a.roi is None or len(a.roi) != 4:
        raise RelationError(f"roi must hold 4 floats, found roi={list(a.roi or ())}")
    _choice(a.method, METHODS, "method")
    _choice(a.coordinate_transformation_mode, COORDINATE_MODES, "coordinate_transformation_mode")
    _choice(a.rounding_method, ROUNDING_METHODS, "rounding_method")
    shape: list[Dim] = list(data.shape)
    shape[h], shape[w] = a.size
    return TensorType(tuple(shape), a.out_dtype or data.dtype)


@dataclass(frozen=True)
class Resize:
    """A resize of the two spatial axes, as TOPI's ``resize2d`` is called."""

    size: tuple[int, int]
    roi: tuple[float, float, float, float]
    method: str
    mode: str
    rounding: str
    alpha: float
    exclude: bool
    extrapolation: float


def _coordinates(r: Resize, extent: int, target: int, start: float, end: float) -> _Num:
    """The float32 input coordinate of each output position along one axis."""
    x = np.arange(target, dtype=np.int64).astype(_F32)
    with np.errstate(all="ignore"):
        scale = _F32(extent) / _F32(target)
        match r.mode:
            case "half_pixel":
                out = (x + _F32(0.5)) * scale - _F32(0.5)
            case "align_corners":
                out = _F32(extent - 1) / _F32(target - 1) * x
            case "asymmetric":
                out = scale * x
            case "pytorch_half_pixel":
                half = (x + _F32(0.5)) * scale - _F32(0.5)
                out = half if target > 1 else np.zeros_like(x)
            case "tf_half_pixel_for_nn":
                out = (x + _F32(0.5)) * scale
            case _:
                s, e = _F32(start), _F32(end)
                if target > 1:
                    out = s * _F32(extent - 1) + x * (e - s) * _F32(extent - 1) / _F32(target - 1)
                else:
                    out = np.full_like(x, _F32(0.5) * (s + e) * _F32(extent - 1))
    return np.asarray(out, _F32)


def _to_index(c: _Num, op: str) -> _Num:
    """``astype("int32")`` of float coordinates: NaN or out of range is poison."""
    if not np.isfinite(c).all() or (np.abs(c) >= 2.0**31).any():
        raise _ub(op, "a NaN or out-of-range coordinate converted to an index")
    return np.trunc(c).astype(np.int64)


def _nearest(r: Resize, c: _Num, extent: int, target: int, op: str) -> _Num:
    """The nearest_neighbor source index of each output position (before clamping)."""
    if r.mode == "asymmetric" and extent > 0 and target % extent == 0:
        k = target // extent
        if k <= 1 / (1e-5 * extent + 1e-5):
            return np.arange(target, dtype=np.int64) // k
    rounding = r.rounding or ("round" if r.mode == "align_corners" else "floor")
    eps = _F32(1e-5)
    with np.errstate(all="ignore"):
        match rounding:
            case "round":
                rounded = np.rint(c)
            case "round_prefer_floor":
                rounded = np.ceil(c - _F32(0.5))
            case "round_prefer_ceil":
                rounded = np.floor(c + _F32(0.5))
            case "floor":
                rounded = np.floor(c + eps)
            case _:
                rounded = np.ceil(c - eps)
    return _to_index(rounded, op)


def _cubic_weights(t: _Num, alpha: float) -> list[_Num]:
    a = _F32(alpha)
    t2 = t * t
    t3 = t * t * t
    return [
        a * (t3 - _F32(2) * t2 + t),
        (a + _F32(2)) * t3 - (_F32(3) + a) * t2 + _F32(1),
        -(a + _F32(2)) * t3 + (_F32(3) + _F32(2) * a) * t2 - a * t,
        -a * t3 + a * t2,
    ]


def _axis_taps(r: Resize, c: _Num, extent: int, target: int, op: str) -> list[tuple[_Num, _Num]]:
    """Per output position along one axis: (clamped source index, float32 weight) pairs whose
    weighted sum, in list order, is the interpolation along that axis."""
    clamp = (0, max(extent - 1, 0))
    if r.method == "nearest_neighbor":
        index = _nearest(r, c, extent, target, op)
        return [(np.clip(index, *clamp), np.ones(target, _F32))]
    with np.errstate(all="ignore"):
        base = _to_index(np.floor(c), op)
        if r.method == "linear":
            t = c - base.astype(_F32)
            return [(np.clip(base, *clamp), _F32(1) - t), (np.clip(base + 1, *clamp), t)]
        weights = _cubic_weights(c - np.floor(c), r.alpha)
        if r.exclude:
            for i in range(4):
                outside = (base - 1 + i < 0) | (base + i > extent)
                weights[i] = np.where(outside, _F32(0), weights[i])
            total = ((weights[0] + weights[1]) + weights[2]) + weights[3]
            weights = [w / total for w in weights]
    return [(np.clip(base + i - 1, *clamp), weights[i]) for i in range(4)]


def _combine(values: list[_Num], weights: list[_Num], method: str) -> _Num:
    """The weighted sum along the last axis's taps, with TOPI's operation order."""
    with np.errstate(all="ignore"):
        if method == "nearest_neighbor":
            return values[0]
        if method == "linear":
            return np.asarray(values[0] * weights[0] + values[1] * weights[1])
        out = values[0] * weights[0]
        for v, w in zip(values[1:], weights[1:], strict=True):
            out = out + v * w
        return out


def resize_nhwc(x: _Num, r: Resize, op: str) -> _Num:
    """Resize the float32 ``(N, H, W, C)`` array ``x`` to ``r.size``, in float32."""
    n, ih, iw, ch = x.shape
    oh, ow = r.size
    if oh * ow * n * ch == 0:
        return np.zeros((n, oh, ow, ch), _F32)
    if ih == 0 or iw == 0:
        raise _ub(op, "a non-empty output from an empty input reads out of bounds")
    cy = _coordinates(r, ih, oh, r.roi[0], r.roi[2])
    cx = _coordinates(r, iw, ow, r.roi[1], r.roi[3])
    ytaps = _axis_taps(r, cy, ih, oh, op)
    xtaps = _axis_taps(r, cx, iw, ow, op)
    rows = []
    for yi, _ in ytaps:
        picked = x[:, yi]  # (N, OH, W, C)
        columns = [picked[:, :, xi] for xi, _ in xtaps]  # each (N, OH, OW, C)
        weights = [wx[None, None, :, None] for _, wx in xtaps]
        rows.append(_combine(columns, weights, r.method))
    yweights = [wy[None, :, None, None] for _, wy in ytaps]
    out = np.asarray(_combine(rows, yweights, r.method), _F32)
    if r.mode == "tf_crop_and_resize":
        outside_y = (cy < 0) | (cy > _F32(ih - 1))
        outside_x = (cx < 0) | (cx > _F32(iw - 1))
        outside = outside_y[None, :, None, None] | outside_x[None, None, :, None]
        out = np.where(outside, _F32(r.extrapolation), out).astype(_F32)
    return out


def resize(data: _Num, layout: str, r: Resize, out_dtype: np.dtype[Any], op: str) -> _Num:
    """``data`` in ``layout`` resized by ``r``, converted to ``out_dtype``."""
    h, w = spatial_axes(layout, data.ndim)
    x = np.moveaxis(data, (h, w), (1, 2)).astype(_F32)
    out = resize_nhwc(x, r, op)
    with np.errstate(all="ignore"):
        result = _convert(out, out_dtype, op)
    return np.ascontiguousarray(np.moveaxis(result, (1, 2), (h, w))).astype(out_dtype)


def _resize2d_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``image.resize2d`` as TOPI computes it (``topi/image/resize.py``). Every step is float32
    arithmetic, whatever the data's dtype (TOPI reads pixels with ``astype("float")``), one
    rounding per operation; each output row ``y`` and column ``x`` maps to an input coordinate,
    ``scale = float(in) / float(out)``::

        half_pixel            (x + 0.5) * scale - 0.5
        align_corners         float(in - 1) / float(out - 1) * x
        asymmetric            scale * x
        pytorch_half_pixel    (x + 0.5) * scale - 0.5 if out > 1, else 0
        tf_half_pixel_for_nn  (x + 0.5) * scale
        tf_crop_and_resize    if out > 1: start * (in - 1) + x * (end - start) * float(in - 1)
                              / float(out - 1), else 0.5 * (start + end) * (in - 1); roi is
                              (start_h, start_w, end_h, end_w); a coordinate outside
                              [0, in - 1] on either axis gives extrapolation_value

    Every pixel read clamps its index into ``[0, in - 1]``.

    - nearest_neighbor: the index is the coordinate rounded (``rounding_method`` ""
      means round for align_corners, floor otherwise): round is ``nearbyint`` (halves to
      even), round_prefer_floor ``ceil(c - 0.5)``, round_prefer_ceil ``floor(c + 0.5)``, floor
      ``floor(c + 1e-5)``, ceil ``ceil(c - 1e-5)``. With asymmetric coordinates and an output
      extent that is a whole multiple k of the input extent (k <= 1 / (1e-5 * (in + 1))), TOPI
      uses the integer index ``x // k`` instead (``can_convert_multiply_to_intdiv``).
    - linear: ``i = floor(c)``, ``t = c - i``; ``lerp(a, b, t) = a * (1 - t) + b * t`` along x on
      rows ``i`` and ``i + 1``, then along y.
    - cubic: the four pixels ``i - 1 .. i + 2`` weighted by Keys' kernel with ``a = cubic_alpha``
      at ``t = c - floor(c)``: ``a(t^3 - 2t^2 + t)``, ``(a + 2)t^3 - (a + 3)t^2 + 1``,
      ``-(a + 2)t^3 + (2a + 3)t^2 - at``, ``-at^3 + at^2``, summed left to right along x, then along
      y; with ``cubic_exclude`` the weights of pixels outside the image become 0 and the rest are
      divided by their sum.

    The float32 value is then converted to the output dtype as TVM's cast does (see ``ops.nn``):
    rounding for floats, truncation toward zero for integers, ``!= 0`` for bool.

    Undefined (``UndefinedBehavior``): a non-empty output from an input whose H or W is 0
    (every read is out of bounds); a NaN or out-of-range coordinate converted to an index
    (``fptosi`` poison), as align_corners with an output extent of 1 gives (0 / 0); converting a
    NaN, infinite or out-of-range value to an integer output dtype (an interpolated value of
    integer data can leave the dtype's range with cubic's overshoot)."""
    a = _attrs(attrs, Resize2DAttrs)
    data = args[0]
    assert a.size is not None and a.roi is not None
    r = Resize(
        size=(a.size[0], a.size[1]),
        roi=(a.roi[0], a.roi[1], a.roi[2], a.roi[3]),
        method=a.method,
        mode=a.coordinate_transformation_mode,
        rounding=a.rounding_method,
        alpha=a.cubic_alpha,
        exclude=bool(a.cubic_exclude),
        extrapolation=a.extrapolation_value,
    )
    return resize(data, a.layout, r, np.dtype(a.out_dtype or data.dtype), "image.resize2d")


_op = OpRegistrar(__name__)


_op(
    "image.resize2d",
    "Resize the H and W axes by nearest, linear or cubic interpolation.",
    relation=_resize2d_relation,
    reference=tensor_reference(_resize2d_reference),
    check="onnxruntime:Resize",
    relation_name="Resize2D",
    inputs=("data",),
    attrs_type=Resize2DAttrs,
    pattern=OpPattern.INJECTIVE,
)


__all__ = ["Resize", "Resize2DAttrs", "resize", "spatial_axes"]
