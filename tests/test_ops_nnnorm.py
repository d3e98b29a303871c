"""The nnnorm group: normalisation, losses, resampling and image resize.

Relation cases from TVM's documented behaviour (symbolic and ``?`` dimensions, error messages
naming the attribute); reference results worked out by hand; and, for every op, the reference
compared on random inputs with an independent computation: onnxruntime where ONNX has the same
operation (the op record's ``check`` names it), otherwise a direct loop over output elements.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS, OpPattern, lookup
from relay.semantics.ops.image import Resize2DAttrs
from relay.semantics.ops.nn.activation import SoftmaxAttrs, fast_exp_float32
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
from relay.semantics.syntax import ANY, Dim, TensorType, Type, dim_symbol

Array = npt.NDArray[Any]

GROUP = {
    "nn.layer_norm": ("LayerNorm", OpPattern.OPAQUE),
    "nn.group_norm": ("GroupNorm", OpPattern.OPAQUE),
    "nn.instance_norm": ("InstanceNorm", OpPattern.OPAQUE),
    "nn.l2_normalize": ("Identity", OpPattern.OPAQUE),
    "nn.lrn": ("Identity", OpPattern.OPAQUE),
    "nn.cross_entropy": ("CrossEntropy", OpPattern.OPAQUE),
    "nn.nll_loss": ("NLLLoss", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.fast_softmax": ("Softmax", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.upsampling": ("UpSampling", OpPattern.INJECTIVE),
    "nn.mirror_pad": ("MirrorPad", OpPattern.INJECTIVE),
    "nn.space_to_depth": ("SpaceToDepth", OpPattern.INJECTIVE),
    "nn.depth_to_space": ("DepthToSpace", OpPattern.INJECTIVE),
    "nn.space_to_batch_nd": ("SpaceToBatchND", OpPattern.INJECTIVE),
    "nn.batch_to_space_nd": ("BatchToSpaceND", OpPattern.INJECTIVE),
    "image.resize2d": ("Resize2D", OpPattern.INJECTIVE),
}

n = dim_symbol("n")
h = dim_symbol("h")


def T(*shape: Dim, dtype: str = "float32") -> TensorType:
    return TensorType(tuple(shape), dtype)


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


def normal(rng: np.random.Generator, *shape: int, dtype: str = "float32") -> Array:
    return rng.standard_normal(shape).astype(dtype)


def test_records() -> None:
    for name, (relation_name, pattern) in GROUP.items():
        op = OPS[name]
        assert op.relation_name == relation_name and op.pattern is pattern
        assert op.family == "image" if name.startswith("image.") else op.family.startswith("nn/")
        assert op.check.startswith(("onnxruntime:", "independent:"))
        assert op.attrs_type is None or op.attrs_type.type_key.endswith(op.attrs_type.__name__)
    assert OPS["nn.cross_entropy"].inputs == ("x", "y")
    assert OPS["nn.nll_loss"].inputs == ("predictions", "targets", "weights")


def test_attribute_defaults_follow_tvm() -> None:
    def defaults(cls: type[Attrs]) -> dict[str, object]:
        return {s.name: (None if s.required else s.default) for s in cls.field_specs()}

    assert defaults(GroupNormAttrs) == {
        "num_groups": 0,
        "axis": 1,
        "epsilon": 1e-5,
        "center": True,
        "scale": True,
    }
    assert defaults(LRNAttrs) == {"size": 5, "axis": 1, "bias": 2.0, "alpha": 1e-4, "beta": 0.75}
    assert [s.name for s in L2NormalizeAttrs.field_specs() if s.required] == ["eps", "axis"]
    assert [s.name for s in NLLLossAttrs.field_specs()] == ["reduction", "ignore_index"]
    assert [s.name for s in MirrorPadAttrs.field_specs()] == ["mode", "pad_width"]
    assert defaults(Resize2DAttrs)["rounding_method"] == "round"
    assert [s.name for s in Resize2DAttrs.field_specs()] == [
        "size",
        "roi",
        "layout",
        "method",
        "coordinate_transformation_mode",
        "rounding_method",
        "cubic_alpha",
        "cubic_exclude",
        "extrapolation_value",
        "out_dtype",
    ]


# ---------------------------------------------------------------------------------------------
# Relations


def test_normalisation_relations() -> None:
    v3 = T(3)
    assert rel("nn.layer_norm", T(n, 4, 3), v3, v3, attrs=LayerNormAttrs()) == T(n, 4, 3)
    vh = T(h)
    assert rel("nn.layer_norm", T(2, h), vh, vh, attrs=LayerNormAttrs(axis=1)) == T(2, h)
    gn = GroupNormAttrs(num_groups=3)
    assert rel("nn.group_norm", T(n, 3, ANY), v3, v3, attrs=gn) == T(n, 3, ANY)
    six = T(6, dtype="float16")
    data = T(1, 6, 2, 2, dtype="float16")
    assert rel("nn.group_norm", data, six, six, attrs=GroupNormAttrs(num_groups=2)) == data
    inorm = InstanceNormAttrs(axis=-1)
    assert rel("nn.instance_norm", T(2, 5, 3), v3, v3, attrs=inorm) == T(2, 5, 3)
    l2 = L2NormalizeAttrs(eps=1e-6, axis=(1, -1))
    assert rel("nn.l2_normalize", T(n, 3, 4), attrs=l2) == T(n, 3, 4)
    assert rel("nn.lrn", T(n, 4, 4, 3), attrs=LRNAttrs(axis=3, size=3)) == T(n, 4, 4, 3)
    assert rel("nn.fast_softmax", T(2, n), attrs=SoftmaxAttrs(axis=0)) == T(2, n)


def test_loss_relations() -> None:
    assert rel("nn.cross_entropy", T(n, 5), T(n, 5)) == T()
    assert rel("nn.cross_entropy", T(2, 5, dtype="float64"), T(ANY, 5, dtype="float64")) == T(
        dtype="float64"
    )
    w = T(5)
    i64 = {"dtype": "int64"}
    for reduction in ("mean", "sum"):
        attrs = NLLLossAttrs(reduction=reduction, ignore_index=-100)
        assert rel("nn.nll_loss", T(n, 5, 3), T(n, 3, **i64), w, attrs=attrs) == T()
    none = NLLLossAttrs(reduction="none", ignore_index=0)
    assert rel("nn.nll_loss", T(n, 5, 3), T(n, 3, dtype="int8"), w, attrs=none) == T(n, 3)
    assert rel("nn.nll_loss", T(5), T(dtype="int32"), w, attrs=none) == T()


def test_resample_relations() -> None:
    up = UpSamplingAttrs(scale_h=2.0, scale_w=1.5)
    assert rel("nn.upsampling", T(1, 3, 4, 5), attrs=up) == T(1, 3, 8, 8)  # 7.5 rounds to 8
    assert rel("nn.upsampling", T(1, 3, 4, 3), attrs=up) == T(1, 3, 8, 4)  # 4.5 rounds to 4
    assert rel("nn.upsampling", T(n, 3, h, h), attrs=up) == T(n, 3, 2 * h, ANY)
    nhwc = UpSamplingAttrs(scale_h=0.5, scale_w=3.0, layout="NHWC", method="bilinear")
    assert rel("nn.upsampling", T(1, 5, ANY, 2, dtype="int8"), attrs=nhwc) == T(
        1, 2, ANY, 2, dtype="int8"
    )
    pad = MirrorPadAttrs(pad_width=((0, 0), (1, 2), (2, 0)))
    assert rel("nn.mirror_pad", T(n, 3, ANY), attrs=pad) == T(n, 6, ANY)
    s2d = SubPixelAttrs(block_size=2)
    assert rel("nn.space_to_depth", T(n, 3, 5, 4), attrs=s2d) == T(n, 12, 2, 2)
    assert rel("nn.depth_to_space", T(n, 9, 2, h), attrs=s2d) == T(n, 2, 4, 2 * h)
    nhwc2 = SubPixelAttrs(block_size=2, layout="NHWC", mode="CRD")
    assert rel("nn.depth_to_space", T(1, 2, 3, 8), attrs=nhwc2) == T(1, 4, 6, 2)
    s2b = SpaceToBatchNDAttrs(block_shape=(2, 3), paddings=((1, 1), (0, 2)))
    assert rel("nn.space_to_batch_nd", T(2, 4, 4, 7), attrs=s2b) == T(12, 3, 2, 7)
    assert rel("nn.space_to_batch_nd", T(n, 4, 4), attrs=s2b) == T(6 * n, 3, 2)
    b2s = BatchToSpaceNDAttrs(block_shape=(2, 3), crops=((1, 0), (0, 2)))
    assert rel("nn.batch_to_space_nd", T(12, 3, 2, 7), attrs=b2s) == T(2, 5, 4, 7)
    resize = Resize2DAttrs(size=(7, 0), roi=(0.0,) * 4, layout="NHWC", out_dtype="uint8")
    assert rel("image.resize2d", T(n, 3, 4, 2), attrs=resize) == T(n, 7, 0, 2, dtype="uint8")


V3 = T(3)
RESIZE = {"size": (4, 4), "roi": (0.0, 0.0, 0.0, 0.0)}

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


@pytest.mark.parametrize(("name", "types", "attrs", "message"), REJECTED)
def test_relation_rejects(
    name: str, types: tuple[Type, ...], attrs: Attrs | None, message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        rel(name, *types, attrs=attrs)


# ---------------------------------------------------------------------------------------------
# References: hand-computed examples and undefined cases


def test_layer_norm_by_hand() -> None:
    x = np.array([[1.0, 3.0], [2.0, 2.0]], "float32")
    out = ref(
        "nn.layer_norm",
        x,
        np.array([2.0, 1.0], "float32"),
        np.array([0.0, 10.0], "float32"),
        attrs=LayerNormAttrs(epsilon=0.0),
    )
    # row 0: mean 2, variance 1 -> (-1, 1) * (2, 1) + (0, 10); row 1: 0/0 = NaN
    np.testing.assert_allclose(out[0], [-2.0, 11.0])
    assert np.isnan(out[1]).all()


def test_l2_normalize_and_cross_entropy_by_hand() -> None:
    x = np.array([[3.0, 4.0], [0.0, 0.0]], "float32")
    out = ref("nn.l2_normalize", x, attrs=L2NormalizeAttrs(eps=4.0, axis=(1,)))
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 0.0]])
    p = np.array([[0.5, 0.25], [1.0, 1.0]], "float32")
    y = np.array([[1.0, 2.0], [3.0, 0.0]], "float32")
    # -(log .5 + 2 log .25 + 0) / 2 = (5 log 2) / 2
    np.testing.assert_allclose(ref("nn.cross_entropy", p, y), 2.5 * math.log(2), rtol=1e-6)


def test_nll_loss_by_hand_and_undefined_targets() -> None:
    p = np.array([[-1.0, -2.0, -3.0], [-4.0, -5.0, -6.0]], "float32")
    w = np.array([1.0, 2.0, 3.0], "float32")
    t = np.array([2, 1], "int32")
    mean = NLLLossAttrs(ignore_index=-100)
    np.testing.assert_allclose(ref("nn.nll_loss", p, t, w, attrs=mean), (9 + 10) / 5)
    ignore = NLLLossAttrs(reduction="none", ignore_index=1)
    np.testing.assert_allclose(ref("nn.nll_loss", p, t, w, attrs=ignore), [9.0, 0.0])
    all_ignored = NLLLossAttrs(ignore_index=1)
    assert np.isnan(ref("nn.nll_loss", p, np.array([1, 1], "int32"), w, attrs=all_ignored))
    with pytest.raises(UndefinedBehavior, match="outside"):
        ref("nn.nll_loss", p, np.array([3, 0], "int32"), w, attrs=mean)


def test_float_only_ops_are_undefined_on_integers() -> None:
    i = np.ones((1, 3, 2, 2), "int32")
    v = np.ones(3, "int32")
    with pytest.raises(UndefinedBehavior, match="int32 data"):
        ref("nn.layer_norm", i, v, v, attrs=LayerNormAttrs(axis=1))
    with pytest.raises(UndefinedBehavior):
        ref("nn.lrn", i, attrs=LRNAttrs())
    with pytest.raises(UndefinedBehavior):
        ref("nn.fast_softmax", i, attrs=SoftmaxAttrs())


def test_mirror_pad_by_hand_and_too_wide() -> None:
    x = np.array([1, 2, 3], "int8")
    sym = ref("nn.mirror_pad", x, attrs=MirrorPadAttrs(pad_width=((2, 3),)))
    assert sym.tolist() == [2, 1, 1, 2, 3, 3, 2, 1]
    refl = ref("nn.mirror_pad", x, attrs=MirrorPadAttrs(mode="REFLECT", pad_width=((2, 1),)))
    assert refl.tolist() == [3, 2, 1, 2, 3, 2]
    with pytest.raises(UndefinedBehavior, match="outside the input"):
        ref("nn.mirror_pad", x, attrs=MirrorPadAttrs(mode="REFLECT", pad_width=((3, 0),)))
    with pytest.raises(UndefinedBehavior):
        ref("nn.mirror_pad", x, attrs=MirrorPadAttrs(pad_width=((0, 4),)))


def test_space_to_batch_by_hand() -> None:
    x = np.arange(1, 5, dtype="int16").reshape(1, 2, 2, 1)
    s2b = SpaceToBatchNDAttrs(block_shape=(2, 2), paddings=((0, 0), (0, 0)))
    assert ref("nn.space_to_batch_nd", x, attrs=s2b).reshape(-1).tolist() == [1, 2, 3, 4]
    back = BatchToSpaceNDAttrs(block_shape=(2, 2), crops=((0, 0), (0, 0)))
    np.testing.assert_array_equal(ref("nn.batch_to_space_nd", x.reshape(4, 1, 1, 1), attrs=back), x)
    padded = SpaceToBatchNDAttrs(block_shape=(2,), paddings=((1, 1),), pad_value=-7.9)
    out = ref("nn.space_to_batch_nd", np.array([[5, 6]], "int8"), attrs=padded)
    assert out.tolist() == [[-7, 6], [5, -7]]  # -7.9 truncates to -7
    with pytest.raises(UndefinedBehavior, match="does not fit uint8"):
        ref("nn.space_to_batch_nd", np.array([[5, 6]], "uint8"), attrs=padded)


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


def test_upsampling_nearest_by_hand() -> None:
    x = np.array([[1, 2], [3, 4]], "int32").reshape(1, 1, 2, 2)
    out = ref("nn.upsampling", x, attrs=UpSamplingAttrs(scale_h=1.5, scale_w=2.0))
    # H: round(3.0) = 3 rows, floor(y * 2/3 + 1e-5) = 0, 0, 1
    assert out.reshape(3, 4).tolist() == [[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4]]


def test_fast_exp_is_close_to_exp() -> None:
    x = np.linspace(-80, 80, 1001, dtype="float32")
    np.testing.assert_allclose(fast_exp_float32(x), np.exp(x), rtol=1e-5)
    edge = np.array([np.nan, np.inf, -np.inf, -100.0], "float32")
    out = fast_exp_float32(edge)
    assert np.isnan(out[0]) and out[1] == np.inf and out[2] == 0 and out[3] == 0


# ---------------------------------------------------------------------------------------------
# Independent checks on random inputs: onnxruntime where ONNX has the op

SEEDS = range(3)


@pytest.mark.parametrize("seed", SEEDS)
def test_layer_norm_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 2, 3, 4)
    for axis in (0, 1, -1):
        c = x.shape[axis]
        g, b = normal(rng, c), normal(rng, c)
        ours = ref("nn.layer_norm", x, g, b, attrs=LayerNormAttrs(axis=axis, epsilon=1e-3))
        moved = np.ascontiguousarray(np.moveaxis(x, axis, -1))
        theirs = onnx_run("LayerNormalization", [moved, g, b], axis=-1, epsilon=1e-3)
        np.testing.assert_allclose(ours, np.moveaxis(theirs, -1, axis), rtol=1e-5, atol=1e-5)
    g, b = normal(rng, 3), normal(rng, 3)  # ignored without center and scale
    plain = ref("nn.layer_norm", x, g, b, attrs=LayerNormAttrs(axis=1, center=False, scale=False))
    ones, zeros = np.ones(3, "float32"), np.zeros(3, "float32")
    expect = onnx_run("LayerNormalization", [np.moveaxis(x, 1, -1).copy(), ones, zeros], axis=-1)
    np.testing.assert_allclose(plain, np.moveaxis(expect, -1, 1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("seed", SEEDS)
def test_group_and_instance_norm_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 2, 6, 3, 2)
    g, b = normal(rng, 6), normal(rng, 6)
    for groups in (1, 2, 3, 6):
        ours = ref("nn.group_norm", x, g, b, attrs=GroupNormAttrs(num_groups=groups))
        theirs = onnx_run("GroupNormalization", [x, g, b], opset=21, num_groups=groups)
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)
    ours = ref("nn.instance_norm", x, g, b, attrs=InstanceNormAttrs(epsilon=1e-3))
    theirs = onnx_run("InstanceNormalization", [x, g, b], epsilon=1e-3)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)
    # NHWC: the channel axis last, compared through a transpose
    nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    ours = ref("nn.instance_norm", nhwc, g, b, attrs=InstanceNormAttrs(axis=3, epsilon=1e-3))
    np.testing.assert_allclose(ours.transpose(0, 3, 1, 2), theirs, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("seed", SEEDS)
def test_l2_normalize_vs_onnxruntime_and_loops(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 3, 4, 2)
    for axis in (0, 1, 2):
        ours = ref("nn.l2_normalize", x, attrs=L2NormalizeAttrs(eps=1e-12, axis=(axis,)))
        theirs = onnx_run("LpNormalization", [x], axis=axis, p=2)
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    # several axes and a large eps: a direct loop over the kept axis
    ours = ref("nn.l2_normalize", x, attrs=L2NormalizeAttrs(eps=5.0, axis=(0, 2)))
    for j in range(4):
        total = sum(float(x[i, j, k]) ** 2 for i in range(3) for k in range(2))
        np.testing.assert_allclose(ours[:, j], x[:, j] / math.sqrt(max(total, 5.0)), rtol=1e-5)


@pytest.mark.parametrize("seed", SEEDS)
def test_lrn_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 2, 5, 3, 2)
    for size, alpha, beta, bias in ((5, 1e-4, 0.75, 2.0), (3, 0.5, 0.5, 1.0), (1, 2.0, 1.0, 0.5)):
        a = LRNAttrs(size=size, alpha=alpha, beta=beta, bias=bias)
        theirs = onnx_run("LRN", [x], size=size, alpha=alpha, beta=beta, bias=bias)
        np.testing.assert_allclose(ref("nn.lrn", x, attrs=a), theirs, rtol=1e-5, atol=1e-6)
        nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
        a3 = LRNAttrs(size=size, axis=3, alpha=alpha, beta=beta, bias=bias)
        out = ref("nn.lrn", nhwc, attrs=a3).transpose(0, 3, 1, 2)
        np.testing.assert_allclose(out, theirs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("seed", SEEDS)
def test_cross_entropy_vs_loops(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for dtype in ("float32", "float64"):
        p = rng.uniform(0.05, 1.0, (3, 4)).astype(dtype)
        y = normal(rng, 3, 4, dtype=dtype)
        total = 0.0
        for i, j in itertools.product(range(3), range(4)):
            total -= math.log(float(p[i, j])) * float(y[i, j])
        np.testing.assert_allclose(ref("nn.cross_entropy", p, y), total / 3, rtol=1e-5)


@pytest.mark.parametrize("seed", SEEDS)
def test_nll_loss_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = normal(rng, 3, 4, 2)
    w = rng.uniform(0.5, 2.0, 4).astype("float32")
    t = rng.integers(0, 4, (3, 2)).astype("int64")
    for reduction, ignore in itertools.product(("none", "mean", "sum"), (-100, 1)):
        ours = ref(
            "nn.nll_loss", p, t, w, attrs=NLLLossAttrs(reduction=reduction, ignore_index=ignore)
        )
        theirs = onnx_run(
            "NegativeLogLikelihoodLoss", [p, t, w], reduction=reduction, ignore_index=ignore
        )
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    # the rank-1 form TOPI special-cases: one sample without a batch axis
    vec = p[:, 0, 0]
    for target in range(3):
        out = ref(
            "nn.nll_loss",
            vec,
            np.array(target, "int32"),
            w[:3],
            attrs=NLLLossAttrs(reduction="sum", ignore_index=-1),
        )
        np.testing.assert_allclose(out, -vec[target] * w[target], rtol=1e-6)


@pytest.mark.parametrize("seed", SEEDS)
def test_fast_softmax_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for dtype, rtol in (("float32", 1e-5), ("float64", 1e-12), ("float16", 2e-3)):
        x = (normal(rng, 2, 3, 5) * 4).astype(dtype)
        for axis in (-1, 0, 1):
            ours = ref("nn.fast_softmax", x, attrs=SoftmaxAttrs(axis=axis))
            theirs = onnx_run("Softmax", [x], axis=axis)
            np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("seed", SEEDS)
def test_mirror_pad_vs_onnxruntime_and_loops(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 3, 4)
    widths = ((int(rng.integers(0, 3)), int(rng.integers(0, 3))), (3, int(rng.integers(0, 4))))
    ours = ref("nn.mirror_pad", x, attrs=MirrorPadAttrs(mode="REFLECT", pad_width=widths))
    pads = np.array([widths[0][0], widths[1][0], widths[0][1], widths[1][1]], "int64")
    np.testing.assert_array_equal(ours, onnx_run("Pad", [x, pads], mode="reflect"))
    sym = ref("nn.mirror_pad", x, attrs=MirrorPadAttrs(pad_width=((3, 2), (4, 4))))

    def mirror(i: int, extent: int) -> int:  # fold an index back by repeated reflection
        while not 0 <= i < extent:
            i = -i - 1 if i < 0 else 2 * extent - i - 1
        return i

    for i, j in np.ndindex(*sym.shape):
        assert sym[i, j] == x[mirror(i - 3, 3), mirror(j - 4, 4)]


@pytest.mark.parametrize("seed", SEEDS)
def test_space_depth_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 2, 3, 4, 6)
    a = SubPixelAttrs(block_size=2)
    np.testing.assert_array_equal(
        ref("nn.space_to_depth", x, attrs=a), onnx_run("SpaceToDepth", [x], blocksize=2)
    )
    nhwc = ref(
        "nn.space_to_depth",
        x.transpose(0, 2, 3, 1).copy(),
        attrs=SubPixelAttrs(block_size=2, layout="NHWC"),
    )
    np.testing.assert_array_equal(
        nhwc.transpose(0, 3, 1, 2), onnx_run("SpaceToDepth", [x], blocksize=2)
    )
    deep = normal(rng, 2, 18, 2, 3)
    for mode in ("DCR", "CRD"):
        ours = ref("nn.depth_to_space", deep, attrs=SubPixelAttrs(block_size=3, mode=mode))
        np.testing.assert_array_equal(
            ours, onnx_run("DepthToSpace", [deep], blocksize=3, mode=mode)
        )
    # TVM floors the extents that do not divide: the trailing rows and channels are dropped
    odd = normal(rng, 1, 5, 5, 3)
    ours = ref("nn.depth_to_space", odd, attrs=SubPixelAttrs(block_size=2))
    np.testing.assert_array_equal(ours, onnx_run("DepthToSpace", [odd[:, :4]], blocksize=2))
    ours = ref("nn.space_to_depth", odd, attrs=SubPixelAttrs(block_size=2))
    np.testing.assert_array_equal(ours, onnx_run("SpaceToDepth", [odd[:, :, :4, :2]], blocksize=2))


@pytest.mark.parametrize("seed", SEEDS)
def test_space_batch_vs_loops(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(-50, 50, (2, 3, 4, 2)).astype("int32")
    blocks = (int(rng.integers(1, 3)), int(rng.integers(1, 4)))
    pads = []
    for extent, block in zip((3, 4), blocks, strict=True):
        before = int(rng.integers(0, 3))
        after = (-(extent + before)) % block + block * int(rng.integers(0, 2))
        pads.append((before, after))
    a = SpaceToBatchNDAttrs(block_shape=blocks, paddings=tuple(pads), pad_value=99.0)
    out = ref("nn.space_to_batch_nd", x, attrs=a)
    for ob, i, j, c in np.ndindex(*out.shape):
        k, b = divmod(ob, 2)
        ki, kj = divmod(k, blocks[1])
        si, sj = i * blocks[0] + ki - pads[0][0], j * blocks[1] + kj - pads[1][0]
        inside = 0 <= si < 3 and 0 <= sj < 4
        assert out[ob, i, j, c] == (x[b, si, sj, c] if inside else 99)
    crops = tuple((p[0], p[1] - (p[1] > 0)) for p in pads)
    back = ref(
        "nn.batch_to_space_nd", out, attrs=BatchToSpaceNDAttrs(block_shape=blocks, crops=crops)
    )
    for b, i, j, c in np.ndindex(*back.shape):
        pi, pj = i + crops[0][0], j + crops[1][0]
        (qi, ki), (qj, kj) = divmod(pi, blocks[0]), divmod(pj, blocks[1])
        assert back[b, i, j, c] == out[(ki * blocks[1] + kj) * 2 + b, qi, qj, c]


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


@pytest.mark.parametrize("seed", SEEDS)
def test_upsampling_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 1, 2, 3, 4)
    for (sh, sw), (method, onnx_method), align in itertools.product(
        ((2.0, 3.0), (1.5, 0.5), (2.5, 1.75)),
        (("nearest_neighbor", "nearest_neighbor"), ("bilinear", "linear"), ("bicubic", "cubic")),
        (False, True),
    ):
        if align and method == "nearest_neighbor":
            continue  # TVM's nearest align_corners rounds half to even: no ONNX mode does
        a = UpSamplingAttrs(scale_h=sh, scale_w=sw, method=method, align_corners=align)
        ours = ref("nn.upsampling", x, attrs=a)
        size = (round(3 * sh), round(4 * sw))
        mode = "align_corners" if align else "asymmetric"
        theirs = _ort_resize(x, size, onnx_method, mode, nearest_mode="floor", cubic_coeff_a=-0.5)
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5, err_msg=str(a))
    ints = rng.integers(0, 100, (1, 3, 2, 2)).astype("uint8")
    out = ref("nn.upsampling", ints, attrs=UpSamplingAttrs(scale_h=2.0, scale_w=2.0, layout="NHWC"))
    assert out.dtype == np.uint8 and out.shape == (1, 6, 4, 2)
    np.testing.assert_array_equal(out, ints.repeat(2, axis=1).repeat(2, axis=2))
