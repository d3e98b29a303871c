"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.nn.shape``.

From the former ``samplers_nnnorm`` module:

Samplers of the ``nnnorm`` operator group: normalisations, losses, resampling, resize.

Each draws a call that is well-typed four times in five (``_valid``) and otherwise breaks it
in one way (a wrong vector length or dtype, an axis out of range, a bad attribute value or
length). All randomness is drawn from Hypothesis; samples shrink towards small shapes, default
attributes and the valid variant.
"""

from __future__ import annotations

from hypothesis import strategies as st

from relay.semantics.ops.nn.shape import (
    BatchToSpaceNDAttrs,
    MirrorPadAttrs,
    PadAttrs,
    SpaceToBatchNDAttrs,
    SubPixelAttrs,
    UpSamplingAttrs,
)
from relay.semantics.syntax import Dim

from ..core import FLOATS, NUMERIC, Sample, Sampler, _dim, _image, _shape, _size, _tensor, _valid


@st.composite
def _batch_flatten(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 1 if valid else 0, 4 if valid else 0, symbolic=True, any_=True)
    return Sample((_tensor(shape, draw(st.sampled_from(FLOATS))),), None, valid)


@st.composite
def _pad(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, symbolic=True, any_=True)
    widths: list[tuple[int, ...]] = []
    for d in shape:
        low = -(d // 2) if isinstance(d, int) else 0
        widths.append((draw(st.integers(low, 2)), draw(st.integers(low, 2))))
    mode = draw(st.sampled_from(["constant", "edge", "reflect"]))
    if not valid:
        fault = draw(st.sampled_from(["count", "pair", "negative", "mode"]))
        if fault == "mode":
            mode = "wrap"
        elif fault == "count" or not shape:
            widths.append((0, 0))
        elif fault == "pair":
            widths[-1] = (0, 0, 0)
        else:
            widths[-1] = (-7, 0)
    dtype = draw(st.sampled_from(NUMERIC))
    attrs = PadAttrs.from_kwargs({"pad_width": tuple(widths), "pad_mode": mode})
    return Sample((_tensor(shape, dtype), _tensor((), dtype)), attrs, valid)


@st.composite
def _upsampling(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape, layout = _image(draw, valid)
    scales = [draw(st.sampled_from([1.0, 2.0, 0.5, 1.5, 3.0])) for _ in range(2)]
    method = draw(st.sampled_from(["nearest_neighbor", "bilinear", "bicubic"]))
    if not valid and draw(st.booleans()):
        if draw(st.booleans()):
            method = "linear"
        elif len(shape) == 4 and layout in ("NCHW", "NHWC"):
            scales[0] = -1.0  # a negative extent, once H is a known non-zero size
            shape = tuple(2 if i == layout.index("H") else d for i, d in enumerate(shape))
    attrs = UpSamplingAttrs.from_kwargs(
        {
            "scale_h": scales[0],
            "scale_w": scales[1],
            "layout": layout,
            "method": method,
            "align_corners": draw(st.booleans()),
        }
    )
    return Sample((_tensor(shape, draw(st.sampled_from(NUMERIC))),), attrs, valid)


@st.composite
def _mirror_pad(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 0, 4, symbolic=True, any_=True)
    widths: list[tuple[int, ...]] = [
        (draw(st.integers(0, 2)), draw(st.integers(0, 2))) for _ in shape
    ]
    mode = draw(st.sampled_from(["SYMMETRIC", "REFLECT"]))
    if not valid:
        fault = draw(st.sampled_from(["count", "pair", "negative", "mode"]))
        if fault == "mode":
            mode = "EDGE"
        elif fault == "count" or not shape:
            widths.append((0, 0))
        elif fault == "pair":
            widths[-1] = (0, 0, 0)
        else:
            widths[-1] = (-1, 0)
    attrs = MirrorPadAttrs.from_kwargs({"mode": mode, "pad_width": tuple(widths)})
    return Sample((_tensor(shape, draw(st.sampled_from(NUMERIC))),), attrs, valid)


def _subpixel(to_depth: bool) -> Sampler:
    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        valid = _valid(draw)
        shape, layout = _image(draw, valid)
        block = draw(st.integers(1, 3))
        mode = draw(st.sampled_from(["DCR", "CRD"]))
        if not valid and draw(st.booleans()):
            if to_depth or draw(st.booleans()):
                block = 0
            else:
                mode = "CDR"
        attrs = SubPixelAttrs.from_kwargs({"block_size": block, "layout": layout, "mode": mode})
        return Sample((_tensor(shape, draw(st.sampled_from(NUMERIC))),), attrs, valid)

    return sample


@st.composite
def _space_to_batch_nd(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    rank = draw(st.integers(2, 4))
    m = draw(st.integers(1, rank - 1))
    blocks = [draw(st.integers(1, 3)) for _ in range(m)]
    shape: list[Dim] = [_dim(draw, symbolic=True, any_=True)]
    pads: list[tuple[int, ...]] = []
    for block in blocks:
        extent = _size(draw)
        before = draw(st.integers(0, 2))
        after = (-(extent + before)) % block + block * draw(st.integers(0, 1))
        shape.append(extent)
        pads.append((before, after))
    shape += [_dim(draw, symbolic=True) for _ in range(rank - m - 1)]
    if not valid:
        fault = draw(st.sampled_from(["divisible", "count", "block", "negative"]))
        if fault == "divisible" and max(blocks) > 1:
            i = blocks.index(max(blocks))
            pads[i] = (pads[i][0], pads[i][1] + 1)
        elif fault in ("count", "divisible"):
            pads.append((0, 0))
        elif fault == "block":
            blocks[0] = 0
        else:
            pads[0] = (-1, pads[0][1])
    attrs = SpaceToBatchNDAttrs.from_kwargs(
        {"block_shape": tuple(blocks), "paddings": tuple(pads), "pad_value": 0.0}
    )
    return Sample((_tensor(shape, draw(st.sampled_from(NUMERIC))),), attrs, valid)


@st.composite
def _batch_to_space_nd(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    rank = draw(st.integers(2, 4))
    m = draw(st.integers(1, rank - 1))
    blocks = [draw(st.integers(1, 3)) for _ in range(m)]
    total = 1
    for b in blocks:
        total *= b
    shape: list[Dim] = [total * draw(st.integers(0, 2))]
    crops: list[tuple[int, ...]] = []
    for block in blocks:
        extent = draw(st.integers(0, 3))
        shape.append(extent)
        budget = extent * block
        begin = draw(st.integers(0, budget))
        crops.append((begin, draw(st.integers(0, budget - begin))))
    shape += [_dim(draw, symbolic=True, any_=True) for _ in range(rank - m - 1)]
    if not valid:
        fault = draw(st.sampled_from(["batch", "crop", "count", "rank"]))
        if fault == "batch" and total > 1:
            shape[0] = total + 1
        elif fault in ("crop", "batch"):
            crops[0] = (crops[0][0], crops[0][1] + 7)
        elif fault == "count":
            crops.append((0, 0))
        else:
            blocks += [1] * rank
    attrs = BatchToSpaceNDAttrs.from_kwargs({"block_shape": tuple(blocks), "crops": tuple(crops)})
    return Sample((_tensor(shape, draw(st.sampled_from(NUMERIC))),), attrs, valid)


SAMPLERS: dict[str, Sampler] = {
    "nn.batch_flatten": _batch_flatten,
    "nn.pad": _pad,
    "nn.upsampling": _upsampling,
    "nn.mirror_pad": _mirror_pad,
    "nn.space_to_depth": _subpixel(to_depth=True),
    "nn.depth_to_space": _subpixel(to_depth=False),
    "nn.space_to_batch_nd": _space_to_batch_nd,
    "nn.batch_to_space_nd": _batch_to_space_nd,
}
"""This module's entries, by op name."""
