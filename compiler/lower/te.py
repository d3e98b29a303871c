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

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TypeAlias

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

    def __call__(self, *indices: ir.PrimExpr) -> ir.PrimExpr:
        return ir.Load(self.buffer, tuple(indices))

    def emit(self, out: ir.Buffer, epilogue: Epilogue | None) -> ir.Stmt:
        """The loop nest that fills ``out`` (shape ``self.shape``; its dtype is the
        epilogue's result dtype, or ``self.dtype``)."""
        raise NotImplementedError


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
    """Applied to the accumulated value before the store (e.g. mean's division)."""


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
    "compute",
    "lowering",
    "reduce",
    "unsupported",
]
