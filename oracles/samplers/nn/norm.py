"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.nn.norm``.

From the former ``samplers_nnnorm`` module:

Samplers of the ``nnnorm`` operator group: normalisations, losses, resampling, resize.

Each draws a call that is well-typed four times in five (``_valid``) and otherwise breaks it
in one way (a wrong vector length or dtype, an axis out of range, a bad attribute value or
length). All randomness is drawn from Hypothesis; samples shrink towards small shapes, default
attributes and the valid variant.
"""

from __future__ import annotations

from hypothesis import strategies as st

from relay.semantics.ops.nn.norm import (
    BatchNormAttrs,
    DropoutAttrs,
    GroupNormAttrs,
    InstanceNormAttrs,
    L2NormalizeAttrs,
    LayerNormAttrs,
    LRNAttrs,
)
from relay.semantics.ops.registry import Attrs

from ..core import (
    FLOATS,
    Sample,
    Sampler,
    _axis_form,
    _bad_axis,
    _bad_size,
    _other,
    _shape,
    _tensor,
    _valid,
)


@st.composite
def _batch_norm(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 1, symbolic=True, any_=True)
    ndim = len(shape)
    axis = draw(st.integers(-1, ndim - 1))
    dtype = draw(st.sampled_from(FLOATS))
    channels = shape[axis]
    vectors = [_tensor((channels,), dtype) for _ in range(4)]
    if not valid:
        fault = draw(st.sampled_from(["axis", "size", "dtype"]))
        k = draw(st.integers(0, 3))
        if fault == "axis":
            axis = draw(st.sampled_from([ndim, -2] if ndim >= 2 else [ndim]))
        elif fault == "size" and isinstance(channels, int):
            vectors[k] = _tensor((_bad_size(draw, channels),), dtype)
        elif fault == "size":
            vectors[k] = _tensor((1, 1), dtype)
        else:
            vectors[k] = _tensor((channels,), _other(draw, dtype, FLOATS))
    attrs = BatchNormAttrs.from_kwargs(
        {"axis": axis, "center": draw(st.booleans()), "scale": draw(st.booleans())}
    )
    return Sample((_tensor(shape, dtype), *vectors), attrs, valid)


@st.composite
def _dropout(draw: st.DrawFn) -> Sample:
    data = _tensor(_shape(draw, symbolic=True, any_=True), draw(st.sampled_from(FLOATS)))
    attrs = DropoutAttrs.from_kwargs({"rate": draw(st.sampled_from([0.0, 0.5, 0.9]))})
    return Sample((data,), attrs)


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


SAMPLERS: dict[str, Sampler] = {
    "nn.batch_norm": _batch_norm,
    "nn.dropout": _dropout,
    "nn.layer_norm": _norm("layer"),
    "nn.group_norm": _norm("group"),
    "nn.instance_norm": _norm("instance"),
    "nn.l2_normalize": _l2_normalize,
    "nn.lrn": _lrn,
}
"""This module's entries, by op name."""
