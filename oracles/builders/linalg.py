"""Dataflow-generator builders of the operators of
``relay.semantics.ops.linalg`` (well-typed calls by construction).

From the former ``builders_shaping`` module:

Dataflow-generator builders of the ``shaping`` operator group.

Each builder makes a well-typed call whose meaning is defined for the default generated
arguments (see ``gen_dataflow``): shapes are derived so that the relation holds, attributes
are drawn from what the inputs allow, and results keep rank 4 or less. The second inputs of
the ``*_like`` operators, ``matrix_set_diag``'s diagonal and ``einsum``'s later operands are
asked for by exact type (a pool value of that type, or a fresh leaf). ``reverse_sequence``'s
lengths are defined for every value (``topi`` clamps them), but a fresh vector of lengths is
usually a constant with entries in ``[0, extent]`` so that the reversal does something.
"""

from __future__ import annotations

from relay.semantics.ops.linalg import EinsumAttrs, MatrixSetDiagAttrs, TriluAttrs
from relay.semantics.syntax import TensorType

from .core import ALL, INTEGERS, MAX_RANK, NUMERIC, Builder, Built, _dims, _Graph, _permutation

_LABELS = "abcdefgh"


def _einsum(g: _Graph) -> Built:
    """A first operand of rank <= 3 (a numeric dtype: bool contractions are undefined) whose
    axes get labels (equal sizes may share one: a diagonal); perhaps a second operand of the
    same dtype reusing some of those labels and adding new ones; an explicit output of at
    most four distinct labels, or the implicit one when it has at most four."""
    first = g.tensor(NUMERIC, max_rank=3)
    dtype = first[1].dtype
    shape = _dims(first[1])
    sizes: dict[str, int] = {}
    term = ""
    for d in shape:
        same = [c for c, s in sizes.items() if s == d]
        if same and g.integer(0, 3) == 3:
            term += same[0]
        else:
            c = _LABELS[len(sizes)]
            sizes[c] = d
            term += c
    terms = [term]
    fields = [first]
    if g.flag():
        second = ""
        for _ in range(g.integer(0, 3)):
            known = list(sizes)
            if g.flag() and known:
                second += g.pick(known)
            else:
                c = _LABELS[len(sizes)]
                sizes[c] = g.dim()
                second += c
        shape2 = tuple(sizes[c] for c in second)
        fields.append(g.exactly(TensorType(shape2, dtype)))
        terms.append(second)
    used = [c for t in terms for c in t]
    once = sorted(c for c in set(used) if used.count(c) == 1)
    equation = ",".join(terms)
    if len(once) > MAX_RANK or g.flag():
        labels = sorted(set(used))
        out = [labels[i] for i in _permutation(g, len(labels))][: g.integer(0, MAX_RANK)]
        equation += "->" + "".join(out)
    return (g.tuple_of(fields),), EinsumAttrs.from_kwargs({"equation": equation})


def _matrix_set_diag(g: _Graph) -> Built:
    """Input with non-empty matrices; a diagonal range that exists; the diagonal's type
    follows (same dtype)."""
    data = g.tensor(ALL, min_rank=2, fits=lambda t: min(_dims(t)[-2:]) >= 1)
    shape = _dims(data[1])
    rows, cols = shape[-2], shape[-1]
    k1 = g.integer(-(rows - 1), cols - 1)
    k2 = g.integer(k1, cols - 1) if g.flag() else k1
    length = min(rows + min(k2, 0), cols - max(k1, 0))
    diag = (*shape[:-2], *((k2 - k1 + 1,) if k2 > k1 else ()), length)
    attrs = MatrixSetDiagAttrs.from_kwargs(
        {
            "k1": k1,
            "k2": k2,
            "super_diag_right_align": not g.flag(),
            "sub_diag_right_align": g.flag(),
        }
    )
    return (data, g.exactly(TensorType(diag, data[1].dtype))), attrs


def _trilu(g: _Graph) -> Built:
    """Any rank-0 integer k is defined (out of range it keeps all or nothing)."""
    data = g.tensor(ALL, min_rank=2)
    k = g.tensor(INTEGERS, max_rank=0)
    return (data, k), TriluAttrs.from_kwargs({"upper": not g.flag()})


BUILDERS: dict[str, Builder] = {
    "einsum": _einsum,
    "matrix_set_diag": _matrix_set_diag,
    "trilu": _trilu,
}
"""This module's entries, by op name."""
