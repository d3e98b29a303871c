"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.nn.norm``.

From the former ``z3_nnnorm`` module:

Z3 encodings of the type relations of the ``nnnorm`` operator group.

Normalisations and losses (``ops.nn_norm``), resampling (``ops.nn_resample``) and
``image.resize2d`` (``ops.image``), written from TVM 0.18's relations (``src/relay/op/nn/nn.cc``,
``nn/pad.cc``, ``nn/upsampling.cc``, ``image/resize.cc``) and the departures those modules
document (``group_norm``'s groups, ``lrn``'s rank/axis/size, NCHW/NHWC layouts only, TOPI's
divisibility checks for the ``*_nd`` ops). Each encoding's docstring states its rule.
"""

from __future__ import annotations

from collections.abc import Sequence

from relay.semantics.ops.nn.norm import (
    BatchNormAttrs,
    GroupNormAttrs,
    InstanceNormAttrs,
    L2NormalizeAttrs,
    LayerNormAttrs,
    LRNAttrs,
)
from relay.semantics.ops.registry import Attrs

from ..core import Arg, Cond, Encoded, Encoding, IllTyped, Shape, _attrs, _axis, _tensor, well_typed


def _batch_norm(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """BatchNormRel: axis in [-1, ndim) (-1 is the last axis; no other negative); gamma,
    beta, moving_mean, moving_var are (C,) of data's dtype; out (data, (C,), (C,))."""
    data = _tensor(args, 0)
    a = _attrs(attrs, BatchNormAttrs)
    ndim = len(data.shape)
    if ndim == 0 or not -1 <= a.axis < ndim:
        raise IllTyped(f"axis {a.axis} must be in [-1, {ndim})")
    channels = data.shape[a.axis]
    vectors = [_tensor(args, k) for k in range(1, 5)]
    if any(len(v.shape) != 1 or v.dtype != data.dtype for v in vectors):
        raise IllTyped(f"gamma, beta, moving_mean and moving_var must be vectors of {data.dtype}")
    cons = [v.shape[0] == channels for v in vectors]
    outputs = [data.shape, [channels], [channels]]
    return well_typed(outputs, cons, [data.dtype] * 3, tuple_output=True)


def _dropout(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DropoutRel: (out, mask), both with data's shape and dtype."""
    data = _tensor(args, 0)
    return well_typed([data.shape, data.shape], dtypes=[data.dtype] * 2, tuple_output=True)


def _affine(args: Sequence[Arg], axis: int, min_rank: int = 1) -> tuple[Shape, str, list[Cond]]:
    """data of rank >= min_rank with axis in range; gamma and beta vectors of data's dtype
    and length data[axis]."""
    data = _tensor(args, 0, "data")
    if len(data.shape) < min_rank:
        raise IllTyped(f"data needs rank >= {min_rank}")
    index = _axis(axis, len(data.shape))
    cons: list[Cond] = []
    for k in (1, 2):
        v = _tensor(args, k)
        if len(v.shape) != 1 or v.dtype != data.dtype:
            raise IllTyped(f"gamma and beta must be vectors of {data.dtype}")
        cons.append(v.shape[0] == data.shape[index])
    return data.shape, data.dtype, cons


def _layer_norm(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """LayerNormRel: axis in [-ndim, ndim); gamma, beta (data[axis],) of data's dtype; out =
    data."""
    shape, dtype, cons = _affine(args, _attrs(attrs, LayerNormAttrs).axis)
    return well_typed([shape], cons, [dtype])


def _instance_norm(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """InstanceNormRel: as LayerNormRel, with data of rank > 2."""
    shape, dtype, cons = _affine(args, _attrs(attrs, InstanceNormAttrs).axis, min_rank=3)
    return well_typed([shape], cons, [dtype])


def _group_norm(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """GroupNormRel: as LayerNormRel; num_groups >= 1 divides data[axis]."""
    a = _attrs(attrs, GroupNormAttrs)
    shape, dtype, cons = _affine(args, a.axis)
    if a.num_groups < 1:
        raise IllTyped(f"num_groups {a.num_groups} < 1")
    channels = shape[_axis(a.axis, len(shape))]
    return well_typed([shape], [*cons, channels % a.num_groups == 0], [dtype])


def _l2_normalize(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """IdentityRel, with at least one axis, each in range, none repeated."""
    data = _tensor(args, 0, "data")
    axes = [_axis(ax, len(data.shape)) for ax in _attrs(attrs, L2NormalizeAttrs).axis]
    if not axes or len(set(axes)) != len(axes):
        raise IllTyped("l2_normalize needs distinct axes, at least one")
    return well_typed([data.shape], dtypes=[data.dtype])


def _lrn(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """IdentityRel, with 4-D data, axis 1 or 3, and an odd positive size."""
    data = _tensor(args, 0, "data")
    a = _attrs(attrs, LRNAttrs)
    if len(data.shape) != 4 or a.axis not in (1, 3) or a.size < 1 or a.size % 2 == 0:
        raise IllTyped("lrn needs 4-D data, axis 1 or 3 and an odd size")
    return well_typed([data.shape], dtypes=[data.dtype])


RULES: dict[str, Encoding] = {
    "nn.batch_norm": _batch_norm,
    "nn.dropout": _dropout,
    "nn.layer_norm": _layer_norm,
    "nn.group_norm": _group_norm,
    "nn.instance_norm": _instance_norm,
    "nn.l2_normalize": _l2_normalize,
    "nn.lrn": _lrn,
}
"""This module's entries, by op name."""
