"""Hypothesis strategies for the arguments of an entry function, from its parameter types.

``arguments(param_types)`` draws one value per parameter: a ``TensorValue`` holding a numpy
array of exactly the parameter's dtype and shape, or a ``TupleValue`` of such values for a
tuple parameter (nested tuples too). Other parameter types (functions, references, ADTs) are
rejected eagerly with ``InvalidArgument``: the dataflow generator never makes them.

**Default mode: values that keep intermediate results finite and defined.** Every element is
drawn from a short list of small, exactly representable, *non-zero* values:

- floats: the multiples of 1/4 with magnitude in [1/4, 2] (exact in float16 too), so
  ``exp`` stays below e^2, products of a few values stay small, no parameter is a zero
  divisor, and there are halves for ``round`` and ties for ``argmax``;
- signed integers: -3..3 without 0; unsigned: 1..3; so no parameter is an integer divisor of
  0 (undefined), ``INT_MIN / -1`` cannot occur, and 32/64-bit sums and products of a few
  values cannot overflow (``nsw``/``nuw`` overflow is undefined);
- bool: ``True`` or ``False``.

A parameter may also be asked to be *positive* (``arguments(..., positive=[...])``): its
elements are then the positive values of those lists (``True`` for bool). A generated
program asks this of the parameters it feeds, directly or through operators that keep
values positive, to ``log``, ``sqrt``, ``rsqrt``, the base of ``power`` or a batch norm's
variance (see ``DataflowProgram.arguments``).

Small non-zero magnitudes, and positive parameters where a program needs them, are what keep
values finite; they cannot make every program finite (``exp`` of ``exp`` of ``exp``
overflows, float16 underflows to 0 early). ``benchmarks/generator.py`` measures how often all
values of a generated program stay finite.

**Special mode** (``special=True``): each element is an ordinary value or an edge value:
NaN, ±inf, -0.0 and 0.0, the largest and smallest finite values, the smallest normal and
subnormal magnitudes, and for integers 0, the extreme values and their neighbours. Special
mode ignores ``positive``: its point is the values that break things.

**Shrinking.** A tensor of at most ``EXPLICIT_ELEMENTS`` elements draws each element as an
index into its list, which starts with the simplest value (1, then -1, ...; in special mode
the ordinary values come first), so each element shrinks to 1 and a failing special value
shrinks to the fewest and earliest edge cases. A larger tensor draws one seed
and fills itself from the same list with ``numpy.random.default_rng(seed)``: it replays
exactly from the Hypothesis database, but shrinks only as far as the seed does (towards 0).
This keeps a program's arguments within Hypothesis's budget of choices per test case (about
8 KiB): a 6x6x6x6 float tensor drawn element by element would exhaust it alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from relay.semantics.syntax import DTYPES, TensorType, TupleType, Type
from relay.semantics.text.printer import format_type
from relay.semantics.values import TensorValue, TupleValue, Value

EXPLICIT_ELEMENTS = 16
"""Tensors with at most this many elements draw every element; larger ones draw a seed."""

_FLOAT_DEFAULT: tuple[float, ...] = (
    *(1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1.5, -1.5),
    *(0.25, -0.25, 0.75, -0.75, 1.25, -1.25, 1.75, -1.75),
)
_SIGNED_DEFAULT: tuple[int, ...] = (1, -1, 2, -2, 3, -3)
_UNSIGNED_DEFAULT: tuple[int, ...] = (1, 2, 3)
_BOOL_VALUES: tuple[bool, ...] = (True, False)


def _float_special(dtype: str) -> tuple[float, ...]:
    info = np.finfo(np.dtype(dtype))
    tiny, biggest = float(info.tiny), float(info.max)
    subnormal = float(info.smallest_subnormal)
    return (
        *(1.0, -1.0, 0.5, 2.0),
        *(0.0, -0.0, math.nan, math.inf, -math.inf, biggest, -biggest),
        *(tiny, -tiny, subnormal, -subnormal, float(info.eps)),
    )


def _int_special(dtype: str) -> tuple[int, ...]:
    info = np.iinfo(np.dtype(dtype))
    lo, hi = int(info.min), int(info.max)
    if lo == 0:
        return (1, 2, 3, 0, hi, hi - 1)
    return (1, -1, 2, 0, lo, hi, lo + 1, hi - 1)


def element_values(
    dtype: str, *, special: bool = False, positive: bool = False
) -> tuple[bool | int | float, ...]:
    """The values an element of ``dtype`` is drawn from, simplest first (see the module
    docstring)."""
    if dtype not in DTYPES:
        raise InvalidArgument(f"dtype={dtype!r} is not a Relay dtype (expected one of {DTYPES})")
    if special:
        if dtype == "bool":
            return _BOOL_VALUES
        return _float_special(dtype) if dtype.startswith("float") else _int_special(dtype)
    if dtype == "bool":
        values: tuple[bool | int | float, ...] = _BOOL_VALUES
    elif dtype.startswith("float"):
        values = _FLOAT_DEFAULT
    else:
        values = _UNSIGNED_DEFAULT if dtype.startswith("uint") else _SIGNED_DEFAULT
    return tuple(v for v in values if v > 0) if positive else values


def _concrete_shape(t: TensorType, where: str) -> tuple[int, ...]:
    if not all(isinstance(d, int) and not isinstance(d, bool) for d in t.shape):
        raise InvalidArgument(
            f"{where}={format_type(t)} has a dimension that is not a known integer; arguments "
            "need concrete shapes (give the parameter a shape of integers)"
        )
    return tuple(int(d) for d in t.shape)  # type: ignore[arg-type]


def arrays(
    dtype: str, shape: Sequence[int], *, special: bool = False, positive: bool = False
) -> st.SearchStrategy[npt.NDArray[Any]]:
    """Numpy arrays of exactly ``dtype`` and ``shape``, elements drawn as the module docstring
    says (each element for small arrays, a seed for large ones)."""
    values = element_values(dtype, special=special, positive=positive)
    shape = tuple(shape)
    if any(d < 0 for d in shape):
        raise InvalidArgument(f"shape={shape} has a negative dimension")
    size = math.prod(shape)
    pool = np.array(values, dtype=dtype)
    if size <= EXPLICIT_ELEMENTS:
        indices = st.lists(st.integers(0, len(values) - 1), min_size=size, max_size=size)
        return indices.map(lambda picks: pool[np.array(picks, dtype=np.intp)].reshape(shape))

    def fill(seed: int) -> npt.NDArray[Any]:
        rng = np.random.default_rng(seed)
        return pool[rng.integers(0, len(values), size=size)].reshape(shape)

    return st.integers(0, 2**32 - 1).map(fill)


def values(
    t: Type, *, special: bool = False, positive: bool = False, where: str = "t"
) -> st.SearchStrategy[Value]:
    """Values of type ``t``: a tensor type, or a tuple of such types (nested tuples too);
    ``positive`` applies to every tensor of it."""
    if isinstance(t, TensorType):
        shape = _concrete_shape(t, where)
        return arrays(t.dtype, shape, special=special, positive=positive).map(TensorValue)
    if isinstance(t, TupleType):
        fields = [
            values(f, special=special, positive=positive, where=f"{where}.fields[{i}]")
            for i, f in enumerate(t.fields)
        ]
        return st.tuples(*fields).map(lambda vs: TupleValue(tuple(vs)))
    raise InvalidArgument(
        f"{where}={format_type(t)} is not a tensor or tuple type; arguments are generated only "
        "for tensor and tuple parameters"
    )


def arguments(
    param_types: Sequence[Type],
    *,
    special: bool = False,
    positive: Sequence[bool] | None = None,
) -> st.SearchStrategy[tuple[Value, ...]]:
    """One value per parameter type, in order (see the module docstring for the values);
    ``positive[i]`` asks for positive elements in parameter ``i`` (ignored when ``special``)."""
    wanted = [False] * len(param_types) if positive is None else list(positive)
    if len(wanted) != len(param_types):
        raise InvalidArgument(
            f"positive has {len(wanted)} entries for {len(param_types)} param_types; give one "
            "per parameter, or None"
        )
    parts = [
        values(t, special=special, positive=p and not special, where=f"param_types[{i}]")
        for i, (t, p) in enumerate(zip(param_types, wanted, strict=True))
    ]
    return st.tuples(*parts)


__all__ = ["EXPLICIT_ELEMENTS", "arguments", "arrays", "element_values", "values"]
