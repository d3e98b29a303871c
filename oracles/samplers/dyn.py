"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.dyn``.

From the former ``samplers_dynq`` module:

Samplers of the ``dynq`` group: dynamic operators (shape tensors) and quantized operators.

A shape tensor is a rank-1 integer tensor of length 0 to 4; broken samples give it rank 2, a
float dtype or an unknown length. Quantization parameters are scalars or per-channel vectors;
broken samples give a wrong dtype, a wrong channel count or an out-of-range axis.
qnn.dense, qnn.conv2d and qnn.concatenate start from the samples of nn.dense, nn.conv2d and
concatenate (with their own faults), retyped to quantized dtypes; a valid one is then broken
in a quantized way one time in ten (so a little over a quarter of these samples are broken).
"""

from __future__ import annotations

from hypothesis import strategies as st

from relay.semantics.ops.create import InitOpAttrs
from relay.semantics.ops.index import OneHotAttrs, StridedSliceAttrs
from relay.semantics.ops.shape import ReshapeAttrs, TileAttrs
from relay.semantics.ops.sort import TopKAttrs
from relay.semantics.syntax import ANY, DTYPES, TensorType

from .core import FLOATS, INTEGERS, NUMERIC, N, Sample, Sampler, _shape, _tensor, _valid


def _shape_tensor(draw: st.DrawFn, length: int, *, broken: bool) -> TensorType:
    """A rank-1 integer tensor of ``length`` elements, or (``broken``) one fault in it."""
    dtype = draw(st.sampled_from(("int64", "int32", *INTEGERS)))
    if not broken:
        return _tensor((length,), dtype)
    fault = draw(st.sampled_from(["rank", "dtype", "length"]))
    if fault == "rank":
        return _tensor((length, 1), dtype)
    if fault == "dtype":
        return _tensor((length,), draw(st.sampled_from((*FLOATS, "bool"))))
    return _tensor((draw(st.sampled_from([ANY, N])),), dtype)


@st.composite
def _dyn_reshape(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    data = _tensor(_shape(draw, symbolic=True, any_=True), draw(st.sampled_from(DTYPES)))
    newshape = _shape_tensor(draw, draw(st.integers(0, 4)), broken=not valid)
    attrs = ReshapeAttrs.from_kwargs({"newshape": (), "allowzero": draw(st.booleans())})
    return Sample((data, newshape), attrs, valid)


@st.composite
def _dyn_broadcast_to(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    data = _tensor(_shape(draw, symbolic=True, any_=True), draw(st.sampled_from(DTYPES)))
    rank = len(data.shape) + draw(st.integers(0, 4 - len(data.shape)))
    broken = not valid
    if broken and len(data.shape) > 0 and draw(st.booleans()):
        rank, broken = draw(st.integers(0, len(data.shape) - 1)), False
    shape = _shape_tensor(draw, rank, broken=broken)
    return Sample((data, shape), InitOpAttrs.from_kwargs({"shape": None, "dtype": ""}), valid)


@st.composite
def _dyn_init(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    dtype = draw(st.sampled_from(DTYPES))
    broken = not valid
    if broken and draw(st.booleans()):
        dtype, broken = "", False
    shape = _shape_tensor(draw, draw(st.integers(0, 4)), broken=broken)
    return Sample((shape,), InitOpAttrs.from_kwargs({"shape": None, "dtype": dtype}), valid)


@st.composite
def _dyn_full(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    fill_shape: tuple[int, ...] = ()
    broken = not valid
    if broken and draw(st.booleans()):
        fill_shape, broken = (draw(st.integers(1, 3)),), False
    fill = _tensor(fill_shape, draw(st.sampled_from(NUMERIC)))
    dtype = draw(st.sampled_from(("", *NUMERIC)))
    shape = _shape_tensor(draw, draw(st.integers(0, 4)), broken=broken)
    return Sample((fill, shape), InitOpAttrs.from_kwargs({"shape": None, "dtype": dtype}), valid)


@st.composite
def _dyn_strided_slice(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    data = _tensor(_shape(draw, symbolic=True, any_=True), draw(st.sampled_from(DTYPES)))
    k = draw(st.integers(0, len(data.shape)))
    lengths = [k, k, k]
    mode = draw(st.sampled_from(["end", "size"]))
    broken = [False, False, False]
    if not valid:
        fault = draw(st.sampled_from(["length", "too many", "mode", "tensor"]))
        if fault == "length":
            lengths[draw(st.integers(0, 2))] = k + 1
        elif fault == "too many":
            lengths = [len(data.shape) + 1] * 3
        elif fault == "mode":
            mode = "step"
        else:
            broken[draw(st.integers(0, 2))] = True
    tensors = tuple(_shape_tensor(draw, n, broken=b) for n, b in zip(lengths, broken, strict=True))
    attrs = StridedSliceAttrs.from_kwargs(
        {"begin": None, "end": None, "strides": None, "slice_mode": mode, "axes": None}
    )
    return Sample((data, *tensors), attrs, valid)


@st.composite
def _dyn_tile(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    data = _tensor(_shape(draw, symbolic=True, any_=True), draw(st.sampled_from(DTYPES)))
    reps = _shape_tensor(draw, draw(st.integers(0, 4)), broken=not valid)
    return Sample((data, reps), TileAttrs.from_kwargs({"reps": ()}), valid)


@st.composite
def _dyn_topk(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 1, symbolic=True, any_=True)
    rank = len(shape)
    k = _tensor(draw(st.sampled_from([(), (1,)])), draw(st.sampled_from(("int32", "int64"))))
    kwargs: dict[str, object] = {
        "k": None,
        "axis": draw(st.integers(-rank, rank - 1)),
        "ret_type": draw(st.sampled_from(["both", "values", "indices"])),
        "is_ascend": draw(st.booleans()),
        "dtype": draw(st.sampled_from(["int32", "int64"])),
    }
    if not valid:
        fault = draw(st.sampled_from(["k", "axis", "ret_type", "dtype"]))
        if fault == "k":
            k = draw(st.sampled_from([_tensor((2,), "int64"), _tensor((), "float32")]))
        elif fault == "axis":
            kwargs["axis"] = draw(st.sampled_from([rank, -rank - 1]))
        elif fault == "ret_type":
            kwargs["ret_type"] = "all"
        else:
            kwargs["dtype"] = draw(st.sampled_from(["float32", ""]))
    data = _tensor(shape, draw(st.sampled_from(NUMERIC)))
    return Sample((data, k), TopKAttrs.from_kwargs(kwargs), valid)


@st.composite
def _dyn_one_hot(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 0, 3, symbolic=True, any_=True)
    rank = len(shape)
    indices = _tensor(shape, draw(st.sampled_from(("int32", "int64", "uint8"))))
    on, off = _tensor((), "float32"), _tensor((), "float32")
    depth = _tensor((), draw(st.sampled_from(("int32", "int64"))))
    kwargs: dict[str, object] = {
        "depth": 1,
        "axis": draw(st.integers(-1, rank)),
        "dtype": draw(st.sampled_from(NUMERIC)),
    }
    if not valid:
        fault = draw(st.sampled_from(["indices", "depth", "on", "axis", "dtype"]))
        if fault == "indices":
            indices = _tensor(shape, "float32")
        elif fault == "depth":
            depth = draw(st.sampled_from([_tensor((1,), "int64"), _tensor((), "float32")]))
        elif fault == "on":
            on = _tensor((2,), "float32")
        elif fault == "axis":
            kwargs["axis"] = draw(st.sampled_from([rank + 1, -2]))
        else:
            kwargs["dtype"] = ""
    return Sample((indices, on, off, depth), OneHotAttrs.from_kwargs(kwargs), valid)


SAMPLERS: dict[str, Sampler] = {
    "dyn.reshape": _dyn_reshape,
    "dyn.broadcast_to": _dyn_broadcast_to,
    "dyn.zeros": _dyn_init,
    "dyn.ones": _dyn_init,
    "dyn.full": _dyn_full,
    "dyn.strided_slice": _dyn_strided_slice,
    "dyn.tile": _dyn_tile,
    "dyn.topk": _dyn_topk,
    "dyn.one_hot": _dyn_one_hot,
}
"""This module's entries, by op name."""
