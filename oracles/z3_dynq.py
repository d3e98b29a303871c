"""Z3 encodings of the type relations of the ``dynq`` group: dynamic and quantized operators.

Written from TVM 0.18's relations (``src/relay/op/dyn/tensor/transform.cc``,
``src/relay/qnn/op/quantize.cc``, ``dequantize.cc``) and the departures that
``ops.dyn`` and ``ops.qnn`` document, independently of those modules' relation functions.

A dynamic op's unknown result sizes are fresh Z3 integers that nothing constrains (the
relation says ``?``); its rank is the static length of a rank-1 integer *shape tensor*,
which must be a constant here.
"""

from __future__ import annotations

from collections.abc import Sequence

import z3

from relay.semantics.ops.qnn import DequantizeAttrs, FixedPointMultiplyAttrs, QuantizeAttrs
from relay.semantics.ops.registry import Attrs
from relay.semantics.ops.transform import InitOpAttrs, ReshapeAttrs, StridedSliceAttrs

from .z3_relations import (
    Arg,
    Cond,
    Encoded,
    Encoding,
    IllTyped,
    TensorArg,
    Term,
    _attrs,
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


def _qparam(
    data: TensorArg, t: TensorArg, dtype: str, axis: int, one_is_scalar: bool
) -> list[Cond]:
    """A scale (float32) or zero point (int32): rank 0, or a vector of one value per channel
    (for dequantize, a one-element vector is a scalar too)."""
    if t.dtype != dtype:
        raise IllTyped(f"expected {dtype}, found {t.dtype}")
    if not t.shape:
        return []
    if len(t.shape) != 1:
        raise IllTyped("a scale or zero point must be a scalar or a vector")
    rank = len(data.shape)
    channels: Term = data.shape[axis] if rank else z3.IntVal(1)
    if one_is_scalar:
        return [z3.Or(t.shape[0] == 1, t.shape[0] == channels)]
    return [t.shape[0] == channels]


def _quantize_like(
    data_dtypes: tuple[str, ...], out_dtypes: tuple[str, ...], dequant: bool
) -> Encoding:
    def encode(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
        """Quantize / Dequantize: data of the allowed dtypes; axis in [-rank, rank) for rank
        >= 1; scale float32 and zero point int32, each scalar or per channel of axis; out
        dtype in the allowed list; data's shape."""
        a = attrs if isinstance(attrs, QuantizeAttrs | DequantizeAttrs) else None
        if a is None:
            raise IllTyped("expected quantize attributes")
        data, scale, zero_point = _tensor(args, 0), _tensor(args, 1), _tensor(args, 2)
        if data.dtype not in data_dtypes:
            raise IllTyped(f"data dtype {data.dtype}")
        rank = len(data.shape)
        if rank and not -rank <= a.axis < rank:
            raise IllTyped(f"axis {a.axis} out of range")
        axis = a.axis % rank if rank else 0
        cons = _qparam(data, scale, "float32", axis, dequant)
        cons += _qparam(data, zero_point, "int32", axis, dequant)
        if a.out_dtype not in out_dtypes:
            raise IllTyped(f"out_dtype {a.out_dtype}")
        return well_typed([list(data.shape)], cons, [a.out_dtype])

    return encode


def _fixed_point_multiply(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Identity over int32 data."""
    _attrs(attrs, FixedPointMultiplyAttrs)
    data = _tensor(args, 0)
    if data.dtype != "int32":
        raise IllTyped("fixed_point_multiply needs int32 data")
    return well_typed([list(data.shape)], [], ["int32"])


_QUANTIZED = ("int8", "uint8", "int16", "uint16", "int32")

RULES: dict[str, Encoding] = {
    "dyn.reshape": _dyn_reshape,
    "dyn.broadcast_to": _dyn_broadcast_to,
    "dyn.zeros": _dyn_init,
    "dyn.ones": _dyn_init,
    "dyn.full": _dyn_full,
    "dyn.strided_slice": _dyn_strided_slice,
    "qnn.quantize": _quantize_like(("float32",), _QUANTIZED, dequant=False),
    "qnn.dequantize": _quantize_like(_QUANTIZED, ("float16", "float32"), dequant=True),
    "fixed_point_multiply": _fixed_point_multiply,
}
"""The encodings of this group's operators, by name (merged into ``Z3_ENCODINGS``)."""
