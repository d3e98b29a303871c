"""Tools passes share: rebuilding expressions, substitution, fresh binders, free variables,
and the well-formedness check.

Expressions are immutable and compare by identity, so a pass builds new nodes. ``rewrite``
walks an expression bottom-up without recursion (programs may be 15,000 bindings deep),
rebuilds a node only where a child changed, and visits each distinct sub-expression once, so
a node shared by several parents (a Graph binding) stays shared in the result.

Binders: a ``Var`` object is its own binder. A well-formed module binds each ``Var`` once (a
function parameter, a ``let``, or a pattern variable) and uses it only inside its scope.
Passes that duplicate code (inlining, eta expansion) copy it with ``fresh_binders`` so the
copies do not share binders.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import assert_never

from ..semantics.syntax import (
    ATOMS,
    Call,
    Constant,
    Constructor,
    Expr,
    Function,
    GlobalVar,
    If,
    IRModule,
    Let,
    Match,
    Op,
    Pattern,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    TupleGetItem,
    Var,
    children,
    pattern_vars,
    post_order,
)


def with_children(e: Expr, kids: tuple[Expr, ...]) -> Expr:
    """``e`` with its children (in ``children``'s order) replaced by ``kids``; ``e`` itself
    when every child is unchanged."""
    old = children(e)
    if len(old) == len(kids) and all(a is b for a, b in zip(old, kids, strict=True)):
        return e
    match e:
        case Tuple():
            return replace(e, fields=kids)
        case TupleGetItem():
            return replace(e, tuple=kids[0])
        case Function():
            return replace(e, body=kids[0])
        case Call():
            return replace(e, args=kids[:-1], op=kids[-1])
        case Let():
            return replace(e, value=kids[0], body=kids[1])
        case If():
            return replace(e, cond=kids[0], true_branch=kids[1], false_branch=kids[2])
        case Match():
            clauses = tuple(
                c if c.rhs is k else replace(c, rhs=k)
                for c, k in zip(e.clauses, kids[1:], strict=True)
            )
            return replace(e, data=kids[0], clauses=clauses)
        case RefCreate():
            return replace(e, value=kids[0])
        case RefRead():
            return replace(e, ref=kids[0])
        case RefWrite():
            return replace(e, ref=kids[0], value=kids[1])
        case Var() | GlobalVar() | Constant() | Op() | Constructor():
            raise ValueError(f"{type(e).__name__} has no children to replace")
        case _:
            assert_never(e)


def rewrite(root: Expr, visit: Callable[[Expr], Expr | None]) -> Expr:
    """Rebuild ``root`` bottom-up: each node gets its rewritten children, then ``visit`` of the
    rebuilt node may replace it (``None`` keeps it). Shared nodes are rewritten once."""
    return rewrite_pairs(root, lambda _, rebuilt: visit(rebuilt))


def rewrite_pairs(root: Expr, visit: Callable[[Expr, Expr], Expr | None]) -> Expr:
    """``rewrite`` whose ``visit`` also gets the original node: ``visit(original, rebuilt)``
    (for a pass that keeps facts, such as types, keyed by the original nodes)."""
    done: dict[Expr, Expr] = {}
    for e in post_order(root):
        rebuilt = with_children(e, tuple(done[c] for c in children(e)))
        out = visit(e, rebuilt)
        done[e] = rebuilt if out is None else out
    return done[root]


def map_functions(mod: IRModule, fn: Callable[[GlobalVar, Function], Function]) -> IRModule:
    """A new module with every global function replaced by ``fn(gv, function)``."""
    return IRModule({gv: fn(gv, f) for gv, f in mod.functions.items()}, mod.type_definitions)


def rewrite_module(mod: IRModule, visit: Callable[[Expr], Expr | None]) -> IRModule:
    """``rewrite`` applied to the body of every global function."""

    def one(_: GlobalVar, f: Function) -> Function:
        out = rewrite(f, visit)
        assert isinstance(out, Function)
        return out

    return map_functions(mod, one)


def substitute(root: Expr, mapping: Mapping[Var, Expr]) -> Expr:
    """``root`` with each variable of ``mapping`` replaced by its expression.

    Sound without renaming when binders are unique (a well-formed module): no binder inside
    ``root`` can be a free variable of a replacement, so nothing is captured.
    """
    if not mapping:
        return root
    return rewrite(root, lambda e: mapping.get(e) if isinstance(e, Var) else None)


def rename_binders(root: Expr, make: Callable[[Var], Var | None]) -> Expr:
    """``root`` with each variable bound inside it replaced, at its binder and every use, by
    ``make(var)`` (``None`` keeps the variable)."""
    table: dict[Var, Var] = {}
    for e in post_order(root):
        for v in binders(e):
            new = make(v)
            if new is not None:
                table[v] = new
    if not table:
        return root

    def visit(e: Expr) -> Expr | None:
        match e:
            case Var():
                return table.get(e)
            case Function():
                return replace(e, params=tuple(table.get(p, p) for p in e.params))
            case Let():
                return replace(e, var=table.get(e.var, e.var))
            case Match():
                clauses = tuple(replace(c, lhs=_rename_pattern(c.lhs, table)) for c in e.clauses)
                return replace(e, clauses=clauses)
        return None

    return rewrite(root, visit)


def fresh_binders(root: Expr) -> Expr:
    """A copy of ``root`` in which every variable bound inside it is a new ``Var`` and every
    compound sub-expression a new node (free variables and atoms stay; sharing inside
    ``root`` is kept inside the copy). Used to duplicate code: two copies share no binder and
    no node, so each copy's computations are evaluated on their own."""
    renamed = rename_binders(root, lambda v: Var(v.name_hint, v.type_annotation, span=v.span))
    done: dict[Expr, Expr] = {}
    for e in post_order(renamed):
        if isinstance(e, ATOMS):
            done[e] = e
            continue
        new = with_children(e, tuple(done[c] for c in children(e)))
        done[e] = replace(e) if new is e else new
    return done[renamed]


def _rename_pattern(root: Pattern, table: Mapping[Var, Var]) -> Pattern:
    """``root`` with its variables renamed by ``table``, bottom-up with an explicit stack."""
    done: dict[Pattern, Pattern] = {}
    stack: list[tuple[Pattern, bool]] = [(root, False)]
    while stack:
        p, expanded = stack.pop()
        match p:
            case PatternWildcard():
                done[p] = p
            case PatternVar(var):
                done[p] = replace(p, var=table.get(var, var))
            case PatternConstructor(_, patterns) | PatternTuple(patterns):
                if not expanded:
                    stack.append((p, True))
                    stack.extend((q, False) for q in patterns)
                    continue
                done[p] = replace(p, patterns=tuple(done[q] for q in patterns))
            case _:
                assert_never(p)
    return done[root]


def binders(e: Expr) -> list[Var]:
    """The variables ``e`` itself binds: a function's parameters, a let's variable, a match's
    pattern variables."""
    match e:
        case Function():
            return list(e.params)
        case Let():
            return [e.var]
        case Match():
            return [v for c in e.clauses for v in pattern_vars(c.lhs)]
        case (
            Var() | GlobalVar() | Constant() | Op() | Constructor() | Tuple() | TupleGetItem()
            | Call() | If() | RefCreate() | RefRead() | RefWrite()
        ):  # fmt: skip
            return []
        case _:
            assert_never(e)


def free_vars(root: Expr) -> list[Var]:
    """The variables used in ``root`` but not bound inside it, in first-use order."""
    bound = {v for e in post_order(root) for v in binders(e)}
    out: dict[Var, None] = {}
    for e in post_order(root):
        if isinstance(e, Var) and e not in bound:
            out.setdefault(e)
    return list(out)


def is_pure(root: Expr, *, calls_are_pure: bool = False) -> bool:
    """Whether evaluating ``root`` surely has no effect on references and cannot diverge or
    fail through a call: no reference operation, and (unless ``calls_are_pure``) no call of
    anything but an operator or a constructor. Operator calls may still raise undefined
    behaviour, which any rewrite may assume away."""
    for e in post_order(root):
        if isinstance(e, RefCreate | RefRead | RefWrite):
            return False
        if isinstance(e, Call) and not isinstance(e.op, Op | Constructor) and not calls_are_pure:
            return False
        if isinstance(e, Match) and not e.complete:
            return False
    return True


# ---------------------------------------------------------------------------------------------
# Well-formedness


@dataclass(frozen=True)
class Problem:
    """A well-formedness violation in global ``where``."""

    where: str
    message: str

    def __str__(self) -> str:
        return f"@{self.where}: {self.message}"


def well_formed(mod: IRModule) -> list[Problem]:
    """Every violation of well-formedness in ``mod``: a variable used outside the scope of its
    binder (or never bound), a variable bound twice (anywhere in the module), a call of a
    global the module does not define, or a constructor of a type it does not define."""
    problems: list[Problem] = []
    seen_binders: dict[Var, str] = {}
    globals_ = {gv.name for gv in mod.functions}
    ctors = {c for d in mod.type_definitions.values() for c in d.constructors}
    for gv, fn in mod.functions.items():
        where = gv.name
        for e in post_order(fn):
            for v in binders(e):
                if v in seen_binders:
                    problems.append(Problem(where, f"%{v.name_hint} is bound more than once"))
                seen_binders[v] = where
            if isinstance(e, GlobalVar) and e.name not in globals_:
                problems.append(Problem(where, f"@{e.name} is not defined in the module"))
            if isinstance(e, Constructor) and e not in ctors:
                problems.append(Problem(where, f"constructor {e.name} is not in the module"))
        problems.extend(Problem(where, msg) for msg in _scope_errors(fn))
    return problems


def _scope_errors(fn: Function) -> list[str]:
    """Uses of variables outside their binders' scope, found with an explicit stack."""
    errors: list[str] = []
    depth: dict[Var, int] = {}  # how many enclosing binders bind each variable now
    reported: set[Var] = set()
    visited: set[Expr] = set()
    stack: list[tuple[str, Expr | list[Var]]] = [("expr", fn)]
    while stack:
        kind, item = stack.pop()
        if isinstance(item, list):
            for v in item:
                depth[v] = depth.get(v, 0) + (1 if kind == "enter" else -1)
            continue
        e = item
        if isinstance(e, Var):
            if not depth.get(e) and e not in reported:
                reported.add(e)
                errors.append(f"%{e.name_hint} is used outside the scope of its binder")
            continue
        # A shared node is checked once, at its first (leftmost) use.
        if e in visited:
            continue
        visited.add(e)
        match e:
            case Function():
                stack += [("leave", list(e.params)), ("expr", e.body)]
                stack.append(("enter", list(e.params)))
            case Let() if isinstance(e.value, Function):
                # A let-bound function may call itself: the variable is in scope in its value.
                stack += [("leave", [e.var]), ("expr", e.body), ("expr", e.value)]
                stack.append(("enter", [e.var]))
            case Let():
                stack += [("leave", [e.var]), ("expr", e.body), ("enter", [e.var])]
                stack.append(("expr", e.value))
            case Match():
                for c in reversed(e.clauses):
                    vs = pattern_vars(c.lhs)
                    stack += [("leave", vs), ("expr", c.rhs), ("enter", vs)]
                stack.append(("expr", e.data))
            case _:
                stack.extend(("expr", c) for c in reversed(children(e)))
    return errors
