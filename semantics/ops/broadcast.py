"""Elementwise binary operators with broadcasting: arithmetic, comparisons, bitwise, where.

::

    binary (lhs, rhs)                                      dtypes         relation       pattern
      add subtract multiply divide floor_divide mod
      floor_mod maximum minimum trunc_divide trunc_mod     any            Broadcast      broadcast
      power                                                float          Broadcast      broadcast
      logical_and logical_or logical_xor                   bool           Broadcast      broadcast
      bitwise_and bitwise_or bitwise_xor
      left_shift right_shift                               integer        Broadcast      broadcast
      equal not_equal less less_equal greater
      greater_equal                                        any, -> bool   BroadcastComp  broadcast
    where(condition, x, y)                                 any            Where          broadcast

TVM's ``RELAY_REGISTER_BINARY_OP`` names the arguments ``lhs, rhs``. "integer" is the signed and
unsigned integer dtypes, without bool. Each operator's meaning is its kernel's docstring (or,
for a numpy function in the tables, the comment by its entry); the operators follow
``elementwise``'s conventions for floats (float16 computed through float32 and rounded after
each operation) and for NaN (``maximum`` and ``minimum`` are ordered selects; every comparison
is false when either side is NaN). Bool operands are the integers 0 and 1 (LLVM's ``i1``), and
bool arithmetic wraps like the other narrow integers: ``add`` of two ``True`` is ``False``.

Departures from TVM's relations, each rejecting programs TVM typed but could not compile:
``power`` requires a float dtype (``tir::pow`` checks "power only applies to float"), the
logical ops require bool (TIR's ``&&``, ``||`` check for boolean operands), the bitwise ops and
shifts an integer dtype (``type_check_integer_args``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeAlias

import numpy as np

from ..errors import UndefinedBehavior
from ..syntax import Dim, TensorType, Type
from .elementwise import (
    Accepts,
    Array,
    _bits,
    _check_accepts,
    _exact,
    _fit,
    _int_bounds,
    _is_float,
    _is_signed,
    _maximum,
    _minimum,
    _tensors,
    _truthy,
)
from .registry import (
    Attrs,
    OpPattern,
    OpRegistrar,
    Relation,
    RelationError,
    TensorReference,
    tensor_reference,
)
from .shapes import broadcast_shapes


def _same_dtype(a: TensorType, b: TensorType, names: tuple[str, str]) -> None:
    if a.dtype != b.dtype:
        raise RelationError(
            f"data types {a.dtype} and {b.dtype} do not match: "
            f"expected {names[1]} to have the dtype of {names[0]}"
        )


def _broadcast(a: TensorType, b: TensorType) -> tuple[Dim, ...]:
    """TVM's ``ConcreteBroadcast`` of two shapes (``src/relay/op/type_relations.cc``)."""
    return broadcast_shapes(a.shape, b.shape)


def _broadcast_relation(accepts: Accepts, *, comparison: bool) -> Relation:
    """``Broadcast`` (result of the operands' dtype) or ``BroadcastComp`` (result bool): ``lhs``
    and ``rhs`` have one dtype among those ``accepts`` names, and the result has their broadcast
    shape. Broadcasting is TVM's ``ConcreteBroadcast`` (``shapes.broadcast_shapes``): shapes are
    aligned from the right (the shorter one padded with 1s) and, dimension by dimension, a 1
    takes the other size, a ``?`` takes the other size, two equal sizes (provably equal, for
    symbolic sizes) stay; anything else, including two different symbols or a symbol against a
    constant other than 1, is an error."""

    def relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
        lhs, rhs = _tensors(arg_types, ("lhs", "rhs"))
        _same_dtype(lhs, rhs, ("lhs", "rhs"))
        _check_accepts(lhs, accepts, "lhs and rhs")
        return TensorType(_broadcast(lhs, rhs), "bool" if comparison else lhs.dtype)

    return relation


def _where_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Where``: ``x`` broadcast with ``y`` (one dtype), then ``condition`` (any dtype) with the
    result; the result has x's dtype."""
    condition, x, y = _tensors(arg_types, ("condition", "x", "y"))
    _same_dtype(x, y, ("x", "y"))
    values = TensorType(_broadcast(x, y), x.dtype)
    return TensorType(_broadcast(condition, values), x.dtype)


def _check_divisor(op: str, a: Array, b: Array) -> None:
    dtype = a.dtype.name
    if np.any(b == 0):
        raise UndefinedBehavior(f"{op}: integer division by zero ({dtype})")
    if _is_signed(dtype):
        lo = _int_bounds(dtype)[0]
        if np.any((a == lo) & (b == -1)):
            raise UndefinedBehavior(f"{op}: {lo} / -1 overflows {dtype}")


def _int_divide(op: str) -> Callable[[Array, Array], Array]:
    """Integer ``divide`` and ``mod`` truncate (``sdiv``/``srem``: the remainder has the sign of
    the dividend); ``floor_divide`` and ``floor_mod`` floor (the remainder has the sign of the
    divisor).

    Undefined, checked first: division by zero (a ``False`` divisor for bool: LLVM's
    ``sdiv``/``udiv``/``srem``/``urem`` by zero, which ``floordiv``/``floormod`` lower to); the
    smallest signed integer divided by -1, at every signed width (the quotient overflows)."""

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
    """Float ``divide``, ``floor_divide``, ``mod`` or ``floor_mod``, with TOPI's formulas (not
    numpy's): ``floor_divide`` is ``floor(a / b)``, ``floor_mod`` is ``a - floor(a / b) * b``,
    ``mod`` is C's ``fmod`` (``frem``)."""

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


BinaryKernel: TypeAlias = Callable[[Array, Array], Array]


def _binary(kernel: BinaryKernel, *, comparison: bool = False) -> TensorReference:
    """A reference applying ``kernel`` to the broadcast ``lhs`` and ``rhs``."""

    def reference(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
        a, b = np.broadcast_arrays(*args)
        with np.errstate(all="ignore"):
            out = np.asarray(kernel(a, b))
        return out.astype(np.bool_ if comparison else a.dtype, copy=False)

    return reference


def _integer_arithmetic(op: str, exact: Callable[[Array, Array], Array]) -> BinaryKernel:
    """``add``/``subtract``/``multiply``: IEEE for floats; for integers the exact result, which
    wraps for 8/16-bit integers and bool.

    Undefined: int32/int64 overflow and uint32/uint64 wrap-around (``nsw``/``nuw``)."""

    def kernel(a: Array, b: Array) -> Array:
        if _is_float(a.dtype.name):
            return exact(a, b)
        return _fit(exact(_exact(a), _exact(b)), a.dtype.name, op)

    return kernel


def _divide_family(op: str) -> BinaryKernel:
    float_kernel, int_kernel = _float_divide(op), _int_divide(op)
    return lambda a, b: (float_kernel if _is_float(a.dtype.name) else int_kernel)(a, b)


def _not_equal(a: Array, b: Array) -> Array:
    """``not_equal``: ``fcmp one`` for floats, false when either side is NaN, like every other
    comparison."""
    if _is_float(a.dtype.name):
        return np.asarray((a < b) | (a > b))  # fcmp one: false if either side is NaN
    return np.asarray(a != b)


def _where(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
    """``where``: x where the condition is true, else y, all broadcast; a float condition is true
    when it is ordered and non-zero (NaN is false)."""
    condition, x, y = args
    return np.asarray(np.where(_truthy(condition), x, y)).astype(x.dtype, copy=False)


_BINARY: tuple[tuple[str, Accepts, bool, BinaryKernel, str, str], ...] = (
    # name, operand dtypes, comparison (bool result), kernel, doc, check
    ("add", "any", False, _integer_arithmetic("add", lambda a, b: a + b),
     "Elementwise addition with broadcasting.", "onnxruntime:Add"),
    ("subtract", "any", False, _integer_arithmetic("subtract", lambda a, b: a - b),
     "Elementwise subtraction with broadcasting.", "onnxruntime:Sub"),
    ("multiply", "any", False, _integer_arithmetic("multiply", lambda a, b: a * b),
     "Elementwise multiplication with broadcasting.", "onnxruntime:Mul"),
    ("divide", "any", False, _divide_family("divide"),
     "Elementwise division with broadcasting (truncating for integers).", "onnxruntime:Div"),
    ("floor_divide", "any", False, _divide_family("floor_divide"),
     "Elementwise division rounded towards negative infinity, broadcasting.",
     "independent:Python scalar loop (int //, math.floor of the rounded quotient)"),
    ("mod", "any", False, _divide_family("mod"),
     "Elementwise remainder with the sign of the dividend, broadcasting.", "onnxruntime:Mod"),
    ("floor_mod", "any", False, _divide_family("floor_mod"),
     "Elementwise remainder with the sign of the divisor, broadcasting.", "onnxruntime:Mod"),
    # power is the float function; maximum and minimum are elementwise's ordered selects.
    ("power", "float", False, np.power,
     "Elementwise lhs raised to the power rhs, broadcasting.", "onnxruntime:Pow"),
    ("maximum", "any", False, _maximum, "Elementwise maximum with broadcasting.",
     "onnxruntime:Max"),
    ("minimum", "any", False, _minimum, "Elementwise minimum with broadcasting.",
     "onnxruntime:Min"),
    # The comparisons are LLVM's ordered ones on floats: false when either side is NaN.
    ("equal", "any", True, np.equal,
     "Elementwise lhs == rhs with broadcasting; the result is bool.", "onnxruntime:Equal"),
    ("not_equal", "any", True, _not_equal,
     "Elementwise lhs != rhs with broadcasting; the result is bool.",
     "independent:Python scalar loop (ordered !=, false on NaN)"),
    ("less", "any", True, np.less,
     "Elementwise lhs < rhs with broadcasting; the result is bool.", "onnxruntime:Less"),
    ("less_equal", "any", True, np.less_equal,
     "Elementwise lhs <= rhs with broadcasting; the result is bool.", "onnxruntime:LessOrEqual"),
    ("greater", "any", True, np.greater,
     "Elementwise lhs > rhs with broadcasting; the result is bool.", "onnxruntime:Greater"),
    ("greater_equal", "any", True, np.greater_equal,
     "Elementwise lhs >= rhs with broadcasting; the result is bool.", "onnxruntime:GreaterOrEqual"),
    ("logical_and", "bool", False, np.logical_and,
     "Elementwise boolean and with broadcasting.", "onnxruntime:And"),
    ("logical_or", "bool", False, np.logical_or,
     "Elementwise boolean or with broadcasting.", "onnxruntime:Or"),
)  # fmt: skip
"""Binary operators without attributes: inputs ``lhs, rhs``, pattern broadcast; the relation is
``BroadcastComp`` for comparisons and ``Broadcast`` otherwise."""


_op = OpRegistrar(__name__, inputs=("lhs", "rhs"), pattern=OpPattern.BROADCAST)


for _name, _accepts, _comparison, _binary_kernel, _doc, _check in _BINARY:
    _op(
        _name,
        _doc,
        relation=_broadcast_relation(_accepts, comparison=_comparison),
        reference=tensor_reference(_binary(_binary_kernel, comparison=_comparison)),
        check=_check,
        relation_name="BroadcastComp" if _comparison else "Broadcast",
    )


_op(
    "where",
    "Select from x where condition is non-zero, else from y; all three broadcast.",
    relation=_where_relation,
    reference=tensor_reference(_where),
    check="onnxruntime:Where",
    relation_name="Where",
    inputs=("condition", "x", "y"),
)


def _shift(op: str) -> BinaryKernel:
    """``left_shift`` is LLVM's ``shl`` without ``nsw``/``nuw``: bits shifted out are lost
    (``int8`` ``64 << 1`` is -128) at every width. ``right_shift`` is arithmetic (``ashr``,
    sign-filling) for signed and logical (``lshr``) for unsigned dtypes. Both act on the
    two's-complement bits.

    Undefined: an amount that is negative or at least the dtype's bit width (``codegen_llvm.cc``
    emits the shifts without masking it, and LLVM gives poison)."""

    def kernel(a: Array, b: Array) -> Array:
        bits = _bits(a.dtype.name)
        bad = (b < 0) | (b >= bits)
        if np.any(bad):
            raise UndefinedBehavior(
                f"{op} by {b[bad].flat[0]}: the amount must lie in [0, {bits}) for "
                f"{a.dtype.name} (LLVM's shifts give poison)"
            )
        if op == "left_shift":
            return np.asarray(np.left_shift(a, b))  # fixed-width: shifted-out bits are lost
        return np.asarray(np.right_shift(a, b))  # arithmetic for signed, logical for unsigned

    return kernel


def _trunc_divide(a: Array, b: Array) -> Array:
    """``trunc_divide``: ``divide``'s truncating integer division, ``trunc(a / b)`` for floats.

    Undefined: as for integer ``divide``."""
    if _is_float(a.dtype.name):
        return np.asarray(np.trunc(a / b))  # topi::trunc_divide: trunc(a / b)
    _check_divisor("trunc_divide", a, b)
    return _int_divide("divide")(a, b)  # truncating, as LLVM's sdiv/udiv


def _trunc_mod(a: Array, b: Array) -> Array:
    """``trunc_mod``: the truncated remainder (the sign of the dividend; C's ``fmod`` for
    floats), exactly ``mod``.

    Undefined: as for integer ``mod``."""
    if _is_float(a.dtype.name):
        return np.asarray(np.fmod(a, b))  # frem
    _check_divisor("trunc_mod", a, b)
    return _int_divide("mod")(a, b)  # the sign of the dividend, as LLVM's srem/urem


_MATH_BINARY: tuple[tuple[str, Accepts, BinaryKernel, str, str], ...] = (
    # The bitwise ops act on the two's-complement bits; logical_xor is boolean exclusive or.
    ("bitwise_and", "integer", np.bitwise_and, "Elementwise bitwise and with broadcasting.",
     "onnxruntime:BitwiseAnd"),
    ("bitwise_or", "integer", np.bitwise_or, "Elementwise bitwise or with broadcasting.",
     "onnxruntime:BitwiseOr"),
    ("bitwise_xor", "integer", np.bitwise_xor, "Elementwise bitwise xor with broadcasting.",
     "onnxruntime:BitwiseXor"),
    ("left_shift", "integer", _shift("left_shift"),
     "Elementwise lhs shifted left by rhs bits, broadcasting.", "onnxruntime:BitShift"),
    ("right_shift", "integer", _shift("right_shift"),
     "Elementwise lhs shifted right by rhs bits (arithmetic if signed), broadcasting.",
     "onnxruntime:BitShift"),
    ("logical_xor", "bool", np.logical_xor, "Elementwise boolean exclusive or with broadcasting.",
     "onnxruntime:Xor"),
    ("trunc_divide", "any", _trunc_divide,
     "Elementwise division rounded toward zero, broadcasting.", "onnxruntime:Div"),
    ("trunc_mod", "any", _trunc_mod,
     "Elementwise remainder with the sign of the dividend, broadcasting.", "onnxruntime:Mod"),
)  # fmt: skip
"""Binary broadcasting operators: name, operand dtypes, kernel, doc, check."""


for _name, _accepts, _binary_kernel, _doc, _check in _MATH_BINARY:
    _op(
        _name,
        _doc,
        relation=_broadcast_relation(_accepts, comparison=False),
        reference=tensor_reference(_binary(_binary_kernel)),
        check=_check,
        relation_name="Broadcast",
    )
