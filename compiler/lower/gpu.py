"""Thread binding: a lowered kernel scheduled for a GPU launch.

``schedule_for_gpu(kernel, max_threads=256)`` takes a kernel of the default lowering
(``compiler.lower.lower``) and returns a kernel that computes the same outputs, with its work
bound to launch indices; ``launch_dims(kernel)`` reads off how it is launched. Both the ``gpu``
target (NVPTX) and the ``gpu-sim`` target (the host SIMT emulator) run what this module makes.

**The contract of a scheduled kernel** (checked by ``check.check_kernel``):

- The body is, outermost first: zero or more ``Allocate`` of *scratch* buffers (scope
  ``"global"``: device memory the launcher provides for the launch, shapes may mention the size
  parameters, contents undefined), then the *launch nest*: one ``THREAD`` loop per
  ``blockIdx`` tag used (``x`` outermost, then ``y``, ``z``), then zero or more ``Allocate`` of
  ``"shared"`` buffers (one per block; static shapes), then one ``THREAD`` loop per
  ``threadIdx`` tag used (``x``, then ``y``, ``z``), then the *thread body*. Each tag is bound
  at most once; no ``THREAD`` loop appears anywhere else.
- ``threadIdx`` extents are integer constants (the block size, at most ``max_threads``
  threads in all); ``blockIdx`` extents are index expressions over the size parameters (the
  grid may depend on the input shapes), at least 1.
- The thread body holds the work, with ``"local"`` allocations (private to a thread),
  ``Barrier`` statements (only where every thread of the block reaches them: never under
  control flow that depends on ``threadIdx``), and a *grid-stride loop*: a serial loop of a
  uniform trip count ``ceil(total / stride)`` whose iteration ``it`` handles element
  ``it * stride + global_thread_index`` when that is below ``total`` (a guard inside). So any
  grid size is correct; the schedules choose one thread per element where the grid allows.
- A barrier orders both shared and global memory within the block (as CUDA's
  ``__syncthreads()`` does); nothing orders memory between blocks inside one launch.

``kernel.attrs["gpu_schedule"]`` names the schedule that was applied (below).

**Schedules**, chosen per kernel:

- ``injective``: a body that is one loop nest whose outer loops are *distributable* (no two
  iterations write one element, and none reads an element another writes: every access to a
  buffer the nest stores to uses the loop variables at the same positions) is flattened over
  those loops, one element per thread: grid ``ceil(total / block)`` (at most ``MAX_BLOCKS``,
  the grid-stride loop does the rest), block ``max_threads``.
- ``reduce``: a body that is one reduction (the default schedule of ``te.Reduce``: output loops,
  a one-element accumulator, reduction loops updating it with ``+ * min max & |``, then the
  store) whose reduction is long (``REDUCE_MIN`` or more, or symbolic) runs one block per
  output element (block-stride over the outputs when there are more than ``MAX_BLOCKS``):
  each thread folds a strided slice of the reduction into its accumulator, the block's
  partial values go to a shared buffer, and a tree reduction over it (``block / 2``, ``/ 4``,
  ... pairs, a barrier after each level) leaves the result for thread 0, which stores it.
  Float reductions are reassociated (the tolerance policy allows it for reductions).
- ``block``: anything else (several loop nests that communicate through intermediate
  buffers, or a nest that is not distributable) runs in one block: intermediate buffers
  become scratch, each nest is distributed over the block's threads by its distributable
  outer loops (a nest with none runs on thread 0), with a barrier between nests.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterator, Sequence

from . import ir
from . import schedules as sch

MAX_BLOCKS = 65536
"""The largest grid (blocks along ``blockIdx.x``) a schedule launches; more work is done by
the grid-stride loop."""

REDUCE_MIN = 64
"""The shortest static reduction that gets the ``reduce`` (block tree) schedule; shorter ones
run one output element per thread."""

REDUCE_OUTPUTS = 16384
"""The ``reduce`` schedule is for fewer outputs than this (static): with more, one output per
thread keeps a GPU busy."""

REDUCE_COMBINERS = frozenset(
    {ir.BinOp.ADD, ir.BinOp.MUL, ir.BinOp.MIN, ir.BinOp.MAX, ir.BinOp.AND, ir.BinOp.OR}
)
"""The accumulator updates the ``reduce`` schedule recognises (associative and commutative)."""


class ScheduleError(Exception):
    """A kernel that cannot be scheduled for a GPU (it calls an external function)."""


# ---------------------------------------------------------------------------------------------
# Rewriting statements: substitute variables, rename buffers


@dataclasses.dataclass
class _Rewrite:
    """Variables replaced by expressions and buffers by buffers, in expressions and in
    statements (statement trees are as deep as loop nests: recursion there is bounded)."""

    variables: dict[ir.Variable, ir.PrimExpr] = dataclasses.field(default_factory=dict)
    buffers: dict[ir.Buffer, ir.Buffer] = dataclasses.field(default_factory=dict)

    def expr(self, e: ir.PrimExpr) -> ir.PrimExpr:
        if not self.variables and not self.buffers:
            return e
        return ir.fold_expr(e, self._node)

    def _node(self, x: ir.PrimExpr, subs: list[ir.PrimExpr]) -> ir.PrimExpr:
        match x:
            case ir.Ref(v):
                return self.variables.get(v, x)
            case ir.Const():
                return x
            case ir.Binary():
                return ir.Binary(x.op, subs[0], subs[1])
            case ir.Unary():
                return ir.Unary(x.op, subs[0])
            case ir.Cast():
                return ir.Cast(x.dtype, subs[0])
            case ir.Select():
                return ir.Select(subs[0], subs[1], subs[2])
            case ir.Call():
                return ir.Call(x.name, tuple(subs), x.dtype)
            case ir.Load():
                return ir.Load(self.buffers.get(x.buffer, x.buffer), tuple(subs))
        raise AssertionError(f"unknown expression {x!r}")

    def stmt(self, s: ir.Stmt) -> ir.Stmt:
        match s:
            case ir.For(var, extent, kind, body, thread):
                return ir.For(var, self.expr(extent), kind, self.stmt(body), thread)
            case ir.Store(buffer, indices, value):
                return ir.Store(
                    self.buffers.get(buffer, buffer),
                    tuple(self.expr(i) for i in indices),
                    self.expr(value),
                )
            case ir.Allocate(buffer, body):
                return ir.Allocate(self.buffers.get(buffer, buffer), self.stmt(body))
            case ir.LetStmt(var, value, body):
                return ir.LetStmt(var, self.expr(value), self.stmt(body))
            case ir.IfThenElse(cond, then, orelse):
                return ir.IfThenElse(
                    self.expr(cond),
                    self.stmt(then),
                    None if orelse is None else self.stmt(orelse),
                )
            case ir.Seq(stmts):
                return ir.Seq(tuple(self.stmt(x) for x in stmts))
            case ir.ExternCall(name, args):
                return ir.ExternCall(
                    name,
                    tuple(
                        self.buffers.get(a, a) if isinstance(a, ir.Buffer) else self.expr(a)
                        for a in args
                    ),
                )
            case ir.Barrier():
                return s
        raise AssertionError(f"unknown statement {s!r}")


def _mentions(e: ir.PrimExpr, variables: Sequence[ir.Variable]) -> bool:
    wanted = set(variables)
    return any(isinstance(x, ir.Ref) and x.var in wanted for x in ir.walk_expr(e))


def _accesses(s: ir.Stmt) -> Iterator[tuple[ir.Buffer, tuple[ir.PrimExpr, ...], bool]]:
    """Every load and store in ``s``: (buffer, indices, is a store)."""
    for x in ir.walk_stmt(s):
        if isinstance(x, ir.Store):
            yield x.buffer, x.indices, True
        for root in ir.stmt_expressions(x):
            for e in ir.walk_expr(root):
                if isinstance(e, ir.Load):
                    yield e.buffer, e.indices, False


# ---------------------------------------------------------------------------------------------
# Distributable loop bands


def _position(
    index: ir.PrimExpr, var: ir.LoopVar, outer: Sequence[ir.LoopVar]
) -> ir.PrimExpr | None:
    """The offset ``c`` when ``index`` is ``var + c`` (or ``c + var``, or ``var``) with ``c``
    free of loop variables other than ``outer``; else ``None``."""

    def fixed(c: ir.PrimExpr) -> bool:
        return all(
            x.var in outer
            for x in ir.walk_expr(c)
            if isinstance(x, ir.Ref) and not isinstance(x.var, ir.SizeVar)
        )

    match index:
        case ir.Ref(v) if v is var:
            return ir.index(0)
        case ir.Binary(ir.BinOp.ADD, ir.Ref(v), c) if v is var and fixed(c):
            return c
        case ir.Binary(ir.BinOp.ADD, c, ir.Ref(v)) if v is var and fixed(c):
            return c
    return None


def distributable(band: Sequence[ir.For], body: ir.Stmt) -> bool:
    """Whether the iterations of the loops ``band`` (perfectly nested, outermost first, around
    ``body``) may run at once, one per thread. ``body`` must call no external function, have
    no barrier, and allocate buffers whose shapes are free of the band's variables. Then two
    iterations that first differ at loop ``v`` are independent when ``v`` is ``PARALLEL`` (the
    IR's promise: a loop's kind never changes the meaning), or when every access (load or
    store) to each buffer ``body`` stores to (and does not allocate) has ``v`` plus one and
    the same offset (over the sizes and the loops outside ``v``) at one and the same position:
    then the two touch different elements of every buffer either writes."""
    variables = [f.var for f in band]
    inner: set[ir.Buffer] = set()
    for x in ir.walk_stmt(body):
        match x:
            case ir.ExternCall() | ir.Barrier():
                return False
            case ir.Allocate(buffer):
                if any(_mentions(d, variables) for d in buffer.shape):
                    return False
                inner.add(buffer)
    accesses = [a for a in _accesses(body) if a[0] not in inner]
    written = {b for b, _, store in accesses if store}
    for j, loop in enumerate(band):
        if loop.kind is ir.LoopKind.PARALLEL:
            continue
        signatures: dict[ir.Buffer, tuple[int, ir.PrimExpr]] = {}
        for buffer, indices, _ in accesses:
            if buffer not in written:
                continue
            sig = next(
                (
                    (d, c)
                    for d, index in enumerate(indices)
                    if (c := _position(index, loop.var, variables[:j])) is not None
                ),
                None,
            )
            if sig is None or signatures.setdefault(buffer, sig) != sig:
                return False
    return True


def _band(stage: ir.Stmt) -> tuple[list[ir.For], ir.Stmt]:
    """The longest distributable band of perfectly nested loops at the top of ``stage``, and
    the statement inside it (``stage`` itself when there is none)."""
    loops: list[ir.For] = []
    s = stage
    while isinstance(s, ir.For) and s.kind is not ir.LoopKind.THREAD:
        loops.append(s)
        s = s.body
    for m in range(len(loops), 0, -1):
        if distributable(loops[:m], loops[m - 1].body):
            return loops[:m], loops[m - 1].body
    return [], stage


# ---------------------------------------------------------------------------------------------
# Building blocks


_fresh = sch.var


def _idiv(a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    sb = sch.static(b)
    if sb is not None:
        return sch.floordiv(a, sb)
    return ir.Binary(ir.BinOp.FLOORDIV, a, b)


def _ceildiv(a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    sb = sch.static(b)
    if sb is not None:
        return sch.ceildiv(a, sb)
    return _idiv(sch.add(a, sch.sub(b, 1)), b)


def _max1(e: ir.PrimExpr) -> ir.PrimExpr:
    s = sch.static(e)
    if s is not None:
        return ir.index(max(s, 1))
    return ir.Binary(ir.BinOp.MAX, e, ir.index(1))


def strided(
    total: ir.PrimExpr,
    start: ir.PrimExpr,
    stride: ir.PrimExpr,
    body: Callable[[ir.PrimExpr], ir.Stmt],
    hint: str = "it",
) -> ir.Stmt:
    """The grid-stride loop: ``for it in 0..ceil(total / stride): e = it * stride + start;
    if e < total: body(e)`` (``start`` below ``stride``; the trip count is uniform, the guard
    is inside)."""

    def one(it: ir.PrimExpr) -> ir.Stmt:
        e = sch.add(sch.mul(it, stride), start)
        return sch.guard(sch.less(e, total), body(e))

    return sch.loop(hint, _ceildiv(total, stride), one)


def _substituted(band: Sequence[ir.For], body: ir.Stmt, flat: ir.PrimExpr) -> ir.Stmt:
    """``body`` with the band's variables replaced by the multi-index of ``flat``."""
    indices = sch.unflatten(flat, [f.extent for f in band])
    variables: dict[ir.Variable, ir.PrimExpr] = dict(
        zip((f.var for f in band), indices, strict=True)
    )
    return _Rewrite(variables=variables).stmt(body)


def _thread_loop(tag: str, extent: int | ir.PrimExpr, body: Callable[[ir.PrimExpr], ir.Stmt]
                 ) -> ir.Stmt:  # fmt: skip
    v = _fresh(tag.replace("Idx.", "_"))
    return ir.For(v, sch.idx(extent), ir.LoopKind.THREAD, body(ir.Ref(v)), tag)


def _launch(
    grid: ir.PrimExpr,
    block: int,
    shared: Sequence[ir.Buffer],
    body: Callable[[ir.PrimExpr, ir.PrimExpr], ir.Stmt],
) -> ir.Stmt:
    """The launch nest: ``blockIdx.x`` over ``grid``, the ``shared`` allocations, ``threadIdx.x``
    over ``block``, around ``body(blockIdx, threadIdx)``."""

    def per_block(bx: ir.PrimExpr) -> ir.Stmt:
        inner = _thread_loop("threadIdx.x", block, lambda tx: body(bx, tx))
        for b in reversed(shared):
            inner = ir.Allocate(b, inner)
        return inner

    return _thread_loop("blockIdx.x", grid, per_block)


def _launch_2d(
    grid: ir.PrimExpr,
    side: int,
    shared: Sequence[ir.Buffer],
    body: Callable[[ir.PrimExpr, ir.PrimExpr, ir.PrimExpr], ir.Stmt],
) -> ir.Stmt:
    """The launch nest of a square ``side x side`` block: ``body(blockIdx, threadIdx.x,
    threadIdx.y)``."""

    def per_block(bx: ir.PrimExpr) -> ir.Stmt:
        inner = _thread_loop(
            "threadIdx.x",
            side,
            lambda tx: _thread_loop("threadIdx.y", side, lambda ty: body(bx, tx, ty)),
        )
        for b in reversed(shared):
            inner = ir.Allocate(b, inner)
        return inner

    return _thread_loop("blockIdx.x", grid, per_block)


def _grid(blocks: ir.PrimExpr) -> ir.PrimExpr:
    """``blocks`` clamped to ``1 .. MAX_BLOCKS`` (folded when static)."""
    s = sch.static(blocks)
    if s is not None:
        return ir.index(max(1, min(s, MAX_BLOCKS)))
    return sch.minimum(_max1(blocks), MAX_BLOCKS)


def _block_size(max_threads: int, work: ir.PrimExpr) -> int:
    """Threads per block: ``max_threads``, or the work rounded up to a warp when it is
    statically smaller."""
    s = sch.static(work)
    if s is not None and s < max_threads:
        return max(32, -(-s // 32) * 32) if max_threads >= 32 else max_threads
    return max_threads


# ---------------------------------------------------------------------------------------------
# The schedules


def _peel(body: ir.Stmt) -> tuple[list[ir.Buffer], list[ir.Stmt]]:
    """The buffers allocated around the whole body (intermediates), and its stages."""
    allocated: list[ir.Buffer] = []
    while True:
        if isinstance(body, ir.Allocate):
            allocated.append(body.buffer)
            body = body.body
        elif isinstance(body, ir.Seq) and len(body.stmts) == 1:
            body = body.stmts[0]
        else:
            break
    stages: list[ir.Stmt] = list(body.stmts) if isinstance(body, ir.Seq) else [body]
    return allocated, stages


def _injective(kernel: ir.Kernel, band: list[ir.For], inner: ir.Stmt, max_threads: int
               ) -> ir.Stmt:  # fmt: skip
    total = sch.product([f.extent for f in band])
    block = _block_size(max_threads, total)
    grid = _grid(_ceildiv(total, ir.index(block)))

    def body(bx: ir.PrimExpr, tx: ir.PrimExpr) -> ir.Stmt:
        start = sch.add(sch.mul(bx, block), tx)
        stride = sch.mul(grid, block)
        return strided(total, start, stride, lambda e: _substituted(band, inner, e))

    return _launch(grid, block, (), body)


@dataclasses.dataclass(frozen=True)
class _Reduction:
    """A stage in the default schedule of ``te.Reduce``."""

    band: list[ir.For]  # the output loops
    acc: ir.Buffer  # the one-element accumulator
    init: ir.PrimExpr
    axes: list[ir.For]  # the reduction loops
    combiner: ir.BinOp
    value: ir.PrimExpr  # the element combined into the accumulator
    rest: tuple[ir.Stmt, ...]  # after the update: the store(s) reading the accumulator


def _reduction(band: list[ir.For], inner: ir.Stmt) -> _Reduction | None:
    """``inner`` as the reduction pattern (see ``_Reduction``), or ``None``."""
    if not isinstance(inner, ir.Allocate) or not isinstance(inner.body, ir.Seq):
        return None
    acc = inner.buffer
    zero = (ir.index(0),)
    if acc.scope != "local" or acc.shape != (ir.index(1),) or len(inner.body.stmts) < 3:
        return None
    first, update, *rest = inner.body.stmts
    if not (isinstance(first, ir.Store) and first.buffer is acc and first.indices == zero):
        return None
    axes: list[ir.For] = []
    s: ir.Stmt = update
    while isinstance(s, ir.For) and s.kind is not ir.LoopKind.THREAD:
        axes.append(s)
        s = s.body
    match s:
        case ir.Store(buf, idx, ir.Binary(op, ir.Load(lbuf, lidx), value)) if (
            buf is acc and lbuf is acc and idx == zero and lidx == zero
        ):
            pass
        case _:
            return None
    if op not in REDUCE_COMBINERS or not axes:
        return None
    if op in (ir.BinOp.ADD, ir.BinOp.MUL) and first.value != ir.const(
        op is ir.BinOp.MUL, acc.dtype
    ):
        return None  # each thread starts from init: only an identity (or idempotence) allows it
    reads_acc = any(isinstance(x, ir.Load) and x.buffer is acc for x in ir.walk_expr(value)) or any(
        isinstance(x, ir.Load) and x.buffer is acc for x in ir.walk_expr(first.value)
    )
    if reads_acc or any(_mentions(f.extent, [a.var for a in axes]) for f in axes):
        return None
    return _Reduction(band, acc, first.value, axes, op, value, tuple(rest))


def _reduce(red: _Reduction, max_threads: int) -> ir.Stmt:
    outputs = sch.product([f.extent for f in red.band])
    length = sch.product([f.extent for f in red.axes])
    block = 1
    while block * 2 <= max_threads:
        block *= 2
    s_len = sch.static(length)
    if s_len is not None:
        while block > 32 and block // 2 >= s_len:
            block //= 2
    grid = _grid(outputs)
    dtype = red.acc.dtype
    partial = ir.Buffer(f"{red.acc.name}_shared", (ir.index(block),), dtype, scope="shared")
    zero = (ir.index(0),)

    def combine(a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
        return ir.Binary(red.combiner, a, b)

    def body(bx: ir.PrimExpr, tx: ir.PrimExpr) -> ir.Stmt:
        def per_output(o: ir.PrimExpr) -> ir.Stmt:
            out_vars: dict[ir.Variable, ir.PrimExpr] = dict(
                zip(
                    (f.var for f in red.band),
                    sch.unflatten(o, [f.extent for f in red.band]),
                    strict=True,
                )
            )

            def fold(r: ir.PrimExpr) -> ir.Stmt:
                variables = dict(out_vars)
                variables.update(
                    zip(
                        (f.var for f in red.axes),
                        sch.unflatten(r, [f.extent for f in red.axes]),
                        strict=True,
                    )
                )
                value = _Rewrite(variables=variables).expr(red.value)
                return ir.Store(red.acc, zero, combine(ir.Load(red.acc, zero), value))

            rw = _Rewrite(variables=out_vars)
            levels: list[ir.Stmt] = []
            half = block // 2
            while half >= 1:
                other = ir.Load(partial, (sch.add(tx, half),))
                levels.append(
                    ir.IfThenElse(
                        ir.Binary(ir.BinOp.LT, tx, ir.index(half)),
                        ir.Store(partial, (tx,), combine(ir.Load(partial, (tx,)), other)),
                    )
                )
                levels.append(ir.Barrier())
                half //= 2
            finish = ir.IfThenElse(
                ir.Binary(ir.BinOp.EQ, tx, ir.index(0)),
                sch.seq(
                    ir.Store(red.acc, zero, ir.Load(partial, zero)),
                    *(rw.stmt(x) for x in red.rest),
                ),
            )
            return ir.Allocate(
                red.acc,
                sch.seq(
                    ir.Store(red.acc, zero, rw.expr(red.init)),
                    strided(length, tx, ir.index(block), fold, "r"),
                    ir.Store(partial, (tx,), ir.Load(red.acc, zero)),
                    ir.Barrier(),
                    *levels,
                    finish,
                    # the next output's partial values overwrite the shared buffer
                    ir.Barrier(),
                ),
            )

        return _block_stride(outputs, bx, grid, per_output)

    return _launch(grid, block, (partial,), body)


@dataclasses.dataclass(frozen=True)
class _Product:
    """A reduction ``sum_r x(B, I, r) * y(B, J, r)`` over output loops split into the batch
    ``B`` (read by both operands or neither), rows ``I`` (read by ``x`` only) and columns ``J``
    (read by ``y`` only): a matrix product per batch element."""

    red: _Reduction
    x: ir.PrimExpr
    y: ir.PrimExpr
    batch: list[ir.For]
    rows: list[ir.For]
    cols: list[ir.For]


def _product(red: _Reduction) -> _Product | None:
    """``red`` as a matrix product (see ``_Product``), or ``None``."""
    if red.combiner is not ir.BinOp.ADD or not isinstance(red.value, ir.Binary):
        return None
    if red.value.op is not ir.BinOp.MUL:
        return None
    x, y = red.value.a, red.value.b
    written = {s.buffer for r in red.rest for s in ir.walk_stmt(r) if isinstance(s, ir.Store)}
    for e in (x, y):
        if any(isinstance(n, ir.Load) and n.buffer in written for n in ir.walk_expr(e)):
            return None
    batch: list[ir.For] = []
    rows: list[ir.For] = []
    cols: list[ir.For] = []
    for f in red.band:
        in_x, in_y = _mentions(x, [f.var]), _mentions(y, [f.var])
        (rows if in_x and not in_y else cols if in_y and not in_x else batch).append(f)
    if not rows or not cols:
        return None
    return _Product(red, x, y, batch, rows, cols)


def _tiled(p: _Product, max_threads: int) -> ir.Stmt:
    """The shared-memory tiled schedule of a matrix product: a ``T x T`` block computes a
    ``T x T`` tile of one batch element's output, one element per thread; the reduction runs
    in chunks of ``T``: the block stages a ``T x T`` tile of each operand in shared memory
    (one element per thread), a barrier, every thread adds its row of one tile times its
    column of the other, in order of ``r`` (so the sum is the unscheduled one's), a barrier."""
    side = 1
    while (side * 2) ** 2 <= max_threads:
        side *= 2
    red = p.red
    nb = sch.product([f.extent for f in p.batch])
    nrows = sch.product([f.extent for f in p.rows])
    ncols = sch.product([f.extent for f in p.cols])
    length = sch.product([f.extent for f in red.axes])
    tiles_i = _ceildiv(nrows, ir.index(side))
    tiles_j = _ceildiv(ncols, ir.index(side))
    tiles = sch.mul(nb, sch.mul(tiles_i, tiles_j))
    grid = _grid(tiles)
    xa = ir.Buffer(f"{red.acc.name}_x", (ir.index(side), ir.index(side)), p.x.dtype, scope="shared")
    ya = ir.Buffer(f"{red.acc.name}_y", (ir.index(side), ir.index(side)), p.y.dtype, scope="shared")
    zero = (ir.index(0),)

    def unflat(loops: Sequence[ir.For], flat: ir.PrimExpr) -> dict[ir.Variable, ir.PrimExpr]:
        return dict(zip((f.var for f in loops), sch.unflatten(flat, [f.extent for f in loops]),
                        strict=True))  # fmt: skip

    def body(bx: ir.PrimExpr, tx: ir.PrimExpr, ty: ir.PrimExpr) -> ir.Stmt:
        def per_tile(t: ir.PrimExpr) -> ir.Stmt:
            b = _idiv(t, sch.mul(tiles_i, tiles_j))
            ti = _mod(_idiv(t, tiles_j), tiles_i)
            tj = _mod(t, tiles_j)
            row = sch.add(sch.mul(ti, side), ty)
            col = sch.add(sch.mul(tj, side), tx)
            outer = unflat(p.batch, b)

            def chunk(kt: ir.PrimExpr) -> ir.Stmt:
                k0 = sch.mul(kt, side)
                kx, ky = sch.add(k0, tx), sch.add(k0, ty)
                at_x = {**outer, **unflat(p.rows, row), **unflat(red.axes, kx)}
                at_y = {**outer, **unflat(p.cols, col), **unflat(red.axes, ky)}
                stage_x = sch.guard(
                    sch.conj(sch.less(row, nrows), sch.less(kx, length)),
                    ir.Store(xa, (ty, tx), _Rewrite(variables=at_x).expr(p.x)),
                )
                stage_y = sch.guard(
                    sch.conj(sch.less(col, ncols), sch.less(ky, length)),
                    ir.Store(ya, (ty, tx), _Rewrite(variables=at_y).expr(p.y)),
                )

                def step(kk: ir.PrimExpr) -> ir.Stmt:
                    term = ir.Binary(ir.BinOp.MUL, ir.Load(xa, (ty, kk)), ir.Load(ya, (kk, tx)))
                    update = ir.Store(
                        red.acc, zero, ir.Binary(ir.BinOp.ADD, ir.Load(red.acc, zero), term)
                    )
                    return sch.guard(sch.less(sch.add(k0, kk), length), update)

                return sch.seq(
                    stage_x, stage_y, ir.Barrier(), sch.loop("kk", side, step), ir.Barrier()
                )

            at_out = {**outer, **unflat(p.rows, row), **unflat(p.cols, col)}
            rw = _Rewrite(variables=at_out)
            finish = sch.guard(
                sch.conj(sch.less(row, nrows), sch.less(col, ncols)),
                sch.seq(*(rw.stmt(x) for x in red.rest)),
            )
            return ir.Allocate(
                red.acc,
                sch.seq(
                    ir.Store(red.acc, zero, rw.expr(red.init)),
                    sch.loop("kt", _ceildiv(length, ir.index(side)), chunk),
                    finish,
                ),
            )

        return _block_stride(tiles, bx, grid, per_tile)

    return _launch_2d(grid, side, (xa, ya), body)


def _mod(a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    sb = sch.static(b)
    if sb is not None:
        return sch.floormod(a, sb)
    return ir.Binary(ir.BinOp.FLOORMOD, a, b)


def _block_stride(
    total: ir.PrimExpr,
    bx: ir.PrimExpr,
    grid: ir.PrimExpr,
    body: Callable[[ir.PrimExpr], ir.Stmt],
) -> ir.Stmt:
    """``body(o)`` for the outputs ``o`` of block ``bx`` (a grid-stride loop over blocks; its
    guard depends on ``blockIdx`` only, so barriers inside stay uniform)."""
    if sch.static(total) is not None and sch.static(grid) == sch.static(total):
        return body(bx)
    return strided(total, bx, grid, body, "ob")


def _single_block(allocated: list[ir.Buffer], stages: list[ir.Stmt], max_threads: int
                  ) -> tuple[list[ir.Buffer], ir.Stmt]:  # fmt: skip
    scratch = {b: dataclasses.replace(b, scope="global") for b in allocated}
    rw = _Rewrite(buffers=scratch)
    stages = [rw.stmt(s) for s in stages]
    block = max_threads

    def body(bx: ir.PrimExpr, tx: ir.PrimExpr) -> ir.Stmt:
        parts: list[ir.Stmt] = []
        for k, stage in enumerate(stages):
            if k:
                parts.append(ir.Barrier())
            band, inner = _band(stage)
            if band:
                total = sch.product([f.extent for f in band])
                parts.append(
                    strided(
                        total,
                        tx,
                        ir.index(block),
                        functools.partial(_substituted, band, inner),
                    )
                )
            else:
                parts.append(ir.IfThenElse(ir.Binary(ir.BinOp.EQ, tx, ir.index(0)), stage))
        return sch.seq(*parts)

    return list(scratch.values()), _launch(ir.index(1), block, (), body)


def schedule_for_gpu(kernel: ir.Kernel, *, max_threads: int = 256) -> ir.Kernel:
    """``kernel`` (of the default lowering, no ``THREAD`` loops) with its work bound to
    ``blockIdx``/``threadIdx`` launch indices by one of the schedules of the module docstring
    (at most ``max_threads`` threads per block, at least 1). A kernel that is scheduled already
    is returned as it is. Raises ``ScheduleError`` for a kernel calling an external function
    (``cblas_sgemm``: lower with a ``"packed"`` matrix-product strategy for a GPU)."""
    if max_threads < 1:
        raise ValueError(f"max_threads={max_threads} must be at least 1")
    if any(
        isinstance(s, ir.For) and s.kind is ir.LoopKind.THREAD for s in ir.walk_stmt(kernel.body)
    ):
        return kernel
    for s in ir.walk_stmt(kernel.body):
        if isinstance(s, ir.ExternCall):
            raise ScheduleError(
                f"kernel {kernel.name} calls the external function {s.name}: no GPU schedule"
            )
    allocated, stages = _peel(kernel.body)
    scratch: list[ir.Buffer] = []
    name = "block"
    body: ir.Stmt | None = None
    band, inner = _band(kernel.body)
    red = _reduction(band, inner)
    product = _product(red) if red is not None else None
    if product is not None:
        body, name = _tiled(product, max_threads), "tiled"
    elif red is not None and _long(red):
        body, name = _reduce(red, max_threads), "reduce"
    elif band:
        body, name = _injective(kernel, band, inner, max_threads), "injective"
    if body is None:
        scratch, body = _single_block(allocated, stages, max_threads)
    for b in reversed(scratch):
        body = ir.Allocate(b, body)
    attrs = dict(kernel.attrs)
    attrs["gpu_schedule"] = name
    return dataclasses.replace(kernel, body=body, attrs=attrs)


def _long(red: _Reduction) -> bool:
    """Whether ``red`` gets the block tree reduction: a long reduction (``REDUCE_MIN``, or
    symbolic) into few outputs (static, below ``REDUCE_OUTPUTS``)."""
    length = sch.static(sch.product([f.extent for f in red.axes]))
    outputs = sch.static(sch.product([f.extent for f in red.band]))
    long = length is None or length >= REDUCE_MIN
    return long and outputs is not None and outputs < REDUCE_OUTPUTS


def launch_dims(
    kernel: ir.Kernel,
) -> tuple[tuple[ir.PrimExpr, ir.PrimExpr, ir.PrimExpr], tuple[int, int, int]]:
    """How a scheduled kernel is launched: the grid (``blockIdx`` x, y, z extents: index
    expressions over the size parameters) and the block (``threadIdx`` extents); a tag the
    kernel does not bind has extent 1. Raises ``ValueError`` for a kernel without a launch
    nest or with a non-constant block extent."""
    grid: dict[str, ir.PrimExpr] = {}
    block: dict[str, int] = {}
    s = kernel.body
    while True:
        match s:
            case ir.Allocate(body=body):
                s = body
            case ir.For(kind=ir.LoopKind.THREAD, thread=tag, extent=extent, body=body):
                if tag.startswith("blockIdx"):
                    grid[tag[-1]] = extent
                else:
                    n = sch.static(extent)
                    if n is None:
                        raise ValueError(f"kernel {kernel.name}: {tag} extent is not constant")
                    block[tag[-1]] = n
                s = body
            case _:
                break
    if not grid and not block:
        raise ValueError(f"kernel {kernel.name} is not scheduled for a GPU (no launch nest)")
    one = ir.index(1)
    return (
        (grid.get("x", one), grid.get("y", one), grid.get("z", one)),
        (block.get("x", 1), block.get("y", 1), block.get("z", 1)),
    )


def thread_body(kernel: ir.Kernel) -> ir.Stmt:
    """The statement inside a scheduled kernel's launch nest (and its shared allocations)."""
    s, inside = kernel.body, kernel.body
    while isinstance(s, ir.Allocate) or (isinstance(s, ir.For) and s.kind is ir.LoopKind.THREAD):
        if isinstance(s, ir.For) and s.thread.startswith("threadIdx"):
            inside = s.body
        s = s.body
    return inside


__all__ = [
    "MAX_BLOCKS",
    "REDUCE_COMBINERS",
    "REDUCE_MIN",
    "ScheduleError",
    "distributable",
    "launch_dims",
    "schedule_for_gpu",
    "strided",
    "thread_body",
]
