"""Lowerings of ``nn/norm`` (``compiler/lower/ops/nn/norm.py``) against the references."""

from __future__ import annotations

import numpy as np
import pytest
from lowernn_helpers import check_call, sampled_cases

from relay.semantics.ops.nn.norm import BatchNormAttrs, GroupNormAttrs, LayerNormAttrs
from relay.semantics.syntax import TensorType


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_batch_norm_tuple(dtype: str) -> None:
    c = TensorType((3,), dtype)
    types = [TensorType((2, 3, 4), dtype), c, c, c, c]
    rng = np.random.default_rng(3)
    args = [rng.standard_normal(t.shape).astype(dtype) for t in types]  # type: ignore[arg-type]
    args[4] = np.abs(args[4])  # a variance
    assert check_call("nn.batch_norm", types, BatchNormAttrs(epsilon=1e-3), args)


@pytest.mark.parametrize("axis", [0, 1, -1])
def test_layer_norm(axis: int) -> None:
    shape = (3, 4, 5)
    c = TensorType((shape[axis],), "float32")
    types = [TensorType(shape, "float32"), c, c]
    assert check_call("nn.layer_norm", types, LayerNormAttrs(axis=axis))


def test_group_norm() -> None:
    c = TensorType((6,), "float32")
    types = [TensorType((2, 6, 3, 2), "float32"), c, c]
    assert check_call("nn.group_norm", types, GroupNormAttrs(num_groups=3))


for _op in (
    "nn.batch_norm",
    "nn.dropout",
    "nn.layer_norm",
    "nn.group_norm",
    "nn.instance_norm",
    "nn.l2_normalize",
    "nn.lrn",
):

    @sampled_cases(_op, examples=12)
    def _test() -> None:
        """Sampled calls."""

    globals()[f"test_sampled_{_op.removeprefix('nn.')}"] = _test
