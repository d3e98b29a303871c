"""Dataflow-generator builders of the operators of
``relay.semantics.ops.dyn`` (well-typed calls by construction).

From the former ``builders_dynq`` module:

Dataflow-generator builders of the ``dynq`` group: dynamic and quantized operators.

A dynamic operator's shape argument (``newshape``, ``shape``, ``begin``/``end``/``strides``)
is a constant built here from the other inputs' static shapes, so that the call is defined:
a reshape keeps the element count, a broadcast target fits the data, a slice stays inside
its axes. Its ``?`` result is only ever a sink of the program (the pool offers no value of
unknown shape as an input). Quantization parameters are parameters or pool values of the
right type (quantize and dequantize are defined for every scale); ``fixed_point_multiply``
uses a Q31 multiplier in ``[2**30, 2**31)`` and a shift in ``[-8, 0]``, whose int64
arithmetic cannot overflow for any int32 input. The requantizing ops (qnn.requantize,
qnn.add, qnn.mul, qnn.concatenate) get constant scales from a small set in ``[0.1, 2]`` and
zero points in ``[-3, 3]`` (TVM needs them constant) and 8- or 16-bit data, so that no int32
step overflows; qnn.dense and qnn.conv2d accumulate in int32 or int64, which small 8- and
16-bit operands cannot overflow. dyn.topk sorts integer data (NaN has no order).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from relay.semantics.ops.create import InitOpAttrs
from relay.semantics.ops.index import OneHotAttrs, StridedSliceAttrs
from relay.semantics.ops.shape import ReshapeAttrs, TileAttrs
from relay.semantics.ops.sort import TopKAttrs
from relay.semantics.syntax import Constant, TensorType

from .core import (
    ALL,
    INTEGERS,
    MAX_RANK,
    Arg,
    Builder,
    Built,
    _constant_dynq,
    _dims,
    _factorise,
    _Graph,
    _targets,
)


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


def _dyn_tile(g: _Graph) -> Built:
    """Up to four reps of 1 to 3 in a constant."""
    data = g.tensor(ALL)
    reps = [g.integer(1, 3) for _ in range(g.integer(0, MAX_RANK))]
    return (data, _shape_constant(g, reps)), TileAttrs.from_kwargs({"reps": ()})


def _dyn_topk(g: _Graph) -> Built:
    """Integer data (no NaN to sort); k a constant scalar or (1,) tensor, at most the axis
    extent (0: the whole axis)."""
    data = g.tensor(INTEGERS, min_rank=1)
    ndim = len(data[1].shape)
    axis_index = g.integer(0, ndim - 1)
    k = g.integer(0, _dims(data[1])[axis_index])
    k_arg = _shape_constant(g, [k]) if g.flag() else _constant_dynq(g, k, "int64")
    attrs = TopKAttrs.from_kwargs(
        {
            "k": None,
            "axis": g.axis(axis_index, ndim),
            "ret_type": g.pick(["both", "values", "indices"]),
            "is_ascend": g.flag(),
            "dtype": g.pick(["int32", "int64"]),
        }
    )
    return (data, k_arg), attrs


def _dyn_one_hot(g: _Graph) -> Built:
    """Integer indices of rank <= 3; on and off values of the result dtype; a constant depth
    of 1 to 4."""
    indices = g.tensor(INTEGERS, max_rank=MAX_RANK - 1)
    dtype = g.dtype(ALL)
    on = g.tensor((dtype,), max_rank=0)
    off = g.tensor((dtype,), max_rank=0)
    depth = _constant_dynq(g, g.integer(1, 4), g.pick(["int32", "int64"]))
    ndim = len(indices[1].shape)
    attrs = OneHotAttrs.from_kwargs({"depth": 1, "axis": g.integer(-1, ndim), "dtype": dtype})
    return (indices, on, off, depth), attrs


BUILDERS: dict[str, Builder] = {
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
