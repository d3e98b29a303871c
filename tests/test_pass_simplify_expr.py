"""SimplifyExpr: each rule fires where it is exact and stays put where it is not."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relay
from relay.compiler.passes.simplify_expr import SimplifyExpr, exact_widening
from relay.oracles.fuzz import REDUCTION_LENGTH, Case, cases
from relay.oracles.gen_args import values
from relay.oracles.pass_oracle import check_pass
from relay.semantics.equality import alpha_equal
from relay.semantics.syntax import DTYPES, TensorType

HEADER = '#[version = "0.0.5"]\n'


def simplified(src: str) -> relay.IRModule:
    mod = relay.parse(HEADER + src)
    out = SimplifyExpr()(mod)
    assert check_pass(SimplifyExpr(), mod, None) is None
    return out


def assert_becomes(src: str, expected: str) -> None:
    out = simplified(src)
    want = relay.parse(HEADER + expected)
    assert alpha_equal(out, want), relay.astext(out)


def assert_unchanged(src: str) -> None:
    assert_becomes(src, src)


def test_reshape_chain_merges_to_static_shape() -> None:
    assert_becomes(
        """def @main(%x: Tensor[(2, 3), float32]) {
          %0 = reshape(%x, newshape=[3, 2]);
          reshape(%0, newshape=[-1])
        }""",
        """def @main(%x: Tensor[(2, 3), float32]) { reshape(%x, newshape=[6]) }""",
    )


def test_squeeze_of_reshape_merges_and_zero_size_sets_allowzero() -> None:
    assert_becomes(
        """def @main(%x: Tensor[(0, 3), float32]) {
          %0 = reshape(%x, newshape=[3, 1, 0], allowzero=True);
          squeeze(%0, axis=[1])
        }""",
        """def @main(%x: Tensor[(0, 3), float32]) {
          reshape(%x, newshape=[3, 0], allowzero=True)
        }""",
    )


def test_reshape_chain_with_unknown_result_is_kept() -> None:
    assert_unchanged(
        """def @main(%x: Tensor[(?, 6), float32]) {
          %0 = reshape(%x, newshape=[0, 2, 3]);
          reshape(%0, newshape=[0, 6])
        }"""
    )


def test_reshape_to_same_static_shape_is_identity() -> None:
    assert_becomes(
        """def @main(%x: Tensor[(2, 3), float32]) { reshape(%x, newshape=[2, -1]) }""",
        """def @main(%x: Tensor[(2, 3), float32]) { %x }""",
    )


def test_reshape_between_unknown_shapes_is_kept() -> None:
    # (?, ?) to (?, ?) may transpose the sizes at run time: not an identity.
    assert_unchanged("""def @main(%x: Tensor[(?, ?), float32]) { reshape(%x, newshape=[0, -1]) }""")


def test_squeeze_expand_dims_pair_cancels_with_unknown_sizes() -> None:
    assert_becomes(
        """def @main(%x: Tensor[(?, 3), float32]) {
          %0 = expand_dims(%x, axis=1, num_newaxis=2);
          squeeze(%0, axis=[2, 1])
        }""",
        """def @main(%x: Tensor[(?, 3), float32]) { %x }""",
    )


def test_squeeze_of_other_axes_is_kept() -> None:
    assert_unchanged(
        """def @main(%x: Tensor[(?, 1), float32]) {
          %0 = expand_dims(%x, axis=0);
          squeeze(%0, axis=[2])
        }"""
    )


def test_cast_to_same_dtype_is_identity() -> None:
    assert_becomes(
        """def @main(%x: Tensor[(2), int8]) { cast(%x, dtype="int8") }""",
        """def @main(%x: Tensor[(2), int8]) { %x }""",
    )


def test_widening_cast_chain_merges_and_round_trip_vanishes() -> None:
    assert_becomes(
        """def @main(%x: Tensor[(2), int16]) {
          %0 = cast(%x, dtype="float32");
          %1 = cast(%0, dtype="int16");
          %2 = cast(%x, dtype="int64");
          (%1, cast(%2, dtype="uint8"))
        }""",
        """def @main(%x: Tensor[(2), int16]) { (%x, cast(%x, dtype="uint8")) }""",
    )


@pytest.mark.parametrize(
    ("source", "middle"),
    [
        ("float32", "float16"),  # narrowing: rounds
        ("int32", "float32"),  # 2**24 + 1 rounds
        ("int8", "uint8"),  # -1 becomes 255
        ("float32", "int32"),  # truncates
        ("int32", "bool"),
    ],
)
def test_narrowing_cast_is_never_dropped(source: str, middle: str) -> None:
    assert not exact_widening(source, middle)
    assert_unchanged(
        f"""def @main(%x: Tensor[(2), {source}]) {{
          %0 = cast(%x, dtype="{middle}");
          cast(%0, dtype="float64")
        }}"""
    )


def test_transposes_compose_and_cancel() -> None:
    assert_becomes(
        """def @main(%x: Tensor[(2, 3, 4), float32]) {
          %0 = transpose(%x, axes=[1, 2, 0]);
          %1 = transpose(%0, axes=[2, 0, 1]);
          %2 = transpose(%x, axes=[1, 0, 2]);
          %3 = transpose(%2, axes=None);
          (%1, %3, transpose(%x, axes=[0, -2, 2]))
        }""",
        """def @main(%x: Tensor[(2, 3, 4), float32]) {
          (%x, transpose(%x, axes=[2, 0, 1]), %x)
        }""",
    )


def test_like_operators_become_static_creators() -> None:
    assert_becomes(
        """def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(3), float32],
                   %z: Tensor[(6), float32]) {
          (zeros_like(%x), ones_like(%x), full_like(%x, 7i64),
           reshape_like(%z, %x), broadcast_to_like(%y, %x))
        }""",
        """def @main(%x: Tensor[(2, 3), float32], %y: Tensor[(3), float32],
                   %z: Tensor[(6), float32]) {
          (zeros(shape=[2, 3], dtype="float32"), ones(shape=[2, 3], dtype="float32"),
           full(7i64, shape=[2, 3], dtype="float32"), reshape(%z, newshape=[2, 3]),
           broadcast_to(%y, shape=[2, 3]))
        }""",
    )


def test_like_operators_keep_effects_and_unknown_shapes() -> None:
    assert_unchanged(
        """def @main(%r: ref(Tensor[(2), float32]), %x: Tensor[(?), float32]) {
          (zeros_like(ref_read(%r)), ones_like(%x), full_like(%x, 1f))
        }"""
    )


def test_full_like_float_to_bool_is_kept() -> None:
    assert_unchanged("""def @main(%x: Tensor[(2), bool]) { full_like(%x, 1f) }""")


def test_identities_fire_only_without_broadcasting() -> None:
    assert_becomes(
        """def @main(%x: Tensor[(2, 3), float32], %i: Tensor[(3), int32]) {
          %0 = multiply(1f, %x);
          %1 = add(%0, zeros(shape=[1, 3], dtype="float32"));
          %2 = subtract(%1, 0f);
          %3 = divide(%2, ones(shape=[3], dtype="float32"));
          (%3, add(%i, zeros(shape=[2, 3], dtype="int32")), subtract(0i32, %i),
           divide(1f, %x), multiply(%i, 2))
        }""",
        """def @main(%x: Tensor[(2, 3), float32], %i: Tensor[(3), int32]) {
          (%x, add(%i, zeros(shape=[2, 3], dtype="int32")), subtract(0, %i),
           divide(1f, %x), multiply(%i, 2))
        }""",
    )


def test_fill_operand_becomes_scalar() -> None:
    assert_becomes(
        """def @main(%x: Tensor[(2, 3), float32]) {
          %0 = full(3i64, shape=[3], dtype="float32");
          (less(%0, %x), maximum(ones(shape=[2, 3], dtype="float32"), %x),
           power(%x, full(2f, shape=[4, 2, 3], dtype="float32")))
        }""",
        """def @main(%x: Tensor[(2, 3), float32]) {
          (less(3f, %x), maximum(1f, %x),
           power(%x, full(2f, shape=[4, 2, 3], dtype="float32")))
        }""",
    )


def test_rewrites_inside_lets_closures_and_matches() -> None:
    assert_becomes(
        """def @main(%x: Tensor[(2), float32], %b: bool) {
          let %f = fn (%y: Tensor[(2), float32]) { multiply(%y, 1f) };
          if (%b) { %f(cast(%x, dtype="float32")) } else { transpose(%x, axes=[0]) }
        }""",
        """def @main(%x: Tensor[(2), float32], %b: bool) {
          let %f = fn (%y: Tensor[(2), float32]) { %y };
          if (%b) { %f(%x) } else { %x }
        }""",
    )


def test_input_is_not_mutated_and_values_agree() -> None:
    src = (
        HEADER
        + """def @main(%x: Tensor[(2, 3), float32]) {
      %0 = transpose(%x, axes=[1, 0]);
      %1 = reshape(%0, newshape=[6]);
      %2 = reshape(%1, newshape=[3, 2]);
      add(%2, 0f)
    }"""
    )
    mod = relay.parse(src)
    before = relay.astext(mod)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    expected = relay.evaluate(mod, x)
    out = SimplifyExpr()(mod)
    assert relay.astext(mod) == before
    np.testing.assert_array_equal(relay.evaluate(out, x).data, expected.data)  # type: ignore[union-attr]
    assert "add" not in relay.astext(out)


@settings(deadline=None, max_examples=40)
@given(cases(focus=sorted(SimplifyExpr.focus_ops)))
def test_simplify_expr_preserves_meaning(case: Case) -> None:
    verdict = check_pass(SimplifyExpr(), case.mod, case.args, reduction_length=REDUCTION_LENGTH)
    assert verdict is None, verdict.report()


@st.composite
def unary_chains(draw: st.DrawFn) -> Case:
    """``@main(%x)`` applying 2 to 5 casts, transposes, reshapes, squeezes and expand_dims in a
    row to ``%x: Tensor[(2, 1, 3), dtype]``: the chains the rules merge, which the general
    generator rarely draws. Special values (NaN, infinities, extremes) included."""
    dtype = draw(st.sampled_from(DTYPES))
    shape = [2, 1, 3]
    lines: list[str] = []
    current = "%x"
    for _ in range(draw(st.integers(2, 5))):
        kind = draw(st.sampled_from(["cast", "cast", "transpose", "reshape", "expand_squeeze"]))
        if kind == "cast":
            call = f'cast({current}, dtype="{draw(st.sampled_from(DTYPES))}")'
        elif kind == "transpose":
            perm = draw(st.permutations(range(len(shape))))
            call = f"transpose({current}, axes={list(perm)})"
            shape = [shape[p] for p in perm]
        elif kind == "reshape":
            shape = draw(st.sampled_from([[6], [3, 2], [1, 6, 1], [2, 1, 3], [6, 1]]))
            call = f"reshape({current}, newshape={shape})"
        else:
            axis = draw(st.integers(0, len(shape)))
            call = f"expand_dims({current}, axis={axis})"
            lines.append(f"%{len(lines)} = {call};")
            call = f"squeeze(%{len(lines) - 1}, axis=[{axis}])"
        lines.append(f"%{len(lines)} = {call};")
        current = f"%{len(lines) - 1}"
    src = f"def @main(%x: Tensor[(2, 1, 3), {dtype}]) {{ {' '.join(lines)} {current} }}"
    mod = relay.parse(HEADER + src)
    arg = draw(values(TensorType((2, 1, 3), dtype), special=True))
    return Case(mod, (arg,))


@settings(deadline=None, max_examples=60)
@given(unary_chains())
def test_simplify_expr_preserves_meaning_of_chains(case: Case) -> None:
    verdict = check_pass(SimplifyExpr(), case.mod, case.args)
    assert verdict is None, verdict.report()
