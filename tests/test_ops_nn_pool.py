"""The ``nn/pool`` operators (``semantics/ops/nn/pool.py``): relations, references, checks."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_helpers import Array, T, assert_agrees_tensor, h, n, of_family, ref, rel, w
from ops_nn_helpers import (
    ALL,
    RNG_SEED,
    RNG_SEED_2,
    SEEDS,
    X,
    assert_agrees,
    check_record,
    pick,
    random,
    run_onnx_node,
)

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops.nn.pool import (
    AdaptivePool2DAttrs,
    AvgPool1DAttrs,
    AvgPool2DAttrs,
    AvgPool3DAttrs,
    GlobalPool2DAttrs,
    MaxPool1DAttrs,
    MaxPool2DAttrs,
    MaxPool3DAttrs,
)
from relay.semantics.ops.registry import Attrs, OpPattern, RelationError
from relay.semantics.syntax import ANY, TensorType, Type

GROUP = {
    "nn.max_pool1d": ("MaxPool1D", "onnxruntime:MaxPool", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.avg_pool1d": ("AvgPool1D", "onnxruntime:AveragePool", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.max_pool3d": ("MaxPool3D", "onnxruntime:MaxPool", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.avg_pool3d": ("AvgPool3D", "onnxruntime:AveragePool", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.adaptive_avg_pool2d": (
        "AdaptiveAvgPool2D",
        "independent:direct loops over the output cells",
        OpPattern.OUT_ELEMWISE_FUSABLE,
    ),
    "nn.adaptive_max_pool2d": (
        "AdaptiveMaxPool2D",
        "independent:direct loops over the output cells",
        OpPattern.OUT_ELEMWISE_FUSABLE,
    ),
    "nn.global_max_pool2d": (
        "GlobalMaxPool2D",
        "onnxruntime:GlobalMaxPool",
        OpPattern.OUT_ELEMWISE_FUSABLE,
    ),
}


def Avg(**attrs: Any) -> AvgPool2DAttrs:
    return AvgPool2DAttrs(**{"pool_size": (2, 2), **attrs})


def Max(**attrs: Any) -> MaxPool2DAttrs:
    return MaxPool2DAttrs(**{"pool_size": (2, 2), **attrs})


def pool(name: str, data: TensorType, **attrs: Any) -> Type:
    cls = MaxPool2DAttrs if name == "nn.max_pool2d" else AvgPool2DAttrs
    return rel(name, data, attrs=cls(**attrs))


@st.composite
def pool_cases(draw: st.DrawFn, avg: bool) -> tuple[tuple[Array, ...], Attrs]:
    rng = np.random.default_rng(draw(SEEDS))
    dtype = pick(draw, ALL)
    layout = draw(st.sampled_from(["NCHW", "NHWC", "NCHW4c", "HW"]))
    kernel = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    strides = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = tuple(
        draw(st.lists(st.integers(0, 1), min_size=1, max_size=4).filter(lambda p: len(p) != 3))
    )
    ceil = draw(st.booleans())
    spans = [(k - 1) * d + 1 for k, d in zip(kernel, dilation, strict=True)]
    sizes = {"N": draw(st.integers(0, 2)), "C": draw(st.integers(1, 2)), "c": 4}
    sizes["H"] = draw(st.integers(spans[0], spans[0] + 4))
    sizes["W"] = draw(st.integers(spans[1], spans[1] + 4))
    shape = tuple(sizes[a] for a in layout.replace("4c", "c"))
    data = random(rng, shape, dtype)
    common: dict[str, Any] = {
        "pool_size": kernel,
        "strides": strides,
        "dilation": dilation,
        "padding": padding,
        "layout": layout,
        "ceil_mode": ceil,
    }
    if avg:
        return (data,), AvgPool2DAttrs(count_include_pad=draw(st.booleans()), **common)
    return (data,), MaxPool2DAttrs(**common)


def agrees_unless_zero_count(name: str, args: tuple[Array, ...], attrs: Attrs) -> None:
    if args[0].dtype == bool:
        assert_agrees(name, args, attrs, defined=False)
        return
    try:
        assert_agrees(name, args, attrs)
    except UndefinedBehavior as e:  # only the ceil_mode + count_include_pad integer corner
        assert "zero element count" in str(e)


REJECTED: list[tuple[str, tuple[Type, ...], Attrs | None, str]] = [
    ("nn.max_pool2d", (T(1, 3, 2, 8),), Max(pool_size=(3, 3)), "window .3. is longer"),
    ("nn.avg_pool2d", (T(1, 3, 4, 8),), Avg(pool_size=(3, 3), dilation=(2, 1)), "window .5."),
    ("nn.max_pool2d", (T(1, 3, 8),), Max(layout="NCW"), "expected one H and one W axis"),
    ("nn.avg_pool2d", (T(1, 3, 8, 8, 2),), Avg(layout="NCHW2h"), "H and W cannot be split"),
    ("nn.max_pool2d", (T(3, 8, 8),), Max(), 'layout="NCHW" has 4 axes but the data has rank 3'),
    ("nn.avg_pool2d", (T(8),), Avg(), "rank at least 2, found rank 1"),
    ("nn.max_pool2d", (X,), Max(layout="N1CHW"), 'layout="N1CHW" is not a layout string'),
    ("nn.max_pool2d", (X,), Max(padding=(1, 1, 1)), "1, 2 or 4 integers in padding"),
    ("nn.avg_pool2d", (X,), Avg(pool_size=(2,)), r"2 integers in pool_size, found pool_size=\[2\]"),
    (
        "nn.max_pool2d",
        (X,),
        Max(pool_size=(0, 2)),
        r"expected positive pool_size, found pool_size=\[0, 2\]",
    ),
    ("nn.global_avg_pool2d", (T(2, 3, 7),), GlobalPool2DAttrs(layout="NCW"), "one H and one W"),
    ("nn.global_avg_pool2d", (T(3),), GlobalPool2DAttrs(), "rank at least 2"),
    ("nn.max_pool1d", (T(1, 3, 2),), MaxPool1DAttrs(pool_size=(3,)), r"window \(3\) is longer"),
    ("nn.avg_pool1d", (T(1, 3, 8),), AvgPool1DAttrs(pool_size=(2, 2)), "pool_size must hold 1"),
    ("nn.max_pool1d", (T(1, 3, 8),), MaxPool1DAttrs(pool_size=(0,)), "must be positive"),
    ("nn.max_pool1d", (T(1, 3, 8, 8),), MaxPool1DAttrs(pool_size=(2,)), "has 3 axes but"),
    ("nn.max_pool1d", (T(1, 3, 8),), MaxPool1DAttrs(pool_size=(2,), layout="NCH"), "one W"),
    (
        "nn.avg_pool1d",
        (T(1, 8, 2),),
        AvgPool1DAttrs(pool_size=(2,), layout="NW2w"),
        "W cannot be split",
    ),
    ("nn.avg_pool1d", (T(1, 3, 8),), AvgPool1DAttrs(pool_size=(2,), padding=(-1,)), "non-neg"),
    (
        "nn.max_pool3d",
        (T(1, 2, 4, 4, 4),),
        MaxPool3DAttrs(pool_size=(2, 2, 2), padding=(1, 1)),
        "1, 3 or 6 integers",
    ),
    (
        "nn.avg_pool3d",
        (T(2, 4, 4),),
        AvgPool3DAttrs(pool_size=(2, 2, 2)),
        '"NCDHW" has 5 axes but the data has rank 3',
    ),
    (
        "nn.max_pool3d",
        (T(1, 2, 1, 4, 4),),
        MaxPool3DAttrs(pool_size=(2, 2, 2)),
        r"window \(2\) is longer than the padded input \(1\)",
    ),
    ("nn.avg_pool3d", (T(4, 4),), AvgPool3DAttrs(pool_size=(1, 1, 1)), "rank at least 3"),
    (
        "nn.adaptive_avg_pool2d",
        (T(1, 2, 4, 4),),
        AdaptivePool2DAttrs(output_size=(1, 2, 3)),
        "at most 2 integers, found 3",
    ),
    (
        "nn.adaptive_max_pool2d",
        (T(1, 2, 4, 4),),
        AdaptivePool2DAttrs(output_size=(-1,)),
        r"non-negative, found \(-1,\)",
    ),
    ("nn.adaptive_max_pool2d", (T(4),), AdaptivePool2DAttrs(), "rank at least 2"),
    ("nn.global_max_pool2d", (T(1, 2, 3),), GlobalPool2DAttrs(), "has 4 axes but"),
]


POOL1D_CASES = [
    # kernel, strides, padding, dilation, ceil_mode
    ((3,), (2,), (1,), (1,), False),
    ((3,), (2,), (1, 0), (1,), True),
    ((2,), (3,), (0, 1), (2,), False),
    ((1,), (1,), (0,), (1,), False),
]


POOL3D_CASES = [
    ((2, 2, 2), (2, 2, 2), (0,), (1, 1, 1), False),
    ((2, 3, 2), (1, 2, 2), (1, 0, 1), (1, 1, 2), True),
    ((3, 2, 2), (2, 1, 3), (1, 0, 0, 0, 1, 1), (1, 2, 1), False),
]


@pytest.mark.parametrize("name", ["nn.max_pool2d", "nn.avg_pool2d"])
def test_pool2d_relation(name: str) -> None:
    k3s2 = {"pool_size": (3, 3), "strides": (2, 2)}
    assert pool(name, T(1, 3, 8, 8), **k3s2) == T(1, 3, 3, 3)
    assert pool(name, T(1, 3, 8, 8), ceil_mode=True, **k3s2) == T(1, 3, 4, 4)
    assert pool(name, T(1, 3, 7, 7), ceil_mode=True, **k3s2) == T(1, 3, 3, 3)
    k2 = {"pool_size": (2, 2)}
    assert pool(name, T(1, 3, 8, 8), padding=(1,), **k2) == T(1, 3, 9, 9)
    assert pool(name, T(1, 3, 8, 8), padding=(1, 0), **k2) == T(1, 3, 9, 7)
    assert pool(name, T(1, 3, 8, 8), padding=(1, 0, 0, 2), **k2) == T(1, 3, 8, 9)
    assert pool(name, T(1, 3, 8, 8), pool_size=(3, 3), dilation=(2, 2)) == T(1, 3, 4, 4)
    k2s2 = {"pool_size": (2, 2), "strides": (2, 2)}
    assert pool(name, T(1, 8, 8, 3), layout="NHWC", **k2s2) == T(1, 4, 4, 3)
    assert pool(name, T(1, 2, 8, 8, 4), layout="NCHW4c", **k2s2) == T(1, 2, 4, 4, 4)
    assert pool(name, T(8, 8), layout="HW", **k2) == T(7, 7)
    assert pool(name, T(n, 3, h, 8), **k2s2) == T(n, 3, (h - 2) // 2 + 1, 4)
    assert pool(name, T(n, 3, 2 * h, 8), **k2s2) == T(n, 3, h, 4)
    assert pool(name, T(ANY, 3, ANY, 8), **k2) == T(ANY, 3, ANY, 7)
    assert pool(name, T(1, 3, 8, 8, dtype="int8"), **k2) == T(1, 3, 7, 7, dtype="int8")
    # out_layout does not enter the relation
    assert pool(name, T(1, 3, 8, 8), out_layout="NHWC", **k2) == T(1, 3, 7, 7)


def test_global_avg_pool2d_relation() -> None:
    gap = "nn.global_avg_pool2d"
    assert rel(gap, T(n, 3, 7, 7), attrs=GlobalPool2DAttrs()) == T(n, 3, 1, 1)
    assert rel(gap, T(n, ANY, ANY, 3), attrs=GlobalPool2DAttrs(layout="NHWC")) == T(n, 1, 1, 3)
    i32 = T(2, 3, 7, 7, dtype="int32")
    assert rel(gap, i32, attrs=GlobalPool2DAttrs()) == T(2, 3, 1, 1, dtype="int32")


@pytest.mark.parametrize(("name", "types", "attrs", "message"), of_family(REJECTED, "nn/pool"))
def test_relation_rejects(
    name: str, types: tuple[Type, ...], attrs: Attrs | None, message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        rel(name, *types, attrs=attrs)


@pytest.mark.parametrize(
    ("kernel", "strides", "padding", "dilation", "ceil"),
    [
        ((3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True),
        ((2, 2), (2, 2), (0, 0, 0, 0), (1, 1), True),
        ((3, 2), (1, 2), (1, 0, 1, 1), (1, 1), False),
        ((3, 3), (1, 1), (1, 1, 1, 1), (2, 2), False),
        ((2, 2), (2, 3), (1, 0, 1, 0), (2, 1), True),
        ((2, 3), (3, 3), (0, 0, 1, 1), (1, 1), True),
    ],
)
def test_pool2d_matches_onnxruntime(
    kernel: tuple[int, int],
    strides: tuple[int, int],
    padding: tuple[int, ...],
    dilation: tuple[int, int],
    ceil: bool,
) -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 3, 7, 8)).astype(np.float32)
    common = {
        "pool_size": kernel,
        "strides": strides,
        "padding": padding,
        "dilation": dilation,
        "ceil_mode": ceil,
    }
    onnx_attrs = {
        "kernel_shape": list(kernel),
        "strides": list(strides),
        "pads": list(padding),
        "dilations": list(dilation),
        "ceil_mode": int(ceil),
    }
    got = ref("nn.max_pool2d", x, attrs=MaxPool2DAttrs(**common))
    np.testing.assert_array_equal(got, run_onnx_node("MaxPool", [x], **onnx_attrs))
    for include in (False, True):
        got = ref("nn.avg_pool2d", x, attrs=AvgPool2DAttrs(count_include_pad=include, **common))
        expected = run_onnx_node(
            "AveragePool", [x], opset=19, count_include_pad=int(include), **onnx_attrs
        )
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_pool2d_nhwc_agrees_with_nchw() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 3, 6, 7)).astype(np.float32)
    common = {"pool_size": (2, 3), "strides": (2, 1), "padding": (1, 0, 0, 1), "ceil_mode": True}
    for name, cls in (("nn.max_pool2d", MaxPool2DAttrs), ("nn.avg_pool2d", AvgPool2DAttrs)):
        nchw = ref(name, x, attrs=cls(**common))
        nhwc = ref(name, x.transpose(0, 2, 3, 1), attrs=cls(layout="NHWC", **common))
        np.testing.assert_allclose(nhwc, nchw.transpose(0, 2, 3, 1), rtol=1e-6)


def test_avg_pool2d_hand_computed() -> None:
    x = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    attrs = {"pool_size": (2, 2), "padding": (1,), "strides": (2, 2)}
    # windows at (-1,-1), (-1,1), (1,-1), (1,1); the corner window holds only x[0,0] = 1
    exclude = ref("nn.avg_pool2d", x, attrs=AvgPool2DAttrs(**attrs))
    np.testing.assert_allclose(
        exclude[0, 0], [[1, (2 + 3) / 2], [(4 + 7) / 2, (5 + 6 + 8 + 9) / 4]]
    )
    include = ref("nn.avg_pool2d", x, attrs=AvgPool2DAttrs(count_include_pad=True, **attrs))
    np.testing.assert_allclose(include[0, 0], [[1 / 4, 5 / 4], [11 / 4, 28 / 4]])
    # integers: the window sum, divided truncating toward zero
    xi = np.array([[[[-3, -4], [2, 0]]]], np.int32)
    assert ref("nn.avg_pool2d", xi, attrs=AvgPool2DAttrs(pool_size=(2, 2))).tolist() == [[[[-1]]]]
    x8 = np.full((1, 1, 2, 2), 100, np.int8)
    assert ref("nn.avg_pool2d", x8, attrs=AvgPool2DAttrs(pool_size=(2, 2))).tolist() == [
        [[[-28]]]
    ]  # 400 wraps to -112


def test_avg_pool2d_count_include_pad_zero_divisor() -> None:
    """A ceil_mode window lying wholly in the ceil extension: TVM's count_include_pad count is
    0 there, so floats give 0/0 = NaN and integers divide by zero."""
    attrs = AvgPool2DAttrs(pool_size=(1, 1), strides=(2, 2), ceil_mode=True, count_include_pad=True)
    out = ref("nn.avg_pool2d", np.ones((1, 1, 2, 2), np.float32), attrs=attrs)
    assert out.shape == (1, 1, 2, 2) and out[0, 0, 0, 0] == 1
    assert np.isnan(out[0, 0, 0, 1]) and np.isnan(out[0, 0, 1, 0]) and np.isnan(out[0, 0, 1, 1])
    # without count_include_pad the count is at least 1: the empty window averages to 0
    attrs = AvgPool2DAttrs(pool_size=(1, 1), strides=(2, 2), ceil_mode=True)
    out = ref("nn.avg_pool2d", np.ones((1, 1, 2, 2), np.float32), attrs=attrs)
    assert out[0, 0].tolist() == [[1, 0], [0, 0]]
    attrs = AvgPool2DAttrs(pool_size=(1, 1), strides=(2, 2), ceil_mode=True, count_include_pad=True)
    with pytest.raises(UndefinedBehavior, match="zero element count"):
        ref("nn.avg_pool2d", np.ones((1, 1, 2, 2), np.int32), attrs=attrs)


def test_max_pool2d_padding_and_nan() -> None:
    x = np.full((1, 1, 2, 2), -np.inf, np.float32)
    out = ref("nn.max_pool2d", x, attrs=MaxPool2DAttrs(pool_size=(2, 2)))
    assert out[0, 0, 0, 0] == np.finfo(np.float32).min  # te.max starts from the lowest value
    # a window wholly in the padding sees only the lowest finite value, not -inf
    ones = np.ones((1, 1, 2, 2), np.float16)
    out = ref("nn.max_pool2d", ones, attrs=MaxPool2DAttrs(pool_size=(1, 1), padding=(1,)))
    assert out[0, 0, 0, 0] == np.float16(-65504) and out[0, 0, 1, 1] == 1
    xi = np.array([[[[-5, -7]]]], np.int32)
    out = ref("nn.max_pool2d", xi, attrs=MaxPool2DAttrs(pool_size=(1, 2), padding=(0, 1)))
    assert out.tolist() == [[[[-5, -5, -7]]]]
    xb = np.array([[[[False, True, False]]]])
    assert ref("nn.max_pool2d", xb, attrs=MaxPool2DAttrs(pool_size=(1, 2))).tolist() == [
        [[[True, True]]]
    ]
    nan = np.array([[[[1.0, np.nan, 2.0]]]], np.float32)
    with pytest.raises(UndefinedBehavior, match="NaN"):
        ref("nn.max_pool2d", nan, attrs=MaxPool2DAttrs(pool_size=(1, 2)))
    # a NaN no window reads is harmless
    assert ref(
        "nn.max_pool2d", nan, attrs=MaxPool2DAttrs(pool_size=(1, 1), strides=(1, 2))
    ).tolist() == [[[[1.0, 2.0]]]]


def test_global_avg_pool2d() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 3, 5, 4)).astype(np.float32)
    got = ref("nn.global_avg_pool2d", x, attrs=GlobalPool2DAttrs())
    np.testing.assert_allclose(got, run_onnx_node("GlobalAveragePool", [x]), rtol=1e-5, atol=1e-6)
    nhwc = ref(
        "nn.global_avg_pool2d", x.transpose(0, 2, 3, 1), attrs=GlobalPool2DAttrs(layout="NHWC")
    )
    np.testing.assert_allclose(nhwc, got.transpose(0, 2, 3, 1), rtol=1e-6)
    xi = np.array([[[[1, 2], [3, -10]]]], np.int32)  # sum -4, mean -1 truncating
    assert ref("nn.global_avg_pool2d", xi, attrs=GlobalPool2DAttrs()).tolist() == [[[[-1]]]]
    with pytest.raises(UndefinedBehavior, match="not representable in int8"):
        ref("nn.global_avg_pool2d", np.ones((1, 1, 12, 12), np.int8), attrs=GlobalPool2DAttrs())
    with pytest.raises(UndefinedBehavior, match="bool"):
        ref("nn.global_avg_pool2d", np.ones((1, 1, 2, 2), bool), attrs=GlobalPool2DAttrs())


@settings(max_examples=60)
@given(pool_cases(avg=False))
def test_max_pool2d_reference_agrees_with_relation(case: tuple[tuple[Array, ...], Attrs]) -> None:
    assert_agrees("nn.max_pool2d", *case)


@settings(max_examples=60)
@given(pool_cases(avg=True))
def test_avg_pool2d_reference_agrees_with_relation(case: tuple[tuple[Array, ...], Attrs]) -> None:
    agrees_unless_zero_count("nn.avg_pool2d", *case)


@settings(max_examples=40)
@given(
    SEEDS,
    st.sampled_from(ALL),
    st.sampled_from(["NCHW", "NHWC"]),
    st.lists(st.integers(1, 3), min_size=4, max_size=4),
)
def test_global_avg_pool2d_reference_agrees_with_relation(
    seed: int, dtype: str, layout: str, shape: list[int]
) -> None:
    data = random(np.random.default_rng(seed), tuple(shape), dtype)
    attrs = GlobalPool2DAttrs(layout=layout)
    assert_agrees("nn.global_avg_pool2d", (data,), attrs, defined=dtype != "bool")


@pytest.mark.parametrize("name", of_family(sorted(GROUP), "nn/pool"))
def test_records(name: str) -> None:
    check_record(name, GROUP[name])


def test_pool_relations() -> None:
    k3s2 = {"pool_size": (3,), "strides": (2,)}
    assert rel("nn.max_pool1d", T(1, 3, 8), attrs=MaxPool1DAttrs(**k3s2)) == T(1, 3, 3)
    ceil = MaxPool1DAttrs(ceil_mode=True, **k3s2)
    assert rel("nn.max_pool1d", T(1, 3, 8), attrs=ceil) == T(1, 3, 4)
    lr = AvgPool1DAttrs(pool_size=(2,), padding=(1, 0), layout="NWC")
    assert rel("nn.avg_pool1d", T(n, w, 3), attrs=lr) == T(n, w, 3)
    assert rel(
        "nn.avg_pool1d", T(4, 8, 2, 2), attrs=AvgPool1DAttrs(pool_size=(2,), layout="NCW2c")
    ) == T(4, 8, 1, 2)
    assert rel("nn.max_pool1d", T(ANY), attrs=MaxPool1DAttrs(pool_size=(2,), layout="W")) == T(ANY)
    a3 = MaxPool3DAttrs(pool_size=(2, 2, 3), strides=(2, 1, 1), padding=(1, 0, 0, 0, 1, 2))
    assert rel("nn.max_pool3d", T(1, 2, 5, 6, 7), attrs=a3) == T(1, 2, 3, 6, 7)
    d3 = AvgPool3DAttrs(pool_size=(2, 2, 2), dilation=(2, 1, 1), layout="DHW")
    assert rel("nn.avg_pool3d", T(5, 4, n, dtype="int8"), attrs=d3) == T(3, 3, n - 1, dtype="int8")


def test_adaptive_and_global_relations() -> None:
    for name in ("nn.adaptive_avg_pool2d", "nn.adaptive_max_pool2d"):
        assert rel(name, T(n, 3, 7, 9), attrs=AdaptivePool2DAttrs()) == T(n, 3, 7, 9)
        assert rel(name, T(n, 3, 7, 9), attrs=AdaptivePool2DAttrs(output_size=(2,))) == T(
            n, 3, 2, 2
        )
        nhwc = AdaptivePool2DAttrs(output_size=(1, 4), layout="NHWC")
        assert rel(name, T(2, ANY, w, 3), attrs=nhwc) == T(2, 1, 4, 3)
        assert rel(name, T(7, 9), attrs=AdaptivePool2DAttrs(output_size=(0, 3), layout="HW")) == T(
            0, 3
        )
    g = "nn.global_max_pool2d"
    assert rel(g, T(n, 3, 7, 7, dtype="int8"), attrs=GlobalPool2DAttrs()) == T(
        n, 3, 1, 1, dtype="int8"
    )


@pytest.mark.parametrize(("kernel", "strides", "padding", "dilation", "ceil"), POOL1D_CASES)
def test_pool1d_matches_onnxruntime(
    kernel: tuple[int, ...],
    strides: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
    ceil: bool,
) -> None:
    rng = np.random.default_rng(RNG_SEED_2)
    x = rng.standard_normal((2, 3, 9)).astype(np.float32)
    common = {"pool_size": kernel, "strides": strides, "padding": padding, "dilation": dilation}
    onnx = {
        "kernel_shape": list(kernel),
        "strides": list(strides),
        "pads": list(padding) * (2 // len(padding)),
        "dilations": list(dilation),
        "ceil_mode": int(ceil),
    }
    got = assert_agrees_tensor("nn.max_pool1d", (x,), MaxPool1DAttrs(ceil_mode=ceil, **common))
    np.testing.assert_array_equal(got, onnx_run("MaxPool", [x], **onnx))
    for include in (False, True):
        attrs = AvgPool1DAttrs(ceil_mode=ceil, count_include_pad=include, **common)
        got = assert_agrees_tensor("nn.avg_pool1d", (x,), attrs)
        expected = onnx_run("AveragePool", [x], opset=19, count_include_pad=int(include), **onnx)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("kernel", "strides", "padding", "dilation", "ceil"), POOL3D_CASES)
def test_pool3d_matches_onnxruntime(
    kernel: tuple[int, ...],
    strides: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
    ceil: bool,
) -> None:
    rng = np.random.default_rng(RNG_SEED_2)
    x = rng.standard_normal((1, 2, 5, 6, 7)).astype(np.float32)
    common = {"pool_size": kernel, "strides": strides, "padding": padding, "dilation": dilation}
    onnx = {
        "kernel_shape": list(kernel),
        "strides": list(strides),
        "pads": list(padding) * (6 // len(padding)),
        "dilations": list(dilation),
        "ceil_mode": int(ceil),
    }
    got = assert_agrees_tensor("nn.max_pool3d", (x,), MaxPool3DAttrs(ceil_mode=ceil, **common))
    np.testing.assert_array_equal(got, onnx_run("MaxPool", [x], **onnx))
    for include in (False, True):
        attrs = AvgPool3DAttrs(ceil_mode=ceil, count_include_pad=include, **common)
        got = assert_agrees_tensor("nn.avg_pool3d", (x,), attrs)
        expected = onnx_run("AveragePool", [x], opset=19, count_include_pad=int(include), **onnx)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    # the NDHWC layout pools the same axes
    moved = ref(
        "nn.max_pool3d",
        x.transpose(0, 2, 3, 4, 1),
        attrs=MaxPool3DAttrs(layout="NDHWC", ceil_mode=ceil, **common),
    )
    np.testing.assert_array_equal(
        moved,
        ref("nn.max_pool3d", x, attrs=MaxPool3DAttrs(ceil_mode=ceil, **common)).transpose(
            0, 2, 3, 4, 1
        ),
    )


def test_pools_hand_computed_and_undefined() -> None:
    x = np.array([[[1, 2, 3, 4]]], np.int32)
    # windows at -1..0, 1..2, 3..4 of [0 | 1 2 3 4 | 0]
    avg = AvgPool1DAttrs(pool_size=(2,), strides=(2,), padding=(1,))
    assert ref("nn.avg_pool1d", x, attrs=avg).tolist() == [[[1, 2, 4]]]
    inc = AvgPool1DAttrs(pool_size=(2,), strides=(2,), padding=(1,), count_include_pad=True)
    assert ref("nn.avg_pool1d", x, attrs=inc).tolist() == [[[0, 2, 2]]]  # 1/2, 5/2, 4/2
    mx = MaxPool1DAttrs(pool_size=(2,), strides=(2,), padding=(1,))
    assert ref("nn.max_pool1d", -x, attrs=mx).tolist() == [[[-1, -2, -4]]]
    lowest = ref(
        "nn.max_pool1d",
        np.full((1, 1, 1), -np.inf, np.float32),
        attrs=MaxPool1DAttrs(pool_size=(1,)),
    )
    assert lowest.tolist() == [[[np.finfo(np.float32).min]]]
    with pytest.raises(UndefinedBehavior, match="NaN"):
        ref(
            "nn.max_pool3d",
            np.full((1, 1, 1), np.nan, np.float32),
            attrs=MaxPool3DAttrs(pool_size=(1, 1, 1), layout="DHW"),
        )
    with pytest.raises(UndefinedBehavior, match="bool"):
        ref("nn.avg_pool1d", np.ones((1, 1, 2), bool), attrs=AvgPool1DAttrs(pool_size=(1,)))
    zero = AvgPool1DAttrs(pool_size=(1,), strides=(2,), ceil_mode=True, count_include_pad=True)
    with pytest.raises(UndefinedBehavior, match="zero element count"):
        ref("nn.avg_pool1d", np.ones((1, 1, 2), np.int32), attrs=zero)
    assert np.isnan(ref("nn.avg_pool1d", np.ones((1, 1, 2), np.float32), attrs=zero)[0, 0, 1])


def test_adaptive_pools_hand_computed() -> None:
    x = np.arange(12, dtype=np.int32).reshape(1, 1, 3, 4)
    # rows {0, 1} and {1, 2}; columns {0, 1}, {1, 2}, {2, 3}
    attrs = AdaptivePool2DAttrs(output_size=(2, 3))
    assert ref("nn.adaptive_avg_pool2d", x, attrs=attrs).tolist() == [[[[2, 3, 4], [6, 7, 8]]]]
    assert ref("nn.adaptive_max_pool2d", x, attrs=attrs).tolist() == [[[[5, 6, 7], [9, 10, 11]]]]
    neg = np.array([[[[-3, -4]]]], np.int32)  # -7 / 2 truncates to -3
    assert ref(
        "nn.adaptive_avg_pool2d", neg, attrs=AdaptivePool2DAttrs(output_size=(1,))
    ).tolist() == [[[[-3]]]]
    # upsampling: each cell holds one element
    up = ref(
        "nn.adaptive_max_pool2d", x[:, :, :1, :2], attrs=AdaptivePool2DAttrs(output_size=(2, 4))
    )
    assert up.tolist() == [[[[0, 0, 1, 1], [0, 0, 1, 1]]]]
    empty = np.zeros((1, 1, 0, 2), np.float32)
    assert np.isnan(ref("nn.adaptive_avg_pool2d", empty, attrs=attrs)).all()
    with pytest.raises(UndefinedBehavior, match="count is 0"):
        ref("nn.adaptive_avg_pool2d", empty.astype(np.int32), attrs=attrs)
    with pytest.raises(UndefinedBehavior, match="not representable in int8"):
        ref(
            "nn.adaptive_avg_pool2d",
            np.ones((1, 1, 12, 12), np.int8),
            attrs=AdaptivePool2DAttrs(output_size=(1,)),
        )
    with pytest.raises(UndefinedBehavior, match="NaN"):
        ref("nn.adaptive_max_pool2d", np.full((1, 1, 1, 1), np.nan), attrs=AdaptivePool2DAttrs())


def test_global_max_pool2d() -> None:
    rng = np.random.default_rng(RNG_SEED_2)
    x = rng.standard_normal((2, 3, 5, 4)).astype(np.float32)
    got = assert_agrees_tensor("nn.global_max_pool2d", (x,), GlobalPool2DAttrs())
    np.testing.assert_array_equal(got, onnx_run("GlobalMaxPool", [x]))
    nhwc = ref(
        "nn.global_max_pool2d", x.transpose(0, 2, 3, 1), attrs=GlobalPool2DAttrs(layout="NHWC")
    )
    np.testing.assert_array_equal(nhwc, got.transpose(0, 2, 3, 1) if got is not None else None)
    xb = np.array([[[[False, True]]]])
    assert ref("nn.global_max_pool2d", xb, attrs=GlobalPool2DAttrs()).tolist() == [[[[True]]]]
    with pytest.raises(UndefinedBehavior, match="NaN"):
        ref("nn.global_max_pool2d", np.full((1, 1, 2, 2), np.nan), attrs=GlobalPool2DAttrs())


@settings(max_examples=40)
@given(SEEDS, st.sampled_from(ALL), st.sampled_from([1, 3]), st.booleans(), st.data())
def test_pools_agree_with_relation(
    seed: int, dtype: str, nd: int, ceil: bool, data: st.DataObject
) -> None:
    rng = np.random.default_rng(seed)
    kernel = tuple(data.draw(st.integers(1, 2)) for _ in range(nd))
    spatial = tuple(data.draw(st.integers(k, k + 3)) for k in kernel)
    strides = tuple(data.draw(st.integers(1, 2)) for _ in range(nd))
    x = random(rng, (data.draw(st.integers(0, 2)), 2, *spatial), dtype)
    common = {
        "pool_size": kernel,
        "strides": strides,
        "padding": (data.draw(st.integers(0, 1)),),
        "ceil_mode": ceil,
    }
    max_cls: Any = MaxPool1DAttrs if nd == 1 else MaxPool3DAttrs
    avg_cls: Any = AvgPool1DAttrs if nd == 1 else AvgPool3DAttrs
    assert_agrees_tensor(f"nn.max_pool{nd}d", (x,), max_cls(**common))
    include = data.draw(st.booleans())
    avg = avg_cls(count_include_pad=include, **common)
    if dtype == "bool":
        assert_agrees_tensor(f"nn.avg_pool{nd}d", (x,), avg, defined=False)
    else:
        try:
            assert_agrees_tensor(f"nn.avg_pool{nd}d", (x,), avg)
        except UndefinedBehavior as e:  # only the ceil_mode + count_include_pad integer corner
            assert "zero element count" in str(e) and ceil and include
    size = tuple(data.draw(st.lists(st.integers(0, 4), max_size=2)))
    x2 = random(rng, (1, 2, data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))), dtype)
    assert_agrees_tensor("nn.adaptive_max_pool2d", (x2,), AdaptivePool2DAttrs(output_size=size))
    assert_agrees_tensor(
        "nn.adaptive_avg_pool2d",
        (x2,),
        AdaptivePool2DAttrs(output_size=size),
        defined=dtype != "bool",
    )
    assert_agrees_tensor("nn.global_max_pool2d", (x2,), GlobalPool2DAttrs())
