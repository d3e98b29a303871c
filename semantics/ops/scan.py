"""More reductions and the scans: ``variance``, ``all``, ``any``, ``cumsum``, ``cumprod``.

::

    variance(data, mean, axis=None, keepdims=False, exclude=False, unbiased=False)
                                         VarianceAttrs  comm_reduce  relation Variance
    all | any(data, axis=None, keepdims=False, exclude=False)
                                         ReduceAttrs    comm_reduce  relation Reduce
    cumsum | cumprod(data, axis=None, dtype="", exclusive=False)
                                         ScanopAttrs    opaque       relation Cumsum | Cumprod

Attribute fields, fusion patterns, relations and computes follow TVM 0.18
(``include/tvm/relay/attrs/reduce.h``, ``transform.h``; ``src/relay/op/tensor/reduce.cc``,
``transform.cc``; ``python/tvm/topi/scan.py``). The reduced axes, the result shape and their
undefined forms are those of ``ops.reduce`` (``axis=None`` or ``[]`` reduce every axis,
``exclude`` reduces the others; ``exclude=True`` with ``axis=None``, and ``axis=[]`` without
``exclude``, are undefined on a tensor of rank 1 or more).

**variance** is TVM's ``_variance``, the second half of ``relay.variance``/``std``: the caller
passes ``mean`` (in practice ``mean(data, axis, keepdims=True)``). Typing (``Variance``):
``data`` has rank at least 1 and a float dtype; ``mean`` has ``data``'s dtype and rank, and each
of its dimensions is ``data``'s or 1 (it broadcasts to ``data``); the result has ``data``'s dtype
and the reduced shape. Meaning (``VarianceCompute``): ``sum((data - mean)^2)`` over the reduced
axes, each step in the dtype (float16 sums accumulate in float32, as ``ops.reduce``'s ``sum``),
divided by ``count - unbiased`` where ``count`` is the number of reduced elements (so an empty
reduction with ``unbiased`` is ``0 / -1 = -0``).

**all** and **any** (``Reduce``, bool only): the conjunction / disjunction over the reduced
axes, ``True`` / ``False`` over zero elements; with no axis reduced, the input.

**cumsum** and **cumprod** (``Cumsum``, ``Cumprod``, TVM's ``ScanopRel``): ``data`` has rank
at least 1; ``axis``, when given, lies in ``[-rank, rank)``; the result dtype is ``dtype`` or,
when ``""``, the data's; the shape is the data's, or ``(product of the dims,)`` when ``axis`` is
``None`` (the data is flattened in row-major order). Meaning (``topi.scan``): each element is
converted to the result dtype as ``cast`` converts, then accumulated sequentially along the
axis in that dtype: ``out[0] = x[0]``, ``out[i] = out[i-1] + x[i]`` (``*`` for ``cumprod``).
With ``exclusive`` the first element is the identity (0 or 1) and ``out[i]`` combines
``x[0..i-1]``. Floats round after each step (float16 through float32); int8, int16, uint8 and
uint16 wrap; bool accumulates as LLVM's ``i1``, so ``cumsum`` is a running exclusive-or and
``cumprod`` a running and. ``exclusive=None`` (TVM's null ``Bool``) means ``False``.

**Undefined behaviour** (``UndefinedBehavior``):

1. the undefined attribute forms of ``ops.reduce`` (above), for ``variance``, ``all`` and
   ``any``; for ``variance`` also ``exclude`` listing every axis (TVM's compute asserts some axis
   is reduced);
2. ``variance`` whose divisor ``count - unbiased`` is 0 (one element with ``unbiased``, or none
   without): TVM's constant folder stops at "Divide by zero";
3. ``cumsum``/``cumprod`` accumulating int32, int64, uint32 or uint64 where a computed
   running value leaves the dtype's range: the scan's ``+``/``*`` are ``nsw``/``nuw``;
4. ``cumsum``/``cumprod`` whose conversion to ``dtype`` is undefined (``cast``'s float to
   integer cases: NaN, infinities, values out of range).

Deliberate deviations from TVM's relations, rejecting programs TVM typed but could not compile
or whose compute contradicted the type: ``variance`` requires float data and a ``mean`` of its
dtype that broadcasts to it (integer data divided by TVM's int64 count gave an int64 result;
a mismatched ``mean`` changed the compute's shape or dtype); ``all``/``any`` require bool
(``tir::all``/``any`` combine with ``&&``/``||``); ``cumsum``/``cumprod`` reject rank 0 and an
out-of-range ``axis`` (TVM's relation read ``shape[0]`` of a rank-0 tensor; its compute indexed
past the rank).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

import numpy as np
import numpy.typing as npt

from ..errors import UndefinedBehavior
from ..syntax import AnyDim, TensorType, Type
from ..text.printer import format_dim
from .elementwise import _cast, _tensors
from .reduce import (
    ReduceAttrs,
    _finish,
    _fold,
    _reduced_shape,
    _sum_rows,
    reduce_axes,
    reduce_relation,
)
from .registry import (
    AttrKind,
    Attrs,
    OpDef,
    OpPattern,
    Reference,
    RelationError,
    Tensor,
    attr_field,
    register,
)
from .shapes import dims_equal, normalize_axis, prod_dims

Array: TypeAlias = npt.NDArray[Any]


@dataclass(frozen=True, slots=True)
class VarianceAttrs(Attrs):
    """Attributes of ``variance``: the reduction's axes and whether to divide by count - 1."""

    type_key: ClassVar[str] = "relay.attrs.VarianceAttrs"
    axis: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, None, optional=True, doc="The axes to reduce; None reduces all axes."
    )
    keepdims: bool = attr_field(
        AttrKind.BOOL, False, doc="Keep each reduced axis in the result with extent one."
    )
    exclude: bool = attr_field(
        AttrKind.BOOL, False, doc="Reduce over the axes not in axis instead."
    )
    unbiased: bool = attr_field(
        AttrKind.BOOL, False, doc="Divide by the element count minus one (Bessel's correction)."
    )


@dataclass(frozen=True, slots=True)
class ScanopAttrs(Attrs):
    """Attributes of ``cumsum`` and ``cumprod``: the axis, the result dtype, exclusivity."""

    type_key: ClassVar[str] = "relay.attrs.ScanopAttrs"
    axis: int | None = attr_field(
        AttrKind.INT,
        None,
        optional=True,
        doc="The axis to scan along; None scans the flattened data.",
    )
    dtype: str = attr_field(
        AttrKind.DTYPE, "", doc='The result and accumulator dtype; "" means the data\'s dtype.'
    )
    exclusive: bool | None = attr_field(
        AttrKind.BOOL,
        False,
        optional=True,
        doc="Leave each element out of its own running value (the first is the identity).",
    )


# ---------------------------------------------------------------------------------------------
# Relations


def _as_reduce(attrs: VarianceAttrs) -> ReduceAttrs:
    return ReduceAttrs(axis=attrs.axis, keepdims=attrs.keepdims, exclude=attrs.exclude)


def variance_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Variance``: float ``data`` of rank >= 1, ``mean`` of its dtype and rank broadcasting to
    it; the reduced shape, ``data``'s dtype."""
    data, mean = _tensors(arg_types, ("data", "mean"))
    a = attrs if attrs is not None else VarianceAttrs()
    if not isinstance(a, VarianceAttrs):
        raise RelationError(f"expected VarianceAttrs, found {type(a).__name__}")
    if not data.shape:
        raise RelationError("expected data of rank at least 1, found rank 0")
    if not data.dtype.startswith("float"):
        raise RelationError(f"expected a float dtype for data, found {data.dtype}")
    if mean.dtype != data.dtype:
        raise RelationError(f"expected mean of the data's dtype {data.dtype}, found {mean.dtype}")
    if len(mean.shape) != len(data.shape):
        raise RelationError(
            f"expected mean of the data's rank {len(data.shape)}, found rank {len(mean.shape)}"
        )
    for i, (m, d) in enumerate(zip(mean.shape, data.shape, strict=True)):
        # As broadcasting: 1 or ? fit anything; otherwise the sizes must be provably equal.
        if not (m == 1 or isinstance(m, AnyDim) or isinstance(d, AnyDim) or dims_equal(m, d)):
            raise RelationError(
                f"expected mean dimension {i} to be {format_dim(d)} (the data's) or 1, "
                f"found {format_dim(m)}"
            )
    axes = reduce_axes(len(data.shape), a.axis, a.exclude)
    return TensorType(_reduced_shape(data.shape, axes, a.keepdims), data.dtype)


def _bool_reduce_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Reduce`` on bool data only."""
    (data,) = _tensors(arg_types, ("data",))
    if data.dtype != "bool":
        raise RelationError(f"expected bool for data, found {data.dtype}")
    return reduce_relation(arg_types, attrs)


def scanop_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``ScanopRel``: rank >= 1; ``axis`` in range; the data's shape (flattened without an
    axis); dtype the attribute's or the data's."""
    (data,) = _tensors(arg_types, ("data",))
    a = attrs if attrs is not None else ScanopAttrs()
    if not isinstance(a, ScanopAttrs):
        raise RelationError(f"expected ScanopAttrs, found {type(a).__name__}")
    if not data.shape:
        raise RelationError("expected data of rank at least 1, found rank 0")
    dtype = a.dtype or data.dtype
    if a.axis is None:
        return TensorType((prod_dims(data.shape),), dtype)
    normalize_axis(a.axis, len(data.shape), "axis")
    return TensorType(data.shape, dtype)


# ---------------------------------------------------------------------------------------------
# Reference semantics


def _variance(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``VarianceCompute``: the sum of squared differences over ``count - unbiased``."""
    data: Array = args[0]
    mean: Array = args[1]
    a = attrs if isinstance(attrs, VarianceAttrs) else VarianceAttrs()
    diff = data - np.broadcast_to(mean, data.shape)
    squares = np.asarray(diff * diff, dtype=data.dtype)
    folded = _fold(squares, _as_reduce(a), "variance")
    if not folded.reduces:
        raise UndefinedBehavior("variance reducing no axis (TVM's compute asserts some axis)")
    divisor = int(folded.rows.shape[-1]) - int(a.unbiased)
    if divisor == 0:
        raise UndefinedBehavior(
            f"variance divides by count - unbiased = 0 ({folded.rows.shape[-1]} elements, "
            f"unbiased={a.unbiased}): TVM's constant folder stops at 'Divide by zero'"
        )
    total = _sum_rows(folded.rows, "variance")
    compute = np.float32 if data.dtype == np.float16 else data.dtype
    quotient = total.astype(compute) / np.asarray(divisor, dtype=compute)
    return _finish(np.asarray(quotient), folded, data.dtype)


def _logical_reduce(op: str) -> Reference:
    """``all`` (``op="all"``) or ``any``: bool conjunction / disjunction over the axes."""

    def reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
        (x,) = args
        a = attrs if isinstance(attrs, ReduceAttrs) else ReduceAttrs()
        folded = _fold(x, a, op)
        if not folded.reduces:
            return np.array(x, copy=True)
        combine = np.all if op == "all" else np.any
        return _finish(np.asarray(combine(folded.rows, axis=-1)), folded, np.bool_)

    reference.__name__ = f"_{op}_reference"
    return reference


def _wide_integer(dtype: np.dtype[Any]) -> bool:
    """Whether LLVM marks ``+`` and ``*`` on ``dtype`` nsw/nuw (integers of 32 bits or more)."""
    return dtype.kind in "iu" and dtype.itemsize >= 4


def _scan(op: str) -> Reference:
    """``cumsum`` (``op="cumsum"``) or ``cumprod`` as ``topi.scan``'s sequential loop."""
    identity = 0 if op == "cumsum" else 1

    def reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
        (x,) = args
        a = attrs if isinstance(attrs, ScanopAttrs) else ScanopAttrs()
        dtype = np.dtype(a.dtype or x.dtype.name)
        with np.errstate(all="ignore"):
            values = _cast(np.asarray(x), dtype.name, op)
        axis = 0 if a.axis is None else a.axis
        if a.axis is None:
            values = values.reshape(-1)
        if a.exclusive and values.shape[axis] > 0:
            # out[i] combines x[0..i-1]: shift right by one, the identity first.
            first = np.full_like(np.take(values, [0], axis=axis), identity)
            rest = np.take(values, range(values.shape[axis] - 1), axis=axis)
            values = np.concatenate([first, rest], axis=axis)
        if dtype.kind == "b":
            step = np.logical_xor if op == "cumsum" else np.logical_and
            return np.asarray(step.accumulate(values, axis=axis), dtype=np.bool_)
        if _wide_integer(dtype):
            running = (np.cumsum if op == "cumsum" else np.cumprod)(
                values.astype(object), axis=axis
            )
            info = np.iinfo(dtype)
            bad = (running < int(info.min)) | (running > int(info.max))
            if np.any(bad):
                raise UndefinedBehavior(
                    f"{op} of {dtype.name} overflows: a running value is "
                    f"{running[np.asarray(bad, dtype=np.bool_)].flat[0]} "
                    "(TVM emits nsw/nuw arithmetic)"
                )
        with np.errstate(all="ignore"):
            if op == "cumsum":
                out = np.cumsum(values, axis=axis, dtype=dtype)
            else:
                out = np.cumprod(values, axis=axis, dtype=dtype)
        return np.asarray(out, dtype=dtype)

    reference.__name__ = f"_{op}_reference"
    return reference


# ---------------------------------------------------------------------------------------------
# Registration

register(
    OpDef(
        "variance",
        ("data", "mean"),
        VarianceAttrs,
        OpPattern.COMM_REDUCE,
        "Mean squared difference from the given mean over the reduced axes.",
        relation=variance_relation,
        reference=_variance,
        relation_name="Variance",
        family="reduce",
        check="independent:numpy.var with ddof over the moved axes",
    )
)
register(
    OpDef(
        "all",
        ("data",),
        ReduceAttrs,
        OpPattern.COMM_REDUCE,
        "Whether every element over the reduced axes is true.",
        relation=_bool_reduce_relation,
        reference=_logical_reduce("all"),
        relation_name="Reduce",
        family="reduce",
        check="onnxruntime:ReduceMin",
    )
)
register(
    OpDef(
        "any",
        ("data",),
        ReduceAttrs,
        OpPattern.COMM_REDUCE,
        "Whether some element over the reduced axes is true.",
        relation=_bool_reduce_relation,
        reference=_logical_reduce("any"),
        relation_name="Reduce",
        family="reduce",
        check="onnxruntime:ReduceMax",
    )
)
register(
    OpDef(
        "cumsum",
        ("data",),
        ScanopAttrs,
        OpPattern.OPAQUE,
        "Running sums along an axis (or the flattened data).",
        relation=scanop_relation,
        reference=_scan("cumsum"),
        relation_name="Cumsum",
        family="reduce",
        check="onnxruntime:CumSum",
    )
)
register(
    OpDef(
        "cumprod",
        ("data",),
        ScanopAttrs,
        OpPattern.OPAQUE,
        "Running products along an axis (or the flattened data).",
        relation=scanop_relation,
        reference=_scan("cumprod"),
        relation_name="Cumprod",
        family="reduce",
        check="independent:itertools.accumulate per row",
    )
)

NAMES: tuple[str, ...] = ("variance", "all", "any", "cumsum", "cumprod")
"""Every operator this module registers."""
