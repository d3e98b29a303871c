"""The ``nn/dense`` operators (``semantics/ops/nn/dense.py``): relations, references, checks."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_helpers import FLOATS, INTS, Array, T, assert_agrees_tensor, h, n, of_family, ref, rel
from ops_nn_helpers import (
    ALL,
    RNG_SEED,
    RNG_SEED_2,
    SEEDS,
    V3,
    assert_agrees,
    check_record,
    random,
    run_onnx_node,
    shapes,
)

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops.nn.activation import PReluAttrs
from relay.semantics.ops.nn.dense import BatchMatmulAttrs, BiasAddAttrs, DenseAttrs, MatmulAttrs
from relay.semantics.ops.registry import Attrs, OpPattern, RelationError
from relay.semantics.syntax import ANY, TensorType, Type

GROUP = {
    "nn.matmul": ("Matmul", "onnxruntime:MatMul", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.batch_matmul": ("BatchMatmul", "onnxruntime:MatMul", OpPattern.OUT_ELEMWISE_FUSABLE),
}


NO_UNITS = DenseAttrs(units=None)


def dense(data: TensorType, weight: TensorType, units: int | None = None, out: str = "") -> Type:
    return rel("nn.dense", data, weight, attrs=DenseAttrs(units=units, out_dtype=out))


def _bias_add_loop(data: Array, bias: Array, axis: int) -> Array:
    """``data[i] + bias[i[axis]]`` element by element, in Python arithmetic: binary64 for
    floats (one rounding to float32 is then exact rounding, as binary64 has the bits), exact
    integers wrapped to the dtype for the narrow ones."""
    out = np.empty_like(data)
    dtype = data.dtype
    for index in itertools.product(*(range(d) for d in data.shape)):
        total = data[index].item() + bias[index[axis]].item()
        if dtype.kind in "iu" and dtype.itemsize < 4:
            bits = 8 * dtype.itemsize
            low = -(2 ** (bits - 1)) if dtype.kind == "i" else 0
            total = (total - low) % 2**bits + low
        out[index] = total
    return out


REJECTED: list[tuple[str, tuple[Type, ...], Attrs | None, str]] = [
    ("nn.dense", (T(2, 5), T(3, 5)), DenseAttrs(units=4), r"\(3, 5\) does not match \(4, 5\)"),
    ("nn.dense", (T(2, 6), T(3, 5)), DenseAttrs(units=3), r"does not match \(3, 6\)"),
    ("nn.dense", (T(2, 6), T(3, 5)), NO_UNITS, "has last dimension 6, weight .* has 5"),
    ("nn.dense", (T(2, 5), T(1, 3, 5)), NO_UNITS, "expected a 2-D tensor for weight, found rank"),
    ("nn.dense", (T(), T(3, 5)), NO_UNITS, "rank at least 1, found rank 0"),
    ("nn.bias_add", (T(2, 3, 4), T(4)), BiasAddAttrs(), r"Tensor\[\(3,\), float32\] for bias"),
    ("nn.bias_add", (T(2, 3), T(3, dtype="int32")), BiasAddAttrs(), "for bias, found .*int32"),
    ("nn.bias_add", (T(2, 3, 4), V3), BiasAddAttrs(axis=3), "axis=3 is out of range .* rank 3"),
    ("nn.bias_add", (T(2, 3, 4), V3), BiasAddAttrs(axis=-4), "axis=-4 is out of range"),
    (
        "nn.matmul",
        (T(2, 5), T(4, 3)),
        MatmulAttrs(units=None),
        r"tensor_a \(2, 5\) has 5, tensor_b \(4, 3\) has 4",
    ),
    (
        "nn.matmul",
        (T(2, 5), T(5, 3)),
        MatmulAttrs(units=4),
        r"\(5, 3\) does not match \(5, 4\) implied by units=4",
    ),
    ("nn.matmul", (T(5), T(5, 3)), MatmulAttrs(units=None, transpose_a=True), "rank at least 2"),
    (
        "nn.matmul",
        (
            T(2, 5),
            T(
                5,
            ),
        ),
        MatmulAttrs(units=None),
        "2-D tensor for tensor_b",
    ),
    (
        "nn.batch_matmul",
        (T(2, 3, 5), T(3, 5, 4)),
        BatchMatmulAttrs(),
        "batch dimensions 2 and 3 do not match",
    ),
    (
        "nn.batch_matmul",
        (T(2, 3, 5), T(2, 5, 4)),
        BatchMatmulAttrs(transpose_b=True),
        r"tensor_a \(2, 3, 5\) has 5, tensor_b \(2, 5, 4\) has 4",
    ),
    ("nn.batch_matmul", (T(3, 5), T(5, 4)), BatchMatmulAttrs(), "3-D tensor for tensor_a"),
]


def test_dense_relation() -> None:
    assert dense(T(n, 5), T(3, 5)) == T(n, 3)
    assert dense(T(n, 5), T(3, 5), units=3) == T(n, 3)
    assert dense(T(2, 7, 5), T(3, 5)) == T(2, 7, 3)
    assert dense(T(5), T(3, 5)) == T(3)
    assert dense(T(n, ANY), T(3, 5)) == T(n, 3)  # no check against an unknown dimension
    assert dense(T(ANY, 5), T(ANY, 5)) == T(ANY, ANY)
    assert dense(T(n, ANY), T(3, 5), units=3) == T(n, 3)
    i8 = {"dtype": "int8"}
    assert dense(T(2, 5, **i8), T(3, 5, **i8), out="int32") == T(2, 3, dtype="int32")
    assert dense(T(2, 5), T(3, 5, dtype="float16")) == T(2, 3)  # weight dtype unchecked


def test_bias_add_relation() -> None:
    ba = "nn.bias_add"
    assert rel(ba, T(2, 3, 4), T(3), attrs=BiasAddAttrs()) == T(2, 3, 4)
    assert rel(ba, T(n, 3, 4), T(4), attrs=BiasAddAttrs(axis=-1)) == T(n, 3, 4)
    assert rel(ba, T(n, h), T(h), attrs=BiasAddAttrs(axis=1)) == T(n, h)
    assert rel(ba, T(n, ANY), T(5), attrs=BiasAddAttrs(axis=1)) == T(n, ANY)


@pytest.mark.parametrize(("name", "types", "attrs", "message"), of_family(REJECTED, "nn/dense"))
def test_relation_rejects(
    name: str, types: tuple[Type, ...], attrs: Attrs | None, message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        rel(name, *types, attrs=attrs)


def test_dense_matches_onnxruntime() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((4, 6)).astype(np.float32)
    wt = rng.standard_normal((3, 6)).astype(np.float32)
    got = ref("nn.dense", x, wt, attrs=DenseAttrs(units=3))
    np.testing.assert_allclose(got, run_onnx_node("Gemm", [x, wt], transB=1), rtol=1e-5, atol=1e-6)
    x3 = rng.standard_normal((2, 4, 6)).astype(np.float32)
    got3 = ref("nn.dense", x3, wt, attrs=DenseAttrs(units=None))
    np.testing.assert_allclose(
        got3, run_onnx_node("MatMul", [x3, wt.T.copy()]), rtol=1e-5, atol=1e-6
    )
    x64 = rng.standard_normal((3, 5))
    w64 = rng.standard_normal((2, 5))
    np.testing.assert_allclose(ref("nn.dense", x64, w64, attrs=DenseAttrs(units=None)), x64 @ w64.T)


def test_dense_integers_and_float16() -> None:
    x = np.array([[100, -100, 7]], np.int8)
    wt = np.array([[100, 100, 1], [-1, 1, 0]], np.int8)
    assert ref("nn.dense", x, wt, attrs=DenseAttrs(units=2, out_dtype="int32")).tolist() == [
        [7, -200]
    ]
    assert ref("nn.dense", x, wt, attrs=DenseAttrs(units=2)).tolist() == [[7, 56]]  # -200 wraps
    big = np.array([[2**62, 2**62]], np.int64)
    with pytest.raises(UndefinedBehavior, match="overflows int64"):
        ref("nn.dense", big, np.ones((1, 2), np.int64), attrs=DenseAttrs(units=None))
    assert ref(
        "nn.dense",
        np.array([[2**31]], np.uint32),
        np.array([[1]], np.uint32),
        attrs=DenseAttrs(units=None),
    ).tolist() == [[2**31]]
    with pytest.raises(UndefinedBehavior, match="overflows uint32"):
        ref(
            "nn.dense",
            np.array([[2**31, 2**31]], np.uint32),
            np.ones((1, 2), np.uint32),
            attrs=DenseAttrs(units=None),
        )
    h16 = np.full((1, 4096), 1, np.float16)
    # float16 is accumulated in float32: a float16 accumulator would stop at 2048
    assert ref("nn.dense", h16, h16, attrs=DenseAttrs(units=None)).tolist() == [[4096]]


def test_bias_add_reference() -> None:
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    b = np.array([10, 20, 30], np.float32)
    np.testing.assert_array_equal(ref("nn.bias_add", x, b, attrs=BiasAddAttrs()), x + b[:, None])
    b4 = np.arange(4, dtype=np.float32)
    np.testing.assert_array_equal(ref("nn.bias_add", x, b4, attrs=BiasAddAttrs(axis=-1)), x + b4)
    x8 = np.array([[120, -120]], np.int8)
    assert ref("nn.bias_add", x8, np.array([10, -10], np.int8), attrs=BiasAddAttrs()).tolist() == [
        [-126, 126]
    ]
    with pytest.raises(UndefinedBehavior, match="overflows int32"):
        ref(
            "nn.bias_add",
            np.array([[2**31 - 1]], np.int32),
            np.array([1], np.int32),
            attrs=BiasAddAttrs(),
        )
    with pytest.raises(UndefinedBehavior, match="bool"):
        ref("nn.bias_add", np.ones((1, 1), bool), np.ones(1, bool), attrs=BiasAddAttrs())


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int8", "int32", "uint16"])
@pytest.mark.parametrize(("shape", "axis"), [((2, 3, 4), 1), ((2, 3, 4), -1), ((5,), 0)])
def test_bias_add_against_an_element_loop(shape: tuple[int, ...], axis: int, dtype: str) -> None:
    rng = np.random.default_rng(RNG_SEED)
    if dtype.startswith("float"):
        data = rng.standard_normal(shape).astype(dtype)
        bias = rng.standard_normal(shape[axis]).astype(dtype)
    else:
        info = np.iinfo(dtype)
        # narrow dtypes wrap; int32 stays in range (its overflow is undefined)
        low, high = (-1000, 1000) if dtype == "int32" else (int(info.min), int(info.max))
        data = rng.integers(low, high, shape, endpoint=True).astype(dtype)
        bias = rng.integers(low, high, shape[axis], endpoint=True).astype(dtype)
    got = ref("nn.bias_add", data, bias, attrs=BiasAddAttrs(axis=axis))
    expected = _bias_add_loop(data, bias, axis % len(shape))
    assert got.dtype == expected.dtype and got.shape == expected.shape
    np.testing.assert_array_equal(got, expected)


@settings(max_examples=40)
@given(SEEDS, st.sampled_from(ALL), shapes, st.integers(0, 3), st.booleans(), st.data())
def test_dense_reference_agrees_with_relation(
    seed: int, dtype: str, shape: tuple[int, ...], units: int, give_units: bool, data: st.DataObject
) -> None:
    rng = np.random.default_rng(seed)
    out_dtype = data.draw(st.sampled_from(["", dtype, "int64" if dtype in INTS else "float32"]))
    x = random(rng, shape, dtype)
    weight_dtype = data.draw(st.sampled_from([dtype, "float32"])) if dtype in FLOATS else dtype
    wt = random(rng, (units, shape[-1]), weight_dtype)
    attrs = DenseAttrs(units=units if give_units else None, out_dtype=out_dtype)
    assert_agrees("nn.dense", (x, wt), attrs, defined=(out_dtype or dtype) != "bool")


@settings(max_examples=40)
@given(SEEDS, st.sampled_from(ALL), shapes, st.data())
def test_bias_add_reference_agrees_with_relation(
    seed: int, dtype: str, shape: tuple[int, ...], data: st.DataObject
) -> None:
    rng = np.random.default_rng(seed)
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x, b = random(rng, shape, dtype), random(rng, (shape[axis],), dtype)
    assert_agrees("nn.bias_add", (x, b), BiasAddAttrs(axis=axis), defined=dtype != "bool")


@pytest.mark.parametrize("name", of_family(sorted(GROUP), "nn/dense"))
def test_records(name: str) -> None:
    check_record(name, GROUP[name])


def test_matmul_relation() -> None:
    mm = "nn.matmul"
    assert rel(mm, T(n, 5), T(5, 3), attrs=MatmulAttrs(units=None)) == T(n, 3)
    assert rel(mm, T(n, 5), T(3, 5), attrs=MatmulAttrs(units=3, transpose_b=True)) == T(n, 3)
    ta = MatmulAttrs(units=None, transpose_a=True)
    assert rel(mm, T(2, 5, 7), T(5, 3), attrs=ta) == T(2, 7, 3)
    assert rel(mm, T(5), T(5, 3), attrs=MatmulAttrs(units=None)) == T(3)
    assert rel(mm, T(2, ANY), T(5, 3), attrs=MatmulAttrs(units=None)) == T(2, 3)
    i8 = MatmulAttrs(units=None, out_dtype="int32")
    assert rel(mm, T(2, 5, dtype="int8"), T(5, 3, dtype="int8"), attrs=i8) == T(2, 3, dtype="int32")


def test_batch_matmul_relation() -> None:
    bm = "nn.batch_matmul"
    assert rel(bm, T(4, 2, 5), T(4, 5, 3), attrs=BatchMatmulAttrs()) == T(4, 2, 3)
    nt = BatchMatmulAttrs(transpose_b=True)
    assert rel(bm, T(4, 2, 5), T(1, 3, 5), attrs=nt) == T(4, 2, 3)
    tn = BatchMatmulAttrs(transpose_a=True)
    assert rel(bm, T(1, 5, 2), T(n, 5, 3), attrs=tn) == T(n, 2, 3)
    assert rel(bm, T(ANY, 2, 5), T(4, 5, 3), attrs=BatchMatmulAttrs()) == T(ANY, 2, 3)
    assert rel(bm, T(0, 2, 5), T(1, 5, 3), attrs=BatchMatmulAttrs()) == T(0, 2, 3)


@pytest.mark.parametrize(
    ("transpose_a", "transpose_b"), list(itertools.product([False, True], repeat=2))
)
def test_matmul_matches_onnxruntime(transpose_a: bool, transpose_b: bool) -> None:
    rng = np.random.default_rng(RNG_SEED_2)
    a = rng.standard_normal((2, 3, 4)).astype(np.float32)
    b = rng.standard_normal((4, 5)).astype(np.float32)
    a_in = np.ascontiguousarray(a.swapaxes(1, 2)) if transpose_a else a
    b_in = np.ascontiguousarray(b.T) if transpose_b else b
    attrs = MatmulAttrs(units=None, transpose_a=transpose_a, transpose_b=transpose_b)
    got = assert_agrees_tensor("nn.matmul", (a_in, b_in), attrs)
    np.testing.assert_allclose(got, onnx_run("MatMul", [a, b]), rtol=1e-5, atol=1e-6)
    units = MatmulAttrs(units=5, transpose_a=transpose_a, transpose_b=transpose_b)
    np.testing.assert_allclose(ref("nn.matmul", a_in, b_in, attrs=units), got)


def test_matmul_integers() -> None:
    a = np.array([[100, -100, 7]], np.int8)
    b = np.array([[100, -1], [100, 1], [1, 0]], np.int8)
    attrs = MatmulAttrs(units=None, out_dtype="int32")
    assert ref("nn.matmul", a, b, attrs=attrs).tolist() == [[7, -200]]
    assert ref("nn.matmul", a, b, attrs=MatmulAttrs(units=None)).tolist() == [[7, 56]]
    big = np.array([[2**62, 2**62]], np.int64)
    with pytest.raises(UndefinedBehavior, match="overflows int64"):
        ref("nn.matmul", big, np.ones((2, 1), np.int64), attrs=MatmulAttrs(units=None))


@pytest.mark.parametrize(
    ("transpose_a", "transpose_b"), list(itertools.product([False, True], repeat=2))
)
def test_batch_matmul_matches_onnxruntime(transpose_a: bool, transpose_b: bool) -> None:
    rng = np.random.default_rng(RNG_SEED_2)
    a = rng.standard_normal((3, 2, 4)).astype(np.float32)
    b = rng.standard_normal((1, 4, 5)).astype(np.float32)
    a_in = np.ascontiguousarray(a.swapaxes(1, 2)) if transpose_a else a
    b_in = np.ascontiguousarray(b.swapaxes(1, 2)) if transpose_b else b
    attrs = BatchMatmulAttrs(transpose_a=transpose_a, transpose_b=transpose_b)
    got = assert_agrees_tensor("nn.batch_matmul", (a_in, b_in), attrs)
    np.testing.assert_allclose(got, onnx_run("MatMul", [a, b]), rtol=1e-5, atol=1e-6)
    # the batch of 1 may be on either side
    flipped = assert_agrees_tensor(
        "nn.batch_matmul", (a[:1], np.repeat(b, 3, axis=0)), BatchMatmulAttrs()
    )
    np.testing.assert_allclose(
        flipped, onnx_run("MatMul", [a[:1], np.repeat(b, 3, axis=0)]), rtol=1e-5, atol=1e-6
    )


@settings(max_examples=40)
@given(SEEDS, st.sampled_from(ALL), st.booleans(), st.booleans(), st.data())
def test_products_and_prelu_agree_with_relation(
    seed: int, dtype: str, transpose_a: bool, transpose_b: bool, data: st.DataObject
) -> None:
    rng = np.random.default_rng(seed)
    m, k, nn_ = (data.draw(st.integers(0, 3)) for _ in range(3))
    out_dtype = data.draw(st.sampled_from(["", dtype, "int64" if dtype in INTS else "float32"]))
    defined = (out_dtype or dtype) != "bool"
    a = random(rng, (2, k, m) if transpose_a else (2, m, k), dtype)
    b = random(rng, (nn_, k) if transpose_b else (k, nn_), dtype)
    attrs = MatmulAttrs(
        units=None, out_dtype=out_dtype, transpose_a=transpose_a, transpose_b=transpose_b
    )
    assert_agrees_tensor("nn.matmul", (a, b), attrs, defined=defined)
    bb = random(rng, (1, nn_, k) if transpose_b else (1, k, nn_), dtype)
    battrs = BatchMatmulAttrs(out_dtype=out_dtype, transpose_a=transpose_a, transpose_b=transpose_b)
    assert_agrees_tensor("nn.batch_matmul", (a, bb), battrs, defined=defined)
    axis = data.draw(st.integers(0, 2))
    x = random(rng, (2, m, k), dtype)
    assert_agrees_tensor(
        "nn.prelu", (x, random(rng, (x.shape[axis],), dtype)), PReluAttrs(axis=axis)
    )
