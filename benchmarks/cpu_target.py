"""The CPU target end to end: ResNet-18/50 against onnxruntime and the interpreter, and the
throughput of ``relay fuzz --target cpu``, in one run.

ResNet (the networks of ``benchmarks/resnet.py``, built from the same random weights as a
Relay module and an ONNX graph) on a 1x3x224x224 image: the CPU target's run (FuseOps, one
LLVM kernel per primitive function, the planned dataflow region) against onnxruntime's and the
interpreter's, best of ``--repeat``, outputs checked to agree; the compile time is printed
apart (a cold compile into an empty cache directory, then a second compile of the same module,
which the kernel cache makes cheap). Then ``--programs`` generated programs through the target
oracle (compile, run, compare with the interpreter), as programs per second. Run:

    python benchmarks/cpu_target.py [--depth 18 50] [--repeat 3] [--threads 1] [--programs 200]

It also runs a scalar-heavy recursive program (``fib(18)``) on the target and the interpreter:
there every step is a tiny kernel call, so it measures the runtime's call overhead.

Threads: ``--threads`` is the CPU target's; onnxruntime gets as many intra-op threads, and
numpy's BLAS (the interpreter's, and the target's ``cblas_sgemm`` kernels) follows
``OPENBLAS_NUM_THREADS`` (set it to the same number for a like-for-like comparison).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnxruntime

sys.path.insert(0, str(Path(__file__).parent))

from resnet import build

from relay.interpreter import evaluate, program_for
from relay.oracles.target_oracle import check_target_outcome, generated_cases
from relay.semantics.errors import RelayError
from relay.semantics.values import TensorValue
from relay.targets.cpu import CpuTarget


def best(run: Callable[[], object], repeat: int) -> float:
    """The best wall time of ``repeat`` runs."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def resnet(depth: int, repeat: int, threads: int) -> None:
    """One network: compile times, run times and ratios."""
    mod, model = build(depth)
    image = np.random.default_rng(1).standard_normal((1, 3, 224, 224)).astype(np.float32)
    target = CpuTarget(threads=threads)
    start = time.perf_counter()
    try:
        exe = target.compile(mod)
    except RelayError as err:
        print(f"ResNet-{depth}: the CPU target cannot compile it yet: {err.message}")
        return
    cold = time.perf_counter() - start
    start = time.perf_counter()
    target.compile(mod)
    warm = time.perf_counter() - start
    start = time.perf_counter()
    program_for(mod)
    interp_compile = time.perf_counter() - start
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    session = onnxruntime.InferenceSession(model.SerializeToString(), options,
                                           providers=["CPUExecutionProvider"])  # fmt: skip
    arg = TensorValue(image)

    def ours() -> np.ndarray:
        v = exe.run(arg)
        assert isinstance(v, TensorValue)
        return v.data

    def interp() -> np.ndarray:
        v = evaluate(mod, [arg]).value
        assert isinstance(v, TensorValue)
        return v.data

    def ort() -> np.ndarray:
        out: np.ndarray = session.run(["logits"], {"data": image})[0]
        return out

    a, b, c = ours(), ort(), interp()
    scale = max(1e-6, float(np.max(np.abs(b))))
    print(
        f"ResNet-{depth}, 1x3x224x224 float32: {len(exe.kernels)} kernels, "
        f"{len(exe.plans.get('main').steps) if 'main' in exe.plans else 0} planned steps"
    )
    print(f"  outputs agree: max |target - onnxruntime| / max |output| = "
          f"{float(np.max(np.abs(a - b))) / scale:.2e}, vs interpreter "
          f"{float(np.max(np.abs(a - c))) / scale:.2e}")  # fmt: skip
    plan = exe.plans.get("main")
    if plan is not None:
        total = sum(plan.buffer_sizes)
        print(f"  memory plan: {plan.intermediates} intermediates in {len(plan.buffer_sizes)} "
              f"buffers, {total / 2**20:.1f} MiB")  # fmt: skip
    print(f"  compile: cold {cold:.2f} s, second compile {warm:.2f} s "
          f"(interpreter: {interp_compile * 1e3:.0f} ms)")  # fmt: skip
    t_ours, t_ort, t_interp = best(ours, repeat), best(ort, repeat), best(interp, repeat)
    print(f"  run (best of {repeat}): cpu target {t_ours * 1e3:8.1f} ms   onnxruntime "
          f"{t_ort * 1e3:8.1f} ms   interpreter {t_interp * 1e3:8.1f} ms")  # fmt: skip
    print(f"  ratio cpu target / onnxruntime: {t_ours / t_ort:6.2f}x   "
          f"interpreter / cpu target: {t_interp / t_ours:6.2f}x")  # fmt: skip


FIB = """
def @fib(%n: int32) -> int32 {
  if (less(%n, 2)) { %n } else { add(@fib(subtract(%n, 1)), @fib(subtract(%n, 2))) }
}
def @main(%n: int32) -> int32 { @fib(%n) }
"""


def scalar_recursion(n: int, repeat: int) -> None:
    """A scalar-heavy recursive program (``fib``): every step is a tiny kernel call, so this
    measures the host runtime's kernel call overhead against the interpreter's scalar path."""
    import relay

    mod = relay.parse(FIB)
    exe = CpuTarget().compile(mod)
    arg = np.array(n, np.int32)
    t_ours = best(lambda: exe.run(TensorValue(arg)), repeat)
    t_interp = best(lambda: evaluate(mod, [TensorValue(arg)]), repeat)
    calls = 0
    a, b = 1, 1
    for _ in range(n - 1):
        a, b = b, a + b + 1
    calls = 4 * b  # an upper bound of the kernel calls: (less, subtract, subtract, add) a call
    print(f"fib({n}) (scalar recursion, ~{calls} kernel calls): cpu target {t_ours * 1e3:.1f} ms"
          f"   interpreter {t_interp * 1e3:.1f} ms   cpu target / interpreter: "
          f"{t_ours / t_interp:.2f}x")  # fmt: skip


def fuzz_throughput(programs: int, threads: int) -> None:
    """Generated programs through the target oracle, per second (generation apart)."""
    cases = generated_cases(programs, seed=0)
    target = CpuTarget(threads=threads)
    start = time.perf_counter()
    skipped = failed = 0
    for case in cases:
        skip, verdict = check_target_outcome(target, case.mod, case.args)
        skipped += bool(skip)
        failed += verdict is not None
    seconds = time.perf_counter() - start
    print(f"relay fuzz --target cpu checks: {programs} programs in {seconds:.1f} s "
          f"({programs / seconds:.1f}/s; {skipped} skipped, {failed} failed)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--depth", type=int, nargs="*", choices=(18, 50), default=[18, 50])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--programs", type=int, default=200)
    parser.add_argument(
        "--cache", default=None, help="the kernel cache directory (default: a fresh temporary one)"
    )
    args = parser.parse_args()
    cache = args.cache or tempfile.mkdtemp(prefix="relay-cpu-bench-")
    os.environ["RELAY_CACHE_DIR"] = cache
    print(
        f"threads: {args.threads} (OPENBLAS_NUM_THREADS="
        f"{os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}); kernel cache: {cache}"
    )
    scalar_recursion(18, args.repeat)
    for depth in args.depth:
        resnet(depth, args.repeat, args.threads)
    if args.programs:
        fuzz_throughput(args.programs, args.threads)


if __name__ == "__main__":
    main()
