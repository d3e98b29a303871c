"""Lowerings of ``nn/dense`` (``compiler/lower/ops/nn/dense.py``) against the references,
with both matrix-product schedules (packed loop nest and ``cblas_sgemm``) and fused
epilogues."""

from __future__ import annotations

import numpy as np
import pytest
from lowernn_helpers import check_call, lower_call, sampled_cases

from relay.compiler.lower import ir, schedules
from relay.semantics.ops.nn.dense import BatchMatmulAttrs, DenseAttrs, MatmulAttrs
from relay.semantics.syntax import TensorType

STRATEGIES = pytest.mark.parametrize("strategy", schedules.STRATEGIES)


def T(*shape: int, dtype: str = "float32") -> TensorType:
    return TensorType(shape, dtype)


@STRATEGIES
@pytest.mark.parametrize(
    "shapes", [((3, 5), (7, 5)), ((2, 3, 17), (33, 17)), ((1, 40), (21, 40)), ((0, 3), (2, 3))]
)
def test_dense(strategy: str, shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    with schedules.gemm_strategy(strategy):
        assert check_call("nn.dense", [T(*shapes[0]), T(*shapes[1])], DenseAttrs(units=None))


@STRATEGIES
@pytest.mark.parametrize("dtype", ["float16", "float64", "int8", "int32", "uint8"])
def test_dense_dtypes(strategy: str, dtype: str) -> None:
    with schedules.gemm_strategy(strategy):
        assert check_call(
            "nn.dense", [T(5, 6, dtype=dtype), T(18, 6, dtype=dtype)], DenseAttrs(None)
        )


@STRATEGIES
def test_dense_out_dtype(strategy: str) -> None:
    with schedules.gemm_strategy(strategy):
        types = [T(4, 6, dtype="int8"), T(3, 6, dtype="int8")]
        assert check_call("nn.dense", types, DenseAttrs(units=None, out_dtype="int32"))


@STRATEGIES
def test_dense_epilogue_bias_relu(strategy: str) -> None:
    bias = np.arange(19, dtype=np.float32) - 9.0

    def epilogue(v: ir.PrimExpr, idx: tuple[ir.PrimExpr, ...]) -> ir.PrimExpr:
        b = ir.Const(0.0, "float32")
        total = ir.Binary(
            ir.BinOp.ADD,
            v,
            ir.Binary(ir.BinOp.MUL, ir.Cast("float32", idx[-1]), ir.Const(1.0, "float32")),
        )
        shifted = ir.Binary(ir.BinOp.SUB, total, ir.Const(9.0, "float32"))
        return ir.Binary(ir.BinOp.MAX, shifted, b)

    with schedules.gemm_strategy(strategy):
        assert check_call(
            "nn.dense",
            [T(6, 10), T(19, 10)],
            DenseAttrs(units=None),
            epilogue=(epilogue, lambda y: np.maximum(y + bias, 0).astype(np.float32)),
        )


def test_blas_schedule_calls_sgemm_and_packed_does_not() -> None:
    types = [T(8, 32), T(130, 32)]

    def externs(strategy: str) -> list[str]:
        with schedules.gemm_strategy(strategy):
            kernel = lower_call("nn.dense", types, DenseAttrs(units=None))
        return [s.name for s in ir.walk_stmt(kernel.body) if isinstance(s, ir.ExternCall)]

    assert externs("blas") == ["cblas_sgemm"]
    assert externs("packed") == []
    with schedules.gemm_strategy("packed"):
        kernel = lower_call("nn.dense", types, DenseAttrs(units=None))
    kinds = {s.kind for s in ir.walk_stmt(kernel.body) if isinstance(s, ir.For)}
    assert {ir.LoopKind.VECTORIZED, ir.LoopKind.UNROLLED, ir.LoopKind.PARALLEL} <= kinds


@pytest.mark.parametrize("tb", [False, True])
def test_one_row_blas_products_call_sgemv(tb: bool) -> None:
    """A float32 product of one row by a weight buffer is one ``cblas_sgemv`` (``W x`` for a
    dense or transposed matmul weight, ``W^T x`` otherwise), written into the output and then
    rewritten by the epilogue in place; the loop-IR interpreter runs the same call."""

    def relu(v: ir.PrimExpr, idx: tuple[ir.PrimExpr, ...]) -> ir.PrimExpr:
        return ir.Binary(ir.BinOp.MAX, v, ir.Const(0.0, "float32"))

    cases = [
        (
            "nn.matmul",
            [T(1, 9), T(13, 9) if tb else T(9, 13)],
            MatmulAttrs(units=None, transpose_b=tb),
        ),
        ("nn.dense", [T(1, 9), T(13, 9)], DenseAttrs(units=None)),
    ]
    with schedules.gemm_strategy("blas"):
        for op, types, attrs in cases:
            kernel = lower_call(op, types, attrs)
            calls = [s for s in ir.walk_stmt(kernel.body) if isinstance(s, ir.ExternCall)]
            assert [c.name for c in calls] == ["cblas_sgemv"]
            assert calls[0].args[10] is kernel.outputs[0]
            assert check_call(op, types, attrs)
            assert check_call(
                op, types, attrs, epilogue=(relu, lambda y: np.maximum(y, 0).astype(np.float32))
            )


@STRATEGIES
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
def test_matmul(strategy: str, ta: bool, tb: bool) -> None:
    a = T(2, 7, 5) if ta else T(2, 5, 7)
    b = T(9, 7) if tb else T(7, 9)
    attrs = MatmulAttrs(units=None, transpose_a=ta, transpose_b=tb)
    with schedules.gemm_strategy(strategy):
        assert check_call("nn.matmul", [a, b], attrs)
        if ta:
            assert check_call("nn.matmul", [T(7, 5), b], attrs)


@STRATEGIES
@pytest.mark.parametrize("ta", [False, True])
@pytest.mark.parametrize("tb", [False, True])
@pytest.mark.parametrize("batches", [(3, 3), (1, 3), (3, 1), (1, 1)])
def test_batch_matmul(strategy: str, ta: bool, tb: bool, batches: tuple[int, int]) -> None:
    a = T(batches[0], 6, 5) if ta else T(batches[0], 5, 6)
    b = T(batches[1], 18, 6) if tb else T(batches[1], 6, 18)
    attrs = BatchMatmulAttrs(transpose_a=ta, transpose_b=tb)
    with schedules.gemm_strategy(strategy):
        assert check_call("nn.batch_matmul", [a, b], attrs)


@sampled_cases("nn.dense")
def test_dense_sampled() -> None:
    """Sampled calls of nn.dense."""


@sampled_cases("nn.matmul")
def test_matmul_sampled() -> None:
    """Sampled calls of nn.matmul."""


@sampled_cases("nn.batch_matmul")
def test_batch_matmul_sampled() -> None:
    """Sampled calls of nn.batch_matmul."""


@sampled_cases("nn.bias_add")
def test_bias_add_sampled() -> None:
    """Sampled calls of nn.bias_add."""


@pytest.mark.parametrize("micro", schedules.MICRO_KERNELS)
@pytest.mark.parametrize("shapes", [((3, 5), (7, 5)), ((9, 17), (70, 17)), ((5, 0), (4, 0))])
def test_dense_packed_micro_kernels(
    micro: str, shapes: tuple[tuple[int, ...], tuple[int, ...]], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(schedules, "MICRO_KERNEL", micro)
    with schedules.gemm_strategy("packed"):
        assert check_call("nn.dense", [T(*shapes[0]), T(*shapes[1])], DenseAttrs(units=None))
