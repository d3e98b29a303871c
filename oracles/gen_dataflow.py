"""Dataflow graphs of registered operators, well-typed by construction.

``dataflow_programs(max_nodes=...)`` is a Hypothesis strategy of ``DataflowProgram``s: an
``IRModule`` whose ``@main`` takes some parameters and computes a DAG of operator calls, the
type the generator predicts for ``@main``, a record of every call (its argument and result
types), and which parameters must be positive; ``program.arguments()`` draws arguments for it.

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
used, or the tuple of all such values, so every node is live. Every registered operator can
be chosen at every step (a fresh leaf always fits), so every operator appears in long runs.

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
- every value carries a flag, *surely positive* under default arguments, derived by a few
  rules (``_positivity``: exp is positive, a sum of positives is, a reshape keeps it, ...).
  The inputs of ``log``, ``sqrt``, ``rsqrt``, the base of ``power`` and a batch norm's
  variance are surely positive (a fresh one is a parameter that ``program.positive`` marks,
  so that ``program.arguments()`` draws it positive); a divisor is a parameter, a constant
  or surely positive, never another computed value, so that it is not zero.

What is left depends on values: overflow (``exp`` of ``exp`` of ``exp``, 32-bit integer
products) and the rare NaN. ``benchmarks/generator.py`` measures how often.

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
each node's draws form one span, so the shrinker can also delete a node from the middle
while lowering the count. Within a node: the operator shrinks towards the first of
``OP_ORDER`` (``negative``); each input towards a fresh parameter rather than a reused value;
ranks towards the smallest allowed, dimensions towards 1, dtypes towards float32, attributes
towards the simplest legal value (axis 0, one section, no padding, stride 1). Choices are
drawn even where their value is forced (``integers(k, k)``) or unused, so that simplifying one
choice does not shift the meaning of the later ones: a program containing an ``nn.conv2d``
shrinks to that one call on two ``Tensor[(1, 1, 1, 1), float32]`` parameters.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias, TypeVar, cast

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from relay.semantics.ops import OPS
from relay.semantics.ops.create import InitOpAttrs
from relay.semantics.ops.elementwise import CastAttrs, ClipAttrs
from relay.semantics.ops.index import StridedSliceAttrs, TakeAttrs
from relay.semantics.ops.nn.activation import LeakyReluAttrs, SoftmaxAttrs
from relay.semantics.ops.nn.conv import Conv2DAttrs
from relay.semantics.ops.nn.dense import BiasAddAttrs, DenseAttrs
from relay.semantics.ops.nn.norm import BatchNormAttrs, DropoutAttrs
from relay.semantics.ops.nn.pool import AvgPool2DAttrs, GlobalPool2DAttrs, MaxPool2DAttrs
from relay.semantics.ops.nn.shape import PadAttrs
from relay.semantics.ops.reduce import ArgReduceAttrs, ReduceAttrs
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.ops.shape import (
    ConcatenateAttrs,
    ExpandDimsAttrs,
    ReshapeAttrs,
    SplitAttrs,
    SqueezeAttrs,
    StackAttrs,
    TransposeAttrs,
)
from relay.semantics.syntax import (
    DTYPES,
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    IRModule,
    Op,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    Var,
)
from relay.semantics.text.printer import format_type
from relay.semantics.values import Value

from .gen_args import arguments, arrays

MAX_RANK = 4
"""The largest rank of a fresh tensor and of a value offered as an input."""
MAX_RESULT_RANK = 5
"""The highest rank of a call's result (``nn.conv3d``'s); values above ``MAX_RANK`` are only
sinks, never offered as inputs."""
MAX_DIM = 6
"""The largest dimension of a fresh tensor."""
MAX_REUSE_DIM = 12
"""A pool value with a larger dimension is not offered as an input."""
MAX_REUSE_ELEMENTS = 1296
"""A pool value with more elements (6**4) is not offered as an input."""
MAX_CONSTANT_ELEMENTS = 4
"""Fresh leaves with at most this many elements may be constants rather than parameters."""

FLOATS: tuple[str, ...] = ("float32", "float16", "float64")
SIGNED: tuple[str, ...] = ("int32", "int8", "int16", "int64")
UNSIGNED: tuple[str, ...] = ("uint8", "uint16", "uint32", "uint64")
INTEGERS: tuple[str, ...] = SIGNED + UNSIGNED
NUMERIC: tuple[str, ...] = FLOATS + INTEGERS
"""Every dtype but bool, float32 first."""
ALL: tuple[str, ...] = (*NUMERIC, "bool")
"""Every dtype, float32 first."""
INDICES: tuple[str, ...] = (*INTEGERS, "bool")
"""The dtypes ``take`` accepts for indices, int32 first."""
BOOL: tuple[str, ...] = ("bool",)
assert sorted(ALL) == sorted(DTYPES)

_T = TypeVar("_T")

# ---------------------------------------------------------------------------------------------
# The result


@dataclass(frozen=True, slots=True)
class OpCall:
    """One operator call of a program: the node, its argument types, its result type, and
    whether each tensor of the result is surely positive under default arguments (one flag
    for a tensor, one per field of a tuple; see ``_positivity``)."""

    call: Call
    arg_types: tuple[Type, ...]
    result: Type
    positive: tuple[bool, ...]

    @property
    def op_name(self) -> str:
        """The operator's name."""
        assert isinstance(self.call.op, Op)
        return self.call.op.name


@dataclass(frozen=True, slots=True)
class DataflowProgram:
    """A generated module: ``@main(params) -> result_type``, and every operator call in it.

    ``calls`` are in construction order, which is a topological order of the DAG.
    """

    mod: IRModule
    params: tuple[Var, ...]
    result_type: Type
    calls: tuple[OpCall, ...]
    positive: tuple[bool, ...]
    """Per parameter: whether the program needs it positive to stay finite and defined."""

    @property
    def param_types(self) -> tuple[Type, ...]:
        """The parameter types of ``@main``, in order."""
        return tuple(p.type_annotation for p in self.params if p.type_annotation is not None)

    def arguments(self, *, special: bool = False) -> st.SearchStrategy[tuple[Value, ...]]:
        """Arguments for ``@main``: ``gen_args.arguments`` of the parameter types, positive
        where the program needs it (in default mode)."""
        return arguments(self.param_types, special=special, positive=self.positive)

    @property
    def op_names(self) -> frozenset[str]:
        """The operators the program calls."""
        return frozenset(c.op_name for c in self.calls)


# ---------------------------------------------------------------------------------------------
# The pool


@dataclass(eq=False, slots=True)
class _Entry:
    """A value of the pool: its expression, its type, how many nodes use it, and whether it
    is surely positive (one flag per tensor: one for a tensor, one per field of a tuple).

    ``offers`` are the tensors it can be an input as (computed once): itself (index ``None``)
    if it is an eligible tensor, or the eligible fields of a tuple not yet projected, each
    with its positivity.
    """

    expr: Expr
    type: Type
    positive: tuple[bool, ...]
    uses: int = 0
    projections: dict[int, _Entry] = field(default_factory=dict)
    offers: list[tuple[int | None, TensorType, bool]] = field(default_factory=list)
    leaf: bool = False

    def __post_init__(self) -> None:
        self.leaf = isinstance(self.expr, Var | Constant)
        if isinstance(self.type, TensorType):
            if _eligible(self.type):
                self.offers.append((None, self.type, self.positive[0]))
        elif isinstance(self.type, TupleType):
            for i, f in enumerate(self.type.fields):
                if isinstance(f, TensorType) and _eligible(f):
                    self.offers.append((i, f, self.positive[i]))


Arg: TypeAlias = tuple[Expr, Type]
"""An argument being built: its expression and its type."""
Built: TypeAlias = tuple[tuple[Arg, ...], Attrs | None]
"""What an operator builder returns: the arguments and the attributes."""
Builder: TypeAlias = "Callable[[_Graph], Built]"
Fits: TypeAlias = Callable[[TensorType], bool]


def _dims(t: TensorType) -> tuple[int, ...]:
    """The shape of a tensor type the generator offers as an input: integers (``_eligible``)."""
    return cast(tuple[int, ...], t.shape)


def _eligible(t: Type) -> bool:
    """Whether a pool value of type ``t`` may be offered as an input: a tensor of concrete
    shape (a dynamic operator's ``?`` result is only ever a sink) that is not too big."""
    if not isinstance(t, TensorType) or not all(isinstance(d, int) for d in t.shape):
        return False
    shape = _dims(t)
    return (
        len(shape) <= MAX_RANK
        and all(d <= MAX_REUSE_DIM for d in shape)
        and math.prod(shape) <= MAX_REUSE_ELEMENTS
    )


def _broadcast(a: Sequence[int], b: Sequence[int]) -> tuple[int, ...] | None:
    """The numpy broadcast of two shapes, or ``None`` if they do not broadcast."""
    out = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        if x != y and x != 1 and y != 1:
            return None
        out.append(y if x == 1 else x)
    return tuple(reversed(out))


@functools.cache
def _integers(lo: int, hi: int) -> st.SearchStrategy[int]:
    """``st.integers(lo, hi)``, made once: building a strategy costs more than drawing."""
    return st.integers(lo, hi)


_BOOLEANS = st.booleans()


def _divisors(n: int) -> list[int]:
    return [d for d in range(1, n + 1) if n % d == 0]


class _Graph:
    """The state of one program under construction, and the drawing helpers builders use."""

    def __init__(self, draw: st.DrawFn) -> None:
        self.draw = draw
        self.entries: list[_Entry] = []
        self.entry_of: dict[int, _Entry] = {}  # by id of the expression
        self.params: list[Var] = []
        self.positive_params: list[bool] = []
        self.calls: list[OpCall] = []

    # -- drawing ------------------------------------------------------------------------------

    def integer(self, lo: int, hi: int) -> int:
        """An integer in ``[lo, hi]`` (shrinks towards 0, or the bound nearer to it).

        Drawn even when ``lo == hi``: a choice that appears only once a bound widens would
        make a simpler program a longer choice sequence, which the shrinker rejects.
        """
        return self.draw(_integers(lo, hi))

    def flag(self) -> bool:
        """A boolean (shrinks towards ``False``)."""
        return self.draw(_BOOLEANS)

    def pick(self, options: Sequence[_T]) -> _T:
        """One of ``options`` (shrinks towards the first)."""
        return options[self.integer(0, len(options) - 1)]

    def dim(self) -> int:
        """A fresh dimension, 1 to ``MAX_DIM`` (shrinks towards 1)."""
        return self.integer(1, MAX_DIM)

    def shape(self, min_rank: int = 0, max_rank: int = MAX_RANK) -> tuple[int, ...]:
        """A fresh shape (shrinks towards rank ``min_rank`` and dimensions 1)."""
        return tuple(self.dim() for _ in range(self.integer(min_rank, max_rank)))

    def dtype(self, options: Sequence[str]) -> str:
        """One of ``options``, the first (float32 where allowed) about half the time."""
        return self.pick([options[0]] * (len(options) - 1) + list(options))

    def axis(self, axis: int, ndim: int) -> int:
        """``axis`` as written: itself, or sometimes its negative spelling."""
        return axis - ndim if self.flag() else axis

    def subset(self, n: int, min_size: int = 0, max_size: int | None = None) -> list[int]:
        """Distinct indices below ``n``, in drawn order (shrinks towards fewer, smaller)."""
        if n == 0 or max_size == 0:
            return []
        return self.draw(
            st.lists(_integers(0, n - 1), min_size=min_size, max_size=max_size, unique=True)
        )

    # -- the pool -----------------------------------------------------------------------------

    def _tensor_slots(
        self, fits: Fits, positive: bool, nonzero: bool
    ) -> list[tuple[_Entry, int | None]]:
        """Pool values of a fitting tensor type, the most recent first: an entry, or a tuple
        entry and the index of a field not yet projected. With ``positive``, only surely
        positive ones; with ``nonzero``, only those and parameters and constants (which
        default arguments and generated constants keep non-zero)."""
        return [
            (e, i)
            for e in reversed(self.entries)
            for i, t, p in e.offers
            if (p or not positive)
            and (p or e.leaf or not nonzero)
            and fits(t)
            and (i is None or i not in e.projections)
        ]

    def use(self, entry: _Entry) -> Arg:
        """Record a use of ``entry`` and return it as an argument."""
        entry.uses += 1
        return entry.expr, entry.type

    def project(self, entry: _Entry, index: int) -> _Entry:
        """The pool value ``entry.index`` (made on first use, then shared)."""
        if index not in entry.projections:
            assert isinstance(entry.type, TupleType)
            entry.uses += 1
            projection = self.add(
                TupleGetItem(entry.expr, index),
                entry.type.fields[index],
                (entry.positive[index],),
            )
            entry.projections[index] = projection
        return entry.projections[index]

    def add(self, expr: Expr, t: Type, positive: tuple[bool, ...], uses: int = 0) -> _Entry:
        """Put a new value in the pool."""
        entry = _Entry(expr, t, positive, uses)
        self.entries.append(entry)
        self.entry_of[id(expr)] = entry
        return entry

    def leaf(self, t: Type, positive: bool = False) -> Arg:
        """A fresh leaf of type ``t``: a new parameter or, for a small tensor, sometimes a
        constant (shrinks towards a parameter), whose values are positive if ``positive``
        (for a parameter: it asks for positive arguments). It joins the pool."""
        flags = (positive,) * (len(t.fields) if isinstance(t, TupleType) else 1)
        if isinstance(t, TensorType):
            shape = _dims(t)
            constant = self.integer(0, 7) == 7  # drawn always: see ``integer``
            if constant and math.prod(shape) <= MAX_CONSTANT_ELEMENTS:
                data = self.draw(arrays(t.dtype, shape, positive=positive))
                return self.use(self.add(Constant(data), t, flags))
        var = Var(f"p{len(self.params)}", t)
        self.params.append(var)
        self.positive_params.append(positive)
        return self.use(self.add(var, t, flags))

    def tensor(
        self,
        dtypes: Sequence[str] = ALL,
        *,
        min_rank: int = 0,
        max_rank: int = MAX_RANK,
        fits: Fits | None = None,
        fresh: Callable[[], TensorType] | None = None,
        positive: bool = False,
        nonzero: bool = False,
    ) -> tuple[Expr, TensorType]:
        """A tensor input: a pool value whose dtype is in ``dtypes``, whose rank is in
        ``[min_rank, max_rank]`` and which ``fits`` (and is ``positive`` or ``nonzero``, as
        ``_tensor_slots`` says), three times in four when there is one (the most recent
        preferred when shrinking); otherwise a fresh leaf (positive if asked) of the type
        ``fresh()`` draws (by default: a fresh shape and a dtype of ``dtypes``)."""

        def ok(t: TensorType) -> bool:
            return (
                t.dtype in dtypes
                and min_rank <= len(t.shape) <= max_rank
                and (fits is None or fits(t))
            )

        slots = self._tensor_slots(ok, positive, nonzero)
        # The choice is drawn even without candidates, so that the draws of a node line up
        # when the shrinker deletes an earlier node.
        if self.integer(0, 3) != 0 and slots:
            entry, index = slots[self.integer(0, len(slots) - 1)]
            if index is not None:
                entry = self.project(entry, index)
            expr, t = self.use(entry)
        else:
            t = (
                fresh()
                if fresh is not None
                else TensorType(self.shape(min_rank, max_rank), self.dtype(dtypes))
            )
            expr, _ = self.leaf(t, positive)
        assert isinstance(t, TensorType) and ok(t), f"fresh type {format_type(t)} does not fit"
        return expr, t

    def exactly(self, t: TensorType, *, positive: bool = False) -> tuple[Expr, TensorType]:
        """A tensor input of exactly the type ``t``."""
        return self.tensor(
            (t.dtype,),
            min_rank=len(t.shape),
            max_rank=len(t.shape),
            fits=lambda u: u == t,
            fresh=lambda: t,
            positive=positive,
        )

    def partner(
        self, shape: tuple[int, ...], dtypes: Sequence[str], *, nonzero: bool = False
    ) -> tuple[Expr, TensorType]:
        """A tensor that broadcasts with ``shape`` to a result of rank at most 4, of a dtype in
        ``dtypes`` (``nonzero`` as ``tensor`` says). A fresh one has ``shape``'s rank (shrinks
        there) or another; each of its dimensions is ``shape``'s (shrinks there) or 1, or any
        size where ``shape`` has 1."""

        def fresh() -> TensorType:
            rank = len(shape) + self.integer(-len(shape), MAX_RANK - len(shape))
            out = [self.dim() for _ in range(rank - len(shape))]
            for d in shape[max(0, len(shape) - rank) :]:
                out.append(self.dim() if d == 1 else (1 if self.flag() else d))
            return TensorType(tuple(out), self.dtype(dtypes))

        return self.tensor(
            dtypes,
            fits=lambda t: _broadcast(shape, _dims(t)) is not None,
            fresh=fresh,
            nonzero=nonzero,
        )

    def tuple_of(self, fields: Sequence[tuple[Expr, TensorType]]) -> Arg:
        """A tuple expression of ``fields``; it joins the pool, used once."""
        t = TupleType(tuple(f[1] for f in fields))
        positive = tuple(self.entry_of[id(e)].positive[0] for e, _ in fields)
        entry = self.add(Tuple(tuple(f[0] for f in fields)), t, positive, uses=1)
        return entry.expr, entry.type

    def tuple_values(self, fits: Callable[[tuple[TensorType, ...]], bool]) -> list[_Entry]:
        """Tuple values of the pool whose fields are eligible tensors that ``fits``."""
        out = []
        for e in reversed(self.entries):
            if not isinstance(e.type, TupleType) or not e.type.fields:
                continue
            fields = [f for f in e.type.fields if isinstance(f, TensorType) and _eligible(f)]
            if len(fields) == len(e.type.fields) and fits(tuple(fields)):
                out.append(e)
        return out

    # -- nodes --------------------------------------------------------------------------------

    def call(self, name: str, built: Built) -> None:
        """Add the call of ``name`` on ``built`` to the pool, typed by the op's relation."""
        args, attrs = built
        arg_types = tuple(t for _, t in args)
        relation = OPS[name].relation
        assert relation is not None, f"{name} has no relation"
        try:
            result = relation(arg_types, attrs)
        except RelationError as e:
            shown = ", ".join(format_type(t) for t in arg_types)
            raise AssertionError(
                f"the generator built an ill-typed call {name}({shown}; {attrs}): {e}"
            ) from None
        fields = result.fields if isinstance(result, TupleType) else (result,)
        assert all(isinstance(f, TensorType) and len(f.shape) <= MAX_RESULT_RANK for f in fields), (
            f"{name} made {format_type(result)}, beyond rank {MAX_RESULT_RANK}"
        )
        node = Call(Op(name), tuple(e for e, _ in args), attrs)
        positive = _positivity(
            name, [self.entry_of[id(e)].positive for e, _ in args], attrs, arg_types, result
        )
        self.calls.append(OpCall(node, arg_types, result, positive))
        self.add(node, result, positive)

    def program(self) -> DataflowProgram:
        """``@main`` over the parameters, returning every value nothing used."""
        sinks = [e for e in self.entries if e.uses == 0]
        if len(sinks) == 1:
            body, result = sinks[0].expr, sinks[0].type
        else:
            body = Tuple(tuple(e.expr for e in sinks))
            result = TupleType(tuple(e.type for e in sinks))
        fn = Function(tuple(self.params), body)
        mod = IRModule({GlobalVar("main"): fn})
        return DataflowProgram(
            mod, tuple(self.params), result, tuple(self.calls), tuple(self.positive_params)
        )


# ---------------------------------------------------------------------------------------------
# Positivity: which values are surely positive under default arguments

_ALWAYS_POSITIVE = frozenset({"exp", "sigmoid", "nn.softmax", "ones", "ones_like"})
_KEEP_POSITIVE = frozenset(
    {
        *("abs", "ceil", "nn.relu", "nn.leaky_relu", "sqrt", "power", "take"),
        *("reshape", "transpose", "expand_dims", "squeeze", "broadcast_to", "strided_slice"),
        "nn.batch_flatten",
    }
)
"""Positive when the first argument is."""
_BOTH_POSITIVE = frozenset({"add", "multiply", "divide", "minimum", "nn.bias_add"})
_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "prod", "nn.global_avg_pool2d"})


def _positivity(
    name: str,
    args: Sequence[tuple[bool, ...]],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    result: Type,
) -> tuple[bool, ...]:
    """Whether each tensor of the result of ``name`` is surely positive (every element > 0)
    when the arguments are as ``args`` says, by a few sound rules (exp is positive, a sum of
    positives is, a reshape keeps it, ...). Only float values count: integer arithmetic wraps.
    Overflow to inf and underflow to 0 are ignored: this steers the generator towards finite
    values, it does not promise them."""

    def pos(i: int) -> bool:
        return args[i] == (True,)

    nonempty = all(0 not in _dims(t) for t in arg_types if isinstance(t, TensorType))
    first = pos(0) if args else False
    flags: tuple[bool, ...]
    match name:
        case _ if name in _ALWAYS_POSITIVE:
            flags = (True,)
        case _ if name in _KEEP_POSITIVE:
            flags = (first,)
        case _ if name in _BOTH_POSITIVE:
            flags = (pos(0) and pos(1),)
        case _ if name in _REDUCTIONS:
            flags = (first and nonempty,)
        case "maximum":
            flags = (pos(0) or pos(1),)
        case "where":
            flags = (pos(1) and pos(2),)
        case "concatenate" | "stack":
            flags = (all(args[0]),)
        case "nn.dense" | "nn.conv2d":
            flags = (pos(0) and pos(1) and nonempty,)
        case "nn.max_pool2d" | "nn.avg_pool2d":
            assert isinstance(attrs, MaxPool2DAttrs | AvgPool2DAttrs)
            # No window may lie in the padding or the ceil_mode extension.
            flags = (first and nonempty and not any(attrs.padding) and not attrs.ceil_mode,)
        case "nn.pad":
            assert isinstance(attrs, PadAttrs)
            flags = (first and (attrs.pad_mode != "constant" or pos(1)),)
        case "cast" | "full":
            # A positive float made an integer may truncate to 0.
            source = cast(TensorType, arg_types[0]).dtype
            flags = (first and not (source.startswith("float") and not _is_float(result)),)
        case "full_like":
            source = cast(TensorType, arg_types[1]).dtype
            flags = (pos(1) and not (source.startswith("float") and not _is_float(result)),)
        case "clip":
            assert isinstance(attrs, ClipAttrs)
            flags = (attrs.a_min > 0 or (first and attrs.a_max > 0),)
        case "split":
            assert isinstance(result, TupleType)
            flags = (first,) * len(result.fields)
        case "nn.dropout":
            flags = (first, True)
        case "nn.batch_norm":
            flags = (False, pos(3), pos(4))
        case _:
            flags = (False,) * (len(result.fields) if isinstance(result, TupleType) else 1)
    fields = result.fields if isinstance(result, TupleType) else (result,)
    return tuple(f and _is_float(t) for f, t in zip(flags, fields, strict=True))


def _is_float(t: Type) -> bool:
    return isinstance(t, TensorType) and t.dtype.startswith("float")


# ---------------------------------------------------------------------------------------------
# Operator builders: one per operator, each returning arguments and attributes that the
# operator's relation accepts.


def _unary(
    dtypes: Sequence[str],
    attrs: Callable[[_Graph, str], Attrs] | None = None,
    *,
    positive: bool = False,
) -> Builder:
    """One ``data`` input of a dtype in ``dtypes`` (surely positive if ``positive``), any
    shape; ``attrs`` from its dtype."""

    def build(g: _Graph) -> Built:
        data = g.tensor(dtypes, positive=positive)
        return (data,), attrs(g, data[1].dtype) if attrs is not None else None

    return build


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


def _targets(source: str) -> tuple[str, ...]:
    """The dtypes a ``source`` value converts to for every ordinary value (float32 first): a
    float converted to an unsigned integer is undefined when negative (``fptoui`` poison), and
    half of the usual values are negative."""
    if source.startswith("float"):
        return tuple(d for d in ALL if d not in UNSIGNED)
    return ALL


def _sources(target: str) -> tuple[str, ...]:
    """The dtypes that convert to ``target`` for every ordinary value (see ``_targets``),
    ``target`` first."""
    others = INTEGERS + BOOL if target in UNSIGNED else ALL
    return (target, *(d for d in others if d != target))


def _accumulators(source: str) -> tuple[str, ...]:
    """The ``out_dtype``s of ``nn.dense`` and ``nn.conv2d`` for ``source`` data: floats, and
    for integer data integers that hold its values (a negative value made unsigned wraps to a
    huge one, whose 32/64-bit products overflow)."""
    if source.startswith("float"):
        return FLOATS
    if source.startswith("uint"):
        return NUMERIC
    return FLOATS + SIGNED


def _cast_attrs(g: _Graph, dtype: str) -> Attrs:
    return CastAttrs.from_kwargs({"dtype": g.dtype(_targets(dtype))})


def _leaky_relu_attrs(g: _Graph, dtype: str) -> Attrs:
    # Between 0 and 1, so the slope converts to every dtype, bool included.
    return LeakyReluAttrs.from_kwargs({"alpha": g.pick([0.25, 0.0, 0.1, 0.5, 1.0])})


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


def _full_like(g: _Graph) -> Built:
    """Any data; a rank-0 fill value of a dtype that converts to the data's."""
    data = g.tensor(ALL)
    return (data, g.tensor(_sources(data[1].dtype), max_rank=0)), None


def _reduction(arg: bool, dtypes: Sequence[str] = ALL) -> Builder:
    """A value (``arg=False``) or index reduction. Avoids the attribute forms whose compute TVM
    rejects (``exclude`` with ``axis=None``, ``axis=[]`` without ``exclude``) and index
    reductions of no axis."""

    def build(g: _Graph) -> Built:
        data = g.tensor(dtypes, min_rank=1 if arg else 0)
        ndim = len(data[1].shape)
        kind = g.integer(0, 2) if ndim else 0
        axis: tuple[int, ...] | None = None
        if kind == 1:
            axis = tuple(g.subset(ndim, min_size=1))
        elif kind == 2:
            axis = tuple(g.subset(ndim, max_size=ndim - 1 if arg else ndim))
        if axis and g.flag():
            axis = tuple(a - ndim for a in axis)
        kwargs: dict[str, object] = {"axis": axis, "keepdims": g.flag(), "exclude": kind == 2}
        if arg:
            kwargs["select_last_index"] = g.flag()
            return (data,), ArgReduceAttrs.from_kwargs(kwargs)
        return (data,), ReduceAttrs.from_kwargs(kwargs)

    return build


def _factorise(g: _Graph, total: int) -> list[int]:
    """One to four positive sizes whose product is ``total`` (> 0)."""
    dims = []
    rest = total
    for _ in range(g.integer(0, MAX_RANK - 1)):
        d = g.pick(_divisors(rest))
        dims.append(d)
        rest //= d
    return [*dims, rest]


def _newshape_walk(g: _Graph, shape: tuple[int, ...], allowzero: bool) -> list[int]:
    """A newshape read from the input left to right with the special values 0 (copy), -1
    (infer), -2 (copy the rest), -3 (merge two), -4 (split one) and sizes, keeping the output
    rank at most 4 (the invariant: outputs so far plus inputs left is at most 4)."""
    tokens: list[int] = []
    src = out = 0
    may_infer = 0 not in shape
    while src < len(shape):
        d = shape[src]
        options = ["rest"]
        if not allowzero:
            options.append("copy")
        if d > 0 or allowzero:
            options.append("size")
        if may_infer:
            options.append("infer")
        if src + 1 < len(shape):
            options.append("merge")
        if d >= 1 and out + 2 + len(shape) - src - 1 <= MAX_RANK:
            options.append("split")
        choice = g.pick(options)
        if choice == "rest":
            tokens.append(-2)
            break
        out += 1
        if choice == "copy":
            tokens.append(0)
        elif choice == "size":
            tokens.append(d)
        elif choice == "infer":
            tokens.append(-1)
            may_infer = False
        elif choice == "merge":
            # Only -3 merges: a positive size advances TVM's input position by one, however
            # large it is.
            tokens.append(-3)
            src += 1
        else:
            a = g.pick(_divisors(d))
            tokens += [-4, *g.pick([(a, d // a), (-1, d // a), (a, -1)])]
            out += 1
            may_infer = False  # TVM writes a later -1 at its position in newshape: wrong here
        src += 1
    return tokens


def _reshape(g: _Graph) -> Built:
    """A factorisation of the element count (perhaps with one -1), or a walk with TVM's special
    values."""
    data = g.tensor(ALL)
    shape = _dims(data[1])
    total = math.prod(shape)
    allowzero = g.flag()
    walk = g.flag()
    if not walk and total > 0:
        newshape = _factorise(g, total)
        if g.flag():
            newshape[g.integer(0, len(newshape) - 1)] = -1
    elif not walk and allowzero:
        # Any shape with a literal 0 holds no elements either.
        newshape = [g.dim() for _ in range(g.integer(0, MAX_RANK - 1))]
        newshape.insert(g.integer(0, len(newshape)), 0)
    else:
        newshape = _newshape_walk(g, shape, allowzero)
    return (data,), ReshapeAttrs.from_kwargs({"newshape": tuple(newshape), "allowzero": allowzero})


def _transpose(g: _Graph) -> Built:
    data = g.tensor(ALL)
    ndim = len(data[1].shape)
    axes: tuple[int, ...] | None = None
    if g.flag():
        perm = g.draw(st.permutations(range(ndim)))
        axes = tuple(perm) if not g.flag() else tuple(a - ndim for a in perm)
    return (data,), TransposeAttrs.from_kwargs({"axes": axes})


def _concatenable_axes(fields: tuple[TensorType, ...]) -> list[int]:
    """The axes along which ``fields`` concatenate (same rank >= 1 and dtype, other dims equal)."""
    first = _dims(fields[0])
    if not first or any(f.dtype != fields[0].dtype or len(f.shape) != len(first) for f in fields):
        return []
    return [
        axis
        for axis in range(len(first))
        if all(
            _dims(f)[:axis] == first[:axis] and _dims(f)[axis + 1 :] == first[axis + 1 :]
            for f in fields
        )
    ]


def _stackable(fields: tuple[TensorType, ...]) -> bool:
    """Whether ``fields`` stack: identical types of rank at most 3."""
    return len(fields[0].shape) < MAX_RANK and all(f == fields[0] for f in fields)


def _concatenate(g: _Graph) -> Built:
    """A tuple built here (from pool values and fresh leaves), a tuple value of the pool, or a
    fresh tuple parameter; fields of one dtype and rank, equal off the axis."""
    source = g.integer(0, 3)
    existing = g.tuple_values(lambda fs: bool(_concatenable_axes(fs))) if source == 2 else []
    if existing:
        entry = existing[g.integer(0, len(existing) - 1)]
        assert isinstance(entry.type, TupleType)
        fields = tuple(f for f in entry.type.fields if isinstance(f, TensorType))
        axis = g.pick(_concatenable_axes(fields))
        data = g.use(entry)
    elif source == 3:
        first = TensorType(g.shape(1), g.dtype(ALL))
        axis = g.integer(0, len(first.shape) - 1)
        types = [first]
        for _ in range(g.integer(0, 2)):
            dims = list(_dims(first))
            dims[axis] = g.dim()
            types.append(TensorType(tuple(dims), first.dtype))
        data = g.leaf(TupleType(tuple(types)))
    else:
        head = g.tensor(ALL, min_rank=1)
        shape = _dims(head[1])
        axis = g.integer(0, len(shape) - 1)
        built = [head]

        def fits(t: TensorType) -> bool:
            d = _dims(t)
            return (
                len(d) == len(shape)
                and d[:axis] + d[axis + 1 :] == shape[:axis] + shape[axis + 1 :]
            )

        def fresh() -> TensorType:
            return TensorType((*shape[:axis], g.dim(), *shape[axis + 1 :]), head[1].dtype)

        for _ in range(g.integer(0, 2)):
            built.append(g.tensor((head[1].dtype,), fits=fits, fresh=fresh))
        data = g.tuple_of(built)
    assert isinstance(data[1], TupleType)
    ndim = len(data[1].fields[0].shape)  # type: ignore[union-attr]
    return (data,), ConcatenateAttrs.from_kwargs({"axis": g.axis(axis, ndim)})


def _stack(g: _Graph) -> Built:
    """Like ``_concatenate``, with fields of one type of rank at most 3."""
    source = g.integer(0, 3)
    existing = g.tuple_values(_stackable) if source == 2 else []
    if existing:
        data = g.use(existing[g.integer(0, len(existing) - 1)])
    elif source == 3:
        t = TensorType(g.shape(0, MAX_RANK - 1), g.dtype(ALL))
        data = g.leaf(TupleType((t,) * g.integer(1, 3)))
    else:
        head = g.tensor(ALL, max_rank=MAX_RANK - 1)
        built = [head] + [g.exactly(head[1]) for _ in range(g.integer(0, 2))]
        data = g.tuple_of(built)
    assert isinstance(data[1], TupleType)
    ndim = len(data[1].fields[0].shape)  # type: ignore[union-attr]
    return (data,), StackAttrs.from_kwargs({"axis": g.axis(g.integer(0, ndim), ndim + 1)})


def _split(g: _Graph) -> Built:
    """Equal sections that divide the extent, or split indices strictly inside it."""
    data = g.tensor(ALL, min_rank=1)
    shape = _dims(data[1])
    axis = g.integer(0, len(shape) - 1)
    extent = shape[axis]
    spec: int | tuple[int, ...]
    if extent >= 1 and g.flag():
        spec = tuple(sorted(1 + i for i in g.subset(extent - 1, max_size=3)))
    else:
        spec = g.pick(_divisors(extent)) if extent else g.integer(1, 3)
    attrs = SplitAttrs.from_kwargs({"indices_or_sections": spec, "axis": g.axis(axis, len(shape))})
    return (data,), attrs


def _expand_dims(g: _Graph) -> Built:
    data = g.tensor(ALL)
    ndim = len(data[1].shape)
    axis = g.axis(g.integer(0, ndim), ndim + 1)
    count = g.integer(0, MAX_RANK - ndim)
    return (data,), ExpandDimsAttrs.from_kwargs({"axis": axis, "num_newaxis": count})


def _squeeze(g: _Graph) -> Built:
    """Every unit axis (``axis=None``), or some of them."""
    data = g.tensor(ALL)
    shape = _dims(data[1])
    axis: tuple[int, ...] | None = None
    if g.flag():
        units = [i for i, d in enumerate(shape) if d == 1]
        axis = tuple(g.axis(units[i], len(shape)) for i in g.subset(len(units)))
    return (data,), SqueezeAttrs.from_kwargs({"axis": axis})


def _take(g: _Graph) -> Built:
    """Data without empty axes (an empty axis makes any non-empty take undefined); indices of
    an integer or bool dtype whose leading ``batch_dims`` dimensions are the data's, of a rank
    that keeps the result at rank 4 or less. Mode "fast" (undefined for an index out of
    range) only where every index is surely in range: bool indices into an extent of at
    least 2; "clip" otherwise."""
    data = g.tensor(ALL, fits=lambda t: 0 not in _dims(t))
    shape = _dims(data[1])
    ndim = len(shape)
    axis: int | None = None
    batch = 0
    high = MAX_RANK
    if ndim and g.flag():
        axis = g.integer(0, ndim - 1)
        batch = g.integer(0, axis) if g.flag() else 0
        high = min(MAX_RANK, MAX_RANK + 1 - ndim + batch)
    prefix = shape[:batch]

    def fresh() -> TensorType:
        rest = g.shape(0, high - batch)
        return TensorType(prefix + rest, g.dtype(INDICES))

    indices = g.tensor(
        INDICES,
        min_rank=batch,
        max_rank=high,
        fits=lambda t: _dims(t)[:batch] == prefix,
        fresh=fresh,
    )
    extent = math.prod(shape) if axis is None else shape[axis]
    mode = g.pick(["clip", "wrap", "fast"])
    if mode == "fast" and (indices[1].dtype != "bool" or extent < 2):
        mode = "clip"
    attrs = TakeAttrs.from_kwargs(
        {
            "axis": None if axis is None else g.axis(axis, ndim),
            "batch_dims": batch,
            "mode": mode,
        }
    )
    return (data, indices), attrs


def _canonical(index: int, dim: int, stride: int) -> int:
    """A slice index made non-negative and clamped, as strided_slice reads it."""
    lo, hi = (-1, dim - 1) if stride < 0 else (0, dim)
    return min(max(index + dim if index < 0 else index, lo), hi)


def _strided_slice(g: _Graph) -> Built:
    """Leading axes or listed ones; per axis a begin, end (or size) and stride whose canonical
    bounds do not run backwards (shrinks towards the whole axis with stride 1)."""
    data = g.tensor(ALL, min_rank=1)
    shape = _dims(data[1])
    ndim = len(shape)
    size_mode = g.integer(0, 3) == 3
    axes: list[int] | None = None
    if g.flag():
        axes = g.subset(ndim, min_size=1)
        sliced = axes
    else:
        sliced = list(range(g.integer(0, ndim)))
    begin, end, strides = [], [], []
    for ax in sliced:
        dim = shape[ax]
        if size_mode:
            b = g.integer(0, dim)
            begin.append(b)
            end.append(g.integer(-1, dim - b))
            strides.append(1)
            continue
        s = g.pick([1, 2, -1, 3, -2])
        b, e = g.integer(-dim - 2, dim + 2), dim - g.integer(-2, 2 * dim + 2)
        if (_canonical(b, dim, s) > _canonical(e, dim, s)) == (s > 0):
            b, e = e, b
        begin.append(b)
        end.append(e)
        strides.append(s)
    attrs = StridedSliceAttrs.from_kwargs(
        {
            "begin": tuple(begin),
            "end": tuple(end),
            "strides": tuple(strides),
            "slice_mode": "size" if size_mode else "end",
            "axes": None if axes is None else tuple(axes),
        }
    )
    return (data,), attrs


def _broadcast_to(g: _Graph) -> Built:
    """A target shape: the data's, each unit dimension perhaps widened, perhaps with new leading
    dimensions."""
    data = g.tensor(ALL)
    shape = _dims(data[1])
    lead = [g.dim() for _ in range(g.integer(0, MAX_RANK - len(shape)))]
    target = (*lead, *(g.dim() if d == 1 else d for d in shape))
    return (data,), InitOpAttrs.from_kwargs({"shape": target, "dtype": ""})


def _init(g: _Graph) -> Built:
    """``zeros`` and ``ones``: a shape and a dtype."""
    return (), InitOpAttrs.from_kwargs({"shape": g.shape(), "dtype": g.dtype(ALL)})


def _full(g: _Graph) -> Built:
    """A rank-0 fill value; the dtype attribute "" (the fill's) or one it converts to."""
    fill = g.tensor(ALL, max_rank=0)
    dtype = g.dtype(_targets(fill[1].dtype)) if g.flag() else ""
    return (fill,), InitOpAttrs.from_kwargs({"shape": g.shape(), "dtype": dtype})


def _softmax(g: _Graph) -> Built:
    """Float data (softmax of other dtypes is undefined), rank at least 1."""
    data = g.tensor(FLOATS, min_rank=1)
    ndim = len(data[1].shape)
    return (data,), SoftmaxAttrs.from_kwargs({"axis": g.axis(g.integer(0, ndim - 1), ndim)})


def _dense(g: _Graph) -> Built:
    """Data ``(.., k)``; weight ``(units, k)`` of the same dtype; ``units`` given or not."""
    data = g.tensor(NUMERIC, min_rank=1)
    dtype = data[1].dtype
    k = _dims(data[1])[-1]
    weight = g.tensor(
        (dtype,),
        min_rank=2,
        max_rank=2,
        fits=lambda t: _dims(t)[1] == k,
        fresh=lambda: TensorType((g.dim(), k), dtype),
    )
    units = _dims(weight[1])[0] if g.flag() else None
    out_dtype = g.dtype(_accumulators(dtype)) if g.flag() else ""
    return (data, weight), DenseAttrs.from_kwargs({"units": units, "out_dtype": out_dtype})


def _bias_add(g: _Graph) -> Built:
    data = g.tensor(NUMERIC, min_rank=1)
    shape = _dims(data[1])
    axis = g.integer(0, len(shape) - 1)
    bias = g.exactly(TensorType((shape[axis],), data[1].dtype))
    return (data, bias), BiasAddAttrs.from_kwargs({"axis": g.axis(axis, len(shape))})


def _batch_flatten(g: _Graph) -> Built:
    return (g.tensor(ALL, min_rank=1),), None


def _padding(g: _Graph, high: int) -> tuple[tuple[int, ...], int, int]:
    """Padding of 1, 2 or 4 values, and the total height and width padding it gives."""
    p = tuple(g.integer(0, high) for _ in range(g.pick([1, 2, 4])))
    if len(p) == 1:
        return p, 2 * p[0], 2 * p[0]
    if len(p) == 2:
        return p, 2 * p[0], 2 * p[1]
    return p, p[0] + p[2], p[1] + p[3]


def _window(g: _Graph, extent: int, pad: int, dilation: int) -> int:
    """A window size (at most 3) whose dilated span fits the padded extent (at least 1)."""
    return g.integer(1, min(3, (extent + pad - 1) // dilation + 1))


_CONV_LAYOUTS = (("NCHW", "OIHW"), ("NHWC", "HWIO"), ("NCHW", "OHWI"), ("NHWC", "OIHW"))
_CONV_OUT_LAYOUTS = ("", "NCHW", "NHWC")


def _conv2d(g: _Graph) -> Built:
    """Data in a layout with non-empty N, C, H, W; then plain, grouped (groups dividing C) or
    depthwise (groups = C, perhaps with a channel multiplier); strides, dilation, padding; a
    kernel that fits the padded input; the weight's type follows from all of these."""
    data_layout, kernel_layout = g.pick(_CONV_LAYOUTS)
    data = g.tensor(NUMERIC, min_rank=4, max_rank=4, fits=lambda t: all(d >= 1 for d in _dims(t)))
    sizes = dict(zip(data_layout, _dims(data[1]), strict=True))
    c = sizes["C"]
    kind = g.integer(0, 2) if c > 1 else 0 * g.integer(0, 2)  # drawn always: see ``integer``
    groups = 1 if kind == 0 else c if kind == 2 else g.pick([d for d in _divisors(c) if d > 1])
    strides = (g.integer(1, 2), g.integer(1, 2))
    dilation = (g.integer(1, 2), g.integer(1, 2))
    padding, pad_h, pad_w = _padding(g, 2)
    kh = _window(g, sizes["H"], pad_h, dilation[0])
    kw = _window(g, sizes["W"], pad_w, dilation[1])
    if kind == 2:
        # Depthwise: TVM's weight (C, multiplier, kh, kw), read so given channels and
        # kernel_size.
        multiplier = g.integer(1, 3)
        weight = {"O": c, "I": multiplier, "H": kh, "W": kw}
        channels: int | None = c * multiplier
        kernel_size: tuple[int, int] | None = (kh, kw)
    else:
        out = groups * g.integer(1, 2)
        weight = {"O": out, "I": c // groups, "H": kh, "W": kw}
        channels = out if g.flag() else None
        kernel_size = (kh, kw) if g.flag() else None
    w = g.exactly(TensorType(tuple(weight[a] for a in kernel_layout), data[1].dtype))
    attrs = Conv2DAttrs.from_kwargs(
        {
            "strides": strides,
            "padding": padding,
            "dilation": dilation,
            "groups": groups,
            "channels": channels,
            "kernel_size": kernel_size,
            "data_layout": data_layout,
            "kernel_layout": kernel_layout,
            "out_layout": g.pick(_CONV_OUT_LAYOUTS),
            "out_dtype": g.dtype(_accumulators(data[1].dtype)) if g.flag() else "",
        }
    )
    return (data, w), attrs


_POOL_LAYOUTS = ("NCHW", "NHWC", "CHW", "HWC", "HW")


def _spatial(
    g: _Graph, dtypes: Sequence[str], max_area: int | None = None
) -> tuple[tuple[Expr, TensorType], str]:
    """Data for a 2-D pooling: a layout, and data of its rank with non-empty H and W (and
    at most ``max_area`` elements per plane)."""
    layout = g.pick(_POOL_LAYOUTS)
    h, w = layout.index("H"), layout.index("W")

    def fits(t: TensorType) -> bool:
        d = _dims(t)
        return d[h] >= 1 and d[w] >= 1 and (max_area is None or d[h] * d[w] <= max_area)

    rank = len(layout)
    return g.tensor(dtypes, min_rank=rank, max_rank=rank, fits=fits), layout


def _pool2d(attrs_type: type[MaxPool2DAttrs] | type[AvgPool2DAttrs]) -> Builder:
    """A window that fits the padded input; max pooling takes every dtype, average pooling
    every dtype but bool (whose sums are undefined)."""
    average = attrs_type is AvgPool2DAttrs

    def build(g: _Graph) -> Built:
        data, layout = _spatial(g, NUMERIC if average else ALL)
        sizes = dict(zip(layout, _dims(data[1]), strict=True))
        strides = (g.integer(1, 2), g.integer(1, 2))
        dilation = (g.integer(1, 2), g.integer(1, 2))
        padding, pad_h, pad_w = _padding(g, 1)
        pool = (
            _window(g, sizes["H"], pad_h, dilation[0]),
            _window(g, sizes["W"], pad_w, dilation[1]),
        )
        kwargs: dict[str, object] = {
            "pool_size": pool,
            "strides": strides,
            "dilation": dilation,
            "padding": padding,
            "layout": layout,
            "ceil_mode": g.flag(),
        }
        if average:
            # With ceil_mode, a last window may lie wholly in the extension: counting the
            # padding there divides by 0, undefined for integers (NaN for floats).
            include_pad = g.flag()
            kwargs["count_include_pad"] = include_pad and (
                data[1].dtype.startswith("float") or not kwargs["ceil_mode"]
            )
        return (data,), attrs_type.from_kwargs(kwargs)

    return build


def _global_avg_pool2d(g: _Graph) -> Built:
    """Numeric data (bool sums are undefined) whose H * W fits every integer dtype: int8
    must represent the element count."""
    data, layout = _spatial(g, NUMERIC, max_area=127)
    return (data,), GlobalPool2DAttrs.from_kwargs({"layout": layout})


def _batch_norm(g: _Graph) -> Built:
    """Float data (others are undefined); four ``(C,)`` vectors of its dtype, the variance
    surely positive."""
    data = g.tensor(FLOATS, min_rank=1)
    shape = _dims(data[1])
    axis = g.integer(-1, len(shape) - 1)
    vector = TensorType((shape[axis],), data[1].dtype)
    # The moving variance is surely positive: sqrt(var + eps) of a negative one is NaN.
    vectors = tuple(g.exactly(vector, positive=i == 3) for i in range(4))
    attrs = BatchNormAttrs.from_kwargs(
        {
            "axis": axis,
            "epsilon": g.pick([1e-5, 1e-3, 0.5]),
            "center": not g.flag(),
            "scale": not g.flag(),
        }
    )
    return (data, *vectors), attrs


def _dropout(g: _Graph) -> Built:
    data = g.tensor(ALL)
    return (data,), DropoutAttrs.from_kwargs({"rate": g.pick([0.5, 0.0, 0.25, 0.9])})


def _pad(g: _Graph) -> Built:
    """Constant padding (cropping up to half an axis), edge padding, or reflection narrower
    than the axis; a non-empty ``pad_val`` of a dtype that converts to the data's (rank 0 when
    fresh, the data's dtype preferred)."""
    data = g.tensor(ALL)
    shape = _dims(data[1])
    mode = g.pick(["constant", "edge", "reflect"])
    if 0 in shape:
        mode = "constant"  # edge and reflect read outside an empty axis
    widths = []
    for d in shape:
        if mode == "constant":
            widths.append((g.integer(-(d // 2), 2), g.integer(-(d // 2), 2)))
        else:
            high = 2 if mode == "edge" else min(2, d - 1)
            widths.append((g.integer(0, high), g.integer(0, high)))
    sources = _sources(data[1].dtype)
    pad_val = g.tensor(
        sources,
        fits=lambda t: 0 not in _dims(t),
        fresh=lambda: TensorType((), g.dtype(sources)),
    )
    attrs = PadAttrs.from_kwargs({"pad_width": tuple(widths), "pad_mode": mode})
    return (data, pad_val), attrs


# ---------------------------------------------------------------------------------------------
# The table and the strategy

_ANY_UNARY = ("abs", "floor", "ceil", "round", "nn.relu", "zeros_like", "ones_like")
_DIVISION = ("divide", "floor_divide", "mod", "floor_mod")
_COMPARISON = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")

BUILDERS: dict[str, Builder] = {
    # -x of a non-zero uint32 or uint64 overflows (nuw): undefined for every usual input.
    "negative": _unary(tuple(d for d in ALL if d not in ("uint32", "uint64"))),
    **{name: _unary(ALL) for name in _ANY_UNARY},
    **{name: _unary(FLOATS) for name in ("exp", "tanh", "sigmoid")},
    # NaN or infinite for non-positive data: the data is surely positive.
    **{name: _unary(FLOATS, positive=True) for name in ("log", "sqrt", "rsqrt")},
    "logical_not": _unary(BOOL),
    "clip": _unary(ALL, _clip_attrs),
    "cast": _unary(ALL, _cast_attrs),
    "nn.leaky_relu": _unary(ALL, _leaky_relu_attrs),
    **{name: _binary(ALL) for name in ("add", "subtract", "multiply", "maximum", "minimum")},
    **{name: _division for name in _DIVISION},
    **{name: _binary(ALL) for name in _COMPARISON},
    "power": _power,
    "logical_and": _binary(BOOL),
    "logical_or": _binary(BOOL),
    "where": _where,
    "full_like": _full_like,
    **{name: _reduction(arg=False) for name in ("sum", "max", "min", "prod")},
    # The mean of bool divides by a count cast to bool: undefined beyond one element.
    "mean": _reduction(arg=False, dtypes=NUMERIC),
    "argmax": _reduction(arg=True),
    "argmin": _reduction(arg=True),
    "reshape": _reshape,
    "transpose": _transpose,
    "concatenate": _concatenate,
    "stack": _stack,
    "split": _split,
    "expand_dims": _expand_dims,
    "squeeze": _squeeze,
    "take": _take,
    "strided_slice": _strided_slice,
    "broadcast_to": _broadcast_to,
    "zeros": _init,
    "ones": _init,
    "full": _full,
    "nn.softmax": _softmax,
    "nn.log_softmax": _softmax,
    "nn.dense": _dense,
    "nn.bias_add": _bias_add,
    "nn.batch_flatten": _batch_flatten,
    "nn.conv2d": _conv2d,
    "nn.max_pool2d": _pool2d(MaxPool2DAttrs),
    "nn.avg_pool2d": _pool2d(AvgPool2DAttrs),
    "nn.global_avg_pool2d": _global_avg_pool2d,
    "nn.batch_norm": _batch_norm,
    "nn.dropout": _dropout,
    "nn.pad": _pad,
}
"""How to build a well-typed call of every registered operator, by name."""

# The other operator groups' builders, each in its own module (they import from this one).
from . import (  # noqa: E402
    builders_arith,
    builders_dynq,
    builders_indexing,
    builders_nnconv,
    builders_nnnorm,
    builders_shaping,
)

for _group in (
    builders_arith,
    builders_indexing,
    builders_shaping,
    builders_nnconv,
    builders_nnnorm,
    builders_dynq,
):
    BUILDERS.update(_group.BUILDERS)

OP_ORDER: tuple[str, ...] = tuple(BUILDERS)
"""The operators in the order a node's choice shrinks along (simplest first)."""


def missing_builders() -> list[str]:
    """Registered operators without an entry in ``BUILDERS``."""
    return sorted(set(OPS) - set(BUILDERS))


def dataflow_programs(
    *,
    min_nodes: int = 1,
    max_nodes: int = 20,
    ops: Sequence[str] | None = None,
) -> st.SearchStrategy[DataflowProgram]:
    """Well-typed dataflow programs of ``min_nodes`` to ``max_nodes`` operator calls.

    ``ops`` restricts the operators drawn from (default: every registered one, in
    ``OP_ORDER``). See the module docstring for the construction, the sizes and how the
    programs shrink: towards fewer nodes, earlier operators, fresh parameters instead of
    reused values, smaller ranks and dimensions, float32, and default attributes.
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

    @st.composite
    def node(draw: st.DrawFn, g: _Graph) -> None:
        # One node's draws form one span, which the shrinker can delete while lowering the
        # node count by one.
        outer, g.draw = g.draw, draw
        name = g.pick(names)
        g.call(name, BUILDERS[name](g))
        g.draw = outer

    @st.composite
    def programs(draw: st.DrawFn) -> DataflowProgram:
        g = _Graph(draw)
        for _ in range(draw(st.integers(min_nodes, max_nodes))):
            draw(node(g))
        return g.program()

    return programs()


__all__ = [
    "BUILDERS",
    "MAX_DIM",
    "MAX_RANK",
    "OP_ORDER",
    "DataflowProgram",
    "OpCall",
    "dataflow_programs",
    "missing_builders",
]
