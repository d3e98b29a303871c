"""The GPU check: everything the ``gpu`` target is held to on a machine with a CUDA GPU, in
one run of at most about five minutes, ending in one summary table.

1. the conformance corpus on ``gpu`` (``relay conform --target gpu --programs 0``);
2. a 2-minute ``relay fuzz --target gpu`` campaign;
3. fused elementwise bandwidth: ``y = max(a*x + b, 0)`` over 2^28 float32 elements (a loop-IR
   kernel, one element per thread, 256 threads per block), as a fraction of the H200's
   4.8 TB/s (reads and writes counted: 12 bytes per element);
4. dense float32 4096^3: a loop-IR GEMM tiled in shared memory (64x64 tiles per block of 16x16
   threads, 4x4 outputs per thread, k-tiles of 16), TFLOP/s; and cuBLAS's ``cublasSgemm_v2``
   on the same matrices through ctypes where ``libcublas`` loads (its version is printed);
5. ResNet-50 batch 1 (the onnx wheel's light model, weights folded) on the ``gpu`` target:
   latency (best of 3 after a first, compiling run).

Kernels 3 and 4 are compiled by the project's NVPTX code generator (``targets.gpu``) and run
with device-resident buffers through ``targets.gpu.driver``; each timing is the best of
several launches after a warm-up, synchronised. Without a CUDA driver the script says so and
exits 0. Run:

    python benchmarks/gpu_check.py [--fuzz-seconds 120] [--skip conform,fuzz,...]
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import glob
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
PEAK_BANDWIDTH = 4.8e12
"""The H200's HBM3e bandwidth, bytes per second."""

SECTIONS = ("conform", "fuzz", "bandwidth", "dense", "resnet50")


def _relay(*args: str, timeout: float) -> tuple[int, str]:
    """``relay ARGS`` in a child process: exit code and the output's last lines."""
    command = [sys.executable, "-m", "relay", *args]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              cwd=ROOT, check=False)  # fmt: skip
    except subprocess.TimeoutExpired:
        return -1, f"timed out after {timeout:.0f} s"
    tail = (done.stdout + done.stderr).strip().splitlines()[-6:]
    return done.returncode, "\n".join(tail)


def _best(run: Callable[[], None], sync: Callable[[], None], repeat: int) -> float:
    run()
    sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        sync()
        times.append(time.perf_counter() - start)
    return min(times)


def bandwidth_kernel(n: int) -> Any:
    """``y[i] = max(a[i] * x[i] + 1, 0)``, ``i = blockIdx.x * 256 + threadIdx.x``."""
    from relay.compiler.lower import ir

    x, a, y = (ir.Buffer(name, (ir.index(n),), "float32") for name in ("x", "a", "y"))
    bx, tx = ir.LoopVar("bx"), ir.LoopVar("tx")
    i = ir.Binary(ir.BinOp.ADD, ir.Binary(ir.BinOp.MUL, ir.Ref(bx), ir.index(256)), ir.Ref(tx))
    value = ir.Binary(ir.BinOp.ADD, ir.Binary(ir.BinOp.MUL, ir.Load(a, (i,)), ir.Load(x, (i,))),
                      ir.const(1.0, "float32"))  # fmt: skip
    store = ir.Store(y, (i,), ir.Binary(ir.BinOp.MAX, value, ir.const(0.0, "float32")))
    body = ir.For(bx, ir.index(n // 256), ir.LoopKind.THREAD,
                  ir.For(tx, ir.index(256), ir.LoopKind.THREAD, store, thread="threadIdx.x"),
                  thread="blockIdx.x")  # fmt: skip
    return ir.Kernel("fused_axpb_relu", (x, a), (y,), (), body)


def gemm_kernel(n: int) -> Any:
    """``C = A @ B`` for ``n x n`` float32 matrices (``n`` a multiple of 64), tiled in shared
    memory (see the module docstring)."""
    from relay.compiler.lower import ir

    A, B, C = (ir.Buffer(name, (ir.index(n), ir.index(n)), "float32") for name in "ABC")
    As = ir.Buffer("As", (ir.index(64), ir.index(16)), "float32", scope="shared")
    Bs = ir.Buffer("Bs", (ir.index(16), ir.index(64)), "float32", scope="shared")
    acc = ir.Buffer("acc", (ir.index(16),), "float32", scope="local")
    by, bx, ty, tx = (ir.LoopVar(v) for v in ("by", "bx", "ty", "tx"))
    kt, r, kk, p, q, z = (ir.LoopVar(v) for v in ("kt", "r", "kk", "p", "q", "z"))

    def add(*xs: ir.PrimExpr) -> ir.PrimExpr:
        out = xs[0]
        for e in xs[1:]:
            out = ir.Binary(ir.BinOp.ADD, out, e)
        return out

    def mul(a: ir.PrimExpr, k: int) -> ir.PrimExpr:
        return ir.Binary(ir.BinOp.MUL, a, ir.index(k))

    def div(a: ir.PrimExpr, k: int) -> ir.PrimExpr:
        return ir.Binary(ir.BinOp.FLOORDIV, a, ir.index(k))

    def mod(a: ir.PrimExpr, k: int) -> ir.PrimExpr:
        return ir.Binary(ir.BinOp.FLOORMOD, a, ir.index(k))

    flat = add(mul(ir.Ref(ty), 16), ir.Ref(tx), mul(ir.Ref(r), 256))  # 0 .. 1023
    load_a = ir.Store(As, (div(flat, 16), mod(flat, 16)),
                      ir.Load(A, (add(mul(ir.Ref(by), 64), div(flat, 16)),
                                  add(mul(ir.Ref(kt), 16), mod(flat, 16)))))  # fmt: skip
    load_b = ir.Store(Bs, (div(flat, 64), mod(flat, 64)),
                      ir.Load(B, (add(mul(ir.Ref(kt), 16), div(flat, 64)),
                                  add(mul(ir.Ref(bx), 64), mod(flat, 64)))))  # fmt: skip
    row = add(mul(ir.Ref(ty), 4), ir.Ref(p))
    col = add(mul(ir.Ref(tx), 4), ir.Ref(q))
    cell = (add(mul(ir.Ref(p), 4), ir.Ref(q)),)
    product = ir.Binary(
        ir.BinOp.MUL, ir.Load(As, (row, ir.Ref(kk))), ir.Load(Bs, (ir.Ref(kk), col))
    )
    update = ir.Store(acc, cell, ir.Binary(ir.BinOp.ADD, ir.Load(acc, cell), product))
    unrolled = ir.LoopKind.UNROLLED
    cells = ir.For(p, ir.index(4), unrolled, ir.For(q, ir.index(4), unrolled, update))
    compute = ir.For(kk, ir.index(16), unrolled, cells)
    tile = ir.Seq((ir.For(r, ir.index(4), unrolled, ir.Seq((load_a, load_b))), ir.Barrier(),
                   compute, ir.Barrier()))  # fmt: skip
    store = ir.Store(C, (add(mul(ir.Ref(by), 64), row), add(mul(ir.Ref(bx), 64), col)),
                     ir.Load(acc, cell))  # fmt: skip
    thread = ir.Allocate(acc, ir.Seq((
        ir.For(z, ir.index(16), unrolled, ir.Store(acc, (ir.Ref(z),), ir.const(0.0, "float32"))),
        ir.For(kt, ir.index(n // 16), ir.LoopKind.SERIAL, tile),
        ir.For(p, ir.index(4), unrolled, ir.For(q, ir.index(4), unrolled, store)),
    )))  # fmt: skip
    threads = ir.For(ty, ir.index(16), ir.LoopKind.THREAD,
                     ir.For(tx, ir.index(16), ir.LoopKind.THREAD, thread, thread="threadIdx.x"),
                     thread="threadIdx.y")  # fmt: skip
    blocks = ir.For(by, ir.index(n // 64), ir.LoopKind.THREAD,
                    ir.For(bx, ir.index(n // 64), ir.LoopKind.THREAD,
                           ir.Allocate(As, ir.Allocate(Bs, threads)), thread="blockIdx.x"),
                    thread="blockIdx.y")  # fmt: skip
    return ir.Kernel("gemm_tiled", (A, B), (C,), (), blocks)


def _launcher(device: Any, kernel: Any) -> tuple[Callable[[list[int]], None], Any]:
    """Compile ``kernel`` for the device; a function launching it on device pointers."""
    from relay.targets.gpu import compile_kernel_ptx
    from relay.targets.gpu.codegen import evaluate_extent

    module, usage = compile_kernel_ptx(kernel, (device.arch,), "gpu")
    loaded = device.load_ptx(module.ptx[device.arch])
    for u in usage:
        print("  ptxas:", u.line())

    def launch(pointers: list[int]) -> None:
        for step in module.launches:
            grid = [evaluate_extent(e, {}) for e in step.grid]
            block = [evaluate_extent(e, {}) for e in step.block]
            device.launch(loaded.function(step.symbol), grid, block, pointers, [])

    return launch, module


def check_bandwidth(device: Any) -> tuple[str, str]:
    n = 1 << 28
    launch, _ = _launcher(device, bandwidth_kernel(n))
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n, dtype=np.float32)
    a = rng.standard_normal(n, dtype=np.float32)
    bufs = [device.allocate(4 * n) for _ in range(3)]
    bufs[0].upload(x)
    bufs[1].upload(a)
    seconds = _best(lambda: launch([b.pointer for b in bufs]), device.synchronize, 10)
    y = np.empty(n, np.float32)
    bufs[2].download(y)
    ok = np.array_equal(y[: 1 << 20], np.maximum(a[: 1 << 20] * x[: 1 << 20] + 1, 0))
    rate = 12 * n / seconds
    return (
        f"{rate / 1e12:.2f} TB/s = {rate / PEAK_BANDWIDTH:.0%} of 4.8 TB/s",
        "correct" if ok else "WRONG RESULT",
    )


def _cublas() -> tuple[ctypes.CDLL, str] | None:
    candidates = glob.glob(os.path.join(sys.prefix, "lib*/python3*/site-packages/nvidia/*/lib/"
                                        "libcublas.so*"))  # fmt: skip
    found = ctypes.util.find_library("cublas")
    for name in [*candidates, *(["libcublas.so"] if found else []), "libcublas.so.13",
                 "libcublas.so.12", "/usr/local/cuda/lib64/libcublas.so"]:  # fmt: skip
        try:
            return ctypes.CDLL(name), name
        except OSError:
            continue
    return None


def check_dense(device: Any) -> tuple[str, str]:
    n = 4096
    launch, _ = _launcher(device, gemm_kernel(n))
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    bufs = [device.allocate(4 * n * n) for _ in range(3)]
    bufs[0].upload(a)
    bufs[1].upload(b)
    seconds = _best(lambda: launch([x.pointer for x in bufs]), device.synchronize, 5)
    c = np.empty((n, n), np.float32)
    bufs[2].download(c)
    rows = slice(0, 64)
    error = float(np.max(np.abs(c[rows] - a[rows] @ b)) / np.max(np.abs(a[rows] @ b)))
    tflops = 2 * n**3 / seconds / 1e12
    figure = f"{tflops:.2f} TFLOP/s"
    found = _cublas()
    if found is not None:
        lib, name = found
        handle = ctypes.c_void_p()
        if lib.cublasCreate_v2(ctypes.byref(handle)) == 0:
            one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)

            # Row-major C = A B is column-major C^T = B^T A^T: pass B first.
            def sgemm() -> None:
                lib.cublasSgemm_v2(handle, 0, 0, n, n, n, ctypes.byref(one),
                                   ctypes.c_uint64(bufs[1].pointer), n,
                                   ctypes.c_uint64(bufs[0].pointer), n, ctypes.byref(zero),
                                   ctypes.c_uint64(bufs[2].pointer), n)  # fmt: skip

            blas = _best(sgemm, device.synchronize, 5)
            version = ctypes.c_int()
            lib.cublasGetVersion_v2(handle, ctypes.byref(version))
            figure += (f"; cuBLAS {version.value} ({Path(name).name}) {2 * n**3 / blas / 1e12:.2f} "
                       f"TFLOP/s; ratio {blas / seconds:.2f}")  # fmt: skip
    else:
        figure += "; no cuBLAS library found"
    return figure, f"relative error {error:.1e}" + ("" if error < 1e-4 else " (WRONG)")


def check_resnet50() -> tuple[str, str]:
    import onnx

    from relay.compiler.passes import BUILTIN_PASSES
    from relay.frontend import from_onnx
    from relay.semantics.values import TensorValue
    from relay.targets import get_target

    path = Path(onnx.__file__).parent / "backend/test/data/light/light_resnet50.onnx"
    mod = BUILTIN_PASSES["fold-constant"]()(from_onnx(onnx.load(str(path)), source=str(path)))
    param = mod["main"].params[0]
    shape = tuple(int(d) for d in param.type_annotation.shape)
    x = TensorValue((np.arange(int(np.prod(shape))).reshape(shape) / np.prod(shape))
                    .astype(np.float32))  # fmt: skip
    start = time.perf_counter()
    exe = get_target("gpu").compile(mod)
    exe.run(x)
    first = time.perf_counter() - start
    best = min(_timed(lambda: exe.run(x)) for _ in range(3))
    return f"{best * 1e3:.1f} ms", f"compile + first run {first:.1f} s"


def _timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--fuzz-seconds", type=int, default=120)
    parser.add_argument("--skip", default="", help=f"sections to skip, of {','.join(SECTIONS)}")
    args = parser.parse_args()
    skip = {s for s in args.skip.split(",") if s}
    try:  # first without importing relay (quick where there is no GPU)
        ctypes.CDLL("libcuda.so.1")
    except OSError as err:
        print(f"gpu_check: skipped: no CUDA driver: libcuda.so.1 cannot be loaded ({err}); "
              "this check needs an NVIDIA GPU and its driver")  # fmt: skip
        return 0
    sys.path.insert(0, str(ROOT))
    from relay.targets.gpu import driver

    try:
        device = driver.device()
    except (driver.NoDriver, driver.CudaError) as err:
        print(f"gpu_check: skipped: {err} (this check needs an NVIDIA GPU and its driver)")
        return 0
    print(f"gpu_check: {device.name}, {device.arch}, driver {device.driver_version}")
    rows: list[tuple[str, str, str]] = []

    def section(name: str, fn: Callable[[], tuple[str, str]]) -> None:
        if name in skip:
            rows.append((name, "skipped", ""))
            return
        start = time.perf_counter()
        try:
            figure, note = fn()
        except Exception as err:  # one failing section must not hide the others' figures
            figure, note = "FAILED", f"{type(err).__name__}: {err}"[:200]
        rows.append((name, figure, f"{note} [{time.perf_counter() - start:.0f} s]"))
        print(f"{name}: {figure} ({note})", flush=True)

    def conform() -> tuple[str, str]:
        code, tail = _relay("conform", "--target", "gpu", "--programs", "0", timeout=90)
        return ("pass" if code == 0 else f"exit {code}"), tail.replace("\n", " | ")[-160:]

    def fuzz() -> tuple[str, str]:
        code, tail = _relay("fuzz", "--target", "gpu", "--time", str(args.fuzz_seconds),
                            timeout=args.fuzz_seconds + 60)  # fmt: skip
        return ("no counterexample" if code == 0 else f"exit {code}"), tail.replace("\n", " | ")[
            -160:
        ]

    section("conform", conform)
    section("fuzz", fuzz)
    section("bandwidth", lambda: check_bandwidth(device))
    section("dense", lambda: check_dense(device))
    section("resnet50", check_resnet50)
    width = max(len(r[1]) for r in rows)
    print("\n| check | figure | note |\n|---|---|---|")
    for name, figure, note in rows:
        print(f"| {name} | {figure.ljust(width)} | {note} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
