"""Automatic differentiation: gradient time over forward time for the examples.

For each of ``examples/rnn.relay``, ``examples/treelstm.relay`` and ``examples/mlp_train.relay``
the script runs ``@main`` (the forward pass) and its gradient (``Gradient``, higher-order mode;
for the MLP, a dataflow graph, the first-order mode too) on the same random float32 arguments
with the interpreter, ``--repeat`` times each after one warm-up run, and prints the best time
of each and the ratio gradient / forward. Reverse mode computes the gradient in a small
constant multiple of the forward time (the "cheap gradient principle"); the higher-order
mode's extra cost is its closures and reference cells, one per operator call. Run:

    python benchmarks/ad.py [--repeat 20]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from relay.compiler.passes.gradient import gradient
from relay.interpreter import evaluate
from relay.semantics.syntax import FuncType, IRModule, TensorType
from relay.semantics.text.parser import parse
from relay.semantics.typing import infer_types
from relay.semantics.values import TensorValue, Value

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def arguments(mod: IRModule) -> list[Value]:
    t = infer_types(mod).globals["main"]
    assert isinstance(t, FuncType)
    rng = np.random.default_rng(0)
    out: list[Value] = []
    for p in t.arg_types:
        assert isinstance(p, TensorType)
        shape = tuple(int(d) for d in p.shape)  # type: ignore[call-overload]
        out.append(TensorValue(rng.uniform(-1, 1, shape).astype(p.dtype)))
    return out


def best(mod: IRModule, args: list[Value], repeat: int) -> float:
    evaluate(mod, args)  # compile and warm up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        evaluate(mod, args)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    opts = parser.parse_args()
    print(f"{'example':<24} {'forward ms':>11} {'gradient ms':>12} {'ratio':>7}")
    for name, modes in [("rnn", ["higher_order"]), ("treelstm", ["higher_order"]),
                        ("mlp_train", ["higher_order", "first_order"])]:  # fmt: skip
        mod = parse((EXAMPLES / f"{name}.relay").read_text(), f"{name}.relay")
        args = arguments(mod)
        forward = best(mod, args, opts.repeat)
        for mode in modes:
            grad = best(gradient(mod, mode=mode), args, opts.repeat)
            label = f"{name} ({mode})"
            print(f"{label:<24} {forward * 1e3:11.3f} {grad * 1e3:12.3f} {grad / forward:7.2f}")


if __name__ == "__main__":
    main()
