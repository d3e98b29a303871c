"""The framework of the dataflow-generator builders: the pool of typed values a program is built
from (``_Graph``), the result types (``OpCall``, ``DataflowProgram``), the size limits, the dtype
lists and the helpers several operator modules share. ``relay.oracles.gen_dataflow``'s docstring
describes the construction and what every builder guarantees.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias, TypeVar, cast

import numpy as np
from hypothesis import strategies as st

from relay.semantics.ops import OPS
from relay.semantics.ops.elementwise import ClipAttrs
from relay.semantics.ops.nn.pool import AvgPool2DAttrs, MaxPool2DAttrs
from relay.semantics.ops.nn.shape import PadAttrs
from relay.semantics.ops.registry import Attrs, RelationError, Tensor
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

from ..gen_args import argument_sets, arguments, arrays, uniform_index, weighted_index

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


MAX_FOLDABLE_ELEMENTS = 64
"""In a *constant node* (see ``_Graph.constant_node``) fresh leaves with at most this many
elements are constants, so that the call's inputs are all constants (constant folding)."""


CONSTANT_NODE_CHANCE = 50
"""One node in this many is a constant node (drawn uniformly, shrinking towards not)."""


FLOATS: tuple[str, ...] = ("float32", "float16", "float64")


SIGNED: tuple[str, ...] = ("int32", "int8", "int16", "int64")


UNSIGNED: tuple[str, ...] = ("uint8", "uint16", "uint32", "uint64")


INTEGERS: tuple[str, ...] = SIGNED + UNSIGNED


NUMERIC: tuple[str, ...] = FLOATS + INTEGERS
"""Every dtype but bool, float32 first."""


ALL: tuple[str, ...] = (*NUMERIC, "bool")
"""Every dtype, float32 first."""


BOOL: tuple[str, ...] = ("bool",)


assert sorted(ALL) == sorted(DTYPES)


_T = TypeVar("_T")


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
    nonzero: tuple[bool, ...] = ()
    """Per parameter (or empty: none): whether it is an integer divisor, which must not hold
    a zero (integer division by zero is undefined)."""

    @property
    def param_types(self) -> tuple[Type, ...]:
        """The parameter types of ``@main``, in order."""
        return tuple(p.type_annotation for p in self.params if p.type_annotation is not None)

    def arguments(self, *, special: bool | None = False) -> st.SearchStrategy[tuple[Value, ...]]:
        """Arguments for ``@main``: ``gen_args.arguments`` of the parameter types, positive
        and non-zero where the program needs it (in default mode); ``special=None`` draws
        the mode (special one time in ``gen_args.SPECIAL_CHANCE``)."""
        return arguments(
            self.param_types, special=special, positive=self.positive, nonzero=self._nonzero()
        )

    def argument_sets(
        self, k: int, *, special: bool | None = None
    ) -> st.SearchStrategy[tuple[tuple[Value, ...], ...]]:
        """``k`` independent argument tuples for ``@main`` (``gen_args.argument_sets``), each
        in special mode one time in ``gen_args.SPECIAL_CHANCE`` unless ``special`` says."""
        return argument_sets(
            self.param_types,
            k,
            special=special,
            positive=self.positive,
            nonzero=self._nonzero(),
        )

    def _nonzero(self) -> tuple[bool, ...] | None:
        return self.nonzero if len(self.nonzero) == len(self.params) else None

    @property
    def op_names(self) -> frozenset[str]:
        """The operators the program calls."""
        return frozenset(c.op_name for c in self.calls)


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
        self.nonzero_params: list[bool] = []
        self.calls: list[OpCall] = []
        self.constant_node = False
        """Whether the node being built is a constant node: its fresh leaves are constants
        (up to ``MAX_FOLDABLE_ELEMENTS`` elements) and the pool offers it only constants."""

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

    def uniform(self, n: int) -> int:
        """An index below ``n``, uniformly distributed (see ``uniform_index``; shrinks
        towards 0)."""
        return uniform_index(self.draw, n)

    def weighted(self, cumulative: Sequence[float]) -> int:
        """An index ``i`` with probability proportional to ``cumulative[i] - cumulative[i -
        1]`` (running totals of the weights; shrinks towards the first of positive weight)."""
        return weighted_index(self.draw, cumulative)

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
            and (isinstance(e.expr, Constant) or not self.constant_node)
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

    def leaf(self, t: Type, positive: bool = False, nonzero: bool = False) -> Arg:
        """A fresh leaf of type ``t``: a new parameter or, for a small tensor, sometimes a
        constant (shrinks towards a parameter), whose values are positive if ``positive``
        (for a parameter: it asks for positive arguments) and non-zero if ``nonzero`` (a
        constant always is). It joins the pool."""
        flags = (positive,) * (len(t.fields) if isinstance(t, TupleType) else 1)
        if isinstance(t, TensorType):
            shape = _dims(t)
            constant = self.uniform(16) == 15  # drawn always: see ``integer``
            limit = MAX_FOLDABLE_ELEMENTS if self.constant_node else MAX_CONSTANT_ELEMENTS
            if (constant or self.constant_node) and math.prod(shape) <= limit:
                data = self.draw(arrays(t.dtype, shape, positive=positive, nonzero=True))
                return self.use(self.add(Constant(data), t, flags))
        var = Var(f"p{len(self.params)}", t)
        self.params.append(var)
        self.positive_params.append(positive)
        self.nonzero_params.append(nonzero)
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
            if nonzero and isinstance(expr, Var):
                self.nonzero_params[self.params.index(expr)] = True
        else:
            t = (
                fresh()
                if fresh is not None
                else TensorType(self.shape(min_rank, max_rank), self.dtype(dtypes))
            )
            expr, _ = self.leaf(t, positive, nonzero)
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
            name,
            [self.entry_of[id(e)].positive for e, _ in args],
            attrs,
            arg_types,
            result,
            [e for e, _ in args],
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
            mod,
            tuple(self.params),
            result,
            tuple(self.calls),
            tuple(self.positive_params),
            tuple(self.nonzero_params),
        )


_ALWAYS_POSITIVE = frozenset(
    {"exp", "sigmoid", "nn.softmax", "ones", "ones_like", "abs", "nn.relu", "sqrt"}
)
"""Non-negative whatever the input (or NaN, from a NaN input)."""


_KEEP_POSITIVE = frozenset(
    {
        *("ceil", "nn.leaky_relu", "power", "take"),
        *("reshape", "transpose", "expand_dims", "squeeze", "broadcast_to", "strided_slice"),
        "nn.batch_flatten",
    }
)
"""Positive when the first argument is."""


_BOTH_POSITIVE = frozenset({"add", "multiply", "minimum", "nn.bias_add"})
"""Non-negative when both arguments are (not ``divide``: 0 / 0 is NaN)."""


_REDUCTIONS = frozenset({"sum", "mean", "max", "min", "prod", "nn.global_avg_pool2d"})


def _positivity(
    name: str,
    args: Sequence[tuple[bool, ...]],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    result: Type,
    exprs: Sequence[Expr] = (),
) -> tuple[bool, ...]:
    """Whether each tensor of the result of ``name`` is surely non-negative (no element < 0;
    NaN only from a NaN) when the arguments are as ``args`` says, by a few sound rules (exp,
    abs, relu, sqrt and ``x * x`` are non-negative whatever ``x`` is, a sum of non-negatives
    is, a reshape keeps it, ...). Only float values count: integer arithmetic wraps. Overflow
    to inf and underflow to 0 are ignored: this steers the generator towards finite values,
    it does not promise them."""

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
        case "multiply" if len(args) == 2 and exprs[0] is exprs[1]:
            flags = (True,)  # x * x
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


def _factorise(g: _Graph, total: int) -> list[int]:
    """One to four positive sizes whose product is ``total`` (> 0)."""
    dims = []
    rest = total
    for _ in range(g.integer(0, MAX_RANK - 1)):
        d = g.pick(_divisors(rest))
        dims.append(d)
        rest //= d
    return [*dims, rest]


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


_ANY_UNARY = ("abs", "floor", "ceil", "round", "nn.relu", "zeros_like", "ones_like")


_WIDTH = {"bool": 1, **{d: int("".join(c for c in d if c.isdigit())) for d in ALL if d != "bool"}}


def _constant(g: _Graph, value: Tensor) -> Arg:
    """A constant leaf holding ``value``; it joins the pool."""
    t = TensorType(tuple(int(d) for d in value.shape), value.dtype.name)
    return g.use(g.add(Constant(value), t, (False,)))


def _index_array(g: _Graph, shape: tuple[int, ...], low: int, high: int, dtype: str) -> Tensor:
    """An array of ``shape`` with each element drawn from ``[low, high)``."""
    values = [g.integer(low, high - 1) for _ in range(math.prod(shape))]
    return np.asarray(values, dtype=dtype).reshape(shape)


def _permutation(g: _Graph, n: int) -> list[int]:
    """A permutation of ``range(n)`` (shrinks towards the identity)."""
    rest = list(range(n))
    return [rest.pop(g.integer(0, len(rest) - 1)) for _ in range(n)]


def _padding_nnconv(g: _Graph, nd: int, high: int) -> tuple[tuple[int, ...], list[int]]:
    """Padding of 1, ``nd`` or ``2 * nd`` values (shrinks to 1 value of 0), and the total per
    spatial axis."""
    count = g.pick(sorted({1, nd, 2 * nd}))
    p = tuple(g.integer(0, high) for _ in range(count))
    if count == 1:
        return p, [2 * p[0]] * nd
    if count == nd:
        return p, [2 * v for v in p]
    return p, [p[i] + p[nd + i] for i in range(nd)]


def _nonempty(t: TensorType) -> bool:
    """No empty axis: an empty image resized to a non-empty one reads out of bounds, and
    statistics over nothing are 0 / 0."""
    return 0 not in _dims(t)


_IMAGE_LAYOUTS = ("NCHW", "NHWC")


Input = tuple[Expr, TensorType]


def _constant_dynq(g: _Graph, values: Sequence[float] | float, dtype: str) -> Input:
    """A constant scale or zero point (a scalar, or a vector of per-channel values)."""
    data = np.asarray(values, dtype=dtype)
    t = TensorType(data.shape, dtype)
    expr, _ = g.use(g.add(Constant(data), t, (bool(np.all(data > 0)),)))
    return expr, t
