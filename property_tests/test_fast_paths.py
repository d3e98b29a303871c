"""The interpreter's scalar fast paths equal the operators' references on random values.

For every operator with a scalar fast path (``relay.interpreter.kernels.SCALAR``) and every
dtype, on values drawn from the whole range of the dtype mixed with its edge values (the
bounds and their neighbours, zero, -1, NaN, infinities, -0.0, the smallest subnormal), the
fast path and the reference give the same outcome: a result of the same dtype, shape and
bytes, or the same failure (``UndefinedBehavior`` on overflow where it is undefined, on a zero
divisor, on the smallest signed integer divided by -1) with the same message. Values of two
dtypes are also paired, where the fast path must defer to the reference. The edge pairs are
enumerated exhaustively in ``tests/test_interpreter_kernels.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given
from hypothesis import strategies as st

from relay.interpreter import kernels
from relay.semantics.errors import RelayError
from relay.semantics.ops import lookup
from relay.semantics.ops.registry import Reference

Array = npt.NDArray[Any]

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64")  # fmt: skip
UNARY = frozenset({"negative", "logical_not"})


def scalars(dtype: str) -> st.SearchStrategy[Array]:
    """Rank-0 arrays of ``dtype``: anywhere in its range, often at an edge."""
    dt = np.dtype(dtype)
    values: st.SearchStrategy[object]
    if dtype == "bool":
        values = st.booleans()
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = int(info.min), int(info.max)
        edges = [lo, lo + 1, hi - 1, hi, 0, 1, 2] + ([-1, -2] if lo < 0 else [])
        values = st.one_of(st.sampled_from(edges), st.integers(lo, hi), st.integers(-9, 9)
                           .filter(lambda v: lo <= v <= hi))  # fmt: skip
    else:
        f = np.finfo(dt)
        width = 8 * dt.itemsize
        edges_f = [0.0, -0.0, 1.0, -1.0, float(f.max), float(-f.max), float(f.tiny),
                   float(f.smallest_subnormal), np.nan, np.inf, -np.inf]  # fmt: skip
        values = st.one_of(
            st.sampled_from(edges_f),
            st.floats(width=width),  # type: ignore[arg-type]
            st.integers(-20, 20).map(float),
        )
    return values.map(lambda v: np.asarray(v, dtype=dt))


def outcome(kernel: Reference, args: tuple[Array, ...]) -> object:
    try:
        with np.errstate(all="ignore"):  # as the machine runs its kernels
            out = kernel(args, None)
    except RelayError as err:
        return (type(err).__name__, err.message)
    assert isinstance(out, np.ndarray)
    return (out.dtype, out.shape, out.tobytes())


@st.composite
def arguments(draw: st.DrawFn, name: str) -> tuple[Array, ...]:
    """Arguments of one dtype, or (one draw in ten) of two."""
    dtype = draw(st.sampled_from(DTYPES))
    if name in UNARY:
        return (draw(scalars(dtype)),)
    other = draw(st.sampled_from(DTYPES)) if draw(st.integers(0, 9)) == 0 else dtype
    return draw(scalars(dtype)), draw(scalars(other))


@pytest.mark.parametrize("name", sorted(kernels.SCALAR))
@given(data=st.data())
def test_fast_path_equals_reference(name: str, data: st.DataObject) -> None:
    args = data.draw(arguments(name))
    op = lookup(name)
    assert op is not None and op.reference is not None
    fast = kernels.kernel_for(name, op.reference)
    try:
        expected = outcome(op.reference, args)
    except Exception as err:  # mixed dtypes that the reference itself rejects
        expected = type(err)
    try:
        actual = outcome(fast, args)
    except Exception as err:
        actual = type(err)
    assert actual == expected, (name, args)


@given(st.sampled_from(DTYPES).flatmap(lambda d: st.tuples(scalars(d), scalars(d))))
def test_add_subtract_multiply_on_one_dtype(args: tuple[Array, Array]) -> None:
    """The three overflow-checked operations, on more draws each."""
    for name in ("add", "subtract", "multiply"):
        op = lookup(name)
        assert op is not None and op.reference is not None
        fast = kernels.kernel_for(name, op.reference)
        assert outcome(fast, args) == outcome(op.reference, args), (name, args)
