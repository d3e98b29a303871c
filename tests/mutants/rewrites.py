"""Broken algebraic rewrites: each is a SimplifyExpr / FoldScaleAxis / FoldConstant rule with
its side condition left out.

Every rule here is sound on the values a pass author tends to picture (finite floats,
non-negative integers, positive scales, casts that widen) and wrong elsewhere; the oracle
finds the elsewhere. Each mutant sets ``focus_ops`` so that ``relay fuzz`` draws dataflow
programs rich in the operators its rule matches.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from relay.compiler.ir import map_functions, rewrite_pairs
from relay.compiler.pass_manager import Pass
from relay.semantics.syntax import Call, Constant, Expr, Function, GlobalVar, IRModule, Op
from relay.semantics.syntax import TensorType as _TensorType
from relay.semantics.typing import TypeInfo, infer_types

Rule = Callable[[Call, Call, TypeInfo], Expr | None]
"""``rule(original, rebuilt, types)``: a replacement for an operator call, or ``None``.
``types`` are the input module's, keyed by the original nodes."""


def _op(e: Expr, *names: str) -> bool:
    return isinstance(e, Call) and isinstance(e.op, Op) and e.op.name in names


def _dtype(types: TypeInfo, e: Expr) -> str | None:
    t = types.expr_types.get(e)
    return t.dtype if isinstance(t, _TensorType) else None


def _is_float(types: TypeInfo, e: Expr) -> bool:
    dtype = _dtype(types, e)
    return dtype is not None and dtype.startswith("float")


def _is_int(types: TypeInfo, e: Expr) -> bool:
    dtype = _dtype(types, e)
    return dtype is not None and "int" in dtype


def apply_rule(mod: IRModule, rule: Rule) -> IRModule:
    """Apply ``rule`` to every operator call of ``mod``, bottom-up, once."""
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


def _call(name: str, *args: Expr, like: Call, attrs: object = None) -> Call:
    return Call(Op(name), args, attrs, span=like.span)  # type: ignore[arg-type]


# -- fast-math identities on floats ----------------------------------------------------------


def _fast_math_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    if not _is_float(types, original):
        return None
    match e.op.name, e.args:  # type: ignore[union-attr]
        case "subtract", (x, y) if x is y:
            return _call("zeros_like", x, like=e)  # x - x -> 0: wrong for inf and NaN
        case "divide", (x, y) if x is y:
            return _call("ones_like", x, like=e)  # x / x -> 1: wrong for 0, inf and NaN
        case "multiply", (x, Constant() as c) if c.data.ndim == 0 and c.data == 0:
            return _call("zeros_like", x, like=e)  # x * 0 -> 0: wrong for inf and NaN
        case "maximum" | "minimum", (x, y) if x is y:
            return x  # sound, kept so the rule set looks like SimplifyExpr's
    return None


@dataclass(frozen=True)
class FastMath(Pass):
    """SimplifyExpr with integer identities applied to floats: ``x - x -> zeros_like(x)``,
    ``x / x -> ones_like(x)``, ``x * 0f -> zeros_like(x)``. Each is wrong where ``x`` is inf
    or NaN (and ``x / x`` where it is 0), which ``acos``/``asin``/``atanh`` of an argument
    outside [-1, 1], or ``exp`` overflow, produce.

    Bug class: an unsound float rewrite (fast-math identities without ``nnan``/``ninf``; TVM's
    SimplifyExpr and arith simplifier took these for floats more than once).
    """

    focus_ops = frozenset({"subtract", "divide", "acos", "asin", "atanh"})

    def transform(self, mod: IRModule) -> IRModule:
        return apply_rule(mod, _fast_math_rule)


fast_math = FastMath()


# -- consecutive casts -----------------------------------------------------------------------


def _consecutive_cast_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match e.args:
        case (inner,) if e.op.name == "cast" and _op(inner, "cast"):  # type: ignore[union-attr]
            assert isinstance(inner, Call)
            # BUG: only sound when the inner cast widens (int8 -> int32 -> int64)
            return _call("cast", inner.args[0], like=e, attrs=e.attrs)
    return None


@dataclass(frozen=True)
class FoldConsecutiveCasts(Pass):
    """SimplifyExpr's consecutive-cast rule without its widening check:
    ``cast(cast(x, T1), T2) -> cast(x, T2)`` for every ``T1``. Dropping a narrowing inner cast
    changes the value: ``cast(cast(0.25f, int32), float32)`` is ``0f``, ``cast(0.25f,
    float32)`` is ``0.25f``; ``cast(cast(300, int8), int32)`` wraps, the fold does not.

    Bug class: cast folding that drops a narrowing cast (TVM's SimplifyConsecutiveCast had to
    be restricted to widening casts).
    """

    focus_ops = frozenset({"cast"})

    def transform(self, mod: IRModule) -> IRModule:
        return apply_rule(mod, _consecutive_cast_rule)


fold_consecutive_casts = FoldConsecutiveCasts()


# -- FoldScaleAxis through a non-linear operator ---------------------------------------------


def _scale_through_relu_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match e.op.name, e.args:  # type: ignore[union-attr]
        case "nn.relu", (Call(Op("multiply"), (x, scale)) as product,):
            # forward: relu(x * s) -> relu(x) * s, sound only for s >= 0
            return _call("multiply", _call("nn.relu", x, like=product), scale, like=e)
        case "multiply", (Call(Op("nn.relu"), (x,)) as activation, scale):
            # backward: relu(x) * s -> relu(x * s), sound only for s >= 0
            return _call("nn.relu", _call("multiply", x, scale, like=activation), like=e)
    return None


@dataclass(frozen=True)
class FoldScaleThroughRelu(Pass):
    """FoldScaleAxis that moves a per-channel scale through ``nn.relu`` (forward:
    ``relu(x * s) -> relu(x) * s``; backward: ``relu(x) * s -> relu(x * s)``) without
    checking that the scale is positive. With ``s = -1``, ``relu(-x)`` is not ``-relu(x)``.

    Bug class: FoldScaleAxis applied through a non-linear op (TVM's pass only folds through
    ``relu`` when every scale element is positive; its checks for that were fixed twice).
    """

    focus_ops = frozenset({"multiply", "nn.relu"})

    def transform(self, mod: IRModule) -> IRModule:
        return apply_rule(mod, _scale_through_relu_rule)


fold_scale_through_relu = FoldScaleThroughRelu()


# -- integer division: truncation taken for floor --------------------------------------------

_INT_FLOOR = {"divide": "floor_divide", "trunc_divide": "floor_divide", "mod": "floor_mod",
              "trunc_mod": "floor_mod"}  # fmt: skip


def _python_int_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    name = e.op.name  # type: ignore[union-attr]
    if name not in _INT_FLOOR or not _is_int(types, original):
        return None
    a, b = e.args
    if isinstance(a, Constant) and isinstance(b, Constant) and np.all(b.data != 0):
        # BUG: folded with Python's // and %, which round towards -inf
        fold = np.floor_divide if "divide" in name else np.mod
        with np.errstate(all="ignore"):
            return Constant(np.asarray(fold(a.data, b.data)).astype(a.data.dtype), span=e.span)
    # BUG: "for indices these agree", so the canonical (floor) form is used everywhere
    return _call(_INT_FLOOR[name], a, b, like=e, attrs=e.attrs)


@dataclass(frozen=True)
class IntDivideAsFloor(Pass):
    """A FoldConstant/CanonicalizeOps pair that evaluates integer ``divide`` and ``mod`` with
    Python's ``//`` and ``%`` and rewrites the ones it cannot fold to ``floor_divide`` and
    ``floor_mod``. Relay's integer ``divide`` truncates (``-3 / 2 = -1``, LLVM's ``sdiv``);
    floor division gives ``-2``.

    Bug class: integer division semantics changed by folding (TVM moved Relay's and TIR's
    integer division between truncdiv and floordiv, and constant folders written in Python
    used ``//`` for both).
    """

    focus_ops = frozenset({"divide", "trunc_mod", "mod", "trunc_divide"})

    def transform(self, mod: IRModule) -> IRModule:
        return apply_rule(mod, _python_int_rule)


int_divide_as_floor = IntDivideAsFloor()


# -- float mod: fmod taken for Python's % ----------------------------------------------------


def _float_mod_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    name = e.op.name  # type: ignore[union-attr]
    if name not in ("mod", "trunc_mod") or not _is_float(types, original):
        return None
    a, b = e.args
    if isinstance(a, Constant) and isinstance(b, Constant):
        with np.errstate(all="ignore"):  # BUG: Python's %, the sign of the divisor
            return Constant(np.asarray(np.mod(a.data, b.data)).astype(a.data.dtype), span=e.span)
    return _call("floor_mod", a, b, like=e, attrs=e.attrs)  # BUG: the same, not folded


@dataclass(frozen=True)
class FloatModAsFloor(Pass):
    """FoldConstant/SimplifyExpr that evaluates float ``mod`` with Python's ``%`` (numpy's
    ``mod``: the sign of the divisor) and rewrites the rest to ``floor_mod``. Relay's float
    ``mod`` is C's ``fmod`` (the sign of the dividend): ``mod(-0.25f, 1f)`` is ``-0.25f``,
    not ``0.75f``.

    Bug class: float ``%`` semantics (fmod vs floor mod) confused when folding.
    """

    focus_ops = frozenset({"mod", "trunc_mod"})

    def transform(self, mod: IRModule) -> IRModule:
        return apply_rule(mod, _float_mod_rule)


float_mod_as_floor = FloatModAsFloor()


__all__ = [
    "FastMath",
    "FloatModAsFloor",
    "FoldConsecutiveCasts",
    "FoldScaleThroughRelu",
    "IntDivideAsFloor",
    "apply_rule",
    "fast_math",
    "float_mod_as_floor",
    "fold_consecutive_casts",
    "fold_scale_through_relu",
    "int_divide_as_floor",
]
