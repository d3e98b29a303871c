"""CanonicalizeOps: nn.bias_add becomes add of the bias expanded along its axis."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings

import relay
from relay.compiler.passes.canonicalize_ops import CanonicalizeOps
from relay.oracles.fuzz import REDUCTION_LENGTH, Case, cases
from relay.oracles.pass_oracle import check_pass
from relay.semantics.equality import alpha_equal
from relay.semantics.values import TensorValue

HEADER = '#[version = "0.0.5"]\n'


def assert_becomes(src: str, expected: str, *args: np.ndarray) -> None:
    mod = relay.parse(HEADER + src)
    values = [TensorValue(a) for a in args] if args else None
    verdict = check_pass(CanonicalizeOps(), mod, values)
    assert verdict is None, verdict.report()
    out = CanonicalizeOps()(mod)
    assert alpha_equal(out, relay.parse(HEADER + expected)), relay.astext(out)


def test_bias_add_on_channel_axis_expands_the_bias() -> None:
    assert_becomes(
        """def @main(%x: Tensor[(2, 3, 4, 5), float32], %b: Tensor[(3), float32]) {
          nn.bias_add(%x, %b)
        }""",
        """def @main(%x: Tensor[(2, 3, 4, 5), float32], %b: Tensor[(3), float32]) {
          add(%x, expand_dims(%b, axis=1, num_newaxis=2))
        }""",
        np.arange(120, dtype=np.float32).reshape(2, 3, 4, 5),
        np.array([1.5, -2, 0.25], np.float32),
    )


def test_bias_add_on_last_axis_needs_no_expansion() -> None:
    assert_becomes(
        """def @main(%x: Tensor[(2, 3), int8], %b: Tensor[(3), int8]) {
          nn.bias_add(%x, %b, axis=-1)
        }""",
        """def @main(%x: Tensor[(2, 3), int8], %b: Tensor[(3), int8]) { add(%x, %b) }""",
        np.array([[127, -128, 3], [0, 1, 2]], np.int8),
        np.array([1, -1, 5], np.int8),
    )


def test_bias_of_unknown_length_against_known_extent() -> None:
    assert_becomes(
        """def @main(%x: Tensor[(2, 3), float64], %b: Tensor[(?), float64]) {
          nn.bias_add(%x, %b, axis=0)
        }""",
        """def @main(%x: Tensor[(2, 3), float64], %b: Tensor[(?), float64]) {
          add(%x, expand_dims(%b, axis=1))
        }""",
        np.ones((2, 3)),
        np.array([2.0, 3.0]),
    )


def test_known_bias_against_unknown_extent_is_kept() -> None:
    # add would type as (2, 3) where bias_add types as (2, ?): a type change.
    src = """def @main(%x: Tensor[(2, ?), float32], %b: Tensor[(3), float32]) {
      nn.bias_add(%x, %b, axis=1)
    }"""
    assert_becomes(src, src)


def test_other_operators_and_effects_untouched() -> None:
    src = """def @main(%r: ref(Tensor[(3), float32]), %x: Tensor[(2, 3), float32]) {
      %0 = nn.bias_add(%x, ref_read(%r), axis=1);
      (add(%x, %x), %0)
    }"""
    assert_becomes(
        src,
        """def @main(%r: ref(Tensor[(3), float32]), %x: Tensor[(2, 3), float32]) {
          %0 = ref_read(%r);
          (add(%x, %x), add(%x, %0))
        }""",
    )


@settings(deadline=None, max_examples=40)
@given(cases(focus=sorted(CanonicalizeOps.focus_ops)))
def test_canonicalize_ops_preserves_meaning(case: Case) -> None:
    verdict = check_pass(CanonicalizeOps(), case.mod, case.args, reduction_length=REDUCTION_LENGTH)
    assert verdict is None, verdict.report()
