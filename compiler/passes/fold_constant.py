"""FoldConstant: evaluate at compile time what depends only on constants.

Pre: a well-typed module. Post: the same meaning and types, with

- every operator call whose arguments are all constants (or tuples of constants) replaced by
  its value: a ``Constant``, or a tuple of them for an operator with a tuple result;
- every projection ``(c0, .., cn).i`` of a tuple of constants replaced by ``ci``;
- every ``let`` whose value is a constant removed, the constant put in its place.

Calls are folded with the operators' reference semantics, so a folded value is exactly what
evaluation would compute. A call whose evaluation fails (undefined behaviour, a failed
precondition) is left alone, as are the annotation operators (their placement is the point
of them), operators with no reference, and results of more than ``MAX_FOLDED_ELEMENTS``
elements (a ``zeros`` of a large shape stays a call rather than becoming a huge constant).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...semantics.errors import RelayError
from ...semantics.ops import OPS
from ...semantics.ops.registry import OpInput
from ...semantics.syntax import (
    Call,
    Constant,
    Expr,
    Function,
    IRModule,
    Let,
    Op,
    Tuple,
    TupleGetItem,
    Var,
    children,
    post_order,
)
from ..ir import map_functions, with_children
from ..pass_manager import Pass, register_pass

MAX_FOLDED_ELEMENTS = 1 << 16
"""The largest result, in elements, that folding turns into a constant."""

UNFOLDABLE_FAMILIES = frozenset({"annotation"})
"""Operator families never folded."""


def constant_input(e: Expr) -> OpInput | None:
    """The operator input ``e`` denotes if it is constant: an array, or a tuple of arrays."""
    if isinstance(e, Constant):
        return e.data
    if isinstance(e, Tuple) and all(isinstance(f, Constant) for f in e.fields):
        return tuple(f.data for f in e.fields if isinstance(f, Constant))
    return None


def fold_call(e: Call) -> Expr | None:
    """The value of an operator call on constants, as an expression; ``None`` to keep it."""
    if not isinstance(e.op, Op):
        return None
    opdef = OPS.get(e.op.name)
    if opdef is None or opdef.reference is None or opdef.family in UNFOLDABLE_FAMILIES:
        return None
    inputs = [constant_input(a) for a in e.args]
    arrays = tuple(i for i in inputs if i is not None)
    if len(arrays) != len(inputs):
        return None
    try:
        with np.errstate(all="ignore"):
            out = opdef.reference(arrays, e.attrs)
    except RelayError:
        return None
    arrays = out if isinstance(out, tuple) else (out,)
    if sum(a.size for a in arrays) > MAX_FOLDED_ELEMENTS:
        return None
    if isinstance(out, tuple):
        return Tuple(tuple(Constant(np.asarray(a), span=e.span) for a in out), span=e.span)
    return Constant(np.asarray(out), span=e.span)


def fold(e: Expr) -> Expr | None:
    """One folding step at node ``e`` (whose children are already folded)."""
    match e:
        case Call():
            return fold_call(e)
        case TupleGetItem(Tuple(fields), index) if all(isinstance(f, Constant) for f in fields):
            return fields[index]
    return None


def fold_function(fn: Function) -> Function:
    """``fn`` folded bottom-up. A let whose value folds to a constant is dropped and its
    uses (visited after the value) read the constant, so folding continues through them."""
    lets_of_value: dict[int, list[Var]] = {}
    for e in post_order(fn):
        if isinstance(e, Let):
            lets_of_value.setdefault(id(e.value), []).append(e.var)
    constant_of: dict[int, Constant] = {}
    done: dict[int, Expr] = {}
    for e in post_order(fn):
        if isinstance(e, Var) and id(e) in constant_of:
            done[id(e)] = constant_of[id(e)]
            continue
        rebuilt = with_children(e, tuple(done[id(c)] for c in children(e)))
        if isinstance(e, Let) and id(e.var) in constant_of:
            out: Expr = done[id(e.body)]
        else:
            out = fold(rebuilt) or rebuilt
        done[id(e)] = out
        if isinstance(out, Constant):
            for var in lets_of_value.get(id(e), []):
                constant_of[id(var)] = out
    result = done[id(fn)]
    assert isinstance(result, Function)
    return result


@register_pass
@dataclass(frozen=True)
class FoldConstant(Pass):
    """Evaluate operator calls on constants, projections of constant tuples and let-bound
    constants.

    Pre: well-typed. Post: same meaning and types; no foldable call on constants remains.
    """

    opt_level = 2

    def transform(self, mod: IRModule) -> IRModule:
        return map_functions(mod, lambda _, fn: fold_function(fn))
