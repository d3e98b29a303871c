"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.qnn``.

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

import dataclasses

from hypothesis import strategies as st

from relay.semantics.ops.nn.conv import Conv2DAttrs
from relay.semantics.ops.nn.dense import DenseAttrs
from relay.semantics.ops.qnn import (
    BroadcastAttrs,
    DequantizeAttrs,
    FixedPointMultiplyAttrs,
    QuantizeAttrs,
    RequantizeAttrs,
)
from relay.semantics.syntax import DTYPES, Dim, TensorType, TupleType

from .core import (
    NUMERIC,
    Sample,
    Sampler,
    _bad_size,
    _broadcast_operands,
    _concatenate,
    _conv2d,
    _dense,
    _other,
    _shape,
    _tensor,
    _valid,
)

_QUANTIZED = ("int8", "uint8", "int16", "uint16", "int32")


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
    base = draw(_concatenate())
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


SAMPLERS: dict[str, Sampler] = {
    "qnn.quantize": _quantize_like(dequant=False),
    "qnn.dequantize": _quantize_like(dequant=True),
    "fixed_point_multiply": _fixed_point_multiply,
    "qnn.requantize": _requantize,
    "qnn.dense": _qnn_matmul(
        _dense,
        ("int8", "uint8", "int16", "uint16"),
        ("int8", "uint8"),
        ("int32", "int64"),
    ),
    "qnn.conv2d": _qnn_matmul(
        _conv2d,
        ("int8", "uint8", "int16"),
        ("int8", "uint8", "int16"),
        ("int16", "int32", "int64"),
    ),
    "qnn.add": _qnn_binary,
    "qnn.mul": _qnn_binary,
    "qnn.concatenate": _qnn_concatenate,
}
"""This module's entries, by op name."""
