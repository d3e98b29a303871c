"""Lowerings of ``qnn`` (``compiler/lower/ops/qnn.py``) against the references, on sampled
calls and hand-picked ones (the power-of-two and int64 paths of fixed_point_multiply, per-channel
kernel zero points, a depthwise multiplier, requantization's scale ratios: powers of two,
equal, negative, rounded significands, every rounding and compute dtype, per channel, and
compiled by the CPU target; qnn.add, qnn.mul and qnn.concatenate on broadcast and mixed
parameters)."""

from __future__ import annotations

import numpy as np
import pytest
from lowernn_helpers import assert_close, check_call, lower_call, sampled_cases

from relay.compiler.lower import te
from relay.semantics.ops import OPS
from relay.semantics.ops.nn.conv import Conv2DAttrs
from relay.semantics.ops.nn.dense import DenseAttrs
from relay.semantics.ops.qnn import BroadcastAttrs, FixedPointMultiplyAttrs, RequantizeAttrs
from relay.semantics.ops.shape import ConcatenateAttrs
from relay.semantics.syntax import TensorType, TupleType


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
    "qnn.requantize",
    "qnn.add",
    "qnn.mul",
    "qnn.concatenate",
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


_SCALE_PAIRS = [
    (0.5, 0.25),  # ratio 2: the multiplier 2**30 (power-of-two) path
    (0.25, 1.0),  # ratio 1/4
    (0.3, 0.3),  # equal scales: kept
    (0.1, 0.7),
    (3.0, 0.011),
    (1.0, 3.0),  # 1/3: a significand rounded
    (-0.2, 0.6),  # a negative ratio
    (1e-6, 2e-6),  # ratio 0.5 of tiny scales
    (0.7, 0.7000001),
]


@pytest.mark.parametrize(("in_scale", "out_scale"), _SCALE_PAIRS)
@pytest.mark.parametrize("rounding", ["UPWARD", "TONEAREST"])
@pytest.mark.parametrize("compute_dtype", ["int64", "float32", "float64"])
def test_requantize_scales(
    in_scale: float, out_scale: float, rounding: str, compute_dtype: str
) -> None:
    rng = np.random.default_rng(7)
    data = rng.integers(-(2**20), 2**20, (3, 40)).astype("int32")
    data[0, :8] = [-3, -2, -1, 0, 1, 2, 3, 5]
    args = [data, np.float32(in_scale), np.int32(4), np.float32(out_scale), np.int32(-3)]
    types = [T(3, 40, dtype="int32"), T(), T(dtype="int32"), T(), T(dtype="int32")]
    for out_dtype in ("int8", "int32"):
        attrs = RequantizeAttrs(rounding=rounding, compute_dtype=compute_dtype, out_dtype=out_dtype)
        assert check_call("qnn.requantize", types, attrs, args)


@pytest.mark.parametrize("rounding", ["UPWARD", "TONEAREST"])
def test_requantize_per_channel(rounding: str) -> None:
    rng = np.random.default_rng(8)
    data = rng.integers(-128, 128, (2, 4, 5)).astype("int8")
    scales = np.array([0.5, 0.3, 0.125, 2.0], "float32")
    zeros = np.array([0, 3, -7, 1], "int32")
    args = [data, scales, zeros, np.float32(0.25), np.int32(2)]
    types = [T(2, 4, 5, dtype="int8"), T(4), T(4, dtype="int32"), T(), T(dtype="int32")]
    attrs = RequantizeAttrs(axis=1, rounding=rounding, out_dtype="uint8")
    assert check_call("qnn.requantize", types, attrs, args)


def test_requantize_compiled() -> None:
    from relay.targets.cpu.codegen import compile_kernel

    rng = np.random.default_rng(9)
    data = rng.integers(-(2**20), 2**20, (64,)).astype("int32")
    reference = OPS["qnn.requantize"].reference
    assert reference is not None
    types = [T(64, dtype="int32"), T(), T(dtype="int32"), T(), T(dtype="int32")]
    for rounding in ("UPWARD", "TONEAREST"):
        attrs = RequantizeAttrs(rounding=rounding, out_dtype="int16")
        kernel = lower_call("qnn.requantize", types, attrs)
        compiled = compile_kernel(kernel)
        for in_scale, out_scale in _SCALE_PAIRS:
            args = [data, np.float32(in_scale), np.int32(1), np.float32(out_scale), np.int32(0)]
            out = np.empty(64, "int16")
            compiled([np.asarray(a) for a in args], [out], {})
            assert_close(out, np.asarray(reference(tuple(args), attrs)))


def test_qnn_add_mul_concatenate_cases() -> None:
    rng = np.random.default_rng(10)
    lhs = rng.integers(-128, 128, (2, 3, 4)).astype("int8")
    rhs = rng.integers(-128, 128, (3, 1)).astype("int8")
    params = [np.float32(0.05), np.int32(3), np.float32(0.2), np.int32(-5)]
    params += [np.float32(0.1), np.int32(1)]
    types = [T(2, 3, 4, dtype="int8"), T(3, 1, dtype="int8"), T(), T(dtype="int32")]
    types += [T(), T(dtype="int32"), T(), T(dtype="int32")]
    attrs = BroadcastAttrs()
    assert check_call("qnn.add", types, attrs, [lhs, rhs, *params])
    assert check_call("qnn.mul", types, attrs, [lhs, rhs, *params])
    parts = (lhs, rng.integers(-128, 128, (2, 3, 2)).astype("int8"))
    cat_types = [
        TupleType((T(2, 3, 4, dtype="int8"), T(2, 3, 2, dtype="int8"))),
        TupleType((T(), T())),
        TupleType((T(dtype="int32"), T(dtype="int32"))),
        T(),
        T(dtype="int32"),
    ]
    args = [parts, (np.float32(0.1), np.float32(0.3)), (np.int32(1), np.int32(4))]
    args += [np.float32(0.1), np.int32(1)]
    assert check_call("qnn.concatenate", cat_types, ConcatenateAttrs(axis=2), args)
