"""The ``gpu-sim`` target: conformance pass rate and emulator speed.

1. ``relay conform`` on ``gpu-sim`` and ``gpu-sim-races`` (the corpus and ``--programs``
   generated programs): cases, passed, failed, skipped, pass rate of those run, seconds.
2. Emulator speed on kernels of every schedule (``injective``, ``reduce``, ``tiled``,
   ``block``): simulated threads per second (the threads of the launch divided by the best
   time of a launch), and the ratio of its time to two peers on the same kernel, measured in
   the same run: the loop IR's reference interpreter (``compiler.lower.evaluate``, element by
   element; on a smaller size when it would take long, scaled by the element count) and the
   ``cpu`` target's native code (through LLVM).
3. With ``--fuzz SECONDS``: a ``relay fuzz --target gpu-sim`` campaign of that length; its
   summary line.

Run: ``python benchmarks/gpusim.py [--programs N] [--repeat N] [--fuzz SECONDS]``. Figures
on a shared machine are under load.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import relay
from relay.compiler.lower import gpu, ir, schedules
from relay.compiler.lower.evaluate import run_kernel
from relay.compiler.lower.lower import lower_primitive
from relay.oracles.conform_kit import conform
from relay.semantics.syntax import Function
from relay.targets import get_target
from relay.targets.cpu.codegen import compile_kernel
from relay.targets.gpusim.emulator import launch, prepare

ROOT = Path(__file__).resolve().parent.parent

KERNELS = [
    # name, signature, body, (shape of the reference interpreter's run, or None: the same)
    ("add+relu 1M", "%x: Tensor[(1024, 1024), float32], %y: Tensor[(1024,), float32]",
     "nn.relu(add(%x, %y))", "%x: Tensor[(16, 1024), float32], %y: Tensor[(1024,), float32]"),
    ("sum 64x4096", "%x: Tensor[(64, 4096), float32]", "sum(%x, axis=[1])",
     "%x: Tensor[(1, 4096), float32]"),
    ("dense 128x256x128", "%x: Tensor[(128, 256), float32], %w: Tensor[(128, 256), float32]",
     "nn.dense(%x, %w, units=128)",
     "%x: Tensor[(4, 256), float32], %w: Tensor[(128, 256), float32]"),
    ("conv2d 16->16 28x28", "%x: Tensor[(1, 16, 28, 28), float32], "
     "%w: Tensor[(16, 16, 3, 3), float32]", "nn.conv2d(%x, %w, padding=[1, 1, 1, 1])",
     "%x: Tensor[(1, 16, 4, 28), float32], %w: Tensor[(16, 16, 3, 3), float32]"),
    ("softmax 64x1000", "%x: Tensor[(64, 1000), float32]", "nn.softmax(%x)",
     "%x: Tensor[(2, 1000), float32]"),
]  # fmt: skip


def kernel_of(signature: str, body: str, strategy: str) -> ir.Kernel:
    mod = relay.parse(f'#[version = "0.0.5"]\ndef @main({signature}) {{ {body} }}')
    fn = next(iter(mod.functions.values()))
    assert isinstance(fn, Function)
    with schedules.gemm_strategy(strategy):
        return lower_primitive(fn, "k")


def inputs_of(kernel: ir.Kernel) -> list[np.ndarray]:
    rng = np.random.default_rng(0)
    shapes = [[schedules.static(d) or 0 for d in b.shape] for b in kernel.inputs]
    return [
        rng.standard_normal(s).astype(b.dtype) for s, b in zip(shapes, kernel.inputs, strict=True)
    ]


def outputs_of(kernel: ir.Kernel) -> list[np.ndarray]:
    return [np.zeros([schedules.static(d) or 0 for d in b.shape], b.dtype) for b in kernel.outputs]


def best(fn: Callable[[], object], repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def speed(repeat: int) -> None:
    print(f"{'kernel':22} {'schedule':10} {'threads':>9} {'Mthreads/s':>11} {'ms':>9} "
          f"{'x reference':>12} {'x cpu':>8}")  # fmt: skip
    for name, signature, body, small in KERNELS:
        kernel = kernel_of(signature, body, "gpu")
        scheduled = gpu.schedule_for_gpu(kernel)
        compiled = prepare(scheduled)
        ins, outs = inputs_of(kernel), outputs_of(kernel)
        before = compiled.threads_run[0]
        t = best(lambda c=compiled, i=ins, o=outs: launch(c, i, o, {}), repeat)  # type: ignore[misc]
        threads = (compiled.threads_run[0] - before) // (repeat + 1)
        # the peers
        ref_kernel = kernel_of(small or signature, body, "gpu")
        elements = sum(o.size for o in outputs_of(kernel))
        ref_elements = sum(o.size for o in outputs_of(ref_kernel))
        ref_ins = inputs_of(ref_kernel)
        t_ref = best(lambda k=ref_kernel, i=ref_ins: run_kernel(k, i), 1)  # type: ignore[misc]
        t_ref *= elements / ref_elements
        cpu_kernel = kernel_of(signature, body, "blas")
        native = compile_kernel(cpu_kernel)
        cpu_ins, cpu_outs = inputs_of(cpu_kernel), outputs_of(cpu_kernel)
        t_cpu = best(lambda f=native, i=cpu_ins, o=cpu_outs: f(i, o, {}), repeat)  # type: ignore[misc]
        print(f"{name:22} {scheduled.attrs['gpu_schedule']!s:10} {threads:>9} "
              f"{threads / t / 1e6:>11.2f} {t * 1e3:>9.2f} {t_ref / t:>11.1f}x "
              f"{t / t_cpu:>7.0f}x")  # fmt: skip
    print("x reference: the reference interpreter's time over the emulator's (higher: the "
          "emulator is faster); x cpu: the emulator's time over native code's")  # fmt: skip


def conformance(programs: int) -> None:
    print(f"{'target':16} {'cases':>6} {'passed':>7} {'failed':>7} {'skipped':>8} "
          f"{'pass rate':>10} {'seconds':>8}")  # fmt: skip
    for name in ("gpu-sim", "gpu-sim-races"):
        t0 = time.perf_counter()
        report = conform(get_target(name), corpus_dir=ROOT / "tests" / "conformance",
                         programs=programs, seed=0)  # fmt: skip
        seconds = time.perf_counter() - t0
        count = {s: sum(o.status == s for o in report.outcomes) for s in ("pass", "fail", "skip")}
        total = len(report.outcomes)
        rate = 100.0 * count["pass"] / max(1, total - count["skip"])
        print(f"{name:16} {total:>6} {count['pass']:>7} {count['fail']:>7} {count['skip']:>8} "
              f"{rate:>9.1f}% {seconds:>8.1f}")  # fmt: skip
        for o in report.outcomes:
            if o.status == "fail":
                print(f"  FAIL {o.name}: {o.message[:200]}")


def fuzz(seconds: int) -> None:
    cmd = [sys.executable, "-m", "relay", "fuzz", "--target", "gpu-sim", "--time", str(seconds),
           "--seed", "0", "--out", str(ROOT / "fuzz-gpusim")]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    lines = [ln for ln in (done.stdout + done.stderr).splitlines() if ln.strip()]
    print(f"relay fuzz --target gpu-sim --time {seconds}: exit {done.returncode}")
    for ln in lines[-3:]:
        print("  " + ln)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--programs", type=int, default=20, help="generated programs (20)")
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per kernel (3)")
    parser.add_argument("--fuzz", type=int, default=0, help="fuzz campaign seconds (0: none)")
    parser.add_argument("--skip-conform", action="store_true", help="speed figures only")
    args = parser.parse_args()
    if not args.skip_conform:
        conformance(args.programs)
        print()
    speed(args.repeat)
    if args.fuzz:
        print()
        fuzz(args.fuzz)


if __name__ == "__main__":
    main()
