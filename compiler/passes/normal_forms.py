"""The normal forms: ToANormalForm, ToGraphNormalForm, ToBasicBlockNormalForm.

All three keep the meaning, including the order of effects: where a shared sub-expression is
evaluated is fixed by ``semantics.sharing`` (once, in the innermost scope holding all its uses,
before its first use), and the passes make that place explicit or implicit.

- **A-normal form** (``ToANormalForm``): every compound sub-expression (a call, tuple,
  projection, ``if``, ``match``, function or reference operation) that is an operand is bound
  by a ``let`` to a fresh variable, in evaluation order, in the block (function body, ``if``
  branch, ``match`` clause) that evaluates it; operands become atoms (variables, constants,
  globals, operators, constructors). A shared node is bound once, in its scope, and every use
  reads the variable. Existing ``let``s in operand position are flattened into the block.
- **Graph normal form** (``ToGraphNormalForm``): the inverse for pure bindings: each ``let``
  whose value is pure (``ir.is_pure``) and does not mention its own variable is removed, its
  uses pointing at the value itself, which becomes a shared node. Impure lets stay, since
  sharing would move their effects. A global whose inferred type would change without its
  lets' type annotations (the annotation was the only source of a type) keeps its annotated
  lets, or if that is not enough, its original form.
- **Basic-block normal form** (``ToBasicBlockNormalForm``): graph form inside each block, but a
  shared node used inside the branches of an ``if`` or the clauses of a ``match`` (and
  evaluated before entering them) is bound by a ``let`` placed just before that expression,
  after its own operands (the condition, the scrutinee), which are bound first. Shared nodes
  used inside a function literal stay shared: a let cannot come between a let-bound
  (possibly recursive) function and its binder.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from ...semantics.equality import alpha_equal
from ...semantics.errors import RelayTypeError
from ...semantics.sharing import SharingPlan, opens_scope, sharing_plan
from ...semantics.syntax import (
    ATOMS,
    Expr,
    Function,
    GlobalVar,
    If,
    IRModule,
    Let,
    Match,
    Type,
    Var,
    children,
    post_order,
)
from ...semantics.typing import infer_types
from ..ir import free_vars, is_pure, map_functions, with_children
from ..pass_manager import Pass, register_pass

# ---------------------------------------------------------------------------------------------
# A-normal form


def bound_before(opener: Expr, plan: SharingPlan) -> list[Expr]:
    """The shared nodes of ``opener``'s scope to bind just before it: those the plan hoists
    there, and those nested inside another shared node that lie in ``opener``'s scopes (the
    plan evaluates them with the enclosing node, at their first use; a let must bind them in
    the scope that holds all their uses), in the order they complete."""
    if not isinstance(opener, If | Match | Function):
        return []
    out = list(plan.hoisted.get(opener, []))
    scope = plan.scope.get(opener)
    taken = {id(h) for h in out}
    kids = children(opener)
    for i, c in enumerate(kids):
        if not opens_scope(opener, i):
            continue
        for n in post_order(c):
            if n in plan.shared and id(n) not in taken and plan.scope.get(n) == scope:
                taken.add(id(n))
                out.append(n)
    return out


class _Anf:
    """The conversion of one global function to A-normal form."""

    def __init__(self, fn: Function) -> None:
        self.plan = sharing_plan(fn)
        self.memo: dict[int, Expr] = {}  # shared node -> the atom that holds its value
        self.count = 0

    def fresh(self) -> Var:
        self.count += 1
        return Var(f"a{self.count}")

    def block(self, e: Expr) -> Expr:
        """``e`` as a block: its bindings, then its result."""
        bindings: list[tuple[Var, Expr]] = []
        result = self.atom(e, bindings)
        for var, value in reversed(bindings):
            result = Let(var, value, result)
        return result

    def atom(self, e: Expr, bindings: list[tuple[Var, Expr]]) -> Expr:
        """Bind what ``e`` needs in ``bindings``; return an atom for it."""
        known = self.memo.get(id(e))
        if known is not None:
            return known
        if isinstance(e, Let):
            # Flattened into the block; a shared let is evaluated here, at its first use.
            inner: Expr = e
            while isinstance(inner, Let) and (inner is e or inner not in self.plan.shared):
                value = inner.value
                known = self.memo.get(id(value))
                bindings.append((inner.var, known or self.compound(value, bindings)))
                if value in self.plan.shared and known is None:
                    self.memo[id(value)] = inner.var  # a shared value is evaluated once
                inner = inner.body
            result = self.atom(inner, bindings)
            if e in self.plan.shared:
                self.memo[id(e)] = result
            return result
        if isinstance(e, ATOMS):
            return e
        value = self.compound(e, bindings)
        var = self.fresh()
        bindings.append((var, value))
        if e in self.plan.shared:
            self.memo[id(e)] = var
        return var

    def compound(self, e: Expr, bindings: list[tuple[Var, Expr]]) -> Expr:
        """``e`` with its operands made atoms (bound in ``bindings``) and its scopes made
        blocks."""
        if isinstance(e, ATOMS):
            return e
        known = self.memo.get(id(e))
        if known is not None:
            return known
        if isinstance(e, Let):
            return self.atom(e, bindings)
        kids = children(e)
        out: list[Expr | None] = [None] * len(kids)
        for i, c in enumerate(kids):  # operands first, in evaluation order
            if not opens_scope(e, i):
                out[i] = self.atom(c, bindings)
        for h in bound_before(e, self.plan):  # shared nodes of this scope used inside
            self.atom(h, bindings)
        for i, c in enumerate(kids):
            if opens_scope(e, i):
                out[i] = self.block(c)
        return with_children(e, tuple(x for x in out if x is not None))


def to_anf(fn: Function) -> Function:
    """``fn`` in A-normal form."""
    return replace(fn, body=_Anf(fn).block(fn.body))


# ---------------------------------------------------------------------------------------------
# Graph normal form


def to_graph(fn: Function, *, keep_annotated: bool = False) -> Function:
    """``fn`` with its pure, non-recursive lets removed (with ``keep_annotated``, only those
    whose variable has no type annotation)."""
    lets: dict[int, Let] = {}  # id(var) -> its let
    for e in post_order(fn):
        if (
            isinstance(e, Let)
            and is_pure(e.value)
            and e.var not in free_vars(e.value)
            and not (keep_annotated and e.var.type_annotation is not None)
        ):
            lets[id(e.var)] = e
    done: dict[int, Expr] = {}
    for e in post_order(fn):
        let = lets.get(id(e)) if isinstance(e, Var) else None
        if let is not None:
            done[id(e)] = done[id(let.value)]  # the value comes before the body
        elif isinstance(e, Let) and id(e.var) in lets:
            done[id(e)] = done[id(e.body)]
        else:
            done[id(e)] = with_children(e, tuple(done[id(c)] for c in children(e)))
    out = done[id(fn)]
    assert isinstance(out, Function)
    return out


# ---------------------------------------------------------------------------------------------
# Basic-block normal form


def _replace_nodes(root: Expr, table: dict[int, Expr], memo: dict[int, Expr]) -> Expr:
    """``root`` with each node whose id is in ``table`` replaced by its entry; ``memo`` (kept
    across calls) maps each rebuilt node's id to its copy, so shared nodes stay shared."""
    for n in post_order(root):
        if id(n) not in memo:
            memo[id(n)] = (
                table[id(n)]
                if id(n) in table
                else with_children(n, tuple(memo[id(c)] for c in children(n)))
            )
    return memo[id(root)]


def _outermost_unevaluated(opener: Expr, nodes: list[Expr]) -> list[Expr]:
    """Of the shared ``nodes`` to bind before ``opener``: those not already evaluated by its
    operands (the condition, the scrutinee), and not inside another one (evaluated with it),
    in their order."""
    operands = children(opener)[:1]  # an if's condition, a match's scrutinee
    evaluated = {id(n) for c in operands for n in post_order(c)}
    inside: set[int] = set()
    for h in nodes:
        inside.update(id(n) for n in post_order(h) if n is not h)
    return [h for h in nodes if id(h) not in evaluated and id(h) not in inside]


def to_basic_block(fn: Function) -> Function:
    """``fn`` with each shared node that is first used inside nested scopes bound by a let
    just before the expression that opens them."""
    plan = sharing_plan(fn)
    done: dict[int, Expr] = {}
    count = 0
    for e in post_order(fn):
        rebuilt = with_children(e, tuple(done[id(c)] for c in children(e)))
        # A function literal is left alone: a let cannot come between a let-bound
        # (possibly recursive) function and its binder; such nodes stay shared.
        hoisted = (
            _outermost_unevaluated(e, bound_before(e, plan)) if isinstance(e, If | Match) else []
        )
        if hoisted:
            lets: list[tuple[Var, Expr]] = []
            kids = list(children(rebuilt))
            for i, c in enumerate(kids):  # the operands are evaluated first: bind them
                if not opens_scope(rebuilt, i) and not isinstance(c, ATOMS):
                    count += 1
                    var = Var(f"b{count}")
                    lets.append((var, c))
                    kids[i] = var
            # No hoisted node contains another: each let binds the node itself.
            table: dict[int, Expr] = {}
            memo: dict[int, Expr] = {}
            for h in hoisted:
                count += 1
                var = Var(f"b{count}")
                lets.append((var, done[id(h)]))
                table[id(done[id(h)])] = var
                memo[id(done[id(h)])] = var
            for i, c in enumerate(kids):
                if opens_scope(rebuilt, i):
                    kids[i] = _replace_nodes(c, table, memo)
            body: Expr = with_children(rebuilt, tuple(kids))
            for var, value in reversed(lets):
                body = Let(var, value, body)
            rebuilt = body
        done[id(e)] = rebuilt
    out = done[id(fn)]
    assert isinstance(out, Function)
    return out


# ---------------------------------------------------------------------------------------------
# The passes


def changed_globals(before: Mapping[str, Type], mod: IRModule) -> set[str]:
    """The globals of ``mod`` whose inferred type is not the one in ``before`` (all of them if
    ``mod`` no longer type-checks)."""
    try:
        after = infer_types(mod).globals
    except RelayTypeError:
        return {gv.name for gv in mod.functions}
    return {name for name, t in before.items() if name in after and not alpha_equal(t, after[name])}


@register_pass
@dataclass(frozen=True)
class ToANormalForm(Pass):
    """Bind every compound operand to a variable.

    Pre: well-formed. Post: same meaning and types; every operand is an atom, and every
    shared node is bound once in the scope that evaluates it.
    """

    opt_level = 1

    def transform(self, mod: IRModule) -> IRModule:
        def one(_: GlobalVar, fn: Function) -> Function:
            return to_anf(fn)

        return map_functions(mod, one)


@register_pass
@dataclass(frozen=True)
class ToGraphNormalForm(Pass):
    """Replace pure let bindings by sharing.

    Pre: well-formed. Post: same meaning and types; no let binds a pure, non-recursive value.
    """

    opt_level = 1

    def transform(self, mod: IRModule) -> IRModule:
        # A let's annotation can be the only source of a type (the element type of a
        # constructor, say): where dropping them changes a global's inferred type, that
        # global keeps its annotated lets, and failing that, its original form.
        before = infer_types(mod).globals
        functions = {gv: to_graph(fn) for gv, fn in mod.functions.items()}
        fallbacks: list[Callable[[Function], Function]] = [
            lambda fn: to_graph(fn, keep_annotated=True),
            lambda fn: fn,
        ]
        for fallback in fallbacks:
            changed = changed_globals(before, IRModule(functions, mod.type_definitions))
            if not changed:
                break
            for gv, fn in mod.functions.items():
                if gv.name in changed:
                    functions[gv] = fallback(fn)
        out = IRModule(functions, mod.type_definitions)
        return mod if changed_globals(before, out) else out


@register_pass
@dataclass(frozen=True)
class ToBasicBlockNormalForm(Pass):
    """Bind the shared nodes used across scopes where they are evaluated.

    Pre: well-formed. Post: same meaning and types; a shared node is used in one scope only
    (the one that evaluates it), except through a let-bound variable.
    """

    opt_level = 1

    def transform(self, mod: IRModule) -> IRModule:
        def one(_: GlobalVar, fn: Function) -> Function:
            return to_basic_block(fn)

        return map_functions(mod, one)
