"""PartialEvaluate: run at compile time what the program's static part determines.

TVM's ``PartialEvaluate`` (``relay/transforms/partial_eval.cc``): an *online* partial
evaluator. Each global is evaluated with its parameters unknown; every sub-expression
evaluates to a *partially static value* (``PStatic``): an optional static part (a tensor, a
tuple, a constructor value, a closure, a reference, an operator or a constructor used as a
function) and a dynamic part, an atom (a variable, a constant, a global) that computes the
same value at run time. The residual program is in A-normal form: every computation whose
value is not known is bound by a ``let`` in evaluation order (a *let list*), so nothing is
duplicated and effects keep their order.

The rules, by construct (``pe`` below):

- *constants, globals, operators, constructors* are static;
- *tuples, constructor calls* are static with static fields; a projection of a static tuple
  is the field;
- *operator calls* on static tensors are folded with the operators' reference semantics
  (``fold_constant.fold_call``: a failing call, undefined behaviour or a result over
  ``MAX_FOLDED_ELEMENTS`` is left to run time); otherwise they are residualised;
- *functions* are static closures over the partial environment. A call of a static closure
  (or of a global) is *unfolded*: its body is evaluated with the parameters bound to the
  arguments' partial values, in the caller's let list, after the arguments (call by value,
  arguments left to right, then the callee). A call of an unknown function is residualised;
- *recursion* is unfolded only while it makes progress on static arguments: for each function
  (by its code) being unfolded, the pass keeps the smallest measure seen of each argument
  along the current chain of unfoldings (a non-negative static integer scalar counts its
  value, a static constructor value or tuple its size, anything else 0); an inner call of the
  same function is unfolded only if some argument's measure is smaller than that minimum.
  The minima only decrease, so unfolding terminates (TVM's fuel lattice). Besides, ``fuel``
  bounds the unfoldings of one global in all (code size), and ``max_depth`` their nesting;
- *references* live in a static store: ``ref(v)`` makes a static reference whose content is
  ``v``, ``ref_read`` of a static reference with known content is that content, and
  ``ref_write`` is always residualised (the reference may be read by residual code) and
  updates the store. A write through an unknown reference (which may alias any reference) and
  a call of an unknown function forget the whole store; after a residualised ``if`` or
  ``match`` a reference keeps its content only if every branch left it as it was;
- *if* with a static condition and *match* whose clause is decided statically (constructor
  tags, irrefutable tuple patterns) evaluate the chosen branch only; otherwise each branch is
  evaluated in its own let list with a copy of the store, and the ``if``/``match`` is
  residualised.

A static value is given a dynamic form only when residual code needs it: pure bindings
(operator calls, tuples, projections, constructor values, closures, ``ref``, ``ref_read``) are
*lazy*, written to the residual program only if something residual uses their variable; a
closure's residual ``fn`` is made then, by evaluating its body with unknown parameters and an
empty store. Calls of functions, ``ref_write`` and residualised ``if``/``match`` are always
written, in order, so a write or a call that may not terminate is never dropped nor
duplicated. Afterwards a reference that residual code only writes (never reads, passes or
stores) is removed with its writes.

Annotations: residual ``let`` variables are unannotated (inferred); parameters, pattern
variables and return types keep their annotation where its type variables are in scope (an
unfolded polymorphic function's type parameters mean nothing at the call, so annotations
naming them are dropped and inferred again). Functions
marked ``Primitive`` or ``Compiler`` are neither opened nor unfolded. Should a global's type
change or the output not type-check (inference can need an annotation that unfolding
removed), the pass reruns on the module with its inferred types written out, and if that
fails too it leaves the module as it was; a global too deep for the evaluator's recursion is
left as it was.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from ...semantics.syntax import (
    Call,
    Clause,
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
    Type,
    TypeVar,
    Var,
    children,
    post_order,
    type_children,
)
from ..ir import free_vars, fresh_binders, map_functions, rewrite, substitute
from ..pass_manager import Pass, register_pass
from .fold_constant import fold_call
from .infer_type import keep_global_types
from .lambda_lift import is_primitive
from .normal_forms import to_anf

DEFAULT_FUEL = 512
"""Unfoldings of calls allowed while partially evaluating one global."""

DEFAULT_MAX_DEPTH = 64
"""How deeply unfoldings may nest (each takes Python stack)."""


# ---------------------------------------------------------------------------------------------
# Partially static values


@dataclass(eq=False)
class STensor:
    """A tensor known at compile time."""

    data: npt.NDArray[np.generic]


@dataclass(eq=False)
class STuple:
    """A tuple whose fields are partially static."""

    fields: tuple[PStatic, ...]


@dataclass(eq=False)
class SCons:
    """A constructor value with partially static fields."""

    constructor: Constructor
    fields: tuple[PStatic, ...]


@dataclass(eq=False)
class SRef:
    """A reference created by the program at a known place; its content is in the store."""


@dataclass(eq=False)
class SFunc:
    """A closure: a function literal with the partial environment it was made in. ``self_var``
    is the ``let`` variable a recursive function refers to itself by."""

    fn: Function
    env: dict[Var, PStatic]
    self_var: Var | None = None


@dataclass(eq=False)
class SGlobal:
    """A global function."""

    gv: GlobalVar


@dataclass(eq=False)
class SOp:
    """An operator used as a function."""

    op: Op


@dataclass(eq=False)
class SConstructorFn:
    """A constructor used as a function."""

    constructor: Constructor


Static = STensor | STuple | SCons | SRef | SFunc | SGlobal | SOp | SConstructorFn


@dataclass(eq=False)
class PStatic:
    """A partially static value: what is known (``static``, or ``None``) and the atom that
    computes it at run time (``dynamic``)."""

    static: Static | None
    dynamic: Expr


Store = dict[SRef, PStatic]


# ---------------------------------------------------------------------------------------------
# Let lists


@dataclass(eq=False)
class _Binding:
    var: Var
    value: Expr | None  # None: a lazy closure, made by ``make`` when needed
    eager: bool
    make: Callable[[], Expr] | None = None


@dataclass(eq=False)
class LetList:
    """The residual bindings of one scope, in evaluation order."""

    bindings: list[_Binding] = field(default_factory=list)

    def eager(self, value: Expr, hint: str = "x") -> Var:
        """Bind ``value``, which must be evaluated (it may have an effect)."""
        var = Var(hint)
        self.bindings.append(_Binding(var, value, True))
        return var

    def lazy(self, value: Expr, hint: str = "x") -> Var:
        """Bind the pure ``value``, written only if the variable is used."""
        var = Var(hint)
        self.bindings.append(_Binding(var, value, False))
        return var

    def lazy_closure(self, var: Var, make: Callable[[], Expr]) -> None:
        """Bind ``var`` to the function ``make()`` makes, if ``var`` is used."""
        self.bindings.append(_Binding(var, None, False, make))

    def close(self, result: Expr) -> Expr:
        """The scope as one expression: the needed bindings, then ``result``. Bindings are
        visited last to first, so a binding is needed once a later one (or the result)
        uses its variable."""
        needed: set[Var] = set(free_vars(result))
        kept: list[tuple[Var, Expr]] = []
        for b in reversed(self.bindings):
            if not b.eager and b.var not in needed:
                continue
            value = b.value
            if value is None:
                assert b.make is not None
                value = b.make()
            needed.update(free_vars(value))
            kept.append((b.var, value))
        out = result
        for var, value in kept:
            out = Let(var, value, out)
        return out


# ---------------------------------------------------------------------------------------------
# The evaluator


class _OutOfDepth(Exception):
    """The evaluator ran past Python's recursion limit."""


def _type_vars(t: Type) -> set[str]:
    out: set[str] = set()
    stack = [t]
    while stack:
        u = stack.pop()
        if isinstance(u, TypeVar):
            out.add(u.name)
        stack.extend(type_children(u))
    return out


def measure(ps: PStatic) -> int:
    """The size of a partial value's static part, for the progress test of recursion."""
    total = 0
    stack = [ps]
    while stack:
        p = stack.pop()
        match p.static:
            case STensor(data) if data.ndim == 0 and data.dtype.kind in "iu":
                total += max(int(data), 0)
            case STuple(fields):
                total += 1
                stack.extend(fields)
            case SCons(_, fields):
                total += 1
                stack.extend(fields)
    return total


def _static_input(ps: PStatic) -> Expr | None:
    """The constant expression of a static tensor, or tuple of static tensors."""
    match ps.static:
        case STensor():
            return ps.dynamic
        case STuple(fields) if all(isinstance(f.static, STensor) for f in fields):
            return Tuple(tuple(f.dynamic for f in fields))
    return None


def _opaque(fn: Function) -> bool:
    """Functions the evaluator neither opens nor unfolds."""
    return is_primitive(fn) or fn.attr("Compiler") is not None


@dataclass
class _Evaluator:
    """Partially evaluate the globals of ``mod`` (one at a time: ``global_function``)."""

    mod: IRModule
    fuel: int
    max_depth: int
    depth: int = 0
    unfolding: dict[Function, tuple[int, ...]] = field(default_factory=dict)
    tscope: frozenset[str] = frozenset()

    # -- helpers ------------------------------------------------------------------------------

    def clean(self, t: Type | None) -> Type | None:
        """``t`` if its type variables are in scope in the residual code, else ``None``."""
        if t is None or _type_vars(t) <= self.tscope:
            return t
        return None

    def tensor(self, data: npt.NDArray[np.generic]) -> PStatic:
        return PStatic(STensor(data), Constant(data))

    def folded(self, e: Expr) -> PStatic:
        """The partial value of a folded operator call (a constant or a tuple of them)."""
        if isinstance(e, Constant):
            return self.tensor(e.data)
        assert isinstance(e, Tuple)
        return PStatic(STuple(tuple(self.folded(f) for f in e.fields)), e)

    def lazy(self, value: Expr, ll: LetList, static: Static | None = None) -> PStatic:
        return PStatic(static, ll.lazy(value))

    def closure(
        self,
        fn: Function,
        env: dict[Var, PStatic],
        ll: LetList,
        self_var: Var | None,
        hint: str = "f",
    ) -> PStatic:
        """A static closure, with its residual function bound lazily in ``ll``."""
        var = Var(self_var.name_hint if self_var is not None else hint)
        env = dict(env)
        sf = SFunc(fn, env, self_var)
        ps = PStatic(sf, var)
        if self_var is not None:
            env[self_var] = ps
        tscope = self.tscope
        ll.lazy_closure(var, lambda: self.residual_function(sf, tscope))
        return ps

    # -- functions ----------------------------------------------------------------------------

    def residual_function(self, sf: SFunc, tscope: frozenset[str]) -> Expr:
        """The residual ``fn`` of closure ``sf``: its body evaluated with unknown parameters
        and an unknown store."""
        fn = sf.fn
        if _opaque(fn):
            copy = fresh_binders(fn)
            return substitute(copy, {v: sf.env[v].dynamic for v in free_vars(copy)})
        saved = (self.tscope, self.unfolding)
        self.tscope = tscope | {tv.name for tv in fn.type_params}
        # The function is being defined: a recursive call with unknown arguments inside it
        # makes no progress and stays a call.
        self.unfolding = {fn: tuple(0 for _ in fn.params)}
        try:
            params = tuple(
                Var(p.name_hint, self.clean(p.type_annotation), span=p.span) for p in fn.params
            )
            env = dict(sf.env)
            env.update({p: PStatic(None, q) for p, q in zip(fn.params, params, strict=True)})
            ll = LetList()
            result = self.pe(fn.body, env, {}, ll)
            body = ll.close(result.dynamic)
            return Function(
                params, body, self.clean(fn.ret_type), fn.type_params, fn.attrs, span=fn.span
            )
        finally:
            self.tscope, self.unfolding = saved

    def global_function(self, fn: Function) -> Function:
        """The residual of a global function: its parameters unknown."""
        self.tscope = frozenset(tv.name for tv in fn.type_params)
        self.unfolding = {fn: tuple(0 for _ in fn.params)}
        env = {p: PStatic(None, p) for p in fn.params}
        ll = LetList()
        result = self.pe(fn.body, env, {}, ll)
        return replace(fn, body=ll.close(result.dynamic))

    def call(
        self, callee: PStatic, args: tuple[PStatic, ...], e: Call, store: Store, ll: LetList
    ) -> PStatic:
        """Apply a partial value to partial arguments (already evaluated)."""
        match callee.static:
            case SOp(op):
                inputs = [_static_input(a) for a in args]
                if all(i is not None for i in inputs):
                    folded = fold_call(Call(op, tuple(i for i in inputs if i is not None), e.attrs))
                    if folded is not None:
                        return self.folded(folded)
                value = Call(op, tuple(a.dynamic for a in args), e.attrs, self.type_args(e))
                return self.lazy(value, ll)
            case SConstructorFn(ctor):
                value = Call(ctor, tuple(a.dynamic for a in args))
                return self.lazy(value, ll, SCons(ctor, args))
            case SGlobal(gv):
                fn = self.mod.functions[gv]
                if self.unfoldable(fn, args):
                    return self.unfold(fn, {}, None, callee, args, store, ll)
            case SFunc(fn, env, self_var):
                if self.unfoldable(fn, args):
                    return self.unfold(fn, env, self_var, callee, args, store, ll)
        # An unknown function: it may do anything to any reference.
        value = Call(callee.dynamic, tuple(a.dynamic for a in args), e.attrs, self.type_args(e))
        store.clear()
        return PStatic(None, ll.eager(value, "r"))

    def type_args(self, e: Call) -> tuple[Type, ...]:
        cleaned = tuple(self.clean(t) for t in e.type_args)
        return () if any(t is None for t in cleaned) else e.type_args

    def unfoldable(self, fn: Function, args: tuple[PStatic, ...]) -> bool:
        """Whether a call of ``fn`` with ``args`` is unfolded (see the module docstring)."""
        if _opaque(fn) or self.fuel <= 0 or self.depth >= self.max_depth:
            return False
        if len(fn.params) != len(args):
            return False
        before = self.unfolding.get(fn)
        if before is None:
            return True
        return any(measure(a) < m for a, m in zip(args, before, strict=True))

    def unfold(
        self,
        fn: Function,
        env: dict[Var, PStatic],
        self_var: Var | None,
        callee: PStatic,
        args: tuple[PStatic, ...],
        store: Store,
        ll: LetList,
    ) -> PStatic:
        """Evaluate the body of ``fn`` with its parameters bound to ``args``, in ``ll``."""
        self.fuel -= 1
        now = tuple(measure(a) for a in args)
        before = self.unfolding.get(fn)
        self.unfolding[fn] = now if before is None else tuple(map(min, now, before))
        self.depth += 1
        try:
            inner = dict(env)
            if self_var is not None:
                inner[self_var] = callee
            inner.update(zip(fn.params, args, strict=True))
            return self.pe(fn.body, inner, store, ll)
        finally:
            self.depth -= 1
            if before is None:
                del self.unfolding[fn]
            else:
                self.unfolding[fn] = before

    # -- expressions --------------------------------------------------------------------------

    def pe(self, e: Expr, env: dict[Var, PStatic], store: Store, ll: LetList) -> PStatic:
        """The partial value of ``e``; residual bindings go to ``ll``, ``store`` is updated."""
        # A let-spine is walked with a loop (A-normal form nests thousands deep).
        while isinstance(e, Let):
            if isinstance(e.value, Function):
                env[e.var] = self.closure(e.value, env, ll, e.var)
            else:
                env[e.var] = self.pe(e.value, env, store, ll)
            e = e.body
        match e:
            case Var():
                return env[e]
            case GlobalVar():
                return PStatic(SGlobal(e), e)
            case Constant(data):
                return PStatic(STensor(data), e)
            case Op():
                return PStatic(SOp(e), e)
            case Constructor():
                return PStatic(SConstructorFn(e), e)
            case Tuple(fields):
                parts = tuple(self.pe(f, env, store, ll) for f in fields)
                return self.lazy(Tuple(tuple(p.dynamic for p in parts)), ll, STuple(parts))
            case TupleGetItem(tup, index):
                t = self.pe(tup, env, store, ll)
                if isinstance(t.static, STuple):
                    return t.static.fields[index]
                return self.lazy(TupleGetItem(t.dynamic, index), ll)
            case Function():
                return self.closure(e, env, ll, None)
            case Call(op, args):
                parts = tuple(self.pe(a, env, store, ll) for a in args)
                callee = self.pe(op, env, store, ll)
                return self.call(callee, parts, e, store, ll)
            case If(cond, true_branch, false_branch):
                c = self.pe(cond, env, store, ll)
                if isinstance(c.static, STensor):
                    branch = true_branch if bool(c.static.data) else false_branch
                    return self.pe(branch, env, store, ll)
                ends: list[Store] = []
                then = self.scope(true_branch, dict(env), store, ends)
                other = self.scope(false_branch, dict(env), store, ends)
                merge(store, ends)
                return PStatic(None, ll.eager(If(c.dynamic, then, other), "r"))
            case Match(data, clauses, complete):
                return self.match(
                    e, self.pe(data, env, store, ll), clauses, complete, env, store, ll
                )
            case RefCreate(value):
                v = self.pe(value, env, store, ll)
                ref = SRef()
                store[ref] = v
                return self.lazy(RefCreate(v.dynamic), ll, ref)
            case RefRead(ref):
                r = self.pe(ref, env, store, ll)
                if isinstance(r.static, SRef) and r.static in store:
                    return store[r.static]
                out = self.lazy(RefRead(r.dynamic), ll)
                if isinstance(r.static, SRef):
                    store[r.static] = out
                return out
            case RefWrite(ref, value):
                r = self.pe(ref, env, store, ll)
                v = self.pe(value, env, store, ll)
                ll.eager(RefWrite(r.dynamic, v.dynamic), "_")
                if isinstance(r.static, SRef):
                    store[r.static] = v
                else:
                    store.clear()  # an unknown reference may alias any of them
                return self.lazy(Tuple(()), ll, STuple(()))
            case Let():
                raise AssertionError("unreachable: lets are walked above")
        raise AssertionError(f"unknown expression {type(e).__name__}")

    def scope(self, e: Expr, env: dict[Var, PStatic], store: Store, ends: list[Store]) -> Expr:
        """``e`` evaluated in a new let list with a copy of ``store``, closed; the store it
        ends with is appended to ``ends``."""
        ll = LetList()
        inner = dict(store)
        ends.append(inner)
        result = self.pe(e, env, inner, ll)
        return ll.close(result.dynamic)

    def match(
        self,
        e: Match,
        data: PStatic,
        clauses: tuple[Clause, ...],
        complete: bool,
        env: dict[Var, PStatic],
        store: Store,
        ll: LetList,
    ) -> PStatic:
        """A match: the clause decided statically, or a residual match."""
        for clause in clauses:
            bound: dict[Var, PStatic] = {}
            verdict = self.match_pattern(clause.lhs, data, bound, ll)
            if verdict is False:
                continue
            if verdict is True:
                env.update(bound)
                return self.pe(clause.rhs, env, store, ll)
            break  # unknown: decided at run time
        residual: list[Clause] = []
        ends: list[Store] = []
        for clause in clauses:
            inner = dict(env)
            lhs = self.fresh_pattern(clause.lhs, inner)
            rhs = self.scope(clause.rhs, inner, store, ends)
            residual.append(Clause(lhs, rhs, span=clause.span))
        merge(store, ends)
        value = Match(data.dynamic, tuple(residual), complete, span=e.span)
        return PStatic(None, ll.eager(value, "r"))

    def match_pattern(
        self, p: Pattern, v: PStatic, bound: dict[Var, PStatic], ll: LetList
    ) -> bool | None:
        """Whether ``p`` matches ``v``: ``True`` (binding ``bound``), ``False``, or ``None``
        when it depends on the dynamic part."""
        match p:
            case PatternWildcard():
                return True
            case PatternVar(var):
                bound[var] = v
                return True
            case PatternTuple(patterns):
                if isinstance(v.static, STuple):
                    fields = v.static.fields
                else:  # a tuple pattern cannot fail: project the fields
                    fields = tuple(
                        self.lazy(TupleGetItem(v.dynamic, i), ll) for i in range(len(patterns))
                    )
                return self.match_all(patterns, fields, bound, ll)
            case PatternConstructor(ctor, patterns):
                if not isinstance(v.static, SCons):
                    return None
                if v.static.constructor.tag != ctor.tag or v.static.constructor.name != ctor.name:
                    return False
                return self.match_all(patterns, v.static.fields, bound, ll)
        raise AssertionError(f"unknown pattern {type(p).__name__}")

    def match_all(
        self,
        patterns: tuple[Pattern, ...],
        fields: tuple[PStatic, ...],
        bound: dict[Var, PStatic],
        ll: LetList,
    ) -> bool | None:
        unknown = False
        for q, f in zip(patterns, fields, strict=True):
            verdict = self.match_pattern(q, f, bound, ll)
            if verdict is False:
                return False
            if verdict is None:
                unknown = True
        return None if unknown else True

    def fresh_pattern(self, p: Pattern, env: dict[Var, PStatic]) -> Pattern:
        """``p`` with new variables, each bound in ``env`` to an unknown value."""
        match p:
            case PatternWildcard():
                return p
            case PatternVar(var):
                new = Var(var.name_hint, self.clean(var.type_annotation), span=var.span)
                env[var] = PStatic(None, new)
                return PatternVar(new, span=p.span)
            case PatternTuple(patterns):
                return PatternTuple(
                    tuple(self.fresh_pattern(q, env) for q in patterns), span=p.span
                )
            case PatternConstructor(ctor, patterns):
                return PatternConstructor(
                    ctor, tuple(self.fresh_pattern(q, env) for q in patterns), span=p.span
                )
        raise AssertionError(f"unknown pattern {type(p).__name__}")


def merge(store: Store, ends: list[Store]) -> None:
    """The store after a residual ``if`` or ``match`` whose branches ended with ``ends``: a
    reference keeps its content only where every branch ended with the very same partial
    value it had before (one branch runs, and each kept its content); the others are
    forgotten."""
    for ref in list(store):
        if not all(end.get(ref) is store[ref] for end in ends):
            del store[ref]


# ---------------------------------------------------------------------------------------------
# Clean-up: references that are only written


def drop_write_only_refs(fn: Function) -> Function:
    """``fn`` without the ``let %r = ref(v)`` whose variable is used only as the reference
    of ``ref_write``s, and without those writes (nothing can read what they write)."""
    uses: dict[Var, int] = {}
    write_uses: dict[Var, int] = {}
    created: set[Var] = set()
    for e in post_order(fn):
        for c in children(e):
            if isinstance(c, Var):
                uses[c] = uses.get(c, 0) + 1
        if isinstance(e, RefWrite) and isinstance(e.ref, Var):
            write_uses[e.ref] = write_uses.get(e.ref, 0) + 1
        if isinstance(e, Let) and isinstance(e.value, RefCreate):
            created.add(e.var)
    dead = {v for v in created if uses.get(v, 0) == write_uses.get(v, 0)}
    if not dead:
        return fn
    return _drop_lets(fn, dead)


def _drop_lets(fn: Function, dead: set[Var]) -> Function:
    """Remove the lets binding ``dead`` references and the lets of writes to them (their
    values are atoms: A-normal form)."""

    def visit(e: Expr) -> Expr | None:
        if isinstance(e, Let):
            if e.var in dead:
                return e.body
            if isinstance(e.value, RefWrite) and e.value.ref in dead:
                return e.body
        return None

    out = rewrite(fn, visit)
    assert isinstance(out, Function)
    return out


def partially_evaluate(
    mod: IRModule, fuel: int = DEFAULT_FUEL, max_depth: int = DEFAULT_MAX_DEPTH
) -> IRModule:
    """Every global of ``mod`` partially evaluated (see the module docstring)."""
    prepared = map_functions(mod, lambda _, fn: fn if _opaque(fn) else to_anf(fn))

    def one(_: GlobalVar, fn: Function) -> Function:
        if _opaque(fn):
            return fn
        try:
            out = _Evaluator(prepared, fuel, max_depth).global_function(fn)
        except RecursionError:
            return fn
        return drop_write_only_refs(out)

    return map_functions(prepared, one)


@register_pass
@dataclass(frozen=True)
class PartialEvaluate(Pass):
    """Evaluate at compile time what static values determine; residualise the rest.

    Pre: well-formed, well-typed. Post: the same meaning and global types; the output is in
    A-normal form; calls of known functions are unfolded (recursion while it makes progress
    on static arguments, at most ``fuel`` unfoldings per global), operator calls on
    constants folded, reads of references with known content replaced by the content, and
    branches with static conditions chosen.
    """

    opt_level = 3
    fuel: int = DEFAULT_FUEL
    max_depth: int = DEFAULT_MAX_DEPTH

    def transform(self, mod: IRModule) -> IRModule:
        def run(m: IRModule) -> IRModule:
            return partially_evaluate(m, self.fuel, self.max_depth)

        return keep_global_types(mod, run(mod), run)
