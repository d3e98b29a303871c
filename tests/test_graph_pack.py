"""graph_pack and nn.conv2d over packed layouts: the packed convolution against direct loops
in the packed layout, the pass's printed form, and bit-exact equality with the unpacked
program (interpreter and CPU target) on generated quantized conv graphs."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relay
from relay.compiler.pass_manager import BUILTIN_PASSES
from relay.compiler.passes.graph_pack import GraphPack, graph_pack, pack_weight
from relay.compiler.passes.quantize import QConfig, call, quantize
from relay.interpreter import evaluate
from relay.semantics import syntax as s
from relay.semantics.ops import lookup
from relay.semantics.ops.registry import RelationError
from relay.semantics.values import TensorValue

Array = npt.NDArray[np.generic]


def run(mod: s.IRModule, *args: Array) -> Array:
    value = evaluate(mod, [TensorValue(a) for a in args], fuel=None).value
    assert isinstance(value, TensorValue)
    return np.asarray(value.data)


def packed_conv_loops(x: Array, w: Array, pad: int) -> Array:
    """``out[n, O, y, z, b, o] = sum x[n, I, y+r-pad, z+t-pad, b, i] * w[O, I, r, t, o, i]``
    written directly in NCHW1n16c / OIHW16o16i (no unpacking), int64 sums."""
    n, ci, h, wd, nb, cb = x.shape
    co, _, kh, kw, ob, _ = w.shape
    xp = np.zeros((n, ci, h + 2 * pad, wd + 2 * pad, nb, cb), np.int64)
    xp[:, :, pad : pad + h, pad : pad + wd] = x
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    out = np.zeros((n, co, oh, ow, nb, ob), np.int64)
    for r in range(kh):
        for t in range(kw):
            window = xp[:, :, r : r + oh, t : t + ow]  # (n, I, oh, ow, b, i)
            out += np.einsum("nIyzbi,OIoi->nOyzbo", window, w[:, :, r, t].astype(np.int64))
    return out.astype(np.int32)


def test_packed_conv2d_is_the_convolution_in_the_packed_layout() -> None:
    rng = np.random.default_rng(0)
    x = rng.integers(-128, 128, (1, 2, 5, 5, 1, 16)).astype(np.int8)
    w = rng.integers(-128, 128, (3, 2, 3, 3, 16, 16)).astype(np.int8)
    mod = relay.parse(
        "def @main(%x: Tensor[(1, 2, 5, 5, 1, 16), int8], %w: Tensor[(3, 2, 3, 3, 16, 16), int8])"
        ' { nn.conv2d(%x, %w, padding=[1, 1, 1, 1], data_layout="NCHW1n16c",'
        ' kernel_layout="OIHW16o16i", out_dtype="int32") }'
    )
    ret = relay.infer_types(mod).global_type("main").ret_type
    assert isinstance(ret, s.TensorType) and ret.shape == (1, 3, 5, 5, 1, 16)
    np.testing.assert_array_equal(run(mod, x, w), packed_conv_loops(x, w, 1))


def test_packed_conv2d_rejects_groups_and_mismatched_blocks() -> None:
    t = s.TensorType
    relation = lookup("nn.conv2d").relation  # type: ignore[union-attr]
    assert relation is not None
    conv = lookup("nn.conv2d").attrs_type  # type: ignore[union-attr]
    assert conv is not None
    packed = {"data_layout": "NCHW1n16c", "kernel_layout": "OIHW16o16i"}
    with pytest.raises(RelationError, match="groups=2 is not supported"):
        relation(
            (t((1, 2, 4, 4, 1, 16), "int8"), t((1, 1, 3, 3, 16, 16), "int8")),
            conv.from_kwargs({**packed, "groups": 2}),
        )
    with pytest.raises(RelationError, match="the sub-axis 16i has extent 8, expected 16"):
        relation(
            (t((1, 2, 4, 4, 1, 16), "int8"), t((1, 2, 3, 3, 16, 8), "int8")),
            conv.from_kwargs(packed),
        )


def test_pack_weight_pads_with_zeros_and_blocks() -> None:
    w = np.arange(3 * 5 * 1 * 2, dtype=np.int8).reshape(3, 5, 1, 2)
    p = pack_weight(w, 4)
    assert p.shape == (1, 2, 1, 2, 4, 4)
    for o in range(4):
        for i in range(8):
            expected = w[o, i, 0, 1] if o < 3 and i < 5 else 0
            assert p[o // 4, i // 4, 0, 1, o % 4, i % 4] == expected


def conv_net(rng: np.random.Generator, c: int, o: int, hw: int) -> s.IRModule:
    x = s.Var("x", s.TensorType((1, c, hw, hw), "float32"))

    def weight(*shape: int) -> s.Constant:
        return s.Constant((0.4 * rng.standard_normal(shape)).astype(np.float32))

    y = call("nn.conv2d", x, weight(o, c, 3, 3), padding=(1, 1, 1, 1))
    y = call("nn.relu", call("nn.bias_add", y, weight(o)))
    z = call("nn.conv2d", y, weight(o, o, 1, 1))
    z = call("nn.relu", call("add", call("nn.bias_add", z, weight(o)), y))
    pooled = call("nn.max_pool2d", z, pool_size=(2, 2), strides=(2, 2))
    return s.IRModule({s.GlobalVar("main"): s.Function((x,), pooled)})


def test_packed_region_has_layout_transforms_only_at_its_boundaries() -> None:
    q = quantize(conv_net(np.random.default_rng(1), 3, 20, 6), QConfig(skip_conv_layers=()))
    text = relay.astext(graph_pack(q)).split("#[metadata]")[0]
    assert text.count('data_layout="NCHW1n16c", kernel_layout="OIHW16o16i"') == 2
    assert text.count("layout_transform(") == 2  # into the first conv, out before the pool
    assert "pad_width=[[0, 0], [0, 13], [0, 0], [0, 0]]" in text  # 3 -> 16 channels
    assert "end=[1, 20, 6, 6]" in text  # 20 channels padded to 32, sliced back
    assert BUILTIN_PASSES["graph-pack"] is GraphPack


def test_a_program_without_integer_convolutions_is_left_alone() -> None:
    mod = conv_net(np.random.default_rng(2), 2, 3, 4)
    assert graph_pack(mod) is mod


@settings(max_examples=12, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 18),
    st.integers(1, 18),
    st.integers(2, 5),
    st.sampled_from([4, 16]),
)
def test_graph_pack_keeps_every_bit(seed: int, c: int, o: int, hw: int, block: int) -> None:
    rng = np.random.default_rng(seed)
    mod = conv_net(rng, c, o, 2 * hw)
    x = rng.standard_normal((1, c, 2 * hw, 2 * hw)).astype(np.float32)
    q = quantize(mod, QConfig(calibrate_mode="max", skip_conv_layers=()), [[x]])
    packed = GraphPack(cfactor=block)(q)
    assert relay.infer_types(packed).global_type("main") == relay.infer_types(q).global_type("main")
    for _ in range(2):
        a = rng.standard_normal(x.shape).astype(np.float32)
        assert np.array_equal(run(packed, a), run(q, a))


def test_the_cpu_target_runs_the_packed_program_bit_for_bit() -> None:
    from relay.targets import get_target

    rng = np.random.default_rng(3)
    q = quantize(conv_net(rng, 3, 5, 4), QConfig(skip_conv_layers=()))
    packed = GraphPack(cfactor=4)(q)
    exe = get_target("cpu").compile(packed)
    a = rng.standard_normal((1, 3, 4, 4)).astype(np.float32)
    out = exe.run(TensorValue(a))
    assert isinstance(out, TensorValue)
    assert np.array_equal(out.data, run(packed, a))
    assert np.array_equal(out.data, run(q, a))
