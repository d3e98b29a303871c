"""A pass's footprint, learned: which operators and constructs a pass rewrites.

A pass author does not say what a pass touches, and a rewrite of ``nn.relu(nn.relu(x))``
almost never meets its pattern in programs whose operators are drawn independently. So before
a campaign, ``relay fuzz`` runs the pass (only the pass: nothing is evaluated) on a corpus of
small **motifs** and keeps the ones the pass changed (not alpha-equal after the pass):

- ``single``: every registered operator alone, its inputs fresh parameters;
- ``pair``: an operator applied to another operator's result, where the types allow (every
  pair of the first ``PAIR_CORE`` operators of ``OP_ORDER``, then every pair with an operator
  the single motifs showed the pass touches);
- ``constant``: an operator with one input a constant filled with one of ``SPECIAL_CONSTANTS``
  (0, 1, -1, 0.5, 2, NaN, inf: what rewrites special-case), and with every input constant (what
  constant folding needs);
- ``construct``: a single motif inside each language construct: ``let``, ``if``, ``match``
  (on an option value), ``ref`` (written, then read), ``closure`` (called), ``global-call``;
  every ``EFFECT_STRIDE``-th one also in each shape in which effects interfere (a read bound
  after the write, a read before it, a write through an alias, two references of the same
  value, a store read then overwritten, a closure that writes) and as a value whose one use
  is inside a closure; and operators around control flow (``control_motifs``: an ``if`` on a
  negation, a comparison or a constant, a counting-down recursive global);
- what the builders rarely draw: ``narrow`` (arithmetic on int8, int16 and uint8 under a
  widening cast, on widened operands, and wide arithmetic under a truncating cast:
  ``narrow_motif``), ``tuple-pair`` (an operator making a tuple of two fields or more passed
  whole to one taking a tuple, ``concatenate(split(..))``, on several draws of their axes) and
  ``axis-constant`` (a broadcasting binary operator with a constant that varies along one
  axis of its other operand, shaped ``(C,)``, ``(C, 1, 1)`` or ``(1, C, 1)``, on a parameter
  and on every ``nn.`` operator's result: what scale, bias and layout folding special-cases,
  and what a uniform constant hides).

Calls are built by the dataflow builders (``oracles.builders``), so every motif is well
typed. Motifs are drawn once per process (``motif_corpus``, fixed seed), each when learning
first reads it (``Corpus.stream``: a pass reads only part of the corpus in its budget); the
pass runs on batches of motifs tupled into one ``@main``, and a batch the pass changed is
split in halves until the motifs that trigger it are found (group testing: a pass that
changes nothing costs one run per batch).

``learn`` returns a ``Footprint``: the triggering motifs, and scores per operator and per
construct. An operator scores when it is in a triggering motif or when the pass's output of
one gains or loses calls of it (the diff, ``diff``); a construct scores the same way. During
the campaign every changed program is diffed the same way and ``Footprint.record`` adds to the
scores. ``Footprint.op_weights`` and ``construct_weights`` turn the scores into generator
weights (1 for what the pass never touched, up to ``1 + BOOST`` for what it touched most).
Constructs are named and counted as the module generator names and counts them
(``gen_modules.CONSTRUCTS``, ``gen_modules.construct_counts``), so the weights steer
``gen_modules.modules(construct_weights=...)`` directly.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import random
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import numpy as np
import numpy.typing as npt
from hypothesis import strategies as st
from hypothesis.control import BuildContext
from hypothesis.internal.conjecture.data import ConjectureData

from relay.compiler.ir import substitute
from relay.compiler.pass_manager import Pass, PassContext, Sequential, run_pass
from relay.semantics.equality import alpha_equal
from relay.semantics.ops.elementwise import CastAttrs
from relay.semantics.syntax import (
    DTYPES,
    Call,
    Clause,
    Constant,
    Constructor,
    Expr,
    Function,
    FuncType,
    GlobalTypeVar,
    GlobalVar,
    If,
    IRModule,
    Let,
    Match,
    Op,
    PatternConstructor,
    PatternVar,
    PatternWildcard,
    RefCreate,
    RefRead,
    RefWrite,
    TensorType,
    Tuple,
    TupleType,
    Type,
    TypeData,
    TypeVar,
    Var,
    post_order,
)
from relay.semantics.values import Value

from .builders import BUILDERS
from .builders.core import ALL, MAX_RANK, DataflowProgram, Fits, _Entry, _Graph
from .gen_args import arguments, arrays
from .gen_dataflow import OP_ORDER
from .gen_modules import CONSTRUCTS, construct_counts
from .pass_oracle import PassTimeout, time_limit
from .stable import stable_draws

SPECIAL_CONSTANTS: tuple[float, ...] = (0.0, 1.0, -1.0, 0.5, 2.0, math.nan, math.inf)
"""The constant operands of ``constant`` motifs: the values algebraic rewrites special-case."""

PAIR_CORE = 40
"""Every pair of the first ``PAIR_CORE`` operators of ``OP_ORDER`` is a ``pair`` motif."""

PAIR_RING = 64
"""``learn`` then tries the pairs among the first ``PAIR_RING`` operators, then all others
(``extra_pairs``), as far as its budget goes."""

MOTIF_CONSTRUCTS: tuple[str, ...] = ("let", "if", "match", "ref", "closure", "global-call")
"""The constructs a ``construct`` motif puts an operator call in (names of the module
generator's ``CONSTRUCTS``)."""

SCORED_CONSTRUCTS: tuple[str, ...] = tuple(
    c for c in CONSTRUCTS if c not in ("variable", "operator")
)
"""The constructs a footprint scores: the module generator's ``CONSTRUCTS`` (one set of names,
so that ``construct_weights`` steer ``gen_modules.modules``), but for variable uses, which
nearly every rewrite changes, and operator calls, which the operator scores cover."""

BOOST = 20.0
"""The weight of the most touched operator or construct is ``1 + BOOST``."""

BATCH = 48
"""Motifs per pass run in discovery (a changed batch is bisected)."""

RUN_TIMEOUT = 0.1
"""Seconds one pass run on a motif may take in discovery, plus ``RUN_TIMEOUT_PER_MOTIF`` per
motif of a batch (a motif is a call or two: longer means the pass loops on one of them, and
bisecting goes on with the halves, each with its shorter limit)."""

RUN_TIMEOUT_PER_MOTIF = 0.02

CORPUS_SEED = 20240917
"""The seed the motif corpus is drawn with (a constant: a pass's footprint is reproducible)."""


@dataclass(frozen=True, eq=False)
class Motif:
    """A small program: ``@main(params) { body }`` plus helper globals; ``ops`` are the
    operators it calls, ``construct`` the construct around them (``""`` for none)."""

    kind: str
    name: str
    params: tuple[Var, ...]
    body: Expr
    positive: tuple[bool, ...]
    ops: tuple[str, ...]
    construct: str = ""
    helpers: tuple[tuple[GlobalVar, Function], ...] = ()
    redraw: Callable[[int], Motif | None] | None = None
    """The same motif drawn from another seed (other shapes, dtypes, attributes and
    constants; ``None`` where it has no other draw): a rewrite that matches a motif may still
    be wrong only for some of its shapes or attributes (``fuzz`` checks a few ``VARIANTS``)."""

    @property
    def param_types(self) -> tuple[Type, ...]:
        """The parameter types of ``@main``."""
        return tuple(_annotation(p) for p in self.params)

    @functools.cached_property
    def mod(self) -> IRModule:
        """The motif as a module of its own."""
        return _module([self])

    def arguments(self, *, special: bool | None = False) -> st.SearchStrategy[tuple[Value, ...]]:
        """Arguments for ``@main`` (positive where the operators need it; ``special`` as
        ``gen_args.arguments`` takes it)."""
        return arguments(self.param_types, special=special, positive=self.positive)


def _annotation(v: Var) -> Type:
    assert v.type_annotation is not None
    return v.type_annotation


# ---------------------------------------------------------------------------------------------
# The option type construct motifs match on


_A = TypeVar("A")
_OPTION = GlobalTypeVar("FootprintOption")
_SOME = Constructor("FpSome", (_A,), _OPTION, 0)
_NONE = Constructor("FpNone", (), _OPTION, 1)
_OPTION_DATA = TypeData(_OPTION, (_A,), (_SOME, _NONE))


def _module(motifs: Sequence[Motif]) -> IRModule:
    """The motifs as one module: helpers first, then ``@main`` returning the tuple of their
    bodies (the body itself for one motif)."""
    functions: dict[GlobalVar, Function] = {}
    for m in motifs:
        functions.update(m.helpers)
    params = tuple(p for m in motifs for p in m.params)
    body = motifs[0].body if len(motifs) == 1 else Tuple(tuple(m.body for m in motifs))
    functions[GlobalVar("main")] = Function(params, body)
    uses_option = any(m.construct == "match" for m in motifs)
    return IRModule(functions, {_OPTION: _OPTION_DATA} if uses_option else {})


# ---------------------------------------------------------------------------------------------
# Building motifs with the dataflow builders


class _MotifGraph(_Graph):
    """A ``_Graph`` whose next tensor input is steered: the result of the previous call
    (``forced``), or a constant (``constant`` for input ``constant_at``, or every input)."""

    def __init__(self, draw: st.DrawFn) -> None:
        super().__init__(draw)
        self.forced: _Entry | None = None
        self.constant: float | None = None
        self.constant_at = -1
        self.all_constant = False
        self.requests = 0
        self.failed = False
        self.share = False
        self.rest_constant = False
        self.prefer: str | None = None
        self.whole_tuple = False
        self.special = False
        self.constants_used = 0
        self.recording: list[tuple[Expr, TensorType]] | None = None
        self.replay: list[tuple[Expr, TensorType]] | None = None

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
        """As ``_Graph.tensor``, but the forced value or a constant where one is asked for."""

        def ok(t: TensorType) -> bool:
            return (
                t.dtype in dtypes
                and min_rank <= len(t.shape) <= max_rank
                and (fits is None or fits(t))
            )

        index = self.requests
        self.requests += 1
        if self.replay is not None:
            # The inputs of the call recorded before, in the order they were asked for.
            if index < len(self.replay) and ok(self.replay[index][1]):
                return self.replay[index]
            self.failed = True
        got = self._steered(index, ok, dtypes, min_rank, max_rank, fits, fresh, positive, nonzero)
        if self.recording is not None:
            self.recording.append(got)
        return got

    def _steered(
        self,
        index: int,
        ok: Callable[[TensorType], bool],
        dtypes: Sequence[str],
        min_rank: int,
        max_rank: int,
        fits: Fits | None,
        fresh: Callable[[], TensorType] | None,
        positive: bool,
        nonzero: bool,
    ) -> tuple[Expr, TensorType]:
        if self.forced is not None and not (
            self.whole_tuple and isinstance(self.forced.type, TupleType)
        ):
            entry = self.forced
            for i, t, _ in entry.offers:
                if ok(t):
                    self.forced = None
                    chosen = entry if i is None else self.project(entry, i)
                    expr, _ = self.use(chosen)
                    return expr, t
        if self.share and index > 0 and not (positive or nonzero):
            # A later input of a call is the most recent parameter that fits: ``x * x``,
            # ``(a + b) - b``.
            for entry in reversed(self.entries):
                if isinstance(entry.expr, Var):
                    for i, t, _ in entry.offers:
                        if i is None and ok(t):
                            expr, _ = self.use(entry)
                            return expr, t
        if self.all_constant or index == self.constant_at or (self.rest_constant and index):
            t = (
                fresh()
                if fresh is not None
                else TensorType(self.shape(min_rank, max_rank), self.dtype(dtypes))
            )
            if self.rest_constant or (index == self.constant_at and not self.all_constant):
                # a scalar where it fits: the call keeps its input's type (``x * 0f``)
                scalar = next((u for d in dtypes if ok(u := TensorType((), d))), None)
                t = scalar if scalar is not None else t
            if ok(t):
                data = self._constant_data(t)
                if data is not None:
                    self.constants_used += 1
                    expr, _ = self.use(self.add(Constant(data), t, (bool(np.all(data > 0)),)))
                    return expr, t
            self.failed = True
        return super().tensor(
            dtypes,
            min_rank=min_rank,
            max_rank=max_rank,
            fits=fits,
            fresh=fresh,
            positive=positive,
            nonzero=nonzero,
        )

    def tuple_values(self, fits: Callable[[tuple[TensorType, ...]], bool]) -> list[_Entry]:
        """As ``_Graph.tuple_values``, but only the forced value when it is a tuple that
        fits (``concatenate(split(..))``)."""
        found = super().tuple_values(fits)
        forced = self.forced
        if forced is not None and any(e is forced for e in found):
            self.forced = None
            return [forced]
        return found

    def dtype(self, options: Sequence[str]) -> str:
        """``prefer`` the first time it is an option (the first parameter's dtype), else as
        ``_Graph.dtype`` draws it."""
        if self.prefer is not None and self.prefer in options:
            chosen, self.prefer = self.prefer, None
            return chosen
        return super().dtype(options)

    def _constant_data(self, t: TensorType) -> npt.NDArray[Any] | None:
        shape = tuple(d for d in t.shape if isinstance(d, int))
        if len(shape) != len(t.shape):
            return None
        if self.constant is None:  # every input constant: values drawn as arguments are
            data: npt.NDArray[Any] = self.draw(arrays(t.dtype, shape, special=self.special))
            return data
        v = self.constant
        if t.dtype == "bool":
            if v not in (0.0, 1.0):
                return None
            return np.full(shape, bool(v), dtype=bool)
        integral = math.isfinite(v) and v == int(v) and not (v < 0 and t.dtype.startswith("u"))
        if not t.dtype.startswith("float") and not integral:
            return None
        return np.full(shape, v, dtype=t.dtype)


def draws(seed: int) -> tuple[ConjectureData, BuildContext]:
    """A source of draws outside a test: the builders take a ``draw`` function, and motifs
    are a fixed corpus, not a search (nothing to shrink), so one seeded ``ConjectureData``
    serves (Hypothesis's own type; an ``@given`` run cannot draw a different program per
    example without Hypothesis rejecting it as inconsistent)."""
    data = ConjectureData(random=random.Random(seed), max_choices=1_000_000)
    return data, BuildContext(data, wrapped_test=lambda: None)


def _program_motif(
    kind: str,
    name: str,
    program: DataflowProgram,
    ops: Sequence[str],
    redraw: Callable[[int], Motif | None] | None = None,
) -> Motif:
    fn = program.mod.functions[program.mod.get_global_var("main")]
    return Motif(kind, name, fn.params, fn.body, program.positive, tuple(ops), redraw=redraw)


def _build(
    seed: int,
    ops: Sequence[str],
    setup: Callable[[_MotifGraph, int], None],
    *,
    need_constant: bool = False,
    chain: bool = True,
) -> DataflowProgram | None:
    """The calls of ``ops`` in one graph, each (after the first) fed the previous result
    (with ``chain``); ``setup(g, i)`` prepares the graph before call ``i``. ``None`` where a
    call could not take the previous result or the constant asked for."""
    data, context = draws(seed)
    with context:
        g = _MotifGraph(cast(st.DrawFn, data.draw))
        for i, name in enumerate(ops):
            if i and chain:
                g.forced = g.entries[-1]
            g.requests = 0
            setup(g, i)
            try:
                g.call(name, BUILDERS[name](g))
            except (AssertionError, ValueError, IndexError):
                return None
            if g.forced is not None or g.failed:
                return None
            if g.constant is not None and g.requests <= g.constant_at:
                return None
        if need_constant and not g.constants_used:
            return None
        return g.program()


def _no_setup(g: _MotifGraph, i: int) -> None:
    pass


def single_motif(op: str, seed: int = CORPUS_SEED) -> Motif | None:
    """``op`` alone on fresh parameters."""
    program = _build(seed, [op], _no_setup)
    if program is None:
        return None
    return _program_motif("single", op, program, [op], lambda s: single_motif(op, s))


def pair_motif(
    inner: str, outer: str, seed: int = CORPUS_SEED, *, prefer: str | None = None
) -> Motif | None:
    """``outer(inner(..), ..)``, or ``None`` where ``outer`` cannot take ``inner``'s result
    (where ``inner`` makes a tuple, first with the tuple itself as the input, tried on
    ``TUPLE_TRIES`` seeds: an operator taking a tuple draws whether it takes one of the pool,
    ``concatenate(split(..))``)."""
    program = None
    if _makes_tuple(inner):  # first the tuple itself as the input, then a field of it

        def whole(g: _MotifGraph, i: int) -> None:
            g.whole_tuple = True
            g.prefer = prefer if i == 0 else None

        for k in range(TUPLE_TRIES):
            program = _build(seed + k, [inner, outer], whole)
            if program is not None:
                break
    if program is None:

        def plain(g: _MotifGraph, i: int) -> None:
            g.prefer = prefer if i == 0 else None

        program = _build(seed, [inner, outer], plain)
    if program is None:
        return None
    return _program_motif(
        "pair", f"{outer}({inner})", program, [inner, outer],
        lambda s: pair_motif(inner, outer, s, prefer=prefer),
    )  # fmt: skip


def shared_motif(inner: str, outer: str, seed: int = CORPUS_SEED) -> Motif | None:
    """``outer(inner(a, .., a), .., a)``: as ``pair_motif``, but every input after a call's
    first is the latest parameter that fits (what ``x * x`` and ``(a + b) - b`` rewrites
    need); ``None`` where nothing fits or the motif equals the plain pair."""

    def setup(g: _MotifGraph, i: int) -> None:
        g.share = True

    program = _build(seed, [inner, outer], setup)
    if program is None:
        return None
    return _program_motif(
        "shared", f"{outer}({inner})", program, [inner, outer],
        lambda s: shared_motif(inner, outer, s),
    )  # fmt: skip


def twin_motif(op: str, seed: int = CORPUS_SEED) -> Motif | None:
    """``(op(x, 0f), op(x, -0f))`` (float32 where allowed): the same call twice on the same
    inputs but for a constant that compares equal and is not the same (what a CSE keyed by
    value merges)."""
    zero = constant_motif(op, 1, 0.0, seed, prefer="float32")
    negative_zero = constant_motif(op, 1, -0.0, seed, prefer="float32")
    if zero is None or negative_zero is None or len(zero.params) != len(negative_zero.params):
        return None

    second = substitute(
        negative_zero.body, dict(zip(negative_zero.params, zero.params, strict=True))
    )
    body = Tuple((zero.body, second))
    return Motif("twin", f"{op}[1]=0/-0", zero.params, body, zero.positive, (op,))


def attrs_twin_motif(op: str, seed: int = CORPUS_SEED) -> Motif | None:
    """``(op(a, ..), op(a, ..))``: two calls of ``op`` on the same inputs whose attributes
    were drawn apart (``sum(%x, axis=[0])`` and ``sum(%x, axis=[1])``, two ``cast``s to other
    dtypes): what a common-subexpression pass blind to attributes merges. ``None`` where
    ``op`` has no attributes, or the second call could not take the first's inputs, or the
    two drew the same attributes on ``ATTRS_TWIN_TRIES`` seeds."""

    def setup(g: _MotifGraph, i: int) -> None:
        if i == 0:
            g.recording = []
        else:
            g.replay, g.recording = g.recording, None

    for k in range(ATTRS_TWIN_TRIES):
        program = _build(seed + k, [op, op], setup, chain=False)
        if program is None:
            return None
        first, second = program.calls[0].call, program.calls[1].call
        if first.attrs is None:
            return None
        same_inputs = len(first.args) == len(second.args) and all(
            a is b for a, b in zip(first.args, second.args, strict=True)
        )
        if not same_inputs:
            return None
        if first.attrs == second.attrs:
            continue
        return _program_motif(
            "attrs-twin", f"{op}/{op}", program, [op], lambda s: attrs_twin_motif(op, s)
        )
    return None


TUPLE_TRIES = 6
"""Seeds a pair whose inner operator makes a tuple is tried on (see ``pair_motif``)."""

ATTRS_TWIN_TRIES = 6
"""Seeds an attribute twin is tried on until its two calls draw different attributes."""


@functools.cache
def _makes_tuple(op: str) -> bool:
    """Whether ``op``'s single motif makes a tuple."""
    m = single_motif(op, _seed(op))
    return m is not None and isinstance(_result_type(m), TupleType)


def constant_motif(
    op: str,
    at: int,
    value: float | None,
    seed: int = CORPUS_SEED,
    *,
    special: bool = False,
    prefer: str | None = None,
) -> Motif | None:
    """``op`` with its input ``at`` a constant filled with ``value`` (``at=-1``: every input
    constant, values drawn, in special mode with ``special``: integer extremes that overflow
    when folded); ``None`` where that input does not exist or cannot hold it."""

    def setup(g: _MotifGraph, i: int) -> None:
        g.constant, g.constant_at, g.all_constant = value, at, at < 0
        g.special, g.prefer = special, prefer

    program = _build(seed, [op], setup)
    if program is None:
        return None
    label = (
        f"{op}[all constant{', special' if special else ''}]" if at < 0 else f"{op}[{at}]={value}"
    )
    return _program_motif(
        "constant", label, program, [op],
        lambda s: constant_motif(op, at, value, s, special=special, prefer=prefer),
    )  # fmt: skip


def constant_pair_motif(
    inner: str, outer: str, values: tuple[float, float], seed: int = CORPUS_SEED
) -> Motif | None:
    """``outer(inner(x, c1, ..), c2, ..)``: a pair whose inputs after each call's first are
    scalar constants (float32 where allowed: what algebraic rewrites special-case) filled with
    ``values[0]`` (inner) and ``values[1]`` (outer), what rewrites of ``min(max(x, lo), hi)``
    or ``(x + c) - c`` match; ``None`` where no input is a constant."""

    def setup(g: _MotifGraph, i: int) -> None:
        g.constant, g.rest_constant, g.prefer = values[i], True, "float32"

    program = _build(seed, [inner, outer], setup, need_constant=True)
    if program is None:
        return None
    name = f"{outer}({inner}(.., {values[0]:g}), {values[1]:g})"
    return _program_motif(
        "constant-pair", name, program, [inner, outer],
        lambda s: constant_pair_motif(inner, outer, values, s),
    )  # fmt: skip


def construct_motifs(base: Motif, index: int) -> list[Motif]:
    """``base`` (a single motif) inside each of ``MOTIF_CONSTRUCTS``; ``index`` names helper
    globals uniquely."""
    out: list[Motif] = []
    t = _result_type(base)
    if t is None or not _concrete(t):
        return out  # arguments of a ``?`` shape cannot be drawn
    b = base.body

    def fresh_params() -> tuple[Var, ...]:
        return tuple(Var(p.name_hint, p.type_annotation) for p in base.params)

    def make(
        construct: str,
        params: Sequence[Var],
        body: Expr,
        *helpers: tuple[GlobalVar, Function],
        shape: str = "",
    ) -> None:
        positive = base.positive + (False,) * (len(params) - len(base.params))
        out.append(
            Motif(
                "construct",
                f"{shape or construct}({base.name})",
                tuple(params),
                body,
                positive,
                base.ops,
                construct,
                tuple(helpers),
            )
        )

    x = Var("x", t)
    make("let", base.params, Let(x, b, x))
    # Shadowing: an inner binder with the outer one's name (a pass that finds variables by
    # name confuses them).
    outer_x, inner_x, y, q0 = Var("a", t), Var("a", t), Var("y", t), Var("q", t)
    shadow = Let(outer_x, q0, Let(y, Let(inner_x, b, inner_x), Tuple((outer_x, y))))
    make("let", (*base.params, q0), shadow, shape="let-shadow")
    q = Var("q", t)
    c = Var("c", TensorType((), "bool"))
    make("if", (*base.params, c, q), If(c, b, q))
    v = Var("v", t)
    clauses = (
        Clause(PatternConstructor(_SOME, (PatternVar(v),)), v),
        Clause(PatternWildcard(), q),
    )
    make("match", (*base.params, q), Match(Call(_SOME, (b,)), clauses))
    if index % EFFECT_STRIDE == 0:
        # Two clauses with one head constructor, the second reached when the first's
        # sub-pattern fails (a pass that compares clauses one level deep drops it).
        c2, q2, v2 = Var("c", TensorType((), "bool")), Var("q", t), Var("v", t)
        nested = If(c2, Call(_SOME, (b,)), Call(_NONE, ()))
        heads = (
            Clause(PatternConstructor(_SOME, (PatternConstructor(_SOME, (PatternVar(v2),)),)), v2),
            Clause(PatternConstructor(_SOME, (PatternWildcard(),)), q2),
            Clause(PatternWildcard(), b),
        )
        make("match", (*base.params, c2, q2), Match(Call(_SOME, (nested,)), heads),
             shape="match-same-head")  # fmt: skip
    r = Var("r", None)
    done = Var("_", None)
    make(
        "ref",
        (*base.params, q),
        Let(r, RefCreate(q), Let(done, RefWrite(r, b), RefRead(r))),
    )
    f = Var("f", None)
    make("closure", base.params, Let(f, Function((), b), Call(f, ())))
    if index % EFFECT_STRIDE == 0:
        # A value whose one use is inside a closure (a pass that counts uses outside closures
        # drops its let).
        x2, f2 = Var("x", t), Var("f", None)
        captured = Let(x2, b, Let(f2, Function((), x2), Call(f2, ())))
        make("closure", base.params, captured, shape="closure-capture")
    g = GlobalVar(f"footprint_g{index}")
    inner = fresh_params()
    make("global-call", inner, Call(g, inner), (g, Function(base.params, b)))
    if index % EFFECT_STRIDE == 0:
        for body_of in _EFFECTS:
            q2 = Var("q", t)
            shape = "ref-" + body_of.__name__.strip("_").replace("_", "-")
            make("ref", (*base.params, q2), body_of(b, q2), shape=shape)
    return out


EFFECT_STRIDE = 3
"""Every ``EFFECT_STRIDE``-th single motif is also put in each of the ``_EFFECTS`` shapes."""


def _v(name: str) -> Var:
    return Var(name, None)


def _write_then_let_read(b: Expr, q: Var) -> Expr:
    """``let r = ref(q); let w = ref_write(r, b); let v = ref_read(r); v``: a read after a write
    in adjacent ``let``s that data flow does not order."""
    r, w, v = _v("r"), _v("w"), _v("v")
    return Let(r, RefCreate(q), Let(w, RefWrite(r, b), Let(v, RefRead(r), v)))


def _read_before_write(b: Expr, q: Var) -> Expr:
    """``let v = ref_read(r); ref_write(r, b); (v, ref_read(r))``: a read that must not move
    past the write after it (nor the later read before it)."""
    r, w, v = _v("r"), _v("w"), _v("v")
    return Let(r, RefCreate(q), Let(v, RefRead(r), Let(w, RefWrite(r, b), Tuple((v, RefRead(r))))))


def _alias_write(b: Expr, q: Var) -> Expr:
    """``let s = r; ref_write(s, b); ref_read(r)``: a write through an alias, read through the
    other name."""
    r, s, w = _v("r"), _v("s"), _v("w")
    return Let(r, RefCreate(q), Let(s, r, Let(w, RefWrite(s, b), RefRead(r))))


def _alias_write_let_read(b: Expr, q: Var) -> Expr:
    """``let s = r; let w = ref_write(s, b); let v = ref_read(r); v``: the same through a
    read bound in the next ``let`` (two names, one cell)."""
    r, s, w, v = _v("r"), _v("s"), _v("w"), _v("v")
    return Let(r, RefCreate(q), Let(s, r, Let(w, RefWrite(s, b), Let(v, RefRead(r), v))))


def _overwritten_nested_read(b: Expr, q: Var) -> Expr:
    """As ``_overwritten``, but the read between the writes is inside the ``let``'s value
    (``let v = (ref_read(r),)``), not the whole of it."""
    r, w, v, w2 = _v("r"), _v("w"), _v("v"), _v("w2")
    tail = Let(v, Tuple((RefRead(r),)), Let(w2, RefWrite(r, q), Tuple((v, RefRead(r)))))
    return Let(r, RefCreate(q), Let(w, RefWrite(r, b), tail))


def _two_refs(b: Expr, q: Var) -> Expr:
    """Two references made from the same value, one written: ``ref(q)`` twice is two cells."""
    a, c, w = _v("a"), _v("c"), _v("w")
    body = Let(w, RefWrite(a, b), Tuple((RefRead(c), RefRead(a))))
    return Let(a, RefCreate(q), Let(c, RefCreate(q), body))


def _overwritten(b: Expr, q: Var) -> Expr:
    """A store read and then overwritten: ``ref_write(r, b); let v = ref_read(r);
    ref_write(r, q); (v, ref_read(r))`` (the first write is not dead)."""
    r, w, v, w2 = _v("r"), _v("w"), _v("v"), _v("w2")
    tail = Let(v, RefRead(r), Let(w2, RefWrite(r, q), Tuple((v, RefRead(r)))))
    return Let(r, RefCreate(q), Let(w, RefWrite(r, b), tail))


def _closure_writes(b: Expr, q: Var) -> Expr:
    """A closure that writes the reference, called before the caller reads it."""
    r, f, w = _v("r"), _v("f"), _v("w")
    body = Let(w, Call(f, ()), RefRead(r))
    return Let(r, RefCreate(q), Let(f, Function((), RefWrite(r, b)), body))


def _closure_writes_let_read(b: Expr, q: Var) -> Expr:
    """``let w = f(); let v = ref_read(r); v`` where the closure ``f`` writes ``r``: a read
    bound after a call that writes the cell without being given it (a pass that judges a
    call's effects from its arguments moves the read above it)."""
    r, f, w, v = _v("r"), _v("f"), _v("w"), _v("v")
    body = Let(w, Call(f, ()), Let(v, RefRead(r), v))
    return Let(r, RefCreate(q), Let(f, Function((), RefWrite(r, b)), body))


def _closure_state(b: Expr, q: Var) -> Expr:
    """A cell that only a closure uses, carrying state from one call to the next: ``let r =
    ref(q); let f = fn () { let v = ref_read(r); let w = ref_write(r, b); v }; let a = f();
    (a, f())`` (the second call sees the first one's write: a pass that moves ``ref(q)`` into
    the closure makes a fresh cell per call)."""
    r, f, v, w, a = _v("r"), _v("f"), _v("v"), _v("w"), _v("a")
    step = Function((), Let(v, RefRead(r), Let(w, RefWrite(r, b), v)))
    calls = Let(a, Call(f, ()), Tuple((a, Call(f, ()))))
    return Let(r, RefCreate(q), Let(f, step, calls))


def _write_as_argument(b: Expr, q: Var) -> Expr:
    """``(fn (%u, %y) { %y })(ref_write(r, b), q)``: an argument's effect happens though the
    callee ignores its value; ``(the call, ref_read(r))`` is returned."""
    r, v = _v("r"), _v("v")
    u, y = Var("u", TupleType(())), Var("y", q.type_annotation)
    call = Call(Function((u, y), y), (RefWrite(r, b), q))
    return Let(r, RefCreate(q), Let(v, call, Tuple((v, RefRead(r)))))


_EFFECTS: tuple[Callable[[Expr, Var], Expr], ...] = (
    _write_then_let_read,
    _read_before_write,
    _alias_write,
    _alias_write_let_read,
    _two_refs,
    _overwritten,
    _overwritten_nested_read,
    _closure_writes,
    _closure_writes_let_read,
    _closure_state,
    _write_as_argument,
)
"""The shapes in which effects interfere: a motif's value is written to a reference made from
another value, and what is read (before, after, through an alias, from a twin) is returned."""


def control_motifs() -> list[Motif]:
    """Control flow around operators: an ``if`` whose condition an operator computes (a
    negation, each comparison of two scalars) or is a constant (``True``, ``False``), and a
    counting-down recursive global whose every step adds to the result
    (``@f(n) = if (n <= 0) { 0 } else { n + @f(n - 1) }``, called on ``minimum(n, 3)``)."""
    out: list[Motif] = []
    t = TensorType((2,), "float32")
    scalar = TensorType((), "float32")

    def make(name: str, params: Sequence[Var], body: Expr, ops: Sequence[str],
             construct: str, *helpers: tuple[GlobalVar, Function]) -> None:  # fmt: skip
        positive = (False,) * len(params)
        out.append(
            Motif(
                "construct",
                name,
                tuple(params),
                body,
                positive,
                tuple(ops),
                construct,
                tuple(helpers),
            )
        )

    c, a, b = Var("c", TensorType((), "bool")), Var("a", t), Var("b", t)
    make("if(logical_not)", (c, a, b), If(Call(Op("logical_not"), (c,)), a, b),
         ["logical_not"], "if")  # fmt: skip
    for known in (True, False):  # what constant folding and dead-branch elimination rewrite
        a, b = Var("a", t), Var("b", t)
        make(f"if({str(known).lower()})", (a, b), If(Constant(np.array(known)), a, b), [], "if")
    for cmp in ("less", "less_equal", "greater", "greater_equal", "equal", "not_equal"):
        x, y, a, b = Var("x", scalar), Var("y", scalar), Var("a", t), Var("b", t)
        make(f"if({cmp})", (x, y, a, b), If(Call(Op(cmp), (x, y)), a, b), [cmp], "if")
    n, m = Var("n", TensorType((), "int32")), Var("m", TensorType((), "int32"))
    f = GlobalVar("footprint_countdown")

    def lit(k: int) -> Constant:
        return Constant(np.array(k, dtype="int32"))

    rec = If(
        Call(Op("less_equal"), (n, lit(0))),
        lit(0),
        Call(Op("add"), (n, Call(f, (Call(Op("subtract"), (n, lit(1))),)))),
    )
    make("recursion(countdown)", (m,), Call(f, (Call(Op("minimum"), (m, lit(3))),)),
         ["less_equal", "add", "subtract", "minimum"], "recursion",
         (f, Function((n,), rec, TensorType((), "int32"))))  # fmt: skip
    return out


# ---------------------------------------------------------------------------------------------
# Motifs the builders rarely draw: narrow integers under casts, per-axis constants, tuples


NARROW_DTYPES: tuple[str, ...] = ("int8", "int16", "uint8")
"""The integer dtypes ``narrow_motif``s compute in (they wrap where a wider one does not)."""

NARROW_OPS: tuple[str, ...] = ("add", "subtract", "multiply", "maximum", "negative", "abs")
"""The operators ``narrow_motif``s put under and over casts: those that overflow, and
``maximum``, which does not (what a width rewrite may wrongly treat alike)."""

NARROW_FORMS: tuple[str, ...] = ("widened", "widened-first", "truncated")
"""The shapes of a ``narrow_motif`` (see there)."""

NARROW_SHAPE: tuple[int, ...] = (2, 3)
"""The parameter shape of the corpus's ``narrow_motif``s (their redraws draw others)."""


def _int_width(dtype: str) -> int:
    """The bits of an integer dtype (``int8``: 8, ``uint16``: 16)."""
    return int(dtype.removeprefix("u").removeprefix("int"))


def wider_dtypes(dtype: str) -> list[str]:
    """Integer dtypes that hold every value of the integer dtype ``dtype``, narrowest first:
    the next width of each signedness and ``int32``; then ``float32``."""
    kinds = ("int",) if dtype.startswith("int") else ("uint", "int")
    out = [
        f"{k}{w}"
        for w in (16, 32, 64)
        for k in kinds
        if w > _int_width(dtype) and f"{k}{w}" in DTYPES
    ]
    # The next width of each kind and int32 (what arithmetic is widened to): more widths
    # change no rewrite's side condition.
    keep = {next(d for d in out if d.startswith(k)) for k in kinds} | {"int32"}
    return [*(d for d in out if d in keep), "float32"]


def _drawn_shape(seed: int) -> tuple[int, ...]:
    """A shape of rank 0 to 3 and extents 1 to 4, drawn from ``seed``."""
    rng = random.Random(seed)
    return tuple(rng.randint(1, 4) for _ in range(rng.randint(0, 3)))


def narrow_motif(
    op: str, narrow: str, wide: str, form: str, shape: tuple[int, ...] = NARROW_SHAPE
) -> Motif | None:
    """Integer arithmetic at two widths, parameters of ``shape``: ``cast(op(x, y), wide)``
    with ``narrow`` parameters (form ``widened``: a widening cast of a result that may have
    wrapped), ``op(cast(x, wide), cast(y, wide))`` (``widened-first``: the parameters widened
    before the arithmetic, what a rewrite moving the cast makes and one narrowing it breaks),
    or ``cast(op(a, b), narrow)`` with ``wide`` parameters (``truncated``); a unary ``op`` on
    one parameter. ``None`` where the form does not apply (a float ``wide`` truncated, an
    unsigned value negated). Its checks' special draws hold the dtype's extremes, whose sums,
    differences, products and negations overflow."""
    arity = 1 if op in ("negative", "abs") else 2
    if form == "truncated" and not wide.startswith("int") and not wide.startswith("uint"):
        return None
    if arity == 1 and narrow.startswith("u"):
        return None
    source, target = (wide, narrow) if form == "truncated" else (narrow, wide)
    xs = tuple(Var(f"x{i}", TensorType(shape, source)) for i in range(arity))

    def cast_to(e: Expr) -> Call:
        return Call(Op("cast"), (e,), CastAttrs(dtype=target))

    body: Expr
    if form == "widened-first":
        body = Call(Op(op), tuple(cast_to(x) for x in xs))
    else:
        body = cast_to(Call(Op(op), xs))
    return Motif(
        "narrow", f"{form}:{op}[{source}->{target}]", xs, body, (False,) * arity, (op, "cast"),
        redraw=lambda s: narrow_motif(op, narrow, wide, form, _drawn_shape(s)),
    )  # fmt: skip


FRACTIONS: tuple[float, ...] = (1.7, -1.7, 2.5, -2.5, 0.5, -0.5, 3.25, -3.75)
"""The values of ``float_cast_motif``'s constant: between integers, halves among them (where
truncation, rounding to nearest and rounding half to even differ)."""


def float_cast_motif(
    dtype: str, constant: bool, shape: tuple[int, ...] = NARROW_SHAPE
) -> Motif | None:
    """``cast(c, dtype)`` of a float32 constant of ``FRACTIONS`` (cycled; the non-negative
    ones for an unsigned ``dtype``) of ``shape`` (``constant``: what constant folding
    converts, truncating towards zero), or ``cast(x, dtype)`` of a float32 parameter.
    ``None`` for a shape of no element."""
    size = math.prod(shape)
    if size == 0:
        return None
    pool = [v for v in FRACTIONS if v >= 0 or not dtype.startswith("u")]
    body: Expr
    params: tuple[Var, ...] = ()
    if constant:
        data = np.array([pool[i % len(pool)] for i in range(size)], dtype="float32")
        body = Call(Op("cast"), (Constant(data.reshape(shape)),), CastAttrs(dtype=dtype))
    else:
        params = (Var("x", TensorType(shape, "float32")),)
        body = Call(Op("cast"), params, CastAttrs(dtype=dtype))
    return Motif(
        "narrow", f"from-float{'-constant' if constant else ''}:cast[float32->{dtype}]",
        params, body, (False,) * len(params), ("cast",),
        redraw=lambda s: float_cast_motif(dtype, constant, _drawn_shape(s)),
    )  # fmt: skip


def narrow_motifs() -> list[Motif]:
    """Every ``narrow_motif`` of ``NARROW_OPS``, ``NARROW_DTYPES``, their ``wider_dtypes`` and
    ``NARROW_FORMS``; then every ``float_cast_motif`` to those dtypes and ``int32``."""
    out: list[Motif] = []
    for dtype in (*NARROW_DTYPES, "int32"):
        for constant in (True, False):
            fm = float_cast_motif(dtype, constant)
            if fm is not None:
                out.append(fm)
    for narrow in NARROW_DTYPES:
        for wide in wider_dtypes(narrow):
            for op in NARROW_OPS:
                for form in NARROW_FORMS:
                    m = narrow_motif(op, narrow, wide, form)
                    if m is not None:
                        out.append(m)
    return out


AXIS_OPS: tuple[str, ...] = (
    "add", "subtract", "multiply", "divide", "maximum", "minimum", "power", "floor_divide",
    "mod", "floor_mod", "equal", "less",
)  # fmt: skip
"""The broadcasting binary operators ``axis_constant_motif``s put a per-axis constant in."""

AXIS_PRODUCER_OPS: tuple[str, ...] = ("add", "multiply")
"""The operators applied with a per-axis constant to another operator's result (what scale
and bias folding rewrites match: ``dense(x, w) * s``, ``conv2d(x, w) + b``; subtraction and
division are rewritten to these first, and each more costs the corpus about 190 motifs)."""

AXIS_VALUES: tuple[float, ...] = (1.0, 2.0, -0.5, 3.0, -2.0, 0.25, 4.0, 1.5)
"""The distinct values of a per-axis float constant, cycled."""

AXIS_INT_VALUES: tuple[int, ...] = (1, 2, -1, 3, -2, 4, 5, -3)
"""The same for signed integers (no zero: ``divide`` and ``mod`` take it)."""

AXIS_UINT_VALUES: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8)
"""The same for unsigned integers."""

AXIS_SHAPE: tuple[int, ...] = (2, 3, 4)
"""The parameter shape of ``axis_constant_motif``s on a parameter."""


def axis_constant(dtype: str, extent: int, rank: int, axis: int, full: bool) -> Constant:
    """A constant of ``dtype`` that varies along ``axis`` of a rank-``rank`` operand only:
    ``extent`` distinct values (``AXIS_VALUES`` and its integer twins, then moved), of shape
    ``(extent, 1, .., 1)`` (as many ``1`` as axes after ``axis``: broadcasting aligns shapes
    to the right) or, with ``full``, of rank ``rank`` (``(1, extent, 1, 1)``)."""
    pool: Sequence[float] = (
        AXIS_VALUES
        if dtype.startswith("float")
        else AXIS_UINT_VALUES
        if dtype.startswith("u")
        else AXIS_INT_VALUES
    )
    # Past ``len(pool)`` the pool again, each value moved away from zero by ``len(pool)``.
    n = len(pool)
    values = [pool[i % n] + math.copysign((i // n) * n, pool[i % n]) for i in range(extent)]
    lead = (1,) * axis if full else ()
    shape = (*lead, extent, *(1,) * (rank - axis - 1))
    return Constant(np.array(values, dtype=dtype).reshape(shape))


def axis_constant_motif(
    inner: str | None,
    outer: str,
    at: int,
    axis: int,
    full: bool,
    seed: int = CORPUS_SEED,
    *,
    check: bool = True,
) -> Motif | None:
    """``outer(e, c)`` (``at=1``) or ``outer(c, e)`` (``at=0``), ``c`` an ``axis_constant``
    along ``axis`` of ``e``: ``e`` the single motif of ``inner`` drawn from ``seed``, or a
    float32 parameter of ``AXIS_SHAPE`` (``inner=None``; its redraws draw other shapes and
    dtypes). What scale, bias and layout rewrites special-case (a per-channel ``(C,)``,
    ``(C, 1, 1)`` or ``(1, C)`` operand), and what a uniform constant hides: ``dense(x, w) *
    s`` folded into ``w`` on the wrong axis. ``None`` where ``e`` is not a tensor with an
    extent above 1 on ``axis``, or (with ``check``) the call is ill-typed (``power`` of
    integers: a redraw's dtype)."""
    params: tuple[Var, ...]
    positive: tuple[bool, ...]
    ops: tuple[str, ...]
    e: Expr
    if inner is None:
        shape, dtype = AXIS_SHAPE, "float32"
        if seed != CORPUS_SEED:
            rng = random.Random(seed)
            shape = tuple(rng.randint(1, 4) for _ in range(rng.randint(1, 4)))
            dtype = rng.choice(("float32", "float64", "int32", "int8"))
        x = Var("x", TensorType(shape, dtype))
        params, positive, e, ops = (x,), (False,), x, (outer,)
        t: Type | None = x.type_annotation
    else:
        typed = _typed_single(inner, seed)
        if typed is None:
            return None
        base, t = typed
        params, positive, e, ops = base.params, base.positive, base.body, (inner, outer)
    if not isinstance(t, TensorType) or not _concrete(t) or t.dtype == "bool":
        return None
    rank = len(t.shape)
    if not 0 <= axis < rank:
        return None
    extent = t.shape[axis]
    assert isinstance(extent, int)
    if extent < 2 or (full and axis == 0):
        return None  # nothing varies, or the same constant as without ``full``
    c = axis_constant(t.dtype, extent, rank, axis, full)
    args = (e, c) if at == 1 else (c, e)
    where = f"[{axis}{'+' if full else ''}]"
    name = f"{outer}({inner or 'x'}, c{where})" if at == 1 else f"{outer}(c{where}, {inner or 'x'})"
    m = Motif(
        "axis-constant", name, params, Call(Op(outer), args), positive, ops,
        redraw=lambda s: axis_constant_motif(inner, outer, at, axis, full, s),
    )  # fmt: skip
    # ``c`` broadcasts against ``e`` by construction, but an operator may not take the dtype;
    # the corpus's own draws are all well typed (a test checks them), so it skips this.
    return m if not check or _result_type(m) is not None else None


def axis_constant_motifs(singles: Mapping[str, Motif]) -> list[Motif]:
    """Every ``axis_constant_motif`` on a parameter (each of ``AXIS_OPS``, both positions,
    every axis, both constant shapes), then on the result of every ``nn.`` operator of
    ``singles`` (each of ``AXIS_PRODUCER_OPS``, the constant second, every axis, both
    shapes)."""
    out: list[Motif] = []
    for outer in AXIS_OPS:
        for at in (1, 0):
            for axis in range(len(AXIS_SHAPE)):
                for full in (False, True):
                    m = axis_constant_motif(None, outer, at, axis, full, check=False)
                    if m is not None:
                        out.append(m)
    for inner in singles:
        seed = _axis_seed(inner) if inner.startswith("nn.") else None
        if seed is None:
            continue
        for outer in AXIS_PRODUCER_OPS:
            for axis in range(MAX_RANK):
                for full in (False, True):
                    m = axis_constant_motif(inner, outer, 1, axis, full, seed, check=False)
                    if m is not None:
                        out.append(m)
    return out


AXIS_SEED_TRIES = 8
"""Seeds an operator's single motif is drawn from until its result has an axis of extent 2
or more (``_axis_seed``)."""


@functools.cache
def _typed_single(op: str, seed: int) -> tuple[Motif, Type] | None:
    """``op``'s single motif drawn from ``seed`` and its result type (``None`` where none)."""
    m = single_motif(op, seed)
    t = _result_type(m) if m is not None else None
    return (m, t) if m is not None and t is not None else None


@functools.cache
def _axis_seed(op: str) -> int | None:
    """The first of ``AXIS_SEED_TRIES`` seeds whose single motif of ``op`` makes a tensor
    with two axes of extent 2 or more (or one, at rank 1): one a per-axis constant can vary
    along, and another it is broadcast along."""
    for k in range(AXIS_SEED_TRIES):
        seed = _seed(op, "axis", str(k))
        typed = _typed_single(op, seed)
        t = typed[1] if typed is not None else None
        if isinstance(t, TensorType) and _concrete(t) and t.dtype != "bool":
            wide = [d for d in t.shape if isinstance(d, int) and d >= 2]
            if len(wide) >= min(2, len(t.shape)) and wide:
                return seed
    return None


def tuple_pair_motif(inner: str, outer: str, seed: int = CORPUS_SEED) -> Motif | None:
    """``outer(inner(..))`` with the tuple ``inner`` makes passed whole, of two fields or more
    (a tuple of one field hides what a rewrite of the pair gets wrong: ``concatenate`` of one
    part of a ``split`` is the part on any axis): the first such draw of ``TUPLE_PAIR_TRIES``
    seeds from ``seed``; ``None`` where none, or where ``pair_motif`` builds none."""
    from relay.semantics.typing import infer_types

    for k in range(TUPLE_PAIR_TRIES):
        # ``pair_motif`` tries ``TUPLE_TRIES`` seeds from its own: the next draw is after them
        m = pair_motif(inner, outer, seed + k * TUPLE_TRIES)
        if m is None:
            return None  # not built on ``TUPLE_TRIES`` seeds: the pair rarely fits
        if not isinstance(m.body, Call) or not m.body.args:
            continue
        try:
            t = infer_types(m.mod).expr_types.get(m.body.args[0])
        except Exception:
            continue
        if isinstance(t, TupleType) and len(t.fields) >= 2:
            return dataclasses.replace(
                m, kind="tuple-pair", redraw=lambda s: tuple_pair_motif(inner, outer, s)
            )
    return None


def tuple_pair_motifs(singles: Mapping[str, Motif]) -> list[Motif]:
    """Every operator that makes a tuple applied to every operator that takes one
    (``concatenate(split(x, ..), ..)``, ``stack(topk(..))``; ``tuple_pair_motif``), drawn from
    ``TUPLE_PAIR_SEEDS`` seeds each, duplicates dropped (the attributes of the two calls drawn
    apart: the split and concatenation axes that a rewrite of the pair must compare)."""
    makers = [op for op in singles if _makes_tuple(op)]
    takers = [op for op, m in singles.items() if _takes_tuple(m)]
    out: list[Motif] = []
    for inner in makers:
        for outer in takers:
            texts: set[str] = set()
            for k in range(TUPLE_PAIR_SEEDS):
                seed = _seed(inner, outer, "tuple") + k * TUPLE_PAIR_TRIES * TUPLE_TRIES
                m = tuple_pair_motif(inner, outer, seed)
                if m is None:
                    break  # none in ``TUPLE_PAIR_TRIES``: the pair is rarely well typed
                text = str(m.mod)
                if text not in texts:
                    texts.add(text)
                    out.append(m)
    return out


TUPLE_PAIR_SEEDS = 4
"""Draws of each pair of ``tuple_pair_motifs``."""

TUPLE_PAIR_TRIES = 6
"""Seeds a ``tuple_pair_motif`` is tried on until the tuple has two fields or more."""


def _takes_tuple(m: Motif) -> bool:
    """Whether the call of a single motif takes a tuple argument."""
    from relay.semantics.typing import infer_types

    if not isinstance(m.body, Call):
        return False
    try:
        info = infer_types(m.mod)
    except Exception:
        return False
    return any(isinstance(info.expr_types.get(a), TupleType) for a in m.body.args)


def _concrete(t: Type) -> bool:
    """Whether ``t`` is a tensor, or tuple of tensors, of integer dimensions only."""
    if isinstance(t, TensorType):
        return all(isinstance(d, int) for d in t.shape)
    if isinstance(t, TupleType):
        return all(_concrete(f) for f in t.fields)
    return False


def _result_type(m: Motif) -> Type | None:
    """The type of a single motif's body (its call's relation result)."""
    from relay.semantics.typing import infer_types

    try:
        info = infer_types(m.mod)
    except Exception:
        return None
    fn_type = info.globals.get("main")
    return fn_type.ret_type if isinstance(fn_type, FuncType) else None


def _seed(*names: str) -> int:
    """The draw seed of a motif: the corpus seed and the motif's operators (``hash`` of a
    string differs between processes)."""
    return CORPUS_SEED + zlib.crc32("/".join(names).encode())


@dataclass(eq=False)
class Corpus:
    """The motif corpus: the single motifs by operator, and every motif (``stream``,
    ``motifs``), the singles first. Beyond the singles, a motif is built when it is first
    read (about a millisecond each: building the whole corpus took 8 s, while a pass's
    learning reads a third of it in its budget), and kept for every later reader.
    ``build_seconds`` is the time spent building so far."""

    singles: dict[str, Motif]
    _rest: Iterator[Motif]
    _built: list[Motif]
    build_seconds: float = 0.0

    def stream(self) -> Iterator[Motif]:
        """Every motif, in order, building those not yet built as it goes."""
        i = 0
        while True:
            if i < len(self._built):
                yield self._built[i]
                i += 1
                continue
            start = time.monotonic()
            with stable_draws():
                m = next(self._rest, None)
            self.build_seconds += time.monotonic() - start
            if m is None:
                return
            self._built.append(m)

    @property
    def motifs(self) -> list[Motif]:
        """Every motif, in order (the whole corpus is built first)."""
        with stable_draws():
            for _ in self.stream():
                pass
        return self._built


@functools.cache
def motif_corpus() -> Corpus:
    """The motif corpus (one per process, its motifs built as they are read: ``Corpus``):
    singles, narrow integer motifs, tuple pairs, constructs around the first operators,
    constants, twins (the same call on equal constants, or with other attributes), every
    operator on its own result, every pair of the first ``PAIR_CORE`` operators, and per-axis
    constants; the same in every process (``stable.stable_draws``)."""
    start = time.monotonic()
    with stable_draws():
        singles = _singles()
    return Corpus(singles, _motif_stream(singles), list(singles.values()),
                  time.monotonic() - start)  # fmt: skip


def _singles() -> dict[str, Motif]:
    singles: dict[str, Motif] = {}
    for op in OP_ORDER:
        m = single_motif(op, _seed(op))
        if m is not None:
            singles[op] = m
    return singles


def _motif_stream(singles: dict[str, Motif]) -> Iterator[Motif]:
    """The corpus after its single motifs, in order, each motif built when it is asked for
    (``Corpus.stream`` asks under ``stable_draws``)."""
    # What the builders rarely draw, early (a short budget reaches them): narrow integer
    # arithmetic under casts, tuples passed whole between operators (per-axis constants,
    # more of them, come last).
    yield from narrow_motifs()
    yield from tuple_pair_motifs(singles)
    for i, m in enumerate(singles.values()):
        yield from construct_motifs(m, i)
    yield from control_motifs()
    for op in OP_ORDER:
        whole = constant_motif(op, -1, None, _seed(op, "all"))
        if whole is not None:
            yield whole
            extreme = constant_motif(op, -1, None, _seed(op, "all", "special"), special=True)
            if extreme is not None:
                yield extreme
        # A unary operator's constant input is the all-constant motif already.
        if constant_motif(op, 1, 0.0, _seed(op)) is None:
            continue
        for at in (0, 1):
            for value in SPECIAL_CONSTANTS:
                cm = constant_motif(op, at, value, _seed(op))
                if cm is not None:
                    yield cm
    for op in OP_ORDER[:PAIR_CORE]:
        tm = twin_motif(op, _seed(op))
        if tm is not None:
            yield tm
    for op in OP_ORDER[PAIR_CORE:]:
        # Every operator on its own result (the core's are among the core pairs below):
        # ``transpose(transpose(..))``, ``reshape(reshape(..))``, what fusion rewrites match.
        sp = pair_motif(op, op, _seed(op, op))
        if sp is not None:
            yield sp
    for op in OP_ORDER:
        am = attrs_twin_motif(op, _seed(op, "attrs"))
        if am is not None:
            yield am
    core = OP_ORDER[:PAIR_CORE]
    for inner in core:
        for outer in core:
            pm = pair_motif(inner, outer, _seed(inner, outer))
            if pm is not None:
                yield pm
            if pm is not None:
                sm = shared_motif(inner, outer, _seed(inner, outer, "shared"))
                if sm is not None and not alpha_equal(sm.mod, pm.mod):
                    yield sm
    # Last: the whole corpus is searched within a second or two, and these are many.
    yield from axis_constant_motifs(singles)


# ---------------------------------------------------------------------------------------------
# Structural diffs


def op_counts(mod: IRModule) -> Counter[str]:
    """Calls per operator, and per (operator, operator of its first argument) edge, written
    ``outer<inner`` (an edge that changes is an operator that moved)."""
    out: Counter[str] = Counter()
    for fn in mod.functions.values():
        for e in post_order(fn.body):
            if isinstance(e, Call) and isinstance(e.op, Op):
                out[e.op.name] += 1
                if e.args and isinstance(e.args[0], Call) and isinstance(e.args[0].op, Op):
                    out[f"{e.op.name}<{e.args[0].op.name}"] += 1
    return out


@dataclass(frozen=True)
class Diff:
    """What a pass changed: operators and constructs (and operator edges) that disappeared
    (``removed``) or appeared (``added``), with multiplicities."""

    removed: Counter[str]
    added: Counter[str]

    @property
    def size(self) -> int:
        """How much changed (a count of removed and added things)."""
        return sum(self.removed.values()) + sum(self.added.values())

    def touched(self) -> set[str]:
        """The operators and constructs that changed (edges name both their operators)."""
        names: set[str] = set()
        for key in (*self.removed, *self.added):
            names.update(key.split("<"))
        return names


def diff(before: IRModule, after: IRModule) -> Diff:
    """The structural diff of a pass's input and output (see ``Diff``)."""
    a = op_counts(before) + construct_counts(before)
    b = op_counts(after) + construct_counts(after)
    return Diff(a - b, b - a)


# ---------------------------------------------------------------------------------------------
# Learning


@dataclass
class Footprint:
    """What a pass touches: scores per operator and construct, and the motifs it changed."""

    ops: Counter[str] = field(default_factory=Counter)
    constructs: Counter[str] = field(default_factory=Counter)
    triggers: list[Motif] = field(default_factory=list)
    crashes: list[Motif] = field(default_factory=list)
    tested: int = 0
    runs: int = 0
    seconds: float = 0.0
    examples_changed: int = 0
    examples_seen: int = 0
    universal_stop: bool = False
    """Discovery stopped early: every motif tested so far was changed."""

    def add(self, names: Iterable[str], amount: float = 1.0) -> None:
        """Score ``names`` (operators or constructs)."""
        for name in names:
            if name in BUILDERS:
                self.ops[name] += amount  # type: ignore[assignment]
            elif name in SCORED_CONSTRUCTS:
                self.constructs[name] += amount  # type: ignore[assignment]

    def record(self, before: IRModule, after: IRModule) -> Diff:
        """Add what the pass changed from ``before`` to ``after`` to the scores."""
        d = diff(before, after)
        self.examples_seen += 1
        if d.size:
            self.examples_changed += 1
            self.add(d.touched())
        return d

    def focus(self, limit: int = 8) -> list[str]:
        """The most touched operators, most touched first."""
        return [name for name, _ in self.ops.most_common(limit)]

    @property
    def universal(self) -> bool:
        """Whether the pass touched (almost) everything: steering would not narrow anything."""
        return self.universal_stop or len(self.ops) >= 0.8 * len(BUILDERS)

    def op_weights(self) -> dict[str, float]:
        """Generator weights per operator: 1, plus up to ``BOOST`` by score."""
        return _weights(self.ops, BUILDERS)

    def construct_weights(self) -> dict[str, float]:
        """Generator weights per construct: 1, plus up to ``BOOST`` by score."""
        return _weights(self.constructs, SCORED_CONSTRUCTS)

    def summary(self) -> str:
        """One line: what was learned."""
        ops = "every operator" if self.universal else ", ".join(self.focus(5)) or "no operator"
        cons = ", ".join(n for n, _ in self.constructs.most_common(3)) or "no construct"
        return (
            f"footprint: {len(self.triggers)} of {self.tested} motifs changed "
            f"({self.runs} pass runs, {self.seconds:.1f} s); touches {ops}; {cons}"
        )


def _weights(scores: Mapping[str, float], names: Iterable[str]) -> dict[str, float]:
    top = max(scores.values(), default=0.0)
    return {n: 1.0 + (BOOST * scores.get(n, 0.0) / top if top else 0.0) for n in names}


def run_pass_only(p: Pass, mod: IRModule, timeout: float) -> IRModule | None:
    """``p``'s output on ``mod``, or ``None`` if it raised or ran past ``timeout``."""
    try:
        with time_limit(timeout), PassContext(opt_level=3) as ctx:
            out = p(mod) if isinstance(p, Sequential) else run_pass(p, mod, ctx)
    except (Exception, PassTimeout, RecursionError):
        return None
    return out if isinstance(out, IRModule) else None


def learn(
    p: Pass,
    *,
    budget: float = 10.0,
    corpus: Corpus | None = None,
    found: Callable[[list[Motif]], bool] | None = None,
) -> Footprint:
    """``p``'s footprint on the motif corpus, within ``budget`` seconds (motifs not reached by
    then are not tested): group testing on batches of ``BATCH`` motifs, then pairs with every
    operator the single motifs showed ``p`` touches, then pairs of all operators
    (``extra_pairs``) until the budget is spent. After each of these steps (each chunk of
    extra pairs) ``found`` is given the motifs newly found to change the pass or crash it (the
    campaign checks them at once); learning stops when it returns true. Its time does not
    count against ``budget``, nor does building the motifs of the corpus not built yet."""
    with stable_draws():
        return _learn(p, budget, corpus if corpus is not None else motif_corpus(), found)


def _learn(
    p: Pass, budget: float, corpus: Corpus, found: Callable[[list[Motif]], bool] | None
) -> Footprint:
    start = time.monotonic()
    deadline = start + budget
    fp = Footprint()
    reported: set[int] = set()
    stopped = False

    def report() -> bool:
        """Hand the new triggers to ``found``; whether learning is to stop."""
        nonlocal deadline, stopped
        new = [m for m in fp.crashes + fp.triggers if id(m) not in reported]
        reported.update(id(m) for m in new)
        if found is None or not new or stopped:
            return stopped
        t0 = time.monotonic()
        stopped = found(new)
        deadline += time.monotonic() - t0
        return stopped

    def changed(batch: Sequence[Motif]) -> bool | None:
        """Whether ``p`` changed the batch (``None``: it crashed or timed out)."""
        fp.runs += 1
        mod = _module(batch)
        limit = min(RUN_TIMEOUT + RUN_TIMEOUT_PER_MOTIF * len(batch), deadline - time.monotonic())
        out = run_pass_only(p, mod, timeout=max(RUN_TIMEOUT, limit))
        if out is None:
            return None
        if alpha_equal(mod, out):
            return False
        if len(batch) == 1:
            # What appeared or disappeared (the replacement operators: neighbours).
            fp.add(diff(mod, out).touched(), 0.5)
        return True

    def search(motifs: Iterable[Motif]) -> None:
        nonlocal deadline
        source = iter(motifs)
        stack: list[list[Motif]] = []
        while time.monotonic() < deadline:
            if not stack:
                t0 = time.monotonic()
                stack.append(list(itertools.islice(source, BATCH)))
                deadline += time.monotonic() - t0  # building the corpus is not learning
                if not stack[-1]:
                    return
            batch = stack.pop()
            verdict = changed(batch)
            if verdict is False:
                fp.tested += len(batch)
                continue
            if len(batch) == 1:
                fp.tested += 1
                m = batch[0]
                (fp.triggers if verdict else fp.crashes).append(m)
                if m.construct:
                    # The construct is what counts: its operator scores only by the diff.
                    fp.add([m.construct])
                else:
                    fp.add(m.ops)
                if fp.tested >= 2 * BATCH and len(fp.triggers) + len(fp.crashes) == fp.tested:
                    fp.universal_stop = True
                    return
                continue
            half = len(batch) // 2
            stack += [batch[half:], batch[:half]]

    search(corpus.stream())
    if report() or fp.universal_stop:
        fp.seconds = time.monotonic() - start
        return fp
    # Pairs around what the pass touched alone, beyond the core pairs.
    touched = [m.ops[0] for m in fp.triggers + fp.crashes if m.kind == "single"]
    if touched and len(touched) < 0.5 * len(corpus.singles):
        core = set(OP_ORDER[:PAIR_CORE])
        extra: list[Motif] = []
        for op in touched:
            for other in corpus.singles:
                if op in core and other in core:
                    continue
                for inner, outer in ((op, other), (other, op)):
                    m = pair_motif(inner, outer, _seed(inner, outer))
                    if m is not None:
                        extra.append(m)
                if time.monotonic() > deadline:
                    break
        search(extra)
        if report():
            fp.seconds = time.monotonic() - start
            return fp
    # Then pairs of every operator with every other, in the order of ``extra_pairs``, chunk
    # by chunk while the budget lasts (what a rewrite of ``outer(inner(..))`` needs when
    # neither operator alone is changed).
    chunk: list[Motif] = []
    for m in extra_pairs(list(corpus.singles)):
        if time.monotonic() > deadline or fp.universal_stop:
            break
        chunk.append(m)
        if len(chunk) == EXTRA_CHUNK:
            search(chunk)
            chunk = []
            if report():
                break
    if chunk and time.monotonic() < deadline and not stopped:
        search(chunk)
        report()
    fp.seconds = time.monotonic() - start
    return fp


CONSTANT_PAIRS: tuple[tuple[float, float], ...] = ((1.0, 2.0), (math.inf, math.inf))
"""The constants of ``constant_pair_motif``s in ``extra_pairs``: two different bounds (valid in
every numeric dtype), and the same infinite operand twice."""

PAIR_DTYPES: tuple[str, ...] = ("int8",)
"""Dtypes the core pairs are drawn at once more in ``extra_pairs`` (the first parameter's)."""

EXTRA_CHUNK = 4 * BATCH
"""Pairs built and searched at a time beyond the corpus (``extra_pairs``)."""


_EXTRA: list[Motif] = []
_EXTRA_STREAM: list[Iterator[Motif]] = []


def extra_pairs(names: Sequence[str]) -> Iterator[Motif]:
    """The pair motifs beyond the corpus, built lazily (about a millisecond each) and kept for
    the next pass of the process (``names``: the corpus's single operators, the same in every
    call): see ``_extra_pairs``."""
    yield from list(_EXTRA)
    if not _EXTRA_STREAM:
        _EXTRA_STREAM.append(_extra_pairs(names))
    with stable_draws():
        for m in _EXTRA_STREAM[0]:
            _EXTRA.append(m)
            yield m


def _extra_pairs(names: Sequence[str]) -> Iterator[Motif]:
    """In order: the core pairs with constant operands (``CONSTANT_PAIRS``) in turns with the
    pairs among the first ``PAIR_RING`` operators; the core pairs again, drawn at other shapes
    and dtypes, and at each of ``PAIR_DTYPES``; then every other pair, diagonal by diagonal
    (``names[i]`` into ``names[i + k]`` for ``k = 0, 1, ..``: each diagonal has every operator
    once as the inner and once as the outer one), so that a short budget still spreads over
    every operator."""
    core = set(OP_ORDER[:PAIR_CORE])
    core_names = [n for n in names if n in core]
    ring = list(names[:PAIR_RING])

    def constant_pairs() -> Iterator[Motif]:
        for inner in core_names:
            for outer in core_names:
                for values in CONSTANT_PAIRS:
                    seed = _seed(inner, outer, "constant")
                    cm = constant_pair_motif(inner, outer, values, seed)
                    if cm is not None:
                        yield cm

    def ring_pairs() -> Iterator[Motif]:
        for inner in ring:
            for outer in ring:
                if inner in core and outer in core:
                    continue
                m = pair_motif(inner, outer, _seed(inner, outer))
                if m is not None:
                    yield m

    # The first two kinds in turns: a short budget gets some of each.
    for pair in itertools.zip_longest(constant_pairs(), ring_pairs()):
        yield from (m for m in pair if m is not None)
    for inner in core_names:  # the core pairs again, at other shapes and dtypes
        for outer in core_names:
            m = pair_motif(inner, outer, _seed(inner, outer, "again"))
            if m is not None:
                yield m
    for dtype in PAIR_DTYPES:  # and on the narrow integers, which wrap
        for inner in core_names:
            for outer in core_names:
                m = pair_motif(inner, outer, _seed(inner, outer, dtype), prefer=dtype)
                if m is not None:
                    yield m
    in_ring = set(ring)
    n = len(names)
    for k in range(n):
        for i in range(n):
            inner, outer = names[i], names[(i + k) % n]
            if inner in in_ring and outer in in_ring:
                continue
            m = pair_motif(inner, outer, _seed(inner, outer))
            if m is not None:
                yield m


__all__ = [
    "BATCH",
    "BOOST",
    "CONSTRUCTS",
    "MOTIF_CONSTRUCTS",
    "PAIR_CORE",
    "SCORED_CONSTRUCTS",
    "SPECIAL_CONSTANTS",
    "Corpus",
    "Diff",
    "Footprint",
    "Motif",
    "attrs_twin_motif",
    "constant_motif",
    "construct_counts",
    "construct_motifs",
    "control_motifs",
    "diff",
    "draws",
    "extra_pairs",
    "learn",
    "motif_corpus",
    "op_counts",
    "pair_motif",
    "run_pass_only",
    "shared_motif",
    "single_motif",
    "twin_motif",
]
