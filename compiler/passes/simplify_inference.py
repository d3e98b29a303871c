"""SimplifyInference: lower the inference-time normalisation operators to primitives.

TVM 0.18's ``SimplifyInference`` (``src/relay/transforms/simplify_inference.cc``) rewrote the
operators that have no kernel of their own at inference into elementwise operators and
reductions, so that fusion and the backends see only primitives. The same here (``E`` below
is ``expand_dims(v, axis=1, num_newaxis=ndim - axis - 1)``, which lines a vector of the
``axis`` extent up with ``data`` for broadcasting, TVM's ``ExpandBiasToMatchAxis``)::

    nn.batch_norm(x, g, b, m, v)  ->  ((x - E(m)) / sqrt(E(v) + eps) [* E(g)] [+ E(b)], m, v)
    nn.dropout(x)                 ->  (x, ones_like(x))
    nn.layer_norm(x, g, b)        ->  (x - M) / sqrt(variance(x, M) + eps) [* E(g)] [+ E(b)],
                                      M = mean(x, axis, keepdims=True); likewise
    nn.instance_norm(x, g, b)         over every axis but 0 and axis
    nn.group_norm(x, g, b)            over the channels of a group and the axes after axis,
                                      on x reshaped to (.., G, C / G, ..); reshaped back
                                      with reshape_like(_, x), then scaled and shifted
    nn.l2_normalize(x)            ->  x / sqrt(maximum(sum(x * x, axis, keepdims=True), eps))

``[* E(g)]`` applies when ``scale`` is set and ``[+ E(b)]`` when ``center`` is; ``eps`` is a
constant of the data's dtype. A projection ``(..).i`` of a tuple the pass built is replaced
by the field, so ``nn.batch_norm(..).0`` becomes the normalised tensor and
``nn.dropout(x).0`` becomes ``x`` (TVM's rewrite of those projections); the other fields are
what the operators' references return: the moving mean and variance passed through, and a
mask of ones.

Exactness. For ``batch_norm`` this computes in the reference's order (TVM's pass instead
folded the statistics into ``x * s + (-m * s)``, which differs in the last places; the
order here is the one the brief and the reference use, so float32 and float64 agree bit for
bit). The other lowerings agree with the references within the float tolerance:
``mean``/``variance`` sum in a different order.

Where the pass leaves a call alone (it is not wrong there, only not lowerable exactly):

- the data is not float32 or float64: the references compute float16 in float32 and round
  once, while the lowered form rounds after each operator, so a small input whose square
  underflows in float16 (``l2_normalize``: ``x * x`` is 0, then ``0 / 0``) gives NaN where
  the operator gives a number — ``relay fuzz`` found this; integers are undefined there and
  ``sqrt`` would not type;
- a vector argument's type is not exactly ``Tensor[(C), dtype]`` with ``C`` the data's
  ``axis`` extent (broadcasting would then make the result's type more precise than the
  operator's, and the program's type would change);
- a reduced extent is not a known positive integer: ``mean`` over no elements is undefined
  (``ops.reduce``) where the normalisations are defined (an empty result).

Evaluation order. When every argument is pure (``ir.is_pure``) the lowered expression uses
them directly; otherwise they are first bound by ``let``, in argument order, so effects keep
their order.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...semantics.ops.nn.norm import (
    BatchNormAttrs,
    GroupNormAttrs,
    InstanceNormAttrs,
    L2NormalizeAttrs,
    LayerNormAttrs,
)
from ...semantics.ops.reduce import ReduceAttrs, VarianceAttrs
from ...semantics.ops.registry import Attrs
from ...semantics.ops.shape import ExpandDimsAttrs, ReshapeAttrs, ReshapeLikeAttrs
from ...semantics.syntax import (
    ATOMS,
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    IRModule,
    Let,
    Op,
    TensorType,
    Tuple,
    TupleGetItem,
    Type,
    Var,
)
from ...semantics.typing import infer_types
from ..ir import is_pure, map_functions, rewrite_pairs
from ..pass_manager import Pass, register_pass

FLOATS = frozenset({"float32", "float64"})
"""The data dtypes the normalisations are lowered for (see the module docstring on float16)."""

LOWERED = frozenset(
    {
        "nn.batch_norm",
        "nn.dropout",
        "nn.layer_norm",
        "nn.instance_norm",
        "nn.group_norm",
        "nn.l2_normalize",
    }
)


def call(name: str, *args: Expr, attrs: Attrs | None = None) -> Call:
    """A call of the operator ``name``."""
    return Call(Op(name), args, attrs)


def scalar(value: float, dtype: str) -> Constant:
    """A rank-0 constant of ``dtype``."""
    return Constant(np.asarray(value, dtype=dtype))


def along(v: Expr, ndim: int, axis: int) -> Expr:
    """``v`` (a vector of the ``axis`` extent) shaped to broadcast along ``axis`` of a tensor
    of rank ``ndim``: TVM's ``ExpandBiasToMatchAxis``."""
    trailing = ndim - axis - 1
    if trailing == 0:
        return v
    return call("expand_dims", v, attrs=ExpandDimsAttrs(1, trailing))


def affine(
    out: Expr, gamma: Expr, beta: Expr, ndim: int, axis: int, scale: bool, center: bool
) -> Expr:
    """``out [* gamma] [+ beta]``, gamma and beta along ``axis``."""
    if scale:
        out = call("multiply", out, along(gamma, ndim, axis))
    if center:
        out = call("add", out, along(beta, ndim, axis))
    return out


def normalise(x: Expr, axes: tuple[int, ...], eps: Constant) -> Expr:
    """``(x - M) / sqrt(variance(x, M) + eps)``, ``M`` the mean of ``x`` over ``axes``."""
    m = call("mean", x, attrs=ReduceAttrs(axes, True, False))
    var = call("variance", x, m, attrs=VarianceAttrs(axes, True, False, False))
    return call("divide", call("subtract", x, m), call("sqrt", call("add", var, eps)))


@dataclass
class Lowering:
    """The argument types of one call, and the checks the lowerings share."""

    types: dict[Expr, Type]

    def data_type(self, e: Call) -> TensorType | None:
        t = self.types.get(e.args[0])
        if isinstance(t, TensorType) and t.dtype in FLOATS and t.shape:
            return t
        return None

    def vectors_fit(self, e: Call, data: TensorType, axis: int, count: int) -> bool:
        """Whether the ``count`` arguments after ``data`` are exactly ``(C,)`` of data's dtype."""
        want = TensorType((data.shape[axis],), data.dtype)
        return all(self.types.get(a) == want for a in e.args[1 : 1 + count])


def known_positive(t: TensorType, axes: tuple[int, ...]) -> bool:
    """Whether every extent of ``t`` on ``axes`` is a known positive integer."""
    return all(isinstance(d, int) and d > 0 for d in (t.shape[i] for i in axes))


def lower_batch_norm(low: Lowering, e: Call, args: tuple[Expr, ...]) -> Expr | None:
    """``nn.batch_norm(x, g, b, m, v)`` -> ``(normalised, m, v)``."""
    a, data = e.attrs, low.data_type(e)
    if not isinstance(a, BatchNormAttrs) or data is None:
        return None
    ndim = len(data.shape)
    axis = a.axis + ndim if a.axis < 0 else a.axis
    if not low.vectors_fit(e, data, axis, 4):
        return None
    x, gamma, beta, mean, var = args
    eps = scalar(a.epsilon, data.dtype)
    denom = call("sqrt", call("add", along(var, ndim, axis), eps))
    out = call("divide", call("subtract", x, along(mean, ndim, axis)), denom)
    return Tuple((affine(out, gamma, beta, ndim, axis, a.scale, a.center), mean, var))


def lower_dropout(low: Lowering, e: Call, args: tuple[Expr, ...]) -> Expr | None:
    """``nn.dropout(x)`` -> ``(x, ones_like(x))``."""
    (x,) = args
    return Tuple((x, call("ones_like", x)))


def lower_layer_norm(low: Lowering, e: Call, args: tuple[Expr, ...]) -> Expr | None:
    """``nn.layer_norm(x, g, b)`` -> normalised over ``axis``, scaled and shifted."""
    a, data = e.attrs, low.data_type(e)
    if not isinstance(a, LayerNormAttrs) or data is None:
        return None
    ndim = len(data.shape)
    axis = a.axis % ndim
    if not low.vectors_fit(e, data, axis, 2) or not known_positive(data, (axis,)):
        return None
    x, gamma, beta = args
    out = normalise(x, (axis,), scalar(a.epsilon, data.dtype))
    return affine(out, gamma, beta, ndim, axis, a.scale, a.center)


def lower_instance_norm(low: Lowering, e: Call, args: tuple[Expr, ...]) -> Expr | None:
    """``nn.instance_norm(x, g, b)`` -> normalised over every axis but 0 and ``axis``."""
    a, data = e.attrs, low.data_type(e)
    if not isinstance(a, InstanceNormAttrs) or data is None:
        return None
    ndim = len(data.shape)
    axis = a.axis % ndim
    axes = tuple(i for i in range(1, ndim) if i != axis)
    if not axes or not low.vectors_fit(e, data, axis, 2) or not known_positive(data, axes):
        return None
    x, gamma, beta = args
    out = normalise(x, axes, scalar(a.epsilon, data.dtype))
    return affine(out, gamma, beta, ndim, axis, a.scale, a.center)


def lower_group_norm(low: Lowering, e: Call, args: tuple[Expr, ...]) -> Expr | None:
    """``nn.group_norm(x, g, b)`` -> normalised per group on ``x`` reshaped to
    ``(.., G, C / G, ..)``, reshaped back, scaled and shifted."""
    a, data = e.attrs, low.data_type(e)
    if not isinstance(a, GroupNormAttrs) or data is None:
        return None
    ndim = len(data.shape)
    axis = a.axis % ndim
    if not low.vectors_fit(e, data, axis, 2) or not known_positive(data, tuple(range(axis, ndim))):
        return None
    x, gamma, beta = args
    grouped = call(
        "reshape", x, attrs=ReshapeAttrs((0,) * axis + (-4, a.num_groups, -1, -2), False)
    )
    axes = tuple(range(axis + 1, ndim + 1))
    normed = normalise(grouped, axes, scalar(a.epsilon, data.dtype))
    back = call("reshape_like", normed, x, attrs=ReshapeLikeAttrs(0, None, 0, None))
    return affine(back, gamma, beta, ndim, axis, a.scale, a.center)


def lower_l2_normalize(low: Lowering, e: Call, args: tuple[Expr, ...]) -> Expr | None:
    """``nn.l2_normalize(x)`` -> ``x / sqrt(maximum(sum(x * x, axis), eps))``."""
    a, data = e.attrs, low.data_type(e)
    if not isinstance(a, L2NormalizeAttrs) or data is None:
        return None
    (x,) = args
    axes = tuple(ax % len(data.shape) for ax in a.axis)
    total = call("sum", call("multiply", x, x), attrs=ReduceAttrs(axes, True, False))
    bounded = call("maximum", total, scalar(a.eps, data.dtype))
    return call("divide", x, call("sqrt", bounded))


LOWERINGS = {
    "nn.batch_norm": lower_batch_norm,
    "nn.dropout": lower_dropout,
    "nn.layer_norm": lower_layer_norm,
    "nn.instance_norm": lower_instance_norm,
    "nn.group_norm": lower_group_norm,
    "nn.l2_normalize": lower_l2_normalize,
}


def lower_call(low: Lowering, original: Call, rebuilt: Call) -> Expr | None:
    """The lowering of one operator call, with its arguments let-bound first when one of them
    may have an effect; ``None`` to keep the call."""
    assert isinstance(rebuilt.op, Op)
    lower = LOWERINGS[rebuilt.op.name]
    args = rebuilt.args
    # dropout uses its one argument once per field, in order: nothing to reorder.
    if rebuilt.op.name == "nn.dropout" or all(is_pure(arg) for arg in args):
        return lower(low, original, args)
    bound: list[tuple[Var, Expr]] = []
    names = [f"{rebuilt.op.name.split('.')[-1]}_arg{i}" for i in range(len(args))]
    fresh: list[Expr] = []
    for name, arg in zip(names, args, strict=True):
        if isinstance(arg, ATOMS):
            fresh.append(arg)
        else:
            v = Var(name)
            bound.append((v, arg))
            fresh.append(v)
    out = lower(low, original, tuple(fresh))
    if out is None:
        return None
    for v, arg in reversed(bound):
        out = Let(v, arg, out)
    return out


def simplify(fn: Function, low: Lowering) -> Function:
    """``fn`` with every lowerable call lowered (see the module docstring)."""
    built: set[int] = set()
    keep: list[Expr] = []

    def visit(original: Expr, rebuilt: Expr) -> Expr | None:
        match rebuilt:
            case Call(Op(name)) if name in LOWERINGS:
                assert isinstance(original, Call)
                out = lower_call(low, original, rebuilt)
                if isinstance(out, Tuple):
                    built.add(id(out))
                    keep.append(out)
                return out
            case TupleGetItem(Tuple() as tup, index) if id(tup) in built:
                return tup.fields[index]
        return None

    out = rewrite_pairs(fn, visit)
    assert isinstance(out, Function)
    return out


@register_pass
@dataclass(frozen=True)
class SimplifyInference(Pass):
    """Lower ``nn.batch_norm``, ``nn.dropout``, ``nn.layer_norm``, ``nn.instance_norm``,
    ``nn.group_norm`` and ``nn.l2_normalize`` to elementwise operators and reductions.

    Pre: well-typed. Post: the same types; values equal within the float tolerance; none of
    those operators remains except where the module docstring says it is kept.
    """

    opt_level = 0
    focus_ops = LOWERED

    def transform(self, mod: IRModule) -> IRModule:
        info = infer_types(mod)
        low = Lowering(info.expr_types)

        def one(_: GlobalVar, fn: Function) -> Function:
            return simplify(fn, low)

        return map_functions(mod, one)
