"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.nn.shape``.

From the former ``z3_nnnorm`` module:

Z3 encodings of the type relations of the ``nnnorm`` operator group.

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

from relay.semantics.ops.nn.shape import (
    BatchToSpaceNDAttrs,
    MirrorPadAttrs,
    PadAttrs,
    SpaceToBatchNDAttrs,
    SubPixelAttrs,
    UpSamplingAttrs,
)
from relay.semantics.ops.registry import Attrs

from ..core import (
    Arg,
    Cond,
    Encoded,
    Encoding,
    IllTyped,
    Term,
    _attrs,
    _hw,
    _tensor,
    const_value,
    floordiv,
    product,
    well_typed,
)


def _batch_flatten(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """BatchFlattenRel: rank >= 1; (d0, d1, ..., dk) becomes (d0, d1 * ... * dk)."""
    data = _tensor(args, 0)
    if not data.shape:
        raise IllTyped("batch_flatten needs rank >= 1")
    return well_typed([[data.shape[0], product(data.shape[1:])]], dtypes=[data.dtype])


def _pad(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """PadRel: pad_mode constant, edge or reflect; one (before, after) pair per axis
    (negative crops); out = size + before + after >= 0. pad_val is not constrained."""
    data = _tensor(args, 0)
    _tensor(args, 1)
    a = _attrs(attrs, PadAttrs)
    if a.pad_mode not in ("constant", "edge", "reflect"):
        raise IllTyped(f"unknown pad_mode {a.pad_mode}")
    widths = a.pad_width
    if len(widths) != len(data.shape) or any(len(p) != 2 for p in widths):
        raise IllTyped(f"pad_width {widths} needs one pair per axis of a rank-{len(data.shape)}")
    out = [d + before + after for d, (before, after) in zip(data.shape, widths, strict=True)]
    return well_typed([out], dtypes=[data.dtype])


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


RULES: dict[str, Encoding] = {
    "nn.batch_flatten": _batch_flatten,
    "nn.pad": _pad,
    "nn.upsampling": _upsampling,
    "nn.mirror_pad": _mirror_pad,
    "nn.space_to_depth": _space_to_depth,
    "nn.depth_to_space": _depth_to_space,
    "nn.space_to_batch_nd": _space_to_batch_nd,
    "nn.batch_to_space_nd": _batch_to_space_nd,
}
"""This module's entries, by op name."""
