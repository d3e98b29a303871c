"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.create``.

From the former ``z3_indexing`` module:

Z3 encodings of the type relations of the ``indexing`` operator group.

Written from TVM 0.18's relations (``src/relay/op/tensor/transform.cc``,
``src/relay/op/algorithm/*.cc``) and the departures ``ops.indexing`` documents, independently
of the relation functions there. Each encoding's docstring states its rule.
"""

from __future__ import annotations

from collections.abc import Sequence

import z3

from relay.semantics.ops.create import ArangeAttrs, InitOpAttrs
from relay.semantics.ops.registry import Attrs

from .core import (
    Arg,
    Encoded,
    Encoding,
    IllTyped,
    _attrs,
    _identity,
    _shape_attr,
    _tensor,
    well_typed,
)


def _full_like(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """FullLikeRel: fill_value is a scalar (any dtype); out = data's shape and dtype."""
    data, fill = _tensor(args, 0), _tensor(args, 1)
    if fill.shape:
        raise IllTyped("fill_value must be a scalar")
    return well_typed([data.shape], dtypes=[data.dtype])


def _init(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """InitOpRel (zeros, ones): out = shape attribute, dtype attribute, which is required
    (TVM would make a void tensor)."""
    a = _attrs(attrs, InitOpAttrs)
    if not a.dtype:
        raise IllTyped("zeros and ones need a dtype")
    return well_typed([_shape_attr(a.shape)], dtypes=[a.dtype])


def _full(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """FullRel: fill_value is a scalar; out = shape attribute, dtype attribute or fill's."""
    fill = _tensor(args, 0)
    a = _attrs(attrs, InitOpAttrs)
    if fill.shape:
        raise IllTyped("fill_value must be a scalar")
    return well_typed([_shape_attr(a.shape)], dtypes=[a.dtype or fill.dtype])


def _arange(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Arange: start, stop, step are rank-0 tensors of the dtype attribute; out (n,) for
    some n >= 0 (the relation says ?)."""
    a = _attrs(attrs, ArangeAttrs)
    for i in range(3):
        t = _tensor(args, i)
        if t.shape or t.dtype != a.dtype:
            raise IllTyped("start, stop and step must be scalars of dtype")
    return well_typed([[z3.FreshInt("arange_n")]], dtypes=[a.dtype])


RULES: dict[str, Encoding] = {
    **{name: _identity for name in ("zeros_like", "ones_like")},
    "full_like": _full_like,
    "zeros": _init,
    "ones": _init,
    "full": _full,
    "arange": _arange,
}
"""This module's entries, by op name."""
