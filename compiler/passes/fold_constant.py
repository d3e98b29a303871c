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
from ...semantics.syntax import (
    Call,
    Constant,
    Expr,
    IRModule,
    Let,
    Op,
    Tuple,
    TupleGetItem,
)
from ..ir import rewrite_module, substitute
from ..pass_manager import Pass, register_pass

MAX_FOLDED_ELEMENTS = 1 << 16
"""The largest result, in elements, that folding turns into a constant."""

UNFOLDABLE_FAMILIES = frozenset({"annotation"})
"""Operator families never folded."""


def constant_input(e: Expr) -> object | None:
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
    if any(i is None for i in inputs):
        return None
    try:
        with np.errstate(all="ignore"):
            out = opdef.reference(tuple(inputs), e.attrs)  # type: ignore[arg-type]
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
        case Let(var, Constant() as value, body):
            return substitute(body, {var: value})
    return None


@register_pass
@dataclass(frozen=True)
class FoldConstant(Pass):
    """Evaluate operator calls on constants, projections of constant tuples and let-bound
    constants.

    Pre: well-typed. Post: same meaning and types; no foldable call on constants remains.
    """

    opt_level = 2

    def transform(self, mod: IRModule) -> IRModule:
        return rewrite_module(mod, fold)
