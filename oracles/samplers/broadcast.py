"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.broadcast``.

From the former ``samplers_arith`` module:

Samplers of the ``arith`` operator group: ``ops.arith``, ``ops.scan``, ``ops.annotation``.

As in ``samplers``: most samples are well-typed, about one in five is broken in one way (a
wrong dtype, a clashing size, an out-of-range axis, a width-changing ``reinterpret``, an
invalid or missing device); every choice is a Hypothesis draw, so samples shrink towards small
shapes, default attributes and the valid variant.
"""

from __future__ import annotations

from collections.abc import Sequence

from hypothesis import strategies as st

from relay.semantics.syntax import DTYPES

from .core import (
    _NOT_INTEGER,
    FLOATS,
    INTEGERS,
    NUMERIC,
    Sample,
    Sampler,
    _broadcast_operands,
    _other,
    _tensor,
    _valid,
)


def _binary(dtypes: Sequence[str], wrong: Sequence[str] = NUMERIC) -> Sampler:
    """Broadcasting operands of one of ``dtypes``; broken ones clash at one position, or
    differ in dtype, or (with ``wrong``) share a wrong dtype."""

    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        valid = _valid(draw)
        lhs, rhs = _broadcast_operands(draw, 2, valid=valid or draw(st.booleans()))
        dtype = draw(st.sampled_from(dtypes))
        other = dtype
        if not valid and draw(st.booleans()):
            other = _other(draw, dtype, NUMERIC)
        elif not valid and set(wrong) - set(dtypes) and draw(st.booleans()):
            dtype = other = draw(st.sampled_from([d for d in wrong if d not in dtypes]))
        return Sample((_tensor(lhs, dtype), _tensor(rhs, other)), None, valid)

    return sample


@st.composite
def _where(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    cond, x, y = _broadcast_operands(draw, 3, valid=valid or draw(st.booleans()))
    dtype = draw(st.sampled_from(NUMERIC))
    other = dtype if valid or draw(st.booleans()) else _other(draw, dtype, NUMERIC)
    types = (_tensor(cond, "bool"), _tensor(x, dtype), _tensor(y, other))
    return Sample(types, None, valid)


_ARITHMETIC = (
    *("add", "subtract", "multiply", "divide", "floor_divide", "mod", "floor_mod"),
    *("maximum", "minimum"),
)


_COMPARISON = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")


SAMPLERS: dict[str, Sampler] = {
    **{name: _binary(NUMERIC) for name in _ARITHMETIC},
    "power": _binary(FLOATS),
    **{name: _binary(DTYPES) for name in _COMPARISON},
    "logical_and": _binary(("bool",)),
    "logical_or": _binary(("bool",)),
    "where": _where,
    **{
        name: _binary(INTEGERS, wrong=_NOT_INTEGER)
        for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")
    },
    "logical_xor": _binary(("bool",)),
    "trunc_divide": _binary(NUMERIC),
    "trunc_mod": _binary(NUMERIC),
}
"""This module's entries, by op name."""
