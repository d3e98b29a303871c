"""Type checking at scale: a 100,000-binding let-chain, checked and (for information) parsed.

The program is the one of the issue ("Scale"), generated as text::

    def @main(%x0: float32) {
      let %x1 = add(%x0, 1f);
      let %x2 = add(%x1, 1f);
      ...
      %x100000
    }

Goal: checking (``relay.infer_types``) at ≥ 20,000 bindings/s (10⁵ bindings in ≤ 5 s), and
its memory ≤ 50 bytes per source byte. The peer, measured in the same run, is Python's own
``compile()`` of the equivalent Python program (``x1 = x0 + 1.0`` lines: parsing, scoping and
code generation), so the ratio says how the checker compares with a production front end on
the same shape of program. Parsing is timed too, separately, for information.

Memory is measured in a second, traced run of the checker (``tracemalloc``, which slows it
down): the peak of what checking allocates, per byte of source text. A third line times a
shorter chain over a symbolic shape (``Tensor[(n, 4), float32]``), whose cost lies in the
operators' dimension comparisons rather than in the checker. Run:

    python benchmarks/check_scale.py [--bindings 100000] [--no-memory]
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc
from collections.abc import Callable

import relay


def chain_text(n: int, param: str = "float32", literal: str = "1f") -> str:
    """The let-chain of ``n`` bindings, as Relay text."""
    lines = ['#[version = "0.0.5"]', f"def @main(%x0: {param}) {{"]
    lines.extend(f"  let %x{i} = add(%x{i - 1}, {literal});" for i in range(1, n + 1))
    lines += [f"  %x{n}", "}", ""]
    return "\n".join(lines)


def python_text(n: int) -> str:
    """The same chain as a Python function."""
    lines = ["def main(x0):"]
    lines.extend(f"    x{i} = x{i - 1} + 1.0" for i in range(1, n + 1))
    lines.append(f"    return x{n}")
    return "\n".join(lines) + "\n"


def timed(thunk: Callable[[], object]) -> float:
    """Seconds ``thunk()`` takes."""
    start = time.perf_counter()
    thunk()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bindings", type=int, default=100_000)
    parser.add_argument("--symbolic-bindings", type=int, default=500)
    parser.add_argument("--no-memory", action="store_true", help="skip the traced run")
    args = parser.parse_args()
    n = args.bindings

    text = chain_text(n)
    python = python_text(n)
    peer = timed(lambda: compile(python, "<chain>", "exec"))
    start = time.perf_counter()
    mod = relay.parse(text)
    parse = time.perf_counter() - start
    gc.collect()
    check = timed(lambda: relay.infer_types(mod))

    print(f"let-chain of {n:,} bindings, {len(text):,} bytes of Relay text")
    print(f"  check  {check:7.2f} s  {n / check:10,.0f} bindings/s  "
          f"({check / peer:.1f}x Python's compile() of the same chain: {peer:.2f} s)")  # fmt: skip
    print(f"  parse  {parse:7.2f} s  {n / parse:10,.0f} bindings/s  (for information)")

    if not args.no_memory:
        gc.collect()
        tracemalloc.start()
        info = relay.infer_types(mod)
        retained, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        del info
        print(f"  check memory: peak {peak / len(text):.1f} bytes per source byte, "
              f"{retained / len(text):.1f} retained in the result (goal: ≤ 50)")  # fmt: skip

    k = args.symbolic_bindings
    symbolic = relay.parse(chain_text(k, "Tensor[(n, 4), float32]"))
    seconds = timed(lambda: relay.infer_types(symbolic))
    print(f"let-chain of {k:,} bindings over Tensor[(n, 4), float32]: check {seconds:.2f} s, "
          f"{k / seconds:,.0f} bindings/s")  # fmt: skip


if __name__ == "__main__":
    main()
