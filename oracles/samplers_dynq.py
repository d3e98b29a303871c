"""Samplers of the ``dynq`` group: dynamic operators (shape tensors) and quantized operators.

A shape tensor is a rank-1 integer tensor of length 0 to 4; broken samples give it rank 2, a
float dtype or an unknown length. Quantization parameters are scalars or per-channel vectors;
broken samples give a wrong dtype, a wrong channel count or an out-of-range axis.
"""

from __future__ import annotations

from hypothesis import strategies as st

from relay.semantics.ops.qnn import DequantizeAttrs, FixedPointMultiplyAttrs, QuantizeAttrs
from relay.semantics.ops.transform import InitOpAttrs, ReshapeAttrs, StridedSliceAttrs
from relay.semantics.syntax import ANY, DTYPES, TensorType

from .samplers import (
    FLOATS,
    INTEGERS,
    NUMERIC,
    N,
    Sample,
    Sampler,
    _bad_size,
    _other,
    _shape,
    _tensor,
    _valid,
)

_QUANTIZED = ("int8", "uint8", "int16", "uint16", "int32")


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


def _quantize_like(dequant: bool) -> Sampler:
    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        valid = _valid(draw)
        shape = _shape(draw, symbolic=True, any_=True)
        rank = len(shape)
        axis = draw(st.integers(-rank, rank - 1)) if rank else draw(st.integers(-1, 0))
        channels = shape[axis] if rank else 1
        data_dtype = draw(st.sampled_from(_QUANTIZED)) if dequant else "float32"
        out_dtype = draw(st.sampled_from(("float32", "float16") if dequant else _QUANTIZED))
        params = []
        for dtype in ("float32", "int32"):
            per_channel = draw(st.booleans())
            params.append(_tensor((channels,) if per_channel else (), dtype))
        if not valid:
            fault = draw(st.sampled_from(["data", "param dtype", "channels", "axis", "out"]))
            if fault == "data":
                data_dtype = _other(draw, data_dtype, (*_QUANTIZED, "float32", "float64"))
            elif fault == "param dtype":
                i = draw(st.integers(0, 1))
                params[i] = _tensor(params[i].shape, _other(draw, params[i].dtype, NUMERIC))
            elif fault == "channels" and rank:
                params[0] = _tensor((_bad_size(draw, channels),), "float32")
            elif fault == "axis" and rank:
                axis = draw(st.sampled_from([rank, -rank - 1]))
            else:
                out_dtype = _other(draw, out_dtype, DTYPES)
        attrs_type = DequantizeAttrs if dequant else QuantizeAttrs
        attrs = attrs_type.from_kwargs({"out_dtype": out_dtype, "axis": axis})
        return Sample((_tensor(shape, data_dtype), *params), attrs, valid)

    return sample


@st.composite
def _fixed_point_multiply(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    dtype = "int32" if valid else _other(draw, "int32", NUMERIC)
    attrs = FixedPointMultiplyAttrs.from_kwargs(
        {"multiplier": draw(st.integers(0, 2**31 - 1)), "shift": draw(st.integers(-31, 31))}
    )
    data = _tensor(_shape(draw, symbolic=True, any_=True), dtype)
    return Sample((data,), attrs, valid)


SAMPLERS: dict[str, Sampler] = {
    "dyn.reshape": _dyn_reshape,
    "dyn.broadcast_to": _dyn_broadcast_to,
    "dyn.zeros": _dyn_init,
    "dyn.ones": _dyn_init,
    "dyn.full": _dyn_full,
    "dyn.strided_slice": _dyn_strided_slice,
    "qnn.quantize": _quantize_like(dequant=False),
    "qnn.dequantize": _quantize_like(dequant=True),
    "fixed_point_multiply": _fixed_point_multiply,
}
"""The samplers of this group's operators, by name (merged into ``samplers.SAMPLERS``)."""
