"""Neural-network operators: softmax, dense, convolution, pooling, normalisation, padding.

::

    nn.softmax | nn.log_softmax(data, axis=-1)                  SoftmaxAttrs       out-fusable
    nn.dense(data, weight, units=, out_dtype="")                DenseAttrs         out-fusable
    nn.bias_add(data, bias, axis=1)                             BiasAddAttrs       broadcast
    nn.batch_flatten(data)                                                         injective
    nn.conv2d(data, weight, strides=(1, 1), ...)                Conv2DAttrs        out-fusable
    nn.max_pool2d(data, pool_size=, ...)                        MaxPool2DAttrs     out-fusable
    nn.avg_pool2d(data, pool_size=, ...)                        AvgPool2DAttrs     out-fusable
    nn.global_avg_pool2d(data, layout="NCHW", out_layout="")    GlobalPool2DAttrs  out-fusable
    nn.batch_norm(data, gamma, beta, moving_mean, moving_var, axis=1, ...)
                                                                BatchNormAttrs     out-fusable
    nn.dropout(data, rate=0.5)                                  DropoutAttrs       opaque
    nn.pad(data, pad_val, pad_width=, pad_mode="constant")      PadAttrs           injective

``name=`` marks a required attribute; out-fusable is out_elemwise_fusable. ``nn.dense``'s
``units`` is nullable but has no default in TVM, so it is required and written ``units=None``
when absent. Attribute fields follow TVM 0.18's ``include/tvm/relay/attrs/nn.h``, counting
only fields declared with ``TVM_ATTR_FIELD`` (``Conv2DAttrs`` and ``DenseAttrs`` also carry
``auto_scheduler_rewritten_layout`` and ``meta_schedule_original_shape`` as plain members,
which are not attributes). Argument names and patterns follow ``src/relay/op/nn/*.cc``; TVM
names ``nn.pad``'s second argument ``pad_val``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from .registry import AttrKind, Attrs, OpDef, OpPattern, attr_field, register

_LAYOUT_DOC = "Input layout, e.g. NCHW or NHWC."
_OUT_LAYOUT_DOC = 'Output layout; "" means the input layout.'
_OUT_DTYPE_DOC = 'Output data type; "" means the input dtype.'


@dataclass(frozen=True, slots=True)
class SoftmaxAttrs(Attrs):
    """Attributes of ``nn.softmax`` and ``nn.log_softmax``: the normalised axis."""

    type_key: ClassVar[str] = "relay.attrs.SoftmaxAttrs"
    axis: int = attr_field(AttrKind.INT, -1, doc="The axis to sum over.")


@dataclass(frozen=True, slots=True)
class DenseAttrs(Attrs):
    """Attributes of ``nn.dense``: the number of output units and the output dtype."""

    type_key: ClassVar[str] = "relay.attrs.DenseAttrs"
    units: int | None = attr_field(
        AttrKind.INT, optional=True, doc="Number of output units; None infers it from weight."
    )
    out_dtype: str = attr_field(AttrKind.DTYPE, "", doc=_OUT_DTYPE_DOC)


@dataclass(frozen=True, slots=True)
class BiasAddAttrs(Attrs):
    """Attributes of ``nn.bias_add``: the axis the bias runs along."""

    type_key: ClassVar[str] = "relay.attrs.BiasAddAttrs"
    axis: int = attr_field(AttrKind.INT, 1, doc="The axis to add the bias along.")


@dataclass(frozen=True, slots=True)
class Conv2DAttrs(Attrs):
    """Attributes of ``nn.conv2d``: window geometry, grouping and layouts."""

    type_key: ClassVar[str] = "relay.attrs.Conv2DAttrs"
    strides: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Stride per spatial axis.")
    padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0, 0), doc="Zero padding: 1, 2 or 4 ints (top, left, bottom, right)."
    )
    dilation: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Dilation per spatial axis.")
    groups: int = attr_field(AttrKind.INT, 1, doc="Number of groups the channels split into.")
    channels: int | None = attr_field(
        AttrKind.INT, None, optional=True, doc="Output channels; None infers them from weight."
    )
    kernel_size: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, None, optional=True, doc="Window size; None infers it from weight."
    )
    data_layout: str = attr_field(AttrKind.STR, "NCHW", doc=_LAYOUT_DOC)
    kernel_layout: str = attr_field(AttrKind.STR, "OIHW", doc="Weight layout, e.g. OIHW.")
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)
    out_dtype: str = attr_field(AttrKind.DTYPE, "", doc=_OUT_DTYPE_DOC)


@dataclass(frozen=True, slots=True)
class MaxPool2DAttrs(Attrs):
    """Attributes of ``nn.max_pool2d``: window geometry and layouts."""

    type_key: ClassVar[str] = "relay.attrs.MaxPool2DAttrs"
    pool_size: tuple[int, ...] = attr_field(AttrKind.INTS, doc="Size of the pooling window.")
    strides: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Stride per spatial axis.")
    dilation: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Dilation per spatial axis.")
    padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0, 0), doc="Padding: 1, 2 or 4 ints (top, left, bottom, right)."
    )
    layout: str = attr_field(AttrKind.STR, "NCHW", doc=_LAYOUT_DOC)
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)
    ceil_mode: bool = attr_field(
        AttrKind.BOOL, False, doc="Round the output extent up instead of down."
    )


@dataclass(frozen=True, slots=True)
class AvgPool2DAttrs(Attrs):
    """Attributes of ``nn.avg_pool2d``: window geometry, layouts and padding policy."""

    type_key: ClassVar[str] = "relay.attrs.AvgPool2DAttrs"
    pool_size: tuple[int, ...] = attr_field(AttrKind.INTS, doc="Size of the pooling window.")
    strides: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Stride per spatial axis.")
    dilation: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Dilation per spatial axis.")
    padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0, 0), doc="Padding: 1, 2 or 4 ints (top, left, bottom, right)."
    )
    layout: str = attr_field(AttrKind.STR, "NCHW", doc=_LAYOUT_DOC)
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)
    ceil_mode: bool = attr_field(
        AttrKind.BOOL, False, doc="Round the output extent up instead of down."
    )
    count_include_pad: bool = attr_field(
        AttrKind.BOOL, False, doc="Count padded elements in each average's divisor."
    )


@dataclass(frozen=True, slots=True)
class GlobalPool2DAttrs(Attrs):
    """Attributes of ``nn.global_avg_pool2d``: the layouts."""

    type_key: ClassVar[str] = "relay.attrs.GlobalPool2DAttrs"
    layout: str = attr_field(AttrKind.STR, "NCHW", doc=_LAYOUT_DOC)
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)


@dataclass(frozen=True, slots=True)
class BatchNormAttrs(Attrs):
    """Attributes of ``nn.batch_norm``: the channel axis, epsilon and which affine terms apply."""

    type_key: ClassVar[str] = "relay.attrs.BatchNormAttrs"
    axis: int = attr_field(AttrKind.INT, 1, doc="The channel axis.")
    epsilon: float = attr_field(
        AttrKind.FLOAT, 1e-5, doc="Added to the variance to avoid dividing by zero."
    )
    center: bool = attr_field(AttrKind.BOOL, True, doc="Add the offset beta.")
    scale: bool = attr_field(AttrKind.BOOL, True, doc="Multiply by the scale gamma.")


@dataclass(frozen=True, slots=True)
class DropoutAttrs(Attrs):
    """Attributes of ``nn.dropout``: the fraction of elements dropped in training."""

    type_key: ClassVar[str] = "relay.attrs.DropoutAttrs"
    rate: float = attr_field(
        AttrKind.FLOAT, 0.5, doc="Fraction of the input dropped during training."
    )


@dataclass(frozen=True, slots=True)
class PadAttrs(Attrs):
    """Attributes of ``nn.pad``: the padding per axis and how it is filled."""

    type_key: ClassVar[str] = "relay.attrs.PadAttrs"
    pad_width: tuple[tuple[int, ...], ...] = attr_field(
        AttrKind.INTS_2D, doc="(before, after) padding for every axis."
    )
    pad_mode: str = attr_field(
        AttrKind.STR, "constant", doc='"constant" (pad_val), "edge" or "reflect".'
    )


register(
    OpDef(
        "nn.softmax",
        ("data",),
        SoftmaxAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "Softmax along axis: exp(x) / sum(exp(x)).",
    )
)
register(
    OpDef(
        "nn.log_softmax",
        ("data",),
        SoftmaxAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "Logarithm of the softmax along axis.",
    )
)
register(
    OpDef(
        "nn.dense",
        ("data", "weight"),
        DenseAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "Fully connected layer: data times the transpose of weight (units, in).",
    )
)
register(
    OpDef(
        "nn.bias_add",
        ("data", "bias"),
        BiasAddAttrs,
        OpPattern.BROADCAST,
        "Add the 1-D bias to data along axis.",
    )
)
register(
    OpDef(
        "nn.batch_flatten",
        ("data",),
        None,
        OpPattern.INJECTIVE,
        "Flatten every axis but the first: (d1, d2, ..., dk) to (d1, d2*...*dk).",
    )
)
register(
    OpDef(
        "nn.conv2d",
        ("data", "weight"),
        Conv2DAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "2-D convolution (cross-correlation) of data with weight.",
    )
)
register(
    OpDef(
        "nn.max_pool2d",
        ("data",),
        MaxPool2DAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "2-D max pooling.",
    )
)
register(
    OpDef(
        "nn.avg_pool2d",
        ("data",),
        AvgPool2DAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "2-D average pooling.",
    )
)
register(
    OpDef(
        "nn.global_avg_pool2d",
        ("data",),
        GlobalPool2DAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "Average over the whole of each spatial plane.",
    )
)
register(
    OpDef(
        "nn.batch_norm",
        ("data", "gamma", "beta", "moving_mean", "moving_var"),
        BatchNormAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "Batch normalisation; a 3-tuple (normalised data, moving mean, moving variance).",
    )
)
register(
    OpDef(
        "nn.dropout",
        ("data",),
        DropoutAttrs,
        OpPattern.OPAQUE,
        "Dropout (training only); a 2-tuple (out, mask).",
    )
)
register(
    OpDef(
        "nn.pad",
        ("data", "pad_val"),
        PadAttrs,
        OpPattern.INJECTIVE,
        "Pad each axis of data by pad_width, filling with pad_val in constant mode.",
    )
)
