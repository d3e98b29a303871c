"""The light models of the onnx wheel: Relay's interpreter against onnxruntime and against
``onnx.reference.ReferenceEvaluator``, in the same run, with 1 and 2 threads.

For each model (``onnx/backend/test/data/light/``) and thread count, a child process (so that
the thread settings take effect before numpy loads) imports the model (time printed apart),
then runs each engine on ``onnx.backend.test``'s input (``arange(n) / n``) and takes the best
of ``--repeat`` runs (ReferenceEvaluator: one run, it is slow). The interpreter's time is a
compiled module's run (the first run compiles it and is not counted); numpy's BLAS gets the
thread count through ``OPENBLAS_NUM_THREADS``/``OMP_NUM_THREADS``, onnxruntime through its
intra-op thread setting. ``interp`` runs the module as imported: the models' weights are
``ConstantOfShape`` fills, ``full(...)`` calls in the import, and the interpreter computes a
call on constants once per compiled module, as onnxruntime folds such nodes when it builds its
session. ``folded`` runs the module after the ``fold-constant`` pass. The ratios are
ReferenceEvaluator / interpreter (the goal: >= 10) and interpreter / onnxruntime (the goal:
<= 3), both of the module as imported. ``cpu`` is the folded module compiled by the CPU
target, where ``relay.targets.get_target`` exists and compiles the model (else ``-``). Run:

    python benchmarks/models.py [--models squeezenet,resnet50] [--threads 1,2] [--repeat 3]
                                [--no-reference]

On a loaded machine the figures are noisy; say so when quoting them. The first line says
which kernel numpy's OpenBLAS runs, and whether ``OPENBLAS_CORETYPE``/``OPENBLAS_L2_SIZE``
chose it (then numpy may run an older kernel than the CPU has, while onnxruntime detects the
CPU itself: ``env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python benchmarks/models.py``
compares like with like).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

MODELS = (
    "squeezenet",
    "shufflenet",
    "bvlc_alexnet",
    "zfnet512",
    "resnet50",
    "inception_v1",
    "inception_v2",
    "densenet121",
    "vgg19",
)


BLAS_OVERRIDES = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
"""Variables that choose OpenBLAS's kernel instead of its own detection of the CPU (some
machines set them for older OpenBLAS builds): the benchmark says so when they are set."""


def light_dir() -> Path:
    """The folder of the light models in the installed onnx."""
    import onnx

    return Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"


def best(fn: Any, repeat: int) -> float:
    """The best wall time of ``repeat`` calls of ``fn``."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def cpu_target_time(mod: Any, args: list[Any], repeat: int) -> float | None:
    """The best run of ``mod`` compiled by the CPU target (``relay.targets.get_target``), or
    ``None`` where there is no such target or it does not compile the model (said on stderr)."""
    import relay.targets

    get_target = getattr(relay.targets, "get_target", None)
    if get_target is None:
        return None
    try:
        executable = get_target("cpu").compile(mod)
        executable.run(*args)
    except Exception as err:  # an unsupported op, or a failure: the column says '-'
        print(f"cpu target: {type(err).__name__}: {err}"[:300], file=sys.stderr)
        return None
    return best(lambda: executable.run(*args), repeat)


def blas_core() -> str:
    """The kernel numpy's OpenBLAS runs (its core name: ``SkylakeX``, ``Haswell``, ...), or
    ``unknown`` where numpy's BLAS is not a bundled OpenBLAS that says."""
    import ctypes

    import numpy as np

    libs = Path(np.__file__).parent.parent / "numpy.libs"
    for lib in sorted(libs.glob("*openblas*")) if libs.is_dir() else []:
        try:
            cdll = ctypes.CDLL(str(lib))
        except OSError:
            continue
        for symbol in ("scipy_openblas_get_corename64_", "scipy_openblas_get_corename",
                       "openblas_get_corename64_", "openblas_get_corename"):  # fmt: skip
            fn = getattr(cdll, symbol, None)
            if fn is not None:
                fn.restype = ctypes.c_char_p
                return str(fn().decode())
    return "unknown"


def measure(name: str, threads: int, repeat: int, reference: bool) -> dict[str, float]:
    """The child's work: the figures of one model at one thread count."""
    import numpy as np
    import onnx
    import onnxruntime
    from onnx.reference import ReferenceEvaluator

    from relay.frontend import from_onnx
    from relay.interpreter import evaluate
    from relay.semantics.values import TensorValue

    path = light_dir() / f"light_{name}.onnx"
    model = onnx.load(str(path))
    start = time.perf_counter()
    mod = from_onnx(model, source=str(path))
    imported = time.perf_counter() - start
    param = mod["main"].params[0]
    shape = tuple(int(d) for d in param.type_annotation.shape)  # type: ignore[union-attr]
    n = int(np.prod(shape))
    x = (np.arange(n).reshape(shape) / n).astype(np.float32)
    args = [TensorValue(x)]
    start = time.perf_counter()
    evaluate(mod, args, fuel=None)  # compiles the module
    first = time.perf_counter() - start
    interp = best(lambda: evaluate(mod, args, fuel=None), repeat)
    # The module after fold-constant, which makes the smaller weight fills constants.
    from relay.compiler.passes import BUILTIN_PASSES

    folded = BUILTIN_PASSES["fold-constant"]()(mod)
    evaluate(folded, args, fuel=None)
    interp_folded = best(lambda: evaluate(folded, args, fuel=None), repeat)
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    feed = {session.get_inputs()[0].name: x}
    session.run(None, feed)
    ort = best(lambda: session.run(None, feed), repeat)
    cpu = cpu_target_time(folded, args, repeat)
    figures = {
        "import": imported,
        "first": first,
        "interpreter": interp,
        "folded": interp_folded,
        "onnxruntime": ort,
    }
    if cpu is not None:
        figures["cpu"] = cpu
    if reference:
        evaluator = ReferenceEvaluator(model)
        figures["reference"] = best(lambda: evaluator.run(None, feed), 1)
    return figures


def main() -> int:
    """Spawn one child per model and thread count; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated names")
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts")
    parser.add_argument("--repeat", type=int, default=3, help="runs per engine (best counts)")
    parser.add_argument("--no-reference", action="store_true", help="skip ReferenceEvaluator")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "blas":
        print(blas_core())
        return 0
    if args.child:
        name, threads = args.child.split(":")
        figures = measure(name, int(threads), args.repeat, not args.no_reference)
        print(json.dumps(figures))
        return 0
    names = [m for m in args.models.split(",") if m]
    unknown = sorted(set(names) - set(MODELS))
    if unknown:
        parser.error(f"unknown models {', '.join(unknown)}; the models are {', '.join(MODELS)}")
    core = subprocess.run([sys.executable, __file__, "--child", "blas"], capture_output=True,
                          text=True, check=False).stdout.strip() or "unknown"  # fmt: skip
    forced = [f"{v}={os.environ[v]}" for v in BLAS_OVERRIDES if v in os.environ]
    print(f"numpy's OpenBLAS runs its {core} kernel" + (
        f" ({', '.join(forced)} is set: numpy may run an older kernel than this CPU has; "
        f"to compare with onnxruntime, unset {' and '.join(BLAS_OVERRIDES)} for this command)"
        if forced else ""))  # fmt: skip
    print(f"{'model':<14} {'thr':>3} {'import':>7} {'interp':>8} {'folded':>8} {'ort':>8} "
          f"{'reference':>9} {'ref/interp':>10} {'interp/ort':>10} {'cpu':>8}")  # fmt: skip
    for name in names:
        for threads in [int(t) for t in args.threads.split(",")]:
            env = dict(os.environ)
            for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
                env[var] = str(threads)
            command = [sys.executable, __file__, "--child", f"{name}:{threads}",
                       "--repeat", str(args.repeat)]  # fmt: skip
            if args.no_reference:
                command.append("--no-reference")
            out = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
            if out.returncode != 0:
                print(f"{name:<14} {threads:>3} failed: {out.stderr.strip().splitlines()[-1:]}")
                continue
            f = json.loads(out.stdout.strip().splitlines()[-1])
            ref = f.get("reference")
            ref_text = f"{ref:9.3f}" if ref is not None else "        -"
            ratio_ref = f"{ref / f['interpreter']:10.1f}" if ref is not None else "         -"
            cpu_text = f"{f['cpu']:8.3f}" if "cpu" in f else "       -"
            ratio_ort = f["interpreter"] / f["onnxruntime"]
            print(f"{name:<14} {threads:>3} {f['import']:7.3f} {f['interpreter']:8.3f} "
                  f"{f['folded']:8.3f} {f['onnxruntime']:8.3f} {ref_text} {ratio_ref} "
                  f"{ratio_ort:10.1f} {cpu_text}", flush=True)  # fmt: skip
    print("seconds (best of --repeat; ReferenceEvaluator one run); measured under whatever load "
          "the machine had")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
