"""Samplers of the ``dynq`` group: dynamic operators (shape tensors) and quantized operators.

A shape tensor is a rank-1 integer tensor of length 0 to 4; broken samples give it rank 2, a
float dtype or an unknown length. Quantization parameters are scalars or per-channel vectors;
broken samples give a wrong dtype, a wrong channel count or an out-of-range axis.
qnn.dense, qnn.conv2d and qnn.concatenate start from the samples of nn.dense, nn.conv2d and
concatenate (with their own faults), retyped to quantized dtypes; a valid one is then broken
in a quantized way one time in ten (so a little over a quarter of these samples are broken).
"""

from __future__ import annotations

import dataclasses

from hypothesis import strategies as st

from relay.semantics.ops.create import InitOpAttrs
from relay.semantics.ops.index import OneHotAttrs, StridedSliceAttrs
from relay.semantics.ops.nn.conv import Conv2DAttrs
from relay.semantics.ops.nn.dense import DenseAttrs
from relay.semantics.ops.qnn import (
    BroadcastAttrs,
    DequantizeAttrs,
    FixedPointMultiplyAttrs,
    QuantizeAttrs,
    RequantizeAttrs,
)
from relay.semantics.ops.shape import ReshapeAttrs, TileAttrs
from relay.semantics.ops.sort import TopKAttrs
from relay.semantics.syntax import ANY, DTYPES, Dim, TensorType, TupleType

from .samplers import (
    FLOATS,
    INTEGERS,
    NUMERIC,
    N,
    Sample,
    Sampler,
    _bad_size,
    _broadcast_operands,
    _other,
    _shape,
    _tensor,
    _valid,
)
from .samplers import _concatenate as _concatenate_sampler
from .samplers import _conv2d as _conv2d_sampler
from .samplers import _dense as _dense_sampler

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


# ---------------------------------------------------------------------------------------------
# Quantized operators with requantization


def _param(draw: st.DrawFn, dtype: str, channels: Dim | None) -> TensorType:
    """A scale or zero point: a scalar, or (with ``channels``) sometimes one per channel."""
    if channels is not None and draw(st.booleans()):
        return _tensor((channels,), dtype)
    return _tensor((), dtype)


def _param_fault(draw: st.DrawFn, t: TensorType, channels: Dim | None) -> TensorType:
    """``t`` broken one way: a wrong dtype, or a wrong length or rank."""
    if draw(st.booleans()):
        return _tensor(t.shape, _other(draw, t.dtype, NUMERIC))
    if channels is None or not t.shape:
        return _tensor((draw(st.integers(2, 4)),) if channels is None else (1, 1), t.dtype)
    return _tensor((_bad_size(draw, channels),), t.dtype)


@st.composite
def _requantize(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, symbolic=True, any_=True)
    rank = len(shape)
    axis = draw(st.integers(-rank, rank - 1)) if rank else draw(st.integers(-1, 0))
    channels = shape[axis] if rank else 1
    data_dtype = draw(st.sampled_from(("int8", "uint8", "int16", "int32", "int64")))
    params = [
        _param(draw, "float32", channels),
        _param(draw, "int32", channels),
        _tensor((), "float32"),
        _tensor((), "int32"),
    ]
    kwargs: dict[str, object] = {
        "axis": axis,
        "rounding": draw(st.sampled_from(["None", "UPWARD", "TONEAREST"])),
        "compute_dtype": draw(st.sampled_from(["None", "int64", "float32", "float64"])),
        "out_dtype": draw(st.sampled_from(("int8", "uint8", "int16", "int32"))),
    }
    if not valid:
        fault = draw(st.sampled_from(["data", "param", "axis", "out", "rounding", "compute"]))
        if fault == "data":
            data_dtype = draw(st.sampled_from(["uint16", "uint32", "float32", "bool"]))
        elif fault == "param":
            i = draw(st.integers(0, 3))
            params[i] = _param_fault(draw, params[i], channels if i < 2 else None)
        elif fault == "axis":
            kwargs["axis"] = draw(st.sampled_from([max(rank, 1), -rank - 1 if rank else 1]))
        elif fault == "out":
            kwargs["out_dtype"] = draw(st.sampled_from(["uint16", "int64", "float32", ""]))
        elif fault == "rounding":
            kwargs["rounding"] = "DOWNWARD"
        else:
            kwargs["compute_dtype"] = "int32"
    attrs = RequantizeAttrs.from_kwargs(kwargs)
    return Sample((_tensor(shape, data_dtype), *params), attrs, valid)


def _qnn_matmul(
    base_sampler: Sampler,
    data_dtypes: tuple[str, ...],
    weight_dtypes: tuple[str, ...],
    out_dtypes: tuple[str, ...],
) -> Sampler:
    """``nn.dense``'s or ``nn.conv2d``'s sample (with its own faults) retyped to quantized
    dtypes, plus the four quantization parameters; a valid base is sometimes broken in a
    quantized way (a dtype, an out_dtype, a parameter)."""

    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        base = draw(base_sampler())
        data, weight = base.arg_types[0], base.arg_types[1]
        assert isinstance(data, TensorType) and isinstance(weight, TensorType)
        attrs = base.attrs
        assert isinstance(attrs, DenseAttrs | Conv2DAttrs)
        if isinstance(attrs, Conv2DAttrs):
            o_axis = attrs.kernel_layout.index("O")
            channels: Dim = attrs.channels if attrs.channels is not None else weight.shape[o_axis]
        else:
            channels = weight.shape[0] if len(weight.shape) == 2 else 1
        data_dtype = draw(st.sampled_from(data_dtypes))
        weight_dtype = draw(st.sampled_from(weight_dtypes))
        out_dtype = draw(st.sampled_from(out_dtypes))
        params = [
            _tensor((), "int32"),
            _param(draw, "int32", channels),
            _tensor((), "float32"),
            _param(draw, "float32", channels),
        ]
        valid = base.valid
        if valid and draw(st.integers(0, 9)) == 0:
            valid = False
            fault = draw(st.sampled_from(["data", "weight", "out", "param"]))
            if fault == "data":
                data_dtype = draw(st.sampled_from(["float32", "int32"]))
            elif fault == "weight":
                weight_dtype = draw(st.sampled_from(["float32", "int32"]))
            elif fault == "out":
                out_dtype = draw(st.sampled_from(["", "int8", "float32"]))
            else:
                i = draw(st.integers(0, 3))
                params[i] = _param_fault(draw, params[i], channels if i in (1, 3) else None)
        new_attrs = dataclasses.replace(attrs, out_dtype=out_dtype)
        types = (_tensor(data.shape, data_dtype), _tensor(weight.shape, weight_dtype), *params)
        return Sample(types, new_attrs, valid)

    return sample


@st.composite
def _qnn_binary(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    fault = "none" if valid else draw(st.sampled_from(["shape", "dtype", "param", "axis"]))
    lhs, rhs = _broadcast_operands(draw, 2, valid=fault != "shape")
    dtype = draw(st.sampled_from(("int8", "uint8", "int16", "int32")))
    kwargs: dict[str, object] = {}
    params: list[TensorType] = []
    for side, shape in (("lhs", lhs), ("rhs", rhs)):
        rank = len(shape)
        axis = draw(st.integers(-rank, rank - 1)) if rank else -1
        kwargs[f"{side}_axis"] = axis
        channels = (shape[0 if rank <= 1 else axis]) if rank else 1
        params += [_param(draw, "float32", channels), _param(draw, "int32", channels)]
    params += [_tensor((), "float32"), _tensor((), "int32")]
    other = dtype
    if fault == "dtype":
        other = _other(draw, dtype, NUMERIC)
    elif fault == "param":
        i = draw(st.integers(0, 5))
        channels = params[i].shape[0] if params[i].shape else None
        params[i] = _param_fault(draw, params[i], channels)
    elif fault == "axis" and len(lhs) >= 2:
        kwargs["lhs_axis"] = len(lhs)
        params[0] = _tensor((draw(st.integers(1, 3)),), "float32")
    attrs = BroadcastAttrs.from_kwargs(kwargs)
    return Sample((_tensor(lhs, dtype), _tensor(rhs, other), *params), attrs, valid)


@st.composite
def _qnn_concatenate(draw: st.DrawFn) -> Sample:
    base = draw(_concatenate_sampler())
    (data,) = base.arg_types
    assert isinstance(data, TupleType)
    dtype = draw(st.sampled_from(("int8", "uint8", "int16", "int32")))
    originals = [f for f in data.fields if isinstance(f, TensorType)]
    # Keep the base sample's dtype fault (a field of another dtype) as another dtype here.
    fields = [
        _tensor(f.shape, dtype if f.dtype == originals[0].dtype else _other(draw, dtype, NUMERIC))
        for f in originals
    ]
    count = len(fields)
    scales = [_tensor((), "float32") for _ in range(count)]
    zero_points = [_tensor((), "int32") for _ in range(count)]
    out = [_tensor((), "float32"), _tensor((), "int32")]
    valid = base.valid
    if valid and draw(st.integers(0, 9)) == 0:
        valid = False
        fault = draw(st.sampled_from(["count", "scale", "zero point", "output", "dtype"]))
        if fault == "count":
            scales.append(_tensor((), "float32"))
        elif fault == "scale":
            scales[-1] = _param_fault(draw, scales[-1], None)
        elif fault == "zero point":
            zero_points[0] = _param_fault(draw, zero_points[0], None)
        elif fault == "output":
            out[0] = _param_fault(draw, out[0], None)
        else:
            fields = [_tensor(f.shape, "float32") for f in fields]
    types = (TupleType(tuple(fields)), TupleType(tuple(scales)), TupleType(tuple(zero_points)))
    return Sample((*types, *out), base.attrs, valid)


# ---------------------------------------------------------------------------------------------
# dyn.tile, dyn.topk, dyn.one_hot


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
    "qnn.quantize": _quantize_like(dequant=False),
    "qnn.dequantize": _quantize_like(dequant=True),
    "fixed_point_multiply": _fixed_point_multiply,
    "qnn.requantize": _requantize,
    "qnn.dense": _qnn_matmul(
        _dense_sampler,
        ("int8", "uint8", "int16", "uint16"),
        ("int8", "uint8"),
        ("int32", "int64"),
    ),
    "qnn.conv2d": _qnn_matmul(
        _conv2d_sampler,
        ("int8", "uint8", "int16"),
        ("int8", "uint8", "int16"),
        ("int16", "int32", "int64"),
    ),
    "qnn.add": _qnn_binary,
    "qnn.mul": _qnn_binary,
    "qnn.concatenate": _qnn_concatenate,
    "dyn.tile": _dyn_tile,
    "dyn.topk": _dyn_topk,
    "dyn.one_hot": _dyn_one_hot,
}
"""The samplers of this group's operators, by name (merged into ``samplers.SAMPLERS``)."""
