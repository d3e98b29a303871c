"""LambdaLift: local function literals become global functions."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings

import relay
from relay.compiler.ir import well_formed
from relay.compiler.passes.lambda_lift import LambdaLift
from relay.oracles.fuzz import REDUCTION_LENGTH, Case, cases
from relay.oracles.pass_oracle import check_pass
from relay.semantics.equality import alpha_equal
from relay.semantics.syntax import Function, post_order
from relay.semantics.values import TensorValue, Value

HEADER = '#[version = "0.0.5"]\n'


def run(src: str, *args: Value) -> relay.IRModule:
    mod = relay.parse(HEADER + src)
    verdict = check_pass(LambdaLift(), mod, list(args) if args else None)
    assert verdict is None, verdict.report()
    out = LambdaLift()(mod)
    assert not well_formed(out)
    # Lifting again finds nothing left to lift.
    assert relay.astext(LambdaLift()(out)) == relay.astext(out)
    return out


def assert_becomes(src: str, expected: str, *args: Value) -> None:
    out = run(src, *args)
    want = relay.parse(HEADER + expected)
    assert alpha_equal(out, want), relay.astext(out)


def i32(v: int) -> TensorValue:
    return TensorValue(np.array(v, dtype="int32"))


def test_closed_function_becomes_the_global_itself() -> None:
    assert_becomes(
        "def @main(%a: int32) -> int32 { let %f = fn (%x: int32) { add(%x, 1) }; %f(%a) }",
        """def @lifted_0(%x: int32) { add(%x, 1) }
        def @main(%a: int32) -> int32 { let %f = @lifted_0; %f(%a) }""",
        i32(4),
    )


def test_free_variables_become_parameters_of_a_closure_making_global() -> None:
    assert_becomes(
        """def @main(%a: int32, %b: float32) -> (int32, float32) {
          %0 = fn (%x: int32) { (add(%x, %a), %b) };
          %0(2)
        }""",
        """def @lifted_0(%a1: int32, %b1: float32, Closure=1) -> fn (int32) -> (int32, float32) {
          fn (%x: int32) { (add(%x, %a1), %b1) }
        }
        def @main(%a: int32, %b: float32) -> (int32, float32) {
          %0 = @lifted_0(%a, %b);
          %0(2)
        }""",
        i32(4),
        TensorValue(np.array(0.5, dtype="float32")),
    )


def test_existing_names_are_not_reused() -> None:
    out = run(
        """def @lifted_0() -> int32 { 7 }
        def @main() -> int32 { let %f = fn () { @lifted_0() }; %f() }"""
    )
    assert sorted(gv.name for gv in out.functions) == ["lifted_0", "lifted_1", "main"]
    assert alpha_equal(out["lifted_0"], relay.parse(HEADER + "def @main() -> int32 { 7 }")["main"])


def test_let_bound_recursive_function_calls_its_global() -> None:
    # The recursive %f is not captured: its uses become calls of the lifted global, with the
    # free variable %step passed along.
    assert_becomes(
        """def @main(%n: int32, %step: int32) -> int32 {
          let %f = fn (%k: int32) -> int32 {
            if (less_equal(%k, 0)) { 0 } else { add(%f(subtract(%k, 1)), %step) }
          };
          %f(%n)
        }""",
        """def @lifted_0(%step1: int32, Closure=1) -> fn (int32) -> int32 {
          fn (%k: int32) -> int32 {
            if (less_equal(%k, 0)) { 0 } else {
              add(@lifted_0(%step1)(subtract(%k, 1)), %step1)
            }
          }
        }
        def @main(%n: int32, %step: int32) -> int32 {
          let %f = @lifted_0(%step);
          %f(%n)
        }""",
        i32(4),
        i32(3),
    )


def test_recursive_function_passed_as_a_value_inside_itself() -> None:
    out = run(
        """def @main(%n: int32) -> int32 {
          let %f = fn (%k: int32) -> int32 {
            let %self = %f;
            if (less_equal(%k, 0)) { 0 } else { add(%self(subtract(%k, 1)), 2) }
          };
          %f(%n)
        }""",
        i32(5),
    )
    value = relay.evaluate(out, i32(5))
    assert isinstance(value, TensorValue) and int(value.data) == 10


def test_nested_functions_are_lifted_innermost_first() -> None:
    assert_becomes(
        """def @main(%a: int32) -> int32 {
          let %outer = fn (%x: int32) {
            let %inner = fn (%y: int32) { add(%y, %a) };
            %inner(%x)
          };
          %outer(1)
        }""",
        """def @lifted_0(%a1: int32, Closure=1) -> fn (int32) -> int32 {
          fn (%y: int32) { add(%y, %a1) }
        }
        def @lifted_1(%a2: int32, Closure=1) -> fn (int32) -> int32 {
          fn (%x: int32) { let %inner = @lifted_0(%a2); %inner(%x) }
        }
        def @main(%a: int32) -> int32 {
          let %outer = @lifted_1(%a);
          %outer(1)
        }""",
        i32(4),
    )


def test_polymorphic_enclosing_function_makes_the_global_polymorphic() -> None:
    assert_becomes(
        """def @pair[A](%a: A) -> (A, A) {
          let %g = fn (%u: ()) -> A { %a };
          (%g(()), %g(()))
        }
        def @main(%x: int32) -> (int32, int32) { @pair(%x) }""",
        """def @lifted_0[A](%a1: A, Closure=1) -> fn (()) -> A {
          fn (%u: ()) -> A { %a1 }
        }
        def @pair[A](%a: A) -> (A, A) {
          let %g = @lifted_0(%a);
          (%g(()), %g(()))
        }
        def @main(%x: int32) -> (int32, int32) { @pair(%x) }""",
        i32(9),
    )


def test_type_parameter_no_argument_determines_is_ascribed() -> None:
    # Found by relay fuzz: @lifted_0() alone would instantiate T0 afresh, and @f's type would
    # become fn [T0](T0) -> fn (_, int32) -> int32.
    assert_becomes(
        """def @f[T0](%p: T0) { fn (%p1: T0, %p2: int32) { %p2 } }
        def @main() -> int32 { @f(1f)(2f, 3) }""",
        """def @lifted_0[T0](Closure=1) -> fn (T0, int32) -> int32 {
          fn (%p1: T0, %p2: int32) { %p2 }
        }
        def @f[T0](%p: T0) {
          let %closure: fn (T0, int32) -> int32 = @lifted_0();
          %closure
        }
        def @main() -> int32 { @f(1f)(2f, 3) }""",
    )


def test_local_polymorphic_function_stays_polymorphic() -> None:
    # A global used as a value is instantiated once; the closure-making global returns the
    # polymorphic fn, so %id is still used at two types.
    out = run(
        """def @main(%x: int32) -> (int32, float32) {
          let %id = fn [T](%v: T) -> T { %v };
          (%id(%x), %id(2f))
        }""",
        i32(1),
    )
    lifted = out["lifted_0"]
    assert lifted.attr("Closure") == 1 and not lifted.params
    assert isinstance(lifted.body, Function) and lifted.body.type_params


def test_node_shared_across_the_function_boundary_is_bound_first() -> None:
    # %0 (a new reference) is shared by the closure and by the body: it is created once, so
    # the closure must capture the same reference, not create its own on each call.
    src = """def @main() -> int32 {
      %0 = ref(1);
      let %get = fn () { ref_read(%0) };
      ref_write(%0, 5);
      %get()
    }"""
    out = run(src)
    value = relay.evaluate(out)
    assert isinstance(value, TensorValue) and int(value.data) == 5
    main = out["main"]
    assert not any(isinstance(e, Function) for e in post_order(main.body))


def test_primitive_functions_and_global_bodies_are_not_lifted() -> None:
    src = """def @main(%a: float32) -> float32 {
      %0 = fn (%p: float32, Primitive=1) -> float32 { exp(%p) };
      %0(%a)
    }"""
    assert_becomes(src, src, TensorValue(np.array(0.5, dtype="float32")))


def test_module_without_local_functions_is_unchanged() -> None:
    mod = relay.parse(HEADER + "def @main(%a: int32) -> int32 { add(%a, 1) }")
    assert LambdaLift()(mod) is mod


@settings(deadline=None, max_examples=30)
@given(cases())
def test_lambda_lift_preserves_meaning(case: Case) -> None:
    verdict = check_pass(LambdaLift(), case.mod, case.args, reduction_length=REDUCTION_LENGTH)
    assert verdict is None, verdict.report()
