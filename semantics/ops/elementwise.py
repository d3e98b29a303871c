"""Elementwise operators: unary math, binary broadcasting arithmetic and comparison, and fills.

::

    unary      negative abs exp log sqrt rsqrt tanh sigmoid floor ceil round logical_not
               nn.relu zeros_like ones_like                         (data)          elemwise
    binary     add subtract multiply divide floor_divide mod floor_mod power maximum
               minimum equal not_equal less less_equal greater greater_equal
               logical_and logical_or                               (lhs, rhs)      broadcast
    clip(data, a_min=, a_max=)                                      ClipAttrs       elemwise
    cast(data, dtype=)                                              CastAttrs       elemwise
    nn.leaky_relu(data, alpha=0.25)                                 LeakyReluAttrs  elemwise
    where(condition, x, y)                                                          broadcast
    full_like(data, fill_value)                                                     elemwise

Argument names, attribute fields and fusion patterns follow TVM 0.18 (``RELAY_REGISTER_UNARY_OP``
and ``RELAY_REGISTER_BINARY_OP`` name their arguments ``data`` and ``lhs, rhs``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .registry import AttrKind, Attrs, OpDef, OpPattern, attr_field, register


@dataclass(frozen=True, slots=True)
class ClipAttrs(Attrs):
    """Attributes of ``clip``: the closed interval values are clamped into."""

    type_key: ClassVar[str] = "relay.attrs.ClipAttrs"
    a_min: float = attr_field(AttrKind.FLOAT, doc="The minimum clip value.")
    a_max: float = attr_field(AttrKind.FLOAT, doc="The maximum clip value.")


@dataclass(frozen=True, slots=True)
class CastAttrs(Attrs):
    """Attributes of ``cast``: the target dtype."""

    type_key: ClassVar[str] = "relay.attrs.CastAttrs"
    dtype: str = attr_field(AttrKind.DTYPE, doc="Target data type.")


@dataclass(frozen=True, slots=True)
class LeakyReluAttrs(Attrs):
    """Attributes of ``nn.leaky_relu``: the slope on the negative half axis."""

    type_key: ClassVar[str] = "relay.attrs.LeakyReluAttrs"
    alpha: float = attr_field(
        AttrKind.FLOAT, 0.25, doc="Slope coefficient for the negative half axis."
    )


_UNARY: tuple[tuple[str, str], ...] = (
    ("negative", "Elementwise negation, -x."),
    ("abs", "Elementwise absolute value."),
    ("exp", "Elementwise exponential, e**x."),
    ("log", "Elementwise natural logarithm."),
    ("sqrt", "Elementwise square root."),
    ("rsqrt", "Elementwise reciprocal square root, 1/sqrt(x)."),
    ("tanh", "Elementwise hyperbolic tangent."),
    ("sigmoid", "Elementwise logistic sigmoid, 1/(1+exp(-x))."),
    ("floor", "Elementwise floor."),
    ("ceil", "Elementwise ceiling."),
    ("round", "Elementwise rounding to the nearest integer, halves away from zero."),
    ("logical_not", "Elementwise boolean negation."),
    ("nn.relu", "Rectified linear unit, max(x, 0)."),
    ("zeros_like", "Zeros with the shape and dtype of the input."),
    ("ones_like", "Ones with the shape and dtype of the input."),
)
"""Unary operators without attributes: one input ``data``, pattern elemwise."""

_BINARY_BROADCAST: tuple[tuple[str, str], ...] = (
    ("add", "Elementwise addition with broadcasting."),
    ("subtract", "Elementwise subtraction with broadcasting."),
    ("multiply", "Elementwise multiplication with broadcasting."),
    ("divide", "Elementwise division with broadcasting (truncating for integers)."),
    ("floor_divide", "Elementwise division rounded towards negative infinity, broadcasting."),
    ("mod", "Elementwise remainder with the sign of the dividend, broadcasting."),
    ("floor_mod", "Elementwise remainder with the sign of the divisor, broadcasting."),
    ("power", "Elementwise lhs raised to the power rhs, broadcasting."),
    ("maximum", "Elementwise maximum with broadcasting."),
    ("minimum", "Elementwise minimum with broadcasting."),
    ("equal", "Elementwise lhs == rhs with broadcasting; the result is bool."),
    ("not_equal", "Elementwise lhs != rhs with broadcasting; the result is bool."),
    ("less", "Elementwise lhs < rhs with broadcasting; the result is bool."),
    ("less_equal", "Elementwise lhs <= rhs with broadcasting; the result is bool."),
    ("greater", "Elementwise lhs > rhs with broadcasting; the result is bool."),
    ("greater_equal", "Elementwise lhs >= rhs with broadcasting; the result is bool."),
    ("logical_and", "Elementwise boolean and with broadcasting."),
    ("logical_or", "Elementwise boolean or with broadcasting."),
)
"""Binary operators without attributes: inputs ``lhs, rhs``, pattern broadcast."""

for _name, _doc in _UNARY:
    register(OpDef(_name, ("data",), None, OpPattern.ELEMWISE, _doc))

for _name, _doc in _BINARY_BROADCAST:
    register(OpDef(_name, ("lhs", "rhs"), None, OpPattern.BROADCAST, _doc))

register(
    OpDef(
        "clip",
        ("data",),
        ClipAttrs,
        OpPattern.ELEMWISE,
        "Clamp every element into [a_min, a_max].",
    )
)
register(
    OpDef(
        "cast",
        ("data",),
        CastAttrs,
        OpPattern.ELEMWISE,
        "Convert every element to dtype.",
    )
)
register(
    OpDef(
        "nn.leaky_relu",
        ("data",),
        LeakyReluAttrs,
        OpPattern.ELEMWISE,
        "Leaky rectified linear unit, x if x > 0 else alpha * x.",
    )
)
register(
    OpDef(
        "where",
        ("condition", "x", "y"),
        None,
        OpPattern.BROADCAST,
        "Select from x where condition is true, else from y; all three broadcast.",
    )
)
register(
    OpDef(
        "full_like",
        ("data", "fill_value"),
        None,
        OpPattern.ELEMWISE,
        "The scalar fill_value with the shape and dtype of data.",
    )
)
