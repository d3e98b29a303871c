"""The lowering driver: tensor expressions, and primitive Relay functions, to loop-IR kernels.

``lower_tensors(name, inputs, outputs)`` is the default schedule of a graph of tensor
expressions (``compiler.lower.te``):

- every output gets a loop nest over its shape that stores ``t(*idx)``; computes inline, so a
  chain of elementwise, broadcast and injective operators is one nest with no intermediate
  buffer;
- a ``Materialized`` tensor (a reduction, a scheduled operator) that a nest reads is emitted
  first, once, into a local buffer (allocated around the whole body) — or straight into an
  output when it is an output and nothing else reads it.

``lower_primitive(fn, name)`` lowers a primitive function (see its docstring).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import sympy

from ...semantics.ops import OPS, OpPattern
from ...semantics.syntax import (
    AnyDim,
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
    TupleType,
    Type,
    Var,
    children,
    post_order,
)
from ...semantics.typing import infer_types
from . import ir, te
from . import ops as _ops  # noqa: F401  (registers every lowering)


def _reads(stmt: ir.Stmt) -> list[te.Materialized]:
    """The materialized tensors whose local buffers ``stmt`` loads, in first-read order."""
    seen: dict[te.Materialized, None] = {}
    for s in ir.walk_stmt(stmt):
        for root in ir.stmt_expressions(s):
            for e in ir.walk_expr(root):
                if isinstance(e, ir.Load) and e.buffer.scope == "local":
                    owner = te.materialized_of(e.buffer)
                    if owner is not None:
                        seen.setdefault(owner)
    return list(seen)


def store_nest(out: ir.Buffer, t: te.Tensor) -> ir.Stmt:
    """The loop nest that stores every element of ``t`` into ``out``."""
    return te.loop_nest(out.shape, lambda idx: ir.Store(out, idx, te.as_dtype(t(*idx), out.dtype)))


def _sizes(buffers: Sequence[ir.Buffer], body: ir.Stmt) -> tuple[ir.SizeVar, ...]:
    """The size variables the buffers' shapes and the body mention, in order of appearance."""
    found: dict[ir.SizeVar, None] = {}
    roots: list[ir.PrimExpr] = [d for b in buffers for d in b.shape]
    for s in ir.walk_stmt(body):
        roots.extend(ir.stmt_expressions(s))
        if isinstance(s, ir.Allocate):
            roots.extend(s.buffer.shape)
    for root in roots:
        for e in ir.walk_expr(root):
            if isinstance(e, ir.Ref) and isinstance(e.var, ir.SizeVar):
                found.setdefault(e.var)
    return tuple(found)


def schedule_outputs(
    outputs: Sequence[tuple[ir.Buffer, te.Tensor, te.Epilogue | None]],
) -> ir.Stmt:
    """The default schedule of ``outputs`` (buffer, tensor, epilogue of a Materialized tensor
    stored straight into the buffer): the nests of the materialized tensors they read, in
    dependency order, each into a local buffer allocated around the whole statement, then one
    nest per output."""
    out_of: dict[te.Materialized, int] = {}
    for k, (_, t, _) in enumerate(outputs):
        if isinstance(t, te.Materialized) and t not in out_of:
            out_of[t] = k
    finals: list[ir.Stmt] = []
    for k, (buffer, t, epilogue) in enumerate(outputs):
        if isinstance(t, te.Materialized) and out_of[t] == k:
            finals.append(t.emit(buffer, epilogue))
        else:
            assert epilogue is None, "an epilogue applies to a Materialized output only"
            finals.append(store_nest(buffer, t))
    # Emission order: a post-order over the "reads" graph, iteratively.
    nests: dict[te.Materialized, ir.Stmt] = {}
    order: list[te.Materialized] = []
    state: dict[te.Materialized, bool] = {}  # False: in progress, True: done
    stack: list[tuple[te.Materialized, list[te.Materialized]]] = []
    local_reads: list[te.Materialized] = []
    for stmt in finals:
        local_reads.extend(_reads(stmt))
    for root in local_reads:
        if root in state:
            continue
        nests[root] = root.emit(root.buffer, None)
        state[root] = False
        stack.append((root, _reads(nests[root])))
        while stack:
            node, pending = stack[-1]
            if pending:
                child = pending.pop(0)
                if child in state:
                    if not state[child]:
                        raise ValueError(f"tensor {child.name} depends on itself")
                    continue
                nests[child] = child.emit(child.buffer, None)
                state[child] = False
                stack.append((child, _reads(nests[child])))
                continue
            stack.pop()
            state[node] = True
            order.append(node)
    body: ir.Stmt = ir.Seq(tuple([nests[m] for m in order] + finals))
    if len(finals) == 1 and not order:
        body = finals[0]
    for m in reversed(order):
        body = ir.Allocate(m.buffer, body)
    return body


def lower_tensors(
    name: str, inputs: Sequence[te.Placeholder], outputs: Sequence[te.Tensor]
) -> ir.Kernel:
    """The kernel ``name`` computing ``outputs`` from the buffers of ``inputs``, with the
    default schedule (see the module docstring). Output buffers are named ``out0``, ``out1``,
    ... and have the outputs' shapes and dtypes."""
    out_buffers = tuple(
        ir.Buffer(f"out{k}" if len(outputs) > 1 else "out", t.shape, t.dtype)
        for k, t in enumerate(outputs)
    )
    body = schedule_outputs([(b, t, None) for b, t in zip(out_buffers, outputs, strict=True)])
    in_buffers = tuple(p.buffer for p in inputs)
    sizes = _sizes(in_buffers + out_buffers, body)
    return ir.Kernel(name, in_buffers, out_buffers, sizes, body)


# ---------------------------------------------------------------------------------------------
# Primitive functions


class _Context(te.LowerContext):
    """The driver's side of ``te.LowerContext``: one ``SizeVar`` per sympy symbol (shared by
    every dimension that mentions it), a fresh one per ``?``."""

    def __init__(self) -> None:
        self.symbols: dict[sympy.Symbol, ir.SizeVar] = {}
        self.names: set[str] = set()

    def fresh(self, hint: str) -> str:
        name, k = hint, 0
        while name in self.names:
            k += 1
            name = f"{hint}{k}"
        self.names.add(name)
        return name

    def dim(self, d: object) -> ir.PrimExpr:
        if isinstance(d, bool):
            raise TypeError("a dimension cannot be a bool")
        if isinstance(d, int):
            return ir.index(d)
        if isinstance(d, AnyDim):
            return ir.Ref(ir.SizeVar(self.fresh("any")))
        if isinstance(d, sympy.Basic):
            return self._sympy(d)
        raise TypeError(f"not a dimension: {d!r}")

    def _sympy(self, d: sympy.Basic) -> ir.PrimExpr:
        if isinstance(d, sympy.Integer):
            return ir.index(int(d))
        if isinstance(d, sympy.Symbol):
            if d not in self.symbols:
                self.symbols[d] = ir.SizeVar(self.fresh(str(d)))
            return ir.Ref(self.symbols[d])
        if isinstance(d, sympy.Add | sympy.Mul):
            op = ir.BinOp.ADD if isinstance(d, sympy.Add) else ir.BinOp.MUL
            terms = [self._sympy(a) for a in d.args]
            out = terms[0]
            for t in terms[1:]:
                out = ir.Binary(op, out, t)
            return out
        if isinstance(d, sympy.floor) and isinstance(d.args[0], sympy.Mul):
            num, den = d.args[0].as_numer_denom()
            return ir.Binary(ir.BinOp.FLOORDIV, self._sympy(num), self._sympy(den))
        raise te.LoweringError("dimension", f"the symbolic dimension {d} is not supported")

    def shape(self, t: Type) -> tuple[ir.PrimExpr, ...]:
        if not isinstance(t, TensorType):
            raise te.LoweringError("type", f"expected a tensor type, found {t}")
        return tuple(self.dim(d) for d in t.shape)


def _flatten(result: te.TensorResult) -> list[te.Tensor]:
    out: list[te.Tensor] = []
    stack: list[te.TensorResult] = [result]
    while stack:
        r = stack.pop()
        if isinstance(r, tuple):
            stack.extend(reversed(r))
        else:
            out.append(r)
    return out


def _placeholders(ctx: _Context, name: str, t: Type, buffers: list[ir.Buffer]) -> te.TensorResult:
    """The placeholders of a parameter of type ``t`` (a tuple gives one per field, in order)."""
    if isinstance(t, TupleType):
        return tuple(_placeholders(ctx, f"{name}_{k}", f, buffers) for k, f in enumerate(t.fields))
    if not isinstance(t, TensorType):
        raise te.LoweringError("parameter", f"parameter {name} of type {t} is not a tensor")
    buffer = ir.Buffer(ctx.fresh(name), ctx.shape(t), t.dtype)
    buffers.append(buffer)
    return te.Placeholder(buffer)


def replace_var(e: ir.PrimExpr, var: ir.Variable, value: ir.PrimExpr) -> ir.PrimExpr:
    """``e`` with every ``Ref(var)`` replaced by ``value`` (iteratively; shared nodes kept)."""

    def node(x: ir.PrimExpr, subs: list[ir.PrimExpr]) -> ir.PrimExpr:
        match x:
            case ir.Ref(v) if v is var:
                return value
            case ir.Const() | ir.Ref():
                return x
            case ir.Binary():
                return dataclasses.replace(x, a=subs[0], b=subs[1])
            case ir.Unary() | ir.Cast():
                return dataclasses.replace(x, a=subs[0])
            case ir.Select():
                return ir.Select(subs[0], subs[1], subs[2])
            case ir.Call():
                return dataclasses.replace(x, args=tuple(subs))
            case ir.Load():
                return dataclasses.replace(x, indices=tuple(subs))
        raise AssertionError(f"unknown expression {x!r}")

    return ir.fold_expr(e, node)


def _fuse_epilogue(
    ctx: _Context,
    lowering: te.Lowering,
    inputs: tuple[te.TensorResult, ...],
    position: int,
    attrs: object,
    arg_types: tuple[Type, ...],
    out_type: Type,
    producer_size: int,
) -> tuple[te.Materialized, int] | None:
    """An elementwise consumer of the materialized ``inputs[position]`` (used only here, of
    the consumer's shape) folded into the producer's store as an epilogue, with the size of
    the fused epilogue expression (``producer_size``: the producer's own epilogue's); ``None``
    when that size would pass ``INLINE_LIMIT``."""
    producer = inputs[position]
    assert isinstance(producer, te.Materialized)
    v = ir.ScalarVar(ctx.fresh("v"), producer.dtype)
    stand_in = te.compute(producer.shape, producer.dtype, lambda idx: ir.Ref(v), producer.name)
    new_inputs = (*inputs[:position], stand_in, *inputs[position + 1 :])
    consumer = lowering.fn(ctx, new_inputs, attrs, arg_types, out_type)  # type: ignore[arg-type]
    assert isinstance(consumer, te.Tensor)
    size = tree_size(_probe(consumer), {v: producer_size})
    if size > INLINE_LIMIT:
        return None

    def schedule(out: ir.Buffer, epilogue: te.Epilogue | None) -> ir.Stmt:
        def fused(value: ir.PrimExpr, idx: te.Indices) -> ir.PrimExpr:
            e = replace_var(consumer(*idx), v, value)
            return e if epilogue is None else epilogue(e, idx)

        return producer.emit(out, fused)

    fused_tensor = te.Scheduled(
        ctx.fresh(f"{producer.name}_{lowering.op}"),
        consumer.shape,
        consumer.dtype,
        schedule=schedule,
    )
    return fused_tensor, size


def _same_shape(a: Sequence[ir.PrimExpr], b: Sequence[ir.PrimExpr]) -> bool:
    return len(a) == len(b) and all(x == y for x, y in zip(a, b, strict=True))


INLINE_LIMIT = 2048
"""The largest element expression (``tree_size``) an inlined tensor may have. Inlining copies
an input's expression into its consumer at every read, so an operator that reads its input
twice (``maximum`` is ``select(a > b, a, b)``) doubles it: a long chain of them would grow
exponentially. When a call's result passes the limit, its large computed inputs are
materialised into local buffers (their own loop nests) and the call is lowered again over
loads of them; a result still over the limit is materialised itself. Epilogue fusion stops
at the limit likewise."""


INLINE_DEPTH = 32
"""The longest chain of operator calls inlined into one another (or fused as epilogues of one
materialised tensor). Element functions call their inputs' element functions, so the tensor
expression layer recurses on this depth; an input at the limit is materialised first."""


def tree_size(e: ir.PrimExpr, leaves: dict[ir.Variable, int] | None = None) -> int:
    """The number of nodes of ``e`` as a tree: a node shared by several parents is counted at
    each of them (what a consumer that re-reads it costs); ``Ref(v)`` counts ``leaves[v]`` for
    ``v`` in ``leaves`` (a stand-in for a value of that size). Iterative."""

    def node(x: ir.PrimExpr, subs: list[int]) -> int:
        if leaves and isinstance(x, ir.Ref) and x.var in leaves:
            return leaves[x.var]
        return 1 + sum(subs)

    return ir.fold_expr(e, node)


def _probe(t: te.Tensor) -> ir.PrimExpr:
    """``t``'s element expression at fresh symbolic indices."""
    return t(*(ir.Ref(ir.LoopVar(f"probe{k}")) for k in range(t.ndim)))


def materialize(t: te.Tensor, name: str) -> te.Scheduled:
    """``t`` computed by its own loop nest into a buffer (read through loads), with the
    epilogue of a fused consumer, if any, applied at the store."""

    def schedule(out: ir.Buffer, epilogue: te.Epilogue | None) -> ir.Stmt:
        def element(idx: te.Indices) -> ir.Stmt:
            value = t(*idx)
            if epilogue is not None:
                value = epilogue(value, idx)
            return ir.Store(out, idx, te.as_dtype(value, out.dtype))

        return te.loop_nest(out.shape, element)

    return te.Scheduled(name, t.shape, t.dtype, schedule=schedule)


class _Lowerer:
    """One primitive function's lowering: the tensors of its sub-expressions, by node."""

    def __init__(self, fn: Function, name: str) -> None:
        self.fn = fn
        self.name = name
        self.ctx = _Context()
        self.info = infer_types(IRModule({GlobalVar(name): fn}))
        self.values: dict[Expr, te.TensorResult] = {}
        self.let_values: dict[Var, Expr] = {}
        self.uses: dict[Expr, int] = {}
        self.constants: list[tuple[ir.Buffer, np.ndarray]] = []
        self.sizes: dict[te.Tensor, int] = {}
        self.epilogue_sizes: dict[te.Materialized, int] = {}
        self.barriers: set[te.Materialized] = set()
        self.depths: dict[te.Tensor, int] = {}

    def resolve(self, e: Expr) -> Expr:
        """A let-bound variable's value expression (followed through chains of lets)."""
        while isinstance(e, Var) and e in self.let_values:
            e = self.let_values[e]
        return e

    def count_uses(self) -> None:
        nodes = list(post_order(self.fn.body))
        for e in nodes:
            if isinstance(e, Let):
                self.let_values[e.var] = e.value
        for e in nodes:
            kids: tuple[Expr, ...] = (e.body,) if isinstance(e, Let) else children(e)
            for c in kids:
                r = self.resolve(c)
                self.uses[r] = self.uses.get(r, 0) + 1
        root = self.resolve(self.fn.body)
        self.uses[root] = self.uses.get(root, 0) + 1

    def constant(self, e: Constant) -> te.Tensor:
        data = e.data
        dtype = str(data.dtype)
        if data.ndim == 0:
            value = data.item()
            c = ir.const(value, dtype)
            return te.compute((), dtype, lambda idx: c, "const")
        buffer = ir.Buffer(self.ctx.fresh("const"), tuple(ir.index(n) for n in data.shape), dtype)
        self.constants.append((buffer, data))
        return te.Placeholder(buffer)

    def call(self, e: Call) -> te.TensorResult:
        if not isinstance(e.op, Op):
            raise te.LoweringError("call", "a call of a function inside a primitive function")
        op = e.op.name
        lowering = te.LOWERINGS.get(op)
        if lowering is None:
            raise te.LoweringError(op, te.UNSUPPORTED.get(op, "no lowering is registered"))
        inputs = tuple(self.values[self.resolve(a)] for a in e.args)
        arg_types = tuple(self.info.type_of(a) for a in e.args)
        out_type = self.info.type_of(e)
        opdef = OPS[op]
        if opdef.pattern <= OpPattern.BROADCAST and isinstance(out_type, TensorType):
            out_shape = self.ctx.shape(out_type) if not _has_any(out_type) else None
            for k, (a, x) in enumerate(zip(e.args, inputs, strict=True)):
                fusable = (
                    isinstance(x, te.Materialized)
                    and x not in self.barriers
                    and self.depths.get(x, 0) < INLINE_DEPTH
                    and self.uses.get(self.resolve(a), 0) == 1
                    and out_shape is not None
                    and _same_shape(x.shape, out_shape)
                    and not any(x is y for j, y in enumerate(inputs) if j != k)
                )
                if fusable:
                    assert isinstance(x, te.Materialized)
                    fused = _fuse_epilogue(
                        self.ctx,
                        lowering,
                        inputs,
                        k,
                        e.attrs,
                        arg_types,
                        out_type,
                        self.epilogue_sizes.get(x, 1),
                    )
                    if fused is not None:
                        self.epilogue_sizes[fused[0]] = fused[1]
                        self.depths[fused[0]] = self.depths.get(x, 0) + 1
                        return fused[0]
        # The inlining guards (see INLINE_DEPTH and INLINE_LIMIT): inputs at the depth limit
        # are materialised; a result over the size limit makes its large computed inputs
        # materialised and the call lowered again over loads of them (and is materialised
        # itself if still too big).
        inputs = tuple(self.materialize_deep(x) for x in inputs)
        result = lowering.fn(self.ctx, inputs, e.attrs, arg_types, out_type)  # type: ignore[arg-type]
        if self.too_big(result):
            inputs = tuple(self.materialize_large(x) for x in inputs)
            result = lowering.fn(self.ctx, inputs, e.attrs, arg_types, out_type)  # type: ignore[arg-type]
            result = self.materialize_large(result, limit=INLINE_LIMIT)
        depth = 1 + max(
            (
                self.depths.get(t, 0)
                for x in inputs
                for t in _flatten(x)
                if isinstance(t, te.Compute)
            ),
            default=0,
        )
        for t in _flatten(result):
            if isinstance(t, te.Compute):
                self.depths[t] = depth
        return result

    def materialize_deep(self, value: te.TensorResult) -> te.TensorResult:
        """``value`` with each computed tensor at ``INLINE_DEPTH`` materialised."""
        if isinstance(value, tuple):
            return tuple(self.materialize_deep(v) for v in value)
        if not isinstance(value, te.Compute) or self.depths.get(value, 0) < INLINE_DEPTH:
            return value
        m = materialize(value, self.ctx.fresh(f"{value.name}_buf"))
        self.barriers.add(m)
        return m

    def size(self, t: te.Tensor) -> int:
        """The tree size of ``t``'s element expression (1 for a tensor read by a load)."""
        if not isinstance(t, te.Compute):
            return 1
        if t not in self.sizes:
            self.sizes[t] = tree_size(_probe(t))
        return self.sizes[t]

    def too_big(self, result: te.TensorResult) -> bool:
        """Whether a tensor of ``result`` is over ``INLINE_LIMIT``."""
        return any(self.size(t) > INLINE_LIMIT for t in _flatten(result))

    def materialize_large(self, value: te.TensorResult, limit: int = 16) -> te.TensorResult:
        """``value`` with each computed tensor whose size passes ``limit`` materialised (and
        kept out of epilogue fusion, which would inline it again)."""
        if isinstance(value, tuple):
            return tuple(self.materialize_large(v, limit) for v in value)
        if not isinstance(value, te.Compute) or self.size(value) <= limit:
            return value
        m = materialize(value, self.ctx.fresh(f"{value.name}_buf"))
        self.barriers.add(m)
        return m

    def run(self) -> ir.Kernel:
        in_buffers: list[ir.Buffer] = []
        for p in self.fn.params:
            self.values[p] = _placeholders(self.ctx, p.name_hint, self.info.type_of(p), in_buffers)
        self.count_uses()
        for e in post_order(self.fn.body):
            match e:
                case Var():
                    if e not in self.values:
                        target = self.resolve(e)
                        if target not in self.values:
                            raise te.LoweringError("variable", f"free variable %{e.name_hint}")
                        self.values[e] = self.values[target]
                case Constant():
                    self.values[e] = self.constant(e)
                case Call():
                    self.values[e] = self.call(e)
                case Tuple(fields):
                    self.values[e] = tuple(self.values[self.resolve(f)] for f in fields)
                case TupleGetItem(tup, index):
                    value = self.values[self.resolve(tup)]
                    assert isinstance(value, tuple)
                    self.values[e] = value[index]
                case Let(_, _, let_body):
                    self.values[e] = self.values[self.resolve(let_body)]
                case Op():
                    pass
                case _:
                    kind = type(e).__name__
                    raise te.LoweringError(kind, f"{kind} is not lowered inside a kernel")
        outputs = _flatten(self.values[self.resolve(self.fn.body)])
        out_buffers = tuple(ir.Buffer(self.ctx.fresh("out"), t.shape, t.dtype) for t in outputs)
        body = schedule_outputs([(b, t, None) for b, t in zip(out_buffers, outputs, strict=True)])
        inputs = tuple(in_buffers) + tuple(b for b, _ in self.constants)
        sizes = _sizes(inputs + out_buffers, body)
        attrs: dict[str, object] = {}
        if self.constants:
            attrs["constants"] = tuple(data for _, data in self.constants)
        return ir.Kernel(self.name, inputs, out_buffers, sizes, body, source=self.name, attrs=attrs)


def _has_any(t: TensorType) -> bool:
    return any(isinstance(d, AnyDim) for d in t.shape)


def lower_primitive(fn: Function, name: str) -> ir.Kernel:
    """The kernel of a primitive function (FuseOps' ``Primitive=1`` functions, or any
    first-order function over tensors and tuples of tensors).

    The function is type-checked to get every sub-expression's type; its dataflow body (calls
    of operators, tuples, projections, lets, constants) is walked iteratively, each operator
    call lowered by its registered lowering (``te.LOWERINGS``). Kernel inputs are the
    parameters flattened (a tuple parameter gives one buffer per field, in order), followed by
    one buffer per non-scalar constant of the body, whose arrays are
    ``kernel.attrs["constants"]`` in order (``run_kernel`` supplies them when given only the
    parameters); outputs are the result flattened likewise. Static dimensions are literals;
    symbolic ones become ``SizeVar`` parameters shared by equal symbols, each ``?`` its own.
    An elementwise or broadcast call whose input is a materialized tensor used only by it, of
    its own shape, is folded into that tensor's store as an epilogue. Inlined expressions are
    kept below ``INLINE_LIMIT`` nodes and ``INLINE_DEPTH`` chained calls by materialising
    large or deep ones (see there).

    Raises ``te.LoweringError(op, reason)`` for an operator without a lowering or a construct
    a kernel cannot hold (``if``, ``match``, closures, references).
    """
    return _Lowerer(fn, name).run()


def size_bindings(
    kernel: ir.Kernel,
    input_shapes: Sequence[Sequence[int]],
    output_shapes: Sequence[Sequence[int]],
) -> dict[ir.SizeVar, int]:
    """The values of the kernel's size parameters, read off the shapes of its inputs (the
    parameters' buffers; constants' buffers may be left out) and of its outputs. Raises
    ``ValueError`` for a contradiction or a size left unbound."""
    bound: dict[ir.SizeVar, int] = {}
    pairs = list(zip(kernel.inputs, input_shapes, strict=False))
    pairs += list(zip(kernel.outputs, output_shapes, strict=True))
    for buffer, shape in pairs:
        if len(shape) != buffer.ndim:
            raise ValueError(f"{buffer.name}: rank {len(shape)}, expected {buffer.ndim}")
        for d, n in zip(buffer.shape, shape, strict=True):
            var = d.var if isinstance(d, ir.Ref) else None
            if isinstance(var, ir.SizeVar) and bound.setdefault(var, int(n)) != int(n):
                raise ValueError(f"size {var.name} is both {bound[var]} and {n}")
    missing = [v.name for v in kernel.sizes if v not in bound]
    if missing:
        raise ValueError(f"kernel {kernel.name}: sizes {missing} are not bound")
    return bound


def kernel_inputs(
    kernel: ir.Kernel,
    params: Sequence[np.ndarray],
) -> list[np.ndarray]:
    """The arrays of every kernel input: ``params`` (one per parameter buffer), then the
    kernel's constants (``kernel.attrs["constants"]``)."""
    constants = kernel.attrs.get("constants", ())
    assert isinstance(constants, tuple)
    return list(params) + list(constants)


__all__ = [
    "INLINE_DEPTH",
    "INLINE_LIMIT",
    "kernel_inputs",
    "lower_primitive",
    "lower_tensors",
    "materialize",
    "replace_var",
    "schedule_outputs",
    "size_bindings",
    "store_nest",
    "tree_size",
]
