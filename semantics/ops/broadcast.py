"""Elementwise binary operators with broadcasting: arithmetic, comparisons, bitwise, where.

Elementwise operators: unary math, binary broadcasting arithmetic and comparison, and fills.

::

    binary     add subtract multiply divide floor_divide mod floor_mod maximum minimum
                   any dtype, lhs and rhs alike   (lhs, rhs)  Broadcast       broadcast
               power                                          float  Broadcast
               logical_and logical_or                         bool   Broadcast
               equal not_equal less less_equal greater greater_equal
                   any dtype, result bool                     BroadcastComp   broadcast
    where(condition, x, y)                                    Where           broadcast

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

Deliberate deviations from TVM's relations, both rejecting programs TVM typed but could not
compile: ``exp log sqrt rsqrt tanh sigmoid power`` require a float dtype (TVM's relations
accepted integers, then lowering failed: ``tir::pow`` checks "power only applies to float", the
other intrinsics have no integer lowering), and ``logical_and logical_or logical_not`` require
bool (TIR's ``&&``, ``||``, ``!`` check for boolean operands).

More elementwise operators: trigonometry, bit manipulation, predicates and fast approximations.

::

    unary (data)                                    dtypes          relation          pattern
      sin cos tan asin acos atan sinh cosh
      asinh acosh atanh erf log2 log10              float           Identity          elemwise
      fast_exp fast_tanh fast_erf                   float           Identity          elemwise
      trunc copy                                    any             Identity          elemwise
      sign                                          signed, float   Identity          elemwise
      bitwise_not                                   integer         Identity          elemwise
      isnan isinf isfinite                          any, -> bool    IdentityCompRel   elemwise
    binary (lhs, rhs)
      bitwise_and bitwise_or bitwise_xor
      left_shift right_shift                        integer         Broadcast         broadcast
      logical_xor                                   bool            Broadcast         broadcast
      trunc_divide trunc_mod                        any             Broadcast         broadcast

Typing. ``Identity``: the result has the argument's type. ``IdentityCompRel``: the argument's
shape, dtype bool. ``Broadcast``: ``lhs`` and ``rhs`` have one dtype; the result has that dtype
and their broadcast shape (as for ``add``, see ``ops.elementwise``). ``Reinterpret``: the
data's shape with the ``dtype`` attribute, which must be given and have the data's bit width
(bool is one bit: it reinterprets only as bool).

Meaning: what TVM's TOPI compute lowered through its LLVM code generator computed, with the
conventions of ``ops.elementwise`` (float16 computed through float32 and rounded after each
operation, narrow integer arithmetic wrapping).

- Bitwise ops act on the two's-complement bits. ``left_shift`` is LLVM's ``shl`` without
  ``nsw``/``nuw``: bits shifted out are lost (``int8`` ``64 << 1`` is -128) at every width.
  ``right_shift`` is arithmetic (``ashr``, sign-filling) for signed and logical (``lshr``) for
  unsigned dtypes.
- ``logical_xor`` is boolean exclusive or.
- ``trunc_divide`` is ``divide``'s truncating integer division, and ``trunc(a / b)`` for
  floats; ``trunc_mod`` is the truncated remainder (the sign of the dividend; C's ``fmod`` for
  floats), exactly ``mod``. Bool operands are the integers 0 and 1 (LLVM's ``i1``).

Undefined behaviour (``UndefinedBehavior``):

- ``left_shift`` and ``right_shift`` by an amount that is negative or at least the bit width
  of the dtype: LLVM's ``shl``/``ashr``/``lshr`` give poison (``codegen_llvm.cc`` emits them
  without masking the amount);
- ``trunc_divide`` and ``trunc_mod`` of integers (or bool) by zero, and of the smallest signed
  integer by -1: LLVM ``sdiv``/``udiv``/``srem``/``urem`` as for ``divide`` and ``mod``;

Deliberate deviations from TVM's relations, each rejecting programs TVM typed but could not
compile: the float functions require a float dtype (no integer lowering); the bitwise ops and
shifts require an integer dtype (``type_check_integer_args``; bool left out as for
``ops.elementwise``'s logical ops); ``sign`` rejects unsigned and bool data (its ``-1``
constant fails ``make_const``: "cannot make uint from negative value"); ``logical_xor``
requires bool; ``reinterpret`` requires equal bit widths (TIR's ``reinterpret`` checks them).
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
    OpDef,
    OpPattern,
    Reference,
    Relation,
    RelationError,
    ShapeFunc,
    TensorReference,
    register,
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
    """``Broadcast`` (result of the operands' dtype) or ``BroadcastComp`` (result bool)."""

    def relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
        lhs, rhs = _tensors(arg_types, ("lhs", "rhs"))
        _same_dtype(lhs, rhs, ("lhs", "rhs"))
        _check_accepts(lhs, accepts, "lhs and rhs")
        return TensorType(_broadcast(lhs, rhs), "bool" if comparison else lhs.dtype)

    return relation


def _where_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Where``: ``x`` broadcast with ``y`` (one dtype), then ``condition`` with the result."""
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
    """``add``/``subtract``/``multiply``: IEEE for floats, exact then ``_fit`` for integers."""

    def kernel(a: Array, b: Array) -> Array:
        if _is_float(a.dtype.name):
            return exact(a, b)
        return _fit(exact(_exact(a), _exact(b)), a.dtype.name, op)

    return kernel


def _divide_family(op: str) -> BinaryKernel:
    float_kernel, int_kernel = _float_divide(op), _int_divide(op)
    return lambda a, b: (float_kernel if _is_float(a.dtype.name) else int_kernel)(a, b)


def _not_equal(a: Array, b: Array) -> Array:
    if _is_float(a.dtype.name):
        return np.asarray((a < b) | (a > b))  # fcmp one: false if either side is NaN
    return np.asarray(a != b)


def _where(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
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
    ("power", "float", False, np.power,
     "Elementwise lhs raised to the power rhs, broadcasting.", "onnxruntime:Pow"),
    ("maximum", "any", False, _maximum, "Elementwise maximum with broadcasting.",
     "onnxruntime:Max"),
    ("minimum", "any", False, _minimum, "Elementwise minimum with broadcasting.",
     "onnxruntime:Min"),
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


def _op(
    name: str,
    doc: str,
    *,
    relation: Relation,
    reference: Reference,
    check: str,
    relation_name: str,
    inputs: tuple[str, ...] = ("lhs", "rhs"),
    attrs_type: type[Attrs] | None = None,
    pattern: OpPattern = OpPattern.BROADCAST,
    shape_func: ShapeFunc | None = None,
) -> None:
    """Register one operator of this module, with its independent ``check``; unless told
    otherwise: no attributes, inputs lhs, rhs, pattern broadcast."""
    register(
        OpDef(
            name,
            inputs,
            attrs_type,
            pattern,
            doc,
            relation=relation,
            reference=reference,
            relation_name=relation_name,
            check=check,
            shape_func=shape_func,
        )
    )


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
    """``left_shift`` (``shl``, wrapping) or ``right_shift`` (``ashr``/``lshr``); an amount
    outside ``[0, bits)`` is undefined."""

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
    if _is_float(a.dtype.name):
        return np.asarray(np.trunc(a / b))  # topi::trunc_divide: trunc(a / b)
    _check_divisor("trunc_divide", a, b)
    return _int_divide("divide")(a, b)  # truncating, as LLVM's sdiv/udiv


def _trunc_mod(a: Array, b: Array) -> Array:
    if _is_float(a.dtype.name):
        return np.asarray(np.fmod(a, b))  # frem
    _check_divisor("trunc_mod", a, b)
    return _int_divide("mod")(a, b)  # the sign of the dividend, as LLVM's srem/urem


_MATH_BINARY: tuple[tuple[str, Accepts, BinaryKernel, str, str], ...] = (
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
