"""The value-comparison policy accepts legitimate float differences and rejects real ones."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from relay.oracles.compare import FLOAT_ULPS, Mismatch, compare_arrays, float_tolerance

Array = npt.NDArray[Any]
RNG_SEED = 20240611


def rng() -> np.random.Generator:
    return np.random.default_rng(RNG_SEED)


# ---------------------------------------------------------------------------------------------
# Legitimate differences are accepted


def test_reassociated_float32_sums_of_1000_terms_are_accepted() -> None:
    terms = rng().uniform(0, 1, (50, 1000)).astype(np.float32)
    sequential = np.cumsum(terms, axis=1, dtype=np.float32)[:, -1]  # TVM's loop order
    pairwise = np.sum(terms, axis=1, dtype=np.float32)  # numpy's order
    backwards = np.cumsum(terms[:, ::-1], axis=1, dtype=np.float32)[:, -1]
    exact = np.array([math.fsum(row) for row in terms.astype(np.float64)], np.float32)
    for a, b in [(exact, sequential), (pairwise, sequential), (backwards, pairwise)]:
        assert compare_arrays(a, b, reduction_length=1000) is None
    # The scaling is what admits them: as single operations they are too far apart.
    assert compare_arrays(exact, sequential) is not None


def test_cancelling_sum_is_accepted() -> None:
    terms = rng().normal(size=(20, 1000)).astype(np.float32)
    terms -= terms.mean(axis=1, keepdims=True)  # sums near zero: all cancellation
    sequential = np.cumsum(terms, axis=1, dtype=np.float32)[:, -1]
    pairwise = np.sum(terms, axis=1, dtype=np.float32)
    assert compare_arrays(pairwise, sequential, reduction_length=1000) is None


def test_fused_multiply_add_is_accepted() -> None:
    a, b, c = rng().uniform(-2, 2, (3, 10000)).astype(np.float32)
    separate = a * b + c  # two float32 roundings
    # The float64 product of two float32 values is exact: one rounding, like an fma.
    fused = (a.astype(np.float64) * b + c).astype(np.float32)
    assert np.any(separate != fused)
    assert compare_arrays(fused, separate) is None


def test_float16_rounding_is_accepted() -> None:
    x, y = rng().uniform(-4, 4, (2, 10000)).astype(np.float16)
    stepwise = x * y + x  # rounded to float16 after each operation
    once = (x.astype(np.float32) * y + x).astype(np.float16)  # float32, rounded once
    assert np.any(stepwise != once)
    assert compare_arrays(once, stepwise) is None
    exp16 = np.exp(x)
    exp_via_64 = np.exp(x.astype(np.float64)).astype(np.float16)
    assert compare_arrays(exp_via_64, exp16) is None


def test_transcendentals_within_a_few_ulps_are_accepted() -> None:
    x = rng().uniform(-10, 10, 10000).astype(np.float32)
    reference = np.tanh(x.astype(np.float64)).astype(np.float32)
    # tanh as TVM's LLVM lowering writes it, through exp in float32.
    e = np.exp(np.float32(-2) * np.abs(x))
    formula = np.sign(x) * (np.float32(1) - e) / (np.float32(1) + e)
    assert compare_arrays(reference, formula.astype(np.float32)) is None


def test_signed_zeros_nans_and_infinities_that_agree_are_accepted() -> None:
    expected = np.array([0.0, -0.0, np.nan, np.inf, -np.inf, 1.0], np.float64)
    actual = np.array([-0.0, 0.0, -np.nan, np.inf, -np.inf, 1.0], np.float64)
    assert compare_arrays(expected, actual) is None


# ---------------------------------------------------------------------------------------------
# Real differences are rejected


@pytest.mark.parametrize("reduction_length", [1, 10, 100])
def test_a_relative_error_of_1e_3_in_float32_is_rejected(reduction_length: int) -> None:
    expected = rng().uniform(-100, 100, 1000).astype(np.float32)
    actual = expected.copy()
    actual[617] *= np.float32(1 + 1e-3)
    mismatch = compare_arrays(expected, actual, reduction_length=reduction_length)
    assert mismatch is not None
    assert mismatch.index == (617,)
    assert mismatch.expected == expected[617].item() and mismatch.actual == actual[617].item()
    assert "differs by" in mismatch.reason


def test_a_wrong_integer_is_rejected() -> None:
    expected = np.arange(12, dtype=np.int32).reshape(3, 4)
    actual = expected.copy()
    actual[2, 1] += 1
    mismatch = compare_arrays(expected, actual, reduction_length=1000)
    assert mismatch == Mismatch((2, 1), 9, 10, "not equal")
    assert mismatch.render() == "at [2, 1]: expected 9, found 10 (not equal)"
    assert compare_arrays(np.array([True, False]), np.array([True, True])) == Mismatch(
        (1,), False, True, "not equal"
    )


def test_a_nan_where_a_number_was_expected_is_rejected() -> None:
    expected = np.array([1.0, 2.0, 3.0], np.float32)
    actual = np.array([1.0, np.nan, 3.0], np.float32)
    mismatch = compare_arrays(expected, actual, reduction_length=10**6)
    assert mismatch is not None and mismatch.index == (1,)
    assert mismatch.reason == "NaN where a number was expected"
    mismatch = compare_arrays(actual, expected)
    assert mismatch is not None and mismatch.reason == "expected NaN"


def test_infinities_must_match_exactly() -> None:
    inf = np.array([np.inf], np.float32)
    mismatch = compare_arrays(inf, -inf, reduction_length=10**6)
    assert mismatch is not None and mismatch.reason == "an infinity must match exactly"
    largest = np.array([np.finfo(np.float32).max], np.float32)
    assert compare_arrays(inf, largest, reduction_length=10**6) is not None
    assert compare_arrays(largest, inf, reduction_length=10**6) is not None


def test_shapes_and_dtypes_must_match() -> None:
    x = np.zeros((2, 3), np.float32)
    assert compare_arrays(x, x.reshape(3, 2)) == Mismatch(None, (2, 3), (3, 2), "the shapes differ")
    mismatch = compare_arrays(x, x.astype(np.float64))
    assert mismatch == Mismatch(None, "float32", "float64", "the dtypes differ")
    assert mismatch.render() == "expected 'float32', found 'float64' (the dtypes differ)"


def test_rank_zero_and_empty_arrays() -> None:
    assert compare_arrays(np.array(1.5, np.float16), np.array(1.5, np.float16)) is None
    mismatch = compare_arrays(np.array(1, np.int8), np.array(2, np.int8))
    assert mismatch is not None and mismatch.index == ()
    assert compare_arrays(np.zeros((0, 3), np.float32), np.zeros((0, 3), np.float32)) is None


# ---------------------------------------------------------------------------------------------
# The budgets


def test_budget_scales_with_the_reduction_length() -> None:
    for dtype, ulps in FLOAT_ULPS.items():
        eps = float(np.finfo(np.dtype(dtype)).eps)
        assert float_tolerance(dtype) == ulps * eps
        assert float_tolerance(dtype, 1000) == 1000 * float_tolerance(dtype)
        assert float_tolerance(dtype, 0) == float_tolerance(dtype)
    with pytest.raises(ValueError, match="dtype='int32' is not a float dtype"):
        float_tolerance("int32")


@pytest.mark.parametrize("dtype", sorted(FLOAT_ULPS))
def test_budget_boundary_in_ulps(dtype: str) -> None:
    """Moving by the budget's ulps passes; moving twice as far fails (values in [1, 2))."""
    kind = np.dtype(dtype).type
    one = np.array([1.5], dtype)
    steps = FLOAT_ULPS[dtype]
    near, far = one.copy(), one.copy()
    for _ in range(steps // 2):  # the ulp in [1, 2) is eps; the budget counts eps of 1.5
        near = np.nextafter(near, kind(2))
    for _ in range(3 * steps):
        far = np.nextafter(far, kind(2))
    assert compare_arrays(one, near) is None
    assert compare_arrays(one, far) is not None


@given(
    hnp.arrays(
        st.sampled_from([np.float16, np.float32, np.float64, np.int8, np.uint64, np.bool_]),
        hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
    )
)
def test_every_array_equals_itself(x: Array) -> None:
    assert compare_arrays(x, x.copy()) is None


@given(
    hnp.arrays(
        np.float32,
        hnp.array_shapes(min_dims=1, max_dims=2, min_side=1, max_side=5),
        elements=st.floats(-(2.0**100), 2.0**100, width=32),
    ),
    st.data(),
)
def test_a_changed_element_is_found(x: Array, data: st.DataObject) -> None:
    index = data.draw(st.tuples(*(st.integers(0, n - 1) for n in x.shape)))
    y = x.copy()
    # A change of half the magnitude (at least 0.5) is never within a single op's budget.
    y[index] = x[index] + np.float32(0.5) * max(abs(x[index]), np.float32(1))
    mismatch = compare_arrays(x, y)
    assert mismatch is not None and mismatch.index == index
