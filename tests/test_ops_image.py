"""The ``image`` operators (``semantics/ops/image.py``): relations, references, checks."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from ops_helpers import Array, T, of_family, rel
from ops_nn_helpers import normal

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import lookup
from relay.semantics.ops.image import Resize2DAttrs
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.syntax import Type

RESIZE = {"size": (4, 4), "roi": (0.0, 0.0, 0.0, 0.0)}


def ref(name: str, *args: Array, attrs: Attrs | None = None) -> Array:
    op = lookup(name)
    assert op is not None and op.reference is not None
    out = op.reference(args, attrs)
    assert isinstance(out, np.ndarray)
    # The reference's type is the one the relation predicts.
    predicted = rel(name, *(T(*a.shape, dtype=str(a.dtype)) for a in args), attrs=attrs)
    assert predicted == T(*out.shape, dtype=str(out.dtype)), (predicted, out.shape, out.dtype)
    return out


REJECTED: list[tuple[str, tuple[Type, ...], Attrs | None, str]] = [
    (
        "image.resize2d",
        (T(1, 3, 4, 4),),
        Resize2DAttrs(roi=(0.0,) * 4),
        "size must hold 2 integers",
    ),
    (
        "image.resize2d",
        (T(1, 3, 4, 4),),
        Resize2DAttrs(size=(2, -1), roi=(0.0,) * 4),
        r"non-negative, found size=\[2, -1\]",
    ),
    ("image.resize2d", (T(1, 3, 4, 4),), Resize2DAttrs(size=(2, 2)), "roi must hold 4 floats"),
    (
        "image.resize2d",
        (T(1, 3, 4, 4),),
        Resize2DAttrs(**RESIZE, method="area"),
        'method="area" is not supported',
    ),
    (
        "image.resize2d",
        (T(1, 3, 4, 4),),
        Resize2DAttrs(**RESIZE, coordinate_transformation_mode="edge"),
        'coordinate_transformation_mode="edge"',
    ),
    (
        "image.resize2d",
        (T(1, 3, 4, 4),),
        Resize2DAttrs(**RESIZE, rounding_method="up"),
        'rounding_method="up"',
    ),
    ("image.resize2d", (T(1, 4, 4),), Resize2DAttrs(**RESIZE), "expected 4-D data"),
]


SEEDS = range(3)


_ORT_ROUNDING = ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


_MODES = (
    "half_pixel",
    "align_corners",
    "asymmetric",
    "pytorch_half_pixel",
    "tf_half_pixel_for_nn",
    "tf_crop_and_resize",
)


def _ort_resize(x: Array, size: tuple[int, int], method: str, mode: str, **kw: Any) -> Array:
    roi = kw.pop("roi", None)
    if roi is not None:
        roi = np.array([0, 0, roi[0], roi[1], 1, 1, roi[2], roi[3]], "float32")
    onnx_mode = {"nearest_neighbor": "nearest", "linear": "linear", "cubic": "cubic"}[method]
    sizes = np.array([*x.shape[:2], *size], "int64")
    out: Array = onnx_run(
        "Resize",
        [x, roi, None, sizes],
        opset=19,
        mode=onnx_mode,
        coordinate_transformation_mode=mode,
        **kw,
    )
    return out


@pytest.mark.parametrize(("name", "types", "attrs", "message"), of_family(REJECTED, "image"))
def test_relation_rejects(
    name: str, types: tuple[Type, ...], attrs: Attrs | None, message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        rel(name, *types, attrs=attrs)


def test_resize_quirks_by_hand() -> None:
    x = np.array([0.0, 10.0, 20.0, 30.0], "float32").reshape(1, 1, 1, 4)

    def resize(size: int, **attrs: Any) -> list[float]:
        a = Resize2DAttrs(size=(1, size), roi=(0.0,) * 4, **attrs)
        out: list[float] = ref("image.resize2d", x, attrs=a).reshape(-1).tolist()
        return out

    # nearest, asymmetric, output 2x the input: TOPI's integer path x // 2 ignores rounding
    assert resize(
        8,
        method="nearest_neighbor",
        coordinate_transformation_mode="asymmetric",
        rounding_method="ceil",
    ) == [0, 0, 10, 10, 20, 20, 30, 30]
    # "round" is nearbyint: half_pixel 4 -> 2 gives coordinates 0.5 and 2.5, both to even
    assert resize(2, method="nearest_neighbor") == [0.0, 20.0]
    # linear, half_pixel: coordinates 0.5 and 2.5
    assert resize(2) == [5.0, 25.0]
    # integer output truncates: 5.5 -> 5 (uint8), and NaN coordinates are undefined
    assert resize(2, out_dtype="uint8") == [5, 25]
    with pytest.raises(UndefinedBehavior, match="coordinate"):
        resize(1, coordinate_transformation_mode="align_corners")


@pytest.mark.parametrize("seed", SEEDS)
def test_resize2d_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 1, 2, 4, 5)
    sizes = [(int(rng.integers(2, 9)), int(rng.integers(2, 9))) for _ in range(2)]
    for size, method, mode in itertools.product(
        sizes, ("nearest_neighbor", "linear", "cubic"), _MODES
    ):
        if size == (4, 5):
            continue  # onnxruntime copies the input when the size is unchanged, whatever the mode
        roi = (0.1, 0.2, 0.9, 0.7) if mode == "tf_crop_and_resize" else (0.0,) * 4
        for rounding, exclude in itertools.product(_ORT_ROUNDING, (0, 1)):
            int_div = mode == "asymmetric" and (size[0] % 4 == 0 or size[1] % 5 == 0)
            if (
                (method != "nearest_neighbor" and rounding != "floor")
                or (method != "cubic" and exclude)
                or (method == "nearest_neighbor" and int_div and rounding != "floor")
            ):
                continue  # TOPI's integer index path is floor whatever rounding_method says
            a = Resize2DAttrs(
                size=size,
                roi=roi,
                method=method,
                coordinate_transformation_mode=mode,
                rounding_method=rounding,
                cubic_alpha=-0.75,
                cubic_exclude=exclude,
                extrapolation_value=-3.0,
            )
            theirs = _ort_resize(
                x,
                size,
                method,
                mode,
                roi=roi if mode == "tf_crop_and_resize" else None,
                nearest_mode=rounding,
                cubic_coeff_a=-0.75,
                exclude_outside=exclude,
                extrapolation_value=-3.0,
            )
            ours = ref("image.resize2d", x, attrs=a)
            np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5, err_msg=str(a))
            nhwc = Resize2DAttrs(**{**dict(a.items()), "layout": "NHWC"})
            ours = ref("image.resize2d", x.transpose(0, 2, 3, 1).copy(), attrs=nhwc)
            np.testing.assert_allclose(ours.transpose(0, 3, 1, 2), theirs, rtol=1e-5, atol=1e-5)


def test_resize2d_round_vs_loops() -> None:
    """rounding_method "round" (halves to even) has no ONNX counterpart: a direct loop."""
    rng = np.random.default_rng(7)
    x = normal(rng, 1, 1, 5, 3)
    for size in ((2, 2), (8, 7), (3, 6)):
        a = Resize2DAttrs(size=size, roi=(0.0,) * 4, method="nearest_neighbor")
        out = ref("image.resize2d", x, attrs=a)
        for i, j in np.ndindex(*size):
            yi = round((i + 0.5) * 5 / size[0] - 0.5)
            xj = round((j + 0.5) * 3 / size[1] - 0.5)
            assert out[0, 0, i, j] == x[0, 0, min(max(yi, 0), 4), min(max(xj, 0), 2)]
