"""Dataflow-generator builders of the operators of
``relay.semantics.ops.create`` (well-typed calls by construction).

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

from relay.semantics.ops.create import ArangeAttrs, InitOpAttrs

from .core import (
    ALL,
    NUMERIC,
    UNSIGNED,
    Builder,
    Built,
    _constant,
    _Graph,
    _sources,
    _targets,
    _unary,
)


def _full_like(g: _Graph) -> Built:
    """Any data; a rank-0 fill value of a dtype that converts to the data's."""
    data = g.tensor(ALL)
    return (data, g.tensor(_sources(data[1].dtype), max_rank=0)), None


def _init(g: _Graph) -> Built:
    """``zeros`` and ``ones``: a shape and a dtype."""
    return (), InitOpAttrs.from_kwargs({"shape": g.shape(), "dtype": g.dtype(ALL)})


def _full(g: _Graph) -> Built:
    """A rank-0 fill value; the dtype attribute "" (the fill's) or one it converts to."""
    fill = g.tensor(ALL, max_rank=0)
    dtype = g.dtype(_targets(fill[1].dtype)) if g.flag() else ""
    return (fill,), InitOpAttrs.from_kwargs({"shape": g.shape(), "dtype": dtype})


def _arange(g: _Graph) -> Built:
    """Constant start, step (non-zero) and stop giving 0 to 6 elements, all in range."""
    dtype = g.dtype(NUMERIC)
    unsigned = dtype in UNSIGNED
    start = g.integer(0 if unsigned else -3, 3)
    step = g.pick([1, 2, 3] if unsigned else [1, 2, -1, 3, -2])
    count = g.integer(0, 6)
    stop = (
        start
        + step * count
        - (g.integer(0, abs(step) - 1) if abs(step) > 1 else 0) * (1 if step > 0 else -1)
    )
    if unsigned:
        stop = max(stop, 0)
    values = [np.asarray(v, dtype=dtype) for v in (start, stop, step)]
    args = tuple(_constant(g, v) for v in values)
    return args, ArangeAttrs.from_kwargs({"dtype": dtype})


BUILDERS: dict[str, Builder] = {
    **{name: _unary(ALL) for name in ("zeros_like", "ones_like")},
    "full_like": _full_like,
    "zeros": _init,
    "ones": _init,
    "full": _full,
    "arange": _arange,
}
"""This module's entries, by op name."""
