"""Lowerings of ``nn/shape`` (``compiler/lower/ops/nn/shape.py``) against the references."""

from __future__ import annotations

import pytest
from lowernn_helpers import check_call, sampled_cases

from relay.semantics.ops.nn.shape import (
    BatchToSpaceNDAttrs,
    PadAttrs,
    SpaceToBatchNDAttrs,
    UpSamplingAttrs,
)
from relay.semantics.syntax import TensorType


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
def test_pad(mode: str) -> None:
    attrs = PadAttrs(pad_width=((1, 2), (2, 1)), pad_mode=mode)
    types = [TensorType((3, 4), "int32"), TensorType((), "int32")]
    assert check_call("nn.pad", types, attrs)


def test_pad_crops() -> None:
    attrs = PadAttrs(pad_width=((-1, 2), (0, -1)), pad_mode="constant")
    types = [TensorType((3, 4), "float32"), TensorType((1,), "float64")]
    assert check_call("nn.pad", types, attrs)


@pytest.mark.parametrize("dtype", ["float32", "int8", "bool"])
def test_space_to_batch_and_back(dtype: str) -> None:
    to = SpaceToBatchNDAttrs(block_shape=(2, 3), paddings=((1, 0), (2, 1)), pad_value=-1.7)
    if dtype == "bool":
        to = SpaceToBatchNDAttrs(block_shape=(2, 3), paddings=((1, 0), (2, 1)), pad_value=1.0)
    assert check_call("nn.space_to_batch_nd", [TensorType((2, 3, 6, 4), dtype)], to)
    back = BatchToSpaceNDAttrs(block_shape=(2, 3), crops=((1, 0), (0, 2)))
    assert check_call("nn.batch_to_space_nd", [TensorType((12, 2, 3, 4), dtype)], back)


@pytest.mark.parametrize("method", ["nearest_neighbor", "bilinear", "bicubic"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_upsampling(method: str, align_corners: bool, layout: str) -> None:
    for scales in [(2.0, 3.0), (1.5, 0.5)]:
        attrs = UpSamplingAttrs(
            scale_h=scales[0],
            scale_w=scales[1],
            layout=layout,
            method=method,
            align_corners=align_corners,
        )
        assert check_call("nn.upsampling", [TensorType((1, 3, 4, 5), "float32")], attrs)


for _op in (
    "nn.batch_flatten",
    "nn.pad",
    "nn.mirror_pad",
    "nn.space_to_depth",
    "nn.depth_to_space",
    "nn.space_to_batch_nd",
    "nn.batch_to_space_nd",
    "nn.upsampling",
):

    @sampled_cases(_op, examples=15)
    def _test() -> None:
        """Sampled calls."""

    globals()[f"test_sampled_{_op.removeprefix('nn.')}"] = _test
