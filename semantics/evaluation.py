"""Dynamic semantics: the big-step judgement ``ρ, σ ⊢ e ⇓ v, σ'``.

ρ is the environment (variables, and the activation each enclosing scope runs as), σ the
store (the contents of references, plus the memo of shared sub-expressions). Evaluation is
call-by-value; a call evaluates its arguments left to right, then the callee (as TVM's
interpreter did); a tuple its fields left to right. One function per rule, named after it and
declared with ``@rule("E-..")``, which counts each firing and records the derivation tree;
``evaluate_expr`` and ``evaluate_rule`` are the table of contents: they choose the rule.

Where the premises that decide between two rules are the same (the condition of an ``if``;
the arguments and callee of a call; the scrutinee of a ``match`` and the pattern matches),
the table of contents evaluates them, then calls the rule they select; that rule's docstring
lists them as its first premises, marked "(chosen by)", and its body does the rest.

Sharing (``sharing.py``). A shared sub-expression (``%N``) is evaluated once per activation of
the scope it belongs to; the memo that says so is the one cache the spec keeps. Two notions
appear in the rules that rely on them:

- an *activation* ``a`` of a scope ``S`` (a function body, an ``if`` branch, a ``match``
  clause) is a fresh number given each time the scope is entered; ``ρ[S ↦ a]`` records it, and
  the memo is keyed by ``(a, e)``;
- ``hoist(P)`` is the list of shared nodes that ToANormalForm binds just before the scope
  opener ``P`` (``sharing.SharingPlan.hoisted``); the premise ``ρ, σ ⊢ hoist(P) ⇓ σ'`` evaluates
  them in order (each by ``evaluate_expr``, so each is memoised).

Failures are part of the meaning:

- ``Stuck(rule)``: no rule applies. Impossible for a well-typed program: a bug in the type
  checker or here.
- ``RelayRuntimeError``: a real dynamic failure, such as a ``match?`` with no matching clause.
- ``UndefinedBehavior``: a case the spec leaves undefined. The operators' reference semantics
  list their cases (``ops/*.py``): integer division or modulo by zero, INT_MIN / -1, signed
  and unsigned 32/64-bit overflow in add/sub/mul (TVM's LLVM code generator marks them
  ``nsw``/``nuw``), float-to-int casts of NaN or out-of-range values, ``take`` in fast mode out
  of range, shapes that a ``?`` hid and that turn out wrong, NaN in max/min reductions.
- ``Exhaustion``: out of fuel (each expression evaluated costs one), or past the recursion
  depth the spec can follow (the spec recurses on program depth; the interpreter does not).

This module is written to be read; it may recurse on program depth, but walks let-chains with
a loop. Speed lives in ``relay.interpreter``.
"""

from __future__ import annotations

import functools
import sys
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Concatenate, ParamSpec, TypeVar, assert_never

import numpy as np

from .errors import Exhaustion, RelayError, RelayRuntimeError, Span, Stuck
from .ops import OPS
from .ops.annotation import PLACEMENTS
from .ops.registry import OpInput
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
    format_value,
)

# ---------------------------------------------------------------------------------------------
# Environments and states


@dataclass(frozen=True)
class Env:
    """ρ: the values of variables, and the activation of each enclosing scope."""

    vars: Mapping[Var, Value] = field(default_factory=dict)
    scopes: Mapping[ScopeKey, int] = field(default_factory=dict)

    def bind(self, var: Var, value: Value) -> Env:
        """ρ[x ↦ v]."""
        return replace(self, vars={**self.vars, var: value})

    def enter(self, scope: ScopeKey, activation: int) -> Env:
        """ρ[S ↦ a]: the scope S now runs as activation a."""
        return replace(self, scopes={**self.scopes, scope: activation})


@dataclass(frozen=True)
class State:
    """σ, threaded through evaluation: references, the memo of shared nodes, and fuel.

    ``next_location`` numbers both new references and new activations (one counter, so each
    number is fresh).
    """

    store: Store = field(default_factory=dict)
    memo: Mapping[tuple[int, Expr], Value] = field(default_factory=dict)
    next_location: int = 0
    fuel: int = 1_000_000


@dataclass
class Derivation:
    """One node of a derivation tree: the rule, the expression, its value, the premises.

    ``rule`` is ``""`` only while the table of contents is still evaluating the premises that
    choose the rule (``Evaluator.choosing``)."""

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
    """The module being run, the sharing plans, and the record of rule firings: a count per
    rule, and (when explaining) the derivation tree."""

    def __init__(self, mod: IRModule, *, explain: bool = False) -> None:
        self.mod = mod
        self.plans: dict[Expr, SharingPlan] = {}
        for fn in mod.functions.values():
            plan = sharing_plan(fn)
            for node in plan.scope:
                self.plans[node] = plan
        self.explain = explain
        self.trace: list[Derivation] = [Derivation("root", Tuple(()))]
        self.fired: Counter[str] = Counter()

    def is_shared(self, e: Expr) -> bool:
        """Whether ``e`` is a shared sub-expression (evaluated once per activation)."""
        plan = self.plans.get(e)
        return plan is not None and e in plan.shared

    @contextmanager
    def firing(self, name: str, e: Expr | Pattern) -> Iterator[Derivation]:
        """One firing of the rule ``name`` on ``e``: counted, and, when explaining, a node of
        the derivation tree whose premises are the firings made inside this context."""
        self.fired[name] += 1
        if not self.explain:
            yield Derivation(name, e)
            return
        top = self.trace[-1]
        if top.rule == "" and top.expr is e:
            # The table of contents evaluated the premises that chose this rule under ``top``.
            top.rule = name
            yield top
            return
        node = Derivation(name, e)
        top.premises.append(node)
        self.trace.append(node)
        try:
            yield node
        finally:
            self.trace.pop()

    @contextmanager
    def choosing(self, e: Expr) -> Iterator[None]:
        """The table of contents evaluates the premises that choose the rule for ``e``; when
        explaining, they become premises of the rule chosen (see ``firing``)."""
        if not self.explain:
            yield
            return
        node = Derivation("", e)
        self.trace[-1].premises.append(node)
        self.trace.append(node)
        try:
            yield
        finally:
            self.trace.pop()


Rule = TypeVar("Rule", bound=Expr)
Params = ParamSpec("Params")
Outcome = tuple[Value, State]
RuleFunction = Callable[Concatenate[Evaluator, Rule, Params], Outcome]

_DECLARED: list[str] = []


def rule(name: str) -> Callable[[RuleFunction[Rule, Params]], RuleFunction[Rule, Params]]:
    """Declare the function of the evaluation rule ``name``: each call is one firing, counted
    in ``Result.rules_fired`` and shown (with its value) in the derivation tree."""

    def declare(body: RuleFunction[Rule, Params]) -> RuleFunction[Rule, Params]:
        @functools.wraps(body)
        def fire(ev: Evaluator, e: Rule, /, *args: Params.args, **kwargs: Params.kwargs) -> Outcome:
            with ev.firing(name, e) as node:
                value, state = body(ev, e, *args, **kwargs)
                node.value = value
                return value, state

        _DECLARED.append(name)
        return fire

    return declare


P = TypeVar("P", bound=Pattern)
Bindings = list[tuple[Var, Value]]
MatchFunction = Callable[[Evaluator, P, Value], Bindings | None]


def matching_rule(name: str) -> Callable[[MatchFunction[P]], MatchFunction[P]]:
    """Declare the function of the matching rule ``name`` (``p ⊨ v ⇒ ρ'``), counted and
    recorded as ``rule`` does; it returns the bindings, or ``None`` if ``p`` does not match."""

    def declare(body: MatchFunction[P]) -> MatchFunction[P]:
        @functools.wraps(body)
        def fire(ev: Evaluator, p: P, v: Value) -> Bindings | None:
            with ev.firing(name, p):
                return body(ev, p, v)

        _DECLARED.append(name)
        return fire

    return declare


def _spend(state: State, e: Expr) -> State:
    if state.fuel <= 0:
        raise Exhaustion("out of fuel: evaluation took more steps than allowed", e.span)
    return replace(state, fuel=state.fuel - 1)


# ---------------------------------------------------------------------------------------------
# The table of contents


def evaluate_expr(ev: Evaluator, e: Expr, env: Env, state: State) -> Outcome:
    """``ρ, σ ⊢ e ⇓ v, σ'``. A shared ``e`` already evaluated in this activation of its scope
    is E-Shared; otherwise ``e`` is evaluated by its own rule, and, if shared, its value is
    added to the memo under ``(a, e)`` (a: the activation of e's scope in ρ)."""
    state = _spend(state, e)
    plan = ev.plans.get(e)
    if plan is None or e not in plan.shared:
        return evaluate_rule(ev, e, env, state)
    key = _memo_key(plan, e, env)
    if key in state.memo:
        return e_shared(ev, e, env, state, key)
    value, state = evaluate_rule(ev, e, env, state)
    return value, replace(state, memo={**state.memo, key: value})


def _memo_key(plan: SharingPlan, e: Expr, env: Env) -> tuple[int, Expr]:
    scope = plan.scope[e]
    if scope not in env.scopes:
        # Sharing is per global function (as ToANormalForm is); a node shared between two
        # globals has no scope in one of them.
        raise Stuck("a shared sub-expression is used outside its scope", e.span, rule="E-Shared")
    return env.scopes[scope], e


def evaluate_rule(ev: Evaluator, e: Expr, env: Env, state: State) -> Outcome:
    """The rule for ``e``, by its form (and, for ``if``, calls and ``match``, by the values
    of the premises that decide it, evaluated here)."""
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
            return let_spine(ev, e, env, state)
        case If(cond):
            with ev.choosing(e):
                value, state = evaluate_expr(ev, cond, env, state)
                if _truth(value, e):
                    return e_if_true(ev, e, env, state)
                return e_if_false(ev, e, env, state)
        case Function():
            return e_fn(ev, e, env, state)
        case Call(Op(name)) if name in PLACEMENTS:
            return e_call_placement(ev, e, env, state)
        case Call(Op()):
            return e_call_op(ev, e, env, state)
        case Call(callee_expr, args_exprs):
            with ev.choosing(e):
                args = []
                for a in args_exprs:
                    v, state = evaluate_expr(ev, a, env, state)
                    args.append(v)
                callee, state = evaluate_expr(ev, callee_expr, env, state)
                match callee:
                    case ClosureValue():
                        return e_call_closure(ev, e, callee, args, state)
                    case ConstructorFnValue():
                        return e_call_constructor(ev, e, callee, args, state)
                    case TensorValue() | TupleValue() | ConstructorValue() | RefValue():
                        raise Stuck("calling a value that is not a function", e.span,
                                    rule="E-Call")  # fmt: skip
                    case _:
                        assert_never(callee)
        case Match(data_expr, clauses):
            with ev.choosing(e):
                data, state = evaluate_expr(ev, data_expr, env, state)
                for position, clause in enumerate(clauses, start=1):
                    bindings = match_pattern(ev, clause.lhs, data)
                    if bindings is not None:
                        return e_match(ev, e, env, state, position, bindings)
                return e_match_fail(ev, e, env, state)
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
        case _:
            assert_never(e)


def _truth(value: Value, e: If) -> bool:
    if not isinstance(value, TensorValue) or value.data.shape != () or value.data.dtype != bool:
        raise Stuck("the condition of an if is not a scalar bool", e.span, rule="E-If")
    return bool(value.data)


def let_spine(ev: Evaluator, e: Let, env: Env, state: State) -> Outcome:
    """A let-chain ``let x1 = e1; ..; let xn = en; e``, walked with a loop (A-normal form nests
    thousands deep; this is the spec's concession to that). Each binding fires E-Let-Rec if
    its value is a function literal (not shared), else E-Let; the rule's function evaluates
    the binding, the loop extends ρ with it, and ``e`` is evaluated last in the extended ρ.
    A ``let`` that is itself shared ends the chain (it is evaluated through the memo)."""
    body: Expr = e
    while isinstance(body, Let) and (body is e or not ev.is_shared(body)):
        let = body
        state = _spend(state, let) if let is not e else state
        if isinstance(let.value, Function) and not ev.is_shared(let.value):
            value, state = e_let_rec(ev, let, env, state)
        else:
            value, state = e_let(ev, let, env, state)
        env = env.bind(let.var, value)
        body = let.body
    return evaluate_expr(ev, body, env, state)


def hoist(ev: Evaluator, opener: Expr, env: Env, state: State) -> State:
    """``ρ, σ ⊢ hoist(P) ⇓ σ'``: evaluate, in order, the shared nodes that ToANormalForm binds
    just before the scope opener ``P`` (``sharing.py``)."""
    plan = ev.plans.get(opener)
    if plan is None:
        return state
    for node in plan.hoisted.get(opener, ()):
        _, state = evaluate_expr(ev, node, env, state)
    return state


def _enter(env: Env, scope: ScopeKey, state: State) -> tuple[Env, State]:
    """``ρ[S ↦ a]`` for a fresh activation ``a`` of the scope ``S``."""
    activation = state.next_location
    return env.enter(scope, activation), replace(state, next_location=activation + 1)


# ---------------------------------------------------------------------------------------------
# The rules


@rule("E-Shared")
def e_shared(ev: Evaluator, e: Expr, env: Env, state: State, key: tuple[int, Expr]) -> Outcome:
    """E-Shared
    e is shared, its scope S runs as activation a in ρ, and (a, e) ↦ v is in the memo of σ
    ──────────────────────────────────────────────────
    ρ, σ ⊢ e ⇓ v, σ
    """
    return state.memo[key], state


@rule("E-Var")
def e_var(ev: Evaluator, e: Var, env: Env, state: State) -> Outcome:
    """E-Var
    ρ(x) = v
    ────────────────
    ρ, σ ⊢ %x ⇓ v, σ
    """
    if e not in env.vars:
        raise Stuck(f"unbound variable %{e.name_hint}", e.span, rule="E-Var")
    return env.vars[e], state


@rule("E-Global")
def e_global(ev: Evaluator, e: GlobalVar, env: Env, state: State) -> Outcome:
    """E-Global
    def @f = fn .. in the module
    ──────────────────────────────────────
    ρ, σ ⊢ @f ⇓ closure(·, fn ..), σ
    """
    if e.name not in ev.mod:
        raise Stuck(f"undefined global @{e.name}", e.span, rule="E-Global")
    return ClosureValue(ev.mod[e.name]), state


@rule("E-Const")
def e_const(ev: Evaluator, e: Constant, env: Env, state: State) -> Outcome:
    """E-Const
    ──────────────────
    ρ, σ ⊢ c ⇓ c, σ
    """
    return TensorValue(e.data), state


@rule("E-Tuple")
def e_tuple(ev: Evaluator, e: Tuple, env: Env, state: State) -> Outcome:
    """E-Tuple
    ρ, σ0 ⊢ e1 ⇓ v1, σ1   ..   ρ, σn-1 ⊢ en ⇓ vn, σn
    ──────────────────────────────────────────────────
    ρ, σ0 ⊢ (e1, .., en) ⇓ (v1, .., vn), σn
    """
    fields = []
    for f in e.fields:
        v, state = evaluate_expr(ev, f, env, state)
        fields.append(v)
    return TupleValue(tuple(fields)), state


@rule("E-Proj")
def e_proj(ev: Evaluator, e: TupleGetItem, env: Env, state: State) -> Outcome:
    """E-Proj
    ρ, σ ⊢ e ⇓ (v0, .., vn), σ'    0 ≤ i ≤ n
    ─────────────────────────────────────────
    ρ, σ ⊢ e.i ⇓ vi, σ'
    """
    v, state = evaluate_expr(ev, e.tuple, env, state)
    if not isinstance(v, TupleValue) or not 0 <= e.index < len(v.fields):
        raise Stuck(f"projection .{e.index} of a non-tuple or short tuple", e.span,
                    rule="E-Proj")  # fmt: skip
    return v.fields[e.index], state


@rule("E-Let")
def e_let(ev: Evaluator, e: Let, env: Env, state: State) -> Outcome:
    """E-Let
    ρ, σ ⊢ e1 ⇓ v1, σ1    ρ[x ↦ v1], σ1 ⊢ e2 ⇓ v2, σ2
    ──────────────────────────────────────────────────
    ρ, σ ⊢ let x = e1; e2 ⇓ v2, σ2

    This function gives the first premise (it returns v1, σ1); ``let_spine`` evaluates e2.
    """
    return evaluate_expr(ev, e.value, env, state)


@rule("E-Let-Rec")
def e_let_rec(ev: Evaluator, e: Let, env: Env, state: State) -> Outcome:
    """E-Let-Rec (e1 a function literal: it may call itself through x)
    ρ, σ ⊢ hoist(e1) ⇓ σ1    c = closure(ρ, e1, rec x)    ρ[x ↦ c], σ1 ⊢ e2 ⇓ v2, σ2
    ─────────────────────────────────────────────────────────────────────────────
    ρ, σ ⊢ let x = fn ..; e2 ⇓ v2, σ2

    The shared nodes hoisted before the function are evaluated first, as E-Fn does; the
    function literal itself costs one unit of fuel, as if evaluated. This function gives the
    closure (and σ1); ``let_spine`` evaluates e2.
    """
    state = _spend(hoist(ev, e.value, env, state), e.value)
    assert isinstance(e.value, Function)
    return ClosureValue(e.value, env, e.var), state


@rule("E-If-True")
def e_if_true(ev: Evaluator, e: If, env: Env, state: State) -> Outcome:
    """E-If-True
    (chosen by) ρ, σ ⊢ c ⇓ True, σ1
    ρ, σ1 ⊢ hoist(if) ⇓ σ2    ρ[S1 ↦ a], σ2 ⊢ e1 ⇓ v, σ3    (a fresh; S1 the then-branch)
    ──────────────────────────────────────────────────
    ρ, σ ⊢ if (c) { e1 } else { e2 } ⇓ v, σ3
    """
    state = hoist(ev, e, env, state)
    inner, state = _enter(env, (e, 1), state)
    return evaluate_expr(ev, e.true_branch, inner, state)


@rule("E-If-False")
def e_if_false(ev: Evaluator, e: If, env: Env, state: State) -> Outcome:
    """E-If-False
    (chosen by) ρ, σ ⊢ c ⇓ False, σ1
    ρ, σ1 ⊢ hoist(if) ⇓ σ2    ρ[S2 ↦ a], σ2 ⊢ e2 ⇓ v, σ3    (a fresh; S2 the else-branch)
    ──────────────────────────────────────────────────
    ρ, σ ⊢ if (c) { e1 } else { e2 } ⇓ v, σ3
    """
    state = hoist(ev, e, env, state)
    inner, state = _enter(env, (e, 2), state)
    return evaluate_expr(ev, e.false_branch, inner, state)


@rule("E-Fn")
def e_fn(ev: Evaluator, e: Function, env: Env, state: State) -> Outcome:
    """E-Fn
    ρ, σ ⊢ hoist(fn) ⇓ σ'
    ─────────────────────────────────────────
    ρ, σ ⊢ fn (x1, .., xn) { e } ⇓ closure(ρ, fn ..), σ'
    """
    state = hoist(ev, e, env, state)
    return ClosureValue(e, env), state


@rule("E-Call-Op")
def e_call_op(ev: Evaluator, e: Call, env: Env, state: State) -> Outcome:
    """E-Call-Op
        ρ, σ0 ⊢ e1 ⇓ t1, σ1  ..  ρ, σn-1 ⊢ en ⇓ tn, σn    op(t1, .., tn; attrs) = v
        ──────────────────────────────────────────────────────────────────
        ρ, σ0 ⊢ op(e1, .., en, attrs) ⇓ v, σn
    where op(..) is the operator's reference semantics (``ops/*.py``).
    """
    assert isinstance(e.op, Op)
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
    return _op_output(out), state


@rule("E-Call-Placement")
def e_call_placement(ev: Evaluator, e: Call, env: Env, state: State) -> Outcome:
    """E-Call-Placement
        ρ, σ ⊢ e1 ⇓ v, σ'
        ──────────────────────────────────────────
        ρ, σ ⊢ p(e1, attrs) ⇓ v, σ'
    where p is ``on_device`` or ``device_copy`` (``ops.annotation.PLACEMENTS``): a placement
    is the identity on any value (a closure, reference or ADT value too), since where a value
    lives is not observable in it.
    """
    (arg,) = e.args
    return evaluate_expr(ev, arg, env, state)


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


@rule("E-Call-Closure")
def e_call_closure(
    ev: Evaluator, e: Call, closure: ClosureValue, args: Sequence[Value], state: State
) -> Outcome:
    """E-Call-Closure
    (chosen by) ρ, σ0 ⊢ ei ⇓ vi, σi (left to right)
                ρ, σn ⊢ f ⇓ closure(ρ', fn (x1, .., xn) { b }), σ'
    ρ'' = ρ'[x1 ↦ v1, .., xn ↦ vn] (and [g ↦ the closure] if it is recursive as g)
    ρ''[B ↦ a], σ' ⊢ b ⇓ v, σ''    (a fresh; B the function's body scope)
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


@rule("E-Ctor")
def e_ctor(ev: Evaluator, e: Constructor, env: Env, state: State) -> Outcome:
    """E-Ctor
    ──────────────────────
    ρ, σ ⊢ C ⇓ C, σ          (a constructor is a function value)
    """
    return ConstructorFnValue(e), state


@rule("E-Call-Constructor")
def e_call_constructor(
    ev: Evaluator, e: Call, ctor: ConstructorFnValue, args: Sequence[Value], state: State
) -> Outcome:
    """E-Call-Constructor
    (chosen by) ρ, σ0 ⊢ ei ⇓ vi, σi (left to right)    ρ, σn ⊢ f ⇓ C, σ'
    ─────────────────────────────────────────────────────
    ρ, σ0 ⊢ f(e1, .., en) ⇓ C(v1, .., vn), σ'
    """
    if len(args) != len(ctor.constructor.inputs):
        raise Stuck(f"constructor {ctor.constructor.name} applied to {len(args)} values",
                    e.span, rule="E-Call-Constructor")  # fmt: skip
    return ConstructorValue(ctor.constructor, tuple(args)), state


@rule("E-Match")
def e_match(
    ev: Evaluator, e: Match, env: Env, state: State, position: int, bindings: Bindings
) -> Outcome:
    """E-Match
    (chosen by) ρ, σ ⊢ e ⇓ v, σ1    pi ⊨ v ⇒ ρi, the first clause that matches
    ρ, σ1 ⊢ hoist(match) ⇓ σ2    ρ ρi [Si ↦ a], σ2 ⊢ ei ⇓ v', σ3    (a fresh; Si clause i)
    ─────────────────────────────────────────────────────────────────
    ρ, σ ⊢ match (e) { p1 => e1, .., pn => en } ⇓ v', σ3
    """
    state = hoist(ev, e, env, state)
    inner = env
    for var, value in bindings:
        inner = inner.bind(var, value)
    inner, state = _enter(inner, (e, position), state)
    return evaluate_expr(ev, e.clauses[position - 1].rhs, inner, state)


@rule("E-Match-Fail")
def e_match_fail(ev: Evaluator, e: Match, env: Env, state: State) -> Outcome:
    """E-Match-Fail (match? only; a complete match never fails on a well-typed program)
    (chosen by) ρ, σ ⊢ e ⇓ v, σ1    no pi ⊨ v
    ρ, σ1 ⊢ hoist(match) ⇓ σ2
    ──────────────────────────────
    ρ, σ ⊢ match? (e) { .. } fails with a RelayRuntimeError
    """
    hoist(ev, e, env, state)
    if e.complete:
        raise Stuck("no clause of a complete match matches", e.span, rule="E-Match")
    raise RelayRuntimeError("E-Match-Fail: no clause of this match? matches the value",
                            e.span)  # fmt: skip


def match_pattern(ev: Evaluator, p: Pattern, v: Value) -> Bindings | None:
    """``p ⊨ v ⇒ ρ'``: the bindings if ``p`` matches ``v``, else ``None`` (the M-* rules)."""
    match p:
        case PatternWildcard():
            return m_wildcard(ev, p, v)
        case PatternVar():
            return m_var(ev, p, v)
        case PatternConstructor():
            return m_ctor(ev, p, v)
        case PatternTuple():
            return m_tuple(ev, p, v)
        case _:
            assert_never(p)


@matching_rule("M-Wildcard")
def m_wildcard(ev: Evaluator, p: PatternWildcard, v: Value) -> Bindings | None:
    """M-Wildcard
    ──────────
    _ ⊨ v ⇒ ·
    """
    return []


@matching_rule("M-Var")
def m_var(ev: Evaluator, p: PatternVar, v: Value) -> Bindings | None:
    """M-Var
    ──────────────
    %x ⊨ v ⇒ x ↦ v
    """
    return [(p.var, v)]


@matching_rule("M-Ctor")
def m_ctor(ev: Evaluator, p: PatternConstructor, v: Value) -> Bindings | None:
    """M-Ctor
    C = C'    p1 ⊨ v1 ⇒ ρ1  ..  pn ⊨ vn ⇒ ρn
    ─────────────────────────────────────────
    C(p1, .., pn) ⊨ C'(v1, .., vn) ⇒ ρ1 .. ρn
    (no match if v is not a value of C, or a field does not match)
    """
    if not isinstance(v, ConstructorValue) or v.constructor.name != p.constructor.name:
        return None
    return _match_all(ev, p.patterns, v.fields)


@matching_rule("M-Tuple")
def m_tuple(ev: Evaluator, p: PatternTuple, v: Value) -> Bindings | None:
    """M-Tuple
    p1 ⊨ v1 ⇒ ρ1  ..  pn ⊨ vn ⇒ ρn
    ───────────────────────────────────
    (p1, .., pn) ⊨ (v1, .., vn) ⇒ ρ1 .. ρn
    (no match if v is not a tuple of n fields, or a field does not match)
    """
    if not isinstance(v, TupleValue) or len(v.fields) != len(p.patterns):
        return None
    return _match_all(ev, p.patterns, v.fields)


def _match_all(
    ev: Evaluator, patterns: Sequence[Pattern], values: Sequence[Value]
) -> Bindings | None:
    out: Bindings = []
    for p, v in zip(patterns, values, strict=True):
        bound = match_pattern(ev, p, v)
        if bound is None:
            return None
        out.extend(bound)
    return out


@rule("E-RefCreate")
def e_ref_create(ev: Evaluator, e: RefCreate, env: Env, state: State) -> Outcome:
    """E-RefCreate
    ρ, σ ⊢ e ⇓ v, σ1    ℓ not in σ1
    ─────────────────────────────────
    ρ, σ ⊢ ref(e) ⇓ ref(ℓ), σ1[ℓ ↦ v]
    """
    v, state = evaluate_expr(ev, e.value, env, state)
    location = state.next_location
    state = replace(state, store={**state.store, location: v}, next_location=location + 1)
    return RefValue(location), state


@rule("E-RefRead")
def e_ref_read(ev: Evaluator, e: RefRead, env: Env, state: State) -> Outcome:
    """E-RefRead
    ρ, σ ⊢ e ⇓ ref(ℓ), σ1    σ1(ℓ) = v
    ────────────────────────────────────
    ρ, σ ⊢ ref_read(e) ⇓ v, σ1
    """
    r, state = evaluate_expr(ev, e.ref, env, state)
    if not isinstance(r, RefValue) or r.location not in state.store:
        raise Stuck("ref_read of a value that is not a reference", e.span, rule="E-RefRead")
    return state.store[r.location], state


@rule("E-RefWrite")
def e_ref_write(ev: Evaluator, e: RefWrite, env: Env, state: State) -> Outcome:
    """E-RefWrite
    ρ, σ ⊢ e1 ⇓ ref(ℓ), σ1    ρ, σ1 ⊢ e2 ⇓ v, σ2
    ──────────────────────────────────────────────
    ρ, σ ⊢ ref_write(e1, e2) ⇓ (), σ2[ℓ ↦ v]
    """
    r, state = evaluate_expr(ev, e.ref, env, state)
    v, state = evaluate_expr(ev, e.value, env, state)
    if not isinstance(r, RefValue):
        raise Stuck("ref_write to a value that is not a reference", e.span,
                    rule="E-RefWrite")  # fmt: skip
    state = replace(state, store={**state.store, r.location: v})
    return TupleValue(()), state


RULES: tuple[str, ...] = tuple(_DECLARED)
"""Every rule of the judgement (and of matching), in the order they are declared above."""


# ---------------------------------------------------------------------------------------------
# Running a module

SPEC_RECURSION_LIMIT = 14_000
"""The Python recursion limit the spec runs under (it recurses on program depth)."""


@contextmanager
def _recursion_limit(limit: int) -> Iterator[None]:
    """Raise Python's recursion limit to at least ``limit`` for the duration, and put back the
    value found on entry when leaving, however the block ends (so nested uses restore in
    turn)."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def evaluate(
    mod: IRModule,
    args: Sequence[Value],
    *,
    entry: str = "main",
    fuel: int = 1_000_000,
    explain: bool = False,
) -> Result:
    """Apply the global ``entry`` to ``args`` by the rules above (E-Call-Closure).

    Raises ``Stuck``, ``RelayRuntimeError``, ``UndefinedBehavior`` or ``Exhaustion``. The spec
    recurses on program depth, so this raises Python's recursion limit to
    ``SPEC_RECURSION_LIMIT`` while it runs and restores the caller's limit when it returns or
    raises (a process-wide setting: other threads see it meanwhile); past that depth it
    raises ``Exhaustion``.
    """
    if entry not in mod:
        raise RelayRuntimeError(f"the module has no function @{entry}")
    ev = Evaluator(mod, explain=explain)
    fn = mod[entry]
    call = Call(mod.get_global_var(entry), tuple(Constant(np.zeros(())) for _ in args),
                span=fn.span)  # fmt: skip
    state = State(fuel=fuel)
    try:
        with _recursion_limit(SPEC_RECURSION_LIMIT):
            value, state = e_call_closure(ev, call, ClosureValue(fn), args, state)
    except RecursionError:
        raise Exhaustion("out of depth: the program nests deeper than the spec evaluator "
                         "can follow (use the interpreter)", fn.span) from None  # fmt: skip
    derivation = ev.trace[0].premises[0] if explain and ev.trace[0].premises else None
    return Result(value, state.store, derivation, ev.fired)


def format_derivation(d: Derivation) -> str:
    """The derivation tree, one line per rule, premises indented under their conclusion."""
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
        case _:
            return f"{type(e).__name__}{where}"
