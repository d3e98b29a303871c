"""The ``linalg`` operators (``semantics/ops/linalg.py``): relations, references, checks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from ops_helpers import FAST, Tup, arange, n, of_family, op_rel, rand, seeds, tensor_t, typ

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS
from relay.semantics.ops.linalg import EinsumAttrs, MatrixSetDiagAttrs, TriluAttrs
from relay.semantics.ops.registry import Attrs, OpPattern, RelationError, Tensor
from relay.semantics.syntax import ANY, TensorType, Type

OPS_HERE = {
    "einsum": ("Einsum", OpPattern.INJECTIVE),
    "matrix_set_diag": ("MatrixSetDiag", OpPattern.INJECTIVE),
    "trilu": ("trilu", OpPattern.ELEMWISE),
}


def ref(op: str, attrs: Attrs | None, *args: object) -> Tensor:
    reference = OPS[op].reference
    assert reference is not None
    out = reference(tuple(args), attrs)  # type: ignore[arg-type]
    assert isinstance(out, np.ndarray)
    t = op_rel(op, attrs, *(typ(a) for a in args))
    assert isinstance(t, TensorType)
    assert out.shape == t.shape and out.dtype == np.dtype(t.dtype)
    return out


def same(actual: Tensor, expected: object) -> None:
    e = np.asarray(expected, dtype=actual.dtype)
    assert actual.shape == e.shape
    np.testing.assert_array_equal(actual, e)


def ein(eq: str) -> EinsumAttrs:
    return EinsumAttrs(equation=eq)


def msd(k1: int = 0, k2: int = 0, sup: bool = True, sub: bool = False) -> MatrixSetDiagAttrs:
    return MatrixSetDiagAttrs(k1=k1, k2=k2, super_diag_right_align=sup, sub_diag_right_align=sub)


@pytest.mark.parametrize("name", of_family(sorted(OPS_HERE), "linalg"))
def test_record(name: str) -> None:
    op = OPS[name]
    assert op.relation is not None and op.reference is not None
    assert (op.relation_name, op.pattern) == OPS_HERE[name]
    assert op.family in ("shape", "index", "linalg")
    assert op.check.startswith(("onnxruntime:", "independent:"))
    if op.attrs_type is not None:
        assert op.attrs_type.type_key == f"relay.attrs.{op.attrs_type.__name__}"


def test_einsum_relation() -> None:
    assert op_rel("einsum", ein("ij,jk->ik"), Tup(tensor_t((2, 3)), tensor_t((3, 4)))) == tensor_t(
        (2, 4)
    )
    assert op_rel("einsum", ein("ij,jk"), Tup(tensor_t((2, 3)), tensor_t((3, 4)))) == tensor_t(
        (2, 4)
    )
    assert op_rel("einsum", ein("ii->i"), Tup(tensor_t((3, 3)))) == tensor_t((3,))
    assert op_rel("einsum", ein("ba"), Tup(tensor_t((2, 3)))) == tensor_t((3, 2))
    assert op_rel("einsum", ein("...ij->...ji"), Tup(tensor_t((5, 1, 2, 3)))) == tensor_t(
        (5, 1, 3, 2)
    )
    assert op_rel(
        "einsum", ein("...i,...i"), Tup(tensor_t((4, 1, 2)), tensor_t((3, 2)))
    ) == tensor_t((4, 3))
    assert op_rel("einsum", ein("i,i->"), Tup(tensor_t((n,)), tensor_t((n,)))) == tensor_t(())
    assert op_rel("einsum", ein("ij->j"), Tup(tensor_t((ANY, 3)))) == tensor_t((3,))


@pytest.mark.parametrize(
    ("eq", "fields", "message"),
    [
        ("ij,jk->ik", (tensor_t((2, 3)), tensor_t((4, 4))), "the label j has extents 3 and 4"),
        (
            "ij,jk",
            (tensor_t((2, 3)), tensor_t((3, 4), "int8")),
            "same dtype: field 0 is float32, field 1",
        ),
        ("ij", (tensor_t((2, 3)), tensor_t((3,))), "1 input term"),
        ("ij->k", (tensor_t((2, 3)),), "the output label k is not an input"),
        ("ij->ii", (tensor_t((2, 3)),), "the output repeats the label i"),
        ("ijk", (tensor_t((2, 3)),), 'the term "ijk" does not fit operand 0 of rank 2'),
        ("i-j", (tensor_t((2, 3)),), "invalid character '-'"),
        ("...i->i", (tensor_t((2, 3)),), 'output must have "..." exactly when an input does'),
        ("...i,...i", (tensor_t((2, 2)), tensor_t((3, 2))), "dimensions 2 and 3 are incompatible"),
    ],
)
def test_einsum_relation_errors(eq: str, fields: tuple[Type, ...], message: str) -> None:
    with pytest.raises(RelationError, match=message):
        op_rel("einsum", ein(eq), Tup(*fields))


def test_einsum_reference() -> None:
    a = np.array([[1, 2], [3, 4]], dtype="int32")
    same(ref("einsum", ein("ij,jk->ik"), (a, a)), [[7, 10], [15, 22]])
    same(ref("einsum", ein("ii"), (a,)), 5)
    same(ref("einsum", ein("ij->ji"), (a,)), [[1, 3], [2, 4]])
    with pytest.raises(UndefinedBehavior, match="may overflow"):
        ref("einsum", ein("i->"), (np.array([2**31 - 1, 1], dtype="int32"),))
    with pytest.raises(UndefinedBehavior, match="bool sums over i"):
        ref("einsum", ein("i->"), (np.array([True, True]),))


@FAST
@given(
    st.sampled_from(
        [
            ("ij,jk->ik", [(2, 3), (3, 4)]),
            ("bij,bjk->bik", [(2, 2, 3), (2, 3, 1)]),
            ("ii->i", [(3, 3)]),
            ("ij->", [(2, 4)]),
            ("i,j->ij", [(3,), (2,)]),
            ("ijk->kji", [(2, 3, 1)]),
            ("...ij,...jk->...ik", [(2, 2, 3), (2, 3, 2)]),
            ("ij,ij,ij->i", [(2, 2), (2, 2), (2, 2)]),
        ]
    ),
    seeds,
)
def test_einsum_matches_onnxruntime(case: tuple[str, list[tuple[int, ...]]], seed: int) -> None:
    eq, shapes = case
    xs = tuple(rand(s, seed + i) for i, s in enumerate(shapes))
    expected = onnx_run("Einsum", list(xs), equation=eq)
    np.testing.assert_allclose(ref("einsum", ein(eq), xs), expected)


def test_matrix_set_diag_relation() -> None:
    assert op_rel("matrix_set_diag", msd(), tensor_t((2, 3, 4)), tensor_t((2, 3))) == tensor_t(
        (2, 3, 4)
    )
    assert op_rel("matrix_set_diag", msd(-1, 2), tensor_t((3, 4)), tensor_t((4, 3))) == tensor_t(
        (3, 4)
    )
    assert op_rel("matrix_set_diag", msd(1, 1), tensor_t((3, 3)), tensor_t((2,))) == tensor_t(
        (3, 3)
    )
    with pytest.raises(RelationError, match="expected k1 <= k2, found k1=1, k2=0"):
        op_rel("matrix_set_diag", msd(1, 0), tensor_t((3, 3)), tensor_t((3,)))
    with pytest.raises(RelationError, match=r"expected a diagonal of shape \(2\)"):
        op_rel("matrix_set_diag", msd(1, 1), tensor_t((3, 3)), tensor_t((3,)))
    with pytest.raises(RelationError, match="k2=3 names no diagonal of a matrix with 3 columns"):
        op_rel("matrix_set_diag", msd(0, 3), tensor_t((3, 3)), tensor_t((4, 3)))
    with pytest.raises(RelationError, match="rank at least 2"):
        op_rel("matrix_set_diag", msd(), tensor_t((3,)), tensor_t((3,)))


def test_matrix_set_diag_reference() -> None:
    zeros = np.zeros((3, 3), dtype="int32")
    same(ref("matrix_set_diag", msd(), zeros, np.array([1, 2, 3], "int32")), np.diag([1, 2, 3]))
    same(
        ref("matrix_set_diag", msd(1, 1), zeros, np.array([1, 2], "int32")),
        [[0, 1, 0], [0, 0, 2], [0, 0, 0]],
    )
    # TensorFlow's example band: rows k2 .. k1; the super-diagonal right-aligned (padded on
    # the left), the sub-diagonal left-aligned (padded on the right).
    band = np.array([[0, 9, 1], [6, 5, 8], [1, 2, 0]], "int32")
    same(
        ref("matrix_set_diag", msd(-1, 1), zeros, band),
        [[6, 9, 0], [1, 5, 1], [0, 2, 8]],
    )
    band_left = np.array([[9, 1, 0], [6, 5, 8], [0, 1, 2]], "int32")
    same(
        ref("matrix_set_diag", msd(-1, 1, sup=False, sub=True), zeros, band_left),
        [[6, 9, 0], [1, 5, 1], [0, 2, 8]],
    )


@FAST
@given(
    st.integers(1, 4),
    st.integers(1, 4),
    st.booleans(),
    st.booleans(),
    seeds,
    st.data(),
)
def test_matrix_set_diag_matches_a_loop(
    rows: int, cols: int, sup: bool, sub: bool, seed: int, data: st.DataObject
) -> None:
    k1 = data.draw(st.integers(-(rows - 1), cols - 1))
    k2 = data.draw(st.integers(k1, cols - 1))
    width = min(rows + min(k2, 0), cols - max(k1, 0))
    count = k2 - k1 + 1
    x = rand((2, rows, cols), seed, "int32")
    diag = rand((2, count, width) if count > 1 else (2, width), seed + 1, "int32")
    out = ref("matrix_set_diag", msd(k1, k2, sup, sub), x, diag)
    for b, i, j in itertools.product(range(2), range(rows), range(cols)):
        k = j - i
        if not k1 <= k <= k2:
            assert out[b, i, j] == x[b, i, j]
            continue
        # Diagonal k holds the elements (i, i + k); its length and padding decide where
        # element (i, j) sits in its row of the band.
        positions = [(r, r + k) for r in range(rows) if 0 <= r + k < cols]
        pos = positions.index((i, j))
        aligned_right = sup if k >= 0 else sub
        pad = width - len(positions) if aligned_right and count > 1 else 0
        expected = diag[b, k2 - k, pad + pos] if count > 1 else diag[b, pos]
        assert out[b, i, j] == expected


def test_trilu() -> None:
    assert op_rel("trilu", TriluAttrs(), tensor_t((n, 3, 3)), tensor_t((), "int64")) == tensor_t(
        (n, 3, 3)
    )
    x = arange(3, 3) + 1
    k0 = np.array(0, "int32")
    same(ref("trilu", TriluAttrs(), x, k0), [[1, 2, 3], [0, 5, 6], [0, 0, 9]])
    same(
        ref("trilu", TriluAttrs(upper=False), x, np.array(-1, "int8")),
        [[0, 0, 0], [4, 0, 0], [7, 8, 0]],
    )
    same(ref("trilu", TriluAttrs(), x, np.array(5, "int64")), np.zeros((3, 3)))
    with pytest.raises(RelationError, match="rank at least 2, found rank 1"):
        op_rel("trilu", TriluAttrs(), tensor_t((3,)), tensor_t((), "int32"))
    with pytest.raises(RelationError, match=r"expected a rank-0 k, found rank 1 \(1\)"):
        op_rel("trilu", TriluAttrs(), tensor_t((3, 3)), tensor_t((1,), "int32"))
    with pytest.raises(RelationError, match="integer dtype for k, found float32"):
        op_rel("trilu", TriluAttrs(), tensor_t((3, 3)), tensor_t(()))


@FAST
@given(
    st.lists(st.integers(1, 4), min_size=2, max_size=4).map(tuple),
    st.integers(-4, 4),
    st.booleans(),
    seeds,
)
def test_trilu_matches_onnxruntime(shape: tuple[int, ...], k: int, upper: bool, seed: int) -> None:
    x = rand(shape, seed)
    kk = np.array(k, dtype=np.int64)
    expected = onnx_run("Trilu", [x, kk], upper=int(upper), opset=14)
    np.testing.assert_array_equal(ref("trilu", TriluAttrs(upper=upper), x, kk), expected)
