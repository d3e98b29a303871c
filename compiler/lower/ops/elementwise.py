"""Lowerings of the ``elementwise`` operators (``semantics/ops/elementwise.py``), and the scalar
helpers the other lowering modules share.

Each operator is a ``Compute`` over its input's shape whose element is the reference's formula
on one element, one IR operation per numpy operation of the reference (so float rounding
happens where the reference's does): ``maximum``/``minimum`` are the ordered selects
``a > b ? a : b``; ``round`` is halves away from zero; ``rsqrt`` is ``1 / sqrt(x)``,
``sigmoid`` ``1 / (1 + exp(-x))``; the ``fast_*`` operators are their exact functions (as the
reference defines them); integer ``floor``/``ceil``/``round``/``trunc`` and ``abs`` of unsigned
or bool values are the identity; a cast to bool is ordered ``x != 0``.

``reinterpret`` is not lowered: the loop IR has no bit cast.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

from ....semantics.ops.elementwise import CastAttrs, ClipAttrs
from ....semantics.ops.registry import Attrs
from ....semantics.syntax import Type
from .. import ir, te

# ---------------------------------------------------------------------------------------------
# Scalar helpers


def is_float(dtype: str) -> bool:
    """Whether ``dtype`` is a float dtype."""
    return dtype.startswith("float")


def is_signed(dtype: str) -> bool:
    """Whether ``dtype`` is a signed integer dtype."""
    return dtype.startswith("int")


def binary(op: ir.BinOp, a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    """``a op b``."""
    return ir.Binary(op, a, b)


def call(name: str, *args: ir.PrimExpr) -> ir.PrimExpr:
    """The intrinsic ``name`` of float ``args``."""
    dtype = "bool" if name in ("isnan", "isinf", "isfinite") else args[0].dtype
    return ir.Call(name, tuple(args), dtype)


def maximum(a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    """TVM's ``max``: ``a > b ? a : b`` (ordered: ``maximum(NaN, 1) = 1``)."""
    return ir.Select(binary(ir.BinOp.GT, a, b), a, b)


def minimum(a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    """TVM's ``min``: ``a < b ? a : b``."""
    return ir.Select(binary(ir.BinOp.LT, a, b), a, b)


def truthy(x: ir.PrimExpr) -> ir.PrimExpr:
    """``x != 0`` as ``bool``, ordered for floats (NaN is false)."""
    if x.dtype == "bool":
        return x
    zero = ir.const(0, x.dtype)
    if is_float(x.dtype):
        return binary(ir.BinOp.OR, binary(ir.BinOp.LT, x, zero), binary(ir.BinOp.GT, x, zero))
    return binary(ir.BinOp.NE, x, zero)


def convert(x: ir.PrimExpr, dtype: str) -> ir.PrimExpr:
    """TVM's cast of ``x`` to ``dtype`` (a cast to bool is ``truthy``)."""
    if x.dtype == dtype:
        return x
    if dtype == "bool":
        return truthy(x)
    return ir.Cast(dtype, x)


def map_tensor(
    x: te.Tensor, dtype: str, fn: Callable[[ir.PrimExpr], ir.PrimExpr], name: str
) -> te.Tensor:
    """The elementwise image of ``x`` under ``fn``."""
    return te.compute(x.shape, dtype, lambda idx: fn(x(*idx)), name)


def tensor_input(inputs: Sequence[te.TensorResult], k: int) -> te.Tensor:
    """Input ``k``, which the relation guarantees is a tensor."""
    x = inputs[k]
    assert isinstance(x, te.Tensor), f"input {k} is a tuple"
    return x


def round_half_away(x: ir.PrimExpr) -> ir.PrimExpr:
    """``llvm.round``: to the nearest integer, halves away from zero."""
    whole = call("trunc", x)
    half = ir.const(0.5, x.dtype)
    away = binary(ir.BinOp.ADD, whole, call("copysign", ir.const(1.0, x.dtype), x))
    return ir.Select(
        binary(ir.BinOp.GE, call("fabs", binary(ir.BinOp.SUB, x, whole)), half), away, whole
    )


def sign(x: ir.PrimExpr) -> ir.PrimExpr:
    """``select(x > 0, 1, select(x < 0, -1, 0))`` (ordered: ``sign(NaN) = 0``)."""
    zero, one = ir.const(0, x.dtype), ir.const(1, x.dtype)
    minus = ir.const(-1, x.dtype)
    return ir.Select(
        binary(ir.BinOp.GT, x, zero), one, ir.Select(binary(ir.BinOp.LT, x, zero), minus, zero)
    )


def _abs(x: ir.PrimExpr) -> ir.PrimExpr:
    if is_float(x.dtype):
        return call("fabs", x)
    if not is_signed(x.dtype):
        return x
    return ir.Select(binary(ir.BinOp.LT, x, ir.const(0, x.dtype)), ir.Unary(ir.UnOp.NEG, x), x)


def _negative(x: ir.PrimExpr) -> ir.PrimExpr:
    if x.dtype == "bool":
        return x  # 0 - x modulo 2
    return ir.Unary(ir.UnOp.NEG, x)


def _float_or_identity(name: str) -> Callable[[ir.PrimExpr], ir.PrimExpr]:
    return lambda x: call(name, x) if is_float(x.dtype) else x


def _rsqrt(x: ir.PrimExpr) -> ir.PrimExpr:
    return binary(ir.BinOp.DIV, ir.const(1.0, x.dtype), call("sqrt", x))


def _sigmoid(x: ir.PrimExpr) -> ir.PrimExpr:
    one = ir.const(1.0, x.dtype)
    return binary(
        ir.BinOp.DIV, one, binary(ir.BinOp.ADD, one, call("exp", ir.Unary(ir.UnOp.NEG, x)))
    )


_UNARY: dict[str, Callable[[ir.PrimExpr], ir.PrimExpr]] = {
    "negative": _negative,
    "abs": _abs,
    "exp": lambda x: call("exp", x),
    "fast_exp": lambda x: call("exp", x),
    "log": lambda x: call("log", x),
    "log2": lambda x: call("log2", x),
    "log10": lambda x: call("log10", x),
    "sqrt": lambda x: call("sqrt", x),
    "rsqrt": _rsqrt,
    "tanh": lambda x: call("tanh", x),
    "fast_tanh": lambda x: call("tanh", x),
    "sigmoid": _sigmoid,
    "sin": lambda x: call("sin", x),
    "cos": lambda x: call("cos", x),
    "tan": lambda x: call("tan", x),
    "asin": lambda x: call("asin", x),
    "acos": lambda x: call("acos", x),
    "atan": lambda x: call("atan", x),
    "sinh": lambda x: call("sinh", x),
    "cosh": lambda x: call("cosh", x),
    "asinh": lambda x: call("asinh", x),
    "acosh": lambda x: call("acosh", x),
    "atanh": lambda x: call("atanh", x),
    "erf": lambda x: call("erf", x),
    "fast_erf": lambda x: call("erf", x),
    "floor": _float_or_identity("floor"),
    "ceil": _float_or_identity("ceil"),
    "trunc": _float_or_identity("trunc"),
    "round": lambda x: round_half_away(x) if is_float(x.dtype) else x,
    "sign": sign,
    "logical_not": lambda x: ir.Unary(ir.UnOp.NOT, x),
    "bitwise_not": lambda x: ir.Unary(ir.UnOp.NOT, x),
    "copy": lambda x: x,
}
"""The unary operators whose result has the input's dtype: the element formula."""


def _unary_lowering(op: str) -> te.LoweringFn:
    formula = _UNARY[op]

    def lower(
        ctx: te.LowerContext,
        inputs: tuple[te.TensorResult, ...],
        attrs: Attrs,
        arg_types: tuple[Type, ...],
        out_type: Type,
    ) -> te.TensorResult:
        x = tensor_input(inputs, 0)
        return map_tensor(x, x.dtype, formula, op)

    return lower


for _op in _UNARY:
    te.lowering(_op)(_unary_lowering(_op))


def _predicate_lowering(name: str) -> te.LoweringFn:
    def lower(
        ctx: te.LowerContext,
        inputs: tuple[te.TensorResult, ...],
        attrs: Attrs,
        arg_types: tuple[Type, ...],
        out_type: Type,
    ) -> te.TensorResult:
        """False (true for ``isfinite``) for integers and bool."""
        x = tensor_input(inputs, 0)
        if is_float(x.dtype):
            return map_tensor(x, "bool", lambda e: call(name, e), name)
        return map_tensor(x, "bool", lambda e: ir.const(name == "isfinite", "bool"), name)

    return lower


for _name in ("isnan", "isinf", "isfinite"):
    te.lowering(_name)(_predicate_lowering(_name))


def attr_constant(value: float, dtype: str) -> ir.Const:
    """An attribute made a constant of ``dtype`` as ``make_const`` does: truncated toward zero
    for integers, rounded for floats (the reference makes the unrepresentable cases
    undefined)."""
    if is_float(dtype):
        return ir.const(value, dtype)
    return ir.const(math.trunc(value), dtype)


@te.lowering("clip")
def _clip(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``maximum(minimum(x, a_max), a_min)``, without the ``minimum`` when a float ``a_max``
    is +inf and without the ``maximum`` when a float ``a_min`` is -inf."""
    assert isinstance(attrs, ClipAttrs)
    x = tensor_input(inputs, 0)
    dtype = x.dtype
    a_min, a_max = attrs.a_min, attrs.a_max

    def formula(e: ir.PrimExpr) -> ir.PrimExpr:
        if not (is_float(dtype) and a_max == math.inf):
            e = minimum(e, attr_constant(a_max, dtype))
        if not (is_float(dtype) and a_min == -math.inf):
            e = maximum(e, attr_constant(a_min, dtype))
        return e

    return map_tensor(x, dtype, formula, "clip")


@te.lowering("cast")
def _cast(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """LLVM's conversion; to bool is ordered ``!= 0``."""
    assert isinstance(attrs, CastAttrs)
    x = tensor_input(inputs, 0)
    return map_tensor(x, attrs.dtype, lambda e: convert(e, attrs.dtype), "cast")


te.unsupported("reinterpret", "the loop IR has no bit cast between dtypes")

__all__ = [
    "attr_constant",
    "binary",
    "call",
    "convert",
    "is_float",
    "is_signed",
    "map_tensor",
    "maximum",
    "minimum",
    "round_half_away",
    "sign",
    "tensor_input",
    "truthy",
]
