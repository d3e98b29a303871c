"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.sort``.

From the former ``samplers_indexing`` module:

Samplers of the ``indexing`` operator group.

Each sampler draws a call that is valid four times in five, else broken in one way (a wrong
dtype, rank, extent or attribute). Symbolic ``n`` and ``?`` appear where relations must
handle them. All randomness comes from Hypothesis, shrinking to small valid calls.
"""

from __future__ import annotations

from hypothesis import strategies as st

from relay.semantics.ops.sort import ArgsortAttrs, SearchSortedAttrs, TopKAttrs

from .core import NUMERIC, Sample, Sampler, _axis_form, _dim, _shape, _tensor, _valid


def _sort_family(op: str) -> Sampler:
    @st.composite
    def sample(draw: st.DrawFn) -> Sample:
        valid = _valid(draw)
        data = _shape(draw, 1, 4, symbolic=True, any_=True)
        axis = _axis_form(draw, draw(st.integers(0, len(data) - 1)), len(data))
        dtype = draw(st.sampled_from(("int32", "int64")))
        k = draw(st.integers(-1, 4))
        ret_type = draw(st.sampled_from(["both", "values", "indices"]))
        if not valid:
            fault = draw(st.sampled_from(["axis", "dtype", "ret_type"]))
            if fault == "axis":
                axis = draw(st.sampled_from([len(data), -len(data) - 1]))
            elif fault == "dtype" and op != "sort":
                dtype = "float32"
            else:
                ret_type = "all"
        is_ascend = draw(st.booleans())
        types = (_tensor(data, draw(st.sampled_from(NUMERIC))),)
        if op == "topk":
            attrs = TopKAttrs.from_kwargs(
                {"k": k, "axis": axis, "ret_type": ret_type, "is_ascend": is_ascend, "dtype": dtype}
            )
        else:
            attrs = ArgsortAttrs.from_kwargs({"axis": axis, "is_ascend": is_ascend, "dtype": dtype})
        return Sample(types, attrs, valid)

    return sample


@st.composite
def _searchsorted(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    values = list(_shape(draw, 1, 3, symbolic=True, any_=True))
    seq = [_dim(draw)] if draw(st.booleans()) else [*values[:-1], _dim(draw, symbolic=True)]
    dtype, vdtype = draw(st.sampled_from(NUMERIC)), None
    if not valid:
        fault = draw(st.sampled_from(["dtype", "rank", "outer"]))
        if fault == "dtype":
            vdtype = "bool"
        elif fault == "rank":
            values = []
        elif len(seq) > 1:
            seq[0] = 7
            values[0] = 2
        else:
            seq = [2, *seq, 3]
    attrs = SearchSortedAttrs.from_kwargs(
        {"right": draw(st.booleans()), "dtype": draw(st.sampled_from(("int32", "int64")))}
    )
    return Sample((_tensor(seq, dtype), _tensor(values, vdtype or dtype)), attrs, valid)


SAMPLERS: dict[str, Sampler] = {
    "sort": _sort_family("sort"),
    "argsort": _sort_family("argsort"),
    "topk": _sort_family("topk"),
    "searchsorted": _searchsorted,
}
"""This module's entries, by op name."""
