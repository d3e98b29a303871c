"""FakeQuantizationToInteger: the integer form of fake-quantized graphs, and its agreement
with the float program to one unit of the output grid on generated layers."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from hypothesis import given, settings
from hypothesis import strategies as st

import relay
from relay.compiler.pass_manager import BUILTIN_PASSES
from relay.compiler.passes.fake_quantization_to_integer import (
    FakeQuantizationToInteger,
    fake_quantization_to_integer,
)
from relay.interpreter import evaluate
from relay.oracles.fuzz import builtin_names
from relay.semantics.values import TensorValue

Array = npt.NDArray[np.generic]

GRAPH = """
def @main(%x: Tensor[(1, 4, 6, 6), int8], %w: Tensor[(8, 4, 3, 3), int8],
          %b: Tensor[(8), int32], %y: Tensor[(1, 8, 3, 3), int8]) {
  %0 = qnn.dequantize(%x, 0.05f, 2);
  %1 = qnn.dequantize(%w, 0.01f, 0);
  %2 = nn.conv2d(%0, %1, padding=[1, 1, 1, 1]);
  %3 = qnn.dequantize(%b, 0.0005f, 0);
  %4 = nn.bias_add(%2, %3);
  %5 = nn.relu(%4);
  %6 = nn.max_pool2d(%5, pool_size=[2, 2], strides=[2, 2]);
  %7 = qnn.quantize(%6, 0.1f, -3, out_dtype="int8");
  %8 = qnn.dequantize(%7, 0.1f, -3);
  %9 = qnn.dequantize(%y, 0.2f, 1);
  %10 = add(%8, %9);
  qnn.quantize(%10, 0.15f, 0, out_dtype="int8")
}
"""


def run(mod: relay.IRModule, *args: Array) -> Array:
    value = evaluate(mod, [TensorValue(a) for a in args], fuel=None).value
    assert isinstance(value, TensorValue)
    return np.asarray(value.data)


def test_conv_bias_relu_pool_and_add_become_qnn_operators() -> None:
    out = fake_quantization_to_integer(relay.parse(GRAPH))
    text = relay.astext(out)
    assert "qnn.conv2d(%x, %w, 2, 0, 0.05f, 0.01f, padding=[1, 1, 1, 1], " in text
    assert 'out_dtype="int32"' in text
    assert "nn.bias_add(%0, %b)" in text and "maximum(%1, 0)" in text
    assert 'qnn.requantize(%3, 0.0005f, 0, 0.1f, -3, out_dtype="int8")' in text
    assert "qnn.add(%4, %y, 0.1f, -3, 0.2f, 1, 0.15f, 0)" in text
    for float_op in ("qnn.dequantize", "qnn.quantize", "= nn.conv2d(", "nn.relu"):
        assert float_op not in text
    rng = np.random.default_rng(0)
    args = [
        rng.integers(-128, 128, (1, 4, 6, 6)).astype(np.int8),
        rng.integers(-128, 128, (8, 4, 3, 3)).astype(np.int8),
        rng.integers(-3000, 3000, (8,)).astype(np.int32),
        rng.integers(-128, 128, (1, 8, 3, 3)).astype(np.int8),
    ]
    # Two roundings in a row (requantize, then qnn.add): within two units.
    diff = run(out, *args).astype(np.int64) - run(relay.parse(GRAPH), *args).astype(np.int64)
    assert np.abs(diff).max() <= 2


def test_a_quantize_of_an_unsupported_float_op_is_left_alone() -> None:
    mod = relay.parse(
        "def @main(%x: Tensor[(4), int8]) {"
        ' qnn.quantize(exp(qnn.dequantize(%x, 0.1f, 0)), 0.1f, 0, out_dtype="int8") }'
    )
    assert fake_quantization_to_integer(mod) is mod


def test_registered_and_not_fuzzed_for_equality() -> None:
    assert BUILTIN_PASSES["fake-quantization-to-integer"] is FakeQuantizationToInteger
    assert "fake-quantization-to-integer" not in builtin_names()


@settings(max_examples=15, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.sampled_from(["conv", "dense"]),
    st.booleans(),
    st.sampled_from(["int8", "uint8"]),
)
def test_one_layer_agrees_to_one_unit(seed: int, layer: str, relu: bool, dtype: str) -> None:
    rng = np.random.default_rng(seed)
    lo, hi = (-128, 128) if dtype == "int8" else (0, 256)
    zx, zw, zo = (int(rng.integers(lo, hi) // 4) for _ in range(3))
    sx, sw = (float(np.float32(rng.uniform(0.005, 0.1))) for _ in range(2))
    so = float(np.float32(rng.uniform(0.5, 4.0)))
    c, o = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    if layer == "conv":
        xshape, wshape = (1, c, 5, 5), (o, c, 3, 3)
        body = "nn.conv2d(%0, %1, padding=[1, 1, 1, 1])"
    else:
        xshape, wshape = (2, c * 4), (o, c * 4)
        body = f"nn.dense(%0, %1, units={o})"
    act = "nn.relu(%2)" if relu else "%2"
    src = (
        f"def @main(%x: Tensor[{xshape}, {dtype}], %w: Tensor[{wshape}, {dtype}]) {{"
        f" %0 = qnn.dequantize(%x, {sx!r}f, {zx}); %1 = qnn.dequantize(%w, {sw!r}f, {zw});"
        f" %2 = {body}; %3 = {act};"
        f' qnn.quantize(%3, {so!r}f, {zo}, out_dtype="{dtype}") }}'
    )
    mod = relay.parse(src)
    out = FakeQuantizationToInteger()(mod)
    assert "qnn.requantize" in relay.astext(out)
    x = rng.integers(lo, hi, xshape).astype(dtype)
    w = rng.integers(lo, hi, wshape).astype(dtype)
    diff = run(out, x, w).astype(np.int64) - run(mod, x, w).astype(np.int64)
    assert np.abs(diff).max() <= 1
