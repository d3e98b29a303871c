"""EliminateCommonSubexpr: compute each repeated operator call once.

Pre: a well-formed module. Post: the same meaning and types; where two calls of the same
operator, with equal attributes, on the same arguments (the same nodes, after their own
arguments were merged) are evaluated in the same scope, the later one is replaced by the
earlier, which becomes a shared node (``%N`` in the text: evaluated once, where its first use
is).

Only operator calls merge: they are pure, so evaluating one once instead of twice changes
nothing. Calls of functions and constructors, and reference operations, are never merged
(``ref(0)`` twice makes two cells). Scopes are those of ``sharing``: a function body, an
``if`` branch, a ``match`` clause; calls in different scopes are not merged, since moving a
call out of a branch could evaluate it where the program did not. Annotation operators are
not merged (TVM's pass skipped them too).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...semantics.ops import OPS
from ...semantics.sharing import sharing_plan
from ...semantics.syntax import Call, Expr, Function, GlobalVar, IRModule, Op
from ..ir import map_functions, rewrite_pairs
from ..pass_manager import Pass, register_pass


def _attrs_key(attrs: object) -> object:
    """A hashable, NaN-safe key for attributes (``repr`` tells 1 from 1.0 and True)."""
    return repr(attrs)


def eliminate(fn: Function) -> Function:
    """Merge repeated operator calls of ``fn`` within each scope."""
    plan = sharing_plan(fn)
    seen: dict[tuple[object, ...], Expr] = {}

    def visit(original: Expr, rebuilt: Expr) -> Expr | None:
        if not (isinstance(rebuilt, Call) and isinstance(rebuilt.op, Op)):
            return None
        opdef = OPS.get(rebuilt.op.name)
        if opdef is None or opdef.family == "annotation":
            return None
        scope = plan.scope.get(original)
        if scope is None:
            return None
        key = (scope, rebuilt.op.name, _attrs_key(rebuilt.attrs), *(id(a) for a in rebuilt.args))
        earlier = seen.get(key)
        if earlier is not None:
            return earlier
        seen[key] = rebuilt
        return None

    out = rewrite_pairs(fn, visit)
    assert isinstance(out, Function)
    return out


@register_pass
@dataclass(frozen=True)
class EliminateCommonSubexpr(Pass):
    """Merge repeated operator calls within a scope.

    Pre: well-formed. Post: same meaning and types; no two calls of one operator with equal
    attributes on the same arguments in the same scope.
    """

    opt_level = 3

    def transform(self, mod: IRModule) -> IRModule:
        def one(_: GlobalVar, fn: Function) -> Function:
            return eliminate(fn)

        return map_functions(mod, one)
