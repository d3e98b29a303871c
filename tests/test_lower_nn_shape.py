"""Lowerings of ``nn/shape`` (``compiler/lower/ops/nn/shape.py``) against the references."""

from __future__ import annotations

import pytest
from lowernn_helpers import check_call, sampled_cases

from relay.semantics.ops.nn.shape import PadAttrs
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


for _op in (
    "nn.batch_flatten",
    "nn.pad",
    "nn.mirror_pad",
    "nn.space_to_depth",
    "nn.depth_to_space",
):

    @sampled_cases(_op, examples=15)
    def _test() -> None:
        """Sampled calls."""

    globals()[f"test_sampled_{_op.removeprefix('nn.')}"] = _test
