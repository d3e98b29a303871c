"""Lowerings of ``nn/conv`` (``compiler/lower/ops/nn/conv.py``) against the references, with
both schedules of the forward convolutions (packed loop nest and im2col + ``cblas_sgemm``)."""

from __future__ import annotations

import numpy as np
import pytest
from lowernn_helpers import check_call, lower_call, sampled_cases

from relay.compiler.lower import ir, schedules
from relay.semantics.ops.nn.conv import Conv2DAttrs, Conv2DTransposeAttrs
from relay.semantics.syntax import TensorType

STRATEGIES = pytest.mark.parametrize("strategy", schedules.STRATEGIES)


def T(*shape: int, dtype: str = "float32") -> TensorType:
    return TensorType(shape, dtype)


@STRATEGIES
@pytest.mark.parametrize(
    "data, weight, attrs",
    [
        (T(1, 3, 7, 6), T(5, 3, 3, 3), Conv2DAttrs()),
        (T(2, 4, 6, 6), T(6, 2, 3, 2), Conv2DAttrs(groups=2, padding=(1, 0, 2, 1))),
        (T(1, 3, 9, 8), T(4, 3, 3, 3), Conv2DAttrs(strides=(2, 1), dilation=(1, 2), padding=(1,))),
        (
            T(1, 4, 5, 5),
            T(4, 2, 3, 3),
            Conv2DAttrs(groups=4, channels=8, kernel_size=(3, 3), padding=(1, 1)),
        ),  # x2
        (
            T(1, 6, 5, 3),
            T(3, 3, 3, 4),
            Conv2DAttrs(data_layout="NHWC", kernel_layout="HWIO", padding=(1, 1)),
        ),
        (T(1, 3, 5, 4), T(2, 3, 3, 4), Conv2DAttrs(kernel_layout="HWIO", out_layout="NHWC")),
    ],
)
def test_conv2d(strategy: str, data: TensorType, weight: TensorType, attrs: Conv2DAttrs) -> None:
    with schedules.gemm_strategy(strategy):
        assert check_call("nn.conv2d", [data, weight], attrs)


@pytest.mark.parametrize(
    "strategy",
    [
        "packed",
        "blas",
        # gemm_elementwise has no tiles: this is the loop nest of the small cases above, and
        # the loop-IR interpreter takes 6 s over its 10,200 sums (slow run only)
        pytest.param("gpu", marks=pytest.mark.slow),
    ],
)
def test_conv2d_many_pixels_odd_channels(strategy: str) -> None:
    """A larger 1x1 convolution than the cases above (600 pixels, 17 output channels): many
    register blocks of the packed schedule, partial ones among them."""
    with schedules.gemm_strategy(strategy):
        assert check_call("nn.conv2d", [T(1, 3, 30, 20), T(17, 3, 1, 1)], Conv2DAttrs())


@STRATEGIES
@pytest.mark.parametrize("dtype", ["float16", "int8", "int32"])
def test_conv2d_dtypes(strategy: str, dtype: str) -> None:
    with schedules.gemm_strategy(strategy):
        types = [T(1, 2, 5, 5, dtype=dtype), T(3, 2, 3, 3, dtype=dtype)]
        assert check_call("nn.conv2d", types, Conv2DAttrs(padding=(1, 1)))


@STRATEGIES
def test_conv2d_epilogue_relu(strategy: str) -> None:
    def epilogue(v: ir.PrimExpr, idx: tuple[ir.PrimExpr, ...]) -> ir.PrimExpr:
        return ir.Binary(ir.BinOp.MAX, v, ir.Const(0.0, "float32"))

    with schedules.gemm_strategy(strategy):
        assert check_call(
            "nn.conv2d",
            [T(1, 3, 6, 6), T(4, 3, 3, 3)],
            Conv2DAttrs(padding=(1, 1)),
            epilogue=(epilogue, lambda y: np.maximum(y, 0).astype(np.float32)),
        )


def test_conv2d_blas_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(schedules, "BLAS_CHUNK", 7)
    with schedules.gemm_strategy("blas"):
        assert check_call("nn.conv2d", [T(2, 3, 5, 6), T(4, 3, 2, 2)], Conv2DAttrs())


@pytest.mark.parametrize(
    "width, kernel, stride, dilation, left, right",
    [
        (6, 3, 1, 1, 1, 1),
        (7, 3, 2, 1, 1, 2),
        (8, 2, 3, 2, 2, 0),
        (2, 3, 1, 1, 4, 4),  # padding wider than the kernel's reach: rows all zero at both ends
        (1, 2, 2, 3, 3, 1),
        (5, 5, 1, 1, 0, 0),  # no padding: the whole row is inside
        (9, 3, 4, 3, 5, 6),
    ],
)
def test_conv2d_sgemm_row_split(
    width: int, kernel: int, stride: int, dilation: int, left: int, right: int
) -> None:
    """The sgemm schedule fills each row of the im2col as three loops (left padding, inside,
    right padding; ``_Geometry.fill_row``): every boundary case of the split on the last axis,
    strides, dilations and paddings wider than the kernel's reach among them."""
    attrs = Conv2DAttrs(strides=(1, stride), dilation=(1, dilation), padding=(1, left, 0, right))
    with schedules.gemm_strategy("blas"):
        assert check_call("nn.conv2d", [T(1, 2, 3, width), T(3, 2, 2, kernel)], attrs)


def test_conv2d_transpose_strided() -> None:
    attrs = Conv2DTransposeAttrs(strides=(2, 3), padding=(1, 0, 0, 2), output_padding=(1, 1))
    assert check_call("nn.conv2d_transpose", [T(1, 4, 3, 4), T(4, 3, 3, 3)], attrs)


@STRATEGIES
@pytest.mark.parametrize(
    ("data_layout", "kernel_layout", "out_layout"),
    [("NCHW4c", "OIHW4i2o", ""), ("NCHW2c", "OIHW2i4o", "NCHW4c"), ("NCHW", "OIHW", "NCHW8c")],
)
def test_conv2d_nchwc(strategy: str, data_layout: str, kernel_layout: str, out_layout: str) -> None:
    nchw, oihw = (1, 8, 6, 5), (8, 8, 3, 3)

    def packed(shape: tuple[int, ...], layout: str, primal: str) -> tuple[int, ...]:
        if layout == primal:
            return shape
        dims: list[int] = []
        subs = {c: int(f) for f, c in _sub_axes(layout)}
        for ch in layout:
            if ch.isupper():
                dims.append(shape[primal.index(ch)] // subs.get(ch.lower(), 1))
            elif ch.islower():
                dims.append(subs[ch])
        return tuple(dims)

    attrs = Conv2DAttrs(
        padding=(1, 0), strides=(1, 2), channels=8, kernel_size=(3, 3),
        data_layout=data_layout, kernel_layout=kernel_layout, out_layout=out_layout,
    )  # fmt: skip
    types = [T(*packed(nchw, data_layout, "NCHW")), T(*packed(oihw, kernel_layout, "OIHW"))]
    with schedules.gemm_strategy(strategy):
        assert check_call("nn.contrib_conv2d_NCHWc", types, attrs)


def _sub_axes(layout: str) -> list[tuple[str, str]]:
    """The ``<factor><letter>`` sub-axes of a packed layout."""
    import re

    return re.findall(r"(\d+)([a-z])", layout)


for _op in (
    "nn.conv1d",
    "nn.conv2d",
    "nn.conv3d",
    "nn.conv1d_transpose",
    "nn.conv2d_transpose",
    "nn.contrib_conv2d_NCHWc",
):

    @sampled_cases(_op, examples=15)
    def _test() -> None:
        """Sampled calls."""

    globals()[f"test_sampled_{_op.removeprefix('nn.')}"] = _test


def test_conv2d_sgemm_reads_an_oihw_weight_in_place() -> None:
    """One group, OIHW, float32: the weight input itself is sgemm's A (no per-chunk copy);
    a grouped call copies its group's block."""
    with schedules.gemm_strategy("blas"):
        plain = lower_call("nn.conv2d", [T(1, 4, 6, 6), T(5, 4, 3, 3)], Conv2DAttrs())
        grouped = lower_call("nn.conv2d", [T(1, 4, 6, 6), T(6, 2, 3, 3)], Conv2DAttrs(groups=2))
    for kernel, in_place in ((plain, True), (grouped, False)):
        calls = [s for s in ir.walk_stmt(kernel.body) if isinstance(s, ir.ExternCall)]
        assert len(calls) == 1
        assert (calls[0].args[7] is kernel.inputs[1]) is in_place
    assert check_call("nn.conv2d", [T(1, 4, 6, 6), T(5, 4, 3, 3)], Conv2DAttrs())
