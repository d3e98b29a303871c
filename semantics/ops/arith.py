"""More elementwise operators: trigonometry, bit manipulation, predicates and fast approximations.

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
    reinterpret(data, dtype=)          CastAttrs    any, same bits  Reinterpret       elemwise

"integer" is the signed and unsigned integer dtypes, without bool; "signed" the signed ones.
Names, argument names, relation names and fusion patterns follow TVM 0.18
(``src/relay/op/tensor/unary.cc``, ``binary.cc``, ``transform.cc``). ``reinterpret`` takes
TVM's ``CastAttrs`` (``relay.attrs.CastAttrs``, one field ``dtype``): TVM had no separate
attributes class for it.

Typing. ``Identity``: the result has the argument's type. ``IdentityCompRel``: the argument's
shape, dtype bool. ``Broadcast``: ``lhs`` and ``rhs`` have one dtype; the result has that dtype
and their broadcast shape (as for ``add``, see ``ops.elementwise``). ``Reinterpret``: the
data's shape with the ``dtype`` attribute, which must be given and have the data's bit width
(bool is one bit: it reinterprets only as bool).

Meaning: what TVM's TOPI compute lowered through its LLVM code generator computed, with the
conventions of ``ops.elementwise`` (float16 computed through float32 and rounded after each
operation, narrow integer arithmetic wrapping).

- The float functions are the mathematical functions, rounded to the dtype: ``log2``,
  ``log10``, the trigonometric and hyperbolic functions and their inverses, ``erf``. TVM's
  lowering computed some of them by formulas (``tan`` as ``sin / cos``, ``sinh`` and ``cosh``
  through ``exp``, ``erf`` on some targets by ``fast_erf``'s approximation) that differ from the
  correctly rounded value by a few ulps; the comparison policy (``oracles/compare.py``)
  absorbs that, not this reference. Outside a function's domain the result is NaN
  (``asin(2)``, ``acosh(0.5)``, ``log2(-1)``); at a pole it is an infinity (``atanh(1)``,
  ``log10(0)``).
- ``fast_exp``, ``fast_tanh``, ``fast_erf`` are defined as ``exp``, ``tanh`` and ``erf``.
  TVM computed them by approximation formulas (``topi/elemwise.h``): ``fast_exp`` of float32
  by range reduction to ``2^n * p(f)`` with a degree-7 polynomial, ``fast_tanh`` of float32 by
  Eigen's rational function of ``x`` clamped to [-9, 9], ``fast_erf`` of float16 and float32
  by Eigen's rational function; other dtypes fall back to the exact function. The documented
  tolerance, measured by the tests on TVM's formulas over float32 (error relative to
  ``max(|f(x)|, 1)``, as the comparison policy measures): ``fast_tanh`` within 3 ulps;
  ``fast_exp`` within 6 ulps for ``|x| <= 10`` but up to 36 ulps (4.3e-6 relative) towards
  ``|x| = 88``, because its range reduction ``x - n * ln2`` uses a single-precision ``ln2``.
  That exceeds ``oracles/compare.py``'s float32 budget of 8 ulps for large arguments, so a
  target that computes TVM's ``fast_exp`` formula needs that tolerance there. ``fast_erf``'s
  error is not measured here (the tests compare with onnxruntime's ``Erf``). The cases
  where the approximations are not the function at all are undefined, below.
- ``trunc`` rounds toward zero and, like ``floor``, returns integers unchanged. ``sign`` is
  ``x > 0 ? 1 : (x < 0 ? -1 : 0)`` with LLVM's ordered compares, so ``sign(NaN) = 0`` and
  ``sign(-0.0) = +0.0``. ``isnan``/``isinf`` are false and ``isfinite`` true on integers and
  bool. ``copy`` is the identity.
- Bitwise ops act on the two's-complement bits. ``left_shift`` is LLVM's ``shl`` without
  ``nsw``/``nuw``: bits shifted out are lost (``int8`` ``64 << 1`` is -128) at every width.
  ``right_shift`` is arithmetic (``ashr``, sign-filling) for signed and logical (``lshr``) for
  unsigned dtypes.
- ``logical_xor`` is boolean exclusive or.
- ``trunc_divide`` is ``divide``'s truncating integer division, and ``trunc(a / b)`` for
  floats; ``trunc_mod`` is the truncated remainder (the sign of the dividend; C's ``fmod`` for
  floats), exactly ``mod``. Bool operands are the integers 0 and 1 (LLVM's ``i1``).
- ``reinterpret`` keeps the bits and changes their dtype (NaN payloads kept).

Undefined behaviour (``UndefinedBehavior``):

- ``left_shift`` and ``right_shift`` by an amount that is negative or at least the bit width
  of the dtype: LLVM's ``shl``/``ashr``/``lshr`` give poison (``codegen_llvm.cc`` emits them
  without masking the amount);
- ``trunc_divide`` and ``trunc_mod`` of integers (or bool) by zero, and of the smallest signed
  integer by -1: LLVM ``sdiv``/``udiv``/``srem``/``urem`` as for ``divide`` and ``mod``;
- ``fast_exp`` of a float32 value above 88.3762626647950 (and below +inf): TVM clamps the
  argument there and returns ``max(approximation, x)``, a finite number that is neither
  ``exp(x)`` nor its overflow to +inf;
- ``fast_tanh`` of a float32 NaN, ``fast_erf`` of a float16 or float32 NaN: TVM clamps with
  ``select``-based minimum and maximum, and whether the NaN survives depends on the operand
  order of those selects, which changed between TVM versions (one order gives about ±1).

Deliberate deviations from TVM's relations, each rejecting programs TVM typed but could not
compile: the float functions require a float dtype (no integer lowering); the bitwise ops and
shifts require an integer dtype (``type_check_integer_args``; bool left out as for
``ops.elementwise``'s logical ops); ``sign`` rejects unsigned and bool data (its ``-1``
constant fails ``make_const``: "cannot make uint from negative value"); ``logical_xor``
requires bool; ``reinterpret`` requires equal bit widths (TIR's ``reinterpret`` checks them).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, Literal, TypeAlias

import numpy as np
import numpy.typing as npt

from ..errors import UndefinedBehavior
from ..syntax import TensorType, Type
from .elementwise import CastAttrs, _binary, _bits, _check_divisor, _int_divide, _tensors, _unary
from .registry import Attrs, OpDef, OpPattern, Reference, Relation, RelationError, register
from .shapes import broadcast_shapes

Array: TypeAlias = npt.NDArray[Any]
UnaryKernel: TypeAlias = Callable[[Array], Array]
BinaryKernel: TypeAlias = Callable[[Array, Array], Array]

Accepts: TypeAlias = Literal["any", "float", "bool", "integer", "signed_or_float"]
"""Which dtypes an operand may have."""

_DESCRIBE: dict[str, str] = {
    "float": "a float dtype",
    "bool": "bool",
    "integer": "an integer dtype (int8 to uint64, not bool)",
    "signed_or_float": "a signed integer or float dtype",
}


def _is_float(dtype: str) -> bool:
    return dtype.startswith("float")


def _allows(dtype: str, accepts: Accepts) -> bool:
    match accepts:
        case "any":
            return True
        case "float":
            return _is_float(dtype)
        case "bool":
            return dtype == "bool"
        case "integer":
            return dtype.startswith(("int", "uint"))
        case "signed_or_float":
            return dtype.startswith(("int", "float"))


def _check_accepts(t: TensorType, accepts: Accepts, what: str) -> None:
    if not _allows(t.dtype, accepts):
        raise RelationError(f"expected {_DESCRIBE[accepts]} for {what}, found {t.dtype}")


# ---------------------------------------------------------------------------------------------
# Type relations


def _identity_relation(accepts: Accepts) -> Relation:
    """``Identity``: the result has the type of ``data`` (of a dtype ``accepts`` allows)."""

    def relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
        (data,) = _tensors(arg_types, ("data",))
        _check_accepts(data, accepts, "data")
        return TensorType(data.shape, data.dtype)

    return relation


def _identity_comp_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``IdentityCompRel``: the shape of ``data`` (any dtype), dtype bool."""
    (data,) = _tensors(arg_types, ("data",))
    return TensorType(data.shape, "bool")


def _broadcast_relation(accepts: Accepts) -> Relation:
    """``Broadcast``: ``lhs`` and ``rhs`` of one dtype that ``accepts`` allows; the broadcast
    shape."""

    def relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
        lhs, rhs = _tensors(arg_types, ("lhs", "rhs"))
        if lhs.dtype != rhs.dtype:
            raise RelationError(
                f"data types {lhs.dtype} and {rhs.dtype} do not match: "
                "expected rhs to have the dtype of lhs"
            )
        _check_accepts(lhs, accepts, "lhs and rhs")
        return TensorType(broadcast_shapes(lhs.shape, rhs.shape), lhs.dtype)

    return relation


def _reinterpret_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Reinterpret``: the data's shape, the attribute's dtype, which has the data's width."""
    (data,) = _tensors(arg_types, ("data",))
    if not isinstance(attrs, CastAttrs):
        raise RelationError(f"expected CastAttrs, found {type(attrs).__name__}")
    if not attrs.dtype:
        raise RelationError("expected a target dtype for reinterpret, found none")
    if _bits(attrs.dtype) != _bits(data.dtype):
        raise RelationError(
            f'reinterpret: dtype="{attrs.dtype}" has {_bits(attrs.dtype)} bits but data is '
            f"{data.dtype} of {_bits(data.dtype)} bits (expected the same bit width)"
        )
    return TensorType(data.shape, attrs.dtype)


# ---------------------------------------------------------------------------------------------
# Reference semantics


def _erf(x: Array) -> Array:
    """``erf`` through ``math.erf`` in float64 (numpy has no erf), rounded to the dtype."""
    wide = np.frompyfunc(math.erf, 1, 1)(x.astype(np.float64))
    return np.asarray(wide, dtype=np.float64)


def _trunc(x: Array) -> Array:
    return np.trunc(x) if _is_float(x.dtype.name) else x  # tir::trunc keeps integers


def _sign(x: Array) -> Array:
    """``select(x > 0, 1, select(x < 0, -1, 0))``: NaN and -0.0 give +0."""
    one = np.ones_like(x)
    return np.asarray(np.where(x > 0, one, np.where(x < 0, -one, np.zeros_like(x))))


def _copy(x: Array) -> Array:
    return np.array(x, copy=True)


_FAST_EXP_HIGH = np.float32(88.3762626647950)
"""Where TVM's float32 ``fast_exp`` clamps its argument (``topi::fast_exp_float32``)."""


def _fast_exp(x: Array) -> Array:
    """``exp``; UB for float32 above TVM's clamp (the approximation is not exp there)."""
    if x.dtype == np.float32:
        clamped = np.isfinite(x) & (x > _FAST_EXP_HIGH)
        if np.any(clamped):
            raise UndefinedBehavior(
                f"fast_exp of float32 {x[clamped].flat[0]} above {float(_FAST_EXP_HIGH)}: TVM's "
                "approximation clamps there and returns a value that is not exp(x)"
            )
    return np.asarray(np.exp(x))


def _nan_is_undefined(op: str, dtypes: tuple[str, ...], exact: UnaryKernel) -> UnaryKernel:
    """``exact``, with a NaN input in ``dtypes`` undefined (TVM's clamping selects)."""

    def kernel(x: Array) -> Array:
        if x.dtype.name in dtypes and np.any(np.isnan(x)):
            raise UndefinedBehavior(
                f"{op} of a {x.dtype.name} NaN: TVM's clamp decides whether the NaN survives"
            )
        return exact(x)

    return kernel


def _predicate(kernel: UnaryKernel, on_integers: bool) -> Reference:
    """A bool-valued reference: ``kernel`` on floats, the constant ``on_integers`` otherwise."""

    def reference(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
        (x,) = args
        if _is_float(x.dtype.name):
            return np.asarray(kernel(x), dtype=np.bool_)
        return np.full(x.shape, on_integers, dtype=np.bool_)

    return reference


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


def _reinterpret(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
    (x,) = args
    assert isinstance(attrs, CastAttrs)
    return np.array(x, copy=True, order="C").view(np.dtype(attrs.dtype))


# ---------------------------------------------------------------------------------------------
# The records

_FLOAT_MATH: tuple[tuple[str, UnaryKernel, str, str], ...] = (
    ("sin", np.sin, "Elementwise sine.", "onnxruntime:Sin"),
    ("cos", np.cos, "Elementwise cosine.", "onnxruntime:Cos"),
    ("tan", np.tan, "Elementwise tangent.", "onnxruntime:Tan"),
    ("asin", np.arcsin, "Elementwise inverse sine.", "onnxruntime:Asin"),
    ("acos", np.arccos, "Elementwise inverse cosine.", "onnxruntime:Acos"),
    ("atan", np.arctan, "Elementwise inverse tangent.", "onnxruntime:Atan"),
    ("sinh", np.sinh, "Elementwise hyperbolic sine.", "onnxruntime:Sinh"),
    ("cosh", np.cosh, "Elementwise hyperbolic cosine.", "onnxruntime:Cosh"),
    ("asinh", np.arcsinh, "Elementwise inverse hyperbolic sine.", "onnxruntime:Asinh"),
    ("acosh", np.arccosh, "Elementwise inverse hyperbolic cosine.", "onnxruntime:Acosh"),
    ("atanh", np.arctanh, "Elementwise inverse hyperbolic tangent.", "onnxruntime:Atanh"),
    ("erf", _erf, "Elementwise Gauss error function.", "onnxruntime:Erf"),
    ("log2", np.log2, "Elementwise base-2 logarithm.", "independent:math.log2 per element"),
    ("log10", np.log10, "Elementwise base-10 logarithm.", "independent:math.log10 per element"),
    ("fast_exp", _fast_exp, "Elementwise exp, computed by TVM with an approximation.",
     "onnxruntime:Exp"),
    ("fast_tanh", _nan_is_undefined("fast_tanh", ("float32",), np.tanh),
     "Elementwise tanh, computed by TVM with an approximation.", "onnxruntime:Tanh"),
    ("fast_erf", _nan_is_undefined("fast_erf", ("float16", "float32"), _erf),
     "Elementwise erf, computed by TVM with an approximation.", "onnxruntime:Erf"),
)  # fmt: skip
"""Float-only unary operators: name, kernel, doc, check."""

_OTHER_UNARY: tuple[tuple[str, Accepts, UnaryKernel, str, str], ...] = (
    ("trunc", "any", _trunc, "Elementwise rounding toward zero.",
     "independent:math.trunc per element"),
    ("sign", "signed_or_float", _sign, "Elementwise sign: -1, 0 or 1.", "onnxruntime:Sign"),
    ("bitwise_not", "integer", np.invert, "Elementwise bitwise complement.",
     "onnxruntime:BitwiseNot"),
    ("copy", "any", _copy, "A copy of the tensor.", "onnxruntime:Identity"),
)  # fmt: skip
"""Other unary operators: name, operand dtypes, kernel, doc, check."""

_PREDICATES: tuple[tuple[str, UnaryKernel, bool, str, str], ...] = (
    ("isnan", np.isnan, False, "Elementwise test for NaN; the result is bool.",
     "onnxruntime:IsNaN"),
    ("isinf", np.isinf, False, "Elementwise test for an infinity; the result is bool.",
     "onnxruntime:IsInf"),
    ("isfinite", np.isfinite, True, "Elementwise test for a finite value; the result is bool.",
     "independent:math.isfinite per element"),
)  # fmt: skip
"""Predicates: name, float kernel, value on integers and bool, doc, check."""

_BINARY: tuple[tuple[str, Accepts, BinaryKernel, str, str], ...] = (
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

for _name, _kernel, _doc, _check in _FLOAT_MATH:
    register(
        OpDef(
            _name,
            ("data",),
            None,
            OpPattern.ELEMWISE,
            _doc,
            relation=_identity_relation("float"),
            reference=_unary(_kernel),
            relation_name="Identity",
            family="elementwise",
            check=_check,
        )
    )

for _name, _accepts, _kernel, _doc, _check in _OTHER_UNARY:
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
            check=_check,
        )
    )

for _name, _kernel, _on_integers, _doc, _check in _PREDICATES:
    register(
        OpDef(
            _name,
            ("data",),
            None,
            OpPattern.ELEMWISE,
            _doc,
            relation=_identity_comp_relation,
            reference=_predicate(_kernel, _on_integers),
            relation_name="IdentityCompRel",
            family="elementwise",
            check=_check,
        )
    )

for _name, _accepts, _binary_kernel, _doc, _check in _BINARY:
    register(
        OpDef(
            _name,
            ("lhs", "rhs"),
            None,
            OpPattern.BROADCAST,
            _doc,
            relation=_broadcast_relation(_accepts),
            reference=_binary(_binary_kernel),
            relation_name="Broadcast",
            family="elementwise",
            check=_check,
        )
    )

register(
    OpDef(
        "reinterpret",
        ("data",),
        CastAttrs,
        OpPattern.ELEMWISE,
        "The bits of every element read as dtype (of the same bit width).",
        relation=_reinterpret_relation,
        reference=_reinterpret,
        relation_name="Reinterpret",
        family="elementwise",
        check="independent:struct.pack and struct.unpack per element",
    )
)

NAMES: tuple[str, ...] = (
    *(row[0] for row in _FLOAT_MATH),
    *(row[0] for row in _OTHER_UNARY),
    *(row[0] for row in _PREDICATES),
    *(row[0] for row in _BINARY),
    "reinterpret",
)
"""Every operator this module registers."""
