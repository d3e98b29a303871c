"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.linalg``.

From the former ``samplers_shaping`` module:

Samplers of the ``shaping`` operator group.

Each strategy draws one call: mostly well-typed (shapes derived from one another, attributes
chosen to fit), about one in five broken in one way (an axis out of range, a mismatched size,
a wrong dtype or attribute). Symbolic ``n`` and ``?`` sizes appear where the relation must
handle them. Everything shrinks towards small ranks, sizes 1, default attributes and the
valid variant (see ``samplers``).
"""

from __future__ import annotations

from hypothesis import strategies as st

from relay.semantics.ops.linalg import EinsumAttrs, MatrixSetDiagAttrs, TriluAttrs
from relay.semantics.syntax import DTYPES, Dim, TupleType

from .core import (
    FLOATS,
    INTEGERS,
    NUMERIC,
    Sample,
    Sampler,
    _bad_size,
    _dim,
    _other,
    _shape,
    _tensor,
    _valid,
)


@st.composite
def _einsum(draw: st.DrawFn) -> Sample:
    """One to three operands over a few labels (some shared), perhaps with an ellipsis
    span; an explicit output of distinct labels, or the implicit one."""
    valid = _valid(draw)
    labels = list(draw(st.sampled_from(["ij", "ijk", "abcd", "iJ"])))
    sizes: dict[str, Dim] = {c: _dim(draw, symbolic=True) for c in labels}
    ellipsis = list(_shape(draw, 0, 2)) if draw(st.integers(0, 3)) == 0 else None
    terms: list[str] = []
    shapes: list[list[Dim]] = []
    for _ in range(draw(st.integers(1, 3))):
        chosen = draw(st.lists(st.sampled_from(labels), max_size=3))
        term = "".join(chosen)
        shape = [sizes[c] for c in chosen]
        if ellipsis is not None:
            cut = draw(st.integers(0, len(ellipsis)))
            part = [d if draw(st.booleans()) else 1 for d in ellipsis[cut:]]
            term = "..." + term
            shape = part + shape
        terms.append(term)
        shapes.append(shape)
    used = sorted({c for t in terms for c in t if c.isalpha()})
    output = None
    if draw(st.booleans()):
        chosen_out = draw(st.permutations(used))[: draw(st.integers(0, len(used)))]
        output = ("..." if ellipsis is not None else "") + "".join(chosen_out)
    dtype = draw(st.sampled_from(NUMERIC))
    dtypes = [dtype] * len(shapes)
    if not valid:
        fault = draw(st.sampled_from(["size", "dtype", "terms", "label"]))
        named = [c for c in used if isinstance(sizes[c], int)]
        if fault == "size" and named:
            c = named[0]
            terms.append(c)
            shapes.append([_bad_size(draw, sizes[c])])
            dtypes.append(dtype)
        elif fault == "dtype" and len(shapes) > 1:
            dtypes[-1] = _other(draw, dtype, NUMERIC)
        elif fault in ("size", "dtype", "terms"):
            shapes.append([])
            dtypes.append(dtype)
        else:
            output = "Z"
    equation = ",".join(terms) + ("" if output is None else "->" + output)
    fields = tuple(_tensor(s, t) for s, t in zip(shapes, dtypes, strict=True))
    return Sample((TupleType(fields),), EinsumAttrs.from_kwargs({"equation": equation}), valid)


@st.composite
def _matrix_set_diag(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    batch = list(_shape(draw, 0, 2, symbolic=True, any_=True))
    rows, cols = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    k1 = draw(st.integers(-(rows - 1), cols - 1))
    k2 = draw(st.integers(k1, cols - 1)) if draw(st.booleans()) else k1
    length = min(rows + min(k2, 0), cols - max(k1, 0))
    diag: list[Dim] = [*batch, *([k2 - k1 + 1] if k2 > k1 else []), length]
    kwargs: dict[str, object] = {
        "k1": k1,
        "k2": k2,
        "super_diag_right_align": draw(st.booleans()),
        "sub_diag_right_align": draw(st.booleans()),
    }
    dtype = draw(st.sampled_from(DTYPES))
    diag_dtype = dtype
    if not valid:
        fault = draw(st.sampled_from(["order", "length", "exists", "dtype"]))
        if fault == "order":
            kwargs.update(k1=k2 + 1, k2=k2)
        elif fault == "length":
            diag[-1] = length + 1
        elif fault == "exists":
            kwargs["k2"] = cols + draw(st.integers(0, 2))
        else:
            diag_dtype = _other(draw, dtype, DTYPES)
    types = (_tensor([*batch, rows, cols], dtype), _tensor(diag, diag_dtype))
    return Sample(types, MatrixSetDiagAttrs.from_kwargs(kwargs), valid)


@st.composite
def _trilu(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape = _shape(draw, 2, symbolic=True, any_=True)
    k_shape: tuple[Dim, ...] = ()
    k_dtype = draw(st.sampled_from(INTEGERS))
    if not valid:
        fault = draw(st.sampled_from(["rank", "k", "dtype"]))
        if fault == "rank":
            shape = shape[:1]
        elif fault == "k":
            k_shape = (draw(st.integers(1, 3)),)
        else:
            k_dtype = draw(st.sampled_from([*FLOATS, "bool"]))
    types = (_tensor(shape, draw(st.sampled_from(DTYPES))), _tensor(k_shape, k_dtype))
    return Sample(types, TriluAttrs.from_kwargs({"upper": draw(st.booleans())}), valid)


SAMPLERS: dict[str, Sampler] = {
    "einsum": _einsum,
    "matrix_set_diag": _matrix_set_diag,
    "trilu": _trilu,
}
"""This module's entries, by op name."""
