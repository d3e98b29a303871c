"""quantize: the realized form, the options, and the oracle: the documented accuracy bound
against the float program, and bit-exact agreement of the interpreter and the CPU target."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relay
from relay.compiler.pass_manager import BUILTIN_PASSES
from relay.compiler.passes.quantize import (
    QConfig,
    Quantize,
    annotate,
    call,
    power2_exponent,
    prepare,
    quantize,
    quantize_array,
)
from relay.interpreter import evaluate
from relay.oracles import quantize_oracle as bound
from relay.oracles.fuzz import builtin_names
from relay.semantics import syntax as s
from relay.semantics.ops import lookup
from relay.semantics.values import TensorValue

Array = npt.NDArray[np.float32]


def run(mod: s.IRModule, *args: Array) -> Array:
    value = evaluate(mod, [TensorValue(a) for a in args], fuel=None).value
    assert isinstance(value, TensorValue)
    return np.asarray(value.data)


def const(rng: np.random.Generator, *shape: int, scale: float = 0.5) -> s.Constant:
    return s.Constant((scale * rng.standard_normal(shape)).astype(np.float32))


def two_convs(rng: np.random.Generator) -> tuple[s.IRModule, s.Var]:
    x = s.Var("x", s.TensorType((1, 3, 6, 6), "float32"))
    y = call("nn.conv2d", x, const(rng, 4, 3, 3, 3), padding=(1, 1, 1, 1))
    y = call("nn.relu", call("nn.bias_add", y, const(rng, 4)))
    z = call("nn.conv2d", y, const(rng, 4, 4, 1, 1))
    z = call("nn.relu", call("add", z, y))
    return s.IRModule({s.GlobalVar("main"): s.Function((x,), z)}), x


def op_names(mod: s.IRModule) -> list[str]:
    return [
        e.op.name
        for e in s.post_order(mod.functions[next(iter(mod.functions))].body)
        if isinstance(e, s.Call) and isinstance(e.op, s.Op)
    ]


def test_realized_form_is_int8_conv_int32_accumulation_and_shift_clip_cast() -> None:
    mod, _ = two_convs(np.random.default_rng(0))
    out = quantize(mod, QConfig(skip_conv_layers=()))
    text = relay.astext(out)
    assert text.count('out_dtype="int32"') == 2
    assert "right_shift(" in text
    assert "clip(" in text and "a_min=-127f, a_max=127f" in text
    assert 'cast(%2, dtype="int8")' in text
    # global_scale 8: activations at 2^-4, so the float input is multiplied by 16.
    assert "multiply(%x, 16f)" in text
    assert relay.infer_types(out).global_type("main") == relay.infer_types(mod).global_type("main")
    names = op_names(out)
    assert names.count("nn.conv2d") == 2 and "nn.bias_add" not in names
    convs = [e for e in s.post_order(out.functions[_main(out)].body) if _is(e, "nn.conv2d")]
    for conv in convs:
        assert isinstance(conv, s.Call) and isinstance(conv.args[1], s.Constant)
        assert conv.args[1].data.dtype == np.int8


def test_the_first_convolution_stays_float_by_default() -> None:
    mod, _ = two_convs(np.random.default_rng(1))
    out = quantize(mod)
    assert relay.astext(out).count('out_dtype="int32"') == 1
    first = next(e for e in s.post_order(out.functions[_main(out)].body) if _is(e, "nn.conv2d"))
    assert isinstance(first, s.Call) and first.args[0] is out.functions[_main(out)].params[0]


def _main(mod: s.IRModule) -> s.GlobalVar:
    return next(gv for gv in mod.functions if gv.name == "main")


def _is(e: s.Expr, name: str) -> bool:
    return isinstance(e, s.Call) and isinstance(e.op, s.Op) and e.op.name == name


def test_dense_is_skipped_by_default_and_quantized_on_request() -> None:
    rng = np.random.default_rng(2)
    x = s.Var("x", s.TensorType((2, 8), "float32"))
    mod = s.IRModule(
        {s.GlobalVar("main"): s.Function((x,), call("nn.dense", x, const(rng, 5, 8), units=5))}
    )
    assert 'out_dtype="int32"' not in relay.astext(quantize(mod))
    out = quantize(mod, QConfig(skip_dense_layer=False))
    assert 'nn.dense(%3, meta[relay.Constant][0], units=5, out_dtype="int32")' in relay.astext(out)


def test_batch_norm_is_folded_into_the_weight_and_one_bias() -> None:
    rng = np.random.default_rng(3)
    x = s.Var("x", s.TensorType((1, 2, 5, 5), "float32"))
    y = call("nn.conv2d", x, const(rng, 3, 2, 3, 3))
    var = s.Constant(np.abs(rng.standard_normal(3)).astype(np.float32) + 0.5)
    bn = call("nn.batch_norm", y, const(rng, 3), const(rng, 3), const(rng, 3), var)
    mod = s.IRModule({s.GlobalVar("main"): s.Function((x,), s.TupleGetItem(bn, 0))})
    prepared = prepare(mod)
    names = op_names(prepared)
    assert names == ["nn.conv2d", "add"], names
    a = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    np.testing.assert_allclose(run(prepared, a), run(mod, a), rtol=1e-5, atol=1e-5)


def test_rounding_modes_differ_in_the_half_added_before_the_shift() -> None:
    mod, _ = two_convs(np.random.default_rng(4))
    up = op_names(quantize(mod, QConfig(skip_conv_layers=(), rounding="UPWARD")))
    down = op_names(quantize(mod, QConfig(skip_conv_layers=(), rounding="DOWNWARD")))
    assert up.count("right_shift") == down.count("right_shift") >= 1
    assert up.count("add") == down.count("add") + up.count("right_shift")


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"calibrate_mode": "kl"}, "calibrate_mode='kl' is not one of"),
        ({"global_scale": 6.0}, "must be a power of two"),
        ({"rounding": "NEAREST"}, "rounding='NEAREST'"),
        ({"percentile": 0.0}, "percentile=0.0"),
    ],
)
def test_bad_options_are_named(fields: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        QConfig(**fields)  # type: ignore[arg-type]


def test_power_of_two_scales_cover_the_range_without_clipping() -> None:
    for m in (1e-3, 0.3, 1.0, 1.0001, 127.0, 128.0, 200.0):
        e = power2_exponent(m)
        assert m <= 127 * 2.0**e and (m > 127 * 2.0 ** (e - 1) or m <= 2.0 ** (e + 6))
    q = quantize_array(np.array([-1.5, -0.5, 0.5, 2.5, 1000.0]), 0, "int8")
    assert q.tolist() == [-2, -1, 1, 3, 127]


def test_registered_but_not_fuzzed_for_equality() -> None:
    assert BUILTIN_PASSES["quantize"] is Quantize
    assert "quantize" not in builtin_names()
    unchanged = relay.parse("def @f(%x: float32) { %x }")
    assert Quantize()(unchanged) is unchanged


# --------------------------------------------------------------------------------------------
# The oracle


@dataclass
class Layer:
    op: str
    weight: Array
    bias: Array
    relu: bool
    attrs: object


@st.composite
def chains(draw: st.DrawFn) -> tuple[list[Layer], Array, str]:
    """One or two conv2d layers (or one dense layer), each + bias, optionally relu."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    rounding = draw(st.sampled_from(["UPWARD", "DOWNWARD"]))
    if draw(st.booleans()):
        k = draw(st.integers(1, 12))
        units = draw(st.integers(1, 6))
        x = rng.standard_normal((draw(st.integers(1, 3)), k)).astype(np.float32)
        w = (rng.standard_normal((units, k)) * 0.5).astype(np.float32)
        attrs = lookup("nn.dense").attrs_type.from_kwargs({"units": units})  # type: ignore[union-attr]
        bias = (rng.standard_normal(units) * 0.3).astype(np.float32)
        return [Layer("nn.dense", w, bias, draw(st.booleans()), attrs)], x, rounding
    c = draw(st.integers(1, 4))
    hw = draw(st.integers(3, 7))
    x = rng.standard_normal((1, c, hw, hw)).astype(np.float32)
    layers = []
    for _ in range(draw(st.integers(1, 2))):
        o = draw(st.integers(1, 5))
        k = draw(st.sampled_from([1, 3] if hw >= 3 else [1]))  # a window that fits
        pad = draw(st.integers(0, k // 2))
        hw += 2 * pad - k + 1
        attrs = lookup("nn.conv2d").attrs_type.from_kwargs(  # type: ignore[union-attr]
            {"padding": (pad, pad, pad, pad)}
        )
        w = (rng.standard_normal((o, c, k, k)) * 0.5).astype(np.float32)
        bias = (rng.standard_normal(o) * 0.3).astype(np.float32)
        layers.append(Layer("nn.conv2d", w, bias, draw(st.booleans()), attrs))
        c = o
    return layers, x, rounding


def build(layers: list[Layer], shape: tuple[int, ...]) -> s.IRModule:
    x = s.Var("x", s.TensorType(shape, "float32"))
    e: s.Expr = x
    for layer in layers:
        e = s.Call(s.Op(layer.op), (e, s.Constant(layer.weight)), layer.attrs)  # type: ignore[arg-type]
        e = call("nn.bias_add", e, s.Constant(layer.bias))
        if layer.relu:
            e = call("nn.relu", e)
    return s.IRModule({s.GlobalVar("main"): s.Function((x,), e)})


def chain_bound(layers: list[Layer], x: Array, rounding: str) -> Array:
    """The documented bound, propagated layer by layer on the float values."""
    value = x.astype(np.float64)
    error: Array | float = 2.0 ** power2_exponent(float(np.abs(x).max())) / 2
    for i, layer in enumerate(layers):
        if i:  # requantized to int8 at the scale of this layer's (float) input
            error = error + bound.requantize_error(rounding, power2_exponent(np.abs(value).max()))
        ex = power2_exponent(float(np.abs(value).max()))
        ew = power2_exponent(float(np.abs(layer.weight).max()))
        attrs = layer.attrs  # type: ignore[assignment]
        out_error = bound.layer_error(layer.op, value, np.asarray(error), layer.weight, ew, attrs)  # type: ignore[arg-type]
        out_error += 2.0 ** (ex + ew) / 2 + bound.float_slack(layer.op, value, layer.weight, attrs)  # type: ignore[arg-type]
        y = bound._apply(layer.op, value, layer.weight, attrs)  # type: ignore[arg-type]
        shape = (-1, 1, 1) if layer.op == "nn.conv2d" else (-1,)
        value = y + layer.bias.astype(np.float64).reshape(shape)
        if layer.relu:
            value = np.maximum(value, 0)
        error = out_error
    assert isinstance(error, np.ndarray)
    return error


@settings(max_examples=25, deadline=None)
@given(chains())
def test_quantized_layers_are_within_the_documented_bound(
    case: tuple[list[Layer], Array, str],
) -> None:
    layers, x, rounding = case
    mod = build(layers, x.shape)
    config = QConfig(
        calibrate_mode="max", skip_conv_layers=(), skip_dense_layer=False, rounding=rounding
    )
    q = quantize(mod, config, [[x]])
    assert len(annotate(prepare(mod), config).chosen) == len(layers)
    assert relay.infer_types(q).global_type("main") == relay.infer_types(mod).global_type("main")
    expected, actual = run(mod, x), run(q, x)
    limit = chain_bound(layers, x, rounding)
    excess = np.abs(expected.astype(np.float64) - actual) - limit
    assert excess.max() <= 0, (excess.max(), relay.astext(q))


def test_interpreter_and_cpu_target_agree_bit_for_bit() -> None:
    from relay.targets import get_target

    rng = np.random.default_rng(9)
    mod, _ = two_convs(rng)
    x = rng.standard_normal((1, 3, 6, 6)).astype(np.float32)
    q = quantize(mod, QConfig(calibrate_mode="max", skip_conv_layers=()), [[x]])
    exe = get_target("cpu").compile(q)
    for _ in range(3):
        a = rng.standard_normal((1, 3, 6, 6)).astype(np.float32)
        out = exe.run(TensorValue(a))
        assert isinstance(out, TensorValue)
        assert np.array_equal(out.data, run(q, a))


# --------------------------------------------------------------------------------------------
# The command line: relay opt


NET = """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 6, 6), float32]) {
  %0 = nn.conv2d(%x, ones(shape=[4, 3, 3, 3], dtype="float32"), padding=[1, 1, 1, 1]);
  nn.relu(%0)
}
"""


def test_relay_opt_runs_quantize_with_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from relay.cli import main

    path = tmp_path / "net.relay"
    path.write_text(NET)
    argv = ["opt", str(path), "--pass", "fold-constant,quantize", "-O", "skip_conv_layers="]
    assert main([*argv, "-O", "calibrate_mode=max"]) == 0
    out = capsys.readouterr().out
    assert 'out_dtype="int32"' in out and "multiply(%x, 32f)" in out
    assert relay.parse(out)  # the printed module reads back
    assert main([*argv, "-O", "global_scale=3"]) == 2
    assert "global_scale=3.0 must be a power of two" in capsys.readouterr().err
    assert main([*argv, "-O", "nope=1"]) == 2
    assert "--option nope: none of the passes" in capsys.readouterr().err
    assert main(["opt", str(path), "--pass", "no-such-pass"]) == 2
    assert "unknown pass 'no-such-pass'" in capsys.readouterr().err
