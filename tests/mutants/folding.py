"""Broken constant folding and cast handling: integer width, rounding mode, and the order of
a cast and the arithmetic under it.

A constant folder evaluates an operator call whose operands are constants with some
implementation of the operator that is not the operator's own reference; every mutant here
picks one that differs from Relay's semantics on a corner (halves, overflow, truncation).
Each is a plain function ``IRModule -> IRModule`` that rewrites only the calls its rule
matches (this file is loaded by path, so it repeats the few lines of driver it needs).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from relay.compiler.ir import map_functions, rewrite_pairs
from relay.semantics.ops.elementwise import CastAttrs
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


def rewrite_calls(mod: IRModule, rule: Rule) -> IRModule:
    """``rule(original, rebuilt, types)`` applied to every operator call, bottom-up, once."""
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


def _dtype(types: TypeInfo, e: Expr) -> str | None:
    t = types.expr_types.get(e)
    return t.dtype if isinstance(t, TensorType) else None


def _name(e: Expr) -> str | None:
    return e.op.name if isinstance(e, Call) and isinstance(e.op, Op) else None


# -- round: half to even ---------------------------------------------------------------------


def _round_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.args:
        case "round", (Constant() as c,):
            # BUG: numpy's round is half to even; Relay's round takes halves away from zero
            return Constant(
                np.round(np.asarray(c.data, np.float64)).astype(c.data.dtype), span=e.span
            )
    return None


def fold_round_half_even(mod: IRModule) -> IRModule:
    """FoldConstant that evaluates ``round`` of a constant with ``np.round``, which rounds
    halves to even: ``round(0.5f)`` folds to 0, Relay's ``round`` gives 1 (halves away from
    zero, as LLVM's ``llvm.round``).

    Bug class: a rounding mode confused in constant folding (round-half-even vs away).
    """
    return rewrite_calls(mod, _round_rule)


# -- integer arithmetic folded in int64 and saturated ----------------------------------------

_ARITHMETIC = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply}


def _saturating_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    name = _name(e)
    if name not in _ARITHMETIC:
        return None
    a, b = e.args
    dtype = _dtype(types, original)
    if not (isinstance(a, Constant) and isinstance(b, Constant)) or dtype is None:
        return None
    if dtype not in ("int8", "int16", "uint8", "uint16"):
        return None
    wide = _ARITHMETIC[name](a.data.astype(np.int64), b.data.astype(np.int64))
    info = np.iinfo(dtype)
    # BUG: narrow integers wrap (two's complement); the folder saturates
    folded = np.clip(wide, info.min, info.max).astype(dtype)
    return Constant(np.asarray(folded), span=e.span)


def fold_int_saturating(mod: IRModule) -> IRModule:
    """FoldConstant of ``add``/``subtract``/``multiply`` on 8- and 16-bit integer constants,
    computed in ``int64`` and clamped to the dtype's range: ``100i8 + 100i8`` folds to 127
    where Relay's 8-bit arithmetic wraps to -56.

    Bug class: integer width in constant folding (an int8 overflow folded in int64).
    """
    return rewrite_calls(mod, _saturating_rule)


# -- cast(a op b, wide) -> cast(a, wide) op cast(b, wide) ------------------------------------

_WIDTH = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}


def _widen_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.args, e.attrs:
        case "cast", (Call(Op("add" | "subtract" | "multiply") as op, (a, b)) as inner,), CastAttrs(
            wide
        ):
            narrow = _dtype(types, original.args[0])
            if narrow not in _WIDTH or wide not in _WIDTH or _WIDTH[wide] <= _WIDTH[narrow]:
                return None
            # BUG: "widen early to save the cast": the narrow arithmetic wrapped, the wide
            # one does not
            ca = Call(Op("cast"), (a,), CastAttrs(dtype=wide), span=e.span)
            cb = Call(Op("cast"), (b,), CastAttrs(dtype=wide), span=e.span)
            return Call(op, (ca, cb), inner.attrs, span=inner.span)
    return None


def widen_before_cast(mod: IRModule) -> IRModule:
    """Move a widening integer cast below the arithmetic it converts: ``cast(add(a, b),
    int32)`` with 8-bit ``a``, ``b`` becomes ``add(cast(a, int32), cast(b, int32))``. Equal
    while ``a + b`` fits in 8 bits; where it wraps (``100i8 + 100i8 = -56``) the wide sum
    does not.

    Bug class: integer width (narrow wrapping arithmetic promoted; TVM's casting passes had
    to keep the narrow operation where it can overflow).
    """
    return rewrite_calls(mod, _widen_rule)


# -- cast(float constant, int): rounded ------------------------------------------------------


def _cast_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.args, e.attrs:
        case "cast", (Constant() as c,), CastAttrs(dtype) if c.data.dtype.kind == "f":
            if "int" not in dtype or not np.all(np.isfinite(c.data)):
                return None
            info, data = np.iinfo(dtype), np.asarray(c.data, np.float64)
            if np.any(data < info.min) or np.any(data > info.max):
                return None  # out of range: undefined, leave it
            # BUG: a float-to-integer conversion truncates towards zero; rint rounds
            return Constant(np.rint(c.data).astype(dtype), span=e.span)
    return None


def fold_cast_rounding(mod: IRModule) -> IRModule:
    """FoldConstant of ``cast`` from a float constant to an integer dtype with ``np.rint``
    (round to nearest): ``cast(1.7f, int32)`` folds to 2; the conversion truncates to 1.

    Bug class: cast folding with the wrong conversion (truncation vs rounding).
    """
    return rewrite_calls(mod, _cast_rule)
