"""Converters of ONNX's elementwise, activation, cast, reduction and softmax operators.

Where Relay has the operation it is one call; the rest are compositions of Relay operators
(the formula in each converter's docstring is ONNX's definition it follows).
"""

from __future__ import annotations

import math

import numpy as np

from ....semantics.syntax import Constant, Expr, TupleGetItem
from .importer import ONNX_DTYPES, NodeContext, OnnxImportError, relay_dtype
from .table import converter, not_yet, unsupported

UNARY = {
    "Abs": "abs",
    "Acos": "acos",
    "Acosh": "acosh",
    "Asin": "asin",
    "Asinh": "asinh",
    "Atan": "atan",
    "Atanh": "atanh",
    "Ceil": "ceil",
    "Cos": "cos",
    "Cosh": "cosh",
    "Erf": "erf",
    "Exp": "exp",
    "Floor": "floor",
    "Log": "log",
    "Neg": "negative",
    "Not": "logical_not",
    "Relu": "nn.relu",
    "Sigmoid": "sigmoid",
    "Sign": "sign",
    "Sin": "sin",
    "Sinh": "sinh",
    "Sqrt": "sqrt",
    "Tan": "tan",
    "Tanh": "tanh",
    "IsNaN": "isnan",
    "BitwiseNot": "bitwise_not",
}

BINARY = {
    "Add": "add",
    "Sub": "subtract",
    "Mul": "multiply",
    "Div": "divide",
    "And": "logical_and",
    "Or": "logical_or",
    "Xor": "logical_xor",
    "Equal": "equal",
    "Greater": "greater",
    "GreaterOrEqual": "greater_equal",
    "Less": "less",
    "LessOrEqual": "less_equal",
    "BitwiseAnd": "bitwise_and",
    "BitwiseOr": "bitwise_or",
    "BitwiseXor": "bitwise_xor",
}


def _unary(relay_op: str) -> None:
    def convert(ctx: NodeContext) -> Expr:
        return ctx.call(relay_op, ctx.input(0))

    convert.__doc__ = f"``{relay_op}(x)``."
    for onnx_op, name in UNARY.items():
        if name == relay_op:
            converter(onnx_op)(convert)


def _binary(relay_op: str) -> None:
    def convert(ctx: NodeContext) -> Expr:
        if ctx.attr("broadcast", 1) == 0 or ctx.attr("axis") is not None:
            raise ctx.fail("the legacy broadcast/axis attributes (opset < 7) are not supported")
        return ctx.call(relay_op, ctx.input(0), ctx.input(1))

    convert.__doc__ = f"``{relay_op}(a, b)`` (numpy broadcasting)."
    for onnx_op, name in BINARY.items():
        if name == relay_op:
            converter(onnx_op)(convert)


for _name in sorted(set(UNARY.values())):
    _unary(_name)
for _name in sorted(set(BINARY.values())):
    _binary(_name)


def scalar_like(ctx: NodeContext, value: float, x: Expr) -> Constant:
    """A rank-0 constant of ``x``'s dtype."""
    return ctx.scalar(value, ctx.tensor_type(x).dtype)


@converter("Identity")
def identity(ctx: NodeContext) -> Expr:
    """The input itself."""
    return ctx.input(0)


@converter("Pow")
def pow_(ctx: NodeContext) -> Expr:
    """``power(x, cast(y, x.dtype))``: ONNX lets the exponent have another dtype; integer
    powers are computed in float64 and cast back (exact below 2^53)."""
    x, y = ctx.input(0), ctx.input(1)
    dtype = ctx.dtype(0)
    if dtype.startswith(("int", "uint")):  # Relay's power is for floats: exact in float64
        x = ctx.call("cast", x, dtype="float64")
        y = ctx.call("cast", y, dtype="float64")
        return ctx.call("cast", ctx.call("power", x, y), dtype=dtype)
    if ctx.dtype(1) != dtype:
        y = ctx.call("cast", y, dtype=dtype)
    return ctx.call("power", x, y)


@converter("Mod")
def mod(ctx: NodeContext) -> Expr:
    """``fmod=1``: ``trunc_mod`` (C's fmod); otherwise the result takes the divisor's sign:
    ``floor_mod`` for integers, a corrected ``trunc_mod`` for floats."""
    x, y = ctx.input(0), ctx.input(1)
    if ctx.attr("fmod", 0):
        return ctx.call("trunc_mod", x, y)
    if not ctx.dtype(0).startswith("float"):
        return ctx.call("floor_mod", x, y)
    # Floats: floor_mod's x - floor(x / y) * y is NaN for an infinite y; ONNX means numpy's
    # mod: the C fmod, moved by y when it is non-zero and its sign differs from y's.
    r = ctx.call("trunc_mod", x, y)
    zero = scalar_like(ctx, 0, x)
    differ = ctx.call("not_equal", ctx.call("less", r, zero), ctx.call("less", y, zero))
    move = ctx.call("logical_and", ctx.call("not_equal", r, zero), differ)
    return ctx.call("where", move, ctx.call("add", r, y), r)


@converter("BitShift")
def bit_shift(ctx: NodeContext) -> Expr:
    """``left_shift`` or ``right_shift`` by ``direction``. ONNX defines the shifts by an
    amount outside ``[0, bits)``, which Relay leaves undefined: a left shift gives 0, a right
    shift gives the sign fill (-1 for a negative signed value, else 0). So the Relay shift
    runs on the in-range amounts only and a ``where`` supplies the rest."""
    direction = ctx.attr("direction", "")
    op = {"LEFT": "left_shift", "RIGHT": "right_shift"}.get(direction)
    if op is None:
        raise ctx.fail(f'expected direction "LEFT" or "RIGHT", found "{direction}"')
    x, amount = ctx.input(0), ctx.input(1)
    dtype = ctx.dtype(0)
    bits = np.dtype(dtype).itemsize * 8
    zero = ctx.scalar(0, dtype)
    valid = ctx.call("less", amount, ctx.scalar(bits, dtype))
    if not dtype.startswith("uint"):
        valid = ctx.call("logical_and", valid, ctx.call("greater_equal", amount, zero))
    shifted = ctx.call(op, x, ctx.call("where", valid, amount, zero))
    fill: Expr = zero
    if op == "right_shift" and not dtype.startswith("uint"):
        negative = ctx.call("less", x, zero)
        fill = ctx.call("where", negative, ctx.scalar(-1, dtype), zero)
    return ctx.call("where", valid, shifted, fill)


def _variadic(ctx: NodeContext, op: str) -> Expr:
    out = ctx.input(0)
    for i in range(1, ctx.num_inputs):
        out = ctx.call(op, out, ctx.input(i))
    return out


@converter("Max")
def max_(ctx: NodeContext) -> Expr:
    """``maximum`` folded over the inputs."""
    return _variadic(ctx, "maximum")


@converter("Min")
def min_(ctx: NodeContext) -> Expr:
    """``minimum`` folded over the inputs."""
    return _variadic(ctx, "minimum")


@converter("Sum")
def sum_(ctx: NodeContext) -> Expr:
    """``add`` folded over the inputs."""
    return _variadic(ctx, "add")


@converter("Mean")
def mean_(ctx: NodeContext) -> Expr:
    """The sum of the inputs divided by their number."""
    total = _variadic(ctx, "add")
    return ctx.call("divide", total, scalar_like(ctx, ctx.num_inputs, total))


@converter("Where")
def where(ctx: NodeContext) -> Expr:
    """``where(condition, x, y)``."""
    return ctx.call("where", ctx.input(0), ctx.input(1), ctx.input(2))


@converter("Reciprocal")
def reciprocal(ctx: NodeContext) -> Expr:
    """``1 / x``."""
    x = ctx.input(0)
    return ctx.call("divide", scalar_like(ctx, 1, x), x)


@converter("Round")
def round_(ctx: NodeContext) -> Expr:
    """Halves to even: Relay's ``round`` takes halves away from zero, so at a half the result
    is ``2 * round(x / 2)`` instead."""
    return round_half_even(ctx, ctx.input(0))


def round_half_even(ctx: NodeContext, x: Expr) -> Expr:
    """``x`` rounded to the nearest integer, halves to even (``Round``'s rule)."""
    away = ctx.call("round", x)
    fraction = ctx.call("abs", ctx.call("subtract", x, ctx.call("trunc", x)))
    tie = ctx.call("equal", fraction, scalar_like(ctx, 0.5, x))
    half = ctx.call("divide", x, scalar_like(ctx, 2, x))
    even = ctx.call("multiply", ctx.call("round", half), scalar_like(ctx, 2, x))
    return ctx.call("where", tie, even, away)


@converter("IsInf")
def is_inf(ctx: NodeContext) -> Expr:
    """``isinf(x)``, restricted to one sign by ``detect_positive`` / ``detect_negative``."""
    x = ctx.input(0)
    pos, neg = ctx.attr("detect_positive", 1), ctx.attr("detect_negative", 1)
    inf = ctx.call("isinf", x)
    if pos and neg:
        return inf
    zero = scalar_like(ctx, 0, x)
    if pos:
        return ctx.call("logical_and", inf, ctx.call("greater", x, zero))
    if neg:
        return ctx.call("logical_and", inf, ctx.call("less", x, zero))
    return ctx.call("logical_and", inf, ctx.call("logical_not", inf))


@converter("SwiGLU", since=28)
def swiglu(ctx: NodeContext) -> Expr:
    """``a * sigmoid(alpha * a) * b``."""
    a, b = ctx.input(0), ctx.input(1)
    alpha = scalar_like(ctx, ctx.attr("alpha", 1.0), a)
    gate = ctx.call("multiply", a, ctx.call("sigmoid", ctx.call("multiply", alpha, a)))
    return ctx.call("multiply", gate, b)


def _per_axis(ctx: NodeContext, param: Expr, x_rank: int) -> Expr:
    """A 1-d per-axis (or blocked) scale or zero point shaped to broadcast against x."""
    shape = ctx.static_shape(param)
    if not shape:
        return param
    axis = int(ctx.attr("axis", 1)) % x_rank
    block = int(ctx.attr("block_size", 0))
    if block > 0:
        param = ctx.call("repeat", param, repeats=block, axis=axis)
        x_extent = ctx.shape(0)[axis]
        if ctx.static_shape(param)[axis] != x_extent:
            full = list(ctx.static_shape(param))
            full[axis] = x_extent
            param = ctx.call("strided_slice", param, begin=(0,) * x_rank, end=tuple(full),
                             strides=(1,) * x_rank, axes=None)  # fmt: skip
        return param
    if len(shape) != 1:
        raise ctx.fail("a scale of rank > 1 needs block_size")
    target = [1] * x_rank
    target[axis] = shape[0]
    return ctx.call("reshape", param, newshape=tuple(target))


@converter("DequantizeLinear", since=10)
def dequantize_linear(ctx: NodeContext) -> Expr:
    """``(x - zero_point) * scale`` in the scale's dtype, per tensor, axis or block."""
    rank = ctx.rank(0)
    scale = _per_axis(ctx, ctx.input(1), rank)
    dtype = ctx.dtype(1)
    x = ctx.call("cast", ctx.input(0), dtype=dtype)
    zp = ctx.optional(2)
    if zp is not None:
        x = ctx.call("subtract", x, ctx.call("cast", _per_axis(ctx, zp, rank), dtype=dtype))
    out = ctx.call("multiply", x, scale)
    code = ctx.attr("output_dtype")
    if code:
        out = ctx.call("cast", out, dtype=relay_dtype(int(code), "output_dtype"))
    return out


@converter("QuantizeLinear", since=10)
def quantize_linear(ctx: NodeContext) -> Expr:
    """``clip(round_half_even(x / scale) + zero_point)`` to the range of the zero point's
    dtype (uint8 without one), per tensor, axis or block."""
    rank = ctx.rank(0)
    scale = _per_axis(ctx, ctx.input(1), rank)
    zp = ctx.optional(2)
    code = ctx.attr("output_dtype")
    if code:
        dtype = relay_dtype(int(code), "output_dtype")
    else:
        dtype = "uint8" if zp is None else ctx.tensor_type(zp).dtype
    if not dtype.startswith(("int", "uint")):
        raise ctx.fail(f"quantizing to {dtype} is not supported")
    work = ctx.dtype(1)
    x = ctx.input(0)
    if ctx.dtype(0) != work:
        x = ctx.call("cast", x, dtype=work)
    y = round_half_even(ctx, ctx.call("divide", x, scale))
    if zp is not None:
        y = ctx.call("add", y, ctx.call("cast", _per_axis(ctx, zp, rank), dtype=work))
    info = np.iinfo(dtype)
    y = ctx.call("clip", y, a_min=float(info.min), a_max=float(info.max))
    return ctx.call("cast", y, dtype=dtype)


def dequantized(ctx: NodeContext, x: Expr, scale: Expr, zp: Expr | None) -> Expr:
    """``(x - zp) * scale`` in the scale's dtype (per-tensor parameters)."""
    dtype = ctx.tensor_type(scale).dtype
    out = ctx.call("cast", x, dtype=dtype)
    if zp is not None:
        out = ctx.call("subtract", out, ctx.call("cast", zp, dtype=dtype))
    return ctx.call("multiply", out, scale)


def quantized(ctx: NodeContext, y: Expr, scale: Expr, zp: Expr | None, dtype: str) -> Expr:
    """``clip(round_half_even(y / scale) + zp)`` to ``dtype``'s range, cast to it."""
    q = round_half_even(ctx, ctx.call("divide", y, scale))
    if zp is not None:
        q = ctx.call("add", q, ctx.call("cast", zp, dtype=ctx.tensor_type(q).dtype))
    info = np.iinfo(dtype)
    q = ctx.call("clip", q, a_min=float(info.min), a_max=float(info.max))
    return ctx.call("cast", q, dtype=dtype)


@converter("DynamicQuantizeLinear", since=11)
def dynamic_quantize_linear(ctx: NodeContext) -> list[Expr]:
    """uint8 quantization with ``scale = (max(0, max x) - min(0, min x)) / 255`` and
    ``zero_point = clip(round_half_even(-min(0, min x) / scale))``."""
    x = ctx.input(0)
    zero = scalar_like(ctx, 0, x)
    high = ctx.call("maximum", ctx.call("max", x, axis=None, keepdims=False), zero)
    low = ctx.call("minimum", ctx.call("min", x, axis=None, keepdims=False), zero)
    scale = ctx.call("divide", ctx.call("subtract", high, low), scalar_like(ctx, 255, x))
    zp_float = round_half_even(ctx, ctx.call("divide", ctx.call("negative", low), scale))
    zp_float = ctx.call("clip", zp_float, a_min=0.0, a_max=255.0)
    zp = ctx.call("cast", zp_float, dtype="uint8")
    q = round_half_even(ctx, ctx.call("divide", x, scale))
    q = ctx.call("clip", ctx.call("add", q, zp_float), a_min=0.0, a_max=255.0)
    return [ctx.call("cast", q, dtype="uint8"), scale, zp]


# -- activations ---------------------------------------------------------------------------


@converter("LeakyRelu")
def leaky_relu(ctx: NodeContext) -> Expr:
    """``nn.leaky_relu(x, alpha)``."""
    return ctx.call("nn.leaky_relu", ctx.input(0), alpha=float(ctx.attr("alpha", 0.01)))


@converter("PRelu")
def prelu(ctx: NodeContext) -> Expr:
    """``where(x < 0, slope * x, x)`` (the slope broadcasts to x)."""
    x, slope = ctx.input(0), ctx.input(1)
    negative = ctx.call("less", x, scalar_like(ctx, 0, x))
    return ctx.call("where", negative, ctx.call("multiply", slope, x), x)


@converter("Elu")
def elu(ctx: NodeContext) -> Expr:
    """``where(x < 0, alpha * (exp(x) - 1), x)``."""
    x = ctx.input(0)
    alpha = scalar_like(ctx, ctx.attr("alpha", 1.0), x)
    negative = ctx.call("less", x, scalar_like(ctx, 0, x))
    expm1 = ctx.call("subtract", ctx.call("exp", x), scalar_like(ctx, 1, x))
    return ctx.call("where", negative, ctx.call("multiply", alpha, expm1), x)


@converter("Selu")
def selu(ctx: NodeContext) -> Expr:
    """``gamma * where(x <= 0, alpha * exp(x) - alpha, x)``."""
    x = ctx.input(0)
    alpha = scalar_like(ctx, ctx.attr("alpha", 1.67326319217681884765625), x)
    gamma = scalar_like(ctx, ctx.attr("gamma", 1.05070102214813232421875), x)
    negative = ctx.call("less_equal", x, scalar_like(ctx, 0, x))
    low = ctx.call("subtract", ctx.call("multiply", alpha, ctx.call("exp", x)), alpha)
    return ctx.call("multiply", gamma, ctx.call("where", negative, low, x))


@converter("Celu")
def celu(ctx: NodeContext) -> Expr:
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    x = ctx.input(0)
    alpha = scalar_like(ctx, ctx.attr("alpha", 1.0), x)
    zero = scalar_like(ctx, 0, x)
    expm1 = ctx.call("subtract", ctx.call("exp", ctx.call("divide", x, alpha)),
                     scalar_like(ctx, 1, x))  # fmt: skip
    low = ctx.call("minimum", zero, ctx.call("multiply", alpha, expm1))
    return ctx.call("add", ctx.call("maximum", zero, x), low)


def _hard_sigmoid(ctx: NodeContext, x: Expr, alpha: float, beta: float) -> Expr:
    linear = ctx.call("add", ctx.call("multiply", x, scalar_like(ctx, alpha, x)),
                      scalar_like(ctx, beta, x))  # fmt: skip
    return ctx.call("clip", linear, a_min=0.0, a_max=1.0)


@converter("HardSigmoid")
def hard_sigmoid(ctx: NodeContext) -> Expr:
    """``clip(alpha * x + beta, 0, 1)``."""
    alpha, beta = float(ctx.attr("alpha", 0.2)), float(ctx.attr("beta", 0.5))
    return _hard_sigmoid(ctx, ctx.input(0), alpha, beta)


@converter("HardSwish")
def hard_swish(ctx: NodeContext) -> Expr:
    """``x * clip(x / 6 + 1 / 2, 0, 1)``."""
    x = ctx.input(0)
    return ctx.call("multiply", x, _hard_sigmoid(ctx, x, 1.0 / 6.0, 0.5))


@converter("ThresholdedRelu")
def thresholded_relu(ctx: NodeContext) -> Expr:
    """``where(x > alpha, x, 0)``."""
    x = ctx.input(0)
    above = ctx.call("greater", x, scalar_like(ctx, ctx.attr("alpha", 1.0), x))
    return ctx.call("where", above, x, scalar_like(ctx, 0, x))


def _softplus(ctx: NodeContext, x: Expr) -> Expr:
    return ctx.call("log", ctx.call("add", ctx.call("exp", x), scalar_like(ctx, 1, x)))


@converter("Softplus")
def softplus(ctx: NodeContext) -> Expr:
    """``log(exp(x) + 1)``."""
    return _softplus(ctx, ctx.input(0))


@converter("Softsign")
def softsign(ctx: NodeContext) -> Expr:
    """``x / (1 + |x|)``."""
    x = ctx.input(0)
    return ctx.call("divide", x, ctx.call("add", scalar_like(ctx, 1, x), ctx.call("abs", x)))


@converter("Mish")
def mish(ctx: NodeContext) -> Expr:
    """``x * tanh(softplus(x))``."""
    x = ctx.input(0)
    return ctx.call("multiply", x, ctx.call("tanh", _softplus(ctx, x)))


@converter("Gelu")
def gelu(ctx: NodeContext) -> Expr:
    """``x / 2 * (1 + erf(x / sqrt 2))``, or with ``approximate="tanh"``
    ``x / 2 * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 x^3)))``."""
    x = ctx.input(0)
    one, half = scalar_like(ctx, 1, x), scalar_like(ctx, 0.5, x)
    if ctx.attr("approximate", "none") == "tanh":
        cube = ctx.call("multiply", ctx.call("multiply", x, x), x)
        inner = ctx.call("add", x, ctx.call("multiply", scalar_like(ctx, 0.044715, x), cube))
        scaled = ctx.call("multiply", scalar_like(ctx, math.sqrt(2 / math.pi), x), inner)
        gate = ctx.call("tanh", scaled)
    else:
        gate = ctx.call("erf", ctx.call("multiply", x, scalar_like(ctx, 1 / math.sqrt(2), x)))
    return ctx.call("multiply", ctx.call("multiply", half, x), ctx.call("add", one, gate))


@converter("Swish")
def swish(ctx: NodeContext) -> Expr:
    """``x * sigmoid(alpha * x)``."""
    x = ctx.input(0)
    alpha = scalar_like(ctx, ctx.attr("alpha", 1.0), x)
    return ctx.call("multiply", x, ctx.call("sigmoid", ctx.call("multiply", alpha, x)))


@converter("Shrink")
def shrink(ctx: NodeContext) -> Expr:
    """``x + bias`` below ``-lambd``, ``x - bias`` above ``lambd``, 0 between."""
    x = ctx.input(0)
    bias = scalar_like(ctx, ctx.attr("bias", 0.0), x)
    lambd = float(ctx.attr("lambd", 0.5))
    low = ctx.call("less", x, scalar_like(ctx, -lambd, x))
    high = ctx.call("greater", x, scalar_like(ctx, lambd, x))
    zero = scalar_like(ctx, 0, x)
    upper = ctx.call("where", high, ctx.call("subtract", x, bias), zero)
    return ctx.call("where", low, ctx.call("add", x, bias), upper)


@converter("Clip")
def clip_legacy(ctx: NodeContext) -> Expr:
    """Opsets 1-10: ``clip(x, min, max)`` with float attributes."""
    lo = float(ctx.attr("min", -3.4028234663852886e38))
    hi = float(ctx.attr("max", 3.4028234663852886e38))
    return ctx.call("clip", ctx.input(0), a_min=lo, a_max=hi)


@converter("Clip", since=11)
def clip(ctx: NodeContext) -> Expr:
    """``minimum(maximum(x, min), max)``, each bound optional (exact for integers too)."""
    out = ctx.input(0)
    lo, hi = ctx.optional(1), ctx.optional(2)
    if lo is not None:
        out = ctx.call("maximum", out, lo)
    if hi is not None:
        out = ctx.call("minimum", out, hi)
    return out


# -- casts ---------------------------------------------------------------------------------


@converter("Cast")
def cast(ctx: NodeContext) -> Expr:
    """``cast(x, dtype)``; the dtype from the ``to`` element type."""
    to = ctx.attr("to")
    if isinstance(to, str):  # opset 1 spelled it as a name
        names = {v.upper(): k for k, v in _ONNX_NAMES.items()}
        code = names.get(to.upper(), -1)
    else:
        code = int(to)
    try:
        dtype = relay_dtype(code, "the target of the cast")
    except OnnxImportError as err:
        raise ctx.fail(err.message) from None
    return ctx.call("cast", ctx.input(0), dtype=dtype)


_ONNX_NAMES = {code: name.replace("float32", "float").replace("float64", "double")
               for code, name in ONNX_DTYPES.items()}  # fmt: skip


@converter("CastLike")
def cast_like(ctx: NodeContext) -> Expr:
    """``cast(x, dtype of target)``."""
    return ctx.call("cast", ctx.input(0), dtype=ctx.dtype(1))


@converter("BitCast", since=26)
def bit_cast(ctx: NodeContext) -> Expr:
    """``reinterpret(x, dtype)`` between element types of the same width."""
    code = int(ctx.attr("to"))
    try:
        dtype = relay_dtype(code, "the target of the bit cast")
    except OnnxImportError as err:
        raise ctx.fail(err.message) from None
    if "bool" in (dtype, ctx.dtype(0)) and np.dtype(dtype).itemsize == 1:
        return ctx.call("cast", ctx.input(0), dtype=dtype)  # bool is one byte, 0 or 1
    if np.dtype(dtype).itemsize != np.dtype(ctx.dtype(0)).itemsize:
        raise ctx.fail("a bit cast between element types of different widths is not supported")
    return ctx.call("reinterpret", ctx.input(0), dtype=dtype)


def _window(ctx: NodeContext, terms: tuple[float, ...]) -> Expr:
    """``sum_k terms[k] * cos(2 pi k n / N) * (-1)^k`` for ``n`` in ``[0, size)``, with
    ``N = size`` (periodic) or ``size - 1`` (symmetric), in float32, cast to
    ``output_datatype``."""
    size = int(ctx.require_const(0, "size").reshape(()))
    denominator = size if int(ctx.attr("periodic", 1)) else size - 1
    dtype = relay_dtype(int(ctx.attr("output_datatype", 1)), "output_datatype")
    n = ctx.call("arange", ctx.scalar(0, "float32"), ctx.scalar(size, "float32"),
                 ctx.scalar(1, "float32"), dtype="float32")  # fmt: skip
    out: Expr = ctx.call("full", ctx.scalar(terms[0], "float32"), shape=(size,), dtype="float32")
    for k, a in enumerate(terms[1:], start=1):
        angle = ctx.call("multiply", n, ctx.scalar(2 * math.pi * k / denominator, "float32"))
        term = ctx.call("multiply", ctx.call("cos", angle), ctx.scalar(a * (-1) ** k, "float32"))
        out = ctx.call("add", out, term)
    return ctx.call("cast", out, dtype=dtype)


@converter("HannWindow", since=17)
def hann_window(ctx: NodeContext) -> Expr:
    """``0.5 - 0.5 cos(2 pi n / N)``."""
    return _window(ctx, (0.5, 0.5))


@converter("HammingWindow", since=17)
def hamming_window(ctx: NodeContext) -> Expr:
    """``25/46 - 21/46 cos(2 pi n / N)``."""
    return _window(ctx, (25 / 46, 21 / 46))


@converter("BlackmanWindow", since=17)
def blackman_window(ctx: NodeContext) -> Expr:
    """``0.42 - 0.5 cos(2 pi n / N) + 0.08 cos(4 pi n / N)``."""
    return _window(ctx, (0.42, 0.5, 0.08))


# -- reductions ----------------------------------------------------------------------------


def reduce_axes(ctx: NodeContext, from_input: bool) -> tuple[int, ...] | None:
    """The ``axes`` of a reduction (attribute, or input 1 from the opset that moved it); ``None``
    for all axes, ``()`` for none (``noop_with_empty_axes``)."""
    if from_input:
        given = ctx.optional(1)
        axes = None if given is None else ctx.ints(1, "axes")
    else:
        attr = ctx.attr("axes")
        axes = None if attr is None else [int(a) for a in attr]
    if not axes:
        return () if ctx.attr("noop_with_empty_axes", 0) else None
    rank = ctx.rank(0)
    return tuple(sorted(a % rank if rank else a for a in axes))


def _reduce(ctx: NodeContext, op: str, x: Expr, axes: tuple[int, ...] | None) -> Expr:
    """``op`` over ``axes``. ONNX defines a max or min over no elements as -inf or inf (the
    integer extreme), where Relay's starts from the lowest or highest finite value (TVM's
    init): over an empty static axis the result is that constant, and a float max (min) of
    elements that are all -inf (inf) is made -inf (inf) with a ``where``."""
    keepdims = bool(ctx.attr("keepdims", 1))
    if axes == ():
        return x
    out = ctx.call(op, x, axis=axes, keepdims=keepdims)
    if op in ("max", "min"):
        t = ctx.tensor_type(x)
        reduced = range(len(t.shape)) if axes is None else axes
        if any(t.shape[a] == 0 for a in reduced):
            dtype = t.dtype
            if dtype.startswith("float"):
                value: float = -np.inf if op == "max" else np.inf
            elif dtype == "bool":
                value = op == "min"
            else:
                value = np.iinfo(dtype).min if op == "max" else np.iinfo(dtype).max
            shape = ctx.static_shape(out)
            return ctx.call("full", ctx.scalar(value, dtype), shape=shape, dtype=dtype)
        if t.dtype.startswith("float"):  # all -inf (max) or all inf (min): the same reason
            extreme = ctx.scalar(-np.inf if op == "max" else np.inf, t.dtype)
            every = ctx.call("all", ctx.call("equal", x, extreme), axis=axes, keepdims=keepdims)
            out = ctx.call("where", every, extreme, out)
    return out


def _register_reduce(onnx_op: str, moved: int, build: str) -> None:
    def convert(ctx: NodeContext, moved_in: bool) -> Expr:
        axes = reduce_axes(ctx, moved_in)
        x = ctx.input(0)
        if build == "sum" and axes == ():
            return x
        match onnx_op:
            case "ReduceL1":
                return _reduce(ctx, "sum", ctx.call("abs", x), axes)
            case "ReduceL2":
                return ctx.call("sqrt", _reduce(ctx, "sum", ctx.call("multiply", x, x), axes))
            case "ReduceSumSquare":
                return _reduce(ctx, "sum", ctx.call("multiply", x, x), axes)
            case "ReduceLogSum":
                return ctx.call("log", _reduce(ctx, "sum", x, axes))
            case "ReduceLogSumExp":
                return ctx.call("log", _reduce(ctx, "sum", ctx.call("exp", x), axes))
            case _:
                return _reduce(ctx, build, x, axes)

    def legacy(ctx: NodeContext) -> Expr:
        return convert(ctx, False)

    def modern(ctx: NodeContext) -> Expr:
        return convert(ctx, True)

    legacy.__doc__ = modern.__doc__ = f"``{onnx_op}`` as ``{build}`` over the axes."
    converter(onnx_op)(legacy)
    converter(onnx_op, since=moved)(modern)


for _op, _moved, _build in (
    ("ReduceSum", 13, "sum"),
    ("ReduceMean", 18, "mean"),
    ("ReduceMax", 18, "max"),
    ("ReduceMin", 18, "min"),
    ("ReduceProd", 18, "prod"),
    ("ReduceL1", 18, "sum"),
    ("ReduceL2", 18, "sum"),
    ("ReduceSumSquare", 18, "sum"),
    ("ReduceLogSum", 18, "sum"),
    ("ReduceLogSumExp", 18, "sum"),
):
    _register_reduce(_op, _moved, _build)


def _arg_reduce(ctx: NodeContext, op: str) -> Expr:
    axis = int(ctx.attr("axis", 0))
    out = ctx.call(
        op,
        ctx.input(0),
        axis=(axis,),
        keepdims=bool(ctx.attr("keepdims", 1)),
        select_last_index=bool(ctx.attr("select_last_index", 0)),
    )
    return ctx.call("cast", out, dtype="int64")


@converter("ArgMax")
def arg_max(ctx: NodeContext) -> Expr:
    """``cast(argmax(x, axis), int64)`` (Relay's indices are int32)."""
    return _arg_reduce(ctx, "argmax")


@converter("ArgMin")
def arg_min(ctx: NodeContext) -> Expr:
    """``cast(argmin(x, axis), int64)``."""
    return _arg_reduce(ctx, "argmin")


# -- softmax family ------------------------------------------------------------------------


def _flattened(ctx: NodeContext, build: str) -> Expr:
    """Opsets before 13: the input is read as a matrix (dims before ``axis``, dims from it),
    the operator applies to its rows, and the result has the input's shape."""
    x = ctx.input(0)
    shape = ctx.shape(0)
    axis = int(ctx.attr("axis", 1)) % max(len(shape), 1)
    rows = int(np.prod(shape[:axis], dtype=np.int64))
    matrix = ctx.call("reshape", x, newshape=(rows, -1))
    out = _softmax_like(ctx, build, matrix, -1)
    return ctx.call("reshape", out, newshape=shape)


def _softmax_like(ctx: NodeContext, build: str, x: Expr, axis: int) -> Expr:
    match build:
        case "softmax":
            return ctx.call("nn.softmax", x, axis=axis)
        case "log_softmax":
            return ctx.call("nn.log_softmax", x, axis=axis)
        case _:  # hardmax: one-hot of the first maximum
            t = ctx.tensor_type(x)
            depth = t.shape[axis]
            if not isinstance(depth, int):
                raise ctx.fail("Hardmax needs a static size on its axis")
            index = ctx.call("argmax", x, axis=(axis,), keepdims=False)
            on, off = ctx.scalar(1, t.dtype), ctx.scalar(0, t.dtype)
            return ctx.call("one_hot", index, on, off, depth=depth, axis=axis, dtype=t.dtype)


def _register_softmax(onnx_op: str, build: str) -> None:
    def legacy(ctx: NodeContext) -> Expr:
        return _flattened(ctx, build)

    def modern(ctx: NodeContext) -> Expr:
        return _softmax_like(ctx, build, ctx.input(0), int(ctx.attr("axis", -1)))

    legacy.__doc__ = f"Opsets 1-12: ``{build}`` over the flattened rows."
    modern.__doc__ = f"``{build}`` over ``axis``."
    converter(onnx_op)(legacy)
    converter(onnx_op, since=13)(modern)


_register_softmax("Softmax", "softmax")
_register_softmax("LogSoftmax", "log_softmax")
_register_softmax("Hardmax", "hardmax")


def items(e: Expr, n: int) -> list[Expr]:
    """The ``n`` fields of a tuple-valued expression."""
    return [TupleGetItem(e, i) for i in range(n)]


unsupported(
    "Relay's tensors hold numbers and booleans only (no strings)",
    "StringConcat",
    "StringNormalizer",
    "StringSplit",
    "RegexFullMatch",
    "TfIdfVectorizer",
)
unsupported(
    "its output's shape depends on the input's values: it needs TVM's argwhere, unique or "
    "vision.non_max_suppression, which the operator registry does not have",
    "NonZero",
    "Unique",
    "Compress",
    "NonMaxSuppression",
)
unsupported("random number generation has no Relay operator", "Bernoulli", "RandomUniformLike",
            "RandomNormalLike", "RandomUniform", "RandomNormal", "Multinomial")  # fmt: skip
unsupported(
    "ONNX sequences and optionals have no Relay counterpart here",
    "SequenceEmpty",
    "SequenceInsert",
    "SequenceLength",
    "SequenceMap",
    "SequenceAt",
    "SequenceConstruct",
    "SequenceErase",
    "SplitToSequence",
    "ConcatFromSequence",
    "OptionalHasElement",
    "OptionalGetElement",
    "Optional",
)
unsupported(
    "it needs a Relay operator the registry does not have (TVM's dft, image.grid_sample, "
    "image.affine_grid, vision.roi_align, nn.deformable_conv2d; no Relay operator inverts "
    "matrices, folds columns to images, unpools or decodes images)",
    "DFT",
    "STFT",
    "Det",
    "ImageDecoder",
    "GridSample",
    "AffineGrid",
    "RoiAlign",
    "DeformConv",
    "Col2Im",
    "MaxUnpool",
)
not_yet(
    "no converter yet: a composition of Relay operators could compute it",
    "MelWeightMatrix",
)
