"""The converters of ONNX's transformer operators, composed from Relay's matrix products,
softmax, masks and slices: ``Attention`` (opset 23, scaled dot-product attention),
``RotaryEmbedding`` (opset 23) and ``LinearAttention`` (opset 27, unrolled over the sequence).

Following ONNX's definition, with ``s = sqrt(scale)`` (default ``scale = 1 / sqrt(head
size)``)::

    K' = concat(past_key, K)  V' = concat(past_value, V)     (present_key, present_value)
    bias = mask (bool: 0 where true, -inf where false; padded with -inf to K' length)
           + causal (-inf where key j > query i + past length) + sliding window
    qk = (Q * s) @ (K' * s)^T, then softcap * tanh(qk / softcap) when softcap > 0
    P = softmax(qk + bias), 0 on rows whose bias is -inf everywhere
    Y = P @ V'

with 3-d inputs split into ``q_num_heads`` / ``kv_num_heads`` heads, and key/value heads
repeated for grouped-query attention. The causal and window terms depend only on the static
sequence lengths and are built as constants, except with ``nonpad_kv_seqlen`` (input 6, a
per-batch key length: later keys are masked, and the causal frontier moves with it).
"""

from __future__ import annotations

import numpy as np

from ....semantics.syntax import Expr, Tuple
from .importer import NodeContext, relay_dtype
from .ops_math import scalar_like
from .ops_nn import matmul_exprs
from .table import converter


def _heads(ctx: NodeContext, x: Expr, heads: int) -> Expr:
    """(batch, seq, heads * size) to (batch, heads, seq, size)."""
    b, seq, hidden = ctx.static_shape(x)
    split = ctx.call("reshape", x, newshape=(b, seq, heads, hidden // heads))
    return ctx.call("transpose", split, axes=(0, 2, 1, 3))


def _structural_bias(
    q_len: int, kv_len: int, offset: int, causal: bool, left: int, right: int
) -> np.ndarray | None:
    """The causal and sliding-window mask as a (q, kv) bool array of allowed positions."""
    if not causal and left < 0 and right < 0:
        return None
    i = np.arange(q_len).reshape(q_len, 1)
    j = np.arange(kv_len).reshape(1, kv_len)
    allowed = np.ones((q_len, kv_len), dtype=bool)
    if causal:
        allowed &= j <= i + offset
    diff = i + offset - j
    if left >= 0:
        allowed &= diff <= left
    if right >= 0:
        allowed &= -diff <= right
    return allowed


@converter("Attention", since=23)
def attention(ctx: NodeContext) -> list[Expr]:
    """Scaled dot-product attention (module docstring)."""
    nonpad = ctx.optional(6)
    if nonpad is not None and ctx.optional(4) is not None:
        raise ctx.fail("nonpad_kv_seqlen with past_key is not allowed")
    q, k, v = ctx.input(0), ctx.input(1), ctx.input(2)
    dtype = ctx.dtype(0)
    three_d = ctx.rank(0) == 3
    if three_d:
        q_heads = int(ctx.attr("q_num_heads"))
        kv_heads = int(ctx.attr("kv_num_heads"))
        q, k, v = _heads(ctx, q, q_heads), _heads(ctx, k, kv_heads), _heads(ctx, v, kv_heads)
    q_shape = ctx.static_shape(q)
    past_key, past_value = ctx.optional(4), ctx.optional(5)
    past_len = 0
    if past_key is not None and past_value is not None:
        past_len = ctx.static_shape(past_key)[2]
        k = ctx.call("concatenate", _tuple(past_key, k), axis=2)
        v = ctx.call("concatenate", _tuple(past_value, v), axis=2)
    present_key, present_value = k, v
    k_shape = ctx.static_shape(k)
    q_len, kv_len = q_shape[2], k_shape[2]
    scale = ctx.attr("scale")
    scale_value = 1 / np.sqrt(q_shape[3]) if scale is None else float(scale)
    root = ctx.scalar(np.sqrt(scale_value), dtype)

    bias: Expr | None = None
    mask = ctx.optional(3)
    neg_inf = ctx.scalar(-np.inf, dtype)
    if mask is not None:
        if ctx.tensor_type(mask).dtype == "bool":
            mask = ctx.call("where", mask, ctx.scalar(0, dtype), neg_inf)
        mask_shape = ctx.static_shape(mask)
        pad = kv_len - mask_shape[-1]
        if pad > 0:
            width = (*((0, 0) for _ in mask_shape[:-1]), (0, pad))
            mask = ctx.call("nn.pad", mask, neg_inf, pad_width=width, pad_mode="constant")
        bias = mask
    causal = bool(ctx.attr("is_causal", 0))
    left = int(ctx.attr("left_window_size", -1))
    right = int(ctx.attr("right_window_size", -1))
    if nonpad is None:
        allowed = _structural_bias(q_len, kv_len, past_len, causal, left, right)
        if allowed is not None:
            structural = ctx.constant(np.where(allowed, 0, -np.inf).astype(dtype))
            bias = structural if bias is None else ctx.call("add", bias, structural)
    else:
        bias = _external_cache_bias(ctx, nonpad, bias, q_len, kv_len, causal, left, right)

    heads_q, heads_k = q_shape[1], k_shape[1]
    if heads_q != heads_k and heads_q % heads_k == 0:
        reps = heads_q // heads_k
        k = ctx.call("repeat", k, repeats=reps, axis=1)
        v = ctx.call("repeat", v, repeats=reps, axis=1)
    k_t = ctx.call("transpose", k, axes=(0, 1, 3, 2))
    qk = matmul_exprs(ctx, ctx.call("multiply", q, root), ctx.call("multiply", k_t, root))
    softcap = float(ctx.attr("softcap", 0.0))
    if softcap > 0:
        cap = scalar_like(ctx, softcap, qk)
        qk = ctx.call("multiply", ctx.call("tanh", ctx.call("divide", qk, cap)), cap)
    with_bias = qk if bias is None else ctx.call("add", qk, bias)
    mode = int(ctx.attr("qk_matmul_output_mode", 0))
    qk_output = with_bias if mode == 2 else qk
    logits = with_bias
    precision = ctx.attr("softmax_precision")
    if precision is not None:
        logits = ctx.call("cast", logits, dtype=relay_dtype(int(precision), "softmax_precision"))
    probabilities = ctx.call("nn.softmax", logits, axis=-1)
    if bias is not None:
        # all(bias == -inf), not max(bias) == -inf: Relay's max starts from the lowest
        # finite value (TVM's init), so it never returns -inf.
        is_neg_inf = ctx.call("equal", bias, neg_inf)
        masked = ctx.call("all", is_neg_inf, axis=(-1,), keepdims=True)
        zero = scalar_like(ctx, 0, probabilities)
        probabilities = ctx.call("where", masked, zero, probabilities)
    if precision is not None:
        probabilities = ctx.call("cast", probabilities, dtype=dtype)
    if mode == 3:
        qk_output = probabilities
    y = matmul_exprs(ctx, probabilities, v)
    if three_d:
        b, heads, seq, size = ctx.static_shape(y)
        y = ctx.call("reshape", ctx.call("transpose", y, axes=(0, 2, 1, 3)),
                     newshape=(b, seq, heads * size))  # fmt: skip
    return [y, present_key, present_value, qk_output]


def _external_cache_bias(
    ctx: NodeContext,
    nonpad: Expr,
    bias: Expr | None,
    q_len: int,
    kv_len: int,
    causal: bool,
    left: int,
    right: int,
) -> Expr:
    """The bias with a per-batch key length ``nonpad`` (batch,): keys at or past it are
    masked, and the causal and window frontiers sit at ``offset = nonpad - q_len``."""
    dtype = ctx.dtype(0)
    n = ctx.call("cast", nonpad, dtype="int64")
    batch = ctx.static_shape(nonpad)[0]
    i = ctx.constant(np.arange(q_len, dtype=np.int64).reshape(1, q_len, 1))
    j = ctx.constant(np.arange(kv_len, dtype=np.int64).reshape(1, 1, kv_len))
    per_batch = ctx.call("reshape", n, newshape=(batch, 1, 1))
    allowed = ctx.call("less", j, per_batch)  # padding: (batch, 1, kv)
    offset = ctx.call("subtract", per_batch, ctx.scalar(q_len, "int64"))
    diff = ctx.call("subtract", ctx.call("add", i, offset), j)  # (batch, q, kv)
    zero = ctx.scalar(0, "int64")
    if causal:
        allowed = ctx.call("logical_and", allowed, ctx.call("greater_equal", diff, zero))
    if left >= 0:
        bound = ctx.call("less_equal", diff, ctx.scalar(left, "int64"))
        allowed = ctx.call("logical_and", allowed, bound)
    if right >= 0:
        bound = ctx.call("less_equal", ctx.call("negative", diff), ctx.scalar(right, "int64"))
        allowed = ctx.call("logical_and", allowed, bound)
    allowed = ctx.call("broadcast_to", allowed, shape=(batch, q_len, kv_len))
    allowed = ctx.call("reshape", allowed, newshape=(batch, 1, q_len, kv_len))
    term = ctx.call("where", allowed, ctx.scalar(0, dtype), ctx.scalar(-np.inf, dtype))
    return term if bias is None else ctx.call("add", bias, term)


def _tuple(*fields: Expr) -> Expr:
    return Tuple(tuple(fields))


def _slice_last(ctx: NodeContext, x: Expr, start: int, stop: int, step: int = 1) -> Expr:
    shape = ctx.static_shape(x)
    rank = len(shape)
    begin = [0] * rank
    end = list(shape)
    strides = [1] * rank
    begin[-1], end[-1], strides[-1] = start, stop, step
    return ctx.call("strided_slice", x, begin=tuple(begin), end=tuple(end),
                    strides=tuple(strides), axes=None)  # fmt: skip


@converter("RotaryEmbedding", since=23)
def rotary_embedding(ctx: NodeContext) -> Expr:
    """Rotary positional embedding, as ONNX's definition: on (batch, seq, heads, head) data,
    ``x1, x2`` (the halves of the rotated part, or its even and odd elements when
    ``interleaved``) become ``cos * x1 - sin * x2`` and ``sin * x1 + cos * x2``, with the
    caches indexed by ``position_ids`` when given."""
    x = ctx.input(0)
    shape = ctx.shape(0)
    if len(shape) == 4:
        x = ctx.call("transpose", x, axes=(0, 2, 1, 3))
    else:
        heads = int(ctx.attr("num_heads", 0))
        if heads == 0:
            raise ctx.fail("3-d input needs num_heads")
        b, s, hidden = shape
        x = ctx.call("reshape", x, newshape=(b, s, heads, hidden // heads))
    head = ctx.static_shape(x)[3]
    dim = int(ctx.attr("rotary_embedding_dim", 0)) or head
    half = dim // 2
    cos, sin = ctx.input(1), ctx.input(2)
    positions = ctx.optional(3)
    if positions is not None:
        cos = ctx.call("take", cos, positions, axis=0, mode="clip")
        sin = ctx.call("take", sin, positions, axis=0, mode="clip")
    cos = ctx.call("expand_dims", cos, axis=2)
    sin = ctx.call("expand_dims", sin, axis=2)
    rotate = _slice_last(ctx, x, 0, dim)
    interleaved = bool(ctx.attr("interleaved", 0))
    if interleaved:
        x1, x2 = _slice_last(ctx, rotate, 0, dim, 2), _slice_last(ctx, rotate, 1, dim, 2)
    else:
        x1, x2 = _slice_last(ctx, rotate, 0, half), _slice_last(ctx, rotate, half, dim)
    real = ctx.call("subtract", ctx.call("multiply", cos, x1), ctx.call("multiply", sin, x2))
    imag = ctx.call("add", ctx.call("multiply", sin, x1), ctx.call("multiply", cos, x2))
    if interleaved:
        pairs = ctx.call("stack", _tuple(real, imag), axis=-1)
        rotated = ctx.call("reshape", pairs, newshape=ctx.static_shape(rotate))
    else:
        rotated = ctx.call("concatenate", _tuple(real, imag), axis=-1)
    out = rotated
    if dim < head:
        out = ctx.call("concatenate", _tuple(rotated, _slice_last(ctx, x, dim, head)), axis=-1)
    if len(shape) == 3:
        return ctx.call("reshape", out, newshape=shape)
    return ctx.call("transpose", out, axes=(0, 2, 1, 3))


@converter("LinearAttention", since=27)
def linear_attention(ctx: NodeContext) -> list[Expr]:
    """Linear attention with a (batch, kv heads, d_k, d_v) state, unrolled over the static
    sequence in float32, as ONNX defines it: per step, ``S *= exp(decay)`` (gated rules),
    ``v = beta * (v - S^T k)`` (delta rules), ``S += k v^T``, and the output is
    ``scale * q^T S`` (the state's heads repeated for grouped queries)."""
    rule = str(ctx.attr("update_rule", "gated_delta"))
    if rule not in ("linear", "gated", "delta", "gated_delta"):
        raise ctx.fail(f'update_rule="{rule}" is not supported')
    gating, delta = rule in ("gated", "gated_delta"), rule in ("delta", "gated_delta")
    q_heads, kv_heads = int(ctx.attr("q_num_heads")), int(ctx.attr("kv_num_heads"))
    f32 = "float32"

    def heads(e: Expr, n: int) -> Expr:
        return ctx.call("cast", _heads(ctx, e, n), dtype=f32)

    b, t, _ = ctx.shape(0)
    q, k, v = (
        heads(ctx.input(0), q_heads),
        heads(ctx.input(1), kv_heads),
        heads(ctx.input(2), kv_heads),
    )
    d_k, d_v = ctx.static_shape(q)[3], ctx.static_shape(v)[3]
    decay = beta = None
    if gating:
        g = ctx.input(4)
        last = ctx.shape(4)[-1]
        if last == kv_heads:
            g = ctx.call("transpose", ctx.call("reshape", g, newshape=(b, t, kv_heads, 1)),
                         axes=(0, 2, 1, 3))  # fmt: skip
        else:
            g = _heads(ctx, g, kv_heads)
        decay = ctx.call("cast", g, dtype=f32)
    if delta:
        bt = ctx.input(5)
        last = ctx.shape(5)[-1]
        bt = ctx.call("transpose", ctx.call("reshape", bt, newshape=(b, t, last, 1)),
                      axes=(0, 2, 1, 3))  # fmt: skip
        beta = ctx.call("cast", bt, dtype=f32)
    past = ctx.optional(3)
    state_dtype = ctx.dtype(0) if past is None else ctx.dtype(3)
    if past is None:
        state: Expr = ctx.call("zeros", shape=(b, kv_heads, d_k, d_v), dtype=f32)
    else:
        state = ctx.call("cast", past, dtype=f32)
    scale = float(ctx.attr("scale", 0.0)) or 1 / float(np.sqrt(d_k))
    group = q_heads // kv_heads

    def step(x: Expr, i: int) -> Expr:
        return ctx.call("take", x, ctx.scalar(i, "int64"), axis=2, mode="clip")

    outputs = []
    for i in range(t):
        q_t, k_t, v_t = step(q, i), step(k, i), step(v, i)
        if decay is not None:
            factor = ctx.call("expand_dims", ctx.call("exp", step(decay, i)), axis=-1)
            state = ctx.call("multiply", state, factor)
        if beta is not None:
            retrieved = ctx.call("einsum", _tuple(state, k_t), equation="bhdm,bhd->bhm")
            v_t = ctx.call("multiply", step(beta, i), ctx.call("subtract", v_t, retrieved))
        outer = ctx.call("multiply", ctx.call("expand_dims", k_t, axis=-1),
                         ctx.call("expand_dims", v_t, axis=-2))  # fmt: skip
        state = ctx.call("add", state, outer)
        read = state if group == 1 else ctx.call("repeat", state, repeats=group, axis=1)
        out = ctx.call("einsum", _tuple(q_t, read), equation="bhd,bhdm->bhm")
        outputs.append(ctx.call("multiply", out, ctx.scalar(scale, f32)))
    stacked = ctx.call("stack", Tuple(tuple(outputs)), axis=1)  # (b, t, heads, d_v)
    y = ctx.call("reshape", stacked, newshape=(b, t, q_heads * d_v))
    return [ctx.call("cast", y, dtype=ctx.dtype(0)), ctx.call("cast", state, dtype=state_dtype)]
