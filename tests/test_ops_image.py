"""The ``image`` operators (``semantics/ops/image.py``): relations, references, checks."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from ops_helpers import Array, T, of_family
from ops_nn_helpers import RESIZE, V3, normal

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import lookup
from relay.semantics.ops.image import Resize2DAttrs
from relay.semantics.ops.nn.activation import SoftmaxAttrs
from relay.semantics.ops.nn.loss import NLLLossAttrs
from relay.semantics.ops.nn.norm import (
    GroupNormAttrs,
    InstanceNormAttrs,
    L2NormalizeAttrs,
    LayerNormAttrs,
    LRNAttrs,
)
from relay.semantics.ops.nn.shape import (
    BatchToSpaceNDAttrs,
    MirrorPadAttrs,
    SpaceToBatchNDAttrs,
    SubPixelAttrs,
    UpSamplingAttrs,
)
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.syntax import Type


def rel(name: str, *types: Type, attrs: Attrs | None = None) -> Type:
    op = lookup(name)
    assert op is not None and op.relation is not None
    return op.relation(types, attrs)


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
    ("nn.layer_norm", (T(2, 3), V3, V3), LayerNormAttrs(axis=2), "axis=2 is out of range"),
    (
        "nn.layer_norm",
        (T(2, 3), T(2), V3),
        LayerNormAttrs(),
        r"Tensor\[\(3,\), float32\] for gamma",
    ),
    ("nn.layer_norm", (T(2, 3), V3, T(3, dtype="float16")), LayerNormAttrs(), "for beta"),
    ("nn.group_norm", (T(2, 3), V3, V3), GroupNormAttrs(), "num_groups=0"),
    (
        "nn.group_norm",
        (T(2, 3), V3, V3),
        GroupNormAttrs(num_groups=2),
        "num_groups=2 does not divide the 3 channels",
    ),
    (
        "nn.instance_norm",
        (T(2, 3), V3, V3),
        InstanceNormAttrs(),
        r"rank at least 3, found rank 2 \(2, 3\)",
    ),
    (
        "nn.l2_normalize",
        (T(2, 3),),
        L2NormalizeAttrs(eps=0.1, axis=(2,)),
        r"axis=\[2\]: 2 is out of range",
    ),
    (
        "nn.l2_normalize",
        (T(2, 3),),
        L2NormalizeAttrs(eps=0.1, axis=(1, -1)),
        r"axis=\[1, -1\] names an axis twice",
    ),
    ("nn.l2_normalize", (T(2, 3),), L2NormalizeAttrs(eps=0.1, axis=()), r"axis=\[\] names no axis"),
    ("nn.lrn", (T(2, 3, 4),), LRNAttrs(), "expected 4-D data, found rank 3"),
    ("nn.lrn", (T(2, 3, 4, 4),), LRNAttrs(axis=2), "axis=2 is not supported"),
    ("nn.lrn", (T(2, 3, 4, 4),), LRNAttrs(size=4), "size=4 must be an odd positive number"),
    ("nn.cross_entropy", (T(2, 3), T(2, 4)), None, "shapes of x and y are inconsistent"),
    ("nn.cross_entropy", (T(2, 3, 1), T(2, 3, 1)), None, "expected 2-D x and y"),
    ("nn.cross_entropy", (T(2, 3), T(2, 3, dtype="float64")), None, "one dtype"),
    (
        "nn.nll_loss",
        (T(2, 5), T(2, 1, dtype="int32"), T(5)),
        NLLLossAttrs(ignore_index=-1),
        "one dimension larger",
    ),
    (
        "nn.nll_loss",
        (T(2, 5), T(3, dtype="int32"), T(5)),
        NLLLossAttrs(ignore_index=-1),
        r"targets \(3,\) do not match",
    ),
    (
        "nn.nll_loss",
        (T(2, 5), T(2, dtype="int32"), T(4)),
        NLLLossAttrs(ignore_index=-1),
        "length of weights",
    ),
    (
        "nn.nll_loss",
        (T(2, 5), T(2, dtype="int32"), T(5, 1)),
        NLLLossAttrs(ignore_index=-1),
        "1-D tensor",
    ),
    (
        "nn.nll_loss",
        (T(2, 5), T(2, dtype="int32"), T(5, dtype="float64")),
        NLLLossAttrs(ignore_index=-1),
        "same float dtype",
    ),
    (
        "nn.nll_loss",
        (T(2, 5, dtype="int32"), T(2, dtype="int32"), T(5, dtype="int32")),
        NLLLossAttrs(ignore_index=-1),
        "same float dtype",
    ),
    (
        "nn.nll_loss",
        (T(2, 5), T(2, dtype="uint8"), T(5)),
        NLLLossAttrs(ignore_index=-1),
        "signed integer dtype, found uint8",
    ),
    (
        "nn.nll_loss",
        (T(2, 5), T(2, dtype="int32"), T(5)),
        NLLLossAttrs(reduction="avg", ignore_index=-1),
        'found "avg"',
    ),
    ("nn.fast_softmax", (T(2, 3),), SoftmaxAttrs(axis=2), "axis=2 is out of range"),
    (
        "nn.upsampling",
        (T(1, 3, 4, 4),),
        UpSamplingAttrs(scale_h=-1.0, scale_w=1.0),
        "scale_h=-1.0 makes extent 4 negative",
    ),
    (
        "nn.upsampling",
        (T(1, 3, 4, 4),),
        UpSamplingAttrs(scale_h=1.0, scale_w=1.0, method="linear"),
        'method="linear" is not supported',
    ),
    (
        "nn.upsampling",
        (T(1, 3, 4, 4),),
        UpSamplingAttrs(scale_h=1.0, scale_w=1.0, layout="NCHW4c"),
        'layout "NCHW4c" is not supported',
    ),
    (
        "nn.upsampling",
        (T(3, 4, 4),),
        UpSamplingAttrs(scale_h=1.0, scale_w=1.0),
        "expected 4-D data in layout NCHW, found rank 3",
    ),
    (
        "nn.mirror_pad",
        (T(2, 3),),
        MirrorPadAttrs(pad_width=((1, 1),)),
        "expected 2 .before, after. pairs in pad_width",
    ),
    (
        "nn.mirror_pad",
        (T(2, 3),),
        MirrorPadAttrs(pad_width=((1, 1), (0, -1))),
        r"pad_width entry 1 must be non-negative, found \[0, -1\]",
    ),
    ("nn.mirror_pad", (T(2, 3),), MirrorPadAttrs(pad_width=((1, 1), (0, 1, 2))), "must be a pair"),
    (
        "nn.mirror_pad",
        (T(2, 3),),
        MirrorPadAttrs(mode="EDGE", pad_width=((1, 1), (0, 1))),
        'mode="EDGE"',
    ),
    ("nn.space_to_depth", (T(1, 3, 4, 4),), SubPixelAttrs(block_size=0), "block_size=0"),
    (
        "nn.space_to_depth",
        (T(1, 3, 4, 4),),
        SubPixelAttrs(layout="HWCN"),
        'layout "HWCN" is not supported',
    ),
    ("nn.depth_to_space", (T(1, 8, 4, 4),), SubPixelAttrs(block_size=2, mode="CDR"), 'mode="CDR"'),
    ("nn.depth_to_space", (T(8, 4, 4),), SubPixelAttrs(block_size=2), "expected 4-D data"),
    (
        "nn.space_to_batch_nd",
        (T(1, 3),),
        SpaceToBatchNDAttrs(paddings=((0, 0), (0, 0))),
        "must name 1 to 1 spatial axes",
    ),
    (
        "nn.space_to_batch_nd",
        (T(1, 3, 4),),
        SpaceToBatchNDAttrs(block_shape=(2,), paddings=((0, 0),)),
        "padded extent 3 of axis 1 is not divisible by its block 2",
    ),
    (
        "nn.space_to_batch_nd",
        (T(1, 4, 4),),
        SpaceToBatchNDAttrs(block_shape=(2,), paddings=()),
        "expected 1 .before, after. pairs in paddings",
    ),
    (
        "nn.space_to_batch_nd",
        (T(1, 4, 4),),
        SpaceToBatchNDAttrs(block_shape=(0,), paddings=((0, 0),)),
        r"block_shape must be positive, found block_shape=\[0\]",
    ),
    (
        "nn.space_to_batch_nd",
        (T(4),),
        SpaceToBatchNDAttrs(block_shape=(2,), paddings=((0, 0),)),
        "rank at least 2",
    ),
    (
        "nn.batch_to_space_nd",
        (T(3, 4, 4),),
        BatchToSpaceNDAttrs(block_shape=(2,), crops=((0, 0),)),
        r"batch 3 is not divisible by the product of block_shape \(2\)",
    ),
    (
        "nn.batch_to_space_nd",
        (T(2, 2, 4),),
        BatchToSpaceNDAttrs(block_shape=(2,), crops=((3, 2),)),
        r"crops entry 0 \[3, 2\] removes more",
    ),
    (
        "nn.batch_to_space_nd",
        (T(2, 2, 4),),
        BatchToSpaceNDAttrs(block_shape=(2,), crops=((-1, 0),)),
        "must be non-negative",
    ),
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
