"""Hypothesis strategies for the arguments of an entry function, from its parameter types.

``arguments(param_types)`` draws one value per parameter: a ``TensorValue`` holding a numpy
array of exactly the parameter's dtype and shape, or a ``TupleValue`` of such values for a
tuple parameter (nested tuples too). Other parameter types (functions, references, ADTs) are
rejected eagerly with ``InvalidArgument``: the dataflow generator never makes them.

**Default mode: the value classes an operator's semantics distinguish, kept defined.** Every
element is drawn from a short list of exactly representable values:

- floats: the multiples of 1/4 with magnitude in [1/4, 2] (exact in float16 too: negative and
  fractional values, halves for ``round``), zero (defined for every float operator: a float
  division by zero is an infinity), and the large but finite ±64 (``exp`` of it is finite in
  float32, products of two are finite in float16);
- signed integers: -3..3; unsigned: 0..3; so 32/64-bit sums and products of a few values
  cannot overflow (``nsw``/``nuw`` overflow is undefined) and ``INT_MIN / -1`` cannot occur;
- bool: ``True`` or ``False``.

A tensor is a *tie* tensor one time in four: its elements are then drawn from the first two
values only (1 and -1; 1 and 2 unsigned), so equal elements are common (``max``, ``argmax``,
``sort``, ``topk`` must break ties as the semantics say).

A parameter may also be asked to be *positive* (``arguments(..., positive=[...])``): its
elements are then the positive values of those lists (``True`` for bool); and *non-zero*
(``nonzero=[...]``): no zero element. A generated program asks positive of the parameters it
feeds, directly or through operators that keep values non-negative, to ``log``, ``sqrt``,
``rsqrt``, the base of ``power`` or a batch norm's variance, and non-zero of the integer
divisors (integer division by zero is undefined; see ``DataflowProgram.arguments``).

Small magnitudes, and positive parameters where a program needs them, are what keep values
mostly finite; they cannot make every program finite (``exp`` of ``exp`` of ``exp`` overflows,
float16 underflows to 0 early). ``benchmarks/generator.py`` measures how often all values of
a generated program stay finite.

**Special mode** (``special=True``): each element is an ordinary value or an edge value:
NaN, ±inf, -0.0 and 0.0, the smallest normal and subnormal magnitudes, and for integers 0,
the extreme values and their neighbours; and a *big* float, twice the square root of the
largest one, whose square overflows (``sqrt(x * x)`` is not ``abs(x)``) but whose sum with a
few others does not. Not the largest finite floats themselves: a correct rewrite that adds in
another order overflows on them to an infinity where the input did not (``max + max - max``),
which no comparison can tell from a bug. Special
mode ignores ``positive`` and ``nonzero``: its point is the values that break things (a
program that divides by zero or overflows is undefined, and then any result is acceptable).
``special=None`` draws the mode: special one time in five (``SPECIAL_CHANCE``).

**Fair draws.** ``uniform_index`` draws an index below ``n`` uniformly from fair bytes (see
``_uniform_bits``): Hypothesis's ``integers(0, n - 1)`` favours small values and the bounds,
which would make a choice among many options (an operator among 188) several times likelier
to be one of the first few.

**Shrinking.** A tensor of at most ``EXPLICIT_ELEMENTS`` elements draws each element as an
index into its list, which starts with the simplest value (1, then -1, ...; in special mode
the ordinary values come first), so each element shrinks to 1 and a failing special value
shrinks to the fewest and earliest edge cases. A larger tensor draws one seed
and fills itself from the same list with ``numpy.random.default_rng(seed)``: it replays
exactly from the Hypothesis database, but shrinks only as far as the seed does (towards 0).
This keeps a program's arguments within Hypothesis's budget of choices per test case (about
8 KiB): a 6x6x6x6 float tensor drawn element by element would exhaust it alone. The tie and
special choices shrink towards an ordinary tensor.
"""

from __future__ import annotations

import bisect
import functools
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

SPECIAL_CHANCE = 5
"""With ``special=None``, one argument draw in this many is in special mode."""

TIE_CHANCE = 4
"""One tensor in this many is a tie tensor (its elements from two values)."""

_FLOAT_DEFAULT: tuple[float, ...] = (
    *(1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 1.5, -1.5),
    *(0.25, -0.25, 0.75, -0.75, 1.25, -1.25, 1.75, -1.75),
    *(0.0, 64.0, -64.0),
)
_SIGNED_DEFAULT: tuple[int, ...] = (1, -1, 2, -2, 3, -3, 0)
_UNSIGNED_DEFAULT: tuple[int, ...] = (1, 2, 3, 0)
_BOOL_VALUES: tuple[bool, ...] = (True, False)


def _float_special(dtype: str) -> tuple[float, ...]:
    info = np.finfo(np.dtype(dtype))
    tiny = float(info.tiny)
    subnormal = float(info.smallest_subnormal)
    big = float(np.array(2 * math.sqrt(float(info.max)), dtype=dtype))
    return (
        *(1.0, -1.0, 0.5, 2.0),
        *(0.0, -0.0, math.nan, math.inf, -math.inf, big, -big),
        *(tiny, -tiny, subnormal, -subnormal, float(info.eps)),
    )


def _int_special(dtype: str) -> tuple[int, ...]:
    info = np.iinfo(np.dtype(dtype))
    lo, hi = int(info.min), int(info.max)
    if lo == 0:
        return (1, 2, 3, 0, hi, hi - 1)
    return (1, -1, 2, 0, lo, hi, lo + 1, hi - 1)


UNIFORM_SLACK_BITS = 4
"""``uniform_index`` draws at least this many bits more than the options need (whole bytes):
a choice among 188 options (16 bits) is then uniform to within one part in 348."""


@functools.cache
def _byte_strings(n: int) -> tuple[int, st.SearchStrategy[bytes], st.SearchStrategy[bytes]]:
    """The bits of a uniform choice among ``n``, and two strategies of byte strings of
    different fixed sizes (the second one byte longer) to draw them from."""
    size = max(1, ((n - 1).bit_length() + UNIFORM_SLACK_BITS + 7) // 8)
    first = st.binary(min_size=size, max_size=size)
    return 8 * size, first, st.binary(min_size=size + 1, max_size=size + 1)


def _uniform_bits(draw: st.DrawFn, n: int) -> tuple[int, int]:
    """``(v, bits)``: ``v`` uniform below ``2 ** bits``, enough bits for ``n`` options.

    ``v`` is the exclusive or of two byte strings: Hypothesis draws bytes uniformly but for a
    few special strings one time in twenty, and the or of two is special one time in 400.
    Their sizes differ, so Hypothesis's mutator (which copies a choice onto another of the
    same kind) cannot make them equal and ``v`` 0. Both shrink towards zero bytes, so ``v``
    shrinks towards 0."""
    bits, first, second = _byte_strings(n)
    v = int.from_bytes(draw(first), "little") ^ int.from_bytes(draw(second), "little")
    return v & ((1 << bits) - 1), bits


def uniform_index(draw: st.DrawFn, n: int) -> int:
    """An index below ``n``: uniform, and shrinking towards 0 (see ``_uniform_bits``)."""
    v, bits = _uniform_bits(draw, n)
    return (v * n) >> bits


def weighted_index(draw: st.DrawFn, cumulative: Sequence[float]) -> int:
    """An index drawn in proportion to the weights whose running totals are ``cumulative``
    (non-decreasing, last one positive); shrinks towards the first index of positive
    weight."""
    v, bits = _uniform_bits(draw, len(cumulative))
    u = (v + 0.5) / (1 << bits) * cumulative[-1]
    return min(bisect.bisect_right(cumulative, u), len(cumulative) - 1)


@st.composite
def special_flags(draw: st.DrawFn) -> bool:
    """Whether an argument draw is in special mode: one time in ``SPECIAL_CHANCE`` (shrinks
    towards not)."""
    return uniform_index(draw, SPECIAL_CHANCE) == SPECIAL_CHANCE - 1


def element_values(
    dtype: str, *, special: bool = False, positive: bool = False, nonzero: bool = False
) -> tuple[bool | int | float, ...]:
    """The values an element of ``dtype`` is drawn from, simplest first (see the module
    docstring); ``positive``: only those > 0, ``nonzero``: none equal to 0."""
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
    if positive:
        return tuple(v for v in values if v > 0)
    return tuple(v for v in values if v != 0) if nonzero else values


def _concrete_shape(t: TensorType, where: str) -> tuple[int, ...]:
    if not all(isinstance(d, int) and not isinstance(d, bool) for d in t.shape):
        raise InvalidArgument(
            f"{where}={format_type(t)} has a dimension that is not a known integer; arguments "
            "need concrete shapes (give the parameter a shape of integers)"
        )
    return tuple(int(d) for d in t.shape)  # type: ignore[arg-type]


def arrays(
    dtype: str,
    shape: Sequence[int],
    *,
    special: bool = False,
    positive: bool = False,
    nonzero: bool = False,
) -> st.SearchStrategy[npt.NDArray[Any]]:
    """Numpy arrays of exactly ``dtype`` and ``shape``, elements drawn as the module docstring
    says (each element for small arrays, a seed for large ones; a tie tensor one time in
    ``TIE_CHANCE``)."""
    shape = tuple(shape)
    if any(d < 0 for d in shape):
        raise InvalidArgument(f"shape={shape} has a negative dimension")
    return _arrays(dtype, shape, special, positive, nonzero)


STRATEGY_CACHE = 4096
"""Argument strategies kept per process, by what they draw (``_arrays``, ``_arguments``): a
strategy is validated by Hypothesis the first time it is drawn from, and building and
validating a fresh one per tensor and per program cost about a tenth of a campaign's time. A
kept strategy draws exactly what a fresh one would."""


@functools.lru_cache(maxsize=STRATEGY_CACHE)
def _arrays(
    dtype: str, shape: tuple[int, ...], special: bool, positive: bool, nonzero: bool
) -> st.SearchStrategy[npt.NDArray[Any]]:
    values = element_values(dtype, special=special, positive=positive, nonzero=nonzero)
    return _drawn_arrays(np.array(values, dtype=dtype), shape)


@st.composite
def _drawn_arrays(draw: st.DrawFn, pool: npt.NDArray[Any], shape: tuple[int, ...]) -> Any:
    """An array of ``shape`` with elements from ``pool`` (see ``arrays``); defined once, at
    module level: ``st.composite`` inspects the function's source each time it decorates."""
    tie = uniform_index(draw, TIE_CHANCE) == TIE_CHANCE - 1
    width = min(2, len(pool)) if tie else len(pool)
    size = math.prod(shape)
    if size <= EXPLICIT_ELEMENTS:
        picks = draw(_picks(width, size))
        return pool[np.array(picks, dtype=np.intp)].reshape(shape)
    rng = np.random.default_rng(draw(_SEEDS))
    return pool[rng.integers(0, width, size=size)].reshape(shape)


@functools.cache
def _integers(n: int) -> st.SearchStrategy[int]:
    return st.integers(0, n - 1)


@functools.cache
def _picks(width: int, size: int) -> st.SearchStrategy[list[int]]:
    """``size`` indices below ``width`` (one list strategy per pair, validated once)."""
    return st.lists(_integers(width), min_size=size, max_size=size)


_SEEDS = st.integers(0, 2**32 - 1)


def values(
    t: Type,
    *,
    special: bool = False,
    positive: bool = False,
    nonzero: bool = False,
    where: str = "t",
) -> st.SearchStrategy[Value]:
    """Values of type ``t``: a tensor type, or a tuple of such types (nested tuples too);
    ``positive`` and ``nonzero`` apply to every tensor of it."""
    if isinstance(t, TensorType):
        shape = _concrete_shape(t, where)
        return arrays(t.dtype, shape, special=special, positive=positive, nonzero=nonzero).map(
            TensorValue
        )
    if isinstance(t, TupleType):
        fields = [
            values(
                f,
                special=special,
                positive=positive,
                nonzero=nonzero,
                where=f"{where}.fields[{i}]",
            )
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
    special: bool | None = False,
    positive: Sequence[bool] | None = None,
    nonzero: Sequence[bool] | None = None,
) -> st.SearchStrategy[tuple[Value, ...]]:
    """One value per parameter type, in order (see the module docstring for the values);
    ``positive[i]`` asks for positive elements in parameter ``i``, ``nonzero[i]`` for no zero
    (both ignored in special mode); ``special=None`` draws the mode (``special_flags``)."""
    wanted = _flags(positive, "positive", len(param_types))
    nonzeros = _flags(nonzero, "nonzero", len(param_types))
    key = (tuple(param_types), special, tuple(wanted), tuple(nonzeros))
    try:
        return _arguments(*key)
    except TypeError:  # a type that does not hash (not one of ours): not kept
        return _arguments.__wrapped__(*key)


@functools.lru_cache(maxsize=STRATEGY_CACHE)
def _arguments(
    param_types: tuple[Type, ...],
    special: bool | None,
    wanted: tuple[bool, ...],
    nonzeros: tuple[bool, ...],
) -> st.SearchStrategy[tuple[Value, ...]]:
    """``arguments``, kept by what it draws (``STRATEGY_CACHE``)."""

    def parts(mode: bool) -> st.SearchStrategy[tuple[Value, ...]]:
        return st.tuples(
            *(
                values(
                    t,
                    special=mode,
                    positive=p and not mode,
                    nonzero=z and not mode,
                    where=f"param_types[{i}]",
                )
                for i, (t, p, z) in enumerate(zip(param_types, wanted, nonzeros, strict=True))
            )
        )

    if special is not None:
        return parts(special)
    ordinary, edge = parts(False), parts(True)
    return special_flags().flatmap(lambda mode: edge if mode else ordinary)


def argument_sets(
    param_types: Sequence[Type],
    k: int,
    *,
    special: bool | None = None,
    positive: Sequence[bool] | None = None,
    nonzero: Sequence[bool] | None = None,
) -> st.SearchStrategy[tuple[tuple[Value, ...], ...]]:
    """``k`` independent draws of ``arguments`` (each drawing its own mode when ``special`` is
    ``None``): one compiled program run on several inputs, so that both branches of its
    control flow are taken. Shrinks towards the first draw's simplest values."""
    if not isinstance(k, int) or isinstance(k, bool) or k < 1:
        raise InvalidArgument(f"k={k!r} must be a positive integer (the number of draws)")
    one = arguments(param_types, special=special, positive=positive, nonzero=nonzero)
    return st.tuples(*([one] * k))


def _flags(given: Sequence[bool] | None, name: str, n: int) -> list[bool]:
    flags = [False] * n if given is None else list(given)
    if len(flags) != n:
        raise InvalidArgument(
            f"{name} has {len(flags)} entries for {n} param_types; give one per parameter, or None"
        )
    return flags


__all__ = [
    "EXPLICIT_ELEMENTS",
    "SPECIAL_CHANCE",
    "TIE_CHANCE",
    "argument_sets",
    "arguments",
    "arrays",
    "element_values",
    "special_flags",
    "uniform_index",
    "values",
    "weighted_index",
]
