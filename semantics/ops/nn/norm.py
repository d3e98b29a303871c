"""Normalisations: batch, layer, group, instance, l2, lrn; and nn.dropout.

::

    nn.batch_norm(data, gamma, beta, moving_mean, moving_var, axis=1, epsilon=1e-5,
                  center=True, scale=True)            BatchNormAttrs     BatchNorm     out-fusable
    nn.layer_norm(data, gamma, beta, axis=-1, epsilon=1e-5, center=True, scale=True)
                                                      LayerNormAttrs     LayerNorm     opaque
    nn.group_norm(data, gamma, beta, num_groups=0, axis=1, epsilon=1e-5, center=True,
                  scale=True)                         GroupNormAttrs     GroupNorm     opaque
    nn.instance_norm(data, gamma, beta, axis=1, epsilon=1e-5, center=True, scale=True)
                                                      InstanceNormAttrs  InstanceNorm  opaque
    nn.l2_normalize(data, eps=, axis=)                L2NormalizeAttrs   Identity      opaque
    nn.lrn(data, size=5, axis=1, bias=2, alpha=1e-4, beta=0.75)
                                                      LRNAttrs           Identity      opaque
    nn.dropout(data, rate=0.5)                        DropoutAttrs       Dropout       opaque

out-fusable is out_elemwise_fusable. TVM declared ``L2NormalizeAttrs.eps`` and ``.axis``
without a default. ``nn.lrn`` registered ``opaque``; ``layer_norm``, ``group_norm``,
``instance_norm`` and ``l2_normalize`` registered no pattern, which fusion reads as ``opaque``
(``SimplifyInference`` in ``src/relay/transforms/simplify_inference.cc`` rewrites them into
elementwise ops and reductions before fusion, and gives the meaning of those four and of
``batch_norm``; TOPI gives the others). Every normalisation is defined on float data only
(``sqrt``, ``pow`` and ``exp`` are float intrinsics; the relations accept other dtypes, nothing
defines the result: undefined), computes float16 in float32 and rounds once at the end
(``common``), and makes epsilon, bias, alpha and beta constants of the data's dtype (TVM's
``MakeConstantScalar``). Where a relation checks more than TVM's did (``group_norm``'s
``num_groups``, ``l2_normalize``'s axes, ``lrn``'s rank, axis and size), the departure rejects
what TVM left to a later crash or a silent misreading.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...syntax import TensorType, TupleType, Type
from ..registry import (
    AttrKind,
    Attrs,
    OpPattern,
    OpRegistrar,
    RelationError,
    attr_field,
    tensor_reference,
)
from ..shapes import tensor_arg
from .activation import _float_data
from .common import (
    _attrs,
    _axis,
    _compute_dtype,
    _Num,
    _require_float,
    _shape_str,
    _show,
    _vector,
)


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


def _batch_norm_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``BatchNorm``: data, then four ``(C,)`` vectors of data's dtype (gamma, beta,
    moving_mean, moving_var), ``C = data.shape[axis]`` with ``-1 <= axis < ndim`` (a negative
    axis counts only as -1), give ``(data's type, (C,), (C,))``. ``epsilon`` is added to the
    variance; ``scale`` and ``center`` say whether gamma and beta apply."""
    a = _attrs(attrs, BatchNormAttrs)
    data = tensor_arg(arg_types[0], "data")
    rank = len(data.shape)
    if not (-1 <= a.axis < rank) or rank == 0:
        allowed = f"expected -1 <= axis < {rank}" if rank else "it has no axes"
        raise RelationError(
            f"axis={a.axis} is out of range for a tensor of rank {rank} ({allowed}; batch_norm "
            "counts a negative axis only as -1)"
        )
    c = data.shape[a.axis]
    for name, t in zip(("gamma", "beta", "moving_mean", "moving_var"), arg_types[1:], strict=True):
        _vector(t, c, data.dtype, name)
    vector = TensorType((c,), data.dtype)
    return TupleType((TensorType(data.shape, data.dtype), vector, vector))


def _batch_norm_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> tuple[_Num, _Num, _Num]:
    """``nn.batch_norm``, inference: ``(x - mean) / sqrt(var + eps) [* gamma] [+ beta]`` along
    the axis, and the moving mean and variance passed through (``topi/nn/batch_norm.py`` with
    ``training=False`` returns ``moving_mean * 1``, ``moving_var * 1``). SimplifyInference
    rewrites field 0 as ``x * s + (-mean * s) [+ beta]`` with ``s = 1/sqrt(var + eps) [* gamma]``:
    equal in exact arithmetic, not bit for bit.

    Undefined: non-float data."""
    a = _attrs(attrs, BatchNormAttrs)
    data, gamma, beta, mean, var = args
    _require_float(data, "nn.batch_norm")
    cd = _compute_dtype(data.dtype)
    axis = a.axis % data.ndim
    shape = [1] * data.ndim
    shape[axis] = data.shape[axis]

    def along(v: _Num) -> _Num:
        return v.astype(cd).reshape(shape)

    with np.errstate(all="ignore"):
        eps = cd.type(data.dtype.type(a.epsilon))  # topi adds epsilon as a data-dtype constant
        out = (data.astype(cd) - along(mean)) / np.sqrt(along(var) + eps)
        if a.scale:
            out = out * along(gamma)
        if a.center:
            out = out + along(beta)
    return np.asarray(out).astype(data.dtype), mean.copy(), var.copy()


def _dropout_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Dropout``: ``t -> (t, t)``, the data and its mask. ``rate`` only matters in training."""
    data = tensor_arg(arg_types[0], "data")
    t = TensorType(data.shape, data.dtype)
    return TupleType((t, t))


def _dropout_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> tuple[_Num, _Num]:
    """``nn.dropout``, inference: ``(data, ones)``. TVM has no compute for it; SimplifyInference
    replaces field 0 by the data, and the mask (1 where kept, by DropoutRel's comment) is all
    ones in inference."""
    data = args[0]
    return data.copy(), np.ones_like(data)


_op = OpRegistrar(__name__, relation_name="Identity", inputs=("data",), pattern=OpPattern.OPAQUE)


_op(
    "nn.batch_norm",
    "Batch normalisation; a 3-tuple (normalised data, moving mean, moving variance).",
    relation=_batch_norm_relation,
    reference=tensor_reference(_batch_norm_reference),
    check="onnxruntime:BatchNormalization",
    relation_name="BatchNorm",
    inputs=("data", "gamma", "beta", "moving_mean", "moving_var"),
    attrs_type=BatchNormAttrs,
    pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
)


_op(
    "nn.dropout",
    "Dropout (training only); a 2-tuple (out, mask).",
    relation=_dropout_relation,
    reference=tensor_reference(_dropout_reference),
    check="onnxruntime:Dropout",
    relation_name="Dropout",
    attrs_type=DropoutAttrs,
)


_EPS_DOC = "Small float added to the variance to avoid dividing by zero."


_CENTER_DOC = "Add the offset beta."


_SCALE_DOC = "Multiply by the scale gamma."


@dataclass(frozen=True, slots=True)
class LayerNormAttrs(Attrs):
    """Attributes of ``nn.layer_norm``: the normalised axis, epsilon and the affine terms."""

    type_key: ClassVar[str] = "relay.attrs.LayerNormAttrs"
    axis: int = attr_field(AttrKind.INT, -1, doc="The axis to normalise over (the channel).")
    epsilon: float = attr_field(AttrKind.FLOAT, 1e-5, doc=_EPS_DOC)
    center: bool = attr_field(AttrKind.BOOL, True, doc=_CENTER_DOC)
    scale: bool = attr_field(AttrKind.BOOL, True, doc=_SCALE_DOC)


@dataclass(frozen=True, slots=True)
class GroupNormAttrs(Attrs):
    """Attributes of ``nn.group_norm``: the groups, channel axis, epsilon, affine terms."""

    type_key: ClassVar[str] = "relay.attrs.GroupNormAttrs"
    num_groups: int = attr_field(AttrKind.INT, 0, doc="Number of groups the channels split into.")
    axis: int = attr_field(AttrKind.INT, 1, doc="The channel axis.")
    epsilon: float = attr_field(AttrKind.FLOAT, 1e-5, doc=_EPS_DOC)
    center: bool = attr_field(AttrKind.BOOL, True, doc=_CENTER_DOC)
    scale: bool = attr_field(AttrKind.BOOL, True, doc=_SCALE_DOC)


@dataclass(frozen=True, slots=True)
class InstanceNormAttrs(Attrs):
    """Attributes of ``nn.instance_norm``: the channel axis, epsilon and the affine terms."""

    type_key: ClassVar[str] = "relay.attrs.InstanceNormAttrs"
    axis: int = attr_field(AttrKind.INT, 1, doc="The channel axis.")
    epsilon: float = attr_field(AttrKind.FLOAT, 1e-5, doc=_EPS_DOC)
    center: bool = attr_field(AttrKind.BOOL, True, doc=_CENTER_DOC)
    scale: bool = attr_field(AttrKind.BOOL, True, doc=_SCALE_DOC)


@dataclass(frozen=True, slots=True)
class L2NormalizeAttrs(Attrs):
    """Attributes of ``nn.l2_normalize``: the lower bound of the squared norm and the axes."""

    type_key: ClassVar[str] = "relay.attrs.L2NormalizeAttrs"
    eps: float = attr_field(AttrKind.FLOAT, doc="Lower bound of the sum of squares.")
    axis: tuple[int, ...] = attr_field(AttrKind.INTS, doc="The axes the norm is taken over.")


@dataclass(frozen=True, slots=True)
class LRNAttrs(Attrs):
    """Attributes of ``nn.lrn``: the window, the channel axis and the normaliser's terms."""

    type_key: ClassVar[str] = "relay.attrs.LRNAttrs"
    size: int = attr_field(AttrKind.INT, 5, doc="Number of channels in each window (odd).")
    axis: int = attr_field(AttrKind.INT, 1, doc="The channel axis: 1 (NCHW) or 3 (NHWC).")
    bias: float = attr_field(AttrKind.FLOAT, 2.0, doc="Offset added to the scaled sum.")
    alpha: float = attr_field(AttrKind.FLOAT, 0.0001, doc="Scale of the sum of squares.")
    beta: float = attr_field(AttrKind.FLOAT, 0.75, doc="Exponent of the normaliser.")


def _affine_vectors(arg_types: tuple[Type, ...], axis: int) -> TensorType:
    """``data`` with ``axis`` in range, and gamma, beta of ``(data.shape[axis],)``."""
    data = tensor_arg(arg_types[0], "data")
    index = _axis(axis, len(data.shape))
    for what, t in zip(("gamma", "beta"), arg_types[1:], strict=True):
        _vector(t, data.shape[index], data.dtype, what)
    return TensorType(data.shape, data.dtype)


def _moments(x: _Num, axes: tuple[int, ...]) -> tuple[_Num, _Num]:
    """Mean and (population) variance over ``axes``, kept as size-1 axes: TVM's ``Mean`` and
    ``Variance``, sums divided by the element count (0 / 0 is NaN for no elements)."""
    count = x.dtype.type(math.prod(x.shape[i] for i in axes))
    mean = np.sum(x, axis=axes, keepdims=True) / count
    var = np.sum(np.square(x - mean), axis=axes, keepdims=True) / count
    return mean, var


def _normalise(
    data: _Num, gamma: _Num, beta: _Num, axes: tuple[int, ...], axis: int, a: Any
) -> _Num:
    """``(x - mean) / sqrt(var + eps) [* gamma] [+ beta]``, statistics over ``axes`` of the
    compute-dtype ``data``, gamma and beta along ``axis``."""
    cd = data.dtype
    shape = [1] * data.ndim
    shape[axis] = data.shape[axis]
    with np.errstate(all="ignore"):
        mean, var = _moments(data, axes)
        out = (data - mean) / np.sqrt(var + _constant(a.epsilon, cd))
        if a.scale:
            out = out * gamma.astype(cd).reshape(shape)
        if a.center:
            out = out + beta.astype(cd).reshape(shape)
    return np.asarray(out, cd)


def _constant(value: float, dtype: np.dtype[Any]) -> np.floating[Any]:
    """An attribute made a constant of the data's dtype (TVM's ``MakeConstantScalar``)."""
    c: np.floating[Any] = dtype.type(value)
    return c


def _layer_norm_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``LayerNorm``: data of rank >= 1, ``-ndim <= axis < ndim``; gamma and beta are ``(C,)``
    of data's dtype, ``C = data.shape[axis]``; the result has data's type."""
    return _affine_vectors(arg_types, _attrs(attrs, LayerNormAttrs).axis)


def _layer_norm_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.layer_norm``: ``m = mean(x, axis)``, ``v = mean((x - m)^2, axis)``;
    ``(x - m) / sqrt(v + eps) [* gamma] [+ beta]``, gamma and beta along the axis.

    Undefined: non-float data."""
    a = _attrs(attrs, LayerNormAttrs)
    data, gamma, beta = args
    x = _float_data(data, "nn.layer_norm")
    axis = a.axis % data.ndim
    return _normalise(x, gamma, beta, (axis,), axis, a).astype(data.dtype)


def _group_norm_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``GroupNorm``: as ``LayerNorm``, with ``num_groups >= 1`` dividing ``C``.

    Departure from TVM: ``num_groups`` is checked (TVM divided by it in SimplifyInference)."""
    a = _attrs(attrs, GroupNormAttrs)
    out = _affine_vectors(arg_types, a.axis)
    channels = out.shape[_axis(a.axis, len(out.shape))]
    if a.num_groups < 1:
        raise RelationError(f"num_groups must be at least 1, found num_groups={a.num_groups}")
    if isinstance(channels, int) and channels % a.num_groups:
        raise RelationError(
            f"num_groups={a.num_groups} does not divide the {channels} channels of axis {a.axis}"
        )
    return out


def _group_norm_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.group_norm``: the axis of extent ``C`` split into ``(num_groups, C / num_groups)``;
    mean and variance per group over its ``C / num_groups`` channels and every axis after the
    axis (the axes before it, the batch, are kept); then gamma and beta per channel.

    Undefined: non-float data."""
    a = _attrs(attrs, GroupNormAttrs)
    data, gamma, beta = args
    x = _float_data(data, "nn.group_norm")
    axis = a.axis % data.ndim
    c = data.shape[axis]
    grouped = x.reshape(
        *data.shape[:axis], a.num_groups, c // a.num_groups, *data.shape[axis + 1 :]
    )
    axes = tuple(range(axis + 1, grouped.ndim))
    with np.errstate(all="ignore"):
        mean, var = _moments(grouped, axes)
        normed = ((grouped - mean) / np.sqrt(var + _constant(a.epsilon, x.dtype))).reshape(
            data.shape
        )
    shape = [1] * data.ndim
    shape[axis] = c
    with np.errstate(all="ignore"):
        if a.scale:
            normed = normed * gamma.astype(x.dtype).reshape(shape)
        if a.center:
            normed = normed + beta.astype(x.dtype).reshape(shape)
    return np.asarray(normed).astype(data.dtype)


def _instance_norm_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``InstanceNorm``: as ``LayerNorm``, with data of rank > 2."""
    a = _attrs(attrs, InstanceNormAttrs)
    data = tensor_arg(arg_types[0], "data")
    if len(data.shape) <= 2:
        raise RelationError(
            f"expected data of rank at least 3, found rank {len(data.shape)} "
            f"{_shape_str(data.shape)}"
        )
    return _affine_vectors(arg_types, a.axis)


def _instance_norm_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.instance_norm``: ``nn.layer_norm`` with the mean and variance over every axis but 0
    and the axis.

    Undefined: non-float data."""
    a = _attrs(attrs, InstanceNormAttrs)
    data, gamma, beta = args
    x = _float_data(data, "nn.instance_norm")
    axis = a.axis % data.ndim
    axes = tuple(i for i in range(1, data.ndim) if i != axis)
    return _normalise(x, gamma, beta, axes, axis, a).astype(data.dtype)


def _l2_normalize_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Identity`` for ``nn.l2_normalize``: data's type; each of the ``axis`` list in
    ``[-ndim, ndim)``, none repeated, at least one.

    Departure from TVM: the axes are checked (TVM left them to the ``sum`` they became)."""
    a = _attrs(attrs, L2NormalizeAttrs)
    data = tensor_arg(arg_types[0], "data")
    if not a.axis:
        raise RelationError("axis=[] names no axis: l2_normalize needs at least one")
    axes = []
    for ax in a.axis:
        if not -len(data.shape) <= ax < len(data.shape):
            raise RelationError(
                f"axis={_show(a.axis)}: {ax} is out of range for a tensor of rank {len(data.shape)}"
            )
        axes.append(ax % len(data.shape))
    if len(set(axes)) != len(axes):
        raise RelationError(f"axis={_show(a.axis)} names an axis twice")
    return TensorType(data.shape, data.dtype)


def _l2_normalize_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.l2_normalize``: ``x / sqrt(max(sum(x^2, axis), eps))``, with TVM's ``maximum``
    (``select(a > b, a, b)``: a NaN sum gives eps).

    Undefined: non-float data."""
    a = _attrs(attrs, L2NormalizeAttrs)
    data = args[0]
    x = _float_data(data, "nn.l2_normalize")
    axes = tuple(ax % data.ndim for ax in a.axis)
    with np.errstate(all="ignore"):
        total = np.sum(x * x, axis=axes, keepdims=True)
        eps = _constant(a.eps, x.dtype)
        # TVM's maximum is select(a > b, a, b): a NaN sum gives eps.
        bounded = np.where(total > eps, total, eps)
        out = x / np.sqrt(bounded)
    return np.asarray(out).astype(data.dtype)


def _lrn_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Identity`` for ``nn.lrn``: data's type; data of rank 4, ``axis`` 1 (NCHW) or 3 (NHWC),
    ``size`` odd and positive.

    Departure from TVM: rank, axis and size are checked (TOPI's ``ICHECK`` assertions)."""
    a = _attrs(attrs, LRNAttrs)
    data = tensor_arg(arg_types[0], "data")
    if len(data.shape) != 4:
        raise RelationError(
            f"expected 4-D data, found rank {len(data.shape)} {_shape_str(data.shape)}"
        )
    if a.axis not in (1, 3):
        raise RelationError(f"axis={a.axis} is not supported: expected 1 (NCHW) or 3 (NHWC)")
    if a.size < 1 or a.size % 2 == 0:
        raise RelationError(f"size={a.size} must be an odd positive number")
    return TensorType(data.shape, data.dtype)


def _lrn_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.lrn``: ``x / (bias + alpha * s / size)^beta``, ``s`` the sum of squares over the
    window of ``size`` channels centred on each channel along the axis (zero beyond the ends;
    ``topi/nn/local_response_norm.h``).

    Undefined: non-float data."""
    a = _attrs(attrs, LRNAttrs)
    data = args[0]
    x = _float_data(data, "nn.lrn")
    if x.shape[a.axis] == 0:
        return np.asarray(x).astype(data.dtype)  # no channels: nothing to normalise
    half = a.size // 2
    pads = [(0, 0)] * 4
    pads[a.axis] = (half, half)
    squares = np.pad(np.square(x), pads)
    window = np.lib.stride_tricks.sliding_window_view(squares, a.size, axis=a.axis)
    cd = x.dtype
    with np.errstate(all="ignore"):
        total = window.sum(axis=-1)
        base = _constant(a.bias, cd) + _constant(a.alpha, cd) * total / cd.type(a.size)
        out = x / np.power(base, _constant(a.beta, cd))
    return np.asarray(out).astype(data.dtype)


_NORMS = (
    ("nn.layer_norm", LayerNormAttrs, _layer_norm_relation, _layer_norm_reference, "LayerNorm",
     "Layer normalisation along one axis, with per-channel scale and offset.",
     "onnxruntime:LayerNormalization"),
    ("nn.group_norm", GroupNormAttrs, _group_norm_relation, _group_norm_reference, "GroupNorm",
     "Group normalisation: statistics per group of channels, per-channel scale and offset.",
     "onnxruntime:GroupNormalization"),
    ("nn.instance_norm", InstanceNormAttrs, _instance_norm_relation, _instance_norm_reference,
     "InstanceNorm", "Instance normalisation: statistics per sample and channel.",
     "onnxruntime:InstanceNormalization"),
)  # fmt: skip


for _name, _type, _relation, _reference, _rel_name, _doc, _check in _NORMS:
    _op(
        _name,
        _doc,
        relation=_relation,
        reference=tensor_reference(_reference),
        check=_check,
        relation_name=_rel_name,
        inputs=("data", "gamma", "beta"),
        attrs_type=_type,
    )


_op(
    "nn.l2_normalize",
    "Divide by the L2 norm over the axes, bounded below by sqrt(eps).",
    relation=_l2_normalize_relation,
    reference=tensor_reference(_l2_normalize_reference),
    check="onnxruntime:LpNormalization",
    attrs_type=L2NormalizeAttrs,
)


_op(
    "nn.lrn",
    "Local response normalisation across a window of channels.",
    relation=_lrn_relation,
    reference=tensor_reference(_lrn_reference),
    check="onnxruntime:LRN",
    attrs_type=LRNAttrs,
)
