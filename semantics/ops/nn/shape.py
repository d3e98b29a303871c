"""Spatial rearrangements: nn.pad, nn.mirror_pad, nn.upsampling, nn.batch_flatten, ...

::

    nn.batch_flatten(data)                                      BatchFlatten         injective
    nn.pad(data, pad_val, pad_width=, pad_mode="constant")      PadAttrs             injective
    nn.mirror_pad(data, mode="SYMMETRIC", pad_width=)           MirrorPadAttrs       injective
    nn.upsampling(data, scale_h=, scale_w=, layout="NCHW", method="nearest_neighbor",
                  align_corners=False)                          UpSamplingAttrs      injective
    nn.space_to_depth(data, block_size=1, layout="NCHW", mode="DCR")
                                                                SubPixelAttrs        injective
    nn.depth_to_space(data, block_size=1, layout="NCHW", mode="DCR")
                                                                SubPixelAttrs        injective
    nn.space_to_batch_nd(data, block_shape=(1, 1), paddings=, pad_value=0.0)
                                                                SpaceToBatchNDAttrs  injective
    nn.batch_to_space_nd(data, block_shape=(1, 1), crops=)     BatchToSpaceNDAttrs  injective

TVM names ``nn.pad``'s second argument ``pad_val``; ``mirror_pad`` declares ``mode`` before
``pad_width``; the ``*_nd`` attributes declare ``block_shape``, with its default, before the
required ``paddings``/``crops``. Every result keeps the data's dtype.

Departures from TVM 0.18 shared by the 4-D ops (upsampling and the space/depth moves): data
must be 4-D in layout NCHW or NHWC (TVM's relations took any layout convertible to NCHW, which
TOPI then read as NHWC unless it began with NCHW), and each relation rejects what TOPI's
``ICHECK`` assertions rejected at compile time.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...syntax import ANY, AnyDim, Dim, TensorType, Type
from ..image import Resize, resize, spatial_axes
from ..registry import (
    AttrKind,
    Attrs,
    OpPattern,
    OpRegistrar,
    RelationError,
    attr_field,
    tensor_reference,
)
from ..shapes import add_dims, floordiv_dims, mul_dims, prod_dims, sub_dims, tensor_arg
from .common import _attrs, _convert, _Num, _shape_str, _show, _ub


@dataclass(frozen=True, slots=True)
class PadAttrs(Attrs):
    """Attributes of ``nn.pad``: the padding per axis and how it is filled."""

    type_key: ClassVar[str] = "relay.attrs.PadAttrs"
    pad_width: tuple[tuple[int, ...], ...] = attr_field(
        AttrKind.INTS_2D, doc="(before, after) padding for every axis."
    )
    pad_mode: str = attr_field(
        AttrKind.STR, "constant", doc='"constant" (pad_val), "edge" or "reflect".'
    )


def _batch_flatten_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``BatchFlatten``: ``(d0, d1, .., dk) -> (d0, d1*..*dk)``, rank >= 1; the product is
    ``?`` from the first ``?`` on."""
    data = tensor_arg(arg_types[0], "data")
    if not data.shape:
        raise RelationError("expected data of rank at least 1, found rank 0")
    rest = prod_dims(data.shape[1:])  # ? from the first ? on, as BatchFlattenRel
    return TensorType((data.shape[0], rest), data.dtype)


def _batch_flatten_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.batch_flatten``: data reshaped to ``(d0, d1*..*dk)`` in row-major order."""
    data = args[0]
    return data.reshape(data.shape[0], int(np.prod(data.shape[1:], dtype=np.int64)))


_PAD_MODES = ("constant", "edge", "reflect")


def _pad_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Pad``: ``pad_width`` holds one ``(before, after)`` pair per axis; each extent becomes
    ``x + before + after`` (``?`` stays ``?``); ``pad_val`` is any tensor (TVM's relation leaves
    it unconstrained).

    Departure from TVM: ``pad_mode`` must be constant, edge or reflect."""
    a = _attrs(attrs, PadAttrs)
    data = tensor_arg(arg_types[0], "data")
    tensor_arg(arg_types[1], "pad_val")
    if len(a.pad_width) != len(data.shape):
        raise RelationError(
            f"expected {len(data.shape)} (before, after) pairs in pad_width, one per axis of "
            f"{_shape_str(data.shape)}, found {len(a.pad_width)}: pad_width={_show(a.pad_width)}"
        )
    if a.pad_mode not in _PAD_MODES:
        raise RelationError(
            f'expected pad_mode "constant", "edge" or "reflect", found pad_mode="{a.pad_mode}"'
        )
    shape: list[Dim] = []
    for axis, (d, pair) in enumerate(zip(data.shape, a.pad_width, strict=True)):
        if len(pair) != 2:
            raise RelationError(
                f"expected a (before, after) pair for axis {axis} in "
                f"pad_width={_show(a.pad_width)}, found {_show(pair)}"
            )
        out = add_dims(d, pair[0] + pair[1])
        if isinstance(out, int) and out < 0:
            raise RelationError(
                f"pad_width={_show(a.pad_width)} pads axis {axis} of extent {d} by "
                f"{_show(pair)}, leaving a negative extent {out}"
            )
        shape.append(out)
    return TensorType(tuple(shape), data.dtype)


def _pad_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.pad`` (``topi::pad``): constant fills ``pad_val`` cast to data's dtype (its element
    at index 0..0); edge repeats the border; reflect mirrors without repeating it (index
    ``before - i``, and ``2n - i + before - 2`` after the end); a negative width crops.

    Undefined: edge or reflect reading outside the input (a reflect width >= the axis extent,
    either mode on an empty axis: ``topi::pad`` indexes the input out of bounds); a ``pad_val``
    with no elements; casting a NaN or out-of-range float ``pad_val`` to an integer dtype."""
    a = _attrs(attrs, PadAttrs)
    data, pad_val = args
    op = "nn.pad"
    if pad_val.size == 0:
        raise _ub(op, "pad_val has no elements")
    value = _convert(pad_val.reshape(-1)[:1], data.dtype, op)[0]
    out_shape = tuple(n + b + e for n, (b, e) in zip(data.shape, a.pad_width, strict=True))
    sources: list[_Num] = []
    inside: list[_Num] = []
    for n, (before, after) in zip(data.shape, a.pad_width, strict=True):
        o = np.arange(n + before + after, dtype=np.int64)
        within = (o >= before) & (o < before + n)
        if a.pad_mode == "edge":
            source = np.where(o < before, 0, np.where(o >= before + n, n - 1, o - before))
        elif a.pad_mode == "reflect":
            source = np.where(
                o < before,
                before - o,
                np.where(o >= before + n, 2 * n - o + before - 2, o - before),
            )
        else:
            source = np.where(within, o - before, 0)
        if a.pad_mode != "constant" and ((source < 0) | (source >= n)).any():
            raise _ub(
                op,
                f"{a.pad_mode} padding of an axis of extent {n} by {(before, after)} "
                "reads outside the input",
            )
        sources.append(source)
        inside.append(within)
    if a.pad_mode == "constant" and any(n == 0 for n in data.shape):
        return np.full(out_shape, value, data.dtype)
    gathered = data[np.ix_(*sources)] if data.ndim else data.copy()
    if a.pad_mode != "constant" or not data.ndim:
        return np.asarray(gathered, data.dtype)
    mask = np.ones(out_shape, bool)
    for axis, within in enumerate(inside):
        mask &= within.reshape((-1,) + (1,) * (data.ndim - axis - 1))
    return np.where(mask, gathered, value).astype(data.dtype)


_op = OpRegistrar(__name__, inputs=("data",), pattern=OpPattern.INJECTIVE)


_op(
    "nn.batch_flatten",
    "Flatten every axis but the first: (d1, d2, ..., dk) to (d1, d2*...*dk).",
    relation=_batch_flatten_relation,
    reference=tensor_reference(_batch_flatten_reference),
    check="onnxruntime:Flatten",
    relation_name="BatchFlatten",
)


_op(
    "nn.pad",
    "Pad each axis of data by pad_width, filling with pad_val in constant mode.",
    relation=_pad_relation,
    reference=tensor_reference(_pad_reference),
    check="onnxruntime:Pad",
    relation_name="Pad",
    inputs=("data", "pad_val"),
    attrs_type=PadAttrs,
)


_SPATIAL_LAYOUT_DOC = "Data layout: NCHW or NHWC."


@dataclass(frozen=True, slots=True)
class UpSamplingAttrs(Attrs):
    """Attributes of ``nn.upsampling``: the scales, layout and interpolation."""

    type_key: ClassVar[str] = "relay.attrs.UpSamplingAttrs"
    scale_h: float = attr_field(AttrKind.FLOAT, doc="The upsampling factor for height.")
    scale_w: float = attr_field(AttrKind.FLOAT, doc="The upsampling factor for width.")
    layout: str = attr_field(AttrKind.STR, "NCHW", doc=_SPATIAL_LAYOUT_DOC)
    method: str = attr_field(
        AttrKind.STR, "nearest_neighbor", doc="nearest_neighbor, bilinear or bicubic."
    )
    align_corners: bool = attr_field(
        AttrKind.BOOL, False, doc="Map corner pixels onto corner pixels."
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class MirrorPadAttrs(Attrs):
    """Attributes of ``nn.mirror_pad``: the mirroring mode and the padding per axis."""

    # Keyword-only: TVM declares the required pad_width after the defaulted mode.
    type_key: ClassVar[str] = "relay.attrs.MirrorPadAttrs"
    mode: str = attr_field(AttrKind.STR, "SYMMETRIC", doc="SYMMETRIC or REFLECT.")
    pad_width: tuple[tuple[int, ...], ...] = attr_field(
        AttrKind.INTS_2D, doc="(before, after) padding for every axis."
    )


@dataclass(frozen=True, slots=True)
class SubPixelAttrs(Attrs):
    """Attributes of ``nn.space_to_depth`` and ``nn.depth_to_space``: block, layout, order."""

    type_key: ClassVar[str] = "relay.attrs.SubPixelAttrs"
    block_size: int = attr_field(AttrKind.INT, 1, doc="The side of each square block.")
    layout: str = attr_field(AttrKind.STR, "NCHW", doc=_SPATIAL_LAYOUT_DOC)
    mode: str = attr_field(AttrKind.STR, "DCR", doc="Channel order for depth_to_space: DCR or CRD.")


@dataclass(frozen=True, slots=True, kw_only=True)
class SpaceToBatchNDAttrs(Attrs):
    """Attributes of ``nn.space_to_batch_nd``: blocks, paddings and the padding value."""

    # Keyword-only: TVM declares the required paddings after the defaulted block_shape.
    type_key: ClassVar[str] = "relay.attrs.SpaceToBatchNDAttrs"
    block_shape: tuple[int, ...] = attr_field(
        AttrKind.INTS, (1, 1), doc="Block size of each spatial axis."
    )
    paddings: tuple[tuple[int, ...], ...] = attr_field(
        AttrKind.INTS_2D, doc="(before, after) padding of each spatial axis."
    )
    pad_value: float = attr_field(AttrKind.FLOAT, 0.0, doc="The value padding fills with.")


@dataclass(frozen=True, slots=True, kw_only=True)
class BatchToSpaceNDAttrs(Attrs):
    """Attributes of ``nn.batch_to_space_nd``: blocks and crops."""

    # Keyword-only: TVM declares the required crops after the defaulted block_shape.
    type_key: ClassVar[str] = "relay.attrs.BatchToSpaceNDAttrs"
    block_shape: tuple[int, ...] = attr_field(
        AttrKind.INTS, (1, 1), doc="Block size of each spatial axis."
    )
    crops: tuple[tuple[int, ...], ...] = attr_field(
        AttrKind.INTS_2D, doc="(begin, end) crop of each spatial axis."
    )


_UPSAMPLING_METHODS = {
    "nearest_neighbor": "nearest_neighbor",
    "bilinear": "linear",
    "bicubic": "cubic",
}
"""TOPI's upsampling drops the "bi" prefix before calling resize2d."""


def _scaled(d: Dim, scale: float, what: str) -> Dim:
    """``round(d * scale)`` (halves to even, as ``nearbyint``), or ``?`` where unknown."""
    if isinstance(d, AnyDim):
        return ANY
    if isinstance(d, int):
        out = round(d * scale)
        if out < 0:
            raise RelationError(f"{what}={scale} makes extent {d} negative ({out})")
        return out
    if scale == int(scale) and scale >= 0:
        return mul_dims(d, int(scale))
    return ANY


def _upsampling_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``UpSampling``: 4-D data in layout NCHW or NHWC; H and W become ``round(H * scale_h)`` and
    ``round(W * scale_w)`` (halves to even), which must not be negative; a symbolic H or W stays
    symbolic for a whole scale and becomes ``?`` otherwise. ``method`` is nearest_neighbor,
    bilinear or bicubic."""
    a = _attrs(attrs, UpSamplingAttrs)
    data = tensor_arg(arg_types[0], "data")
    h, w = spatial_axes(a.layout, len(data.shape))
    if a.method not in _UPSAMPLING_METHODS:
        raise RelationError(
            f'method="{a.method}" is not supported: expected nearest_neighbor, bilinear or bicubic'
        )
    shape = list(data.shape)
    shape[h] = _scaled(shape[h], a.scale_h, "scale_h")
    shape[w] = _scaled(shape[w], a.scale_w, "scale_w")
    return TensorType(tuple(shape), data.dtype)


def _upsampling_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.upsampling`` (``topi/nn/upsampling.py``): ``image.resize2d`` to
    ``(round(H * scale_h), round(W * scale_w))`` with method nearest_neighbor, linear
    (bilinear) or cubic (bicubic, alpha -0.5, no exclusion), coordinates ``align_corners`` if
    ``align_corners`` else ``asymmetric``, rounding ``""``.

    Undefined: as for ``image.resize2d`` (an empty input with a non-empty output;
    ``align_corners`` with an output extent of 1, whose coordinates are 0 / 0)."""
    a = _attrs(attrs, UpSamplingAttrs)
    data = args[0]
    h, w = spatial_axes(a.layout, data.ndim)
    r = Resize(
        size=(round(data.shape[h] * a.scale_h), round(data.shape[w] * a.scale_w)),
        roi=(0.0, 0.0, 0.0, 0.0),
        method=_UPSAMPLING_METHODS[a.method],
        mode="align_corners" if a.align_corners else "asymmetric",
        rounding="",
        alpha=-0.5,
        exclude=False,
        extrapolation=0.0,
    )
    return resize(data, a.layout, r, data.dtype, "nn.upsampling")


def _pairs(
    pairs: Sequence[Sequence[int]], count: int, what: str, rank_what: str
) -> list[tuple[int, int]]:
    """``count`` pairs of non-negative integers, or a ``RelationError`` naming ``what``."""
    if len(pairs) != count:
        raise RelationError(f"expected {count} (before, after) pairs in {what} {rank_what}")
    out = []
    for i, pair in enumerate(pairs):
        if len(pair) != 2:
            raise RelationError(f"{what} entry {i} must be a pair, found {_show(pair)}")
        if min(pair) < 0:
            raise RelationError(f"{what} entry {i} must be non-negative, found {_show(pair)}")
        out.append((pair[0], pair[1]))
    return out


def _mirror_pad_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``MirrorPad``: ``pad_width`` holds one ``(before, after)`` pair of non-negative integers
    per axis; each extent becomes ``before + x + after``; ``mode`` is SYMMETRIC or REFLECT."""
    a = _attrs(attrs, MirrorPadAttrs)
    data = tensor_arg(arg_types[0], "data")
    if a.mode not in ("SYMMETRIC", "REFLECT"):
        raise RelationError(f'mode="{a.mode}" is not supported: expected SYMMETRIC or REFLECT')
    pairs = _pairs(
        a.pad_width,
        len(data.shape),
        "pad_width",
        f"(one per axis of {_shape_str(data.shape)}), found {len(a.pad_width)}",
    )
    shape = tuple(add_dims(d, b + e) for d, (b, e) in zip(data.shape, pairs, strict=True))
    return TensorType(shape, data.dtype)


def _mirror_pad_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.mirror_pad``: SYMMETRIC repeats the border (index -1 reads 0, n reads n - 1),
    REFLECT does not (-1 reads 1, n reads n - 2); one reflection only.

    Undefined: a width beyond one reflection (SYMMETRIC: more than the extent; REFLECT: the
    extent or more), which reads outside the input."""
    a = _attrs(attrs, MirrorPadAttrs)
    data = args[0]
    symmetric = a.mode == "SYMMETRIC"
    sources = []
    for n, (before, after) in zip(data.shape, a.pad_width, strict=True):
        limit = n if symmetric else n - 1
        if max(before, after) > max(limit, 0) or (n == 0 and before + after > 0):
            raise _ub(
                "nn.mirror_pad",
                f"{a.mode} padding of an axis of extent {n} by {(before, after)} reads "
                "outside the input",
            )
        i = np.arange(n + before + after, dtype=np.int64) - before
        shift = 1 if symmetric else 0
        source = np.where(i < 0, -i - shift, np.where(i >= n, 2 * n - i - 2 + shift, i))
        sources.append(source)
    if not data.ndim:
        return data.copy()
    return np.ascontiguousarray(data[np.ix_(*sources)])


def _subpixel(arg_types: tuple[Type, ...], attrs: Attrs | None) -> tuple[SubPixelAttrs, Any]:
    a = _attrs(attrs, SubPixelAttrs)
    data = tensor_arg(arg_types[0], "data")
    spatial_axes(a.layout, len(data.shape))
    if a.block_size < 1:
        raise RelationError(f"block_size must be at least 1, found block_size={a.block_size}")
    return a, data


def _space_to_depth_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``SpaceToDepth``: 4-D data in NCHW or NHWC, ``block_size`` b >= 1: ``C -> C * b^2``,
    ``H -> H // b``, ``W -> W // b``."""
    a, data = _subpixel(arg_types, attrs)
    b = a.block_size
    shape = list(data.shape)
    c = a.layout.index("C")
    h, w = spatial_axes(a.layout, 4)
    shape[c] = mul_dims(shape[c], b * b)
    shape[h], shape[w] = floordiv_dims(shape[h], b), floordiv_dims(shape[w], b)
    return TensorType(tuple(shape), data.dtype)


def _depth_to_space_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``DepthToSpace``: the inverse of ``SpaceToDepth``: ``C -> C // b^2``, ``H -> H * b``,
    ``W -> W * b``; ``mode`` DCR or CRD."""
    a, data = _subpixel(arg_types, attrs)
    if a.mode not in ("DCR", "CRD"):
        raise RelationError(f'mode="{a.mode}" is not supported: expected DCR or CRD')
    b = a.block_size
    shape = list(data.shape)
    c = a.layout.index("C")
    h, w = spatial_axes(a.layout, 4)
    shape[c] = floordiv_dims(shape[c], b * b)
    shape[h], shape[w] = mul_dims(shape[h], b), mul_dims(shape[w], b)
    return TensorType(tuple(shape), data.dtype)


def _to_nchw(data: _Num, layout: str) -> _Num:
    return data if layout == "NCHW" else np.transpose(data, (0, 3, 1, 2))


def _from_nchw(data: _Num, layout: str) -> _Num:
    out = data if layout == "NCHW" else np.transpose(data, (0, 2, 3, 1))
    return np.ascontiguousarray(out)


def _space_to_depth_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.space_to_depth``: ``out[n, (by * b + bx) * C + c, y, x] =
    in[n, c, y * b + by, x * b + bx]`` (in NCHW; NHWC is transposed there and back)."""
    a = _attrs(attrs, SubPixelAttrs)
    x = _to_nchw(args[0], a.layout)
    b = a.block_size
    n, c, h, w = x.shape
    oh, ow = h // b, w // b
    x = x[:, :, : oh * b, : ow * b].reshape(n, c, oh, b, ow, b)
    out = x.transpose(0, 3, 5, 1, 2, 4).reshape(n, b * b * c, oh, ow)
    return _from_nchw(out, a.layout)


def _depth_to_space_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.depth_to_space``, with ``C' = C / b^2``: DCR is
    ``out[n, c, y, x] = in[n, ((y % b) * b + x % b) * C' + c, y / b, x / b]``, CRD is
    ``in[n, c * b^2 + (y % b) * b + x % b, y / b, x / b]``."""
    a = _attrs(attrs, SubPixelAttrs)
    x = _to_nchw(args[0], a.layout)
    b = a.block_size
    n, c, h, w = x.shape
    oc = c // (b * b)
    x = x[:, : oc * b * b]
    if a.mode == "DCR":
        blocks = x.reshape(n, b, b, oc, h, w).transpose(0, 3, 4, 1, 5, 2)
    else:
        blocks = x.reshape(n, oc, b, b, h, w).transpose(0, 1, 4, 2, 5, 3)
    return _from_nchw(blocks.reshape(n, oc, h * b, w * b), a.layout)


def _blocks(block_shape: Sequence[int], rank: int) -> list[int]:
    if rank < 2:
        raise RelationError(f"expected data of rank at least 2, found rank {rank}")
    if not block_shape or len(block_shape) >= rank:
        raise RelationError(
            f"block_shape={_show(block_shape)} must name 1 to {rank - 1} spatial axes of "
            f"data of rank {rank}"
        )
    if min(block_shape) < 1:
        raise RelationError(f"block_shape must be positive, found block_shape={_show(block_shape)}")
    return list(block_shape)


def _space_to_batch_nd_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``SpaceToBatchND``: data ``(N, s1..sM, rest..)``, ``M = len(block_shape) =
    len(paddings) < rank``, blocks >= 1, paddings non-negative pairs, each padded ``s_i``
    divisible by its block: ``(N * prod(block), (s_i + pads_i) / block_i.., rest..)``."""
    a = _attrs(attrs, SpaceToBatchNDAttrs)
    data = tensor_arg(arg_types[0], "data")
    blocks = _blocks(a.block_shape, len(data.shape))
    pads = _pairs(a.paddings, len(blocks), "paddings", "(one per block_shape entry)")
    shape = list(data.shape)
    shape[0] = mul_dims(shape[0], math.prod(blocks))
    for i, (block, (before, after)) in enumerate(zip(blocks, pads, strict=True), start=1):
        padded = add_dims(data.shape[i], before + after)
        if isinstance(padded, int) and padded % block:
            raise RelationError(
                f"the padded extent {padded} of axis {i} is not divisible by its block {block}"
            )
        shape[i] = floordiv_dims(padded, block)
    return TensorType(tuple(shape), data.dtype)


def _batch_to_space_nd_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``BatchToSpaceND``: data ``(N, s1..sM, rest..)``, ``M = len(block_shape) = len(crops) <
    rank``, N divisible by ``prod(block)``, crops non-negative pairs:
    ``(N / prod(block), s_i * block_i - crops_i.., rest..)``."""
    a = _attrs(attrs, BatchToSpaceNDAttrs)
    data = tensor_arg(arg_types[0], "data")
    blocks = _blocks(a.block_shape, len(data.shape))
    crops = _pairs(a.crops, len(blocks), "crops", "(one per block_shape entry)")
    total = math.prod(blocks)
    batch = data.shape[0]
    if isinstance(batch, int) and batch % total:
        raise RelationError(
            f"the batch {batch} is not divisible by the product of block_shape ({total})"
        )
    shape = list(data.shape)
    shape[0] = floordiv_dims(batch, total)
    for i, (block, (begin, end)) in enumerate(zip(blocks, crops, strict=True), start=1):
        out = sub_dims(mul_dims(data.shape[i], block), begin + end)
        if isinstance(out, int) and out < 0:
            raise RelationError(
                f"crops entry {i - 1} {_show((begin, end))} removes more than the "
                f"{data.shape[i]} * {block} elements of axis {i}"
            )
        shape[i] = out
    return TensorType(tuple(shape), data.dtype)


def _pad_value(value: float, dtype: np.dtype[Any]) -> np.generic:
    """TVM's ``make_const(dtype, value)``: rounded for floats, truncated for integers."""
    if dtype.kind == "f":
        with np.errstate(over="ignore"):
            rounded: np.generic = dtype.type(value)
        return rounded
    t = math.trunc(value) if math.isfinite(value) else None
    if dtype == np.bool_:
        if t not in (0, 1):
            raise _ub("nn.space_to_batch_nd", f"pad_value={value} is not a bool")
        return np.bool_(t)
    info = np.iinfo(dtype)
    if t is None or not info.min <= t <= info.max:
        raise _ub("nn.space_to_batch_nd", f"pad_value={value} does not fit {dtype}")
    converted: np.generic = dtype.type(t)
    return converted


def _space_to_batch_nd_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.space_to_batch_nd``: the spatial axes padded with ``pad_value`` (converted to the
    dtype as TVM's ``make_const`` does: truncated toward zero for integers), then batch index
    ``(k1..kM) * N + n`` holds the block offsets ``(k1..kM)``, row-major, of every sample:
    ``out[k * N + n, i..] = padded[n, i * block + k..]``.

    Undefined: a ``pad_value`` not representable in an integer dtype (NaN, infinite or out of
    range after truncation)."""
    a = _attrs(attrs, SpaceToBatchNDAttrs)
    data = args[0]
    m = len(a.block_shape)
    fill = _pad_value(a.pad_value, data.dtype)
    pads = [(0, 0), *[(p[0], p[1]) for p in a.paddings]] + [(0, 0)] * (data.ndim - m - 1)
    padded = np.pad(data, pads, constant_values=fill)
    n = data.shape[0]
    split: list[int] = [n]
    for i, block in enumerate(a.block_shape, start=1):
        split += [padded.shape[i] // block, block]
    split += list(data.shape[m + 1 :])
    x = padded.reshape(split)
    order = [2 * i + 2 for i in range(m)] + [0] + [2 * i + 1 for i in range(m)]
    order += list(range(2 * m + 1, x.ndim))
    out_shape = (n * math.prod(a.block_shape), *(split[2 * i + 1] for i in range(m)))
    return np.ascontiguousarray(x.transpose(order).reshape(*out_shape, *data.shape[m + 1 :]))


def _batch_to_space_nd_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.batch_to_space_nd``: the inverse interleaving of ``nn.space_to_batch_nd``, then the
    crops removed from each spatial axis."""
    a = _attrs(attrs, BatchToSpaceNDAttrs)
    data = args[0]
    m = len(a.block_shape)
    blocks = list(a.block_shape)
    n = data.shape[0] // math.prod(blocks)
    x = data.reshape(*blocks, n, *data.shape[1:])
    # (b1..bM, n, s1..sM, rest) -> (n, s1, b1, .., sM, bM, rest)
    order = [m] + [i for k in range(m) for i in (m + 1 + k, k)]
    order += list(range(2 * m + 1, x.ndim))
    spatial = [data.shape[i + 1] * blocks[i] for i in range(m)]
    x = x.transpose(order).reshape(n, *spatial, *data.shape[m + 1 :])
    index: list[slice] = [slice(None)]
    for extent, (begin, end) in zip(spatial, a.crops, strict=True):
        index.append(slice(begin, extent - end))
    return np.ascontiguousarray(x[tuple(index)])


_OPS = (
    ("nn.upsampling", UpSamplingAttrs, _upsampling_relation, _upsampling_reference,
     "UpSampling", "Upsample H and W by scale_h and scale_w (nearest, bilinear or bicubic).",
     "onnxruntime:Resize"),
    ("nn.mirror_pad", MirrorPadAttrs, _mirror_pad_relation, _mirror_pad_reference,
     "MirrorPad", "Pad each axis with its mirror image (SYMMETRIC or REFLECT).",
     "onnxruntime:Pad"),
    ("nn.space_to_depth", SubPixelAttrs, _space_to_depth_relation, _space_to_depth_reference,
     "SpaceToDepth", "Move each block_size x block_size spatial block into the channels.",
     "onnxruntime:SpaceToDepth"),
    ("nn.depth_to_space", SubPixelAttrs, _depth_to_space_relation, _depth_to_space_reference,
     "DepthToSpace", "Move channels into block_size x block_size spatial blocks.",
     "onnxruntime:DepthToSpace"),
    ("nn.space_to_batch_nd", SpaceToBatchNDAttrs, _space_to_batch_nd_relation,
     _space_to_batch_nd_reference, "SpaceToBatchND",
     "Pad the spatial axes and move their blocks into the batch.",
     "independent:direct loop over output elements"),
    ("nn.batch_to_space_nd", BatchToSpaceNDAttrs, _batch_to_space_nd_relation,
     _batch_to_space_nd_reference, "BatchToSpaceND",
     "Move batch blocks into the spatial axes, then crop them.",
     "independent:direct loop over output elements"),
)  # fmt: skip


for _name, _type, _relation, _reference, _rel_name, _doc, _check in _OPS:
    _op(
        _name,
        _doc,
        relation=_relation,
        reference=tensor_reference(_reference),
        check=_check,
        relation_name=_rel_name,
        attrs_type=_type,
    )
