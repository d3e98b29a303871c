"""Schedules shared by the scheduled lowerings: index arithmetic that folds constants, loop
nests, and the two matrix-product schedules (``nn.dense``, ``nn.matmul``, ``nn.batch_matmul``
and the convolutions use them).

Matrix products ``C[b, i, j] = sum_k A(b, i, k) * B(b, k, j)`` have two schedules:

- ``gemm_packed``: a tiled loop nest the compiler generates. Columns are cut into panels of
  ``NR`` (48) columns; each panel of ``B`` is packed (once per batch and panel, zero-padded past
  ``N``) into a local ``[K, NR]`` buffer; rows run in blocks of ``MR`` (4) with an ``MR x NR``
  accumulator in a local buffer: the row loop of the block is ``UNROLLED`` and the column loop
  ``VECTORIZED`` over the panel, so the accumulator lives in registers (the register
  micro-kernel). The (batch, panel) pairs are one flattened ``PARALLEL`` loop, the outermost
  statement (the CPU target parallelises top-level loops only), each allocating its panel.
  Rows and columns past ``M``/``N`` are computed on clamped indices and not stored. Any
  dtype: the accumulation is in the caller's dtype.
- ``gemm_blas``: a call of CBLAS's ``cblas_sgemm`` through ``ir.ExternCall`` (float32 only),
  which the CPU target resolves to numpy's bundled OpenBLAS; the batch loop is ``PARALLEL``
  (its scratch buffers allocated per iteration), and for a batch of 1 the store nest's rows.

- ``gemm_elementwise`` (strategy ``"gpu"``, what GPU targets lower with, ``gemm_packed``
  hands over to it): one accumulator per output element, the ``(batch, row, column)`` loops
  all ``PARALLEL`` around a serial ``k`` loop, the form ``compiler.lower.gpu`` binds to
  threads and tiles in shared memory.

A product of at most ``GEMV_ROWS`` rows is a plain ``te.reduce`` whichever the strategy.

Which one the lowerings use is ``GEMM_STRATEGY`` (``"packed"``, ``"gpu"`` or ``"blas"``, the
default: measured faster, ``benchmarks/cpu_kernels.py``); the environment variable
``RELAY_GEMM`` sets its initial value and ``gemm_strategy(name)`` switches it for a ``with``
block. Lowerings read it when they lower, so a kernel keeps the schedule it was lowered
with. Float sums may be reassociated either way (the tolerance policy allows it for
reductions).
"""

from __future__ import annotations

import contextlib
import itertools
import os
from collections.abc import Callable, Iterator, Sequence

from . import ir

STRATEGIES = ("packed", "blas", "gpu")
"""The matrix-product schedules ``GEMM_STRATEGY`` may name."""

GEMM_STRATEGY: str = os.environ.get("RELAY_GEMM", "blas")
"""The matrix-product schedule the lowerings use now (see the module docstring)."""

MR = 4
"""Rows of the register block of ``gemm_packed``."""

NR = 48
"""Columns of a packed panel of ``gemm_packed`` (a few vectors wide: measured best of 32, 48,
64 and 96 with ``MR`` 2 to 8 on an AVX-512 host that prefers 256-bit vectors: 4 x 48 is 24
``ymm`` accumulators, which with the panel's 6 vectors and the broadcast fit the 32 vector
registers; 4 x 64 spills); a static ``N`` below it narrows the panel to ``N`` rounded up to
16."""

GEMV_ROWS = 2
"""A product with at most this many rows (static) and a batch of 1 is a plain reduction over
``k`` (innermost and contiguous in both operands of ``nn.dense``), whichever strategy: packing
and sgemm only add traffic to a matrix-vector product (measured: 13 GFLOP/s against 3 at
1x2048x1000)."""

COLUMN_KIND = ir.LoopKind.VECTORIZED
"""The kind of the micro-kernel's column loop (over the panel width) in the ``"memory"``
micro-kernel."""

MICRO_KERNELS = ("memory", "register")
"""The micro-kernels of ``gemm_packed``: ``"memory"``, an ``MR x NR`` accumulator updated by a
``VECTORIZED`` column loop inside the ``k`` loop (the accumulator stays a memory buffer), and
``"register"``, the panel cut into column blocks of ``NC`` with an ``MR x NC`` accumulator
indexed only by ``UNROLLED`` row and column loops inside the ``k`` loop: after unrolling every
index is a constant, so LLVM's SROA turns the accumulator into registers (and the SLP
vectoriser packs them into vectors). Its update goes through a ``LetStmt`` so that the code
generator does not flag it as a reassociable accumulation (which made LLVM vectorise the
``k`` loop instead, with gathers from the panel: 5x slower); so it is exact IEEE, in order."""

MICRO_KERNEL: str = os.environ.get("RELAY_MICRO_KERNEL", "memory")
"""The micro-kernel ``gemm_packed`` uses (read when a kernel is lowered; the environment
variable ``RELAY_MICRO_KERNEL`` sets it). ``"memory"`` is the default: measured 2.5-4x faster
than ``"register"`` (``benchmarks/cpu_kernels.py --micro-kernels``), because with an ``MR x
NR`` block of 4 x 48 LLVM keeps nearly all of the accumulator in vector registers anyway
(LICM promotes the loop-invariant accumulator elements across the k loop) and fuses the
multiply-adds, while the unrolled scalar form gets no ``contract`` (it must not be an
accumulation store, see below) and packs worse."""

NC = 16
"""Columns of the ``"register"`` micro-kernel's accumulator block."""

BLAS_CHUNK = 4096
"""Columns (output positions) of one im2col chunk of a convolution's ``sgemm`` schedule (whole
rows of the last spatial axis when it is static): large, because one big sgemm runs faster
than several small ones (the chunk buffer is heap-allocated by the CPU target)."""

PARALLEL_TASKS = 4
"""A convolution's ``sgemm`` schedule cuts an image's positions into at least this many chunks
(its parallel loop's tasks) where each chunk still has ``MIN_CHUNK`` positions, so that a batch
of one image runs on more than one thread."""

MIN_CHUNK = 512
"""The fewest positions of a chunk cut for parallelism (``PARALLEL_TASKS``)."""


@contextlib.contextmanager
def gemm_strategy(name: str) -> Iterator[None]:
    """Use the matrix-product schedule ``name`` (one of ``STRATEGIES``) inside the block."""
    global GEMM_STRATEGY
    if name not in STRATEGIES:
        raise ValueError(f"gemm strategy {name!r} is not one of {STRATEGIES}")
    saved, GEMM_STRATEGY = GEMM_STRATEGY, name
    try:
        yield
    finally:
        GEMM_STRATEGY = saved


def use_blas(dtype: str) -> bool:
    """Whether a matrix product of ``dtype`` goes to ``cblas_sgemm`` now."""
    return GEMM_STRATEGY == "blas" and dtype == "float32"


# ---------------------------------------------------------------------------------------------
# Index arithmetic that folds constants


def static(e: ir.PrimExpr) -> int | None:
    """The value of an integer constant expression, or ``None``."""
    return e.value if isinstance(e, ir.Const) and isinstance(e.value, int) else None


def idx(v: int | ir.PrimExpr) -> ir.PrimExpr:
    """An index: ``int`` values become ``int64`` constants."""
    return ir.index(v) if isinstance(v, int) else v


def add(a: int | ir.PrimExpr, b: int | ir.PrimExpr) -> ir.PrimExpr:
    """``a + b`` on indices, folded."""
    x, y = idx(a), idx(b)
    sx, sy = static(x), static(y)
    if sx is not None and sy is not None:
        return ir.index(sx + sy)
    if sy == 0:
        return x
    if sx == 0:
        return y
    return ir.Binary(ir.BinOp.ADD, x, y)


def sub(a: int | ir.PrimExpr, b: int | ir.PrimExpr) -> ir.PrimExpr:
    """``a - b`` on indices, folded."""
    x, y = idx(a), idx(b)
    sx, sy = static(x), static(y)
    if sx is not None and sy is not None:
        return ir.index(sx - sy)
    if sy == 0:
        return x
    return ir.Binary(ir.BinOp.SUB, x, y)


def mul(a: int | ir.PrimExpr, b: int | ir.PrimExpr) -> ir.PrimExpr:
    """``a * b`` on indices, folded."""
    x, y = idx(a), idx(b)
    sx, sy = static(x), static(y)
    if sx is not None and sy is not None:
        return ir.index(sx * sy)
    if sx == 0 or sy == 0:
        return ir.index(0)
    if sy == 1:
        return x
    if sx == 1:
        return y
    return ir.Binary(ir.BinOp.MUL, x, y)


def floordiv(a: int | ir.PrimExpr, b: int) -> ir.PrimExpr:
    """``a // b`` on non-negative indices, folded."""
    x = idx(a)
    sx = static(x)
    if sx is not None:
        return ir.index(sx // b)
    if b == 1:
        return x
    return ir.Binary(ir.BinOp.FLOORDIV, x, ir.index(b))


def floormod(a: int | ir.PrimExpr, b: int) -> ir.PrimExpr:
    """``a % b`` on non-negative indices, folded."""
    x = idx(a)
    sx = static(x)
    if sx is not None:
        return ir.index(sx % b)
    if b == 1:
        return ir.index(0)
    return ir.Binary(ir.BinOp.FLOORMOD, x, ir.index(b))


def ceildiv(a: int | ir.PrimExpr, b: int) -> ir.PrimExpr:
    """``ceil(a / b)`` on non-negative indices, folded."""
    return floordiv(add(a, b - 1), b)


def minimum(a: int | ir.PrimExpr, b: int | ir.PrimExpr) -> ir.PrimExpr:
    """``min(a, b)`` on indices, folded."""
    x, y = idx(a), idx(b)
    sx, sy = static(x), static(y)
    if sx is not None and sy is not None:
        return ir.index(min(sx, sy))
    return ir.Binary(ir.BinOp.MIN, x, y)


def product(dims: Sequence[ir.PrimExpr]) -> ir.PrimExpr:
    """The product of ``dims``, folded."""
    out: ir.PrimExpr = ir.index(1)
    for d in dims:
        out = mul(out, d)
    return out


def less(a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr | None:
    """``a < b``, or ``None`` when it is statically true."""
    sa, sb = static(a), static(b)
    if sa is not None and sb is not None and sa < sb:
        return None
    return ir.Binary(ir.BinOp.LT, a, b)


def conj(*conds: ir.PrimExpr | None) -> ir.PrimExpr | None:
    """The conjunction of the conditions that are not ``None`` (``None``: all true)."""
    out: ir.PrimExpr | None = None
    for c in conds:
        if c is not None:
            out = c if out is None else ir.Binary(ir.BinOp.AND, out, c)
    return out


def guard(cond: ir.PrimExpr | None, body: ir.Stmt) -> ir.Stmt:
    """``body`` under ``cond`` (none: unconditionally)."""
    return body if cond is None else ir.IfThenElse(cond, body)


def unflatten(flat: ir.PrimExpr, dims: Sequence[ir.PrimExpr]) -> tuple[ir.PrimExpr, ...]:
    """The row-major multi-index of ``flat`` in a tensor of ``dims`` (static inner extents
    divide; symbolic ones use index division)."""
    out: list[ir.PrimExpr] = []
    rest = flat
    for d in reversed(dims[1:]):
        sd = static(d)
        if sd is not None:
            out.append(floormod(rest, sd))
            rest = floordiv(rest, sd)
        else:
            out.append(ir.Binary(ir.BinOp.FLOORMOD, rest, d))
            rest = ir.Binary(ir.BinOp.FLOORDIV, rest, d)
    out.append(rest)
    return tuple(reversed(out)) if dims else ()


def index_of_rows(rows: Sequence[ir.PrimExpr], dims: Sequence[ir.PrimExpr]) -> ir.PrimExpr:
    """The row-major flat index of the multi-index ``rows`` in a tensor of ``dims``."""
    flat: ir.PrimExpr = ir.index(0)
    for r, d in zip(rows, dims, strict=True):
        flat = add(mul(flat, d), r)
    return flat


# ---------------------------------------------------------------------------------------------
# Loop nests

_names = itertools.count()


def var(hint: str) -> ir.LoopVar:
    """A fresh loop variable (the suffix keeps printed names apart)."""
    return ir.LoopVar(f"{hint}{next(_names)}")


def loop(
    hint: str,
    extent: int | ir.PrimExpr,
    body: Callable[[ir.PrimExpr], ir.Stmt],
    kind: ir.LoopKind = ir.LoopKind.SERIAL,
) -> ir.Stmt:
    """``for v in 0 .. extent-1: body(v)`` (an extent of 1 binds ``v`` to 0 without a loop)."""
    e = idx(extent)
    if static(e) == 1:
        return body(ir.index(0))
    v = var(hint)
    return ir.For(v, e, kind, body(ir.Ref(v)))


def nest(
    hint: str,
    extents: Sequence[ir.PrimExpr],
    body: Callable[[tuple[ir.PrimExpr, ...]], ir.Stmt],
    kinds: Sequence[ir.LoopKind] | None = None,
) -> ir.Stmt:
    """A loop per extent, outermost first, around ``body(indices)``."""

    def level(d: int, outer: tuple[ir.PrimExpr, ...]) -> ir.Stmt:
        if d == len(extents):
            return body(outer)
        kind = kinds[d] if kinds is not None else ir.LoopKind.SERIAL
        return loop(f"{hint}{d}_", extents[d], lambda v: level(d + 1, (*outer, v)), kind)

    return level(0, ())


def seq(*stmts: ir.Stmt) -> ir.Stmt:
    """Statements in order (one statement stays itself)."""
    flat: list[ir.Stmt] = []
    for s in stmts:
        flat.extend(s.stmts if isinstance(s, ir.Seq) else (s,))
    return flat[0] if len(flat) == 1 else ir.Seq(tuple(flat))


def local(name: str, shape: Sequence[int | ir.PrimExpr], dtype: str) -> ir.Buffer:
    """A local buffer (for ``ir.Allocate``)."""
    return ir.Buffer(f"{name}{next(_names)}", tuple(idx(d) for d in shape), dtype, scope="local")


# ---------------------------------------------------------------------------------------------
# Matrix products

Operand = Callable[[ir.PrimExpr, ir.PrimExpr, ir.PrimExpr], ir.PrimExpr]
"""``(batch, row, column) -> element`` of a matrix-product operand, in the accumulation dtype."""

StoreFn = Callable[[ir.PrimExpr, ir.PrimExpr, ir.PrimExpr, ir.PrimExpr], ir.Stmt]
"""``(batch, i, j, value) -> the statement that stores C[batch, i, j]``."""


def gemm_packed(
    batch: ir.PrimExpr,
    m: ir.PrimExpr,
    n: ir.PrimExpr,
    k: ir.PrimExpr,
    a: Operand,
    b: Operand,
    store: StoreFn,
    dtype: str,
    *,
    mr: int | None = None,
    nr: int | None = None,
) -> ir.Stmt:
    """``C[b, i, j] = sum_k a(b, i, k) * b(b, k, j)`` as the packed, register-blocked loop nest
    of the module docstring (accumulation in ``dtype``); with ``GEMM_STRATEGY == "gpu"``,
    ``gemm_elementwise`` instead."""
    if GEMM_STRATEGY == "gpu":
        return gemm_elementwise(batch, m, n, k, a, b, store, dtype)
    mr = MR if mr is None else mr
    nr = NR if nr is None else nr
    sm, sn = static(m), static(n)
    if sm is not None:
        mr = max(1, min(mr, sm))
    if sn is not None:
        nr = max(16, min(nr, -(-sn // 16) * 16))
    zero = ir.const(0, dtype)

    panels = ceildiv(n, nr)

    def per_task(t: ir.PrimExpr) -> ir.Stmt:
        bt, jo = split(t, panels)
        return panel(bt, jo)

    def panel(bt: ir.PrimExpr, jo: ir.PrimExpr) -> ir.Stmt:
        packed = local("panel", (k, nr), dtype)
        j0 = mul(jo, nr)

        def pack(kk: ir.PrimExpr, jj: ir.PrimExpr) -> ir.Stmt:
            j = add(j0, jj)
            inside = less(j, n)
            if inside is None:
                value = b(bt, kk, j)
            else:
                value = ir.Select(inside, b(bt, kk, minimum(j, sub(n, 1))), zero)
            return ir.Store(packed, (kk, jj), value)

        pack_loop = loop(
            "k",
            k,
            lambda kk: loop("jj", nr, lambda jj: pack(kk, jj), ir.LoopKind.VECTORIZED),
        )
        return ir.Allocate(packed, seq(pack_loop, block_rows(bt, packed, j0)))

    register = MICRO_KERNEL == "register"
    nc = NC if register and nr % NC == 0 else (16 if register else nr)
    column_kind = ir.LoopKind.UNROLLED if register else COLUMN_KIND

    def block_rows(bt: ir.PrimExpr, packed: ir.Buffer, j0: ir.PrimExpr) -> ir.Stmt:
        def block(io: ir.PrimExpr, jb: ir.PrimExpr) -> ir.Stmt:
            acc = local("acc", (mr, nc), dtype)
            i0 = mul(io, mr)
            c0 = mul(jb, nc)

            def rows(fn: Callable[[ir.PrimExpr], ir.Stmt]) -> ir.Stmt:
                return loop("ii", mr, fn, ir.LoopKind.UNROLLED)

            def cols(fn: Callable[[ir.PrimExpr], ir.Stmt]) -> ir.Stmt:
                return loop("jj", nc, fn, column_kind)

            init = rows(lambda ii: cols(lambda jj: ir.Store(acc, (ii, jj), zero)))

            def update(kk: ir.PrimExpr, ii: ir.PrimExpr) -> ir.Stmt:
                i = add(i0, ii)
                row = i if less(i, m) is None else minimum(i, sub(m, 1))
                av = ir.ScalarVar(f"a{next(_names)}", dtype)

                def fma(jj: ir.PrimExpr) -> ir.Stmt:
                    b_elem = ir.Load(packed, (kk, add(c0, jj)))
                    prod = ir.Binary(ir.BinOp.MUL, ir.Ref(av), b_elem)
                    total = ir.Binary(ir.BinOp.ADD, ir.Load(acc, (ii, jj)), prod)
                    if register:
                        # Not an accumulation store to the code generator (no reassoc): LLVM
                        # would otherwise vectorise the k loop as a reduction, with gathers.
                        sv = ir.ScalarVar(f"s{next(_names)}", dtype)
                        return ir.LetStmt(sv, total, ir.Store(acc, (ii, jj), ir.Ref(sv)))
                    return ir.Store(acc, (ii, jj), total)

                return ir.LetStmt(av, a(bt, row, kk), cols(fma))

            body = loop("k", k, lambda kk: rows(lambda ii: update(kk, ii)))

            def put(ii: ir.PrimExpr, jj: ir.PrimExpr) -> ir.Stmt:
                i, j = add(i0, ii), add(add(j0, c0), jj)
                return guard(conj(less(i, m), less(j, n)), store(bt, i, j, ir.Load(acc, (ii, jj))))

            out = rows(lambda ii: cols(lambda jj: put(ii, jj)))
            return ir.Allocate(acc, seq(init, body, out))

        return loop("io", ceildiv(m, mr), lambda io: loop("jb", nr // nc, lambda jb: block(io, jb)))

    return loop("t", mul(batch, panels), per_task, ir.LoopKind.PARALLEL)


def split(t: ir.PrimExpr, inner: ir.PrimExpr) -> tuple[ir.PrimExpr, ir.PrimExpr]:
    """``(t // inner, t % inner)`` on non-negative indices (folded for a static ``inner``):
    one flattened parallel loop over two nested iteration spaces."""
    si = static(inner)
    if si is not None:
        return floordiv(t, si), floormod(t, si)
    return ir.Binary(ir.BinOp.FLOORDIV, t, inner), ir.Binary(ir.BinOp.FLOORMOD, t, inner)


def sgemm(
    trans_a: bool,
    trans_b: bool,
    m: ir.PrimExpr,
    n: ir.PrimExpr,
    k: ir.PrimExpr,
    a: ir.Buffer,
    lda: ir.PrimExpr,
    b: ir.Buffer,
    ldb: ir.PrimExpr,
    c: ir.Buffer,
    ldc: ir.PrimExpr,
) -> ir.ExternCall:
    """``C = op(A) op(B)`` through ``cblas_sgemm`` (row-major, alpha 1, beta 0), CBLAS's own
    argument list; integer arguments are ``int64`` indices (the code generator converts them
    to the BLAS's integer width), alpha and beta ``float32``."""
    return ir.ExternCall(
        "cblas_sgemm",
        (
            ir.index(101),
            ir.index(112 if trans_a else 111),
            ir.index(112 if trans_b else 111),
            m,
            n,
            k,
            ir.const(1.0, "float32"),
            a,
            lda,
            b,
            ldb,
            ir.const(0.0, "float32"),
            c,
            ldc,
        ),
    )


def contiguous(buffer: ir.Buffer) -> bool:
    """Whether ``buffer`` is row-major contiguous (so its first element's pointer is the
    matrix a BLAS call wants)."""
    return buffer.strides is None


def gemm_elementwise(
    batch: ir.PrimExpr,
    m: ir.PrimExpr,
    n: ir.PrimExpr,
    k: ir.PrimExpr,
    a: Operand,
    b: Operand,
    store: StoreFn,
    dtype: str,
) -> ir.Stmt:
    """``C[b, i, j] = sum_k a(b, i, k) * b(b, k, j)`` with one local accumulator per element,
    summed in order of ``k`` (accumulation in ``dtype``), under ``PARALLEL`` loops over the
    batch, the rows and the columns (every iteration writes its own element)."""
    zero = (ir.index(0),)

    def element(bt: ir.PrimExpr, i: ir.PrimExpr, j: ir.PrimExpr) -> ir.Stmt:
        acc = local("acc", (1,), dtype)

        def step(kk: ir.PrimExpr) -> ir.Stmt:
            product = ir.Binary(ir.BinOp.MUL, a(bt, i, kk), b(bt, kk, j))
            return ir.Store(acc, zero, ir.Binary(ir.BinOp.ADD, ir.Load(acc, zero), product))

        return ir.Allocate(
            acc,
            seq(
                ir.Store(acc, zero, ir.const(0, dtype)),
                loop("k", k, step),
                store(bt, i, j, ir.Load(acc, zero)),
            ),
        )

    parallel = (ir.LoopKind.PARALLEL,) * 3
    return nest("g", (batch, m, n), lambda ix: element(*ix), parallel)


class Direct:
    """A matrix-product operand that is already a row-major matrix in a buffer: ``buffer``
    read as ``rows x ld`` (``trans``: it holds the operand transposed)."""

    def __init__(self, buffer: ir.Buffer, trans: bool, ld: ir.PrimExpr) -> None:
        self.buffer = buffer
        self.trans = trans
        self.ld = ld


def sgemv(
    trans: bool,
    m: ir.PrimExpr,
    n: ir.PrimExpr,
    a: ir.Buffer,
    lda: ir.PrimExpr,
    x: ir.Buffer,
    y: ir.Buffer,
) -> ir.ExternCall:
    """``y = op(A) x`` through ``cblas_sgemv`` (row-major ``A`` of ``m x n``, unit increments,
    alpha 1, beta 0), CBLAS's own argument list (integers as ``int64`` indices)."""
    return ir.ExternCall(
        "cblas_sgemv",
        (
            ir.index(101),
            ir.index(112 if trans else 111),
            m,
            n,
            ir.const(1.0, "float32"),
            a,
            lda,
            x,
            ir.index(1),
            ir.const(0.0, "float32"),
            y,
            ir.index(1),
        ),
    )


def gemm_blas(
    batch: ir.PrimExpr,
    m: ir.PrimExpr,
    n: ir.PrimExpr,
    k: ir.PrimExpr,
    a: Operand | Direct,
    b: Operand | Direct,
    store: StoreFn,
    *,
    out: ir.Buffer | None = None,
    inplace: Callable[[ir.PrimExpr, ir.PrimExpr], ir.Stmt] | None = None,
) -> ir.Stmt:
    """``C[b, i, j] = sum_k a(b, i, k) * b(b, k, j)`` in float32 through ``cblas_sgemm``, once
    per batch. An operand given as an element function is first packed into a local row-major
    buffer; a ``Direct`` one is passed as it is (only with a batch of 1). With ``out`` (a batch
    of 1; ``out`` row-major ``M x N`` float32), sgemm writes ``out`` itself and ``inplace(i, j)``
    (if any) then rewrites each element (the fused epilogue); otherwise C is a local buffer
    stored element by element through ``store``."""
    if isinstance(a, Direct) or isinstance(b, Direct) or out is not None:
        assert static(batch) == 1, "direct sgemm operands need a batch of 1"

    def per_batch(bt: ir.PrimExpr) -> ir.Stmt:
        wraps: list[ir.Buffer] = []
        prologue: list[ir.Stmt] = []
        if isinstance(a, Direct):
            abuf, ta, lda = a.buffer, a.trans, a.ld
        else:
            fa = a
            abuf, ta, lda = local("A", (m, k), "float32"), False, k
            wraps.append(abuf)
            prologue.append(nest("pa", (m, k), lambda ik: ir.Store(abuf, ik, fa(bt, ik[0], ik[1]))))
        if isinstance(b, Direct):
            bbuf, tb, ldb = b.buffer, b.trans, b.ld
        else:
            fb = b
            bbuf, tb, ldb = local("B", (k, n), "float32"), False, n
            wraps.append(bbuf)
            prologue.append(nest("pb", (k, n), lambda kj: ir.Store(bbuf, kj, fb(bt, kj[0], kj[1]))))
        if out is not None:
            call = sgemm(ta, tb, m, n, k, abuf, lda, bbuf, ldb, out, n)
            body = (
                call
                if inplace is None
                else seq(call, nest("e", (m, n), lambda ij: inplace(*ij), _OUTER_PARALLEL))
            )
        else:
            cbuf = local("C", (m, n), "float32")
            call = sgemm(ta, tb, m, n, k, abuf, lda, bbuf, ldb, cbuf, n)
            put = nest(
                "c",
                (m, n),
                lambda ij: store(bt, ij[0], ij[1], ir.Load(cbuf, ij)),
                _OUTER_PARALLEL if static(batch) == 1 else None,
            )
            body = ir.Allocate(cbuf, seq(call, put))
        stmt = seq(*prologue, body)
        for buf in reversed(wraps):
            stmt = ir.Allocate(buf, stmt)
        return stmt

    return loop("b", batch, per_batch, ir.LoopKind.PARALLEL)


_OUTER_PARALLEL = (ir.LoopKind.PARALLEL, ir.LoopKind.SERIAL)
"""Loop kinds of an ``(M, N)`` nest whose rows run in parallel."""


__all__ = [
    "BLAS_CHUNK",
    "GEMM_STRATEGY",
    "GEMV_ROWS",
    "MICRO_KERNEL",
    "MICRO_KERNELS",
    "MIN_CHUNK",
    "MR",
    "NC",
    "NR",
    "PARALLEL_TASKS",
    "STRATEGIES",
    "Direct",
    "Operand",
    "StoreFn",
    "add",
    "ceildiv",
    "conj",
    "contiguous",
    "floordiv",
    "floormod",
    "gemm_blas",
    "gemm_elementwise",
    "gemm_packed",
    "gemm_strategy",
    "guard",
    "idx",
    "index_of_rows",
    "less",
    "local",
    "loop",
    "minimum",
    "mul",
    "nest",
    "product",
    "seq",
    "sgemm",
    "sgemv",
    "split",
    "static",
    "sub",
    "unflatten",
    "use_blas",
    "var",
]
