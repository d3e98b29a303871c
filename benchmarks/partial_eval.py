"""PartialEvaluate's speedup: interpreter time of a program before and after the pass.

Programs (each ``@main`` applied to the same arguments before and after, results checked
equal):

- ``static loop`` (``examples/static_loop.relay``): the Relay paper's example, a fold over a
  static list of coefficients with a closure (Horner's rule on an 8-element tensor), a
  ``map`` over that list and a reference-counting loop with a static bound. After the pass
  it is straight-line tensor code;
- ``unrolled recursion``: a counting-down recursion with a static bound whose body does a
  small dense layer: the recursion, its tests and the closure calls disappear;
- ``dynamic recursion``: the same recursion with the bound a parameter: only one level
  unfolds, and the closure is inlined in the residual ``@layers``, which is where its gain
  comes from.

The time per run is the best of ``--repeat`` rounds of ``--runs`` evaluations each (the
interpreter compiles a module once; compile time excluded), and the pass's own time is
printed too. Run:

    python benchmarks/partial_eval.py [--runs 200] [--repeat 5]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import relay
from relay.compiler.passes.partial_eval import PartialEvaluate
from relay.interpreter import evaluate
from relay.oracles.compare import compare_values
from relay.semantics.syntax import IRModule
from relay.semantics.typing import infer_types
from relay.semantics.values import TensorValue, Value

ROOT = Path(__file__).resolve().parent.parent

RECURSION = """#[version = "0.0.5"]
def @layers(%n: int32, %h: Tensor[(1, 16), float32], %w: Tensor[(16, 16), float32])
    -> Tensor[(1, 16), float32] {
  if (%n <= 0) { %h } else {
    let %step = fn (%v: Tensor[(1, 16), float32]) { nn.relu(nn.dense(%v, %w, units=16)) };
    @layers(%n - 1, %step(%h), %w)
  }
}
def @main(%h: Tensor[(1, 16), float32], %w: Tensor[(16, 16), float32], %n: int32)
    -> Tensor[(1, 16), float32] {
  @layers(BOUND, %h, %w)
}
"""


def programs() -> list[tuple[str, IRModule, list[Value]]]:
    rng = np.random.default_rng(0)
    x = TensorValue(rng.standard_normal(8).astype("float32"))
    h = TensorValue(rng.standard_normal((1, 16)).astype("float32"))
    w = TensorValue((rng.standard_normal((16, 16)) / 4).astype("float32"))
    n = TensorValue(np.array(12, dtype="int32"))
    static_loop = relay.parse((ROOT / "examples" / "static_loop.relay").read_text())
    return [
        ("static loop", static_loop, [x]),
        ("unrolled recursion", relay.parse(RECURSION.replace("BOUND", "12")), [h, w, n]),
        ("dynamic recursion", relay.parse(RECURSION.replace("BOUND", "%n")), [h, w, n]),
    ]


def best_time(mod: IRModule, args: list[Value], runs: int, repeat: int) -> float:
    """Seconds per evaluation of ``@main``: the best of ``repeat`` rounds of ``runs``."""
    evaluate(mod, args)  # compile once
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(runs):
            evaluate(mod, args)
        best = min(best, (time.perf_counter() - start) / runs)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    ns = parser.parse_args()
    print(
        f"{'program':<20} {'before (us)':>12} {'after (us)':>12} {'speedup':>8} {'pass (ms)':>10}"
    )
    for name, mod, args in programs():
        infer_types(mod)  # warm the type checker up: its first call loads the relations
        start = time.perf_counter()
        out = PartialEvaluate()(mod)
        pass_ms = (time.perf_counter() - start) * 1e3
        expected = evaluate(mod, args)
        actual = evaluate(out, args)
        diff = compare_values(expected.value, actual.value)
        if diff is not None:
            raise SystemExit(f"{name}: the partially evaluated program differs: {diff}")
        before = best_time(mod, args, ns.runs, ns.repeat)
        after = best_time(out, args, ns.runs, ns.repeat)
        print(
            f"{name:<20} {before * 1e6:>12.1f} {after * 1e6:>12.1f} "
            f"{before / after:>7.2f}x {pass_ms:>10.1f}"
        )


if __name__ == "__main__":
    main()
