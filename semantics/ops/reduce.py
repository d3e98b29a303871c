"""Reductions and scans along axes: sum, mean, variance, max, argmax, all, cumsum, ...

::

    sum | mean | max | min | prod(data, axis=None, keepdims=False, exclude=False)
                                         ReduceAttrs     comm_reduce  relation Reduce
    argmax | argmin(data, axis=None, keepdims=False, select_last_index=False, exclude=False)
                                         ArgReduceAttrs  comm_reduce  relation ArgReduce
    variance(data, mean, axis=None, keepdims=False, exclude=False, unbiased=False)
                                         VarianceAttrs   comm_reduce  relation Variance
    all | any(data, axis=None, keepdims=False, exclude=False)
                                         ReduceAttrs     comm_reduce  relation Reduce
    cumsum | cumprod(data, axis=None, dtype="", exclusive=False)
                                         ScanopAttrs     opaque       relation Cumsum | Cumprod

Sources: ``include/tvm/relay/attrs/reduce.h`` and ``transform.h``,
``src/relay/op/tensor/reduce.cc`` and ``transform.cc``, ``include/tvm/topi/reduction.h``,
``python/tvm/topi/scan.py``, ``src/tir/op/op.cc``.

Shared by the reductions: the reduced axes are ``reduce_axes``'s and the result shape
``_reduced_shape``'s; their undefined attribute forms are ``_fold``'s. A reduction is
TOPI's reducer lowered to ``acc = identity; acc = combine(acc, x)`` over the reduced elements,
in an order TVM's schedules choose freely, so an overflow (``_check_sum_overflow``) or a NaN
(``_check_no_nan``) that some order meets is undefined. With no axis reduced (rank 0, or
``exclude`` listing every axis) every reduction returns its input unchanged (``ReduceCompute``
returns ``topi::identity``, no combiner runs: a rank-0 ``max`` of NaN is NaN). Float
``sum``/``prod``/``mean`` of float32 and float64 are computed in the dtype (numpy's pairwise
order; TVM's order is schedule-dependent); float16 accumulates in float32 and rounds once
(TVM accumulates in float16, so its results differ by rounding that grows with the reduction
length, which the comparison policy in ``oracles/compare.py`` budgets for, and a float16
intermediate product may overflow to inf in TVM where this one does not).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias

import numpy as np
import numpy.typing as npt

from ..errors import UndefinedBehavior
from ..syntax import AnyDim, Dim, TensorType, Type
from ..text.printer import format_dim
from .elementwise import _cast, _tensors
from .registry import (
    AttrKind,
    Attrs,
    OpPattern,
    OpRegistrar,
    Relation,
    RelationError,
    Tensor,
    TensorReference,
    attr_field,
    tensor_reference,
)
from .shapes import dims_equal, normalize_axis, prod_dims, tensor_arg


@dataclass(frozen=True, slots=True)
class ReduceAttrs(Attrs):
    """Attributes of the value reductions (``sum``, ``mean``, ``max``, ``min``, ``prod``)."""

    type_key: ClassVar[str] = "relay.attrs.ReduceAttrs"
    axis: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, None, optional=True, doc="The axes to reduce; None reduces all axes."
    )
    keepdims: bool = attr_field(
        AttrKind.BOOL, False, doc="Keep each reduced axis in the result with extent one."
    )
    exclude: bool = attr_field(
        AttrKind.BOOL, False, doc="Reduce over the axes not in axis instead."
    )


@dataclass(frozen=True, slots=True)
class ArgReduceAttrs(Attrs):
    """Attributes of the index reductions (``argmax``, ``argmin``)."""

    type_key: ClassVar[str] = "relay.attrs.ArgReduceAttrs"
    axis: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, None, optional=True, doc="The axes to reduce; None reduces all axes."
    )
    keepdims: bool = attr_field(
        AttrKind.BOOL, False, doc="Keep each reduced axis in the result with extent one."
    )
    select_last_index: bool = attr_field(
        AttrKind.BOOL, False, doc="On ties, select the last index rather than the first."
    )
    exclude: bool = attr_field(
        AttrKind.BOOL, False, doc="Reduce over the axes not in axis instead."
    )


AnyReduceAttrs: TypeAlias = ReduceAttrs | ArgReduceAttrs


_INT32_MAX = 2**31 - 1


def _reduce_attrs(attrs: Attrs | None, default: AnyReduceAttrs) -> AnyReduceAttrs:
    """``attrs`` as reduction attributes; ``None`` means all defaults."""
    if attrs is None:
        return default
    if not isinstance(attrs, ReduceAttrs | ArgReduceAttrs):
        raise RelationError(f"expected {type(default).__name__}, found {type(attrs).__name__}")
    return attrs


def reduce_axes(ndim: int, axis: tuple[int, ...] | None, exclude: bool) -> tuple[int, ...]:
    """The sorted axes a reduction folds (TVM's ``GetReduceAxes``), or a ``RelationError``.

    ``None`` and ``()`` mean every axis (with or without ``exclude``, as in TVM); otherwise each
    listed axis may be negative (counted from the end) and must lie in ``[-rank, rank)``;
    ``exclude`` folds the axes *not* listed. A repeated axis is rejected here; TVM accepted it
    and then wrote past the end of its output-shape vector (``ReduceShapeImpl``), a crash or a
    garbage shape, so rejecting is the only sound reading.
    """
    if not axis:
        return tuple(range(ndim))
    for a in axis:
        if not -ndim <= a < ndim:
            allowed = f"expected {-ndim} <= axis < {ndim}" if ndim else "it has no axes"
            raise RelationError(
                f"axis={list(axis)}: {a} is out of range for a tensor of rank {ndim} ({allowed})"
            )
    normalized = [a + ndim if a < 0 else a for a in axis]
    seen: set[int] = set()
    for a, n in zip(axis, normalized, strict=True):
        if n in seen:
            raise RelationError(
                f"expected distinct axes, found axis {a} repeated in axis={list(axis)}"
            )
        seen.add(n)
    if exclude:
        return tuple(i for i in range(ndim) if i not in seen)
    return tuple(sorted(seen))


def _reduced_shape(
    shape: tuple[Dim, ...], axes: tuple[int, ...], keepdims: bool
) -> tuple[Dim, ...]:
    """TVM's ``ReduceShapeImpl``: the reduced axes dropped, or kept with extent 1 under
    ``keepdims``; with no axis reduced the input shape whatever ``keepdims`` says. When some
    reduced dimension is not a known integer (``?`` or symbolic), the product of the known
    reduced dimensions before it must be below 2^31 - 1 (TVM's reporter assertion; it does not
    check the all-known case)."""
    if not axes:
        return shape
    # TVM asserts this only when some reduced extent is unknown, and multiplies only the known
    # extents that come before the first unknown one.
    known = 1
    for a in axes:
        d = shape[a]
        if not isinstance(d, int):  # ? or symbolic
            if known >= _INT32_MAX:
                raise RelationError(
                    f"expected the known reduced extent before dimension {a} ({d}) to be below "
                    f"int32 max ({_INT32_MAX}), found {known}"
                )
            break
        known *= d
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def _one_tensor(arg_types: tuple[Type, ...]) -> TensorType:
    if len(arg_types) != 1:
        raise RelationError(f"expected 1 argument, found {len(arg_types)}")
    return tensor_arg(arg_types[0], "data")


def reduce_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Reduce``: the input dtype, with the reduced axes dropped or kept as 1."""
    data = _one_tensor(arg_types)
    a = _reduce_attrs(attrs, ReduceAttrs())
    axes = reduce_axes(len(data.shape), a.axis, a.exclude)
    return TensorType(_reduced_shape(data.shape, axes, a.keepdims), data.dtype)


def arg_reduce_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``ArgReduce``: int32 indices, with the reduced axes dropped or kept as 1; rank >= 1.

    TVM used the dtype of the first dimension expression, which is int32 for every shape this
    syntax can write (a TVM ``3i64`` dimension would have given int64)."""
    data = _one_tensor(arg_types)
    a = _reduce_attrs(attrs, ArgReduceAttrs())
    if not data.shape:
        raise RelationError("expected a tensor of rank at least 1, found rank 0")
    axes = reduce_axes(len(data.shape), a.axis, a.exclude)
    return TensorType(_reduced_shape(data.shape, axes, a.keepdims), "int32")


Array: TypeAlias = npt.NDArray[Any]
"""An array of any element type (the references compute on several)."""


Scalar: TypeAlias = bool | int | float


@dataclass(frozen=True, slots=True)
class _Folded:
    """The input with the reduced axes moved last and flattened: ``rows[..., k]``."""

    rows: Array
    out_shape: tuple[int, ...]
    reduces: bool  # whether any axis is reduced (else every op is the identity)


def _fold(x: Array, attrs: AnyReduceAttrs, op: str) -> _Folded:
    """The input with the reduced axes moved last and flattened, and the output shape.

    Undefined, on a tensor of rank 1 or more: ``exclude=True`` with ``axis=None`` (the relation
    reduces every axis, but ``GetExcludeAxes`` fails: "Cannot set exclude when axis=None");
    ``axis=[]`` without ``exclude`` (the relation reduces every axis, but topi's
    ``GetRealAxis`` reduces none, so the kernel's result does not have the type's shape)."""
    axes = reduce_axes(x.ndim, attrs.axis, attrs.exclude)
    if x.ndim > 0 and attrs.axis is None and attrs.exclude:
        raise UndefinedBehavior(f"{op} with exclude=True and axis=None (TVM's compute rejects it)")
    if x.ndim > 0 and attrs.axis == () and not attrs.exclude:
        raise UndefinedBehavior(
            f"{op} with axis=[]: TVM's relation reduces every axis but its compute reduces none"
        )
    kept = tuple(i for i in range(x.ndim) if i not in axes)
    kept_shape = tuple(int(x.shape[i]) for i in kept)
    extent = int(np.prod([x.shape[i] for i in axes], dtype=np.int64))
    rows = x.transpose(kept + axes).reshape((*kept_shape, extent))
    if attrs.keepdims:
        out_shape = tuple(1 if i in axes else int(x.shape[i]) for i in range(x.ndim))
    else:
        out_shape = kept_shape
    return _Folded(rows, out_shape, bool(axes))


def _finish(result: Array, folded: _Folded, dtype: npt.DTypeLike) -> Tensor:
    out: Tensor = np.asarray(result).astype(dtype, copy=False).reshape(folded.out_shape)
    return out


def _lowest(dtype: np.dtype[Any]) -> Scalar:
    """TVM's ``min_value``: the lowest finite value (-65504 for float16, ``-FLT_MAX``,
    ``-DBL_MAX``: not an infinity; 0 / False for unsigned and bool)."""
    if dtype.kind == "f":
        return float(np.finfo(dtype).min)
    if dtype.kind == "b":
        return False
    return int(np.iinfo(dtype).min)


def _highest(dtype: np.dtype[Any]) -> Scalar:
    """TVM's ``max_value``: the highest finite value (True for bool)."""
    if dtype.kind == "f":
        return float(np.finfo(dtype).max)
    if dtype.kind == "b":
        return True
    return int(np.iinfo(dtype).max)


def _traps_on_overflow(dtype: np.dtype[Any]) -> bool:
    """Whether TVM's LLVM code marks ``+`` and ``*`` on ``dtype`` nsw/nuw (32 bits or more)."""
    return dtype.kind in "iu" and dtype.itemsize >= 4


def _check_sum_overflow(rows: Array, op: str) -> None:
    """Undefined for int32, int64, uint32 and uint64 sums: the positives (or the negatives) of
    some row leave the dtype's range, so some evaluation order overflows. TVM's LLVM backend
    emits ``add nsw``/``nuw`` for integers of 32 bits or more and the reduction order is the
    schedule's choice."""
    info = np.iinfo(rows.dtype)
    wide = rows.astype(object)
    highest = np.where(wide > 0, wide, 0).sum(axis=-1)
    lowest = np.where(wide < 0, wide, 0).sum(axis=-1)
    if np.any(highest > info.max) or np.any(lowest < info.min):
        raise UndefinedBehavior(
            f"{op} of {rows.dtype} overflows in some evaluation order (TVM emits nsw/nuw adds)"
        )


def _check_prod_overflow(rows: Array, op: str) -> None:
    """Undefined for int32, int64, uint32 and uint64 products (``mul nsw``/``nuw``): the product
    of some subset of a row leaves the dtype's range.

    The largest magnitude reachable is that of all nonzero elements; when it is exactly
    ``-min`` (2**(bits-1)) it overflows only if that magnitude can be reached positive: the
    elements of magnitude 2 or more multiply to a positive number, or a -1 can flip the sign.
    """
    info = np.iinfo(rows.dtype)
    wide = rows.astype(object)
    magnitude = np.where(wide != 0, np.abs(wide), 1).prod(axis=-1)
    over = magnitude > info.max
    if info.min < 0:
        big_negatives = np.count_nonzero((wide <= -2), axis=-1)
        reaches_positive = (big_negatives % 2 == 0) | np.any(wide == -1, axis=-1)
        over = (magnitude > -info.min) | ((magnitude == -info.min) & reaches_positive)
    if np.any(over):
        raise UndefinedBehavior(
            f"{op} of {rows.dtype} overflows in some evaluation order (TVM emits nsw/nuw muls)"
        )


def _check_no_nan(rows: Array, op: str) -> None:
    """Undefined for ``max``/``min``/``argmax``/``argmin``: a NaN among the reduced elements.
    The ordered compare makes the result depend on the evaluation order (a NaN is dropped when
    a later element is combined into it), and CUDA's ``max`` (``fmaxf``) drops NaN
    altogether."""
    if rows.dtype.kind == "f" and np.isnan(rows).any():
        raise UndefinedBehavior(
            f"{op} over a NaN: TVM's result depends on the evaluation order and the target"
        )


def _sum_rows(rows: Array, op: str) -> Array:
    """``sum`` of each row, in the row dtype (TVM's ``topi::sum``)."""
    dtype = rows.dtype
    if dtype.kind == "b":
        return np.asarray(np.any(rows, axis=-1))
    if _traps_on_overflow(dtype):
        _check_sum_overflow(rows, op)
    if dtype == np.float16:
        return np.asarray(np.sum(rows, axis=-1, dtype=np.float32)).astype(np.float16)
    # Narrow integers wrap, as numpy's fixed-width add does.
    return np.asarray(np.sum(rows, axis=-1, dtype=dtype))


def _quiet(reference: TensorReference) -> TensorReference:
    """``reference`` without numpy's warnings for float overflow and invalid results: an
    inf - inf or a sum overflowing to inf is a value of the semantics, not a fault."""

    def quiet(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor | tuple[Tensor, ...]:
        with np.errstate(over="ignore", invalid="ignore"):
            return reference(args, attrs)

    quiet.__name__, quiet.__doc__ = reference.__name__, reference.__doc__
    return quiet


def _sum_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``sum`` as TVM's ``topi::sum`` computed it: ``+`` from 0 in the input dtype; on bool it
    is ``any`` (topi dispatches bool ``sum`` to ``tvm::any``); int8/int16/uint8/uint16 wrap.

    Undefined: an int32/int64/uint32/uint64 overflow in some order."""
    (x,) = args
    folded = _fold(x, _reduce_attrs(attrs, ReduceAttrs()), "sum")
    if not folded.reduces:
        return np.array(x, copy=True)
    return _finish(_sum_rows(folded.rows, "sum"), folded, x.dtype)


def _prod_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``prod`` as TVM's ``topi::prod`` computed it: ``*`` from 1; on bool that is ``all`` (bool
    is a 1-bit unsigned integer to TVM's code generator, and ``i1`` multiplication is ``and``);
    narrow integers wrap.

    Undefined: an int32/int64/uint32/uint64 overflow in some order."""
    (x,) = args
    folded = _fold(x, _reduce_attrs(attrs, ReduceAttrs()), "prod")
    if not folded.reduces:
        return np.array(x, copy=True)
    rows = folded.rows
    if rows.dtype.kind == "b":
        return _finish(np.all(rows, axis=-1), folded, x.dtype)
    if _traps_on_overflow(rows.dtype):
        _check_prod_overflow(rows, "prod")
    compute = np.float32 if rows.dtype == np.float16 else rows.dtype
    return _finish(np.asarray(np.prod(rows, axis=-1, dtype=compute)), folded, x.dtype)


def _max_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``max``: ``select(acc > x, acc, x)`` (an ordered compare) from TVM's ``min_value`` of the
    dtype, so an all -inf slice has max ``-FLT_MAX`` and a slice over a size-0 axis gives that
    finite value; on bool it is ``any``; on integers the dtype's bounds are the identity.

    Undefined: a NaN among the reduced elements."""
    (x,) = args
    folded = _fold(x, _reduce_attrs(attrs, ReduceAttrs()), "max")
    if not folded.reduces:
        return np.array(x, copy=True)
    rows = folded.rows
    _check_no_nan(rows, "max")
    result = np.max(rows, axis=-1, initial=_lowest(rows.dtype))
    return _finish(np.asarray(result), folded, x.dtype)


def _min_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``min``: ``select(acc < x, acc, x)`` from TVM's ``max_value`` of the dtype (the highest
    finite value); on bool it is ``all``.

    Undefined: a NaN among the reduced elements."""
    (x,) = args
    folded = _fold(x, _reduce_attrs(attrs, ReduceAttrs()), "min")
    if not folded.reduces:
        return np.array(x, copy=True)
    rows = folded.rows
    _check_no_nan(rows, "min")
    result = np.min(rows, axis=-1, initial=_highest(rows.dtype))
    return _finish(np.asarray(result), folded, x.dtype)


def _mean_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``mean`` as TVM's ``MeanCompute``: ``sum`` divided by the element count
    ``cast(dtype, count)``. Floats divide in their dtype (float16 is summed and divided in
    float32, then cast back). Integers use ``topi::divide``, TIR ``Div``: truncation toward zero
    (LLVM ``sdiv``/``udiv``) of the (possibly wrapped) integer sum. bool: the ``any`` of a
    single element, divided by 1.

    Undefined: a sum overflow as for ``sum``; zero elements (the count 0 reaches
    ``TryConstFold<Div>``'s "Divide by zero" check: a compile-time failure; with dynamic shapes,
    a run-time division by zero); an integer or bool tensor whose element count does not fit the
    dtype (int8 counts of 128 or more, bool counts of 2 or more, ...: ``cast(dtype, count)``
    builds an ``IntImm`` whose range check fails)."""
    (x,) = args
    folded = _fold(x, _reduce_attrs(attrs, ReduceAttrs()), "mean")
    if not folded.reduces:
        return np.array(x, copy=True)
    rows = folded.rows
    dtype = rows.dtype
    count = int(rows.shape[-1])
    if count == 0:
        raise UndefinedBehavior("mean over zero elements divides by a count of 0")
    if dtype.kind == "f":
        compute = np.dtype(np.float32) if dtype == np.float16 else dtype
        total = np.asarray(np.sum(rows, axis=-1, dtype=compute))
        return _finish(total / np.asarray(count, dtype=compute), folded, dtype)
    high = 1 if dtype.kind == "b" else int(np.iinfo(dtype).max)
    if count > high:
        raise UndefinedBehavior(
            f"mean over {count} elements of {dtype}: the count does not fit the dtype"
        )
    total = _sum_rows(rows, "mean")
    if dtype.kind == "b":
        return _finish(total, folded, dtype)  # divided by a count of 1
    divisor = np.asarray(count, dtype=dtype)
    quotient = total // divisor
    # Floor division rounds a negative inexact quotient down; TIR Div truncates toward zero.
    inexact_negative = (total % divisor != 0) & (total < 0)
    return _finish(quotient + inexact_negative.astype(dtype), folded, dtype)


def _arg_reference(op: str, better: str) -> TensorReference:
    """The reference of ``argmax`` (``better="max"``) or ``argmin`` (``"min"``).

    An (index, value) reducer starting from ``(-1, min_value)`` / ``(-1, max_value)``; it keeps
    the accumulator when it is strictly better, or equal with the lower index (the higher with
    ``select_last_index``). The index is the row-major position within the reduced axes
    (``RavelIndex``). Ties go to the first index, or the last with ``select_last_index``; and
    the identity's index -1 takes part: a slice whose best value equals the identity value (an
    all-``min_value`` slice, e.g. all zeros for unsigned and bool ``argmax``, all ``-FLT_MAX``
    for float32) gives -1 unless ``select_last_index``; a slice of only -inf (argmax) or +inf
    (argmin), or an empty slice, gives -1 always.

    Undefined: a NaN among the reduced elements; no axis reduced (``exclude`` listing every
    axis) on a tensor that is not int32 (``ArgReduceCompute`` returns the input itself, not
    indices, so the kernel's dtype contradicts the relation's int32; on int32 input the input
    is returned, as TVM did).
    """

    def reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
        (x,) = args
        a = _reduce_attrs(attrs, ArgReduceAttrs())
        assert isinstance(a, ArgReduceAttrs)
        folded = _fold(x, a, op)
        if not folded.reduces:
            if x.dtype != np.int32:
                raise UndefinedBehavior(
                    f"{op} reducing no axis returns its {x.dtype} input in TVM, not int32 indices"
                )
            return np.array(x, copy=True)
        rows = folded.rows
        _check_no_nan(rows, op)
        extent = int(rows.shape[-1])
        if extent == 0:
            return _finish(np.full(rows.shape[:-1], -1), folded, np.int32)
        pick = np.argmax if better == "max" else np.argmin
        if a.select_last_index:
            index = extent - 1 - pick(rows[..., ::-1], axis=-1)
        else:
            index = pick(rows, axis=-1)
        best = np.take_along_axis(rows, index[..., None], axis=-1)[..., 0]
        # The identity (-1, min_value) / (-1, max_value) wins over a best value beyond it, and
        # over an equal one when ties go to the lower index.
        if better == "max":
            identity = _lowest(rows.dtype)
            beats = best >= identity if a.select_last_index else best > identity
        else:
            identity = _highest(rows.dtype)
            beats = best <= identity if a.select_last_index else best < identity
        return _finish(np.where(beats, index, -1), folded, np.int32)

    reference.__name__ = f"_{op}_reference"
    reference.__doc__ = f"``{op}`` as TVM's ``Make{op.capitalize()}Reducer`` computed it."
    return reference


_REDUCTIONS: tuple[tuple[str, type[Attrs], Relation, str, TensorReference, str, str], ...] = (
    ("sum", ReduceAttrs, reduce_relation, "Reduce", _quiet(_sum_reference),
     "Sum of the elements over the reduced axes.", "onnxruntime:ReduceSum"),
    ("mean", ReduceAttrs, reduce_relation, "Reduce", _quiet(_mean_reference),
     "Arithmetic mean of the elements over the reduced axes.", "onnxruntime:ReduceMean"),
    ("max", ReduceAttrs, reduce_relation, "Reduce", _max_reference,
     "Maximum of the elements over the reduced axes.", "onnxruntime:ReduceMax"),
    ("min", ReduceAttrs, reduce_relation, "Reduce", _min_reference,
     "Minimum of the elements over the reduced axes.", "onnxruntime:ReduceMin"),
    ("prod", ReduceAttrs, reduce_relation, "Reduce", _quiet(_prod_reference),
     "Product of the elements over the reduced axes.", "onnxruntime:ReduceProd"),
    ("argmax", ArgReduceAttrs, arg_reduce_relation, "ArgReduce", _arg_reference("argmax", "max"),
     "Index of the maximum over the reduced axes (int32).", "onnxruntime:ArgMax"),
    ("argmin", ArgReduceAttrs, arg_reduce_relation, "ArgReduce", _arg_reference("argmin", "min"),
     "Index of the minimum over the reduced axes (int32).", "onnxruntime:ArgMin"),
)  # fmt: skip
"""Every reduction (one input ``data``, pattern comm_reduce, argmax and argmin too as in TVM):
name, attributes, relation, relation name, reference, doc, check."""


_op = OpRegistrar(__name__, relation_name="Reduce", inputs=("data",), pattern=OpPattern.COMM_REDUCE)


for _name, _attrs_type, _relation, _relation_name, _reference, _doc, _check in _REDUCTIONS:
    _op(
        _name,
        _doc,
        relation=_relation,
        reference=tensor_reference(_reference),
        check=_check,
        relation_name=_relation_name,
        attrs_type=_attrs_type,
    )


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


def _as_reduce(attrs: VarianceAttrs) -> ReduceAttrs:
    return ReduceAttrs(axis=attrs.axis, keepdims=attrs.keepdims, exclude=attrs.exclude)


def variance_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Variance``: float ``data`` of rank >= 1; ``mean`` of its dtype and rank, each dimension
    ``data``'s or 1 (it broadcasts to ``data``); the reduced shape, ``data``'s dtype.

    ``variance`` is TVM's ``_variance``, the second half of ``relay.variance``/``std``: the
    caller passes ``mean`` (in practice ``mean(data, axis, keepdims=True)``). Departure from
    TVM: float data and a ``mean`` that broadcasts to it are required (integer data divided by
    TVM's int64 count gave an int64 result; a mismatched ``mean`` changed the compute's shape or
    dtype)."""
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
    """``Reduce`` on bool data only (``all``, ``any``): ``tir::all``/``any`` combine with
    ``&&``/``||``, so TVM could not compile other dtypes."""
    (data,) = _tensors(arg_types, ("data",))
    if data.dtype != "bool":
        raise RelationError(f"expected bool for data, found {data.dtype}")
    return reduce_relation(arg_types, attrs)


def scanop_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``ScanopRel`` (``Cumsum``, ``Cumprod``): rank >= 1; ``axis``, when given, in
    ``[-rank, rank)``; the data's shape, or ``(product of the dims,)`` when ``axis`` is ``None``;
    dtype the ``dtype`` attribute's, or the data's when it is ``""``.

    Departure from TVM: rank 0 and an out-of-range axis are rejected (TVM's relation read
    ``shape[0]`` of a rank-0 tensor; its compute indexed past the rank)."""
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


def _variance(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``VarianceCompute``: ``sum((data - mean)^2)`` over the reduced axes, each step in the
    dtype (float16 sums accumulate in float32, as ``sum``), divided by ``count - unbiased``
    where ``count`` is the number of reduced elements.

    Undefined: the attribute forms of ``_fold``, and ``exclude`` listing every axis (TVM's
    compute asserts some axis is reduced); a divisor ``count - unbiased`` of 0 (one element with
    ``unbiased``, or none without: TVM's constant folder stops at "Divide by zero")."""
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


def _logical_reduce(op: str) -> TensorReference:
    """``all`` (``op="all"``) or ``any``: bool conjunction / disjunction over the reduced axes,
    ``True`` / ``False`` over zero elements; with no axis reduced, the input.

    Undefined: the attribute forms of ``_fold``."""

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


def _scan(op: str) -> TensorReference:
    """``cumsum`` (``op="cumsum"``) or ``cumprod`` as ``topi.scan``'s sequential loop.

    Each element is converted to the result dtype as ``cast`` converts, then accumulated along
    the axis (of the row-major flattened data without one) in that dtype: ``out[0] = x[0]``,
    ``out[i] = out[i-1] + x[i]`` (``*`` for ``cumprod``). With ``exclusive`` the first element
    is the identity (0 or 1) and ``out[i]`` combines ``x[0..i-1]``; ``exclusive=None`` (TVM's
    null ``Bool``) means ``False``. Floats round after each step (float16 through float32);
    8/16-bit integers wrap; bool accumulates as LLVM's ``i1``, so ``cumsum`` is a running
    exclusive-or and ``cumprod`` a running and.

    Undefined: int32, int64, uint32 or uint64 running values that leave the dtype's range
    (``nsw``/``nuw``); a conversion to ``dtype`` that is undefined (``cast``'s float to integer
    cases)."""
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


_op(
    "variance",
    "Mean squared difference from the given mean over the reduced axes.",
    relation=variance_relation,
    reference=tensor_reference(_variance),
    check="independent:numpy.var with ddof over the moved axes",
    relation_name="Variance",
    inputs=("data", "mean"),
    attrs_type=VarianceAttrs,
)


_op(
    "all",
    "Whether every element over the reduced axes is true.",
    relation=_bool_reduce_relation,
    reference=tensor_reference(_logical_reduce("all")),
    check="onnxruntime:ReduceMin",
    attrs_type=ReduceAttrs,
)


_op(
    "any",
    "Whether some element over the reduced axes is true.",
    relation=_bool_reduce_relation,
    reference=tensor_reference(_logical_reduce("any")),
    check="onnxruntime:ReduceMax",
    attrs_type=ReduceAttrs,
)


_op(
    "cumsum",
    "Running sums along an axis (or the flattened data).",
    relation=scanop_relation,
    reference=tensor_reference(_scan("cumsum")),
    check="onnxruntime:CumSum",
    relation_name="Cumsum",
    attrs_type=ScanopAttrs,
    pattern=OpPattern.OPAQUE,
)


_op(
    "cumprod",
    "Running products along an axis (or the flattened data).",
    relation=scanop_relation,
    reference=tensor_reference(_scan("cumprod")),
    check="independent:itertools.accumulate per row",
    relation_name="Cumprod",
    attrs_type=ScanopAttrs,
    pattern=OpPattern.OPAQUE,
)
