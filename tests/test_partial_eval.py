"""PartialEvaluate: static values, closures, references and recursion evaluated at compile
time; effects kept in order."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings

import relay
from relay.compiler.passes.partial_eval import PartialEvaluate
from relay.oracles.fuzz import REDUCTION_LENGTH, Case, cases
from relay.oracles.pass_oracle import check_pass
from relay.semantics.syntax import (
    Call,
    Expr,
    GlobalVar,
    If,
    IRModule,
    Match,
    RefCreate,
    RefRead,
    RefWrite,
    post_order,
)
from relay.semantics.values import TensorValue, Value

HEADER = '#[version = "0.0.5"]\n'
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def i32(v: int) -> TensorValue:
    return TensorValue(np.array(v, dtype="int32"))


def boolean(v: bool) -> TensorValue:
    return TensorValue(np.array(v))


def run(src: str, *arg_sets: list[Value], p: PartialEvaluate | None = None) -> IRModule:
    """The pass's output on ``src``, checked by the oracle on each argument list."""
    p = p or PartialEvaluate()
    mod = relay.parse(HEADER + src)
    for args in arg_sets or ([],):
        verdict = check_pass(p, mod, args)
        assert verdict is None, verdict.report()
    return p(mod)


def nodes(mod: IRModule, name: str = "main") -> list[Expr]:
    return list(post_order(mod[name]))


def count(mod: IRModule, kind: type, name: str = "main") -> int:
    return sum(isinstance(e, kind) for e in nodes(mod, name))


def test_static_loop_example_becomes_straight_line_code() -> None:
    mod = relay.parse((EXAMPLES / "static_loop.relay").read_text())
    x = TensorValue(np.linspace(-1, 1, 8).astype("float32"))
    verdict = check_pass(PartialEvaluate(), mod, [x])
    assert verdict is None, verdict.report()
    out = PartialEvaluate()(mod)
    main = nodes(out)
    assert not any(isinstance(e, Match | If | RefCreate | RefRead) for e in main)
    assert not any(isinstance(e, Call) and isinstance(e.op, GlobalVar) for e in main)
    # Horner over six coefficients: six multiplications remain.
    assert sum(isinstance(e, Call) and getattr(e.op, "name", "") == "multiply" for e in main) == 6


def test_operator_calls_on_constants_fold_through_lets_and_tuples() -> None:
    out = run(
        """def @main(%x: int32) -> int32 {
          let %t = (2, 3);
          let %y = multiply(%t.0, %t.1);
          add(%x, %y)
        }""",
        [i32(4)],
    )
    assert relay.astext(out).count("add(%x, 6)") == 1


def test_static_recursion_unrolls_to_a_constant() -> None:
    out = run(
        """def @sum(%n: int32) -> int32 { if (%n <= 0) { 0 } else { %n + @sum(%n - 1) } }
        def @main() -> int32 { @sum(5) }"""
    )
    assert "15" in relay.astext(out).split("def @main")[1]
    assert count(out, Call) == 0


def test_recursion_on_a_dynamic_argument_stays_a_call() -> None:
    out = run(
        """def @sum(%n: int32) -> int32 { if (%n <= 0) { 0 } else { %n + @sum(%n - 1) } }
        def @main(%n: int32) -> int32 { @sum(%n) }""",
        [i32(0)],
        [i32(6)],
    )
    calls = [e for e in nodes(out) if isinstance(e, Call) and isinstance(e.op, GlobalVar)]
    assert calls, "the recursion cannot be unrolled"


def test_reference_reads_use_the_static_store_and_unread_writes_go() -> None:
    out = run(
        """def @main(%x: int32) -> int32 {
          let %r = ref(1);
          ref_write(%r, add(ref_read(%r), 2));
          add(%x, ref_read(%r))
        }""",
        [i32(4)],
    )
    assert count(out, RefRead) == count(out, RefWrite) == count(out, RefCreate) == 0
    assert "add(%x, 3)" in relay.astext(out)


def test_closure_capturing_a_reference_is_evaluated_with_its_effects() -> None:
    out = run(
        """def @main() -> int32 {
          let %r = ref(0);
          let %inc = fn () { ref_write(%r, add(ref_read(%r), 1)) };
          %inc();
          %inc();
          ref_read(%r)
        }"""
    )
    assert relay.astext(out).split("def @main")[1].count("2") >= 1
    assert count(out, RefRead) == 0


def test_write_in_a_dynamic_branch_forgets_the_store() -> None:
    out = run(
        """def @main(%c: bool) -> int32 {
          let %r = ref(0);
          if (%c) { ref_write(%r, 1) } else { () };
          ref_read(%r)
        }""",
        [boolean(True)],
        [boolean(False)],
    )
    assert count(out, RefWrite) == 1 and count(out, RefRead) == 1


def test_reference_no_branch_writes_keeps_its_content() -> None:
    out = run(
        """def @main(%c: bool) -> int32 {
          let %r = ref(5);
          let %s = ref(0);
          if (%c) { ref_write(%s, 1) } else { () };
          add(ref_read(%r), ref_read(%s))
        }""",
        [boolean(True)],
        [boolean(False)],
    )
    assert count(out, RefRead) == 1 and "add(5, " in relay.astext(out)


def test_write_through_an_unknown_alias_forgets_the_store() -> None:
    # %cell is a reference only known at run time (read from a cell whose content the
    # dynamic branch made unknown); it is %r, so %r's content is unknown after the write.
    run(
        """def @main(%c: bool) -> int32 {
          let %r = ref(1);
          let %box = ref(%r);
          if (%c) { () } else { () };
          ref_write(%r, 2);
          let %cell = ref_read(%box);
          ref_write(%cell, 5);
          ref_read(%r)
        }""",
        [boolean(True)],
    )


def test_unknown_function_call_forgets_the_store() -> None:
    run(
        """def @main(%c: bool) -> int32 {
          let %r = ref(1);
          let %f = if (%c) { fn () { ref_write(%r, 9) } } else { fn () { () } };
          ref_write(%r, 2);
          %f();
          ref_read(%r)
        }""",
        [boolean(True)],
        [boolean(False)],
    )


def test_a_call_that_may_not_terminate_is_kept() -> None:
    out = run(
        """def @spin(%x: int32) -> int32 { @spin(%x) }
        def @main(%x: int32, %c: bool) -> int32 {
          let %unused = if (%c) { @spin(%x) } else { 0 };
          1
        }""",
        [i32(1), boolean(False)],
    )
    assert any(isinstance(e, Call) and isinstance(e.op, GlobalVar) for e in nodes(out))


def test_effects_keep_their_order_when_a_function_is_unfolded() -> None:
    # Arguments are evaluated left to right, then the body: the writes happen in that order.
    out = run(
        """def @main(%x: int32) -> int32 {
          let %r = ref(%x);
          let %set = fn (%v: int32) { ref_write(%r, %v); %v };
          let %f = fn (%a: int32, %b: int32) { ref_write(%r, add(ref_read(%r), %a)); %b };
          let %y = %f(%set(add(%x, 1)), %set(multiply(%x, 3)));
          add(ref_read(%r), %y)
        }""",
        [i32(2)],
        [i32(-5)],
    )
    assert count(out, RefRead) == 0


def test_match_on_a_static_constructor_picks_its_clause() -> None:
    out = run(
        """type Tree[A] { Leaf, Node(Tree[A], A, Tree[A]) }
        def @size[A](%t: Tree[A]) -> int32 {
          match (%t) { Leaf => 0, Node(%l, _, %r) => add(add(@size(%l), 1), @size(%r)) }
        }
        def @main(%x: float32) -> int32 {
          @size(Node(Node(Leaf, %x, Leaf), %x, Node(Leaf, %x, Node(Leaf, %x, Leaf))))
        }""",
        [TensorValue(np.array(0.5, dtype="float32"))],
    )
    assert count(out, Match) == 0 and "4" in relay.astext(out).split("def @main")[1]


def test_match_on_a_dynamic_value_is_residualised_per_clause() -> None:
    run(
        """type List[A] { Cons(A, List[A]), Nil }
        def @main(%c: bool, %x: int32) -> int32 {
          let %l = if (%c) { Cons(%x, Nil) } else { Nil };
          let %k = 10;
          match? (%l) { Cons(%y, _) => add(%y, %k), Nil => %k }
        }""",
        [boolean(True), i32(3)],
        [boolean(False), i32(3)],
    )


def test_fuel_zero_unfolds_nothing_and_keeps_the_meaning() -> None:
    out = run(
        """def @double(%x: int32) -> int32 { add(%x, %x) }
        def @main(%x: int32) -> int32 { let %f = fn (%y: int32) { @double(%y) }; %f(%x) }""",
        [i32(5)],
        p=PartialEvaluate(fuel=0),
    )
    assert any(isinstance(e, Call) and isinstance(e.op, GlobalVar) for e in nodes(out))


def test_polymorphic_local_function_unfolded_at_two_types() -> None:
    run(
        """def @main(%x: int32, %y: float32) -> (int32, float32) {
          let %id = fn [T](%v: T) -> T { %v };
          (%id(%x), %id(%y))
        }""",
        [i32(1), TensorValue(np.array(2.5, dtype="float32"))],
    )


def test_recursion_tied_through_a_reference() -> None:
    # Landin's knot: the function calls itself through the cell it is stored in.
    src = """def @main(%n: int32) -> int32 {
      let %r = ref(fn (%x: int32) -> int32 { %x });
      let %f = fn (%k: int32) -> int32 {
        if (%k <= 0) { 0 } else { add(%k, ref_read(%r)(subtract(%k, 1))) }
      };
      ref_write(%r, %f);
      add(%f(4), %f(%n))
    }"""
    out = run(src, [i32(0)], [i32(3)])
    assert "10" in relay.astext(out)  # %f(4) is unrolled to its value


def test_failing_match_is_left_to_run_time() -> None:
    run(
        """type List[A] { Cons(A, List[A]), Nil }
        def @main(%x: int32) -> int32 {
          let %l = Nil;
          let %y = match? (%l) { Cons(%h, _) => %h };
          add(%x, 1)
        }""",
        [i32(1)],
    )


@settings(deadline=None, max_examples=25)
@given(cases())
def test_partial_evaluate_preserves_meaning(case: Case) -> None:
    verdict = check_pass(PartialEvaluate(), case.mod, case.args, reduction_length=REDUCTION_LENGTH)
    assert verdict is None, verdict.report()
