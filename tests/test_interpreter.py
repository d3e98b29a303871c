"""The interpreter means what the spec means: same values, stores, failures and fuel.

Every program of ``tests/programs`` and ``examples`` (each global whose parameters are tensors
or tuples of them, on random arguments), hand-written programs whose shared nodes write to a
reference (so the order they run in is visible), generated programs (sharing, closures,
recursion, references, matches), and programs far deeper than the spec can follow.
"""

from __future__ import annotations

import gc
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relay
from relay.interpreter import evaluate, program_for
from relay.interpreter.compiler import _MemoKernel
from relay.interpreter.instructions import OpCall
from relay.semantics import evaluation as spec
from relay.semantics import syntax as s
from relay.semantics.errors import (
    Exhaustion,
    RelayError,
    RelayRuntimeError,
    Span,
    Stuck,
    UndefinedBehavior,
)
from relay.semantics.ops import lookup
from relay.semantics.ops.registry import Attrs, OpInput, Reference, Tensor
from relay.semantics.values import (
    ClosureValue,
    ConstructorFnValue,
    ConstructorValue,
    RefValue,
    Store,
    TensorValue,
    TupleValue,
    Value,
)

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = sorted((ROOT / "tests" / "programs").glob("*.relay")) + sorted(
    (ROOT / "examples").glob("*.relay")
)

# ---------------------------------------------------------------------------------------------
# Comparing outcomes


def same_value(a: Value, b: Value) -> str | None:
    """Where ``a`` and ``b`` differ (``None`` if they do not), walking without recursion.

    Tensors bit for bit (both engines run the same kernels), tuples and constructor values
    field by field, references by location, closures and constructors only by kind.
    """
    stack: list[tuple[Value, Value, str]] = [(a, b, "value")]
    while stack:
        x, y, where = stack.pop()
        if type(x) is not type(y):
            return f"{where}: {type(x).__name__} vs {type(y).__name__}"
        match x, y:
            case TensorValue(d), TensorValue(e):
                if d.dtype != e.dtype or d.shape != e.shape or d.tobytes() != e.tobytes():
                    return f"{where}: {d!r} vs {e!r}"
            case TupleValue(f), TupleValue(g):
                if len(f) != len(g):
                    return f"{where}: {len(f)} fields vs {len(g)}"
                stack.extend(
                    (p, q, f"{where}.{i}") for i, (p, q) in enumerate(zip(f, g, strict=True))
                )
            case ConstructorValue(c, f), ConstructorValue(k, g):
                if c.name != k.name or len(f) != len(g):
                    return f"{where}: {c.name} vs {k.name}"
                stack.extend(
                    (p, q, f"{where}/{c.name}.{i}")
                    for i, (p, q) in enumerate(zip(f, g, strict=True))
                )
            case RefValue(m), RefValue(n):
                if m != n:
                    return f"{where}: ref({m}) vs ref({n})"
            case ConstructorFnValue(c), ConstructorFnValue(k):
                if c.name != k.name:
                    return f"{where}: {c.name} vs {k.name}"
            case ClosureValue(), ClosureValue():
                pass
            case _:
                return f"{where}: unexpected {x!r}"
    return None


@dataclass(frozen=True)
class Outcome:
    """A value and its store, or an error: its class, message and span."""

    value: Value | None = None
    store: Store | None = None
    error: type[RelayError] | None = None
    message: str = ""
    span: Span | None = None


def outcome(run: Callable[[], spec.Result]) -> Outcome:
    try:
        result = run()
    except RelayError as err:
        return Outcome(error=type(err), message=err.message, span=err.span)
    return Outcome(result.value, result.store)


def assert_same_outcome(expected: Outcome, actual: Outcome) -> None:
    assert expected.error is actual.error, f"spec: {expected}, interpreter: {actual}"
    if expected.error is not None:
        if expected.error is Exhaustion and expected.message.startswith("out of depth"):
            return  # the spec runs out of Python's stack; the interpreter has none to run out of
        assert (expected.message, expected.span) == (actual.message, actual.span)
        return
    assert expected.value is not None and actual.value is not None
    assert expected.store is not None and actual.store is not None
    difference = same_value(expected.value, actual.value)
    assert difference is None, difference
    assert sorted(expected.store) == sorted(actual.store)
    for location, v in expected.store.items():
        assert same_value(v, actual.store[location]) is None


def check_agree(
    mod: s.IRModule, args: Sequence[Value], *, entry: str = "main", fuel: int = 1_000_000
) -> Outcome:
    """Run both engines; assert they agree; the interpreter's outcome."""
    expected = outcome(lambda: spec.evaluate(mod, args, entry=entry, fuel=fuel))
    actual = outcome(lambda: evaluate(mod, args, entry=entry, fuel=fuel))
    assert_same_outcome(expected, actual)
    return actual


def tensor(x: object, dtype: str) -> TensorValue:
    return TensorValue(np.asarray(x, dtype=dtype))


# ---------------------------------------------------------------------------------------------
# The program corpus


def random_value(t: s.Type, rng: np.random.Generator) -> Value | None:
    """A random value of ``t``, or ``None`` if ``t`` is not made of concrete tensors."""
    match t:
        case s.TensorType(shape, dtype):
            if not all(isinstance(d, int) for d in shape):
                return None
            dims = tuple(d for d in shape if isinstance(d, int))
            if dtype == "bool":
                return tensor(rng.integers(0, 2, size=dims), dtype)
            if dtype.startswith(("int", "uint")):
                return tensor(rng.integers(0, 5, size=dims), dtype)
            # Positive floats: a batch_norm variance must be, for a result without NaN.
            return tensor(rng.uniform(0.5, 2.0, size=dims), dtype)
        case s.TupleType(fields):
            values = [random_value(f, rng) for f in fields]
            if any(v is None for v in values):
                return None
            return TupleValue(tuple(v for v in values if v is not None))
    return None


def corpus() -> list[tuple[str, str, list[Value]]]:
    cases = []
    rng = np.random.default_rng(20240601)
    for path in PROGRAMS:
        mod = relay.parse(path.read_text(), str(path))
        types = relay.infer_types(mod)
        for name in types.globals:
            fn_type = types.global_type(name)
            assert isinstance(fn_type, s.FuncType)
            args = [random_value(t, rng) for t in fn_type.arg_types]
            if fn_type.type_params or any(a is None for a in args):
                continue
            cases.append((str(path.relative_to(ROOT)), name, [a for a in args if a is not None]))
    return cases


CORPUS = corpus()


def test_the_corpus_is_not_empty() -> None:
    files = {file for file, _, _ in CORPUS}
    assert len(CORPUS) >= 12 and "tests/programs/sharing.relay" in files


@pytest.mark.parametrize(("file", "entry", "args"), CORPUS, ids=[f"{f}@{e}" for f, e, _ in CORPUS])
def test_programs_agree_with_the_spec(file: str, entry: str, args: list[Value]) -> None:
    mod = relay.parse((ROOT / file).read_text(), file)
    result = check_agree(mod, args, entry=entry)
    assert result.error is None, result


@pytest.mark.parametrize("c", [True, False])
def test_sharing_program_agrees_on_both_branches(c: bool) -> None:
    mod = relay.parse((ROOT / "tests/programs/sharing.relay").read_text())
    result = check_agree(mod, [tensor(1.5, "float32"), tensor(c, "bool")])
    assert result.error is None


# ---------------------------------------------------------------------------------------------
# Sharing: each shared node appends its digit to %r when it runs

LOGGED = """#[version = "0.0.5"]
def @main(%c: bool) {
  let %r = ref(0);
  %1 = { ref_write(%r, ref_read(%r) * 10 + 1); 1 };   // in both branches: before the if
  %2 = { ref_write(%r, ref_read(%r) * 10 + 2); 2 };   // twice in one branch: once, there
  %3 = { ref_write(%r, ref_read(%r) * 10 + 3); 3 };   // in a fn and after it: before the fn
  %4 = if (%c) { %1 + %2 + %2 } else { %1 };
  %5 = fn (%y: int32) { %3 + %y };
  // one evaluation of %7 per call: each call is a new activation of the body's scope
  %6 = fn (%y: int32) { %7 = { ref_write(%r, ref_read(%r) * 10 + %y); %y }; %7 + %7 };
  (%5(%4) + %5(%3), %6(4), %6(5), ref_read(%r))
}
"""

RECURSIVE_LOGGED = """#[version = "0.0.5"]
def @count(%r: ref(int32), %n: int32) -> int32 {
  %0 = { ref_write(%r, ref_read(%r) * 10 + %n); %n };
  if (%n > 0) { %0 + @count(%r, %n - 1) + %0 } else { %0 }
}
def @main() {
  let %r = ref(0);
  let %total = @count(%r, 3);
  let %m = match ((%total, 7)) {
    (%a, _) => { %1 = { ref_write(%r, ref_read(%r) * 10 + 9); %a }; %1 * %1 },
  };
  (%total, %m, ref_read(%r))
}
"""


@pytest.mark.parametrize(("c", "log", "sum_"), [(True, 12345, 14), (False, 1345, 10)])
def test_shared_nodes_run_once_per_activation_in_the_spec_order(
    c: bool, log: int, sum_: int
) -> None:
    result = check_agree(relay.parse(LOGGED), [tensor(c, "bool")])
    assert isinstance(result.value, TupleValue)
    fields = [f.data.item() for f in result.value.fields if isinstance(f, TensorValue)]
    assert fields == [sum_, 8, 10, log]


def test_shared_nodes_in_recursion_and_match_clauses() -> None:
    result = check_agree(relay.parse(RECURSIVE_LOGGED), [])
    assert isinstance(result.value, TupleValue)
    fields = [f.data.item() for f in result.value.fields if isinstance(f, TensorValue)]
    assert fields == [12, 144, 32109]


def test_tour_store_and_locations_agree() -> None:
    mod = relay.parse((ROOT / "examples/tour.relay").read_text())
    result = check_agree(mod, [tensor(3, "int32")], entry="counter")
    assert result.store  # not empty, and its locations are the spec's


# ---------------------------------------------------------------------------------------------
# Failures

LIST = """#[version = "0.0.5"]
type List[A] { Cons(A, List[A]), Nil }
"""


def test_match_question_failure_is_the_spec_runtime_error() -> None:
    mod = relay.parse(
        LIST + "def @main(%x: int32) { match? (Nil) { Cons(%h, _) => %h + %x } }", "m.relay"
    )
    result = check_agree(mod, [tensor(1, "int32")])
    assert result.error is RelayRuntimeError
    assert result.message.startswith("E-Match-Fail: ") and result.span is not None


def test_integer_division_by_zero_is_undefined_behavior() -> None:
    mod = relay.parse('#[version = "0.0.5"]\ndef @main(%x: int32) { 1 + divide(%x, 0) }', "d")
    result = check_agree(mod, [tensor(7, "int32")])
    assert result.error is UndefinedBehavior and result.span is not None
    assert result.message.startswith("E-Call-Op: divide: ")
    assert "division by zero" in result.message
    assert (result.span.line, result.span.column) == (2, 28)  # the call


def test_stuck_programs_agree() -> None:
    x, y = s.Var("x"), s.Var("y")
    one = s.Constant(np.asarray(1, "int32"))
    bodies: list[s.Expr] = [
        s.Call(s.Op("add"), (x, y)),  # y unbound
        s.Call(x, (one,)),  # calling a tensor
        s.TupleGetItem(s.Tuple((x,)), 3),
        s.If(x, one, one),  # an int32 condition
        s.Op("add"),
        s.Call(s.GlobalVar("nowhere"), ()),
        s.RefRead(x),
        s.Call(s.Function((y,), y), (one, one)),
    ]
    for body in bodies:
        mod = s.IRModule({s.GlobalVar("main"): s.Function((x,), body)})
        assert check_agree(mod, [tensor(0, "int32")]).error is Stuck, body


def test_fuel_counts_rule_firings_exactly_as_the_spec() -> None:
    mod = relay.parse(RECURSIVE_LOGGED)
    low, high = 1, 10_000  # the least fuel with which the spec finishes
    while low < high:
        mid = (low + high) // 2
        if outcome(lambda: spec.evaluate(mod, [], fuel=mid)).error is None:  # noqa: B023
            high = mid
        else:
            low = mid + 1
    assert check_agree(mod, [], fuel=low).error is None
    for fuel in range(low - 40, low):  # out of fuel at the same node (checked by check_agree)
        assert check_agree(mod, [], fuel=fuel).error is Exhaustion


def test_an_endless_loop_runs_out_of_fuel() -> None:
    mod = relay.parse('#[version = "0.0.5"]\ndef @main(%x: int32) -> int32 { @main(%x + 1) }')
    with pytest.raises(Exhaustion, match="out of fuel"):
        evaluate(mod, [tensor(0, "int32")], fuel=30_000)
    loop = relay.parse('#[version = "0.0.5"]\ndef @main(%x: float32) -> float32 { 1f + @main(%x) }')
    with pytest.raises(Exhaustion, match="out of depth"):
        evaluate(loop, [tensor(0, "float32")], max_depth=1_000)


def test_the_allocation_budget() -> None:
    mod = relay.parse(
        '#[version = "0.0.5"]\ndef @main(%x: Tensor[(256, 256), float32]) { add(add(%x, %x), %x) }'
    )
    x = tensor(np.ones((256, 256)), "float32")
    assert isinstance(evaluate(mod, [x], max_allocation_bytes=2 * 256 * 256 * 4).value, TensorValue)
    with pytest.raises(Exhaustion, match="max_allocation_bytes"):
        evaluate(mod, [x], max_allocation_bytes=256 * 256 * 4)


CONSTANT_CALLS = """#[version = "0.0.5"]
def @loop(%n: int32, %acc: Tensor[(64, 64), float32]) -> Tensor[(64, 64), float32] {
  if (%n == 0) {
    %acc
  } else {
    let %w = transpose(full(2f, shape=[64, 64], dtype="float32"), axes=[1, 0]);
    @loop(%n - 1, add(%acc, multiply(%w, %w)))
  }
}
def @main(%n: int32) -> Tensor[(64, 64), float32] {
  @loop(%n, zeros(shape=[64, 64], dtype="float32"))
}
"""


def test_calls_on_constants_compute_once_and_still_cost_each_run() -> None:
    """A call whose operands are constants (or results of such calls) computes its result once
    per compiled module; every run of it is still charged fuel and allocation as the spec's
    rules charge them."""
    mod = relay.parse(CONSTANT_CALLS)
    program = program_for(mod)
    ran: Counter[str] = Counter()
    kept = set()
    for ins in program.instructions():
        if isinstance(ins, OpCall) and isinstance(ins.kernel, _MemoKernel):
            kept.add(ins.name)
            ins.kernel.kernel = counted(ins.kernel.kernel, ins.name, ran)
    # zeros takes nothing, full and transpose constants, multiply %w (bound to such a result);
    # add takes the accumulator, which changes.
    assert kept == {"zeros", "full", "transpose", "multiply"}
    for _ in range(2):
        value = evaluate(mod, [tensor(5, "int32")]).value
        assert isinstance(value, TensorValue)
        np.testing.assert_array_equal(value.data, np.full((64, 64), 20.0, "float32"))
    assert ran == {"zeros": 1, "full": 1, "transpose": 1, "multiply": 1}
    for fuel in range(40, 140, 7):  # the same outcome as the spec, out of fuel or not
        check_agree(mod, [tensor(5, "int32")], fuel=fuel)
    # zeros; six tests of %n == 0 (bool) and five of %n - 1 (int32); full, transpose,
    # multiply and add at each of the five steps.
    produced = 64 * 64 * 4 + 6 * 1 + 5 * 4 + 5 * 4 * 64 * 64 * 4
    evaluate(mod, [tensor(5, "int32")], max_allocation_bytes=produced)
    with pytest.raises(Exhaustion, match="max_allocation_bytes"):
        evaluate(mod, [tensor(5, "int32")], max_allocation_bytes=produced - 1)


def test_a_failing_call_on_constants_fails_on_every_run() -> None:
    mod = relay.parse(
        '#[version = "0.0.5"]\ndef @main(%x: int32) -> int32 { add(%x, divide(7, 0)) }'
    )
    for _ in range(2):
        assert check_agree(mod, [tensor(1, "int32")]).error is UndefinedBehavior


def counted(kernel: Reference, name: str, ran: Counter[str]) -> Reference:
    """``kernel``, counting its runs in ``ran[name]``."""

    def run(arrays: tuple[OpInput, ...], attrs: Attrs | None) -> Tensor | tuple[Tensor, ...]:
        ran[name] += 1
        return kernel(arrays, attrs)

    return run


def test_entry_and_arity_errors() -> None:
    mod = relay.parse('#[version = "0.0.5"]\ndef @f(%x: int32) { %x }')
    with pytest.raises(RelayRuntimeError, match="no function @main"):
        evaluate(mod, [])
    with pytest.raises(Stuck, match="1 parameters called with 0"):
        evaluate(mod, [], entry="f")


# ---------------------------------------------------------------------------------------------
# Depth: 100,000 levels, far past Python's recursion limit

DEEP = 100_000

BUILD_AND_SUM = (
    LIST
    + """
def @build(%n: float64) -> List[float64] {
  if (%n == 0f64) { Nil } else { Cons(%n, @build(%n - 1f64)) }
}
def @sum(%xs: List[float64]) -> float64 {
  match (%xs) { Cons(%x, %rest) => %x + @sum(%rest), Nil => 0f64 }
}
def @main(%n: float64) -> float64 { @sum(@build(%n)) }
"""
)


def test_deep_non_tail_recursion_over_a_list() -> None:
    mod = relay.parse(BUILD_AND_SUM)
    check_agree(mod, [tensor(50, "float64")])  # the spec follows short lists
    result = evaluate(mod, [tensor(DEEP, "float64")])
    assert isinstance(result.value, TensorValue)
    assert result.value.data.item() == DEEP * (DEEP + 1) / 2
    assert sys.getrecursionlimit() * 10 < DEEP


BUILD_AND_LENGTH = (
    LIST
    + """
def @build(%n: int64) -> List[int64] {
  if (%n == 0i64) { Nil } else { Cons(%n, @build(%n - 1i64)) }
}
def @length(%xs: List[int64]) -> int64 {
  match (%xs) { Cons(_, %rest) => 1i64 + @length(%rest), Nil => 0i64 }
}
def @main(%n: int64) -> int64 { @length(@build(%n)) }
"""
)


def test_deep_recursion_without_a_fuel_limit() -> None:
    """About 200,000 nested calls (build a list, then take its length) with ``fuel=None``."""
    mod = relay.parse(BUILD_AND_LENGTH)
    check_agree(mod, [tensor(40, "int64")])
    result = evaluate(mod, [tensor(DEEP, "int64")], fuel=None)
    assert isinstance(result.value, TensorValue) and result.value.data.item() == DEEP
    with pytest.raises(Exhaustion, match="out of fuel"):
        evaluate(mod, [tensor(DEEP, "int64")], fuel=DEEP)  # a limit still stops it


def test_gc_thresholds_are_restored_and_never_switched_on() -> None:
    """The interpreter raises the collector's thresholds only while it runs (see
    ``few_full_collections``), restores them on success and on failure, and leaves automatic
    collection off where the caller turned it off."""
    mod = relay.parse(BUILD_AND_LENGTH)
    during: list[tuple[int, int, int]] = []
    program = program_for(mod)
    for ins in program.instructions():
        if isinstance(ins, OpCall) and ins.name == "add":
            kernel = ins.kernel

            def spy(args: object, attrs: object, kernel: object = kernel) -> object:
                during.append(gc.get_threshold())
                return kernel(args, attrs)  # type: ignore[operator]

            ins.kernel = spy  # type: ignore[assignment]
    before = gc.get_threshold()
    try:
        gc.set_threshold(700, 10, 10)
        evaluate(mod, [tensor(3, "int64")])
        assert gc.get_threshold() == (700, 10, 10)
        assert during and during[-1] == (5_000, 10, 1_000)
        with pytest.raises(Exhaustion):
            evaluate(mod, [tensor(3, "int64")], fuel=5)
        assert gc.get_threshold() == (700, 10, 10)
        gc.set_threshold(0, 10, 10)
        evaluate(mod, [tensor(3, "int64")])
        assert during[-1] == (0, 10, 10) and gc.get_threshold() == (0, 10, 10)
    finally:
        gc.set_threshold(*before)


def test_deep_let_chain_built_through_the_api() -> None:
    x = s.Var("x", s.TensorType((), "int8"))
    variables = [x] + [s.Var(f"v{i}") for i in range(DEEP)]
    cast = lookup("cast")
    assert cast is not None and cast.attrs_type is not None
    to_int8 = cast.attrs_type.from_kwargs({"dtype": "int8"})
    body: s.Expr = variables[-1]
    for i in reversed(range(DEEP)):
        # negative twice per link would cost two kernels; one cast per link is enough
        value = s.Call(s.Op("cast"), (variables[i],), to_int8)
        body = s.Let(variables[i + 1], value, body)
    mod = s.IRModule({s.GlobalVar("main"): s.Function((x,), body)})
    result = evaluate(mod, [tensor(7, "int8")])
    assert isinstance(result.value, TensorValue) and result.value.data.item() == 7


def test_deep_nested_calls_built_through_the_api() -> None:
    x = s.Var("x", s.TensorType((), "float32"))
    one = s.Constant(np.asarray(1.0, "float32"))
    e: s.Expr = x
    for _ in range(DEEP):
        e = s.Call(s.Op("add"), (e, one))
    mod = s.IRModule({s.GlobalVar("main"): s.Function((x,), e)})
    result = evaluate(mod, [tensor(0.0, "float32")])
    assert isinstance(result.value, TensorValue) and result.value.data.item() == DEEP


# ---------------------------------------------------------------------------------------------
# Generated programs: int32 scalars, pairs, closures, references, sharing and recursion

INT, PAIR, FN = "int", "pair", "fn"
OPTION = s.GlobalTypeVar("Option")
SOME = s.Constructor("Some", (s.TensorType((), "int32"),), OPTION, 0)
NONE = s.Constructor("None", (), OPTION, 1)


class _Gen:
    """Draws a program bottom-up; ``pool`` holds built nodes that later draws may reuse."""

    def __init__(self, draw: st.DrawFn, r: s.Var) -> None:
        self.draw = draw
        self.r = r
        self.pool: list[tuple[str, s.Expr, frozenset[s.Var]]] = []
        self.fresh = 0

    def var(self, name: str) -> s.Var:
        self.fresh += 1
        return s.Var(f"{name}{self.fresh}")

    def expr(self, kind: str, env: list[tuple[s.Var, str]], depth: int) -> s.Expr:
        e = self._expr(kind, env, depth)
        self.pool.append((kind, e, frozenset(v for v, _ in env)))
        return e

    def _expr(self, kind: str, env: list[tuple[s.Var, str]], depth: int) -> s.Expr:
        draw = self.draw
        in_scope = {v for v, _ in env}
        reusable = [e for k, e, vs in self.pool if k == kind and vs <= in_scope]
        if reusable and draw(st.integers(0, 3)) == 0:
            return draw(st.sampled_from(reusable))  # a shared node
        variables = [v for v, k in env if k == kind]
        if depth <= 0 or draw(st.integers(0, 6)) == 0:
            if variables and draw(st.integers(0, 1)) == 1:
                return draw(st.sampled_from(variables))
            if kind == INT:
                return s.Constant(np.asarray(draw(st.integers(-3, 3)), "int32"))
        if kind == PAIR:
            return s.Tuple((self.expr(INT, env, depth - 1), self.expr(INT, env, depth - 1)))
        if kind == FN:
            y = self.var("y")
            return s.Function((y,), self.expr(INT, [*env, (y, INT)], depth - 1))
        return self._int(env, depth)

    def _int(self, env: list[tuple[s.Var, str]], depth: int) -> s.Expr:
        d = depth - 1
        choice = self.draw(st.integers(0, 9))
        if choice == 0:
            op = self.draw(st.sampled_from(["add", "subtract", "multiply", "divide"]))
            return s.Call(s.Op(op), (self.expr(INT, env, d), self.expr(INT, env, d)))
        if choice == 1:
            cond = s.Call(s.Op("less"), (self.expr(INT, env, d), self.expr(INT, env, d)))
            return s.If(cond, self.expr(INT, env, d), self.expr(INT, env, d))
        if choice == 2:
            kind = self.draw(st.sampled_from([INT, PAIR, FN]))
            x = self.var("x")
            value = self.expr(kind, env, d)
            return s.Let(x, value, self.expr(INT, [*env, (x, kind)], d))
        if choice == 3:
            return s.Call(self.expr(FN, env, d), (self.expr(INT, env, d),))
        if choice == 4:
            return s.TupleGetItem(self.expr(PAIR, env, d), self.draw(st.integers(0, 1)))
        if choice == 5:
            a, b = self.var("a"), self.var("b")
            pattern = s.PatternTuple((s.PatternVar(a), s.PatternVar(b)))
            rhs = self.expr(INT, [*env, (a, INT), (b, INT)], d)
            return s.Match(self.expr(PAIR, env, d), (s.Clause(pattern, rhs),))
        if choice == 6:  # log the value in the reference, then read it back
            write = s.RefWrite(self.r, self.expr(INT, env, d))
            return s.Let(self.var("_"), write, s.RefRead(self.r))
        if choice == 7:  # a recursive closure counting down
            loop, n = self.var("loop"), self.var("n")
            inner = [*env, (n, INT)]
            recur = s.Call(
                loop,
                (
                    s.Call(
                        s.Op("subtract"),
                        (n, s.Constant(np.asarray(1, "int32"))),
                    ),
                ),
            )
            step = s.Call(s.Op("add"), (self.expr(INT, inner, d), recur))
            stop = s.Call(s.Op("less"), (n, s.Constant(np.asarray(1, "int32"))))
            fn = s.Function((n,), s.If(stop, self.expr(INT, inner, d), step))
            start = s.Constant(np.asarray(self.draw(st.integers(0, 3)), "int32"))
            return s.Let(loop, fn, s.Call(loop, (start,)))
        if choice == 8:  # match? on an option that may be None: E-Match-Fail
            a = self.var("a")
            cond = s.Call(s.Op("less"), (self.expr(INT, env, d), self.expr(INT, env, d)))
            some = s.Call(SOME, (self.expr(INT, env, d),))
            clause = s.Clause(s.PatternConstructor(SOME, (s.PatternVar(a),)), a)
            return s.Match(s.If(cond, some, s.Call(NONE, ())), (clause,), complete=False)
        return s.Call(s.Op("add"), (self.expr(INT, env, d), self.expr(INT, env, d)))


@st.composite
def programs(draw: st.DrawFn) -> s.IRModule:
    p, q, r = s.Var("p"), s.Var("q"), s.Var("r")
    gen = _Gen(draw, r)
    body = gen.expr(INT, [(p, INT), (q, INT)], draw(st.integers(2, 6)))
    main = s.Function(
        (p, q),
        s.Let(r, s.RefCreate(s.Constant(np.asarray(0, "int32"))), s.Tuple((body, s.RefRead(r)))),
    )
    option = s.TypeData(OPTION, (), (SOME, NONE))
    return s.IRModule({s.GlobalVar("main"): main}, {OPTION: option})


@settings(max_examples=150)
@given(
    programs(),
    st.integers(-3, 3),
    st.integers(-3, 3),
    st.one_of(st.just(20_000), st.integers(1, 300)),
)
def test_generated_programs_agree_with_the_spec(mod: s.IRModule, p: int, q: int, fuel: int) -> None:
    """Values, stores, failures (message and span), and where the fuel runs out."""
    check_agree(mod, [tensor(p, "int32"), tensor(q, "int32")], fuel=fuel)
