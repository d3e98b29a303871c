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

from collections.abc import Sequence

from . import ir, te


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


__all__ = ["lower_tensors", "schedule_outputs", "store_nest"]
