"""Dataflow graphs of registered operators, well-typed by construction.

``dataflow_programs(max_nodes=...)`` is a Hypothesis strategy of ``DataflowProgram``s: an
``IRModule`` whose ``@main`` takes some parameters and computes a DAG of operator calls, the
type the generator predicts for ``@main``, a record of every call (its argument and result
types), and which parameters must be positive or non-zero; ``program.arguments()`` draws
arguments for it, ``program.argument_sets(k)`` ``k`` independent tuples of them.

**Construction.** The generator keeps a *pool* of typed values: the parameters made so far,
constants, and the calls already built (a call of tuple type also offers each of its fields,
through a ``TupleGetItem`` made when first used). Each new node picks an operator, then builds
its inputs and attributes so that the operator's relation holds:

- each input is either a pool value of a fitting type or a *fresh leaf* (a new parameter,
  sometimes a constant) of a type drawn to fit: for ``nn.conv2d`` the weight's shape follows
  from the data's channels, the groups and a kernel that fits the padded input; for a
  broadcasting operator the second operand's shape is derived from the first; and so on;
- attributes are drawn from what the chosen inputs allow (axes within the rank, split
  sections that divide the extent, pooling windows no longer than the padded input, ...);
- the result type is what the operator's relation says. The relation must accept: a
  ``RelationError`` here is a bug in this generator and is raised as ``AssertionError``. There
  is no ``assume``, no filtering and no retry.

Pool values are reused three times in four when one fits, so a node often feeds several later
nodes (Graph sharing, printed as ``%N = ...;``). The body of ``@main`` is the one value nothing
used, or the tuple of all such values, so every node is live.

**Balance.** Every registered operator can be chosen at every step (a fresh leaf always fits),
and each node draws its operator uniformly (``gen_args.uniform_index``: fair bytes, not
Hypothesis's integers, which favour the first few of 188 several times over), or in
proportion to ``op_weights``. A fresh leaf of at most ``MAX_CONSTANT_ELEMENTS`` elements is a
constant one time in 16; and one node in ``CONSTANT_NODE_CHANCE`` is a *constant node*, whose
inputs are all constants (pool constants, or fresh ones of up to ``MAX_FOLDABLE_ELEMENTS``
elements), so that about one call in ten has only constant arguments and constant folding
is exercised. ``relay gen --stats`` prints the balance (most over fewest calls of an operator).

**Defined, and mostly finite.** Calls are drawn so that their meaning is defined for the
default arguments of ``gen_args``, not only well-typed:

- forms undefined for every input are never drawn: ``softmax``, ``log_softmax`` and
  ``batch_norm`` get float data; ``mean`` no bool, ``avg_pool2d`` and ``global_avg_pool2d``
  no bool and no int8 count overflow, ``negative`` no uint32/uint64, the divisions no bool;
  reductions avoid the ``exclude``/``axis=[]`` forms TVM's computes reject; ``clip`` bounds
  and ``leaky_relu`` slopes fit the dtype; conversions (``cast``, ``full``, ``full_like``,
  ``nn.pad``'s value, ``out_dtype``) never take floats to unsigned integers (negative values
  are poison) nor signed integers to unsigned accumulators; ``take`` uses mode "fast" only
  with bool indices into an extent of 2 or more; integer ``avg_pool2d`` never divides by the
  empty count of a window in the ``ceil_mode`` extension;
- every value carries a flag, *surely non-negative* under default arguments, derived by a few
  rules (``_positivity``: exp, abs, relu, sqrt and ``x * x`` are non-negative whatever ``x``
  is, so ``sqrt(x * x)`` sees negative ``x``; a sum of non-negatives is non-negative, a
  reshape keeps it, ...). The inputs of ``log``, ``sqrt``, ``rsqrt``, the base of ``power``
  and a batch norm's variance are surely non-negative (a fresh one is a parameter that
  ``program.positive`` marks, so that ``program.arguments()`` draws it positive); a divisor
  is a parameter, a constant or surely non-negative, never another computed value; an
  integer divisor parameter is marked in ``program.nonzero`` (default arguments include
  zero, and integer division by zero is undefined) and constants hold no zero.

What is left depends on values: overflow (``exp`` of ``exp`` of ``exp``, 32-bit integer
products, the large default values), NaN (0 / 0, ``log`` of a negative that a rule did not
see) and the float-to-integer casts of them. ``benchmarks/generator.py`` measures how often.

**Sizes.** Fresh tensors have rank at most ``MAX_RANK`` and dimensions 1 to ``MAX_DIM``; results
stay at rank 4 or less. A pool value is offered as an input only while its dimensions are at
most ``MAX_REUSE_DIM`` and it has at most ``MAX_REUSE_ELEMENTS`` elements, so repeated
concatenation or padding cannot grow tensors without bound.

**Dtypes.** Each fresh tensor prefers float32 (about half the time) and otherwise draws
uniformly from every dtype its position accepts (all twelve for most operators, floats for
``exp`` and friends, bool for the logical operators, integers and bool for ``take``'s
indices, less the exclusions above).

**Shrinking.** Every choice is one Hypothesis draw whose simplest value gives the simplest
program. The number of nodes is drawn first and shrinks towards ``min_nodes``; a shorter
program is a prefix of the longer one, since each node depends only on earlier draws, and
each node's draws form one span, so the shrinker can also delete a node from the middle while
lowering the count. Within a node: the operator shrinks towards the first of ``OP_ORDER``
(``negative``; the first of positive weight), not a constant node; each input towards a fresh
parameter rather than a reused value; ranks towards the smallest allowed, dimensions towards 1,
dtypes towards float32, attributes towards the simplest legal value (axis 0, one section, no
padding, stride 1). Choices are drawn even where their value is forced (``integers(k, k)``) or
unused, so that simplifying one choice does not shift the meaning of the later ones: a program
containing an ``nn.conv2d`` shrinks to that one call on two ``Tensor[(1, 1, 1, 1), float32]``
parameters.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from .builders import BUILDERS, MAX_DIM, MAX_RANK, DataflowProgram, OpCall, missing_builders
from .builders.core import CONSTANT_NODE_CHANCE, _Graph

# The order is the one the operators were added in (the core operators first): changing it
# changes every program a seed draws.
OP_ORDER: tuple[str, ...] = (
    "negative",
    "abs",
    "floor",
    "ceil",
    "round",
    "nn.relu",
    "zeros_like",
    "ones_like",
    "exp",
    "tanh",
    "sigmoid",
    "log",
    "sqrt",
    "rsqrt",
    "logical_not",
    "clip",
    "cast",
    "nn.leaky_relu",
    "add",
    "subtract",
    "multiply",
    "maximum",
    "minimum",
    "divide",
    "floor_divide",
    "mod",
    "floor_mod",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "power",
    "logical_and",
    "logical_or",
    "where",
    "full_like",
    "sum",
    "max",
    "min",
    "prod",
    "mean",
    "argmax",
    "argmin",
    "reshape",
    "transpose",
    "concatenate",
    "stack",
    "split",
    "expand_dims",
    "squeeze",
    "take",
    "strided_slice",
    "broadcast_to",
    "zeros",
    "ones",
    "full",
    "nn.softmax",
    "nn.log_softmax",
    "nn.dense",
    "nn.bias_add",
    "nn.batch_flatten",
    "nn.conv2d",
    "nn.max_pool2d",
    "nn.avg_pool2d",
    "nn.global_avg_pool2d",
    "nn.batch_norm",
    "nn.dropout",
    "nn.pad",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "sinh",
    "cosh",
    "asinh",
    "acosh",
    "atanh",
    "erf",
    "fast_exp",
    "fast_tanh",
    "fast_erf",
    "log2",
    "log10",
    "trunc",
    "copy",
    "sign",
    "bitwise_not",
    "isnan",
    "isinf",
    "isfinite",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "left_shift",
    "right_shift",
    "logical_xor",
    "trunc_divide",
    "trunc_mod",
    "reinterpret",
    "variance",
    "all",
    "any",
    "cumsum",
    "cumprod",
    "annotation.stop_fusion",
    "on_device",
    "device_copy",
    "gather",
    "gather_nd",
    "scatter_elements",
    "scatter_nd",
    "one_hot",
    "sort",
    "argsort",
    "topk",
    "searchsorted",
    "unravel_index",
    "sparse_to_dense",
    "sequence_mask",
    "invert_permutation",
    "arange",
    "meshgrid",
    "reverse",
    "tile",
    "repeat",
    "layout_transform",
    "reshape_like",
    "broadcast_to_like",
    "collapse_sum_like",
    "slice_like",
    "shape_of",
    "ndarray_size",
    "einsum",
    "matrix_set_diag",
    "trilu",
    "sliding_window",
    "reverse_sequence",
    "nn.conv1d",
    "nn.conv1d_transpose",
    "nn.conv2d_transpose",
    "nn.matmul",
    "nn.batch_matmul",
    "nn.prelu",
    "nn.max_pool1d",
    "nn.avg_pool1d",
    "nn.max_pool3d",
    "nn.avg_pool3d",
    "nn.adaptive_avg_pool2d",
    "nn.adaptive_max_pool2d",
    "nn.global_max_pool2d",
    "nn.conv3d",
    "nn.layer_norm",
    "nn.group_norm",
    "nn.instance_norm",
    "nn.l2_normalize",
    "nn.lrn",
    "nn.cross_entropy",
    "nn.nll_loss",
    "nn.fast_softmax",
    "nn.upsampling",
    "nn.mirror_pad",
    "nn.space_to_depth",
    "nn.depth_to_space",
    "nn.space_to_batch_nd",
    "nn.batch_to_space_nd",
    "image.resize2d",
    "dyn.reshape",
    "dyn.broadcast_to",
    "dyn.zeros",
    "dyn.ones",
    "dyn.full",
    "dyn.strided_slice",
    "qnn.quantize",
    "qnn.dequantize",
    "fixed_point_multiply",
    "qnn.requantize",
    "qnn.dense",
    "qnn.conv2d",
    "qnn.add",
    "qnn.mul",
    "qnn.concatenate",
    "dyn.tile",
    "dyn.topk",
    "dyn.one_hot",
    "nn.contrib_conv2d_NCHWc",
    "vm.shape_of",
    "vm.reshape_tensor",
)
"""The operators in the order a node's choice shrinks along (simplest first)."""


def dataflow_programs(
    *,
    min_nodes: int = 1,
    max_nodes: int = 20,
    ops: Sequence[str] | None = None,
    op_weights: Mapping[str, float] | None = None,
) -> st.SearchStrategy[DataflowProgram]:
    """Well-typed dataflow programs of ``min_nodes`` to ``max_nodes`` operator calls.

    ``ops`` restricts the operators drawn from (default: every registered one, in
    ``OP_ORDER``). Each node draws its operator uniformly among them, or in proportion to
    ``op_weights`` (operator name to a weight >= 0; an operator not named weighs 1, weight 0
    means never; the steering hook of the footprint learner). See the module docstring for
    the construction, the sizes and how the programs shrink: towards fewer nodes, earlier
    operators, fresh parameters instead of reused values, smaller ranks and dimensions,
    float32, and default attributes.
    """
    if not 1 <= min_nodes <= max_nodes:
        raise InvalidArgument(
            f"expected 1 <= min_nodes <= max_nodes, found min_nodes={min_nodes}, "
            f"max_nodes={max_nodes}"
        )
    names = OP_ORDER if ops is None else tuple(ops)
    unknown = [n for n in names if n not in BUILDERS]
    if unknown or not names:
        raise InvalidArgument(
            f"ops={list(names)!r} must name registered operators (unknown: {unknown}); "
            "see relay.oracles.gen_dataflow.OP_ORDER"
        )
    cumulative = op_cumulative(names, op_weights)

    @st.composite
    def node(draw: st.DrawFn, g: _Graph) -> None:
        # One node's draws form one span, which the shrinker can delete while lowering the
        # node count by one.
        outer, g.draw = g.draw, draw
        name = names[g.weighted(cumulative)]
        g.constant_node = g.uniform(CONSTANT_NODE_CHANCE) == CONSTANT_NODE_CHANCE - 1
        g.call(name, BUILDERS[name](g))
        g.constant_node = False
        g.draw = outer

    @st.composite
    def programs(draw: st.DrawFn) -> DataflowProgram:
        g = _Graph(draw)
        for _ in range(draw(st.integers(min_nodes, max_nodes))):
            draw(node(g))
        return g.program()

    return programs()


def op_cumulative(names: Sequence[str], op_weights: Mapping[str, float] | None) -> list[float]:
    """The running totals of the weights of ``names`` (1 unless ``op_weights`` says otherwise),
    checked: every key a registered operator, every weight finite and >= 0, some positive."""
    weights = dict(op_weights or {})
    unknown = sorted(k for k in weights if k not in BUILDERS)
    bad = {k: w for k, w in weights.items() if not (0 <= float(w) < float("inf"))}
    if unknown or bad:
        raise InvalidArgument(
            f"op_weights must map registered operator names to finite weights >= 0 (unknown: "
            f"{unknown}, bad weights: {bad}); see relay.oracles.gen_dataflow.OP_ORDER"
        )
    cumulative = list(itertools.accumulate(float(weights.get(n, 1.0)) for n in names))
    if not cumulative or cumulative[-1] <= 0:
        raise InvalidArgument(
            f"op_weights={weights!r} gives every operator drawn from weight 0; give some "
            "operator a positive weight"
        )
    return cumulative


__all__ = [
    "BUILDERS",
    "MAX_DIM",
    "MAX_RANK",
    "OP_ORDER",
    "DataflowProgram",
    "OpCall",
    "dataflow_programs",
    "missing_builders",
    "op_cumulative",
]
