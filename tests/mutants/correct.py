"""Correct but non-trivial passes: the false-alarm checks of the mutation corpus.

Each is the fixed version of a mutant in this folder (or of a built-in pass written another
way), with the side condition the mutant leaves out. ``relay fuzz`` must never report one:
a report here is a bug in the oracle (a tolerance too tight, a check that confuses two
equivalent programs), not in the pass. They rewrite the same motifs as their broken
counterparts, so a fuzzer steered towards what a pass touches exercises them as hard.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from relay.compiler.ir import free_vars, is_pure, map_functions, rewrite, rewrite_pairs
from relay.semantics.ops.elementwise import ClipAttrs
from relay.semantics.ops.shape import TransposeAttrs
from relay.semantics.sharing import sharing_plan
from relay.semantics.syntax import (
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    If,
    IRModule,
    Let,
    Op,
    TensorType,
    children,
    post_order,
)
from relay.semantics.typing import TypeInfo, infer_types

Rule = Callable[[Call, Call, TypeInfo], Expr | None]

CORRECT: tuple[str, ...] = (
    "relu_idempotent",
    "cse_respecting_attrs",
    "fuse_transposes",
    "float_pure_lets",
    "fold_add_multiply",
    "abs_of_non_negative",
    "merge_clips",
    "if_not_swapped",
)
"""Every correct pass of this file, by attribute name."""


def rewrite_calls(mod: IRModule, rule: Rule) -> IRModule:
    """``rule(original, rebuilt, types)`` applied to every operator call, bottom-up, once."""
    types = infer_types(mod)

    def visit(original: Expr, rebuilt: Expr) -> Expr | None:
        if isinstance(original, Call) and isinstance(rebuilt, Call) and isinstance(rebuilt.op, Op):
            return rule(original, rebuilt, types)
        return None

    return _each_function(mod, visit)


def _each_function(mod: IRModule, visit: Callable[[Expr, Expr], Expr | None]) -> IRModule:
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


# -- relu(relu(x)) -> relu(x) ----------------------------------------------------------------


def _relu_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.args:
        case "nn.relu", (Call(Op("nn.relu")) as inner,):
            return inner  # relu is idempotent: max(max(x, 0), 0) = max(x, 0), NaN included
    return None


def relu_idempotent(mod: IRModule) -> IRModule:
    """``nn.relu(nn.relu(x)) -> nn.relu(x)``: exact (idempotent for every value)."""
    return rewrite_calls(mod, _relu_rule)


# -- CSE keyed on operator, attributes and arguments -----------------------------------------


def cse_respecting_attrs(mod: IRModule) -> IRModule:
    """EliminateCommonSubexpr written independently of the built-in one: operator calls keyed
    on the operator, ``repr`` of the attributes (which tells ``1`` from ``1.0`` and ``0.0``
    from ``-0.0``), type arguments and argument nodes, merged only within one scope of
    ``relay.semantics.sharing``; constants merged anywhere when dtype, shape and bits agree."""

    def one(_: GlobalVar, fn: Function) -> Function:
        plan = sharing_plan(fn)
        seen: dict[tuple[object, ...], Expr] = {}

        def visit(original: Expr, rebuilt: Expr) -> Expr | None:
            if isinstance(rebuilt, Constant):
                data = rebuilt.data
                key: tuple[object, ...] = ("const", data.dtype.str, data.shape, data.tobytes())
            elif isinstance(rebuilt, Call) and isinstance(rebuilt.op, Op):
                scope = plan.scope.get(original)
                if scope is None:
                    return None
                key = (scope, rebuilt.op.name, repr(rebuilt.attrs), rebuilt.type_args)
                key += tuple(rebuilt.args)
            else:
                return None
            earlier = seen.setdefault(key, rebuilt)
            return None if earlier is rebuilt else earlier

        out = rewrite_pairs(fn, visit)
        assert isinstance(out, Function)
        return out

    return map_functions(mod, one)


# -- transpose(transpose(x, p), q) -> transpose(x, p[q]) -------------------------------------


def _perm(attrs: object, rank: int) -> tuple[int, ...]:
    assert isinstance(attrs, TransposeAttrs)
    if attrs.axes is None:
        return tuple(range(rank - 1, -1, -1))
    return tuple(a % rank for a in attrs.axes)


def _transposes_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.args:
        case "transpose", (Call(Op("transpose"), (x,), inner_attrs),):
            t = _tensor(types, original)
            if t is None:
                return None
            rank = len(t.shape)
            p, q = _perm(inner_attrs, rank), _perm(e.attrs, rank)
            composed = tuple(p[q[i]] for i in range(rank))  # out[i] = y[q[i]] = x[p[q[i]]]
            if composed == tuple(range(rank)):
                return x
            return Call(Op("transpose"), (x,), TransposeAttrs(axes=composed), span=e.span)
    return None


def fuse_transposes(mod: IRModule) -> IRModule:
    """``transpose(transpose(x, axes=p), axes=q) -> transpose(x, axes=p[q])`` (``x`` when the
    composition is the identity), with ``axes=None`` read as the reversal and negative axes
    normalised."""
    return rewrite_calls(mod, _transposes_rule)


# -- let floating restricted to pure values --------------------------------------------------


def float_pure_lets(mod: IRModule) -> IRModule:
    """Swap two adjacent ``let``s when the second does not use the first's variable *and*
    both values are pure (``ir.is_pure``: no reference operation, no call of a function, no
    ``match?``): independent by data flow and by effects, so the order is free."""

    def one(_: GlobalVar, fn: Function) -> Function:
        parents: dict[Expr, int] = {}
        for e in post_order(fn):
            for c in children(e):
                parents[c] = parents.get(c, 0) + 1

        def visit(original: Expr, e: Expr) -> Expr | None:
            if not isinstance(original, Let) or parents.get(original.body, 0) != 1:
                return None
            match e:
                case Let(a, first, Let(b, second, body) as inner) if a not in free_vars(second):
                    if is_pure(first) and is_pure(second):
                        return Let(b, second, Let(a, first, body, span=e.span), span=inner.span)
            return None

        out = rewrite_pairs(fn, visit)
        assert isinstance(out, Function)
        return out

    return map_functions(mod, one)


# -- constant folding of add, subtract, multiply ---------------------------------------------

_KERNELS = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply}
_FOLDABLE = frozenset(
    {"int8", "int16", "int32", "int64", "uint8", "uint16", "float16", "float32", "float64"}
)
"""Dtypes whose arithmetic numpy computes as Relay does: IEEE for floats (float16 through
float32 and one rounding, exact for these three operations), two's complement wrapping for
integers (Relay's 32- and 64-bit signed overflow is undefined, so any result is acceptable)."""


def _fold_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    name = _name(e)
    if name not in _KERNELS:
        return None
    a, b = e.args
    t = _tensor(types, original)
    if not (isinstance(a, Constant) and isinstance(b, Constant)) or t is None:
        return None
    if t.dtype not in _FOLDABLE or a.data.dtype != b.data.dtype or a.data.dtype.name != t.dtype:
        return None
    with np.errstate(all="ignore"):
        folded = np.asarray(_KERNELS[name](a.data, b.data)).astype(t.dtype)
    return Constant(folded, span=e.span)


def fold_add_multiply(mod: IRModule) -> IRModule:
    """FoldConstant for ``add``, ``subtract`` and ``multiply`` of two constants, bottom-up (so
    chains fold), computed by numpy in the operands' dtype with broadcasting; bool operands
    are left alone (numpy's ``add`` of bools is ``or``)."""
    return rewrite_calls(mod, _fold_rule)


# -- abs(x) -> x for non-negative x ----------------------------------------------------------

_NON_NEGATIVE_OPS = frozenset({"abs", "exp", "sqrt", "nn.relu", "sigmoid"})


def _non_negative(e: Expr) -> bool:
    """``e`` is at least zero, or NaN, whatever its inputs are (floats)."""
    if isinstance(e, Constant):
        return bool(e.data.size) and bool(np.all(np.asarray(e.data, np.float64) >= 0))
    name = _name(e)
    if name in _NON_NEGATIVE_OPS:
        return True
    if name in ("multiply", "add"):
        assert isinstance(e, Call)
        x, y = e.args
        return (name == "multiply" and x is y) or (_non_negative(x) and _non_negative(y))
    return False


def _abs_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    t = _tensor(types, original)
    if _name(e) == "abs" and t is not None and t.dtype.startswith("float"):
        (x,) = e.args
        return x if _non_negative(original.args[0]) else None
    return None


def abs_of_non_negative(mod: IRModule) -> IRModule:
    """``abs(x) -> x`` for floats when ``x`` is non-negative or NaN by construction (``exp``,
    ``sqrt``, ``abs``, ``relu``, ``sigmoid``, ``y * y``, products and sums of such, and
    constants >= 0). ``abs(-0f)`` is ``0f``, which the comparison holds equal to ``-0f``."""
    return rewrite_calls(mod, _abs_rule)


# -- clip(clip(x, a, b), c, d) -> clip(x, max(a, c), min(b, d)) ------------------------------


def _clips_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.args, e.attrs:
        case "clip", (Call(Op("clip"), (x,), ClipAttrs(a, b)),), ClipAttrs(c, d):
            lo, hi = max(a, c), min(b, d)
            if not lo <= hi:  # disjoint intervals: the result is a constant, leave it
                return None
            return Call(e.op, (x,), ClipAttrs(a_min=lo, a_max=hi), span=e.span)
    return None


def merge_clips(mod: IRModule) -> IRModule:
    """``clip(clip(x, a, b), c, d) -> clip(x, max(a, c), min(b, d))`` when the intervals
    overlap (the bounds are among the original ones, so they convert to ``x``'s dtype as
    before)."""
    return rewrite_calls(mod, _clips_rule)


# -- if (not c) {a} else {b} -> if (c) {b} else {a} ------------------------------------------


def _if_not(e: Expr) -> Expr | None:
    match e:
        case If(Call(Op("logical_not"), (c,)), then, otherwise):
            return If(c, otherwise, then, span=e.span)
    return None


def if_not_swapped(mod: IRModule) -> IRModule:
    """``if (logical_not(c)) { a } else { b } -> if (c) { b } else { a }``."""

    def one(_: GlobalVar, fn: Function) -> Function:
        out = rewrite(fn, _if_not)
        assert isinstance(out, Function)
        return out

    return map_functions(mod, one)


__all__ = [*CORRECT, "CORRECT"]
