"""Z3 encodings of the type relations of the ``nnnorm`` operator group.

Normalisations and losses (``ops.nn_norm``), resampling (``ops.nn_resample``) and
``image.resize2d`` (``ops.image``), written from TVM 0.18's relations (``src/relay/op/nn/nn.cc``,
``nn/pad.cc``, ``nn/upsampling.cc``, ``image/resize.cc``) and the departures those modules
document (``group_norm``'s groups, ``lrn``'s rank/axis/size, NCHW/NHWC layouts only, TOPI's
divisibility checks for the ``*_nd`` ops). Each encoding's docstring states its rule.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import z3

from relay.semantics.ops.image import Resize2DAttrs
from relay.semantics.ops.nn.activation import SoftmaxAttrs
from relay.semantics.ops.nn.loss import NLLLossAttrs
from relay.semantics.ops.nn.norm import (
    GroupNormAttrs,
    InstanceNormAttrs,
    L2NormalizeAttrs,
    LayerNormAttrs,
    LRNAttrs,
)
from relay.semantics.ops.nn.shape import (
    BatchToSpaceNDAttrs,
    MirrorPadAttrs,
    SpaceToBatchNDAttrs,
    SubPixelAttrs,
    UpSamplingAttrs,
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
    _axis,
    _tensor,
    const_value,
    floordiv,
    well_typed,
)

FLOAT_DTYPES = ("float16", "float32", "float64")
SIGNED_DTYPES = ("int8", "int16", "int32", "int64")


def _affine(args: Sequence[Arg], axis: int, min_rank: int = 1) -> tuple[Shape, str, list[Cond]]:
    """data of rank >= min_rank with axis in range; gamma and beta vectors of data's dtype
    and length data[axis]."""
    data = _tensor(args, 0, "data")
    if len(data.shape) < min_rank:
        raise IllTyped(f"data needs rank >= {min_rank}")
    index = _axis(axis, len(data.shape))
    cons: list[Cond] = []
    for k in (1, 2):
        v = _tensor(args, k)
        if len(v.shape) != 1 or v.dtype != data.dtype:
            raise IllTyped(f"gamma and beta must be vectors of {data.dtype}")
        cons.append(v.shape[0] == data.shape[index])
    return data.shape, data.dtype, cons


def _layer_norm(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """LayerNormRel: axis in [-ndim, ndim); gamma, beta (data[axis],) of data's dtype; out =
    data."""
    shape, dtype, cons = _affine(args, _attrs(attrs, LayerNormAttrs).axis)
    return well_typed([shape], cons, [dtype])


def _instance_norm(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """InstanceNormRel: as LayerNormRel, with data of rank > 2."""
    shape, dtype, cons = _affine(args, _attrs(attrs, InstanceNormAttrs).axis, min_rank=3)
    return well_typed([shape], cons, [dtype])


def _group_norm(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """GroupNormRel: as LayerNormRel; num_groups >= 1 divides data[axis]."""
    a = _attrs(attrs, GroupNormAttrs)
    shape, dtype, cons = _affine(args, a.axis)
    if a.num_groups < 1:
        raise IllTyped(f"num_groups {a.num_groups} < 1")
    channels = shape[_axis(a.axis, len(shape))]
    return well_typed([shape], [*cons, channels % a.num_groups == 0], [dtype])


def _l2_normalize(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """IdentityRel, with at least one axis, each in range, none repeated."""
    data = _tensor(args, 0, "data")
    axes = [_axis(ax, len(data.shape)) for ax in _attrs(attrs, L2NormalizeAttrs).axis]
    if not axes or len(set(axes)) != len(axes):
        raise IllTyped("l2_normalize needs distinct axes, at least one")
    return well_typed([data.shape], dtypes=[data.dtype])


def _lrn(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """IdentityRel, with 4-D data, axis 1 or 3, and an odd positive size."""
    data = _tensor(args, 0, "data")
    a = _attrs(attrs, LRNAttrs)
    if len(data.shape) != 4 or a.axis not in (1, 3) or a.size < 1 or a.size % 2 == 0:
        raise IllTyped("lrn needs 4-D data, axis 1 or 3 and an odd size")
    return well_typed([data.shape], dtypes=[data.dtype])


def _cross_entropy(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """CrossEntropyRel: x and y 2-D of one shape and dtype; out a scalar of x's dtype."""
    x, y = _tensor(args, 0, "x"), _tensor(args, 1, "y")
    if len(x.shape) != 2 or len(y.shape) != 2 or x.dtype != y.dtype:
        raise IllTyped("cross_entropy needs 2-D x and y of one dtype")
    return well_typed([[]], [p == q for p, q in zip(x.shape, y.shape, strict=True)], [x.dtype])


def _nll_loss(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """NLLLossRel: predictions (N, C, d..) float, targets (N, d..) signed int, weights (C,) of
    predictions' dtype (or predictions (C,), targets ()); out targets' shape for reduction
    "none", else a scalar."""
    a = _attrs(attrs, NLLLossAttrs)
    p, t, w = _tensor(args, 0), _tensor(args, 1), _tensor(args, 2)
    if a.reduction not in ("none", "mean", "sum"):
        raise IllTyped(f"unknown reduction {a.reduction}")
    if len(p.shape) != len(t.shape) + 1 or len(w.shape) != 1:
        raise IllTyped("predictions must be one rank above targets; weights 1-D")
    if p.dtype not in FLOAT_DTYPES or w.dtype != p.dtype or t.dtype not in SIGNED_DTYPES:
        raise IllTyped("float predictions and weights of one dtype, signed integer targets")
    if len(p.shape) == 1:
        cons = [w.shape[0] == p.shape[0]]
    else:
        expected = [p.shape[0], *p.shape[2:]]
        cons = [w.shape[0] == p.shape[1]]
        cons += [x == e for x, e in zip(t.shape, expected, strict=True)]
    out: Shape = list(t.shape) if a.reduction == "none" else []
    return well_typed([out], cons, [p.dtype])


def _fast_softmax(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """SoftmaxRel: axis in range; out = data."""
    data = _tensor(args, 0, "data")
    _axis(_attrs(attrs, SoftmaxAttrs).axis, len(data.shape))
    return well_typed([data.shape], dtypes=[data.dtype])


# ---------------------------------------------------------------------------------------------
# Resampling


def _hw(layout: str, rank: int) -> tuple[int, int]:
    if layout not in ("NCHW", "NHWC") or rank != 4:
        raise IllTyped(f"layout {layout} with rank {rank}: NCHW or NHWC, rank 4")
    return layout.index("H"), layout.index("W")


def _scaled(d: Term, scale: float) -> Term:
    """round(d * scale), half to even; unconstrained unless d is known or scale whole."""
    value = const_value(d)
    if value is not None:
        out = round(value * scale)
        if out < 0:
            raise IllTyped("negative scaled extent")
        return z3.IntVal(out)
    if scale == int(scale) and scale >= 0:
        return d * int(scale)
    return z3.FreshInt("scaled")


def _upsampling(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """UpSamplingRel: 4-D data in NCHW or NHWC; H, W become round(H * scale_h), round(W *
    scale_w); method nearest_neighbor, bilinear or bicubic."""
    data = _tensor(args, 0, "data")
    a = _attrs(attrs, UpSamplingAttrs)
    hi, wi = _hw(a.layout, len(data.shape))
    if a.method not in ("nearest_neighbor", "bilinear", "bicubic"):
        raise IllTyped(f"unknown method {a.method}")
    out = list(data.shape)
    out[hi], out[wi] = _scaled(out[hi], a.scale_h), _scaled(out[wi], a.scale_w)
    return well_typed([out], dtypes=[data.dtype])


def _pairs(pairs: Sequence[Sequence[int]], count: int) -> list[tuple[int, int]]:
    if len(pairs) != count or any(len(p) != 2 or min(p) < 0 for p in pairs):
        raise IllTyped(f"expected {count} non-negative pairs, found {pairs}")
    return [(p[0], p[1]) for p in pairs]


def _mirror_pad(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """MirrorPadRel: mode SYMMETRIC or REFLECT; a non-negative pair per axis; out = before +
    size + after."""
    data = _tensor(args, 0, "data")
    a = _attrs(attrs, MirrorPadAttrs)
    if a.mode not in ("SYMMETRIC", "REFLECT"):
        raise IllTyped(f"unknown mode {a.mode}")
    pairs = _pairs(a.pad_width, len(data.shape))
    out = [d + b + e for d, (b, e) in zip(data.shape, pairs, strict=True)]
    return well_typed([out], dtypes=[data.dtype])


def _subpixel(args: Sequence[Arg], attrs: Attrs | None, to_depth: bool) -> Encoded:
    data = _tensor(args, 0, "data")
    a = _attrs(attrs, SubPixelAttrs)
    hi, wi = _hw(a.layout, len(data.shape))
    ci = a.layout.index("C")
    b = a.block_size
    if b < 1 or (not to_depth and a.mode not in ("DCR", "CRD")):
        raise IllTyped("block_size >= 1 (and mode DCR or CRD for depth_to_space)")
    out = list(data.shape)
    if to_depth:
        out[ci] = data.shape[ci] * (b * b)
        out[hi], out[wi] = floordiv(data.shape[hi], b), floordiv(data.shape[wi], b)
    else:
        out[ci] = floordiv(data.shape[ci], b * b)
        out[hi], out[wi] = data.shape[hi] * b, data.shape[wi] * b
    return well_typed([out], dtypes=[data.dtype])


def _space_to_depth(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """SpaceToDepthRel: 4-D NCHW or NHWC, block b >= 1: C * b^2, H // b, W // b."""
    return _subpixel(args, attrs, to_depth=True)


def _depth_to_space(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DepthToSpaceRel: 4-D NCHW or NHWC, block b >= 1, mode DCR or CRD: C // b^2, H * b,
    W * b."""
    return _subpixel(args, attrs, to_depth=False)


def _blocks(rank: int, block_shape: Sequence[int]) -> list[int]:
    if rank < 2 or not 1 <= len(block_shape) < rank or min(block_shape) < 1:
        raise IllTyped(f"block_shape {block_shape} for rank {rank}")
    return list(block_shape)


def _space_to_batch_nd(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """SpaceToBatchNDRel: M = len(block_shape) in [1, rank); M non-negative padding pairs;
    each padded spatial size divisible by its block; out (N * prod(blocks), padded_i /
    block_i.., rest..)."""
    data = _tensor(args, 0, "data")
    a = _attrs(attrs, SpaceToBatchNDAttrs)
    blocks = _blocks(len(data.shape), a.block_shape)
    pads = _pairs(a.paddings, len(blocks))
    out = list(data.shape)
    out[0] = data.shape[0] * math.prod(blocks)
    cons: list[Cond] = []
    for i, (block, (b, e)) in enumerate(zip(blocks, pads, strict=True), start=1):
        padded = data.shape[i] + b + e
        cons.append(padded % block == 0)
        out[i] = padded / block
    return well_typed([out], cons, [data.dtype])


def _batch_to_space_nd(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """BatchToSpaceNDRel: M = len(block_shape) in [1, rank); M non-negative crop pairs; N
    divisible by prod(blocks); out (N / prod(blocks), s_i * block_i - crops_i.., rest..),
    each >= 0."""
    data = _tensor(args, 0, "data")
    a = _attrs(attrs, BatchToSpaceNDAttrs)
    blocks = _blocks(len(data.shape), a.block_shape)
    crops = _pairs(a.crops, len(blocks))
    total = math.prod(blocks)
    out = list(data.shape)
    out[0] = data.shape[0] / total
    for i, (block, (b, e)) in enumerate(zip(blocks, crops, strict=True), start=1):
        out[i] = data.shape[i] * block - b - e
    return well_typed([out], [data.shape[0] % total == 0], [data.dtype])


_RESIZE_METHODS = ("nearest_neighbor", "linear", "cubic")
_RESIZE_MODES = (
    *("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"),
    *("tf_half_pixel_for_nn", "tf_crop_and_resize"),
)
_ROUNDING = ("", "round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def _resize2d(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Resize2DRel: 4-D NCHW or NHWC; size two non-negative integers, roi four floats, known
    method, coordinate mode and rounding; H, W become size; dtype out_dtype or data's."""
    data = _tensor(args, 0, "data")
    a = _attrs(attrs, Resize2DAttrs)
    hi, wi = _hw(a.layout, len(data.shape))
    if a.size is None or len(a.size) != 2 or min(a.size) < 0:
        raise IllTyped(f"size {a.size}")
    if a.roi is None or len(a.roi) != 4:
        raise IllTyped(f"roi {a.roi}")
    known = (
        a.method in _RESIZE_METHODS
        and a.coordinate_transformation_mode in _RESIZE_MODES
        and a.rounding_method in _ROUNDING
    )
    if not known:
        raise IllTyped("unknown method, coordinate mode or rounding method")
    out = list(data.shape)
    out[hi], out[wi] = z3.IntVal(a.size[0]), z3.IntVal(a.size[1])
    return well_typed([out], dtypes=[a.out_dtype or data.dtype])


RULES: dict[str, Encoding] = {
    "nn.layer_norm": _layer_norm,
    "nn.group_norm": _group_norm,
    "nn.instance_norm": _instance_norm,
    "nn.l2_normalize": _l2_normalize,
    "nn.lrn": _lrn,
    "nn.cross_entropy": _cross_entropy,
    "nn.nll_loss": _nll_loss,
    "nn.fast_softmax": _fast_softmax,
    "nn.upsampling": _upsampling,
    "nn.mirror_pad": _mirror_pad,
    "nn.space_to_depth": _space_to_depth,
    "nn.depth_to_space": _depth_to_space,
    "nn.space_to_batch_nd": _space_to_batch_nd,
    "nn.batch_to_space_nd": _batch_to_space_nd,
    "image.resize2d": _resize2d,
}
"""The encodings of this group's operators, by name (merged into ``Z3_ENCODINGS``)."""
