"""Broken passes that drop, merge or reorder effects on references.

Relay has mutable references (``ref``, ``ref_read``, ``ref_write``) and calls of closures that
may use them, so a pass that treats every expression as pure is wrong on the programs that
use them. TVM's own passes were written for dataflow graphs first and grew effect awareness
late: its DeadCodeElimination and EliminateCommonSubexpr were only made purity-aware in the
2021 rework (before it, DCE dropped an unused ``let`` whatever its value did), and
ToANormalForm exists because moving a computation in a graph changes when its effects run.
Each mutant below is the correct pass with that awareness taken out.
"""

from __future__ import annotations

from dataclasses import dataclass

from relay.compiler.ir import free_vars, is_pure, map_functions, rewrite, rewrite_pairs, substitute
from relay.compiler.pass_manager import Pass
from relay.compiler.passes.dce import use_counts
from relay.semantics.sharing import sharing_plan
from relay.semantics.syntax import (
    Call,
    Constant,
    Constructor,
    Expr,
    Function,
    GlobalVar,
    IRModule,
    Let,
    Op,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    Var,
    children,
    post_order,
)


def _per_function(mod: IRModule, fn_pass: object) -> IRModule:
    def one(_: GlobalVar, fn: Function) -> Function:
        out = fn_pass(fn)  # type: ignore[operator]
        assert isinstance(out, Function)
        return out

    return map_functions(mod, one)


# -- DCE that believes everything is pure ------------------------------------------------------


def _sweep_all_pure(fn: Function) -> tuple[Function, bool]:
    counts = use_counts(fn)
    removed = False

    def visit(e: Expr) -> Expr | None:
        nonlocal removed
        if isinstance(e, Let) and not counts.get(id(e.var)):  # BUG: no purity check
            removed = True
            return e.body
        return None

    out = rewrite(fn, visit)
    assert isinstance(out, Function)
    return out, removed


def _dce_all_pure(fn: Function) -> Function:
    removed = True
    while removed:
        fn, removed = _sweep_all_pure(fn)
    return fn


def dce_ignores_effects(mod: IRModule) -> IRModule:
    """DeadCodeElimination without the purity check: every ``let`` whose variable is unused is
    removed, so ``ref_write(%r, 1); e`` (``let %_ = ref_write(..); e``) loses its write and a
    later ``ref_read(%r)`` sees the old value.

    Bug class: DCE dropping effects (TVM's DCE before it was made purity-aware).
    """
    return _per_function(mod, _dce_all_pure)


# -- CSE that merges reference operations and calls -------------------------------------------


def _cse_everything(fn: Function) -> Function:
    plan = sharing_plan(fn)
    seen: dict[tuple[object, ...], Expr] = {}

    def key_of(e: Expr) -> object:
        # structural for constants (TVM's CSE hashed structurally), identity otherwise
        if isinstance(e, Constant):
            return ("const", e.data.dtype.str, e.data.shape, e.data.tobytes())
        return id(e)

    def visit(original: Expr, rebuilt: Expr) -> Expr | None:
        match rebuilt:
            case Call(Constructor(), _):
                return None  # constructors may be polymorphic: Nil and Nil differ in type
            case Call(op, args, attrs):
                # BUG: calls of closures and globals merge too, not only operator calls
                name = op.name if isinstance(op, Op) else id(op)
                key: tuple[object, ...] = ("call", name, repr(attrs), *map(key_of, args))
            case RefCreate(value):
                key = ("ref", key_of(value))  # BUG: two ref(v) become one cell
            case RefRead(ref):
                key = ("read", key_of(ref))  # BUG: a read after a write reuses the old read
            case _:
                return None
        scope = plan.scope.get(original)
        if scope is None:
            return None
        key = (scope, *key)
        earlier = seen.get(key)
        if earlier is not None:
            return earlier
        seen[key] = rebuilt
        return None

    out = rewrite_pairs(fn, visit)
    assert isinstance(out, Function)
    return out


@dataclass(frozen=True)
class CseMergesEffects(Pass):
    """EliminateCommonSubexpr that keys every call, ``ref`` and ``ref_read`` on its callee and
    arguments: two ``ref(0)`` become one (aliased) cell, two ``ref_read(%r)`` around a
    ``ref_write(%r, ..)`` become the first read, two calls of the same closure become one.

    Bug class: CSE merging effects (TVM's EliminateCommonSubexpr hashed calls structurally and
    merged any two equal ones, effectful or not, until it learnt to skip impure calls).
    """

    focus_ops = frozenset({"add"})

    def transform(self, mod: IRModule) -> IRModule:
        return _per_function(mod, _cse_everything)


cse_merges_effects = CseMergesEffects()


# -- DCE with inline_once: moves a value to its single use ------------------------------------


def _inline_once(fn: Function) -> Function:
    counts = use_counts(fn)

    def visit(e: Expr) -> Expr | None:
        if isinstance(e, Let) and counts.get(id(e.var)) == 1:
            if e.var in free_vars(e.value):
                return None  # a recursive closure: keep it bound
            # BUG: no purity check, so the value moves past the effects between the let and
            # its use (a ref_read after a ref_write, a ref into a closure body)
            return substitute(e.body, {e.var: e.value})
        return None

    out = rewrite(fn, visit)
    assert isinstance(out, Function)
    return out


def dce_inline_once(mod: IRModule) -> IRModule:
    """DeadCodeElimination with ``inline_once=True``: a ``let`` whose variable is used once is
    removed and its value put at the use, whatever it does. ``let %v = ref_read(%r);
    ref_write(%r, 1); %v`` becomes ``ref_write(%r, 1); ref_read(%r)``: the read moved past the
    write (a fused or moved group crossing an effect).

    Bug class: moving a computation across an effect (TVM's DCE ``inline_once`` mode, which
    PartialEvaluate used, inlined without asking whether the value was pure).
    """
    return _per_function(mod, _inline_once)


# -- let floating that reorders effects -------------------------------------------------------


def _float_lets(fn: Function) -> Function:
    parents = _parent_counts(fn)

    def visit(original: Expr, e: Expr) -> Expr | None:
        if not isinstance(original, Let) or parents.get(id(original.body), 0) != 1:
            return None  # a shared inner let stays where its other uses see it
        match e:
            case Let(a, first, Let(b, second, body) as inner) if a not in free_vars(second):
                # BUG: independent by data flow is taken as independent; effects reorder
                return Let(b, second, Let(a, first, body, span=e.span), span=inner.span)
        return None

    out = rewrite_pairs(fn, visit)
    assert isinstance(out, Function)
    return out


def _parent_counts(root: Expr) -> dict[int, int]:
    counts: dict[int, int] = {}
    for e in post_order(root):
        for c in children(e):
            counts[id(c)] = counts.get(id(c), 0) + 1
    return counts


def float_lets(mod: IRModule) -> IRModule:
    """A let-floating (scheduling) pass that swaps two adjacent ``let``s when the second does
    not use the first's variable. Data flow allows it; effects do not: ``ref_write(%s, 2);
    let %v = ref_read(%r); ..`` reads before the write.

    Bug class: reordering effects on references (a scheduler that checks data dependence but
    not store dependence; TVM's FuseOps and ToANormalForm had to pin effectful nodes).
    """
    return _per_function(mod, _float_lets)


# -- store-to-load forwarding that misses an alias --------------------------------------------


def _forward_initial_values(fn: Function) -> Function:
    written: set[int] = set()  # references written through their own binder, by id(var)
    for e in post_order(fn):
        if isinstance(e, RefWrite) and isinstance(e.ref, Var):
            written.add(id(e.ref))  # BUG: a write through an alias (%s = %r) is not seen
    initial: dict[int, Expr] = {}
    for e in post_order(fn):
        match e:
            case Let(var, RefCreate(Var() | Constant() as value)) if id(var) not in written:
                initial[id(var)] = value  # (atoms only: a compound e0 would move)

    def visit(e: Expr) -> Expr | None:
        if isinstance(e, RefRead) and isinstance(e.ref, Var):
            return initial.get(id(e.ref))
        return None

    out = rewrite(fn, visit)
    assert isinstance(out, Function)
    return out


def forward_ref_reads(mod: IRModule) -> IRModule:
    """Store-to-load forwarding: ``let %r = ref(e0); .. ref_read(%r)`` reads ``e0`` when no
    ``ref_write(%r, ..)`` appears, so the read is replaced by ``e0``. The write check looks
    for the binder itself and misses aliases: after ``let %s = %r; ref_write(%s, e1)`` the
    read gives ``e1``, the forwarded program ``e0``.

    Bug class: an alias analysis that misses an alias (dropping the effect of a write through
    another name; the same mistake as a CSE of ``ref_read`` across a write).
    """
    return _per_function(mod, _forward_initial_values)


# -- a write and a read of differently named references swapped ------------------------------


def _swap_write_read(e: Expr) -> Expr | None:
    match e:
        case Let(w, RefWrite(Var() as a, _) as write, Let(v, RefRead(Var() as b) as read, body)):
            if a is b or w in free_vars(read):
                return None
            # BUG: two names are taken for two cells; `let %s = %r` makes one cell two names
            return Let(v, read, Let(w, write, body, span=e.span), span=e.span)
    return None


def swap_write_read_by_name(mod: IRModule) -> IRModule:
    """A scheduler that hoists a ``ref_read`` above the ``ref_write`` before it when the two go
    through different variables, on the belief that different variables are different cells:
    ``ref_write(%s, 1); let %v = ref_read(%r)`` after ``let %s = %r`` reads the old value.

    Bug class: ref_write/ref_read swapped (a must-alias analysis that compares names).
    """
    return _per_function(mod, lambda fn: rewrite(fn, _swap_write_read))


# -- dead-store elimination that sees only direct reads --------------------------------------


def _spine(e: Expr) -> list[Let]:
    out: list[Let] = []
    while isinstance(e, Let):
        out.append(e)
        e = e.body
    return out


def _drop_dead_stores(fn: Function) -> Function:
    dead: set[Let] = set()
    for e in post_order(fn):
        if not isinstance(e, Let):
            continue
        spine = _spine(e)
        first = spine[0]
        if not (isinstance(first.value, RefWrite) and isinstance(first.value.ref, Var)):
            continue
        cell = first.value.ref
        for later in spine[1:]:
            value = later.value
            if isinstance(value, RefRead) and value.ref is cell:
                break  # BUG: only a read bound directly by a let is seen; one inside an
                # expression, a call or a read through an alias is not
            if isinstance(value, RefWrite) and value.ref is cell:
                if not any(x is first.var for x in post_order(spine[-1])):
                    dead.add(first)
                break

    def visit(e: Expr) -> Expr | None:
        if e in dead:
            assert isinstance(e, Let) and isinstance(e.value, RefWrite)
            stored = e.value.value
            if is_pure(stored):
                return Let(e.var, Tuple(()), e.body, span=e.span)
        return None

    out = rewrite(fn, visit)
    assert isinstance(out, Function)
    return out


def dead_store_shallow(mod: IRModule) -> IRModule:
    """Dead-store elimination: ``ref_write(%r, a)`` followed in the same ``let`` chain by
    ``ref_write(%r, b)`` with no ``let %v = ref_read(%r)`` between them is dropped. Reads that
    are not the whole value of a ``let`` (``add(ref_read(%r), 1)``, a closure call that reads
    ``%r``, a read through an alias) are not seen, so the first write is lost under them.

    Bug class: a dropped ref_write (a store-dependence analysis that looks at the top level
    only).
    """
    return _per_function(mod, _drop_dead_stores)


# -- A read scheduled above a call, judged from the call's arguments ---------------------------


def _hoist_reads(fn: Function) -> Function:
    parents = _parent_counts(fn)

    def visit(original: Expr, e: Expr) -> Expr | None:
        if not isinstance(original, Let) or parents.get(id(original.body), 0) != 1:
            return None
        match e:
            case Let(a, Call(callee) as call, Let(v, RefRead(Var() as r) as read, body) as inner):
                if isinstance(callee, Op | Constructor):
                    return None  # operators touch no reference
                if r in free_vars(call) or a in free_vars(read):
                    return None
                # BUG: the call is taken to write only the references it is given; a closure
                # that captured %r (or a global given an alias) writes it all the same.
                return Let(v, read, Let(a, call, body, span=e.span), span=inner.span)
        return None

    out = rewrite_pairs(fn, visit)
    assert isinstance(out, Function)
    return out


def hoist_read_above_call(mod: IRModule) -> IRModule:
    """Instruction scheduling that moves ``let %v = ref_read(%r)`` above the call bound just
    before it (``let %a = %f(..)``) when ``%r`` is not among the call's free variables.

    Bug class: effect reordering by a mod-ref analysis that looks at a call's arguments only
    (a closure that captured the cell writes it without being given it)."""
    return _per_function(mod, _hoist_reads)


# -- A let sunk into the closure that uses it, an allocation taken for pure --------------------


def _sinkable(value: Expr) -> bool:
    """No read, write or call (BUG: ``ref(..)`` passes: an allocation is taken for pure)."""
    for n in post_order(value):
        if isinstance(n, RefRead | RefWrite):
            return False
        if isinstance(n, Call) and not isinstance(n.op, Op | Constructor):
            return False
    return True


def _only_inside_closures(body: Expr, var: Var) -> bool:
    """Whether ``var`` occurs in ``body`` only inside ``fn`` literals, all in one of them."""
    outside = closures = 0
    stack, seen = [body], set()
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if e is var:
            outside += 1
        elif isinstance(e, Function):
            closures += var in free_vars(e)
        else:
            stack.extend(children(e))
    return outside == 0 and closures == 1


def _sink(fn: Function) -> Function:
    def visit(e: Expr) -> Expr | None:
        if not isinstance(e, Let) or isinstance(e.value, Function) or not _sinkable(e.value):
            return None
        if e.var in free_vars(e.value) or not _only_inside_closures(e.body, e.var):
            return None
        return substitute(e.body, {e.var: e.value})  # evaluated where the closure uses it

    out = rewrite(fn, visit)
    assert isinstance(out, Function)
    return out


def sink_into_closure(mod: IRModule) -> IRModule:
    """Sinks a ``let`` whose only use is inside one closure into that closure (a smaller
    environment), for values without reads, writes or calls, but ``ref(..)`` among them: a
    cell the closure kept across its calls becomes a fresh cell on every call.

    Bug class: a let inlined into a function body (evaluated once per call) although its value
    has an effect, here an allocation."""
    return _per_function(mod, _sink)
