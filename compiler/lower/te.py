"""Tensor expressions: how each operator is described for lowering, once, as index expressions.

An operator's lowering (registered with ``@lowering("add")`` in the module of
``compiler/lower/ops/`` that mirrors its ``semantics/ops`` module) receives its inputs as
``Tensor`` objects and returns its result as a ``Tensor`` (or a tuple of them for an operator
whose result is a tuple). A ``Tensor`` is an element function: ``t(i, j)`` is the scalar
expression (``ir.PrimExpr``) of the element at ``(i, j)``. Three kinds:

- ``Placeholder``: a kernel input; ``t(*idx)`` is a ``Load`` of its buffer.
- ``Compute``: an element function written by the lowering (``compute(shape, dtype, fn)``);
  ``t(*idx)`` *inlines* ``fn(idx)``. Elementwise, broadcast and injective operators are
  computes, so a fused chain of them becomes one loop nest with no intermediate buffer.
- ``Materialized``: a tensor that needs its own loop nest before anyone reads it: reductions
  (``reduce(...)``), and operators with a hand-written schedule (dense, convolution, pooling:
  ``Scheduled``). ``t(*idx)`` is a ``Load`` of the buffer it is materialised into; the lowering
  driver emits its loop nest first, through ``emit(out, epilogue)``, where ``epilogue`` (if not
  ``None``) is the elementwise function of the consumer fused after it (TVM's
  out-elemwise-fusable pattern: conv2d + bias + relu is one kernel with the bias and relu
  applied at the store).

Dimensions are ``ir.PrimExpr``: ``ir.index(n)`` for a static extent, ``ir.Ref(SizeVar)`` for a
symbolic or ``?`` dimension (``LowerContext.dim`` makes them from Relay types).

Lowerings state exactly the reference semantics of the operator (``semantics/ops``); where an
operator cannot be lowered statically (a data-dependent output shape, an op a target cannot do
at all), it is registered with ``unsupported(name, reason)`` and a compile error names it.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

import numpy as np

from ...semantics.ops.registry import Attrs
from ...semantics.syntax import Type
from . import ir

Indices: TypeAlias = tuple[ir.PrimExpr, ...]


class Tensor:
    """An n-dimensional value with an element function; see the module docstring."""

    name: str
    shape: tuple[ir.PrimExpr, ...]
    dtype: str

    def __call__(self, *indices: ir.PrimExpr) -> ir.PrimExpr:
        raise NotImplementedError

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)


@dataclass(eq=False)
class Placeholder(Tensor):
    """A kernel input buffer."""

    buffer: ir.Buffer

    def __post_init__(self) -> None:
        self.name = self.buffer.name
        self.shape = self.buffer.shape
        self.dtype = self.buffer.dtype

    def __call__(self, *indices: ir.PrimExpr) -> ir.PrimExpr:
        return ir.Load(self.buffer, tuple(indices))


@dataclass(eq=False)
class Compute(Tensor):
    """An inlined element function."""

    name: str
    shape: tuple[ir.PrimExpr, ...]
    dtype: str
    fn: Callable[[Indices], ir.PrimExpr]

    def __call__(self, *indices: ir.PrimExpr) -> ir.PrimExpr:
        return self.fn(tuple(indices))


Epilogue: TypeAlias = Callable[[ir.PrimExpr, Indices], ir.PrimExpr]
"""A fused consumer applied at the store: ``(value, output indices) -> stored value``."""


@dataclass(eq=False)
class Materialized(Tensor):
    """A tensor with its own loop nest, read through ``buffer`` once emitted."""

    name: str
    shape: tuple[ir.PrimExpr, ...]
    dtype: str
    buffer: ir.Buffer = field(init=False)

    def __post_init__(self) -> None:
        self.buffer = ir.Buffer(self.name, self.shape, self.dtype, scope="local")
        _OWNERS[self.buffer] = self

    def __call__(self, *indices: ir.PrimExpr) -> ir.PrimExpr:
        return ir.Load(self.buffer, tuple(indices))

    def emit(self, out: ir.Buffer, epilogue: Epilogue | None) -> ir.Stmt:
        """The loop nest that fills ``out`` (shape ``self.shape``; its dtype is the
        epilogue's result dtype, or ``self.dtype``)."""
        raise NotImplementedError


_OWNERS: weakref.WeakValueDictionary[ir.Buffer, Materialized] = weakref.WeakValueDictionary()


def materialized_of(buffer: ir.Buffer) -> Materialized | None:
    """The ``Materialized`` tensor whose local buffer is ``buffer``, if any (the lowering
    driver finds what a loop nest reads this way, and emits it first)."""
    return _OWNERS.get(buffer)


def loop_nest(
    shape: Sequence[ir.PrimExpr],
    body: Callable[[Indices], ir.Stmt],
    *,
    hint: str = "i",
    parallel: bool = True,
    inner_parallel: bool = False,
) -> ir.Stmt:
    """``for i0 in 0..shape[0]: ... body((i0, ...))``. With ``parallel``, leading axes of
    static extent 1 get no loop (their index is 0) and the outermost remaining loop is
    ``parallel`` when at least two loops remain, or one with ``inner_parallel`` (the body
    has loops of its own, e.g. a reduction's): otherwise the innermost loop, over the
    contiguous last dimension, is left serial for the code generator to vectorise."""
    variables = tuple(ir.LoopVar(f"{hint}{k}") for k in range(len(shape)))
    unit = 0
    if parallel:
        while unit < len(shape):
            extent = shape[unit]
            if not (isinstance(extent, ir.Const) and extent.value == 1):
                break
            unit += 1
    indices = tuple(ir.index(0) if k < unit else ir.Ref(v) for k, v in enumerate(variables))
    stmt = body(indices)
    loops = len(shape) - unit
    outer_parallel = parallel and (loops > 1 or (inner_parallel and loops == 1))
    for k in reversed(range(unit, len(shape))):
        kind = ir.LoopKind.PARALLEL if outer_parallel and k == unit else ir.LoopKind.SERIAL
        stmt = ir.For(variables[k], shape[k], kind, stmt)
    return stmt


def combine(combiner: str, acc: ir.PrimExpr, value: ir.PrimExpr) -> ir.PrimExpr:
    """One step of a reduction: ``acc`` combined with ``value`` (same dtype)."""
    match combiner:
        case "sum":
            return ir.Binary(ir.BinOp.ADD, acc, value)
        case "prod":
            return ir.Binary(ir.BinOp.MUL, acc, value)
        case "max":
            return ir.Binary(ir.BinOp.MAX, acc, value)
        case "min":
            return ir.Binary(ir.BinOp.MIN, acc, value)
        case "all":
            return ir.Binary(ir.BinOp.AND, acc, value)
        case "any":
            return ir.Binary(ir.BinOp.OR, acc, value)
    raise ValueError(f"combiner {combiner!r} is not one of {REDUCERS}")


def identity(combiner: str, dtype: str) -> ir.Const:
    """The identity of ``combiner`` in ``dtype``: 0, 1, the lowest or highest value (an
    infinity for floats), true, false."""
    floating = dtype.startswith("float")
    match combiner:
        case "sum" | "any":
            return ir.const(0, dtype)
        case "prod" | "all":
            return ir.const(1, dtype)
        case "max":
            if floating:
                return ir.const(float("-inf"), dtype)
            return ir.const(0 if dtype == "bool" else int(np.iinfo(np.dtype(dtype)).min), dtype)
        case "min":
            if floating:
                return ir.const(float("inf"), dtype)
            return ir.const(1 if dtype == "bool" else int(np.iinfo(np.dtype(dtype)).max), dtype)
    raise ValueError(f"combiner {combiner!r} is not one of {REDUCERS}")


def as_dtype(e: ir.PrimExpr, dtype: str) -> ir.PrimExpr:
    """``e`` cast to ``dtype`` (itself if it already has it)."""
    return e if e.dtype == dtype else ir.Cast(dtype, e)


REDUCERS = ("sum", "prod", "max", "min", "all", "any")
"""The combiners of ``Reduce``: ``all``/``any`` on bool; ``max``/``min`` propagate NaN as the
reference's numpy reductions do."""


@dataclass(eq=False)
class Reduce(Materialized):
    """``out[idx] = combine over r in axes of body(idx, r)``, starting from ``init``.

    ``axes`` are the extents of the reduction axes; ``body`` gives the element to combine for
    output indices ``idx`` and reduction indices ``r``. ``init`` is the identity of
    ``combiner`` in ``dtype`` (``None``: the natural one: 0, 1, the lowest or highest value,
    true, false). The accumulation is in ``acc_dtype`` (default ``dtype``) and cast at the
    end. The lowering driver emits the default schedule (output loops outside, reduction
    loops inside, accumulator in a local scalar buffer); float sums may be reassociated by the
    code generator (the tolerance policy allows it for reductions)."""

    axes: tuple[ir.PrimExpr, ...] = ()
    combiner: str = "sum"
    body: Callable[[Indices, Indices], ir.PrimExpr] = field(default=lambda idx, r: ir.index(0))
    init: ir.PrimExpr | None = None
    acc_dtype: str | None = None
    finish: Callable[[ir.PrimExpr, Indices], ir.PrimExpr] | None = None
    """Applied to the accumulated value (of ``acc_dtype``) before the store (e.g. mean's
    division); its result is cast to ``dtype`` if it has another dtype."""

    def emit(self, out: ir.Buffer, epilogue: Epilogue | None) -> ir.Stmt:
        """The default schedule: output loops outside, then a one-element local accumulator
        set to ``init``, the reduction loops inside updating it, and the store of
        ``epilogue(finish(acc))``."""
        acc_dtype = self.acc_dtype or self.dtype
        init = self.init if self.init is not None else identity(self.combiner, acc_dtype)

        def element(idx: Indices) -> ir.Stmt:
            acc = ir.Buffer(f"{self.name}_acc", (ir.index(1),), acc_dtype, scope="local")
            zero = (ir.index(0),)
            update = loop_nest(
                self.axes,
                lambda r: ir.Store(
                    acc,
                    zero,
                    combine(
                        self.combiner, ir.Load(acc, zero), as_dtype(self.body(idx, r), acc_dtype)
                    ),
                ),
                hint="r",
                parallel=False,
            )
            value: ir.PrimExpr = ir.Load(acc, zero)
            if self.finish is not None:
                value = self.finish(value, idx)
            value = as_dtype(value, self.dtype)
            if epilogue is not None:
                value = epilogue(value, idx)
            stored = ir.Store(out, idx, as_dtype(value, out.dtype))
            return ir.Allocate(
                acc, ir.Seq((ir.Store(acc, zero, as_dtype(init, acc_dtype)), update, stored))
            )

        return loop_nest(self.shape, element, inner_parallel=bool(self.axes))


@dataclass(eq=False)
class Scheduled(Materialized):
    """A hand-scheduled loop nest (dense, conv2d, pooling): ``schedule(out, epilogue)``
    builds the statement."""

    schedule: Callable[[ir.Buffer, Epilogue | None], ir.Stmt] = field(
        default=lambda out, epi: ir.Seq(())
    )

    def emit(self, out: ir.Buffer, epilogue: Epilogue | None) -> ir.Stmt:
        return self.schedule(out, epilogue)


TensorResult: TypeAlias = Tensor | tuple["TensorResult", ...]


def compute(
    shape: Sequence[ir.PrimExpr], dtype: str, fn: Callable[[Indices], ir.PrimExpr], name: str
) -> Compute:
    """An element function of ``shape`` and ``dtype``."""
    return Compute(name, tuple(shape), dtype, fn)


def reduce(
    shape: Sequence[ir.PrimExpr],
    dtype: str,
    axes: Sequence[ir.PrimExpr],
    combiner: str,
    body: Callable[[Indices, Indices], ir.PrimExpr],
    name: str,
    *,
    init: ir.PrimExpr | None = None,
    acc_dtype: str | None = None,
    finish: Callable[[ir.PrimExpr, Indices], ir.PrimExpr] | None = None,
) -> Reduce:
    """A reduction (see ``Reduce``)."""
    if combiner not in REDUCERS:
        raise ValueError(f"combiner {combiner!r} is not one of {REDUCERS}")
    return Reduce(
        name,
        tuple(shape),
        dtype,
        axes=tuple(axes),
        combiner=combiner,
        body=body,
        init=init,
        acc_dtype=acc_dtype,
        finish=finish,
    )


# ---------------------------------------------------------------------------------------------
# The lowering registry


class LoweringError(Exception):
    """An operator call this lowering cannot handle (``op`` names it; ``reason`` says why)."""

    def __init__(self, op: str, reason: str) -> None:
        super().__init__(f"{op}: {reason}")
        self.op = op
        self.reason = reason


class LowerContext:
    """What a lowering may ask of the driver: Relay dimensions as ``PrimExpr``s (symbolic and
    ``?`` dimensions become ``SizeVar`` parameters of the kernel), fresh names."""

    def dim(self, d: object) -> ir.PrimExpr:
        """A Relay dimension (an ``int``, a sympy expression, or ``Any``) as an index."""
        raise NotImplementedError

    def shape(self, t: Type) -> tuple[ir.PrimExpr, ...]:
        """The dimensions of a tensor type."""
        raise NotImplementedError

    def fresh(self, hint: str) -> str:
        """A name not used before in this kernel."""
        raise NotImplementedError


LoweringFn: TypeAlias = Callable[
    [LowerContext, tuple[TensorResult, ...], Attrs, tuple[Type, ...], Type], TensorResult
]
"""``(ctx, inputs, attrs, input types, output type) -> result``."""


@dataclass(frozen=True)
class Lowering:
    """One operator's lowering, and the module that registered it."""

    op: str
    fn: LoweringFn
    module: str


LOWERINGS: dict[str, Lowering] = {}
"""Operator name -> its lowering (filled by importing ``compiler.lower.ops``)."""

UNSUPPORTED: dict[str, str] = {}
"""Operator name -> why it is not lowered natively."""


def lowering(*names: str) -> Callable[[LoweringFn], LoweringFn]:
    """Register the decorated function as the lowering of each operator in ``names``."""

    def register(fn: LoweringFn) -> LoweringFn:
        for name in names:
            if name in LOWERINGS or name in UNSUPPORTED:
                raise ValueError(f"operator {name} has two lowerings")
            LOWERINGS[name] = Lowering(name, fn, fn.__module__)
        return fn

    return register


def unsupported(name: str, reason: str) -> None:
    """Record that ``name`` is not lowered natively, and why."""
    if name in LOWERINGS or name in UNSUPPORTED:
        raise ValueError(f"operator {name} has two lowerings")
    UNSUPPORTED[name] = reason


__all__ = [
    "LOWERINGS",
    "REDUCERS",
    "UNSUPPORTED",
    "Compute",
    "Epilogue",
    "Indices",
    "LowerContext",
    "Lowering",
    "LoweringError",
    "LoweringFn",
    "Materialized",
    "Placeholder",
    "Reduce",
    "Scheduled",
    "Tensor",
    "TensorResult",
    "as_dtype",
    "combine",
    "compute",
    "identity",
    "loop_nest",
    "lowering",
    "materialized_of",
    "reduce",
    "unsupported",
]
