"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.dyn``.

From the former ``z3_dynq`` module:

Z3 encodings of the type relations of the ``dynq`` group: dynamic and quantized operators.

Written from TVM 0.18's relations (``src/relay/op/dyn/tensor/transform.cc``,
``dyn/algorithm/topk.cc``, ``src/relay/qnn/op/quantize.cc``, ``dequantize.cc``,
``requantize.cc``, ``op_common.h`` (QnnBroadcast), ``concatenate.cc``, ``dense.cc``,
``convolution.cc``) and the departures that ``ops.dyn`` and ``ops.qnn`` document,
independently of those modules' relation functions. qnn.dense, qnn.conv2d and
qnn.concatenate add their quantization rules to this package's encodings of nn.dense,
nn.conv2d and concatenate (``z3_relations``).

A dynamic op's unknown result sizes are fresh Z3 integers that nothing constrains (the
relation says ``?``); its rank is the static length of a rank-1 integer *shape tensor*,
which must be a constant here.
"""

from __future__ import annotations

from collections.abc import Sequence

import z3

from relay.semantics.ops.create import InitOpAttrs
from relay.semantics.ops.index import OneHotAttrs, StridedSliceAttrs
from relay.semantics.ops.registry import Attrs
from relay.semantics.ops.shape import ReshapeAttrs, TileAttrs
from relay.semantics.ops.sort import TopKAttrs
from relay.semantics.syntax import DTYPES

from .core import (
    Arg,
    Encoded,
    Encoding,
    IllTyped,
    TensorArg,
    Term,
    _attrs,
    _axis,
    _tensor,
    const_value,
    well_typed,
)

_INTEGERS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


_counter = [0]


def _unknown() -> Term:
    """A fresh, unconstrained size: an ``?`` of the result."""
    _counter[0] += 1
    return z3.Int(f"dyn_out_{_counter[0]}")


def _length(t: TensorArg, what: str) -> int:
    """A shape tensor: rank 1, an integer dtype, a constant length (the result's rank)."""
    if len(t.shape) != 1 or t.dtype not in _INTEGERS:
        raise IllTyped(f"{what} must be a rank-1 integer tensor")
    n = const_value(t.shape[0])
    if n is None:
        raise IllTyped(f"{what} must have a static length")
    return n


def _dyn_reshape(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DynamicReshape: rank len(newshape), every size unknown; data's dtype."""
    _attrs(attrs, ReshapeAttrs)
    data, newshape = _tensor(args, 0), _tensor(args, 1)
    return well_typed(
        [[_unknown() for _ in range(_length(newshape, "newshape"))]], [], [data.dtype]
    )


def _dyn_broadcast_to(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DynamicBroadCastTo: rank len(shape) >= rank(data), sizes unknown; data's dtype."""
    _attrs(attrs, InitOpAttrs)
    data, shape = _tensor(args, 0), _tensor(args, 1)
    rank = _length(shape, "shape")
    if rank < len(data.shape):
        raise IllTyped("broadcast_to cannot lower the rank")
    return well_typed([[_unknown() for _ in range(rank)]], [], [data.dtype])


def _dyn_init(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DynamicInitOp: rank len(shape), sizes unknown; the dtype attribute, required."""
    a = _attrs(attrs, InitOpAttrs)
    if not a.dtype:
        raise IllTyped("dyn.zeros and dyn.ones need a dtype")
    rank = _length(_tensor(args, 0), "shape")
    return well_typed([[_unknown() for _ in range(rank)]], [], [a.dtype])


def _dyn_full(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DynamicFull: a rank-0 fill value; rank len(shape); dtype attribute or the fill's."""
    a = _attrs(attrs, InitOpAttrs)
    fill, shape = _tensor(args, 0), _tensor(args, 1)
    if fill.shape:
        raise IllTyped("fill_value must be a scalar")
    rank = _length(shape, "shape")
    return well_typed([[_unknown() for _ in range(rank)]], [], [a.dtype or fill.dtype])


def _dyn_strided_slice(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DynStridedSlice: begin, end, strides of one length k <= rank(data); the first k sizes
    unknown, the rest data's; slice_mode end or size."""
    a = _attrs(attrs, StridedSliceAttrs)
    data = _tensor(args, 0)
    if a.slice_mode not in ("end", "size"):
        raise IllTyped(f"unknown slice_mode {a.slice_mode}")
    lengths = {
        _length(_tensor(args, i), name) for i, name in ((1, "begin"), (2, "end"), (3, "strides"))
    }
    if len(lengths) != 1:
        raise IllTyped("begin, end and strides differ in length")
    (k,) = lengths
    if k > len(data.shape):
        raise IllTyped(f"{k} sliced axes for a rank-{len(data.shape)} input")
    out = [_unknown() for _ in range(k)] + list(data.shape[k:])
    return well_typed([out], [], [data.dtype])


def _dyn_tile(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DynamicTile: rank max(rank(data), len(reps)), every size unknown; data's dtype."""
    _attrs(attrs, TileAttrs)
    data, reps = _tensor(args, 0), _tensor(args, 1)
    rank = max(len(data.shape), _length(reps, "reps"))
    return well_typed([[_unknown() for _ in range(rank)]], [], [data.dtype])


def _dyn_topk(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DynTopK: k an integer scalar or (1,) tensor; axis in range; the axis size unknown;
    values of data's dtype, indices of the (integer) dtype attribute, as ret_type says."""
    a = _attrs(attrs, TopKAttrs)
    data, k = _tensor(args, 0), _tensor(args, 1)
    if k.dtype not in _INTEGERS or len(k.shape) > 1:
        raise IllTyped("k must be an integer scalar or a (1,) tensor")
    cons = [k.shape[0] == 1] if k.shape else []
    axis = _axis(a.axis, len(data.shape))
    if a.dtype not in _INTEGERS:
        raise IllTyped(f"index dtype {a.dtype!r}")
    shape = [_unknown() if i == axis else d for i, d in enumerate(data.shape)]
    if a.ret_type == "both":
        return well_typed([shape, list(shape)], cons, [data.dtype, a.dtype], tuple_output=True)
    if a.ret_type not in ("values", "indices"):
        raise IllTyped(f"ret_type {a.ret_type}")
    return well_typed([shape], cons, [data.dtype if a.ret_type == "values" else a.dtype])


def _dyn_one_hot(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DynOneHot: integer indices, scalar on and off values, a scalar integer depth; axis in
    [-1, rank]; an unknown size inserted at axis (-1: last); the dtype attribute."""
    a = _attrs(attrs, OneHotAttrs)
    indices, on, off, depth = (_tensor(args, i) for i in range(4))
    if indices.dtype not in _INTEGERS:
        raise IllTyped("one_hot indices must be integers")
    if on.shape or off.shape or depth.shape or depth.dtype not in _INTEGERS:
        raise IllTyped("on_value, off_value and depth must be scalars (depth an integer)")
    rank = len(indices.shape)
    if not -1 <= a.axis <= rank:
        raise IllTyped(f"axis {a.axis} out of range")
    if a.dtype not in DTYPES:
        raise IllTyped(f"dtype {a.dtype!r}")
    at = rank if a.axis == -1 else a.axis
    shape = [*indices.shape[:at], _unknown(), *indices.shape[at:]]
    return well_typed([shape], [], [a.dtype])


RULES: dict[str, Encoding] = {
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
