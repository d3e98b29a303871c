"""ToCPS and UnCPS: continuation-passing style twins of every global, and back."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings

import relay
from relay.compiler.pass_manager import Sequential
from relay.compiler.passes.cps import ROUND_TRIP, ToCPS, UnCPS, cps_type, direct_type
from relay.oracles.fuzz import REDUCTION_LENGTH, Case, cases
from relay.oracles.pass_oracle import check_pass
from relay.semantics.equality import alpha_equal
from relay.semantics.syntax import (
    Call,
    FuncType,
    GlobalVar,
    IRModule,
    TensorType,
    TupleType,
    TypeVar,
    post_order,
)
from relay.semantics.values import TensorValue, Value

HEADER = '#[version = "0.0.5"]\n'
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

COUNTER = """def @count(%n: int32) -> int32 {
  let %r = ref(0);
  let %loop = fn (%i: int32) -> () {
    if (%i > 0) { ref_write(%r, add(ref_read(%r), %i)); %loop(subtract(%i, 1)) } else { () }
  };
  %loop(%n);
  ref_read(%r)
}
def @apply(%f: fn (int32) -> int32, %x: int32) -> int32 { %f(%x) }
def @main(%n: int32) -> int32 { add(@count(%n), @apply(fn (%y: int32) { multiply(%y, 2) }, %n)) }
"""


def i32(v: int) -> TensorValue:
    return TensorValue(np.array(v, dtype="int32"))


def checked(p: ToCPS | UnCPS | Sequential, mod: IRModule, *arg_sets: list[Value]) -> None:
    for args in arg_sets:
        verdict = check_pass(p, mod, args)
        assert verdict is None, verdict.report()


def test_every_global_gets_a_twin_taking_a_continuation() -> None:
    mod = relay.parse(HEADER + COUNTER)
    checked(ToCPS(), mod, [i32(0)], [i32(5)])
    out = ToCPS()(mod)
    names = [gv.name for gv in out.functions]
    assert names == ["count", "count_cps", "apply", "apply_cps", "main", "main_cps"]
    twin = out["count_cps"]
    assert twin.attr("CPS") == 1 and len(twin.params) == 2
    assert [tv.name for tv in twin.type_params] == ["Ans"]
    # A first-order global runs its twin with the identity continuation ...
    main = out["main"]
    assert isinstance(main.body, Call) and isinstance(main.body.op, GlobalVar)
    assert main.body.op.name == "main_cps"
    # ... a higher-order one keeps its direct definition.
    assert alpha_equal(out["apply"], mod["apply"])


def test_calls_in_the_twins_are_tail_calls_with_continuations() -> None:
    out = ToCPS()(relay.parse(HEADER + COUNTER))
    body = list(post_order(out["main_cps"]))
    # Every call of a global inside the twin is of a twin, and passes a continuation last.
    calls = [e for e in body if isinstance(e, Call) and isinstance(e.op, GlobalVar)]
    assert {c.op.name for c in calls if isinstance(c.op, GlobalVar)} == {"count_cps", "apply_cps"}


def test_function_types_get_continuations() -> None:
    ans = TypeVar("Ans")
    i = TensorType((), "int32")
    t = TupleType((FuncType((i,), i),))
    converted = cps_type(t, ans)
    assert converted == TupleType((FuncType((i, FuncType((i,), ans)), ans),))
    assert direct_type(converted, "Ans") == t


def test_un_cps_restores_direct_style() -> None:
    mod = relay.parse(HEADER + COUNTER)
    checked(ROUND_TRIP, mod, [i32(3)])
    out = UnCPS()(ToCPS()(mod))
    assert not any(f.attr("CPS") for f in out.functions.values())
    assert [gv.name for gv in out.functions] == ["count", "apply", "main"]
    assert not any(isinstance(e, Call) and len(e.args) == 2 and isinstance(e.op, GlobalVar)
                   and e.op.name == "count" for e in post_order(out["main"]))  # fmt: skip


def test_static_loop_example_round_trips() -> None:
    mod = relay.parse((EXAMPLES / "static_loop.relay").read_text())
    checked(ROUND_TRIP, mod, [TensorValue(np.linspace(-1, 1, 8).astype("float32"))])


def test_annotated_recursive_let_round_trips() -> None:
    # the binder's annotation changes type in CPS, so UnCPS renames it; the recursive call in
    # its own value must be renamed too (a 600 s campaign of the round trip found it unbound)
    mod = relay.parse(
        HEADER
        + """def @main(%n: int32) -> int32 {
          let %f: fn (int32) -> int32 = fn (%x: int32) -> int32 {
            if (%x > 0) { add(%f(subtract(%x, 1)), %x) } else { 0 }
          };
          %f(%n)
        }"""
    )
    checked(ROUND_TRIP, mod, [i32(4)], [i32(0)])


def test_a_type_fixed_by_a_caller_is_kept() -> None:
    # @f's result type is List[_] on its own; only @main's annotated call fixes it, and that
    # call moves into @main_cps (found by a 600 s campaign of the round trip: type changed)
    mod = relay.parse(
        HEADER
        + """type List[A] { Cons(A, List[A]), Nil }
        def @f(%x: int32) { Nil }
        def @main(%n: int32) -> int32 {
          let %y: List[fn () -> int32] = @f(%n);
          %n
        }"""
    )
    checked(ToCPS(), mod, [i32(1)])
    checked(ROUND_TRIP, mod, [i32(1)])


def test_a_local_function_keeps_its_result_annotation() -> None:
    # the annotation is all that makes the Leaf a Tree[int32]; ToCPS moves it onto the
    # continuation and UnCPS must bring it back (found by the round-trip campaign)
    mod = relay.parse(
        HEADER
        + """type Tree[A] { Leaf, Node(Tree[A], A, Tree[A]) }
        def @main(%p: int32) {
          %0 = fn () -> (Tree[int32], int32) { (Leaf, %p) };
          %0()
        }"""
    )
    checked(ROUND_TRIP, mod, [i32(1)])


def test_un_cps_leaves_code_outside_the_image_alone() -> None:
    mod = relay.parse(HEADER + "def @main(%x: int32) -> int32 { add(%x, 1) }")
    assert UnCPS()(mod) is mod


def test_constructor_with_a_function_field_is_not_converted() -> None:
    mod = relay.parse(
        HEADER
        + """type Box { Box(fn (int32) -> int32) }
        def @main(%x: int32) -> int32 {
          match (Box(fn (%y: int32) { %y })) { Box(%f) => %f(%x) }
        }"""
    )
    assert ToCPS()(mod) is mod


@settings(deadline=None, max_examples=10)
@given(cases())
def test_cps_round_trip_preserves_meaning(case: Case) -> None:
    verdict = check_pass(ROUND_TRIP, case.mod, case.args, reduction_length=REDUCTION_LENGTH)
    assert verdict is None, verdict.report()
