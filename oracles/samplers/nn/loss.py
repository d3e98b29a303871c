"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.nn.loss``.

From the former ``samplers_nnnorm`` module:

Samplers of the ``nnnorm`` operator group: normalisations, losses, resampling, resize.

Each draws a call that is well-typed four times in five (``_valid``) and otherwise breaks it
in one way (a wrong vector length or dtype, an axis out of range, a bad attribute value or
length). All randomness is drawn from Hypothesis; samples shrink towards small shapes, default
attributes and the valid variant.
"""

from __future__ import annotations

from hypothesis import strategies as st

from relay.semantics.ops.nn.loss import NLLLossAttrs
from relay.semantics.syntax import Dim

from ..core import (
    FLOATS,
    SIGNED,
    UNSIGNED,
    Sample,
    Sampler,
    _bad_size,
    _other,
    _shape,
    _tensor,
    _valid,
)


@st.composite
def _cross_entropy(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    x = list(_shape(draw, 2, 2, symbolic=True, any_=True))
    y = list(x)
    dtype = draw(st.sampled_from(FLOATS))
    other = dtype
    if not valid:
        fault = draw(st.sampled_from(["size", "rank", "dtype"]))
        if fault == "size":
            x[1] = draw(st.integers(2, 5))
            y[1] = _bad_size(draw, x[1])
        elif fault == "rank":
            y.append(1)
        else:
            other = _other(draw, dtype, FLOATS)
    return Sample((_tensor(x, dtype), _tensor(y, other)), None, valid)


@st.composite
def _nll_loss(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    rank = draw(st.integers(1, 4))
    p = list(_shape(draw, rank, rank, symbolic=True, any_=True))
    t: list[Dim] = [] if rank == 1 else [p[0], *p[2:]]
    classes = p[0] if rank == 1 else p[1]
    dtype, tdtype = draw(st.sampled_from(FLOATS)), draw(st.sampled_from(SIGNED))
    w: list[Dim] = [classes]
    wdtype = dtype
    reduction = draw(st.sampled_from(["mean", "sum", "none"]))
    if not valid:
        fault = draw(st.sampled_from(["classes", "targets", "dtype", "reduction", "rank"]))
        if fault == "classes":
            w = [_bad_size(draw, classes) if isinstance(classes, int) else 1, 1]
        elif fault == "targets":
            t.append(2)
        elif fault == "dtype":
            tdtype = draw(st.sampled_from(UNSIGNED + FLOATS))
        elif fault == "reduction":
            reduction = "avg"
        else:
            wdtype = _other(draw, dtype, FLOATS)
    attrs = NLLLossAttrs.from_kwargs(
        {"reduction": reduction, "ignore_index": draw(st.sampled_from([-100, 0]))}
    )
    types = (_tensor(p, dtype), _tensor(t, tdtype), _tensor(w, wdtype))
    return Sample(types, attrs, valid)


SAMPLERS: dict[str, Sampler] = {
    "nn.cross_entropy": _cross_entropy,
    "nn.nll_loss": _nll_loss,
}
"""This module's entries, by op name."""
