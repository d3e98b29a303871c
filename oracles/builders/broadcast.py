"""Dataflow-generator builders of the operators of
``relay.semantics.ops.broadcast`` (well-typed calls by construction).

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

from collections.abc import Sequence

from relay.semantics.syntax import TensorType

from .core import ALL, BOOL, FLOATS, INTEGERS, NUMERIC, Builder, Built, _broadcast, _dims, _Graph


def _binary(dtypes: Sequence[str]) -> Builder:
    """``lhs`` of a dtype in ``dtypes``; ``rhs`` of the same dtype, broadcasting with it."""

    def build(g: _Graph) -> Built:
        lhs = g.tensor(dtypes)
        rhs = g.partner(_dims(lhs[1]), (lhs[1].dtype,))
        return (lhs, rhs), None

    return build


def _division(g: _Graph) -> Built:
    """``divide``, ``floor_divide``, ``mod``, ``floor_mod``: like ``_binary`` over every dtype
    but bool, except that the divisor is a parameter, a constant or a surely positive value,
    never another computed value: default arguments and generated constants are non-zero, so
    an integer division is defined and a float one finite. (Bool is left out: bool division
    is defined only for an all-True divisor.)"""
    lhs = g.tensor(NUMERIC)
    rhs = g.partner(_dims(lhs[1]), (lhs[1].dtype,), nonzero=True)
    return (lhs, rhs), None


def _power(g: _Graph) -> Built:
    """A surely positive base (a negative one to a fractional power is NaN); any exponent."""
    lhs = g.tensor(FLOATS, positive=True)
    return (lhs, g.partner(_dims(lhs[1]), (lhs[1].dtype,))), None


def _where(g: _Graph) -> Built:
    """``x`` and ``y`` of one dtype, broadcasting; a ``condition`` (bool preferred, any dtype)
    broadcasting with their result."""
    x = g.tensor(ALL)
    y = g.partner(_dims(x[1]), (x[1].dtype,))
    values = _broadcast(_dims(x[1]), _dims(y[1]))
    assert values is not None
    condition = g.partner(values, ("bool", *NUMERIC))
    return (condition, x, y), None


_DIVISION = ("divide", "floor_divide", "mod", "floor_mod")


_COMPARISON = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")


def _shift(g: _Graph) -> Built:
    """Integer ``lhs``; ``rhs`` of its dtype, broadcasting with it, a fresh positive leaf (its
    default values 1 to 3 are below every bit width)."""
    lhs = g.tensor(INTEGERS)
    shape, dtype = _dims(lhs[1]), lhs[1].dtype

    def fresh() -> TensorType:
        return TensorType(() if g.flag() else shape, dtype)

    rhs = g.tensor(
        (dtype,),
        fits=lambda t: _broadcast(shape, _dims(t)) is not None,
        fresh=fresh,
        positive=True,  # integer pool values are never flagged positive: always a fresh leaf
    )
    return (lhs, rhs), None


BUILDERS: dict[str, Builder] = {
    **{name: _binary(ALL) for name in ("add", "subtract", "multiply", "maximum", "minimum")},
    **{name: _division for name in _DIVISION},
    **{name: _binary(ALL) for name in _COMPARISON},
    "power": _power,
    "logical_and": _binary(BOOL),
    "logical_or": _binary(BOOL),
    "where": _where,
    **{name: _binary(INTEGERS) for name in ("bitwise_and", "bitwise_or", "bitwise_xor")},
    "left_shift": _shift,
    "right_shift": _shift,
    "logical_xor": _binary(BOOL),
    "trunc_divide": _division,
    "trunc_mod": _division,
}
"""This module's entries, by op name."""
