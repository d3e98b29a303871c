"""The NVPTX code generator (``targets/gpu/codegen.py``) on hand-bound kernels, its float32
formulas (``targets/gpu/math.py``) checked on the host, its guard against intrinsics that abort
LLVM, and the ``nvptx`` and ``gpu`` targets' errors. Every PTX module made here is assembled by
``ptxas -arch=sm_90`` (skipped with a message where ptxas is missing)."""

from __future__ import annotations

import ctypes
import re
import subprocess
import sys
from pathlib import Path

import llvmlite.ir as lir
import numpy as np
import pytest
from gpu_helpers import assemble, requires_ptxas

import relay
from relay.cli import main
from relay.compiler.lower import ir
from relay.oracles.compare import compare_arrays
from relay.semantics.errors import BackendError
from relay.targets.base import KernelRejected
from relay.targets.cpu import jit
from relay.targets.cpu.codegen import KernelCompileError, _Unsupported
from relay.targets.cpu.runtime import compile_module
from relay.targets.gpu import (
    GpuBackend,
    GpuTarget,
    NvptxTarget,
    codegen,
    compile_kernel_ptx,
    driver,
    toolkit,
)
from relay.targets.gpu import math as gpu_math


def _i(v: int) -> ir.Const:
    return ir.index(v)


def _vector_kernel(name: str, n: int, value: object, dtype: str = "float32") -> ir.Kernel:
    """``b[i] = value(a[i])`` with ``i`` bound to ``threadIdx.x``."""
    a, b = ir.Buffer("a", (_i(n),), dtype), ir.Buffer("b", (_i(n),), dtype)
    i = ir.LoopVar("i")
    x = ir.Load(a, (ir.Ref(i),))
    assert callable(value)
    body = ir.For(i, _i(n), ir.LoopKind.THREAD, ir.Store(b, (ir.Ref(i),), value(x)),
                  thread="threadIdx.x")  # fmt: skip
    return ir.Kernel(name, (a,), (b,), (), body)


def _block_sum_kernel() -> ir.Kernel:
    """Per block ``bx``: rows of ``x`` into shared memory, a barrier, a tree reduction in
    shared memory (halving strides, a barrier after each), thread 0 writes the sum."""
    rows, width = 4, 256
    x = ir.Buffer("x", (_i(rows), _i(width)), "float32")
    out = ir.Buffer("out", (_i(rows),), "float32")
    smem = ir.Buffer("smem", (_i(width),), "float32", scope="shared")
    bx = ir.LoopVar("bx")
    steps: list[ir.Stmt] = []
    t = ir.LoopVar("t")
    steps.append(ir.For(t, _i(width), ir.LoopKind.THREAD,
                        ir.Store(smem, (ir.Ref(t),), ir.Load(x, (ir.Ref(bx), ir.Ref(t)))),
                        thread="threadIdx.x"))  # fmt: skip
    steps.append(ir.Barrier())
    stride = width // 2
    while stride:
        t = ir.LoopVar("t")
        other = ir.Binary(ir.BinOp.ADD, ir.Ref(t), _i(stride))
        update = ir.Store(smem, (ir.Ref(t),), ir.Binary(ir.BinOp.ADD, ir.Load(smem, (ir.Ref(t),)),
                                                        ir.Load(smem, (other,))))  # fmt: skip
        steps.append(ir.For(t, _i(width), ir.LoopKind.THREAD,
                            ir.IfThenElse(ir.Binary(ir.BinOp.LT, ir.Ref(t), _i(stride)), update),
                            thread="threadIdx.x"))  # fmt: skip
        steps.append(ir.Barrier())
        stride //= 2
    steps.append(ir.Store(out, (ir.Ref(bx),), ir.Load(smem, (_i(0),))))
    body = ir.For(bx, _i(rows), ir.LoopKind.THREAD, ir.Allocate(smem, ir.Seq(tuple(steps))),
                  thread="blockIdx.x")  # fmt: skip
    return ir.Kernel("block_sum", (x,), (out,), (), body)


# ---------------------------------------------------------------------------------------------
# Code generation


@requires_ptxas
def test_shared_memory_reduction_with_barriers() -> None:
    module = codegen.generate(_block_sum_kernel())
    (launch,) = module.launches
    assert launch.grid == (_i(4), _i(1), _i(1))
    assert launch.block == (_i(256), _i(1), _i(1))
    for arch in ("sm_80", "sm_90"):
        ptx = module.ptx[arch]
        assert f".target {arch}" in ptx and ".visible .entry relay_block_sum__k0" in ptx
        assert ".shared" in ptx and "bar.sync" in ptx and "%tid.x" in ptx and "%ctaid.x" in ptx
    (usage,) = assemble(module.ptx["sm_90"])
    assert usage.function == "relay_block_sum__k0"
    assert usage.shared_bytes == 256 * 4
    assert usage.barriers == 1 and usage.registers > 0
    # The final store is outside the threadIdx.x loops: one thread (tid.x == 0) makes it.
    assert "once:" in module.llvm_ir


@requires_ptxas
def test_segments_are_separate_launches_with_their_own_sizes() -> None:
    n = ir.SizeVar("n")
    a, b = ir.Buffer("a", (ir.Ref(n),), "float32"), ir.Buffer("b", (ir.Ref(n),), "float32")
    tmp = ir.Buffer("tmp", (ir.Ref(n),), "float32", scope="local")
    i, j = ir.LoopVar("i"), ir.LoopVar("j")
    copy = ir.Store(tmp, (ir.Ref(i),), ir.Load(a, (ir.Ref(i),)))
    first = ir.For(i, ir.Ref(n), ir.LoopKind.THREAD, copy, thread="threadIdx.x")
    reverse = ir.Binary(ir.BinOp.SUB, ir.Binary(ir.BinOp.SUB, ir.Ref(n), ir.Ref(j)), _i(1))
    flip = ir.Store(b, (ir.Ref(j),), ir.Load(tmp, (reverse,)))
    second = ir.For(j, ir.Ref(n), ir.LoopKind.THREAD, flip, thread="blockIdx.x")
    kernel = ir.Kernel("reverse", (a,), (b,), (n,), ir.Allocate(tmp, ir.Seq((first, second))))
    module = codegen.generate(kernel)
    assert [s.name for s in module.scratch] == ["tmp"]  # global memory the host allocates
    first_launch, second_launch = module.launches
    assert first_launch.block[0] == ir.Ref(n) and first_launch.grid[0] == _i(1)
    assert second_launch.grid[0] == ir.Ref(n) and second_launch.block[0] == _i(1)
    assert codegen.evaluate_extent(second_launch.grid[0], {n: 7}) == 7
    usages = assemble(module.ptx["sm_90"])
    assert {u.function for u in usages} == {"relay_reverse__k0", "relay_reverse__k1"}


def test_loops_of_one_index_with_different_extents_launch_the_largest_and_guard() -> None:
    out = ir.Buffer("out", (_i(64),), "int32")
    b, i, j = ir.LoopVar("b"), ir.LoopVar("i"), ir.LoopVar("j")
    body = ir.For(b, _i(1), ir.LoopKind.THREAD, ir.Seq((
        ir.For(i, _i(64), ir.LoopKind.THREAD, ir.Store(out, (ir.Ref(i),), ir.const(1, "int32")),
               thread="threadIdx.x"),
        ir.Barrier(),
        ir.For(j, _i(16), ir.LoopKind.THREAD, ir.Store(out, (ir.Ref(j),), ir.const(2, "int32")),
               thread="threadIdx.x"),
    )), thread="blockIdx.x")  # fmt: skip
    text, launches, _, _ = codegen.generate_ir(ir.Kernel("two", (), (out,), (), body))
    (launch,) = launches
    assert launch.block[0] == _i(64) and launch.grid[0] == _i(1)
    guarded = re.findall(r'^"?bound\.threadIdx_x\d+"?:', text, re.MULTILINE)
    assert len(guarded) == 1  # only the 16-wide loop is guarded
    assert "icmp slt i64" in text and ", 16" in text
    assert "llvm.nvvm.barrier0" in text


def test_a_top_level_barrier_between_launches_is_dropped() -> None:
    out = ir.Buffer("out", (_i(64),), "int32")
    i, j = ir.LoopVar("i"), ir.LoopVar("j")
    body = ir.Seq((
        ir.For(i, _i(64), ir.LoopKind.THREAD, ir.Store(out, (ir.Ref(i),), ir.const(1, "int32")),
               thread="threadIdx.x"),
        ir.Barrier(),
        ir.For(j, _i(16), ir.LoopKind.THREAD, ir.Store(out, (ir.Ref(j),), ir.const(2, "int32")),
               thread="threadIdx.x"),
    ))  # fmt: skip
    _, launches, _, _ = codegen.generate_ir(ir.Kernel("two", (), (out,), (), body))
    assert [launch.block[0] for launch in launches] == [_i(64), _i(16)]


@requires_ptxas
@pytest.mark.parametrize(
    "dtype",
    [pytest.param("float16", marks=pytest.mark.slow), "float32",
     pytest.param("float64", marks=pytest.mark.slow)],
)  # fmt: skip
def test_every_intrinsic_of_every_float_dtype_passes_ptxas(dtype: str) -> None:
    names = sorted(ir.INTRINSICS)
    a = ir.Buffer("a", (_i(len(names)),), dtype)
    out = ir.Buffer("out", (_i(len(names)),), dtype)
    flags = ir.Buffer("flags", (_i(len(names)),), "bool")
    stores: list[ir.Stmt] = []
    for k, name in enumerate(names):
        args = tuple(ir.Load(a, (_i((k + m) % len(names)),)) for m in range(ir.INTRINSICS[name]))
        if name in ("isnan", "isinf", "isfinite"):
            stores.append(ir.Store(flags, (_i(k),), ir.Call(name, args, "bool")))
        else:
            stores.append(ir.Store(out, (_i(k),), ir.Call(name, args, dtype)))
    stores.append(ir.Store(out, (_i(0),), ir.Binary(ir.BinOp.FLOORMOD, ir.Load(a, (_i(0),)),
                                                    ir.Load(a, (_i(1),)))))  # fmt: skip
    kernel = ir.Kernel(f"math_{dtype}", (a,), (out, flags), (), ir.Seq(tuple(stores)))
    module = codegen.generate(kernel, ("sm_90",))
    assert "llvm.exp.f" not in module.llvm_ir and "llvm.tanh" not in module.llvm_ir
    assemble(module.ptx["sm_90"])


def test_a_declaration_that_would_abort_llvm_is_refused_before_llvm() -> None:
    module = lir.Module(name="bad")
    f32 = lir.FloatType()
    for name in ("llvm.exp.f32", "llvm.log.f32", "llvm.tanh.f32", "llvm.sin.f32", "expf"):
        lir.Function(module, lir.FunctionType(f32, [f32]), name=name)
        with pytest.raises(_Unsupported, match=name.replace(".", r"\.")):
            codegen.check_declarations(module)
        del module.globals[name]
    lir.Function(module, lir.FunctionType(f32, [f32]), name="llvm.nvvm.ex2.approx.f")
    lir.Function(module, lir.FunctionType(f32, [f32]), name="__nv_sinf")
    codegen.check_declarations(module)  # the allowed ones pass


def test_without_libdevice_a_function_it_provides_is_unsupported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(codegen, "libdevice_available", lambda: False)
    sin = _vector_kernel("vsin", 8, lambda x: ir.Call("sin", (x,), "float32"))
    with pytest.raises(KernelCompileError) as caught:
        codegen.generate(sin)
    assert isinstance(caught.value.__cause__, codegen.NeedsLibdevice)
    with pytest.raises(BackendError, match="target nvptx does not support sin of float32 "
                       "without libdevice"):  # fmt: skip
        compile_kernel_ptx(sin, ("sm_90",), "nvptx")
    # The float32 formulas need no libdevice.
    exp = _vector_kernel("vexp", 8, lambda x: ir.Call("exp", (x,), "float32"))
    assert not codegen.generate(exp, ("sm_90",)).uses_libdevice


def test_a_bad_architecture_name_is_refused() -> None:
    with pytest.raises(ValueError, match="arch='90'"):
        NvptxTarget(archs=("90",))


# ---------------------------------------------------------------------------------------------
# The float32 formulas, on the host


def _formula_inputs() -> np.ndarray:
    specials = [0.0, -0.0, np.inf, -np.inf, np.nan, 88.72, 88.7228, -87.3, -103.9, 1e-45, 1.0]
    return np.concatenate([
        np.linspace(-100, 100, 40001), np.geomspace(1e-30, 100, 20001),
        -np.geomspace(1e-30, 100, 2001), specials,
    ]).astype(np.float32)  # fmt: skip


@pytest.mark.parametrize("sign", [-1, 0, 1])
def test_formulas_meet_the_tolerance_policy_with_the_hardware_error(
    sign: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each formula, computed on the host with ``ex2``/``lg2`` off by the PTX ISA's worst
    error in direction ``sign``, against numpy in float64 rounded once (the reference)."""
    monkeypatch.setenv("RELAY_CPU_COMPILE_IN_PROCESS", "1")
    text, symbols = gpu_math.host_module(*jit.triple_and_layout(), sign=sign)
    obj, _, _ = jit.compile_object(text)
    library = jit.load_object(obj, symbols, {})
    x = _formula_inputs()
    prototype = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)
    for name, symbol in zip(gpu_math.FORMULAS, symbols, strict=True):
        y = np.empty_like(x)
        prototype(library.addresses[symbol])(x.ctypes.data, y.ctypes.data, x.size)
        with np.errstate(all="ignore"):
            expected = getattr(np, name)(x.astype(np.float64)).astype(np.float32)
        mismatch = compare_arrays(expected, y)
        assert mismatch is None, f"{name} (hardware error sign {sign}): {mismatch}"


# ---------------------------------------------------------------------------------------------
# The targets

PROGRAM = """#[version = "0.0.5"]
def @main(%x: Tensor[(4, 8), float32], %w: Tensor[(4), float32]) {
  %0 = exp(%x);
  %1 = sum(%0, axis=[1]);
  multiply(%w, %1)
}
"""


@requires_ptxas
def test_nvptx_compiles_with_ptxas_reports_and_refuses_to_run() -> None:
    exe = NvptxTarget().compile(relay.parse(PROGRAM))
    artifacts = exe.artifacts()
    assert artifacts
    for name, art in artifacts.items():
        assert isinstance(art["ptx"], str) and ".target sm_90" in art["ptx"]
        assert isinstance(art["ptx-sm_80"], str) and ".target sm_80" in art["ptx-sm_80"]
        report = art["ptxas"]
        assert isinstance(report, str)
        assert "sm_80:" in report and "sm_90:" in report and "registers" in report, name
    x, w = np.ones((4, 8), np.float32), np.ones(4, np.float32)
    with pytest.raises(BackendError, match=r"target nvptx compiles only.*--target gpu"):
        exe.run(relay.TensorValue(x), relay.TensorValue(w))  # type: ignore[attr-defined]


@pytest.mark.skipif(driver.driver_present(), reason="a CUDA driver is present")
def test_gpu_without_a_driver_says_so() -> None:
    with pytest.raises(BackendError, match=r"no CUDA driver.*gpu-sim"):
        GpuTarget().compile(relay.parse(PROGRAM))


@pytest.mark.skipif(driver.driver_present(), reason="a CUDA driver is present")
def test_compiling_for_the_gpu_does_not_touch_the_driver_and_running_says_it_is_missing() -> None:
    backend = GpuBackend("gpu", ("sm_90",), runnable=True)
    exe = compile_module(relay.parse(PROGRAM), backend, target="gpu")  # type: ignore[arg-type]
    assert driver.device.cache_info().currsize == 0  # CUDA must survive the checks' forks
    x, w = np.ones((4, 8), np.float32), np.ones(4, np.float32)
    with pytest.raises(BackendError, match="target gpu: no CUDA driver"):
        exe.run(relay.TensorValue(x), relay.TensorValue(w))  # type: ignore[attr-defined]


def test_a_kernel_ptxas_rejects_is_an_internal_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def reject(ptx: str, arch: str) -> list[toolkit.KernelUsage]:
        raise toolkit.PtxasError(arch, "ptxas fatal: something")

    monkeypatch.setattr(toolkit, "find_ptxas", lambda: "/bin/true")
    monkeypatch.setattr(toolkit, "ptxas_report", reject)
    exp = _vector_kernel("vexp", 8, lambda x: ir.Call("exp", (x,), "float32"))
    with pytest.raises(KernelRejected, match="rejected kernel vexp: ptxas -arch=sm_90") as caught:
        compile_kernel_ptx(exp, ("sm_90",), "nvptx")
    assert ".entry relay_vexp__k0" in caught.value.ir  # the PTX, saved by the command line


@requires_ptxas
def test_cli_compile_emit_ptx_prints_the_ptxas_report(
    tmp_path: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "p.relay"  # type: ignore[operator]
    source.write_text(PROGRAM)
    out = tmp_path / "out"  # type: ignore[operator]
    assert main(["compile", str(source), "--target", "nvptx", "--emit", "ptx", "-o", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "registers" in printed and "B shared" in printed
    reports = [line for line in printed.splitlines() if "registers" in line]
    assert [p.suffix for p in out.iterdir()].count(".ptx") == len(reports) // 2 > 0
    x, w = tmp_path / "x.npy", tmp_path / "w.npy"  # type: ignore[operator]
    np.save(x, np.ones((4, 8), np.float32))
    np.save(w, np.ones(4, np.float32))
    assert main(["run", str(source), "--target", "nvptx", str(x), str(w)]) == 1
    err = capsys.readouterr().err
    assert "target nvptx compiles only" in err and "Traceback" not in err


@pytest.mark.skipif(driver.driver_present(), reason="a CUDA driver is present")
def test_the_gpu_check_script_skips_cleanly_without_a_gpu() -> None:
    script = Path(__file__).resolve().parent.parent / "benchmarks" / "gpu_check.py"
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "gpu_check: skipped: no CUDA driver" in done.stdout
    assert "Traceback" not in done.stderr
