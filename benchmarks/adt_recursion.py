"""Recursion over algebraic data types: the interpreter against the same algorithm in Python.

Two programs, each run on a list of ``--length`` elements (100,000 by default, far deeper than
Python's recursion limit: the interpreter keeps its own stack):

- ``build and sum``: ``@build(n)`` makes ``Cons(n, Cons(n - 1, .. Nil))`` by non-tail
  recursion, ``@sum`` adds it up by non-tail recursion (int64: each step also runs
  ``equal``, ``subtract`` and ``add``, whose int64 semantics checks for overflow: the
  interpreter's scalar fast paths, ``relay.interpreter.kernels``, do it on Python integers);
- ``copy and count``: ``@copy`` rebuilds a given list, ``@length`` counts it as a Peano
  natural, both by non-tail recursion: no operator at all, only calls, matches and
  constructors, so this one measures the interpreter's own speed.

The Python versions are the same recursions over nested tuples (in a thread with a big stack
and a raised recursion limit). The script prints both times, the ratio, and for the first
program the share of the time spent in the operators' kernels (measured in one more run, with
each reference function wrapped in a timer). Run:

    python benchmarks/adt_recursion.py [--length 100000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

import relay
from relay.interpreter import evaluate, program_for
from relay.interpreter.instructions import OpCall
from relay.semantics.ops.registry import Attrs, Reference
from relay.semantics.syntax import IRModule
from relay.semantics.values import ConstructorValue, TensorValue, Value

PROGRAM = """#[version = "0.0.5"]
type List[A] { Cons(A, List[A]), Nil }
type Nat { Z, S(Nat) }
def @build(%n: int64) -> List[int64] {
  if (%n == 0i64) { Nil } else { Cons(%n, @build(%n - 1i64)) }
}
def @sum(%xs: List[int64]) -> int64 {
  match (%xs) { Cons(%x, %rest) => %x + @sum(%rest), Nil => 0i64 }
}
def @build_and_sum(%n: int64) -> int64 { @sum(@build(%n)) }
def @copy(%xs: List[int64]) -> List[int64] {
  match (%xs) { Cons(%x, %rest) => Cons(%x, @copy(%rest)), Nil => Nil }
}
def @length(%xs: List[int64]) -> Nat {
  match (%xs) { Cons(_, %rest) => S(@length(%rest)), Nil => Z }
}
def @copy_and_count(%xs: List[int64]) -> Nat { @length(@copy(%xs)) }
"""

Tuples = tuple[object, ...]


def py_build(n: int) -> Tuples:
    return () if n == 0 else (n, py_build(n - 1))


def py_sum(xs: Tuples) -> int:
    if not xs:
        return 0
    head, rest = xs
    assert isinstance(head, int) and isinstance(rest, tuple)
    return head + py_sum(rest)


def py_copy(xs: Tuples) -> Tuples:
    if not xs:
        return ()
    head, rest = xs
    assert isinstance(rest, tuple)
    return (head, py_copy(rest))


def py_length(xs: Tuples) -> Tuples:
    if not xs:
        return ()
    rest = xs[1]
    assert isinstance(rest, tuple)
    return (py_length(rest),)


def in_deep_thread(run: Callable[[], object]) -> float:
    """The time ``run`` takes in a thread whose stack and recursion limit allow deep recursion."""
    spent: list[float] = []

    def body() -> None:
        start = time.perf_counter()
        run()
        spent.append(time.perf_counter() - start)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(10_000_000)
    threading.stack_size(1 << 30)
    try:
        thread = threading.Thread(target=body)
        thread.start()
        thread.join()
    finally:
        threading.stack_size(0)
        sys.setrecursionlimit(limit)
    return spent[0]


def best(run: Callable[[], float], repeat: int) -> float:
    return min(run() for _ in range(repeat))


def timed(run: Callable[[], object]) -> Callable[[], float]:
    def go() -> float:
        start = time.perf_counter()
        run()
        return time.perf_counter() - start

    return go


def kernel_share(mod: IRModule, args: list[Value], entry: str) -> tuple[float, float]:
    """One run's time, and the part of it inside the operators' kernels.

    The kernels of a fresh compilation of a copy of the module (the interpreter's scalar fast
    paths, ``relay.interpreter.kernels``, here) are wrapped with timers.
    """
    spent = [0.0]

    def timed(kernel: Reference) -> Reference:
        def run(args: tuple[npt.NDArray[np.generic], ...], attrs: Attrs | None) -> object:
            start = time.perf_counter()
            try:
                return kernel(args, attrs)
            finally:
                spent[0] += time.perf_counter() - start

        return run  # type: ignore[return-value]

    copy = IRModule(dict(mod.functions), dict(mod.type_definitions))
    for ins in program_for(copy).instructions():
        if isinstance(ins, OpCall):
            ins.kernel = timed(ins.kernel)
    start = time.perf_counter()
    evaluate(copy, args, entry=entry)
    total = time.perf_counter() - start
    return total, spent[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--length", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n, repeat = args.length, args.repeat
    mod = relay.parse(PROGRAM)

    def build_and_sum() -> None:
        result = evaluate(mod, [TensorValue(np.asarray(n, "int64"))], entry="build_and_sum")
        assert isinstance(result.value, TensorValue)
        assert result.value.data.item() == n * (n + 1) // 2

    cons, nil = mod.lookup_constructor("Cons"), mod.lookup_constructor("Nil")
    xs: Value = ConstructorValue(nil, ())
    for i in range(n):
        xs = ConstructorValue(cons, (TensorValue(np.asarray(i, "int64")), xs))
    python_list: Tuples = ()
    for i in range(n):
        python_list = (i, python_list)

    def copy_and_count() -> None:
        evaluate(mod, [xs], entry="copy_and_count")

    build_and_sum()  # compile once
    t_sum = best(timed(build_and_sum), repeat)
    t_py_sum = best(lambda: in_deep_thread(lambda: py_sum(py_build(n))), repeat)
    t_total, t_kernels = kernel_share(mod, [TensorValue(np.asarray(n, "int64"))], "build_and_sum")
    t_count = best(timed(copy_and_count), repeat)
    t_py_count = best(lambda: in_deep_thread(lambda: py_length(py_copy(python_list))), repeat)

    print(f"lists of {n} elements, best of {repeat}")
    print(f"build and sum   interpreter {t_sum * 1e3:9.1f} ms   python {t_py_sum * 1e3:8.1f} ms"
          f"   ratio {t_sum / t_py_sum:7.1f}x")  # fmt: skip
    rest = t_total - t_kernels
    print(f"  in one more run ({t_total * 1e3:.1f} ms), the kernels (equal, subtract, add: "
          f"{3 * n} calls) take {t_kernels * 1e3:.1f} ms ({t_kernels / t_total:.0%});")  # fmt: skip
    print(f"  the rest, {rest * 1e3:.1f} ms, is {rest / t_py_sum:.1f}x python's whole run")
    print(f"copy and count  interpreter {t_count * 1e3:9.1f} ms   python {t_py_count * 1e3:8.1f} ms"
          f"   ratio {t_count / t_py_count:7.1f}x")  # fmt: skip
    steps = 6 * n  # per element, in each function: a match, a call, a returning constructor
    print(
        f"  {t_count / steps * 1e9:.0f} ns per machine instruction, "
        f"{t_count / (2 * n) * 1e6:.2f} us per Relay call"
    )


if __name__ == "__main__":
    main()
