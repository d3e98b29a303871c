"""Reducing a failing case after shrinking: ``reduce_case``.

Hypothesis shrinks the choices a generator made, not the program, and a motif failure is not
shrunk at all; so a report can hold helper globals, type definitions and bindings the failure
does not need. The reducer works on the program itself: it tries simplifications of the
module one at a time and keeps each after which the pass still fails its check with the same
verdict kind (``fuzz.check_case``, the campaign's check, on the failing argument tuple),
until none applies or its deadline passes. The candidates, in this order (the first remove
the most)::

    drop a global        def @g ... (not @main)                    -> nothing
    collapse @main       def @main(%x) { @g(%x) }                  -> @g, as @main
    drop a type          type T { .. }                             -> nothing
    drop a constructor   type T { C(..), D } (C unused)            -> type T { D }
    inline a call        @g(%x, e) (@g(%a, %b) { b }, not the      -> let %b = e; b[%a := %x]
                         global the call is in)                       (a fresh copy of b)
    empty a global       def @g[T](%a: t) -> u { b } (not @main)   -> def @g() { 0 }, its
                                                                      calls @g(); then
                                                                      def @g[T](%a: t) { 0 }
    drop an annotation   def @g[T](..) -> u { .. }                 -> def @g[T](..) { .. },
                                                                      then def @g(..) { .. }
    drop a parameter     def @main(%x, %y) (%y unused), args (a, b) -> def @main(%x), (a)
                         def @g(%x, %y) (%y unused; not @main)     -> def @g(%x), and each
                                                                      @g(a, b) -> @g(a); then
                                                                      also a global's result
                                                                      annotation fn (tx, ty)
                                                                      -> u -> fn (tx) -> u
    simplify locals      let %x: t = e                             -> let %x = e
                         let %x = e (%x unused)                    -> let %x = 0, then
                                                                      let %x = ref(0)
                         fn [T](..) -> u { .. } (a closure)        -> fn (..) { .. }
                         fn (%a, %b) { .. } (%b unused; only       -> fn (%a) { .. }, and
                         called, or let-bound and only called)        each f(a, b) -> f(a)
    type as a tuple      type T { C(t1, t2) } (one constructor,    -> C(a, b) -> (a, b),
                         named by no annotation nor argument)         C(p, q) => -> (p, q) =>
    inline a let         let %x = e1; e2 (e1 pure, %x used once)   -> e2[%x := e1]
    replace by a part    e (of type t), e' a child or grandchild
                         of e of type t (a let's body, a branch)   -> e'
    replace by zeros     e: Tensor[(n..), d]                       -> zeros, then ones
    replace by an input  e: Tensor[(n..), d] in @main              -> a new parameter %r of
                         (or a tuple of such tensors)                 @main, argument zeros
                                                                      (then ones); before
                                                                      the constants unless
                                                                      e is a scalar
    return a part        def @main(..) { e }, e' in e              -> def @main(..) { e' }
                         (e' of any type)
    return less          def @main(..) { lets; (e1, .., en) }      -> lets; ei, then the
                                                                      tuple without ei

A candidate is tried only if it is well formed (``ir.well_formed``), well typed
(``infer_types``) and smaller (``size``: fewer printed lines, or as many and fewer nodes and
parameters, or as many of both and fewer characters; so the loop ends, and the deadline
bounds it in any case). It is judged as its
report will be read back: printed and parsed again, binder names restored as the report's
``NAMES-JSON`` line restores them (``reports.restore_names``), so the kept case replays,
including a failure that depends on binder names. The binders a simplification does not
touch keep their ``Var`` and so their names. A constant with several uses is written once per
use, so the text loses its sharing: where the case read back no longer fails, each such
constant is first bound by a ``let`` (a pass that tests operands for identity, ``x / x``,
sees the sharing through the variable).

A campaign (``fuzz``) does not reduce a timeout verdict: each candidate would cost the whole
time limit.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, cast

import numpy as np

from relay.compiler.ir import (
    free_vars,
    fresh_binders,
    is_pure,
    rewrite,
    rewrite_pairs,
    substitute,
    well_formed,
)
from relay.compiler.pass_manager import Pass
from relay.compiler.passes.remove_unused_functions import remove_unreachable
from relay.semantics.errors import RelayError
from relay.semantics.syntax import (
    Call,
    Clause,
    Constant,
    Constructor,
    Expr,
    Function,
    FuncType,
    GlobalTypeVar,
    GlobalVar,
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
    TensorType,
    Tuple,
    TupleType,
    Type,
    TypeCall,
    TypeData,
    Var,
    children,
    pattern_vars,
    post_order,
    type_children,
)
from relay.semantics.text.parser import parse
from relay.semantics.text.printer import astext
from relay.semantics.typing import TypeInfo, infer_types
from relay.semantics.values import (
    ConstructorValue,
    RefValue,
    TensorValue,
    TupleValue,
    Value,
    value_to_json,
)

from .compare import value_from_json
from .pass_oracle import Verdict
from .reports import restore_names

if TYPE_CHECKING:  # fuzz imports this module; the names are read from it at call time
    from .fuzz import Case

REDUCE_SECONDS = 10.0
"""The most seconds a campaign spends reducing one failure (``fuzz`` also stops it at the
campaign's deadline)."""

STRUCTURAL = frozenset(
    {"crash", "not-a-module", "mutated-input", "ill-formed", "ill-typed", "type-changed"}
)
"""The verdict kinds a check gives before it evaluates anything. Where the case fails so
without values, candidates are judged on the structural checks alone: evaluating them cost
most of the reducer's time (120 ms a candidate on a 70-line ``remove_uncalled_functions``
report, against 3 ms without)."""

NEW_PARAMETER = "r"
"""The name hint of a parameter the reducer adds to ``@main``."""


class NotFailing(ValueError):
    """The case given to ``reduce_case`` does not fail with the verdict kind given."""


@dataclass(frozen=True)
class Candidate:
    """One simplification: the new module and the arguments of its ``@main``."""

    what: str
    mod: IRModule
    args: tuple[Value, ...]


def reduce_case(
    p: Pass,
    case: Case,
    kind: str,
    *,
    deadline: float,
    timeout: float = 20.0,
) -> tuple[Case, Verdict]:
    """The smallest case the greedy loop of the module docstring reaches from ``case`` before
    ``deadline`` (a ``time.monotonic`` instant), with its verdict: ``p`` still fails on it
    with verdict ``kind``. Each check may take ``timeout`` seconds (less when the deadline is
    nearer). ``NotFailing`` if ``case`` (read back from its report text) does not fail so:
    the precondition, checked even when the deadline has passed (within ``timeout``, and at
    least a second)."""
    current = _read_back(case.mod, case.args)
    first = min(timeout, max(deadline - time.monotonic(), 1.0))
    verdict = _fails(p, current.mod, current.args, kind, first)
    if verdict is None and (bound := _bind_shared_constants(case.mod)) is not case.mod:
        # The text writes a constant at each use: a pass that tests operands for identity
        # (``x / x``) sees the sharing only through a variable.
        current = _read_back(bound, case.args)
        verdict = _fails(p, current.mod, current.args, kind, first)
    if verdict is None:
        raise NotFailing(f"the case does not fail with verdict kind {kind!r}")
    # A structural verdict is given before anything is evaluated: candidates are judged
    # without values where the case fails so.
    values = not (
        kind in STRUCTURAL and _fails(p, current.mod, current.args, kind, first, values=False)
    )
    progress = True
    while progress and time.monotonic() < deadline:
        progress = False
        for candidate in candidates(current.mod, current.args):
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if not _valid(candidate.mod):
                continue
            try:
                again = _read_back(candidate.mod, candidate.args)
            except RelayError:
                continue  # does not print and parse back (cannot be a report)
            if not _valid(again.mod) or size(again.mod) >= size(current.mod):
                continue
            found = _fails(p, again.mod, again.args, kind, min(timeout, left), values)
            if found is not None:
                current, verdict = again, found
                progress = True
                break
    return current, verdict


def _bind_shared_constants(mod: IRModule) -> IRModule:
    """``mod`` with each constant that has several uses in a global bound by a ``let`` at the
    top of that global's body (``divide(%c, %c)``, which the text keeps shared, where
    ``divide(0f, 0f)`` would be two constants); ``mod`` itself if there is none."""
    out = mod
    for gv, fn in mod.functions.items():
        uses: Counter[Constant] = Counter(
            c for e in post_order(fn) for c in children(e) if isinstance(c, Constant)
        )
        shared = {c: Var(f"c{i}") for i, c in enumerate(c for c, n in uses.items() if n > 1)}
        if not shared:
            continue
        table: dict[Expr, Expr] = {c: v for c, v in shared.items()}
        body = _rebuilt(fn, table).body
        for c, var in reversed(shared.items()):
            body = Let(var, c, body)
        out = out.with_function(gv, replace(fn, body=body))
    return out


def size(mod: IRModule) -> tuple[int, int, int]:
    """What the reducer makes smaller: the lines of ``mod`` printed (without its metadata
    section, where constants go), then its expression nodes and parameters, then the
    characters of those lines (an annotation dropped)."""
    text = astext(mod).split("#[metadata]", 1)[0]
    lines = sum(1 for line in text.splitlines() if line.strip())
    nodes = sum(len(fn.params) + sum(1 for _ in post_order(fn)) for fn in mod.functions.values())
    return lines, nodes, len(text)


def _fails(
    p: Pass, mod: IRModule, args: tuple[Value, ...], kind: str, timeout: float,
    values: bool = True,
) -> Verdict | None:  # fmt: skip
    """The verdict of the campaign's check of ``p`` on ``mod`` and ``args`` if it has kind
    ``kind``, else ``None``; without ``values``, the structural checks only (nothing is
    evaluated)."""
    from .fuzz import check_case

    checked = check_case(p, mod, (args,) if values else (), timeout=timeout)
    if checked.verdict is not None and checked.verdict.kind == kind:
        return checked.verdict
    return None


def _valid(mod: IRModule) -> bool:
    """Whether ``mod`` is well formed and well typed."""
    if well_formed(mod):
        return False
    try:
        infer_types(mod)
    except (RelayError, RecursionError):
        return False
    return True


def _read_back(mod: IRModule, args: tuple[Value, ...]) -> Case:
    """``mod`` and ``args`` as a report of them reads back (``reports.read_case``): printed,
    parsed, binder names restored, arguments through JSON."""
    from .fuzz import Case

    renamed: dict[str, dict[str, str]] = {}
    text = astext(mod, renamed=renamed)
    parsed = restore_names(parse(text, source_name="<reduce>"), renamed)
    try:
        back = tuple(value_from_json(value_to_json(a), parsed, {}) for a in args)
    except ValueError as err:
        raise RelayError(f"an argument does not read back: {err}") from None
    return Case(parsed, back, (back,))


# ---------------------------------------------------------------------------------------------
# The candidates


def candidates(mod: IRModule, args: tuple[Value, ...]) -> Iterator[Candidate]:
    """The simplifications of ``mod`` (with ``args`` for its ``@main``) in the order of the
    module docstring; some may be ill formed or ill typed (the caller checks)."""
    yield from _drop_globals(mod, args)
    yield from _collapse_main(mod, args)
    yield from _drop_types(mod, args)
    yield from _inline_calls(mod, args)
    yield from _simplify_globals(mod, args)
    yield from _drop_parameters(mod, args)
    yield from _drop_global_parameters(mod, args)
    yield from _simplify_locals(mod, args)
    yield from _types_as_tuples(mod, args)
    yield from _inline_lets(mod, args)
    try:
        info = infer_types(mod)
    except RelayError:
        return
    yield from _replacements(mod, args, info)
    yield from _main_results(mod, args)


def _drop_globals(mod: IRModule, args: tuple[Value, ...]) -> Iterator[Candidate]:
    """Drop every global but ``@main`` that ``@main`` does not reach, then each global."""
    if "main" in mod and len(out := remove_unreachable(mod).functions) < len(mod.functions):
        yield Candidate("drop unreached globals", IRModule(out, mod.type_definitions), args)
    for gv in mod.functions:
        if gv.name != "main":
            kept = {g: fn for g, fn in mod.functions.items() if g is not gv}
            yield Candidate(f"drop @{gv.name}", IRModule(kept, mod.type_definitions), args)


def _collapse_main(mod: IRModule, args: tuple[Value, ...]) -> Iterator[Candidate]:
    """Where ``@main`` only calls a global ``@g`` on its own parameters, put ``@g`` (its calls
    of itself now calls of ``@main``) in ``@main``'s place."""
    if "main" not in mod:
        return
    gv = mod.get_global_var("main")
    main = mod.functions[gv]
    match main.body:
        case Call(GlobalVar(name) as callee, call_args) if name != "main" and name in mod:
            pass
        case _:
            return
    if len(call_args) != len(main.params) or any(
        a is not v for a, v in zip(call_args, main.params, strict=True)
    ):
        return
    target = mod.get_global_var(callee.name)
    body = rewrite(
        mod.functions[target],
        lambda e: gv if isinstance(e, GlobalVar) and e.name == callee.name else None,
    )
    assert isinstance(body, Function)
    functions = {g: f for g, f in mod.functions.items() if g is not target and g is not gv}
    functions[gv] = body
    yield Candidate(f"@main is @{callee.name}", IRModule(functions, mod.type_definitions), args)


def _drop_types(mod: IRModule, args: tuple[Value, ...]) -> Iterator[Candidate]:
    """Drop each type definition, then each constructor no function uses."""
    for header in mod.type_definitions:
        types = {h: d for h, d in mod.type_definitions.items() if h is not header}
        yield Candidate(f"drop type {header.name}", IRModule(mod.functions, types), args)
    used: set[str] = set()
    for fn in mod.functions.values():
        for e in post_order(fn):
            if isinstance(e, Constructor):
                used.add(e.name)
            elif isinstance(e, Match):
                for c in e.clauses:
                    used |= _pattern_constructors(c.lhs)
    for header, data in mod.type_definitions.items():
        for ctor in data.constructors:
            if ctor.name in used or len(data.constructors) == 1:
                continue
            rest = tuple(c for c in data.constructors if c is not ctor)
            types = dict(mod.type_definitions)
            types[header] = TypeData(data.header, data.type_vars, rest, data.extern)
            yield Candidate(f"drop constructor {ctor.name}", IRModule(mod.functions, types), args)


def _pattern_constructors(p: Pattern) -> set[str]:
    """The names of the constructors a pattern matches on."""
    out: set[str] = set()
    stack = [p]
    while stack:
        q = stack.pop()
        if isinstance(q, PatternConstructor):
            out.add(q.constructor.name)
        if isinstance(q, PatternConstructor | PatternTuple):
            stack.extend(q.patterns)
    return out


def _drop_parameters(mod: IRModule, args: tuple[Value, ...]) -> Iterator[Candidate]:
    """Drop each parameter of ``@main`` its body does not use, and its argument."""
    if "main" not in mod or len(args) != len(mod["main"].params):
        return
    gv = mod.get_global_var("main")
    main = mod.functions[gv]
    used = set(free_vars(main.body))
    for i, param in enumerate(main.params):
        if param not in used:
            params = main.params[:i] + main.params[i + 1 :]
            new = replace(main, params=params)
            yield Candidate(
                f"drop parameter %{param.name_hint}",
                mod.with_function(gv, new),
                args[:i] + args[i + 1 :],
            )


def _calls_of(mod: IRModule, name: str) -> Iterator[tuple[GlobalVar, Function, Call]]:
    """Each call ``@name(..)`` in ``mod``, with the global it is in and that global's function."""
    for gv, fn in mod.functions.items():
        for e in post_order(fn):
            if isinstance(e, Call) and isinstance(e.op, GlobalVar) and e.op.name == name:
                yield gv, fn, e


def _inline_calls(mod: IRModule, args: tuple[Value, ...]) -> Iterator[Candidate]:
    """Replace each call ``@g(a1, .., an)`` of another global by a copy of ``@g``'s body with
    its parameters bound to the arguments (``let %p1 = a1; ..; body``, in the arguments'
    evaluation order; an argument that is a variable or a constant is substituted)."""
    for gv, fn, call in list(_calls_of_any(mod)):
        assert isinstance(call.op, GlobalVar)
        callee = mod.functions.get(mod.get_global_var(call.op.name))
        if callee is None or call.op.name == gv.name or len(call.args) != len(callee.params):
            continue
        copy = fresh_binders(callee)
        assert isinstance(copy, Function)
        atoms: dict[Var, Expr] = {}
        bound: list[tuple[Var, Expr]] = []
        for param, arg in zip(copy.params, call.args, strict=True):
            if isinstance(arg, Var | Constant | GlobalVar):
                atoms[param] = arg
            else:
                bound.append((param, arg))
        body = substitute(copy.body, atoms)
        for param, arg in reversed(bound):
            body = Let(param, arg, body)
        yield Candidate(
            f"inline a call of @{call.op.name}", _replaced(mod, gv, fn, call, body), args
        )


def _calls_of_any(mod: IRModule) -> Iterator[tuple[GlobalVar, Function, Call]]:
    """Each call of a global in ``mod``, outermost first in each function."""
    for gv, fn in mod.functions.items():
        for e in reversed(list(post_order(fn))):
            if isinstance(e, Call) and isinstance(e.op, GlobalVar) and e.op.name in mod:
                yield gv, fn, e


def _simplify_globals(mod: IRModule, args: tuple[Value, ...]) -> Iterator[Candidate]:
    """For each global but ``@main``: ``def @g() { 0 }`` in its place (its calls without
    arguments), then its body replaced by ``0`` (its result annotation dropped); then, for
    every global, its result annotation dropped, and its type parameters dropped."""
    zero = Constant(np.zeros((), dtype="int32"))
    for gv, fn in mod.functions.items():
        if gv.name == "main" or (isinstance(fn.body, Constant) and fn.ret_type is None):
            continue
        bare = Function((), zero)
        if fn.params or fn.type_params:
            calls: dict[Expr, Expr] = {
                c: replace(c, args=()) for _, _, c in _calls_of(mod, gv.name)
            }
            out = mod.with_function(gv, bare)
            functions = {g: _rebuilt(f, calls) for g, f in out.functions.items()}
            what = f"def @{gv.name}() {{ 0 }}"
            yield Candidate(what, IRModule(functions, mod.type_definitions), args)
        new = replace(fn, body=zero, ret_type=None)
        yield Candidate(f"@{gv.name} returns 0", mod.with_function(gv, new), args)
    for gv, fn in mod.functions.items():
        if fn.ret_type is not None:
            new = replace(fn, ret_type=None)
            yield Candidate(f"@{gv.name}'s result type", mod.with_function(gv, new), args)
        if fn.type_params:
            new = replace(fn, type_params=())
            yield Candidate(f"@{gv.name}'s type parameters", mod.with_function(gv, new), args)


def _drop_global_parameters(mod: IRModule, args: tuple[Value, ...]) -> Iterator[Candidate]:
    """Drop each parameter of a global but ``@main`` that its body does not use, and the
    argument in that place of every call of the global; then also from the result annotation
    of each global that returns a function of the global's parameter types."""
    for gv, fn in mod.functions.items():
        if gv.name == "main":
            continue
        used = set(free_vars(fn.body))
        for i, param in enumerate(fn.params):
            if param in used:
                continue
            calls = [c for _, _, c in _calls_of(mod, gv.name)]
            if any(len(c.args) != len(fn.params) for c in calls):
                continue
            new_fn = replace(fn, params=fn.params[:i] + fn.params[i + 1 :])
            out = mod.with_function(gv, new_fn)
            dropped: dict[Expr, Expr] = {
                c: replace(c, args=c.args[:i] + c.args[i + 1 :]) for c in calls
            }
            functions = {g: _rebuilt(f, dropped) for g, f in out.functions.items()}
            what = f"drop parameter %{param.name_hint} of @{gv.name}"
            yield Candidate(what, IRModule(functions, mod.type_definitions), args)
            # Where another global returns @g as a value, its result annotation names @g's
            # parameter types too: the parameter goes from that function type as well.
            annotations = tuple(p.type_annotation for p in fn.params)
            if any(a is None for a in annotations):
                continue
            retyped = dict(functions)
            for g, f in functions.items():
                t = f.ret_type
                if isinstance(t, FuncType) and t.arg_types == annotations:
                    arg_types = t.arg_types[:i] + t.arg_types[i + 1 :]
                    retyped[g] = replace(f, ret_type=replace(t, arg_types=arg_types))
            if retyped != functions:
                what += " and from result annotations"
                yield Candidate(what, IRModule(retyped, mod.type_definitions), args)


def _simplify_locals(mod: IRModule, args: tuple[Value, ...]) -> Iterator[Candidate]:
    """Inside each global: each ``let``'s binder annotation dropped, and the value of each
    ``let`` whose variable is unused replaced by ``0``, then by ``ref(0)`` (the smallest
    effect); then, for each local function, its result annotation dropped, its type parameters
    dropped, and each parameter its body does not use dropped, with the argument in that place
    of every call of it, where it is only ever called (directly, or through the variable a
    ``let`` binds it to)."""
    zero = Constant(np.zeros((), dtype="int32"))
    for gv, fn in mod.functions.items():
        uses = _uses(fn.body)
        for e in post_order(fn.body):
            if isinstance(e, Let) and e.var.type_annotation is not None:
                bare = Var(e.var.name_hint)
                new: Expr = Let(bare, e.value, substitute(e.body, {e.var: bare}), span=e.span)
                what = f"%{e.var.name_hint}'s annotation"
                yield Candidate(what, _replaced(mod, gv, fn, e, new), args)
            elif isinstance(e, Let) and e.var not in uses and not _trivial(e.value):
                # Its value is there for its effect, if at all: 0, then the smallest effect.
                for value, text in ((zero, "0"), (RefCreate(zero), "ref(0)")):
                    new = Let(e.var, value, e.body, span=e.span)
                    what = f"%{e.var.name_hint} bound to {text}"
                    yield Candidate(what, _replaced(mod, gv, fn, e, new), args)
        for e in post_order(fn.body):
            if not isinstance(e, Function):
                continue
            if e.ret_type is not None:
                new = replace(e, ret_type=None)
                yield Candidate("a closure's result type", _replaced(mod, gv, fn, e, new), args)
            if e.type_params:
                new = replace(e, type_params=())
                what = "a closure's type parameters"
                yield Candidate(what, _replaced(mod, gv, fn, e, new), args)
            calls = _only_calls(e, uses)
            if calls is None or any(len(c.args) != len(e.params) for c in calls):
                continue
            used = set(free_vars(e.body))
            for i, param in enumerate(e.params):
                if param not in used:
                    yield Candidate(
                        f"drop the closure parameter %{param.name_hint}",
                        mod.with_function(gv, _without_argument(fn, e, calls, i)),
                        args,
                    )


def _uses(root: Expr) -> dict[Expr, list[tuple[Expr, bool]]]:
    """Where each node of ``root`` occurs: its parents, each with whether the node is that
    parent's operator (a call of it)."""
    uses: dict[Expr, list[tuple[Expr, bool]]] = {}
    for e in post_order(root):
        if isinstance(e, Call):
            places = [(a, False) for a in e.args] + [(e.op, True)]
        else:
            places = [(c, False) for c in children(e)]
        for c, called in places:
            uses.setdefault(c, []).append((e, called))
    return uses


def _only_calls(f: Function, uses: dict[Expr, list[tuple[Expr, bool]]]) -> list[Call] | None:
    """The calls of ``f`` if it is only ever called: directly, or through the variable of the
    ``let`` that binds it (no call at all where that variable is not used); else ``None``."""
    places = uses.get(f, [])
    if len(places) == 1 and isinstance(let := places[0][0], Let) and let.value is f:
        places = uses.get(let.var, [])
    if not all(called for _, called in places):
        return None
    return [cast(Call, parent) for parent, _ in places]


def _without_argument(fn: Function, f: Function, calls: list[Call], i: int) -> Function:
    """``fn`` with parameter ``i`` of its local function ``f`` dropped, and argument ``i`` of
    each of ``calls`` of it."""
    targets = set(calls)

    def visit(original: Expr, rebuilt: Expr) -> Expr | None:
        if original is f:
            assert isinstance(rebuilt, Function)
            return replace(rebuilt, params=rebuilt.params[:i] + rebuilt.params[i + 1 :])
        if original in targets:
            assert isinstance(rebuilt, Call)
            return replace(rebuilt, args=rebuilt.args[:i] + rebuilt.args[i + 1 :])
        return None

    out = rewrite_pairs(fn, visit)
    assert isinstance(out, Function)
    return out


def _rebuilt(fn: Function, table: dict[Expr, Expr]) -> Function:
    """``fn`` with each node of ``table`` (every occurrence) replaced by its entry."""
    out = rewrite_pairs(fn, lambda e, _: table.get(e)) if table else fn
    assert isinstance(out, Function)
    return out


def _types_as_tuples(mod: IRModule, args: tuple[Value, ...]) -> Iterator[Candidate]:
    """A type of one constructor that no annotation names, and that no argument holds a value
    of, becomes a tuple: ``C(a, b)`` becomes ``(a, b)``, the pattern ``C(p, q)`` becomes
    ``(p, q)``, and the type definition goes."""
    if any(_holds_adt_or_ref(a) for a in args):
        return
    named = _named_types(mod)
    for header, data in mod.type_definitions.items():
        if len(data.constructors) != 1 or header in named or data.extern:
            continue
        ctor = data.constructors[0]
        functions: dict[GlobalVar, Function] = {}
        for gv, fn in mod.functions.items():
            out = _constructor_as_tuple(fn, ctor.name)
            if out is None:
                break
            functions[gv] = out
        else:
            types = {h: d for h, d in mod.type_definitions.items() if h is not header}
            yield Candidate(f"type {header.name} as a tuple", IRModule(functions, types), args)


def _holds_adt_or_ref(v: Value) -> bool:
    """Whether ``v`` holds a constructor value or a reference."""
    stack = [v]
    while stack:
        w = stack.pop()
        if isinstance(w, ConstructorValue | RefValue):
            return True
        if isinstance(w, TupleValue):
            stack.extend(w.fields)
    return False


def _named_types(mod: IRModule) -> set[GlobalTypeVar]:
    """The type definitions an annotation of ``mod`` names (in a binder, a result type, a type
    definition's constructor fields of another type)."""
    roots: list[Type] = []
    for data in mod.type_definitions.values():
        for ctor in data.constructors:
            roots.extend(ctor.inputs)
    for fn in mod.functions.values():
        for e in post_order(fn):
            if isinstance(e, Function):
                roots.extend(p.type_annotation for p in e.params if p.type_annotation is not None)
                if e.ret_type is not None:
                    roots.append(e.ret_type)
            elif isinstance(e, Let) and e.var.type_annotation is not None:
                roots.append(e.var.type_annotation)
            elif isinstance(e, Match):
                for clause in e.clauses:
                    roots.extend(
                        v.type_annotation for v in pattern_vars(clause.lhs)
                        if v.type_annotation is not None
                    )  # fmt: skip
    out: set[GlobalTypeVar] = set()
    while roots:
        t = roots.pop()
        if isinstance(t, TypeCall):
            out.add(t.func)
        elif isinstance(t, GlobalTypeVar):
            out.add(t)
        roots.extend(type_children(t))
    return out


def _constructor_as_tuple(fn: Function, name: str) -> Function | None:
    """``fn`` with each call of the constructor ``name`` a tuple and each pattern on it a tuple
    pattern; ``None`` where the constructor is used otherwise (as a value)."""
    for e in post_order(fn):
        if isinstance(e, Call) and isinstance(e.op, Constructor) and e.op.name == name:
            continue
        if any(isinstance(c, Constructor) and c.name == name for c in children(e)):
            return None

    def visit(e: Expr) -> Expr | None:
        match e:
            case Call(Constructor(n), fields) if n == name:
                return Tuple(fields)
            case Match(data, clauses, complete):
                lhs = [_pattern_as_tuple(clause.lhs, name) for clause in clauses]
                if all(a is k.lhs for a, k in zip(lhs, clauses, strict=True)):
                    return None
                arms = tuple(Clause(a, k.rhs) for a, k in zip(lhs, clauses, strict=True))
                return Match(data, arms, complete)
        return None

    out = rewrite(fn, visit)
    assert isinstance(out, Function)
    return out


def _pattern_as_tuple(p: Pattern, name: str) -> Pattern:
    """``p`` with each constructor pattern on ``name`` a tuple pattern (patterns are shallow)."""
    match p:
        case PatternConstructor(ctor, patterns):
            inner = tuple(_pattern_as_tuple(q, name) for q in patterns)
            if ctor.name == name:
                return PatternTuple(inner)
            return PatternConstructor(ctor, inner)
        case PatternTuple(patterns):
            return PatternTuple(tuple(_pattern_as_tuple(q, name) for q in patterns))
        case PatternWildcard() | PatternVar():
            return p
        case _:
            return p


def _inline_lets(mod: IRModule, args: tuple[Value, ...]) -> Iterator[Candidate]:
    """Inline each ``let`` whose value is pure and whose variable is used once (or whose
    value is a variable or a constant)."""
    for gv, fn in mod.functions.items():
        uses: Counter[Var] = Counter(
            c for e in post_order(fn) for c in children(e) if isinstance(c, Var)
        )
        for e in post_order(fn):
            if not isinstance(e, Let):
                continue
            atom = isinstance(e.value, Var | Constant)
            if atom or (uses[e.var] == 1 and is_pure(e.value)):
                inlined = substitute(e.body, {e.var: e.value})
                yield Candidate(
                    f"inline %{e.var.name_hint}", _replaced(mod, gv, fn, e, inlined), args
                )


def _replacements(mod: IRModule, args: tuple[Value, ...], info: TypeInfo) -> Iterator[Candidate]:
    """For each sub-expression, outermost first: each child and grandchild of its type, then
    zeros and ones of its tensor type and (in ``@main``) a new parameter of that type (the
    parameter first where the type is not a scalar's: such a constant is printed as
    metadata)."""
    for gv, fn in mod.functions.items():
        nodes = [e for e in reversed(list(post_order(fn.body))) if not _trivial(e)]
        for e in nodes:
            t = info.expr_types.get(e)
            if t is None:
                continue
            for part in _parts(e):
                if info.expr_types.get(part) == t:
                    yield Candidate("replace by a part", _replaced(mod, gv, fn, e, part), args)
            shape = _static_shape(t)
            if shape is None or not isinstance(t, TensorType):
                if isinstance(t, TupleType) and gv.name == "main" and len(args) == len(fn.params):
                    yield from _tuple_inputs(mod, gv, fn, e, t, args)
                continue
            constants = [
                Candidate(
                    f"replace by {fill}s",
                    _replaced(mod, gv, fn, e, Constant(np.full(shape, fill, dtype=t.dtype))),
                    args,
                )
                for fill in (0, 1)
            ]
            inputs = []
            if gv.name == "main" and len(args) == len(fn.params):
                for fill in (0, 1):
                    param = Var(NEW_PARAMETER, t)
                    new = replace(
                        fn, params=(*fn.params, param), body=_replaced_in(fn.body, e, param)
                    )
                    value = TensorValue(np.full(shape, fill, dtype=t.dtype))
                    inputs.append(
                        Candidate(
                            "replace by a parameter", mod.with_function(gv, new), (*args, value)
                        )
                    )
            # A tensor constant of rank 1 or more is printed as metadata: an input reads better.
            yield from (constants + inputs) if not shape else (inputs + constants)


def _tuple_inputs(
    mod: IRModule, gv: GlobalVar, fn: Function, e: Expr, t: TupleType, args: tuple[Value, ...]
) -> Iterator[Candidate]:
    """``e`` (of tuple type ``t``, in ``@main``) replaced by a new parameter of ``@main``,
    argument zeros, then ones, if ``t`` holds tensors of known shape only."""
    for fill in (0, 1):
        value = _filled(t, fill)
        if value is None:
            return
        param = Var(NEW_PARAMETER, t)
        new = replace(fn, params=(*fn.params, param), body=_replaced_in(fn.body, e, param))
        yield Candidate("replace by a parameter", mod.with_function(gv, new), (*args, value))


def _filled(t: Type, fill: int) -> Value | None:
    """The value of type ``t`` whose every element is ``fill``, if ``t`` is made of tuples and
    tensors of known shape, else ``None``."""
    if isinstance(t, TupleType):
        fields = [_filled(f, fill) for f in t.fields]
        if any(f is None for f in fields):
            return None
        return TupleValue(tuple(f for f in fields if f is not None))
    shape = _static_shape(t)
    if shape is None or not isinstance(t, TensorType):
        return None
    return TensorValue(np.full(shape, fill, dtype=t.dtype))


def _main_results(mod: IRModule, args: tuple[Value, ...]) -> Iterator[Candidate]:
    """Each sub-expression of ``@main``'s body, outermost first, as its whole body, of any type
    (``@main``'s result type is dropped: it is inferred again); then, where the body ends in a
    tuple after its ``let``s, each field in the tuple's place, and the tuple less each field."""
    if "main" not in mod:
        return
    gv = mod.get_global_var("main")
    main = mod.functions[gv]
    for e in reversed(list(post_order(main.body))):
        if e is not main.body and not isinstance(e, Op | Constructor):
            new = replace(main, body=e, ret_type=None)
            yield Candidate("@main returns a part", mod.with_function(gv, new), args)
    result = main.body
    while isinstance(result, Let):
        result = result.body
    if isinstance(result, Tuple) and len(result.fields) > 1:
        # The tuple at the end of @main's lets: one of its fields in its place, then the tuple
        # without one field (what the lets bind stays in scope).
        fields = result.fields
        smaller = [*fields, *(Tuple(fields[:i] + fields[i + 1 :]) for i in range(len(fields)))]
        for part in smaller:
            new = replace(main, body=_replaced_in(main.body, result, part), ret_type=None)
            yield Candidate("@main returns less", mod.with_function(gv, new), args)


def _trivial(e: Expr) -> bool:
    """Whether there is nothing simpler to put in place of ``e``."""
    return isinstance(e, Var | GlobalVar | Constant | Op | Constructor)


def _parts(e: Expr) -> list[Expr]:
    """The children and grandchildren of ``e`` (not a call's operator)."""
    kids = list(e.args) if isinstance(e, Call) else list(children(e))
    grand = [g for k in kids if not isinstance(k, Function) for g in _kids(k)]
    return [*kids, *grand]


def _kids(e: Expr) -> tuple[Expr, ...]:
    return e.args if isinstance(e, Call) else children(e)


def _static_shape(t: Type) -> tuple[int, ...] | None:
    """The shape of ``t`` if it is a tensor type of known integer dimensions, else ``None``."""
    if not isinstance(t, TensorType):
        return None
    shape: list[int] = []
    for d in t.shape:
        if not isinstance(d, int | np.integer) or isinstance(d, bool):
            return None
        shape.append(int(d))
    return tuple(shape)


def _replaced_in(root: Expr, old: Expr, new: Expr) -> Expr:
    """``root`` with the node ``old`` (every occurrence of it) replaced by ``new``."""
    return rewrite_pairs(root, lambda e, _: new if e is old else None)


def _replaced(mod: IRModule, gv: GlobalVar, fn: Function, old: Expr, new: Expr) -> IRModule:
    """``mod`` with ``old`` replaced by ``new`` in the global ``gv`` (bound to ``fn``)."""
    out = _replaced_in(fn, old, new)
    assert isinstance(out, Function)
    return mod.with_function(gv, out)


__all__ = ["REDUCE_SECONDS", "Candidate", "NotFailing", "candidates", "reduce_case", "size"]
