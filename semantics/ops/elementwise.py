"""Elementwise unary operators: arithmetic, rounding, float math, predicates, casts.

Elementwise operators: unary math, binary broadcasting arithmetic and comparison, and fills.

::

    unary      negative abs floor ceil round nn.relu zeros_like ones_like   (data)
                   any dtype                                  Identity        elemwise
               exp log sqrt rsqrt tanh sigmoid                float  Identity elemwise
               logical_not                                    bool   Identity elemwise
    clip(data, a_min=, a_max=)                 ClipAttrs      Identity        elemwise
    cast(data, dtype=)                         CastAttrs      Cast            elemwise

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
    reinterpret(data, dtype=)          CastAttrs    any, same bits  Reinterpret       elemwise

"integer" is the signed and unsigned integer dtypes, without bool; "signed" the signed ones.
Names, argument names, relation names and fusion patterns follow TVM 0.18
(``src/relay/op/tensor/unary.cc``, ``binary.cc``, ``transform.cc``). ``reinterpret`` takes
TVM's ``CastAttrs`` (``relay.attrs.CastAttrs``, one field ``dtype``): TVM had no separate
attributes class for it.

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
- ``reinterpret`` keeps the bits and changes their dtype (NaN payloads kept).

Undefined behaviour (``UndefinedBehavior``):

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
from dataclasses import dataclass
from typing import Any, ClassVar, Literal, TypeAlias, assert_never

import numpy as np
import numpy.typing as npt

from ..errors import UndefinedBehavior
from ..syntax import TensorType, Type
from .registry import (
    AttrKind,
    Attrs,
    OpDef,
    OpPattern,
    Reference,
    Relation,
    RelationError,
    ShapeFunc,
    TensorReference,
    attr_field,
    register,
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
    """``Cast``: the shape of ``data``, the dtype of the attribute."""
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


_UNARY: tuple[tuple[str, Accepts, UnaryKernel, str, str], ...] = (
    (
        "negative",
        "any",
        _by_kind(np.negative, _negative),
        "Elementwise negation, -x.",
        "onnxruntime:Neg",
    ),
    ("abs", "any", _by_kind(np.abs, _abs), "Elementwise absolute value.", "onnxruntime:Abs"),
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


def _op(
    name: str,
    doc: str,
    *,
    relation: Relation,
    reference: Reference,
    check: str,
    relation_name: str = "Identity",
    inputs: tuple[str, ...] = ("data",),
    attrs_type: type[Attrs] | None = None,
    pattern: OpPattern = OpPattern.ELEMWISE,
    shape_func: ShapeFunc | None = None,
) -> None:
    """Register one operator of this module, with its independent ``check``; unless told
    otherwise: no attributes, inputs data, pattern elemwise, relation "Identity"."""
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


def _predicate(kernel: UnaryKernel, on_integers: bool) -> TensorReference:
    """A bool-valued reference: ``kernel`` on floats, the constant ``on_integers`` otherwise."""

    def reference(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
        (x,) = args
        if _is_float(x.dtype.name):
            return np.asarray(kernel(x), dtype=np.bool_)
        return np.full(x.shape, on_integers, dtype=np.bool_)

    return reference


def _reinterpret(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
    (x,) = args
    assert isinstance(attrs, CastAttrs)
    return np.array(x, copy=True, order="C").view(np.dtype(attrs.dtype))


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
