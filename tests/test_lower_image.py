"""Lowerings of ``image`` (``compiler/lower/ops/image.py``) against the references: every
method, coordinate transformation mode and rounding method, both layouts, down- and
up-scaling, cubic exclusion, tf_crop_and_resize's roi and extrapolation, integer and float16
data and output dtypes, on sampled calls and compiled by the CPU target."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from lowernn_helpers import assert_close, check_call, lower_call, sampled_cases

from relay.compiler.lower import te
from relay.semantics.ops import OPS
from relay.semantics.ops.image import COORDINATE_MODES, METHODS, ROUNDING_METHODS, Resize2DAttrs
from relay.semantics.syntax import TensorType


def test_every_operator_is_lowered_or_has_a_reason() -> None:
    family = [name for name, op in OPS.items() if op.family == "image"]
    assert family
    for name in family:
        assert name in te.LOWERINGS or te.UNSUPPORTED.get(name, "").strip(), name


_ROI = (0.1, 0.25, 0.8, 0.9)


@pytest.mark.parametrize(
    ("method", "mode"),
    list(itertools.product(METHODS, COORDINATE_MODES)),
)
@pytest.mark.parametrize("size", [(7, 3), (2, 11), (1, 1)])
def test_resize2d_methods_and_modes(method: str, mode: str, size: tuple[int, int]) -> None:
    attrs = Resize2DAttrs(
        size=size, roi=_ROI, method=method, coordinate_transformation_mode=mode,
        extrapolation_value=-2.5,
    )  # fmt: skip
    check_call("image.resize2d", [TensorType((2, 3, 5, 4), "float32")], attrs)


@pytest.mark.parametrize("rounding", ROUNDING_METHODS)
@pytest.mark.parametrize("mode", ["half_pixel", "align_corners", "asymmetric"])
def test_resize2d_nearest_roundings(rounding: str, mode: str) -> None:
    for size in [(8, 12), (10, 3), (3, 8)]:  # 8 = 2 x 4: asymmetric's integer division
        attrs = Resize2DAttrs(
            size=size, roi=_ROI, method="nearest_neighbor", coordinate_transformation_mode=mode,
            rounding_method=rounding,
        )  # fmt: skip
        check_call("image.resize2d", [TensorType((1, 2, 4, 6), "float32")], attrs)


@pytest.mark.parametrize("exclude", [0, 1])
@pytest.mark.parametrize("alpha", [-0.5, -0.75])
def test_resize2d_cubic_exclude(exclude: int, alpha: float) -> None:
    attrs = Resize2DAttrs(
        size=(9, 7), roi=_ROI, method="cubic", cubic_alpha=alpha, cubic_exclude=exclude,
        layout="NHWC",
    )  # fmt: skip
    assert check_call("image.resize2d", [TensorType((1, 4, 5, 3), "float32")], attrs)


@pytest.mark.parametrize(
    ("dtype", "out_dtype"),
    [
        ("uint8", ""),
        ("int32", "float32"),
        ("float16", ""),
        ("float64", "int8"),
        ("float32", "bool"),
    ],
)
def test_resize2d_dtypes(dtype: str, out_dtype: str) -> None:
    for method in METHODS:
        attrs = Resize2DAttrs(size=(6, 5), roi=_ROI, method=method, out_dtype=out_dtype)
        check_call("image.resize2d", [TensorType((1, 2, 3, 4), dtype)], attrs)


def test_resize2d_checks_some_calls() -> None:
    """The cases above are not all undefined (a reference that raises checks nothing)."""
    attrs = Resize2DAttrs(size=(6, 5), roi=_ROI, method="linear")
    assert check_call("image.resize2d", [TensorType((1, 2, 3, 4), "uint8")], attrs)
    attrs = Resize2DAttrs(
        size=(3, 3), roi=_ROI, coordinate_transformation_mode="tf_crop_and_resize"
    )
    assert check_call("image.resize2d", [TensorType((1, 1, 4, 4), "float32")], attrs)


def test_resize2d_compiled() -> None:
    from relay.targets.cpu.codegen import compile_kernel

    rng = np.random.default_rng(2)
    data = rng.standard_normal((1, 3, 6, 5)).astype("float32")
    for method in METHODS:
        attrs = Resize2DAttrs(size=(13, 4), roi=_ROI, method=method)
        kernel = lower_call("image.resize2d", [TensorType(data.shape, "float32")], attrs)
        out = np.empty((1, 3, 13, 4), "float32")
        compile_kernel(kernel)([data], [out], {})
        reference = OPS["image.resize2d"].reference
        assert reference is not None
        assert_close(out, np.asarray(reference((data,), attrs)))


for _op in ("image.resize2d",):

    @sampled_cases(_op, examples=25)
    def _test() -> None:
        """Sampled calls."""

    globals()[f"test_sampled_{_op.replace('.', '_')}"] = _test
