"""Type-checking speed on large programs: a long let-chain and a wide DAG.

Targets (issue "Static semantics"): 10,000 nodes in under a second; 100,000 nodes in under
twelve times that; no recursion limit hit at any depth. Run:

    python benchmarks/typecheck.py [--sizes 10000 100000]

It prints the time for each program and the ratio of the largest to the smallest size.
"""

from __future__ import annotations

import argparse
import time

from relay.semantics import syntax as s
from relay.semantics.typing import infer_types


def let_chain(n: int) -> s.IRModule:
    """``let %v0 = add(%x, %x); let %v1 = add(%v0, %x); ... %v{n-1}``: 2n+ nodes, depth n."""
    x = s.Var("x", s.TensorType((4, 4), "float32"))
    variables = [s.Var(f"v{i}") for i in range(n)]
    body: s.Expr = variables[-1]
    for i in reversed(range(n)):
        prev = variables[i - 1] if i else x
        body = s.Let(variables[i], s.Call(s.Op("add"), (prev, x)), body)
    return s.IRModule({s.GlobalVar("main"): s.Function((x,), body)})


def wide_dag(n: int) -> s.IRModule:
    """n multiplies, each of a node halfway back and the previous one: a shared DAG."""
    x = s.Var("x", s.TensorType((4, 4), "float32"))
    nodes: list[s.Expr] = [x]
    for i in range(n):
        nodes.append(s.Call(s.Op("multiply"), (nodes[i // 2], nodes[-1])))
    return s.IRModule({s.GlobalVar("main"): s.Function((x,), nodes[-1])})


def measure(mod: s.IRModule, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        infer_types(mod)
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    args = parser.parse_args()
    for name, build in (("let-chain", let_chain), ("wide DAG", wide_dag)):
        times = []
        for n in args.sizes:
            t = measure(build(n), repeat=3 if n <= 20_000 else 1)
            times.append(t)
            print(f"{name:10s} {n:>7,d} nodes: {t:7.3f} s")
        if len(times) > 1:
            ratio = times[-1] / times[0]
            scale = args.sizes[-1] / args.sizes[0]
            print(f"{name:10s} ratio {args.sizes[-1]:,d}/{args.sizes[0]:,d}: {ratio:.1f}x "
                  f"(size ratio {scale:.0f}x)")  # fmt: skip


if __name__ == "__main__":
    main()
