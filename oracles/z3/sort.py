"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.sort``.

From the former ``z3_indexing`` module:

Z3 encodings of the type relations of the ``indexing`` operator group.

Written from TVM 0.18's relations (``src/relay/op/tensor/transform.cc``,
``src/relay/op/algorithm/*.cc``) and the departures ``ops.indexing`` documents, independently
of the relation functions there. Each encoding's docstring states its rule.
"""

from __future__ import annotations

from collections.abc import Sequence

import z3

from relay.semantics.ops.registry import Attrs
from relay.semantics.ops.sort import ArgsortAttrs, SearchSortedAttrs, TopKAttrs

from .core import (
    _INTS,
    Arg,
    Encoded,
    Encoding,
    IllTyped,
    Shape,
    _attrs,
    _axis,
    _known,
    _tensor,
    well_typed,
)


def _sort_family(kind: str) -> Encoding:
    def encode(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
        """Sort / Argsort: axis in range; out = data's shape, data's dtype (sort) or the
        integer dtype attribute (argsort)."""
        data = _tensor(args, 0)
        a = _attrs(attrs, ArgsortAttrs)
        _axis(a.axis, len(data.shape))
        if kind == "sort":
            return well_typed([list(data.shape)], dtypes=[data.dtype])
        if a.dtype not in _INTS:
            raise IllTyped("argsort needs an integer dtype")
        return well_typed([list(data.shape)], dtypes=[a.dtype])

    return encode


def _topk(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """TopK: k given, axis in range, ret_type both/values/indices, integer dtype; the axis
    extent becomes k when k >= 1; values of data's dtype, indices of dtype."""
    data = _tensor(args, 0)
    a = _attrs(attrs, TopKAttrs)
    if a.k is None or a.dtype not in _INTS:
        raise IllTyped("k and an integer dtype are needed")
    axis = _axis(a.axis, len(data.shape))
    out: Shape = list(data.shape)
    if a.k >= 1:
        out[axis] = z3.IntVal(a.k)
    if a.ret_type == "both":
        return well_typed([out, out], dtypes=[data.dtype, a.dtype], tuple_output=True)
    if a.ret_type == "values":
        return well_typed([out], dtypes=[data.dtype])
    if a.ret_type == "indices":
        return well_typed([out], dtypes=[a.dtype])
    raise IllTyped(f"ret_type {a.ret_type}")


def _searchsorted(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """SearchSorted: both of rank >= 1 and one dtype; a sequence of rank > 1 has values'
    rank and the same outer extents where both are constants; out = values' shape,
    integer dtype attribute."""
    seq, values = _tensor(args, 0), _tensor(args, 1)
    a = _attrs(attrs, SearchSortedAttrs)
    if not seq.shape or not values.shape or seq.dtype != values.dtype:
        raise IllTyped("ranks or dtypes")
    if a.dtype not in _INTS:
        raise IllTyped("dtype")
    if len(seq.shape) > 1:
        if len(seq.shape) != len(values.shape):
            raise IllTyped("ranks differ")
        for s, v in zip(seq.shape[:-1], values.shape[:-1], strict=True):
            ks, kv = _known(s), _known(v)
            if ks is not None and kv is not None and ks != kv:
                raise IllTyped("outer extents differ")
    return well_typed([list(values.shape)], dtypes=[a.dtype])


RULES: dict[str, Encoding] = {
    "sort": _sort_family("sort"),
    "argsort": _sort_family("argsort"),
    "topk": _topk,
    "searchsorted": _searchsorted,
}
"""This module's entries, by op name."""
