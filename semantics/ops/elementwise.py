"""Elementwise unary operators: arithmetic, rounding, float math, predicates, casts.

::

    unary (data)                                    dtypes          relation          pattern
      negative abs floor ceil round trunc copy      any             Identity          elemwise
      exp log sqrt rsqrt tanh sigmoid sin cos tan
      asin acos atan sinh cosh asinh acosh atanh
      erf log2 log10 fast_exp fast_tanh fast_erf    float           Identity          elemwise
      sign                                          signed, float   Identity          elemwise
      bitwise_not                                   integer         Identity          elemwise
      logical_not                                   bool            Identity          elemwise
      isnan isinf isfinite                          any, -> bool    IdentityCompRel   elemwise
    clip(data, a_min=, a_max=)         ClipAttrs    any             Identity          elemwise
    cast(data, dtype=)                 CastAttrs    any             Cast              elemwise
    reinterpret(data, dtype=)          CastAttrs    any, same bits  Reinterpret       elemwise

TVM's ``RELAY_REGISTER_UNARY_OP`` names the argument ``data``. "integer" is the signed and
unsigned integer dtypes, without bool; "signed" the signed ones. ``reinterpret`` takes TVM's
``CastAttrs`` (``relay.attrs.CastAttrs``, one field ``dtype``): TVM had no separate attributes
class for it. This module also holds the helpers the other elementwise-like modules share
(exact integer arithmetic, TVM's cast, ``make_const``, ordered ``maximum``/``minimum``).

Conventions of every elementwise operator (``broadcast``'s and ``nn/activation``'s too):

- Floats are computed in their own dtype, one rounding per TIR operation; for ``float16`` numpy
  computes each operation in float32 and rounds, as LLVM's promotion of ``half`` does.
- Integers of 8 and 16 bits and bool (LLVM's ``i1``) wrap; the 32/64-bit cases are the
  package's (overflow undefined). Integer-valued rounding (``floor``, ``ceil``, ``round``,
  ``trunc``) and ``abs`` of an unsigned or bool value return the value itself (``tir::floor``,
  ``tir::abs``... return integers unchanged).
- NaN follows TVM's ``select``-based definitions and LLVM's ordered float comparisons (see
  ``_maximum``); a float is true (a ``where`` condition, a ``cast`` to bool) when it is ordered
  and non-zero, so NaN is false.
- Where TVM's own constant folder disagreed with its generated code (``round`` of a constant
  used ``std::nearbyint``; folded float comparisons used C++'s unordered ``!=``), this follows
  the generated code.
- Departures from TVM's relations, each rejecting programs TVM typed but could not compile: the
  float functions require a float dtype (TVM's relations accepted integers, then lowering
  failed: the intrinsics have no integer lowering), ``logical_not`` requires bool (TIR's ``!``
  checks for a boolean operand), ``bitwise_not`` an integer dtype
  (``type_check_integer_args``), ``sign`` a signed or float dtype (its ``-1`` constant fails
  ``make_const`` for unsigned: "cannot make uint from negative value").
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeAlias, assert_never

import numpy as np
import numpy.typing as npt

from ..errors import UndefinedBehavior
from ..syntax import TensorType, Type
from .registry import (
    AttrKind,
    Attrs,
    OpPattern,
    OpRegistrar,
    Relation,
    RelationError,
    TensorReference,
    attr_field,
    tensor_reference,
)
from .shapes import tensor_arg


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


Array: TypeAlias = npt.NDArray[Any]
"""An array of any element type: what the kernels compute with (numpy's stubs give operators
only to arrays whose element type is open)."""


Accepts: TypeAlias = Literal["any", "float", "bool", "integer", "signed_or_float"]
"""Which dtypes an operand may have: any dtype, a float dtype, bool, an integer dtype (not
bool), or a signed integer or float dtype."""


_DESCRIBE: dict[str, str] = {
    "float": "a float dtype",
    "bool": "bool",
    "integer": "an integer dtype (int8 to uint64, not bool)",
    "signed_or_float": "a signed integer or float dtype",
}


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


def _tensors(arg_types: tuple[Type, ...], names: tuple[str, ...]) -> tuple[TensorType, ...]:
    if len(arg_types) != len(names):
        raise RelationError(f"expected {len(names)} arguments, found {len(arg_types)}")
    return tuple(tensor_arg(t, name) for t, name in zip(arg_types, names, strict=True))


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
        case _:
            assert_never(accepts)


def _check_accepts(t: TensorType, accepts: Accepts, what: str) -> None:
    if not _allows(t.dtype, accepts):
        raise RelationError(f"expected {_DESCRIBE[accepts]} for {what}, found {t.dtype}")


def _identity_relation(accepts: Accepts) -> Relation:
    """``Identity``: the result has the type of ``data`` (of the dtypes ``accepts`` allows)."""

    def relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
        (data,) = _tensors(arg_types, ("data",))
        _check_accepts(data, accepts, "data")
        return TensorType(data.shape, data.dtype)

    return relation


def _cast_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Cast``: the shape of ``data``, the dtype of the attribute (which must be given)."""
    (data,) = _tensors(arg_types, ("data",))
    assert isinstance(attrs, CastAttrs)
    if not attrs.dtype:
        raise RelationError('expected a target dtype, found dtype=""')
    return TensorType(data.shape, attrs.dtype)


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
    """An attribute made a constant of ``dtype``, as TVM's ``make_const``: truncated toward zero
    for integers, rounded for floats.

    Undefined: a value the dtype cannot represent (NaN or out of range for an integer dtype, a
    negative value for an unsigned one, a finite value beyond a float dtype's range): TVM's
    ``make_const`` refused it (``IntImm``/``FloatImm`` range checks) or converted it with C++
    undefined behaviour, so TVM gave such a program no meaning."""
    if _is_float(dtype):
        limit = float(np.finfo(np.dtype(dtype)).max)
        if math.isfinite(value) and abs(value) > limit:
            raise UndefinedBehavior(f"{what} {value!r} is out of range for {dtype}")
        return np.asarray(value, dtype=dtype)
    lo, hi = _int_bounds(dtype)
    if not math.isfinite(value) or (lo == 0 and value < 0) or not lo <= math.trunc(value) <= hi:
        raise UndefinedBehavior(f"{what} {value!r} cannot be represented in {dtype}")
    return np.asarray(math.trunc(value), dtype=dtype)


UnaryKernel: TypeAlias = Callable[[Array], Array]


def _unary(kernel: UnaryKernel) -> TensorReference:
    """A reference applying ``kernel`` to ``data``; the result keeps the dtype of ``data``."""

    def reference(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
        (x,) = args
        with np.errstate(all="ignore"):
            return np.asarray(kernel(x)).astype(x.dtype, copy=False)

    return reference


def _by_kind(float_kernel: UnaryKernel, int_kernel: UnaryKernel = lambda x: x) -> UnaryKernel:
    """One kernel for float dtypes, another for integer and bool dtypes."""
    return lambda x: float_kernel(x) if _is_float(x.dtype.name) else int_kernel(x)


def _round_half_away(x: Array) -> Array:
    """``round`` (``llvm.round``): to the nearest integer, halves away from zero (``x - trunc(x)``
    is exact)."""
    whole = np.trunc(x)
    return np.asarray(np.where(np.abs(x - whole) >= 0.5, whole + np.sign(x), whole))


def _negative(x: Array) -> Array:
    """Integer ``negative``: ``0 - x``, wrapping for narrow integers.

    Undefined: int32/int64 overflow (``-INT_MIN``) and uint32/uint64 wrap-around (``-x`` of a
    non-zero value): ``nsw``/``nuw``."""
    return _fit(-_exact(x), x.dtype.name, "negative")


def _abs(x: Array) -> Array:
    """Integer ``abs``; unsigned and bool values unchanged.

    Undefined: int32/int64 overflow (``abs(INT_MIN)``, ``nsw``)."""
    if not _is_signed(x.dtype.name):
        return x  # tir::abs returns unsigned and bool values unchanged
    return _fit(np.abs(_exact(x)), x.dtype.name, "abs")


def _maximum(a: Array, b: Array) -> Array:
    """``maximum(a, b)`` is ``a > b ? a : b`` (``codegen_llvm.cc``'s MaxNode, an ordered
    compare), so ``maximum(NaN, 1) = 1`` but ``maximum(1, NaN) = NaN``."""
    return np.asarray(np.where(a > b, a, b))  # codegen_llvm.cc MaxNode: select(a > b, a, b)


def _minimum(a: Array, b: Array) -> Array:
    """``minimum(a, b)`` is ``a < b ? a : b`` (MinNode), NaN as for ``maximum``."""
    return np.asarray(np.where(a < b, a, b))  # codegen_llvm.cc MinNode: select(a < b, a, b)


def _clip(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
    """``clip``: ``maximum(minimum(x, a_max), a_min)``, where TVM drops the ``minimum`` when
    ``a_max`` is +inf and the ``maximum`` when ``a_min`` is -inf (which matters for NaN); the
    bounds are made constants of the data dtype as ``make_const`` does.

    Undefined: a bound the data dtype cannot represent (``_attr_constant``)."""
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
    """``cast``: LLVM's conversion (``_cast``): integer to integer truncates or sign/zero-extends
    (by the source's signedness); integer to float rounds to nearest; float to integer truncates
    toward zero; anything to bool is ``!= 0`` (ordered for floats).

    Undefined: from a float to an integer type, NaN, an infinity, or a value whose truncation
    does not fit the target (``fptosi``/``fptoui`` return poison)."""
    (x,) = args
    assert isinstance(attrs, CastAttrs)
    with np.errstate(all="ignore"):
        return _cast(x, attrs.dtype, "cast")


_UNARY: tuple[tuple[str, Accepts, UnaryKernel, str, str], ...] = (
    (
        "negative",
        "any",
        _by_kind(np.negative, _negative),
        "Elementwise negation, -x.",
        "onnxruntime:Neg",
    ),
    ("abs", "any", _by_kind(np.abs, _abs), "Elementwise absolute value.", "onnxruntime:Abs"),
    # The float functions are the mathematical functions rounded to the dtype. tanh: TVM's LLVM
    # legalisation (1 - e^-2x) / (1 + e^-2x) loses relative accuracy near 0; the comparison
    # tolerance, not this reference, absorbs that. rsqrt is 1 / sqrt(x), sigmoid
    # 1 / (1 + exp(-x)).
    ("exp", "float", np.exp, "Elementwise exponential, e**x.", "onnxruntime:Exp"),
    ("log", "float", np.log, "Elementwise natural logarithm.", "onnxruntime:Log"),
    ("sqrt", "float", np.sqrt, "Elementwise square root.", "onnxruntime:Sqrt"),
    (
        "rsqrt",
        "float",
        lambda x: 1 / np.sqrt(x),
        "Elementwise reciprocal square root, 1/sqrt(x).",
        "independent:1 / sqrt(x) in decimal arithmetic, correctly rounded",
    ),
    ("tanh", "float", np.tanh, "Elementwise hyperbolic tangent.", "onnxruntime:Tanh"),
    (
        "sigmoid",
        "float",
        lambda x: 1 / (1 + np.exp(-x)),
        "Elementwise logistic 1/(1+exp(-x)).",
        "onnxruntime:Sigmoid",
    ),
    ("floor", "any", _by_kind(np.floor), "Elementwise floor.", "onnxruntime:Floor"),
    ("ceil", "any", _by_kind(np.ceil), "Elementwise ceiling.", "onnxruntime:Ceil"),
    (
        "round",
        "any",
        _by_kind(_round_half_away),
        "Elementwise rounding, halves away from zero.",
        "independent:decimal quantize with ROUND_HALF_UP (halves away from zero)",
    ),
    ("logical_not", "bool", np.logical_not, "Elementwise boolean negation.", "onnxruntime:Not"),
)
"""Unary operators without attributes (relation ``Identity``): name, dtypes, kernel, doc, check."""


_op = OpRegistrar(__name__, relation_name="Identity", inputs=("data",), pattern=OpPattern.ELEMWISE)


for _name, _accepts, _kernel, _doc, _check in _UNARY:
    _op(
        _name,
        _doc,
        relation=_identity_relation(_accepts),
        reference=tensor_reference(_unary(_kernel)),
        check=_check,
    )


_op(
    "clip",
    "Clamp every element into [a_min, a_max].",
    relation=_identity_relation("any"),
    reference=tensor_reference(_clip),
    check="onnxruntime:Clip",
    attrs_type=ClipAttrs,
)


_op(
    "cast",
    "Convert every element to dtype.",
    relation=_cast_relation,
    reference=tensor_reference(_cast_reference),
    check="onnxruntime:Cast",
    relation_name="Cast",
    attrs_type=CastAttrs,
)


def _identity_comp_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``IdentityCompRel``: the shape of ``data`` (any dtype), dtype bool."""
    (data,) = _tensors(arg_types, ("data",))
    return TensorType(data.shape, "bool")


def _reinterpret_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Reinterpret``: the data's shape with the ``dtype`` attribute, which must be given and
    have the data's bit width (bool is one bit: it reinterprets only as bool; TIR's
    ``reinterpret`` checks the widths)."""
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


def _erf(x: Array) -> Array:
    """``erf`` through ``math.erf`` in float64 (numpy has no erf), rounded to the dtype. TVM
    computed it on some targets by ``fast_erf``'s approximation; the comparison policy absorbs
    the difference."""
    wide = np.frompyfunc(math.erf, 1, 1)(x.astype(np.float64))
    return np.asarray(wide, dtype=np.float64)


def _trunc(x: Array) -> Array:
    """``trunc``: rounds toward zero; integers unchanged (``tir::trunc``)."""
    return np.trunc(x) if _is_float(x.dtype.name) else x  # tir::trunc keeps integers


def _sign(x: Array) -> Array:
    """``sign``: ``select(x > 0, 1, select(x < 0, -1, 0))`` with LLVM's ordered compares, so
    ``sign(NaN) = 0`` and ``sign(-0.0) = +0.0``."""
    one = np.ones_like(x)
    return np.asarray(np.where(x > 0, one, np.where(x < 0, -one, np.zeros_like(x))))


def _copy(x: Array) -> Array:
    """``copy``: the identity (a fresh array)."""
    return np.array(x, copy=True)


_FAST_EXP_HIGH = np.float32(88.3762626647950)
"""Where TVM's float32 ``fast_exp`` clamps its argument (``topi::fast_exp_float32``)."""


def _fast_exp(x: Array) -> Array:
    """``fast_exp``, defined as ``exp``. TVM computed float32 by range reduction to
    ``2^n * p(f)`` with a degree-7 polynomial (``topi/elemwise.h``; other dtypes use ``exp``).
    Measured on TVM's formula over float32 (error relative to ``max(|f(x)|, 1)``, as the
    comparison policy measures): within 6 ulps for ``|x| <= 10`` but up to 36 ulps (4.3e-6
    relative) towards ``|x| = 88``, because its range reduction ``x - n * ln2`` uses a
    single-precision ``ln2``. That exceeds ``oracles/compare.py``'s float32 budget of 8 ulps for
    large arguments, so a target that computes TVM's formula needs that tolerance there.

    Undefined: float32 above 88.3762626647950 (and below +inf): TVM clamps the argument there
    and returns ``max(approximation, x)``, a finite number that is neither ``exp(x)`` nor its
    overflow to +inf."""
    if x.dtype == np.float32:
        clamped = np.isfinite(x) & (x > _FAST_EXP_HIGH)
        if np.any(clamped):
            raise UndefinedBehavior(
                f"fast_exp of float32 {x[clamped].flat[0]} above {float(_FAST_EXP_HIGH)}: TVM's "
                "approximation clamps there and returns a value that is not exp(x)"
            )
    return np.asarray(np.exp(x))


def _nan_is_undefined(op: str, dtypes: tuple[str, ...], exact: UnaryKernel) -> UnaryKernel:
    """``exact``, with a NaN input in ``dtypes`` undefined: ``fast_tanh`` and ``fast_erf``,
    defined as ``tanh`` and ``erf``. TVM computed ``fast_tanh`` of float32 by Eigen's rational
    function of ``x`` clamped to [-9, 9] (measured within 3 ulps of tanh) and ``fast_erf`` of
    float16 and float32 by Eigen's rational function (its error is not measured here: the tests
    compare with onnxruntime's ``Erf``); other dtypes fall back to the exact function.

    Undefined: ``fast_tanh`` of a float32 NaN, ``fast_erf`` of a float16 or float32 NaN: TVM
    clamps with ``select``-based minimum and maximum, and whether the NaN survives depends on
    the operand order of those selects, which changed between TVM versions (one order gives
    about +-1)."""

    def kernel(x: Array) -> Array:
        if x.dtype.name in dtypes and np.any(np.isnan(x)):
            raise UndefinedBehavior(
                f"{op} of a {x.dtype.name} NaN: TVM's clamp decides whether the NaN survives"
            )
        return exact(x)

    return kernel


def _predicate(kernel: UnaryKernel, on_integers: bool) -> TensorReference:
    """A bool-valued reference: ``kernel`` on floats, the constant ``on_integers`` otherwise
    (``isnan``/``isinf`` are false and ``isfinite`` true on integers and bool)."""

    def reference(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
        (x,) = args
        if _is_float(x.dtype.name):
            return np.asarray(kernel(x), dtype=np.bool_)
        return np.full(x.shape, on_integers, dtype=np.bool_)

    return reference


def _reinterpret(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
    """``reinterpret``: the bits kept, read as ``dtype`` (NaN payloads kept)."""
    (x,) = args
    assert isinstance(attrs, CastAttrs)
    return np.array(x, copy=True, order="C").view(np.dtype(attrs.dtype))


_FLOAT_MATH: tuple[tuple[str, UnaryKernel, str, str], ...] = (
    # The mathematical functions rounded to the dtype. TVM computed some by formulas (tan as
    # sin / cos, sinh and cosh through exp) a few ulps from the correctly rounded value, which
    # the comparison policy absorbs. Outside a function's domain the result is NaN (asin(2),
    # acosh(0.5), log2(-1)); at a pole it is an infinity (atanh(1), log10(0)).
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
    # bitwise_not complements the two's-complement bits.
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


for _name, _kernel, _doc, _check in _FLOAT_MATH:
    _op(
        _name,
        _doc,
        relation=_identity_relation("float"),
        reference=tensor_reference(_unary(_kernel)),
        check=_check,
    )


for _name, _accepts, _kernel, _doc, _check in _OTHER_UNARY:
    _op(
        _name,
        _doc,
        relation=_identity_relation(_accepts),
        reference=tensor_reference(_unary(_kernel)),
        check=_check,
    )


for _name, _kernel, _on_integers, _doc, _check in _PREDICATES:
    _op(
        _name,
        _doc,
        relation=_identity_comp_relation,
        reference=tensor_reference(_predicate(_kernel, _on_integers)),
        check=_check,
        relation_name="IdentityCompRel",
    )


_op(
    "reinterpret",
    "The bits of every element read as dtype (of the same bit width).",
    relation=_reinterpret_relation,
    reference=tensor_reference(_reinterpret),
    check="independent:struct.pack and struct.unpack per element",
    relation_name="Reinterpret",
    attrs_type=CastAttrs,
)
