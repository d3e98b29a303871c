"""Broken passes over control flow, binding and recursion: branch folding, ``match`` clause
order, dead-code elimination, beta reduction and unrolling.

These are the passes that run on whole modules (``if``, ``match``, ``let``, closures, global
recursion) rather than on dataflow graphs, each with one real mistake put in. Each is a plain
function ``IRModule -> IRModule``.
"""

from __future__ import annotations

from dataclasses import replace

from relay.compiler.ir import (
    free_vars,
    fresh_binders,
    is_pure,
    map_functions,
    rewrite,
    rewrite_pairs,
    substitute,
    with_children,
)
from relay.semantics.syntax import (
    ATOMS,
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    If,
    IRModule,
    Let,
    Match,
    Op,
    PatternConstructor,
    PatternTuple,
    RefCreate,
    RefRead,
    Var,
    children,
    post_order,
)


def _per_function(mod: IRModule, visit: object) -> IRModule:
    def one(_: GlobalVar, fn: Function) -> Function:
        out = rewrite(fn, visit)  # type: ignore[arg-type]
        assert isinstance(out, Function)
        return out

    return map_functions(mod, one)


# -- if with a constant condition ------------------------------------------------------------


def _fold_if(e: Expr) -> Expr | None:
    match e:
        case If(Constant() as c, then, otherwise) if c.data.ndim == 0:
            # BUG: the branches are taken the wrong way round (the test of the logical_not
            # rule, `if not c`, copied into this one)
            return then if not bool(c.data) else otherwise
    return None


def if_constant_wrong_branch(mod: IRModule) -> IRModule:
    """Fold ``if (True) { a } else { b }`` to a branch, choosing the other one.

    Bug class: if-branches swapped under a constant condition.
    """
    return _per_function(mod, _fold_if)


def _if_not(e: Expr) -> Expr | None:
    match e:
        case If(Call(Op("logical_not"), (c,)), then, otherwise):
            # BUG: dropping the negation needs the branches swapped: if (c) {otherwise} ...
            return If(c, then, otherwise, span=e.span)
    return None


def if_not_unswapped(mod: IRModule) -> IRModule:
    """Simplify ``if (logical_not(c)) { a } else { b }`` to ``if (c) { a } else { b }``: the
    negation is removed but the branches are not swapped.

    Bug class: if-branch swap forgotten when a negated condition is simplified.
    """
    return _per_function(mod, _if_not)


# -- match clause order ----------------------------------------------------------------------


def _specificity(lhs: object) -> int:
    """0 for a catch-all pattern (wildcard or variable), 1 for one that tests its value."""
    return 1 if isinstance(lhs, PatternConstructor | PatternTuple) else 0


def _order_clauses(e: Expr) -> Expr | None:
    if not isinstance(e, Match):
        return None
    # BUG: "the default case first, then the jump table": a catch-all clause placed before a
    # constructor clause it followed shadows it (clauses are tried in order)
    ordered = tuple(sorted(e.clauses, key=lambda c: _specificity(c.lhs)))
    if all(a is b for a, b in zip(ordered, e.clauses, strict=True)):
        return None
    return replace(e, clauses=ordered)


def match_default_first(mod: IRModule) -> IRModule:
    """A match compiler that sorts clauses for a jump table, catch-all clauses first. Clauses
    are tried in order, so ``match (x) { Nil => a, _ => b }`` becomes ``{ _ => b, Nil => a }``
    and ``Nil`` gives ``b``.

    Bug class: match clause reordering.
    """
    return _per_function(mod, _order_clauses)


# -- dead-code elimination that does not look into closures ----------------------------------


def _uses_outside_closures(root: Function) -> dict[Var, int]:
    """Uses of each variable in ``root``'s body, not counting those inside nested functions."""
    counts: dict[Var, int] = {}
    seen: set[Expr] = set()
    stack: list[Expr] = [root.body]
    while stack:
        e = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        if isinstance(e, Var):
            counts[e] = counts.get(e, 0) + 1
        elif not isinstance(e, Function):  # BUG: a closure's body uses variables too
            stack.extend(children(e))
    return counts


def dce_misses_closure_uses(mod: IRModule) -> IRModule:
    """DeadCodeElimination whose use count does not descend into ``fn`` bodies: ``let %y =
    f(%x); let %g = fn () { %y }; %g()`` loses ``%y`` (its only use is in the closure), and
    the result refers to an unbound variable. Only pure values are removed.

    Bug class: dead-code elimination of a used let (uses under a binder not counted).
    """

    def one(_: GlobalVar, fn: Function) -> Function:
        counts = _uses_outside_closures(fn)

        def visit(e: Expr) -> Expr | None:
            if isinstance(e, Let) and not counts.get(e.var) and is_pure(e.value):
                return e.body
            return None

        out = rewrite(fn, visit)
        assert isinstance(out, Function)
        return out

    return map_functions(mod, one)


# -- beta reduction of "cheap" lets ----------------------------------------------------------


def _cheap(e: Expr) -> bool:
    """A value worth recomputing at each use: one node over atoms."""
    if isinstance(e, ATOMS):
        return True
    # BUG: small is taken for pure: ref(0), ref_read(%r) and %f(%x) are one node each
    return isinstance(e, Call | RefCreate | RefRead) and all(
        isinstance(c, ATOMS) for c in children(e)
    )


def _copy_at_each_use(body: Expr, var: Var, value: Expr) -> Expr:
    """``body`` with a new copy of ``value`` (a one-node expression) at each use of ``var``."""
    if isinstance(value, ATOMS):  # a variable copied would be another variable
        return substitute(body, {var: value})
    if body is var:
        return replace(value)

    def visit(_: Expr, rebuilt: Expr) -> Expr | None:
        kids = children(rebuilt)
        if not any(k is var for k in kids):
            return None
        copies = tuple(replace(value) if k is var else k for k in kids)
        return with_children(rebuilt, copies)

    return rewrite_pairs(body, visit)


def _inline_cheap(e: Expr) -> Expr | None:
    if not (isinstance(e, Let) and _cheap(e.value)) or e.var in free_vars(e.value):
        return None
    if any(x is e.var for x in post_order(e.body)):
        return _copy_at_each_use(e.body, e.var, e.value)
    return None


def beta_duplicates_effects(mod: IRModule) -> IRModule:
    """Inline every ``let`` whose value is a single node over atoms at each of its uses (the
    copies are cheap to compute again). For an effect each copy is another effect: ``let %r =
    ref(0); ref_write(%r, 1); ref_read(%r)`` makes two cells and reads 0.

    Bug class: beta-reduction duplicating an effect (inlining without a purity check).
    """
    return _per_function(mod, _inline_cheap)


# -- unrolling a recursive global ------------------------------------------------------------


def unroll_without_binding(mod: IRModule) -> IRModule:
    """Unroll each self-recursive global once: each recursive call ``@f(args)`` in ``@f``'s
    body becomes a fresh copy of that body. The copy's parameters are mapped back to the
    outer function's parameters instead of being bound to ``args``, so the unrolled step
    recomputes the current iteration (``n`` where it should see ``n - 1``) and the
    arguments' effects are dropped.

    Bug class: recursion unrolled once wrongly (parameters not rebound to the arguments).
    """
    new: dict[GlobalVar, Function] = {}
    for gv, fn in mod.functions.items():
        calls = [
            e
            for e in post_order(fn.body)
            if isinstance(e, Call) and isinstance(e.op, GlobalVar) and e.op.name == gv.name
        ]
        if not calls or fn.type_params:
            new[gv] = fn
            continue
        targets: set[Expr] = set(calls)

        def visit(e: Expr, _: Expr, fn: Function = fn, targets: set[Expr] = targets) -> Expr | None:
            if e not in targets:
                return None
            copy = fresh_binders(fn)
            assert isinstance(copy, Function)
            # BUG: should be let %p' = arg; ... for each parameter and argument
            return substitute(copy.body, dict(zip(copy.params, fn.params, strict=True)))

        body = rewrite_pairs(fn.body, visit)
        new[gv] = replace(fn, body=body)
    return IRModule(new, mod.type_definitions)


# -- copy propagation by name ----------------------------------------------------------------


def _propagate_by_name(e: Expr) -> Expr | None:
    match e:
        case Let(alias, Var() as target, body):
            hint = alias.name_hint

            # BUG: uses are found by name, so an inner binder with the same name (shadowing
            # %a) has its uses replaced too
            def visit(x: Expr) -> Expr | None:
                return target if isinstance(x, Var) and x.name_hint == hint else None

            return rewrite(body, visit)
    return None


def copy_propagate_by_name(mod: IRModule) -> IRModule:
    """Copy propagation: ``let %a = %b; e`` becomes ``e`` with ``%b`` for ``%a``, where the
    uses of ``%a`` are found by ``name_hint``. A nested ``let %a = ...`` (shadowing, which
    the text format allows) is a different variable with the same name, and its uses are
    replaced as well.

    Bug class: shadowing (a substitution that identifies variables by name; TVM's
    ``bind_params_by_name`` has the same ambiguity).
    """
    return _per_function(mod, _propagate_by_name)
