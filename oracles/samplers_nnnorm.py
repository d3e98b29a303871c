"""Samplers of the ``nnnorm`` operator group: normalisations, losses, resampling, resize.

Each draws a call that is well-typed four times in five (``_valid``) and otherwise breaks it
in one way (a wrong vector length or dtype, an axis out of range, a bad attribute value or
length). All randomness is drawn from Hypothesis; samples shrink towards small shapes, default
attributes and the valid variant.
"""

from __future__ import annotations

from hypothesis import strategies as st

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
from relay.semantics.syntax import Dim

from .samplers import (
    FLOATS,
    NUMERIC,
    SIGNED,
    UNSIGNED,
    Sample,
    Sampler,
    _axis_form,
    _bad_axis,
    _bad_size,
    _dim,
    _other,
    _shape,
    _size,
    _tensor,
    _valid,
)


def _norm(kind: str) -> Sampler:
    """Data with a channel axis, and gamma, beta of its length; broken: a wrong length or
    dtype, an axis out of range, (group) groups that do not divide, (instance) rank 2."""

    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        valid = _valid(draw)
        min_rank = 3 if kind == "instance" else 1
        shape = list(_shape(draw, min_rank, 4, symbolic=True, any_=True))
        ndim = len(shape)
        axis = draw(st.integers(0, ndim - 1))
        dtype = draw(st.sampled_from(FLOATS))
        groups = 1
        if kind == "group":
            groups = draw(st.sampled_from([1, 2, 3]))
            shape[axis] = groups * draw(st.integers(0, 2))
        vectors = [_tensor((shape[axis],), dtype), _tensor((shape[axis],), dtype)]
        attr_axis = _axis_form(draw, axis, ndim)
        if not valid:
            fault = draw(st.sampled_from(["size", "dtype", "axis", "special"]))
            k = draw(st.integers(0, 1))
            if fault == "size":
                c = shape[axis]
                vectors[k] = _tensor((_bad_size(draw, c) if isinstance(c, int) else 1, 1), dtype)
            elif fault == "dtype":
                vectors[k] = _tensor((shape[axis],), _other(draw, dtype, FLOATS))
            elif fault == "axis":
                attr_axis = _bad_axis(draw, ndim)
            elif kind == "group":
                groups = draw(st.sampled_from([0, 4]))
                shape[axis] = 6 if groups == 4 else shape[axis]
            elif kind == "instance":
                shape = shape[:2]
                vectors = [_tensor((shape[1],), dtype)] * 2
                attr_axis = 1
            else:
                vectors[k] = _tensor((), dtype)
        common: dict[str, object] = {
            "axis": attr_axis,
            "epsilon": draw(st.sampled_from([1e-5, 0.1])),
            "center": draw(st.booleans()),
            "scale": draw(st.booleans()),
        }
        attrs: Attrs
        if kind == "layer":
            attrs = LayerNormAttrs.from_kwargs(common)
        elif kind == "group":
            attrs = GroupNormAttrs.from_kwargs({**common, "num_groups": groups})
        else:
            attrs = InstanceNormAttrs.from_kwargs(common)
        return Sample((_tensor(shape, dtype), *vectors), attrs, valid)

    return sample


@st.composite
def _l2_normalize(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 1, 4, symbolic=True, any_=True)
    ndim = len(shape)
    chosen = draw(st.lists(st.integers(0, ndim - 1), min_size=1, unique=True))
    axis = [_axis_form(draw, a, ndim) for a in chosen]
    if not valid:
        fault = draw(st.sampled_from(["range", "repeat", "empty"]))
        if fault == "range":
            axis.append(_bad_axis(draw, ndim))
        elif fault == "repeat":
            axis.append(axis[0])
        else:
            axis = []
    attrs = L2NormalizeAttrs.from_kwargs(
        {"eps": draw(st.sampled_from([1e-12, 1.0])), "axis": tuple(axis)}
    )
    return Sample((_tensor(shape, draw(st.sampled_from(FLOATS))),), attrs, valid)


@st.composite
def _lrn(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    rank = 4
    size, axis = draw(st.sampled_from([1, 3, 5])), draw(st.sampled_from([1, 3]))
    if not valid:
        fault = draw(st.sampled_from(["rank", "axis", "size"]))
        if fault == "rank":
            rank = draw(st.sampled_from([3, 5]))
        elif fault == "axis":
            axis = draw(st.sampled_from([0, 2, -1]))
        else:
            size = draw(st.sampled_from([0, 2, 4]))
    data = _tensor(
        _shape(draw, rank, rank, symbolic=True, any_=True), draw(st.sampled_from(FLOATS))
    )
    attrs = LRNAttrs.from_kwargs({"size": size, "axis": axis, "alpha": 0.001, "beta": 0.75})
    return Sample((data,), attrs, valid)


@st.composite
def _cross_entropy(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    x = list(_shape(draw, 2, 2, symbolic=True, any_=True))
    y = list(x)
    dtype = draw(st.sampled_from(FLOATS))
    other = dtype
    if not valid:
        fault = draw(st.sampled_from(["size", "rank", "dtype"]))
        if fault == "size":
            x[1] = draw(st.integers(2, 5))
            y[1] = _bad_size(draw, x[1])
        elif fault == "rank":
            y.append(1)
        else:
            other = _other(draw, dtype, FLOATS)
    return Sample((_tensor(x, dtype), _tensor(y, other)), None, valid)


@st.composite
def _nll_loss(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    rank = draw(st.integers(1, 4))
    p = list(_shape(draw, rank, rank, symbolic=True, any_=True))
    t: list[Dim] = [] if rank == 1 else [p[0], *p[2:]]
    classes = p[0] if rank == 1 else p[1]
    dtype, tdtype = draw(st.sampled_from(FLOATS)), draw(st.sampled_from(SIGNED))
    w: list[Dim] = [classes]
    wdtype = dtype
    reduction = draw(st.sampled_from(["mean", "sum", "none"]))
    if not valid:
        fault = draw(st.sampled_from(["classes", "targets", "dtype", "reduction", "rank"]))
        if fault == "classes":
            w = [_bad_size(draw, classes) if isinstance(classes, int) else 1, 1]
        elif fault == "targets":
            t.append(2)
        elif fault == "dtype":
            tdtype = draw(st.sampled_from(UNSIGNED + FLOATS))
        elif fault == "reduction":
            reduction = "avg"
        else:
            wdtype = _other(draw, dtype, FLOATS)
    attrs = NLLLossAttrs.from_kwargs(
        {"reduction": reduction, "ignore_index": draw(st.sampled_from([-100, 0]))}
    )
    types = (_tensor(p, dtype), _tensor(t, tdtype), _tensor(w, wdtype))
    return Sample(types, attrs, valid)


@st.composite
def _fast_softmax(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 1 if valid else 0, 4, symbolic=True, any_=True)
    ndim = len(shape)
    axis = (
        _axis_form(draw, draw(st.integers(0, ndim - 1)), ndim) if valid else _bad_axis(draw, ndim)
    )
    return Sample(
        (_tensor(shape, draw(st.sampled_from(FLOATS))),),
        SoftmaxAttrs.from_kwargs({"axis": axis}),
        valid,
    )


def _image(draw: st.DrawFn, valid: bool) -> tuple[tuple[Dim, ...], str]:
    """4-D data in NCHW or NHWC (broken: rank 3 or another layout)."""
    layout = draw(st.sampled_from(["NCHW", "NHWC"]))
    shape = _shape(draw, 4, 4, symbolic=True, any_=True)
    if not valid and draw(st.booleans()):
        if draw(st.booleans()):
            return shape[:3], layout
        return shape, draw(st.sampled_from(["NCHW4c", "HWCN", "NCDHW"]))
    return shape, layout


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


@st.composite
def _resize2d(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape, layout = _image(draw, valid)
    kwargs: dict[str, object] = {
        "size": (_size(draw), _size(draw)),
        "roi": (0.0, 0.0, 1.0, 1.0),
        "layout": layout,
        "method": draw(st.sampled_from(["linear", "nearest_neighbor", "cubic"])),
        "coordinate_transformation_mode": draw(
            st.sampled_from(["half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize"])
        ),
        "rounding_method": draw(st.sampled_from(["round", "", "floor"])),
        "out_dtype": draw(st.sampled_from(["", "float32", "int8"])),
    }
    if not valid and draw(st.booleans()):
        fault = draw(st.sampled_from(["size", "roi", "method", "negative"]))
        if fault == "size":
            kwargs["size"] = (2,)
        elif fault == "roi":
            kwargs["roi"] = None
        elif fault == "method":
            kwargs["method"] = "area"
        else:
            kwargs["size"] = (2, -1)
    attrs = Resize2DAttrs.from_kwargs(kwargs)
    return Sample((_tensor(shape, draw(st.sampled_from(NUMERIC))),), attrs, valid)


SAMPLERS: dict[str, Sampler] = {
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
    "nn.space_to_depth": _subpixel(to_depth=True),
    "nn.depth_to_space": _subpixel(to_depth=False),
    "nn.space_to_batch_nd": _space_to_batch_nd,
    "nn.batch_to_space_nd": _batch_to_space_nd,
    "image.resize2d": _resize2d,
}
"""The samplers of this group's operators, by name (merged into ``samplers.SAMPLERS``)."""
