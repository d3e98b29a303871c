"""CanonicalizeOps: rewrite operators into more basic ones that later passes know.

TVM 0.18's ``CanonicalizeOps`` (``src/relay/transforms/canonicalize_ops.cc``) has one rule,
and so has this pass::

    nn.bias_add(x, b, axis=a)  ->  add(x, expand_dims(b, axis=1, num_newaxis=n - a - 1))

where ``n`` is the rank of ``x`` and ``a`` is counted from 0 (TVM's ``ExpandBiasToMatchAxis``;
no ``expand_dims`` when ``a`` is the last axis). The bias of the ``a`` extent, given
``n - a - 1`` trailing unit axes, broadcasts along axis ``a`` exactly as ``nn.bias_add`` adds
it, and ``x`` and ``b`` are still evaluated in that order.

Exactness. Both operators add in the data's dtype with one rounding per element, so floats
agree bit for bit; ``int32``/``int64`` overflow is undefined for both, narrower integers wrap
in ``add``, and ``nn.bias_add`` of bool data is undefined (so ``add``'s meaning is a valid
result). The rewrite is made only where the ``add`` has exactly the type of the ``bias_add``:
a bias typed ``Tensor[(?), ..]`` against a known extent is fine, but a known bias extent
against a ``?`` extent of ``x`` would make the type more precise, so that call is kept.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...semantics.ops.nn.dense import BiasAddAttrs
from ...semantics.ops.registry import RelationError
from ...semantics.ops.shape import ExpandDimsAttrs
from ...semantics.ops.shapes import broadcast_shapes
from ...semantics.syntax import (
    Call,
    Expr,
    Function,
    GlobalVar,
    IRModule,
    Op,
    TensorType,
    Type,
)
from ...semantics.typing import infer_types
from ..ir import map_functions, rewrite_pairs
from ..pass_manager import Pass, register_pass


def canonical_bias_add(types: dict[Expr, Type], original: Call, rebuilt: Call) -> Expr | None:
    """``nn.bias_add(x, b, axis=a)`` -> ``add(x, expand_dims(b, ..))`` (module docstring)."""
    data, bias = (types.get(a) for a in original.args)
    attrs = rebuilt.attrs
    if not isinstance(data, TensorType) or not isinstance(bias, TensorType):
        return None
    if not isinstance(attrs, BiasAddAttrs) or len(bias.shape) != 1:
        return None
    ndim = len(data.shape)
    axis = attrs.axis + ndim if attrs.axis < 0 else attrs.axis
    trailing = ndim - axis - 1
    try:
        shape = broadcast_shapes(data.shape, (*bias.shape, *(1,) * trailing))
    except RelationError:
        return None
    if tuple(shape) != tuple(data.shape):
        return None
    x, b = rebuilt.args
    if trailing:
        b = Call(Op("expand_dims"), (b,), ExpandDimsAttrs(1, trailing), span=b.span)
    return Call(Op("add", span=rebuilt.op.span), (x, b), None, span=rebuilt.span)


@register_pass
@dataclass(frozen=True)
class CanonicalizeOps(Pass):
    """Rewrite ``nn.bias_add`` as ``add`` of the bias expanded along its axis.

    Pre: well-typed. Post: the same meaning and the same type of every expression; no
    ``nn.bias_add`` remains except where that would refine a type (module docstring).
    """

    opt_level = 3
    focus_ops = frozenset({"nn.bias_add"})

    def transform(self, mod: IRModule) -> IRModule:
        types = infer_types(mod).expr_types

        def visit(original: Expr, rebuilt: Expr) -> Expr | None:
            match rebuilt:
                case Call(Op("nn.bias_add")):
                    assert isinstance(original, Call)
                    return canonical_bias_add(types, original, rebuilt)
            return None

        def one(_: GlobalVar, fn: Function) -> Function:
            out = rewrite_pairs(fn, visit)
            assert isinstance(out, Function)
            return out

        return map_functions(mod, one)
