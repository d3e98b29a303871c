"""Gradient rules: one table entry per differentiable operator, organised like ``semantics/ops``.

A rule is the operator's vector-Jacobian product written as Relay: given the primal call
``y = op(x1, .., xn)`` (its arguments are atoms: variables or constants), the value ``y`` and
the cotangent ``g`` of ``y`` (a tensor of ``y``'s type, or a tuple of them where ``y`` is a
tuple), it returns, per argument, the expression of ``g · ∂y/∂xi`` (of ``xi``'s type), or
``None`` where ``xi`` is not differentiable (an integer or boolean argument, or one the
output does not depend on smoothly). Rules build expressions only; the higher-order and
first-order gradient passes decide where they are evaluated and how contributions add up.

The table is assembled here from one module per operator family (``rules/elementwise.py``
holds the rules of ``semantics/ops/elementwise.py``, and so on):

- ``RULES``: operator name -> rule;
- ``ZERO_GRADIENT``: operators whose result is differentiable nowhere it matters: integer
  or boolean results (comparisons, ``argmax``, ``shape_of``), or piecewise-constant ones
  (``floor``, ``sign``); their arguments get no contribution (the derivative is zero almost
  everywhere, as TVM's ``zeros_like`` gradients say);
- ``no_rule_ops()``: every other registered operator, which the gradient passes refuse with
  ``Gradient: no gradient rule for operator NAME`` at the call's location.
"""

from __future__ import annotations

from collections.abc import Mapping

from .....semantics.ops.registry import OPS
from .annotation import RULES as _ANNOTATION
from .broadcast import RULES as _BROADCAST
from .broadcast import ZERO as _BROADCAST_ZERO
from .common import GradCall, GradRule, NoGradient
from .create import RULES as _CREATE
from .create import ZERO as _CREATE_ZERO
from .elementwise import RULES as _ELEMENTWISE
from .elementwise import ZERO as _ELEMENTWISE_ZERO
from .nn_activation import RULES as _NN_ACTIVATION
from .nn_dense import RULES as _NN_DENSE
from .nn_loss import RULES as _NN_LOSS
from .reduce import RULES as _REDUCE
from .reduce import ZERO as _REDUCE_ZERO
from .shape import RULES as _SHAPE
from .shape import ZERO as _SHAPE_ZERO
from .sort import ZERO as _SORT_ZERO

RULES: Mapping[str, GradRule] = {
    **_ELEMENTWISE,
    **_BROADCAST,
    **_CREATE,
    **_REDUCE,
    **_SHAPE,
    **_NN_ACTIVATION,
    **_NN_DENSE,
    **_NN_LOSS,
    **_ANNOTATION,
}
"""The gradient rule of every operator that has one, by operator name."""

ZERO_GRADIENT: frozenset[str] = frozenset(
    _ELEMENTWISE_ZERO | _BROADCAST_ZERO | _CREATE_ZERO | _REDUCE_ZERO | _SHAPE_ZERO | _SORT_ZERO
)
"""Operators whose arguments get no gradient (integer, boolean or piecewise-constant results)."""


def no_rule_ops() -> list[str]:
    """The registered operators that have neither a rule nor a zero gradient: differentiating
    a call of one is an error. Sorted by name."""
    import relay.semantics.ops  # noqa: F401  (registers every operator)

    return sorted(n for n in OPS if n not in RULES and n not in ZERO_GRADIENT)


__all__ = ["RULES", "ZERO_GRADIENT", "GradCall", "GradRule", "NoGradient", "no_rule_ops"]
