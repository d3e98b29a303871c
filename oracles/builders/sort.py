"""Dataflow-generator builders of the operators of
``relay.semantics.ops.sort`` (well-typed calls by construction).

From the former ``builders_indexing`` module:

Dataflow-generator builders of the ``indexing`` operator group.

Index tensors whose values must lie in range (gather, gather_nd, the scatters,
sparse_to_dense, unravel_index, invert_permutation) and searchsorted's sorted sequence are
constants built here from Hypothesis draws, in range by construction; writes with mode
"update" go to distinct positions. Inputs whose every value is defined (one_hot's indices,
sequence_mask's lengths, the data of the sorts) come from the pool or fresh parameters.
"""

from __future__ import annotations

import numpy as np

from relay.semantics.ops.sort import ArgsortAttrs, SearchSortedAttrs, TopKAttrs

from .core import ALL, UNSIGNED, Builder, Built, _constant, _dims, _Graph, _index_array


def _sort_family(op: str) -> Builder:
    """Data of rank >= 1; an axis; for topk a k (< 1 sometimes: the whole axis) and a
    ret_type."""

    def build(g: _Graph) -> Built:
        data = g.tensor(ALL, min_rank=1)
        ndim = len(data[1].shape)
        axis_index = g.integer(0, ndim - 1)
        extent = _dims(data[1])[axis_index]
        axis = g.axis(axis_index, ndim)
        ascend = g.flag()
        dtype = g.pick(["int32", "int64"])
        if op == "topk":
            attrs = TopKAttrs.from_kwargs(
                {
                    "k": g.integer(0, min(4, extent)),
                    "axis": axis,
                    "ret_type": g.pick(["both", "values", "indices"]),
                    "is_ascend": ascend,
                    "dtype": dtype,
                }
            )
        else:
            attrs = ArgsortAttrs.from_kwargs({"axis": axis, "is_ascend": ascend, "dtype": dtype})
        return (data,), attrs

    return build


def _searchsorted(g: _Graph) -> Built:
    """Any values of rank >= 1; a constant sorted vector of their dtype."""
    values = g.tensor(ALL, min_rank=1)
    dtype = values[1].dtype
    low = 0 if dtype in UNSIGNED or dtype == "bool" else -3
    high = 1 if dtype == "bool" else 3
    seq = np.sort(_index_array(g, (g.integer(1, 4),), low, high + 1, "int64")).astype(dtype)
    attrs = SearchSortedAttrs.from_kwargs({"right": g.flag(), "dtype": g.pick(["int32", "int64"])})
    return (_constant(g, seq), values), attrs


BUILDERS: dict[str, Builder] = {
    "sort": _sort_family("sort"),
    "argsort": _sort_family("argsort"),
    "topk": _sort_family("topk"),
    "searchsorted": _searchsorted,
}
"""This module's entries, by op name."""
