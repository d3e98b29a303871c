"""The nnconv group (``ops.nn_conv``, ``ops.nn_pool``): relations, references, agreement.

Relation cases are written from TVM 0.18's relations (good ones with symbolic and ``?``
dimensions, bad ones with their messages); references are compared with onnxruntime on random
inputs (Conv, ConvTranspose, MatMul, PRelu, MaxPool, AveragePool, GlobalMaxPool), with
direct-loop formulations written here (transposed convolution as a scatter, adaptive pooling
cell by cell), and with values computed by hand; on Hypothesis-drawn inputs of every dtype,
the reference's dtype and shape are what the relation predicts.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relay
from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS, OpPattern, lookup
from relay.semantics.ops.nn.activation import PReluAttrs
from relay.semantics.ops.nn.conv import (
    Conv1DAttrs,
    Conv1DTransposeAttrs,
    Conv2DTransposeAttrs,
    Conv3DAttrs,
)
from relay.semantics.ops.nn.dense import BatchMatmulAttrs, MatmulAttrs
from relay.semantics.ops.nn.pool import (
    AdaptivePool2DAttrs,
    AvgPool1DAttrs,
    AvgPool3DAttrs,
    GlobalPool2DAttrs,
    MaxPool1DAttrs,
    MaxPool3DAttrs,
)
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.syntax import ANY, Dim, TensorType, Type, dim_symbol

Array = npt.NDArray[Any]

FLOATS = ("float16", "float32", "float64")
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
ALL = ("bool", *FLOATS, *INTS)

n = dim_symbol("n")
w = dim_symbol("w")

GROUP = {
    # op: (relation name, ONNX op or independent check, pattern)
    "nn.conv1d": ("Conv1D", "onnxruntime:Conv", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.conv3d": ("Conv3D", "onnxruntime:Conv", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.conv1d_transpose": (
        "Conv1DTranspose",
        "onnxruntime:ConvTranspose",
        OpPattern.OUT_ELEMWISE_FUSABLE,
    ),
    "nn.conv2d_transpose": (
        "Conv2DTranspose",
        "onnxruntime:ConvTranspose",
        OpPattern.OUT_ELEMWISE_FUSABLE,
    ),
    "nn.matmul": ("Matmul", "onnxruntime:MatMul", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.batch_matmul": ("BatchMatmul", "onnxruntime:MatMul", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.prelu": ("PRelu", "onnxruntime:PRelu", OpPattern.BROADCAST),
    "nn.max_pool1d": ("MaxPool1D", "onnxruntime:MaxPool", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.avg_pool1d": ("AvgPool1D", "onnxruntime:AveragePool", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.max_pool3d": ("MaxPool3D", "onnxruntime:MaxPool", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.avg_pool3d": ("AvgPool3D", "onnxruntime:AveragePool", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.adaptive_avg_pool2d": (
        "AdaptiveAvgPool2D",
        "independent:direct loops over the output cells",
        OpPattern.OUT_ELEMWISE_FUSABLE,
    ),
    "nn.adaptive_max_pool2d": (
        "AdaptiveMaxPool2D",
        "independent:direct loops over the output cells",
        OpPattern.OUT_ELEMWISE_FUSABLE,
    ),
    "nn.global_max_pool2d": (
        "GlobalMaxPool2D",
        "onnxruntime:GlobalMaxPool",
        OpPattern.OUT_ELEMWISE_FUSABLE,
    ),
}


def T(*shape: Dim, dtype: str = "float32") -> TensorType:
    return TensorType(tuple(shape), dtype)


def rel(name: str, *types: Type, attrs: Attrs | None = None) -> Type:
    op = lookup(name)
    assert op is not None and op.relation is not None
    return op.relation(types, attrs)


def ref(name: str, *args: Array, attrs: Attrs | None = None) -> Any:
    op = lookup(name)
    assert op is not None and op.reference is not None
    return op.reference(args, attrs)


def random(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> Array:
    """Floats from a normal distribution; integers small enough that no sum here overflows."""
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.startswith("uint"):
        return rng.integers(0, 3, shape).astype(dtype)
    if dtype.startswith("int"):
        return rng.integers(-2, 3, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def assert_agrees(
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


@pytest.mark.parametrize("name", sorted(GROUP))
def test_records(name: str) -> None:
    op = OPS[name]
    relation_name, check, pattern = GROUP[name]
    assert op.relation_name == relation_name and op.check == check and op.pattern is pattern
    assert op.family.startswith("nn/") and op.relation is not None and op.reference is not None
    assert op.attrs_type is not None
    assert op.attrs_type.type_key == f"relay.attrs.{op.attrs_type.__name__}"


def test_attribute_fields_follow_tvm() -> None:
    def names(cls: type[Attrs]) -> list[str]:
        return [s.name for s in cls.field_specs()]

    # Conv1DAttrs never declared out_layout with TVM_ATTR_FIELD.
    assert names(Conv1DAttrs) == [
        *("strides", "padding", "dilation", "groups", "channels", "kernel_size"),
        *("data_layout", "kernel_layout", "out_dtype"),
    ]
    assert names(Conv2DTransposeAttrs) == [
        *("channels", "kernel_size", "strides", "output_padding", "padding", "dilation"),
        *("groups", "data_layout", "kernel_layout", "out_layout", "out_dtype"),
    ]
    assert Conv2DTransposeAttrs().kernel_layout == "IOHW"
    assert Conv1DTransposeAttrs().kernel_layout == "IOW"
    assert Conv1DTransposeAttrs().padding == (0,)
    assert names(MatmulAttrs) == ["units", "out_dtype", "transpose_a", "transpose_b"]
    assert names(BatchMatmulAttrs) == ["out_dtype", "transpose_a", "transpose_b"]
    assert BatchMatmulAttrs().transpose_b is False
    assert names(MaxPool1DAttrs) == [
        *("pool_size", "strides", "dilation", "padding", "layout", "out_layout", "ceil_mode")
    ]
    assert names(AvgPool3DAttrs)[-1] == "count_include_pad"
    assert MaxPool3DAttrs(pool_size=(1, 1, 1)).layout == "NCDHW"
    assert AdaptivePool2DAttrs().output_size == ()
    assert PReluAttrs().axis == 1


# ---------------------------------------------------------------------------------------------
# Relations: hand-written cases


def test_conv1d_relation() -> None:
    c1 = "nn.conv1d"
    assert rel(c1, T(1, 3, 10), T(4, 3, 3), attrs=Conv1DAttrs()) == T(1, 4, 8)
    a = Conv1DAttrs(strides=(2,), padding=(1, 2), dilation=(2,))
    assert rel(c1, T(n, 3, 10), T(4, 3, 3), attrs=a) == T(n, 4, 5)  # (10 + 3 - 5) // 2 + 1
    assert rel(
        c1, T(2, w, 3), T(3, 3, 4), attrs=Conv1DAttrs(data_layout="NWC", kernel_layout="WIO")
    ) == T(2, w - 2, 4)
    assert rel(c1, T(1, 4, ANY), T(6, 2, 3), attrs=Conv1DAttrs(groups=2)) == T(1, 6, ANY)
    i8 = Conv1DAttrs(out_dtype="int32")
    assert rel(c1, T(1, 3, 4, dtype="int8"), T(2, 3, 1, dtype="int8"), attrs=i8) == T(
        1, 2, 4, dtype="int32"
    )


def test_conv3d_relation() -> None:
    c3 = "nn.conv3d"
    assert rel(c3, T(1, 2, 5, 6, 7), T(4, 2, 3, 3, 3), attrs=Conv3DAttrs()) == T(1, 4, 3, 4, 5)
    a = Conv3DAttrs(padding=(1, 0, 2), strides=(1, 2, 3), out_layout="NDHWC")
    assert rel(c3, T(1, 2, 5, 6, 7), T(4, 2, 3, 3, 3), attrs=a) == T(1, 5, 2, 3, 4)
    six = Conv3DAttrs(padding=(1, 0, 0, 0, 0, 2), groups=2)
    assert rel(c3, T(n, 4, 4, 4, 4), T(2, 2, 3, 3, 3), attrs=six) == T(n, 2, 3, 2, 4)


def test_conv_transpose_relations() -> None:
    t2 = "nn.conv2d_transpose"
    # out = stride * (x - 1) + (k - 1) * dilation + 1 - pad + output_padding
    a = Conv2DTransposeAttrs(strides=(2, 2), padding=(1, 1), output_padding=(1, 0))
    assert rel(t2, T(1, 4, 5, 6), T(4, 3, 3, 3), attrs=a) == T(1, 3, 10, 11)
    # grouped: groups * O output channels (topi group_conv2d_transpose)
    g = Conv2DTransposeAttrs(groups=2)
    assert rel(t2, T(1, 4, 5, 5), T(4, 3, 2, 2), attrs=g) == T(1, 6, 6, 6)
    both = Conv2DTransposeAttrs(groups=2, channels=6, kernel_size=(2, 2))
    assert rel(t2, T(1, 4, 5, 5), T(4, 3, 2, 2), attrs=both) == T(1, 6, 6, 6)
    nhwc = Conv2DTransposeAttrs(data_layout="NHWC", kernel_layout="HWOI", dilation=(2, 1))
    assert rel(t2, T(n, 3, w, 4), T(3, 2, 5, 4), attrs=nhwc) == T(n, 7, w + 1, 5)
    assert rel(t2, T(1, 4, ANY, 6), T(4, 3, 3, 3), attrs=Conv2DTransposeAttrs()) == T(1, 3, ANY, 8)
    t1 = "nn.conv1d_transpose"
    b = Conv1DTransposeAttrs(strides=(3,), padding=(2, 1), output_padding=(2,))
    assert rel(t1, T(2, 4, 5), T(4, 1, 4), attrs=b) == T(2, 1, 15)  # 12 + 4 - 3 + 2


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


def test_prelu_relation() -> None:
    assert rel("nn.prelu", T(n, 3, 4), T(3), attrs=PReluAttrs()) == T(n, 3, 4)
    assert rel("nn.prelu", T(2, 3, w), T(w), attrs=PReluAttrs(axis=2)) == T(2, 3, w)
    assert rel("nn.prelu", T(2, ANY), T(5), attrs=PReluAttrs()) == T(2, ANY)


def test_pool_relations() -> None:
    k3s2 = {"pool_size": (3,), "strides": (2,)}
    assert rel("nn.max_pool1d", T(1, 3, 8), attrs=MaxPool1DAttrs(**k3s2)) == T(1, 3, 3)
    ceil = MaxPool1DAttrs(ceil_mode=True, **k3s2)
    assert rel("nn.max_pool1d", T(1, 3, 8), attrs=ceil) == T(1, 3, 4)
    lr = AvgPool1DAttrs(pool_size=(2,), padding=(1, 0), layout="NWC")
    assert rel("nn.avg_pool1d", T(n, w, 3), attrs=lr) == T(n, w, 3)
    assert rel(
        "nn.avg_pool1d", T(4, 8, 2, 2), attrs=AvgPool1DAttrs(pool_size=(2,), layout="NCW2c")
    ) == T(4, 8, 1, 2)
    assert rel("nn.max_pool1d", T(ANY), attrs=MaxPool1DAttrs(pool_size=(2,), layout="W")) == T(ANY)
    a3 = MaxPool3DAttrs(pool_size=(2, 2, 3), strides=(2, 1, 1), padding=(1, 0, 0, 0, 1, 2))
    assert rel("nn.max_pool3d", T(1, 2, 5, 6, 7), attrs=a3) == T(1, 2, 3, 6, 7)
    d3 = AvgPool3DAttrs(pool_size=(2, 2, 2), dilation=(2, 1, 1), layout="DHW")
    assert rel("nn.avg_pool3d", T(5, 4, n, dtype="int8"), attrs=d3) == T(3, 3, n - 1, dtype="int8")


def test_adaptive_and_global_relations() -> None:
    for name in ("nn.adaptive_avg_pool2d", "nn.adaptive_max_pool2d"):
        assert rel(name, T(n, 3, 7, 9), attrs=AdaptivePool2DAttrs()) == T(n, 3, 7, 9)
        assert rel(name, T(n, 3, 7, 9), attrs=AdaptivePool2DAttrs(output_size=(2,))) == T(
            n, 3, 2, 2
        )
        nhwc = AdaptivePool2DAttrs(output_size=(1, 4), layout="NHWC")
        assert rel(name, T(2, ANY, w, 3), attrs=nhwc) == T(2, 1, 4, 3)
        assert rel(name, T(7, 9), attrs=AdaptivePool2DAttrs(output_size=(0, 3), layout="HW")) == T(
            0, 3
        )
    g = "nn.global_max_pool2d"
    assert rel(g, T(n, 3, 7, 7, dtype="int8"), attrs=GlobalPool2DAttrs()) == T(
        n, 3, 1, 1, dtype="int8"
    )


REJECTED: list[tuple[str, tuple[Type, ...], Attrs, str]] = [
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


@pytest.mark.parametrize(("name", "types", "attrs", "message"), REJECTED)
def test_relation_rejects(name: str, types: tuple[Type, ...], attrs: Attrs, message: str) -> None:
    with pytest.raises(RelationError, match=message):
        rel(name, *types, attrs=attrs)


# ---------------------------------------------------------------------------------------------
# References against onnxruntime and direct loops

RNG_SEED = 20240611


def conv_direct(
    x: Array,
    wt: Array,
    strides: tuple[int, ...],
    before: tuple[int, ...],
    dilation: tuple[int, ...],
    groups: int,
    out_shape: tuple[int, ...],
) -> Array:
    """N-d NC.../OI... correlation as loops over every output element (float64); ``x`` is
    padded here by ``before`` and read as 0 outside."""
    o, cg = wt.shape[:2]
    og = o // groups
    out = np.zeros(out_shape)
    kernel = wt.shape[2:]
    for index in itertools.product(*(range(e) for e in out_shape)):
        b, oc, pos = index[0], index[1], index[2:]
        g = oc // og
        total = 0.0
        for ci in range(cg):
            for k in itertools.product(*(range(e) for e in kernel)):
                src = tuple(
                    p * s - pb + kk * d
                    for p, s, pb, kk, d in zip(pos, strides, before, k, dilation, strict=True)
                )
                if all(0 <= v < e for v, e in zip(src, x.shape[2:], strict=True)):
                    total += float(x[(b, g * cg + ci, *src)]) * float(wt[(oc, ci, *k)])
        out[index] = total
    return out


CONV1D_CASES = [
    # data, weight, strides, padding, dilation, groups
    ((2, 3, 9), (4, 3, 3), (1,), (0, 0), (1,), 1),
    ((1, 4, 10), (6, 2, 3), (2,), (1, 2), (2,), 2),
    ((2, 3, 7), (3, 1, 2), (3,), (2, 0), (1,), 3),
]


@pytest.mark.parametrize(
    ("dshape", "wshape", "strides", "padding", "dilation", "groups"), CONV1D_CASES
)
def test_conv1d_matches_onnxruntime(
    dshape: tuple[int, ...],
    wshape: tuple[int, ...],
    strides: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
    groups: int,
) -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal(dshape).astype(np.float32)
    wt = rng.standard_normal(wshape).astype(np.float32)
    attrs = Conv1DAttrs(strides=strides, padding=padding, dilation=dilation, groups=groups)
    got = assert_agrees("nn.conv1d", (x, wt), attrs)
    expected = onnx_run(
        "Conv",
        [x, wt],
        strides=list(strides),
        pads=list(padding),
        dilations=list(dilation),
        group=groups,
    )
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    assert got is not None
    direct = conv_direct(x, wt, strides, padding[:1], dilation, groups, got.shape)
    np.testing.assert_allclose(got, direct, rtol=1e-5, atol=1e-5)
    # NWC data and a WIO kernel give the same numbers, transposed
    nwc = Conv1DAttrs(
        strides=strides,
        padding=padding,
        dilation=dilation,
        groups=groups,
        data_layout="NWC",
        kernel_layout="WIO",
    )
    moved = ref("nn.conv1d", x.transpose(0, 2, 1), wt.transpose(2, 1, 0), attrs=nwc)
    np.testing.assert_allclose(moved, got.transpose(0, 2, 1), rtol=1e-6)


def test_conv3d_matches_onnxruntime() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 4, 5, 6, 5)).astype(np.float32)
    wt = rng.standard_normal((4, 2, 2, 3, 2)).astype(np.float32)
    attrs = Conv3DAttrs(strides=(1, 2, 1), padding=(1, 0, 1, 0, 1, 2), dilation=(2, 1, 1), groups=2)
    got = assert_agrees("nn.conv3d", (x, wt), attrs)
    expected = onnx_run(
        "Conv", [x, wt], strides=[1, 2, 1], pads=[1, 0, 1, 0, 1, 2], dilations=[2, 1, 1], group=2
    )
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    ndhwc = Conv3DAttrs(
        strides=(1, 2, 1),
        padding=(1, 0, 1, 0, 1, 2),
        dilation=(2, 1, 1),
        groups=2,
        data_layout="NDHWC",
        kernel_layout="DHWIO",
        out_layout="NCDHW",
    )
    moved = ref("nn.conv3d", x.transpose(0, 2, 3, 4, 1), wt.transpose(2, 3, 4, 1, 0), attrs=ndhwc)
    np.testing.assert_allclose(moved, got, rtol=1e-6)


def transpose_direct(
    x: Array,
    wt: Array,
    strides: tuple[int, ...],
    before: tuple[int, ...],
    dilation: tuple[int, ...],
    groups: int,
    out_shape: tuple[int, ...],
) -> Array:
    """Transposed convolution as a scatter: every input element adds x * w into the output
    positions i * stride - pad_before + j * dilation (IO... weight)."""
    out = np.zeros(out_shape)
    cin, og = wt.shape[:2]
    cg = cin // groups
    for b, c in itertools.product(range(x.shape[0]), range(cin)):
        g = c // cg
        for i in itertools.product(*(range(e) for e in x.shape[2:])):
            for o in range(og):
                for j in itertools.product(*(range(e) for e in wt.shape[2:])):
                    y = tuple(
                        ii * s - pb + jj * d
                        for ii, s, pb, jj, d in zip(i, strides, before, j, dilation, strict=True)
                    )
                    if all(0 <= v < e for v, e in zip(y, out_shape[2:], strict=True)):
                        out[(b, g * og + o, *y)] += float(x[(b, c, *i)]) * float(wt[(c, o, *j)])
    return out


TRANSPOSE_CASES = [
    # data, weight (IO..), strides, padding, output_padding, dilation, groups
    ((2, 4, 5), (4, 3, 3), (2,), (1, 2), (1,), (1,), 1),
    ((1, 4, 4), (4, 2, 2), (3,), (0,), (2,), (2,), 2),
    ((2, 4, 3, 4), (4, 2, 3, 2), (2, 1), (1, 0, 0, 1), (1, 0), (1, 2), 1),
    ((1, 4, 4, 3), (4, 1, 2, 3), (2, 3), (0, 1), (0, 2), (2, 1), 2),
]


@pytest.mark.parametrize(
    ("dshape", "wshape", "strides", "padding", "opad", "dilation", "groups"), TRANSPOSE_CASES
)
def test_conv_transpose_matches_onnxruntime_and_a_scatter(
    dshape: tuple[int, ...],
    wshape: tuple[int, ...],
    strides: tuple[int, ...],
    padding: tuple[int, ...],
    opad: tuple[int, ...],
    dilation: tuple[int, ...],
    groups: int,
) -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal(dshape).astype(np.float32)
    wt = rng.standard_normal(wshape).astype(np.float32)
    nd = len(dshape) - 2
    cls = Conv1DTransposeAttrs if nd == 1 else Conv2DTransposeAttrs
    name = "nn.conv1d_transpose" if nd == 1 else "nn.conv2d_transpose"
    attrs = cls(
        strides=strides, padding=padding, output_padding=opad, dilation=dilation, groups=groups
    )
    got = assert_agrees(name, (x, wt), attrs)
    assert got is not None
    pads = list(padding) * (2 * nd // len(padding))
    expected = onnx_run(
        "ConvTranspose",
        [x, wt],
        strides=list(strides),
        pads=pads,
        output_padding=list(opad),
        dilations=list(dilation),
        group=groups,
    )
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    scatter = transpose_direct(x, wt, strides, tuple(pads[:nd]), dilation, groups, got.shape)
    np.testing.assert_allclose(got, scatter, rtol=1e-5, atol=1e-5)


def test_conv_transpose_hand_computed_and_integers() -> None:
    # stride 2 spreads [1, 2] to [1, 1, 2, 2] * w = [1, 1] with kernel 2 (no overlap)
    x = np.array([[[1, 2]]], np.int32)
    wt = np.array([[[1, 1]]], np.int32)
    got = ref("nn.conv1d_transpose", x, wt, attrs=Conv1DTransposeAttrs(strides=(2,)))
    assert got.tolist() == [[[1, 1, 2, 2]]] and got.dtype == np.int32
    # stride 1 overlaps: [1, 2] full-correlated with [1, 1] is [1, 3, 2]; padding 1 crops
    one = ref("nn.conv1d_transpose", x, wt, attrs=Conv1DTransposeAttrs())
    assert one.tolist() == [[[1, 3, 2]]]
    cropped = ref("nn.conv1d_transpose", x, wt, attrs=Conv1DTransposeAttrs(padding=(1, 0)))
    assert cropped.tolist() == [[[3, 2]]]
    # output_padding adds a position nothing reaches: 0
    extra = ref(
        "nn.conv1d_transpose", x, wt, attrs=Conv1DTransposeAttrs(strides=(2,), output_padding=(1,))
    )
    assert extra.tolist() == [[[1, 1, 2, 2, 0]]]
    # int8 wraps; int32 overflow is undefined
    x8 = np.array([[[100, 100]]], np.int8)
    assert ref(
        "nn.conv1d_transpose", x8, np.array([[[1, 1]]], np.int8), attrs=Conv1DTransposeAttrs()
    ).tolist() == [[[100, -56, 100]]]
    big = np.array([[[2**30, 2**30]]], np.int32)
    with pytest.raises(UndefinedBehavior, match="overflows int32"):
        ref(
            "nn.conv1d_transpose", big, np.array([[[1, 1]]], np.int32), attrs=Conv1DTransposeAttrs()
        )
    # empty spatial input: every output is the empty sum
    empty = ref(
        "nn.conv1d_transpose",
        np.zeros((1, 1, 0), np.float32),
        np.ones((1, 1, 3), np.float32),
        attrs=Conv1DTransposeAttrs(),
    )
    assert empty.tolist() == [[[0, 0]]]


def test_conv_integers_and_undefined_cases() -> None:
    x = np.array([[[100, -100, 7]]], np.int8)
    wt = np.array([[[1, 1]]], np.int8)
    wide = ref("nn.conv1d", x, wt, attrs=Conv1DAttrs(out_dtype="int32"))
    assert wide.tolist() == [[[0, -93]]] and wide.dtype == np.int32
    x3 = np.full((1, 1, 1, 1, 2), 2**31 - 1, np.int32)
    with pytest.raises(UndefinedBehavior, match="overflows int32"):
        ref("nn.conv3d", x3, np.ones((1, 1, 1, 1, 2), np.int32), attrs=Conv3DAttrs())
    with pytest.raises(UndefinedBehavior, match="bool output dtype"):
        ref("nn.conv1d", np.ones((1, 1, 2), bool), np.ones((1, 1, 1), bool), attrs=Conv1DAttrs())
    with pytest.raises(UndefinedBehavior, match="NaN or an out-of-range"):
        ref(
            "nn.conv1d",
            np.array([[[np.nan]]], np.float32),
            np.ones((1, 1, 1), np.float32),
            attrs=Conv1DAttrs(out_dtype="int32"),
        )


@pytest.mark.parametrize(
    ("transpose_a", "transpose_b"), list(itertools.product([False, True], repeat=2))
)
def test_matmul_matches_onnxruntime(transpose_a: bool, transpose_b: bool) -> None:
    rng = np.random.default_rng(RNG_SEED)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((4, 5)).astype(np.float32)
    a_in = np.ascontiguousarray(a.swapaxes(1, 2)) if transpose_a else a
    b_in = np.ascontiguousarray(b.T) if transpose_b else b
    attrs = MatmulAttrs(units=None, transpose_a=transpose_a, transpose_b=transpose_b)
    got = assert_agrees("nn.matmul", (a_in, b_in), attrs)
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
    rng = np.random.default_rng(RNG_SEED)
    a = rng.standard_normal((3, 2, 4)).astype(np.float32)
    b = rng.standard_normal((1, 4, 5)).astype(np.float32)
    a_in = np.ascontiguousarray(a.swapaxes(1, 2)) if transpose_a else a
    b_in = np.ascontiguousarray(b.swapaxes(1, 2)) if transpose_b else b
    attrs = BatchMatmulAttrs(transpose_a=transpose_a, transpose_b=transpose_b)
    got = assert_agrees("nn.batch_matmul", (a_in, b_in), attrs)
    np.testing.assert_allclose(got, onnx_run("MatMul", [a, b]), rtol=1e-5, atol=1e-6)
    # the batch of 1 may be on either side
    flipped = assert_agrees("nn.batch_matmul", (a[:1], np.repeat(b, 3, axis=0)), BatchMatmulAttrs())
    np.testing.assert_allclose(
        flipped, onnx_run("MatMul", [a[:1], np.repeat(b, 3, axis=0)]), rtol=1e-5, atol=1e-6
    )


def test_prelu_matches_onnxruntime() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    for axis in range(4):
        alpha = rng.standard_normal(x.shape[axis]).astype(np.float32)
        slope = alpha.reshape((-1,) + (1,) * (3 - axis))
        got = assert_agrees("nn.prelu", (x, alpha), PReluAttrs(axis=axis))
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


POOL1D_CASES = [
    # kernel, strides, padding, dilation, ceil_mode
    ((3,), (2,), (1,), (1,), False),
    ((3,), (2,), (1, 0), (1,), True),
    ((2,), (3,), (0, 1), (2,), False),
    ((1,), (1,), (0,), (1,), False),
]


@pytest.mark.parametrize(("kernel", "strides", "padding", "dilation", "ceil"), POOL1D_CASES)
def test_pool1d_matches_onnxruntime(
    kernel: tuple[int, ...],
    strides: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
    ceil: bool,
) -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 3, 9)).astype(np.float32)
    common = {"pool_size": kernel, "strides": strides, "padding": padding, "dilation": dilation}
    onnx = {
        "kernel_shape": list(kernel),
        "strides": list(strides),
        "pads": list(padding) * (2 // len(padding)),
        "dilations": list(dilation),
        "ceil_mode": int(ceil),
    }
    got = assert_agrees("nn.max_pool1d", (x,), MaxPool1DAttrs(ceil_mode=ceil, **common))
    np.testing.assert_array_equal(got, onnx_run("MaxPool", [x], **onnx))
    for include in (False, True):
        attrs = AvgPool1DAttrs(ceil_mode=ceil, count_include_pad=include, **common)
        got = assert_agrees("nn.avg_pool1d", (x,), attrs)
        expected = onnx_run("AveragePool", [x], opset=19, count_include_pad=int(include), **onnx)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


POOL3D_CASES = [
    ((2, 2, 2), (2, 2, 2), (0,), (1, 1, 1), False),
    ((2, 3, 2), (1, 2, 2), (1, 0, 1), (1, 1, 2), True),
    ((3, 2, 2), (2, 1, 3), (1, 0, 0, 0, 1, 1), (1, 2, 1), False),
]


@pytest.mark.parametrize(("kernel", "strides", "padding", "dilation", "ceil"), POOL3D_CASES)
def test_pool3d_matches_onnxruntime(
    kernel: tuple[int, ...],
    strides: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
    ceil: bool,
) -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((1, 2, 5, 6, 7)).astype(np.float32)
    common = {"pool_size": kernel, "strides": strides, "padding": padding, "dilation": dilation}
    onnx = {
        "kernel_shape": list(kernel),
        "strides": list(strides),
        "pads": list(padding) * (6 // len(padding)),
        "dilations": list(dilation),
        "ceil_mode": int(ceil),
    }
    got = assert_agrees("nn.max_pool3d", (x,), MaxPool3DAttrs(ceil_mode=ceil, **common))
    np.testing.assert_array_equal(got, onnx_run("MaxPool", [x], **onnx))
    for include in (False, True):
        attrs = AvgPool3DAttrs(ceil_mode=ceil, count_include_pad=include, **common)
        got = assert_agrees("nn.avg_pool3d", (x,), attrs)
        expected = onnx_run("AveragePool", [x], opset=19, count_include_pad=int(include), **onnx)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    # the NDHWC layout pools the same axes
    moved = ref(
        "nn.max_pool3d",
        x.transpose(0, 2, 3, 4, 1),
        attrs=MaxPool3DAttrs(layout="NDHWC", ceil_mode=ceil, **common),
    )
    np.testing.assert_array_equal(
        moved,
        ref("nn.max_pool3d", x, attrs=MaxPool3DAttrs(ceil_mode=ceil, **common)).transpose(
            0, 2, 3, 4, 1
        ),
    )


def test_pools_hand_computed_and_undefined() -> None:
    x = np.array([[[1, 2, 3, 4]]], np.int32)
    # windows at -1..0, 1..2, 3..4 of [0 | 1 2 3 4 | 0]
    avg = AvgPool1DAttrs(pool_size=(2,), strides=(2,), padding=(1,))
    assert ref("nn.avg_pool1d", x, attrs=avg).tolist() == [[[1, 2, 4]]]
    inc = AvgPool1DAttrs(pool_size=(2,), strides=(2,), padding=(1,), count_include_pad=True)
    assert ref("nn.avg_pool1d", x, attrs=inc).tolist() == [[[0, 2, 2]]]  # 1/2, 5/2, 4/2
    mx = MaxPool1DAttrs(pool_size=(2,), strides=(2,), padding=(1,))
    assert ref("nn.max_pool1d", -x, attrs=mx).tolist() == [[[-1, -2, -4]]]
    lowest = ref(
        "nn.max_pool1d",
        np.full((1, 1, 1), -np.inf, np.float32),
        attrs=MaxPool1DAttrs(pool_size=(1,)),
    )
    assert lowest.tolist() == [[[np.finfo(np.float32).min]]]
    with pytest.raises(UndefinedBehavior, match="NaN"):
        ref(
            "nn.max_pool3d",
            np.full((1, 1, 1), np.nan, np.float32),
            attrs=MaxPool3DAttrs(pool_size=(1, 1, 1), layout="DHW"),
        )
    with pytest.raises(UndefinedBehavior, match="bool"):
        ref("nn.avg_pool1d", np.ones((1, 1, 2), bool), attrs=AvgPool1DAttrs(pool_size=(1,)))
    zero = AvgPool1DAttrs(pool_size=(1,), strides=(2,), ceil_mode=True, count_include_pad=True)
    with pytest.raises(UndefinedBehavior, match="zero element count"):
        ref("nn.avg_pool1d", np.ones((1, 1, 2), np.int32), attrs=zero)
    assert np.isnan(ref("nn.avg_pool1d", np.ones((1, 1, 2), np.float32), attrs=zero)[0, 0, 1])


def adaptive_direct(x: Array, out_h: int, out_w: int, kind: str) -> Array:
    """Adaptive pooling of NCHW float data cell by cell: cell (i, j) covers rows
    floor(i*H/oh) .. ceil((i+1)*H/oh) - 1 and likewise columns (float64)."""
    nb, c, height, width = x.shape
    out = np.zeros((nb, c, out_h, out_w))
    for i, j in itertools.product(range(out_h), range(out_w)):
        r0, r1 = (i * height) // out_h, -((-(i + 1) * height) // out_h)
        c0, c1 = (j * width) // out_w, -((-(j + 1) * width) // out_w)
        cell = x[:, :, r0:r1, c0:c1].astype(np.float64)
        out[:, :, i, j] = cell.mean(axis=(2, 3)) if kind == "avg" else cell.max(axis=(2, 3))
    return out


@settings(max_examples=30)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 7),
    st.integers(1, 7),
    st.lists(st.integers(1, 8), max_size=2),
    st.sampled_from(["NCHW", "NHWC"]),
)
def test_adaptive_pools_match_direct_loops(
    seed: int, height: int, width: int, size: list[int], layout: str
) -> None:
    x = np.random.default_rng(seed).standard_normal((2, 3, height, width)).astype(np.float32)
    out_h, out_w = (size[0], size[-1]) if size else (height, width)
    data = x.transpose(0, 2, 3, 1) if layout == "NHWC" else x
    attrs = AdaptivePool2DAttrs(output_size=tuple(size), layout=layout)
    for kind in ("avg", "max"):
        got = assert_agrees(f"nn.adaptive_{kind}_pool2d", (data,), attrs)
        assert got is not None
        if layout == "NHWC":
            got = got.transpose(0, 3, 1, 2)
        expected = adaptive_direct(x, out_h, out_w, kind)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_adaptive_pools_hand_computed() -> None:
    x = np.arange(12, dtype=np.int32).reshape(1, 1, 3, 4)
    # rows {0, 1} and {1, 2}; columns {0, 1}, {1, 2}, {2, 3}
    attrs = AdaptivePool2DAttrs(output_size=(2, 3))
    assert ref("nn.adaptive_avg_pool2d", x, attrs=attrs).tolist() == [[[[2, 3, 4], [6, 7, 8]]]]
    assert ref("nn.adaptive_max_pool2d", x, attrs=attrs).tolist() == [[[[5, 6, 7], [9, 10, 11]]]]
    neg = np.array([[[[-3, -4]]]], np.int32)  # -7 / 2 truncates to -3
    assert ref(
        "nn.adaptive_avg_pool2d", neg, attrs=AdaptivePool2DAttrs(output_size=(1,))
    ).tolist() == [[[[-3]]]]
    # upsampling: each cell holds one element
    up = ref(
        "nn.adaptive_max_pool2d", x[:, :, :1, :2], attrs=AdaptivePool2DAttrs(output_size=(2, 4))
    )
    assert up.tolist() == [[[[0, 0, 1, 1], [0, 0, 1, 1]]]]
    empty = np.zeros((1, 1, 0, 2), np.float32)
    assert np.isnan(ref("nn.adaptive_avg_pool2d", empty, attrs=attrs)).all()
    with pytest.raises(UndefinedBehavior, match="count is 0"):
        ref("nn.adaptive_avg_pool2d", empty.astype(np.int32), attrs=attrs)
    with pytest.raises(UndefinedBehavior, match="not representable in int8"):
        ref(
            "nn.adaptive_avg_pool2d",
            np.ones((1, 1, 12, 12), np.int8),
            attrs=AdaptivePool2DAttrs(output_size=(1,)),
        )
    with pytest.raises(UndefinedBehavior, match="NaN"):
        ref("nn.adaptive_max_pool2d", np.full((1, 1, 1, 1), np.nan), attrs=AdaptivePool2DAttrs())


def test_global_max_pool2d() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 3, 5, 4)).astype(np.float32)
    got = assert_agrees("nn.global_max_pool2d", (x,), GlobalPool2DAttrs())
    np.testing.assert_array_equal(got, onnx_run("GlobalMaxPool", [x]))
    nhwc = ref(
        "nn.global_max_pool2d", x.transpose(0, 2, 3, 1), attrs=GlobalPool2DAttrs(layout="NHWC")
    )
    np.testing.assert_array_equal(nhwc, got.transpose(0, 2, 3, 1) if got is not None else None)
    xb = np.array([[[[False, True]]]])
    assert ref("nn.global_max_pool2d", xb, attrs=GlobalPool2DAttrs()).tolist() == [[[[True]]]]
    with pytest.raises(UndefinedBehavior, match="NaN"):
        ref("nn.global_max_pool2d", np.full((1, 1, 2, 2), np.nan), attrs=GlobalPool2DAttrs())


# ---------------------------------------------------------------------------------------------
# Agreement of reference and relation on Hypothesis-drawn inputs of every dtype

SEEDS = st.integers(0, 2**32 - 1)


@settings(max_examples=40)
@given(SEEDS, st.sampled_from(ALL), st.sampled_from([1, 3]), st.data())
def test_convolutions_agree_with_relation(
    seed: int, dtype: str, nd: int, data: st.DataObject
) -> None:
    rng = np.random.default_rng(seed)
    groups = data.draw(st.sampled_from([1, 2]))
    c, o = groups * data.draw(st.integers(1, 2)), groups * data.draw(st.integers(1, 2))
    kernel = tuple(data.draw(st.integers(1, 2)) for _ in range(nd))
    spatial = tuple(data.draw(st.integers(k, k + 2)) for k in kernel)
    out_dtype = data.draw(st.sampled_from(["", dtype, "float64" if dtype in FLOATS else "int64"]))
    x = random(rng, (data.draw(st.integers(0, 2)), c, *spatial), dtype)
    wt = random(rng, (o, c // groups, *kernel), dtype)
    cls: Any = Conv1DAttrs if nd == 1 else Conv3DAttrs
    attrs = cls(groups=groups, padding=(data.draw(st.integers(0, 1)),), out_dtype=out_dtype)
    name = "nn.conv1d" if nd == 1 else "nn.conv3d"
    assert_agrees(name, (x, wt), attrs, defined=(out_dtype or dtype) != "bool")
    tcls: Any = Conv1DTransposeAttrs if nd == 1 else Conv2DTransposeAttrs
    tname = "nn.conv1d_transpose" if nd == 1 else "nn.conv2d_transpose"
    td = 1 if nd == 1 else 2
    xt = random(rng, (1, c, *spatial[:td], *((2,) * (td - len(spatial[:td])))), dtype)
    wtt = random(rng, (c, o // groups, *kernel[:td], *((1,) * (td - len(kernel[:td])))), dtype)
    stride = data.draw(st.integers(1, 2))
    tattrs = tcls(
        groups=groups,
        strides=(stride,) * td,
        output_padding=(stride - 1,) * td,
        out_dtype=out_dtype,
    )
    assert_agrees(tname, (xt, wtt), tattrs, defined=(out_dtype or dtype) != "bool")


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
    assert_agrees("nn.matmul", (a, b), attrs, defined=defined)
    bb = random(rng, (1, nn_, k) if transpose_b else (1, k, nn_), dtype)
    battrs = BatchMatmulAttrs(out_dtype=out_dtype, transpose_a=transpose_a, transpose_b=transpose_b)
    assert_agrees("nn.batch_matmul", (a, bb), battrs, defined=defined)
    axis = data.draw(st.integers(0, 2))
    x = random(rng, (2, m, k), dtype)
    assert_agrees("nn.prelu", (x, random(rng, (x.shape[axis],), dtype)), PReluAttrs(axis=axis))


@settings(max_examples=40)
@given(SEEDS, st.sampled_from(ALL), st.sampled_from([1, 3]), st.booleans(), st.data())
def test_pools_agree_with_relation(
    seed: int, dtype: str, nd: int, ceil: bool, data: st.DataObject
) -> None:
    rng = np.random.default_rng(seed)
    kernel = tuple(data.draw(st.integers(1, 2)) for _ in range(nd))
    spatial = tuple(data.draw(st.integers(k, k + 3)) for k in kernel)
    strides = tuple(data.draw(st.integers(1, 2)) for _ in range(nd))
    x = random(rng, (data.draw(st.integers(0, 2)), 2, *spatial), dtype)
    common = {
        "pool_size": kernel,
        "strides": strides,
        "padding": (data.draw(st.integers(0, 1)),),
        "ceil_mode": ceil,
    }
    max_cls: Any = MaxPool1DAttrs if nd == 1 else MaxPool3DAttrs
    avg_cls: Any = AvgPool1DAttrs if nd == 1 else AvgPool3DAttrs
    assert_agrees(f"nn.max_pool{nd}d", (x,), max_cls(**common))
    include = data.draw(st.booleans())
    avg = avg_cls(count_include_pad=include, **common)
    if dtype == "bool":
        assert_agrees(f"nn.avg_pool{nd}d", (x,), avg, defined=False)
    else:
        try:
            assert_agrees(f"nn.avg_pool{nd}d", (x,), avg)
        except UndefinedBehavior as e:  # only the ceil_mode + count_include_pad integer corner
            assert "zero element count" in str(e) and ceil and include
    size = tuple(data.draw(st.lists(st.integers(0, 4), max_size=2)))
    x2 = random(rng, (1, 2, data.draw(st.integers(1, 4)), data.draw(st.integers(1, 4))), dtype)
    assert_agrees("nn.adaptive_max_pool2d", (x2,), AdaptivePool2DAttrs(output_size=size))
    assert_agrees(
        "nn.adaptive_avg_pool2d",
        (x2,),
        AdaptivePool2DAttrs(output_size=size),
        defined=dtype != "bool",
    )
    assert_agrees("nn.global_max_pool2d", (x2,), GlobalPool2DAttrs())


# ---------------------------------------------------------------------------------------------
# Text format and the rank-5 generator entry

ROUND_TRIP = [
    (
        'nn.conv1d(%x, %w, strides=[2], padding=[1, 0], groups=2, data_layout="NWC", '
        'kernel_layout="WIO", out_dtype="float64")',
        "Tensor[(1, 8, 4), float32]",
        "Tensor[(3, 2, 4), float32]",
    ),
    (
        "nn.conv3d(%x, %w, padding=[1, 0, 1], channels=4, kernel_size=[1, 2, 2], "
        'out_layout="NDHWC")',
        "Tensor[(1, 2, 3, 4, 5), float32]",
        "Tensor[(4, 2, 1, 2, 2), float32]",
    ),
    (
        "nn.conv1d_transpose(%x, %w, channels=3, kernel_size=[3], strides=[2], "
        "output_padding=[1], padding=[1, 0])",
        "Tensor[(1, 2, 5), float32]",
        "Tensor[(2, 3, 3), float32]",
    ),
    (
        "nn.conv2d_transpose(%x, %w, strides=[2, 2], output_padding=[1, 0], dilation=[1, "
        '2], groups=2, kernel_layout="OIHW")',
        "Tensor[(1, 2, 3, 3), float32]",
        "Tensor[(2, 2, 2, 2), float32]",
    ),
    (
        'nn.matmul(%x, %w, units=4, out_dtype="float64", transpose_a=True, transpose_b=True)',
        "Tensor[(3, 2), float32]",
        "Tensor[(4, 3), float32]",
    ),
    (
        "nn.batch_matmul(%x, %w, transpose_b=True)",
        "Tensor[(2, 3, 4), float32]",
        "Tensor[(1, 5, 4), float32]",
    ),
    ("nn.prelu(%x, %w, axis=2)", "Tensor[(2, 3, 4), float32]", "Tensor[(4), float32]"),
    (
        'nn.max_pool1d(%x, pool_size=[2], strides=[2], padding=[1, 0], layout="NWC", '
        "ceil_mode=True)",
        "Tensor[(1, 5, 3), float32]",
        "",
    ),
    (
        "nn.avg_pool1d(%x, pool_size=[2], dilation=[2], count_include_pad=True)",
        "Tensor[(1, 3, 5), float32]",
        "",
    ),
    (
        'nn.max_pool3d(%x, pool_size=[1, 2, 2], padding=[0, 1, 1], out_layout="NDHWC")',
        "Tensor[(1, 2, 3, 4, 5), float32]",
        "",
    ),
    (
        'nn.avg_pool3d(%x, pool_size=[2, 1, 1], strides=[2, 1, 1], layout="DHW")',
        "Tensor[(4, 4, 4), float32]",
        "",
    ),
    (
        'nn.adaptive_avg_pool2d(%x, output_size=[2, 3], layout="NHWC")',
        "Tensor[(1, 5, 5, 2), float32]",
        "",
    ),
    ("nn.adaptive_max_pool2d(%x, output_size=[1])", "Tensor[(1, 2, 5, 5), float32]", ""),
    ('nn.global_max_pool2d(%x, layout="NHWC")', "Tensor[(1, 5, 5, 2), float32]", ""),
]


@pytest.mark.parametrize(("call", "xtype", "wtype"), ROUND_TRIP)
def test_text_round_trip_with_non_default_attributes(call: str, xtype: str, wtype: str) -> None:
    params = f"%x: {xtype}" + (f", %w: {wtype}" if wtype else "")
    mod = relay.parse(f"fn ({params}) {{ {call} }}")
    text = relay.astext(mod)
    assert call.split("(")[0] in text and relay.astext(relay.parse(text)) == text
    relay.infer_types(mod)
    name = call.split("(")[0]
    # every non-default attribute survived the round trip
    for piece in call.split(", ")[2 if wtype else 1 :]:
        assert piece.rstrip(")").split("=")[0] in text, (piece, text)
    assert name in OPS
