"""Parsing speed and memory: ``relay.parse`` against ``ast.parse`` of the same program in Python.

The program is one definition whose body is a let-chain of ``--lines`` statements, a mix of
what real programs hold: operator calls with attributes, tensor-typed bindings, tuples and
projections, constants. The Python file says the same thing statement for statement
(``x1 = add(x0, x0)``), so the ratio compares the two parsers on equal work. Printed:
lines/s of each, the ratio, the best CPU time of each (``time.process_time``, less disturbed
by other processes than the wall clock), and the parser's memory per source byte (tracemalloc
peak while parsing, over the size of the text).

Every statement here is of a form the lexer and parser read in one piece (see
``semantics.text.lexer.Statement``). For comparison the last line times the same program with
a comment inside each statement, which the parser then reads token by token. Run:

    python benchmarks/parse.py [--lines 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import ast
import gc
import time
import tracemalloc
from collections.abc import Callable

import relay


def relay_program(lines: int) -> str:
    """A let-chain of ``lines`` statements in Relay's text format."""
    out = ['#[version = "0.0.5"]', "def @main(%x0: Tensor[(1, 16), float32]) {"]
    for i in range(1, lines):
        p = f"%x{i - 1}"
        match i % 5:
            case 0:
                out.append(f"  let %x{i}: Tensor[(1, 16), float32] = add({p}, {p});")
            case 1:
                out.append(f"  let %x{i} = multiply({p}, 2f);")
            case 2:
                out.append(f"  let %x{i} = nn.softmax({p}, axis=1);")
            case 3:
                out.append(f"  let %x{i} = (%x{i - 1}, {p});")
            case _:
                out.append(f"  let %x{i} = %x{i - 1}.0;")
    out.append(f"  %x{lines - 1}")
    out.append("}")
    return "\n".join(out) + "\n"


def python_program(lines: int) -> str:
    """The same let-chain as Python statements."""
    out = ["def main(x0: Tensor[(1, 16), float32]):"]
    for i in range(1, lines):
        p = f"x{i - 1}"
        match i % 5:
            case 0:
                out.append(f"    x{i}: Tensor[(1, 16), float32] = add({p}, {p})")
            case 1:
                out.append(f"    x{i} = multiply({p}, 2.0)")
            case 2:
                out.append(f"    x{i} = nn.softmax({p}, axis=1)")
            case 3:
                out.append(f"    x{i} = (x{i - 1}, {p})")
            case _:
                out.append(f"    x{i} = x{i - 1}[0]")
    out.append(f"    return x{lines - 1}")
    return "\n".join(out) + "\n"


def best_time(
    run: Callable[[], object], repeat: int, clock: Callable[[], float] = time.perf_counter
) -> float:
    """The fastest of ``repeat`` runs, in seconds of ``clock``."""
    best = float("inf")
    for _ in range(repeat):
        gc.collect()
        start = clock()
        run()
        best = min(best, clock() - start)
    return best


def with_inner_comments(text: str) -> str:
    """``text`` with a comment after each ``let``: the token-by-token path."""
    return text.replace("  let ", "  let /* c */ ")


def peak_bytes(run: Callable[[], object]) -> int:
    """The tracemalloc peak while ``run`` runs, counting what its result keeps alive."""
    gc.collect()
    tracemalloc.start()
    try:
        result = run()
        _, peak = tracemalloc.get_traced_memory()
        del result
    finally:
        tracemalloc.stop()
    return peak


def main() -> None:
    """Run the benchmark and print its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lines", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    relay_text = relay_program(args.lines)
    python_text = python_program(args.lines)
    relay.parse(relay_program(10))  # warm up: operator registry, imports
    relay_s = best_time(lambda: relay.parse(relay_text), args.repeat)
    python_s = best_time(lambda: ast.parse(python_text), args.repeat)
    relay_cpu = best_time(lambda: relay.parse(relay_text), args.repeat, time.process_time)
    python_cpu = best_time(lambda: ast.parse(python_text), args.repeat, time.process_time)
    plain_text = with_inner_comments(relay_text)
    plain_cpu = best_time(lambda: relay.parse(plain_text), args.repeat, time.process_time)
    memory = peak_bytes(lambda: relay.parse(relay_text))
    python_memory = peak_bytes(lambda: ast.parse(python_text))
    print(f"{args.lines} lines, {len(relay_text):,} bytes of Relay, {len(python_text):,} of Python")
    for name, seconds in (("relay.parse", relay_s), ("ast.parse", python_s)):
        rate = args.lines / seconds
        print(f"{name:12} {rate:12,.0f} lines/s  ({seconds * 1e6 / args.lines:.1f} us/line)")
    print(f"ratio        {relay_s / python_s:12.1f} x slower than ast.parse")
    print(
        f"cpu          {relay_cpu:12.3f} s relay.parse, {python_cpu:.3f} s ast.parse "
        f"(best of {args.repeat}; ratio {relay_cpu / python_cpu:.1f})"
    )
    print(f"token path   {plain_cpu:12.3f} s cpu, relay.parse with a comment in each statement")
    print(
        f"memory       {memory / len(relay_text):12.1f} bytes per source byte (peak, "
        f"relay.parse); ast.parse {python_memory / len(python_text):.1f}"
    )


if __name__ == "__main__":
    main()
