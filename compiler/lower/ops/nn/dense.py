"""Lowerings of ``semantics/ops/nn/dense.py``: nn.dense, nn.matmul, nn.batch_matmul (scheduled
matrix products, ``schedules.gemm_packed`` or ``schedules.gemm_blas`` by
``schedules.GEMM_STRATEGY``) and nn.bias_add (a broadcast compute).

Every product is ``sum_k cast(a) * cast(b)`` with both operands cast to the output dtype
first, float16 accumulated in float32 and rounded once (the reference's ``_contract``); the
BLAS schedule applies to float32 operands and output only. The fused epilogue (bias add, relu,
a batch-norm scale) is applied at the store.
"""

from __future__ import annotations

from collections.abc import Callable

from .....semantics.ops.nn.dense import BatchMatmulAttrs, BiasAddAttrs, DenseAttrs, MatmulAttrs
from .....semantics.ops.registry import Attrs
from .....semantics.syntax import Type
from ... import ir, te
from ... import schedules as sch
from .common import buffer_of, cast, compute_dtype, out_shape, store, tensor


def _attrs(attrs: Attrs | None, cls: type[Attrs], op: str) -> Attrs:
    if not isinstance(attrs, cls):
        raise te.LoweringError(op, f"expected {cls.__name__}")
    return attrs


def product(
    name: str,
    shape: tuple[ir.PrimExpr, ...],
    dtype: str,
    batch: ir.PrimExpr,
    m: ir.PrimExpr,
    n: ir.PrimExpr,
    k: ir.PrimExpr,
    a: sch.Operand,
    b: sch.Operand,
    *,
    direct_a: sch.Direct | None = None,
    direct_b: sch.Direct | None = None,
    flat_out: bool = False,
) -> te.Materialized:
    """The scheduled tensor of ``C[b, i, j] = sum_k a(b, i, k) * b(b, k, j)`` of ``shape``:
    ``a`` and ``b`` give elements already cast to ``dtype``; the output is ``shape`` with
    ``(b, i, j)`` unflattened row-major from the leading axes (a batch of 1: no batch axis);
    at most ``schedules.GEMV_ROWS`` rows: a plain reduction over ``k``;
    ``direct_a``/``direct_b`` are the operands as buffers for the BLAS schedule (``None``: the
    schedule packs them); ``flat_out``: the output is row-major ``(M, N)`` per batch of 1."""
    cd = compute_dtype(dtype)
    blas = sch.use_blas(dtype)
    lead = shape[:-1] if static_batch_one(batch) else shape[1:-1]

    def index_of(bt: ir.PrimExpr, i: ir.PrimExpr, j: ir.PrimExpr) -> tuple[ir.PrimExpr, ...]:
        rows = sch.unflatten(i, lead)
        return (*rows, j) if static_batch_one(batch) else (bt, *rows, j)

    sm = sch.static(m)
    one_row = sm == 1 and static_batch_one(batch)
    if blas and one_row and direct_a is not None and direct_b is not None and not direct_a.trans:
        return _gemv_blas(name, shape, dtype, n, k, direct_a, direct_b, index_of, flat_out)
    if sm is not None and sm <= sch.GEMV_ROWS and static_batch_one(batch):

        def element(ix: te.Indices, r: te.Indices) -> ir.PrimExpr:
            i = sch.index_of_rows(ix[:-1], lead)
            prod = ir.Binary(
                ir.BinOp.MUL, cast(a(batch, i, r[0]), cd), cast(b(batch, r[0], ix[-1]), cd)
            )
            return prod

        return te.reduce(shape, dtype, (k,), "sum", element, name, acc_dtype=cd)

    def schedule(out: ir.Buffer, epilogue: te.Epilogue | None) -> ir.Stmt:
        def put(bt: ir.PrimExpr, i: ir.PrimExpr, j: ir.PrimExpr, v: ir.PrimExpr) -> ir.Stmt:
            return store(out, index_of(bt, i, j), v, dtype, epilogue)

        def up_a(bt: ir.PrimExpr, i: ir.PrimExpr, kk: ir.PrimExpr) -> ir.PrimExpr:
            return cast(a(bt, i, kk), cd)

        def up_b(bt: ir.PrimExpr, kk: ir.PrimExpr, j: ir.PrimExpr) -> ir.PrimExpr:
            return cast(b(bt, kk, j), cd)

        if not blas:
            return sch.gemm_packed(batch, m, n, k, up_a, up_b, put, cd)
        direct_out = (
            flat_out and static_batch_one(batch) and out.dtype == "float32" and out.strides is None
        )
        inplace = None
        if direct_out and epilogue is not None:
            epi = epilogue

            def rewrite(i: ir.PrimExpr, j: ir.PrimExpr) -> ir.Stmt:
                ix = index_of(ir.index(0), i, j)
                return ir.Store(out, ix, epi(ir.Load(out, ix), ix))

            inplace = rewrite
        return sch.gemm_blas(
            batch,
            m,
            n,
            k,
            direct_a if direct_a is not None else up_a,
            direct_b if direct_b is not None else up_b,
            put,
            out=out if direct_out else None,
            inplace=inplace,
        )

    return te.Scheduled(name, shape, dtype, schedule=schedule)


def _gemv_blas(
    name: str,
    shape: tuple[ir.PrimExpr, ...],
    dtype: str,
    n: ir.PrimExpr,
    k: ir.PrimExpr,
    x: sch.Direct,
    w: sch.Direct,
    index_of: Callable[[ir.PrimExpr, ir.PrimExpr, ir.PrimExpr], tuple[ir.PrimExpr, ...]],
    flat_out: bool,
) -> te.Materialized:
    """A float32 product of one row ``x`` (a buffer) by a matrix ``w`` (a buffer, ``(N, K)``
    when ``w.trans``, else ``(K, N)``) through ``cblas_sgemv``: ``y = w x`` or ``y = w^T x``,
    written into the output when it is a row-major float32 ``(1, N)`` (then the fused
    epilogue rewrites it in place), else into a local vector stored element by element."""

    def schedule(out: ir.Buffer, epilogue: te.Epilogue | None) -> ir.Stmt:
        def call(y: ir.Buffer) -> ir.Stmt:
            if w.trans:
                return sch.sgemv(False, n, k, w.buffer, w.ld, x.buffer, y)
            return sch.sgemv(True, k, n, w.buffer, w.ld, x.buffer, y)

        zero = ir.index(0)
        if flat_out and out.dtype == "float32" and out.strides is None:
            if epilogue is None:
                return call(out)
            epi = epilogue

            def rewrite(j: ir.PrimExpr) -> ir.Stmt:
                ix = index_of(zero, zero, j)
                return ir.Store(out, ix, epi(ir.Load(out, ix), ix))

            return sch.seq(call(out), sch.loop("j", n, rewrite))
        y = sch.local("y", (n,), "float32")

        def put(j: ir.PrimExpr) -> ir.Stmt:
            return store(out, index_of(zero, zero, j), ir.Load(y, (j,)), dtype, epilogue)

        return ir.Allocate(y, sch.seq(call(y), sch.loop("j", n, put)))

    return te.Scheduled(name, shape, dtype, schedule=schedule)


def static_batch_one(batch: ir.PrimExpr) -> bool:
    """Whether the batch extent is the constant 1."""
    return sch.static(batch) == 1


def _direct(t: te.Tensor, dtype: str, trans: bool, ld: ir.PrimExpr) -> sch.Direct | None:
    """``t`` as a BLAS operand when it is a float32 row-major buffer already in ``dtype``."""
    buf = buffer_of(t)
    if buf is None or t.dtype != dtype or dtype != "float32":
        return None
    return sch.Direct(buf, trans, ld)


@te.lowering("nn.dense")
def lower_dense(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[.., j] = sum_k cast(x[.., k]) * cast(w[j, k])``."""
    a = _attrs(attrs, DenseAttrs, "nn.dense")
    assert isinstance(a, DenseAttrs)
    data, weight = tensor(args, 0, "nn.dense"), tensor(args, 1, "nn.dense")
    dtype = a.out_dtype or data.dtype
    shape = out_shape(ctx, out_type, "nn.dense")
    lead = data.shape[:-1]
    k = data.shape[-1]
    n = weight.shape[0]

    def fa(bt: ir.PrimExpr, i: ir.PrimExpr, kk: ir.PrimExpr) -> ir.PrimExpr:
        return cast(data(*sch.unflatten(i, lead), kk), dtype)

    def fb(bt: ir.PrimExpr, kk: ir.PrimExpr, j: ir.PrimExpr) -> ir.PrimExpr:
        return cast(weight(j, kk), dtype)

    return product(
        ctx.fresh("dense"),
        shape,
        dtype,
        ir.index(1),
        sch.product(lead),
        n,
        k,
        fa,
        fb,
        direct_a=_direct(data, dtype, False, k),
        direct_b=_direct(weight, dtype, True, k),
        flat_out=True,
    )


@te.lowering("nn.matmul")
def lower_matmul(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[.., i, j] = sum_k cast(a[.., i, k]) * cast(b[k, j])`` (either given
    transposed)."""
    at = _attrs(attrs, MatmulAttrs, "nn.matmul")
    assert isinstance(at, MatmulAttrs)
    ta, tb = tensor(args, 0, "nn.matmul"), tensor(args, 1, "nn.matmul")
    dtype = at.out_dtype or ta.dtype
    shape = out_shape(ctx, out_type, "nn.matmul")
    if at.transpose_a:
        lead = (*ta.shape[:-2], ta.shape[-1])
        k = ta.shape[-2]
    else:
        lead = ta.shape[:-1]
        k = ta.shape[-1]
    n = tb.shape[0] if at.transpose_b else tb.shape[1]

    def fa(bt: ir.PrimExpr, i: ir.PrimExpr, kk: ir.PrimExpr) -> ir.PrimExpr:
        rows = sch.unflatten(i, lead)
        if at.transpose_a:
            return cast(ta(*rows[:-1], kk, rows[-1]), dtype)
        return cast(ta(*rows, kk), dtype)

    def fb(bt: ir.PrimExpr, kk: ir.PrimExpr, j: ir.PrimExpr) -> ir.PrimExpr:
        return cast(tb(j, kk) if at.transpose_b else tb(kk, j), dtype)

    m = sch.product(lead)
    direct_a = None
    if not at.transpose_a:
        direct_a = _direct(ta, dtype, False, k)
    elif ta.ndim == 2:
        direct_a = _direct(ta, dtype, True, m)
    return product(
        ctx.fresh("matmul"),
        shape,
        dtype,
        ir.index(1),
        m,
        n,
        k,
        fa,
        fb,
        direct_a=direct_a,
        direct_b=_direct(tb, dtype, at.transpose_b, k if at.transpose_b else n),
        flat_out=True,
    )


@te.lowering("nn.batch_matmul")
def lower_batch_matmul(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[b, i, j] = sum_k cast(a[b, i, k]) * cast(b[b, k, j])``, a batch of 1 broadcast
    (either operand given transposed)."""
    at = _attrs(attrs, BatchMatmulAttrs, "nn.batch_matmul")
    assert isinstance(at, BatchMatmulAttrs)
    ta, tb = tensor(args, 0, "nn.batch_matmul"), tensor(args, 1, "nn.batch_matmul")
    dtype = at.out_dtype or ta.dtype
    shape = out_shape(ctx, out_type, "nn.batch_matmul")
    batch, m, n = shape
    k = ta.shape[1] if at.transpose_a else ta.shape[2]
    one_a = sch.static(ta.shape[0]) == 1
    one_b = sch.static(tb.shape[0]) == 1

    def fa(bt: ir.PrimExpr, i: ir.PrimExpr, kk: ir.PrimExpr) -> ir.PrimExpr:
        b0 = ir.index(0) if one_a else bt
        return cast(ta(b0, kk, i) if at.transpose_a else ta(b0, i, kk), dtype)

    def fb(bt: ir.PrimExpr, kk: ir.PrimExpr, j: ir.PrimExpr) -> ir.PrimExpr:
        b0 = ir.index(0) if one_b else bt
        return cast(tb(b0, j, kk) if at.transpose_b else tb(b0, kk, j), dtype)

    single = sch.static(batch) == 1
    return product(
        ctx.fresh("batch_matmul"),
        shape,
        dtype,
        batch,
        m,
        n,
        k,
        fa,
        fb,
        direct_a=_direct(ta, dtype, at.transpose_a, m if at.transpose_a else k) if single else None,
        direct_b=_direct(tb, dtype, at.transpose_b, k if at.transpose_b else n) if single else None,
        flat_out=single,
    )


@te.lowering("nn.bias_add")
def lower_bias_add(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[i] = data[i] + bias[i[axis]]`` (integers wrap, float16 rounds once)."""
    a = _attrs(attrs, BiasAddAttrs, "nn.bias_add")
    assert isinstance(a, BiasAddAttrs)
    data, bias = tensor(args, 0, "nn.bias_add"), tensor(args, 1, "nn.bias_add")
    if data.dtype == "bool":
        raise te.LoweringError("nn.bias_add", "bool data has no defined sum")
    axis = a.axis % data.ndim
    cd = compute_dtype(data.dtype)

    def element(ix: te.Indices) -> ir.PrimExpr:
        total = ir.Binary(ir.BinOp.ADD, cast(data(*ix), cd), cast(bias(ix[axis]), cd))
        return cast(total, data.dtype)

    return te.compute(data.shape, data.dtype, element, ctx.fresh("bias_add"))
