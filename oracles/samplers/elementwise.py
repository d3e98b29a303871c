"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.elementwise``.

From the former ``samplers_arith`` module:

Samplers of the ``arith`` operator group: ``ops.arith``, ``ops.scan``, ``ops.annotation``.

As in ``samplers``: most samples are well-typed, about one in five is broken in one way (a
wrong dtype, a clashing size, an out-of-range axis, a width-changing ``reinterpret``, an
invalid or missing device); every choice is a Hypothesis draw, so samples shrink towards small
shapes, default attributes and the valid variant.
"""

from __future__ import annotations

from hypothesis import strategies as st

from relay.semantics.ops.elementwise import CastAttrs, ClipAttrs
from relay.semantics.ops.registry import Attrs
from relay.semantics.syntax import DTYPES

from .core import (
    _NOT_INTEGER,
    FLOATS,
    INTEGERS,
    NUMERIC,
    SIGNED,
    UNSIGNED,
    Sample,
    Sampler,
    _shape,
    _tensor,
    _unary,
    _valid,
)


def _clip_attrs(draw: st.DrawFn) -> Attrs:
    low = draw(st.integers(-3, 3))
    return ClipAttrs.from_kwargs(
        {"a_min": float(low), "a_max": float(low + draw(st.integers(0, 3)))}
    )


def _cast_attrs(draw: st.DrawFn) -> Attrs:
    return CastAttrs.from_kwargs({"dtype": draw(st.sampled_from(DTYPES))})


_FLOAT_UNARY = ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid")


_WIDTH = {"bool": 1, **{d: int("".join(c for c in d if c.isdigit())) for d in NUMERIC}}


@st.composite
def _reinterpret(draw: st.DrawFn) -> Sample:
    """A target dtype of the data's width (bool only to bool); broken: another width, or no
    dtype."""
    valid = _valid(draw)
    source = draw(st.sampled_from(DTYPES))
    same = [d for d in DTYPES if _WIDTH[d] == _WIDTH[source]]
    if valid:
        target = draw(st.sampled_from(same))
    else:
        target = draw(st.sampled_from(["", *(d for d in DTYPES if d not in same)]))
    data = _tensor(_shape(draw, symbolic=True, any_=True), source)
    return Sample((data,), CastAttrs.from_kwargs({"dtype": target}), valid)


_FLOAT_UNARY_arith = (
    *("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh"),
    *("atanh", "erf", "log2", "log10", "fast_exp", "fast_tanh", "fast_erf"),
)


SAMPLERS: dict[str, Sampler] = {
    **{name: _unary(FLOATS, wrong=INTEGERS) for name in _FLOAT_UNARY},
    **{name: _unary(SIGNED + FLOATS) for name in ("negative", "abs", "floor", "ceil", "round")},
    "logical_not": _unary(("bool",), wrong=NUMERIC),
    "clip": _unary(NUMERIC, _clip_attrs),
    "cast": _unary(DTYPES, _cast_attrs),
    **{name: _unary(FLOATS, wrong=INTEGERS) for name in _FLOAT_UNARY_arith},
    "trunc": _unary(DTYPES),
    "copy": _unary(DTYPES),
    "sign": _unary(SIGNED + FLOATS, wrong=(*UNSIGNED, "bool")),
    "bitwise_not": _unary(INTEGERS, wrong=_NOT_INTEGER),
    **{name: _unary(DTYPES) for name in ("isnan", "isinf", "isfinite")},
    "reinterpret": _reinterpret,
}
"""This module's entries, by op name."""
