"""The ``nn/conv`` operators (``semantics/ops/nn/conv.py``): relations, references, checks."""

from __future__ import annotations

import itertools
import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_helpers import FLOATS, INTS, Array, T, assert_agrees_tensor, h, n, of_family, ref, rel, w
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

import relay
from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS, OpPattern, lookup
from relay.semantics.ops.nn.activation import PReluAttrs
from relay.semantics.ops.nn.conv import (
    Conv1DAttrs,
    Conv1DTransposeAttrs,
    Conv2DAttrs,
    Conv2DTransposeAttrs,
    Conv3DAttrs,
)
from relay.semantics.ops.nn.dense import BatchMatmulAttrs, MatmulAttrs
from relay.semantics.ops.nn.pool import (
    AdaptivePool2DAttrs,
    AvgPool3DAttrs,
    MaxPool1DAttrs,
    MaxPool3DAttrs,
)
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.syntax import ANY, TensorType, TupleType, Type

W = T(4, 3, 3, 3)


def Conv(**attrs: Any) -> Conv2DAttrs:
    return Conv2DAttrs(**attrs)


NN_OPS = (
    "nn.softmax",
    "nn.log_softmax",
    "nn.dense",
    "nn.bias_add",
    "nn.batch_flatten",
    "nn.conv2d",
    "nn.max_pool2d",
    "nn.avg_pool2d",
    "nn.global_avg_pool2d",
    "nn.batch_norm",
    "nn.dropout",
    "nn.pad",
)


def conv(data: TensorType, weight: TensorType, **attrs: Any) -> Type:
    return rel("nn.conv2d", data, weight, attrs=Conv2DAttrs(**attrs))


def conv_direct(
    x: Array,
    wt: Array,
    strides: tuple[int, int],
    padding: tuple[int, ...],
    dilation: tuple[int, int],
    groups: int,
) -> Array:
    """NCHW/OIHW convolution written as loops over the output, in float64."""
    top, left, bottom, right = padding
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (top, bottom), (left, right)))
    nb, _, hp, wp = xp.shape
    o, cg, kh, kw = wt.shape
    oh = (hp - (kh - 1) * dilation[0] - 1) // strides[0] + 1
    ow = (wp - (kw - 1) * dilation[1] - 1) // strides[1] + 1
    out = np.zeros((nb, o, oh, ow))
    og = o // groups
    for oc, i, j in itertools.product(range(o), range(oh), range(ow)):
        g = oc // og
        rows = i * strides[0] + dilation[0] * np.arange(kh)
        cols = j * strides[1] + dilation[1] * np.arange(kw)
        patch = xp[:, g * cg : (g + 1) * cg][:, :, rows][:, :, :, cols]
        out[:, oc, i, j] = np.sum(patch * wt[oc], axis=(1, 2, 3))
    return out


CONV_CASES = [
    # data shape, weight shape, strides, padding (t, l, b, r), dilation, groups
    ((2, 3, 7, 7), (4, 3, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ((1, 3, 8, 9), (5, 3, 3, 2), (2, 1), (1, 0, 2, 1), (1, 1), 1),
    ((2, 4, 9, 9), (6, 2, 3, 3), (2, 2), (1, 1, 1, 1), (2, 2), 2),
    ((1, 6, 7, 8), (6, 1, 3, 3), (1, 2), (2, 1, 0, 1), (1, 2), 6),
    ((1, 4, 5, 5), (8, 2, 1, 2), (3, 1), (0, 0, 1, 1), (1, 1), 2),
]


def _pads4(padding: tuple[int, ...]) -> list[int]:
    """ONNX's pads (top, left, bottom, right) from TVM's 1, 2 or 4 padding integers."""
    if len(padding) == 1:
        return [padding[0]] * 4
    if len(padding) == 2:
        return [padding[0], padding[1], padding[0], padding[1]]
    return list(padding)


GROUPED_CASES = [
    # data (NCHW), TVM weight (OIHW), attributes
    ((2, 6, 7, 8), (9, 2, 3, 3), {"groups": 3, "strides": (2, 1), "padding": (1, 0, 1, 2)}),
    ((1, 4, 9, 6), (8, 1, 3, 2), {"groups": 4, "dilation": (2, 1), "padding": (1,)}),
    ((1, 4, 6, 6), (4, 1, 3, 3), {"groups": 4, "padding": (1,)}),  # depthwise
    ((2, 5, 7, 7), (5, 1, 2, 3), {"groups": 5, "strides": (2, 2), "dilation": (2, 1)}),
    # depthwise with a channel multiplier: TVM's (C, m, kh, kw) is ONNX's (C*m, 1, kh, kw)
    ((1, 3, 5, 6), (3, 2, 3, 3), {"groups": 3, "channels": 6, "kernel_size": (3, 3)}),
]


@st.composite
def conv_cases(draw: st.DrawFn) -> tuple[tuple[Array, ...], Attrs]:
    rng = np.random.default_rng(draw(SEEDS))
    dtype = pick(draw, ALL)
    out_dtype = draw(st.sampled_from(["", dtype, "int32" if dtype in INTS else "float64"]))
    data_layout, kernel_layout = draw(
        st.sampled_from([("NCHW", "OIHW"), ("NHWC", "HWIO"), ("NHWC", "HWOI"), ("CHWN", "IHWO")])
    )
    out_layout = draw(st.sampled_from(["", "NCHW", "NHWC"]))
    kind = draw(st.sampled_from(["plain", "grouped", "depthwise", "multiplier"]))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    extra: dict[str, Any] = {}
    if kind == "plain":
        groups, c, o = 1, draw(st.integers(0, 3)), draw(st.integers(1, 3))
        i = c
        if draw(st.booleans()):
            extra["channels"] = o
        if draw(st.booleans()):
            extra["kernel_size"] = (kh, kw)
    elif kind == "grouped":
        groups = draw(st.integers(2, 3))
        i, og = draw(st.integers(1, 2)), draw(st.integers(1, 2))
        c, o = groups * i, groups * og
    elif kind == "depthwise":
        groups = c = o = draw(st.integers(2, 3))
        i = 1
    else:
        groups = c = o = draw(st.integers(2, 3))
        i = draw(st.integers(2, 3))
        extra = {"channels": c * i, "kernel_size": (kh, kw)}
    strides = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = tuple(
        draw(st.lists(st.integers(0, 2), min_size=1, max_size=4).filter(lambda p: len(p) != 3))
    )
    top, left, bottom, right = (padding * 4)[:4] if len(padding) < 4 else padding
    span_h, span_w = (kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1
    height = draw(st.integers(max(0, span_h - top - bottom - strides[0]), span_h + 3))
    width = draw(st.integers(max(0, span_w - left - right - strides[1]), span_w + 3))
    nchw = {"N": draw(st.integers(0, 2)), "C": c, "H": height, "W": width}
    oihw = {"O": o, "I": i, "H": kh, "W": kw}
    data = random(rng, tuple(nchw[a] for a in data_layout), dtype)
    weight = random(rng, tuple(oihw[a] for a in kernel_layout), dtype)
    attrs = Conv2DAttrs(
        strides=strides,
        padding=padding,
        dilation=dilation,
        groups=groups,
        data_layout=data_layout,
        kernel_layout=kernel_layout,
        out_layout=out_layout,
        out_dtype=out_dtype,
        **extra,
    )
    return (data, weight), attrs


GROUP = {
    # op: (relation name, ONNX op or independent check, pattern)
    "nn.conv1d": ("Conv1D", "onnxruntime:Conv", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.conv3d": ("Conv3D", "onnxruntime:Conv", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.conv1d_transpose": (
        "Conv1DTranspose",
        "onnxruntime:ConvTranspose",
        OpPattern.OUT_ELEMWISE_FUSABLE,
    ),
    "nn.conv2d_transpose": (
        "Conv2DTranspose",
        "onnxruntime:ConvTranspose",
        OpPattern.OUT_ELEMWISE_FUSABLE,
    ),
    "nn.contrib_conv2d_NCHWc": (
        "Conv2DNCHWc",
        "independent:direct loops in the packed layout",
        OpPattern.OUT_ELEMWISE_FUSABLE,
    ),
}


REJECTED: list[tuple[str, tuple[Type, ...], Attrs | None, str]] = [
    # op, argument types, attributes, the error message (a regular expression)
    ("nn.conv2d", (T(1, 4, 5, 5), T(6, 4, 3, 3)), Conv(groups=2), "divided by groups"),
    (
        "nn.conv2d",
        (T(1, 5, 5, 5), T(6, 2, 3, 3)),
        Conv(groups=2),
        r"groups=2 does not divide the input channels \(5\)",
    ),
    (
        "nn.conv2d",
        (T(1, 4, 5, 5), T(5, 2, 3, 3)),
        Conv(groups=2),
        r"groups=2 does not divide the output channels \(5\)",
    ),
    (
        "nn.conv2d",
        (T(1, 4, 5, 5), T(5, 4, 3, 3)),
        Conv(groups=0),
        "expected groups >= 1, found groups=0",
    ),
    # a channel multiplier without channels/kernel_size is not depthwise: I must be C/groups
    ("nn.conv2d", (T(1, 4, 5, 5), T(4, 2, 3, 3)), Conv(groups=4), "divided by groups=4 must match"),
    ("nn.conv2d", (X, W), Conv(channels=5), "has 4 output channels, expected channels=5"),
    ("nn.conv2d", (X, W), Conv(kernel_size=(3, 5)), r"inconsistent with kernel_size=\[3, 5\]"),
    ("nn.conv2d", (X, W), Conv(channels=5, kernel_size=(3, 3)), r"\(5, 3, 3, 3\) implied by"),
    (
        "nn.conv2d",
        (X, W),
        Conv(kernel_size=(3,)),
        r"expected 2 integers in kernel_size, found kernel_size=\[3\]",
    ),
    (
        "nn.conv2d",
        (X, W),
        Conv(data_layout="NCHW4c"),
        'data_layout="NCHW4c": src_layout "NCHW4c" has 5 axes but data has rank 4',
    ),
    (
        "nn.conv2d",
        (X, W),
        Conv(data_layout="NCHWc"),
        'data_layout="NCHWc": src_layout "NCHWc" needs a positive factor before the sub-axis c',
    ),
    ("nn.conv2d", (X, W), Conv(data_layout="NCDHW"), "expected a permutation of NCHW"),
    ("nn.conv2d", (X, W), Conv(kernel_layout="OIHW16o"), 'kernel_layout="OIHW16o"'),
    ("nn.conv2d", (X, W), Conv(kernel_layout="GOIHW"), "expected a permutation of OIHW"),
    ("nn.conv2d", (X, W), Conv(out_layout="NCH"), 'out_layout="NCH" is not supported'),
    (
        "nn.conv2d",
        (T(3, 8, 8), W),
        Conv(),
        r'expected a 4-D tensor for data in data_layout="NCHW", found rank 3 \(3, 8, 8\)',
    ),
    (
        "nn.conv2d",
        (T(1, 8, 8, 3), T(3, 3, 4, 4)),
        Conv(data_layout="NHWC", kernel_layout="HWIO"),
        r"input channels \(3\) divided by groups=1 must match .* weight \(4\)",
    ),
    ("nn.conv2d", (X, W), Conv(padding=(1, 1, 1)), r"1, 2 or 4 .* found padding=\[1, 1, 1\]"),
    ("nn.conv2d", (X, W), Conv(padding=(-1,)), r"non-negative padding, found padding=\[-1\]"),
    (
        "nn.conv2d",
        (X, W),
        Conv(strides=(0, 1)),
        r"expected positive strides, found strides=\[0, 1\]",
    ),
    ("nn.conv2d", (X, W), Conv(dilation=(1,)), r"2 integers in dilation, found dilation=\[1\]"),
    ("nn.conv2d", (T(1, 3, 2, 8), T(4, 3, 5, 3)), Conv(), "window .5. is longer than the padded"),
    ("nn.conv2d", (X, TupleType(())), Conv(), "expected a tensor for weight, found a tuple"),
    (
        "nn.conv2d",
        (X, T(4, 3, 0, 3)),
        Conv(channels=4, kernel_size=(0, 3)),
        r"expected positive kernel_size, found kernel_size=\[0, 3\]",
    ),
    (
        "nn.conv2d",
        (X, T(4, 3, 3, 0)),
        Conv(),
        r"non-empty kernel, found weight shape \(4, 3, 3, 0\)",
    ),
    (
        "nn.conv2d",
        (T(1, 4, 5, 5), T(5, 2, 3, 3)),
        Conv(groups=2, channels=5),
        r"groups=2 does not divide the output channels \(5\) \(channels=5\)",
    ),
    ("nn.conv1d", (T(1, 4, 8), T(6, 4, 3)), Conv1DAttrs(groups=2), "divided by groups"),
    ("nn.conv1d", (T(1, 5, 8), T(6, 2, 3)), Conv1DAttrs(groups=2), r"\(5\) are not divisible"),
    ("nn.conv1d", (T(1, 4, 8), T(5, 2, 3)), Conv1DAttrs(groups=2), r"output channels \(5\)"),
    ("nn.conv1d", (T(1, 3, 8), T(4, 3, 3)), Conv1DAttrs(channels=5), "expected channels=5"),
    ("nn.conv1d", (T(1, 3, 8), T(4, 3, 3)), Conv1DAttrs(kernel_size=(2,)), r"kernel_size=\(2,\)"),
    ("nn.conv1d", (T(1, 3, 8), T(4, 3, 3)), Conv1DAttrs(strides=(1, 1)), "strides must hold 1"),
    ("nn.conv1d", (T(1, 3, 8), T(4, 3, 3)), Conv1DAttrs(dilation=(0,)), "dilation must be pos"),
    ("nn.conv1d", (T(1, 3, 8), T(4, 3, 3)), Conv1DAttrs(padding=(1, 1, 1)), "1 or 2 integers"),
    ("nn.conv1d", (T(1, 3, 8), T(4, 3, 3)), Conv1DAttrs(padding=(-1,)), "non-negative"),
    ("nn.conv1d", (T(1, 3, 8), T(4, 3, 3)), Conv1DAttrs(data_layout="NCH"), "permutation of NCW"),
    ("nn.conv1d", (T(1, 3, 2), T(4, 3, 5)), Conv1DAttrs(), r"window \(5\) is longer"),
    ("nn.conv1d", (T(3, 8), T(4, 3, 3)), Conv1DAttrs(), "3-D tensor for data"),
    ("nn.conv1d", (T(1, 3, 8), T(4, 3, 3)), Conv1DAttrs(groups=0), "at least 1, found 0"),
    (
        "nn.conv3d",
        (T(1, 2, 4, 4, 4), T(3, 2, 3, 3, 3)),
        Conv3DAttrs(padding=(1, 1)),
        "1, 3 or 6 integers, found 2",
    ),
    (
        "nn.conv3d",
        (T(1, 2, 4, 4, 4), T(3, 2, 3, 3, 3)),
        Conv3DAttrs(out_layout="NCHW"),
        'out_layout.*"NCHW"',
    ),
    (
        "nn.conv2d_transpose",
        (T(1, 4, 5, 5), T(3, 3, 3, 3)),
        Conv2DTransposeAttrs(),
        r"input channels \(4\) must match the weight's input channels \(3\)",
    ),
    (
        "nn.conv2d_transpose",
        (T(1, 4, 5, 5), T(4, 3, 3, 3)),
        Conv2DTransposeAttrs(channels=5),
        r"3 output channels per group, expected channels / groups = 5 / 1",
    ),
    (
        "nn.conv2d_transpose",
        (T(1, 4, 5, 5), T(4, 3, 3, 3)),
        Conv2DTransposeAttrs(channels=5, groups=2),
        "channels=5 is not divisible by groups",
    ),
    (
        "nn.conv2d_transpose",
        (T(1, 4, 5, 5), T(4, 3, 3, 3)),
        Conv2DTransposeAttrs(strides=(2, 2), output_padding=(2, 0)),
        r"output_padding=\(2, 0\) must be smaller than strides=\(2, 2\)",
    ),
    (
        "nn.conv2d_transpose",
        (T(1, 4, 1, 1), T(4, 3, 1, 1)),
        Conv2DTransposeAttrs(padding=(1, 0)),
        "removes more than",
    ),
    (
        "nn.conv2d_transpose",
        (T(1, 4, 5, 5), T(4, 3, 3, 3)),
        Conv2DTransposeAttrs(kernel_layout="OIHW4o"),
        "permutation of IOHW",
    ),
    (
        "nn.conv1d_transpose",
        (T(1, 3, 5), T(3, 2, 2)),
        Conv1DTransposeAttrs(groups=2),
        r"\(3\) are not divisible by groups \(2\)",
    ),
    (
        "nn.conv1d_transpose",
        (T(1, 3, 5), T(3, 2, 2)),
        Conv1DTransposeAttrs(output_padding=(0, 0)),
        "output_padding must hold 1 integer",
    ),
]


def conv_direct_nd(
    x: Array,
    wt: Array,
    strides: tuple[int, ...],
    before: tuple[int, ...],
    dilation: tuple[int, ...],
    groups: int,
    out_shape: tuple[int, ...],
) -> Array:
    """N-d NC.../OI... correlation as loops over every output element (float64); ``x`` is
    padded here by ``before`` and read as 0 outside."""
    o, cg = wt.shape[:2]
    og = o // groups
    out = np.zeros(out_shape)
    kernel = wt.shape[2:]
    for index in itertools.product(*(range(e) for e in out_shape)):
        b, oc, pos = index[0], index[1], index[2:]
        g = oc // og
        total = 0.0
        for ci in range(cg):
            for k in itertools.product(*(range(e) for e in kernel)):
                src = tuple(
                    p * s - pb + kk * d
                    for p, s, pb, kk, d in zip(pos, strides, before, k, dilation, strict=True)
                )
                if all(0 <= v < e for v, e in zip(src, x.shape[2:], strict=True)):
                    total += float(x[(b, g * cg + ci, *src)]) * float(wt[(oc, ci, *k)])
        out[index] = total
    return out


CONV1D_CASES = [
    # data, weight, strides, padding, dilation, groups
    ((2, 3, 9), (4, 3, 3), (1,), (0, 0), (1,), 1),
    ((1, 4, 10), (6, 2, 3), (2,), (1, 2), (2,), 2),
    ((2, 3, 7), (3, 1, 2), (3,), (2, 0), (1,), 3),
]


def transpose_direct(
    x: Array,
    wt: Array,
    strides: tuple[int, ...],
    before: tuple[int, ...],
    dilation: tuple[int, ...],
    groups: int,
    out_shape: tuple[int, ...],
) -> Array:
    """Transposed convolution as a scatter: every input element adds x * w into the output
    positions i * stride - pad_before + j * dilation (IO... weight)."""
    out = np.zeros(out_shape)
    cin, og = wt.shape[:2]
    cg = cin // groups
    for b, c in itertools.product(range(x.shape[0]), range(cin)):
        g = c // cg
        for i in itertools.product(*(range(e) for e in x.shape[2:])):
            for o in range(og):
                for j in itertools.product(*(range(e) for e in wt.shape[2:])):
                    y = tuple(
                        ii * s - pb + jj * d
                        for ii, s, pb, jj, d in zip(i, strides, before, j, dilation, strict=True)
                    )
                    if all(0 <= v < e for v, e in zip(y, out_shape[2:], strict=True)):
                        out[(b, g * og + o, *y)] += float(x[(b, c, *i)]) * float(wt[(c, o, *j)])
    return out


TRANSPOSE_CASES = [
    # data, weight (IO..), strides, padding, output_padding, dilation, groups
    ((2, 4, 5), (4, 3, 3), (2,), (1, 2), (1,), (1,), 1),
    ((1, 4, 4), (4, 2, 2), (3,), (0,), (2,), (2,), 2),
    ((2, 4, 3, 4), (4, 2, 3, 2), (2, 1), (1, 0, 0, 1), (1, 0), (1, 2), 1),
    ((1, 4, 4, 3), (4, 1, 2, 3), (2, 3), (0, 1), (0, 2), (2, 1), 2),
]


ROUND_TRIP = [
    (
        'nn.conv1d(%x, %w, strides=[2], padding=[1, 0], groups=2, data_layout="NWC", '
        'kernel_layout="WIO", out_dtype="float64")',
        "Tensor[(1, 8, 4), float32]",
        "Tensor[(3, 2, 4), float32]",
    ),
    (
        "nn.conv3d(%x, %w, padding=[1, 0, 1], channels=4, kernel_size=[1, 2, 2], "
        'out_layout="NDHWC")',
        "Tensor[(1, 2, 3, 4, 5), float32]",
        "Tensor[(4, 2, 1, 2, 2), float32]",
    ),
    (
        "nn.conv1d_transpose(%x, %w, channels=3, kernel_size=[3], strides=[2], "
        "output_padding=[1], padding=[1, 0])",
        "Tensor[(1, 2, 5), float32]",
        "Tensor[(2, 3, 3), float32]",
    ),
    (
        "nn.conv2d_transpose(%x, %w, strides=[2, 2], output_padding=[1, 0], dilation=[1, "
        '2], groups=2, kernel_layout="OIHW")',
        "Tensor[(1, 2, 3, 3), float32]",
        "Tensor[(2, 2, 2, 2), float32]",
    ),
    (
        'nn.matmul(%x, %w, units=4, out_dtype="float64", transpose_a=True, transpose_b=True)',
        "Tensor[(3, 2), float32]",
        "Tensor[(4, 3), float32]",
    ),
    (
        "nn.batch_matmul(%x, %w, transpose_b=True)",
        "Tensor[(2, 3, 4), float32]",
        "Tensor[(1, 5, 4), float32]",
    ),
    ("nn.prelu(%x, %w, axis=2)", "Tensor[(2, 3, 4), float32]", "Tensor[(4), float32]"),
    (
        'nn.max_pool1d(%x, pool_size=[2], strides=[2], padding=[1, 0], layout="NWC", '
        "ceil_mode=True)",
        "Tensor[(1, 5, 3), float32]",
        "",
    ),
    (
        "nn.avg_pool1d(%x, pool_size=[2], dilation=[2], count_include_pad=True)",
        "Tensor[(1, 3, 5), float32]",
        "",
    ),
    (
        'nn.max_pool3d(%x, pool_size=[1, 2, 2], padding=[0, 1, 1], out_layout="NDHWC")',
        "Tensor[(1, 2, 3, 4, 5), float32]",
        "",
    ),
    (
        'nn.avg_pool3d(%x, pool_size=[2, 1, 1], strides=[2, 1, 1], layout="DHW")',
        "Tensor[(4, 4, 4), float32]",
        "",
    ),
    (
        'nn.adaptive_avg_pool2d(%x, output_size=[2, 3], layout="NHWC")',
        "Tensor[(1, 5, 5, 2), float32]",
        "",
    ),
    ("nn.adaptive_max_pool2d(%x, output_size=[1])", "Tensor[(1, 2, 5, 5), float32]", ""),
    ('nn.global_max_pool2d(%x, layout="NHWC")', "Tensor[(1, 5, 5, 2), float32]", ""),
]


def test_every_op_has_relation_reference_and_name() -> None:
    expected_names = {
        "nn.softmax": "Softmax",
        "nn.log_softmax": "Softmax",
        "nn.dense": "Dense",
        "nn.bias_add": "BiasAdd",
        "nn.batch_flatten": "BatchFlatten",
        "nn.conv2d": "Conv2D",
        "nn.max_pool2d": "MaxPool2D",
        "nn.avg_pool2d": "AvgPool2D",
        "nn.global_avg_pool2d": "GlobalAvgPool2D",
        "nn.batch_norm": "BatchNorm",
        "nn.dropout": "Dropout",
        "nn.pad": "Pad",
    }
    for name in NN_OPS:
        op = lookup(name)
        assert op is not None and op.relation is not None and op.reference is not None
        assert op.relation_name == expected_names[name]


@pytest.mark.parametrize(
    ("padding", "expected"),
    [
        ((1,), (1, 4, 8, 8)),
        ((1, 2), (1, 4, 8, 10)),
        ((1, 0, 2, 1), (1, 4, 9, 7)),
        ((0, 0), (1, 4, 6, 6)),
    ],
)
def test_conv2d_padding_forms(padding: tuple[int, ...], expected: tuple[int, ...]) -> None:
    assert conv(T(1, 3, 8, 8), T(4, 3, 3, 3), padding=padding) == T(*expected)


def test_conv2d_stride_dilation() -> None:
    assert conv(T(1, 3, 7, 7), T(4, 3, 3, 3), strides=(2, 2)) == T(1, 4, 3, 3)
    assert conv(T(1, 3, 8, 9), T(4, 3, 3, 3), strides=(2, 3)) == T(1, 4, 3, 3)
    # dilation 2 makes the 3x3 window span 5
    assert conv(T(1, 3, 8, 8), T(4, 3, 3, 3), dilation=(2, 2)) == T(1, 4, 4, 4)
    assert conv(T(1, 3, 8, 8), T(4, 3, 3, 3), dilation=(2, 1), padding=(1,)) == T(1, 4, 6, 8)
    # a window one longer than the padded input gives an empty output, as indexdiv does
    assert conv(T(1, 3, 2, 3), T(4, 3, 3, 3)) == T(1, 4, 0, 1)


def test_conv2d_groups_and_channels() -> None:
    assert conv(T(1, 4, 5, 5), T(6, 2, 3, 3), groups=2) == T(1, 6, 3, 3)
    assert conv(T(1, 4, 5, 5), T(4, 1, 3, 3), groups=4) == T(1, 4, 3, 3)  # depthwise
    # depthwise with channels and kernel_size: the weight is (C, channels / C, kh, kw) ...
    both = {"channels": 8, "kernel_size": (3, 3)}
    assert conv(T(1, 4, 5, 5), T(4, 2, 3, 3), groups=4, **both) == T(1, 8, 3, 3)
    # ... or the usual grouped shape when the weight's O differs from groups
    assert conv(T(1, 4, 5, 5), T(8, 1, 3, 3), groups=4, **both) == T(1, 8, 3, 3)
    assert conv(T(1, 3, 8, 8), T(4, 3, 3, 3), channels=4, kernel_size=(3, 3)) == T(1, 4, 6, 6)
    assert conv(T(1, 3, 8, 8), T(4, 3, 3, 3), channels=4) == T(1, 4, 6, 6)
    assert conv(T(1, 3, 8, 8), T(4, 3, 3, 3), kernel_size=(3, 3)) == T(1, 4, 6, 6)


def test_conv2d_layouts() -> None:
    nhwc = {"data_layout": "NHWC", "kernel_layout": "HWIO"}
    assert conv(T(1, 8, 8, 3), T(3, 3, 3, 4), padding=(1,), **nhwc) == T(1, 8, 8, 4)
    assert conv(T(1, 8, 8, 3), T(3, 3, 3, 4), out_layout="NCHW", **nhwc) == T(1, 4, 6, 6)
    # depthwise NHWC with the HWOI kernel layout TVM's ConvertLayout picks for it
    hwoi = {"data_layout": "NHWC", "kernel_layout": "HWOI"}
    assert conv(T(1, 6, 6, 4), T(3, 3, 4, 1), groups=4, **hwoi) == T(1, 4, 4, 4)


def test_conv2d_symbolic_and_unknown_dims() -> None:
    assert conv(T(n, 3, 8, 8), T(4, 3, 3, 3), padding=(1,)) == T(n, 4, 8, 8)
    assert conv(T(ANY, 3, 8, 8), T(4, 3, 3, 3)) == T(ANY, 4, 6, 6)
    assert conv(T(1, 3, h, w), T(4, 3, 3, 3)) == T(1, 4, h - 2, w - 2)
    assert conv(T(1, 3, 2 * h, 8), T(4, 3, 3, 3), strides=(2, 1), padding=(1,)) == T(1, 4, h, 8)
    assert conv(T(1, 3, ANY, 8), T(4, 3, 3, 3)) == T(1, 4, ANY, 6)
    assert conv(T(1, ANY, 8, 8), T(4, 3, 3, 3)) == T(1, 4, 6, 6)  # channel check skipped
    nhwc = {"data_layout": "NHWC", "kernel_layout": "HWIO"}
    assert conv(T(n, h, 8, 3), T(3, 3, 3, 4), **nhwc) == T(n, h - 2, 6, 4)


def test_conv2d_dtypes() -> None:
    i8 = T(1, 3, 8, 8, dtype="int8"), T(4, 3, 3, 3, dtype="int8")
    assert conv(*i8, out_dtype="int32") == T(1, 4, 6, 6, dtype="int32")
    assert conv(*i8) == T(1, 4, 6, 6, dtype="int8")
    # TVM's relation does not compare the weight's dtype with the data's
    assert conv(T(1, 3, 8, 8), T(4, 3, 3, 3, dtype="float16")) == T(1, 4, 6, 6)


@pytest.mark.parametrize(("name", "types", "attrs", "message"), of_family(REJECTED, "nn/conv"))
def test_relation_rejects(
    name: str, types: tuple[Type, ...], attrs: Attrs | None, message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        rel(name, *types, attrs=attrs)


@pytest.mark.parametrize(
    ("dshape", "wshape", "strides", "padding", "dilation", "groups"), CONV_CASES
)
def test_conv2d_matches_onnxruntime(
    dshape: tuple[int, ...],
    wshape: tuple[int, ...],
    strides: tuple[int, int],
    padding: tuple[int, ...],
    dilation: tuple[int, int],
    groups: int,
) -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal(dshape).astype(np.float32)
    wt = rng.standard_normal(wshape).astype(np.float32)
    attrs = Conv2DAttrs(strides=strides, padding=padding, dilation=dilation, groups=groups)
    got = ref("nn.conv2d", x, wt, attrs=attrs)
    expected = run_onnx_node(
        "Conv",
        [x, wt],
        strides=list(strides),
        pads=list(padding),
        dilations=list(dilation),
        group=groups,
    )
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        got, conv_direct(x, wt, strides, padding, dilation, groups), rtol=1e-5, atol=1e-5
    )


def test_conv2d_hand_computed() -> None:
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    wt = np.array([[[[1, 0], [0, -1]]]], dtype=np.float32)  # x[i, j] - x[i+1, j+1] = -5
    got = ref("nn.conv2d", x, wt, attrs=Conv2DAttrs(strides=(2, 2)))
    np.testing.assert_array_equal(got, np.full((1, 1, 2, 2), -5, np.float32))
    # padding 1 with a 1x1 kernel of 2: a zero border around 2x
    got = ref("nn.conv2d", x, np.full((1, 1, 1, 1), 2, np.float32), attrs=Conv2DAttrs(padding=(1,)))
    np.testing.assert_array_equal(got[0, 0, 1:-1, 1:-1], 2 * x[0, 0])
    assert got[0, 0, 0].tolist() == [0] * 6


def test_conv2d_layouts_agree_with_nchw() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 4, 6, 7)).astype(np.float32)
    wt = rng.standard_normal((6, 2, 3, 2)).astype(np.float32)
    base = {"strides": (2, 1), "padding": (1, 0, 0, 1), "groups": 2}
    nchw = ref("nn.conv2d", x, wt, attrs=Conv2DAttrs(**base))
    nhwc = ref(
        "nn.conv2d",
        x.transpose(0, 2, 3, 1),
        wt.transpose(2, 3, 1, 0),
        attrs=Conv2DAttrs(data_layout="NHWC", kernel_layout="HWIO", **base),
    )
    np.testing.assert_allclose(nhwc, nchw.transpose(0, 2, 3, 1), rtol=1e-6)
    mixed = ref(
        "nn.conv2d",
        x.transpose(0, 2, 3, 1),
        wt.transpose(2, 3, 0, 1),
        attrs=Conv2DAttrs(data_layout="NHWC", kernel_layout="HWOI", out_layout="NCHW", **base),
    )
    np.testing.assert_allclose(mixed, nchw, rtol=1e-6)


def test_conv2d_depthwise_channel_multiplier() -> None:
    """TVM's depthwise weight (C, m, kh, kw): output channel c*m + q correlates input
    channel c with W[c, q] (topi depthwise_conv2d_nchw)."""
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((1, 3, 5, 6)).astype(np.float32)
    wt = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    attrs = Conv2DAttrs(groups=3, channels=6, kernel_size=(3, 3), padding=(1,))
    got = ref("nn.conv2d", x, wt, attrs=attrs)
    assert got.shape == (1, 6, 5, 6)
    for c, q in itertools.product(range(3), range(2)):
        one = conv_direct(
            x[:, c : c + 1], wt[c : c + 1, q : q + 1], (1, 1), (1, 1, 1, 1), (1, 1), 1
        )
        np.testing.assert_allclose(got[:, c * 2 + q], one[:, 0], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize(("dshape", "wshape", "attrs"), GROUPED_CASES)
def test_grouped_and_depthwise_conv2d_match_onnxruntime(
    dshape: tuple[int, ...], wshape: tuple[int, ...], attrs: dict[str, Any], layout: str
) -> None:
    """Grouped and depthwise convolution in NCHW/OIHW and in NHWC with TVM's kernel layouts
    (HWIO grouped, HWOI depthwise), against ONNX Conv on the NCHW transposes."""
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal(dshape).astype(np.float32)
    wt = rng.standard_normal(wshape).astype(np.float32)
    groups = attrs["groups"]
    strides = attrs.get("strides", (1, 1))
    dilation = attrs.get("dilation", (1, 1))
    onnx_weight = wt.reshape(-1, dshape[1] // groups, *wshape[2:])
    expected = run_onnx_node(
        "Conv",
        [x, onnx_weight],
        strides=list(strides),
        pads=_pads4(attrs.get("padding", (0,))),
        dilations=list(dilation),
        group=groups,
    )
    if layout == "NCHW":
        got = ref("nn.conv2d", x, wt, attrs=Conv2DAttrs(**attrs))
    else:
        depthwise = wshape[0] == dshape[1] == groups
        kernel_layout = "HWOI" if depthwise else "HWIO"
        kernel = wt.transpose(tuple("OIHW".index(axis) for axis in kernel_layout))
        nhwc = Conv2DAttrs(data_layout="NHWC", kernel_layout=kernel_layout, **attrs)
        got = ref("nn.conv2d", x.transpose(0, 2, 3, 1), kernel, attrs=nhwc)
        expected = expected.transpose(0, 2, 3, 1)
    assert got.shape == expected.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_conv2d_integers() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.integers(-128, 128, (1, 3, 5, 5)).astype(np.int8)
    wt = rng.integers(-128, 128, (2, 3, 3, 3)).astype(np.int8)
    exact = conv_direct(x, wt.astype(np.float64), (1, 1), (0, 0, 0, 0), (1, 1), 1).astype(np.int64)
    wide = ref("nn.conv2d", x, wt, attrs=Conv2DAttrs(out_dtype="int32"))
    assert wide.dtype == np.int32
    np.testing.assert_array_equal(wide, exact)
    # int8 accumulation wraps modulo 2**8
    narrow = ref("nn.conv2d", x, wt, attrs=Conv2DAttrs())
    np.testing.assert_array_equal(narrow, ((exact + 128) % 256 - 128).astype(np.int8))
    # int32 overflow is undefined (nsw arithmetic)
    half = np.full((1, 1, 2, 2), 2**15, np.int32)
    with pytest.raises(UndefinedBehavior, match="a sum of products overflows int32"):
        ref("nn.conv2d", half, half, attrs=Conv2DAttrs())  # four products of 2**30
    big = np.full((1, 1, 2, 2), 2**20, np.int32)
    with pytest.raises(UndefinedBehavior, match="a product overflows int32"):
        ref("nn.conv2d", big, np.full((1, 1, 1, 1), 2**12, np.int32), attrs=Conv2DAttrs())
    # casting a float operand out of range to the int output dtype is undefined
    with pytest.raises(UndefinedBehavior, match="out-of-range float32"):
        ref(
            "nn.conv2d",
            np.full((1, 1, 2, 2), 1e10, np.float32),
            np.ones((1, 1, 1, 1), np.float32),
            attrs=Conv2DAttrs(out_dtype="int32"),
        )
    with pytest.raises(UndefinedBehavior, match="bool output dtype"):
        ref(
            "nn.conv2d",
            np.ones((1, 1, 2, 2), bool),
            np.ones((1, 1, 1, 1), bool),
            attrs=Conv2DAttrs(),
        )


def test_conv2d_mixed_dtypes_cast_to_output() -> None:
    x = np.array([[[[1.9, -1.9]]]], np.float32)
    wt = np.ones((1, 1, 1, 1), np.float32)
    got = ref("nn.conv2d", x, wt, attrs=Conv2DAttrs(out_dtype="int32"))
    np.testing.assert_array_equal(got, [[[[1, -1]]]])  # fptosi truncates toward zero
    got16 = ref("nn.conv2d", x, wt.astype(np.float16), attrs=Conv2DAttrs())
    assert got16.dtype == np.float32


@settings(max_examples=60)
@given(conv_cases())
def test_conv2d_reference_agrees_with_relation(case: tuple[tuple[Array, ...], Attrs]) -> None:
    args, attrs = case
    assert isinstance(attrs, Conv2DAttrs)
    out_dtype = attrs.out_dtype or str(args[0].dtype)
    assert_agrees("nn.conv2d", args, attrs, defined=out_dtype != "bool")


@pytest.mark.parametrize("name", of_family(sorted(GROUP), "nn/conv"))
def test_records(name: str) -> None:
    check_record(name, GROUP[name])


def test_attribute_fields_follow_tvm() -> None:
    def names(cls: type[Attrs]) -> list[str]:
        return [s.name for s in cls.field_specs()]

    # Conv1DAttrs never declared out_layout with TVM_ATTR_FIELD.
    assert names(Conv1DAttrs) == [
        *("strides", "padding", "dilation", "groups", "channels", "kernel_size"),
        *("data_layout", "kernel_layout", "out_dtype"),
    ]
    assert names(Conv2DTransposeAttrs) == [
        *("channels", "kernel_size", "strides", "output_padding", "padding", "dilation"),
        *("groups", "data_layout", "kernel_layout", "out_layout", "out_dtype"),
    ]
    assert Conv2DTransposeAttrs().kernel_layout == "IOHW"
    assert Conv1DTransposeAttrs().kernel_layout == "IOW"
    assert Conv1DTransposeAttrs().padding == (0,)
    assert names(MatmulAttrs) == ["units", "out_dtype", "transpose_a", "transpose_b"]
    assert names(BatchMatmulAttrs) == ["out_dtype", "transpose_a", "transpose_b"]
    assert BatchMatmulAttrs().transpose_b is False
    assert names(MaxPool1DAttrs) == [
        *("pool_size", "strides", "dilation", "padding", "layout", "out_layout", "ceil_mode")
    ]
    assert names(AvgPool3DAttrs)[-1] == "count_include_pad"
    assert MaxPool3DAttrs(pool_size=(1, 1, 1)).layout == "NCDHW"
    assert AdaptivePool2DAttrs().output_size == ()
    assert PReluAttrs().axis == 1


def test_conv1d_relation() -> None:
    c1 = "nn.conv1d"
    assert rel(c1, T(1, 3, 10), T(4, 3, 3), attrs=Conv1DAttrs()) == T(1, 4, 8)
    a = Conv1DAttrs(strides=(2,), padding=(1, 2), dilation=(2,))
    assert rel(c1, T(n, 3, 10), T(4, 3, 3), attrs=a) == T(n, 4, 5)  # (10 + 3 - 5) // 2 + 1
    assert rel(
        c1, T(2, w, 3), T(3, 3, 4), attrs=Conv1DAttrs(data_layout="NWC", kernel_layout="WIO")
    ) == T(2, w - 2, 4)
    assert rel(c1, T(1, 4, ANY), T(6, 2, 3), attrs=Conv1DAttrs(groups=2)) == T(1, 6, ANY)
    i8 = Conv1DAttrs(out_dtype="int32")
    assert rel(c1, T(1, 3, 4, dtype="int8"), T(2, 3, 1, dtype="int8"), attrs=i8) == T(
        1, 2, 4, dtype="int32"
    )


def test_conv3d_relation() -> None:
    c3 = "nn.conv3d"
    assert rel(c3, T(1, 2, 5, 6, 7), T(4, 2, 3, 3, 3), attrs=Conv3DAttrs()) == T(1, 4, 3, 4, 5)
    a = Conv3DAttrs(padding=(1, 0, 2), strides=(1, 2, 3), out_layout="NDHWC")
    assert rel(c3, T(1, 2, 5, 6, 7), T(4, 2, 3, 3, 3), attrs=a) == T(1, 5, 2, 3, 4)
    six = Conv3DAttrs(padding=(1, 0, 0, 0, 0, 2), groups=2)
    assert rel(c3, T(n, 4, 4, 4, 4), T(2, 2, 3, 3, 3), attrs=six) == T(n, 2, 3, 2, 4)


def test_conv_transpose_relations() -> None:
    t2 = "nn.conv2d_transpose"
    # out = stride * (x - 1) + (k - 1) * dilation + 1 - pad + output_padding
    a = Conv2DTransposeAttrs(strides=(2, 2), padding=(1, 1), output_padding=(1, 0))
    assert rel(t2, T(1, 4, 5, 6), T(4, 3, 3, 3), attrs=a) == T(1, 3, 10, 11)
    # grouped: groups * O output channels (topi group_conv2d_transpose)
    g = Conv2DTransposeAttrs(groups=2)
    assert rel(t2, T(1, 4, 5, 5), T(4, 3, 2, 2), attrs=g) == T(1, 6, 6, 6)
    both = Conv2DTransposeAttrs(groups=2, channels=6, kernel_size=(2, 2))
    assert rel(t2, T(1, 4, 5, 5), T(4, 3, 2, 2), attrs=both) == T(1, 6, 6, 6)
    nhwc = Conv2DTransposeAttrs(data_layout="NHWC", kernel_layout="HWOI", dilation=(2, 1))
    assert rel(t2, T(n, 3, w, 4), T(3, 2, 5, 4), attrs=nhwc) == T(n, 7, w + 1, 5)
    assert rel(t2, T(1, 4, ANY, 6), T(4, 3, 3, 3), attrs=Conv2DTransposeAttrs()) == T(1, 3, ANY, 8)
    t1 = "nn.conv1d_transpose"
    b = Conv1DTransposeAttrs(strides=(3,), padding=(2, 1), output_padding=(2,))
    assert rel(t1, T(2, 4, 5), T(4, 1, 4), attrs=b) == T(2, 1, 15)  # 12 + 4 - 3 + 2


@pytest.mark.parametrize(
    ("dshape", "wshape", "strides", "padding", "dilation", "groups"), CONV1D_CASES
)
def test_conv1d_matches_onnxruntime(
    dshape: tuple[int, ...],
    wshape: tuple[int, ...],
    strides: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
    groups: int,
) -> None:
    rng = np.random.default_rng(RNG_SEED_2)
    x = rng.standard_normal(dshape).astype(np.float32)
    wt = rng.standard_normal(wshape).astype(np.float32)
    attrs = Conv1DAttrs(strides=strides, padding=padding, dilation=dilation, groups=groups)
    got = assert_agrees_tensor("nn.conv1d", (x, wt), attrs)
    expected = onnx_run(
        "Conv",
        [x, wt],
        strides=list(strides),
        pads=list(padding),
        dilations=list(dilation),
        group=groups,
    )
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    assert got is not None
    direct = conv_direct_nd(x, wt, strides, padding[:1], dilation, groups, got.shape)
    np.testing.assert_allclose(got, direct, rtol=1e-5, atol=1e-5)
    # NWC data and a WIO kernel give the same numbers, transposed
    nwc = Conv1DAttrs(
        strides=strides,
        padding=padding,
        dilation=dilation,
        groups=groups,
        data_layout="NWC",
        kernel_layout="WIO",
    )
    moved = ref("nn.conv1d", x.transpose(0, 2, 1), wt.transpose(2, 1, 0), attrs=nwc)
    np.testing.assert_allclose(moved, got.transpose(0, 2, 1), rtol=1e-6)


def test_conv3d_matches_onnxruntime() -> None:
    rng = np.random.default_rng(RNG_SEED_2)
    x = rng.standard_normal((2, 4, 5, 6, 5)).astype(np.float32)
    wt = rng.standard_normal((4, 2, 2, 3, 2)).astype(np.float32)
    attrs = Conv3DAttrs(strides=(1, 2, 1), padding=(1, 0, 1, 0, 1, 2), dilation=(2, 1, 1), groups=2)
    got = assert_agrees_tensor("nn.conv3d", (x, wt), attrs)
    expected = onnx_run(
        "Conv", [x, wt], strides=[1, 2, 1], pads=[1, 0, 1, 0, 1, 2], dilations=[2, 1, 1], group=2
    )
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    ndhwc = Conv3DAttrs(
        strides=(1, 2, 1),
        padding=(1, 0, 1, 0, 1, 2),
        dilation=(2, 1, 1),
        groups=2,
        data_layout="NDHWC",
        kernel_layout="DHWIO",
        out_layout="NCDHW",
    )
    moved = ref("nn.conv3d", x.transpose(0, 2, 3, 4, 1), wt.transpose(2, 3, 4, 1, 0), attrs=ndhwc)
    np.testing.assert_allclose(moved, got, rtol=1e-6)


@pytest.mark.parametrize(
    ("dshape", "wshape", "strides", "padding", "opad", "dilation", "groups"), TRANSPOSE_CASES
)
def test_conv_transpose_matches_onnxruntime_and_a_scatter(
    dshape: tuple[int, ...],
    wshape: tuple[int, ...],
    strides: tuple[int, ...],
    padding: tuple[int, ...],
    opad: tuple[int, ...],
    dilation: tuple[int, ...],
    groups: int,
) -> None:
    rng = np.random.default_rng(RNG_SEED_2)
    x = rng.standard_normal(dshape).astype(np.float32)
    wt = rng.standard_normal(wshape).astype(np.float32)
    nd = len(dshape) - 2
    cls = Conv1DTransposeAttrs if nd == 1 else Conv2DTransposeAttrs
    name = "nn.conv1d_transpose" if nd == 1 else "nn.conv2d_transpose"
    attrs = cls(
        strides=strides, padding=padding, output_padding=opad, dilation=dilation, groups=groups
    )
    got = assert_agrees_tensor(name, (x, wt), attrs)
    assert got is not None
    pads = list(padding) * (2 * nd // len(padding))
    expected = onnx_run(
        "ConvTranspose",
        [x, wt],
        strides=list(strides),
        pads=pads,
        output_padding=list(opad),
        dilations=list(dilation),
        group=groups,
    )
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    scatter = transpose_direct(x, wt, strides, tuple(pads[:nd]), dilation, groups, got.shape)
    np.testing.assert_allclose(got, scatter, rtol=1e-5, atol=1e-5)


def test_conv_transpose_hand_computed_and_integers() -> None:
    # stride 2 spreads [1, 2] to [1, 1, 2, 2] * w = [1, 1] with kernel 2 (no overlap)
    x = np.array([[[1, 2]]], np.int32)
    wt = np.array([[[1, 1]]], np.int32)
    got = ref("nn.conv1d_transpose", x, wt, attrs=Conv1DTransposeAttrs(strides=(2,)))
    assert got.tolist() == [[[1, 1, 2, 2]]] and got.dtype == np.int32
    # stride 1 overlaps: [1, 2] full-correlated with [1, 1] is [1, 3, 2]; padding 1 crops
    one = ref("nn.conv1d_transpose", x, wt, attrs=Conv1DTransposeAttrs())
    assert one.tolist() == [[[1, 3, 2]]]
    cropped = ref("nn.conv1d_transpose", x, wt, attrs=Conv1DTransposeAttrs(padding=(1, 0)))
    assert cropped.tolist() == [[[3, 2]]]
    # output_padding adds a position nothing reaches: 0
    extra = ref(
        "nn.conv1d_transpose", x, wt, attrs=Conv1DTransposeAttrs(strides=(2,), output_padding=(1,))
    )
    assert extra.tolist() == [[[1, 1, 2, 2, 0]]]
    # int8 wraps; int32 overflow is undefined
    x8 = np.array([[[100, 100]]], np.int8)
    assert ref(
        "nn.conv1d_transpose", x8, np.array([[[1, 1]]], np.int8), attrs=Conv1DTransposeAttrs()
    ).tolist() == [[[100, -56, 100]]]
    big = np.array([[[2**30, 2**30]]], np.int32)
    with pytest.raises(UndefinedBehavior, match="overflows int32"):
        ref(
            "nn.conv1d_transpose", big, np.array([[[1, 1]]], np.int32), attrs=Conv1DTransposeAttrs()
        )
    # empty spatial input: every output is the empty sum
    empty = ref(
        "nn.conv1d_transpose",
        np.zeros((1, 1, 0), np.float32),
        np.ones((1, 1, 3), np.float32),
        attrs=Conv1DTransposeAttrs(),
    )
    assert empty.tolist() == [[[0, 0]]]


def test_conv_integers_and_undefined_cases() -> None:
    x = np.array([[[100, -100, 7]]], np.int8)
    wt = np.array([[[1, 1]]], np.int8)
    wide = ref("nn.conv1d", x, wt, attrs=Conv1DAttrs(out_dtype="int32"))
    assert wide.tolist() == [[[0, -93]]] and wide.dtype == np.int32
    x3 = np.full((1, 1, 1, 1, 2), 2**31 - 1, np.int32)
    with pytest.raises(UndefinedBehavior, match="overflows int32"):
        ref("nn.conv3d", x3, np.ones((1, 1, 1, 1, 2), np.int32), attrs=Conv3DAttrs())
    with pytest.raises(UndefinedBehavior, match="bool output dtype"):
        ref("nn.conv1d", np.ones((1, 1, 2), bool), np.ones((1, 1, 1), bool), attrs=Conv1DAttrs())
    with pytest.raises(UndefinedBehavior, match="NaN or an out-of-range"):
        ref(
            "nn.conv1d",
            np.array([[[np.nan]]], np.float32),
            np.ones((1, 1, 1), np.float32),
            attrs=Conv1DAttrs(out_dtype="int32"),
        )


@settings(max_examples=40)
@given(SEEDS, st.sampled_from(ALL), st.sampled_from([1, 3]), st.data())
def test_convolutions_agree_with_relation(
    seed: int, dtype: str, nd: int, data: st.DataObject
) -> None:
    rng = np.random.default_rng(seed)
    groups = data.draw(st.sampled_from([1, 2]))
    c, o = groups * data.draw(st.integers(1, 2)), groups * data.draw(st.integers(1, 2))
    kernel = tuple(data.draw(st.integers(1, 2)) for _ in range(nd))
    spatial = tuple(data.draw(st.integers(k, k + 2)) for k in kernel)
    out_dtype = data.draw(st.sampled_from(["", dtype, "float64" if dtype in FLOATS else "int64"]))
    x = random(rng, (data.draw(st.integers(0, 2)), c, *spatial), dtype)
    wt = random(rng, (o, c // groups, *kernel), dtype)
    cls: Any = Conv1DAttrs if nd == 1 else Conv3DAttrs
    attrs = cls(groups=groups, padding=(data.draw(st.integers(0, 1)),), out_dtype=out_dtype)
    name = "nn.conv1d" if nd == 1 else "nn.conv3d"
    assert_agrees_tensor(name, (x, wt), attrs, defined=(out_dtype or dtype) != "bool")
    tcls: Any = Conv1DTransposeAttrs if nd == 1 else Conv2DTransposeAttrs
    tname = "nn.conv1d_transpose" if nd == 1 else "nn.conv2d_transpose"
    td = 1 if nd == 1 else 2
    xt = random(rng, (1, c, *spatial[:td], *((2,) * (td - len(spatial[:td])))), dtype)
    wtt = random(rng, (c, o // groups, *kernel[:td], *((1,) * (td - len(kernel[:td])))), dtype)
    stride = data.draw(st.integers(1, 2))
    tattrs = tcls(
        groups=groups,
        strides=(stride,) * td,
        output_padding=(stride - 1,) * td,
        out_dtype=out_dtype,
    )
    assert_agrees_tensor(tname, (xt, wtt), tattrs, defined=(out_dtype or dtype) != "bool")


@pytest.mark.parametrize(("call", "xtype", "wtype"), ROUND_TRIP)
def test_text_round_trip_with_non_default_attributes(call: str, xtype: str, wtype: str) -> None:
    params = f"%x: {xtype}" + (f", %w: {wtype}" if wtype else "")
    mod = relay.parse(f"fn ({params}) {{ {call} }}")
    text = relay.astext(mod)
    assert call.split("(")[0] in text and relay.astext(relay.parse(text)) == text
    relay.infer_types(mod)
    name = call.split("(")[0]
    # every non-default attribute survived the round trip
    for piece in call.split(", ")[2 if wtype else 1 :]:
        assert piece.rstrip(")").split("=")[0] in text, (piece, text)
    assert name in OPS


# nn.contrib_conv2d_NCHWc


def nchwc(data: TensorType, weight: TensorType, **attrs: Any) -> Type:
    kwargs: dict[str, Any] = {
        "data_layout": "NCHW4c",
        "kernel_layout": "OIHW4i4o",
        "channels": 4,
        "kernel_size": (3, 3),
        **attrs,
    }
    return rel("nn.contrib_conv2d_NCHWc", data, weight, attrs=Conv2DAttrs(**kwargs))


def test_conv2d_nchwc_relation() -> None:
    # TVM 0.18's tests/python/relay/aot/test_crt_aot.py (backend_alloc_workspace_calls).
    x, k = T(1, 1, 4, 4, 4), T(1, 1, 3, 3, 4, 4)
    assert nchwc(x, k, padding=(1, 1, 1, 1), out_layout="NCHW4c") == T(1, 1, 4, 4, 4)
    assert nchwc(x, k) == T(1, 1, 2, 2, 4)  # out_layout "" is data_layout
    assert nchwc(x, k, out_layout="NCHW") == T(1, 4, 2, 2)
    assert nchwc(x, k, out_layout="NCHW2c") == T(1, 2, 2, 2, 2)
    assert nchwc(x, k, out_layout="NHWC") == T(1, 2, 2, 4)
    # 8 input channels in blocks of 4, 8 outputs in blocks of 2 (O/2, I/4, KH, KW, 4i, 2o).
    x8, k8 = T(2, 2, 9, 7, 4), T(4, 2, 3, 3, 4, 2)
    assert nchwc(x8, k8, channels=8, kernel_layout="OIHW4i2o", out_layout="NCHW2c") == T(
        2, 4, 7, 5, 2
    )
    strided = nchwc(x8, k8, channels=8, kernel_layout="OIHW4i2o", strides=(2, 2), dilation=(1, 2))
    assert strided == T(2, 2, 4, 2, 4)
    # Plain layouts are packed layouts without sub-axes.
    plain = nchwc(
        T(1, 3, 5, 5), T(2, 3, 3, 3), data_layout="NCHW", kernel_layout="OIHW", channels=2
    )
    assert plain == conv(T(1, 3, 5, 5), T(2, 3, 3, 3))
    assert nchwc(T(1, 1, 4, 4, 4), T(3, 3, 4, 1, 4), kernel_layout="HWIO4o") == T(1, 1, 2, 2, 4)
    assert nchwc(T(n, 1, h, 4, 4), k) == T(n, 1, h - 2, 2, 4)
    assert nchwc(T(ANY, 1, ANY, 4, 4), k) == T(ANY, 1, ANY, 2, 4)
    assert nchwc(
        T(1, 1, 4, 4, 4, dtype="int8"), T(1, 1, 3, 3, 4, 4, dtype="int8"), out_dtype="int32"
    ) == T(1, 1, 2, 2, 4, dtype="int32")


@pytest.mark.parametrize(
    ("data", "weight", "attrs", "message"),
    [
        (T(1, 1, 4, 4, 4), T(1, 1, 3, 3, 4, 4), {"channels": None}, "channels must be set"),
        (T(1, 1, 4, 4, 4), T(1, 1, 3, 3, 4, 4), {"kernel_size": None}, "kernel_size must be"),
        (T(1, 2, 4, 4, 4), T(1, 1, 3, 3, 4, 4), {"groups": 2}, "groups=2 is not supported"),
        (T(1, 2, 4, 4, 4), T(1, 1, 3, 3, 4, 4), {}, "does not match (4, 8, 3, 3)"),
        (T(1, 1, 4, 4, 4), T(1, 1, 3, 3, 4, 4), {"channels": 8}, "implied by channels=8"),
        (T(1, 1, 4, 4, 4), T(1, 1, 2, 2, 4, 4), {}, "does not match"),
        (T(1, 1, 4, 4, 3), T(1, 1, 3, 3, 4, 4), {}, 'data_layout="NCHW4c"'),
        (T(1, 1, 4, 4), T(1, 1, 3, 3, 4, 4), {}, "has 5 axes but data has rank 4"),
        (T(1, 1, 4, 4, 4), T(1, 1, 3, 3, 4, 4), {"data_layout": "NCH4c"}, "different primal"),
        (T(1, 1, 4, 4, 4), T(1, 1, 3, 3, 4, 4), {"kernel_layout": "OIHW4i4i"}, "repeats"),
        (T(1, 1, 4, 4, 4), T(1, 1, 3, 3, 4, 4), {"out_layout": "NCHW3c"}, "does not divide"),
        (T(1, 1, 4, 4, 4), T(1, 1, 3, 3, 4, 4), {"out_layout": "NCH"}, 'out_layout="NCH"'),
        (T(1, 1, 1, 1, 4), T(1, 1, 3, 3, 4, 4), {}, "longer than the padded input"),
        (T(1, 1, 4, 4, 4), T(1, 1, 3, 3, 4, 4), {"strides": (0, 1)}, "strides"),
    ],
)
def test_conv2d_nchwc_relation_rejects(
    data: TensorType, weight: TensorType, attrs: dict[str, Any], message: str
) -> None:
    with pytest.raises(RelationError, match=re.escape(message)):
        nchwc(data, weight, **attrs)


def _packed_index(layout: str, index: dict[str, int]) -> tuple[int, ...]:
    """Where the element of primal index ``index`` sits in an array in ``layout``."""
    axes = re.findall(r"(\d*)([A-Za-z])", layout)
    factors = {c.upper(): int(f) for f, c in axes if f}
    out = []
    for f, c in axes:
        if f:
            out.append(index[c.upper()] % int(f))
        else:
            out.append(index[c] // factors.get(c, 1))
    return tuple(out)


def direct_nchwc(data: Array, weight: Array, a: Conv2DAttrs, oshape: tuple[int, ...]) -> Array:
    """Direct loops over the packed layouts: every output element is the sum over input
    channels and window offsets of data times weight, read at their packed positions, with
    zero outside the input (padding); everything in the output dtype (float64 sums)."""
    dtype = np.dtype(a.out_dtype or data.dtype)
    out_layout = a.out_layout or a.data_layout
    p = a.padding
    pt, pl = (p[0], p[0]) if len(p) == 1 else (p[0], p[1])  # 2 and 4 values: top, left first
    data_axes = re.findall(r"(\d*)([A-Za-z])", a.data_layout)
    subs = {c.upper(): int(f) for f, c in data_axes if f}
    sizes = {
        c: d * subs.get(c, 1) for (f, c), d in zip(data_axes, data.shape, strict=True) if not f
    }
    kh, kw = a.kernel_size or (0, 0)
    assert a.channels is not None
    out = np.zeros(oshape, dtype)
    acc: Any = float if dtype.kind == "f" else int  # float64 sums; exact integer sums
    for idx in itertools.product(*(range(e) for e in oshape)):
        pos = {"N": 0, "C": 0, "H": 0, "W": 0}
        letters = re.findall(r"(\d*)([A-Za-z])", out_layout)
        for (f, c), i in zip(letters, idx, strict=True):
            if f:
                pos[c.upper()] += i
            else:
                factor = next((int(g) for g, d in letters if d == c.lower()), 1)
                pos[c] += i * factor
        total = acc(0)
        for ci in range(sizes["C"]):
            for y in range(kh):
                for x in range(kw):
                    iy = pos["H"] * a.strides[0] - pt + y * a.dilation[0]
                    ix = pos["W"] * a.strides[1] - pl + x * a.dilation[1]
                    if not (0 <= iy < sizes["H"] and 0 <= ix < sizes["W"]):
                        continue
                    d = data[
                        _packed_index(a.data_layout, {"N": pos["N"], "C": ci, "H": iy, "W": ix})
                    ]
                    k = weight[
                        _packed_index(a.kernel_layout, {"O": pos["C"], "I": ci, "H": y, "W": x})
                    ]
                    total += acc(d.astype(dtype)) * acc(k.astype(dtype))
        out[idx] = total
    return out


NCHWC_CASES = [
    # (data layout, kernel layout, out layout, ic, oc, ki)
    ("NCHW4c", "OIHW4i4o", "NCHW4c", 4, 4, 4),
    ("NCHW2c", "OIHW2i4o", "", 2, 4, 2),
    ("NCHW2c", "OIHW1i2o", "NCHW", 2, 2, 1),
    ("NCHW", "OIHW", "NCHW2c", 1, 2, 1),
    ("NHWC2c", "HWIO2o", "NHWC", 2, 2, 1),
]


@settings(max_examples=25, deadline=None)
@given(
    SEEDS, st.sampled_from(NCHWC_CASES), st.sampled_from(["float32", "float64", "int16"]), st.data()
)
def test_conv2d_nchwc_matches_direct_loops(
    seed: int, case: tuple[str, str, str, int, int, int], dtype: str, data: st.DataObject
) -> None:
    data_layout, kernel_layout, out_layout, ic, oc, ki = case
    rng = np.random.default_rng(seed)
    c = ic * ki * data.draw(st.integers(1, 2))
    o = np.lcm(ic, oc) * data.draw(st.integers(1, 2))
    kh, kw = data.draw(st.integers(1, 3)), data.draw(st.integers(1, 3))
    strides = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2)))
    dilation = (data.draw(st.integers(1, 2)), data.draw(st.integers(1, 2)))
    padding = tuple(
        data.draw(st.integers(0, 1)) for _ in range(data.draw(st.sampled_from([1, 2, 4])))
    )
    hh = (kh - 1) * dilation[0] + 1 + data.draw(st.integers(0, 2))
    ww = (kw - 1) * dilation[1] + 1 + data.draw(st.integers(0, 2))
    nn_ = data.draw(st.integers(1, 2))

    def packed(sizes: dict[str, int], layout: str) -> tuple[int, ...]:
        axes = re.findall(r"(\d*)([A-Za-z])", layout)
        factors = {x.upper(): int(f) for f, x in axes if f}
        return tuple(int(f) if f else sizes[x] // factors.get(x, 1) for f, x in axes)

    x = random(rng, packed({"N": nn_, "C": c, "H": hh, "W": ww}, data_layout), dtype)
    w = random(rng, packed({"O": int(o), "I": c, "H": kh, "W": kw}, kernel_layout), dtype)
    out_dtype = data.draw(st.sampled_from(["", "float64" if dtype != "int16" else "int32"]))
    attrs = Conv2DAttrs(
        strides=strides,
        padding=padding,
        dilation=dilation,
        channels=int(o),
        kernel_size=(kh, kw),
        data_layout=data_layout,
        kernel_layout=kernel_layout,
        out_layout=out_layout,
        out_dtype=out_dtype,
    )
    assert_agrees_tensor("nn.contrib_conv2d_NCHWc", (x, w), attrs)
    got = ref("nn.contrib_conv2d_NCHWc", x, w, attrs=attrs)
    expected = direct_nchwc(x, w, attrs, got.shape)
    if expected.dtype.kind == "f":
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    else:
        np.testing.assert_array_equal(got, expected)


def test_conv2d_nchwc_hand_computed_and_undefined() -> None:
    # One input channel block of 2, a 1x1 kernel: out[c_o] = sum_c x[c] * w[c_o, c].
    x = np.arange(1, 5, dtype=np.float32).reshape(1, 1, 1, 2, 2)  # C = 2 at W = 0, 1
    w = np.array([1, 10, 100, 1000], dtype=np.float32).reshape(1, 1, 1, 1, 2, 2)  # (i, o)
    attrs = Conv2DAttrs(
        channels=2, kernel_size=(1, 1), data_layout="NCHW2c", kernel_layout="OIHW2i2o"
    )
    got = ref("nn.contrib_conv2d_NCHWc", x, w, attrs=attrs)
    # Pixel 0: x = (1, 2); o0 = 1*1 + 2*100 = 201, o1 = 1*10 + 2*1000 = 2010.
    np.testing.assert_array_equal(got.reshape(2, 2), [[201, 2010], [403, 4030]])
    big = np.full((1, 1, 1, 1, 2), 2**30, np.int32)
    wk = np.full((1, 1, 1, 1, 2, 1), 2, np.int32)
    over = Conv2DAttrs(
        channels=1, kernel_size=(1, 1), data_layout="NCHW2c", kernel_layout="OIHW2i1o"
    )
    with pytest.raises(UndefinedBehavior):
        ref("nn.contrib_conv2d_NCHWc", big, wk, attrs=over)


def test_conv2d_nchwc_text_and_evaluation() -> None:
    text = (
        '#[version = "0.0.5"]\n'
        "def @main(%p01: Tensor[(1, 1, 4, 4, 4), float32], "
        "%p1: Tensor[(1, 1, 3, 3, 4, 4), float32]) {\n"
        "  nn.contrib_conv2d_NCHWc(%p01, %p1, padding=[1, 1, 1, 1], channels=4, "
        'kernel_size=[3, 3], data_layout="NCHW4c", kernel_layout="OIHW4i4o", '
        'out_layout="NCHW4c")\n'
        "}\n"
    )
    mod = relay.parse(text)
    printed = relay.astext(mod)
    assert relay.astext(relay.parse(printed)) == printed
    assert 'kernel_layout="OIHW4i4o"' in printed
    assert "/* ty=Tensor[(1, 1, 4, 4, 4), float32] */" in relay.astext(mod, types=True)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 1, 4, 4, 4)).astype(np.float32)
    w = rng.standard_normal((1, 1, 3, 3, 4, 4)).astype(np.float32)
    value = relay.evaluate(mod, x, w)
    nchw = x.transpose(0, 1, 4, 2, 3).reshape(1, 4, 4, 4)
    oihw = w.transpose(0, 5, 1, 4, 2, 3).reshape(4, 4, 3, 3)
    plain = ref("nn.conv2d", nchw, oihw, attrs=Conv2DAttrs(padding=(1, 1, 1, 1)))
    expected = plain.reshape(1, 1, 4, 4, 4).transpose(0, 1, 3, 4, 2)
    np.testing.assert_allclose(np.asarray(value.data), expected, rtol=1e-5, atol=1e-5)
