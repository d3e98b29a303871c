"""Lowerings of ``nn/activation`` (``compiler/lower/ops/nn/activation.py``) against the
references, on sampled calls and on edge values (NaN, infinities, an empty axis)."""

from __future__ import annotations

import numpy as np
import pytest
from lowernn_helpers import check_call, sampled_cases

from relay.semantics.ops.nn.activation import LeakyReluAttrs, SoftmaxAttrs
from relay.semantics.syntax import TensorType


@pytest.mark.parametrize("op", ["nn.softmax", "nn.log_softmax", "nn.fast_softmax"])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_softmax_family(op: str, dtype: str, axis: int) -> None:
    assert check_call(op, [TensorType((3, 4, 5), dtype)], SoftmaxAttrs(axis=axis))


@pytest.mark.parametrize("op", ["nn.softmax", "nn.log_softmax", "nn.fast_softmax"])
def test_softmax_edge_values(op: str) -> None:
    x = np.array([[0.0, np.inf, 1.0], [np.nan, 0.0, 1.0], [-100.0, 100.0, 0.0]], np.float32)
    assert check_call(op, [TensorType((3, 3), "float32")], SoftmaxAttrs(axis=1), [x])


def test_relu_nan_is_zero() -> None:
    x = np.array([np.nan, -1.0, 2.0, -np.inf, np.inf], np.float32)
    assert check_call("nn.relu", [TensorType((5,), "float32")], None, [x])


@pytest.mark.parametrize("dtype", ["float32", "int8", "int32", "uint8", "bool"])
def test_leaky_relu(dtype: str) -> None:
    alpha = 1.0 if dtype == "bool" else 2.5  # 2.5 is no bool: undefined
    assert check_call("nn.leaky_relu", [TensorType((4, 5), dtype)], LeakyReluAttrs(alpha=alpha))


for _op in (
    "nn.relu",
    "nn.leaky_relu",
    "nn.prelu",
    "nn.softmax",
    "nn.log_softmax",
    "nn.fast_softmax",
):

    @sampled_cases(_op, examples=15)
    def _test() -> None:
        """Sampled calls."""

    globals()[f"test_sampled_{_op.removeprefix('nn.')}"] = _test
