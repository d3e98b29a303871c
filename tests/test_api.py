"""The Python API's checks: ``relay.evaluate`` type-checks the module and the arguments the way
``relay run`` does (``relay.api.check_call``), and runs with no fuel limit by default."""

from __future__ import annotations

import numpy as np
import pytest

import relay
from relay.api import value_expr
from relay.semantics.errors import SourceFile, Span
from relay.semantics.syntax import Call, Constant, Constructor
from relay.semantics.values import (
    ClosureValue,
    ConstructorFnValue,
    ConstructorValue,
    TensorValue,
    TupleValue,
    Value,
)

MODULE = relay.parse("""#[version = "0.0.5"]
type List[A] { Cons(A, List[A]), Nil }
def @main(%x: float32) -> float32 { add(%x, 1f) }
def @length[A](%l: List[A]) -> int32 {
  match (%l) {
    Cons(_, %t) => 1 + @length(%t),
    Nil => 0,
  }
}
def @apply(%f: fn (int32) -> int32, %p: (int32, float32)) -> int32 { %f(%p.0) }
def @loop(%n: int64) -> int64 { if (%n == 0i64) { 0i64 } else { @loop(%n - 1i64) } }
""")


def as_list(items: list[Value]) -> Value:
    ctors = MODULE.constructors()
    out: Value = ConstructorValue(ctors["Nil"], ())
    for item in reversed(items):
        out = ConstructorValue(ctors["Cons"], (item, out))
    return out


def test_a_float64_argument_for_a_float32_parameter_is_refused() -> None:
    with pytest.raises(relay.ArgumentError) as info:
        relay.evaluate(MODULE, np.float64(1.5))
    assert str(info.value) == (
        "argument 1 (a float64 array of shape ()) does not fit parameter %x of @main: expected "
        "float32, found float64 (dtype float32 and dtype float64 differ)"
    )
    assert isinstance(info.value, TypeError)
    value = relay.evaluate(MODULE, np.float32(1.5))
    assert isinstance(value, TensorValue) and value.data.dtype == np.float32


def test_wrong_number_of_arguments_and_missing_entry() -> None:
    with pytest.raises(relay.ArgumentError, match=r"^@main\(%x\) takes 1 argument, found 2$"):
        relay.evaluate(MODULE, np.float32(1), np.float32(2))
    with pytest.raises(relay.ArgumentError, match=r"^no function @nope in the module"):
        relay.evaluate(MODULE, entry="nope")


def test_an_ill_typed_module_is_not_run() -> None:
    bad = relay.parse("def @main() { add(1, 1f) }")
    with pytest.raises(relay.RelayTypeError):
        relay.evaluate(bad)


def test_constructor_values_are_checked_against_generic_parameters() -> None:
    three = as_list([TensorValue(np.array(i, dtype="int32")) for i in range(3)])
    length = relay.evaluate(MODULE, three, entry="length")
    assert isinstance(length, TensorValue) and int(length.data) == 3
    with pytest.raises(relay.ArgumentError, match="parameter %l of @length: expected List"):
        relay.evaluate(MODULE, np.int32(3), entry="length")


def test_closures_pass_unchecked_and_tuples_are_checked() -> None:
    identity = relay.parse("def @main() { fn (%y: int32) { %y } }")
    closure = relay.evaluate(identity)
    assert isinstance(closure, ClosureValue)
    pair = TupleValue((TensorValue(np.array(7, "int32")), TensorValue(np.array(1, "float32"))))
    result = relay.evaluate(MODULE, closure, pair, entry="apply")
    assert isinstance(result, TensorValue) and int(result.data) == 7
    swapped = TupleValue(pair.fields[::-1])
    with pytest.raises(relay.ArgumentError, match=r"argument 2 .* parameter %p of @apply"):
        relay.evaluate(MODULE, closure, swapped, entry="apply")


def test_no_fuel_limit_by_default_and_fuel_when_given() -> None:
    # About 9.6 rule firings per iteration (the spec counts 96 for n = 10): about 1.15 million
    # in all, more than the engines' own default budget of 1,000,000.
    result = relay.evaluate(MODULE, np.int64(120_000), entry="loop")
    assert isinstance(result, TensorValue) and int(result.data) == 0
    with pytest.raises(relay.Exhaustion, match="out of fuel"):
        relay.evaluate(MODULE, np.int64(120_000), entry="loop", fuel=1000)


def test_value_expr_is_iterative_and_keeps_sharing() -> None:
    span = Span(SourceFile("<argument 1>", ""), 1, 1, 1, 1)
    shared = TensorValue(np.array(1, "int32"))
    long = as_list([shared] * 100_000)
    e = value_expr(long, MODULE, span)
    assert isinstance(e, Call) and isinstance(e.op, Constructor)
    first = e.args[0]
    assert isinstance(first, Constant)
    second = e.args[1]
    assert isinstance(second, Call) and second.args[0] is first  # one constant, shared
    nil = MODULE.constructors()["Nil"]
    assert value_expr(ConstructorFnValue(nil), MODULE, span) is nil
    other = relay.parse("type List[A] { Cons(A, List[A]), Nil }").constructors()["Nil"]
    assert value_expr(ConstructorValue(other, ()), MODULE, span) is None  # not this module's
