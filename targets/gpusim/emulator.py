"""The SIMT emulator: a scheduled loop-IR kernel run over every thread of its launch, on the host.

``launch(kernel, inputs, outputs, sizes, seed=0, races=False)`` runs a kernel that
``compiler.lower.gpu.schedule_for_gpu`` made (its launch nest: scratch allocations, ``blockIdx``
loops, shared allocations, ``threadIdx`` loops) on numpy arrays.

**How.** The threads of each block are dealt (at random, from ``seed``) into ``GROUPS``
groups; a group holds those threads of every block, and runs as *lanes* of numpy vectors: a
scalar of the thread body is an array with one element per lane (a 0-d array when it is the
same for all), and the thread body runs statement by statement for all lanes of the group
together (vectorised over threads). Control flow that differs between lanes runs under a
lane mask: both arms of an ``if`` run, each for its lanes; a loop whose extent differs runs
to the longest, each lane while its own extent lasts; a store writes only the active lanes.
``local`` buffers are private to a lane, ``shared`` ones one per block, scratch and parameters
one per launch. Arithmetic means what ``compiler.lower.evaluate`` (the reference interpreter
of the loop IR) says, vectorised: integers wrap, ``div``/``mod`` truncate, float16 is computed
in float32 and rounded once, casts to bool of NaN are false, ``erf`` is ``math.erf`` in
float64.

**Phases and thread order.** The barriers split a run into *phases*. Statements holding a
barrier are compiled to generators that yield at it, so a group's run is suspended at each
barrier (its values live across the barrier stay in its lanes) until every group has reached
it. Within a phase the groups run one after another, to their next barrier, in an order drawn
from ``seed`` for each phase: a thread sees all that the groups before it stored in the phase
and nothing of the groups after it. So a missing barrier (a thread reading what another
writes in the same phase) or a write/write race gives a value that depends on the seed,
usually a wrong one. (Threads of one group run in lockstep: all loads of a statement before
its stores; a conflict between two threads of one group shows under other seeds.)

**Race detector** (``races=True``). Every load and store of a ``shared`` or global buffer is
recorded with its lane and phase; at the end, two accesses of one element, at least one of
them a store, by two different threads conflict when they are in one block and one phase
(a missing barrier), or in two blocks (global memory: nothing orders blocks within a launch).
The first conflict found is raised as ``RaceDetected`` naming the kernel, the buffer, the
element, the kind (write/write or read/write) and the two threads (block and thread index).

Out-of-bounds accesses by an active lane raise ``IndexError`` naming the buffer and thread.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias, assert_never

import numpy as np
import numpy.typing as npt

from ...compiler.lower import ir
from ...compiler.lower.evaluate import FLOAT_BINARY, FLOAT_INTRINSICS, int_bounds, is_float
from ...compiler.lower.gpu import launch_dims, launch_nest

Array: TypeAlias = npt.NDArray[np.generic]
Value: TypeAlias = npt.NDArray[Any]
"""A scalar of the thread body: one element per lane, or a 0-d array (or numpy scalar) for
all lanes."""
Mask: TypeAlias = npt.NDArray[np.bool_] | None
"""The active lanes (``None``: all of them)."""


class RaceDetected(Exception):
    """Two threads touched one element of a buffer without a barrier between them, at least
    one of them storing (see the module docstring)."""


# ---------------------------------------------------------------------------------------------
# Memory


@dataclass(eq=False)
class Memory:
    """One shared or global buffer's storage: ``data`` (flat; a shared buffer's blocks one
    after another), and in race-detector mode the log of its accesses (flat indices, lanes,
    phase, whether a store)."""

    name: str
    data: Array
    shape: tuple[int, ...]
    shared: bool  # shared (one per block) rather than global
    strides: tuple[int, ...]
    size: int  # elements (of one block's copy, for a shared buffer)
    log: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int, bool]] = field(
        default_factory=list
    )


def _row_major(shape: Sequence[int]) -> tuple[int, ...]:
    strides: list[int] = []
    step = 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _poison(n: int, dtype: str) -> Array:
    """Fresh contents: NaN for floats, the largest value for integers (as the reference
    interpreter fills a fresh buffer), so that a read before a store shows."""
    if is_float(dtype):
        return np.full(n, np.nan, dtype=np.dtype(dtype))
    return np.full(n, int_bounds(dtype)[1], dtype=np.dtype(dtype))


# ---------------------------------------------------------------------------------------------
# Scalar arithmetic, vectorised (the meaning of compiler.lower.evaluate)


def _np(dtype: str) -> np.dtype[np.generic]:
    return np.dtype(dtype)


def _safe_divisor(b: Value) -> Value:
    return np.where(b == 0, np.ones_like(b), b)  # division by zero is undefined anyway


def _trunc_div(a: Value, b: Value) -> Value:
    b = _safe_divisor(b)
    q = np.floor_divide(a, b)
    if np.issubdtype(np.asarray(a).dtype, np.signedinteger):
        fix = (np.remainder(a, b) != 0) & ((a < 0) != (b < 0))
        q = np.where(fix, q + np.asarray(1, dtype=q.dtype), q)
    return q


_BOOL_ARITHMETIC = frozenset(
    {ir.BinOp.ADD, ir.BinOp.SUB, ir.BinOp.MUL, ir.BinOp.DIV, ir.BinOp.MOD, ir.BinOp.FLOORDIV,
     ir.BinOp.FLOORMOD}
)  # fmt: skip


def _int_binary(op: ir.BinOp, a: Value, b: Value, dtype: str) -> Value:
    if dtype == "bool" and op in _BOOL_ARITHMETIC:
        # bool is a 1-bit integer: computed in int8, wrapped to the low bit
        wide = _int_binary(op, np.asarray(a, dtype=np.int8), np.asarray(b, dtype=np.int8), "int8")
        return np.asarray((wide & 1) != 0)
    t = _np(dtype)
    match op:
        case ir.BinOp.ADD:
            return np.add(a, b, dtype=t)
        case ir.BinOp.SUB:
            return np.subtract(a, b, dtype=t)
        case ir.BinOp.MUL:
            return np.multiply(a, b, dtype=t)
        case ir.BinOp.DIV:
            return np.asarray(_trunc_div(a, b), dtype=t)
        case ir.BinOp.MOD:
            return np.subtract(a, np.multiply(b, _trunc_div(a, b), dtype=t), dtype=t)
        case ir.BinOp.FLOORDIV:
            return np.floor_divide(a, _safe_divisor(b), dtype=t)
        case ir.BinOp.FLOORMOD:
            return np.remainder(a, _safe_divisor(b), dtype=t)
        case ir.BinOp.MIN:
            return np.minimum(a, b)
        case ir.BinOp.MAX:
            return np.maximum(a, b)
        case ir.BinOp.AND:
            return np.bitwise_and(a, b)
        case ir.BinOp.OR:
            return np.bitwise_or(a, b)
        case ir.BinOp.XOR:
            return np.bitwise_xor(a, b)
        case ir.BinOp.SHL | ir.BinOp.SHR:
            bits = 1 if dtype == "bool" else t.itemsize * 8
            wide_dtype = "int8" if dtype == "bool" else dtype
            x = np.asarray(a).astype(wide_dtype)
            s = np.clip(np.asarray(b).astype(np.int64), 0, bits - 1).astype(wide_dtype)
            r = np.left_shift(x, s) if op is ir.BinOp.SHL else np.right_shift(x, s)
            return np.asarray((r & 1).astype(bool) if dtype == "bool" else r.astype(t))
    return _compare(op, a, b)


def _compare(op: ir.BinOp, a: Value, b: Value) -> Value:
    match op:
        case ir.BinOp.EQ:
            return np.equal(a, b)
        case ir.BinOp.NE:
            return np.not_equal(a, b)
        case ir.BinOp.LT:
            return np.less(a, b)
        case ir.BinOp.LE:
            return np.less_equal(a, b)
        case ir.BinOp.GT:
            return np.greater(a, b)
        case ir.BinOp.GE:
            return np.greater_equal(a, b)
    raise TypeError(f"operator {op.value} is not a comparison")


def _float(dtype: str, fn: Callable[..., object], *args: Value) -> Value:
    """``fn`` on float operands of ``dtype``: float16 through float32, one rounding."""
    t = _np(dtype)
    if dtype == "float16":
        wide = [np.asarray(a).astype(np.float32) for a in args]
        return np.asarray(fn(*wide)).astype(t)
    return np.asarray(fn(*args)).astype(t, copy=False)


def binary(op: ir.BinOp, a: Value, b: Value, dtype: str) -> Value:
    """``a op b`` on lanes of operand dtype ``dtype``."""
    if is_float(dtype):
        if op in ir.COMPARISONS:
            return _compare(op, a, b)
        return _float(dtype, FLOAT_BINARY[op], a, b)
    return _int_binary(op, a, b, dtype)


def unary(op: ir.UnOp, a: Value, dtype: str) -> Value:
    """``op a`` on lanes."""
    match op:
        case ir.UnOp.NEG:
            if is_float(dtype):
                return _float(dtype, np.negative, a)
            if dtype == "bool":
                return np.asarray(a)  # -x wraps to x in one bit
            return np.negative(a, dtype=_np(dtype))
        case ir.UnOp.NOT:
            return np.logical_not(a) if dtype == "bool" else np.invert(a)
        case _:
            assert_never(op)


def cast(a: Value, source: str, target: str) -> Value:
    """``a`` converted from ``source`` to ``target`` (``compiler.lower.evaluate.cast``)."""
    x = np.asarray(a)
    if target == "bool":
        if is_float(source):
            return np.asarray((x != 0) & ~np.isnan(x))
        return np.asarray(x != 0)
    if is_float(source) and not is_float(target):
        lo, hi = int_bounds(target)
        # out of range is undefined: any value will do, without numpy's warning
        f = np.where(np.isfinite(x), x, 0)
        return np.clip(np.trunc(f), lo, hi).astype(np.float64).astype(_np(target))
    return x.astype(_np(target))


_erf = np.vectorize(math.erf, otypes=[np.float64])


def intrinsic(name: str, args: Sequence[Value], dtype: str) -> Value:
    """The intrinsic ``name`` on float lanes of ``dtype``."""
    match name:
        case "isnan":
            return np.isnan(args[0])
        case "isinf":
            return np.isinf(args[0])
        case "isfinite":
            return np.isfinite(args[0])
        case "erf":
            return np.asarray(_erf(np.asarray(args[0]).astype(np.float64))).astype(_np(dtype))
        case "rsqrt":
            root = _float(dtype, np.sqrt, args[0])
            return _float(dtype, np.divide, np.asarray(1, dtype=_np(dtype)), root)
    return _float(dtype, FLOAT_INTRINSICS[name], *args)


# ---------------------------------------------------------------------------------------------
# The machine

GROUPS = 4
"""How many groups the threads of a block are dealt into (at most one per thread)."""


@dataclass(eq=False)
class _Launch:
    """One launch's shared state: the memories, the phase, the geometry."""

    kernel: ir.Kernel
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    races: bool
    memories: dict[ir.Buffer, Memory] = field(default_factory=dict)
    phase: int = 0

    @property
    def block_threads(self) -> int:
        return math.prod(self.block)

    def thread_name(self, lane: int) -> str:
        gx, gy, _ = self.grid
        bx, by, _ = self.block
        b, t = divmod(lane, self.block_threads)
        return (f"block ({b % gx}, {b // gx % gy}, {b // (gx * gy)}) thread "
                f"({t % bx}, {t // bx % by}, {t // (bx * by)})")  # fmt: skip

    def check_races(self) -> None:
        for buffer, m in self.memories.items():
            if m.log:
                self.races_of(buffer, m)

    def races_of(self, buffer: ir.Buffer, m: Memory) -> None:
        addr = np.concatenate([x[0] for x in m.log])
        lane = np.concatenate([x[1] for x in m.log])
        phase = np.concatenate([np.full(len(x[0]), x[2], dtype=np.int64) for x in m.log])
        write = np.concatenate([np.full(len(x[0]), x[3], dtype=bool) for x in m.log])
        block_of = lane // self.block_threads
        groups: list[tuple[str, npt.NDArray[np.int64], npt.NDArray[np.int64]]] = [
            ("in one phase", addr * (self.phase + 1) + phase, lane)
        ]
        if not m.shared:
            groups.append(("in two blocks", addr, block_of))
        for how, key, owner in groups:
            found = _conflict(key, owner, write)
            if found is not None:
                i, j = found
                kind = "write/write" if write[i] and write[j] else "read/write"
                element = int(addr[i] % m.size) if m.shared else int(addr[i])
                index = np.unravel_index(element, m.shape) if m.shape else ()
                raise RaceDetected(
                    f"race in kernel {self.kernel.name}: {kind} conflict on "
                    f"{'shared ' if m.shared else ''}buffer {buffer.name}"
                    f"[{', '.join(str(int(x)) for x in index)}] {how} "
                    f"(phase {int(phase[i])} and {int(phase[j])}) between "
                    f"{self.thread_name(int(lane[i]))} and {self.thread_name(int(lane[j]))}"
                )


@dataclass(eq=False)
class _Group:
    """Some threads of every block, run in lockstep: their lanes (launch-wide thread
    numbers), variables and local buffers."""

    launch: _Launch
    lane: npt.NDArray[np.int64]
    env: dict[object, Value] = field(default_factory=dict)
    locals: dict[ir.Buffer, tuple[Array, tuple[int, ...], int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.n = len(self.lane)
        self.block_of = self.lane // self.launch.block_threads
        self.position = np.arange(self.n, dtype=np.int64)

    def address(self, buffer: ir.Buffer, idx: Sequence[Value], mask: Mask, what: str
                ) -> npt.NDArray[np.int64]:  # fmt: skip
        """The flat element index of ``buffer[idx]`` per lane, checked against the bounds
        for the active lanes."""
        if buffer in self.locals:
            _, shape, _ = self.locals[buffer]
            strides = _row_major(shape)
        else:
            m = self.launch.memories[buffer]
            shape, strides = m.shape, m.strides
        flat: npt.NDArray[np.int64] = np.zeros(self.n, dtype=np.int64)
        for i, n, step in zip(idx, shape, strides, strict=True):
            iv = np.asarray(i, dtype=np.int64)
            out = (iv < 0) | (iv >= n)
            bad = out if mask is None else out & mask
            if np.any(bad):
                k = int(np.argmax(np.broadcast_to(bad, (self.n,))))
                got = int(np.broadcast_to(iv, (self.n,))[k])
                who = self.launch.thread_name(int(self.lane[k]))
                raise IndexError(
                    f"kernel {self.launch.kernel.name}: {what} of {buffer.name} at index {got} "
                    f"out of bounds 0..{n - 1} by {who}"
                )
            flat = flat + np.where(out, 0, iv) * step
        return flat

    def load(self, buffer: ir.Buffer, idx: Sequence[Value], mask: Mask) -> Value:
        addr = self.address(buffer, idx, mask, "load")
        if buffer in self.locals:
            data, _, size = self.locals[buffer]
            return np.asarray(data[self.position * size + addr])
        m = self.launch.memories[buffer]
        if m.shared:
            addr = addr + self.block_of * m.size
        if self.launch.races:
            active = self.lane if mask is None else self.lane[mask]
            where = addr if mask is None else addr[mask]
            m.log.append((where, active, self.launch.phase, False))
        return np.asarray(m.data[addr])

    def store(self, buffer: ir.Buffer, idx: Sequence[Value], value: Value, mask: Mask) -> None:
        addr = self.address(buffer, idx, mask, "store")
        v = np.broadcast_to(np.asarray(value, dtype=np.dtype(buffer.dtype)), (self.n,))
        if buffer in self.locals:
            data, _, size = self.locals[buffer]
            addr = self.position * size + addr
            target = data
        else:
            m = self.launch.memories[buffer]
            if m.shared:
                addr = addr + self.block_of * m.size
            target = m.data
            if self.launch.races:
                active = self.lane if mask is None else self.lane[mask]
                where = addr if mask is None else addr[mask]
                m.log.append((where, active, self.launch.phase, True))
        if mask is None:
            target[addr] = v
        else:
            target[addr[mask]] = v[mask]


def _conflict(
    key: npt.NDArray[np.int64], owner: npt.NDArray[np.int64], write: npt.NDArray[np.bool_]
) -> tuple[int, int] | None:
    """Two records with one ``key``, different ``owner`` and at least one write: their
    positions (a write first), or ``None``."""
    order = np.lexsort((owner, key))
    k, o, w = key[order], owner[order], write[order]
    starts = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
    ends = np.r_[starts[1:], len(k)]
    has_write = np.logical_or.reduceat(w, starts)
    bad = np.flatnonzero(has_write & (o[starts] != o[ends - 1]))
    if bad.size == 0:
        return None
    lo, hi = int(starts[bad[0]]), int(ends[bad[0]])
    i = next(p for p in range(lo, hi) if w[p])
    j = next(p for p in range(lo, hi) if o[p] != o[i])
    return int(order[i]), int(order[j])


# ---------------------------------------------------------------------------------------------
# Compilation of the thread body to closures; statements holding a barrier become generators
# that yield at it (a group's run is suspended there until the other groups reach it)

ExprFn: TypeAlias = Callable[[_Group, Mask], Value]
StmtFn: TypeAlias = Callable[[_Group, Mask], None]
GenFn: TypeAlias = Callable[[_Group, Mask], Iterator[None]]


def _const(c: ir.Const) -> Value:
    if c.dtype == "bool":
        return np.asarray(bool(c.value))
    return np.asarray(c.value).astype(np.dtype(c.dtype))


def _node(e: ir.PrimExpr, subs: list[ExprFn]) -> ExprFn:
    match e:
        case ir.Const():
            v = _const(e)
            return lambda g, m: v
        case ir.Ref(var):
            return lambda g, m: g.env[var]
        case ir.Binary(bop, a, _):
            fa, fb = subs
            d = a.dtype
            return lambda g, m: binary(bop, fa(g, m), fb(g, m), d)
        case ir.Unary(uop, a):
            (fa,) = subs
            d = a.dtype
            return lambda g, m: unary(uop, fa(g, m), d)
        case ir.Cast(target, a):
            (fa,) = subs
            source = a.dtype
            return lambda g, m: cast(fa(g, m), source, target)
        case ir.Select():
            fc, ft, ff = subs
            return lambda g, m: np.where(fc(g, m), ft(g, m), ff(g, m))
        case ir.Call(name, args, _):
            operand = args[0].dtype
            return lambda g, m: intrinsic(name, [f(g, m) for f in subs], operand)
        case ir.Load(buffer, _):
            return lambda g, m: g.load(buffer, [f(g, m) for f in subs], m)
        case _:
            assert_never(e)


def compile_expr(e: ir.PrimExpr) -> ExprFn:
    """``e`` as a closure over a group's lanes (a tape: one step per distinct node, evaluated
    in a loop, no recursion on the expression's depth)."""
    steps: list[ExprFn] = []

    def node(x: ir.PrimExpr, operands: list[int]) -> int:
        steps.append(_node(x, [_slot(values, k) for k in operands]))
        return len(steps) - 1

    values: list[Value] = []
    root = ir.fold_expr(e, node)
    if len(steps) == 1:
        return steps[0]

    def run(g: _Group, m: Mask) -> Value:
        values.clear()
        for step in steps:
            values.append(step(g, m))
        return values[root]

    return run


def _slot(values: list[Value], k: int) -> ExprFn:
    return lambda g, m: values[k]


def _and(mask: Mask, cond: Value, n: int) -> npt.NDArray[np.bool_]:
    c = np.broadcast_to(np.asarray(cond, dtype=bool), (n,))
    return c.copy() if mask is None else mask & c


def _has_barrier(s: ir.Stmt) -> bool:
    return any(isinstance(x, ir.Barrier) for x in ir.walk_stmt(s))


def _active_top(extent: Value, m: Mask) -> int:
    """The largest extent of the active lanes."""
    e = np.asarray(extent)
    if e.ndim == 0:
        return int(e)
    if m is None:
        return int(e.max()) if e.size else 0
    return int(e[m].max()) if m.any() else 0


def compile_stmt(s: ir.Stmt) -> StmtFn:
    """``s`` (no barrier inside) as a closure run for the active lanes of a group."""
    match s:
        case ir.For(var, extent, _, body):
            fext, fbody = compile_expr(extent), compile_stmt(body)

            def loop(g: _Group, m: Mask) -> None:
                ext = fext(g, m)
                if np.ndim(ext) == 0:
                    for i in range(int(ext)):
                        g.env[var] = np.asarray(i, dtype=np.int64)
                        fbody(g, m)
                else:
                    for i in range(_active_top(ext, m)):
                        g.env[var] = np.asarray(i, dtype=np.int64)
                        inside = _and(m, np.asarray(ext) > i, g.n)
                        if inside.any():
                            fbody(g, inside)
                g.env.pop(var, None)

            return loop
        case ir.Store(buffer, indices, value):
            fidx = [compile_expr(i) for i in indices]
            fvalue = compile_expr(value)
            return lambda g, m: g.store(buffer, [f(g, m) for f in fidx], fvalue(g, m), m)
        case ir.Allocate(buffer, body):
            fbody = compile_stmt(body)
            enter = _allocator(buffer)

            def allocate(g: _Group, m: Mask) -> None:
                enter(g, m)
                fbody(g, m)
                del g.locals[buffer]

            return allocate
        case ir.LetStmt(var, value, body):
            fvalue, fbody = compile_expr(value), compile_stmt(body)

            def let(g: _Group, m: Mask) -> None:
                g.env[var] = fvalue(g, m)
                fbody(g, m)
                g.env.pop(var, None)

            return let
        case ir.IfThenElse(cond, then, orelse):
            fc, ft = compile_expr(cond), compile_stmt(then)
            fe = compile_stmt(orelse) if orelse is not None else None

            def if_then_else(g: _Group, m: Mask) -> None:
                c = fc(g, m)
                if np.ndim(c) == 0:
                    if c:
                        ft(g, m)
                    elif fe is not None:
                        fe(g, m)
                    return
                yes = _and(m, c, g.n)
                if yes.any():
                    ft(g, yes)
                if fe is not None:
                    no = _and(m, np.logical_not(c), g.n)
                    if no.any():
                        fe(g, no)

            return if_then_else
        case ir.Seq(stmts):
            fns = [compile_stmt(x) for x in stmts]

            def seq(g: _Group, m: Mask) -> None:
                for fn in fns:
                    fn(g, m)

            return seq
        case ir.ExternCall(name, _):
            raise NotImplementedError(f"extern call {name} in a GPU kernel")
        case ir.Barrier():
            raise AssertionError("a barrier is compiled by compile_phased")
        case _:
            assert_never(s)


def _allocator(buffer: ir.Buffer) -> StmtFn:
    """Allocate a local buffer for every lane of the group (poisoned)."""
    fshape = [compile_expr(d) for d in buffer.shape]

    def enter(g: _Group, m: Mask) -> None:
        shape = tuple(int(np.max(f(g, m))) for f in fshape)
        size = math.prod(shape)
        g.locals[buffer] = (_poison(size * g.n, buffer.dtype), shape, size)

    return enter


def compile_phased(s: ir.Stmt) -> GenFn:
    """``s`` as a generator function that runs it for a group's active lanes and yields at
    each barrier (control flow around a barrier is uniform within a block, checked by
    ``check_kernel``; a group yields when any of its lanes reaches it)."""
    if not _has_barrier(s):
        plain = compile_stmt(s)

        def run(g: _Group, m: Mask) -> Iterator[None]:
            plain(g, m)
            yield from ()

        return run
    match s:
        case ir.Barrier():

            def barrier(g: _Group, m: Mask) -> Iterator[None]:
                yield

            return barrier
        case ir.Seq(stmts):
            parts = [compile_phased(x) for x in stmts]

            def seq(g: _Group, m: Mask) -> Iterator[None]:
                for part in parts:
                    yield from part(g, m)

            return seq
        case ir.For(var, extent, _, body):
            fext, fbody = compile_expr(extent), compile_phased(body)

            def loop(g: _Group, m: Mask) -> Iterator[None]:
                # the extent is uniform within a block (checked), not across blocks
                ext = fext(g, m)
                for i in range(_active_top(ext, m)):
                    g.env[var] = np.asarray(i, dtype=np.int64)
                    inside = m if np.ndim(ext) == 0 else _and(m, np.asarray(ext) > i, g.n)
                    if inside is None or inside.any():
                        yield from fbody(g, inside)
                g.env.pop(var, None)

            return loop
        case ir.IfThenElse(cond, then, orelse):
            fc, ft = compile_expr(cond), compile_phased(then)
            fe = compile_phased(orelse) if orelse is not None else None

            def if_then_else(g: _Group, m: Mask) -> Iterator[None]:
                c = fc(g, m)
                yes = _and(m, c, g.n)
                if yes.any():
                    yield from ft(g, yes)
                if fe is not None:
                    no = _and(m, np.logical_not(c), g.n)
                    if no.any():
                        yield from fe(g, no)

            return if_then_else
        case ir.Allocate(buffer, body):
            enter, fbody = _allocator(buffer), compile_phased(body)

            def allocate(g: _Group, m: Mask) -> Iterator[None]:
                enter(g, m)
                yield from fbody(g, m)
                del g.locals[buffer]

            return allocate
        case ir.LetStmt(var, value, body):
            fvalue, fbody = compile_expr(value), compile_phased(body)

            def let(g: _Group, m: Mask) -> Iterator[None]:
                g.env[var] = fvalue(g, m)
                yield from fbody(g, m)
                g.env.pop(var, None)

            return let
    raise AssertionError(f"a barrier inside {type(s).__name__}")


# ---------------------------------------------------------------------------------------------
# Launching


@dataclass(frozen=True, eq=False)
class CompiledLaunch:
    """A scheduled kernel prepared for the emulator: its launch nest read, its thread body
    compiled."""

    kernel: ir.Kernel
    scratch: tuple[ir.Buffer, ...]
    block_vars: tuple[tuple[str, ir.LoopVar], ...]
    shared: tuple[ir.Buffer, ...]
    thread_vars: tuple[tuple[str, ir.LoopVar], ...]
    body: GenFn
    threads_run: list[int] = field(default_factory=lambda: [0])
    """The number of threads simulated so far (a benchmark reads it)."""


def prepare(kernel: ir.Kernel) -> CompiledLaunch:
    """Read the launch nest of a scheduled kernel and compile its thread body."""
    nest = launch_nest(kernel)
    return CompiledLaunch(
        kernel,
        nest.scratch,
        tuple((f.thread, f.var) for f in nest.blocks),
        nest.shared,
        tuple((f.thread, f.var) for f in nest.threads),
        compile_phased(nest.body),
    )


def _int(e: ir.PrimExpr, sizes: Mapping[ir.SizeVar, int]) -> int:
    """An index expression over the size parameters, evaluated."""
    g = _Group.__new__(_Group)
    g.env = {v: np.asarray(n, dtype=np.int64) for v, n in sizes.items()}
    return int(compile_expr(e)(g, None))


def _memory(buffer: ir.Buffer, data: Array, sizes: Mapping[ir.SizeVar, int], shared: bool
            ) -> Memory:  # fmt: skip
    shape = tuple(_int(d, sizes) for d in buffer.shape)
    strides = (
        tuple(_int(d, sizes) for d in buffer.strides)
        if buffer.strides is not None
        else _row_major(shape)
    )
    return Memory(buffer.name, data, shape, shared, strides, math.prod(shape))


def launch(
    compiled: CompiledLaunch,
    inputs: Sequence[Array],
    outputs: Sequence[Array],
    sizes: Mapping[ir.SizeVar, int],
    *,
    seed: int = 0,
    races: bool = False,
) -> None:
    """Run the kernel over all threads of its launch: ``inputs`` (one array per input buffer,
    constants included) are read, ``outputs`` (C-contiguous) written in place; ``seed``
    deals the threads into groups and orders the groups in each phase."""
    kernel = compiled.kernel
    grid_e, block = launch_dims(kernel)
    gx, gy, gz = (_int(g, sizes) for g in grid_e)
    st = _Launch(kernel, (gx, gy, gz), block, races)
    threads = st.block_threads
    blocks = gx * gy * gz
    compiled.threads_run[0] += blocks * threads
    for buffer, array in zip(kernel.inputs, inputs, strict=True):
        flat = np.ascontiguousarray(array, dtype=np.dtype(buffer.dtype)).reshape(-1)
        st.memories[buffer] = _memory(buffer, flat, sizes, False)
    for buffer, array in zip(kernel.outputs, outputs, strict=True):
        assert array.flags.c_contiguous
        st.memories[buffer] = _memory(buffer, array.reshape(-1), sizes, False)
    for buffer in compiled.scratch:
        n = math.prod(_int(d, sizes) for d in buffer.shape)
        st.memories[buffer] = _memory(buffer, _poison(n, buffer.dtype), sizes, False)
    for buffer in compiled.shared:
        n = math.prod(_int(d, sizes) for d in buffer.shape)
        st.memories[buffer] = _memory(buffer, _poison(n * blocks, buffer.dtype), sizes, True)
    if blocks == 0 or threads == 0:
        return
    rng = np.random.default_rng(seed)
    k = min(GROUPS, threads)
    deal = rng.permutation(threads) % k  # the group of each thread of a block
    groups: list[_Group] = []
    for which in range(k):
        in_block = np.flatnonzero(deal == which).astype(np.int64)
        lanes = (np.arange(blocks, dtype=np.int64)[:, None] * threads + in_block).reshape(-1)
        g = _Group(st, lanes)
        b, t = g.block_of, lanes % threads
        bx, by, _ = block
        index = {
            "blockIdx.x": b % gx,
            "blockIdx.y": b // gx % gy,
            "blockIdx.z": b // (gx * gy),
            "threadIdx.x": t % bx,
            "threadIdx.y": t // bx % by,
            "threadIdx.z": t // (bx * by),
        }
        g.env.update({v: np.asarray(n, dtype=np.int64) for v, n in sizes.items()})
        for tag, var in compiled.block_vars + compiled.thread_vars:
            g.env[var] = index[tag]
        groups.append(g)
    running = [compiled.body(g, None) for g in groups]
    with np.errstate(all="ignore"):
        while running:
            # one phase: each group runs up to its next barrier, in an order from the seed
            order = rng.permutation(len(running))
            still: list[Iterator[None]] = []
            for i in order:
                try:
                    next(running[i])
                    still.append(running[i])
                except StopIteration:
                    pass
            running = still
            st.phase += 1
    if races:
        st.check_races()


__all__ = [
    "GROUPS",
    "CompiledLaunch",
    "Memory",
    "RaceDetected",
    "binary",
    "cast",
    "compile_expr",
    "compile_phased",
    "compile_stmt",
    "intrinsic",
    "launch",
    "prepare",
    "unary",
]
