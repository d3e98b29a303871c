"""Dataflow-generator builders of the operators of
``relay.semantics.ops.elementwise`` (well-typed calls by construction).

From the former ``builders_arith`` module:

Dataflow-generator builders of the ``arith`` group: ``ops.arith``, ``ops.scan``,
``ops.annotation``.

Each builder draws a call that is well-typed by construction and defined for the default
arguments of ``gen_args`` (see ``gen_dataflow``'s docstring):

- ``log2``/``log10`` get surely positive data; shift amounts are fresh positive leaves (1 to 3,
  below every bit width); ``trunc_divide``/``trunc_mod`` divide by parameters, constants or
  surely positive values, as ``divide`` does;
- the inverse functions ``asin``, ``acos``, ``atanh`` and ``acosh`` take any float data: out of
  their domain (most default values lie outside [-1, 1]) the result is NaN, which is defined;
- ``variance`` reduces at least one non-empty axis (never the forms TVM's compute rejects) and
  is ``unbiased`` only over two or more elements, so it never divides by zero;
- ``cumsum``/``cumprod`` convert only to dtypes every ordinary value converts to (no float to
  unsigned), and ``cumprod`` accumulating a 32- or 64-bit integer always names an axis (whose
  extent is at most 12, so products of default values fit);
- ``on_device`` and ``device_copy`` name valid, constrained devices.
"""

from __future__ import annotations

import math

from relay.semantics.ops.elementwise import CastAttrs, ClipAttrs
from relay.semantics.ops.registry import Attrs

from .core import (
    _WIDTH,
    ALL,
    BOOL,
    FLOATS,
    INTEGERS,
    SIGNED,
    Builder,
    Built,
    _Graph,
    _targets,
    _unary,
)


def _clip_attrs(g: _Graph, dtype: str) -> Attrs:
    """Bounds the dtype can represent (TVM's make_const refused others), ``a_min <= a_max``;
    for floats sometimes an infinite bound (which TVM's clip drops)."""
    if dtype == "bool":
        low = float(g.integer(0, 1))
        high = float(g.integer(int(low), 1))
    elif dtype.startswith("float"):
        low = g.integer(-6, 6) / 2
        high = low + g.integer(0, 6) / 2
        infinite = g.integer(0, 7)
        low = -math.inf if infinite == 6 else low
        high = math.inf if infinite == 7 else high
    else:
        low = float(g.integer(0 if dtype.startswith("uint") else -3, 3))
        high = low + g.integer(0, 3)
    return ClipAttrs.from_kwargs({"a_min": low, "a_max": high})


def _cast_attrs(g: _Graph, dtype: str) -> Attrs:
    return CastAttrs.from_kwargs({"dtype": g.dtype(_targets(dtype))})


def _reinterpret(g: _Graph) -> Built:
    """Any data; a target dtype of the same bit width (bool only as bool)."""
    data = g.tensor(ALL)
    width = _WIDTH[data[1].dtype]
    same = [data[1].dtype, *(d for d in ALL if _WIDTH[d] == width and d != data[1].dtype)]
    return (data,), CastAttrs.from_kwargs({"dtype": g.pick(same)})


_FLOAT_UNARY = (
    *("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh"),
    *("atanh", "erf", "fast_exp", "fast_tanh", "fast_erf"),
)


BUILDERS: dict[str, Builder] = {
    # -x of a non-zero uint32 or uint64 overflows (nuw): undefined for every usual input.
    "negative": _unary(tuple(d for d in ALL if d not in ("uint32", "uint64"))),
    **{name: _unary(ALL) for name in ("abs", "floor", "ceil", "round")},
    **{name: _unary(FLOATS) for name in ("exp", "tanh", "sigmoid")},
    # NaN or infinite for non-positive data: the data is surely positive.
    **{name: _unary(FLOATS, positive=True) for name in ("log", "sqrt", "rsqrt")},
    "logical_not": _unary(BOOL),
    "clip": _unary(ALL, _clip_attrs),
    "cast": _unary(ALL, _cast_attrs),
    **{name: _unary(FLOATS) for name in _FLOAT_UNARY},
    # NaN or infinite for non-positive data: the data is surely positive.
    "log2": _unary(FLOATS, positive=True),
    "log10": _unary(FLOATS, positive=True),
    "trunc": _unary(ALL),
    "copy": _unary(ALL),
    "sign": _unary(SIGNED + FLOATS),
    "bitwise_not": _unary(INTEGERS),
    **{name: _unary(ALL) for name in ("isnan", "isinf", "isfinite")},
    "reinterpret": _reinterpret,
}
"""This module's entries, by op name."""
