"""DeadCodeElimination: remove ``let`` bindings whose variable is never used.

Pre: a well-formed module. Post: the same meaning; no ``let`` whose variable is unused and
whose value is pure remains. A value is pure when evaluating it cannot touch a reference or
call a function (``ir.is_pure``): creating a closure, building tuples and constructors and
calling operators are pure; ``ref``, ``ref_read``, ``ref_write``, ``match?`` and calls of
functions are kept even when their result is unused, because they may have an effect, fail
or not terminate. (An operator call may fail at run time; a program whose input fails is
undefined for the oracle, so removing it is allowed.) TVM's pass with ``inline_once=False``.
Where a removed let's annotation was what fixed a global's inferred type, the global gets its
inferred types written as annotations first (``infer_type.keep_global_types``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...semantics.syntax import Expr, Function, IRModule, Let, Var, children, post_order
from ..ir import is_pure, map_functions, rewrite
from ..pass_manager import Pass, register_pass
from .infer_type import keep_global_types


def use_counts(root: Expr) -> dict[int, int]:
    """How many parent edges point at each variable (a shared node's edges count once)."""
    counts: dict[int, int] = {}
    for e in post_order(root):
        for c in children(e):
            if isinstance(c, Var):
                counts[id(c)] = counts.get(id(c), 0) + 1
    return counts


def sweep(fn: Function) -> tuple[Function, bool]:
    """One round: remove the dead pure lets of ``fn`` as it is; whether any was removed."""
    counts = use_counts(fn)
    removed = False

    def visit(e: Expr) -> Expr | None:
        nonlocal removed
        if isinstance(e, Let) and not counts.get(id(e.var)) and is_pure(e.value):
            removed = True
            return e.body
        return None

    out = rewrite(fn, visit)
    assert isinstance(out, Function)
    return out, removed


def eliminate(fn: Function) -> Function:
    """Remove dead pure lets from ``fn`` until none is left (removing one can make the
    variables its value used dead too)."""
    removed = True
    while removed:
        fn, removed = sweep(fn)
    return fn


@register_pass
@dataclass(frozen=True)
class DeadCodeElimination(Pass):
    """Remove unused pure ``let`` bindings.

    Pre: well-formed. Post: same meaning and types; every remaining ``let`` variable is used
    or its value may have an effect.
    """

    opt_level = 1

    def transform(self, mod: IRModule) -> IRModule:
        out = eliminate_all(mod)
        if all(out.functions[gv] is f for gv, f in mod.functions.items()):
            return out
        return keep_global_types(mod, out, eliminate_all)


def eliminate_all(mod: IRModule) -> IRModule:
    """``eliminate`` applied to every global function."""
    return map_functions(mod, lambda _, fn: eliminate(fn))
