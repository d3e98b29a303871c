"""Inline (TVM's, for functions marked Inline=1) and InlineFunctions (every direct call)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings

import relay
from relay.compiler.ir import well_formed
from relay.compiler.pass_manager import Pass
from relay.compiler.passes.inline import Inline, InlineFunctions
from relay.oracles.fuzz import REDUCTION_LENGTH, Case, cases
from relay.oracles.pass_oracle import check_pass
from relay.semantics.equality import alpha_equal
from relay.semantics.values import TensorValue, Value

HEADER = '#[version = "0.0.5"]\n'
LIST = "type List[A] { Cons(A, List[A]), Nil, }\n"


def run(p: Pass, src: str, *args: Value) -> relay.IRModule:
    """The pass's output, after checking it under the oracle (on ``args``, if any)."""
    mod = relay.parse(HEADER + src)
    verdict = check_pass(p, mod, list(args) if args else None)
    assert verdict is None, verdict.report()
    out = p(mod)
    assert not well_formed(out)
    return out


def assert_becomes(p: Pass, src: str, expected: str, *args: Value) -> None:
    out = run(p, src, *args)
    want = relay.parse(HEADER + expected)
    assert alpha_equal(out, want), relay.astext(out)


def i32(v: int) -> TensorValue:
    return TensorValue(np.array(v, dtype="int32"))


# -- Inline: TVM's pass ------------------------------------------------------------------------


def test_marked_function_is_inlined_and_removed() -> None:
    assert_becomes(
        Inline(),
        """def @f(%x: int32, Inline=1) -> int32 { add(%x, %x) }
        def @main(%a: int32) -> int32 { @f(multiply(%a, 3)) }""",
        """def @main(%a: int32) -> int32 {
          let %x: int32 = multiply(%a, 3);
          add(%x, %x)
        }""",
        i32(5),
    )


def test_unmarked_function_is_not_inlined_by_inline() -> None:
    src = """def @f(%x: int32) -> int32 { add(%x, %x) }
    def @main(%a: int32) -> int32 { @f(%a) }"""
    assert_becomes(Inline(), src, src, i32(2))


def test_recursive_marked_function_is_not_inlined() -> None:
    src = """def @f(%n: int32, Inline=1) -> int32 {
      if (less_equal(%n, 0)) { 0 } else { @f(subtract(%n, 1)) }
    }
    def @main(%a: int32) -> int32 { @f(%a) }"""
    assert_becomes(Inline(), src, src, i32(3))


def test_mutually_recursive_marked_functions_are_not_inlined() -> None:
    src = """def @even(%n: int32, Inline=1) -> bool {
      if (equal(%n, 0)) { True } else { @odd(subtract(%n, 1)) }
    }
    def @odd(%n: int32, Inline=1) -> bool {
      if (equal(%n, 0)) { False } else { @even(subtract(%n, 1)) }
    }
    def @main(%a: int32) -> bool { @even(%a) }"""
    assert_becomes(Inline(), src, src, i32(4))


def test_marked_function_calling_an_unmarked_one_is_kept_as_tvm_did() -> None:
    src = """def @g(%x: int32) -> int32 { add(%x, 1) }
    def @f(%x: int32, Inline=1) -> int32 { @g(%x) }
    def @main(%a: int32) -> int32 { @f(%a) }"""
    assert_becomes(Inline(), src, src, i32(1))


def test_marked_chain_is_inlined_bottom_up() -> None:
    assert_becomes(
        Inline(),
        """def @g(%x: int32, Inline=1) -> int32 { add(%x, 1) }
        def @f(%y: int32, Inline=1) -> int32 { @g(multiply(%y, 2)) }
        def @main(%a: int32) -> int32 { @f(%a) }""",
        """def @main(%a: int32) -> int32 {
          let %y: int32 = %a;
          let %x: int32 = multiply(%y, 2);
          add(%x, 1)
        }""",
        i32(7),
    )


def test_marked_function_used_as_a_value_becomes_a_closure() -> None:
    assert_becomes(
        Inline(),
        """def @f(%x: int32, Inline=1) -> int32 { add(%x, 1) }
        def @main(%a: int32) -> int32 { let %h = @f; %h(%a) }""",
        """def @main(%a: int32) -> int32 {
          let %h = fn (%x: int32, Inline=1) -> int32 { add(%x, 1) };
          %h(%a)
        }""",
        i32(7),
    )


def test_unused_marked_entry_function_stays() -> None:
    src = """def @f(%x: int32, Inline=1) -> int32 { add(%x, 1) }
    def @main(%a: int32) -> int32 { %a }"""
    assert_becomes(Inline(), src, src, i32(0))


def test_external_function_becomes_a_call_of_its_literal() -> None:
    assert_becomes(
        Inline(),
        """def @f(%x: int32, Inline=1, Compiler="ext") -> int32 { add(%x, 1) }
        def @main(%a: int32) -> int32 { @f(%a) }""",
        """def @main(%a: int32) -> int32 {
          %0 = fn (%x: int32, Inline=1, Compiler="ext") -> int32 { add(%x, 1) };
          %0(%a)
        }""",
        i32(7),
    )


# -- InlineFunctions: every direct call --------------------------------------------------------


def test_parameter_names_equal_to_the_callers_variables_are_not_captured() -> None:
    # The callee's %x and %y are not the caller's: the arguments refer to the caller's, in
    # swapped order, and the callee's body must see them swapped.
    assert_becomes(
        InlineFunctions(),
        """def @f(%x: int32, %y: int32) -> int32 { subtract(%x, %y) }
        def @main(%x: int32, %y: int32) -> int32 { @f(%y, %x) }""",
        """def @main(%x: int32, %y: int32) -> int32 {
          let %x1: int32 = %y;
          let %y1: int32 = %x;
          subtract(%x1, %y1)
        }""",
        i32(10),
        i32(3),
    )
    out = InlineFunctions()(
        relay.parse(
            HEADER
            + """def @f(%x: int32, %y: int32) -> int32 { subtract(%x, %y) }
        def @main(%x: int32, %y: int32) -> int32 { @f(%y, %x) }"""
        )
    )
    value = relay.evaluate(out, i32(10), i32(3))
    assert isinstance(value, TensorValue) and int(value.data) == -7


def test_same_callee_inlined_twice_gets_distinct_binders_and_effects() -> None:
    src = """def @mk(%v: int32) -> ref(int32) { ref(%v) }
    def @main() -> int32 {
      let %a = @mk(0);
      let %b = @mk(0);
      ref_write(%a, 1);
      ref_read(%b)
    }"""
    assert_becomes(
        InlineFunctions(),
        src,
        """def @main() -> int32 {
          let %a = (let %v: int32 = 0; ref(%v));
          let %b = (let %v1: int32 = 0; ref(%v1));
          ref_write(%a, 1);
          ref_read(%b)
        }""",
        *(),
    )
    out = InlineFunctions()(relay.parse(HEADER + src))
    value = relay.evaluate(out)
    assert isinstance(value, TensorValue) and int(value.data) == 0


def test_closed_effectful_body_is_copied_not_shared() -> None:
    # ``ref(0)`` mentions no binder: a copy that reused the node would make it one shared
    # reference for both calls, and %b would read 1.
    src = """def @mk() -> ref(int32) { ref(0) }
    def @main() -> int32 {
      let %a = @mk();
      let %b = @mk();
      ref_write(%a, 1);
      ref_read(%b)
    }"""
    out = run(InlineFunctions(), src, *())
    assert "mk" not in out
    value = relay.evaluate(out)
    assert isinstance(value, TensorValue) and int(value.data) == 0


def test_unused_parameter_keeps_its_arguments_effect() -> None:
    assert_becomes(
        InlineFunctions(),
        """def @ignore(%u: (), %x: int32) -> int32 { %x }
        def @main() -> int32 {
          let %r = ref(1);
          %0 = @ignore(ref_write(%r, 5), ref_read(%r));
          add(%0, ref_read(%r))
        }""",
        """def @main() -> int32 {
          let %r = ref(1);
          %0 = (let %u: () = ref_write(%r, 5); let %x: int32 = ref_read(%r); %x);
          add(%0, ref_read(%r))
        }""",
    )


def test_parameter_used_twice_evaluates_the_argument_once() -> None:
    src = """def @twice(%x: int32) -> int32 { add(%x, %x) }
    def @main() -> int32 {
      let %r = ref(1);
      @twice((ref_write(%r, add(ref_read(%r), 1)); ref_read(%r)))
    }"""
    out = run(InlineFunctions(), src, *())
    value = relay.evaluate(out)
    assert isinstance(value, TensorValue) and int(value.data) == 4


def test_callee_passed_as_a_value_is_not_inlined() -> None:
    src = """def @inc(%x: int32) -> int32 { add(%x, 1) }
    def @apply(%f: fn (int32) -> int32, %x: int32) -> int32 { %f(%x) }
    def @main(%a: int32) -> int32 { @apply(@inc, %a) }"""
    assert_becomes(
        InlineFunctions(),
        src,
        """def @inc(%x: int32) -> int32 { add(%x, 1) }
        def @main(%a: int32) -> int32 {
          let %f: fn (int32) -> int32 = @inc;
          let %x1: int32 = %a;
          %f(%x1)
        }""",
        i32(4),
    )


def test_recursive_and_polymorphic_callees_stay() -> None:
    src = (
        LIST
        + """def @len[A](%l: List[A]) -> int32 {
          match (%l) { Cons(_, %t) => add(@len(%t), 1), Nil => 0 }
        }
        def @id[A](%x: A) -> A { %x }
        def @main(%a: int32) -> int32 { @id(@len(Cons(%a, Nil))) }"""
    )
    assert_becomes(InlineFunctions(), src, src, i32(4))


def test_lost_return_type_is_kept_with_annotations() -> None:
    # Inlining plainly would leave @main's result type undetermined (List[_]): the pass
    # binds the result with the callee's return type instead.
    assert_becomes(
        InlineFunctions(),
        LIST
        + """def @nil() -> List[int32] { Nil }
        def @main() { @nil() }""",
        LIST
        + """def @main() {
          let %nil_result: List[int32] = Nil;
          %nil_result
        }""",
    )


def test_local_recursion_and_matches_inside_the_callee_are_renamed() -> None:
    src = (
        LIST
        + """def @sum(%l: List[int32]) -> int32 {
          let %go = fn (%k: List[int32]) -> int32 {
            match (%k) { Cons(%h, %t) => add(%h, %go(%t)), Nil => 0 }
          };
          %go(%l)
        }
        def @main(%a: int32) -> int32 {
          add(@sum(Cons(%a, Nil)), @sum(Cons(%a, Cons(1, Nil))))
        }"""
    )
    out = run(InlineFunctions(), src, i32(3))
    assert "sum" not in out
    value = relay.evaluate(out, i32(3))
    assert isinstance(value, TensorValue) and int(value.data) == 7


def test_inline_does_not_change_its_input() -> None:
    src = """def @f(%x: int32, Inline=1) -> int32 { add(%x, 1) }
    def @main(%a: int32) -> int32 { @f(%a) }"""
    mod = relay.parse(HEADER + src)
    text = relay.astext(mod)
    Inline()(mod)
    InlineFunctions()(mod)
    assert relay.astext(mod) == text


@settings(deadline=None, max_examples=30)
@given(cases())
def test_inline_functions_preserves_meaning(case: Case) -> None:
    verdict = check_pass(InlineFunctions(), case.mod, case.args, reduction_length=REDUCTION_LENGTH)
    assert verdict is None, verdict.report()


@settings(deadline=None, max_examples=15)
@given(cases())
def test_inline_preserves_meaning(case: Case) -> None:
    verdict = check_pass(Inline(), case.mod, case.args, reduction_length=REDUCTION_LENGTH)
    assert verdict is None, verdict.report()
