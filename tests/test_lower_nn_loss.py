"""Lowerings of ``nn/loss`` (``compiler/lower/ops/nn/loss.py``) against the references."""

from __future__ import annotations

import numpy as np
import pytest
from lowernn_helpers import check_call, sampled_cases

from relay.semantics.ops.nn.loss import NLLLossAttrs
from relay.semantics.syntax import TensorType


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_nll_loss(reduction: str) -> None:
    types = [
        TensorType((3, 4, 2), "float32"),
        TensorType((3, 2), "int32"),
        TensorType((4,), "float32"),
    ]
    rng = np.random.default_rng(0)
    args = [
        rng.standard_normal((3, 4, 2)).astype(np.float32),
        np.array([[0, 3], [1, 2], [2, 2]], np.int32),
        rng.random(4).astype(np.float32),
    ]
    assert check_call("nn.nll_loss", types, NLLLossAttrs(reduction=reduction, ignore_index=2), args)


def test_cross_entropy() -> None:
    types = [TensorType((3, 4), "float32"), TensorType((3, 4), "float32")]
    rng = np.random.default_rng(0)
    args = [rng.random((3, 4)).astype(np.float32) + 0.1, rng.random((3, 4)).astype(np.float32)]
    assert check_call("nn.cross_entropy", types, None, args)


for _op in ("nn.cross_entropy", "nn.nll_loss"):

    @sampled_cases(_op, examples=15)
    def _test() -> None:
        """Sampled calls."""

    globals()[f"test_sampled_{_op.removeprefix('nn.')}"] = _test
