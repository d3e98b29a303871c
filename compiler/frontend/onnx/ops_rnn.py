"""Converters of ONNX's recurrent layers (RNN, GRU, LSTM), unrolled over the static sequence.

Each time step is ``nn.dense`` products and elementwise gates, following ONNX's equations
(``W`` and ``R`` hold the gates stacked on axis 1 in ONNX's order: GRU ``z, r, h``; LSTM
``i, o, f, c``; ``B`` is ``[Wb, Rb]``)::

    RNN   H = f(X W^T + H R^T + Wb + Rb)
    GRU   z = f(X Wz^T + H Rz^T + Wbz + Rbz)    r = f(X Wr^T + H Rr^T + Wbr + Rbr)
          h = g(X Wh^T + (r * H) Rh^T + Rbh + Wbh)        (linear_before_reset = 0)
          h = g(X Wh^T + r * (H Rh^T + Rbh) + Wbh)        (otherwise)
          H = (1 - z) * h + z * H
    LSTM  i = f(X Wi^T + H Ri^T + Pi * C + Wbi + Rbi)    f' likewise with Pf
          c = g(X Wc^T + H Rc^T + Wbc + Rbc)    C = f' * C + i * c
          o = f(X Wo^T + H Ro^T + Po * C + Wbo + Rbo)    H = o * h(C)

``direction`` reverse runs the steps backwards, bidirectional both (stacked on the direction
axis). A ``sequence_lens`` that is not the full length for every batch entry is not supported.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ....semantics.syntax import Expr, Tuple
from .importer import NodeContext
from .ops_math import scalar_like
from .table import converter

Activation = Callable[[Expr], Expr]


def _activation(ctx: NodeContext, name: str, alpha: float | None, beta: float | None) -> Activation:
    """ONNX's named activation functions of the recurrent ops."""

    def scalar(v: float, like: Expr) -> Expr:
        return scalar_like(ctx, v, like)

    match name.lower():
        case "sigmoid":
            return lambda x: ctx.call("sigmoid", x)
        case "tanh":
            return lambda x: ctx.call("tanh", x)
        case "relu":
            return lambda x: ctx.call("nn.relu", x)
        case "leakyrelu":
            return lambda x: ctx.call("nn.leaky_relu", x, alpha=0.01 if alpha is None else alpha)
        case "hardsigmoid":
            a, b = 0.2 if alpha is None else alpha, 0.5 if beta is None else beta
            return lambda x: ctx.call(
                "clip", ctx.call("add", ctx.call("multiply", x, scalar(a, x)), scalar(b, x)),
                a_min=0.0, a_max=1.0,
            )  # fmt: skip
        case "affine":
            a, b = 1.0 if alpha is None else alpha, 0.0 if beta is None else beta
            return lambda x: ctx.call("add", ctx.call("multiply", x, scalar(a, x)), scalar(b, x))
        case "scaledtanh":
            a, b = 1.0 if alpha is None else alpha, 1.0 if beta is None else beta
            return lambda x: ctx.call(
                "multiply", ctx.call("tanh", ctx.call("multiply", x, scalar(b, x))), scalar(a, x)
            )
        case "softsign":
            return lambda x: ctx.call(
                "divide", x, ctx.call("add", scalar(1, x), ctx.call("abs", x))
            )
        case "softplus":
            return lambda x: ctx.call("log", ctx.call("add", ctx.call("exp", x), scalar(1, x)))
        case _:
            raise ctx.fail(f'activation "{name}" is not supported')


def _activations(ctx: NodeContext, defaults: list[str], directions: int) -> list[Activation]:
    names = [str(n) for n in ctx.attr("activations", defaults * directions)]
    alphas = [float(a) for a in ctx.attr("activation_alpha", [])]
    betas = [float(b) for b in ctx.attr("activation_beta", [])]
    if len(names) == len(defaults) and directions == 2:
        names = names * 2
    return [
        _activation(
            ctx, n, alphas[i] if i < len(alphas) else None, betas[i] if i < len(betas) else None
        )
        for i, n in enumerate(names)
    ]


def _take(ctx: NodeContext, x: Expr, index: int, axis: int) -> Expr:
    return ctx.call("take", x, ctx.scalar(index, "int64"), axis=axis, mode="clip")


def _gate(ctx: NodeContext, x: Expr, index: int, size: int) -> Expr:
    """Rows ``[index * size, (index + 1) * size)`` of a stacked weight (axis 0)."""
    shape = ctx.static_shape(x)
    begin = [0] * len(shape)
    end = list(shape)
    begin[0], end[0] = index * size, (index + 1) * size
    return ctx.call("strided_slice", x, begin=tuple(begin), end=tuple(end),
                    strides=(1,) * len(shape), axes=None)  # fmt: skip


def _recurrent(ctx: NodeContext, kind: str) -> list[Expr]:
    x = ctx.input(0)
    layout = int(ctx.attr("layout", 0))
    if layout:
        x = ctx.call("transpose", x, axes=(1, 0, 2))
    seq, batch, _ = ctx.static_shape(x)
    hidden = int(ctx.attr("hidden_size"))
    direction = str(ctx.attr("direction", "forward"))
    directions = 2 if direction == "bidirectional" else 1
    lens = ctx.optional(4)
    if lens is not None:
        values = ctx.require_const(4, "sequence_lens")
        if not np.all(values == seq):
            raise ctx.fail("sequence_lens shorter than the sequence is not supported")
    if kind == "LSTM" and int(ctx.attr("input_forget", 0)):
        raise ctx.fail("input_forget=1 is not supported")
    gates = {"RNN": 1, "GRU": 3, "LSTM": 4}[kind]
    defaults = {"RNN": ["Tanh"], "GRU": ["Sigmoid", "Tanh"], "LSTM": ["Sigmoid", "Tanh", "Tanh"]}
    acts = _activations(ctx, defaults[kind], directions)
    per_dir = len(defaults[kind])
    clip = ctx.attr("clip")
    dtype = ctx.dtype(0)
    steps = [_take(ctx, x, t, 0) for t in range(seq)]
    ys: list[list[Expr]] = []
    finals_h: list[Expr] = []
    finals_c: list[Expr] = []
    for d in range(directions):
        w = _take(ctx, ctx.input(1), d, 0)
        r = _take(ctx, ctx.input(2), d, 0)
        b = ctx.optional(3)
        bias = None if b is None else _take(ctx, b, d, 0)
        zeros = ctx.call("zeros", shape=(batch, hidden), dtype=dtype)
        h0, c0 = ctx.optional(5), ctx.optional(6) if kind == "LSTM" else None
        h = zeros if h0 is None else _take(ctx, h0, d, 0)
        c = zeros if c0 is None else _take(ctx, c0, d, 0)
        p = ctx.optional(7) if kind == "LSTM" else None
        peep = None if p is None else _take(ctx, p, d, 0)
        f, g = acts[d * per_dir], acts[d * per_dir + (1 if per_dir > 1 else 0)]
        hact = acts[d * per_dir + 2] if kind == "LSTM" else g
        wg = [_gate(ctx, w, i, hidden) for i in range(gates)]
        rg = [_gate(ctx, r, i, hidden) for i in range(gates)]
        wb = [None if bias is None else _gate(ctx, bias, i, hidden) for i in range(gates)]
        rb = [None if bias is None else _gate(ctx, bias, gates + i, hidden) for i in range(gates)]

        def pre(xt: Expr, state: Expr, i: int, with_r: bool = True) -> Expr:
            out = ctx.call("nn.dense", xt, wg[i], units=None)  # noqa: B023
            if with_r:
                out = ctx.call("add", out, ctx.call("nn.dense", state, rg[i], units=None))  # noqa: B023
            for extra in (wb[i], rb[i] if with_r else None):  # noqa: B023
                if extra is not None:
                    out = ctx.call("add", out, extra)
            return out

        def clipped(e: Expr) -> Expr:
            if clip is None:
                return e
            return ctx.call("clip", e, a_min=-float(clip), a_max=float(clip))

        order = range(seq) if (direction != "reverse" and d == 0) else range(seq - 1, -1, -1)
        outs: dict[int, Expr] = {}
        for t in order:
            xt = steps[t]
            if kind == "RNN":
                h = f(clipped(pre(xt, h, 0)))
            elif kind == "GRU":
                z = f(clipped(pre(xt, h, 0)))
                rr = f(clipped(pre(xt, h, 1)))
                if int(ctx.attr("linear_before_reset", 0)):
                    hr = ctx.call("nn.dense", h, rg[2], units=None)
                    if rb[2] is not None:
                        hr = ctx.call("add", hr, rb[2])
                    cand = ctx.call(
                        "add", pre(xt, h, 2, with_r=False), ctx.call("multiply", rr, hr)
                    )
                else:
                    gated = ctx.call("multiply", rr, h)
                    cand = ctx.call("add", pre(xt, h, 2, with_r=False),
                                    ctx.call("nn.dense", gated, rg[2], units=None))  # fmt: skip
                    if rb[2] is not None:
                        cand = ctx.call("add", cand, rb[2])
                hh = g(clipped(cand))
                one_minus = ctx.call("subtract", scalar_like(ctx, 1, z), z)
                h = ctx.call("add", ctx.call("multiply", one_minus, hh), ctx.call("multiply", z, h))
            else:
                gi, go, gf, gc = (pre(xt, h, i) for i in range(4))
                if peep is not None:
                    pi, po, pf = (_gate(ctx, peep, i, hidden) for i in range(3))
                    gi = ctx.call("add", gi, ctx.call("multiply", pi, c))
                    gf = ctx.call("add", gf, ctx.call("multiply", pf, c))
                i_t, f_t, c_t = f(clipped(gi)), f(clipped(gf)), g(clipped(gc))
                c = ctx.call("add", ctx.call("multiply", f_t, c), ctx.call("multiply", i_t, c_t))
                if peep is not None:
                    go = ctx.call("add", go, ctx.call("multiply", po, c))
                o_t = f(clipped(go))
                h = ctx.call("multiply", o_t, hact(c))
            outs[t] = h
        ys.append([outs[t] for t in range(seq)])
        finals_h.append(h)
        finals_c.append(c)
    # Y: (seq, directions, batch, hidden); Y_h, Y_c: (directions, batch, hidden)
    per_step = [
        ctx.call("stack", Tuple(tuple(ys[d][t] for d in range(directions))), axis=0)
        for t in range(seq)
    ]
    y = ctx.call("stack", Tuple(tuple(per_step)), axis=0)
    y_h = ctx.call("stack", Tuple(tuple(finals_h)), axis=0)
    y_c = ctx.call("stack", Tuple(tuple(finals_c)), axis=0)
    if layout:
        y = ctx.call("transpose", y, axes=(2, 0, 1, 3))
        y_h = ctx.call("transpose", y_h, axes=(1, 0, 2))
        y_c = ctx.call("transpose", y_c, axes=(1, 0, 2))
    return [y, y_h, y_c] if kind == "LSTM" else [y, y_h]


@converter("RNN", since=7)
def rnn(ctx: NodeContext) -> list[Expr]:
    """The simple recurrent layer, unrolled."""
    return _recurrent(ctx, "RNN")


@converter("GRU", since=7)
def gru(ctx: NodeContext) -> list[Expr]:
    """The gated recurrent unit, unrolled."""
    return _recurrent(ctx, "GRU")


@converter("LSTM", since=7)
def lstm(ctx: NodeContext) -> list[Expr]:
    """The long short-term memory layer, unrolled."""
    return _recurrent(ctx, "LSTM")
