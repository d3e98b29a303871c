"""Lowerings of ``linalg`` (``compiler/lower/ops/linalg.py``) against the references, on sampled
calls and on every band shape and alignment of matrix_set_diag; the operators not lowered are
registered unsupported with a reason."""

from __future__ import annotations

import pytest
from lowernn_helpers import check_call, sampled_cases

from relay.compiler.lower import te
from relay.semantics.ops import OPS
from relay.semantics.ops.linalg import EinsumAttrs, MatrixSetDiagAttrs
from relay.semantics.syntax import TensorType, TupleType


def test_every_operator_is_lowered_or_has_a_reason() -> None:
    family = [name for name, op in OPS.items() if op.family == "linalg"]
    assert family
    for name in family:
        assert name in te.LOWERINGS or te.UNSUPPORTED.get(name, "").strip(), name


for _op in ("trilu", "matrix_set_diag", "einsum"):

    @sampled_cases(_op, examples=25)
    def _test() -> None:
        """Sampled calls."""

    globals()[f"test_sampled_{_op.replace('.', '_')}"] = _test


@pytest.mark.parametrize("shape", [(4, 6), (6, 4), (5, 5)])
@pytest.mark.parametrize(("k1", "k2"), [(0, 0), (-2, 1), (1, 3), (-3, -1), (2, 2), (-1, -1)])
@pytest.mark.parametrize("align", [(False, False), (True, False), (False, True), (True, True)])
def test_matrix_set_diag_bands_and_alignments(
    shape: tuple[int, int], k1: int, k2: int, align: tuple[bool, bool]
) -> None:
    rows, cols = shape
    length = min(rows + min(k2, 0), cols - max(k1, 0))
    band = (k2 - k1 + 1,) if k1 != k2 else ()
    attrs = MatrixSetDiagAttrs(
        k1=k1, k2=k2, super_diag_right_align=align[0], sub_diag_right_align=align[1]
    )
    types = [TensorType((2, rows, cols), "int32"), TensorType((2, *band, length), "int32")]
    assert check_call("matrix_set_diag", types, attrs)


@pytest.mark.parametrize(
    ("equation", "shapes"),
    [
        ("ij,jk->ik", [(3, 4), (4, 5)]),
        ("ij,jk", [(3, 4), (4, 5)]),
        ("ii->i", [(4, 4)]),
        ("ii", [(4, 4)]),
        ("ij->", [(3, 4)]),
        ("i,i,i->i", [(5,), (5,), (5,)]),
        ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
        ("...ij,...jk->...ik", [(2, 1, 3, 4), (3, 4, 2)]),
        ("i...,i->...", [(3, 2, 1), (3,)]),
        ("ij->ji", [(2, 3)]),
        ("i,j->ij", [(3,), (4,)]),
    ],
)
@pytest.mark.parametrize("dtype", ["float32", "int8", "int32", "float16"])
def test_einsum_equations(equation: str, shapes: list[tuple[int, ...]], dtype: str) -> None:
    types = [TupleType(tuple(TensorType(s, dtype) for s in shapes))]
    assert check_call("einsum", types, EinsumAttrs(equation=equation))
