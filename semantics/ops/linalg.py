"""Linear-algebra operators on the innermost matrices: einsum, trilu, matrix_set_diag.

::

    einsum(data, equation=)          data is a tuple        EinsumAttrs           injective
    matrix_set_diag(input, diagonal, k1=0, k2=0, super_diag_right_align=True,
                    sub_diag_right_align=False)             MatrixSetDiagAttrs    injective
    trilu(data, k, upper=True)       k is a rank-0 tensor   TriluAttrs            elemwise

``name=`` marks a required attribute. Attribute fields follow TVM 0.18's
``include/tvm/relay/attrs/transform.h``; relations and patterns follow
``src/relay/op/tensor/transform.cc`` and ``math.cc`` (``einsum``), and are named as TVM
registered them (the name prefixes their error messages); computes follow
``include/tvm/topi/transform.h`` and ``einsum.h``. Each relation's and reference's docstring
states its operator's rule, undefined cases and departures from TVM.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ..errors import UndefinedBehavior
from ..syntax import ANY, AnyDim, Dim, TensorType, TupleType, Type
from .create import _attrs, _fmt, _out_shape, _type_of
from .registry import (
    AttrKind,
    Attrs,
    OpInput,
    OpPattern,
    OpRegistrar,
    RelationError,
    Tensor,
    attr_field,
    tensor_reference,
)
from .shape import _fields, _run_time, _tuple_value, _two
from .shapes import (
    broadcast_shapes,
    dims_equal,
)


@dataclass(frozen=True, slots=True)
class EinsumAttrs(Attrs):
    """Attributes of ``einsum``: the equation in numpy's notation."""

    type_key: ClassVar[str] = "relay.attrs.EinsumAttrs"
    equation: str = attr_field(AttrKind.STR, doc="The einsum expression string.")


@dataclass(frozen=True, slots=True)
class MatrixSetDiagAttrs(Attrs):
    """Attributes of ``matrix_set_diag``: the diagonals replaced and their alignment."""

    type_key: ClassVar[str] = "relay.attrs.MatrixSetDiagAttrs"
    k1: int = attr_field(AttrKind.INT, 0, doc="Lower limit (included) of the range of diagonals.")
    k2: int = attr_field(AttrKind.INT, 0, doc="Upper limit (included) of the range of diagonals.")
    super_diag_right_align: bool = attr_field(
        AttrKind.BOOL, True, doc="Whether super-diagonals are right aligned (left-padded)."
    )
    sub_diag_right_align: bool = attr_field(
        AttrKind.BOOL, False, doc="Whether sub-diagonals are right aligned (left-padded)."
    )


@dataclass(frozen=True, slots=True)
class TriluAttrs(Attrs):
    """Attributes of ``trilu``: whether to keep the upper or the lower triangle."""

    type_key: ClassVar[str] = "relay.attrs.TriluAttrs"
    upper: bool = attr_field(
        AttrKind.BOOL, True, doc="Keep the upper (True) or lower (False) part of the diagonal."
    )


def _integer_dtype(dtype: str) -> bool:
    return dtype.startswith(("int", "uint"))


_ELLIPSIS = "..."


def _einsum_term(term: str, equation: str) -> list[str]:
    """One term of an equation as labels, ``...`` standing for the ellipsis."""
    labels: list[str] = []
    rest = term
    while rest:
        if rest.startswith(_ELLIPSIS):
            if _ELLIPSIS in labels:
                raise RelationError(f'equation "{equation}": "..." twice in the term "{term}"')
            labels.append(_ELLIPSIS)
            rest = rest[3:]
        elif rest[0].isascii() and rest[0].isalpha():
            labels.append(rest[0])
            rest = rest[1:]
        else:
            raise RelationError(f'equation "{equation}": invalid character {rest[0]!r}')
    return labels


def _einsum_terms(equation: str, count: int) -> tuple[list[list[str]], list[str]]:
    """The input terms and the output term (implicit output made explicit)."""
    if equation.count("->") > 1:
        raise RelationError(f'equation "{equation}" has more than one "->"')
    lhs, arrow, rhs = equation.partition("->")
    inputs = [_einsum_term(t, equation) for t in lhs.split(",")]
    if len(inputs) != count:
        raise RelationError(
            f'equation "{equation}" has {len(inputs)} input term(s) for {count} operand(s)'
        )
    used = [c for t in inputs for c in t if c != _ELLIPSIS]
    ellipsis = any(_ELLIPSIS in t for t in inputs)
    if not arrow:
        once = sorted(c for c in set(used) if used.count(c) == 1)
        return inputs, ([_ELLIPSIS] if ellipsis else []) + once
    output = _einsum_term(rhs, equation)
    for c in output:
        if output.count(c) > 1:
            raise RelationError(f'equation "{equation}": the output repeats the label {c}')
        if c != _ELLIPSIS and c not in used:
            raise RelationError(f'equation "{equation}": the output label {c} is not an input')
    if (_ELLIPSIS in output) != ellipsis:
        raise RelationError(
            f'equation "{equation}": the output must have "..." exactly when an input does'
        )
    return inputs, output


def _einsum_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Einsum``: a non-empty tuple of one dtype; the equation's terms fit the operands
    (letters, one "..." per term); a label has one extent everywhere; "..." parts broadcast;
    implicit output: "..." then the labels used once, sorted.

    Departures from TVM: a label's extents must all be equal (no broadcasting of 1-extent
    labels), and an explicit output has "..." exactly when an input does."""
    a = _attrs(attrs, EinsumAttrs)
    fields = _fields(arg_types)
    dtype = fields[0].dtype
    for i, f in enumerate(fields):
        if f.dtype != dtype:
            raise RelationError(
                f"einsum requires tensors of the same dtype: field 0 is {dtype}, field {i} is "
                f"{f.dtype}"
            )
    inputs, output = _einsum_terms(a.equation, len(fields))
    extents: dict[str, Dim] = {}
    ellipsis: tuple[Dim, ...] = ()
    for i, (term, f) in enumerate(zip(inputs, fields, strict=True)):
        named = [c for c in term if c != _ELLIPSIS]
        span = len(f.shape) - len(named)
        if span < 0 or (span > 0 and _ELLIPSIS not in term):
            raise RelationError(
                f'equation "{a.equation}": the term "{"".join(term)}" does not fit operand {i} '
                f"of rank {len(f.shape)}"
            )
        dims: list[Dim] = []
        for c in term:
            if c == _ELLIPSIS:
                at = len(dims)
                ellipsis = broadcast_shapes(ellipsis, f.shape[at : at + span])
                dims += list(f.shape[at : at + span])
                continue
            d = f.shape[len(dims)]
            dims.append(d)
            seen = extents.get(c)
            if seen is not None and dims_equal(seen, d) is False:
                raise RelationError(
                    f'equation "{a.equation}": the label {c} has extents {seen} and {d}'
                )
            if seen is None or isinstance(seen, AnyDim):
                extents[c] = d
    oshape: list[Dim] = []
    for c in output:
        oshape += list(ellipsis) if c == _ELLIPSIS else [extents[c]]
    return TensorType(tuple(oshape), dtype)


def _einsum_reference(args: tuple[OpInput, ...], attrs: Attrs | None) -> Tensor:
    """``einsum``: numpy's ``einsum``; products and sums in the dtype (narrow integers wrap).
    The argument arrives as ``args[0]``, a tuple of arrays.

    Undefined: int32, int64, uint32 or uint64 inputs whose sum of products of magnitudes (a 0
    counted as 1) exceeds the dtype's maximum, which bounds every partial product and sum
    (``add``/``mul`` carry ``nsw``/``nuw`` there; see ``ops.reduce``); bool inputs that sum over
    a label (a label of the inputs missing from the output): TVM adds 1-bit integers, which is
    not a defined boolean operation here."""
    fields = _tuple_value(args)
    a = _attrs(attrs, EinsumAttrs)
    t = _run_time(
        "einsum", lambda: _einsum_relation((TupleType(tuple(map(_type_of, fields))),), attrs)
    )
    dtype = fields[0].dtype
    inputs, output = _einsum_terms(a.equation, len(fields))
    explicit = a.equation if "->" in a.equation else f"{a.equation}->{''.join(output)}"
    summed = {c for term in inputs for c in term} - set(output)
    if dtype == np.bool_ and summed:
        raise UndefinedBehavior(
            f'einsum "{a.equation}" of bool sums over {"".join(sorted(summed))}: TVM adds 1-bit '
            "integers"
        )
    if dtype.kind in "iu" and dtype.itemsize >= 4:
        magnitudes = [np.maximum(np.abs(f.astype(np.float64)), 1.0) for f in fields]
        bound = np.einsum(explicit, *magnitudes)
        if bound.size and float(np.max(bound)) > float(np.iinfo(dtype.name).max):
            raise UndefinedBehavior(
                f'einsum "{a.equation}" of {dtype} may overflow (TVM emits nsw/nuw adds and muls)'
            )
        wide = np.int64 if dtype.kind == "i" else np.uint64
        result = np.einsum(explicit, *(f.astype(wide) for f in fields))
    else:
        operands: list[Any] = list(fields)
        with np.errstate(over="ignore", invalid="ignore"):
            result = np.einsum(explicit, *operands)
    out = np.asarray(result).astype(dtype)
    assert out.shape == _out_shape(t)
    return out


def _diagonal_length(rows: int, cols: int, k: int) -> int:
    """The length of diagonal ``k`` (``j - i = k``) of a rows x cols matrix."""
    return min(cols - k, rows) if k >= 0 else min(cols, rows + k)


def _matrix_set_diag_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``MatrixSetDiag``: ``k1 <= k2``, ``-rows < k1``, ``k2 < cols``; diagonal is
    ``input.shape[:-2] + (D,)`` for one diagonal, ``+ (k2 - k1 + 1, D)`` for several,
    ``D = min(rows + min(k2, 0), cols - max(k1, 0))``; the result is input's type.

    Departures from TVM: the diagonal's rank, batch extents, count and length are checked
    (TVM's relation calls ``reporter->Assert`` without checking the answer; its length formula
    is also not TensorFlow's); the diagonals must exist (``-rows < k1``, ``k2 < cols``)."""
    a = _attrs(attrs, MatrixSetDiagAttrs)
    data, diagonal = _two(arg_types, "input", "diagonal")
    if a.k1 > a.k2:
        raise RelationError(f"expected k1 <= k2, found k1={a.k1}, k2={a.k2}")
    if len(data.shape) < 2:
        raise RelationError(f"expected an input of rank at least 2, found rank {len(data.shape)}")
    if diagonal.dtype != data.dtype:
        raise RelationError(
            f"expected input and diagonal of the same dtype, found {data.dtype} and "
            f"{diagonal.dtype}"
        )
    rows, cols = data.shape[-2], data.shape[-1]
    if isinstance(rows, int) and a.k1 <= -rows:
        raise RelationError(f"k1={a.k1} names no diagonal of a matrix with {rows} rows")
    if isinstance(cols, int) and a.k2 >= cols:
        raise RelationError(f"k2={a.k2} names no diagonal of a matrix with {cols} columns")
    count = a.k2 - a.k1 + 1
    length: Dim = ANY
    if isinstance(rows, int) and isinstance(cols, int):
        length = min(rows + min(a.k2, 0), cols - max(a.k1, 0))
    expected = (*data.shape[:-2], *((count,) if count > 1 else ()), length)
    if len(diagonal.shape) != len(expected) or any(
        dims_equal(d, e) is False for d, e in zip(diagonal.shape, expected, strict=True)
    ):
        raise RelationError(
            f"expected a diagonal of shape {_fmt(expected)} for k1={a.k1}, k2={a.k2}, found "
            f"{_fmt(diagonal.shape)}"
        )
    return data


def _matrix_set_diag_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``matrix_set_diag`` (TensorFlow's ``MatrixSetDiagV3``): element ``(.., i, j)`` with
    ``k = j - i`` in ``[k1, k2]`` becomes ``diagonal[.., k2 - k, (i if k >= 0 else j) + o]``
    (one diagonal: ``diagonal[.., i if k >= 0 else j]``), where ``o`` is ``D`` less the length
    of diagonal ``k`` if that diagonal is right-aligned (``super_diag_right_align`` for
    ``k >= 0``, ``sub_diag_right_align`` for ``k < 0``) and 0 otherwise; other elements are
    input's."""
    data, diagonal = args
    a = _attrs(attrs, MatrixSetDiagAttrs)
    _run_time(
        "matrix_set_diag",
        lambda: _matrix_set_diag_relation((_type_of(data), _type_of(diagonal)), attrs),
    )
    rows, cols = data.shape[-2], data.shape[-1]
    width = diagonal.shape[-1]
    out = data.copy()
    for k in range(a.k1, a.k2 + 1):
        # Diagonal k starts at (0, k) or (-k, 0); it reads its row of `diagonal` from the
        # left, or from an offset when it is shorter than `width` and right-aligned.
        n = _diagonal_length(rows, cols, k)
        right = a.super_diag_right_align if k >= 0 else a.sub_diag_right_align
        offset = width - n if right and a.k1 != a.k2 else 0
        values = diagonal[..., a.k2 - k, :] if a.k1 != a.k2 else diagonal
        i = np.arange(n) + max(-k, 0)
        j = i + k
        out[..., i, j] = values[..., offset : offset + n]
    return out


def _trilu_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``trilu``: data of rank >= 2, ``k`` a rank-0 integer tensor; the result is data's type.

    Departure from TVM: TVM's relation checked neither the rank nor ``k``'s dtype."""
    _attrs(attrs, TriluAttrs)
    data, k = _two(arg_types, "data", "k")
    if len(data.shape) < 2:
        raise RelationError(f"expected data of rank at least 2, found rank {len(data.shape)}")
    if k.shape:
        raise RelationError(f"expected a rank-0 k, found rank {len(k.shape)} {_fmt(k.shape)}")
    if not _integer_dtype(k.dtype):
        raise RelationError(f"expected an integer dtype for k, found {k.dtype}")
    return data


def _trilu_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``trilu``: data where ``j - i >= k`` (upper) or ``j - i <= k`` (lower) on the last two
    axes, 0 elsewhere; ``k`` is read as its mathematical value."""
    data, k = args
    a = _attrs(attrs, TriluAttrs)
    _trilu_relation((_type_of(data), _type_of(k)), attrs)
    rows, cols = data.shape[-2], data.shape[-1]
    offset = np.arange(cols)[None, :] - np.arange(rows)[:, None]
    keep = offset >= int(k) if a.upper else offset <= int(k)
    return np.where(keep, data, np.zeros((), dtype=data.dtype)).astype(data.dtype)


_op = OpRegistrar(__name__, pattern=OpPattern.INJECTIVE)


_op(
    "einsum",
    "Einstein summation over the tensors of the tuple data.",
    relation=_einsum_relation,
    reference=_einsum_reference,
    check="onnxruntime:Einsum",
    relation_name="Einsum",
    inputs=("data",),
    attrs_type=EinsumAttrs,
)


_op(
    "matrix_set_diag",
    "Replace the diagonals k1 to k2 of the innermost matrices of input.",
    relation=_matrix_set_diag_relation,
    reference=tensor_reference(_matrix_set_diag_reference),
    check="independent:explicit loop over (i, j) reading TensorFlow's aligned diagonal layout",
    relation_name="MatrixSetDiag",
    inputs=("input", "diagonal"),
    attrs_type=MatrixSetDiagAttrs,
)


_op(
    "trilu",
    "Keep the upper or lower triangle (from diagonal k) of the innermost matrices.",
    relation=_trilu_relation,
    reference=tensor_reference(_trilu_reference),
    check="onnxruntime:Trilu",
    relation_name="trilu",
    inputs=("data", "k"),
    attrs_type=TriluAttrs,
    pattern=OpPattern.ELEMWISE,
)
