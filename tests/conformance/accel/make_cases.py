"""Writes the quantized conformance cases of this folder (``python make_cases.py``).

Each case is a quantized conv2d or dense program whose inputs are constants (in the file's
metadata section) and whose expected value is computed here by a direct int64 numpy model of
the operators (convolution as a sum over taps, int32 and int8 wrap-around, arithmetic shifts,
clip as minimum then maximum): independent of the interpreter and of the accelerator. Run
them with ``relay conform --target accel --corpus tests/conformance/accel``.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import numpy as np

from relay import astext, parse
from relay.compiler.ir import substitute
from relay.semantics.syntax import Constant, Function, GlobalVar, IRModule

HERE = Path(__file__).resolve().parent


def wrap(x: np.ndarray, bits: int) -> np.ndarray:
    half = 1 << (bits - 1)
    return (x + half) % (1 << bits) - half


def conv(x: np.ndarray, w: np.ndarray, stride=(1, 1), pad=(0, 0, 0, 0), dil=(1, 1)):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    pt, pl, pb, pr = pad
    xp = np.zeros((n, c, h + pt + pb, wd + pl + pr), dtype=np.int64)
    xp[:, :, pt : pt + h, pl : pl + wd] = x
    oh = (h + pt + pb - (kh - 1) * dil[0] - 1) // stride[0] + 1
    ow = (wd + pl + pr - (kw - 1) * dil[1] - 1) // stride[1] + 1
    out = np.zeros((n, o, oh, ow), dtype=np.int64)
    for i in range(kh):
        for j in range(kw):
            r0, c0 = i * dil[0], j * dil[1]
            patch = xp[:, :, r0 : r0 + stride[0] * (oh - 1) + 1 : stride[0],
                       c0 : c0 + stride[1] * (ow - 1) + 1 : stride[1]]  # fmt: skip
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j].astype(np.int64))
    return wrap(out, 32)


def requant(acc: np.ndarray, bias: np.ndarray, shift: int, lo: int, hi: int) -> np.ndarray:
    v = wrap(acc + bias, 32) >> shift
    return np.maximum(np.minimum(v, hi), lo)


def tensor_json(a: np.ndarray, dtype: str) -> dict[str, object]:
    return {"kind": "tensor", "dtype": dtype, "shape": list(a.shape), "data": a.tolist()}


def write(name: str, about: str, text: str, inputs: dict[str, np.ndarray], expect: dict) -> None:
    mod = parse(text)
    main = mod["main"]
    mapping = {p: Constant(inputs[p.name_hint]) for p in main.params}
    body = substitute(main.body, mapping)
    const_mod = IRModule({GlobalVar("main"): Function((), body)})
    program = astext(const_mod)
    lines = [f"// {line}" for line in textwrap.wrap(about, 95)]
    line = ""
    for token in json.dumps(expect).split(" "):  # break lines between JSON tokens only
        if line and len(line) + len(token) > 80:
            lines.append(f"// EXPECT-JSON: {line}")
            line = ""
        line = f"{line} {token}" if line else token
    lines.append(f"// EXPECT-JSON: {line}")
    (HERE / f"{name}.relay").write_text("\n".join(lines) + "\n" + program, encoding="utf-8")


def main() -> None:
    rng = np.random.default_rng(15)

    def i8(*shape: int) -> np.ndarray:
        return rng.integers(-128, 128, shape).astype(np.int8)

    def i32(bound: int, *shape: int) -> np.ndarray:
        return rng.integers(-bound, bound, shape).astype(np.int32)

    # 1. 3x3 conv, padding 1, per-channel bias, shift, clip, cast, relu (channels pad to 16)
    x, w, b = i8(1, 3, 8, 8), i8(20, 3, 3, 3), i32(3000, 20, 1, 1)
    y = np.maximum(requant(conv(x, w, pad=(1, 1, 1, 1)), b, 4, -127, 127), 0)
    write("conv3x3_bias_requant_relu",
          "int8 3x3 conv, padding 1, + per-channel bias, >> 4, clip, cast int8, relu",
          """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 8, 8), int8], %w: Tensor[(20, 3, 3, 3), int8],
          %b: Tensor[(20, 1, 1), int32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=20, kernel_size=[3, 3],
                 out_dtype="int32");
  %1 = add(%0, %b);
  %2 = right_shift(%1, 4);
  %3 = clip(%2, a_min=-127f, a_max=127f);
  %4 = cast(%3, dtype="int8");
  nn.relu(%4)
}
""", {"x": x, "w": w, "b": b}, tensor_json(y, "int8"))  # fmt: skip

    # 2. stride 2, dilation 2, asymmetric padding, no bias
    x, w = i8(2, 20, 9, 7), i8(17, 20, 3, 3)
    acc = conv(x, w, stride=(2, 2), pad=(1, 2, 0, 1), dil=(2, 2))
    y = np.maximum(np.minimum(acc >> 6, 100), -100)
    write("conv_stride_dilation_padding",
          "int8 conv with stride 2, dilation 2, padding (1, 2, 0, 1), batch 2; >> 6, clip ±100",
          """#[version = "0.0.5"]
def @main(%x: Tensor[(2, 20, 9, 7), int8], %w: Tensor[(17, 20, 3, 3), int8]) {
  %0 = nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 2, 0, 1], dilation=[2, 2],
                 channels=17, kernel_size=[3, 3], out_dtype="int32");
  %1 = right_shift(%0, 6);
  %2 = clip(%1, a_min=-100f, a_max=100f);
  cast(%2, dtype="int8")
}
""", {"x": x, "w": w}, tensor_json(y, "int8"))  # fmt: skip

    # 3. a layer bigger than one tile, with a per-element operand
    x, w, r = i8(1, 40, 20, 20), i8(48, 40, 3, 3), i32(1 << 16, 1, 48, 20, 20)
    y = requant(conv(x, w, pad=(1, 1, 1, 1)), r, 8, -127, 127)
    write("conv_tiles_elementwise_operand",
          "int8 conv of 40 -> 48 channels on 20x20 (several tiles, double-buffered) + a "
          "per-element int32 operand, >> 8, clip",
          """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 40, 20, 20), int8], %w: Tensor[(48, 40, 3, 3), int8],
          %r: Tensor[(1, 48, 20, 20), int32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=48, kernel_size=[3, 3],
                 out_dtype="int32");
  %1 = add(%r, %0);
  %2 = right_shift(%1, 8);
  %3 = clip(%2, a_min=-127f, a_max=127f);
  cast(%3, dtype="int8")
}
""", {"x": x, "w": w, "r": r}, tensor_json(y, "int8"))  # fmt: skip

    # 4. a cast that wraps, then int8 arithmetic that wraps again
    x, w, k = i8(1, 16, 5, 5), i8(16, 16, 1, 1), i8(1, 16, 1, 1)
    v = wrap(conv(x, w), 8)
    y = np.maximum(wrap(v + k, 8), -5)
    write("conv_wrapping_casts",
          "int8 1x1 conv, cast to int8 without clip (wraps to the low 8 bits), + an int8 "
          "per-channel operand (wraps in int8), max with -5",
          """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 16, 5, 5), int8], %w: Tensor[(16, 16, 1, 1), int8],
          %k: Tensor[(1, 16, 1, 1), int8], %m: Tensor[(), int8]) {
  %0 = nn.conv2d(%x, %w, padding=[0, 0, 0, 0], channels=16, kernel_size=[1, 1],
                 out_dtype="int32");
  %1 = cast(%0, dtype="int8");
  %2 = add(%1, %k);
  maximum(%2, %m)
}
""", {"x": x, "w": w, "k": k, "m": np.asarray(-5, dtype=np.int8)},
          tensor_json(y, "int8"))  # fmt: skip

    # 5. dense with bias and requantization
    x, w, b = i8(4, 70), i8(40, 70), i32(1 << 12, 40)
    acc = wrap(x.astype(np.int64) @ w.astype(np.int64).T, 32)
    y = requant(acc, b, 5, -128, 127)
    write("dense_bias_requant",
          "int8 dense 4x70 by 40x70 (K pads to 80) + bias, >> 5, clip to int8, cast",
          """#[version = "0.0.5"]
def @main(%x: Tensor[(4, 70), int8], %w: Tensor[(40, 70), int8], %b: Tensor[(40,), int32]) {
  %0 = nn.dense(%x, %w, units=40, out_dtype="int32");
  %1 = add(%0, %b);
  %2 = right_shift(%1, 5);
  %3 = clip(%2, a_min=-128f, a_max=127f);
  cast(%3, dtype="int8")
}
""", {"x": x, "w": w, "b": b}, tensor_json(y, "int8"))  # fmt: skip

    # 6. an int32 result: not storable in 8 bits, so it runs on the CPU
    x, w = i8(3, 33), i8(5, 33)
    y = wrap(x.astype(np.int64) @ w.astype(np.int64).T * 3, 32)
    write("dense_int32_result",
          "int8 dense whose int32 result (x 3) stays on the CPU: the accelerator stores 8 bits",
          """#[version = "0.0.5"]
def @main(%x: Tensor[(3, 33), int8], %w: Tensor[(5, 33), int8]) {
  %0 = nn.dense(%x, %w, units=5, out_dtype="int32");
  multiply(%0, 3)
}
""", {"x": x, "w": w}, tensor_json(y, "int32"))  # fmt: skip

    # 7. two layers, each requantized: two accelerator kernels
    x, w1, w2 = i8(1, 8, 10, 10), i8(24, 8, 3, 3), i8(16, 24, 3, 3)
    h = np.maximum(np.minimum(wrap(conv(x, w1, pad=(1, 1, 1, 1)) * 3, 32) >> 7, 127), -127)
    y = np.maximum(np.minimum(conv(h, w2, stride=(2, 2)) >> 9, 127), 0)
    write("two_conv_layers",
          "two int8 conv layers: x 3, >> 7, clip; then stride 2, >> 9, clip to [0, 127]",
          """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 8, 10, 10), int8], %w1: Tensor[(24, 8, 3, 3), int8],
          %w2: Tensor[(16, 24, 3, 3), int8]) {
  %0 = nn.conv2d(%x, %w1, padding=[1, 1, 1, 1], channels=24, kernel_size=[3, 3],
                 out_dtype="int32");
  %1 = multiply(%0, 3);
  %2 = right_shift(%1, 7);
  %3 = clip(%2, a_min=-127f, a_max=127f);
  %4 = cast(%3, dtype="int8");
  %5 = nn.conv2d(%4, %w2, strides=[2, 2], padding=[0, 0, 0, 0], channels=16,
                 kernel_size=[3, 3], out_dtype="int32");
  %6 = right_shift(%5, 9);
  %7 = clip(%6, a_min=0f, a_max=127f);
  cast(%7, dtype="int8")
}
""", {"x": x, "w1": w1, "w2": w2}, tensor_json(y, "int8"))  # fmt: skip

    # 8. a large immediate (beyond 16 bits) and minimum/maximum with constants
    x, w = i8(1, 5, 6, 6), i8(7, 5, 2, 2)
    acc = conv(x, w, pad=(0, 1, 1, 0))
    v = np.maximum(np.minimum(wrap(acc + 100000, 32), 120000), 90000)
    y = wrap(v >> 10, 8)
    write("conv_large_immediates",
          "int8 2x2 conv + 100000 (too wide for the 16-bit immediate), min 120000, "
          "max 90000, >> 10, cast",
          """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 5, 6, 6), int8], %w: Tensor[(7, 5, 2, 2), int8]) {
  %0 = nn.conv2d(%x, %w, padding=[0, 1, 1, 0], channels=7, kernel_size=[2, 2],
                 out_dtype="int32");
  %1 = add(%0, 100000);
  %2 = minimum(%1, 120000);
  %3 = maximum(%2, 90000);
  %4 = right_shift(%3, 10);
  cast(%4, dtype="int8")
}
""", {"x": x, "w": w}, tensor_json(y, "int8"))  # fmt: skip


if __name__ == "__main__":
    main()
