"""The nn family: type relations, reference semantics, and their agreement.

Three kinds of test: hand-written relation cases taken from TVM's documented behaviour
(symbolic and ``?`` dimensions, error messages); reference results checked against values
computed independently (by hand, by a different numpy formulation, or by onnxruntime on random
inputs); and, for every op on Hypothesis-drawn valid inputs, the reference's dtype and shape
equal what the relation predicts.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import numpy.typing as npt
import onnxruntime as ort
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from onnx import helper

from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import lookup
from relay.semantics.ops.nn.activation import SoftmaxAttrs
from relay.semantics.ops.nn.conv import Conv2DAttrs
from relay.semantics.ops.nn.dense import BiasAddAttrs, DenseAttrs
from relay.semantics.ops.nn.norm import BatchNormAttrs, DropoutAttrs
from relay.semantics.ops.nn.pool import AvgPool2DAttrs, GlobalPool2DAttrs, MaxPool2DAttrs
from relay.semantics.ops.nn.shape import PadAttrs
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.syntax import ANY, Dim, TensorType, TupleType, Type, dim_symbol

Array = npt.NDArray[Any]

NN_OPS = (
    "nn.softmax",
    "nn.log_softmax",
    "nn.dense",
    "nn.bias_add",
    "nn.batch_flatten",
    "nn.conv2d",
    "nn.max_pool2d",
    "nn.avg_pool2d",
    "nn.global_avg_pool2d",
    "nn.batch_norm",
    "nn.dropout",
    "nn.pad",
)
FLOATS = ("float16", "float32", "float64")
INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
NUMERIC = FLOATS + INTS
ALL = ("bool", *NUMERIC)

n = dim_symbol("n")
h = dim_symbol("h")
w = dim_symbol("w")


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


def onnx_run(op_type: str, inputs: list[Array], opset: int = 17, **attrs: Any) -> Array:
    """Run one ONNX node on ``inputs`` with onnxruntime and return its first output."""
    names = [f"x{i}" for i in range(len(inputs))]
    node = helper.make_node(op_type, names, ["y"], **attrs)
    elem = helper.np_dtype_to_tensor_dtype(inputs[0].dtype)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
            for name, a in zip(names, inputs, strict=True)
        ],
        [helper.make_tensor_value_info("y", elem, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    out: Array = session.run(None, dict(zip(names, inputs, strict=True)))[0]
    return out


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


def test_every_op_has_relation_reference_and_name() -> None:
    expected_names = {
        "nn.softmax": "Softmax",
        "nn.log_softmax": "Softmax",
        "nn.dense": "Dense",
        "nn.bias_add": "BiasAdd",
        "nn.batch_flatten": "BatchFlatten",
        "nn.conv2d": "Conv2D",
        "nn.max_pool2d": "MaxPool2D",
        "nn.avg_pool2d": "AvgPool2D",
        "nn.global_avg_pool2d": "GlobalAvgPool2D",
        "nn.batch_norm": "BatchNorm",
        "nn.dropout": "Dropout",
        "nn.pad": "Pad",
    }
    for name in NN_OPS:
        op = lookup(name)
        assert op is not None and op.relation is not None and op.reference is not None
        assert op.relation_name == expected_names[name]


# ---------------------------------------------------------------------------------------------
# Relations: hand-written cases


def conv(data: TensorType, weight: TensorType, **attrs: Any) -> Type:
    return rel("nn.conv2d", data, weight, attrs=Conv2DAttrs(**attrs))


@pytest.mark.parametrize(
    ("padding", "expected"),
    [
        ((1,), (1, 4, 8, 8)),
        ((1, 2), (1, 4, 8, 10)),
        ((1, 0, 2, 1), (1, 4, 9, 7)),
        ((0, 0), (1, 4, 6, 6)),
    ],
)
def test_conv2d_padding_forms(padding: tuple[int, ...], expected: tuple[int, ...]) -> None:
    assert conv(T(1, 3, 8, 8), T(4, 3, 3, 3), padding=padding) == T(*expected)


def test_conv2d_stride_dilation() -> None:
    assert conv(T(1, 3, 7, 7), T(4, 3, 3, 3), strides=(2, 2)) == T(1, 4, 3, 3)
    assert conv(T(1, 3, 8, 9), T(4, 3, 3, 3), strides=(2, 3)) == T(1, 4, 3, 3)
    # dilation 2 makes the 3x3 window span 5
    assert conv(T(1, 3, 8, 8), T(4, 3, 3, 3), dilation=(2, 2)) == T(1, 4, 4, 4)
    assert conv(T(1, 3, 8, 8), T(4, 3, 3, 3), dilation=(2, 1), padding=(1,)) == T(1, 4, 6, 8)
    # a window one longer than the padded input gives an empty output, as indexdiv does
    assert conv(T(1, 3, 2, 3), T(4, 3, 3, 3)) == T(1, 4, 0, 1)


def test_conv2d_groups_and_channels() -> None:
    assert conv(T(1, 4, 5, 5), T(6, 2, 3, 3), groups=2) == T(1, 6, 3, 3)
    assert conv(T(1, 4, 5, 5), T(4, 1, 3, 3), groups=4) == T(1, 4, 3, 3)  # depthwise
    # depthwise with channels and kernel_size: the weight is (C, channels / C, kh, kw) ...
    both = {"channels": 8, "kernel_size": (3, 3)}
    assert conv(T(1, 4, 5, 5), T(4, 2, 3, 3), groups=4, **both) == T(1, 8, 3, 3)
    # ... or the usual grouped shape when the weight's O differs from groups
    assert conv(T(1, 4, 5, 5), T(8, 1, 3, 3), groups=4, **both) == T(1, 8, 3, 3)
    assert conv(T(1, 3, 8, 8), T(4, 3, 3, 3), channels=4, kernel_size=(3, 3)) == T(1, 4, 6, 6)
    assert conv(T(1, 3, 8, 8), T(4, 3, 3, 3), channels=4) == T(1, 4, 6, 6)
    assert conv(T(1, 3, 8, 8), T(4, 3, 3, 3), kernel_size=(3, 3)) == T(1, 4, 6, 6)


def test_conv2d_layouts() -> None:
    nhwc = {"data_layout": "NHWC", "kernel_layout": "HWIO"}
    assert conv(T(1, 8, 8, 3), T(3, 3, 3, 4), padding=(1,), **nhwc) == T(1, 8, 8, 4)
    assert conv(T(1, 8, 8, 3), T(3, 3, 3, 4), out_layout="NCHW", **nhwc) == T(1, 4, 6, 6)
    # depthwise NHWC with the HWOI kernel layout TVM's ConvertLayout picks for it
    hwoi = {"data_layout": "NHWC", "kernel_layout": "HWOI"}
    assert conv(T(1, 6, 6, 4), T(3, 3, 4, 1), groups=4, **hwoi) == T(1, 4, 4, 4)


def test_conv2d_symbolic_and_unknown_dims() -> None:
    assert conv(T(n, 3, 8, 8), T(4, 3, 3, 3), padding=(1,)) == T(n, 4, 8, 8)
    assert conv(T(ANY, 3, 8, 8), T(4, 3, 3, 3)) == T(ANY, 4, 6, 6)
    assert conv(T(1, 3, h, w), T(4, 3, 3, 3)) == T(1, 4, h - 2, w - 2)
    assert conv(T(1, 3, 2 * h, 8), T(4, 3, 3, 3), strides=(2, 1), padding=(1,)) == T(1, 4, h, 8)
    assert conv(T(1, 3, ANY, 8), T(4, 3, 3, 3)) == T(1, 4, ANY, 6)
    assert conv(T(1, ANY, 8, 8), T(4, 3, 3, 3)) == T(1, 4, 6, 6)  # channel check skipped
    nhwc = {"data_layout": "NHWC", "kernel_layout": "HWIO"}
    assert conv(T(n, h, 8, 3), T(3, 3, 3, 4), **nhwc) == T(n, h - 2, 6, 4)


def test_conv2d_dtypes() -> None:
    i8 = T(1, 3, 8, 8, dtype="int8"), T(4, 3, 3, 3, dtype="int8")
    assert conv(*i8, out_dtype="int32") == T(1, 4, 6, 6, dtype="int32")
    assert conv(*i8) == T(1, 4, 6, 6, dtype="int8")
    # TVM's relation does not compare the weight's dtype with the data's
    assert conv(T(1, 3, 8, 8), T(4, 3, 3, 3, dtype="float16")) == T(1, 4, 6, 6)


def dense(data: TensorType, weight: TensorType, units: int | None = None, out: str = "") -> Type:
    return rel("nn.dense", data, weight, attrs=DenseAttrs(units=units, out_dtype=out))


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


def pool(name: str, data: TensorType, **attrs: Any) -> Type:
    cls = MaxPool2DAttrs if name == "nn.max_pool2d" else AvgPool2DAttrs
    return rel(name, data, attrs=cls(**attrs))


@pytest.mark.parametrize("name", ["nn.max_pool2d", "nn.avg_pool2d"])
def test_pool2d_relation(name: str) -> None:
    k3s2 = {"pool_size": (3, 3), "strides": (2, 2)}
    assert pool(name, T(1, 3, 8, 8), **k3s2) == T(1, 3, 3, 3)
    assert pool(name, T(1, 3, 8, 8), ceil_mode=True, **k3s2) == T(1, 3, 4, 4)
    assert pool(name, T(1, 3, 7, 7), ceil_mode=True, **k3s2) == T(1, 3, 3, 3)
    k2 = {"pool_size": (2, 2)}
    assert pool(name, T(1, 3, 8, 8), padding=(1,), **k2) == T(1, 3, 9, 9)
    assert pool(name, T(1, 3, 8, 8), padding=(1, 0), **k2) == T(1, 3, 9, 7)
    assert pool(name, T(1, 3, 8, 8), padding=(1, 0, 0, 2), **k2) == T(1, 3, 8, 9)
    assert pool(name, T(1, 3, 8, 8), pool_size=(3, 3), dilation=(2, 2)) == T(1, 3, 4, 4)
    k2s2 = {"pool_size": (2, 2), "strides": (2, 2)}
    assert pool(name, T(1, 8, 8, 3), layout="NHWC", **k2s2) == T(1, 4, 4, 3)
    assert pool(name, T(1, 2, 8, 8, 4), layout="NCHW4c", **k2s2) == T(1, 2, 4, 4, 4)
    assert pool(name, T(8, 8), layout="HW", **k2) == T(7, 7)
    assert pool(name, T(n, 3, h, 8), **k2s2) == T(n, 3, (h - 2) // 2 + 1, 4)
    assert pool(name, T(n, 3, 2 * h, 8), **k2s2) == T(n, 3, h, 4)
    assert pool(name, T(ANY, 3, ANY, 8), **k2) == T(ANY, 3, ANY, 7)
    assert pool(name, T(1, 3, 8, 8, dtype="int8"), **k2) == T(1, 3, 7, 7, dtype="int8")
    # out_layout does not enter the relation
    assert pool(name, T(1, 3, 8, 8), out_layout="NHWC", **k2) == T(1, 3, 7, 7)


def test_global_avg_pool2d_relation() -> None:
    gap = "nn.global_avg_pool2d"
    assert rel(gap, T(n, 3, 7, 7), attrs=GlobalPool2DAttrs()) == T(n, 3, 1, 1)
    assert rel(gap, T(n, ANY, ANY, 3), attrs=GlobalPool2DAttrs(layout="NHWC")) == T(n, 1, 1, 3)
    i32 = T(2, 3, 7, 7, dtype="int32")
    assert rel(gap, i32, attrs=GlobalPool2DAttrs()) == T(2, 3, 1, 1, dtype="int32")


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


def test_pad_relation() -> None:
    def pad(data: TensorType, widths: tuple[tuple[int, ...], ...], mode: str = "constant") -> Type:
        return rel("nn.pad", data, T(), attrs=PadAttrs(pad_width=widths, pad_mode=mode))

    assert pad(T(2, 3), ((1, 1), (0, 2))) == T(4, 5)
    assert pad(T(n, 3), ((1, 1), (0, 2)), "edge") == T(n + 2, 5)
    assert pad(T(ANY, 3), ((1, 1), (-1, 0)), "reflect") == T(ANY, 2)
    assert pad(T(2, 3, dtype="int8"), ((0, 0), (-3, 0))) == T(2, 0, dtype="int8")
    assert pad(T(), ()) == T()
    # pad_val is not constrained by TVM's relation
    one = PadAttrs(pad_width=((1, 0),))
    assert rel("nn.pad", T(2), T(1, dtype="int32"), attrs=one) == T(3)


def test_bias_add_relation() -> None:
    ba = "nn.bias_add"
    assert rel(ba, T(2, 3, 4), T(3), attrs=BiasAddAttrs()) == T(2, 3, 4)
    assert rel(ba, T(n, 3, 4), T(4), attrs=BiasAddAttrs(axis=-1)) == T(n, 3, 4)
    assert rel(ba, T(n, h), T(h), attrs=BiasAddAttrs(axis=1)) == T(n, h)
    assert rel(ba, T(n, ANY), T(5), attrs=BiasAddAttrs(axis=1)) == T(n, ANY)


def test_batch_flatten_relation() -> None:
    bf = "nn.batch_flatten"
    assert rel(bf, T(n, 3, 4)) == T(n, 12)
    assert rel(bf, T(2, h, w, 3)) == T(2, 3 * h * w)
    assert rel(bf, T(2, 3, ANY, 4)) == T(2, ANY)
    assert rel(bf, T(5, dtype="bool")) == T(5, 1, dtype="bool")
    assert rel(bf, T(0, 3, 0)) == T(0, 0)


@pytest.mark.parametrize("name", ["nn.softmax", "nn.log_softmax"])
def test_softmax_relation(name: str) -> None:
    assert rel(name, T(n, 10), attrs=SoftmaxAttrs()) == T(n, 10)
    f16 = T(n, ANY, 3, dtype="float16")
    assert rel(name, f16, attrs=SoftmaxAttrs(axis=-3)) == f16
    assert rel(name, T(2, dtype="int32"), attrs=SoftmaxAttrs()) == T(2, dtype="int32")


def Conv(**attrs: Any) -> Conv2DAttrs:
    return Conv2DAttrs(**attrs)


def Max(**attrs: Any) -> MaxPool2DAttrs:
    return MaxPool2DAttrs(**{"pool_size": (2, 2), **attrs})


def Avg(**attrs: Any) -> AvgPool2DAttrs:
    return AvgPool2DAttrs(**{"pool_size": (2, 2), **attrs})


X = T(1, 3, 8, 8)
W = T(4, 3, 3, 3)
V3 = T(3)
NO_UNITS = DenseAttrs(units=None)
ONE_PAD = PadAttrs(pad_width=((1, 1),))

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


@pytest.mark.parametrize(("name", "types", "attrs", "message"), REJECTED)
def test_relation_rejects(
    name: str, types: tuple[Type, ...], attrs: Attrs | None, message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        rel(name, *types, attrs=attrs)


# ---------------------------------------------------------------------------------------------
# References: independent formulations and onnxruntime

RNG_SEED = 20240607


def conv_direct(
    x: Array,
    wt: Array,
    strides: tuple[int, int],
    padding: tuple[int, ...],
    dilation: tuple[int, int],
    groups: int,
) -> Array:
    """NCHW/OIHW convolution written as loops over the output, in float64."""
    top, left, bottom, right = padding
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (top, bottom), (left, right)))
    nb, _, hp, wp = xp.shape
    o, cg, kh, kw = wt.shape
    oh = (hp - (kh - 1) * dilation[0] - 1) // strides[0] + 1
    ow = (wp - (kw - 1) * dilation[1] - 1) // strides[1] + 1
    out = np.zeros((nb, o, oh, ow))
    og = o // groups
    for oc, i, j in itertools.product(range(o), range(oh), range(ow)):
        g = oc // og
        rows = i * strides[0] + dilation[0] * np.arange(kh)
        cols = j * strides[1] + dilation[1] * np.arange(kw)
        patch = xp[:, g * cg : (g + 1) * cg][:, :, rows][:, :, :, cols]
        out[:, oc, i, j] = np.sum(patch * wt[oc], axis=(1, 2, 3))
    return out


CONV_CASES = [
    # data shape, weight shape, strides, padding (t, l, b, r), dilation, groups
    ((2, 3, 7, 7), (4, 3, 3, 3), (1, 1), (0, 0, 0, 0), (1, 1), 1),
    ((1, 3, 8, 9), (5, 3, 3, 2), (2, 1), (1, 0, 2, 1), (1, 1), 1),
    ((2, 4, 9, 9), (6, 2, 3, 3), (2, 2), (1, 1, 1, 1), (2, 2), 2),
    ((1, 6, 7, 8), (6, 1, 3, 3), (1, 2), (2, 1, 0, 1), (1, 2), 6),
    ((1, 4, 5, 5), (8, 2, 1, 2), (3, 1), (0, 0, 1, 1), (1, 1), 2),
]


@pytest.mark.parametrize(
    ("dshape", "wshape", "strides", "padding", "dilation", "groups"), CONV_CASES
)
def test_conv2d_matches_onnxruntime(
    dshape: tuple[int, ...],
    wshape: tuple[int, ...],
    strides: tuple[int, int],
    padding: tuple[int, ...],
    dilation: tuple[int, int],
    groups: int,
) -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal(dshape).astype(np.float32)
    wt = rng.standard_normal(wshape).astype(np.float32)
    attrs = Conv2DAttrs(strides=strides, padding=padding, dilation=dilation, groups=groups)
    got = ref("nn.conv2d", x, wt, attrs=attrs)
    expected = onnx_run(
        "Conv",
        [x, wt],
        strides=list(strides),
        pads=list(padding),
        dilations=list(dilation),
        group=groups,
    )
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(
        got, conv_direct(x, wt, strides, padding, dilation, groups), rtol=1e-5, atol=1e-5
    )


def test_conv2d_hand_computed() -> None:
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    wt = np.array([[[[1, 0], [0, -1]]]], dtype=np.float32)  # x[i, j] - x[i+1, j+1] = -5
    got = ref("nn.conv2d", x, wt, attrs=Conv2DAttrs(strides=(2, 2)))
    np.testing.assert_array_equal(got, np.full((1, 1, 2, 2), -5, np.float32))
    # padding 1 with a 1x1 kernel of 2: a zero border around 2x
    got = ref("nn.conv2d", x, np.full((1, 1, 1, 1), 2, np.float32), attrs=Conv2DAttrs(padding=(1,)))
    np.testing.assert_array_equal(got[0, 0, 1:-1, 1:-1], 2 * x[0, 0])
    assert got[0, 0, 0].tolist() == [0] * 6


def test_conv2d_layouts_agree_with_nchw() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 4, 6, 7)).astype(np.float32)
    wt = rng.standard_normal((6, 2, 3, 2)).astype(np.float32)
    base = {"strides": (2, 1), "padding": (1, 0, 0, 1), "groups": 2}
    nchw = ref("nn.conv2d", x, wt, attrs=Conv2DAttrs(**base))
    nhwc = ref(
        "nn.conv2d",
        x.transpose(0, 2, 3, 1),
        wt.transpose(2, 3, 1, 0),
        attrs=Conv2DAttrs(data_layout="NHWC", kernel_layout="HWIO", **base),
    )
    np.testing.assert_allclose(nhwc, nchw.transpose(0, 2, 3, 1), rtol=1e-6)
    mixed = ref(
        "nn.conv2d",
        x.transpose(0, 2, 3, 1),
        wt.transpose(2, 3, 0, 1),
        attrs=Conv2DAttrs(data_layout="NHWC", kernel_layout="HWOI", out_layout="NCHW", **base),
    )
    np.testing.assert_allclose(mixed, nchw, rtol=1e-6)


def test_conv2d_depthwise_channel_multiplier() -> None:
    """TVM's depthwise weight (C, m, kh, kw): output channel c*m + q correlates input
    channel c with W[c, q] (topi depthwise_conv2d_nchw)."""
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((1, 3, 5, 6)).astype(np.float32)
    wt = rng.standard_normal((3, 2, 3, 3)).astype(np.float32)
    attrs = Conv2DAttrs(groups=3, channels=6, kernel_size=(3, 3), padding=(1,))
    got = ref("nn.conv2d", x, wt, attrs=attrs)
    assert got.shape == (1, 6, 5, 6)
    for c, q in itertools.product(range(3), range(2)):
        one = conv_direct(
            x[:, c : c + 1], wt[c : c + 1, q : q + 1], (1, 1), (1, 1, 1, 1), (1, 1), 1
        )
        np.testing.assert_allclose(got[:, c * 2 + q], one[:, 0], rtol=1e-5, atol=1e-5)


def _pads4(padding: tuple[int, ...]) -> list[int]:
    """ONNX's pads (top, left, bottom, right) from TVM's 1, 2 or 4 padding integers."""
    if len(padding) == 1:
        return [padding[0]] * 4
    if len(padding) == 2:
        return [padding[0], padding[1], padding[0], padding[1]]
    return list(padding)


GROUPED_CASES = [
    # data (NCHW), TVM weight (OIHW), attributes
    ((2, 6, 7, 8), (9, 2, 3, 3), {"groups": 3, "strides": (2, 1), "padding": (1, 0, 1, 2)}),
    ((1, 4, 9, 6), (8, 1, 3, 2), {"groups": 4, "dilation": (2, 1), "padding": (1,)}),
    ((1, 4, 6, 6), (4, 1, 3, 3), {"groups": 4, "padding": (1,)}),  # depthwise
    ((2, 5, 7, 7), (5, 1, 2, 3), {"groups": 5, "strides": (2, 2), "dilation": (2, 1)}),
    # depthwise with a channel multiplier: TVM's (C, m, kh, kw) is ONNX's (C*m, 1, kh, kw)
    ((1, 3, 5, 6), (3, 2, 3, 3), {"groups": 3, "channels": 6, "kernel_size": (3, 3)}),
]


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize(("dshape", "wshape", "attrs"), GROUPED_CASES)
def test_grouped_and_depthwise_conv2d_match_onnxruntime(
    dshape: tuple[int, ...], wshape: tuple[int, ...], attrs: dict[str, Any], layout: str
) -> None:
    """Grouped and depthwise convolution in NCHW/OIHW and in NHWC with TVM's kernel layouts
    (HWIO grouped, HWOI depthwise), against ONNX Conv on the NCHW transposes."""
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal(dshape).astype(np.float32)
    wt = rng.standard_normal(wshape).astype(np.float32)
    groups = attrs["groups"]
    strides = attrs.get("strides", (1, 1))
    dilation = attrs.get("dilation", (1, 1))
    onnx_weight = wt.reshape(-1, dshape[1] // groups, *wshape[2:])
    expected = onnx_run(
        "Conv",
        [x, onnx_weight],
        strides=list(strides),
        pads=_pads4(attrs.get("padding", (0,))),
        dilations=list(dilation),
        group=groups,
    )
    if layout == "NCHW":
        got = ref("nn.conv2d", x, wt, attrs=Conv2DAttrs(**attrs))
    else:
        depthwise = wshape[0] == dshape[1] == groups
        kernel_layout = "HWOI" if depthwise else "HWIO"
        kernel = wt.transpose(tuple("OIHW".index(axis) for axis in kernel_layout))
        nhwc = Conv2DAttrs(data_layout="NHWC", kernel_layout=kernel_layout, **attrs)
        got = ref("nn.conv2d", x.transpose(0, 2, 3, 1), kernel, attrs=nhwc)
        expected = expected.transpose(0, 2, 3, 1)
    assert got.shape == expected.shape and got.dtype == np.float32
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_conv2d_integers() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.integers(-128, 128, (1, 3, 5, 5)).astype(np.int8)
    wt = rng.integers(-128, 128, (2, 3, 3, 3)).astype(np.int8)
    exact = conv_direct(x, wt.astype(np.float64), (1, 1), (0, 0, 0, 0), (1, 1), 1).astype(np.int64)
    wide = ref("nn.conv2d", x, wt, attrs=Conv2DAttrs(out_dtype="int32"))
    assert wide.dtype == np.int32
    np.testing.assert_array_equal(wide, exact)
    # int8 accumulation wraps modulo 2**8
    narrow = ref("nn.conv2d", x, wt, attrs=Conv2DAttrs())
    np.testing.assert_array_equal(narrow, ((exact + 128) % 256 - 128).astype(np.int8))
    # int32 overflow is undefined (nsw arithmetic)
    half = np.full((1, 1, 2, 2), 2**15, np.int32)
    with pytest.raises(UndefinedBehavior, match="a sum of products overflows int32"):
        ref("nn.conv2d", half, half, attrs=Conv2DAttrs())  # four products of 2**30
    big = np.full((1, 1, 2, 2), 2**20, np.int32)
    with pytest.raises(UndefinedBehavior, match="a product overflows int32"):
        ref("nn.conv2d", big, np.full((1, 1, 1, 1), 2**12, np.int32), attrs=Conv2DAttrs())
    # casting a float operand out of range to the int output dtype is undefined
    with pytest.raises(UndefinedBehavior, match="out-of-range float32"):
        ref(
            "nn.conv2d",
            np.full((1, 1, 2, 2), 1e10, np.float32),
            np.ones((1, 1, 1, 1), np.float32),
            attrs=Conv2DAttrs(out_dtype="int32"),
        )
    with pytest.raises(UndefinedBehavior, match="bool output dtype"):
        ref(
            "nn.conv2d",
            np.ones((1, 1, 2, 2), bool),
            np.ones((1, 1, 1, 1), bool),
            attrs=Conv2DAttrs(),
        )


def test_conv2d_mixed_dtypes_cast_to_output() -> None:
    x = np.array([[[[1.9, -1.9]]]], np.float32)
    wt = np.ones((1, 1, 1, 1), np.float32)
    got = ref("nn.conv2d", x, wt, attrs=Conv2DAttrs(out_dtype="int32"))
    np.testing.assert_array_equal(got, [[[[1, -1]]]])  # fptosi truncates toward zero
    got16 = ref("nn.conv2d", x, wt.astype(np.float16), attrs=Conv2DAttrs())
    assert got16.dtype == np.float32


def test_dense_matches_onnxruntime() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((4, 6)).astype(np.float32)
    wt = rng.standard_normal((3, 6)).astype(np.float32)
    got = ref("nn.dense", x, wt, attrs=DenseAttrs(units=3))
    np.testing.assert_allclose(got, onnx_run("Gemm", [x, wt], transB=1), rtol=1e-5, atol=1e-6)
    x3 = rng.standard_normal((2, 4, 6)).astype(np.float32)
    got3 = ref("nn.dense", x3, wt, attrs=DenseAttrs(units=None))
    np.testing.assert_allclose(got3, onnx_run("MatMul", [x3, wt.T.copy()]), rtol=1e-5, atol=1e-6)
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


@pytest.mark.parametrize(
    ("kernel", "strides", "padding", "dilation", "ceil"),
    [
        ((3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True),
        ((2, 2), (2, 2), (0, 0, 0, 0), (1, 1), True),
        ((3, 2), (1, 2), (1, 0, 1, 1), (1, 1), False),
        ((3, 3), (1, 1), (1, 1, 1, 1), (2, 2), False),
        ((2, 2), (2, 3), (1, 0, 1, 0), (2, 1), True),
        ((2, 3), (3, 3), (0, 0, 1, 1), (1, 1), True),
    ],
)
def test_pool2d_matches_onnxruntime(
    kernel: tuple[int, int],
    strides: tuple[int, int],
    padding: tuple[int, ...],
    dilation: tuple[int, int],
    ceil: bool,
) -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 3, 7, 8)).astype(np.float32)
    common = {
        "pool_size": kernel,
        "strides": strides,
        "padding": padding,
        "dilation": dilation,
        "ceil_mode": ceil,
    }
    onnx_attrs = {
        "kernel_shape": list(kernel),
        "strides": list(strides),
        "pads": list(padding),
        "dilations": list(dilation),
        "ceil_mode": int(ceil),
    }
    got = ref("nn.max_pool2d", x, attrs=MaxPool2DAttrs(**common))
    np.testing.assert_array_equal(got, onnx_run("MaxPool", [x], **onnx_attrs))
    for include in (False, True):
        got = ref("nn.avg_pool2d", x, attrs=AvgPool2DAttrs(count_include_pad=include, **common))
        expected = onnx_run(
            "AveragePool", [x], opset=19, count_include_pad=int(include), **onnx_attrs
        )
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_pool2d_nhwc_agrees_with_nchw() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 3, 6, 7)).astype(np.float32)
    common = {"pool_size": (2, 3), "strides": (2, 1), "padding": (1, 0, 0, 1), "ceil_mode": True}
    for name, cls in (("nn.max_pool2d", MaxPool2DAttrs), ("nn.avg_pool2d", AvgPool2DAttrs)):
        nchw = ref(name, x, attrs=cls(**common))
        nhwc = ref(name, x.transpose(0, 2, 3, 1), attrs=cls(layout="NHWC", **common))
        np.testing.assert_allclose(nhwc, nchw.transpose(0, 2, 3, 1), rtol=1e-6)


def test_avg_pool2d_hand_computed() -> None:
    x = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    attrs = {"pool_size": (2, 2), "padding": (1,), "strides": (2, 2)}
    # windows at (-1,-1), (-1,1), (1,-1), (1,1); the corner window holds only x[0,0] = 1
    exclude = ref("nn.avg_pool2d", x, attrs=AvgPool2DAttrs(**attrs))
    np.testing.assert_allclose(
        exclude[0, 0], [[1, (2 + 3) / 2], [(4 + 7) / 2, (5 + 6 + 8 + 9) / 4]]
    )
    include = ref("nn.avg_pool2d", x, attrs=AvgPool2DAttrs(count_include_pad=True, **attrs))
    np.testing.assert_allclose(include[0, 0], [[1 / 4, 5 / 4], [11 / 4, 28 / 4]])
    # integers: the window sum, divided truncating toward zero
    xi = np.array([[[[-3, -4], [2, 0]]]], np.int32)
    assert ref("nn.avg_pool2d", xi, attrs=AvgPool2DAttrs(pool_size=(2, 2))).tolist() == [[[[-1]]]]
    x8 = np.full((1, 1, 2, 2), 100, np.int8)
    assert ref("nn.avg_pool2d", x8, attrs=AvgPool2DAttrs(pool_size=(2, 2))).tolist() == [
        [[[-28]]]
    ]  # 400 wraps to -112


def test_avg_pool2d_count_include_pad_zero_divisor() -> None:
    """A ceil_mode window lying wholly in the ceil extension: TVM's count_include_pad count is
    0 there, so floats give 0/0 = NaN and integers divide by zero."""
    attrs = AvgPool2DAttrs(pool_size=(1, 1), strides=(2, 2), ceil_mode=True, count_include_pad=True)
    out = ref("nn.avg_pool2d", np.ones((1, 1, 2, 2), np.float32), attrs=attrs)
    assert out.shape == (1, 1, 2, 2) and out[0, 0, 0, 0] == 1
    assert np.isnan(out[0, 0, 0, 1]) and np.isnan(out[0, 0, 1, 0]) and np.isnan(out[0, 0, 1, 1])
    # without count_include_pad the count is at least 1: the empty window averages to 0
    attrs = AvgPool2DAttrs(pool_size=(1, 1), strides=(2, 2), ceil_mode=True)
    out = ref("nn.avg_pool2d", np.ones((1, 1, 2, 2), np.float32), attrs=attrs)
    assert out[0, 0].tolist() == [[1, 0], [0, 0]]
    attrs = AvgPool2DAttrs(pool_size=(1, 1), strides=(2, 2), ceil_mode=True, count_include_pad=True)
    with pytest.raises(UndefinedBehavior, match="zero element count"):
        ref("nn.avg_pool2d", np.ones((1, 1, 2, 2), np.int32), attrs=attrs)


def test_max_pool2d_padding_and_nan() -> None:
    x = np.full((1, 1, 2, 2), -np.inf, np.float32)
    out = ref("nn.max_pool2d", x, attrs=MaxPool2DAttrs(pool_size=(2, 2)))
    assert out[0, 0, 0, 0] == np.finfo(np.float32).min  # te.max starts from the lowest value
    # a window wholly in the padding sees only the lowest finite value, not -inf
    ones = np.ones((1, 1, 2, 2), np.float16)
    out = ref("nn.max_pool2d", ones, attrs=MaxPool2DAttrs(pool_size=(1, 1), padding=(1,)))
    assert out[0, 0, 0, 0] == np.float16(-65504) and out[0, 0, 1, 1] == 1
    xi = np.array([[[[-5, -7]]]], np.int32)
    out = ref("nn.max_pool2d", xi, attrs=MaxPool2DAttrs(pool_size=(1, 2), padding=(0, 1)))
    assert out.tolist() == [[[[-5, -5, -7]]]]
    xb = np.array([[[[False, True, False]]]])
    assert ref("nn.max_pool2d", xb, attrs=MaxPool2DAttrs(pool_size=(1, 2))).tolist() == [
        [[[True, True]]]
    ]
    nan = np.array([[[[1.0, np.nan, 2.0]]]], np.float32)
    with pytest.raises(UndefinedBehavior, match="NaN"):
        ref("nn.max_pool2d", nan, attrs=MaxPool2DAttrs(pool_size=(1, 2)))
    # a NaN no window reads is harmless
    assert ref(
        "nn.max_pool2d", nan, attrs=MaxPool2DAttrs(pool_size=(1, 1), strides=(1, 2))
    ).tolist() == [[[[1.0, 2.0]]]]


def test_global_avg_pool2d() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 3, 5, 4)).astype(np.float32)
    got = ref("nn.global_avg_pool2d", x, attrs=GlobalPool2DAttrs())
    np.testing.assert_allclose(got, onnx_run("GlobalAveragePool", [x]), rtol=1e-5, atol=1e-6)
    nhwc = ref(
        "nn.global_avg_pool2d", x.transpose(0, 2, 3, 1), attrs=GlobalPool2DAttrs(layout="NHWC")
    )
    np.testing.assert_allclose(nhwc, got.transpose(0, 2, 3, 1), rtol=1e-6)
    xi = np.array([[[[1, 2], [3, -10]]]], np.int32)  # sum -4, mean -1 truncating
    assert ref("nn.global_avg_pool2d", xi, attrs=GlobalPool2DAttrs()).tolist() == [[[[-1]]]]
    with pytest.raises(UndefinedBehavior, match="not representable in int8"):
        ref("nn.global_avg_pool2d", np.ones((1, 1, 12, 12), np.int8), attrs=GlobalPool2DAttrs())
    with pytest.raises(UndefinedBehavior, match="bool"):
        ref("nn.global_avg_pool2d", np.ones((1, 1, 2, 2), bool), attrs=GlobalPool2DAttrs())


@pytest.mark.parametrize("axis", [-1, 0, 1, 2])
def test_softmax_matches_onnxruntime(axis: int) -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((3, 4, 5)).astype(np.float32) * 3
    got = ref("nn.softmax", x, attrs=SoftmaxAttrs(axis=axis))
    np.testing.assert_allclose(got, onnx_run("Softmax", [x], axis=axis), rtol=1e-5, atol=1e-7)
    got = ref("nn.log_softmax", x, attrs=SoftmaxAttrs(axis=axis))
    np.testing.assert_allclose(got, onnx_run("LogSoftmax", [x], axis=axis), rtol=1e-5, atol=1e-6)


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


def test_batch_norm_matches_onnxruntime() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    gamma, beta, mean = (rng.standard_normal(3).astype(np.float32) for _ in range(3))
    var = rng.uniform(0.5, 2.0, 3).astype(np.float32)
    out, m, v = ref("nn.batch_norm", x, gamma, beta, mean, var, attrs=BatchNormAttrs(epsilon=1e-3))
    expected = onnx_run("BatchNormalization", [x, gamma, beta, mean, var], epsilon=1e-3)
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


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
def test_pad_matches_onnxruntime(mode: str) -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    widths = ((1, 0), (2, 1), (0, 3))
    got = ref(
        "nn.pad", x, np.array(2.5, np.float32), attrs=PadAttrs(pad_width=widths, pad_mode=mode)
    )
    pads = np.array([b for b, _ in widths] + [e for _, e in widths], np.int64)
    expected = onnx_run("Pad", [x, pads, np.array(2.5, np.float32)], mode=mode)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(
        got,
        np.pad(x, widths, mode=mode, **({"constant_values": 2.5} if mode == "constant" else {})),
    )


def test_pad_negative_widths_crop_and_undefined_reads() -> None:
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    got = ref("nn.pad", x, np.array(9.7, np.float32), attrs=PadAttrs(pad_width=((-1, 1), (2, -3))))
    expected = np.pad(x[1:, :1], ((0, 1), (2, 0)), constant_values=9)  # 9.7 cast truncates
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == np.int32
    got = ref(
        "nn.pad",
        x,
        np.array(0, np.int32),
        attrs=PadAttrs(pad_width=((0, 0), (-1, 2)), pad_mode="edge"),
    )
    np.testing.assert_array_equal(got, np.pad(x[:, 1:], ((0, 0), (0, 2)), mode="edge"))
    scalar = ref("nn.pad", np.array(5.0), np.array(0.0), attrs=PadAttrs(pad_width=()))
    assert scalar.shape == () and scalar == 5.0
    empty = ref(
        "nn.pad",
        np.zeros((0, 2), np.float32),
        np.array(1.0, np.float32),
        attrs=PadAttrs(pad_width=((1, 1), (0, 0))),
    )
    np.testing.assert_array_equal(empty, np.ones((2, 2)))
    # pad_val of any rank: its first element is used (cast to data's dtype)
    got = ref(
        "nn.pad",
        np.zeros(1, np.uint8),
        np.array([[300, 7]], np.int32),
        attrs=PadAttrs(pad_width=((1, 0),)),
    )
    assert got.tolist() == [44, 0]  # 300 wraps to 44 in uint8
    with pytest.raises(UndefinedBehavior, match="reads outside the input"):
        ref(
            "nn.pad",
            x,
            np.array(0, np.int32),
            attrs=PadAttrs(pad_width=((3, 0), (0, 0)), pad_mode="reflect"),
        )
    with pytest.raises(UndefinedBehavior, match="reads outside the input"):
        ref(
            "nn.pad",
            np.zeros((0,), np.int32),
            np.array(0, np.int32),
            attrs=PadAttrs(pad_width=((1, 0),), pad_mode="edge"),
        )
    with pytest.raises(UndefinedBehavior, match="no elements"):
        ref("nn.pad", x, np.zeros((0,), np.int32), attrs=PadAttrs(pad_width=((1, 0), (0, 0))))
    with pytest.raises(UndefinedBehavior, match="NaN"):
        ref("nn.pad", x, np.array(np.nan, np.float32), attrs=PadAttrs(pad_width=((1, 0), (0, 0))))


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


def test_batch_flatten_matches_onnxruntime() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    np.testing.assert_array_equal(ref("nn.batch_flatten", x), onnx_run("Flatten", [x], axis=1))
    assert ref("nn.batch_flatten", np.zeros((0, 3), np.int8)).shape == (0, 3)
    assert ref("nn.batch_flatten", np.arange(3)).tolist() == [[0], [1], [2]]


# ---------------------------------------------------------------------------------------------
# Agreement of reference and relation on Hypothesis-drawn inputs

SEEDS = st.integers(0, 2**32 - 1)


def pick(draw: st.DrawFn, values: tuple[str, ...]) -> str:
    return draw(st.sampled_from(values))


@st.composite
def conv_cases(draw: st.DrawFn) -> tuple[tuple[Array, ...], Attrs]:
    rng = np.random.default_rng(draw(SEEDS))
    dtype = pick(draw, ALL)
    out_dtype = draw(st.sampled_from(["", dtype, "int32" if dtype in INTS else "float64"]))
    data_layout, kernel_layout = draw(
        st.sampled_from([("NCHW", "OIHW"), ("NHWC", "HWIO"), ("NHWC", "HWOI"), ("CHWN", "IHWO")])
    )
    out_layout = draw(st.sampled_from(["", "NCHW", "NHWC"]))
    kind = draw(st.sampled_from(["plain", "grouped", "depthwise", "multiplier"]))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    extra: dict[str, Any] = {}
    if kind == "plain":
        groups, c, o = 1, draw(st.integers(0, 3)), draw(st.integers(1, 3))
        i = c
        if draw(st.booleans()):
            extra["channels"] = o
        if draw(st.booleans()):
            extra["kernel_size"] = (kh, kw)
    elif kind == "grouped":
        groups = draw(st.integers(2, 3))
        i, og = draw(st.integers(1, 2)), draw(st.integers(1, 2))
        c, o = groups * i, groups * og
    elif kind == "depthwise":
        groups = c = o = draw(st.integers(2, 3))
        i = 1
    else:
        groups = c = o = draw(st.integers(2, 3))
        i = draw(st.integers(2, 3))
        extra = {"channels": c * i, "kernel_size": (kh, kw)}
    strides = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = tuple(
        draw(st.lists(st.integers(0, 2), min_size=1, max_size=4).filter(lambda p: len(p) != 3))
    )
    top, left, bottom, right = (padding * 4)[:4] if len(padding) < 4 else padding
    span_h, span_w = (kh - 1) * dilation[0] + 1, (kw - 1) * dilation[1] + 1
    height = draw(st.integers(max(0, span_h - top - bottom - strides[0]), span_h + 3))
    width = draw(st.integers(max(0, span_w - left - right - strides[1]), span_w + 3))
    nchw = {"N": draw(st.integers(0, 2)), "C": c, "H": height, "W": width}
    oihw = {"O": o, "I": i, "H": kh, "W": kw}
    data = random(rng, tuple(nchw[a] for a in data_layout), dtype)
    weight = random(rng, tuple(oihw[a] for a in kernel_layout), dtype)
    attrs = Conv2DAttrs(
        strides=strides,
        padding=padding,
        dilation=dilation,
        groups=groups,
        data_layout=data_layout,
        kernel_layout=kernel_layout,
        out_layout=out_layout,
        out_dtype=out_dtype,
        **extra,
    )
    return (data, weight), attrs


@settings(max_examples=60)
@given(conv_cases())
def test_conv2d_reference_agrees_with_relation(case: tuple[tuple[Array, ...], Attrs]) -> None:
    args, attrs = case
    assert isinstance(attrs, Conv2DAttrs)
    out_dtype = attrs.out_dtype or str(args[0].dtype)
    assert_agrees("nn.conv2d", args, attrs, defined=out_dtype != "bool")


@st.composite
def pool_cases(draw: st.DrawFn, avg: bool) -> tuple[tuple[Array, ...], Attrs]:
    rng = np.random.default_rng(draw(SEEDS))
    dtype = pick(draw, ALL)
    layout = draw(st.sampled_from(["NCHW", "NHWC", "NCHW4c", "HW"]))
    kernel = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    strides = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    dilation = (draw(st.integers(1, 2)), draw(st.integers(1, 2)))
    padding = tuple(
        draw(st.lists(st.integers(0, 1), min_size=1, max_size=4).filter(lambda p: len(p) != 3))
    )
    ceil = draw(st.booleans())
    spans = [(k - 1) * d + 1 for k, d in zip(kernel, dilation, strict=True)]
    sizes = {"N": draw(st.integers(0, 2)), "C": draw(st.integers(1, 2)), "c": 4}
    sizes["H"] = draw(st.integers(spans[0], spans[0] + 4))
    sizes["W"] = draw(st.integers(spans[1], spans[1] + 4))
    shape = tuple(sizes[a] for a in layout.replace("4c", "c"))
    data = random(rng, shape, dtype)
    common: dict[str, Any] = {
        "pool_size": kernel,
        "strides": strides,
        "dilation": dilation,
        "padding": padding,
        "layout": layout,
        "ceil_mode": ceil,
    }
    if avg:
        return (data,), AvgPool2DAttrs(count_include_pad=draw(st.booleans()), **common)
    return (data,), MaxPool2DAttrs(**common)


def agrees_unless_zero_count(name: str, args: tuple[Array, ...], attrs: Attrs) -> None:
    if args[0].dtype == bool:
        assert_agrees(name, args, attrs, defined=False)
        return
    try:
        assert_agrees(name, args, attrs)
    except UndefinedBehavior as e:  # only the ceil_mode + count_include_pad integer corner
        assert "zero element count" in str(e)


@settings(max_examples=60)
@given(pool_cases(avg=False))
def test_max_pool2d_reference_agrees_with_relation(case: tuple[tuple[Array, ...], Attrs]) -> None:
    assert_agrees("nn.max_pool2d", *case)


@settings(max_examples=60)
@given(pool_cases(avg=True))
def test_avg_pool2d_reference_agrees_with_relation(case: tuple[tuple[Array, ...], Attrs]) -> None:
    agrees_unless_zero_count("nn.avg_pool2d", *case)


@settings(max_examples=40)
@given(
    SEEDS,
    st.sampled_from(ALL),
    st.sampled_from(["NCHW", "NHWC"]),
    st.lists(st.integers(1, 3), min_size=4, max_size=4),
)
def test_global_avg_pool2d_reference_agrees_with_relation(
    seed: int, dtype: str, layout: str, shape: list[int]
) -> None:
    data = random(np.random.default_rng(seed), tuple(shape), dtype)
    attrs = GlobalPool2DAttrs(layout=layout)
    assert_agrees("nn.global_avg_pool2d", (data,), attrs, defined=dtype != "bool")


shapes = st.lists(st.integers(0, 3), min_size=1, max_size=4).map(tuple)


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


@settings(max_examples=30)
@given(SEEDS, st.sampled_from(ALL), shapes)
def test_batch_flatten_and_dropout_agree_with_relation(
    seed: int, dtype: str, shape: tuple[int, ...]
) -> None:
    x = random(np.random.default_rng(seed), shape, dtype)
    assert_agrees("nn.batch_flatten", (x,), None)
    assert_agrees("nn.dropout", (x,), DropoutAttrs())


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


@st.composite
def pad_cases(draw: st.DrawFn) -> tuple[tuple[Array, ...], Attrs]:
    rng = np.random.default_rng(draw(SEEDS))
    dtype = pick(draw, ALL)
    mode = draw(st.sampled_from(["constant", "edge", "reflect"]))
    shape = draw(
        st.lists(st.integers(2 if mode == "reflect" else 1 if mode == "edge" else 0, 3), max_size=3)
    )
    widths = []
    for extent in shape:
        if mode == "constant":
            before = draw(st.integers(-extent, 2))
            after = draw(st.integers(-(extent + before), 2))
        else:
            limit = extent - 1 if mode == "reflect" else 2
            before, after = draw(st.integers(0, limit)), draw(st.integers(0, limit))
        widths.append((before, after))
    value = random(
        rng, draw(st.sampled_from([(), (1,), (2, 2)])), draw(st.sampled_from([dtype, "float32"]))
    )
    if dtype in INTS and value.dtype.kind == "f":
        value = np.abs(np.round(value))  # a cast in range
    data = random(rng, tuple(shape), dtype)
    return (data, value), PadAttrs(pad_width=tuple(widths), pad_mode=mode)


@settings(max_examples=60)
@given(pad_cases())
def test_pad_reference_agrees_with_relation(case: tuple[tuple[Array, ...], Attrs]) -> None:
    assert_agrees("nn.pad", *case)
