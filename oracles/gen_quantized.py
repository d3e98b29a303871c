"""Quantized convolution and dense programs: what ``relay fuzz --target accel`` checks.

``quantized_cases()`` is a Hypothesis strategy of ``fuzz.Case``: one or two layers, each an
int8 ``nn.conv2d`` (``NCHW``/``OIHW``: batch, channels, size, kernel, strides, padding and
dilation drawn so the output is not empty) or ``nn.dense`` accumulating in int32
(``out_dtype="int32"``), followed by a tail drawn from what quantized graphs do after an
accumulation: ``add`` of a bias (per channel or per element, a parameter, or a scalar) or of an int8
tensor widened to int32 (a residual connection),
``right_shift`` by a constant, ``clip``, ``nn.relu``, ``maximum``/``minimum`` with a constant,
``multiply`` by a small constant, and ``cast`` to int8 (wrapping when no clip precedes it) or
back to int32. A layer usually ends in int8 (the accelerator stores 8 bits) but sometimes
stays int32 (the target then keeps it on the CPU). Arguments: int8 data and weights over their
whole range, int32 biases up to ``±2**14``. Everything is drawn by Hypothesis, so a failure
shrinks towards one small layer with a short tail.
"""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from ..semantics.text.parser import parse
from ..semantics.values import TensorValue, Value
from .fuzz import Case

Param = tuple[str, tuple[int, ...], str, int | None]
"""A parameter of ``@main``: name, shape, dtype, and a fixed value (``None``: drawn)."""


def _shape(dims: tuple[int, ...]) -> str:
    return "(" + ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"


@st.composite
def _tail(draw: st.DrawFn, var: str, out_shape: tuple[int, ...], channel_axis: int,
          params: list[Param], lines: list[str], counter: list[int]
          ) -> tuple[str, str]:  # fmt: skip
    """Append a tail's lines after ``var`` (an int32 accumulation); the last variable and its
    dtype."""
    dtype = "int32"

    def emit(expr: str) -> str:
        name = f"%{counter[0]}"
        counter[0] += 1
        lines.append(f"  {name} = {expr};")
        return name

    def lit(value: int) -> str:
        if dtype == "int32":
            return str(value)
        # Relay has no int8 literal: an int8 scalar is a parameter with a fixed value.
        name = f"%k{len(params)}"
        params.append((name, (), "int8", value))
        return name

    n_ops = draw(st.integers(0, 5))
    for _ in range(n_ops):
        kind = draw(st.sampled_from(["bias", "shift", "clip", "relu", "max", "min", "mul",
                                     "cast8", "cast32", "bias_scalar", "residual"]))  # fmt: skip
        if kind == "bias":
            per_channel = draw(st.booleans())
            if per_channel:
                shape = tuple(1 if i != channel_axis else d for i, d in enumerate(out_shape))
                shape = shape[channel_axis:] if draw(st.booleans()) else shape
            else:
                shape = out_shape
            name = f"%b{len(params)}"
            params.append((name, shape, dtype, None))
            var = emit(f"add({var}, {name})")
        elif kind == "bias_scalar":
            value = draw(st.integers(-(1 << 16), 1 << 16) if dtype == "int32"
                         else st.integers(-128, 127))  # fmt: skip
            var = emit(f"add({lit(value)}, {var})" if draw(st.booleans())
                       else f"add({var}, {lit(value)})")  # fmt: skip
        elif kind == "residual":  # an int8 tensor widened and added, as a skip connection
            name = f"%r{len(params)}"
            params.append((name, out_shape, "int8", None))
            if dtype == "int32":
                var = emit(f'add(cast({name}, dtype="int32"), {var})')
            else:
                var = emit(f"add({var}, {name})")
        elif kind == "shift":
            amount = draw(st.integers(0, 12 if dtype == "int32" else 7))
            var = emit(f"right_shift({var}, {lit(amount)})")
        elif kind == "clip":
            lo = draw(st.integers(-128, 0))
            hi = draw(st.integers(0, 127))
            var = emit(f"clip({var}, a_min={lo}f, a_max={hi}f)")
        elif kind == "relu":
            var = emit(f"nn.relu({var})")
        elif kind in ("max", "min"):
            op = "maximum" if kind == "max" else "minimum"
            var = emit(f"{op}({var}, {lit(draw(st.integers(-100, 100)))})")
        elif kind == "mul":
            var = emit(f"multiply({var}, {lit(draw(st.integers(-4, 4)))})")
        elif kind == "cast8":
            var = emit(f'cast({var}, dtype="int8")')
            dtype = "int8"
        else:
            var = emit(f'cast({var}, dtype="int32")')
            dtype = "int32"
    if draw(st.integers(0, 4)) > 0:  # usually: requantize to int8 at the end
        if dtype == "int32" and draw(st.booleans()):
            var = emit(f"right_shift({var}, {draw(st.integers(0, 10))})")
            var = emit(f"clip({var}, a_min=-127f, a_max=127f)")
        if dtype != "int8":
            var = emit(f'cast({var}, dtype="int8")')
            dtype = "int8"
    return var, dtype


@st.composite
def quantized_program(draw: st.DrawFn) -> tuple[str, list[Param]]:
    """The text of a quantized program and its parameters (name, shape, dtype)."""
    params: list[Param] = []
    lines: list[str] = []
    counter = [0]
    if draw(st.integers(0, 3)) == 0:  # dense
        b, k, m = draw(st.integers(1, 6)), draw(st.integers(1, 70)), draw(st.integers(1, 40))
        params += [("%x", (b, k), "int8", None), ("%w", (m, k), "int8", None)]
        var = f"%{counter[0]}"
        counter[0] += 1
        lines.append(f'  {var} = nn.dense(%x, %w, units={m}, out_dtype="int32");')
        var, _ = draw(_tail(var, (b, m), 1, params, lines, counter))
    else:
        n = draw(st.integers(1, 2))
        c = draw(st.integers(1, 40))
        h, w = draw(st.integers(1, 12)), draw(st.integers(1, 12))
        params.append(("%x", (n, c, h, w), "int8", None))
        var = "%x"
        for layer in range(draw(st.integers(1, 2))):
            kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
            sh, sw = draw(st.integers(1, 2)), draw(st.integers(1, 2))
            dh, dw = draw(st.integers(1, 2)), draw(st.integers(1, 2))
            pad = [draw(st.integers(0, 2)) for _ in range(4)]
            oh = (h + pad[0] + pad[2] - (kh - 1) * dh - 1) // sh + 1
            ow = (w + pad[1] + pad[3] - (kw - 1) * dw - 1) // sw + 1
            if oh < 1 or ow < 1:
                pad, dh, dw, sh, sw, kh, kw = [0, 0, 0, 0], 1, 1, 1, 1, 1, 1
                oh, ow = h, w
            o = draw(st.integers(1, 40))
            wname = f"%w{layer}"
            params.append((wname, (o, c, kh, kw), "int8", None))
            conv = f"%{counter[0]}"
            counter[0] += 1
            lines.append(f"  {conv} = nn.conv2d({var}, {wname}, strides=[{sh}, {sw}], "
                         f"padding={pad}, dilation=[{dh}, {dw}], channels={o}, "
                         f'kernel_size=[{kh}, {kw}], out_dtype="int32");')  # fmt: skip
            var, dtype = draw(_tail(conv, (n, o, oh, ow), 1, params, lines, counter))
            if dtype != "int8":
                break
            c, h, w = o, oh, ow
    signature = ", ".join(f"{p}: Tensor[{_shape(s)}, {d}]" for p, s, d, _ in params)
    body = "\n".join(lines)
    last = lines[-1].split(" = ")[0].strip()
    text = f'#[version = "0.0.5"]\ndef @main({signature}) {{\n{body}\n  {last}\n}}\n'
    return text, params


@st.composite
def quantized_cases(draw: st.DrawFn) -> Case:
    """A quantized program (``quantized_program``) with one argument tuple."""
    text, params = draw(quantized_program())
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    args: list[Value] = []
    for _, shape, dtype, fixed in params:
        if fixed is not None:
            data = np.asarray(fixed, dtype=dtype)
        elif dtype == "int8":
            data = rng.integers(-128, 128, shape).astype(np.int8)
        else:
            data = rng.integers(-(1 << 14), 1 << 14, shape).astype(np.int32)
        args.append(TensorValue(data))
    return Case(parse(text, source_name="<quantized>"), tuple(args))


__all__ = ["quantized_cases", "quantized_program"]
