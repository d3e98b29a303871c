"""The ``nn/dense`` operators (``semantics/ops/nn/dense.py``): relations, references, checks."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_helpers import FLOATS, INTS, Array, T, h, n, of_family
from ops_nn_helpers import (
    ALL,
    GROUP,
    NO_UNITS,
    ONE_PAD,
    RNG_SEED,
    RNG_SEED_2,
    SEEDS,
    V3,
    Avg,
    Conv,
    Max,
    W,
    X,
    random,
    run_onnx_node,
    shapes,
)

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS, lookup
from relay.semantics.ops.nn.activation import PReluAttrs, SoftmaxAttrs
from relay.semantics.ops.nn.conv import (
    Conv1DAttrs,
    Conv1DTransposeAttrs,
    Conv2DTransposeAttrs,
    Conv3DAttrs,
)
from relay.semantics.ops.nn.dense import BatchMatmulAttrs, BiasAddAttrs, DenseAttrs, MatmulAttrs
from relay.semantics.ops.nn.norm import BatchNormAttrs, DropoutAttrs
from relay.semantics.ops.nn.pool import (
    AdaptivePool2DAttrs,
    AvgPool1DAttrs,
    AvgPool3DAttrs,
    GlobalPool2DAttrs,
    MaxPool1DAttrs,
    MaxPool3DAttrs,
)
from relay.semantics.ops.nn.shape import PadAttrs
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.syntax import ANY, TensorType, TupleType, Type


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


def dense(data: TensorType, weight: TensorType, units: int | None = None, out: str = "") -> Type:
    return rel("nn.dense", data, weight, attrs=DenseAttrs(units=units, out_dtype=out))


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


def _bias_add_loop(data: Array, bias: Array, axis: int) -> Array:
    """``data[i] + bias[i[axis]]`` element by element, in Python arithmetic: binary64 for
    floats (one rounding to float32 is then exact rounding, as binary64 has the bits), exact
    integers wrapped to the dtype for the narrow ones."""
    out = np.empty_like(data)
    dtype = data.dtype
    for index in itertools.product(*(range(d) for d in data.shape)):
        total = data[index].item() + bias[index[axis]].item()
        if dtype.kind in "iu" and dtype.itemsize < 4:
            bits = 8 * dtype.itemsize
            low = -(2 ** (bits - 1)) if dtype.kind == "i" else 0
            total = (total - low) % 2**bits + low
        out[index] = total
    return out


def assert_agrees_tensor(
    name: str, args: tuple[Array, ...], attrs: Attrs | None, *, defined: bool = True
) -> Array | None:
    """The reference's dtype and shape are what the relation predicts (or, for a case the
    spec leaves undefined, the relation accepts it and the reference says so)."""
    predicted = rel(name, *(TensorType(a.shape, str(a.dtype)) for a in args), attrs=attrs)
    if not defined:
        with pytest.raises(UndefinedBehavior):
            ref(name, *args, attrs=attrs)
        return None
    result = ref(name, *args, attrs=attrs)
    assert isinstance(predicted, TensorType) and isinstance(result, np.ndarray)
    assert result.shape == predicted.shape, (name, attrs, result.shape, predicted.shape)
    assert str(result.dtype) == predicted.dtype, (name, attrs, result.dtype, predicted.dtype)
    return result


REJECTED += [
    ("nn.conv1d", (T(1, 4, 8), T(6, 4, 3)), Conv1DAttrs(groups=2), "divided by groups"),
    ("nn.conv1d", (T(1, 5, 8), T(6, 2, 3)), Conv1DAttrs(groups=2), r"\(5\) are not divisible"),
    ("nn.conv1d", (T(1, 4, 8), T(5, 2, 3)), Conv1DAttrs(groups=2), r"output channels \(5\)"),
    ("nn.conv1d", (T(1, 3, 8), T(4, 3, 3)), Conv1DAttrs(channels=5), "expected channels=5"),
    ("nn.conv1d", (T(1, 3, 8), T(4, 3, 3)), Conv1DAttrs(kernel_size=(2,)), r"kernel_size=\(2,\)"),
    ("nn.conv1d", (T(1, 3, 8), T(4, 3, 3)), Conv1DAttrs(strides=(1, 1)), "strides must hold 1"),
    ("nn.conv1d", (T(1, 3, 8), T(4, 3, 3)), Conv1DAttrs(dilation=(0,)), "dilation must be pos"),
    ("nn.conv1d", (T(1, 3, 8), T(4, 3, 3)), Conv1DAttrs(padding=(1, 1, 1)), "1 or 2 integers"),
    ("nn.conv1d", (T(1, 3, 8), T(4, 3, 3)), Conv1DAttrs(padding=(-1,)), "non-negative"),
    ("nn.conv1d", (T(1, 3, 8), T(4, 3, 3)), Conv1DAttrs(data_layout="NCH"), "permutation of NCW"),
    ("nn.conv1d", (T(1, 3, 2), T(4, 3, 5)), Conv1DAttrs(), r"window \(5\) is longer"),
    ("nn.conv1d", (T(3, 8), T(4, 3, 3)), Conv1DAttrs(), "3-D tensor for data"),
    ("nn.conv1d", (T(1, 3, 8), T(4, 3, 3)), Conv1DAttrs(groups=0), "at least 1, found 0"),
    (
        "nn.conv3d",
        (T(1, 2, 4, 4, 4), T(3, 2, 3, 3, 3)),
        Conv3DAttrs(padding=(1, 1)),
        "1, 3 or 6 integers, found 2",
    ),
    (
        "nn.conv3d",
        (T(1, 2, 4, 4, 4), T(3, 2, 3, 3, 3)),
        Conv3DAttrs(out_layout="NCHW"),
        'out_layout.*"NCHW"',
    ),
    (
        "nn.conv2d_transpose",
        (T(1, 4, 5, 5), T(3, 3, 3, 3)),
        Conv2DTransposeAttrs(),
        r"input channels \(4\) must match the weight's input channels \(3\)",
    ),
    (
        "nn.conv2d_transpose",
        (T(1, 4, 5, 5), T(4, 3, 3, 3)),
        Conv2DTransposeAttrs(channels=5),
        r"3 output channels per group, expected channels / groups = 5 / 1",
    ),
    (
        "nn.conv2d_transpose",
        (T(1, 4, 5, 5), T(4, 3, 3, 3)),
        Conv2DTransposeAttrs(channels=5, groups=2),
        "channels=5 is not divisible by groups",
    ),
    (
        "nn.conv2d_transpose",
        (T(1, 4, 5, 5), T(4, 3, 3, 3)),
        Conv2DTransposeAttrs(strides=(2, 2), output_padding=(2, 0)),
        r"output_padding=\(2, 0\) must be smaller than strides=\(2, 2\)",
    ),
    (
        "nn.conv2d_transpose",
        (T(1, 4, 1, 1), T(4, 3, 1, 1)),
        Conv2DTransposeAttrs(padding=(1, 0)),
        "removes more than",
    ),
    (
        "nn.conv2d_transpose",
        (T(1, 4, 5, 5), T(4, 3, 3, 3)),
        Conv2DTransposeAttrs(kernel_layout="OIHW4o"),
        "permutation of IOHW",
    ),
    (
        "nn.conv1d_transpose",
        (T(1, 3, 5), T(3, 2, 2)),
        Conv1DTransposeAttrs(groups=2),
        r"\(3\) are not divisible by groups \(2\)",
    ),
    (
        "nn.conv1d_transpose",
        (T(1, 3, 5), T(3, 2, 2)),
        Conv1DTransposeAttrs(output_padding=(0, 0)),
        "output_padding must hold 1 integer",
    ),
    (
        "nn.matmul",
        (T(2, 5), T(4, 3)),
        MatmulAttrs(units=None),
        r"tensor_a \(2, 5\) has 5, tensor_b \(4, 3\) has 4",
    ),
    (
        "nn.matmul",
        (T(2, 5), T(5, 3)),
        MatmulAttrs(units=4),
        r"\(5, 3\) does not match \(5, 4\) implied by units=4",
    ),
    ("nn.matmul", (T(5), T(5, 3)), MatmulAttrs(units=None, transpose_a=True), "rank at least 2"),
    (
        "nn.matmul",
        (
            T(2, 5),
            T(
                5,
            ),
        ),
        MatmulAttrs(units=None),
        "2-D tensor for tensor_b",
    ),
    (
        "nn.batch_matmul",
        (T(2, 3, 5), T(3, 5, 4)),
        BatchMatmulAttrs(),
        "batch dimensions 2 and 3 do not match",
    ),
    (
        "nn.batch_matmul",
        (T(2, 3, 5), T(2, 5, 4)),
        BatchMatmulAttrs(transpose_b=True),
        r"tensor_a \(2, 3, 5\) has 5, tensor_b \(2, 5, 4\) has 4",
    ),
    ("nn.batch_matmul", (T(3, 5), T(5, 4)), BatchMatmulAttrs(), "3-D tensor for tensor_a"),
    ("nn.prelu", (T(2, 3), T(2)), PReluAttrs(), r"Tensor\[\(3,\), float32\] for alpha"),
    ("nn.prelu", (T(2, 3), T(3, dtype="float16")), PReluAttrs(), "found Tensor.*float16"),
    ("nn.prelu", (T(2, 3), T(3)), PReluAttrs(axis=-1), "axis=-1 is out of range"),
    ("nn.prelu", (T(2, 3), T(3)), PReluAttrs(axis=2), "axis=2 is out of range"),
    ("nn.max_pool1d", (T(1, 3, 2),), MaxPool1DAttrs(pool_size=(3,)), r"window \(3\) is longer"),
    ("nn.avg_pool1d", (T(1, 3, 8),), AvgPool1DAttrs(pool_size=(2, 2)), "pool_size must hold 1"),
    ("nn.max_pool1d", (T(1, 3, 8),), MaxPool1DAttrs(pool_size=(0,)), "must be positive"),
    ("nn.max_pool1d", (T(1, 3, 8, 8),), MaxPool1DAttrs(pool_size=(2,)), "has 3 axes but"),
    ("nn.max_pool1d", (T(1, 3, 8),), MaxPool1DAttrs(pool_size=(2,), layout="NCH"), "one W"),
    (
        "nn.avg_pool1d",
        (T(1, 8, 2),),
        AvgPool1DAttrs(pool_size=(2,), layout="NW2w"),
        "W cannot be split",
    ),
    ("nn.avg_pool1d", (T(1, 3, 8),), AvgPool1DAttrs(pool_size=(2,), padding=(-1,)), "non-neg"),
    (
        "nn.max_pool3d",
        (T(1, 2, 4, 4, 4),),
        MaxPool3DAttrs(pool_size=(2, 2, 2), padding=(1, 1)),
        "1, 3 or 6 integers",
    ),
    (
        "nn.avg_pool3d",
        (T(2, 4, 4),),
        AvgPool3DAttrs(pool_size=(2, 2, 2)),
        '"NCDHW" has 5 axes but the data has rank 3',
    ),
    (
        "nn.max_pool3d",
        (T(1, 2, 1, 4, 4),),
        MaxPool3DAttrs(pool_size=(2, 2, 2)),
        r"window \(2\) is longer than the padded input \(1\)",
    ),
    ("nn.avg_pool3d", (T(4, 4),), AvgPool3DAttrs(pool_size=(1, 1, 1)), "rank at least 3"),
    (
        "nn.adaptive_avg_pool2d",
        (T(1, 2, 4, 4),),
        AdaptivePool2DAttrs(output_size=(1, 2, 3)),
        "at most 2 integers, found 3",
    ),
    (
        "nn.adaptive_max_pool2d",
        (T(1, 2, 4, 4),),
        AdaptivePool2DAttrs(output_size=(-1,)),
        r"non-negative, found \(-1,\)",
    ),
    ("nn.adaptive_max_pool2d", (T(4),), AdaptivePool2DAttrs(), "rank at least 2"),
    ("nn.global_max_pool2d", (T(1, 2, 3),), GlobalPool2DAttrs(), "has 4 axes but"),
]


def test_dense_relation() -> None:
    assert dense(T(n, 5), T(3, 5)) == T(n, 3)
    assert dense(T(n, 5), T(3, 5), units=3) == T(n, 3)
    assert dense(T(2, 7, 5), T(3, 5)) == T(2, 7, 3)
    assert dense(T(5), T(3, 5)) == T(3)
    assert dense(T(n, ANY), T(3, 5)) == T(n, 3)  # no check against an unknown dimension
    assert dense(T(ANY, 5), T(ANY, 5)) == T(ANY, ANY)
    assert dense(T(n, ANY), T(3, 5), units=3) == T(n, 3)
    i8 = {"dtype": "int8"}
    assert dense(T(2, 5, **i8), T(3, 5, **i8), out="int32") == T(2, 3, dtype="int32")
    assert dense(T(2, 5), T(3, 5, dtype="float16")) == T(2, 3)  # weight dtype unchecked


def test_bias_add_relation() -> None:
    ba = "nn.bias_add"
    assert rel(ba, T(2, 3, 4), T(3), attrs=BiasAddAttrs()) == T(2, 3, 4)
    assert rel(ba, T(n, 3, 4), T(4), attrs=BiasAddAttrs(axis=-1)) == T(n, 3, 4)
    assert rel(ba, T(n, h), T(h), attrs=BiasAddAttrs(axis=1)) == T(n, h)
    assert rel(ba, T(n, ANY), T(5), attrs=BiasAddAttrs(axis=1)) == T(n, ANY)


@pytest.mark.parametrize(("name", "types", "attrs", "message"), of_family(REJECTED, "nn/dense"))
def test_relation_rejects(
    name: str, types: tuple[Type, ...], attrs: Attrs | None, message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        rel(name, *types, attrs=attrs)


def test_dense_matches_onnxruntime() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((4, 6)).astype(np.float32)
    wt = rng.standard_normal((3, 6)).astype(np.float32)
    got = ref("nn.dense", x, wt, attrs=DenseAttrs(units=3))
    np.testing.assert_allclose(got, run_onnx_node("Gemm", [x, wt], transB=1), rtol=1e-5, atol=1e-6)
    x3 = rng.standard_normal((2, 4, 6)).astype(np.float32)
    got3 = ref("nn.dense", x3, wt, attrs=DenseAttrs(units=None))
    np.testing.assert_allclose(
        got3, run_onnx_node("MatMul", [x3, wt.T.copy()]), rtol=1e-5, atol=1e-6
    )
    x64 = rng.standard_normal((3, 5))
    w64 = rng.standard_normal((2, 5))
    np.testing.assert_allclose(ref("nn.dense", x64, w64, attrs=DenseAttrs(units=None)), x64 @ w64.T)


def test_dense_integers_and_float16() -> None:
    x = np.array([[100, -100, 7]], np.int8)
    wt = np.array([[100, 100, 1], [-1, 1, 0]], np.int8)
    assert ref("nn.dense", x, wt, attrs=DenseAttrs(units=2, out_dtype="int32")).tolist() == [
        [7, -200]
    ]
    assert ref("nn.dense", x, wt, attrs=DenseAttrs(units=2)).tolist() == [[7, 56]]  # -200 wraps
    big = np.array([[2**62, 2**62]], np.int64)
    with pytest.raises(UndefinedBehavior, match="overflows int64"):
        ref("nn.dense", big, np.ones((1, 2), np.int64), attrs=DenseAttrs(units=None))
    assert ref(
        "nn.dense",
        np.array([[2**31]], np.uint32),
        np.array([[1]], np.uint32),
        attrs=DenseAttrs(units=None),
    ).tolist() == [[2**31]]
    with pytest.raises(UndefinedBehavior, match="overflows uint32"):
        ref(
            "nn.dense",
            np.array([[2**31, 2**31]], np.uint32),
            np.ones((1, 2), np.uint32),
            attrs=DenseAttrs(units=None),
        )
    h16 = np.full((1, 4096), 1, np.float16)
    # float16 is accumulated in float32: a float16 accumulator would stop at 2048
    assert ref("nn.dense", h16, h16, attrs=DenseAttrs(units=None)).tolist() == [[4096]]


def test_bias_add_reference() -> None:
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    b = np.array([10, 20, 30], np.float32)
    np.testing.assert_array_equal(ref("nn.bias_add", x, b, attrs=BiasAddAttrs()), x + b[:, None])
    b4 = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(ref("nn.bias_add", x, b4, attrs=BiasAddAttrs(axis=-1)), x + b4)
    x8 = np.array([[120, -120]], np.int8)
    assert ref("nn.bias_add", x8, np.array([10, -10], np.int8), attrs=BiasAddAttrs()).tolist() == [
        [-126, 126]
    ]
    with pytest.raises(UndefinedBehavior, match="overflows int32"):
        ref(
            "nn.bias_add",
            np.array([[2**31 - 1]], np.int32),
            np.array([1], np.int32),
            attrs=BiasAddAttrs(),
        )
    with pytest.raises(UndefinedBehavior, match="bool"):
        ref("nn.bias_add", np.ones((1, 1), bool), np.ones(1, bool), attrs=BiasAddAttrs())


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int32", "uint16"])
@pytest.mark.parametrize(("shape", "axis"), [((2, 3, 4), 1), ((2, 3, 4), -1), ((5,), 0)])
def test_bias_add_against_an_element_loop(shape: tuple[int, ...], axis: int, dtype: str) -> None:
    rng = np.random.default_rng(RNG_SEED)
    if dtype.startswith("float"):
        data = rng.standard_normal(shape).astype(dtype)
        bias = rng.standard_normal(shape[axis]).astype(dtype)
    else:
        info = np.iinfo(dtype)
        # narrow dtypes wrap; int32 stays in range (its overflow is undefined)
        low, high = (-1000, 1000) if dtype == "int32" else (int(info.min), int(info.max))
        data = rng.integers(low, high, shape, endpoint=True).astype(dtype)
        bias = rng.integers(low, high, shape[axis], endpoint=True).astype(dtype)
    got = ref("nn.bias_add", data, bias, attrs=BiasAddAttrs(axis=axis))
    expected = _bias_add_loop(data, bias, axis % len(shape))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@settings(max_examples=40)
@given(SEEDS, st.sampled_from(ALL), shapes, st.integers(0, 3), st.booleans(), st.data())
def test_dense_reference_agrees_with_relation(
    seed: int, dtype: str, shape: tuple[int, ...], units: int, give_units: bool, data: st.DataObject
) -> None:
    rng = np.random.default_rng(seed)
    out_dtype = data.draw(st.sampled_from(["", dtype, "int64" if dtype in INTS else "float32"]))
    x = random(rng, shape, dtype)
    weight_dtype = data.draw(st.sampled_from([dtype, "float32"])) if dtype in FLOATS else dtype
    wt = random(rng, (units, shape[-1]), weight_dtype)
    attrs = DenseAttrs(units=units if give_units else None, out_dtype=out_dtype)
    assert_agrees("nn.dense", (x, wt), attrs, defined=(out_dtype or dtype) != "bool")


@settings(max_examples=40)
@given(SEEDS, st.sampled_from(ALL), shapes, st.data())
def test_bias_add_reference_agrees_with_relation(
    seed: int, dtype: str, shape: tuple[int, ...], data: st.DataObject
) -> None:
    rng = np.random.default_rng(seed)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x, b = random(rng, shape, dtype), random(rng, (shape[axis],), dtype)
    assert_agrees("nn.bias_add", (x, b), BiasAddAttrs(axis=axis), defined=dtype != "bool")


@pytest.mark.parametrize("name", of_family(sorted(GROUP), "nn/dense"))
def test_records(name: str) -> None:
    op = OPS[name]
    relation_name, check, pattern = GROUP[name]
    assert op.relation_name == relation_name and op.check == check and op.pattern is pattern
    assert op.family.startswith("nn/") and op.relation is not None and op.reference is not None
    assert op.attrs_type is not None
    assert op.attrs_type.type_key == f"relay.attrs.{op.attrs_type.__name__}"


def test_matmul_relation() -> None:
    mm = "nn.matmul"
    assert rel(mm, T(n, 5), T(5, 3), attrs=MatmulAttrs(units=None)) == T(n, 3)
    assert rel(mm, T(n, 5), T(3, 5), attrs=MatmulAttrs(units=3, transpose_b=True)) == T(n, 3)
    ta = MatmulAttrs(units=None, transpose_a=True)
    assert rel(mm, T(2, 5, 7), T(5, 3), attrs=ta) == T(2, 7, 3)
    assert rel(mm, T(5), T(5, 3), attrs=MatmulAttrs(units=None)) == T(3)
    assert rel(mm, T(2, ANY), T(5, 3), attrs=MatmulAttrs(units=None)) == T(2, 3)
    i8 = MatmulAttrs(units=None, out_dtype="int32")
    assert rel(mm, T(2, 5, dtype="int8"), T(5, 3, dtype="int8"), attrs=i8) == T(2, 3, dtype="int32")


def test_batch_matmul_relation() -> None:
    bm = "nn.batch_matmul"
    assert rel(bm, T(4, 2, 5), T(4, 5, 3), attrs=BatchMatmulAttrs()) == T(4, 2, 3)
    nt = BatchMatmulAttrs(transpose_b=True)
    assert rel(bm, T(4, 2, 5), T(1, 3, 5), attrs=nt) == T(4, 2, 3)
    tn = BatchMatmulAttrs(transpose_a=True)
    assert rel(bm, T(1, 5, 2), T(n, 5, 3), attrs=tn) == T(n, 2, 3)
    assert rel(bm, T(ANY, 2, 5), T(4, 5, 3), attrs=BatchMatmulAttrs()) == T(ANY, 2, 3)
    assert rel(bm, T(0, 2, 5), T(1, 5, 3), attrs=BatchMatmulAttrs()) == T(0, 2, 3)


@pytest.mark.parametrize(
    ("transpose_a", "transpose_b"), list(itertools.product([False, True], repeat=2))
)
def test_matmul_matches_onnxruntime(transpose_a: bool, transpose_b: bool) -> None:
    rng = np.random.default_rng(RNG_SEED_2)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((4, 5)).astype(np.float32)
    a_in = np.ascontiguousarray(a.swapaxes(1, 2)) if transpose_a else a
    b_in = np.ascontiguousarray(b.T) if transpose_b else b
    attrs = MatmulAttrs(units=None, transpose_a=transpose_a, transpose_b=transpose_b)
    got = assert_agrees_tensor("nn.matmul", (a_in, b_in), attrs)
    np.testing.assert_allclose(got, onnx_run("MatMul", [a, b]), rtol=1e-5, atol=1e-6)
    units = MatmulAttrs(units=5, transpose_a=transpose_a, transpose_b=transpose_b)
    np.testing.assert_allclose(ref("nn.matmul", a_in, b_in, attrs=units), got)


def test_matmul_integers() -> None:
    a = np.array([[100, -100, 7]], np.int8)
    b = np.array([[100, -1], [100, 1], [1, 0]], np.int8)
    attrs = MatmulAttrs(units=None, out_dtype="int32")
    assert ref("nn.matmul", a, b, attrs=attrs).tolist() == [[7, -200]]
    assert ref("nn.matmul", a, b, attrs=MatmulAttrs(units=None)).tolist() == [[7, 56]]
    big = np.array([[2**62, 2**62]], np.int64)
    with pytest.raises(UndefinedBehavior, match="overflows int64"):
        ref("nn.matmul", big, np.ones((2, 1), np.int64), attrs=MatmulAttrs(units=None))


@pytest.mark.parametrize(
    ("transpose_a", "transpose_b"), list(itertools.product([False, True], repeat=2))
)
def test_batch_matmul_matches_onnxruntime(transpose_a: bool, transpose_b: bool) -> None:
    rng = np.random.default_rng(RNG_SEED_2)
    a = rng.standard_normal((3, 2, 4)).astype(np.float32)
    b = rng.standard_normal((1, 4, 5)).astype(np.float32)
    a_in = np.ascontiguousarray(a.swapaxes(1, 2)) if transpose_a else a
    b_in = np.ascontiguousarray(b.swapaxes(1, 2)) if transpose_b else b
    attrs = BatchMatmulAttrs(transpose_a=transpose_a, transpose_b=transpose_b)
    got = assert_agrees_tensor("nn.batch_matmul", (a_in, b_in), attrs)
    np.testing.assert_allclose(got, onnx_run("MatMul", [a, b]), rtol=1e-5, atol=1e-6)
    # the batch of 1 may be on either side
    flipped = assert_agrees_tensor(
        "nn.batch_matmul", (a[:1], np.repeat(b, 3, axis=0)), BatchMatmulAttrs()
    )
    np.testing.assert_allclose(
        flipped, onnx_run("MatMul", [a[:1], np.repeat(b, 3, axis=0)]), rtol=1e-5, atol=1e-6
    )


@settings(max_examples=40)
@given(SEEDS, st.sampled_from(ALL), st.booleans(), st.booleans(), st.data())
def test_products_and_prelu_agree_with_relation(
    seed: int, dtype: str, transpose_a: bool, transpose_b: bool, data: st.DataObject
) -> None:
    rng = np.random.default_rng(seed)
    m, k, nn_ = (data.draw(st.integers(0, 3)) for _ in range(3))
    out_dtype = data.draw(st.sampled_from(["", dtype, "int64" if dtype in INTS else "float32"]))
    defined = (out_dtype or dtype) != "bool"
    a = random(rng, (2, k, m) if transpose_a else (2, m, k), dtype)
    b = random(rng, (nn_, k) if transpose_b else (k, nn_), dtype)
    attrs = MatmulAttrs(
        units=None, out_dtype=out_dtype, transpose_a=transpose_a, transpose_b=transpose_b
    )
    assert_agrees_tensor("nn.matmul", (a, b), attrs, defined=defined)
    bb = random(rng, (1, nn_, k) if transpose_b else (1, k, nn_), dtype)
    battrs = BatchMatmulAttrs(out_dtype=out_dtype, transpose_a=transpose_a, transpose_b=transpose_b)
    assert_agrees_tensor("nn.batch_matmul", (a, bb), battrs, defined=defined)
    axis = data.draw(st.integers(0, 2))
    x = random(rng, (2, m, k), dtype)
    assert_agrees_tensor(
        "nn.prelu", (x, random(rng, (x.shape[axis],), dtype)), PReluAttrs(axis=axis)
    )
