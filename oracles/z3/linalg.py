"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.linalg``.

From the former ``z3_shaping`` module:

Z3 encodings of the type relations of the ``shaping`` operator group.

Written from TVM 0.18's relations (``src/relay/op/tensor/transform.cc``, ``unary.cc``,
``math.cc``) and the departures ``relay.semantics.ops.shaping`` documents, independently of
the relation functions there; each encoding's docstring states its rule. Sizes are Z3 terms;
what ranks and attributes alone decide is checked in Python (``IllTyped``).
"""

from __future__ import annotations

from collections.abc import Sequence

import z3

from relay.semantics.ops.linalg import EinsumAttrs, MatrixSetDiagAttrs, TriluAttrs
from relay.semantics.ops.registry import Attrs

from .core import (
    Arg,
    Cond,
    Encoded,
    Encoding,
    IllTyped,
    Shape,
    Term,
    _attrs,
    _broadcast,
    _tensor,
    _tuple,
    well_typed,
)


def _einsum_labels(term: str) -> list[str]:
    if term.count("...") > 1:
        raise IllTyped(f"two ellipses in {term!r}")
    parts = term.split("...")
    if any(not (c.isascii() and c.isalpha()) for p in parts for c in p):
        raise IllTyped(f"bad label in {term!r}")
    labels = list(parts[0])
    if len(parts) == 2:
        labels += [".", *parts[1]]
    return labels


def _einsum(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Einsum: one dtype; one term per operand, its letters plus an ellipsis span covering
    the rank; a letter's sizes are all equal; ellipsis spans broadcast (right-aligned); the
    output (explicit: distinct known letters, "..." iff an input has one; implicit: "..." then
    the letters used once, sorted) takes those sizes."""
    fields = _tuple(args, 0)
    equation = _attrs(attrs, EinsumAttrs).equation
    if len({f.dtype for f in fields}) != 1:
        raise IllTyped("einsum operands of different dtypes")
    if equation.count("->") > 1:
        raise IllTyped("two arrows")
    lhs, _, rhs = equation.partition("->")
    terms = [_einsum_labels(t) for t in lhs.split(",")]
    if len(terms) != len(fields):
        raise IllTyped("term count differs from operand count")
    sizes: dict[str, list[Term]] = {}
    ellipsis: Shape = []
    cons: list[Cond] = []
    for term, f in zip(terms, fields, strict=True):
        span = len(f.shape) - (len(term) - term.count("."))
        if span < 0 or (span and "." not in term):
            raise IllTyped("a term does not fit its operand's rank")
        at = 0
        for c in term:
            if c == ".":
                part = f.shape[at : at + span]
                ellipsis, more = _broadcast(ellipsis, part)
                cons += more
                at += span
            else:
                sizes.setdefault(c, []).append(f.shape[at])
                at += 1
    for values in sizes.values():
        cons += [v == values[0] for v in values[1:]]
    has_ellipsis = any("." in t for t in terms)
    if "->" in equation:
        output = _einsum_labels(rhs)
        if len(set(output)) != len(output) or any(c != "." and c not in sizes for c in output):
            raise IllTyped("bad output term")
        if ("." in output) != has_ellipsis:
            raise IllTyped("output ellipsis mismatch")
    else:
        counts = [c for t in terms for c in t if c != "."]
        output = (["."] if has_ellipsis else []) + sorted(c for c in sizes if counts.count(c) == 1)
    out: Shape = []
    for c in output:
        out += ellipsis if c == "." else [sizes[c][0]]
    return well_typed([out], cons, [fields[0].dtype])


def _matrix_set_diag(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """MatrixSetDiag: k1 <= k2; input (.., M, N) with M > -k1 and N > k2; diagonal of
    input's dtype, shaped (.., [k2 - k1 + 1 if k1 < k2,] min(M + min(k2, 0), N - max(k1,
    0))); out = input."""
    data, diag = _tensor(args, 0), _tensor(args, 1)
    a = _attrs(attrs, MatrixSetDiagAttrs)
    if a.k1 > a.k2 or len(data.shape) < 2 or data.dtype != diag.dtype:
        raise IllTyped("bad k range, rank or dtype")
    *batch, m, n = data.shape
    want = batch + ([z3.IntVal(a.k2 - a.k1 + 1)] if a.k1 < a.k2 else [])
    first, second = m + min(a.k2, 0), n - max(a.k1, 0)
    want.append(z3.If(first <= second, first, second))
    if len(diag.shape) != len(want):
        raise IllTyped("diagonal of the wrong rank")
    cons = [m > -a.k1, n > a.k2, *(d == w for d, w in zip(diag.shape, want, strict=True))]
    return well_typed([data.shape], cons, [data.dtype])


def _trilu(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """trilu: data of rank >= 2; k rank 0 of an int or uint dtype; out = data."""
    data, k = _tensor(args, 0), _tensor(args, 1)
    _attrs(attrs, TriluAttrs)
    if len(data.shape) < 2 or k.shape or not k.dtype.startswith(("int", "uint")):
        raise IllTyped("trilu needs rank >= 2 data and an integer scalar k")
    return well_typed([data.shape], dtypes=[data.dtype])


RULES: dict[str, Encoding] = {
    "einsum": _einsum,
    "matrix_set_diag": _matrix_set_diag,
    "trilu": _trilu,
}
"""This module's entries, by op name."""
