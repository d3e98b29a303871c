"""The ``nn/norm`` operators (``semantics/ops/nn/norm.py``): relations, references, checks."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_helpers import FLOATS, Array, T, h, n, of_family
from ops_nn_helpers import (
    ALL,
    NO_UNITS,
    ONE_PAD,
    RESIZE,
    RNG_SEED,
    SEED_RANGE,
    SEEDS,
    V3,
    Avg,
    Conv,
    Max,
    W,
    X,
    normal,
    random,
    run_onnx_node,
    shapes,
)

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS, OpPattern, lookup
from relay.semantics.ops.image import Resize2DAttrs
from relay.semantics.ops.nn.activation import SoftmaxAttrs
from relay.semantics.ops.nn.dense import BiasAddAttrs, DenseAttrs
from relay.semantics.ops.nn.loss import NLLLossAttrs
from relay.semantics.ops.nn.norm import (
    BatchNormAttrs,
    DropoutAttrs,
    GroupNormAttrs,
    InstanceNormAttrs,
    L2NormalizeAttrs,
    LayerNormAttrs,
    LRNAttrs,
)
from relay.semantics.ops.nn.pool import GlobalPool2DAttrs
from relay.semantics.ops.nn.shape import (
    BatchToSpaceNDAttrs,
    MirrorPadAttrs,
    PadAttrs,
    SpaceToBatchNDAttrs,
    SubPixelAttrs,
    UpSamplingAttrs,
)
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.syntax import ANY, TensorType, TupleType, Type, dim_symbol


def rel(name: str, *types: Type, attrs: Attrs | None = None) -> Type:
    op = lookup(name)
    assert op is not None and op.relation is not None
    return op.relation(types, attrs)


def ref(name: str, *args: Array, attrs: Attrs | None = None) -> Any:
    op = lookup(name)
    assert op is not None and op.reference is not None
    return op.reference(args, attrs)


def assert_agrees(
    name: str, args: tuple[Array, ...], attrs: Attrs | None, *, defined: bool = True
) -> None:
    """The reference's dtype and shape are those the relation predicts (or, for a case the
    spec leaves undefined, the relation accepts it and the reference says so)."""
    types = tuple(TensorType(a.shape, str(a.dtype)) for a in args)
    predicted = rel(name, *types, attrs=attrs)
    if not defined:
        with pytest.raises(UndefinedBehavior):
            ref(name, *args, attrs=attrs)
        return
    result = ref(name, *args, attrs=attrs)
    if isinstance(predicted, TupleType):
        assert isinstance(result, tuple) and len(result) == len(predicted.fields)
        pairs = list(zip(predicted.fields, result, strict=True))
    else:
        pairs = [(predicted, result)]
    for t, value in pairs:
        assert isinstance(t, TensorType) and isinstance(value, np.ndarray)
        assert value.shape == t.shape, (name, attrs, value.shape, t.shape)
        assert str(value.dtype) == t.dtype, (name, attrs, value.dtype, t.dtype)


REJECTED: list[tuple[str, tuple[Type, ...], Attrs | None, str]] = [
    # op, argument types, attributes, the error message (a regular expression)
    ("nn.conv2d", (T(1, 4, 5, 5), T(6, 4, 3, 3)), Conv(groups=2), "divided by groups"),
    (
        "nn.conv2d",
        (T(1, 5, 5, 5), T(6, 2, 3, 3)),
        Conv(groups=2),
        r"groups=2 does not divide the input channels \(5\)",
    ),
    (
        "nn.conv2d",
        (T(1, 4, 5, 5), T(5, 2, 3, 3)),
        Conv(groups=2),
        r"groups=2 does not divide the output channels \(5\)",
    ),
    (
        "nn.conv2d",
        (T(1, 4, 5, 5), T(5, 4, 3, 3)),
        Conv(groups=0),
        "expected groups >= 1, found groups=0",
    ),
    # a channel multiplier without channels/kernel_size is not depthwise: I must be C/groups
    ("nn.conv2d", (T(1, 4, 5, 5), T(4, 2, 3, 3)), Conv(groups=4), "divided by groups=4 must match"),
    ("nn.conv2d", (X, W), Conv(channels=5), "has 4 output channels, expected channels=5"),
    ("nn.conv2d", (X, W), Conv(kernel_size=(3, 5)), r"inconsistent with kernel_size=\[3, 5\]"),
    ("nn.conv2d", (X, W), Conv(channels=5, kernel_size=(3, 3)), r"\(5, 3, 3, 3\) implied by"),
    (
        "nn.conv2d",
        (X, W),
        Conv(kernel_size=(3,)),
        r"expected 2 integers in kernel_size, found kernel_size=\[3\]",
    ),
    ("nn.conv2d", (X, W), Conv(data_layout="NCHW4c"), 'data_layout="NCHW4c" is not supported'),
    ("nn.conv2d", (X, W), Conv(data_layout="NCDHW"), "expected a permutation of NCHW"),
    ("nn.conv2d", (X, W), Conv(kernel_layout="OIHW16o"), 'kernel_layout="OIHW16o"'),
    ("nn.conv2d", (X, W), Conv(kernel_layout="GOIHW"), "expected a permutation of OIHW"),
    ("nn.conv2d", (X, W), Conv(out_layout="NCH"), 'out_layout="NCH" is not supported'),
    (
        "nn.conv2d",
        (T(3, 8, 8), W),
        Conv(),
        r'expected a 4-D tensor for data in data_layout="NCHW", found rank 3 \(3, 8, 8\)',
    ),
    (
        "nn.conv2d",
        (T(1, 8, 8, 3), T(3, 3, 4, 4)),
        Conv(data_layout="NHWC", kernel_layout="HWIO"),
        r"input channels \(3\) divided by groups=1 must match .* weight \(4\)",
    ),
    ("nn.conv2d", (X, W), Conv(padding=(1, 1, 1)), r"1, 2 or 4 .* found padding=\[1, 1, 1\]"),
    ("nn.conv2d", (X, W), Conv(padding=(-1,)), r"non-negative padding, found padding=\[-1\]"),
    (
        "nn.conv2d",
        (X, W),
        Conv(strides=(0, 1)),
        r"expected positive strides, found strides=\[0, 1\]",
    ),
    ("nn.conv2d", (X, W), Conv(dilation=(1,)), r"2 integers in dilation, found dilation=\[1\]"),
    ("nn.conv2d", (T(1, 3, 2, 8), T(4, 3, 5, 3)), Conv(), "window .5. is longer than the padded"),
    ("nn.conv2d", (X, TupleType(())), Conv(), "expected a tensor for weight, found a tuple"),
    (
        "nn.conv2d",
        (X, T(4, 3, 0, 3)),
        Conv(channels=4, kernel_size=(0, 3)),
        r"expected positive kernel_size, found kernel_size=\[0, 3\]",
    ),
    (
        "nn.conv2d",
        (X, T(4, 3, 3, 0)),
        Conv(),
        r"non-empty kernel, found weight shape \(4, 3, 3, 0\)",
    ),
    (
        "nn.conv2d",
        (T(1, 4, 5, 5), T(5, 2, 3, 3)),
        Conv(groups=2, channels=5),
        r"groups=2 does not divide the output channels \(5\) \(channels=5\)",
    ),
    ("nn.dense", (T(2, 5), T(3, 5)), DenseAttrs(units=4), r"\(3, 5\) does not match \(4, 5\)"),
    ("nn.dense", (T(2, 6), T(3, 5)), DenseAttrs(units=3), r"does not match \(3, 6\)"),
    ("nn.dense", (T(2, 6), T(3, 5)), NO_UNITS, "has last dimension 6, weight .* has 5"),
    ("nn.dense", (T(2, 5), T(1, 3, 5)), NO_UNITS, "expected a 2-D tensor for weight, found rank"),
    ("nn.dense", (T(), T(3, 5)), NO_UNITS, "rank at least 1, found rank 0"),
    ("nn.max_pool2d", (T(1, 3, 2, 8),), Max(pool_size=(3, 3)), "window .3. is longer"),
    ("nn.avg_pool2d", (T(1, 3, 4, 8),), Avg(pool_size=(3, 3), dilation=(2, 1)), "window .5."),
    ("nn.max_pool2d", (T(1, 3, 8),), Max(layout="NCW"), "expected one H and one W axis"),
    ("nn.avg_pool2d", (T(1, 3, 8, 8, 2),), Avg(layout="NCHW2h"), "H and W cannot be split"),
    ("nn.max_pool2d", (T(3, 8, 8),), Max(), 'layout="NCHW" has 4 axes but the data has rank 3'),
    ("nn.avg_pool2d", (T(8),), Avg(), "rank at least 2, found rank 1"),
    ("nn.max_pool2d", (X,), Max(layout="N1CHW"), 'layout="N1CHW" is not a layout string'),
    ("nn.max_pool2d", (X,), Max(padding=(1, 1, 1)), "1, 2 or 4 integers in padding"),
    ("nn.avg_pool2d", (X,), Avg(pool_size=(2,)), r"2 integers in pool_size, found pool_size=\[2\]"),
    (
        "nn.max_pool2d",
        (X,),
        Max(pool_size=(0, 2)),
        r"expected positive pool_size, found pool_size=\[0, 2\]",
    ),
    ("nn.global_avg_pool2d", (T(2, 3, 7),), GlobalPool2DAttrs(layout="NCW"), "one H and one W"),
    ("nn.global_avg_pool2d", (T(3),), GlobalPool2DAttrs(), "rank at least 2"),
    (
        "nn.batch_norm",
        (T(2, 3, 4, 4), T(4), V3, V3, V3),
        BatchNormAttrs(),
        r"expected Tensor\[\(3,\), float32\] for gamma, found Tensor\[\(4,\), float32\]",
    ),
    (
        "nn.batch_norm",
        (T(2, 3), V3, V3, V3, T(3, dtype="float16")),
        BatchNormAttrs(),
        "for moving_var, found Tensor.*float16",
    ),
    ("nn.batch_norm", (T(2, 3), V3, T(3, 1), V3, V3), BatchNormAttrs(), "for beta, found .*3, 1"),
    ("nn.batch_norm", (T(2, 3), V3, V3, T(2), V3), BatchNormAttrs(), "for moving_mean"),
    ("nn.batch_norm", (T(2, 3, 4), V3, V3, V3, V3), BatchNormAttrs(axis=-2), "axis=-2 is out of"),
    (
        "nn.batch_norm",
        (T(2, 3), V3, V3, V3, V3),
        BatchNormAttrs(axis=2),
        r"axis=2 is out of range .* \(expected -1 <= axis < 2",
    ),
    (
        "nn.pad",
        (T(2, 3), T()),
        ONE_PAD,
        r"expected 2 \(before, after\) pairs .* found 1: pad_width=\[\[1, 1\]\]",
    ),
    (
        "nn.pad",
        (T(2, 3), T()),
        PadAttrs(pad_width=((1, 1), (1, 2, 3))),
        r"pair for axis 1 in pad_width=\[\[1, 1\], \[1, 2, 3\]\], found \[1, 2, 3\]",
    ),
    (
        "nn.pad",
        (T(2), T()),
        PadAttrs(pad_width=((-2, -1),)),
        r"pad_width=\[\[-2, -1\]\] pads axis 0 of extent 2 .* negative extent -1",
    ),
    (
        "nn.pad",
        (T(2), T()),
        PadAttrs(pad_width=((1, 1),), pad_mode="wrap"),
        'found pad_mode="wrap"',
    ),
    ("nn.pad", (T(2), TupleType(())), ONE_PAD, "expected a tensor for pad_val"),
    ("nn.bias_add", (T(2, 3, 4), T(4)), BiasAddAttrs(), r"Tensor\[\(3,\), float32\] for bias"),
    ("nn.bias_add", (T(2, 3), T(3, dtype="int32")), BiasAddAttrs(), "for bias, found .*int32"),
    ("nn.bias_add", (T(2, 3, 4), V3), BiasAddAttrs(axis=3), "axis=3 is out of range .* rank 3"),
    ("nn.bias_add", (T(2, 3, 4), V3), BiasAddAttrs(axis=-4), "axis=-4 is out of range"),
    ("nn.batch_flatten", (T(),), None, "rank at least 1, found rank 0"),
    (
        "nn.softmax",
        (T(2, 3),),
        SoftmaxAttrs(axis=2),
        r"axis=2 is out of range .* rank 2 \(expected -2 <= axis < 2\)",
    ),
    ("nn.log_softmax", (T(2, 3),), SoftmaxAttrs(axis=-3), "axis=-3 is out of range"),
    ("nn.dropout", (TupleType(()),), DropoutAttrs(), "expected a tensor for data"),
]


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


def ref_checked(name: str, *args: Array, attrs: Attrs | None = None) -> Array:
    op = lookup(name)
    assert op is not None and op.reference is not None
    out = op.reference(args, attrs)
    assert isinstance(out, np.ndarray)
    # The reference's type is the one the relation predicts.
    predicted = rel(name, *(T(*a.shape, dtype=str(a.dtype)) for a in args), attrs=attrs)
    assert predicted == T(*out.shape, dtype=str(out.dtype)), (predicted, out.shape, out.dtype)
    return out


REJECTED += [
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


def test_batch_norm_relation() -> None:
    bn = "nn.batch_norm"
    v = T(3)
    assert rel(bn, T(2, 3, 4), v, v, v, v, attrs=BatchNormAttrs()) == TupleType((T(2, 3, 4), v, v))
    last = BatchNormAttrs(axis=-1)
    assert rel(bn, T(n, 4, 4, 3), v, v, v, v, attrs=last) == TupleType((T(n, 4, 4, 3), v, v))
    c = dim_symbol("c")
    vc = T(c)
    assert rel(bn, T(n, c), vc, vc, vc, vc, attrs=BatchNormAttrs()) == TupleType((T(n, c), vc, vc))
    f16 = T(3, dtype="float16")
    data = T(2, 3, dtype="float16")
    expected = TupleType((data, f16, f16))
    assert rel(bn, data, f16, f16, f16, f16, attrs=BatchNormAttrs()) == expected


def test_dropout_relation() -> None:
    t = T(n, 3, dtype="float16")
    assert rel("nn.dropout", t, attrs=DropoutAttrs()) == TupleType((t, t))
    assert rel("nn.dropout", T(), attrs=DropoutAttrs(rate=0.1)) == TupleType((T(), T()))


@pytest.mark.parametrize(("name", "types", "attrs", "message"), of_family(REJECTED, "nn/norm"))
def test_relation_rejects(
    name: str, types: tuple[Type, ...], attrs: Attrs | None, message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        rel(name, *types, attrs=attrs)


def test_batch_norm_matches_onnxruntime() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    gamma, beta, mean = (rng.standard_normal(3).astype(np.float32) for _ in range(3))
    var = rng.uniform(0.5, 2.0, 3).astype(np.float32)
    out, m, v = ref("nn.batch_norm", x, gamma, beta, mean, var, attrs=BatchNormAttrs(epsilon=1e-3))
    expected = run_onnx_node("BatchNormalization", [x, gamma, beta, mean, var], epsilon=1e-3)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(m, mean)
    np.testing.assert_array_equal(v, var)
    # axis -1, no scale and no centre: (x - mean) / sqrt(var + eps) only
    xl = x.transpose(0, 2, 3, 1)
    out, _, _ = ref(
        "nn.batch_norm",
        xl,
        gamma,
        beta,
        mean,
        var,
        attrs=BatchNormAttrs(axis=-1, center=False, scale=False),
    )
    np.testing.assert_allclose(out, (xl - mean) / np.sqrt(var + 1e-5), rtol=1e-6)
    out, _, _ = ref(
        "nn.batch_norm", xl, gamma, beta, mean, var, attrs=BatchNormAttrs(axis=3, center=False)
    )
    np.testing.assert_allclose(out, (xl - mean) / np.sqrt(var + 1e-5) * gamma, rtol=1e-6)
    ints = np.ones(3, np.int32)
    with pytest.raises(UndefinedBehavior, match="int32 data"):
        ref(
            "nn.batch_norm",
            np.ones((2, 3), np.int32),
            ints,
            ints,
            ints,
            ints,
            attrs=BatchNormAttrs(),
        )


def test_dropout_is_identity_with_a_mask_of_ones() -> None:
    x = np.array([[1.5, -2.0], [np.nan, 0.0]], np.float32)
    out, mask = ref("nn.dropout", x, attrs=DropoutAttrs(rate=0.9))
    np.testing.assert_array_equal(out, x)
    assert mask.dtype == np.float32 and mask.tolist() == [[1, 1], [1, 1]]
    out, mask = ref("nn.dropout", np.array([3, 4], np.int8), attrs=DropoutAttrs())
    assert out.tolist() == [3, 4] and mask.tolist() == [1, 1] and mask.dtype == np.int8


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_dropout_matches_onnxruntime(dtype: str) -> None:
    """ONNX Dropout without training_mode is inference: the output is the data and the mask
    all true; nn.dropout's mask holds ones of the data's dtype."""
    from relay.oracles.onnx_peer import onnx_run as peer_run

    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((3, 4, 2)).astype(dtype)
    for rate in (0.5, 0.1):
        out, mask = ref("nn.dropout", x, attrs=DropoutAttrs(rate=rate))
        expected = peer_run(
            "Dropout", [x, np.array(rate, dtype)], outputs=2, out_dtype=[dtype, "bool"]
        )
        assert isinstance(expected, tuple)
        expected_out, expected_mask = expected
        assert out.dtype == expected_out.dtype and mask.dtype == x.dtype
        np.testing.assert_array_equal(out, expected_out)
        np.testing.assert_array_equal(mask.astype(bool), expected_mask)
        np.testing.assert_array_equal(mask, np.ones_like(x))


@settings(max_examples=40)
@given(SEEDS, st.sampled_from(ALL), shapes, st.booleans(), st.booleans(), st.data())
def test_batch_norm_reference_agrees_with_relation(
    seed: int, dtype: str, shape: tuple[int, ...], center: bool, scale: bool, data: st.DataObject
) -> None:
    rng = np.random.default_rng(seed)
    axis = data.draw(st.integers(-1, len(shape) - 1))
    x = random(rng, shape, dtype)
    gamma, beta, mean = (random(rng, (shape[axis],), dtype) for _ in range(3))
    var = np.abs(random(rng, (shape[axis],), dtype))
    attrs = BatchNormAttrs(
        axis=axis, center=center, scale=scale, epsilon=data.draw(st.sampled_from([1e-5, 0.1]))
    )
    args = (x, gamma, beta, mean, var)
    assert_agrees("nn.batch_norm", args, attrs, defined=dtype in FLOATS)


def test_records() -> None:
    for name, (relation_name, pattern) in GROUP.items():
        op = OPS[name]
        assert op.relation_name == relation_name and op.pattern is pattern
        assert op.family == "image" if name.startswith("image.") else op.family.startswith("nn/")
        assert op.check.startswith(("onnxruntime:", "independent:"))
        assert op.attrs_type is None or op.attrs_type.type_key.endswith(op.attrs_type.__name__)
    assert OPS["nn.cross_entropy"].inputs == ("x", "y")
    assert OPS["nn.nll_loss"].inputs == ("predictions", "targets", "weights")


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


def test_layer_norm_by_hand() -> None:
    x = np.array([[1.0, 3.0], [2.0, 2.0]], "float32")
    out = ref_checked(
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
    out = ref_checked("nn.l2_normalize", x, attrs=L2NormalizeAttrs(eps=4.0, axis=(1,)))
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 0.0]])
    p = np.array([[0.5, 0.25], [1.0, 1.0]], "float32")
    y = np.array([[1.0, 2.0], [3.0, 0.0]], "float32")
    # -(log .5 + 2 log .25 + 0) / 2 = (5 log 2) / 2
    np.testing.assert_allclose(ref_checked("nn.cross_entropy", p, y), 2.5 * math.log(2), rtol=1e-6)


def test_float_only_ops_are_undefined_on_integers() -> None:
    i = np.ones((1, 3, 2, 2), "int32")
    v = np.ones(3, "int32")
    with pytest.raises(UndefinedBehavior, match="int32 data"):
        ref_checked("nn.layer_norm", i, v, v, attrs=LayerNormAttrs(axis=1))
    with pytest.raises(UndefinedBehavior):
        ref_checked("nn.lrn", i, attrs=LRNAttrs())
    with pytest.raises(UndefinedBehavior):
        ref_checked("nn.fast_softmax", i, attrs=SoftmaxAttrs())


@pytest.mark.parametrize("seed", SEED_RANGE)
def test_layer_norm_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 2, 3, 4)
    for axis in (0, 1, -1):
        c = x.shape[axis]
        g, b = normal(rng, c), normal(rng, c)
        ours = ref_checked("nn.layer_norm", x, g, b, attrs=LayerNormAttrs(axis=axis, epsilon=1e-3))
        moved = np.ascontiguousarray(np.moveaxis(x, axis, -1))
        theirs = onnx_run("LayerNormalization", [moved, g, b], axis=-1, epsilon=1e-3)
        np.testing.assert_allclose(ours, np.moveaxis(theirs, -1, axis), rtol=1e-5, atol=1e-5)
    g, b = normal(rng, 3), normal(rng, 3)  # ignored without center and scale
    plain = ref_checked(
        "nn.layer_norm", x, g, b, attrs=LayerNormAttrs(axis=1, center=False, scale=False)
    )
    ones, zeros = np.ones(3, "float32"), np.zeros(3, "float32")
    expect = onnx_run("LayerNormalization", [np.moveaxis(x, 1, -1).copy(), ones, zeros], axis=-1)
    np.testing.assert_allclose(plain, np.moveaxis(expect, -1, 1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("seed", SEED_RANGE)
def test_group_and_instance_norm_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 2, 6, 3, 2)
    g, b = normal(rng, 6), normal(rng, 6)
    for groups in (1, 2, 3, 6):
        ours = ref_checked("nn.group_norm", x, g, b, attrs=GroupNormAttrs(num_groups=groups))
        theirs = onnx_run("GroupNormalization", [x, g, b], opset=21, num_groups=groups)
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)
    ours = ref_checked("nn.instance_norm", x, g, b, attrs=InstanceNormAttrs(epsilon=1e-3))
    theirs = onnx_run("InstanceNormalization", [x, g, b], epsilon=1e-3)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)
    # NHWC: the channel axis last, compared through a transpose
    nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    ours = ref_checked(
        "nn.instance_norm", nhwc, g, b, attrs=InstanceNormAttrs(axis=3, epsilon=1e-3)
    )
    np.testing.assert_allclose(ours.transpose(0, 3, 1, 2), theirs, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("seed", SEED_RANGE)
def test_l2_normalize_vs_onnxruntime_and_loops(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 3, 4, 2)
    for axis in (0, 1, 2):
        ours = ref_checked("nn.l2_normalize", x, attrs=L2NormalizeAttrs(eps=1e-12, axis=(axis,)))
        theirs = onnx_run("LpNormalization", [x], axis=axis, p=2)
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    # several axes and a large eps: a direct loop over the kept axis
    ours = ref_checked("nn.l2_normalize", x, attrs=L2NormalizeAttrs(eps=5.0, axis=(0, 2)))
    for j in range(4):
        total = sum(float(x[i, j, k]) ** 2 for i in range(3) for k in range(2))
        np.testing.assert_allclose(ours[:, j], x[:, j] / math.sqrt(max(total, 5.0)), rtol=1e-5)


@pytest.mark.parametrize("seed", SEED_RANGE)
def test_lrn_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 2, 5, 3, 2)
    for size, alpha, beta, bias in ((5, 1e-4, 0.75, 2.0), (3, 0.5, 0.5, 1.0), (1, 2.0, 1.0, 0.5)):
        a = LRNAttrs(size=size, alpha=alpha, beta=beta, bias=bias)
        theirs = onnx_run("LRN", [x], size=size, alpha=alpha, beta=beta, bias=bias)
        np.testing.assert_allclose(ref_checked("nn.lrn", x, attrs=a), theirs, rtol=1e-5, atol=1e-6)
        nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
        a3 = LRNAttrs(size=size, axis=3, alpha=alpha, beta=beta, bias=bias)
        out = ref_checked("nn.lrn", nhwc, attrs=a3).transpose(0, 3, 1, 2)
        np.testing.assert_allclose(out, theirs, rtol=1e-5, atol=1e-6)
