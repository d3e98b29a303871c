"""Dataflow-generator builders of the operators of
``relay.semantics.ops.nn.shape`` (well-typed calls by construction).

From the former ``builders_nnnorm`` module:

Dataflow-generator builders of the ``nnnorm`` operator group.

Each builder makes a well-typed call whose meaning is defined for the generator's default
arguments: float data for the float-only normalisations and losses (and positive
probabilities for ``nn.cross_entropy``'s log), ``nn.nll_loss`` targets that are constants
inside ``[0, C)`` or the ignore index, mirror padding of at most one reflection, space/batch
blocks that divide their extents, and no ``align_corners`` resize to an extent of 1 (whose
coordinates are 0 / 0). Float results of integer data stay in range for the default
arguments (small values; interpolation and cubic overshoot keep them inside the dtype).
"""

from __future__ import annotations

from relay.semantics.ops.nn.shape import (
    BatchToSpaceNDAttrs,
    MirrorPadAttrs,
    PadAttrs,
    SpaceToBatchNDAttrs,
    SubPixelAttrs,
    UpSamplingAttrs,
)
from relay.semantics.syntax import TensorType

from ..core import (
    _IMAGE_LAYOUTS,
    ALL,
    Builder,
    Built,
    _dims,
    _divisors,
    _Graph,
    _nonempty,
    _sources,
)


def _batch_flatten(g: _Graph) -> Built:
    return (g.tensor(ALL, min_rank=1),), None


def _pad(g: _Graph) -> Built:
    """Constant padding (cropping up to half an axis), edge padding, or reflection narrower
    than the axis; a non-empty ``pad_val`` of a dtype that converts to the data's (rank 0 when
    fresh, the data's dtype preferred)."""
    data = g.tensor(ALL)
    shape = _dims(data[1])
    mode = g.pick(["constant", "edge", "reflect"])
    if 0 in shape:
        mode = "constant"  # edge and reflect read outside an empty axis
    widths = []
    for d in shape:
        if mode == "constant":
            widths.append((g.integer(-(d // 2), 2), g.integer(-(d // 2), 2)))
        else:
            high = 2 if mode == "edge" else min(2, d - 1)
            widths.append((g.integer(0, high), g.integer(0, high)))
    sources = _sources(data[1].dtype)
    pad_val = g.tensor(
        sources,
        fits=lambda t: 0 not in _dims(t),
        fresh=lambda: TensorType((), g.dtype(sources)),
    )
    attrs = PadAttrs.from_kwargs({"pad_width": tuple(widths), "pad_mode": mode})
    return (data, pad_val), attrs


def _upsampling(g: _Graph) -> Built:
    """4-D data; scales from a short list; align_corners only where both output extents are at
    least 2."""
    data = g.tensor(ALL, min_rank=4, max_rank=4, fits=_nonempty)
    layout = g.pick(_IMAGE_LAYOUTS)
    h, w = (_dims(data[1])[layout.index(c)] for c in "HW")
    scale_h, scale_w = g.pick([2.0, 1.0, 0.5, 1.5]), g.pick([2.0, 1.0, 0.5, 1.5])
    align = g.flag() and min(round(h * scale_h), round(w * scale_w)) >= 2
    attrs = UpSamplingAttrs.from_kwargs(
        {
            "scale_h": scale_h,
            "scale_w": scale_w,
            "layout": layout,
            "method": g.pick(["nearest_neighbor", "bilinear", "bicubic"]),
            "align_corners": align,
        }
    )
    return (data,), attrs


def _mirror_pad(g: _Graph) -> Built:
    """At most one reflection: SYMMETRIC up to the extent, REFLECT below it."""
    data = g.tensor(ALL)
    mode = g.pick(["SYMMETRIC", "REFLECT"])
    widths = []
    for d in _dims(data[1]):
        high = max(0, min(2, d if mode == "SYMMETRIC" else d - 1))
        widths.append((g.integer(0, high), g.integer(0, high)))
    return (data,), MirrorPadAttrs.from_kwargs({"mode": mode, "pad_width": tuple(widths)})


def _subpixel(g: _Graph) -> Built:
    data = g.tensor(ALL, min_rank=4, max_rank=4)
    attrs = SubPixelAttrs.from_kwargs(
        {
            "block_size": g.integer(1, 3),
            "layout": g.pick(_IMAGE_LAYOUTS),
            "mode": g.pick(["DCR", "CRD"]),
        }
    )
    return (data,), attrs


def _space_to_batch_nd(g: _Graph) -> Built:
    """Blocks of 1 to 3 over leading spatial axes; paddings that make each padded extent a
    multiple of its block; a pad value of 0 or 1 (every dtype holds them)."""
    data = g.tensor(ALL, min_rank=2)
    shape = _dims(data[1])
    m = g.integer(1, len(shape) - 1)
    blocks, pads = [], []
    for extent in shape[1 : m + 1]:
        block = g.integer(1, 3)
        before = g.integer(0, 2)
        pads.append((before, (-(extent + before)) % block))
        blocks.append(block)
    attrs = SpaceToBatchNDAttrs.from_kwargs(
        {
            "block_shape": tuple(blocks),
            "paddings": tuple(pads),
            "pad_value": float(g.integer(0, 1)),
        }
    )
    return (data,), attrs


def _batch_to_space_nd(g: _Graph) -> Built:
    """Blocks whose product divides the batch; crops inside each enlarged extent."""
    data = g.tensor(ALL, min_rank=2)
    shape = _dims(data[1])
    m = g.integer(1, len(shape) - 1)
    rest = shape[0]
    blocks, crops = [], []
    for extent in shape[1 : m + 1]:
        block = g.pick(_divisors(rest) if rest else [1])
        rest = rest // block if rest else 0
        budget = extent * block
        begin = g.integer(0, budget)
        crops.append((begin, g.integer(0, budget - begin)))
        blocks.append(block)
    attrs = BatchToSpaceNDAttrs.from_kwargs({"block_shape": tuple(blocks), "crops": tuple(crops)})
    return (data,), attrs


BUILDERS: dict[str, Builder] = {
    "nn.batch_flatten": _batch_flatten,
    "nn.pad": _pad,
    "nn.upsampling": _upsampling,
    "nn.mirror_pad": _mirror_pad,
    "nn.space_to_depth": _subpixel,
    "nn.depth_to_space": _subpixel,
    "nn.space_to_batch_nd": _space_to_batch_nd,
    "nn.batch_to_space_nd": _batch_to_space_nd,
}
"""This module's entries, by op name."""
