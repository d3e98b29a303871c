"""Inline and InlineFunctions: replace calls of global functions by their bodies.

**Inline** is TVM's ``Inline`` pass (``InlineGlobals``, opt level 1). A global function is
*inlinable* when it carries the function attribute ``Inline=1`` (any non-zero value), is not
recursive (it does not reach itself through the module's reference graph, directly or through
other globals: a use as a value counts, as in TVM's call graph), and every global it refers
to is inlinable too (TVM inlined callees bottom-up and inlined a function only once it had
become a leaf of the call graph). Each call ``@f(a1, .., an)`` of an inlinable ``@f`` becomes
its body, and each use of ``@f`` as a value becomes a copy of its ``fn`` literal (as TVM did).
A function marked ``Compiler=...`` (offloaded to an external code generator) is not opened: its
call becomes a call of a copy of its ``fn`` literal (TVM's rule). Afterwards the inlined
globals that were used in the input and are no longer used are removed; entry functions (used
by no global in the input, such as ``@main``) always stay.

**InlineFunctions** (opt level 3) is this project's stronger variant, written for fuzzing:
every direct call ``@f(..)`` (a global in call position) of any non-recursive global is
inlined, marked or not; a global used as a value is left alone. The same removal follows.

Both keep the meaning exactly:

- *Arguments are let-bound, not substituted*:
  ``@f(a1, .., an)`` becomes ``let %x1' = a1; ..; let %xn' = an; body'``, so each argument is
  evaluated exactly once and in the original order (a call evaluates its arguments left to
  right before the callee's body), never duplicated nor dropped. TVM substituted the
  arguments into the body (``Bind``), which duplicates or drops an argument's effects when the
  parameter is used twice or not at all; this pass deliberately differs.
- *Binders stay unique*: the body is copied with ``ir.fresh_binders`` (the parameters become
  the fresh let variables), so two inlined copies, or a copy and its caller, never share a
  binder and nothing is captured. Every compound node of the copy is new as well: a closed
  sub-expression such as ``ref(0)`` left as the same object in two copies would become a
  shared node of the caller and be evaluated once instead of once per call.
- *Types stay as they were*: the let variables keep the parameters' annotations. Should the
  result lose a type that only the callee's annotations fixed (a global whose type changes, or
  a module that no longer type-checks), the pass inlines again, annotating each let with the
  parameter's inferred type and binding the result to a variable annotated with the callee's
  return type.

Polymorphic callees (with type parameters) and callees whose types mention symbolic
dimensions are not inlined: their annotations mention type variables and rigid dimension
names that mean nothing at the call site, where the uses instantiate them afresh.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import sympy

from ...semantics.equality import alpha_equal
from ...semantics.errors import RelayTypeError
from ...semantics.syntax import (
    ATOMS,
    AnyDim,
    Call,
    Expr,
    Function,
    FuncType,
    GlobalVar,
    IncompleteType,
    IRModule,
    Let,
    Match,
    TensorType,
    Type,
    Var,
    children,
    pattern_vars,
    post_order,
    type_children,
)
from ...semantics.typing import infer_types
from ..ir import fresh_binders, rewrite, with_children
from ..pass_manager import Pass, register_pass

# ---------------------------------------------------------------------------------------------
# The module's reference graph


def references(fn: Function) -> list[str]:
    """The names of the globals ``fn`` uses (called or as values), in first-use order."""
    return list(dict.fromkeys(e.name for e in post_order(fn) if isinstance(e, GlobalVar)))


def reference_graph(mod: IRModule) -> dict[str, list[str]]:
    """Each global's name -> the globals its body uses."""
    return {gv.name: references(fn) for gv, fn in mod.functions.items()}


def recursive_globals(graph: Mapping[str, list[str]]) -> set[str]:
    """The globals that reach themselves in ``graph`` (directly or mutually recursive)."""
    out: set[str] = set()
    for start in graph:
        seen: set[str] = set()
        stack = list(graph[start])
        while stack:
            g = stack.pop()
            if g == start:
                out.add(start)
                break
            if g in seen or g not in graph:
                continue
            seen.add(g)
            stack.extend(graph[g])
    return out


def callees_first(graph: Mapping[str, list[str]]) -> list[str]:
    """Every global, each non-recursive one after everything it reaches (DFS post-order)."""
    order: list[str] = []
    state: dict[str, int] = {}  # 1: on the stack, 2: finished
    for root in graph:
        if root in state:
            continue
        state[root] = 1
        stack: list[tuple[str, int]] = [(root, 0)]
        while stack:
            g, i = stack.pop()
            succ = graph[g]
            if i < len(succ):
                stack.append((g, i + 1))
                h = succ[i]
                if h in graph and h not in state:
                    state[h] = 1
                    stack.append((h, 0))
            else:
                state[g] = 2
                order.append(g)
    return order


# ---------------------------------------------------------------------------------------------
# Copying a callee


def fresh_copy(fn: Function) -> Function:
    """A copy of ``fn`` with new binders and new nodes (``ir.fresh_binders``)."""
    out = fresh_binders(fn)
    assert isinstance(out, Function)
    return out


def type_mentions_symbolic(t: Type) -> bool:
    """Whether ``t`` has a symbolic dimension anywhere."""
    stack: list[Type] = [t]
    while stack:
        u = stack.pop()
        if isinstance(u, TensorType) and any(
            not isinstance(d, int | AnyDim | sympy.Integer) for d in u.shape
        ):
            return True
        stack.extend(type_children(u))
    return False


def written_types(fn: Function) -> list[Type]:
    """Every type written inside ``fn``: binders' annotations, return types, type arguments."""
    out: list[Type] = []
    for e in post_order(fn):
        match e:
            case Function():
                out += [p.type_annotation for p in e.params if p.type_annotation is not None]
                if e.ret_type is not None:
                    out.append(e.ret_type)
            case Let():
                if e.var.type_annotation is not None:
                    out.append(e.var.type_annotation)
            case Match():
                for c in e.clauses:
                    vs = pattern_vars(c.lhs)
                    out += [v.type_annotation for v in vs if v.type_annotation is not None]
            case Call():
                out += list(e.type_args)
    return out


def has_hole(t: Type) -> bool:
    """Whether ``t`` has an ``IncompleteType`` anywhere."""
    stack: list[Type] = [t]
    while stack:
        u = stack.pop()
        if isinstance(u, IncompleteType):
            return True
        stack.extend(type_children(u))
    return False


def openable(fn: Function) -> bool:
    """Whether ``fn``'s body can be copied to a call site as it is: not polymorphic, no
    symbolic dimension written in it, not a primitive (fused) function."""
    if fn.type_params or fn.attr("Primitive"):
        return False
    return not any(type_mentions_symbolic(t) for t in written_types(fn))


# ---------------------------------------------------------------------------------------------
# The inliner


@dataclass
class _Inliner:
    """Inline ``candidates`` (global names) into every global of ``mod``."""

    mod: IRModule
    candidates: set[str]
    inline_values: bool
    typed: Mapping[str, Type] | None = None
    """With the input's global types: annotate the let-bound parameters and the result."""

    def run(self) -> IRModule:
        graph = reference_graph(self.mod)
        done: dict[str, Function] = {}
        by_name = {gv.name: (gv, fn) for gv, fn in self.mod.functions.items()}
        for name in callees_first(graph):
            _, fn = by_name[name]
            done[name] = self.inline_into(fn, done)
        functions = {gv: done[gv.name] for gv in self.mod.functions}
        used_before = {h for g, refs in graph.items() for h in refs if h != g}
        # Remove the inlined globals that are no longer used (a fixpoint: removing one can
        # leave another unused). Entries, used by nothing in the input, stay.
        removable = (self.candidates & used_before) - {"main"}
        changed = True
        while changed:
            changed = False
            used = {h for gv, fn in functions.items() for h in references(fn) if h != gv.name}
            for gv in list(functions):
                if gv.name in removable and gv.name not in used:
                    del functions[gv]
                    changed = True
        return IRModule(functions, self.mod.type_definitions)

    def inline_into(self, fn: Function, done: Mapping[str, Function]) -> Function:
        """``fn`` with the candidates' calls (and value uses) replaced."""
        candidates = self.candidates

        def expand(e: Expr) -> Expr:
            if isinstance(e, GlobalVar) and e.name in candidates:
                return fresh_copy(done[e.name])
            return e

        def visit(e: Expr) -> Expr | None:
            if self.inline_values:
                e = self.expand_values(e, expand)
            if isinstance(e, Call) and isinstance(e.op, GlobalVar) and e.op.name in candidates:
                return self.inline_call(e.op.name, done[e.op.name], e.args)
            return e

        out = rewrite(fn, visit)
        assert isinstance(out, Function)
        return out

    @staticmethod
    def expand_values(e: Expr, expand: Callable[[Expr], Expr]) -> Expr:
        """``e`` with each child that is a candidate global used as a value expanded (a new
        copy per use; a call's callee is not a value use)."""
        if isinstance(e, ATOMS):
            return e
        kids = list(children(e))
        last = len(kids) - 1 if isinstance(e, Call) else -1
        new = tuple(k if i == last else expand(k) for i, k in enumerate(kids))
        return with_children(e, new)

    def inline_call(self, name: str, callee: Function, args: tuple[Expr, ...]) -> Expr:
        """The replacement of ``@name(args)``: the lets of the arguments, then the body."""
        copy = fresh_copy(callee)
        compiler = copy.attr("Compiler")
        if compiler not in (None, "", "default"):
            return Call(copy, args)  # an external function stays a function (TVM)
        params = list(copy.params)
        body = copy.body
        if self.typed is not None:
            t = self.typed.get(name)
            if isinstance(t, FuncType):
                ret = copy.ret_type if copy.ret_type is not None else t.ret_type
                if not has_hole(ret):
                    result = Var(f"{name}_result", ret)
                    body = Let(result, body, result)
                params = [
                    p
                    if p.type_annotation is not None or has_hole(a)
                    else Var(p.name_hint, a, span=p.span)
                    for p, a in zip(params, t.arg_types, strict=True)
                ]
                table = {id(old): new for old, new in zip(copy.params, params, strict=True)}
                body = rewrite(body, lambda e: table.get(id(e)) if isinstance(e, Var) else None)
        for p, a in reversed(list(zip(params, args, strict=True))):
            body = Let(p, a, body)
        return body


def inline_globals(mod: IRModule, candidates: set[str], *, inline_values: bool) -> IRModule:
    """Inline ``candidates`` everywhere in ``mod``, keeping every remaining global's type (see
    the module docstring for the retry with annotations)."""
    if not candidates:
        return mod
    out = _Inliner(mod, candidates, inline_values).run()
    before = infer_types(mod).globals
    if _same_types(before, out):
        return out
    return _Inliner(mod, candidates, inline_values, before).run()


def _same_types(before: Mapping[str, Type], mod: IRModule) -> bool:
    try:
        after = infer_types(mod).globals
    except RelayTypeError:
        return False
    return all(alpha_equal(t, after[name]) for name, t in before.items() if name in after)


# ---------------------------------------------------------------------------------------------
# The passes


def marked_inline(fn: Function) -> bool:
    """Whether ``fn`` carries a non-zero ``Inline`` attribute."""
    value = fn.attr("Inline")
    return value is not None and value not in (0, False, "0", "")


def tvm_candidates(mod: IRModule) -> set[str]:
    """The globals TVM's ``Inline`` inlines: marked, not recursive, openable, and using only
    such globals."""
    graph = reference_graph(mod)
    recursive = recursive_globals(graph)
    fns = {gv.name: fn for gv, fn in mod.functions.items()}
    out: set[str] = set()
    for name in callees_first(graph):  # callees are decided first
        fn = fns[name]
        if (
            name not in recursive
            and marked_inline(fn)
            and openable(fn)
            and all(h in out for h in graph[name])
        ):
            out.add(name)
    return out


@register_pass
@dataclass(frozen=True)
class Inline(Pass):
    """Inline the global functions marked ``Inline=1`` (TVM's ``Inline``).

    Pre: well-formed and well-typed. Post: same meaning and the same type for every global
    that remains; no call or value use of an inlinable global is left (marked, not recursive,
    using only inlinable globals, monomorphic, no symbolic dimensions), and the inlinable
    globals that were used in the input and are unused now are removed. Arguments are bound
    by lets, evaluated once each, in order.
    """

    opt_level = 1

    def transform(self, mod: IRModule) -> IRModule:
        return inline_globals(mod, tvm_candidates(mod), inline_values=True)


@register_pass
@dataclass(frozen=True)
class InlineFunctions(Pass):
    """Inline every direct call of every non-recursive global function.

    Pre: well-formed and well-typed. Post: same meaning and the same type for every global
    that remains; no ``@f(..)`` call of a non-recursive, monomorphic global without symbolic
    dimensions is left (uses of ``@f`` as a value stay), and such globals used in the input
    but unused now are removed. Arguments are bound by lets, evaluated once each, in order.
    """

    opt_level = 3

    def transform(self, mod: IRModule) -> IRModule:
        graph = reference_graph(mod)
        recursive = recursive_globals(graph)
        candidates = {
            gv.name
            for gv, fn in mod.functions.items()
            if gv.name not in recursive
            and openable(fn)
            and fn.attr("Compiler") in (None, "", "default")
        }
        return inline_globals(mod, candidates, inline_values=False)
