"""EtaExpand: globals and constructors used as values become fn literals that call them."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings

import relay
from relay.compiler.ir import well_formed
from relay.compiler.passes.eta_expand import EtaExpand
from relay.oracles.fuzz import REDUCTION_LENGTH, Case, cases
from relay.oracles.pass_oracle import check_pass
from relay.semantics.equality import alpha_equal
from relay.semantics.values import TensorValue, Value

HEADER = '#[version = "0.0.5"]\n'
TYPES = """type List[A] { Cons(A, List[A]), Nil, }
type Nat { Z, S(Nat), }
"""


def assert_becomes(p: EtaExpand, src: str, expected: str, *args: Value) -> None:
    mod = relay.parse(HEADER + src)
    verdict = check_pass(p, mod, list(args) if args else None)
    assert verdict is None, verdict.report()
    out = p(mod)
    assert not well_formed(out)
    want = relay.parse(HEADER + expected)
    assert alpha_equal(out, want), relay.astext(out)


def i32(v: int) -> TensorValue:
    return TensorValue(np.array(v, dtype="int32"))


def test_global_value_gets_the_inferred_parameter_types() -> None:
    # @inc's result type is not written: the expansion takes it from inference.
    assert_becomes(
        EtaExpand(),
        """def @inc(%x: int32) { add(%x, 1) }
        def @main(%a: int32) -> int32 { let %f = @inc; %f(%a) }""",
        """def @inc(%x: int32) { add(%x, 1) }
        def @main(%a: int32) -> int32 {
          let %f = fn (%x1: int32) -> int32 { @inc(%x1) };
          %f(%a)
        }""",
        i32(4),
    )


def test_calls_are_not_expanded() -> None:
    src = (
        TYPES
        + """def @inc(%x: int32) -> int32 { add(%x, 1) }
        def @main(%a: int32) -> List[int32] { Cons(@inc(%a), Nil) }"""
    )
    assert_becomes(EtaExpand(), src, src, i32(1))


def test_constructor_of_a_monomorphic_type_is_annotated() -> None:
    assert_becomes(
        EtaExpand(),
        TYPES + "def @main() -> Nat { let %s = S; %s(Z) }",
        TYPES
        + """def @main() -> Nat {
          let %s = fn (%x1: Nat) -> Nat { S(%x1) };
          %s(Z)
        }""",
    )


def test_polymorphic_constructor_used_at_two_instances_gets_two_monomorphic_fns() -> None:
    # One Cons node used at List[int32] and at List[float32]: each use gets its own fn, with
    # the types that mention A left to inference.
    mod = relay.parse(
        HEADER
        + TYPES
        + "def @ap[A](%f: fn (A, List[A]) -> List[A], %x: A) -> List[A] { %f(%x, Nil) }\n"
        + "def @main() { (@ap(Cons, 1), @ap(Cons, 2f)) }"
    )
    verdict = check_pass(EtaExpand(), mod, [])
    assert verdict is None, verdict.report()
    out = EtaExpand()(mod)
    want = relay.parse(
        HEADER
        + TYPES
        + "def @ap[A](%f: fn (A, List[A]) -> List[A], %x: A) -> List[A] { %f(%x, Nil) }\n"
        + """def @main() {
          %0 = fn (%x1, %x2) { Cons(%x1, %x2) };
          %1 = fn (%y1, %y2) { Cons(%y1, %y2) };
          (@ap(%0, 1), @ap(%1, 2f))
        }"""
    )
    assert alpha_equal(out, want), relay.astext(out)


def test_polymorphic_global_keeps_only_the_monomorphic_annotations() -> None:
    assert_becomes(
        EtaExpand(),
        """def @k[A](%x: A, %n: int32) -> A { %x }
        def @main() -> float32 { let %f: fn (float32, int32) -> float32 = @k; %f(1f, 2) }""",
        """def @k[A](%x: A, %n: int32) -> A { %x }
        def @main() -> float32 {
          let %f: fn (float32, int32) -> float32 = fn (%x1, %x2: int32) { @k(%x1, %x2) };
          %f(1f, 2)
        }""",
    )


def test_flags_choose_what_is_expanded() -> None:
    src = (
        TYPES
        + """def @inc(%x: int32) -> int32 { add(%x, 1) }
        def @main() -> (fn (int32) -> int32, fn (Nat) -> Nat) { (@inc, S) }"""
    )
    assert_becomes(
        EtaExpand(expand_constructor=False),
        src,
        TYPES
        + """def @inc(%x: int32) -> int32 { add(%x, 1) }
        def @main() -> (fn (int32) -> int32, fn (Nat) -> Nat) {
          (fn (%x1: int32) -> int32 { @inc(%x1) }, S)
        }""",
    )
    assert_becomes(
        EtaExpand(expand_global_var=False),
        src,
        TYPES
        + """def @inc(%x: int32) -> int32 { add(%x, 1) }
        def @main() -> (fn (int32) -> int32, fn (Nat) -> Nat) {
          (@inc, fn (%x1: Nat) -> Nat { S(%x1) })
        }""",
    )
    assert_becomes(EtaExpand(False, False), src, src)


def test_nullary_constructor_value_and_global_in_a_body() -> None:
    # A global as a whole function body, and an expanded global passed to a higher-order
    # global (the callee position stays a global).
    assert_becomes(
        EtaExpand(),
        """def @one() -> int32 { 1 }
        def @get() -> fn () -> int32 { @one }
        def @main() -> int32 { @get()() }""",
        """def @one() -> int32 { 1 }
        def @get() -> fn () -> int32 { fn () -> int32 { @one() } }
        def @main() -> int32 { @get()() }""",
    )


def test_recursive_global_as_value() -> None:
    assert_becomes(
        EtaExpand(),
        """def @count(%n: int32) -> int32 {
          if (less_equal(%n, 0)) { 0 } else { let %g = @count; add(%g(subtract(%n, 1)), 1) }
        }
        def @main(%a: int32) -> int32 { @count(%a) }""",
        """def @count(%n: int32) -> int32 {
          if (less_equal(%n, 0)) { 0 } else {
            let %g = fn (%x1: int32) -> int32 { @count(%x1) };
            add(%g(subtract(%n, 1)), 1)
          }
        }
        def @main(%a: int32) -> int32 { @count(%a) }""",
        i32(3),
    )


@settings(deadline=None, max_examples=30)
@given(cases())
def test_eta_expand_preserves_meaning(case: Case) -> None:
    verdict = check_pass(EtaExpand(), case.mod, case.args, reduction_length=REDUCTION_LENGTH)
    assert verdict is None, verdict.report()
