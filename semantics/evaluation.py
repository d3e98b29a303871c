"""Dynamic semantics: the big-step judgement ``ρ, σ ⊢ e ⇓ v, σ'``.

ρ is the environment (variables, and the scopes the current code runs in), σ the store (the
contents of references, plus the memo of shared sub-expressions). Evaluation is call-by-value;
a call evaluates its arguments left to right, then the callee (as TVM's interpreter did); a
tuple its fields left to right. One function per rule, named after it; ``evaluate_expr`` is
the table of contents. A shared sub-expression (``%N``) is evaluated once, where
``sharing.py`` says; that memo (threaded with σ) is the one cache the spec keeps.

Failures are part of the meaning:

- ``Stuck(rule)``: no rule applies. Impossible for a well-typed program: a bug in the type
  checker or here.
- ``RelayRuntimeError``: a real dynamic failure, such as a ``match?`` with no matching clause.
- ``UndefinedBehavior``: a case the spec leaves undefined. The operators' reference semantics
  list their cases (``ops/*.py``): integer division or modulo by zero, INT_MIN / -1, signed
  and unsigned 32/64-bit overflow in add/sub/mul (TVM's LLVM code generator marks them
  ``nsw``/``nuw``), float-to-int casts of NaN or out-of-range values, ``take`` in fast mode out
  of range, shapes that a ``?`` hid and that turn out wrong, NaN in max/min reductions.
- ``Exhaustion``: out of fuel (each rule firing costs one), or past Python's recursion limit
  (the spec recurses on program depth; the interpreter does not).

This module is written to be read; it may recurse on program depth, but walks let-chains with
a loop. Speed lives in ``relay.interpreter``.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

import numpy as np

from .errors import Exhaustion, RelayError, RelayRuntimeError, Span, Stuck
from .ops.registry import OPS, OpInput
from .sharing import ScopeKey, SharingPlan, body_scope, sharing_plan
from .syntax import (
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
)
from .values import (
    ClosureValue,
    ConstructorFnValue,
    ConstructorValue,
    RefValue,
    Store,
    TensorValue,
    TupleValue,
    Value,
)

RULES: tuple[str, ...] = (
    "E-Var", "E-Global", "E-Const", "E-Tuple", "E-Proj", "E-Let", "E-Let-Rec", "E-If-True",
    "E-If-False", "E-Fn", "E-Call-Op", "E-Call-Closure", "E-Call-Constructor", "E-Ctor",
    "E-Match", "E-Match-Fail", "E-RefCreate", "E-RefRead", "E-RefWrite", "E-Shared",
    "M-Wildcard", "M-Var", "M-Ctor", "M-Tuple",
)  # fmt: skip
"""Every rule of the judgement (and of matching)."""


# ---------------------------------------------------------------------------------------------
# Environments and states


@dataclass(frozen=True)
class Env:
    """ρ: the values of variables, and the activation of each enclosing scope."""

    vars: Mapping[Var, Value] = field(default_factory=dict)
    scopes: Mapping[ScopeKey, int] = field(default_factory=dict)

    def bind(self, var: Var, value: Value) -> Env:
        return replace(self, vars={**self.vars, var: value})

    def enter(self, scope: ScopeKey, activation: int) -> Env:
        return replace(self, scopes={**self.scopes, scope: activation})


@dataclass(frozen=True)
class State:
    """σ, threaded through evaluation: references, the memo of shared nodes, and fuel."""

    store: Store = field(default_factory=dict)
    memo: Mapping[tuple[int, int], Value] = field(default_factory=dict)
    next_location: int = 0
    fuel: int = 1_000_000


@dataclass
class Derivation:
    """One node of a derivation tree: the rule, the expression, its value, the premises."""

    rule: str
    expr: Expr | Pattern
    value: Value | None = None
    premises: list[Derivation] = field(default_factory=list)


@dataclass
class Result:
    """The outcome of ``evaluate``."""

    value: Value
    store: Store
    derivation: Derivation | None
    rules_fired: Counter[str]


class Evaluator:
    """The module being run, the sharing plans, and (for explanations) the derivation."""

    def __init__(self, mod: IRModule, *, explain: bool = False) -> None:
        self.mod = mod
        self.plans: dict[int, SharingPlan] = {}
        for fn in mod.functions.values():
            plan = sharing_plan(fn)
            for node_id in plan.scope:
                self.plans[node_id] = plan
        self.explain = explain
        self.trace: list[Derivation] = [Derivation("root", Tuple(()))]
        self.fired: Counter[str] = Counter()

    def plan(self, e: Expr) -> SharingPlan | None:
        return self.plans.get(id(e))

    @contextmanager
    def rule(self, name: str, e: Expr | Pattern) -> Iterator[Derivation]:
        """Record a rule firing (and its place in the derivation tree, if explaining)."""
        self.fired[name] += 1
        node = Derivation(name, e)
        if self.explain:
            self.trace[-1].premises.append(node)
            self.trace.append(node)
        try:
            yield node
        finally:
            if self.explain:
                self.trace.pop()

    def rename(self, node: Derivation, name: str) -> None:
        """Settle which rule fired, once a premise has decided it (E-If-True or -False)."""
        self.fired[node.rule] -= 1
        self.fired[name] += 1
        node.rule = name


def _spend(state: State, e: Expr) -> State:
    if state.fuel <= 0:
        raise Exhaustion("out of fuel: evaluation took more steps than allowed", e.span)
    return replace(state, fuel=state.fuel - 1)


# ---------------------------------------------------------------------------------------------
# The judgement


def evaluate_expr(ev: Evaluator, e: Expr, env: Env, state: State) -> tuple[Value, State]:
    """``ρ, σ ⊢ e ⇓ v, σ'``: the table of contents, one case per rule family."""
    state = _spend(state, e)
    plan = ev.plan(e)
    if plan is not None and id(e) in plan.shared:
        return e_shared(ev, e, env, state, plan)
    return evaluate_unshared(ev, e, env, state)


def evaluate_unshared(ev: Evaluator, e: Expr, env: Env, state: State) -> tuple[Value, State]:
    match e:
        case Var():
            return e_var(ev, e, env, state)
        case GlobalVar():
            return e_global(ev, e, env, state)
        case Constant():
            return e_const(ev, e, env, state)
        case Tuple():
            return e_tuple(ev, e, env, state)
        case TupleGetItem():
            return e_proj(ev, e, env, state)
        case Let():
            return e_let(ev, e, env, state)
        case If():
            return e_if(ev, e, env, state)
        case Function():
            return e_fn(ev, e, env, state)
        case Call():
            return e_call(ev, e, env, state)
        case Match():
            return e_match(ev, e, env, state)
        case RefCreate():
            return e_ref_create(ev, e, env, state)
        case RefRead():
            return e_ref_read(ev, e, env, state)
        case RefWrite():
            return e_ref_write(ev, e, env, state)
        case Constructor():
            return e_ctor(ev, e, env, state)
        case Op():
            raise Stuck(f"operator {e.name} used as a value: only its calls evaluate",
                        e.span, rule="E-Op")  # fmt: skip
    raise Stuck(f"no rule for {type(e).__name__}", None, rule="?")


def e_shared(
    ev: Evaluator, e: Expr, env: Env, state: State, plan: SharingPlan
) -> tuple[Value, State]:
    """E-Shared
    e is shared, its scope S is running as activation a, and (a, e) ↦ v is in the memo
        ──────────────────────────────────────────────────
        ρ, σ ⊢ e ⇓ v, σ
    otherwise e is evaluated by its own rule and (a, e) ↦ v is added to the memo.
    """
    scope = plan.scope[id(e)]
    if scope not in env.scopes:
        # Sharing is per global function (as ToANormalForm is); a node shared between two
        # globals has no scope in one of them.
        raise Stuck("a shared sub-expression is used outside its scope", e.span, rule="E-Shared")
    activation = env.scopes[scope]
    key = (activation, id(e))
    if key in state.memo:
        with ev.rule("E-Shared", e) as node:
            node.value = state.memo[key]
            return state.memo[key], state
    value, state = evaluate_unshared(ev, e, env, state)
    return value, replace(state, memo={**state.memo, key: value})


def hoist(ev: Evaluator, opener: Expr, env: Env, state: State) -> State:
    """Evaluate the shared nodes that ToANormalForm binds just before ``opener`` (sharing.py)."""
    plan = ev.plan(opener)
    if plan is None:
        return state
    for node in plan.hoisted.get(id(opener), ()):
        _, state = evaluate_expr(ev, node, env, state)
    return state


def e_var(ev: Evaluator, e: Var, env: Env, state: State) -> tuple[Value, State]:
    """E-Var
    ρ(x) = v
    ────────────────
    ρ, σ ⊢ %x ⇓ v, σ
    """
    with ev.rule("E-Var", e) as node:
        if e not in env.vars:
            raise Stuck(f"unbound variable %{e.name_hint}", e.span, rule="E-Var")
        node.value = env.vars[e]
        return env.vars[e], state


def e_global(ev: Evaluator, e: GlobalVar, env: Env, state: State) -> tuple[Value, State]:
    """E-Global
    def @f = fn .. in the module
    ──────────────────────────────────────
    ρ, σ ⊢ @f ⇓ closure(·, fn ..), σ
    """
    with ev.rule("E-Global", e) as node:
        if e.name not in ev.mod:
            raise Stuck(f"undefined global @{e.name}", e.span, rule="E-Global")
        node.value = ClosureValue(ev.mod[e.name])
        return node.value, state


def e_const(ev: Evaluator, e: Constant, env: Env, state: State) -> tuple[Value, State]:
    """E-Const
    ──────────────────
    ρ, σ ⊢ c ⇓ c, σ
    """
    with ev.rule("E-Const", e) as node:
        node.value = TensorValue(e.data)
        return node.value, state


def e_tuple(ev: Evaluator, e: Tuple, env: Env, state: State) -> tuple[Value, State]:
    """E-Tuple
    ρ, σ0 ⊢ e1 ⇓ v1, σ1   ..   ρ, σn-1 ⊢ en ⇓ vn, σn
    ──────────────────────────────────────────────────
    ρ, σ0 ⊢ (e1, .., en) ⇓ (v1, .., vn), σn
    """
    with ev.rule("E-Tuple", e) as node:
        fields = []
        for f in e.fields:
            v, state = evaluate_expr(ev, f, env, state)
            fields.append(v)
        node.value = TupleValue(tuple(fields))
        return node.value, state


def e_proj(ev: Evaluator, e: TupleGetItem, env: Env, state: State) -> tuple[Value, State]:
    """E-Proj
    ρ, σ ⊢ e ⇓ (v0, .., vn), σ'    0 ≤ i ≤ n
    ─────────────────────────────────────────
    ρ, σ ⊢ e.i ⇓ vi, σ'
    """
    with ev.rule("E-Proj", e) as node:
        v, state = evaluate_expr(ev, e.tuple, env, state)
        if not isinstance(v, TupleValue) or not 0 <= e.index < len(v.fields):
            raise Stuck(f"projection .{e.index} of a non-tuple or short tuple", e.span,
                        rule="E-Proj")  # fmt: skip
        node.value = v.fields[e.index]
        return node.value, state


def e_let(ev: Evaluator, e: Let, env: Env, state: State) -> tuple[Value, State]:
    """E-Let
        ρ, σ ⊢ e1 ⇓ v1, σ1    ρ[x ↦ v1], σ1 ⊢ e2 ⇓ v2, σ2
        ──────────────────────────────────────────────────
        ρ, σ ⊢ let x = e1; e2 ⇓ v2, σ2

    E-Let-Rec (e1 a function: it may call itself through x)
        ρ[x ↦ c], σ ⊢ e2 ⇓ v2, σ2   where c = closure(ρ, e1, rec x)
        ─────────────────────────────────────────────
        ρ, σ ⊢ let x = fn ..; e2 ⇓ v2, σ2

    A let-chain is walked with a loop (its bindings are the rule's premises, in order).
    """
    body: Expr = e
    while isinstance(body, Let) and (body is e or not _is_shared(ev, body)):
        let = body
        state = _spend(state, let) if let is not e else state
        if isinstance(let.value, Function) and not _is_shared(ev, let.value):
            with ev.rule("E-Let-Rec", let) as node:
                state = _spend(hoist(ev, let.value, env, state), let.value)
                value: Value = ClosureValue(let.value, env, let.var)
                node.value = value
        else:
            with ev.rule("E-Let", let) as node:
                value, state = evaluate_expr(ev, let.value, env, state)
                node.value = value
        env = env.bind(let.var, value)
        body = let.body
    return evaluate_expr(ev, body, env, state)


def _is_shared(ev: Evaluator, e: Expr) -> bool:
    plan = ev.plan(e)
    return plan is not None and id(e) in plan.shared


def e_if(ev: Evaluator, e: If, env: Env, state: State) -> tuple[Value, State]:
    """E-If-True
        ρ, σ ⊢ c ⇓ True, σ1    ρ, σ1 ⊢ e1 ⇓ v, σ2
        ──────────────────────────────────────────────────
        ρ, σ ⊢ if (c) { e1 } else { e2 } ⇓ v, σ2

    E-If-False
        ρ, σ ⊢ c ⇓ False, σ1    ρ, σ1 ⊢ e2 ⇓ v, σ2
        ──────────────────────────────────────────────────
        ρ, σ ⊢ if (c) { e1 } else { e2 } ⇓ v, σ2
    """
    with ev.rule("E-If-True", e) as node:
        cond, state = evaluate_expr(ev, e.cond, env, state)
        if not isinstance(cond, TensorValue) or cond.data.shape != () or cond.data.dtype != bool:
            raise Stuck("the condition of an if is not a scalar bool", e.span, rule="E-If")
        taken = bool(cond.data)
        if not taken:
            ev.rename(node, "E-If-False")
        state = hoist(ev, e, env, state)
        inner, state = _enter(env, (id(e), 1 if taken else 2), state)
        branch = e.true_branch if taken else e.false_branch
        node.value, state = evaluate_expr(ev, branch, inner, state)
        return node.value, state


def _enter(env: Env, scope: ScopeKey, state: State) -> tuple[Env, State]:
    """A new activation of ``scope``: shared nodes evaluated in it are memoised per visit."""
    activation = state.next_location
    return env.enter(scope, activation), replace(state, next_location=activation + 1)


def e_fn(ev: Evaluator, e: Function, env: Env, state: State) -> tuple[Value, State]:
    """E-Fn
    ─────────────────────────────────────────
    ρ, σ ⊢ fn (x1, .., xn) { e } ⇓ closure(ρ, fn ..), σ
    """
    with ev.rule("E-Fn", e) as node:
        state = hoist(ev, e, env, state)
        node.value = ClosureValue(e, env)
        return node.value, state


def e_call(ev: Evaluator, e: Call, env: Env, state: State) -> tuple[Value, State]:
    """Calls: the arguments left to right, then the callee; then by what the callee is."""
    if isinstance(e.op, Op):
        return e_call_op(ev, e, env, state)
    with ev.rule("E-Call-Closure", e) as node:
        args = []
        for a in e.args:
            v, state = evaluate_expr(ev, a, env, state)
            args.append(v)
        callee, state = evaluate_expr(ev, e.op, env, state)
        match callee:
            case ClosureValue():
                node.value, state = e_call_closure(ev, e, callee, args, state)
                return node.value, state
            case ConstructorFnValue():
                ev.rename(node, "E-Call-Constructor")
                node.value, state = e_call_constructor(ev, e, callee, args, state)
                return node.value, state
        raise Stuck("calling a value that is not a function", e.span, rule="E-Call")


def e_call_op(ev: Evaluator, e: Call, env: Env, state: State) -> tuple[Value, State]:
    """E-Call-Op
        ρ, σ0 ⊢ e1 ⇓ t1, σ1  ..  ρ, σn-1 ⊢ en ⇓ tn, σn    op(t1, .., tn; attrs) = v
        ──────────────────────────────────────────────────────────────────
        ρ, σ0 ⊢ op(e1, .., en, attrs) ⇓ v, σn
    where op(..) is the operator's reference semantics (``ops/*.py``).
    """
    assert isinstance(e.op, Op)
    with ev.rule("E-Call-Op", e) as node:
        arrays = []
        for a in e.args:
            v, state = evaluate_expr(ev, a, env, state)
            arrays.append(_op_input(v, e))
        opdef = OPS.get(e.op.name)
        if opdef is None or opdef.reference is None:
            raise Stuck(f"operator {e.op.name} has no reference semantics", e.span,
                        rule="E-Call-Op")  # fmt: skip
        try:
            with np.errstate(all="ignore"):
                out = opdef.reference(tuple(arrays), e.attrs)
        except RelayError as err:
            if err.span is None:
                err.span = e.span
            err.message = op_failure_message(e.op.name, err.message)
            raise
        node.value = _op_output(out)
        return node.value, state


def op_failure_message(op: str, message: str) -> str:
    """``E-Call-Op: <op>: <what the reference semantics said>`` (the op named once)."""
    if not message.startswith(f"{op}:") and not message.startswith(f"{op} "):
        message = f"{op}: {message}"
    return f"E-Call-Op: {message}"


def _op_input(v: Value, e: Call) -> OpInput:
    if isinstance(v, TensorValue):
        return v.data
    if isinstance(v, TupleValue) and all(isinstance(f, TensorValue) for f in v.fields):
        return tuple(f.data for f in v.fields if isinstance(f, TensorValue))
    raise Stuck("an operator argument is not a tensor or a tuple of tensors", e.span,
                rule="E-Call-Op")  # fmt: skip


def _op_output(out: object) -> Value:
    if isinstance(out, tuple):
        return TupleValue(tuple(_op_output(o) for o in out))
    assert isinstance(out, np.ndarray)
    return TensorValue(out)


def e_call_closure(
    ev: Evaluator, e: Call, closure: ClosureValue, args: Sequence[Value], state: State
) -> tuple[Value, State]:
    """E-Call-Closure
    ρ, σ0 ⊢ ei ⇓ vi, σi (left to right)    ρ, σn ⊢ f ⇓ closure(ρ', fn (x1, .., xn) { b }), σ'
    ρ'[x1 ↦ v1, .., xn ↦ vn] (and [g ↦ the closure] if it is recursive as g), σ' ⊢ b ⇓ v, σ''
    ──────────────────────────────────────────────────────────────────
    ρ, σ0 ⊢ f(e1, .., en) ⇓ v, σ''
    """
    fn = closure.fn
    if len(args) != len(fn.params):
        raise Stuck(f"a function of {len(fn.params)} parameters called with {len(args)} "
                    "arguments", e.span, rule="E-Call-Closure")  # fmt: skip
    env = closure.env if isinstance(closure.env, Env) else Env()
    if closure.rec_var is not None:
        env = env.bind(closure.rec_var, closure)
    for param, arg in zip(fn.params, args, strict=True):
        env = env.bind(param, arg)
    env, state = _enter(env, body_scope(fn), state)
    return evaluate_expr(ev, fn.body, env, state)


def e_ctor(ev: Evaluator, e: Constructor, env: Env, state: State) -> tuple[Value, State]:
    """E-Ctor
    ──────────────────────
    ρ, σ ⊢ C ⇓ C, σ          (a constructor is a function value)
    """
    with ev.rule("E-Ctor", e) as node:
        node.value = ConstructorFnValue(e)
        return node.value, state


def e_call_constructor(
    ev: Evaluator, e: Call, ctor: ConstructorFnValue, args: Sequence[Value], state: State
) -> tuple[Value, State]:
    """E-Call-Constructor
    ρ, σ0 ⊢ ei ⇓ vi, σi (left to right)    ρ, σn ⊢ f ⇓ C, σ'
    ─────────────────────────────────────────────────────
    ρ, σ0 ⊢ f(e1, .., en) ⇓ C(v1, .., vn), σ'
    """
    if len(args) != len(ctor.constructor.inputs):
        raise Stuck(f"constructor {ctor.constructor.name} applied to {len(args)} values",
                    e.span, rule="E-Call-Constructor")  # fmt: skip
    return ConstructorValue(ctor.constructor, tuple(args)), state


def e_match(ev: Evaluator, e: Match, env: Env, state: State) -> tuple[Value, State]:
    """E-Match
        ρ, σ ⊢ e ⇓ v, σ1    pi ⊨ v ⇒ ρi (the first clause that matches)    ρ ρi, σ1 ⊢ ei ⇓ v', σ2
        ─────────────────────────────────────────────────────────────────
        ρ, σ ⊢ match (e) { p1 => e1, .., pn => en } ⇓ v', σ2

    E-Match-Fail (match? only; a complete match never fails on a well-typed program)
        ρ, σ ⊢ e ⇓ v, σ1    no pi ⊨ v
        ──────────────────────────────
        ρ, σ ⊢ match? (e) { .. } fails with a RelayRuntimeError
    """
    with ev.rule("E-Match", e) as node:
        data, state = evaluate_expr(ev, e.data, env, state)
        state = hoist(ev, e, env, state)
        for position, clause in enumerate(e.clauses, start=1):
            bindings = match_pattern(ev, clause.lhs, data, state.store)
            if bindings is None:
                continue
            inner = env
            for var, value in bindings:
                inner = inner.bind(var, value)
            inner, state = _enter(inner, (id(e), position), state)
            node.value, state = evaluate_expr(ev, clause.rhs, inner, state)
            return node.value, state
        ev.rename(node, "E-Match-Fail")
        if e.complete:
            raise Stuck("no clause of a complete match matches", e.span, rule="E-Match")
        raise RelayRuntimeError("E-Match-Fail: no clause of this match? matches the value",
                                e.span)  # fmt: skip


def match_pattern(
    ev: Evaluator, p: Pattern, v: Value, store: Store
) -> list[tuple[Var, Value]] | None:
    """``p ⊨ v ⇒ ρ'``: the bindings if ``p`` matches ``v``, else ``None`` (rules M-*)."""
    match p:
        case PatternWildcard():
            with ev.rule("M-Wildcard", p):
                return []  # M-Wildcard:  _ ⊨ v ⇒ ·
        case PatternVar(var):
            with ev.rule("M-Var", p):
                return [(var, v)]  # M-Var:  %x ⊨ v ⇒ x ↦ v
        case PatternConstructor(ctor, patterns):
            # M-Ctor:  C = C'    pi ⊨ vi ⇒ ρi    ⟹    C(p1..pn) ⊨ C'(v1..vn) ⇒ ρ1 .. ρn
            with ev.rule("M-Ctor", p):
                if not isinstance(v, ConstructorValue) or v.constructor.name != ctor.name:
                    return None
                return _match_all(ev, patterns, v.fields, store)
        case PatternTuple(patterns):
            # M-Tuple:  pi ⊨ vi ⇒ ρi    ⟹    (p1..pn) ⊨ (v1..vn) ⇒ ρ1 .. ρn
            with ev.rule("M-Tuple", p):
                if not isinstance(v, TupleValue) or len(v.fields) != len(patterns):
                    return None
                return _match_all(ev, patterns, v.fields, store)
    raise Stuck("unknown pattern", None, rule="M")


def _match_all(
    ev: Evaluator, patterns: Sequence[Pattern], values: Sequence[Value], store: Store
) -> list[tuple[Var, Value]] | None:
    out: list[tuple[Var, Value]] = []
    for p, v in zip(patterns, values, strict=True):
        bound = match_pattern(ev, p, v, store)
        if bound is None:
            return None
        out.extend(bound)
    return out


def e_ref_create(ev: Evaluator, e: RefCreate, env: Env, state: State) -> tuple[Value, State]:
    """E-RefCreate
    ρ, σ ⊢ e ⇓ v, σ1    ℓ not in σ1
    ─────────────────────────────────
    ρ, σ ⊢ ref(e) ⇓ ref(ℓ), σ1[ℓ ↦ v]
    """
    with ev.rule("E-RefCreate", e) as node:
        v, state = evaluate_expr(ev, e.value, env, state)
        location = state.next_location
        state = replace(state, store={**state.store, location: v}, next_location=location + 1)
        node.value = RefValue(location)
        return node.value, state


def e_ref_read(ev: Evaluator, e: RefRead, env: Env, state: State) -> tuple[Value, State]:
    """E-RefRead
    ρ, σ ⊢ e ⇓ ref(ℓ), σ1    σ1(ℓ) = v
    ────────────────────────────────────
    ρ, σ ⊢ ref_read(e) ⇓ v, σ1
    """
    with ev.rule("E-RefRead", e) as node:
        r, state = evaluate_expr(ev, e.ref, env, state)
        if not isinstance(r, RefValue) or r.location not in state.store:
            raise Stuck("ref_read of a value that is not a reference", e.span, rule="E-RefRead")
        node.value = state.store[r.location]
        return node.value, state


def e_ref_write(ev: Evaluator, e: RefWrite, env: Env, state: State) -> tuple[Value, State]:
    """E-RefWrite
    ρ, σ ⊢ e1 ⇓ ref(ℓ), σ1    ρ, σ1 ⊢ e2 ⇓ v, σ2
    ──────────────────────────────────────────────
    ρ, σ ⊢ ref_write(e1, e2) ⇓ (), σ2[ℓ ↦ v]
    """
    with ev.rule("E-RefWrite", e) as node:
        r, state = evaluate_expr(ev, e.ref, env, state)
        v, state = evaluate_expr(ev, e.value, env, state)
        if not isinstance(r, RefValue):
            raise Stuck("ref_write to a value that is not a reference", e.span,
                        rule="E-RefWrite")  # fmt: skip
        state = replace(state, store={**state.store, r.location: v})
        node.value = TupleValue(())
        return node.value, state


# ---------------------------------------------------------------------------------------------
# Running a module


def evaluate(
    mod: IRModule,
    args: Sequence[Value],
    *,
    entry: str = "main",
    fuel: int = 1_000_000,
    explain: bool = False,
) -> Result:
    """Apply the global ``entry`` to ``args`` by the rules above (E-Call-Closure).

    Raises ``Stuck``, ``RelayRuntimeError``, ``UndefinedBehavior`` or ``Exhaustion``.
    """
    if entry not in mod:
        raise RelayRuntimeError(f"the module has no function @{entry}")
    ev = Evaluator(mod, explain=explain)
    fn = mod[entry]
    call = Call(mod.get_global_var(entry), tuple(Constant(np.zeros(())) for _ in args),
                span=fn.span)  # fmt: skip
    state = State(fuel=fuel)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 12_000))
    try:
        with ev.rule("E-Call-Closure", call) as root:
            value, state = e_call_closure(ev, call, ClosureValue(fn), args, state)
            root.value = value
    except RecursionError:
        raise Exhaustion("out of depth: the program nests deeper than the spec evaluator "
                         "can follow (use the interpreter)", fn.span) from None  # fmt: skip
    finally:
        sys.setrecursionlimit(limit)
    derivation = ev.trace[0].premises[0] if explain and ev.trace[0].premises else None
    return Result(value, state.store, derivation, ev.fired)


def format_derivation(d: Derivation) -> str:
    """The derivation tree, one line per rule, premises indented under their conclusion."""
    from .values import format_value

    lines: list[str] = []
    stack: list[tuple[Derivation, int]] = [(d, 0)]
    while stack:
        node, depth = stack.pop()
        what = _describe(node.expr)
        shown = "" if node.value is None else f" ⇓ {format_value(node.value)}"
        lines.append(f"{'  ' * depth}{node.rule}  {what}{shown}")
        stack.extend((p, depth + 1) for p in reversed(node.premises))
    return "\n".join(lines)


def _describe(e: Expr | Pattern) -> str:
    span: Span | None = getattr(e, "span", None)
    where = f" @{span.line}:{span.column}" if span is not None else ""
    match e:
        case Var(name):
            return f"%{name}{where}"
        case GlobalVar(name):
            return f"@{name}{where}"
        case Call(Op(name)):
            return f"{name}(..){where}"
        case Constructor(name) | PatternConstructor(Constructor(name)):
            return f"{name}{where}"
    return f"{type(e).__name__}{where}"
