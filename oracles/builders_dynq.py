"""Dataflow-generator builders of the ``dynq`` group: dynamic and quantized operators.

A dynamic operator's shape argument (``newshape``, ``shape``, ``begin``/``end``/``strides``)
is a constant built here from the other inputs' static shapes, so that the call is defined:
a reshape keeps the element count, a broadcast target fits the data, a slice stays inside
its axes. Its ``?`` result is only ever a sink of the program (the pool offers no value of
unknown shape as an input). Quantization parameters are parameters or pool values of the
right type (quantize and dequantize are defined for every scale); ``fixed_point_multiply``
uses a Q31 multiplier in ``[2**30, 2**31)`` and a shift in ``[-8, 0]``, whose int64
arithmetic cannot overflow for any int32 input.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from relay.semantics.ops.qnn import DequantizeAttrs, FixedPointMultiplyAttrs, QuantizeAttrs
from relay.semantics.ops.transform import InitOpAttrs, ReshapeAttrs, StridedSliceAttrs
from relay.semantics.syntax import Constant, TensorType

from .gen_dataflow import (
    ALL,
    MAX_RANK,
    Arg,
    Builder,
    Built,
    _dims,
    _factorise,
    _Graph,
    _targets,
)

_QUANTIZED = ("int8", "uint8", "int16", "uint16", "int32")


def _shape_constant(g: _Graph, values: Sequence[int]) -> Arg:
    """A rank-1 constant holding ``values`` (int64, sometimes int32); it joins the pool."""
    dtype = "int32" if g.flag() else "int64"
    t = TensorType((len(values),), dtype)
    return g.use(g.add(Constant(np.asarray(values, dtype=dtype).reshape(-1)), t, (False,)))


def _dyn_reshape(g: _Graph) -> Built:
    """A factorisation of the element count, perhaps with one -1 and 0s that copy the input
    dimension at their position; an empty input keeps its shape (all 0s, copying)."""
    data = g.tensor(ALL)
    shape = _dims(data[1])
    total = int(np.prod(shape))
    if total == 0:
        newshape = [0] * len(shape)
    else:
        newshape = _factorise(g, total)
        for i, v in enumerate(newshape):
            if i < len(shape) and shape[i] == v and g.flag():
                newshape[i] = 0
        if g.flag():
            newshape[g.integer(0, len(newshape) - 1)] = -1
    attrs = ReshapeAttrs.from_kwargs({"newshape": (), "allowzero": False})
    return (data, _shape_constant(g, newshape)), attrs


def _dyn_broadcast_to(g: _Graph) -> Built:
    """The data's shape, unit dimensions perhaps widened, perhaps new leading dimensions."""
    data = g.tensor(ALL)
    shape = _dims(data[1])
    lead = [g.dim() for _ in range(g.integer(0, MAX_RANK - len(shape)))]
    target = [*lead, *(g.dim() if d == 1 else d for d in shape)]
    attrs = InitOpAttrs.from_kwargs({"shape": None, "dtype": ""})
    return (data, _shape_constant(g, target)), attrs


def _dyn_init(g: _Graph) -> Built:
    """``dyn.zeros`` and ``dyn.ones``: a shape constant and a dtype."""
    attrs = InitOpAttrs.from_kwargs({"shape": None, "dtype": g.dtype(ALL)})
    return (_shape_constant(g, g.shape()),), attrs


def _dyn_full(g: _Graph) -> Built:
    """A rank-0 fill value; the dtype attribute "" (the fill's) or one it converts to."""
    fill = g.tensor(ALL, max_rank=0)
    dtype = g.dtype(_targets(fill[1].dtype)) if g.flag() else ""
    attrs = InitOpAttrs.from_kwargs({"shape": None, "dtype": dtype})
    return (fill, _shape_constant(g, g.shape())), attrs


def _dyn_strided_slice(g: _Graph) -> Built:
    """The leading ``k`` axes sliced inside their bounds: a stride of 1, 2 or -1 (or size
    mode), begin and end within the axis (an end beyond it sometimes, which clamps)."""
    data = g.tensor(ALL)
    shape = _dims(data[1])
    k = g.integer(0, len(shape))
    size_mode = g.integer(0, 3) == 3
    begin, end, strides = [], [], []
    for d in shape[:k]:
        s = g.pick([1, 2, -1]) if d else 1
        if size_mode:
            b = g.integer(0, d)
            begin.append(b)
            end.append(g.integer(-1, d - b))
        elif s > 0:
            b = g.integer(0, d)
            begin.append(b)
            end.append(g.integer(b, d + 2))
        else:
            b = g.integer(0, d - 1)
            begin.append(b)
            end.append(g.integer(0, b))
        strides.append(s)
    attrs = StridedSliceAttrs.from_kwargs(
        {
            "begin": None,
            "end": None,
            "strides": None,
            "slice_mode": "size" if size_mode else "end",
            "axes": None,
        }
    )
    tensors = (_shape_constant(g, begin), _shape_constant(g, end), _shape_constant(g, strides))
    return (data, *tensors), attrs


def _qparams(g: _Graph, data: TensorType) -> tuple[tuple[Arg, Arg], int]:
    """A float32 scale and an int32 zero point, each scalar or per channel; the axis."""
    shape = _dims(data)
    axis = g.integer(0, len(shape) - 1) if shape else 0
    args = []
    for dtype in ("float32", "int32"):
        per_channel = bool(shape) and g.flag()
        param_shape = (shape[axis],) if per_channel else ()
        args.append(g.exactly(TensorType(param_shape, dtype)))
    return (args[0], args[1]), g.axis(axis, len(shape)) if shape else -1


def _quantize(g: _Graph) -> Built:
    data = g.tensor(("float32",))
    (scale, zero_point), axis = _qparams(g, data[1])
    attrs = QuantizeAttrs.from_kwargs({"out_dtype": g.pick(_QUANTIZED), "axis": axis})
    return (data, scale, zero_point), attrs


def _dequantize(g: _Graph) -> Built:
    data = g.tensor(_QUANTIZED)
    (scale, zero_point), axis = _qparams(g, data[1])
    attrs = DequantizeAttrs.from_kwargs({"out_dtype": g.pick(("float32", "float16")), "axis": axis})
    return (data, scale, zero_point), attrs


def _fixed_point_multiply(g: _Graph) -> Built:
    data = g.tensor(("int32",))
    multiplier = g.pick([1 << 30, 1518500250, (1 << 31) - 1, 1 << 30 | 12345])
    attrs = FixedPointMultiplyAttrs.from_kwargs(
        {"multiplier": multiplier, "shift": -g.integer(0, 8)}
    )
    return (data,), attrs


BUILDERS: dict[str, Builder] = {
    "dyn.reshape": _dyn_reshape,
    "dyn.broadcast_to": _dyn_broadcast_to,
    "dyn.zeros": _dyn_init,
    "dyn.ones": _dyn_init,
    "dyn.full": _dyn_full,
    "dyn.strided_slice": _dyn_strided_slice,
    "qnn.quantize": _quantize,
    "qnn.dequantize": _dequantize,
    "fixed_point_multiply": _fixed_point_multiply,
}
"""How to build a call of each of this group's operators (merged into ``gen_dataflow.BUILDERS``)."""
