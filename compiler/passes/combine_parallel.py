"""CombineParallelConv2D and CombineParallelDense: merge parallel branches into one call.

TVM 0.18's passes of these names (``src/relay/transforms/combine_parallel_conv2d.cc`` and
``combine_parallel_dense.cc``, opt level 4) find operator calls that read the same data and
differ only in how many outputs they produce, and replace them by one call on the
concatenated weights, each branch then taking its slice of the combined result::

    nn.conv2d(x, w1, a) .. nn.conv2d(x, wn, a)
      -> %c = nn.conv2d(x, concatenate((w1, .., wn), axis=O), a with channels = sum);
         strided_slice(%c, begin=[o_i], end=[o_i + O_i], strides=[1], axes=[C])   (branch i)

    nn.dense(x, w1) .. nn.dense(x, wn)
      -> %d = nn.dense(x, concatenate((w1, .., wn), axis=0), units = sum);
         strided_slice(%d, begin=[u_i], end=[u_i + U_i], strides=[1], axes=[rank - 1])

where ``O`` is the position of ``O`` in the kernel layout, ``C`` that of ``C`` in the output
layout, ``O_i`` and ``U_i`` branch ``i``'s output channels and units, ``o_i`` and ``u_i`` the
sums of those before it. A group is combined when it has at least ``min_num_branches``
calls (TVM's default: 3). Conditions, as TVM's:

- conv2d: ``groups == 1``; equal strides, padding, dilation, groups, kernel_size, layouts and
  out_dtype; weights of one dtype and of equal shape except on the O axis (TVM compared the
  kernel height and width; with one data tensor and ``groups == 1`` the I axis agrees too);
- dense: equal out_dtype; weights of one dtype and equal shape ``(_, k)``. This is TVM's
  ``to_batch=False`` variant (one ``nn.dense`` on concatenated weights); the batch variant
  (stacking into ``nn.batch_matmul``) needs equal weight shapes and is not done.

Each output channel (unit) of a convolution (dense) depends only on its own weight rows, so
the slices hold the branch results; the combined call computes the same sums, so results agree
up to the order a matrix product accumulates in (exact for integers).

Further conditions of this implementation, for soundness beyond TVM's dataflow graphs:

- the calls are evaluated in the same scope (a function body, an ``if`` branch, a ``match``
  clause), as ``EliminateCommonSubexpr`` requires: combining calls from different branches
  would evaluate a branch's convolution where the program did not;
- every weight is pure (``ir.is_pure``) and its free variables are parameters of the global
  function, so it may be evaluated at the first branch instead of its own, and is in scope
  there;
- extents are static, so the slices can be written down.

Deliberate difference: TVM also merged the elementwise and broadcast operators that follow
every branch alike (``bias_add``, ``relu``, ...) into the combined call, concatenating their
other operands; this pass combines only the convolutions and dense calls themselves (simpler,
and exact), so the operators that follow stay per branch on the slices. Groups are found and
combined in rounds until none is left (a combined call may read another group's slice).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ...semantics.ops.index import StridedSliceAttrs
from ...semantics.ops.nn.conv import Conv2DAttrs
from ...semantics.ops.nn.dense import DenseAttrs
from ...semantics.ops.shape import ConcatenateAttrs
from ...semantics.sharing import sharing_plan
from ...semantics.syntax import (
    Call,
    Expr,
    Function,
    IRModule,
    Op,
    TensorType,
    Tuple,
    children,
    post_order,
)
from ...semantics.typing import TypeInfo, infer_types
from ..ir import free_vars, is_pure, with_children
from ..pass_manager import Pass, register_pass


@dataclass(frozen=True)
class Branch:
    """One call of a group: the call and how many outputs (channels, units) it contributes."""

    call: Call
    outputs: int


@dataclass(frozen=True)
class Combiner:
    """What differs between the conv2d and the dense combiner."""

    op: str
    key: Callable[[Call, TypeInfo], tuple[object, ...] | None]
    """The group key of a call beyond its data and scope (``None``: not combinable), whose
    last element is the call's number of outputs."""
    combine: Callable[[Call, Expr, list[Branch], TypeInfo], tuple[Call, int]]
    """The combined call from the first branch, the rebuilt data and the branches, and the
    axis of the result that the branches' outputs are concatenated along."""


def _static(t: object) -> TensorType | None:
    if isinstance(t, TensorType) and all(isinstance(d, int) for d in t.shape):
        return t
    return None


def _conv2d_key(call: Call, info: TypeInfo) -> tuple[object, ...] | None:
    attrs = call.attrs
    weight = _static(info.expr_types.get(call.args[1]))
    out = _static(info.expr_types.get(call))
    if not isinstance(attrs, Conv2DAttrs) or attrs.groups != 1 or weight is None or out is None:
        return None
    o_axis = attrs.kernel_layout.index("O")
    rest = tuple(d for i, d in enumerate(weight.shape) if i != o_axis)
    outputs = weight.shape[o_axis]
    return (repr(replace(attrs, channels=None)), weight.dtype, rest, outputs)


def _conv2d_combine(
    first: Call, data: Expr, branches: list[Branch], info: TypeInfo
) -> tuple[Call, int]:
    attrs = first.attrs
    assert isinstance(attrs, Conv2DAttrs)
    weights = Tuple(tuple(b.call.args[1] for b in branches))
    concat = Call(
        Op("concatenate"), (weights,), ConcatenateAttrs(axis=attrs.kernel_layout.index("O"))
    )
    total = sum(b.outputs for b in branches)
    new_attrs = replace(attrs, channels=None if attrs.channels is None else total)
    out_layout = attrs.out_layout or attrs.data_layout
    return Call(Op("nn.conv2d"), (data, concat), new_attrs, span=first.span), out_layout.index("C")


def _dense_key(call: Call, info: TypeInfo) -> tuple[object, ...] | None:
    attrs = call.attrs
    weight = _static(info.expr_types.get(call.args[1]))
    out = _static(info.expr_types.get(call))
    if not isinstance(attrs, DenseAttrs) or weight is None or out is None:
        return None
    units, k = weight.shape
    return (attrs.out_dtype, weight.dtype, k, units)


def _dense_combine(
    first: Call, data: Expr, branches: list[Branch], info: TypeInfo
) -> tuple[Call, int]:
    attrs = first.attrs
    assert isinstance(attrs, DenseAttrs)
    weights = Tuple(tuple(b.call.args[1] for b in branches))
    concat = Call(Op("concatenate"), (weights,), ConcatenateAttrs(axis=0))
    all_set = all(isinstance(b.call.attrs, DenseAttrs) and b.call.attrs.units for b in branches)
    total = sum(b.outputs for b in branches)
    new_attrs = replace(attrs, units=total if all_set else None)
    out = info.expr_types[first]
    assert isinstance(out, TensorType)
    return Call(Op("nn.dense"), (data, concat), new_attrs, span=first.span), len(out.shape) - 1


CONV2D = Combiner("nn.conv2d", _conv2d_key, _conv2d_combine)
DENSE = Combiner("nn.dense", _dense_key, _dense_combine)


@dataclass
class _Group:
    branches: list[Branch] = field(default_factory=list)
    combined: Expr | None = None
    axis: int = 0


def groups_of(
    fn: Function, combiner: Combiner, info: TypeInfo, min_num_branches: int
) -> dict[int, _Group]:
    """The groups of ``fn`` to combine in this round, by ``id`` of each member call."""
    plan = sharing_plan(fn)
    params = {id(p) for p in fn.params}
    found: dict[tuple[object, ...], _Group] = {}
    for e in post_order(fn):
        if not (isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == combiner.op):
            continue
        scope = plan.scope.get(e)
        key = combiner.key(e, info)
        weight = e.args[1]
        if scope is None or key is None or not is_pure(weight):
            continue
        if any(id(v) not in params for v in free_vars(weight)):
            continue
        *rest, outputs = key
        assert isinstance(outputs, int)
        group = found.setdefault((scope, id(e.args[0]), *rest), _Group())
        group.branches.append(Branch(e, outputs))
    chosen = [g for g in found.values() if len(g.branches) >= min_num_branches]
    members = {id(b.call) for g in chosen for b in g.branches}
    out: dict[int, _Group] = {}
    for g in chosen:
        # A weight that contains a member of this round would be rebuilt; the combined call
        # takes the weights as they are, so such a group waits for a later round.
        if any(id(n) in members for b in g.branches for n in post_order(b.call.args[1])):
            continue
        out.update({id(b.call): g for b in g.branches})
    return out


def combine_round(
    fn: Function, combiner: Combiner, info: TypeInfo, min_num_branches: int
) -> Function | None:
    """``fn`` with this round's groups combined; ``None`` if there are none."""
    groups = groups_of(fn, combiner, info, min_num_branches)
    if not groups:
        return None
    done: dict[int, Expr] = {}
    for e in post_order(fn):
        rebuilt = with_children(e, tuple(done[id(c)] for c in children(e)))
        group = groups.get(id(e))
        if group is not None:
            assert isinstance(rebuilt, Call)
            if group.combined is None:
                group.combined, group.axis = combiner.combine(
                    rebuilt, rebuilt.args[0], group.branches, info
                )
            offset = 0
            for b in group.branches:
                if b.call is e:
                    break
                offset += b.outputs
            size = next(b.outputs for b in group.branches if b.call is e)
            rebuilt = Call(
                Op("strided_slice"),
                (group.combined,),
                StridedSliceAttrs(
                    begin=(offset,), end=(offset + size,), strides=(1,), axes=(group.axis,)
                ),
                span=e.span,
            )
        done[id(e)] = rebuilt
    out = done[id(fn)]
    assert isinstance(out, Function)
    return out


def combine_module(mod: IRModule, combiner: Combiner, min_num_branches: int) -> IRModule:
    """Combine groups in every global function, round after round, until none is left."""
    while True:
        info = infer_types(mod)
        changed = False
        functions = dict(mod.functions)
        for gv, fn in mod.functions.items():
            new = combine_round(fn, combiner, info, min_num_branches)
            if new is not None:
                functions[gv] = new
                changed = True
        if not changed:
            return mod
        mod = IRModule(functions, mod.type_definitions)


@register_pass
@dataclass(frozen=True)
class CombineParallelConv2D(Pass):
    """Combine at least ``min_num_branches`` ``nn.conv2d`` calls on the same data, with the same
    attributes and kernel shape apart from output channels, into one convolution and slices.

    Pre: well-typed. Post: same types and values (up to accumulation order); no such group of
    convolutions remains.
    """

    min_num_branches: int = 3
    opt_level = 4
    focus_ops = frozenset({"nn.conv2d"})

    def transform(self, mod: IRModule) -> IRModule:
        return combine_module(mod, CONV2D, self.min_num_branches)


@register_pass
@dataclass(frozen=True)
class CombineParallelDense(Pass):
    """Combine at least ``min_num_branches`` ``nn.dense`` calls on the same data, with the same
    out_dtype and weight width, into one dense on concatenated weights and slices.

    Pre: well-typed. Post: same types and values (up to accumulation order); no such group of
    dense calls remains.
    """

    min_num_branches: int = 3
    opt_level = 4
    focus_ops = frozenset({"nn.dense"})

    def transform(self, mod: IRModule) -> IRModule:
        return combine_module(mod, DENSE, self.min_num_branches)
