"""Lowerings of ``nn/pool`` (``compiler/lower/ops/nn/pool.py``) against the references:
padding, ceil_mode, count_include_pad, dilation, layouts, global and adaptive pools."""

from __future__ import annotations

import numpy as np
import pytest
from lowernn_helpers import check_call, sampled_cases

from relay.semantics.ops.nn.pool import AdaptivePool2DAttrs, AvgPool2DAttrs, MaxPool2DAttrs
from relay.semantics.syntax import TensorType


@pytest.mark.parametrize("ceil_mode", [False, True])
@pytest.mark.parametrize("include", [False, True])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_avg_pool2d(ceil_mode: bool, include: bool, layout: str) -> None:
    attrs = AvgPool2DAttrs(
        pool_size=(3, 2),
        strides=(2, 2),
        padding=(1, 0, 1, 1),
        layout=layout,
        ceil_mode=ceil_mode,
        count_include_pad=include,
    )
    for dtype in ("float32", "int32", "float16"):
        assert check_call("nn.avg_pool2d", [TensorType((2, 3, 7, 6), dtype)], attrs)


@pytest.mark.parametrize("ceil_mode", [False, True])
def test_max_pool2d(ceil_mode: bool) -> None:
    attrs = MaxPool2DAttrs(
        pool_size=(2, 3), strides=(2, 1), dilation=(2, 1), padding=(1,), ceil_mode=ceil_mode
    )
    assert check_call("nn.max_pool2d", [TensorType((1, 2, 8, 7), "float32")], attrs)
    assert check_call("nn.max_pool2d", [TensorType((1, 2, 8, 7), "int8")], attrs)


def test_max_pool2d_infinities() -> None:
    x = np.full((1, 1, 2, 2), -np.inf, np.float32)
    attrs = MaxPool2DAttrs(pool_size=(2, 2), padding=(1,))
    assert check_call("nn.max_pool2d", [TensorType((1, 1, 2, 2), "float32")], attrs, [x])


@pytest.mark.parametrize("size", [(), (1,), (3, 2), (4, 7)])
def test_adaptive(size: tuple[int, ...]) -> None:
    attrs = AdaptivePool2DAttrs(output_size=size)
    for op in ("nn.adaptive_avg_pool2d", "nn.adaptive_max_pool2d"):
        assert check_call(op, [TensorType((1, 2, 5, 7), "float32")], attrs)


for _op in (
    "nn.max_pool1d",
    "nn.max_pool2d",
    "nn.max_pool3d",
    "nn.avg_pool1d",
    "nn.avg_pool2d",
    "nn.avg_pool3d",
    "nn.global_avg_pool2d",
    "nn.global_max_pool2d",
    "nn.adaptive_avg_pool2d",
    "nn.adaptive_max_pool2d",
):

    @sampled_cases(_op, examples=12)
    def _test() -> None:
        """Sampled calls."""

    globals()[f"test_sampled_{_op.removeprefix('nn.')}"] = _test
