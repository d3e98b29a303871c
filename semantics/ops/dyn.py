"""Dynamic-shape operators (``dyn.*``): the static ones with a shape, or slice bounds, taken
from a tensor argument's value.

::

    dyn.reshape(data, newshape, allowzero=False)   ReshapeAttrs       DynamicReshape     injective
    dyn.broadcast_to(data, shape)                  InitOpAttrs        DynamicBroadCastTo broadcast
    dyn.zeros | dyn.ones(shape, dtype=)            InitOpAttrs        DynamicInitOp      elemwise
    dyn.full(fill_value, shape, dtype="")          InitOpAttrs        DynamicFull        elemwise
    dyn.strided_slice(data, begin, end, strides, slice_mode="end")
                                                   StridedSliceAttrs  DynStridedSlice    injective
    dyn.tile(data, reps)                           TileAttrs          DynamicTile        injective
    dyn.topk(data, k, axis=-1, ret_type="both", is_ascend=False, dtype=)
                                                   TopKAttrs          DynTopK            opaque
    dyn.one_hot(indices, on_value, off_value, depth, axis=-1, dtype=)
                                                   OneHotAttrs        DynOneHot   out_elemwise

The attributes classes are the static operators' (``ops.shape``, ``ops.create``, ``ops.index``,
``ops.sort``); TVM 0.18's dynamic ops read only some of their fields (``allowzero``,
``dtype``, ``slice_mode``, ``axis``, ``ret_type``, ``is_ascend``) and ignore the rest
(``newshape``, ``shape``, ``begin``, ``end``, ``strides``, ``axes``, ``reps``, ``k``,
``depth``), which this module also ignores. Patterns follow
``src/relay/op/dyn/tensor/transform.cc`` (``dyn.zeros`` and ``dyn.ones`` register none there;
``python/tvm/relay/op/dyn/_tensor.py`` makes them elemwise).

Conventions. A *shape tensor* (``newshape``, ``shape``, ``begin``, ``end``, ``strides``,
``reps``) is a rank-1 tensor of an integer dtype whose length is a known integer: the
result's rank comes from that length (TVM: "Dynamic Reshape doesn't support Dynamic Rank"),
each result dimension is ``?`` (deliberate departure: TVM read ``shape[0]`` of any tensor type,
then failed later or crashed). Each op's *shape function* (``OpDef.shape_func``: TVM's
hybrid-script shape functions in ``python/tvm/relay/op/dyn/_transform.py`` and ``_tensor.py``)
computes the result shape from the values; the result is then what the static op computes
for that shape. A shape function fails with ``RelayRuntimeError`` where TVM's asserted and
with ``UndefinedBehavior`` where TVM computed on without checking, such as a negative size in
a shape. Each relation's, shape function's and reference's docstring states the rest.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import TypeVar

import numpy as np

from ..errors import RelayRuntimeError, UndefinedBehavior
from ..syntax import ANY, Dim, TensorType, TupleType, Type, is_dtype
from .create import InitOpAttrs, _cast_scalar
from .index import OneHotAttrs, StridedSliceAttrs
from .registry import (
    OPS,
    Attrs,
    OpPattern,
    OpRegistrar,
    RelationError,
    Tensor,
    tensor_reference,
)
from .shape import ReshapeAttrs, TileAttrs
from .shapes import broadcast_shapes, normalize_axis, tensor_arg
from .sort import TopKAttrs

_A = TypeVar("_A", bound=Attrs)


_INTEGER_DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def _attrs(attrs: Attrs | None, cls: type[_A]) -> _A:
    if not isinstance(attrs, cls):
        found = "no attributes" if attrs is None else type(attrs).__name__
        raise RelationError(f"expected {cls.__name__}, found {found}")
    return attrs


def _arity(arg_types: tuple[Type, ...], names: tuple[str, ...]) -> tuple[TensorType, ...]:
    if len(arg_types) != len(names):
        raise RelationError(f"expected {len(names)} argument(s), found {len(arg_types)}")
    return tuple(tensor_arg(t, n) for t, n in zip(arg_types, names, strict=True))


def _shape_length(t: TensorType, what: str) -> int:
    """The static length of the shape tensor ``t``: rank 1, an integer dtype, a known length."""
    if len(t.shape) != 1:
        raise RelationError(f"expected a rank-1 tensor for {what}, found rank {len(t.shape)}")
    if t.dtype not in _INTEGER_DTYPES:
        raise RelationError(f"expected an integer dtype for {what}, found {t.dtype}")
    (length,) = t.shape
    if not isinstance(length, int):
        raise RelationError(
            f"expected a static length for {what} (the result's rank), found {length}"
        )
    return length


def _values(shape: Tensor) -> list[int]:
    return [int(v) for v in np.asarray(shape).reshape(-1)]


def _sizes(name: str, values: Sequence[int]) -> tuple[int, ...]:
    """A shape read from a tensor: every size must be non-negative."""
    if any(v < 0 for v in values):
        raise UndefinedBehavior(
            f"{name}: negative size in shape {list(values)} (TVM allocates without checking)"
        )
    return tuple(values)


def _reshape_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``DynamicReshape``: rank ``len(newshape)``, every dimension ``?``, data's dtype."""
    _attrs(attrs, ReshapeAttrs)
    data, newshape = _arity(arg_types, ("data", "newshape"))
    rank = _shape_length(newshape, "newshape")
    return TensorType((ANY,) * rank, data.dtype)


def _reshape_shape(args: tuple[Tensor, ...], attrs: Attrs | None) -> tuple[int, ...]:
    """TVM's ``_reshape_shape_func_input_data``: left to right, a positive entry is a size, 0
    copies the input dimension at the same position (with ``allowzero`` it is a size 0), -1 is
    inferred as the input's element count over the product of the other output sizes, -3
    merges the next two input dimensions. Every entry but -3 consumes one input dimension; -3
    consumes two.

    ``RelayRuntimeError`` (TVM asserted): a -2, -4 or other negative special value, or a second
    -1; -3 without two input dimensions left. Undefined (TVM computed on): a negative size; 0
    copying an input dimension past the input's rank; -1 next to a 0-sized output dimension
    (TVM's shape function divides by zero)."""
    a = _attrs(attrs, ReshapeAttrs)
    data, newshape = args
    ishape = data.shape
    out: list[int] = []
    src = 0
    infer = -1
    for i, v in enumerate(_values(newshape)):
        if v > 0 or (v == 0 and a.allowzero):
            out.append(v)
            src += 1
        elif v == 0:
            if src >= len(ishape):
                raise UndefinedBehavior(
                    f"dyn.reshape: newshape entry 0 at position {i} copies input dimension "
                    f"{src} of a rank-{len(ishape)} input"
                )
            out.append(int(ishape[src]))
            src += 1
        elif v == -1:
            if infer >= 0:
                raise RelayRuntimeError("dyn.reshape: one and only one dim can be inferred")
            infer = i
            out.append(1)
            src += 1
        elif v == -3:
            if len(ishape) - src <= 1:
                raise RelayRuntimeError("dyn.reshape: not enough dims in input shape for -3")
            out.append(int(ishape[src]) * int(ishape[src + 1]))
            src += 2
        else:
            raise RelayRuntimeError(
                f"dyn.reshape: newshape entry {v} at position {i} is not valid "
                "(dynamic reshape accepts sizes and 0, -1, -3)"
            )
    if infer >= 0:
        rest = math.prod(out)
        if rest == 0:
            raise UndefinedBehavior(
                "dyn.reshape: cannot infer -1 next to a 0-sized dimension (division by zero)"
            )
        out[infer] = math.prod(int(d) for d in ishape) // rest
    return tuple(out)


def _reshape_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``dyn.reshape``: ``reshape`` to the shape function's shape.

    Undefined: element counts that differ after the reshape (``topi::reshape`` reads out of
    bounds)."""
    data = args[0]
    shape = _reshape_shape(args, attrs)
    if math.prod(shape) != data.size:
        raise UndefinedBehavior(
            f"dyn.reshape: cannot reshape {data.shape} ({data.size} elements) to {shape}"
        )
    return np.reshape(data, shape).copy()


def _broadcast_to_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``DynamicBroadCastTo``: rank ``len(shape)``, which must be at least the data's rank
    (``topi::broadcast_to`` refused a lower one at compile time); data's dtype."""
    _attrs(attrs, InitOpAttrs)
    data, shape = _arity(arg_types, ("data", "shape"))
    rank = _shape_length(shape, "shape")
    if rank < len(data.shape):
        raise RelationError(
            f"cannot broadcast a rank-{len(data.shape)} tensor to a shape of rank {rank}"
        )
    return TensorType((ANY,) * rank, data.dtype)


def _broadcast_to_shape(args: tuple[Tensor, ...], attrs: Attrs | None) -> tuple[int, ...]:
    return _sizes("dyn.broadcast_to", _values(args[1]))


def _broadcast_to_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``dyn.broadcast_to``: ``broadcast_to`` the shape's values.

    Undefined: a negative size; a shape that the data does not broadcast to."""
    data = args[0]
    target = _broadcast_to_shape(args, attrs)
    merged: tuple[Dim, ...] | None
    try:
        merged = broadcast_shapes(data.shape, target)
    except RelationError:
        merged = None
    if merged != target:
        raise UndefinedBehavior(f"dyn.broadcast_to: cannot broadcast {data.shape} to {target}")
    return np.broadcast_to(data, target).copy()


def _init_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``DynamicInitOp`` (``dyn.zeros``, ``dyn.ones``): rank ``len(shape)``, the ``dtype``
    attribute (which must be given)."""
    a = _attrs(attrs, InitOpAttrs)
    (shape,) = _arity(arg_types, ("shape",))
    rank = _shape_length(shape, "shape")
    if not is_dtype(a.dtype):
        raise RelationError(f'expected a dtype attribute, found "{a.dtype}"')
    return TensorType((ANY,) * rank, a.dtype)


def _init_shape(args: tuple[Tensor, ...], attrs: Attrs | None) -> tuple[int, ...]:
    return _sizes("dyn.zeros/dyn.ones", _values(args[0]))


def _zeros_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``dyn.zeros``: zeros of the shape's values (undefined: a negative size)."""
    a = _attrs(attrs, InitOpAttrs)
    return np.zeros(_init_shape(args, attrs), dtype=a.dtype)


def _ones_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``dyn.ones``: ones of the shape's values (undefined: a negative size)."""
    a = _attrs(attrs, InitOpAttrs)
    return np.ones(_init_shape(args, attrs), dtype=a.dtype)


def _full_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``DynamicFull``: rank ``len(shape)``; the ``dtype`` attribute, "" meaning the fill
    value's, which must be rank 0."""
    a = _attrs(attrs, InitOpAttrs)
    fill, shape = _arity(arg_types, ("fill_value", "shape"))
    if fill.shape:
        raise RelationError(f"expected a scalar fill_value (rank 0), found rank {len(fill.shape)}")
    rank = _shape_length(shape, "shape")
    return TensorType((ANY,) * rank, a.dtype or fill.dtype)


def _full_shape(args: tuple[Tensor, ...], attrs: Attrs | None) -> tuple[int, ...]:
    return _sizes("dyn.full", _values(args[1]))


def _full_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``dyn.full``: ``full`` of the shape's values.

    Undefined: a negative size; a fill value that the output dtype cannot hold (as for
    ``full``)."""
    a = _attrs(attrs, InitOpAttrs)
    fill = args[0]
    dtype = a.dtype or fill.dtype.name
    return np.full(_full_shape(args, attrs), _cast_scalar(fill, dtype), dtype=dtype)


def _strided_slice_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``DynStridedSlice``: begin, end and strides have one length ``k <= rank(data)`` (TVM's
    compute checks this); the first ``k`` dimensions are ``?`` and the others the data's."""
    a = _attrs(attrs, StridedSliceAttrs)
    data, begin, end, strides = _arity(arg_types, ("data", "begin", "end", "strides"))
    if a.slice_mode not in ("end", "size"):
        raise RelationError(f'expected slice_mode "end" or "size", found "{a.slice_mode}"')
    lengths = [
        _shape_length(t, w) for t, w in ((begin, "begin"), (end, "end"), (strides, "strides"))
    ]
    if len(set(lengths)) != 1:
        raise RelationError(
            "expected begin, end and strides of the same length, found "
            f"{lengths[0]}, {lengths[1]} and {lengths[2]}"
        )
    k = lengths[0]
    if k > len(data.shape):
        raise RelationError(
            f"expected at most {len(data.shape)} sliced axes (the rank of data), found {k}"
        )
    return TensorType((ANY,) * k + tuple(data.shape[k:]), data.dtype)


def _slice_plan(args: tuple[Tensor, ...], attrs: Attrs | None) -> list[tuple[int, int, int]]:
    """Per axis of data: (canonical begin, stride, extent), as TVM's shape function computes.

    Per sliced axis of extent ``d``, with stride ``s`` (must be non-zero, else
    ``RelayRuntimeError``): an absent begin is 0 (``d`` for ``s < 0``); ``end > d`` becomes
    ``d``; in ``size`` mode the end is ``begin + end`` (a negative size: to the end) and
    ``s = 1``; a negative begin or end is increased by ``d`` once; for ``s < 0`` an end still
    negative becomes -1 and a begin above ``d - 1`` becomes ``d - 1``; the extent is
    ``ceil(|end - begin| / |s|)`` (signed: ``end - begin`` for ``s > 0``)."""
    a = _attrs(attrs, StridedSliceAttrs)
    data, begin_t, end_t, strides_t = args
    begin, end, strides = _values(begin_t), _values(end_t), _values(strides_t)
    plan = []
    for i, dim in enumerate(int(d) for d in data.shape):
        stride = strides[i] if i < len(strides) else 1
        b = begin[i] if i < len(begin) else (dim if stride < 0 else 0)
        e = dim
        if i >= len(end):
            e = 0 if stride < 0 else dim
        elif a.slice_mode == "size":
            stride = 1
            e = dim if end[i] < 0 else b + end[i]
        else:
            e = dim if end[i] > dim else end[i]
        if stride == 0:
            raise RelayRuntimeError("dyn.strided_slice: strides can't be zero")
        b = b + dim if b < 0 else b
        e = e + dim if e < 0 else e
        if stride < 0:
            e = -1 if e < 0 else e
            b = dim - 1 if b > dim - 1 else b
        extent = -(-(b - e if stride < 0 else e - b) // abs(stride))
        plan.append((b, stride, extent))
    return plan


def _strided_slice_shape(args: tuple[Tensor, ...], attrs: Attrs | None) -> tuple[int, ...]:
    return tuple(extent for _, _, extent in _slice_plan(args, attrs))


def _strided_slice_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``dyn.strided_slice``: the elements at ``begin + i * s`` of each sliced axis.

    Undefined: a computed extent that is negative, or elements outside the axis."""
    data = args[0]
    positions = []
    for axis, (b, stride, extent) in enumerate(_slice_plan(args, attrs)):
        if extent < 0:
            raise UndefinedBehavior(
                f"dyn.strided_slice: negative extent {extent} on axis {axis} (begin {b}, "
                f"stride {stride})"
            )
        index = b + stride * np.arange(extent, dtype=np.int64)
        if extent and (index.min() < 0 or index.max() >= data.shape[axis]):
            raise UndefinedBehavior(
                f"dyn.strided_slice: the slice reads outside axis {axis} of extent "
                f"{data.shape[axis]} (begin {b}, stride {stride}, extent {extent})"
            )
        positions.append(index)
    return data[np.ix_(*positions)] if positions else data.copy()


def _tile_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``DynamicTile``: rank ``max(rank(data), len(reps))``, every dimension ``?``."""
    _attrs(attrs, TileAttrs)
    data, reps = _arity(arg_types, ("data", "reps"))
    rank = max(len(data.shape), _shape_length(reps, "reps"))
    return TensorType((ANY,) * rank, data.dtype)


def _tile_shape(args: tuple[Tensor, ...], attrs: Attrs | None) -> tuple[int, ...]:
    """TVM's ``_tile_shape_func``: shape and reps aligned on the right (missing entries 1),
    each extent the product; a rep of 0 gives an empty axis (``np.tile``). Undefined: a
    negative rep."""
    data, reps_t = args
    reps = list(_sizes("dyn.tile", _values(reps_t)))
    rank = max(data.ndim, len(reps))
    shape = [1] * (rank - data.ndim) + [int(d) for d in data.shape]
    reps = [1] * (rank - len(reps)) + reps
    return tuple(d * r for d, r in zip(shape, reps, strict=True))


def _tile_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``dyn.tile``: ``tile`` with the reps' values (undefined: a negative rep)."""
    data, reps = args
    _tile_shape(args, attrs)
    values = _values(reps)
    return np.tile(data, values) if values else data.copy()


def _k_tensor(t: TensorType) -> None:
    """TVM: k is a scalar or a tensor of shape (1,); here also of an integer dtype."""
    if t.dtype not in _INTEGER_DTYPES:
        raise RelationError(f"expected an integer dtype for k, found {t.dtype}")
    if t.shape and tuple(t.shape) != (1,):
        raise RelationError(f"expected a scalar k or a tensor of shape (1,), found {t.shape}")


def _topk_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``DynTopK``: ``k`` is an integer scalar or a ``(1,)`` tensor (deliberate departure: TVM
    did not require an integer dtype), the axis in range, the axis dimension ``?`` and the
    others the data's, values of data's dtype and indices of the (integer) ``dtype``
    attribute: a tuple of both, or one, as ``ret_type`` says."""
    a = _attrs(attrs, TopKAttrs)
    data, k = _arity(arg_types, ("data", "k"))
    _k_tensor(k)
    axis = normalize_axis(a.axis, len(data.shape))
    if a.ret_type not in ("both", "values", "indices"):
        raise RelationError(
            f'expected ret_type "both", "values" or "indices", found "{a.ret_type}"'
        )
    if not is_dtype(a.dtype) or a.dtype not in _INTEGER_DTYPES:
        raise RelationError(f'expected an integer dtype attribute, found "{a.dtype}"')
    shape = tuple(ANY if i == axis else d for i, d in enumerate(data.shape))
    values, indices = TensorType(shape, data.dtype), TensorType(shape, a.dtype)
    if a.ret_type == "both":
        return TupleType((values, indices))
    return values if a.ret_type == "values" else indices


def _static_topk(args: tuple[Tensor, ...], attrs: Attrs | None) -> TopKAttrs:
    """The static ``topk`` attributes for the value of k."""
    a = _attrs(attrs, TopKAttrs)
    return dataclasses.replace(a, k=_values(args[1])[0])


def _topk_shape(
    args: tuple[Tensor, ...], attrs: Attrs | None
) -> tuple[int, ...] | tuple[tuple[int, ...], ...]:
    """TVM's ``_topk_shape_func_input_data``: the axis has k entries (all for k < 1)."""
    a = _static_topk(args, attrs)
    data = args[0]
    axis = a.axis % data.ndim
    k = a.k if a.k is not None and a.k >= 1 else data.shape[axis]
    shape = tuple(int(k) if i == axis else int(d) for i, d in enumerate(data.shape))
    return (shape, shape) if a.ret_type == "both" else shape


def _topk_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor | tuple[Tensor, ...]:
    """``dyn.topk``: ``topk`` with ``k`` the tensor's value (``k < 1``: the whole axis).

    Undefined: what the static ``topk`` leaves undefined (NaN data, ``k`` beyond the axis
    extent)."""
    static = OPS["topk"].reference
    assert static is not None
    return static((args[0],), _static_topk(args, attrs))


def _one_hot_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``DynOneHot``: as ``one_hot`` (integer indices, scalar on and off values, axis in
    ``[-1, rank]``, a ``dtype``), with a scalar integer ``depth`` tensor (deliberate departure:
    TVM did not require an integer dtype) and a ``?`` at the inserted axis."""
    a = _attrs(attrs, OneHotAttrs)
    indices, on, off, depth = _arity(arg_types, ("indices", "on_value", "off_value", "depth"))
    if depth.shape or depth.dtype not in _INTEGER_DTYPES:
        raise RelationError(
            f"expected a scalar integer depth, found a rank-{len(depth.shape)} {depth.dtype} tensor"
        )
    static = OPS["one_hot"].relation
    assert static is not None
    t = static((indices, on, off), dataclasses.replace(a, depth=1))
    assert isinstance(t, TensorType)
    at = len(indices.shape) if a.axis == -1 else a.axis
    return TensorType(tuple(ANY if i == at else d for i, d in enumerate(t.shape)), t.dtype)


def _one_hot_shape(args: tuple[Tensor, ...], attrs: Attrs | None) -> tuple[int, ...]:
    """TVM's ``_onehot_shape_func``: the indices' shape with depth inserted at the axis."""
    a = _attrs(attrs, OneHotAttrs)
    indices, depth = args[0], _values(args[3])[0]
    (depth,) = _sizes("dyn.one_hot", [depth])
    at = indices.ndim if a.axis == -1 else a.axis
    shape = [int(d) for d in indices.shape]
    return (*shape[:at], depth, *shape[at:])


def _one_hot_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``dyn.one_hot``: ``one_hot`` with ``depth`` the tensor's value; a depth of 0 gives an
    empty axis.

    Undefined: a negative depth, and what the static ``one_hot`` leaves undefined."""
    a = _attrs(attrs, OneHotAttrs)
    shape = _one_hot_shape(args, attrs)
    depth = _values(args[3])[0]
    if depth == 0:
        return np.zeros(shape, dtype=a.dtype)
    static = OPS["one_hot"].reference
    assert static is not None
    out = static(args[:3], dataclasses.replace(a, depth=depth))
    assert isinstance(out, np.ndarray)
    return out


_op = OpRegistrar(
    __name__, relation_name="DynamicInitOp", inputs=("shape",), pattern=OpPattern.INJECTIVE
)


_op(
    "dyn.reshape",
    "Reshape data to the shape held by the tensor newshape (0, -1, -3 special).",
    relation=_reshape_relation,
    reference=tensor_reference(_reshape_reference),
    check="independent:the static reshape (relation and reference) on the same values",
    relation_name="DynamicReshape",
    inputs=("data", "newshape"),
    attrs_type=ReshapeAttrs,
    shape_func=_reshape_shape,
)


_op(
    "dyn.broadcast_to",
    "Broadcast data to the shape held by the tensor shape.",
    relation=_broadcast_to_relation,
    reference=tensor_reference(_broadcast_to_reference),
    check="onnxruntime:Expand",
    relation_name="DynamicBroadCastTo",
    inputs=("data", "shape"),
    attrs_type=InitOpAttrs,
    pattern=OpPattern.BROADCAST,
    shape_func=_broadcast_to_shape,
)


_op(
    "dyn.zeros",
    "A tensor of zeros of the shape held by the tensor shape.",
    relation=_init_relation,
    reference=tensor_reference(_zeros_reference),
    check="onnxruntime:ConstantOfShape",
    attrs_type=InitOpAttrs,
    pattern=OpPattern.ELEMWISE,
    shape_func=_init_shape,
)


_op(
    "dyn.ones",
    "A tensor of ones of the shape held by the tensor shape.",
    relation=_init_relation,
    reference=tensor_reference(_ones_reference),
    check="onnxruntime:ConstantOfShape",
    attrs_type=InitOpAttrs,
    pattern=OpPattern.ELEMWISE,
    shape_func=_init_shape,
)


_op(
    "dyn.full",
    "A tensor of the shape held by the tensor shape, filled with fill_value.",
    relation=_full_relation,
    reference=tensor_reference(_full_reference),
    check="onnxruntime:Expand",
    relation_name="DynamicFull",
    inputs=("fill_value", "shape"),
    attrs_type=InitOpAttrs,
    pattern=OpPattern.ELEMWISE,
    shape_func=_full_shape,
)


_op(
    "dyn.strided_slice",
    "A strided slice of data with begin, end and strides held by tensors.",
    relation=_strided_slice_relation,
    reference=tensor_reference(_strided_slice_reference),
    check="independent:Python range slicing of nested lists",
    relation_name="DynStridedSlice",
    inputs=("data", "begin", "end", "strides"),
    attrs_type=StridedSliceAttrs,
    shape_func=_strided_slice_shape,
)


_op(
    "dyn.tile",
    "Repeat data along each axis as many times as the tensor reps says.",
    relation=_tile_relation,
    reference=tensor_reference(_tile_reference),
    check="onnxruntime:Tile",
    relation_name="DynamicTile",
    inputs=("data", "reps"),
    attrs_type=TileAttrs,
    shape_func=_tile_shape,
)


_op(
    "dyn.topk",
    "The k largest (or smallest) elements along an axis, k held by a tensor.",
    relation=_topk_relation,
    reference=tensor_reference(_topk_reference),
    check="onnxruntime:TopK",
    relation_name="DynTopK",
    inputs=("data", "k"),
    attrs_type=TopKAttrs,
    pattern=OpPattern.OPAQUE,
    shape_func=_topk_shape,
)


_op(
    "dyn.one_hot",
    "One-hot encode indices with a depth held by a scalar tensor.",
    relation=_one_hot_relation,
    reference=tensor_reference(_one_hot_reference),
    check="onnxruntime:OneHot",
    relation_name="DynOneHot",
    inputs=("indices", "on_value", "off_value", "depth"),
    attrs_type=OneHotAttrs,
    pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
    shape_func=_one_hot_shape,
)
