"""Converters of ONNX's neural-network operators: convolution, pooling, normalisation,
matrix products, dropout.

ONNX pads are ``[x1_begin, x2_begin, ..., x1_end, x2_end, ...]``, the order of Relay's
``padding`` attribute; ``auto_pad`` is resolved here from the static input shape.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ....semantics.syntax import Expr, Tuple, TupleGetItem
from .importer import NodeContext, static_dims
from .ops_math import dequantized, quantized, scalar_like
from .table import converter


def _pads(
    ctx: NodeContext,
    spatial: Sequence[int] | None,
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
) -> tuple[int, ...]:
    """The explicit pads: the ``pads`` attribute, or what ``auto_pad`` asks for."""
    n = len(kernel)
    auto = ctx.attr("auto_pad", "NOTSET")
    if auto in ("NOTSET", ""):
        pads = ctx.attr("pads")
        return tuple(int(p) for p in pads) if pads is not None else (0,) * (2 * n)
    if auto == "VALID":
        return (0,) * (2 * n)
    if auto not in ("SAME_UPPER", "SAME_LOWER"):
        raise ctx.fail(f'auto_pad="{auto}" is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER')
    if spatial is None:
        raise ctx.fail("auto_pad needs a static input shape")
    begins, ends = [], []
    for size, k, s, d in zip(spatial, kernel, strides, dilations, strict=True):
        out = -(-size // s)
        total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
        small, large = total // 2, total - total // 2
        begins.append(small if auto == "SAME_UPPER" else large)
        ends.append(large if auto == "SAME_UPPER" else small)
    return (*begins, *ends)


def _spatial(ctx: NodeContext) -> tuple[int, ...] | None:
    return static_dims(ctx.type(0).shape[2:])


_LAYOUTS = {1: ("NCW", "OIW"), 2: ("NCHW", "OIHW"), 3: ("NCDHW", "OIDHW")}


@converter("Conv")
def conv(ctx: NodeContext) -> Expr:
    """``nn.conv{1,2,3}d`` then ``nn.bias_add`` on axis 1 when there is a bias."""
    out = _conv(ctx, ctx.input(0), ctx.input(1))
    bias = ctx.optional(2)
    return out if bias is None else ctx.call("nn.bias_add", out, bias, axis=1)


@converter("ConvInteger", since=10)
def conv_integer(ctx: NodeContext) -> Expr:
    """The convolution of ``x - x_zero_point`` and ``w - w_zero_point`` (per output channel
    or per tensor) in int32."""
    x = ctx.call("cast", ctx.input(0), dtype="int32")
    w = ctx.call("cast", ctx.input(1), dtype="int32")
    x_zp, w_zp = ctx.optional(2), ctx.optional(3)
    if x_zp is not None:
        x = ctx.call("subtract", x, ctx.call("cast", x_zp, dtype="int32"))
    if w_zp is not None:
        zp = ctx.call("cast", w_zp, dtype="int32")
        if ctx.tensor_type(w_zp).shape:
            rank = ctx.rank(1)
            zp = ctx.call("reshape", zp, newshape=(-1,) + (1,) * (rank - 1))
        w = ctx.call("subtract", w, zp)
    return _conv(ctx, x, w)


@converter("QLinearConv", since=10)
def qlinear_conv(ctx: NodeContext) -> Expr:
    """``quantize(conv(dequantize(x), dequantize(w)) + bias * x_scale * w_scale)`` in the
    scales' dtype; ``w``'s scale and zero point per output channel or per tensor."""
    rank = ctx.rank(3)

    def per_channel(e: Expr) -> Expr:
        if ctx.tensor_type(e).shape and int(np.prod(ctx.static_shape(e))) > 1:
            return ctx.call("reshape", e, newshape=(-1,) + (1,) * (rank - 1))
        return ctx.call("reshape", e, newshape=())

    x = dequantized(ctx, ctx.input(0), ctx.input(1), ctx.input(2))
    w = dequantized(ctx, ctx.input(3), per_channel(ctx.input(4)), per_channel(ctx.input(5)))
    out = _conv(ctx, x, w)
    bias = ctx.optional(8)
    if bias is not None:
        scale = ctx.call("multiply", ctx.call("reshape", ctx.input(1), newshape=()),
                         ctx.call("reshape", ctx.input(4), newshape=(-1,)))  # fmt: skip
        real = ctx.call("multiply", ctx.call("cast", bias, dtype=ctx.dtype(1)), scale)
        out = ctx.call("nn.bias_add", out, real, axis=1)
    return quantized(ctx, out, ctx.input(6), ctx.input(7), ctx.dtype(7))


def _conv(ctx: NodeContext, x: Expr, w: Expr) -> Expr:
    """The convolution of ``x`` and ``w`` with the node's attributes."""
    wshape = ctx.static_shape(w)
    n = len(wshape) - 2
    if n not in _LAYOUTS:
        raise ctx.fail(f"{n}-d convolution is not supported (1-d, 2-d and 3-d are)")
    kernel = [int(k) for k in ctx.attr("kernel_shape", wshape[2:])]
    strides = [int(s) for s in ctx.attr("strides", [1] * n)]
    dilations = [int(d) for d in ctx.attr("dilations", [1] * n)]
    pads = _pads(ctx, _spatial(ctx), kernel, strides, dilations)
    data_layout, kernel_layout = _LAYOUTS[n]
    out = ctx.call(
        f"nn.conv{n}d",
        x,
        w,
        strides=tuple(strides),
        padding=pads,
        dilation=tuple(dilations),
        groups=int(ctx.attr("group", 1)),
        channels=int(wshape[0]),
        kernel_size=tuple(kernel),
        data_layout=data_layout,
        kernel_layout=kernel_layout,
    )
    return out


@converter("ConvTranspose")
def conv_transpose(ctx: NodeContext) -> Expr:
    """``nn.conv{1,2}d_transpose`` (weight layout IOW/IOHW, ONNX's), then the bias."""
    x, w = ctx.input(0), ctx.input(1)
    wshape = ctx.shape(1)
    n = len(wshape) - 2
    if n not in (1, 2):
        raise ctx.fail(f"{n}-d transposed convolution is not supported (1-d and 2-d are)")
    group = int(ctx.attr("group", 1))
    kernel = [int(k) for k in ctx.attr("kernel_shape", wshape[2:])]
    strides = [int(s) for s in ctx.attr("strides", [1] * n)]
    dilations = [int(d) for d in ctx.attr("dilations", [1] * n)]
    output_padding = [int(p) for p in ctx.attr("output_padding", [0] * n)]
    spatial = _spatial(ctx)
    output_shape = ctx.attr("output_shape")
    auto = ctx.attr("auto_pad", "NOTSET")
    if output_shape is not None or auto in ("SAME_UPPER", "SAME_LOWER"):
        if spatial is None:
            raise ctx.fail("output_shape and auto_pad need a static input shape")
        if output_shape is not None:
            target = [int(o) for o in output_shape][-n:]
        else:
            target = [size * s for size, s in zip(spatial, strides, strict=True)]
        begins, ends = [], []
        for i in range(n):
            full = (spatial[i] - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1
            total = full + output_padding[i] - target[i]
            if total < 0:
                output_padding[i] -= total
                total = 0
            small, large = total // 2, total - total // 2
            upper = auto != "SAME_LOWER"
            begins.append(small if upper else large)
            ends.append(large if upper else small)
        pads: tuple[int, ...] = (*begins, *ends)
    else:
        pads = _pads(ctx, spatial, kernel, strides, dilations)
    out = ctx.call(
        f"nn.conv{n}d_transpose",
        x,
        w,
        channels=int(wshape[1]) * group,
        kernel_size=tuple(kernel),
        strides=tuple(strides),
        output_padding=tuple(output_padding),
        padding=pads,
        dilation=tuple(dilations),
        groups=group,
        data_layout=_LAYOUTS[n][0],
        kernel_layout="IOW" if n == 1 else "IOHW",
    )
    bias = ctx.optional(2)
    return out if bias is None else ctx.call("nn.bias_add", out, bias, axis=1)


def _pool(ctx: NodeContext, kind: str) -> Expr:
    x = ctx.input(0)
    n = ctx.rank(0) - 2
    if n not in _LAYOUTS:
        raise ctx.fail(f"{n}-d pooling is not supported (1-d, 2-d and 3-d are)")
    kernel = [int(k) for k in ctx.attr("kernel_shape")]
    strides = [int(s) for s in ctx.attr("strides", [1] * n)]
    dilations = [int(d) for d in ctx.attr("dilations", [1] * n)]
    spatial = _spatial(ctx)
    pads = _pads(ctx, spatial, kernel, strides, dilations)
    ceil_mode = bool(ctx.attr("ceil_mode", 0))
    if ceil_mode and spatial is not None:
        ceil_mode = _onnx_ceil_mode(ctx, spatial, kernel, strides, dilations, pads)
    fields: dict[str, object] = {
        "pool_size": tuple(kernel),
        "strides": tuple(strides),
        "dilation": tuple(dilations),
        "padding": pads,
        "layout": _LAYOUTS[n][0],
        "ceil_mode": ceil_mode,
    }
    if kind == "avg":
        fields["count_include_pad"] = bool(ctx.attr("count_include_pad", 0))
    return ctx.call(f"nn.{kind}_pool{n}d", x, **fields)


def _onnx_ceil_mode(
    ctx: NodeContext,
    spatial: Sequence[int],
    kernel: Sequence[int],
    strides: Sequence[int],
    dilations: Sequence[int],
    pads: Sequence[int],
) -> bool:
    """The Relay ``ceil_mode`` that gives ONNX's ceil-mode output size. ONNX drops a last
    window that would start in the end padding; Relay (TVM) keeps it, so on such an axis the
    ONNX size is the floor-mode one."""
    n = len(spatial)
    modes = set()
    for i in range(n):
        span = spatial[i] + pads[i] + pads[i + n] - ((kernel[i] - 1) * dilations[i] + 1)
        ceil_out = -(-span // strides[i]) + 1
        floor_out = span // strides[i] + 1
        if ceil_out == floor_out:
            continue
        modes.add((ceil_out - 1) * strides[i] < spatial[i] + pads[i])
    if len(modes) > 1:
        raise ctx.fail("ceil_mode with a window dropped on some axes only is not supported")
    return modes.pop() if modes else True


@converter("MaxPool")
def max_pool(ctx: NodeContext) -> Expr | list[Expr]:
    """``nn.max_pool{1,2,3}d``; with output 1 (Indices), see ``_max_pool_indices``."""
    out = _pool(ctx, "max")
    if len(ctx.node.output) > 1 and ctx.node.output[1]:
        return [out, _max_pool_indices(ctx)]
    return out


def _max_pool_indices(ctx: NodeContext) -> Expr:
    """The flat input index of each window's first maximum (2-d, no dilation or ceil mode):
    the windows of the input padded with -inf (``sliding_window``), ``argmax`` over each,
    and the position computed back, row-major (``storage_order=0``) or column-major."""
    dims = ctx.shape(0)
    if len(dims) != 4:
        raise ctx.fail("output 1 (Indices) is supported for 2-d pooling only")
    n, c, h, w = dims
    kernel = [int(k) for k in ctx.attr("kernel_shape")]
    strides = [int(s) for s in ctx.attr("strides", [1, 1])]
    dilations = [int(d) for d in ctx.attr("dilations", [1, 1])]
    if dilations != [1, 1] or int(ctx.attr("ceil_mode", 0)):
        raise ctx.fail("output 1 (Indices) with dilation or ceil_mode is not supported")
    top, left, bottom, right = _pads(ctx, (h, w), kernel, strides, dilations)
    x = ctx.input(0)
    dtype = ctx.dtype(0)
    low = ctx.scalar(-np.inf if dtype.startswith("float") else np.iinfo(dtype).min, dtype)
    width = ((0, 0), (0, 0), (top, bottom), (left, right))
    padded = ctx.call("nn.pad", x, low, pad_width=width, pad_mode="constant")
    windows = ctx.call("sliding_window", padded, axis=2, window_shape=tuple(kernel),
                       strides=tuple(strides))  # fmt: skip
    _, _, oh, ow, _, _ = ctx.static_shape(windows)
    flat = ctx.call("reshape", windows, newshape=(n, c, oh, ow, kernel[0] * kernel[1]))
    r = ctx.call("cast", ctx.call("argmax", flat, axis=(4,), keepdims=False), dtype="int64")
    kw = ctx.scalar(kernel[1], "int64")
    row_in_window = ctx.call("floor_divide", r, kw)
    col_in_window = ctx.call("floor_mod", r, kw)

    def position(count: int, stride: int, pad: int, shape: tuple[int, ...]) -> Expr:
        return ctx.constant((np.arange(count, dtype=np.int64) * stride - pad).reshape(shape))

    row = ctx.call("add", position(oh, strides[0], top, (1, 1, oh, 1)), row_in_window)
    col = ctx.call("add", position(ow, strides[1], left, (1, 1, 1, ow)), col_in_window)
    plane = ctx.constant((np.arange(n * c, dtype=np.int64) * h * w).reshape(n, c, 1, 1))
    if int(ctx.attr("storage_order", 0)):
        inner = ctx.call("add", ctx.call("multiply", col, ctx.scalar(h, "int64")), row)
    else:
        inner = ctx.call("add", ctx.call("multiply", row, ctx.scalar(w, "int64")), col)
    return ctx.call("add", plane, inner)


@converter("AveragePool")
def average_pool(ctx: NodeContext) -> Expr:
    """``nn.avg_pool{1,2,3}d``."""
    return _pool(ctx, "avg")


@converter("GlobalAveragePool")
def global_average_pool(ctx: NodeContext) -> Expr:
    """``mean`` over the spatial axes, kept as size 1."""
    axes = tuple(range(2, ctx.rank(0)))
    return ctx.call("mean", ctx.input(0), axis=axes, keepdims=True)


@converter("GlobalMaxPool")
def global_max_pool(ctx: NodeContext) -> Expr:
    """``max`` over the spatial axes, kept as size 1."""
    axes = tuple(range(2, ctx.rank(0)))
    return ctx.call("max", ctx.input(0), axis=axes, keepdims=True)


@converter("BatchNormalization")
def batch_norm(ctx: NodeContext) -> Expr | list[Expr]:
    """Inference: field 0 of ``nn.batch_norm`` (the running statistics are used). Training
    (``training_mode=1``, opset 14 on): normalised by the batch's mean and (population)
    variance over every axis but 1, and outputs 1 and 2 are the running statistics moved by
    ``momentum``: ``running * momentum + batch * (1 - momentum)``."""
    training = int(ctx.attr("training_mode", 0)) == 1
    if ctx.opset < 7 and int(ctx.attr("is_test", 0)) == 0:
        raise ctx.fail("training mode (is_test=0) is not supported before opset 7")
    if not training:
        if sum(1 for o in ctx.node.output if o) > 1:
            raise ctx.fail("the statistics outputs are only defined in training mode")
        args = [ctx.input(i) for i in range(5)]
        out = ctx.call("nn.batch_norm", *args, axis=1, epsilon=float(ctx.attr("epsilon", 1e-5)))
        return TupleGetItem(out, 0)
    x = ctx.input(0)
    rank = ctx.rank(0)
    axes = (0, *range(2, rank))
    mean = ctx.call("mean", x, axis=axes, keepdims=False)
    var = ctx.call("variance", x, ctx.call("mean", x, axis=axes, keepdims=True), axis=axes,
                   keepdims=False)  # fmt: skip
    moved = ctx.call(
        "nn.batch_norm",
        x,
        ctx.input(1),
        ctx.input(2),
        mean,
        var,
        axis=1,
        epsilon=float(ctx.attr("epsilon", 1e-5)),
    )
    momentum = float(ctx.attr("momentum", 0.9))
    keep, take = scalar_like(ctx, momentum, x), scalar_like(ctx, 1 - momentum, x)

    def running(old: Expr, batch: Expr) -> Expr:
        return ctx.call("add", ctx.call("multiply", old, keep), ctx.call("multiply", batch, take))

    return [TupleGetItem(moved, 0), running(ctx.input(3), mean), running(ctx.input(4), var)]


@converter("InstanceNormalization")
def instance_norm(ctx: NodeContext) -> Expr:
    """``nn.instance_norm`` on axis 1."""
    return ctx.call("nn.instance_norm", ctx.input(0), ctx.input(1), ctx.input(2), axis=1,
                    epsilon=float(ctx.attr("epsilon", 1e-5)))  # fmt: skip


@converter("LRN")
def lrn(ctx: NodeContext) -> Expr:
    """``nn.lrn`` across channels (axis 1)."""
    return ctx.call(
        "nn.lrn",
        ctx.input(0),
        size=int(ctx.attr("size")),
        axis=1,
        bias=float(ctx.attr("bias", 1.0)),
        alpha=float(ctx.attr("alpha", 1e-4)),
        beta=float(ctx.attr("beta", 0.75)),
    )


def _normalize(
    ctx: NodeContext, x: Expr, axes: tuple[int, ...], epsilon: float
) -> tuple[Expr, Expr, Expr]:
    """``(x - mean) * inv_std`` over ``axes``, with the mean and ``1 / sqrt(var + eps)``."""
    mean = ctx.call("mean", x, axis=axes, keepdims=True)
    centred = ctx.call("subtract", x, mean)
    var = ctx.call("mean", ctx.call("multiply", centred, centred), axis=axes, keepdims=True)
    inv_std = ctx.call("rsqrt", ctx.call("add", var, scalar_like(ctx, epsilon, x)))
    return ctx.call("multiply", centred, inv_std), mean, inv_std


@converter("LayerNormalization", since=17)
def layer_norm(ctx: NodeContext) -> list[Expr]:
    """``(x - mean) / sqrt(var + eps) * scale + bias`` over the axes from ``axis`` on; outputs
    1 and 2 are the mean and the inverse standard deviation."""
    x = ctx.input(0)
    rank = ctx.rank(0)
    axis = int(ctx.attr("axis", -1)) % rank
    y, mean, inv_std = _normalize(
        ctx, x, tuple(range(axis, rank)), float(ctx.attr("epsilon", 1e-5))
    )
    y = ctx.call("multiply", y, ctx.input(1))
    bias = ctx.optional(2)
    if bias is not None:
        y = ctx.call("add", y, bias)
    return [y, mean, inv_std]


@converter("RMSNormalization", since=23)
def rms_norm(ctx: NodeContext) -> Expr:
    """``x / sqrt(mean(x^2) + eps) * scale`` over the axes from ``axis`` on."""
    x = ctx.input(0)
    rank = ctx.rank(0)
    axis = int(ctx.attr("axis", -1)) % rank
    axes = tuple(range(axis, rank))
    square = ctx.call("mean", ctx.call("multiply", x, x), axis=axes, keepdims=True)
    eps = scalar_like(ctx, float(ctx.attr("epsilon", 1e-5)), x)
    y = ctx.call("multiply", x, ctx.call("rsqrt", ctx.call("add", square, eps)))
    return ctx.call("multiply", y, ctx.input(1))


@converter("GroupNormalization", since=18)
def group_norm(ctx: NodeContext) -> Expr:
    """Normalise each group of channels, then scale and shift per channel (opset 21) or per
    group (opset 18)."""
    x = ctx.input(0)
    shape = ctx.shape(0)
    groups = int(ctx.attr("num_groups"))
    grouped = ctx.call("reshape", x, newshape=(shape[0], groups, -1))
    y, _, _ = _normalize(ctx, grouped, (2,), float(ctx.attr("epsilon", 1e-5)))
    scale, bias = ctx.input(1), ctx.input(2)
    if ctx.opset < 21:
        scale = ctx.call("reshape", scale, newshape=(groups, 1))
        bias = ctx.call("reshape", bias, newshape=(groups, 1))
        y = ctx.call("add", ctx.call("multiply", y, scale), bias)
        return ctx.call("reshape", y, newshape=shape)
    y = ctx.call("reshape", y, newshape=shape)
    per_channel = (shape[1],) + (1,) * (len(shape) - 2)
    scale = ctx.call("reshape", scale, newshape=per_channel)
    bias = ctx.call("reshape", bias, newshape=per_channel)
    return ctx.call("add", ctx.call("multiply", y, scale), bias)


@converter("MeanVarianceNormalization")
def mean_variance_norm(ctx: NodeContext) -> Expr:
    """``(x - mean) / sqrt(var)`` over ``axes`` (default 0, 2, 3), as ONNX's function body
    (no epsilon)."""
    axes = tuple(int(a) for a in ctx.attr("axes", [0, 2, 3]))
    x = ctx.input(0)
    mean = ctx.call("mean", x, axis=axes, keepdims=True)
    centred = ctx.call("subtract", x, mean)
    var = ctx.call("mean", ctx.call("multiply", centred, centred), axis=axes, keepdims=True)
    return ctx.call("divide", centred, ctx.call("sqrt", var))


@converter("LpNormalization")
def lp_normalization(ctx: NodeContext) -> Expr:
    """``x / norm_p(x)`` along ``axis`` (p is 1 or 2); 0 where the norm is 0 (as ONNX's own
    cases define it)."""
    x = ctx.input(0)
    axis = int(ctx.attr("axis", -1)) % ctx.rank(0)
    p = int(ctx.attr("p", 2))
    if p == 1:
        norm = ctx.call("sum", ctx.call("abs", x), axis=(axis,), keepdims=True)
    elif p == 2:
        norm = ctx.call("sqrt", ctx.call("sum", ctx.call("multiply", x, x), axis=(axis,),
                                          keepdims=True))  # fmt: skip
    else:
        raise ctx.fail(f"p={p} is not supported (1 or 2)")
    zero = scalar_like(ctx, 0, x)
    return ctx.call("where", ctx.call("equal", norm, zero), zero, ctx.call("divide", x, norm))


@converter("Dropout")
def dropout(ctx: NodeContext) -> list[Expr]:
    """Inference: the input, and an all-true mask."""
    if ctx.opset >= 12:
        training = ctx.const(2)
        if ctx.optional(2) is not None and (training is None or bool(training)):
            raise ctx.fail("training mode is not supported")
    elif int(ctx.attr("is_test", 1)) == 0 and ctx.opset < 7:
        raise ctx.fail("training mode is not supported")
    x = ctx.input(0)
    outputs: list[Expr] = [x]
    if len(ctx.node.output) > 1 and ctx.node.output[1]:
        outputs.append(ctx.call("ones", shape=ctx.shape(0), dtype="bool"))
    return outputs


def matmul_exprs(ctx: NodeContext, a: Expr, b: Expr) -> Expr:
    """numpy's ``matmul``: 1-d operands promoted and the added axis dropped, batch
    dimensions broadcast, then ``nn.batch_matmul`` on the flattened batch."""
    ashape, bshape = ctx.static_shape(a), ctx.static_shape(b)
    if len(ashape) == 1:
        a, ashape = ctx.call("reshape", a, newshape=(1, ashape[0])), (1, ashape[0])
        drop_rows = True
    else:
        drop_rows = False
    if len(bshape) == 1:
        b, bshape = ctx.call("reshape", b, newshape=(bshape[0], 1)), (bshape[0], 1)
        drop_cols = True
    else:
        drop_cols = False
    if len(ashape) == 2 and len(bshape) == 2:
        out = ctx.call("nn.matmul", a, b, units=None)
        batch: tuple[int, ...] = ()
    else:
        batch = tuple(np.broadcast_shapes(ashape[:-2], bshape[:-2]))
        m, k = ashape[-2:]
        n = bshape[-1]
        flat = int(np.prod(batch, dtype=np.int64))
        a3 = ctx.call("reshape", ctx.call("broadcast_to", a, shape=(*batch, m, k)),
                      newshape=(flat, m, k))  # fmt: skip
        b3 = ctx.call("reshape", ctx.call("broadcast_to", b, shape=(*batch, k, n)),
                      newshape=(flat, k, n))  # fmt: skip
        out = ctx.call("nn.batch_matmul", a3, b3, transpose_a=False, transpose_b=False)
        out = ctx.call("reshape", out, newshape=(*batch, m, n))
    final = list(batch) + ([] if drop_rows else [ashape[-2]]) + ([] if drop_cols else [bshape[-1]])
    if drop_rows or drop_cols:
        out = ctx.call("reshape", out, newshape=tuple(final))
    return out


@converter("MatMul")
def matmul(ctx: NodeContext) -> Expr:
    """numpy ``matmul`` semantics (see ``matmul_exprs``)."""
    return matmul_exprs(ctx, ctx.input(0), ctx.input(1))


@converter("Gemm")
def gemm(ctx: NodeContext) -> Expr:
    """``alpha * A' B' + beta * C`` with ``nn.dense`` (which multiplies by B's transpose)."""
    a, b = ctx.input(0), ctx.input(1)
    if int(ctx.attr("transA", 0)):
        a = ctx.call("transpose", a, axes=(1, 0))
    if not int(ctx.attr("transB", 0)):
        b = ctx.call("transpose", b, axes=(1, 0))
    out = ctx.call("nn.dense", a, b, units=None)
    alpha, beta = float(ctx.attr("alpha", 1.0)), float(ctx.attr("beta", 1.0))
    if alpha != 1.0:
        out = ctx.call("multiply", out, scalar_like(ctx, alpha, out))
    c = ctx.optional(2)
    if c is not None and beta != 0.0:
        if beta != 1.0:
            c = ctx.call("multiply", c, scalar_like(ctx, beta, c))
        out = ctx.call("add", out, c)
    return out


def _nll(
    ctx: NodeContext, log_prob: Expr, target: Expr, weight: Expr | None, reduction: str
) -> Expr:
    """``-log_prob[n, target[n, d], d] * weight[target[n, d]]``, zero where the target is
    ``ignore_index``; ``mean`` divides the sum by the sum of the weights used."""
    ttype = ctx.tensor_type(target)
    ignore = ctx.attr("ignore_index")
    if ignore is not None:
        keep = ctx.call("not_equal", target, ctx.scalar(int(ignore), ttype.dtype))
        target = ctx.call("where", keep, target, ctx.scalar(0, ttype.dtype))
    picked = ctx.call("gather", log_prob, ctx.call("expand_dims", target, axis=1), axis=1)
    picked = ctx.call("squeeze", picked, axis=(1,))
    dtype = ctx.tensor_type(log_prob).dtype
    if weight is None:
        w = ctx.call("ones_like", picked)
    else:
        w = ctx.call("take", weight, target, axis=0, mode="clip")
    if ignore is not None:
        w = ctx.call("where", keep, w, ctx.scalar(0, dtype))
    loss = ctx.call("negative", ctx.call("multiply", picked, w))
    match reduction:
        case "none":
            return loss
        case "sum":
            return ctx.call("sum", loss, axis=None, keepdims=False)
        case "mean":
            total = ctx.call("sum", loss, axis=None, keepdims=False)
            return ctx.call("divide", total, ctx.call("sum", w, axis=None, keepdims=False))
        case _:
            raise ctx.fail(f'reduction="{reduction}" is not one of none, sum, mean')


@converter("NegativeLogLikelihoodLoss", since=12)
def nll_loss(ctx: NodeContext) -> Expr:
    """The loss of ``_nll`` on the given log-probabilities (axis 1 holds the classes)."""
    reduction = str(ctx.attr("reduction", "mean"))
    return _nll(ctx, ctx.input(0), ctx.input(1), ctx.optional(2), reduction)


@converter("SoftmaxCrossEntropyLoss", since=12)
def softmax_cross_entropy_loss(ctx: NodeContext) -> list[Expr]:
    """``_nll`` of ``nn.log_softmax`` over axis 1; output 1 is the log-probabilities."""
    log_prob = ctx.call("nn.log_softmax", ctx.input(0), axis=1)
    reduction = str(ctx.attr("reduction", "mean"))
    return [_nll(ctx, log_prob, ctx.input(1), ctx.optional(2), reduction), log_prob]


@converter("LpPool")
def lp_pool(ctx: NodeContext) -> Expr:
    """``(sum over the window of |x|^p)^(1/p)``: an average pool counting the padding,
    times the window size."""
    x = ctx.input(0)
    n = ctx.rank(0) - 2
    if n not in _LAYOUTS:
        raise ctx.fail(f"{n}-d pooling is not supported (1-d, 2-d and 3-d are)")
    p = float(ctx.attr("p", 2))
    kernel = [int(k) for k in ctx.attr("kernel_shape")]
    strides = [int(s) for s in ctx.attr("strides", [1] * n)]
    dilations = [int(d) for d in ctx.attr("dilations", [1] * n)]
    pads = _pads(ctx, _spatial(ctx), kernel, strides, dilations)
    powered = ctx.call("power", ctx.call("abs", x), scalar_like(ctx, p, x))
    mean = ctx.call(
        f"nn.avg_pool{n}d",
        powered,
        pool_size=tuple(kernel),
        strides=tuple(strides),
        dilation=tuple(dilations),
        padding=pads,
        layout=_LAYOUTS[n][0],
        ceil_mode=bool(ctx.attr("ceil_mode", 0)),
        count_include_pad=True,
    )
    total = ctx.call("multiply", mean, scalar_like(ctx, float(np.prod(kernel)), x))
    return ctx.call("power", total, scalar_like(ctx, 1.0 / p, x))


_RESIZE_METHODS = {"nearest": "nearest_neighbor", "linear": "linear", "cubic": "cubic"}
_NEAREST_MODES = {
    "round_prefer_floor": "round_prefer_floor",
    "round_prefer_ceil": "round_prefer_ceil",
    "floor": "floor",
    "ceil": "ceil",
}


def _resize(
    ctx: NodeContext,
    scales: Sequence[float] | None,
    sizes: Sequence[int] | None,
    roi: Sequence[float] | None,
    coordinate_mode: str,
) -> Expr:
    """``image.resize2d`` on NCHW data whose N and C are not resized."""
    dims = ctx.shape(0)
    if len(dims) != 4:
        raise ctx.fail(f"resizing rank-{len(dims)} data is not supported (rank 4, NCHW)")
    if ctx.attr("antialias", 0):
        raise ctx.fail("antialias=1 is not supported: image.resize2d does not antialias")
    if sizes is not None:
        out = [int(s) for s in sizes]
    elif scales is not None:
        out = [int(np.floor(d * s)) for d, s in zip(dims, scales, strict=True)]
    else:
        raise ctx.fail("needs scales or sizes")
    if out[:2] != list(dims[:2]):
        raise ctx.fail("resizing the batch or channel axis is not supported")
    mode = str(ctx.attr("mode", "nearest"))
    method = _RESIZE_METHODS.get(mode)
    if method is None:
        raise ctx.fail(f'mode="{mode}" is not supported')
    nearest = str(ctx.attr("nearest_mode", "round_prefer_floor"))
    rounding = _NEAREST_MODES.get(nearest, "") if method == "nearest_neighbor" else ""
    region = (0.0, 0.0, 0.0, 0.0)
    if roi is not None and len(roi) == 8:
        region = (float(roi[2]), float(roi[3]), float(roi[6]), float(roi[7]))
    return ctx.call(
        "image.resize2d",
        ctx.input(0),
        size=tuple(out[2:]),
        roi=region,
        layout="NCHW",
        method=method,
        coordinate_transformation_mode=coordinate_mode,
        rounding_method=rounding,
        cubic_alpha=float(ctx.attr("cubic_coeff_a", -0.75)),
        cubic_exclude=int(ctx.attr("exclude_outside", 0)),
        extrapolation_value=float(ctx.attr("extrapolation_value", 0.0)),
    )


@converter("Resize", since=10)
def resize_10(ctx: NodeContext) -> Expr:
    """Opset 10: ``scales`` is input 1; coordinates are asymmetric."""
    scales = [float(s) for s in ctx.require_const(1, "scales").reshape(-1)]
    return _resize(ctx, scales, None, None, "asymmetric")


@converter("Resize", since=11)
def resize(ctx: NodeContext) -> Expr:
    """``image.resize2d``; ``roi`` (tf_crop_and_resize), ``scales`` or ``sizes`` constant."""
    mode = str(ctx.attr("coordinate_transformation_mode", "half_pixel"))
    if mode == "tf_crop_and_resize" and ctx.optional(1) is not None:
        ctx.require_const(1, "roi")
    roi_value = ctx.const(1)
    scales_value = ctx.const(2)
    sizes_value = ctx.const(3)
    if ctx.optional(2) is not None and scales_value is None:
        ctx.require_const(2, "scales")
    if ctx.optional(3) is not None and sizes_value is None:
        ctx.require_const(3, "sizes")
    scales = None
    if scales_value is not None and scales_value.size:
        scales = [float(s) for s in scales_value.reshape(-1)]
    sizes = None if sizes_value is None or not sizes_value.size else list(sizes_value.reshape(-1))
    roi = None if roi_value is None or not roi_value.size else list(roi_value.reshape(-1))
    if mode == "half_pixel_symmetric":
        raise ctx.fail('coordinate_transformation_mode="half_pixel_symmetric" is not supported')
    dims = ctx.shape(0)
    axes = list(range(len(dims)))
    if ctx.attr("axes") is not None:  # scales/sizes/roi name only these axes
        axes = [int(a) % len(dims) for a in ctx.attr("axes")]
        if scales is not None:
            full_scales = [1.0] * len(dims)
            for a, v in zip(axes, scales, strict=True):
                full_scales[a] = v
            scales = full_scales
        if sizes:
            full_sizes = list(dims)
            for a, v in zip(axes, sizes, strict=True):
                full_sizes[a] = int(v)
            sizes = full_sizes
        if roi is not None:
            full_roi = [0.0] * len(dims) + [1.0] * len(dims)
            for i, a in enumerate(axes):
                full_roi[a], full_roi[a + len(dims)] = roi[i], roi[i + len(axes)]
            roi = full_roi
    policy = str(ctx.attr("keep_aspect_ratio_policy", "stretch"))
    if policy != "stretch" and sizes:
        ratios = [int(sizes[a]) / dims[a] for a in axes]
        scale = min(ratios) if policy == "not_larger" else max(ratios)
        sizes = [int(scale * dims[i] + 0.5) if i in axes else dims[i] for i in range(len(dims))]
    return _resize(ctx, scales, [int(s) for s in sizes] if sizes else None, roi, mode)


@converter("Upsample", since=7)
def upsample(ctx: NodeContext) -> Expr:
    """``image.resize2d`` with asymmetric coordinates (nearest rounds down)."""
    if ctx.opset >= 9:
        scales = [float(s) for s in ctx.require_const(1, "scales").reshape(-1)]
    else:
        scales = [float(s) for s in ctx.attr("scales")]
    ctx.attrs.setdefault("nearest_mode", "floor")
    return _resize(ctx, scales, None, None, "asymmetric")


@converter("CausalConvWithState", since=27)
def causal_conv_with_state(ctx: NodeContext) -> list[Expr]:
    """Depthwise causal ``nn.conv1d`` over ``concat(past_state or zeros, input)`` on the
    length axis (groups = channels, no padding), plus the bias, then SiLU if ``activation``
    asks; ``present_state`` is the last ``k - 1`` positions of that concatenation."""
    x, w = ctx.input(0), ctx.input(1)
    batch, channels, length = ctx.shape(0)
    k = ctx.shape(1)[2]
    past = ctx.optional(3)
    if past is None:
        past = ctx.call("zeros", shape=(batch, channels, k - 1), dtype=ctx.dtype(0))
    padded = ctx.call("concatenate", Tuple((past, x)), axis=2)
    out = ctx.call("nn.conv1d", padded, w, strides=(1,), padding=(0, 0), dilation=(1,),
                   groups=channels, channels=channels, kernel_size=(k,))  # fmt: skip
    bias = ctx.optional(2)
    if bias is not None:
        out = ctx.call("nn.bias_add", out, bias, axis=1)
    activation = str(ctx.attr("activation", "none"))
    if activation in ("silu", "swish"):
        out = ctx.call("multiply", out, ctx.call("sigmoid", out))
    elif activation != "none":
        raise ctx.fail(f'activation="{activation}" is not one of none, silu, swish')
    total = length + k - 1
    state = ctx.call("strided_slice", padded, begin=(0, 0, total - (k - 1)),
                     end=(batch, channels, total), strides=(1, 1, 1), axes=None)  # fmt: skip
    return [out, state]


@converter("QLinearMatMul", since=10)
def qlinear_matmul(ctx: NodeContext) -> Expr:
    """``quantize(dequantize(a) @ dequantize(b))`` with the output's scale and zero point,
    in float32 (the scales' dtype); exact for the int32 accumulations float32 holds."""
    a = dequantized(ctx, ctx.input(0), ctx.input(1), ctx.input(2))
    b = dequantized(ctx, ctx.input(3), ctx.input(4), ctx.input(5))
    for i in (1, 4, 6):
        if ctx.type(i).shape and int(np.prod(ctx.shape(i))) != 1:
            raise ctx.fail("per-axis scales are not supported")
    product = matmul_exprs(ctx, a, b)
    y_scale, y_zp = ctx.input(6), ctx.input(7)
    if ctx.dtype(6) != ctx.tensor_type(product).dtype:
        product = ctx.call("cast", product, dtype=ctx.dtype(6))
    return quantized(ctx, product, y_scale, y_zp, ctx.dtype(7))


def _integer_operands(ctx: NodeContext) -> tuple[Expr, Expr]:
    """``a - a_zero_point`` and ``b - b_zero_point`` as int32."""
    out = []
    for data, zp_index in ((0, 2), (1, 3)):
        x = ctx.call("cast", ctx.input(data), dtype="int32")
        zp = ctx.optional(zp_index)
        if zp is not None:
            zp32 = ctx.call("cast", zp, dtype="int32")
            if data == 0 and ctx.tensor_type(zp).shape:  # per-row zero point of a
                zp32 = ctx.call("expand_dims", zp32, axis=1)
            x = ctx.call("subtract", x, zp32)
        out.append(x)
    return out[0], out[1]


@converter("MatMulInteger", since=10)
def matmul_integer(ctx: NodeContext) -> Expr:
    """``(a - a_zero_point) @ (b - b_zero_point)`` in int32."""
    a, b = _integer_operands(ctx)
    return matmul_exprs(ctx, a, b)
