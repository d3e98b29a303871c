"""The ``nn/activation`` operators (``semantics/ops/nn/activation.py``): relations, references."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_helpers import (
    FLOATS,
    NAMES,
    UNARY_ANY,
    Array,
    T,
    assert_agrees_tensor,
    check_reference_agrees_with_relation,
    m,
    n,
    of_family,
    raises,
    ref,
    rel,
    relate,
    run_onnx_node_typed,
    same,
    t,
    w,
)
from ops_nn_helpers import (
    ALL,
    RNG_SEED,
    RNG_SEED_2,
    SEED_RANGE,
    SEEDS,
    assert_agrees,
    check_record,
    normal,
    random,
    ref_checked,
    run_onnx_node,
    shapes,
)

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS, Attrs
from relay.semantics.ops.nn.activation import (
    LeakyReluAttrs,
    PReluAttrs,
    SoftmaxAttrs,
    fast_exp_float32,
)
from relay.semantics.ops.registry import OpPattern, RelationError
from relay.semantics.syntax import ANY, DTYPES, Type

GROUP = {
    "nn.prelu": ("PRelu", "onnxruntime:PRelu", OpPattern.BROADCAST),
}


def run(name: str, *args: npt.ArrayLike, attrs: Attrs | None = None) -> Array:
    reference = OPS[name].reference
    assert reference is not None
    out = reference(tuple(np.asarray(a) for a in args), attrs)
    assert isinstance(out, np.ndarray)
    return out


pytest.importorskip("onnx")


RNG = np.random.default_rng(20240518)


def _random(shape: tuple[int, ...], dtype: str, low: float = -4, high: float = 4) -> Array:
    if dtype == "bool":
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype.startswith(("int", "uint")):
        return RNG.integers(int(low), int(high), shape, endpoint=True).astype(dtype)
    return RNG.uniform(low, high, shape).astype(dtype)


_ONNX_UNARY: list[tuple[str, str, tuple[float, float], float]] = [
    # name, ONNX op, input range, relative tolerance (0: exact)
    ("nn.relu", "Relu", (-9, 9), 0),
]


REJECTED: list[tuple[str, tuple[Type, ...], Attrs | None, str]] = [
    (
        "nn.softmax",
        (T(2, 3),),
        SoftmaxAttrs(axis=2),
        r"axis=2 is out of range .* rank 2 \(expected -2 <= axis < 2\)",
    ),
    ("nn.log_softmax", (T(2, 3),), SoftmaxAttrs(axis=-3), "axis=-3 is out of range"),
    ("nn.prelu", (T(2, 3), T(2)), PReluAttrs(), r"Tensor\[\(3,\), float32\] for alpha"),
    ("nn.prelu", (T(2, 3), T(3, dtype="float16")), PReluAttrs(), "found Tensor.*float16"),
    ("nn.prelu", (T(2, 3), T(3)), PReluAttrs(axis=-1), "axis=-1 is out of range"),
    ("nn.prelu", (T(2, 3), T(3)), PReluAttrs(axis=2), "axis=2 is out of range"),
    ("nn.fast_softmax", (T(2, 3),), SoftmaxAttrs(axis=2), "axis=2 is out of range"),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", of_family(UNARY_ANY, "nn/activation"))
def test_identity_keeps_type(name: str, dtype: str) -> None:
    for shape in [(), (2, 3), (ANY, n, 2 * m + 1)]:
        assert relate(name, t(shape, dtype)) == t(shape, dtype)


def test_relu() -> None:
    x = np.array([np.nan, -0.0, -2.0, 3.0, np.inf], "float32")
    same(run("nn.relu", x), np.array([0.0, 0.0, 0.0, 3.0, np.inf], "float32"))
    same(run("nn.relu", np.array([-5, 5], "int8")), np.array([0, 5], "int8"))
    same(run("nn.relu", np.array([3], "uint32")), np.array([3], "uint32"))


def test_leaky_relu() -> None:
    x = np.array([-2.0, 3.0, np.nan, -0.0], "float32")
    same(
        run("nn.leaky_relu", x, attrs=LeakyReluAttrs(0.1)),
        np.array([np.float32(-2.0) * np.float32(0.1), 3.0, np.nan, -0.0], "float32"),
    )
    # Integer data: alpha truncates toward zero, here to 2 and to 0.
    same(
        run("nn.leaky_relu", np.array([-3, 4], "int32"), attrs=LeakyReluAttrs(2.9)),
        np.array([-6, 4], "int32"),
    )
    same(
        run("nn.leaky_relu", np.array([-3, 4], "int8"), attrs=LeakyReluAttrs(0.25)),
        np.array([0, 4], "int8"),
    )
    # Only the selected product can overflow.
    big = np.array([2**30], "int32")
    same(run("nn.leaky_relu", big, attrs=LeakyReluAttrs(4.0)), big)
    with raises(UndefinedBehavior, "nn.leaky_relu overflows int32"):
        run("nn.leaky_relu", -big, attrs=LeakyReluAttrs(4.0))
    same(
        run("nn.leaky_relu", np.array([-100], "int8"), attrs=LeakyReluAttrs(3.0)),
        np.array([-44], "int8"),
    )
    with raises(UndefinedBehavior, "alpha -0.5 cannot be represented in uint8"):
        run("nn.leaky_relu", np.array([1], "uint8"), attrs=LeakyReluAttrs(-0.5))


@pytest.mark.parametrize(
    ("name", "op_type", "bounds", "rtol"), of_family(_ONNX_UNARY, "nn/activation")
)
def test_unary_against_onnxruntime(
    name: str, op_type: str, bounds: tuple[float, float], rtol: float
) -> None:
    for dtype in ("float32", "float64"):
        x = _random((4, 5), dtype, *bounds)
        expected = run_onnx_node_typed(op_type, [x], dtype)
        actual = run(name, x)
        assert actual.dtype == expected.dtype and actual.shape == expected.shape
        if rtol:
            np.testing.assert_allclose(actual, expected, rtol=rtol, atol=1e-7)
        else:
            np.testing.assert_array_equal(actual, expected)
    if name in ("negative", "abs", "nn.relu"):
        x = _random((7,), "int32", -9, 9)
        np.testing.assert_array_equal(run(name, x), run_onnx_node_typed(op_type, [x], "int32"))


def test_leaky_relu_against_onnxruntime() -> None:
    x = _random((4, 6), "float32", -9, 9)
    expected = run_onnx_node_typed("LeakyRelu", [x], "float32", alpha=0.3)
    same(run("nn.leaky_relu", x, attrs=LeakyReluAttrs(0.3)), expected)


@pytest.mark.parametrize("name", of_family(NAMES, "nn/activation"))
@settings(max_examples=30)  # per op: 38 ops share the file's time budget
@given(data=st.data())
def test_reference_agrees_with_relation(name: str, data: st.DataObject) -> None:
    check_reference_agrees_with_relation(name, data)


@pytest.mark.parametrize("name", ["nn.softmax", "nn.log_softmax"])
def test_softmax_relation(name: str) -> None:
    assert rel(name, T(n, 10), attrs=SoftmaxAttrs()) == T(n, 10)
    f16 = T(n, ANY, 3, dtype="float16")
    assert rel(name, f16, attrs=SoftmaxAttrs(axis=-3)) == f16
    assert rel(name, T(2, dtype="int32"), attrs=SoftmaxAttrs()) == T(2, dtype="int32")


@pytest.mark.parametrize(
    ("name", "types", "attrs", "message"),
    of_family(REJECTED, "nn/activation"),
)
def test_relation_rejects(
    name: str, types: tuple[Type, ...], attrs: Attrs | None, message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        rel(name, *types, attrs=attrs)


@pytest.mark.parametrize("axis", [-1, 0, 1, 2])
def test_softmax_matches_onnxruntime(axis: int) -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((3, 4, 5)).astype(np.float32) * 3
    got = ref("nn.softmax", x, attrs=SoftmaxAttrs(axis=axis))
    np.testing.assert_allclose(got, run_onnx_node("Softmax", [x], axis=axis), rtol=1e-5, atol=1e-7)
    got = ref("nn.log_softmax", x, attrs=SoftmaxAttrs(axis=axis))
    np.testing.assert_allclose(
        got, run_onnx_node("LogSoftmax", [x], axis=axis), rtol=1e-5, atol=1e-6
    )


def test_softmax_is_numerically_stable() -> None:
    x = np.array([[1000.0, 1001.0, 1002.0], [-1000.0, -1000.0, -1000.0]], np.float32)
    got = ref("nn.softmax", x, attrs=SoftmaxAttrs())
    e = np.exp(np.array([-2.0, -1.0, 0.0]))
    np.testing.assert_allclose(got[0], e / e.sum(), rtol=1e-6)
    np.testing.assert_allclose(got[1], [1 / 3] * 3, rtol=1e-6)
    log = ref("nn.log_softmax", x, attrs=SoftmaxAttrs())
    np.testing.assert_allclose(log[0], np.log(e / e.sum()), rtol=1e-6)
    assert np.isfinite(log).all()
    h16 = ref("nn.softmax", np.array([0.0, 20.0], np.float16), attrs=SoftmaxAttrs())
    assert h16.dtype == np.float16 and h16[1] == 1
    with pytest.raises(UndefinedBehavior, match="int32 data"):
        ref("nn.softmax", np.ones(3, np.int32), attrs=SoftmaxAttrs())
    with pytest.raises(UndefinedBehavior, match="bool data"):
        ref("nn.log_softmax", np.ones(3, bool), attrs=SoftmaxAttrs())


@settings(max_examples=40)
@given(
    SEEDS,
    st.sampled_from(("nn.softmax", "nn.log_softmax")),
    st.sampled_from(ALL),
    shapes,
    st.data(),
)
def test_softmax_reference_agrees_with_relation(
    seed: int, name: str, dtype: str, shape: tuple[int, ...], data: st.DataObject
) -> None:
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = random(np.random.default_rng(seed), shape, dtype)
    assert_agrees(name, (x,), SoftmaxAttrs(axis=axis), defined=dtype in FLOATS)


@pytest.mark.parametrize("name", of_family(sorted(GROUP), "nn/activation"))
def test_records(name: str) -> None:
    check_record(name, GROUP[name])


def test_prelu_relation() -> None:
    assert rel("nn.prelu", T(n, 3, 4), T(3), attrs=PReluAttrs()) == T(n, 3, 4)
    assert rel("nn.prelu", T(2, 3, w), T(w), attrs=PReluAttrs(axis=2)) == T(2, 3, w)
    assert rel("nn.prelu", T(2, ANY), T(5), attrs=PReluAttrs()) == T(2, ANY)


def test_prelu_matches_onnxruntime() -> None:
    rng = np.random.default_rng(RNG_SEED_2)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    for axis in range(4):
        alpha = rng.standard_normal(x.shape[axis]).astype(np.float32)
        slope = alpha.reshape((-1,) + (1,) * (3 - axis))
        got = assert_agrees_tensor("nn.prelu", (x, alpha), PReluAttrs(axis=axis))
        np.testing.assert_array_equal(got, onnx_run("PRelu", [x, slope]))
    xi = np.array([[-3, 0, 5]], np.int8)
    assert ref("nn.prelu", xi, np.array([50], np.int8), attrs=PReluAttrs(axis=0)).tolist() == [
        [106, 0, 5]
    ]  # -150 wraps
    big = np.array([[-(2**30), 2**30]], np.int32)
    with pytest.raises(UndefinedBehavior, match="overflows int32"):
        ref("nn.prelu", big, np.array([4], np.int32), attrs=PReluAttrs(axis=0))
    # a positive element's product is not selected, so it cannot overflow
    assert ref(
        "nn.prelu", big[:, 1:], np.array([4], np.int32), attrs=PReluAttrs(axis=0)
    ).tolist() == [[2**30]]
    xb = np.array([[True, False]])
    assert ref("nn.prelu", xb, np.array([True]), attrs=PReluAttrs(axis=0)).tolist() == [
        [True, False]
    ]


def test_fast_exp_is_close_to_exp() -> None:
    x = np.linspace(-80, 80, 1001, dtype="float32")
    np.testing.assert_allclose(fast_exp_float32(x), np.exp(x), rtol=1e-5)
    edge = np.array([np.nan, np.inf, -np.inf, -100.0], "float32")
    out = fast_exp_float32(edge)
    assert np.isnan(out[0]) and out[1] == np.inf and out[2] == 0 and out[3] == 0


@pytest.mark.parametrize("seed", SEED_RANGE)
def test_fast_softmax_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for dtype, rtol in (("float32", 1e-5), ("float64", 1e-12), ("float16", 2e-3)):
        x = (normal(rng, 2, 3, 5) * 4).astype(dtype)
        for axis in (-1, 0, 1):
            ours = ref_checked("nn.fast_softmax", x, attrs=SoftmaxAttrs(axis=axis))
            theirs = onnx_run("Softmax", [x], axis=axis)
            np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=rtol)
