"""Lowerings of ``qnn`` (``compiler/lower/ops/qnn.py``) against the references, on sampled
calls and hand-picked ones (the power-of-two and int64 paths of fixed_point_multiply, per-channel
kernel zero points, a depthwise multiplier); the operators not lowered are registered
unsupported with a reason."""

from __future__ import annotations

import numpy as np
import pytest
from lowernn_helpers import check_call, sampled_cases

from relay.compiler.lower import te
from relay.semantics.ops import OPS
from relay.semantics.ops.nn.conv import Conv2DAttrs
from relay.semantics.ops.nn.dense import DenseAttrs
from relay.semantics.ops.qnn import FixedPointMultiplyAttrs
from relay.semantics.syntax import TensorType


def test_every_operator_is_lowered_or_has_a_reason() -> None:
    family = [name for name, op in OPS.items() if op.family == "qnn"]
    assert family
    for name in family:
        assert name in te.LOWERINGS or te.UNSUPPORTED.get(name, "").strip(), name


for _op in (
    "qnn.quantize",
    "qnn.dequantize",
    "fixed_point_multiply",
    "qnn.dense",
    "qnn.conv2d",
):

    @sampled_cases(_op, examples=25)
    def _test() -> None:
        """Sampled calls."""

    globals()[f"test_sampled_{_op.replace('.', '_')}"] = _test


def T(*shape: int, dtype: str = "float32") -> TensorType:
    return TensorType(shape, dtype)


@pytest.mark.parametrize(
    ("multiplier", "shift"),
    [(1 << 30, 3), (1 << 30, 0), (1 << 30, -4), (1518500250, -1), (1518500250, 2), (-7, 5)],
)
def test_fixed_point_multiply_cases(multiplier: int, shift: int) -> None:
    data = np.array([-(2**20) - 3, -17, -3, -1, 0, 1, 2, 3, 9, 255, 2**20 + 5], dtype="int32")
    attrs = FixedPointMultiplyAttrs(multiplier=multiplier, shift=shift)
    assert check_call("fixed_point_multiply", [T(11, dtype="int32")], attrs, [data])


def test_qnn_dense_per_channel() -> None:
    rng = np.random.default_rng(3)
    data = rng.integers(-128, 128, (3, 10)).astype("int8")
    weight = rng.integers(0, 256, (4, 10)).astype("uint8")
    args = [data, weight, np.int32(5), np.array([1, -2, 130, 0], "int32")]
    args += [np.float32(0.5), np.ones(4, "float32")]
    types = [T(3, 10, dtype="int8"), T(4, 10, dtype="uint8"), T(dtype="int32")]
    types += [T(4, dtype="int32"), T(), T(4)]
    assert check_call("qnn.dense", types, DenseAttrs(units=None, out_dtype="int32"), args)


@pytest.mark.parametrize("layouts", [("NCHW", "OIHW"), ("NHWC", "HWOI")])
def test_qnn_conv2d_depthwise_multiplier_per_channel(layouts: tuple[str, str]) -> None:
    data_layout, kernel_layout = layouts
    rng = np.random.default_rng(4)
    nchw, oihw = (1, 3, 5, 5), (3, 2, 3, 3)  # 3 channels, multiplier 2: 6 outputs
    dshape = tuple(nchw["NCHW".index(a)] for a in data_layout)
    wshape = tuple(oihw["OIHW".index(a)] for a in kernel_layout)
    data = rng.integers(-128, 128, dshape).astype("int8")
    weight = rng.integers(-128, 128, wshape).astype("int8")
    zp = np.array([3, -1, 7, 0, 2, -5], "int32")
    args = [data, weight, np.int32(-2), zp, np.float32(1.0), np.ones(6, "float32")]
    types = [T(*dshape, dtype="int8"), T(*wshape, dtype="int8"), T(dtype="int32")]
    types += [T(6, dtype="int32"), T(), T(6)]
    attrs = Conv2DAttrs(
        padding=(1, 1),
        groups=3,
        channels=6,
        kernel_size=(3, 3),
        data_layout=data_layout,
        kernel_layout=kernel_layout,
        out_dtype="int32",
    )
    assert check_call("qnn.conv2d", types, attrs, args)
