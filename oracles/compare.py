"""The value-comparison policy: when an actual result counts as equal to the expected one.

Every differential check (pass preservation, target conformance, spec against interpreter)
compares through this one policy, so that "equal" means the same thing everywhere.

**Tensors** (``compare_arrays``). Shapes must be equal and dtypes identical. Then, element by
element:

- bool and integer dtypes: exactly equal.
- float16, float32, float64:

  - NaN is matched as a set: the positions holding NaN must be the same in both (any NaN
    payload or sign counts as NaN);
  - an infinity must be matched exactly, sign included (inf is not close to a large finite
    number, nor to -inf);
  - zeros are equal whatever their sign (-0.0 equals 0.0);
  - finite values are close when ``|actual - expected| <= tol * max(|expected|, |actual|, 1)``
    with ``tol = FLOAT_ULPS[dtype] * eps(dtype) * max(1, reduction_length)``.

  The budget is relative (``FLOAT_ULPS`` ulps of the larger magnitude: libm and LLVM's
  lowerings of ``exp``/``tanh``/``erf`` differ by a few ulps; float16 computed through
  float32 rounds differently from float16 computed step by step). It grows linearly with
  ``reduction_length``, the number of terms combined into each element (a sum over ``n``
  terms, a dot product of length ``n``): the classical bound for reassociated or sequential
  accumulation is ``n * u`` relative to the terms' magnitudes, and TVM's schedules choose the
  order freely. Below magnitude 1 the budget is absolute (the ``1`` in the maximum,
  ``ABSOLUTE_FLOOR``): results near zero come from cancellation (``a*b + c`` with and without a
  fused multiply-add, sums whose terms cancel), where the error is relative to the operands,
  not to the tiny result. The price: values below 1 that differ by less than ``tol`` in
  absolute terms pass, and a cancelling sum of terms much larger than 1 may need a larger
  ``reduction_length`` than its true length.

**Other values** (to come with structural comparison): tuples and constructor values compare
field by field with this policy, a ``Mismatch`` gaining the path to the field; closures are
not compared by value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

FLOAT_ULPS: dict[str, int] = {"float16": 4, "float32": 8, "float64": 8}
"""The budget for one operation, in units of the dtype's machine epsilon (relative)."""

ABSOLUTE_FLOOR = 1.0
"""Below this magnitude the float budget is absolute rather than relative."""


@dataclass(frozen=True, slots=True)
class Mismatch:
    """The first difference found: where (``None`` for the whole array), both sides, and why."""

    index: tuple[int, ...] | None
    expected: object
    actual: object
    reason: str

    def render(self) -> str:
        """One line: ``at [i, j]: expected 1.0, found 1.5 (differs by ...)``."""
        where = "" if self.index is None else f"at [{', '.join(map(str, self.index))}]: "
        return f"{where}expected {self.expected!r}, found {self.actual!r} ({self.reason})"

    def __str__(self) -> str:
        return self.render()


def float_tolerance(dtype: str, reduction_length: int = 1) -> float:
    """The relative budget for ``dtype`` after combining ``reduction_length`` terms."""
    if dtype not in FLOAT_ULPS:
        raise ValueError(f"dtype={dtype!r} is not a float dtype (expected one of {FLOAT_ULPS})")
    if reduction_length < 0:
        raise ValueError(f"reduction_length={reduction_length} must be at least 0")
    eps = float(np.finfo(np.dtype(dtype)).eps)
    return FLOAT_ULPS[dtype] * eps * max(1, reduction_length)


def _item(a: npt.NDArray[Any], index: tuple[int, ...]) -> object:
    value: object = a[index].item()
    return value


def _first(mask: npt.NDArray[np.bool_]) -> tuple[int, ...] | None:
    """The row-major first position where ``mask`` holds, if any."""
    hits = np.argwhere(mask)
    if len(hits) == 0:
        return None
    return tuple(int(i) for i in hits[0])


def compare_arrays(
    expected: npt.NDArray[Any], actual: npt.NDArray[Any], *, reduction_length: int = 1
) -> Mismatch | None:
    """``None`` when ``actual`` is equal to ``expected`` under the policy, else the first
    ``Mismatch`` in row-major order (see the module docstring for the policy)."""
    expected = np.asarray(expected)
    actual = np.asarray(actual)
    if expected.shape != actual.shape:
        return Mismatch(None, expected.shape, actual.shape, "the shapes differ")
    if expected.dtype != actual.dtype:
        return Mismatch(None, str(expected.dtype), str(actual.dtype), "the dtypes differ")
    name = str(expected.dtype)
    if name not in FLOAT_ULPS:
        index = _first(expected != actual)
        if index is None:
            return None
        return Mismatch(index, _item(expected, index), _item(actual, index), "not equal")
    tol = float_tolerance(name, reduction_length)
    e = expected.astype(np.float64)
    a = actual.astype(np.float64)
    e_nan, a_nan = np.isnan(e), np.isnan(a)
    e_inf, a_inf = np.isinf(e), np.isinf(a)
    with np.errstate(invalid="ignore", over="ignore"):
        error = np.abs(a - e)
        budget = tol * np.maximum(np.maximum(np.abs(e), np.abs(a)), ABSOLUTE_FLOOR)
    nan_differs = e_nan != a_nan
    inf_differs = ~nan_differs & ~e_nan & (e_inf | a_inf) & (e != a)
    finite = ~(e_nan | a_nan | e_inf | a_inf)
    too_far = finite & (error > budget)
    index = _first(nan_differs | inf_differs | too_far)
    if index is None:
        return None
    if nan_differs[index]:
        reason = "NaN where a number was expected" if a_nan[index] else "expected NaN"
    elif inf_differs[index]:
        reason = "an infinity must match exactly"
    else:
        ulps = float(error[index] / (np.finfo(expected.dtype).eps * max(abs(e[index]), 1.0)))
        reason = (
            f"differs by {error[index]:.3g}, about {ulps:.3g} ulps; the budget is {tol:.3g} "
            f"relative ({FLOAT_ULPS[name]} ulps x reduction length {max(1, reduction_length)})"
        )
    return Mismatch(index, _item(expected, index), _item(actual, index), reason)
