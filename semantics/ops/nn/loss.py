r"""Losses: nn.cross_entropy, nn.nll_loss.

::

    nn.cross_entropy(x, y)                                               CrossEntropy  opaque
    nn.nll_loss(predictions, targets, weights, reduction="mean", ignore_index=)
                                                      NLLLossAttrs       NLLLoss       out-fusable

``name=`` marks a required attribute (TVM declared ``NLLLossAttrs.ignore_index`` without a
default). Attribute fields follow TVM 0.18's ``include/tvm/relay/attrs/nn.h``; argument names
follow ``src/relay/op/nn/nn.cc`` (TVM names ``nn.cross_entropy``'s arguments ``x`` and ``y``:
predictions and targets); the fusion patterns are TVM's (``nn.cross_entropy`` registered
``opaque``). Each relation's and reference's docstring states its operator's rule, undefined
cases and departures from TVM. Float16 is computed in float32 and rounded once at the end, as
in ``ops.nn``; non-float data is undefined for both (``log`` is a float intrinsic; the
relations accept other dtypes, nothing defines the result).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ...syntax import Dim, TensorType, Type
from ..registry import (
    AttrKind,
    Attrs,
    OpPattern,
    OpRegistrar,
    RelationError,
    attr_field,
    tensor_reference,
)
from ..shapes import dims_equal, tensor_arg
from .activation import _float_data
from .common import (
    _attrs,
    _compute_dtype,
    _Num,
    _shape_str,
    _ub,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class NLLLossAttrs(Attrs):
    """Attributes of ``nn.nll_loss``: how losses reduce and which target is ignored."""

    # Keyword-only: TVM declares the required ignore_index after the defaulted reduction.

    type_key: ClassVar[str] = "relay.attrs.NLLLossAttrs"
    reduction: str = attr_field(AttrKind.STR, "mean", doc='"none", "mean" or "sum".')
    ignore_index: int = attr_field(AttrKind.INT, doc="The target value that contributes 0.")


def _cross_entropy_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``CrossEntropy``: x and y of rank 2, equal shapes and dtypes; a scalar of x's dtype.

    Departure from TVM: the dtypes are checked (TOPI's multiply needs one dtype)."""
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
    """``nn.cross_entropy``: ``-sum(log(x) * y) / N``, ``N = x.shape[0]`` (TVM's ``_nn.py``
    compute).

    Undefined: non-float data."""
    x, y = (_float_data(v, "nn.cross_entropy") for v in args)
    with np.errstate(all="ignore"):
        total = -np.sum(np.log(x) * y)
        out = total / x.dtype.type(x.shape[0])
    return np.asarray(out).astype(args[0].dtype)


_REDUCTIONS = ("none", "mean", "sum")


def _nll_loss_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``NLLLoss``: predictions ``(N, C, d1..)`` of a float dtype, targets ``(N, d1..)`` of a
    signed integer dtype, weights ``(C,)`` of predictions' dtype; predictions may also be
    ``(C,)`` with rank-0 targets; reduction "none" gives targets' shape, "mean" or "sum" a
    scalar, in predictions' dtype.

    Departures from TVM: the target shape is checked (TVM compared ranks only), and so is
    ``reduction`` (TVM's relation read any string but "none" as a reduction; TOPI's compute read
    any string but "mean" and "sum" as "none")."""
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
    """``nn.nll_loss`` (TOPI's ``nll_loss``): per target ``t = targets[n, d..]``,
    ``l = -predictions[n, t, d..] * weights[t]``, 0 where ``t == ignore_index``; "none" gives
    ``l``, "sum" ``sum(l)``, "mean" ``sum(l) / sum(weights[t] over targets not ignored)`` (NaN
    when every target is ignored). Targets equal to ``ignore_index`` are defined (they
    contribute 0) although TOPI's ``Select`` also evaluates the ignored branch, reading
    predictions at ``ignore_index``.

    Undefined: non-float data; a target outside ``[0, C)`` that is not ``ignore_index`` (TOPI
    reads predictions and weights at it, out of bounds)."""
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


_op = OpRegistrar(__name__)


_op(
    "nn.cross_entropy",
    "Cross entropy of probabilities x against targets y, averaged over the batch.",
    relation=_cross_entropy_relation,
    reference=tensor_reference(_cross_entropy_reference),
    check="independent:direct loop over the batch and classes",
    relation_name="CrossEntropy",
    inputs=("x", "y"),
    pattern=OpPattern.OPAQUE,
)


_op(
    "nn.nll_loss",
    "Negative log-likelihood loss of log-probabilities at the target classes.",
    relation=_nll_loss_relation,
    reference=tensor_reference(_nll_loss_reference),
    check="onnxruntime:NegativeLogLikelihoodLoss",
    relation_name="NLLLoss",
    inputs=("predictions", "targets", "weights"),
    attrs_type=NLLLossAttrs,
    pattern=OpPattern.OUT_ELEMWISE_FUSABLE,
)
