"""Lowerings of ``semantics/ops/nn/conv.py``.

- ``nn.conv1d``, ``nn.conv2d``, ``nn.conv3d``: one scheduled matrix product per image and
  group, ``out[o, p] = sum_k W[o, k] * cols[k, p]`` with ``k`` over (input channel of the
  group, window offsets) and ``p`` over output positions; ``cols`` is the im2col of the
  zero-padded input, read on the fly. With ``schedules.GEMM_STRATEGY == "packed"`` it is
  ``schedules.gemm_packed`` (the im2col is done while packing the panels; an output layout
  whose last axis is the channel swaps the product's operands so the vectorised panel runs
  along the channels); with ``"blas"`` (float32), each image's positions are cut into chunks of
  ``schedules.BLAS_CHUNK``, whose im2col goes to a local buffer, then ``cblas_sgemm``, then the
  store with the fused epilogue (at least ``schedules.PARALLEL_TASKS`` chunks per image where
  they keep ``schedules.MIN_CHUNK`` positions). Either way the (image, group, panel or chunk)
  tasks are one flattened ``parallel`` loop, the outermost statement of the nest (the CPU
  target runs top-level parallel loops on its thread pool), with every scratch buffer
  allocated inside it. Any layout that permutes the canonical ones, groups, depthwise with a
  channel multiplier, dilation, asymmetric padding.
- ``nn.conv1d_transpose``, ``nn.conv2d_transpose``: a reduction (the gather form of the
  adjoint: output ``y`` takes input ``i = (y + pad - j*dil) / stride`` where that is an integer
  in range).
- ``nn.contrib_conv2d_NCHWc``, and ``nn.conv2d`` over packed layouts (VTA's ``NCHW1n16c`` /
  ``OIHW16o16i``): ``nn.conv2d`` between two ``layout_transform`` index maps (the packed
  operands unpacked to NCHW/OIHW, the result packed into ``out_layout``).

Operands are cast to the output dtype first; float16 accumulates in float32.
"""

from __future__ import annotations

from collections.abc import Callable

from .....semantics.ops import OPS
from .....semantics.ops.nn.common import _padding4
from .....semantics.ops.nn.conv import (
    Conv1DAttrs,
    Conv1DTransposeAttrs,
    Conv2DAttrs,
    Conv2DTransposeAttrs,
    Conv3DAttrs,
    _is_packed,
    _padding_nd,
)
from .....semantics.ops.registry import Attrs
from .....semantics.ops.shape import LayoutTransformAttrs
from .....semantics.syntax import Type
from ... import ir, te
from ... import schedules as sch
from .common import (
    binary,
    buffer_of,
    canonical_dims,
    cast,
    compute_dtype,
    out_shape,
    padded_read,
    permuted,
    store,
    tensor,
)

_SPATIAL = {1: "W", 2: "HW", 3: "DHW"}


class _Geometry:
    """A forward convolution in canonical order: data (N, C, *S), weight (O, I, *K)."""

    def __init__(
        self,
        data: te.Tensor,
        weight: te.Tensor,
        out: tuple[ir.PrimExpr, ...],
        attrs: Conv1DAttrs | Conv2DAttrs | Conv3DAttrs,
        op: str,
    ) -> None:
        nd = len(data.shape) - 2
        spatial = _SPATIAL[nd]
        self.nd = nd
        self.op = op
        self.dtype = attrs.out_dtype or data.dtype
        self.cd = compute_dtype(self.dtype)
        self.data_layout = attrs.data_layout
        self.out_layout = (
            attrs.data_layout
            if isinstance(attrs, Conv1DAttrs)
            else (attrs.out_layout or attrs.data_layout)
        )
        self.weight_tensor = weight
        self.kernel_layout = attrs.kernel_layout
        self.x = permuted(data, attrs.data_layout, "NC" + spatial)
        self.w = permuted(weight, attrs.kernel_layout, "OI" + spatial)
        dims = canonical_dims(data.shape, attrs.data_layout, "NC" + spatial)
        wdims = canonical_dims(weight.shape, attrs.kernel_layout, "OI" + spatial)
        self.n, self.c, self.extents = dims[0], dims[1], dims[2:]
        self.out_canon = canonical_dims(out, self.out_layout, "NC" + spatial)
        self.o = self.out_canon[1]
        self.positions = self.out_canon[2:]
        self.kernel = [self._int(k) for k in wdims[2:]]
        if nd == 2:
            assert isinstance(attrs, Conv2DAttrs)
            top, left, _, _ = _padding4(attrs.padding)
            self.before: tuple[int, ...] = (top, left)
        else:
            self.before, _ = _padding_nd(attrs.padding, nd)
        self.strides = tuple(attrs.strides)
        self.dilation = tuple(attrs.dilation)
        self.groups = attrs.groups
        wo, wi = self._int(wdims[0]), self._int(wdims[1])
        c = self._int(self.c)
        # A depthwise weight (C, m, *K) with groups == C and m != C/groups is the grouped
        # weight (C*m, 1, *K) (the reference reads W[o // m, o % m] for output channel o).
        self.multiplier = wi if self.groups > 1 and wi != c // self.groups else 0
        self.cg = 1 if self.multiplier else wi
        self.og = (wo * wi if self.multiplier else wo) // self.groups
        self.k = self.cg * sch.static(sch.product([ir.index(k) for k in self.kernel]))  # type: ignore[operator]

    def _int(self, d: ir.PrimExpr) -> int:
        v = sch.static(d)
        if v is None:
            raise te.LoweringError(self.op, "channel and kernel extents must be static")
        return v

    def weight(self, o: ir.PrimExpr, kk: ir.PrimExpr) -> ir.PrimExpr:
        """W[o, k] of the grouped product (``o`` the global output channel), in ``cd``."""
        ci, *offsets = sch.unflatten(kk, [ir.index(self.cg), *(ir.index(k) for k in self.kernel)])
        if self.multiplier:
            m = self.multiplier
            value = self.w(sch.floordiv(o, m), sch.floormod(o, m), *offsets)
        else:
            value = self.w(o, ci, *offsets)
        return cast(cast(value, self.dtype), self.cd)

    def column(
        self, n: ir.PrimExpr, g: ir.PrimExpr, kk: ir.PrimExpr, p: ir.PrimExpr
    ) -> ir.PrimExpr:
        """cols[k, p] of image ``n``, group ``g``, in ``cd``: the padded input element."""
        return self.column_at(n, g, kk, sch.unflatten(p, self.positions))

    def column_at(
        self,
        n: ir.PrimExpr,
        g: ir.PrimExpr,
        kk: ir.PrimExpr,
        pos: tuple[ir.PrimExpr, ...],
        *,
        check_last: bool = True,
    ) -> ir.PrimExpr:
        """``column`` at the output position ``pos`` (one index per spatial axis); with
        ``check_last`` false, the caller knows the input index on the last spatial axis is
        inside the input, and it is read with no bound check on that axis."""
        ci, *offsets = sch.unflatten(kk, [ir.index(self.cg), *(ir.index(k) for k in self.kernel)])
        channel = sch.add(sch.mul(g, self.cg), ci)
        spatial = [
            sch.sub(sch.add(sch.mul(q, s), sch.mul(j, d)), b)
            for q, j, s, d, b in zip(
                pos, offsets, self.strides, self.dilation, self.before, strict=True
            )
        ]
        zero = ir.const(0, self.dtype)
        if check_last:
            value = padded_read(
                lambda *ix: cast(self.x(*ix), self.dtype), (n, channel), spatial, self.extents, zero
            )
        else:
            last = spatial.pop()
            value = padded_read(
                lambda *ix: cast(self.x(*ix, last), self.dtype),
                (n, channel),
                spatial,
                self.extents[:-1],
                zero,
            )
        return cast(value, self.cd)

    def fill_row(
        self,
        n: ir.PrimExpr,
        g: ir.PrimExpr,
        kk: ir.PrimExpr,
        lead: tuple[ir.PrimExpr, ...],
        extent: int,
        put: Callable[[ir.PrimExpr, ir.PrimExpr], ir.Stmt],
    ) -> ir.Stmt:
        """``put(q, column_at(n, g, kk, (*lead, q)))`` for ``q`` in ``0 .. extent-1`` (a row of
        output positions along the last spatial axis), as three loops: the positions whose
        input index ``q*s + j*d - b`` on that axis is left of the input, those inside it (read
        with no bound check on that axis, so the loop is a strided copy the vectoriser
        takes), and those right of it. The bounds: inside iff ``ceil(start / s) <= q <
        ceil((W + start) / s)`` with ``start = b - j*d``, clamped to ``[0, extent]``."""
        offset = sch.unflatten(kk, [ir.index(self.cg), *(ir.index(k) for k in self.kernel)])[-1]
        s, d, b = self.strides[-1], self.dilation[-1], self.before[-1]
        width = self.extents[-1]
        start = sch.sub(ir.index(b), sch.mul(offset, d))
        zero_index = ir.index(0)
        lo = sch.minimum(extent, sch.ceildiv(binary(ir.BinOp.MAX, start, zero_index), s))
        end = binary(ir.BinOp.MAX, sch.add(start, width), zero_index)
        hi = binary(ir.BinOp.MAX, lo, sch.minimum(extent, sch.ceildiv(end, s)))
        zero = cast(ir.const(0, self.dtype), self.cd)

        def inside(q: ir.PrimExpr) -> ir.PrimExpr:
            return self.column_at(n, g, kk, (*lead, q), check_last=False)

        return sch.seq(
            sch.loop("q", lo, lambda q: put(q, zero)),
            sch.loop("q", sch.sub(hi, lo), lambda i: put(sch.add(lo, i), inside(sch.add(lo, i)))),
            sch.loop("q", sch.sub(ir.index(extent), hi), lambda i: put(sch.add(hi, i), zero)),
        )

    def out_index(self, n: ir.PrimExpr, o: ir.PrimExpr, p: ir.PrimExpr) -> tuple[ir.PrimExpr, ...]:
        """The output element (image, channel, flat position) in the output layout."""
        spatial = _SPATIAL[self.nd]
        canon = dict(zip("NC" + spatial, (n, o, *sch.unflatten(p, self.positions)), strict=True))
        return tuple(canon[axis] for axis in self.out_layout)


def _conv_scheduled(g: _Geometry, name: str, shape: tuple[ir.PrimExpr, ...]) -> te.Scheduled:
    npos = sch.product(g.positions)
    groups = g.groups
    og = g.og

    def split(bt: ir.PrimExpr) -> tuple[ir.PrimExpr, ir.PrimExpr]:
        return sch.floordiv(bt, groups), sch.floormod(bt, groups)

    def schedule(out: ir.Buffer, epilogue: te.Epilogue | None) -> ir.Stmt:
        def put_oc(bt: ir.PrimExpr, o: ir.PrimExpr, p: ir.PrimExpr, v: ir.PrimExpr) -> ir.Stmt:
            n, gi = split(bt)
            return store(out, g.out_index(n, sch.add(sch.mul(gi, og), o), p), v, g.dtype, epilogue)

        if sch.use_blas(g.dtype):
            return _conv_blas(g, out, epilogue, npos)
        batch = sch.mul(g.n, groups)
        k = ir.index(g.k)

        def weight(bt: ir.PrimExpr, o: ir.PrimExpr, kk: ir.PrimExpr) -> ir.PrimExpr:
            return g.weight(sch.add(sch.mul(split(bt)[1], og), o), kk)

        def cols(bt: ir.PrimExpr, kk: ir.PrimExpr, p: ir.PrimExpr) -> ir.PrimExpr:
            n, gi = split(bt)
            return g.column(n, gi, kk, p)

        if g.out_layout.endswith("C"):
            return sch.gemm_packed(
                batch,
                npos,
                ir.index(og),
                k,
                lambda bt, p, kk: cols(bt, kk, p),
                lambda bt, kk, o: weight(bt, o, kk),
                lambda bt, p, o, v: put_oc(bt, o, p, v),
                g.cd,
            )
        return sch.gemm_packed(batch, ir.index(og), npos, k, weight, cols, put_oc, g.cd)

    return te.Scheduled(name, shape, g.dtype, schedule=schedule)


def _conv_blas(
    g: _Geometry, out: ir.Buffer, epilogue: te.Epilogue | None, npos: ir.PrimExpr
) -> ir.Stmt:
    """The float32 convolution through ``cblas_sgemm``: per image, group and chunk of
    positions, the im2col of the chunk into a local ``[K, chunk]`` buffer, then
    ``C[og, chunk] = W_g[og, K] @ cols``, then the store with the epilogue."""
    og, k = g.og, g.k
    sp = sch.static(npos)
    last = sch.static(g.positions[-1])
    # Chunks of whole rows of the last spatial axis when it is static, so that the im2col's
    # innermost loop runs along that axis with no index division.
    # Chunks of at most BLAS_CHUNK positions, and at least PARALLEL_TASKS of them per image
    # while each keeps MIN_CHUNK positions.
    target = sch.BLAS_CHUNK
    if sp is not None and sp >= sch.PARALLEL_TASKS * sch.MIN_CHUNK:
        target = min(target, -(-sp // sch.PARALLEL_TASKS))
    rows = None if last is None or last == 0 else max(1, target // last)
    total_rows = sch.static(sch.product(g.positions[:-1]))
    if rows is not None and total_rows is not None:
        rows = max(1, min(rows, total_rows))
    if rows is not None and last is not None:
        chunk = rows * last
    else:
        chunk = target if sp is None else max(1, min(target, sp))

    # The weight as sgemm's A where it already is the row-major (O, K) matrix: one group, the
    # canonical kernel layout, a float32 kernel input. Otherwise each chunk copies its group's.
    direct = None
    if (
        g.groups == 1
        and not g.multiplier
        and g.kernel_layout == "OI" + _SPATIAL[g.nd]
        and g.weight_tensor.dtype == "float32"
    ):
        direct = buffer_of(g.weight_tensor)

    def per_chunk(n: ir.PrimExpr, gi: ir.PrimExpr, c: ir.PrimExpr) -> ir.Stmt:
        cols = sch.local("cols", (k, chunk), "float32")
        wg = direct if direct is not None else sch.local("Wg", (og, k), "float32")
        cbuf = sch.local("C", (og, chunk), "float32")
        p0 = sch.mul(c, chunk)
        width = sch.minimum(chunk, sch.sub(npos, p0))
        if rows is not None and last is not None:
            outer = g.positions[:-1]
            row0 = sch.mul(c, rows)
            count = sch.minimum(rows, sch.sub(sch.product(outer), row0))
            q_extent = last

            def fill_row(kk: ir.PrimExpr, r: ir.PrimExpr) -> ir.Stmt:
                lead = tuple(sch.unflatten(sch.add(row0, r), outer))
                return g.fill_row(
                    n,
                    gi,
                    kk,
                    lead,
                    q_extent,
                    lambda q, v: ir.Store(cols, (kk, sch.add(sch.mul(r, q_extent), q)), v),
                )

            fill = sch.loop("k", k, lambda kk: sch.loop("r", count, lambda r: fill_row(kk, r)))
        else:
            fill = sch.loop(
                "k",
                k,
                lambda kk: sch.loop(
                    "p",
                    width,
                    lambda pp: ir.Store(cols, (kk, pp), g.column(n, gi, kk, sch.add(p0, pp))),
                ),
            )
        copy_w = sch.nest(
            "wg",
            (ir.index(og), ir.index(k)),
            lambda ok: ir.Store(wg, ok, g.weight(sch.add(sch.mul(gi, og), ok[0]), ok[1])),
        )
        call = sch.sgemm(
            False,
            False,
            ir.index(og),
            width,
            ir.index(k),
            wg,
            ir.index(k),
            cols,
            ir.index(chunk),
            cbuf,
            ir.index(chunk),
        )

        def put(o: ir.PrimExpr, pp: ir.PrimExpr) -> ir.Stmt:
            index = g.out_index(n, sch.add(sch.mul(gi, og), o), sch.add(p0, pp))
            return store(out, index, ir.Load(cbuf, (o, pp)), g.dtype, epilogue)

        stores = sch.loop("o", og, lambda o: sch.loop("p", width, lambda pp: put(o, pp)))
        if direct is not None:
            return ir.Allocate(cols, ir.Allocate(cbuf, sch.seq(fill, call, stores)))
        body = sch.seq(fill, copy_w, call, stores)
        return ir.Allocate(cols, ir.Allocate(wg, ir.Allocate(cbuf, body)))

    chunks = sch.ceildiv(npos, chunk)

    def per_task(t: ir.PrimExpr) -> ir.Stmt:
        rest, c = sch.split(t, chunks)
        n, gi = sch.split(rest, ir.index(g.groups))
        return per_chunk(n, gi, c)

    tasks = sch.mul(sch.mul(g.n, g.groups), chunks)
    return sch.loop("t", tasks, per_task, ir.LoopKind.PARALLEL)


def _forward(
    op: str,
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    out_type: Type,
    cls: type[Conv1DAttrs] | type[Conv2DAttrs] | type[Conv3DAttrs],
) -> te.TensorResult:
    if not isinstance(attrs, cls):
        raise te.LoweringError(op, f"expected {cls.__name__}")
    data, weight = tensor(args, 0, op), tensor(args, 1, op)
    shape = out_shape(ctx, out_type, op)
    g = _Geometry(data, weight, shape, attrs, op)
    if g.dtype == "bool":
        raise te.LoweringError(op, "a bool output dtype has no defined sum")
    return _conv_scheduled(g, ctx.fresh(op.removeprefix("nn.")), shape)


@te.lowering("nn.conv1d")
def lower_conv1d(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """1-D cross-correlation (see the module docstring)."""
    return _forward("nn.conv1d", ctx, args, attrs, out_type, Conv1DAttrs)


@te.lowering("nn.conv2d")
def lower_conv2d(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """2-D cross-correlation (see the module docstring); packed layouts as
    ``nn.contrib_conv2d_NCHWc``."""
    if isinstance(attrs, Conv2DAttrs) and _is_packed(attrs):
        return _lower_packed("nn.conv2d", ctx, args, attrs, arg_types)
    return _forward("nn.conv2d", ctx, args, attrs, out_type, Conv2DAttrs)


@te.lowering("nn.conv3d")
def lower_conv3d(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """3-D cross-correlation (see the module docstring)."""
    return _forward("nn.conv3d", ctx, args, attrs, out_type, Conv3DAttrs)


def _transpose(
    op: str,
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    out_type: Type,
) -> te.TensorResult:
    if not isinstance(attrs, Conv1DTransposeAttrs | Conv2DTransposeAttrs):
        raise te.LoweringError(op, "expected transposed convolution attributes")
    a = attrs
    data, weight = tensor(args, 0, op), tensor(args, 1, op)
    shape = out_shape(ctx, out_type, op)
    nd = data.ndim - 2
    spatial = _SPATIAL[nd]
    dtype = a.out_dtype or data.dtype
    if dtype == "bool":
        raise te.LoweringError(op, "a bool output dtype has no defined sum")
    cd = compute_dtype(dtype)
    x = permuted(data, a.data_layout, "NC" + spatial)
    w = permuted(weight, a.kernel_layout, "IO" + spatial)
    extents = canonical_dims(data.shape, a.data_layout, "NC" + spatial)[2:]
    wdims = canonical_dims(weight.shape, a.kernel_layout, "IO" + spatial)
    og = sch.static(wdims[1])
    kernel = [sch.static(k) for k in wdims[2:]]
    c = sch.static(canonical_dims(data.shape, a.data_layout, "NC" + spatial)[1])
    if og is None or c is None or any(k is None for k in kernel):
        raise te.LoweringError(op, "channel and kernel extents must be static")
    cg = c // a.groups
    before, _ = _padding_nd(a.padding, nd)
    out_layout = a.out_layout or a.data_layout
    zero = ir.const(0, cd)

    empty = any(sch.static(e) == 0 for e in extents)

    def body(ix: te.Indices, r: te.Indices) -> ir.PrimExpr:
        if empty:
            return zero  # no input position reaches any output
        canon = dict(zip(out_layout, ix, strict=True))
        n, o = canon["N"], canon["C"]
        ys = [canon[axis] for axis in spatial]
        gi = sch.floordiv(o, og)
        oo = sch.floormod(o, og)
        ci, offsets = r[0], r[1:]
        channel = sch.add(sch.mul(gi, cg), ci)
        conds: list[ir.PrimExpr] = []
        inputs: list[ir.PrimExpr] = []
        for y, j, s, d, b, e in zip(
            ys, offsets, a.strides, a.dilation, before, extents, strict=True
        ):
            num = sch.sub(sch.add(y, b), sch.mul(j, d))
            q = sch.floordiv(num, s)
            conds.append(ir.Binary(ir.BinOp.GE, num, ir.index(0)))
            if s != 1:
                conds.append(ir.Binary(ir.BinOp.EQ, sch.floormod(num, s), ir.index(0)))
            conds.append(ir.Binary(ir.BinOp.LT, q, e))
            inputs.append(
                ir.Binary(ir.BinOp.MAX, ir.Binary(ir.BinOp.MIN, q, sch.sub(e, 1)), ir.index(0))
            )
        cond = conds[0]
        for cnd in conds[1:]:
            cond = ir.Binary(ir.BinOp.AND, cond, cnd)
        xv = cast(cast(x(n, channel, *inputs), dtype), cd)
        wv = cast(cast(w(channel, oo, *offsets), dtype), cd)
        return ir.Select(cond, ir.Binary(ir.BinOp.MUL, xv, wv), zero)

    axes = (ir.index(cg), *(ir.index(k) for k in kernel if k is not None))
    return te.reduce(
        shape, dtype, axes, "sum", body, ctx.fresh(op.removeprefix("nn.")), acc_dtype=cd
    )


@te.lowering("nn.conv1d_transpose")
def lower_conv1d_transpose(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The adjoint of conv1d, as a gather reduction."""
    return _transpose("nn.conv1d_transpose", ctx, args, attrs, out_type)


@te.lowering("nn.conv2d_transpose")
def lower_conv2d_transpose(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The adjoint of conv2d, as a gather reduction."""
    return _transpose("nn.conv2d_transpose", ctx, args, attrs, out_type)


def _repack(
    ctx: te.LowerContext, t: te.Tensor, t_type: Type, src: str, dst: str
) -> tuple[te.Tensor, Type]:
    """``t`` (of type ``t_type``) moved from layout ``src`` to ``dst`` by ``layout_transform``'s
    lowering (an index map, inlined), with its type."""
    if src == dst:
        return t, t_type
    attrs = LayoutTransformAttrs(src_layout=src, dst_layout=dst)
    relation = OPS["layout_transform"].relation
    assert relation is not None
    out_type = relation((t_type,), attrs)
    out = te.LOWERINGS["layout_transform"].fn(ctx, (t,), attrs, (t_type,), out_type)
    assert isinstance(out, te.Tensor)
    return out, out_type


@te.lowering("nn.contrib_conv2d_NCHWc")
def lower_conv2d_nchwc(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``nn.conv2d`` of the operands unpacked to NCHW and OIHW (``layout_transform`` index
    maps inlined into the convolution's packing or im2col), its result packed into
    ``out_layout`` (an index map over the convolution's buffer)."""
    if not isinstance(attrs, Conv2DAttrs):
        raise te.LoweringError("nn.contrib_conv2d_NCHWc", "expected Conv2DAttrs")
    return _lower_packed("nn.contrib_conv2d_NCHWc", ctx, args, attrs, arg_types)


def _lower_packed(
    op: str,
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Conv2DAttrs,
    arg_types: tuple[Type, ...],
) -> te.TensorResult:
    """A convolution over packed layouts: ``nn.conv2d`` between ``layout_transform`` index
    maps."""
    data = tensor(args, 0, op)
    weight = tensor(args, 1, op)
    x, xt = _repack(ctx, data, arg_types[0], attrs.data_layout, "NCHW")
    w, wt = _repack(ctx, weight, arg_types[1], attrs.kernel_layout, "OIHW")
    plain = Conv2DAttrs(
        strides=attrs.strides,
        padding=attrs.padding,
        dilation=attrs.dilation,
        groups=attrs.groups,
        channels=attrs.channels,
        kernel_size=attrs.kernel_size,
        out_dtype=attrs.out_dtype,
    )
    relation = OPS["nn.conv2d"].relation
    assert relation is not None
    conv_type = relation((xt, wt), plain)
    y = lower_conv2d(ctx, (x, w), plain, (xt, wt), conv_type)
    assert isinstance(y, te.Tensor)
    out, _ = _repack(ctx, y, conv_type, "NCHW", attrs.out_layout or attrs.data_layout)
    return out
