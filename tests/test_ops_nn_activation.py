"""The ``nn/activation`` operators (``semantics/ops/nn/activation.py``): relations, references."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_helpers import (
    _ONNX_TYPES,
    FLOATS,
    NAMES,
    UNARY_ANY,
    Array,
    T,
    _valid_call,
    m,
    n,
    of_family,
    relate,
    same,
    t,
    w,
)
from ops_nn_helpers import (
    ALL,
    GROUP,
    NO_UNITS,
    ONE_PAD,
    RESIZE,
    RNG_SEED,
    RNG_SEED_2,
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
from relay.semantics.ops import OPS, Attrs, lookup
from relay.semantics.ops.image import Resize2DAttrs
from relay.semantics.ops.nn.activation import (
    LeakyReluAttrs,
    PReluAttrs,
    SoftmaxAttrs,
    fast_exp_float32,
)
from relay.semantics.ops.nn.conv import (
    Conv1DAttrs,
    Conv1DTransposeAttrs,
    Conv2DTransposeAttrs,
    Conv3DAttrs,
)
from relay.semantics.ops.nn.dense import BatchMatmulAttrs, BiasAddAttrs, DenseAttrs, MatmulAttrs
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
from relay.semantics.ops.nn.pool import (
    AdaptivePool2DAttrs,
    AvgPool1DAttrs,
    AvgPool3DAttrs,
    GlobalPool2DAttrs,
    MaxPool1DAttrs,
    MaxPool3DAttrs,
)
from relay.semantics.ops.nn.shape import (
    BatchToSpaceNDAttrs,
    MirrorPadAttrs,
    PadAttrs,
    SpaceToBatchNDAttrs,
    SubPixelAttrs,
    UpSamplingAttrs,
)
from relay.semantics.ops.registry import RelationError
from relay.semantics.syntax import ANY, DTYPES, TensorType, TupleType, Type


def run(name: str, *args: npt.ArrayLike, attrs: Attrs | None = None) -> Array:
    reference = OPS[name].reference
    assert reference is not None
    out = reference(tuple(np.asarray(a) for a in args), attrs)
    assert isinstance(out, np.ndarray)
    return out


def raises(error: type[Exception], text: str) -> pytest.RaisesExc[Exception]:
    """``pytest.raises`` matching ``text`` literally."""
    return pytest.raises(error, match=re.escape(text))


onnx = pytest.importorskip("onnx")


def run_onnx_node_typed(
    op_type: str, inputs: list[Array], out_dtype: str, **attributes: Any
) -> Array:
    """Run one ONNX node on ``inputs`` with onnxruntime."""
    helper = onnx.helper
    names = [f"x{i}" for i in range(len(inputs))]
    node = helper.make_node(op_type, names, ["y"], **attributes)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info(name, _ONNX_TYPES[a.dtype.name], a.shape)
            for name, a in zip(names, inputs, strict=True)
        ],
        [helper.make_tensor_value_info("y", _ONNX_TYPES[out_dtype], None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (out,) = session.run(None, dict(zip(names, inputs, strict=True)))
    return np.asarray(out)


RNG = np.random.default_rng(20240518)


def _random(shape: tuple[int, ...], dtype: str, low: float = -4, high: float = 4) -> Array:
    if dtype == "bool":
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype.startswith(("int", "uint")):
        return RNG.integers(int(low), int(high), shape, endpoint=True).astype(dtype)
    return RNG.uniform(low, high, shape).astype(dtype)


_ONNX_UNARY: list[tuple[str, str, tuple[float, float], float]] = [
    # name, ONNX op, input range, relative tolerance (0: exact)
    ("nn.relu", "Relu", (-9, 9), 0),
]


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
    for expected, value in pairs:
        assert isinstance(expected, TensorType) and isinstance(value, np.ndarray)
        assert value.shape == expected.shape, (name, attrs, value.shape, expected.shape)
        assert str(value.dtype) == expected.dtype, (name, attrs, value.dtype, expected.dtype)


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


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", of_family(UNARY_ANY, "nn/activation"))
def test_identity_keeps_type(name: str, dtype: str) -> None:
    for shape in [(), (2, 3), (ANY, n, 2 * m + 1)]:
        assert relate(name, t(shape, dtype)) == t(shape, dtype)


def test_relu() -> None:
    x = np.array([np.nan, -0.0, -2.0, 3.0, np.inf], "float32")
    same(run("nn.relu", x), np.array([0.0, 0.0, 0.0, 3.0, np.inf], "float32"))
    same(run("nn.relu", np.array([-5, 5], "int8")), np.array([0, 5], "int8"))
    same(run("nn.relu", np.array([3], "uint32")), np.array([3], "uint32"))


def test_leaky_relu() -> None:
    x = np.array([-2.0, 3.0, np.nan, -0.0], "float32")
    same(
        run("nn.leaky_relu", x, attrs=LeakyReluAttrs(0.1)),
        np.array([np.float32(-2.0) * np.float32(0.1), 3.0, np.nan, -0.0], "float32"),
    )
    # Integer data: alpha truncates toward zero, here to 2 and to 0.
    same(
        run("nn.leaky_relu", np.array([-3, 4], "int32"), attrs=LeakyReluAttrs(2.9)),
        np.array([-6, 4], "int32"),
    )
    same(
        run("nn.leaky_relu", np.array([-3, 4], "int8"), attrs=LeakyReluAttrs(0.25)),
        np.array([0, 4], "int8"),
    )
    # Only the selected product can overflow.
    big = np.array([2**30], "int32")
    same(run("nn.leaky_relu", big, attrs=LeakyReluAttrs(4.0)), big)
    with raises(UndefinedBehavior, "nn.leaky_relu overflows int32"):
        run("nn.leaky_relu", -big, attrs=LeakyReluAttrs(4.0))
    same(
        run("nn.leaky_relu", np.array([-100], "int8"), attrs=LeakyReluAttrs(3.0)),
        np.array([-44], "int8"),
    )
    with raises(UndefinedBehavior, "alpha -0.5 cannot be represented in uint8"):
        run("nn.leaky_relu", np.array([1], "uint8"), attrs=LeakyReluAttrs(-0.5))


@pytest.mark.parametrize(
    ("name", "op_type", "bounds", "rtol"), of_family(_ONNX_UNARY, "nn/activation")
)
def test_unary_against_onnxruntime(
    name: str, op_type: str, bounds: tuple[float, float], rtol: float
) -> None:
    for dtype in ("float32", "float64"):
        x = _random((4, 5), dtype, *bounds)
        expected = run_onnx_node_typed(op_type, [x], dtype)
        actual = run(name, x)
        assert actual.dtype == expected.dtype and actual.shape == expected.shape
        if rtol:
            np.testing.assert_allclose(actual, expected, rtol=rtol, atol=1e-7)
        else:
            np.testing.assert_array_equal(actual, expected)
    if name in ("negative", "abs", "nn.relu"):
        x = _random((7,), "int32", -9, 9)
        np.testing.assert_array_equal(run(name, x), run_onnx_node_typed(op_type, [x], "int32"))


def test_leaky_relu_against_onnxruntime() -> None:
    x = _random((4, 6), "float32", -9, 9)
    expected = run_onnx_node_typed("LeakyRelu", [x], "float32", alpha=0.3)
    same(run("nn.leaky_relu", x, attrs=LeakyReluAttrs(0.3)), expected)


@pytest.mark.parametrize("name", of_family(NAMES, "nn/activation"))
@settings(max_examples=30)  # per op: 38 ops share the file's time budget
@given(data=st.data())
def test_reference_agrees_with_relation(name: str, data: st.DataObject) -> None:
    op = OPS[name]
    assert op.relation is not None and op.reference is not None
    args, attrs = data.draw(_valid_call(name))
    types = tuple(TensorType(a.shape, a.dtype.name) for a in args)
    predicted = op.relation(types, attrs)
    assert isinstance(predicted, TensorType)
    out = op.reference(args, attrs)
    assert isinstance(out, np.ndarray)
    assert (out.shape, out.dtype.name) == (predicted.shape, predicted.dtype)


@pytest.mark.parametrize("name", ["nn.softmax", "nn.log_softmax"])
def test_softmax_relation(name: str) -> None:
    assert rel(name, T(n, 10), attrs=SoftmaxAttrs()) == T(n, 10)
    f16 = T(n, ANY, 3, dtype="float16")
    assert rel(name, f16, attrs=SoftmaxAttrs(axis=-3)) == f16
    assert rel(name, T(2, dtype="int32"), attrs=SoftmaxAttrs()) == T(2, dtype="int32")


@pytest.mark.parametrize(
    ("name", "types", "attrs", "message"),
    of_family(REJECTED, "nn/activation"),
)
def test_relation_rejects(
    name: str, types: tuple[Type, ...], attrs: Attrs | None, message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        rel(name, *types, attrs=attrs)


@pytest.mark.parametrize("axis", [-1, 0, 1, 2])
def test_softmax_matches_onnxruntime(axis: int) -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((3, 4, 5)).astype(np.float32) * 3
    got = ref("nn.softmax", x, attrs=SoftmaxAttrs(axis=axis))
    np.testing.assert_allclose(got, run_onnx_node("Softmax", [x], axis=axis), rtol=1e-5, atol=1e-7)
    got = ref("nn.log_softmax", x, attrs=SoftmaxAttrs(axis=axis))
    np.testing.assert_allclose(
        got, run_onnx_node("LogSoftmax", [x], axis=axis), rtol=1e-5, atol=1e-6
    )


def test_softmax_is_numerically_stable() -> None:
    x = np.array([[1000.0, 1001.0, 1002.0], [-1000.0, -1000.0, -1000.0]], np.float32)
    got = ref("nn.softmax", x, attrs=SoftmaxAttrs())
    e = np.exp(np.array([-2.0, -1.0, 0.0]))
    np.testing.assert_allclose(got[0], e / e.sum(), rtol=1e-6)
    np.testing.assert_allclose(got[1], [1 / 3] * 3, rtol=1e-6)
    log = ref("nn.log_softmax", x, attrs=SoftmaxAttrs())
    np.testing.assert_allclose(log[0], np.log(e / e.sum()), rtol=1e-6)
    assert np.isfinite(log).all()
    h16 = ref("nn.softmax", np.array([0.0, 20.0], np.float16), attrs=SoftmaxAttrs())
    assert h16.dtype == np.float16 and h16[1] == 1
    with pytest.raises(UndefinedBehavior, match="int32 data"):
        ref("nn.softmax", np.ones(3, np.int32), attrs=SoftmaxAttrs())
    with pytest.raises(UndefinedBehavior, match="bool data"):
        ref("nn.log_softmax", np.ones(3, bool), attrs=SoftmaxAttrs())


@settings(max_examples=40)
@given(
    SEEDS,
    st.sampled_from(("nn.softmax", "nn.log_softmax")),
    st.sampled_from(ALL),
    shapes,
    st.data(),
)
def test_softmax_reference_agrees_with_relation(
    seed: int, name: str, dtype: str, shape: tuple[int, ...], data: st.DataObject
) -> None:
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = random(np.random.default_rng(seed), shape, dtype)
    assert_agrees(name, (x,), SoftmaxAttrs(axis=axis), defined=dtype in FLOATS)


@pytest.mark.parametrize("name", of_family(sorted(GROUP), "nn/activation"))
def test_records(name: str) -> None:
    op = OPS[name]
    relation_name, check, pattern = GROUP[name]
    assert op.relation_name == relation_name and op.check == check and op.pattern is pattern
    assert op.family.startswith("nn/") and op.relation is not None and op.reference is not None
    assert op.attrs_type is not None
    assert op.attrs_type.type_key == f"relay.attrs.{op.attrs_type.__name__}"


def test_prelu_relation() -> None:
    assert rel("nn.prelu", T(n, 3, 4), T(3), attrs=PReluAttrs()) == T(n, 3, 4)
    assert rel("nn.prelu", T(2, 3, w), T(w), attrs=PReluAttrs(axis=2)) == T(2, 3, w)
    assert rel("nn.prelu", T(2, ANY), T(5), attrs=PReluAttrs()) == T(2, ANY)


def test_prelu_matches_onnxruntime() -> None:
    rng = np.random.default_rng(RNG_SEED_2)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    for axis in range(4):
        alpha = rng.standard_normal(x.shape[axis]).astype(np.float32)
        slope = alpha.reshape((-1,) + (1,) * (3 - axis))
        got = assert_agrees_tensor("nn.prelu", (x, alpha), PReluAttrs(axis=axis))
        np.testing.assert_array_equal(got, onnx_run("PRelu", [x, slope]))
    xi = np.array([[-3, 0, 5]], np.int8)
    assert ref("nn.prelu", xi, np.array([50], np.int8), attrs=PReluAttrs(axis=0)).tolist() == [
        [106, 0, 5]
    ]  # -150 wraps
    big = np.array([[-(2**30), 2**30]], np.int32)
    with pytest.raises(UndefinedBehavior, match="overflows int32"):
        ref("nn.prelu", big, np.array([4], np.int32), attrs=PReluAttrs(axis=0))
    # a positive element's product is not selected, so it cannot overflow
    assert ref(
        "nn.prelu", big[:, 1:], np.array([4], np.int32), attrs=PReluAttrs(axis=0)
    ).tolist() == [[2**30]]
    xb = np.array([[True, False]])
    assert ref("nn.prelu", xb, np.array([True]), attrs=PReluAttrs(axis=0)).tolist() == [
        [True, False]
    ]


def test_fast_exp_is_close_to_exp() -> None:
    x = np.linspace(-80, 80, 1001, dtype="float32")
    np.testing.assert_allclose(fast_exp_float32(x), np.exp(x), rtol=1e-5)
    edge = np.array([np.nan, np.inf, -np.inf, -100.0], "float32")
    out = fast_exp_float32(edge)
    assert np.isnan(out[0]) and out[1] == np.inf and out[2] == 0 and out[3] == 0


@pytest.mark.parametrize("seed", SEED_RANGE)
def test_fast_softmax_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for dtype, rtol in (("float32", 1e-5), ("float64", 1e-12), ("float16", 2e-3)):
        x = (normal(rng, 2, 3, 5) * 4).astype(dtype)
        for axis in (-1, 0, 1):
            ours = ref_checked("nn.fast_softmax", x, attrs=SoftmaxAttrs(axis=axis))
            theirs = onnx_run("Softmax", [x], axis=axis)
            np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=rtol)
