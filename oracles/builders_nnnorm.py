"""Dataflow-generator builders of the ``nnnorm`` operator group.

Each builder makes a well-typed call whose meaning is defined for the generator's default
arguments: float data for the float-only normalisations and losses (and positive
probabilities for ``nn.cross_entropy``'s log), ``nn.nll_loss`` targets that are constants
inside ``[0, C)`` or the ignore index, mirror padding of at most one reflection, space/batch
blocks that divide their extents, and no ``align_corners`` resize to an extent of 1 (whose
coordinates are 0 / 0). Float results of integer data stay in range for the default
arguments (small values; interpolation and cubic overshoot keep them inside the dtype).
"""

from __future__ import annotations

import math

import numpy as np

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
from relay.semantics.syntax import Constant, TensorType

from .gen_dataflow import (
    ALL,
    FLOATS,
    SIGNED,
    Builder,
    Built,
    _dims,
    _divisors,
    _Graph,
)


def _nonempty(t: TensorType) -> bool:
    """No empty axis: an empty image resized to a non-empty one reads out of bounds, and
    statistics over nothing are 0 / 0."""
    return 0 not in _dims(t)


def _norm(kind: str) -> Builder:
    """Float data (rank >= 3 for instance_norm), a channel axis, gamma and beta of its length;
    group_norm's groups divide the channels."""

    def build(g: _Graph) -> Built:
        data = g.tensor(FLOATS, min_rank=3 if kind == "instance" else 1, fits=_nonempty)
        shape = _dims(data[1])
        axis = g.integer(0, len(shape) - 1)
        vector = TensorType((shape[axis],), data[1].dtype)
        gamma, beta = g.exactly(vector), g.exactly(vector)
        common: dict[str, object] = {
            "axis": g.axis(axis, len(shape)),
            "epsilon": g.pick([1e-5, 1e-3, 0.5]),
            "center": not g.flag(),
            "scale": not g.flag(),
        }
        attrs: Attrs
        if kind == "layer":
            attrs = LayerNormAttrs.from_kwargs(common)
        elif kind == "group":
            groups = g.pick(_divisors(shape[axis]) or [1])
            attrs = GroupNormAttrs.from_kwargs({**common, "num_groups": groups})
        else:
            attrs = InstanceNormAttrs.from_kwargs(common)
        return (data, gamma, beta), attrs

    return build


def _l2_normalize(g: _Graph) -> Built:
    data = g.tensor(FLOATS, min_rank=1)
    ndim = len(data[1].shape)
    axis = tuple(g.axis(a, ndim) for a in g.subset(ndim, min_size=1))
    attrs = L2NormalizeAttrs.from_kwargs({"eps": g.pick([1e-12, 1e-3, 1.0]), "axis": axis})
    return (data,), attrs


def _lrn(g: _Graph) -> Built:
    data = g.tensor(FLOATS, min_rank=4, max_rank=4)
    attrs = LRNAttrs.from_kwargs(
        {
            "size": g.pick([5, 1, 3]),
            "axis": g.pick([1, 3]),
            "bias": g.pick([2.0, 1.0]),
            "alpha": g.pick([1e-4, 0.5]),
            "beta": g.pick([0.75, 0.5]),
        }
    )
    return (data,), attrs


def _cross_entropy(g: _Graph) -> Built:
    """Positive probabilities x (log of a non-positive value is NaN or -inf), y alike."""
    x = g.tensor(FLOATS, min_rank=2, max_rank=2, positive=True)
    return (x, g.exactly(x[1])), None


_TARGET_ELEMENTS = 36
"""The most targets a ``nn.nll_loss`` call draws (one class per target)."""


def _nll_loss(g: _Graph) -> Built:
    """Float predictions (N, C, d..) or (C,); targets a constant of in-range classes (and the
    ignore index); weights (C,)."""

    def fits(t: TensorType) -> bool:
        d = _dims(t)
        targets = () if len(d) == 1 else (d[0], *d[2:])
        return d[0 if len(d) == 1 else 1] >= 1 and math.prod(targets) <= _TARGET_ELEMENTS

    # Rank 3 at most: a fresh (6, C, 6) has 36 targets, each drawn.
    predictions = g.tensor(FLOATS, min_rank=1, max_rank=3, fits=fits)
    shape = _dims(predictions[1])
    classes = shape[0] if len(shape) == 1 else shape[1]
    target_shape = () if len(shape) == 1 else (shape[0], *shape[2:])
    ignore = g.pick([-100, 0, 1])
    values = [g.integer(0, classes - 1) for _ in range(math.prod(target_shape))]
    dtype = g.dtype(SIGNED)
    t = TensorType(target_shape, dtype)
    constant = Constant(np.array(values, dtype=dtype).reshape(target_shape))
    targets = g.use(g.add(constant, t, (False,)))
    weights = g.exactly(TensorType((classes,), predictions[1].dtype))
    attrs = NLLLossAttrs.from_kwargs(
        {"reduction": g.pick(["mean", "sum", "none"]), "ignore_index": ignore}
    )
    return (predictions, targets, weights), attrs


def _fast_softmax(g: _Graph) -> Built:
    data = g.tensor(FLOATS, min_rank=1)
    ndim = len(data[1].shape)
    return (data,), SoftmaxAttrs.from_kwargs({"axis": g.axis(g.integer(0, ndim - 1), ndim)})


_IMAGE_LAYOUTS = ("NCHW", "NHWC")


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


_RESIZE_MODES = (
    *("half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"),
    *("tf_half_pixel_for_nn", "tf_crop_and_resize"),
)


def _resize2d(g: _Graph) -> Built:
    """4-D data of any dtype; an output size of 1 to 6 per axis (at least 2 for
    align_corners); a float or the data's output dtype."""
    data = g.tensor(ALL, min_rank=4, max_rank=4, fits=_nonempty)
    mode = g.pick(_RESIZE_MODES)
    low = 2 if mode == "align_corners" else 1
    attrs = Resize2DAttrs.from_kwargs(
        {
            "size": (g.integer(low, 6), g.integer(low, 6)),
            "roi": g.pick([(0.0, 0.0, 1.0, 1.0), (0.25, 0.0, 0.75, 1.25)]),
            "layout": g.pick(_IMAGE_LAYOUTS),
            "method": g.pick(["linear", "nearest_neighbor", "cubic"]),
            "coordinate_transformation_mode": mode,
            "rounding_method": g.pick(["round", "", "floor", "ceil", "round_prefer_ceil"]),
            "cubic_alpha": g.pick([-0.5, -0.75]),
            "cubic_exclude": g.integer(0, 1),
            "extrapolation_value": g.pick([0.0, 1.0]),
            "out_dtype": g.pick(["", "float32"]),
        }
    )
    return (data,), attrs


BUILDERS: dict[str, Builder] = {
    "nn.layer_norm": _norm("layer"),
    "nn.group_norm": _norm("group"),
    "nn.instance_norm": _norm("instance"),
    "nn.l2_normalize": _l2_normalize,
    "nn.lrn": _lrn,
    "nn.cross_entropy": _cross_entropy,
    "nn.nll_loss": _nll_loss,
    "nn.fast_softmax": _fast_softmax,
    "nn.upsampling": _upsampling,
    "nn.mirror_pad": _mirror_pad,
    "nn.space_to_depth": _subpixel,
    "nn.depth_to_space": _subpixel,
    "nn.space_to_batch_nd": _space_to_batch_nd,
    "nn.batch_to_space_nd": _batch_to_space_nd,
    "image.resize2d": _resize2d,
}
"""How to build a call of each of this group's operators (merged into ``gen_dataflow.BUILDERS``)."""
