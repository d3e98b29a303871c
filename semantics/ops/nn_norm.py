"""Neural-network normalisation and loss operators.

::

    nn.layer_norm(data, gamma, beta, axis=-1, epsilon=1e-5, center=True, scale=True)
                                                      LayerNormAttrs     LayerNorm     opaque
    nn.group_norm(data, gamma, beta, num_groups=0, axis=1, epsilon=1e-5, center=True,
                  scale=True)                         GroupNormAttrs     GroupNorm     opaque
    nn.instance_norm(data, gamma, beta, axis=1, epsilon=1e-5, center=True, scale=True)
                                                      InstanceNormAttrs  InstanceNorm  opaque
    nn.l2_normalize(data, eps=, axis=)                L2NormalizeAttrs   Identity      opaque
    nn.lrn(data, size=5, axis=1, bias=2, alpha=1e-4, beta=0.75)
                                                      LRNAttrs           Identity      opaque
    nn.cross_entropy(x, y)                                               CrossEntropy  opaque
    nn.nll_loss(predictions, targets, weights, reduction="mean", ignore_index=)
                                                      NLLLossAttrs       NLLLoss       out-fusable
    nn.fast_softmax(data, axis=-1)                    SoftmaxAttrs       Softmax       out-fusable

``name=`` marks a required attribute (TVM declared ``L2NormalizeAttrs.eps``, ``.axis`` and
``NLLLossAttrs.ignore_index`` without a default). Attribute fields follow TVM 0.18's
``include/tvm/relay/attrs/nn.h``; argument names follow ``src/relay/op/nn/nn.cc`` (TVM names
``nn.cross_entropy``'s arguments ``x`` and ``y``: predictions and targets). The fusion patterns
are TVM's: ``nn.lrn`` and ``nn.cross_entropy`` registered ``opaque``; ``layer_norm``,
``group_norm``, ``instance_norm`` and ``l2_normalize`` registered none, which fusion reads as
``opaque`` (``SimplifyInference`` rewrites them into elementwise ops and reductions before
fusion).

Types::

    LayerNorm      data of rank >= 1, -ndim <= axis < ndim; gamma and beta are (C,) of data's
    InstanceNorm   dtype, C = data.shape[axis]; the result has data's type. InstanceNorm
    GroupNorm      needs rank > 2; GroupNorm needs num_groups >= 1 dividing C
    Identity       nn.l2_normalize: each axis in [-ndim, ndim), no repeats, at least one;
                   nn.lrn: rank 4, axis 1 or 3, size odd and positive; the result is data's
                   type
    CrossEntropy   x and y of rank 2, equal shapes and dtypes -> a scalar of x's dtype
    NLLLoss        predictions (N, C, d1..) of a float dtype, targets (N, d1..) of a signed
                   integer dtype, weights (C,) of predictions' dtype; predictions may also be
                   (C,) with rank-0 targets; reduction "none" -> targets' shape, "mean" or
                   "sum" -> a scalar, in predictions' dtype
    Softmax        as nn.softmax: data's type, -ndim <= axis < ndim

Meaning (TVM 0.18: ``SimplifyInference`` in ``src/relay/transforms/simplify_inference.cc`` for
the first four, TOPI for the others)::

    layer_norm     m = mean(x, axis); v = mean((x - m)^2, axis);
                   (x - m) / sqrt(v + eps) [* gamma] [+ beta], gamma and beta along axis
    instance_norm  the same with m and v over every axis but 0 and axis
    group_norm     axis of extent C split into (num_groups, C / num_groups); m and v per
                   group over the C / num_groups channels and every axis after axis
                   (axes before axis, the batch, are kept); then gamma and beta per channel
    l2_normalize   x / sqrt(max(sum(x^2, axis), eps))
    lrn            x / (bias + alpha * s / size)^beta, s the sum of squares over the window
                   of size channels centred on each channel along axis (zero beyond the
                   ends; topi/nn/local_response_norm.h)
    cross_entropy  -sum(log(x) * y) / N, N = x.shape[0] (_nn.py's compute)
    nll_loss       per target t = targets[n, d..]: l = -predictions[n, t, d..] * weights[t],
                   0 where t == ignore_index; "none" gives l, "sum" sum(l), "mean"
                   sum(l) / sum(weights[t] over targets not ignored) (topi nll_loss; NaN
                   when every target is ignored)
    fast_softmax   softmax with TVM's fast_exp for float32 (topi fast_exp_float32: the
                   input clamped to +-88.376, 2^n by exponent bits times a degree-7
                   polynomial in f = x - n ln 2, n = floor(x log2 e + 1/2), the result at
                   least x); other float dtypes use exp

The normalisations compute epsilon, bias, alpha and beta as constants of the data's dtype.
Float16 is computed in float32 and rounded once at the end, as in ``ops.nn``.

Undefined behaviour (``UndefinedBehavior``)::

    every op       non-float data (log, sqrt, exp and pow are float intrinsics; the relations
                   accept other dtypes, nothing defines the result)
    nll_loss       a target outside [0, C) that is not ignore_index: topi reads predictions
                   and weights at it, out of bounds

Deliberate departures from TVM 0.18: the relations check what TVM's relations left to a later
crash or to a silent misreading: ``group_norm``'s ``num_groups`` (TVM divided by it in
``SimplifyInference``), ``l2_normalize``'s axes (checked only by the ``sum`` it became),
``lrn``'s rank, axis and size (TOPI's ``ICHECK``\\ s), ``cross_entropy``'s dtypes (TOPI's
multiply needs one dtype), and ``nll_loss``'s target shape (TVM compared ranks only) and
``reduction`` (TVM's relation read any string but "none" as a reduction; TOPI's compute read any
string but "mean" and "sum" as "none"). ``nll_loss`` targets equal to ``ignore_index`` are
defined (they contribute 0) although TOPI's ``Select`` also evaluates the ignored branch,
reading predictions at ``ignore_index``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..syntax import Dim, TensorType, Type
from .nn import (
    SoftmaxAttrs,
    _attrs,
    _axis,
    _compute_dtype,
    _Num,
    _require_float,
    _shape_str,
    _show,
    _softmax_relation,
    _ub,
    _vector,
)
from .registry import AttrKind, Attrs, OpDef, OpPattern, RelationError, attr_field, register
from .shapes import dims_equal, tensor_arg

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


@dataclass(frozen=True, slots=True, kw_only=True)
class NLLLossAttrs(Attrs):
    """Attributes of ``nn.nll_loss``: how losses reduce and which target is ignored."""

    # Keyword-only: TVM declares the required ignore_index after the defaulted reduction.

    type_key: ClassVar[str] = "relay.attrs.NLLLossAttrs"
    reduction: str = attr_field(AttrKind.STR, "mean", doc='"none", "mean" or "sum".')
    ignore_index: int = attr_field(AttrKind.INT, doc="The target value that contributes 0.")


# ---------------------------------------------------------------------------------------------
# Shared helpers


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


def _float_data(x: _Num, op: str) -> _Num:
    """``x`` in its compute dtype, after checking it is a float."""
    _require_float(x, op)
    return x.astype(_compute_dtype(x.dtype))


# ---------------------------------------------------------------------------------------------
# nn.layer_norm, nn.group_norm, nn.instance_norm


def _layer_norm_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    return _affine_vectors(arg_types, _attrs(attrs, LayerNormAttrs).axis)


def _layer_norm_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    a = _attrs(attrs, LayerNormAttrs)
    data, gamma, beta = args
    x = _float_data(data, "nn.layer_norm")
    axis = a.axis % data.ndim
    return _normalise(x, gamma, beta, (axis,), axis, a).astype(data.dtype)


def _group_norm_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
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
    a = _attrs(attrs, InstanceNormAttrs)
    data = tensor_arg(arg_types[0], "data")
    if len(data.shape) <= 2:
        raise RelationError(
            f"expected data of rank at least 3, found rank {len(data.shape)} "
            f"{_shape_str(data.shape)}"
        )
    return _affine_vectors(arg_types, a.axis)


def _instance_norm_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    a = _attrs(attrs, InstanceNormAttrs)
    data, gamma, beta = args
    x = _float_data(data, "nn.instance_norm")
    axis = a.axis % data.ndim
    axes = tuple(i for i in range(1, data.ndim) if i != axis)
    return _normalise(x, gamma, beta, axes, axis, a).astype(data.dtype)


# ---------------------------------------------------------------------------------------------
# nn.l2_normalize, nn.lrn


def _l2_normalize_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
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
    a = _attrs(attrs, LRNAttrs)
    data = args[0]
    x = _float_data(data, "nn.lrn")
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


# ---------------------------------------------------------------------------------------------
# nn.cross_entropy, nn.nll_loss


def _cross_entropy_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    x = tensor_arg(arg_types[0], "x")
    y = tensor_arg(arg_types[1], "y")
    if len(x.shape) != 2 or len(y.shape) != 2:
        raise RelationError(
            f"expected 2-D x and y, found x {_shape_str(x.shape)} and y {_shape_str(y.shape)}"
        )
    if any(dims_equal(p, q) is False for p, q in zip(x.shape, y.shape, strict=True)):
        raise RelationError(
            f"shapes of x and y are inconsistent: x {_shape_str(x.shape)}, y {_shape_str(y.shape)}"
        )
    if x.dtype != y.dtype:
        raise RelationError(f"x and y must have one dtype, found {x.dtype} and {y.dtype}")
    return TensorType((), x.dtype)


def _cross_entropy_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    x, y = (_float_data(v, "nn.cross_entropy") for v in args)
    with np.errstate(all="ignore"):
        total = -np.sum(np.log(x) * y)
        out = total / x.dtype.type(x.shape[0])
    return np.asarray(out).astype(args[0].dtype)


_REDUCTIONS = ("none", "mean", "sum")


def _nll_loss_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, NLLLossAttrs)
    predictions = tensor_arg(arg_types[0], "predictions")
    targets = tensor_arg(arg_types[1], "targets")
    weights = tensor_arg(arg_types[2], "weights")
    if a.reduction not in _REDUCTIONS:
        raise RelationError(f'reduction must be "none", "mean" or "sum", found "{a.reduction}"')
    if len(predictions.shape) != len(targets.shape) + 1:
        raise RelationError(
            f"predictions should be one dimension larger than targets, found predictions "
            f"{_shape_str(predictions.shape)} and targets {_shape_str(targets.shape)}"
        )
    expected: tuple[Dim, ...] = (predictions.shape[0], *predictions.shape[2:])
    if len(predictions.shape) == 1:
        expected = ()
    if any(dims_equal(t, e) is False for t, e in zip(targets.shape, expected, strict=True)):
        raise RelationError(
            f"targets {_shape_str(targets.shape)} do not match predictions "
            f"{_shape_str(predictions.shape)}: expected {_shape_str(expected)}"
        )
    if len(weights.shape) != 1:
        raise RelationError(
            f"weights should be a 1-D tensor of the number of classes, found "
            f"{_shape_str(weights.shape)}"
        )
    classes = predictions.shape[0 if len(predictions.shape) == 1 else 1]
    if dims_equal(classes, weights.shape[0]) is False:
        raise RelationError(
            f"the classes of predictions {_shape_str(predictions.shape)} must be the length "
            f"of weights {_shape_str(weights.shape)}"
        )
    if not predictions.dtype.startswith("float") or predictions.dtype != weights.dtype:
        raise RelationError(
            f"predictions and weights should be of the same float dtype, found "
            f"{predictions.dtype} and {weights.dtype}"
        )
    if not targets.dtype.startswith("int"):
        raise RelationError(f"targets should be of a signed integer dtype, found {targets.dtype}")
    if a.reduction == "none":
        return TensorType(targets.shape, predictions.dtype)
    return TensorType((), predictions.dtype)


def _nll_loss_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    a = _attrs(attrs, NLLLossAttrs)
    predictions, targets, weights = args
    cd = _compute_dtype(predictions.dtype)
    classes = predictions.shape[0 if predictions.ndim == 1 else 1]
    t = targets.astype(np.int64)
    kept = t != a.ignore_index
    if ((t[kept] < 0) | (t[kept] >= classes)).any():
        raise _ub("nn.nll_loss", f"a target outside [0, {classes}) reads out of bounds")
    safe = np.where(kept, t, 0)
    p = predictions.astype(cd)
    w = weights.astype(cd)
    if predictions.ndim == 1:
        picked = p[safe]
    else:
        picked = np.take_along_axis(p, np.expand_dims(safe, 1), axis=1).squeeze(1)
    zero = cd.type(0)
    with np.errstate(all="ignore"):
        losses = np.where(kept, -picked * w[safe], zero)
        if a.reduction == "none":
            return np.asarray(losses).astype(predictions.dtype)
        total = np.sum(losses)
        if a.reduction == "sum":
            return np.asarray(total).astype(predictions.dtype)
        out = total / np.sum(np.where(kept, w[safe], zero))
    return np.asarray(out).astype(predictions.dtype)


# ---------------------------------------------------------------------------------------------
# nn.fast_softmax

_F32 = np.float32
_FAST_EXP_POLY = tuple(
    _F32(c)
    for c in (
        *(1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3),
        *(4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1),
    )
)


def fast_exp_float32(x: _Num) -> _Num:
    """TOPI's ``fast_exp_float32``, operation by operation in float32 (min and max are TVM's
    ordered selects)."""
    with np.errstate(all="ignore"):
        hi, lo = _F32(88.3762626647950), _F32(-88.3762626647949)
        clamped = np.where(x < hi, x, hi)
        clamped = np.where(clamped > lo, clamped, lo)
        n = np.floor(clamped * _F32(1.44269504088896341) + _F32(0.5))
        f = clamped - n * _F32(0.6931471805599453)
        y = _FAST_EXP_POLY[0]
        for c in _FAST_EXP_POLY[1:]:
            y = y * f + c
        y = y * f * f + f + _F32(1.0)
        exponent = np.nan_to_num(n + _F32(127.0)).astype(np.int32)
        scale = (exponent << 23).view(np.float32)
        value = scale * y
        return np.asarray(np.where(value > x, value, x), np.float32)


def _fast_softmax_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    a = _attrs(attrs, SoftmaxAttrs)
    data = args[0]
    x = _float_data(data, "nn.fast_softmax")
    axis = a.axis % data.ndim
    if not x.size:
        return data.copy()
    with np.errstate(all="ignore"):
        delta = x - np.max(x, axis=axis, keepdims=True)
        e = fast_exp_float32(delta) if data.dtype == np.float32 else np.exp(delta)
        out = e / np.sum(e, axis=axis, keepdims=True)
    return np.asarray(out).astype(data.dtype)


# ---------------------------------------------------------------------------------------------
# Registration

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
    register(
        OpDef(
            _name,
            ("data", "gamma", "beta"),
            _type,
            OpPattern.OPAQUE,
            _doc,
            relation=_relation,
            reference=_reference,
            relation_name=_rel_name,
            family="nn",
            check=_check,
        )
    )
register(
    OpDef(
        "nn.l2_normalize",
        ("data",),
        L2NormalizeAttrs,
        OpPattern.OPAQUE,
        "Divide by the L2 norm over the axes, bounded below by sqrt(eps).",
        relation=_l2_normalize_relation,
        reference=_l2_normalize_reference,
        relation_name="Identity",
        family="nn",
        check="onnxruntime:LpNormalization",
    )
)
register(
    OpDef(
        "nn.lrn",
        ("data",),
        LRNAttrs,
        OpPattern.OPAQUE,
        "Local response normalisation across a window of channels.",
        relation=_lrn_relation,
        reference=_lrn_reference,
        relation_name="Identity",
        family="nn",
        check="onnxruntime:LRN",
    )
)
register(
    OpDef(
        "nn.cross_entropy",
        ("x", "y"),
        None,
        OpPattern.OPAQUE,
        "Cross entropy of probabilities x against targets y, averaged over the batch.",
        relation=_cross_entropy_relation,
        reference=_cross_entropy_reference,
        relation_name="CrossEntropy",
        family="nn",
        check="independent:direct loop over the batch and classes",
    )
)
register(
    OpDef(
        "nn.nll_loss",
        ("predictions", "targets", "weights"),
        NLLLossAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "Negative log-likelihood loss of log-probabilities at the target classes.",
        relation=_nll_loss_relation,
        reference=_nll_loss_reference,
        relation_name="NLLLoss",
        family="nn",
        check="onnxruntime:NegativeLogLikelihoodLoss",
    )
)
register(
    OpDef(
        "nn.fast_softmax",
        ("data",),
        SoftmaxAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "Softmax along axis with TVM's fast approximate exp for float32.",
        relation=_softmax_relation,
        reference=_fast_softmax_reference,
        relation_name="Softmax",
        family="nn",
        check="onnxruntime:Softmax",
    )
)
