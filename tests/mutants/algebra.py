"""Broken algebraic simplifications: SimplifyExpr-style rules, each sound on the values its
author pictured and wrong on others (floats that round or are not finite, integers that
truncate, operands whose order matters, clip intervals that do not nest).

Every mutant is a plain function ``IRModule -> IRModule`` (a pass author declares no focus
operators; the fuzzer has to find out what a pass touches) that applies one rule bottom-up to
every operator call, through ``rewrite_pairs`` with the input's types, and leaves every other
node as it was. Each rule fires on a motif of one operator applied to another operator's result
or to a constant, which is what the enumerated motif corpus of ``relay fuzz`` holds.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from relay.compiler.ir import map_functions, rewrite_pairs
from relay.semantics.ops.elementwise import ClipAttrs
from relay.semantics.ops.nn.activation import LeakyReluAttrs
from relay.semantics.syntax import (
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    IRModule,
    Op,
    TensorType,
)
from relay.semantics.typing import TypeInfo, infer_types

Rule = Callable[[Call, Call, TypeInfo], Expr | None]
"""``rule(original, rebuilt, types)``: the replacement of an operator call, or ``None``."""


def rewrite_calls(mod: IRModule, rule: Rule) -> IRModule:
    """``rule`` applied to every operator call of ``mod``, bottom-up, once."""
    types = infer_types(mod)

    def visit(original: Expr, rebuilt: Expr) -> Expr | None:
        if isinstance(original, Call) and isinstance(rebuilt, Call) and isinstance(rebuilt.op, Op):
            return rule(original, rebuilt, types)
        return None

    def one(_: GlobalVar, fn: Function) -> Function:
        out = rewrite_pairs(fn, visit)
        assert isinstance(out, Function)
        return out

    return map_functions(mod, one)


def _name(e: Expr) -> str | None:
    return e.op.name if isinstance(e, Call) and isinstance(e.op, Op) else None


def _tensor(types: TypeInfo, e: Expr) -> TensorType | None:
    t = types.expr_types.get(e)
    return t if isinstance(t, TensorType) else None


def _is_float(types: TypeInfo, e: Expr) -> bool:
    t = _tensor(types, e)
    return t is not None and t.dtype.startswith("float")


def _same_type(types: TypeInfo, a: Expr, b: Expr) -> bool:
    ta, tb = types.expr_types.get(a), types.expr_types.get(b)
    return ta is not None and ta == tb


def _call(name: str, *args: Expr, like: Call, attrs: object = None) -> Call:
    return Call(Op(name), args, attrs, span=like.span)  # type: ignore[arg-type]


def _scalar(e: Expr) -> float | None:
    """The value of a constant whose elements are all equal (any shape), else ``None``."""
    if isinstance(e, Constant) and e.data.size and np.all(e.data == e.data.flat[0]):
        return float(e.data.flat[0])
    return None


# -- (a + b) - b -> a ------------------------------------------------------------------------


def _same_node(a: Expr, b: Expr) -> bool:
    """The same node, or two constants of equal dtype, shape and bits."""
    if isinstance(a, Constant) and isinstance(b, Constant):
        return (
            a.data.dtype == b.data.dtype
            and a.data.shape == b.data.shape
            and (a.data.tobytes() == b.data.tobytes())
        )
    return a is b


def _add_sub_cancel_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.args:
        case "subtract", (Call(Op("add"), (a, b)), c) if _same_node(b, c):
            kept = original.args[0]
            assert isinstance(kept, Call)
            # BUG: exact in modular integer arithmetic, not in floats ((1e-3 + 1e8) - 1e8 is 0)
            return a if _same_type(types, kept.args[0], original) else None
    return None


def add_sub_cancel(mod: IRModule) -> IRModule:
    """SimplifyExpr's ``(a + b) - b -> a`` for every dtype. Exact for integers (wrapping or
    undefined on overflow), but for floats ``a + b`` rounds: ``(0.001 + 1e8) - 1e8`` is 0,
    and with ``b = inf`` it is NaN.

    Bug class: an unsound algebraic rewrite (reassociation of float arithmetic, which TVM's
    arithmetic simplifier did for floats until it was restricted to integers).
    """
    return rewrite_calls(mod, _add_sub_cancel_rule)


# -- x / c -> x * (1 / c) for integers -------------------------------------------------------


def _div_to_mul_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.args:
        case "divide", (x, Constant() as c) if c.data.size and np.all(c.data != 0):
            with np.errstate(all="ignore"):  # BUG: no check that the dtype is a float
                reciprocal = np.asarray(np.divide(1, c.data)).astype(c.data.dtype)
            return _call("multiply", x, Constant(reciprocal, span=c.span), like=e)
    return None


def int_div_to_mul(mod: IRModule) -> IRModule:
    """DivToMul without its float check: ``x / c -> x * (1 / c)`` with the reciprocal computed
    in ``c``'s dtype. For integers ``1 / 2`` is 0, so ``x / 2`` becomes ``x * 0``.

    Bug class: a float-only rewrite applied to integers (TVM's DivToMul checks the dtype).
    """
    return rewrite_calls(mod, _div_to_mul_rule)


# -- -max(a, b) -> max(-a, -b) ---------------------------------------------------------------


def _negate_extremum_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.args:
        case "negative", (Call(Op("maximum" | "minimum") as op, (a, b)) as inner,):
            # BUG: -max(a, b) is min(-a, -b); the same extremum is kept
            na = _call("negative", a, like=e)
            nb = _call("negative", b, like=e)
            return _call(op.name, na, nb, like=inner)
    return None


def negate_extremum(mod: IRModule) -> IRModule:
    """Push ``negative`` through ``maximum``/``minimum`` (``-max(a, b) -> max(-a, -b)``),
    keeping the extremum instead of swapping it: ``-max(1, 2)`` is -2, ``max(-1, -2)`` is -1.

    Bug class: min and max swapped in a rewrite (negation reverses the order).
    """
    return rewrite_calls(mod, _negate_extremum_rule)


# -- abs(x) -> x for "non-negative" x --------------------------------------------------------

_NON_NEGATIVE_OPS = frozenset({"abs", "exp", "sqrt", "nn.relu", "sigmoid"})


def _non_negative(e: Expr) -> bool:
    """A positivity analysis: ``e`` is at least zero (or NaN) whatever its inputs are."""
    if isinstance(e, Constant):
        return bool(e.data.size) and bool(np.all(np.asarray(e.data, np.float64) >= 0))
    name = _name(e)
    if name in _NON_NEGATIVE_OPS:
        return True
    if name == "multiply":
        assert isinstance(e, Call)
        a, b = e.args
        # BUG: "or" where it must be "and" (x * 2 is negative for negative x)
        return a is b or _non_negative(a) or _non_negative(b)
    if name == "add":
        assert isinstance(e, Call)
        return all(_non_negative(a) for a in e.args)
    return False


def _abs_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    if _name(e) == "abs" and _is_float(types, original):
        (x,) = e.args
        return x if _non_negative(original.args[0]) else None
    return None


def abs_of_non_negative(mod: IRModule) -> IRModule:
    """``abs(x) -> x`` for floats when a positivity analysis proves ``x >= 0``; the analysis
    calls a product non-negative when *either* factor is, so ``abs(x * 2f)`` becomes
    ``x * 2f``.

    Bug class: an unsound side condition (a range analysis with a wrong rule; TVM's
    ``abs``/``max`` simplifications rely on such bounds).
    """
    return rewrite_calls(mod, _abs_rule)


# -- x * 0 -> 0 ------------------------------------------------------------------------------


def _mul_zero_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    if _name(e) != "multiply":
        return None
    for i, (x, z) in enumerate((e.args, e.args[::-1])):
        if _scalar(z) == 0 and _same_type(types, original.args[i], original):
            return _call("zeros_like", x, like=e)  # BUG: inf * 0 and NaN * 0 are NaN
    return None


def mul_by_zero(mod: IRModule) -> IRModule:
    """SimplifyExpr's ``x * 0 -> zeros_like(x)`` for every dtype: right for integers, wrong for
    floats where ``x`` is infinite or NaN (``inf * 0f`` is NaN).

    Bug class: a fast-math identity without ``nnan``/``ninf``.
    """
    return rewrite_calls(mod, _mul_zero_rule)


# -- sqrt(x * x) -> abs(x) -------------------------------------------------------------------


def _sqrt_square_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.args:
        case "sqrt", (Call(Op("multiply"), (x, y)),) if x is y and _is_float(types, original):
            return _call("abs", x, like=e)  # BUG: x * x overflows to inf for |x| > 1.8e19
    return None


def sqrt_of_square(mod: IRModule) -> IRModule:
    """``sqrt(x * x) -> abs(x)`` for floats: exact up to rounding while ``x * x`` is finite,
    wrong once it overflows (``sqrt(1e20f * 1e20f)`` is ``inf``, ``abs(1e20f)`` is ``1e20f``).

    Bug class: a float rewrite exact on ordinary values and wrong on large ones (TVM's
    simplifier rewrote ``sqrt``/``rsqrt`` chains assuming real arithmetic).
    """
    return rewrite_calls(mod, _sqrt_square_rule)


# -- op(x, c) -> op(c, x) --------------------------------------------------------------------

_COMMUTATIVE = frozenset(
    {"add", "multiply", "maximum", "minimum", "equal", "not_equal", "logical_and", "logical_or",
     "bitwise_and", "bitwise_or", "bitwise_xor",
     "subtract", "divide", "floor_divide", "less", "greater"}  # BUG: the last five are not
)  # fmt: skip


def _constant_first_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.args:
        case str(name), (x, Constant() as c) if name in _COMMUTATIVE and not isinstance(
            x, Constant
        ):
            return Call(e.op, (c, x), e.attrs, e.type_args, span=e.span)
    return None


def constant_first(mod: IRModule) -> IRModule:
    """Canonicalize a binary operator so that its constant operand comes first
    (``add(%x, 1f) -> add(1f, %x)``), from a table of commutative operators that also lists
    ``subtract``, ``divide``, ``floor_divide``, ``less`` and ``greater``.

    Bug class: a wrong operator property table (commutativity); TVM's canonical simplifier
    had rules keyed on such tables.
    """
    return rewrite_calls(mod, _constant_first_rule)


# -- relu -> leaky_relu ----------------------------------------------------------------------


def _relu_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    if _name(e) == "nn.relu" and _is_float(types, original):
        # BUG: the legalisation table maps relu to leaky_relu with the framework default alpha
        return _call("nn.leaky_relu", *e.args, like=e, attrs=LeakyReluAttrs(alpha=0.01))
    return None


def relu_as_leaky_relu(mod: IRModule) -> IRModule:
    """An activation legalisation that maps ``nn.relu`` to ``nn.leaky_relu(alpha=0.01)`` (one
    kernel for both): equal on non-negative inputs, wrong on every negative one.

    Bug class: a wrong operator in a lowering table (the issue's own example).
    """
    return rewrite_calls(mod, _relu_rule)


# -- clip(clip(x, a, b), c, d) -> clip(x, ...) -----------------------------------------------


def _merge_clips_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.args:
        case "clip", (Call(Op("clip"), (x,), ClipAttrs(a, b)),):
            assert isinstance(e.attrs, ClipAttrs)
            c, d = e.attrs.a_min, e.attrs.a_max
            # BUG: the union of the intervals; the intersection is [max(a, c), min(b, d)]
            return _call("clip", x, like=e, attrs=ClipAttrs(a_min=min(a, c), a_max=max(b, d)))
    return None


def merge_clips_widening(mod: IRModule) -> IRModule:
    """SimplifyClip's merge of nested clips with min and max swapped: ``clip(clip(x, a, b), c,
    d)`` becomes ``clip(x, min(a, c), max(b, d))``, which clips to the wider interval.

    Bug class: min and max swapped (interval intersection computed as the hull).
    """
    return rewrite_calls(mod, _merge_clips_rule)


def _clip_from_extrema_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    if not _is_float(types, original):
        return None
    match _name(e), e.args:
        case "maximum" | "minimum" as outer, (Call(Op(inner), (x, c1)), c2) if (
            inner
            in (
                "maximum",
                "minimum",
            )
            and inner != outer
        ):
            lo, hi = _scalar(c1), _scalar(c2)
            if lo is None or hi is None or not _same_type(types, original.args[0], original):
                return None
            # BUG: the inner constant is taken as the lower bound in both orders; in
            # max(min(x, hi), lo) it is the upper one
            return _call("clip", x, like=e, attrs=ClipAttrs(a_min=lo, a_max=hi))
    return None


def clip_from_extrema(mod: IRModule) -> IRModule:
    """Recognise ``clip``: ``min(max(x, lo), hi) -> clip(x, lo, hi)`` (right) and
    ``max(min(x, hi), lo) -> clip(x, hi, lo)`` (bounds swapped: the inner constant is always
    taken as ``a_min``).

    Bug class: clip bounds swapped in a pattern rewrite.
    """
    return rewrite_calls(mod, _clip_from_extrema_rule)
