"""Example tests (text before and after) and oracle properties for InferType,
DeadCodeElimination, RemoveUnusedFunctions, DivToMul, FoldConstant, EliminateCommonSubexpr and
the three normal forms."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from relay import astext, parse
from relay.compiler.pass_manager import BUILTIN_PASSES, Pass
from relay.oracles.fuzz import REDUCTION_LENGTH, Case, cases
from relay.oracles.pass_oracle import check_pass
from relay.semantics.equality import alpha_equal


def apply(name: str, source: str) -> str:
    return astext(BUILTIN_PASSES[name]()(parse(source)))


def same(name: str, before: str, after: str) -> None:
    """The pass turns ``before`` into a module alpha-equal to ``after``."""
    out = BUILTIN_PASSES[name]()(parse(before))
    expected = parse(after)
    assert alpha_equal(out, expected), astext(out)


def unchanged(name: str, source: str) -> None:
    same(name, source, source)


# -- InferType --------------------------------------------------------------------------------


def test_infer_type_annotates_binders_and_returns() -> None:
    same(
        "infer-type",
        "def @main(%x: Tensor[(2), float32]) { let %y = add(%x, %x); fn (%z) { %z }(%y) }",
        "def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {"
        "  let %y: Tensor[(2), float32] = add(%x, %x);"
        "  fn (%z: Tensor[(2), float32]) -> Tensor[(2), float32] { %z }(%y) }",
    )


# -- DeadCodeElimination ----------------------------------------------------------------------


def test_dce_removes_unused_pure_lets_transitively() -> None:
    same(
        "dead-code-elimination",
        "def @main(%x: float32) { let %a = exp(%x); let %b = add(%a, 1f); %x }",
        "def @main(%x: float32) { %x }",
    )


def test_dce_keeps_effects_and_calls() -> None:
    unchanged(
        "dead-code-elimination",
        "def @main(%r: ref(float32), %f: fn (float32) -> float32) {"
        "  let %a = ref_write(%r, 1f); let %b = ref_read(%r); let %c = %f(2f); 0f }",
    )


# -- RemoveUnusedFunctions --------------------------------------------------------------------


def test_remove_unused_functions_keeps_what_main_reaches() -> None:
    same(
        "remove-unused-functions",
        "def @a() -> int32 { @b() } def @b() -> int32 { 1 } def @c() -> int32 { 2 }"
        " def @main() { @a }",
        "def @a() -> int32 { @b() } def @b() -> int32 { 1 } def @main() { @a }",
    )


# -- DivToMul ---------------------------------------------------------------------------------


def test_div_to_mul_multiplies_by_the_reciprocal() -> None:
    same(
        "div-to-mul",
        "def @main(%x: float32) { divide(%x, 4f) }",
        "def @main(%x: float32) { multiply(%x, 0.25f) }",
    )


@pytest.mark.parametrize(
    "source",
    [
        "def @main(%x: int32) { divide(%x, 4) }",  # integer division truncates
        "def @main(%x: float32) { divide(%x, 0f) }",  # 1/0 is not finite
        "def @main(%x: float32, %y: float32) { divide(%x, %y) }",  # not a constant
    ],
)
def test_div_to_mul_leaves_other_divisions(source: str) -> None:
    unchanged("div-to-mul", source)


# -- FoldConstant -----------------------------------------------------------------------------


def test_fold_constant_evaluates_calls_on_constants() -> None:
    same(
        "fold-constant",
        "def @main(%x: int32) { let %c = add(2, 3); multiply(%x, multiply(%c, 2)) }",
        "def @main(%x: int32) { multiply(%x, 10) }",
    )


def test_fold_constant_folds_tuples_and_projections() -> None:
    same(
        "fold-constant",
        "def @main() { (1, 2).1 }",
        "def @main() { 2 }",
    )


def test_fold_constant_leaves_undefined_calls() -> None:
    unchanged("fold-constant", "def @main() { divide(1, 0) }")


def test_fold_constant_truncates_integer_division() -> None:
    same("fold-constant", "def @main() { divide(-7, 2) }", "def @main() { -3 }")


# -- EliminateCommonSubexpr -------------------------------------------------------------------


def test_cse_merges_repeated_calls_in_a_scope() -> None:
    out = apply(
        "eliminate-common-subexpr",
        "def @main(%x: float32) { let %a = exp(%x); let %b = exp(%x); add(%a, %b) }",
    )
    assert out.count("exp(") == 1


def test_cse_does_not_merge_references_or_calls() -> None:
    unchanged(
        "eliminate-common-subexpr",
        "def @main(%f: fn () -> int32) { (ref(1), ref(1), %f(), %f()) }",
    )


def test_cse_does_not_merge_across_branches() -> None:
    out = apply(
        "eliminate-common-subexpr",
        "def @main(%c: bool, %x: int32) { if (%c) { divide(1, %x) } else { divide(1, %x) } }",
    )
    assert out.count("divide(") == 2


# -- Normal forms -----------------------------------------------------------------------------


def test_a_normal_form_binds_every_compound_operand() -> None:
    same(
        "to-a-normal-form",
        "def @main(%x: float32) { %0 = exp(%x); add(%0, negative(%0)) }",
        "def @main(%x: float32) {"
        "  let %a = exp(%x); let %b = negative(%a); let %c = add(%a, %b); %c }",
    )


def test_a_normal_form_binds_shared_nodes_before_the_branches_that_use_them() -> None:
    same(
        "to-a-normal-form",
        "def @main(%c: bool, %x: float32) { %0 = exp(%x); if (%c) { %0 } else { %0 } }",
        "def @main(%c: bool, %x: float32) {"
        "  let %e = exp(%x); let %r = if (%c) { %e } else { %e }; %r }",
    )


def test_graph_normal_form_removes_pure_lets_only() -> None:
    same(
        "to-graph-normal-form",
        "def @main(%x: float32) { let %a = exp(%x); let %r = ref(%a); add(%a, ref_read(%r)) }",
        "def @main(%x: float32) { %0 = exp(%x); let %r = ref(%0); add(%0, ref_read(%r)) }",
    )


def test_basic_block_form_binds_nodes_used_across_branches() -> None:
    same(
        "to-basic-block-normal-form",
        "def @main(%c: bool, %x: float32) { %0 = exp(%x); if (%c) { %0 } else { %0 } }",
        "def @main(%c: bool, %x: float32) { let %e = exp(%x); if (%c) { %e } else { %e } }",
    )


# -- The oracle on generated programs ---------------------------------------------------------

ORACLE_PASSES = [
    "infer-type",
    "dead-code-elimination",
    "remove-unused-functions",
    "div-to-mul",
    "fold-constant",
    "eliminate-common-subexpr",
    "to-a-normal-form",
    "to-graph-normal-form",
    "to-basic-block-normal-form",
]


@pytest.mark.parametrize("name", ORACLE_PASSES)
def test_pass_preserves_meaning_on_generated_programs(name: str) -> None:
    p: Pass = BUILTIN_PASSES[name]()

    @settings(max_examples=25, deadline=None)
    @given(cases(focus=sorted(p.focus_ops)))
    def check(case: Case) -> None:
        verdict = check_pass(p, case.mod, case.args, reduction_length=REDUCTION_LENGTH)
        assert verdict is None, verdict.report()

    check()


def test_a_normal_form_binds_a_shared_let_value_once() -> None:
    same(
        "to-a-normal-form",
        "def @main(%a: int32) {"
        "  %0 = (let %y = add(%a, 1); %a); %1 = add(%0, 1); let %x = %1; add(%x, %1) }",
        "def @main(%a: int32) {"
        "  let %y = add(%a, 1); let %x = add(%a, 1); let %r = add(%x, %x); %r }",
    )


def test_dce_keeps_a_type_that_only_a_removed_let_fixed() -> None:
    before = "def @main(%p) { let %a: Tensor[(2), int32] = %p; 0 }"
    out = BUILTIN_PASSES["dead-code-elimination"]()(parse(before))
    assert "let" not in astext(out)
    assert astext(out).startswith('#[version = "0.0.5"]\ndef @main(%p: Tensor[(2), int32])')
