"""Shared by the ``tests/test_gpu_codegen*.py`` and ``tests/test_ptxas*.py`` files: ptxas
(skipped with a clear message where it is missing) and a hand binding of a kernel's outer
loops to blocks and threads."""

from __future__ import annotations

import ctypes
import dataclasses
import itertools
import re
import threading
from collections.abc import Callable

import numpy as np
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


# ---------------------------------------------------------------------------------------------
# The generated NVPTX IR run on the host: one OS thread per GPU thread, real barriers

_SREGS = [f"{r}.{a}" for r in ("tid", "ctaid", "ntid", "nctaid") for a in "xyz"]
BARRIER_TIMEOUT = 30.0
"""Seconds a host thread waits at a barrier before the run fails (a barrier some thread of
the block never reaches)."""


def host_ir(module: object) -> str:
    """The unoptimised NVPTX LLVM IR of a ``GpuModule`` retargeted to the host: a special
    register ``R`` read through ``@sim.sreg(k)`` (the ``k``-th of ``_SREGS``, a callback that
    answers for the calling thread), ``bar.sync`` as ``@sim.barrier()`` (a callback that waits
    for the block's other threads), ``ex2``/``lg2`` as LLVM's exact ``exp2``/``log2``,
    libdevice's ``__nv_*`` as the C library's functions, shared memory as ordinary globals
    (the blocks run one after another). The code the GPU emitter wrote is otherwise
    unchanged, so running it checks its indexing, guards, barriers and launches."""
    from relay.targets.cpu import jit

    text: str = module.llvm_ir  # type: ignore[attr-defined]
    triple, layout = jit.triple_and_layout()
    text = re.sub(r'target triple = "[^"]*"', f'target triple = "{triple}"', text)
    text = re.sub(r'target datalayout = "[^"]*"', f'target datalayout = "{layout}"', text)
    text = text.replace("define ptx_kernel void", "define void").replace(" addrspace(3)", "")
    text = text.replace('@"llvm.nvvm.ex2.approx.f"', '@"llvm.exp2.f32"')
    text = text.replace('@"llvm.nvvm.lg2.approx.f"', '@"llvm.log2.f32"')
    text = text.replace('@"llvm.nvvm.barrier0"', '@"sim.barrier"')
    text = re.sub(r'@"__nv_(\w+)"', lambda m: f'@"{m.group(1)}"', text)
    lines = ['declare i32 @"sim.sreg"(i32)']
    if '@"sim.barrier"' not in text:
        lines.append('declare void @"sim.barrier"()')
    for k, reg in enumerate(_SREGS):
        name = f"llvm.nvvm.read.ptx.sreg.{reg}"
        text = text.replace(f'declare i32 @"{name}"()\n', "")
        text = text.replace(f'@"{name}"', f'@"sim.read.{reg}"')
        lines.append(f'define internal i32 @"sim.read.{reg}"() {{\n'
                     f'  %v = call i32 @"sim.sreg"(i32 {k})\n  ret i32 %v\n}}')  # fmt: skip
    return text + "\n" + "\n".join(lines) + "\n"


def run_on_host(module: object, arrays: list[np.ndarray], sizes: dict[object, int]) -> None:
    """Run a ``GpuModule``'s launches on the host (``host_ir``): block after block, each
    block's threads as OS threads that meet at its barriers; ``arrays`` are the kernel's
    inputs then outputs (written)."""
    from relay.targets.cpu import jit
    from relay.targets.gpu.codegen import evaluate_extent

    local = threading.local()
    current: list[threading.Barrier] = []
    errors: list[BaseException] = []

    @ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32)
    def sreg(k: int) -> int:
        return int(local.regs[k])

    @ctypes.CFUNCTYPE(None)
    def barrier() -> None:
        try:
            current[0].wait()
        except threading.BrokenBarrierError as err:  # a thread missed it: fail the run
            errors.append(err)

    imports = {"sim.sreg": ctypes.cast(sreg, ctypes.c_void_p).value or 0,
               "sim.barrier": ctypes.cast(barrier, ctypes.c_void_p).value or 0}  # fmt: skip
    launches = module.launches  # type: ignore[attr-defined]
    symbols = [launch.symbol for launch in launches]
    obj, _, _ = jit.compile_object(host_ir(module))
    library = jit.load_object(obj, symbols, imports)
    kernel = module.kernel  # type: ignore[attr-defined]
    scratch = []
    for buffer in module.scratch:  # type: ignore[attr-defined]
        count = int(np.prod([evaluate_extent(e, sizes) for e in buffer.shape]))
        dtype = np.bool_ if buffer.dtype == "bool" else buffer.dtype
        scratch.append(np.zeros(max(count, 1), dtype))
    pointers = [a.ctypes.data for a in [*arrays, *scratch]]
    values = [int(sizes[s]) for s in kernel.sizes]
    types = [ctypes.c_void_p] * len(pointers) + [ctypes.c_int64] * len(values)
    for launch in launches:
        fn = ctypes.CFUNCTYPE(None, *types)(library.addresses[launch.symbol])
        grid = [evaluate_extent(e, sizes) for e in launch.grid]
        block = [evaluate_extent(e, sizes) for e in launch.block]

        def thread(regs: list[int], fn: Callable[..., None] = fn) -> None:
            local.regs = regs
            fn(*pointers, *values)

        for bz, by, bx in itertools.product(*(range(n) for n in reversed(grid))):
            current[:] = [threading.Barrier(block[0] * block[1] * block[2],
                                            timeout=BARRIER_TIMEOUT)]  # fmt: skip
            workers = [
                threading.Thread(target=thread, args=([tx, ty, tz, bx, by, bz, *block, *grid],))
                for tz, ty, tx in itertools.product(*(range(n) for n in reversed(block)))
            ]
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            assert not errors, f"a barrier of {launch.symbol} was not reached by every thread"
