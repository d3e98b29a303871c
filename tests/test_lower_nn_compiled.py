"""The scheduled nn lowerings compiled by the CPU target (``targets.cpu.codegen``) against
the references: both matrix-product schedules of dense and conv2d (the packed, register-blocked
loop nest and the ``cblas_sgemm`` call), a fused epilogue, a pool and a softmax; the products'
task loops are top-level parallel loops (what the CPU target runs on its thread pool), checked
at 2 threads."""

from __future__ import annotations

import numpy as np
import pytest
from lowernn_helpers import assert_close, lower_call, random_args

from relay.compiler.lower import ir, schedules
from relay.compiler.lower.check import check_kernel
from relay.semantics.ops import OPS
from relay.semantics.ops.nn.activation import SoftmaxAttrs
from relay.semantics.ops.nn.conv import Conv2DAttrs
from relay.semantics.ops.nn.dense import BatchMatmulAttrs, DenseAttrs, MatmulAttrs
from relay.semantics.ops.nn.pool import AvgPool2DAttrs
from relay.semantics.ops.registry import Attrs
from relay.semantics.syntax import TensorType
from relay.targets.cpu.codegen import compile_kernel

STRATEGIES = pytest.mark.parametrize("strategy", schedules.STRATEGIES)


def T(*shape: int, dtype: str = "float32") -> TensorType:
    return TensorType(shape, dtype)


def _compiled(
    op: str,
    types: list[TensorType],
    attrs: Attrs | None,
    *,
    threads: int = 1,
) -> None:
    kernel = lower_call(op, types, attrs)
    check_kernel(kernel)
    args = random_args(np.random.default_rng(0), types)
    reference = OPS[op].reference
    assert reference is not None
    expected = np.asarray(reference(tuple(args), attrs))
    outs = [np.empty(tuple(int(d.value) for d in b.shape), b.dtype) for b in kernel.outputs]  # type: ignore[union-attr]
    compile_kernel(kernel, threads=threads)(args, outs, {})
    assert_close(outs[0], expected)


@STRATEGIES
@pytest.mark.parametrize("threads", [1, 2])
def test_dense_compiled(strategy: str, threads: int) -> None:
    with schedules.gemm_strategy(strategy):
        _compiled("nn.dense", [T(37, 70), T(130, 70)], DenseAttrs(units=None), threads=threads)


@pytest.mark.parametrize("threads", [1, 2])
def test_one_row_products_compiled(threads: int) -> None:
    """One-row float32 products (``cblas_sgemv`` under the BLAS strategy) at 1 and 2 threads."""
    with schedules.gemm_strategy("blas"):
        _compiled("nn.dense", [T(1, 70), T(130, 70)], DenseAttrs(units=None), threads=threads)
        for tb in (False, True):
            b = T(130, 70) if tb else T(70, 130)
            _compiled(
                "nn.matmul", [T(1, 70), b], MatmulAttrs(units=None, transpose_b=tb), threads=threads
            )


@STRATEGIES
def test_conv2d_compiled(strategy: str) -> None:
    with schedules.gemm_strategy(strategy):
        _compiled("nn.conv2d", [T(2, 5, 9, 8), T(7, 5, 3, 3)], Conv2DAttrs(padding=(1, 1)))
        _compiled(
            "nn.conv2d",
            [T(1, 6, 7, 7), T(6, 3, 3, 3)],
            Conv2DAttrs(groups=2, strides=(2, 2), data_layout="NCHW"),
        )


@STRATEGIES
def test_dense_int8_compiled(strategy: str) -> None:
    with schedules.gemm_strategy(strategy):
        _compiled("nn.dense", [T(5, 9, dtype="int8"), T(20, 9, dtype="int8")], DenseAttrs(None))


def test_softmax_and_pool_compiled() -> None:
    _compiled("nn.softmax", [T(4, 33)], SoftmaxAttrs(axis=-1))
    attrs = AvgPool2DAttrs(pool_size=(3, 3), strides=(2, 2), padding=(1,), ceil_mode=True)
    _compiled("nn.avg_pool2d", [T(1, 3, 9, 9)], attrs)


def _top_level_parallel(kernel: ir.Kernel) -> bool:
    """Whether the kernel's body (a statement or a sequence of them) holds a parallel loop at
    its top level, not under an allocation or another loop."""
    stmts = kernel.body.stmts if isinstance(kernel.body, ir.Seq) else (kernel.body,)
    return any(isinstance(s, ir.For) and s.kind is ir.LoopKind.PARALLEL for s in stmts)


PARALLEL_CASES = [
    ("nn.conv2d", [T(2, 5, 9, 8), T(7, 5, 3, 3)], Conv2DAttrs(padding=(1, 1))),
    ("nn.conv2d", [T(1, 6, 7, 7), T(6, 3, 3, 3)], Conv2DAttrs(groups=2, padding=(1, 1))),
    # 2304 positions: the sgemm schedule cuts the one image into PARALLEL_TASKS chunks.
    ("nn.conv2d", [T(1, 2, 48, 48), T(3, 2, 3, 3)], Conv2DAttrs(padding=(1, 1))),
    ("nn.batch_matmul", [T(3, 9, 20), T(3, 17, 20)], BatchMatmulAttrs(transpose_b=True)),
    ("nn.dense", [T(37, 70), T(130, 70)], DenseAttrs(units=None)),
]


@STRATEGIES
@pytest.mark.parametrize("case", range(len(PARALLEL_CASES)))
def test_products_parallel_at_top_level(strategy: str, case: int) -> None:
    op, types, attrs = PARALLEL_CASES[case]
    with schedules.gemm_strategy(strategy):
        kernel = lower_call(op, types, attrs)
        if op == "nn.dense" and strategy == "blas":
            # One sgemm straight into the output (OpenBLAS threads it itself).
            assert isinstance(kernel.body, ir.ExternCall)
        else:
            assert _top_level_parallel(kernel), op
        _compiled(op, types, attrs, threads=2)


@pytest.mark.parametrize("micro", schedules.MICRO_KERNELS)
@pytest.mark.parametrize("threads", [1, 2])
def test_packed_micro_kernels_compiled(
    micro: str, threads: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(schedules, "MICRO_KERNEL", micro)
    with schedules.gemm_strategy("packed"):
        _compiled("nn.dense", [T(37, 70), T(130, 70)], DenseAttrs(units=None), threads=threads)
        _compiled("nn.dense", [T(9, 12, dtype="int32"), T(50, 12, dtype="int32")], DenseAttrs(None))
        _compiled("nn.conv2d", [T(2, 5, 9, 8), T(7, 5, 3, 3)], Conv2DAttrs(padding=(1, 1)))
        _compiled(
            "nn.batch_matmul",
            [T(3, 9, 20), T(3, 17, 20)],
            BatchMatmulAttrs(transpose_b=True),
            threads=threads,
        )


def test_sgemm_tasks_run_openblas_single_threaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """At 2 threads, the sgemm convolution's parallel tasks run with OpenBLAS on one thread
    (the pool is the parallelism) and OpenBLAS's thread count is restored afterwards; a
    kernel with no sgemm in its parallel loop leaves OpenBLAS alone."""
    from relay.targets.cpu import externs

    functions = externs._thread_functions()
    if functions is None:
        pytest.skip("numpy's BLAS is not an OpenBLAS with set_num_threads")
    getter, setter = functions
    before = getter()
    setter(2)
    entered: list[int] = []
    real = externs.single_threaded_blas

    def spy() -> object:
        entered.append(1)
        return real()

    monkeypatch.setattr(externs, "single_threaded_blas", spy)
    try:
        with schedules.gemm_strategy("blas"):
            op, types, attrs = PARALLEL_CASES[2]
            _compiled(op, types, attrs, threads=2)
            assert entered and getter() == 2
            with externs.single_threaded_blas():
                assert getter() == 1
            assert getter() == 2
        entered.clear()
        with schedules.gemm_strategy("packed"):
            _compiled(op, types, attrs, threads=2)
        assert not entered
    finally:
        setter(before)
