"""The SIMT emulator: a scheduled loop-IR kernel run over every thread of its launch, on the host.

``launch(kernel, inputs, outputs, sizes, seed=0, races=False)`` runs a kernel that
``compiler.lower.gpu.schedule_for_gpu`` made (its launch nest: scratch allocations, ``blockIdx``
loops, shared allocations, ``threadIdx`` loops) on numpy arrays.

**How.** Every thread of the launch is a *lane* of numpy vectors: a scalar of the thread body
is an array with one element per lane (or a numpy scalar when it is the same for all), and
the thread body runs once, statement by statement, for all lanes together (vectorised over
threads). Control flow that differs between threads runs under a lane mask: both arms of an
``if`` run, each for its lanes; a loop whose extent differs runs to the longest, each lane
while its own extent lasts; a store writes only the active lanes. ``local`` buffers are
private to a lane, ``shared`` ones one per block, scratch and parameters one per launch.
Arithmetic means what ``compiler.lower.evaluate`` (the reference interpreter of the loop IR)
says, vectorised: integers wrap, ``div``/``mod`` truncate, float16 is computed in float32 and
rounded once, casts to bool of NaN are false, ``erf`` is ``math.erf`` in float64.

**Phases and thread order.** The barriers split a run into *phases*: all threads reach a
barrier before any goes on, so everything stored before it is seen after it (values live
across a barrier are kept per lane by construction). Within a phase, the threads are taken to
run one after another in a random order (a permutation of the lanes drawn per phase from
``seed``), as far as a lockstep run can show it: a lane's load of an element another lane
stored in the same phase sees the stored value only if the storing lane comes *before* it in
the order, and the value from before the phase otherwise; of several lanes storing one
element in a phase, the one latest in the order wins. So a missing barrier (a thread reading
what another writes in the same phase) or a write/write race gives a value that depends on
the seed, usually a wrong one. (What a lockstep run cannot show: a load seeing a store that
the same-phase writer makes *later* in its own program.)

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias, assert_never

import numpy as np
import numpy.typing as npt

from ...compiler.lower import ir
from ...compiler.lower.evaluate import int_bounds, is_float
from ...compiler.lower.gpu import launch_dims

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
    """One buffer's storage as the threads see it: ``data`` (flat), and per phase the order
    rank of each element's last writer (``-1``: none) and the contents from before the
    phase."""

    name: str
    data: Array
    shape: tuple[int, ...]
    shared: bool  # shared (one per block) rather than global
    strides: tuple[int, ...]
    size: int  # elements per block for shared buffers, else all
    writer: npt.NDArray[np.int64] | None = None
    before: Array | None = None
    log: list[tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], int, bool]] = field(
        default_factory=list
    )

    def new_phase(self) -> None:
        """Forget the phase's writers (a barrier)."""
        self.writer = None
        self.before = None


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


_FLOAT_BINARY: dict[ir.BinOp, Callable[..., Value]] = {
    ir.BinOp.ADD: np.add,
    ir.BinOp.SUB: np.subtract,
    ir.BinOp.MUL: np.multiply,
    ir.BinOp.DIV: np.divide,
    ir.BinOp.MOD: np.fmod,
    ir.BinOp.FLOORDIV: np.floor_divide,
    ir.BinOp.FLOORMOD: np.mod,
    ir.BinOp.MIN: np.minimum,
    ir.BinOp.MAX: np.maximum,
}


def _float(dtype: str, fn: Callable[..., Value], *args: Value) -> Value:
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
        return _float(dtype, _FLOAT_BINARY[op], a, b)
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


_INTRINSICS: dict[str, Callable[..., Value]] = {
    "exp": np.exp,
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "sqrt": np.sqrt,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "tanh": np.tanh,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "fabs": np.abs,
    "floor": np.floor,
    "ceil": np.ceil,
    "trunc": np.trunc,
    "round": np.round,
    "pow": np.power,
    "atan2": np.arctan2,
    "copysign": np.copysign,
}

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
    return _float(dtype, _INTRINSICS[name], *args)


# ---------------------------------------------------------------------------------------------
# The machine


@dataclass(eq=False)
class _Launch:
    """One launch's state: lanes, the phase, memories and variables."""

    kernel: ir.Kernel
    lanes: int
    block_threads: int
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    rng: np.random.Generator
    races: bool
    env: dict[object, Value] = field(default_factory=dict)
    memories: dict[ir.Buffer, Memory] = field(default_factory=dict)
    locals: dict[ir.Buffer, tuple[Array, tuple[int, ...], int]] = field(default_factory=dict)
    phase: int = 0
    rank: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    lane: npt.NDArray[np.int64] = field(default_factory=lambda: np.zeros(0, dtype=np.int64))

    def __post_init__(self) -> None:
        self.lane = np.arange(self.lanes, dtype=np.int64)
        self.block_of = self.lane // self.block_threads
        self.new_ranks()

    def new_ranks(self) -> None:
        self.rank = self.rng.permutation(self.lanes).astype(np.int64)

    def barrier(self) -> None:
        self.phase += 1
        for m in self.memories.values():
            m.new_phase()
        self.new_ranks()

    def thread_name(self, lane: int) -> str:
        gx, gy, _ = self.grid
        bx, by, _ = self.block
        b, t = divmod(lane, self.block_threads)
        return (f"block ({b % gx}, {b // gx % gy}, {b // (gx * gy)}) thread "
                f"({t % bx}, {t // bx % by}, {t // (bx * by)})")  # fmt: skip

    # -- memory ------------------------------------------------------------------------------

    def address(self, buffer: ir.Buffer, idx: Sequence[Value], mask: Mask, what: str
                ) -> npt.NDArray[np.int64]:  # fmt: skip
        """The flat element index of ``buffer[idx]`` per lane (a shared buffer's per block,
        a local one's per lane), checked against the bounds for the active lanes."""
        if buffer in self.locals:
            _, shape, _ = self.locals[buffer]
            strides = _row_major(shape)
        else:
            m = self.memories[buffer]
            shape, strides = m.shape, m.strides
        flat: npt.NDArray[np.int64] = np.zeros(self.lanes, dtype=np.int64)
        for i, n, st in zip(idx, shape, strides, strict=True):
            iv = np.asarray(i, dtype=np.int64)
            bad = (iv < 0) | (iv >= n)
            if mask is not None:
                bad = bad & mask
            if np.any(bad):
                lane = int(np.argmax(np.broadcast_to(bad, (self.lanes,))))
                got = int(np.broadcast_to(iv, (self.lanes,))[lane])
                who = self.thread_name(lane)
                raise IndexError(
                    f"kernel {self.kernel.name}: {what} of {buffer.name} at index {got} out of "
                    f"bounds 0..{n - 1} by {who}"
                )
            flat = flat + np.where((iv < 0) | (iv >= n), 0, iv) * st
        return flat

    def load(self, buffer: ir.Buffer, idx: Sequence[Value], mask: Mask) -> Value:
        addr = self.address(buffer, idx, mask, "load")
        if buffer in self.locals:
            data, _, size = self.locals[buffer]
            return np.asarray(data[self.lane * size + addr])
        m = self.memories[buffer]
        if m.shared:
            addr = addr + self.block_of * m.size
        values = m.data[addr]
        if m.writer is not None and m.before is not None:
            w = m.writer[addr]
            stale = w > self.rank
            if np.any(stale):
                values = np.where(stale, m.before[addr], values)
        if self.races:
            active = self.lane if mask is None else self.lane[mask]
            where = addr if mask is None else addr[mask]
            m.log.append((where, active, self.phase, False))
        return values

    def store(self, buffer: ir.Buffer, idx: Sequence[Value], value: Value, mask: Mask) -> None:
        addr = self.address(buffer, idx, mask, "store")
        v = np.broadcast_to(np.asarray(value, dtype=np.dtype(buffer.dtype)), (self.lanes,))
        if buffer in self.locals:
            data, _, size = self.locals[buffer]
            where = self.lane * size + addr
            if mask is None:
                data[where] = v
            else:
                data[where[mask]] = v[mask]
            return
        m = self.memories[buffer]
        if m.shared:
            addr = addr + self.block_of * m.size
        lanes = self.lane if mask is None else self.lane[mask]
        a = addr if mask is None else addr[mask]
        if a.size == 0:
            return
        if self.races:
            m.log.append((a, lanes, self.phase, True))
        r = self.rank[lanes]
        if m.writer is None:
            m.writer = np.full(m.data.shape[0], -1, dtype=np.int64)
            m.before = m.data.copy()
        np.maximum.at(m.writer, a, r)
        win = m.writer[a] == r
        m.data[a[win]] = v[lanes[win]]

    # -- races -------------------------------------------------------------------------------

    def check_races(self) -> None:
        for buffer, m in self.memories.items():
            if m.log:
                self.races_of(buffer, m)

    def races_of(self, buffer: ir.Buffer, m: Memory) -> None:
        addr = np.concatenate([x[0] for x in m.log])
        lane = np.concatenate([x[1] for x in m.log])
        phase = np.concatenate([np.full(len(x[0]), x[2], dtype=np.int64) for x in m.log])
        write = np.concatenate([np.full(len(x[0]), x[3], dtype=bool) for x in m.log])
        groups: list[tuple[str, npt.NDArray[np.int64]]] = [
            ("in one phase", addr * (self.phase + 1) + phase)
        ]
        if not m.shared:
            groups.append(("in two blocks", addr))
        for how, key in groups:
            owner = lane if how == "in one phase" else self.block_of[lane]
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


def _conflict(
    key: npt.NDArray[np.int64], owner: npt.NDArray[np.int64], write: npt.NDArray[np.bool_]
) -> tuple[int, int] | None:
    """Two records with one ``key``, different ``owner`` and at least one write: their
    positions (a write first), or ``None``."""
    order = np.lexsort((owner, key))
    k, o, w = key[order], owner[order], write[order]
    # per key: does it have a write, and two owners?
    starts = np.flatnonzero(np.r_[True, k[1:] != k[:-1]])
    has_write = np.logical_or.reduceat(w, starts)
    first_owner = o[starts]
    last_owner = o[np.r_[starts[1:], len(k)] - 1]
    bad = np.flatnonzero(has_write & (first_owner != last_owner))
    if bad.size == 0:
        return None
    g = int(bad[0])
    lo, hi = int(starts[g]), int(np.r_[starts[1:], len(k)][g])
    writers = [p for p in range(lo, hi) if w[p]]
    i = writers[0]
    j = next(p for p in range(lo, hi) if o[p] != o[i])
    return int(order[i]), int(order[j])


# ---------------------------------------------------------------------------------------------
# Compilation of the thread body to closures

ExprFn: TypeAlias = Callable[[_Launch, Mask], Value]
StmtFn: TypeAlias = Callable[[_Launch, Mask], None]


def _const(c: ir.Const) -> Value:
    if c.dtype == "bool":
        return np.asarray(bool(c.value))
    return np.asarray(c.value).astype(np.dtype(c.dtype))


def _node(e: ir.PrimExpr, subs: list[ExprFn]) -> ExprFn:
    match e:
        case ir.Const():
            v = _const(e)
            return lambda st, m: v
        case ir.Ref(var):
            return lambda st, m: st.env[var]
        case ir.Binary(bop, a, _):
            fa, fb = subs
            d = a.dtype
            return lambda st, m: binary(bop, fa(st, m), fb(st, m), d)
        case ir.Unary(uop, a):
            (fa,) = subs
            d = a.dtype
            return lambda st, m: unary(uop, fa(st, m), d)
        case ir.Cast(target, a):
            (fa,) = subs
            source = a.dtype
            return lambda st, m: cast(fa(st, m), source, target)
        case ir.Select():
            fc, ft, ff = subs
            return lambda st, m: np.where(fc(st, m), ft(st, m), ff(st, m))
        case ir.Call(name, args, _):
            operand = args[0].dtype
            return lambda st, m: intrinsic(name, [f(st, m) for f in subs], operand)
        case ir.Load(buffer, _):
            return lambda st, m: st.load(buffer, [f(st, m) for f in subs], m)
        case _:
            assert_never(e)


def compile_expr(e: ir.PrimExpr) -> ExprFn:
    """``e`` as a closure over lanes (a tape: one step per distinct node, no recursion)."""
    steps: list[ExprFn] = []
    slots: list[Value] = []

    def node(x: ir.PrimExpr, operands: list[int]) -> int:
        steps.append(_node(x, [_slot(slots, k) for k in operands]))
        return len(steps) - 1

    root = ir.fold_expr(e, node)
    if len(steps) == 1:
        return steps[0]

    def run(st: _Launch, m: Mask) -> Value:
        # re-entrant: the tape's slots are saved around a nested evaluation (none happens in
        # practice: a load's indices are evaluated before it)
        saved = slots[:]
        slots.clear()
        for step in steps:
            slots.append(step(st, m))
        out = slots[root]
        slots[:] = saved
        return out

    return run


def _slot(slots: list[Value], k: int) -> ExprFn:
    return lambda st, m: slots[k]


def _and(mask: Mask, cond: Value, lanes: int) -> npt.NDArray[np.bool_]:
    c = np.broadcast_to(np.asarray(cond, dtype=bool), (lanes,))
    return c.copy() if mask is None else mask & c


def compile_stmt(s: ir.Stmt) -> StmtFn:
    """``s`` as a closure run for the active lanes."""
    match s:
        case ir.For(var, extent, _, body):
            fext, fbody = compile_expr(extent), compile_stmt(body)

            def loop(st: _Launch, m: Mask) -> None:
                ext = fext(st, m)
                if np.ndim(ext) == 0:
                    for i in range(int(ext)):
                        st.env[var] = np.asarray(i, dtype=np.int64)
                        fbody(st, m)
                else:
                    e = np.asarray(ext)
                    top = int(e.max() if m is None else (e[m].max() if m.any() else 0))
                    for i in range(top):
                        st.env[var] = np.asarray(i, dtype=np.int64)
                        inside = _and(m, e > i, st.lanes)
                        if inside.any():
                            fbody(st, inside)
                st.env.pop(var, None)

            return loop
        case ir.Store(buffer, indices, value):
            fidx = [compile_expr(i) for i in indices]
            fvalue = compile_expr(value)
            return lambda st, m: st.store(buffer, [f(st, m) for f in fidx], fvalue(st, m), m)
        case ir.Allocate(buffer, body):
            fbody = compile_stmt(body)
            fshape = [compile_expr(d) for d in buffer.shape]

            def allocate(st: _Launch, m: Mask) -> None:
                shape = tuple(int(np.max(f(st, m))) for f in fshape)
                size = math.prod(shape)
                st.locals[buffer] = (_poison(size * st.lanes, buffer.dtype), shape, size)
                fbody(st, m)
                del st.locals[buffer]

            return allocate
        case ir.LetStmt(var, value, body):
            fvalue, fbody = compile_expr(value), compile_stmt(body)

            def let(st: _Launch, m: Mask) -> None:
                st.env[var] = fvalue(st, m)
                fbody(st, m)
                st.env.pop(var, None)

            return let
        case ir.IfThenElse(cond, then, orelse):
            fc, ft = compile_expr(cond), compile_stmt(then)
            fe = compile_stmt(orelse) if orelse is not None else None

            def if_then_else(st: _Launch, m: Mask) -> None:
                c = fc(st, m)
                if np.ndim(c) == 0:
                    if c:
                        ft(st, m)
                    elif fe is not None:
                        fe(st, m)
                    return
                yes = _and(m, c, st.lanes)
                if yes.any():
                    ft(st, yes)
                if fe is not None:
                    no = _and(m, np.logical_not(c), st.lanes)
                    if no.any():
                        fe(st, no)

            return if_then_else
        case ir.Seq(stmts):
            fns = [compile_stmt(x) for x in stmts]

            def seq(st: _Launch, m: Mask) -> None:
                for fn in fns:
                    fn(st, m)

            return seq
        case ir.ExternCall(name, _):
            raise NotImplementedError(f"extern call {name} in a GPU kernel")
        case ir.Barrier():
            return lambda st, m: st.barrier()
        case _:
            assert_never(s)


# ---------------------------------------------------------------------------------------------
# Launching


@dataclass(frozen=True, eq=False)
class CompiledLaunch:
    """A scheduled kernel prepared for the emulator: its launch nest read, its thread body
    compiled to closures."""

    kernel: ir.Kernel
    scratch: tuple[ir.Buffer, ...]
    block_vars: tuple[tuple[str, ir.LoopVar], ...]
    shared: tuple[ir.Buffer, ...]
    thread_vars: tuple[tuple[str, ir.LoopVar], ...]
    body: StmtFn
    threads_run: list[int] = field(default_factory=lambda: [0])
    """The number of threads simulated so far (a benchmark reads it)."""


def prepare(kernel: ir.Kernel) -> CompiledLaunch:
    """Read the launch nest of a scheduled kernel and compile its thread body."""
    scratch: list[ir.Buffer] = []
    shared: list[ir.Buffer] = []
    block_vars: list[tuple[str, ir.LoopVar]] = []
    thread_vars: list[tuple[str, ir.LoopVar]] = []
    s = kernel.body
    while True:
        match s:
            case ir.Allocate(buffer, body) if buffer.scope in ("global", "shared"):
                (scratch if buffer.scope == "global" else shared).append(buffer)
                s = body
            case ir.For(var, _, ir.LoopKind.THREAD, body, tag):
                (block_vars if tag.startswith("blockIdx") else thread_vars).append((tag, var))
                s = body
            case _:
                break
    return CompiledLaunch(kernel, tuple(scratch), tuple(block_vars), tuple(shared),
                          tuple(thread_vars), compile_stmt(s))  # fmt: skip


def _int(e: ir.PrimExpr, sizes: Mapping[ir.SizeVar, int]) -> int:
    env: dict[object, Value] = {v: np.asarray(n, dtype=np.int64) for v, n in sizes.items()}
    st = _Launch.__new__(_Launch)
    st.env = env
    return int(compile_expr(e)(st, None))


def _memory(buffer: ir.Buffer, data: Array, sizes: Mapping[ir.SizeVar, int], shared: bool
            ) -> Memory:  # fmt: skip
    shape = tuple(_int(d, sizes) for d in buffer.shape)
    strides = (
        tuple(_int(d, sizes) for d in buffer.strides)
        if buffer.strides is not None
        else _row_major(shape)
    )
    size = math.prod(shape)
    return Memory(buffer.name, data, shape, shared, strides, size)


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
    constants included) are read, ``outputs`` (C-contiguous) written in place."""
    kernel = compiled.kernel
    grid_e, block = launch_dims(kernel)
    grid = tuple(_int(g, sizes) for g in grid_e)
    assert len(grid) == 3
    block_threads = math.prod(block)
    lanes = math.prod(grid) * block_threads
    st = _Launch(kernel, lanes, block_threads, (grid[0], grid[1], grid[2]), block,
                 np.random.default_rng(seed), races)  # fmt: skip
    compiled.threads_run[0] += lanes
    for v, n in sizes.items():
        st.env[v] = np.asarray(n, dtype=np.int64)
    for buffer, array in zip(kernel.inputs, inputs, strict=True):
        flat = np.ascontiguousarray(array, dtype=np.dtype(buffer.dtype)).reshape(-1)
        st.memories[buffer] = _memory(buffer, flat, sizes, False)
    for buffer, array in zip(kernel.outputs, outputs, strict=True):
        assert array.flags.c_contiguous
        st.memories[buffer] = _memory(buffer, array.reshape(-1), sizes, False)
    for buffer in compiled.scratch:
        n = math.prod(_int(d, sizes) for d in buffer.shape)
        st.memories[buffer] = _memory(buffer, _poison(n, buffer.dtype), sizes, False)
    nblocks = math.prod(grid)
    for buffer in compiled.shared:
        n = math.prod(_int(d, sizes) for d in buffer.shape)
        st.memories[buffer] = _memory(buffer, _poison(n * nblocks, buffer.dtype), sizes, True)
    # the launch indices of each lane
    b, t = st.block_of, st.lane % block_threads
    gx, gy, _ = grid
    bx, by, _ = block
    index = {
        "blockIdx.x": b % gx,
        "blockIdx.y": b // gx % gy,
        "blockIdx.z": b // (gx * gy),
        "threadIdx.x": t % bx,
        "threadIdx.y": t // bx % by,
        "threadIdx.z": t // (bx * by),
    }
    for tag, var in compiled.block_vars + compiled.thread_vars:
        st.env[var] = index[tag]
    if lanes == 0:
        return
    with np.errstate(all="ignore"):
        compiled.body(st, None)
    if races:
        st.check_races()


__all__ = [
    "CompiledLaunch",
    "Memory",
    "RaceDetected",
    "binary",
    "cast",
    "compile_expr",
    "compile_stmt",
    "intrinsic",
    "launch",
    "prepare",
    "unary",
]
