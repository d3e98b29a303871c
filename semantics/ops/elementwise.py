"""Elementwise operators: unary math, binary broadcasting arithmetic and comparison, and fills.

::

    unary      negative abs floor ceil round nn.relu zeros_like ones_like   (data)
                   any dtype                                  Identity        elemwise
               exp log sqrt rsqrt tanh sigmoid                float  Identity elemwise
               logical_not                                    bool   Identity elemwise
    binary     add subtract multiply divide floor_divide mod floor_mod maximum minimum
                   any dtype, lhs and rhs alike   (lhs, rhs)  Broadcast       broadcast
               power                                          float  Broadcast
               logical_and logical_or                         bool   Broadcast
               equal not_equal less less_equal greater greater_equal
                   any dtype, result bool                     BroadcastComp   broadcast
    clip(data, a_min=, a_max=)                 ClipAttrs      Identity        elemwise
    cast(data, dtype=)                         CastAttrs      Cast            elemwise
    nn.leaky_relu(data, alpha=0.25)            LeakyReluAttrs Identity        elemwise
    where(condition, x, y)                                    Where           broadcast
    full_like(data, fill_value)                               FullLike        elemwise

Argument names, attribute fields, relation names and fusion patterns follow TVM 0.18
(``RELAY_REGISTER_UNARY_OP`` and ``RELAY_REGISTER_BINARY_OP`` name their arguments ``data`` and
``lhs, rhs``).

Typing. ``Identity``: the result has the argument's type. ``Broadcast``: ``lhs`` and ``rhs`` have
one dtype, the result has that dtype and the broadcast shape; ``BroadcastComp`` is the same with
a bool result. Broadcasting is TVM's ``ConcreteBroadcast``: shapes are aligned from the right
(the shorter one padded with 1s) and, dimension by dimension, a 1 takes the other size, a ``?``
takes the other size, two equal sizes (provably equal, for symbolic sizes) stay; anything else,
including two different symbols or a symbol against a constant other than 1, is an error.
``Where`` broadcasts ``x`` with ``y`` (same dtype), then ``condition`` (any dtype) with that.
``Cast`` gives ``dtype`` with the data's shape. ``FullLike`` gives the data's type and needs a
rank-0 ``fill_value`` of any dtype.

Meaning: what TVM's TOPI compute lowered through its LLVM code generator (default target, no
``-fast-math`` flags) computed.

- Integers: ``divide`` and ``mod`` truncate (``sdiv``/``srem``; the remainder has the sign of
  the dividend); ``floor_divide`` and ``floor_mod`` floor (the remainder has the sign of the
  divisor). ``int8``, ``int16``, ``uint8``, ``uint16`` and ``bool`` (LLVM's ``i1``) arithmetic
  wraps: ``add`` of two ``True`` is ``False``. ``abs`` of an unsigned or bool value, and
  ``floor``/``ceil``/``round`` of any integer, is the value itself (``tir::abs``,
  ``tir::floor``... return integers unchanged).
- Floats are computed in their own dtype, one rounding per TIR operation; for ``float16`` numpy
  computes each operation in float32 and rounds, as LLVM's promotion of ``half`` does.
  ``floor_divide`` is ``floor(a / b)`` and ``floor_mod`` is ``a - floor(a / b) * b`` (TOPI's
  formulas, not numpy's); ``mod`` is C's ``fmod`` (``frem``); ``round`` rounds halves away from
  zero (``llvm.round``); ``rsqrt`` is ``1 / sqrt(x)``; ``sigmoid`` is ``1 / (1 + exp(-x))``.
  ``tanh`` is the mathematical function (TVM's LLVM legalisation ``(1 - e^-2x) / (1 + e^-2x)``
  loses relative accuracy near 0: the comparison tolerance, not this reference, absorbs that).
- NaN follows TVM's ``select``-based definitions and LLVM's *ordered* float comparisons:
  ``maximum(a, b)`` is ``a > b ? a : b`` and ``minimum(a, b)`` is ``a < b ? a : b`` (so
  ``maximum(NaN, 1) = 1`` but ``maximum(1, NaN) = NaN``); ``nn.relu`` is ``maximum(x, 0)``
  (``relu(NaN) = 0``); ``clip`` is ``maximum(minimum(x, a_max), a_min)``, where TVM drops the
  ``minimum`` when ``a_max`` is +inf and the ``maximum`` when ``a_min`` is -inf;
  ``nn.leaky_relu`` is ``x > 0 ? x : x * alpha``; ``not_equal`` is ``fcmp one``, false when
  either side is NaN, like every other comparison; a float is true (a ``where`` condition, a
  ``cast`` to bool) when it is ordered and non-zero, so NaN is false.
- ``clip``'s bounds and ``nn.leaky_relu``'s ``alpha`` are converted to the data dtype as TVM's
  ``make_const`` did: truncated toward zero for integers, rounded for floats.
- ``cast`` is LLVM's conversion: integer to integer truncates or sign/zero-extends (by the
  source's signedness); integer to float rounds to nearest; float to integer truncates toward
  zero; anything to bool is ``!= 0`` (ordered for floats). ``full_like`` casts its fill value
  that way.

Undefined behaviour (``UndefinedBehavior``), each where TVM left the case undefined:

- integer ``divide``, ``floor_divide``, ``mod``, ``floor_mod`` by zero (a ``False`` divisor for
  bool): LLVM ``sdiv``/``udiv``/``srem``/``urem`` by zero is UB (``codegen_llvm.cc``
  ``DivNode``/``ModNode``; ``floordiv``/``floormod`` lower to them);
- the smallest signed integer divided by -1, in the same four ops, at every signed width: the
  quotient overflows and LLVM makes ``sdiv``/``srem`` overflow UB;
- ``int32``/``int64`` overflow in ``add``, ``subtract``, ``multiply``, ``negative``, ``abs`` and
  ``nn.leaky_relu``'s ``x * alpha``, and ``uint32``/``uint64`` wrap-around in ``add``,
  ``subtract``, ``multiply`` and ``negative`` (``-x`` is ``0 - x``): TVM's LLVM code generator
  emits ``nsw``/``nuw`` arithmetic for integers of 32 bits and more
  (``DEFINE_CODEGEN_BINARY_OP`` in ``src/target/llvm/codegen_llvm.cc``), whose overflow is
  poison;
- ``cast`` (and ``full_like``'s fill value) from a float to an integer type of NaN, of an
  infinity, or of a value whose truncation does not fit the target: ``fptosi``/``fptoui``
  return poison;
- a ``clip`` bound or ``nn.leaky_relu`` ``alpha`` that the data dtype cannot represent (NaN or
  out of range for an integer dtype, a negative value for an unsigned one, a finite value beyond
  a float dtype's range): TVM's ``make_const`` refused it (``IntImm``/``FloatImm`` range checks)
  or converted it with C++ undefined behaviour, so TVM gave such a program no meaning.

Where TVM's own constant folder disagreed with its generated code (``round`` of a constant used
``std::nearbyint``; folded float comparisons used C++'s unordered ``!=``), this follows the
generated code.

Deliberate deviations from TVM's relations, both rejecting programs TVM typed but could not
compile: ``exp log sqrt rsqrt tanh sigmoid power`` require a float dtype (TVM's relations
accepted integers, then lowering failed: ``tir::pow`` checks "power only applies to float", the
other intrinsics have no integer lowering), and ``logical_and logical_or logical_not`` require
bool (TIR's ``&&``, ``||``, ``!`` check for boolean operands).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeAlias

import numpy as np
import numpy.typing as npt

from ..errors import UndefinedBehavior
from ..syntax import Dim, TensorType, Type
from ..text.printer import format_type
from .registry import (
    AttrKind,
    Attrs,
    OpDef,
    OpPattern,
    Reference,
    Relation,
    RelationError,
    attr_field,
    register,
)
from .shapes import broadcast_shapes, tensor_arg


@dataclass(frozen=True, slots=True)
class ClipAttrs(Attrs):
    """Attributes of ``clip``: the closed interval values are clamped into."""

    type_key: ClassVar[str] = "relay.attrs.ClipAttrs"
    a_min: float = attr_field(AttrKind.FLOAT, doc="The minimum clip value.")
    a_max: float = attr_field(AttrKind.FLOAT, doc="The maximum clip value.")


@dataclass(frozen=True, slots=True)
class CastAttrs(Attrs):
    """Attributes of ``cast``: the target dtype."""

    type_key: ClassVar[str] = "relay.attrs.CastAttrs"
    dtype: str = attr_field(AttrKind.DTYPE, doc="Target data type.")


@dataclass(frozen=True, slots=True)
class LeakyReluAttrs(Attrs):
    """Attributes of ``nn.leaky_relu``: the slope on the negative half axis."""

    type_key: ClassVar[str] = "relay.attrs.LeakyReluAttrs"
    alpha: float = attr_field(
        AttrKind.FLOAT, 0.25, doc="Slope coefficient for the negative half axis."
    )


# ---------------------------------------------------------------------------------------------
# Dtypes

Array: TypeAlias = npt.NDArray[Any]
"""An array of any element type: what the kernels compute with (numpy's stubs give operators
only to arrays whose element type is open)."""

Accepts: TypeAlias = Literal["any", "float", "bool"]
"""Which dtypes an operand may have: any dtype, a float dtype, or bool."""


def _is_float(dtype: str) -> bool:
    return dtype.startswith("float")


def _is_signed(dtype: str) -> bool:
    return dtype.startswith("int")


def _bits(dtype: str) -> int:
    return 1 if dtype == "bool" else np.dtype(dtype).itemsize * 8


def _int_bounds(dtype: str) -> tuple[int, int]:
    """The smallest and largest value of an integer or bool dtype."""
    if dtype == "bool":
        return 0, 1
    info = np.iinfo(np.dtype(dtype))
    return int(info.min), int(info.max)


def _overflow_is_undefined(dtype: str) -> bool:
    """Whether LLVM arithmetic on ``dtype`` carries ``nsw``/``nuw`` (integers of >= 32 bits)."""
    return not _is_float(dtype) and dtype != "bool" and _bits(dtype) >= 32


# ---------------------------------------------------------------------------------------------
# Type relations


def _tensors(arg_types: tuple[Type, ...], names: tuple[str, ...]) -> tuple[TensorType, ...]:
    if len(arg_types) != len(names):
        raise RelationError(f"expected {len(names)} arguments, found {len(arg_types)}")
    return tuple(tensor_arg(t, name) for t, name in zip(arg_types, names, strict=True))


def _check_accepts(t: TensorType, accepts: Accepts, what: str) -> None:
    if accepts == "float" and not _is_float(t.dtype):
        raise RelationError(f"expected a float dtype for {what}, found {t.dtype}")
    if accepts == "bool" and t.dtype != "bool":
        raise RelationError(f"expected bool for {what}, found {t.dtype}")


def _same_dtype(a: TensorType, b: TensorType, names: tuple[str, str]) -> None:
    if a.dtype != b.dtype:
        raise RelationError(
            f"data types {a.dtype} and {b.dtype} do not match: "
            f"expected {names[1]} to have the dtype of {names[0]}"
        )


def _broadcast(a: TensorType, b: TensorType) -> tuple[Dim, ...]:
    """TVM's ``ConcreteBroadcast`` of two shapes (``src/relay/op/type_relations.cc``)."""
    return broadcast_shapes(a.shape, b.shape)


def _identity_relation(accepts: Accepts) -> Relation:
    """``Identity``: the result has the type of ``data`` (of the dtypes ``accepts`` allows)."""

    def relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
        (data,) = _tensors(arg_types, ("data",))
        _check_accepts(data, accepts, "data")
        return TensorType(data.shape, data.dtype)

    return relation


def _broadcast_relation(accepts: Accepts, *, comparison: bool) -> Relation:
    """``Broadcast`` (result of the operands' dtype) or ``BroadcastComp`` (result bool)."""

    def relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
        lhs, rhs = _tensors(arg_types, ("lhs", "rhs"))
        _same_dtype(lhs, rhs, ("lhs", "rhs"))
        _check_accepts(lhs, accepts, "lhs and rhs")
        return TensorType(_broadcast(lhs, rhs), "bool" if comparison else lhs.dtype)

    return relation


def _cast_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Cast``: the shape of ``data``, the dtype of the attribute."""
    (data,) = _tensors(arg_types, ("data",))
    assert isinstance(attrs, CastAttrs)
    if not attrs.dtype:
        raise RelationError('expected a target dtype, found dtype=""')
    return TensorType(data.shape, attrs.dtype)


def _where_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Where``: ``x`` broadcast with ``y`` (one dtype), then ``condition`` with the result."""
    condition, x, y = _tensors(arg_types, ("condition", "x", "y"))
    _same_dtype(x, y, ("x", "y"))
    values = TensorType(_broadcast(x, y), x.dtype)
    return TensorType(_broadcast(condition, values), x.dtype)


def _full_like_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``FullLike``: the type of ``data``; ``fill_value`` must be rank 0 (of any dtype)."""
    data, fill_value = _tensors(arg_types, ("data", "fill_value"))
    if fill_value.shape:
        raise RelationError(
            f"expected a rank-0 fill_value, found {format_type(fill_value)} "
            f"of rank {len(fill_value.shape)}"
        )
    return TensorType(data.shape, data.dtype)


# ---------------------------------------------------------------------------------------------
# Reference semantics: integer arithmetic


def _exact(x: Array) -> Array:
    """``x`` as exact integers: int64 for narrow dtypes, Python ints for 32 and 64 bits."""
    return x.astype(object if _bits(x.dtype.name) >= 32 else np.int64)


def _fit(exact: Array, dtype: str, op: str) -> Array:
    """Exact integer results stored in ``dtype``: wrapped, or UB where LLVM has ``nsw``/``nuw``."""
    exact = np.asarray(exact, dtype=object if _bits(dtype) >= 32 else np.int64)
    if dtype == "bool":
        return np.asarray(exact & 1, dtype=np.bool_)  # i1 arithmetic is modulo 2
    if _overflow_is_undefined(dtype):
        lo, hi = _int_bounds(dtype)
        bad = np.asarray((exact < lo) | (exact > hi), dtype=np.bool_)
        if bad.any():
            raise UndefinedBehavior(
                f"{op} overflows {dtype} (exact result {exact[bad].flat[0]}); TVM's LLVM code "
                f"generator emits {'nsw' if _is_signed(dtype) else 'nuw'} arithmetic for {dtype}"
            )
    return np.asarray(exact).astype(dtype)


def _check_divisor(op: str, a: Array, b: Array) -> None:
    dtype = a.dtype.name
    if np.any(b == 0):
        raise UndefinedBehavior(f"{op}: integer division by zero ({dtype})")
    if _is_signed(dtype):
        lo = _int_bounds(dtype)[0]
        if np.any((a == lo) & (b == -1)):
            raise UndefinedBehavior(f"{op}: {lo} / -1 overflows {dtype}")


def _int_divide(op: str) -> Callable[[Array, Array], Array]:
    """Integer ``divide``, ``floor_divide``, ``mod`` or ``floor_mod``; UB cases checked first."""

    def kernel(a: Array, b: Array) -> Array:
        _check_divisor(op, a, b)
        dtype = a.dtype.name
        if dtype == "bool":
            a, b = a.astype(np.uint8), b.astype(np.uint8)
        truncated_rem = np.fmod(a, b)  # C's %: the sign of the dividend
        match op:
            case "divide":
                out = (a - truncated_rem) // b  # exact: a - rem is a multiple of b
            case "mod":
                out = truncated_rem
            case "floor_divide":
                out = a // b
            case "floor_mod":
                out = a % b  # numpy's %: the sign of the divisor
            case _:
                raise AssertionError(op)
        return np.asarray(out).astype(dtype)

    return kernel


def _float_divide(op: str) -> Callable[[Array, Array], Array]:
    """Float ``divide``, ``floor_divide``, ``mod`` or ``floor_mod``, with TOPI's formulas."""

    def kernel(a: Array, b: Array) -> Array:
        match op:
            case "divide":
                return np.asarray(a / b)
            case "mod":
                return np.asarray(np.fmod(a, b))
            case "floor_divide":
                return np.asarray(np.floor(a / b))
            case "floor_mod":
                return np.asarray(a - np.floor(a / b) * b)
        raise AssertionError(op)

    return kernel


# ---------------------------------------------------------------------------------------------
# Reference semantics: conversions


def _truthy(x: Array) -> Array:
    """``x != 0`` as LLVM compares: ``icmp ne``, or the ordered ``fcmp one`` (NaN is false)."""
    if _is_float(x.dtype.name):
        return np.asarray((x < 0) | (x > 0), dtype=np.bool_)
    return np.asarray(x != 0, dtype=np.bool_)


def _cast(x: Array, dtype: str, op: str) -> Array:
    """``x`` converted to ``dtype`` as TVM's ``CodeGenLLVM::CreateCast`` converts."""
    source = x.dtype.name
    if dtype == "bool":
        return _truthy(x)
    if _is_float(source) and not _is_float(dtype):
        # fptosi/fptoui: poison unless the truncated value fits the target.
        truncated = np.trunc(x).astype(np.float64)
        lo, hi = _int_bounds(dtype)
        fits = (truncated >= float(lo)) & (truncated < float(hi + 1))  # both powers of two
        if not np.all(fits):
            bad = x[~fits].flat[0]
            raise UndefinedBehavior(
                f"{op}: {source} value {bad} does not fit {dtype} (LLVM's fptosi/fptoui give "
                "poison for NaN, infinities and values whose truncation is out of range)"
            )
        return np.asarray(truncated).astype(dtype)
    return np.asarray(x).astype(dtype)


def _attr_constant(value: float, dtype: str, what: str) -> Array:
    """An attribute made a constant of ``dtype``, as TVM's ``make_const``; UB where TVM refused."""
    if _is_float(dtype):
        limit = float(np.finfo(np.dtype(dtype)).max)
        if math.isfinite(value) and abs(value) > limit:
            raise UndefinedBehavior(f"{what} {value!r} is out of range for {dtype}")
        return np.asarray(value, dtype=dtype)
    lo, hi = _int_bounds(dtype)
    if not math.isfinite(value) or (lo == 0 and value < 0) or not lo <= math.trunc(value) <= hi:
        raise UndefinedBehavior(f"{what} {value!r} cannot be represented in {dtype}")
    return np.asarray(math.trunc(value), dtype=dtype)


# ---------------------------------------------------------------------------------------------
# Reference semantics: the kernels

UnaryKernel: TypeAlias = Callable[[Array], Array]
BinaryKernel: TypeAlias = Callable[[Array, Array], Array]


def _unary(kernel: UnaryKernel) -> Reference:
    """A reference applying ``kernel`` to ``data``; the result keeps the dtype of ``data``."""

    def reference(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
        (x,) = args
        with np.errstate(all="ignore"):
            return np.asarray(kernel(x)).astype(x.dtype, copy=False)

    return reference


def _binary(kernel: BinaryKernel, *, comparison: bool = False) -> Reference:
    """A reference applying ``kernel`` to the broadcast ``lhs`` and ``rhs``."""

    def reference(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
        a, b = np.broadcast_arrays(*args)
        with np.errstate(all="ignore"):
            out = np.asarray(kernel(a, b))
        return out.astype(np.bool_ if comparison else a.dtype, copy=False)

    return reference


def _by_kind(float_kernel: UnaryKernel, int_kernel: UnaryKernel = lambda x: x) -> UnaryKernel:
    """One kernel for float dtypes, another for integer and bool dtypes."""
    return lambda x: float_kernel(x) if _is_float(x.dtype.name) else int_kernel(x)


def _integer_arithmetic(op: str, exact: Callable[[Array, Array], Array]) -> BinaryKernel:
    """``add``/``subtract``/``multiply``: IEEE for floats, exact then ``_fit`` for integers."""

    def kernel(a: Array, b: Array) -> Array:
        if _is_float(a.dtype.name):
            return exact(a, b)
        return _fit(exact(_exact(a), _exact(b)), a.dtype.name, op)

    return kernel


def _divide_family(op: str) -> BinaryKernel:
    float_kernel, int_kernel = _float_divide(op), _int_divide(op)
    return lambda a, b: (float_kernel if _is_float(a.dtype.name) else int_kernel)(a, b)


def _round_half_away(x: Array) -> Array:
    """``llvm.round``: to the nearest integer, halves away from zero (``x - trunc(x)`` is exact)."""
    whole = np.trunc(x)
    return np.asarray(np.where(np.abs(x - whole) >= 0.5, whole + np.sign(x), whole))


def _negative(x: Array) -> Array:
    return _fit(-_exact(x), x.dtype.name, "negative")


def _abs(x: Array) -> Array:
    if not _is_signed(x.dtype.name):
        return x  # tir::abs returns unsigned and bool values unchanged
    return _fit(np.abs(_exact(x)), x.dtype.name, "abs")


def _maximum(a: Array, b: Array) -> Array:
    return np.asarray(np.where(a > b, a, b))  # codegen_llvm.cc MaxNode: select(a > b, a, b)


def _minimum(a: Array, b: Array) -> Array:
    return np.asarray(np.where(a < b, a, b))  # codegen_llvm.cc MinNode: select(a < b, a, b)


def _not_equal(a: Array, b: Array) -> Array:
    if _is_float(a.dtype.name):
        return np.asarray((a < b) | (a > b))  # fcmp one: false if either side is NaN
    return np.asarray(a != b)


def _clip(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
    (x,) = args
    assert isinstance(attrs, ClipAttrs)
    dtype = x.dtype.name
    a_min = _attr_constant(attrs.a_min, dtype, "clip a_min")
    a_max = _attr_constant(attrs.a_max, dtype, "clip a_max")
    out = x
    # tvm::min(x, +inf) and tvm::max(x, -inf) simplify to x, which matters for NaN.
    if not (_is_float(dtype) and attrs.a_max == math.inf):
        out = _minimum(out, a_max)
    if not (_is_float(dtype) and attrs.a_min == -math.inf):
        out = _maximum(out, a_min)
    return np.asarray(out).astype(dtype, copy=False)


def _cast_reference(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
    (x,) = args
    assert isinstance(attrs, CastAttrs)
    with np.errstate(all="ignore"):
        return _cast(x, attrs.dtype, "cast")


def _leaky_relu(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
    (x,) = args
    assert isinstance(attrs, LeakyReluAttrs)
    dtype = x.dtype.name
    alpha = _attr_constant(attrs.alpha, dtype, "nn.leaky_relu alpha")
    positive = x > 0
    if _is_float(dtype):
        scaled = np.asarray(x * alpha)
    else:
        # Only the selected products count: select's other arm may overflow harmlessly.
        kept = np.where(positive, np.zeros_like(x), x)
        scaled = _fit(_exact(kept) * _exact(alpha), dtype, "nn.leaky_relu")
    return np.asarray(np.where(positive, x, scaled)).astype(dtype, copy=False)


def _where(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
    condition, x, y = args
    return np.asarray(np.where(_truthy(condition), x, y)).astype(x.dtype, copy=False)


def _full_like(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
    data, fill_value = args
    with np.errstate(all="ignore"):
        value = _cast(fill_value, data.dtype.name, "full_like")
    return np.full(data.shape, value, dtype=data.dtype)


def _zeros_like(x: Array) -> Array:
    return np.zeros_like(x)


def _ones_like(x: Array) -> Array:
    return np.ones_like(x)


# ---------------------------------------------------------------------------------------------
# The records

_UNARY: tuple[tuple[str, Accepts, UnaryKernel, str], ...] = (
    ("negative", "any", _by_kind(np.negative, _negative), "Elementwise negation, -x."),
    ("abs", "any", _by_kind(np.abs, _abs), "Elementwise absolute value."),
    ("exp", "float", np.exp, "Elementwise exponential, e**x."),
    ("log", "float", np.log, "Elementwise natural logarithm."),
    ("sqrt", "float", np.sqrt, "Elementwise square root."),
    ("rsqrt", "float", lambda x: 1 / np.sqrt(x), "Elementwise reciprocal square root, 1/sqrt(x)."),
    ("tanh", "float", np.tanh, "Elementwise hyperbolic tangent."),
    ("sigmoid", "float", lambda x: 1 / (1 + np.exp(-x)), "Elementwise logistic 1/(1+exp(-x))."),
    ("floor", "any", _by_kind(np.floor), "Elementwise floor."),
    ("ceil", "any", _by_kind(np.ceil), "Elementwise ceiling."),
    ("round", "any", _by_kind(_round_half_away), "Elementwise rounding, halves away from zero."),
    ("logical_not", "bool", np.logical_not, "Elementwise boolean negation."),
    ("nn.relu", "any", lambda x: _maximum(x, np.zeros_like(x)), "Rectified linear unit."),
    ("zeros_like", "any", _zeros_like, "Zeros with the shape and dtype of the input."),
    ("ones_like", "any", _ones_like, "Ones with the shape and dtype of the input."),
)
"""Unary operators without attributes: one input ``data``, relation ``Identity``, elemwise."""

_BINARY: tuple[tuple[str, Accepts, bool, BinaryKernel, str], ...] = (
    # name, operand dtypes, comparison (bool result), kernel, doc
    ("add", "any", False, _integer_arithmetic("add", lambda a, b: a + b),
     "Elementwise addition with broadcasting."),
    ("subtract", "any", False, _integer_arithmetic("subtract", lambda a, b: a - b),
     "Elementwise subtraction with broadcasting."),
    ("multiply", "any", False, _integer_arithmetic("multiply", lambda a, b: a * b),
     "Elementwise multiplication with broadcasting."),
    ("divide", "any", False, _divide_family("divide"),
     "Elementwise division with broadcasting (truncating for integers)."),
    ("floor_divide", "any", False, _divide_family("floor_divide"),
     "Elementwise division rounded towards negative infinity, broadcasting."),
    ("mod", "any", False, _divide_family("mod"),
     "Elementwise remainder with the sign of the dividend, broadcasting."),
    ("floor_mod", "any", False, _divide_family("floor_mod"),
     "Elementwise remainder with the sign of the divisor, broadcasting."),
    ("power", "float", False, np.power,
     "Elementwise lhs raised to the power rhs, broadcasting."),
    ("maximum", "any", False, _maximum, "Elementwise maximum with broadcasting."),
    ("minimum", "any", False, _minimum, "Elementwise minimum with broadcasting."),
    ("equal", "any", True, np.equal,
     "Elementwise lhs == rhs with broadcasting; the result is bool."),
    ("not_equal", "any", True, _not_equal,
     "Elementwise lhs != rhs with broadcasting; the result is bool."),
    ("less", "any", True, np.less,
     "Elementwise lhs < rhs with broadcasting; the result is bool."),
    ("less_equal", "any", True, np.less_equal,
     "Elementwise lhs <= rhs with broadcasting; the result is bool."),
    ("greater", "any", True, np.greater,
     "Elementwise lhs > rhs with broadcasting; the result is bool."),
    ("greater_equal", "any", True, np.greater_equal,
     "Elementwise lhs >= rhs with broadcasting; the result is bool."),
    ("logical_and", "bool", False, np.logical_and,
     "Elementwise boolean and with broadcasting."),
    ("logical_or", "bool", False, np.logical_or,
     "Elementwise boolean or with broadcasting."),
)  # fmt: skip
"""Binary operators without attributes: inputs ``lhs, rhs``, pattern broadcast; the relation is
``BroadcastComp`` for comparisons and ``Broadcast`` otherwise."""

_CHECKS: dict[str, str] = {
    "negative": "onnxruntime:Neg",
    "abs": "onnxruntime:Abs",
    "exp": "onnxruntime:Exp",
    "log": "onnxruntime:Log",
    "sqrt": "onnxruntime:Sqrt",
    "rsqrt": "independent:1 / sqrt(x) in decimal arithmetic, correctly rounded",
    "tanh": "onnxruntime:Tanh",
    "sigmoid": "onnxruntime:Sigmoid",
    "floor": "onnxruntime:Floor",
    "ceil": "onnxruntime:Ceil",
    "round": "independent:decimal quantize with ROUND_HALF_UP (halves away from zero)",
    "logical_not": "onnxruntime:Not",
    "nn.relu": "onnxruntime:Relu",
    "zeros_like": "onnxruntime:ConstantOfShape",
    "ones_like": "onnxruntime:ConstantOfShape",
    "add": "onnxruntime:Add",
    "subtract": "onnxruntime:Sub",
    "multiply": "onnxruntime:Mul",
    "divide": "onnxruntime:Div",
    "floor_divide": "independent:Python scalar loop (int //, math.floor of the rounded quotient)",
    "mod": "onnxruntime:Mod",
    "floor_mod": "onnxruntime:Mod",
    "power": "onnxruntime:Pow",
    "maximum": "onnxruntime:Max",
    "minimum": "onnxruntime:Min",
    "equal": "onnxruntime:Equal",
    "not_equal": "independent:Python scalar loop (ordered !=, false on NaN)",
    "less": "onnxruntime:Less",
    "less_equal": "onnxruntime:LessOrEqual",
    "greater": "onnxruntime:Greater",
    "greater_equal": "onnxruntime:GreaterOrEqual",
    "logical_and": "onnxruntime:And",
    "logical_or": "onnxruntime:Or",
    "clip": "onnxruntime:Clip",
    "cast": "onnxruntime:Cast",
    "nn.leaky_relu": "onnxruntime:LeakyRelu",
    "where": "onnxruntime:Where",
    "full_like": "independent:Python scalar conversion (math.trunc, modular wrap-around)",
}
"""How each op's reference is checked independently (``OpDef.check``), by a test in
``tests/test_ops_elementwise.py``."""

for _name, _accepts, _kernel, _doc in _UNARY:
    register(
        OpDef(
            _name,
            ("data",),
            None,
            OpPattern.ELEMWISE,
            _doc,
            relation=_identity_relation(_accepts),
            reference=_unary(_kernel),
            relation_name="Identity",
            family="elementwise",
            check=_CHECKS[_name],
        )
    )

for _name, _accepts, _comparison, _binary_kernel, _doc in _BINARY:
    register(
        OpDef(
            _name,
            ("lhs", "rhs"),
            None,
            OpPattern.BROADCAST,
            _doc,
            relation=_broadcast_relation(_accepts, comparison=_comparison),
            reference=_binary(_binary_kernel, comparison=_comparison),
            relation_name="BroadcastComp" if _comparison else "Broadcast",
            family="elementwise",
            check=_CHECKS[_name],
        )
    )

register(
    OpDef(
        "clip",
        ("data",),
        ClipAttrs,
        OpPattern.ELEMWISE,
        "Clamp every element into [a_min, a_max].",
        relation=_identity_relation("any"),
        reference=_clip,
        relation_name="Identity",
        family="elementwise",
        check=_CHECKS["clip"],
    )
)
register(
    OpDef(
        "cast",
        ("data",),
        CastAttrs,
        OpPattern.ELEMWISE,
        "Convert every element to dtype.",
        relation=_cast_relation,
        reference=_cast_reference,
        relation_name="Cast",
        family="elementwise",
        check=_CHECKS["cast"],
    )
)
register(
    OpDef(
        "nn.leaky_relu",
        ("data",),
        LeakyReluAttrs,
        OpPattern.ELEMWISE,
        "Leaky rectified linear unit, x if x > 0 else alpha * x.",
        relation=_identity_relation("any"),
        reference=_leaky_relu,
        relation_name="Identity",
        family="elementwise",
        check=_CHECKS["nn.leaky_relu"],
    )
)
register(
    OpDef(
        "where",
        ("condition", "x", "y"),
        None,
        OpPattern.BROADCAST,
        "Select from x where condition is non-zero, else from y; all three broadcast.",
        relation=_where_relation,
        reference=_where,
        relation_name="Where",
        family="elementwise",
        check=_CHECKS["where"],
    )
)
register(
    OpDef(
        "full_like",
        ("data", "fill_value"),
        None,
        OpPattern.ELEMWISE,
        "The scalar fill_value, cast to the dtype of data, with the shape of data.",
        relation=_full_like_relation,
        reference=_full_like,
        relation_name="FullLike",
        family="elementwise",
        check=_CHECKS["full_like"],
    )
)

NAMES: tuple[str, ...] = (
    *(row[0] for row in _UNARY),
    *(row[0] for row in _BINARY),
    "clip",
    "cast",
    "nn.leaky_relu",
    "where",
    "full_like",
)
"""Every operator this module registers."""
