"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.reduce``.

From the former ``z3_arith`` module:

Z3 encodings of the type relations of the ``arith`` operator group.

The group is ``ops.arith`` (more elementwise operators), ``ops.scan`` (``variance``, ``all``,
``any``, ``cumsum``, ``cumprod``) and ``ops.annotation`` (``annotation.stop_fusion``,
``on_device``, ``device_copy``). Each encoding is written from TVM 0.18's relation
(``IdentityRel``, ``IdentityCompRel``, ``BroadcastRel``, ``CastRel`` as ``Reinterpret``,
``VarianceRel``, ``ReduceRel``, ``ScanopRel``) and the deviations those modules document,
independently of their relation functions; its docstring states its rule.
"""

from __future__ import annotations

from collections.abc import Sequence

import z3

from relay.semantics.ops.reduce import ArgReduceAttrs, ReduceAttrs, ScanopAttrs, VarianceAttrs
from relay.semantics.ops.registry import Attrs

from .core import (
    ONE,
    Arg,
    Cond,
    Encoded,
    Encoding,
    IllTyped,
    Shape,
    _attrs,
    _axis,
    _tensor,
    product,
    well_typed,
)


def _reduce_axes(ndim: int, axis: tuple[int, ...] | None, exclude: bool) -> list[int]:
    """The reduced axes: all for None or (), else the listed ones (or the others with
    exclude); each in [-ndim, ndim), no repeats."""
    if not axis:
        return list(range(ndim))
    listed = [_axis(a, ndim) for a in axis]
    if len(set(listed)) != len(listed):
        raise IllTyped(f"repeated reduction axis in {axis}")
    return [i for i in range(ndim) if (i in listed) != exclude]


def _reduce_shape(shape: Shape, axes: list[int], keepdims: bool) -> Shape:
    if keepdims:
        return [ONE if i in axes else d for i, d in enumerate(shape)]
    return [d for i, d in enumerate(shape) if i not in axes]


def _reduce(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """ReduceRel: reduced axes dropped (or kept as 1 with keepdims); dtype unchanged."""
    data = _tensor(args, 0)
    a = _attrs(attrs, ReduceAttrs)
    axes = _reduce_axes(len(data.shape), a.axis, a.exclude)
    return well_typed([_reduce_shape(data.shape, axes, a.keepdims)], dtypes=[data.dtype])


def _arg_reduce(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """ArgReduceRel: as ReduceRel, but data has rank >= 1 and the result is int32."""
    data = _tensor(args, 0)
    a = _attrs(attrs, ArgReduceAttrs)
    if not data.shape:
        raise IllTyped("argmax/argmin need an input of rank >= 1")
    axes = _reduce_axes(len(data.shape), a.axis, a.exclude)
    return well_typed([_reduce_shape(data.shape, axes, a.keepdims)], dtypes=["int32"])


def _variance(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """VarianceRel: float data of rank >= 1; mean of data's dtype and rank, each size equal
    to data's or 1; out = the reduced shape, data's dtype."""
    if len(args) != 2:
        raise IllTyped(f"expected data and mean, found {len(args)} arguments")
    data, mean = _tensor(args, 0), _tensor(args, 1)
    a = _attrs(attrs, VarianceAttrs)
    ndim = len(data.shape)
    if ndim == 0 or not data.dtype.startswith("float"):
        raise IllTyped("variance needs float data of rank >= 1")
    if mean.dtype != data.dtype or len(mean.shape) != ndim:
        raise IllTyped("mean must have data's dtype and rank")
    cons: list[Cond] = [z3.Or(m == d, m == 1) for m, d in zip(mean.shape, data.shape, strict=True)]
    axes = _reduce_axes(ndim, a.axis, a.exclude)
    return well_typed([_reduce_shape(data.shape, axes, a.keepdims)], cons, [data.dtype])


def _bool_reduce(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """ReduceRel on bool data: reduced axes dropped (kept as 1 with keepdims)."""
    data = _tensor(args, 0)
    a = _attrs(attrs, ReduceAttrs)
    if data.dtype != "bool":
        raise IllTyped(f"all/any need bool, found {data.dtype}")
    axes = _reduce_axes(len(data.shape), a.axis, a.exclude)
    return well_typed([_reduce_shape(data.shape, axes, a.keepdims)], dtypes=["bool"])


def _scanop(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """ScanopRel: rank >= 1; with an axis (in range) out = data's shape, without one out =
    (product of data's sizes,); dtype the attribute's, or data's when empty."""
    data = _tensor(args, 0)
    a = _attrs(attrs, ScanopAttrs)
    if not data.shape:
        raise IllTyped("cumsum/cumprod need rank >= 1")
    dtype = a.dtype or data.dtype
    if a.axis is None:
        out: Shape = [product(data.shape)]
    else:
        _axis(a.axis, len(data.shape))
        out = list(data.shape)
    return well_typed([out], dtypes=[dtype])


RULES: dict[str, Encoding] = {
    **{name: _reduce for name in ("sum", "mean", "max", "min", "prod")},
    **{name: _arg_reduce for name in ("argmax", "argmin")},
    "variance": _variance,
    "all": _bool_reduce,
    "any": _bool_reduce,
    "cumsum": _scanop,
    "cumprod": _scanop,
}
"""This module's entries, by op name."""
