"""A fused elementwise chain: the CPU target's one kernel against numpy's eager operations.

The chain is eight operations over three float32 inputs of ``--size`` elements (4M by
default)::

    out = abs(min(max(x * y + z, 0) - x) * 0.5, 6)) + y       (mul add max sub mul min abs add)

numpy evaluates it eagerly, one pass over memory (and one temporary) per operation; the CPU
target runs it as one loop-IR kernel, vectorised by LLVM, on each of the ``--threads`` thread
counts over a parallel outer loop. Two kernels: one hand-built (blocks of 4096 elements in a
parallel outer loop, a vectorised inner loop), and the one the lowering makes of the same
chain written in Relay over a ``64 x (size / 64)`` tensor
(``compiler.lower.lower.lower_primitive``: the default schedule, everything inlined, the outer
loop parallel). The script checks that each agrees with numpy exactly (no reassociation is
allowed outside reductions), then prints the best time of ``--repeat`` runs of each and the
ratios, plus the compile times: a first compile (an empty cache directory), a second compile
(the in-memory cache) and one from the disk cache. Run:

    python benchmarks/cpu_elementwise.py [--size 4194304] [--threads 1,2] [--repeat 10]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

import relay
import relay.compiler.lower.ops  # registers the lowerings
from relay.compiler.lower import ir
from relay.compiler.lower.lower import lower_primitive

F32 = "float32"
BLOCK = 4096
"""Elements per iteration of the parallel outer loop (the inner loop is vectorised)."""


def chain_kernel() -> ir.Kernel:
    """``out[i] = abs(min((max(x*y + z, 0) - x) * 0.5, 6)) + y[i]`` over ``n`` elements, as an
    outer parallel loop over blocks and an inner vectorised loop (the tail in a second loop)."""
    n = ir.SizeVar("n")
    x, y, z = (ir.Buffer(name, (ir.Ref(n),), F32) for name in "xyz")
    out = ir.Buffer("out", (ir.Ref(n),), F32)
    b, j = ir.LoopVar("b"), ir.LoopVar("j")

    def c(v: float) -> ir.Const:
        return ir.Const(v, F32)

    def element(i: ir.PrimExpr) -> ir.Stmt:
        xi, yi, zi = (ir.Load(buf, (i,)) for buf in (x, y, z))
        v = ir.Binary(ir.BinOp.ADD, ir.Binary(ir.BinOp.MUL, xi, yi), zi)
        v = ir.Binary(ir.BinOp.MAX, v, c(0.0))
        v = ir.Binary(ir.BinOp.SUB, v, xi)
        v = ir.Binary(ir.BinOp.MUL, v, c(0.5))
        v = ir.Binary(ir.BinOp.MIN, v, c(6.0))
        v = ir.Call("fabs", (v,), F32)
        v = ir.Binary(ir.BinOp.ADD, v, yi)
        return ir.Store(out, (i,), v)

    blocks = ir.Binary(ir.BinOp.DIV, ir.Ref(n), ir.index(BLOCK))
    index = ir.Binary(ir.BinOp.ADD, ir.Binary(ir.BinOp.MUL, ir.Ref(b), ir.index(BLOCK)), ir.Ref(j))
    inner = ir.For(j, ir.index(BLOCK), ir.LoopKind.VECTORIZED, element(index))
    main = ir.For(b, blocks, ir.LoopKind.PARALLEL, inner)
    t = ir.LoopVar("t")
    start = ir.Binary(ir.BinOp.MUL, blocks, ir.index(BLOCK))
    tail_extent = ir.Binary(ir.BinOp.SUB, ir.Ref(n), start)
    tail = ir.For(
        t,
        tail_extent,
        ir.LoopKind.SERIAL,
        element(ir.Binary(ir.BinOp.ADD, start, ir.Ref(t))),
    )
    return ir.Kernel("elementwise_chain", (x, y, z), (out,), (n,), ir.Seq((main, tail)))


RELAY_CHAIN = """#[version = "0.0.5"]
def @main(%x: Tensor[(64, COLS), float32], %y: Tensor[(64, COLS), float32],
          %z: Tensor[(64, COLS), float32]) {
  %0 = multiply(%x, %y);
  %1 = add(%0, %z);
  %2 = maximum(%1, 0f);
  %3 = subtract(%2, %x);
  %4 = multiply(%3, 0.5f);
  %5 = minimum(%4, 6f);
  %6 = abs(%5);
  add(%6, %y)
}
"""


def lowered_kernel(size: int) -> ir.Kernel:
    """The chain in Relay over ``64 x (size / 64)``, lowered with the default schedule."""
    mod = relay.parse(RELAY_CHAIN.replace("COLS", str(size // 64)))
    return lower_primitive(mod["main"], "lowered_chain")


Array = npt.NDArray[np.float32]


def numpy_chain(x: Array, y: Array, z: Array) -> Array:
    """The same chain, eagerly."""
    return np.abs(np.minimum((np.maximum(x * y + z, 0) - x) * np.float32(0.5), 6)) + y


def best(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    """Run the benchmark and print the times and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4 * 1024 * 1024)
    parser.add_argument("--threads", default="1,2", help="thread counts, comma-separated")
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    thread_counts = [int(t) for t in args.threads.split(",")]

    with tempfile.TemporaryDirectory() as cache_dir:
        os.environ["RELAY_CACHE_DIR"] = cache_dir
        from relay.targets.cpu import codegen

        kernel = chain_kernel()
        first = codegen.compile_kernel(kernel)
        second = codegen.compile_kernel(chain_kernel())
        codegen.clear_memory_cache()
        third = codegen.compile_kernel(chain_kernel())
        print(
            f"compile: first {first.compile_seconds * 1e3:.1f} ms ({first.origin}), "
            f"second {second.compile_seconds * 1e3:.2f} ms ({second.origin}), "
            f"from disk {third.compile_seconds * 1e3:.2f} ms ({third.origin})"
        )

        rng = np.random.default_rng(0)
        x, y, z = (rng.standard_normal(args.size).astype(np.float32) for _ in range(3))
        out = np.empty_like(x)
        size = args.size - args.size % 64
        x2, y2, z2 = (a[:size].reshape(64, -1) for a in (x, y, z))
        out2 = np.empty_like(x2)
        expected, expected2 = numpy_chain(x, y, z), numpy_chain(x2, y2, z2)
        t_numpy = best(lambda: numpy_chain(x, y, z), args.repeat)
        gb = 4 * 4 * args.size / 1e9  # three inputs read, one output written
        print(f"numpy eager          {t_numpy * 1e3:8.2f} ms   ({gb / t_numpy:.1f} GB/s)")
        for threads in thread_counts:
            hand = codegen.compile_kernel(chain_kernel(), threads=threads)
            lowered = codegen.compile_kernel(lowered_kernel(size), threads=threads)
            sizes = {hand.kernel.sizes[0]: args.size}
            hand([x, y, z], [out], sizes)
            lowered([x2, y2, z2], [out2], {})
            assert np.array_equal(out, expected), "the compiled chain disagrees with numpy"
            assert np.array_equal(out2, expected2), "the lowered chain disagrees with numpy"
            t_hand = best(lambda: hand([x, y, z], [out], sizes), args.repeat)  # noqa: B023
            t_lowered = best(lambda: lowered([x2, y2, z2], [out2], {}), args.repeat)  # noqa: B023
            for what, t in (("hand-built kernel", t_hand), ("lowered from Relay", t_lowered)):
                print(
                    f"{what:<20} {t * 1e3:8.2f} ms   ({gb / t:.1f} GB/s, {threads} thread(s))"
                    f"   ratio numpy / it: {t_numpy / t:.2f}x   (goal >= 3x)"
                )


if __name__ == "__main__":
    main()
