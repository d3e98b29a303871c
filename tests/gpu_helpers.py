"""Shared by the ``tests/test_gpu_codegen*.py`` and ``tests/test_ptxas*.py`` files: ptxas
(skipped with a clear message where it is missing) and a hand binding of a kernel's outer
loops to blocks and threads."""

from __future__ import annotations

import dataclasses

import pytest

from relay.compiler.lower import ir
from relay.targets.gpu import toolkit

requires_ptxas = pytest.mark.skipif(toolkit.find_ptxas() is None, reason=toolkit.NO_PTXAS)
"""Skip a test that needs ptxas where there is none (the reason says how to get it)."""


def assemble(ptx: str, arch: str = "sm_90") -> list[toolkit.KernelUsage]:
    """``ptx`` assembled by ``ptxas -arch=ARCH -v``: each entry function's usage (a
    ``PtxasError`` fails the test with ptxas's message)."""
    return toolkit.ptxas_report(ptx, arch)


def _static(e: ir.PrimExpr) -> int | None:
    return int(e.value) if isinstance(e, ir.Const) else None


def _bind(s: ir.Stmt) -> ir.Stmt:
    if not isinstance(s, ir.For) or s.kind is ir.LoopKind.THREAD:
        return s
    outer = _static(s.extent)
    inner_loop = s.body if isinstance(s.body, ir.For) else None
    inner = _static(inner_loop.extent) if inner_loop is not None else None
    if inner_loop is not None and outer is not None and inner is not None and inner <= 1024:
        body = dataclasses.replace(inner_loop, kind=ir.LoopKind.THREAD, thread="threadIdx.x")
        return dataclasses.replace(s, kind=ir.LoopKind.THREAD, thread="blockIdx.x", body=body)
    if outer is not None and outer <= 1024:
        return dataclasses.replace(s, kind=ir.LoopKind.THREAD, thread="threadIdx.x")
    return s


def bind_outer_loops(kernel: ir.Kernel) -> ir.Kernel:
    """``kernel`` with each top-level loop of a static extent bound: a nest of two to
    ``blockIdx.x`` and ``threadIdx.x`` (the inner extent at most 1024), a single loop of at
    most 1024 iterations to ``threadIdx.x``. Not a correct schedule in general (a loop that
    carries a dependence becomes a race): for testing code generation only."""

    def walk(s: ir.Stmt) -> ir.Stmt:
        match s:
            case ir.Seq(stmts):
                return ir.Seq(tuple(walk(x) for x in stmts))
            case ir.Allocate(buffer, body):
                return ir.Allocate(buffer, walk(body))
            case _:
                return _bind(s)

    return dataclasses.replace(kernel, body=walk(kernel.body))
