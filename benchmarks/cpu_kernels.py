"""Dense and convolution kernels of the CPU target against OpenBLAS and onnxruntime.

For each case (dense 512x512x512 and 1x2048x1000; conv2d 3x3, padding 1, 64->64 at 56x56 and
256->256 at 14x14, batch 1, NCHW float32) it prints GFLOP/s of

- ``packed``: the compiler's tiled, packed loop nest (``schedules.gemm_packed``),
- ``sgemm``: the kernel calling ``cblas_sgemm`` (the conv through im2col chunks),
- ``numpy``: numpy's OpenBLAS sgemm on the same matrix product (``np.matmul``; for a conv the
  ``(O, C*9) @ (C*9, H*W)`` product alone, without the im2col),
- ``onnxruntime``: the same op (Gemm / Conv) in onnxruntime,

with 1 and 2 threads (the kernel's parallel loops, OpenBLAS's threads, onnxruntime's
intra-op threads), then the ratios of each compiled kernel to numpy and to onnxruntime (with
``--micro-kernels``, a last column ``reg``: the packed nest with ``schedules.MICRO_KERNEL =
"register"``). Each figure is the best of several timed runs after a warm-up. Run:
``python benchmarks/cpu_kernels.py [--repeat N] [--threads 1 2] [--micro-kernels]``.
"""

from __future__ import annotations

import argparse
import ctypes
import itertools
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

from relay.compiler.lower import ir, schedules, te
from relay.compiler.lower.lower import lower_tensors
from relay.compiler.lower.ops.nn import conv, dense  # noqa: F401  (registers the lowerings)
from relay.semantics.ops import OPS
from relay.semantics.ops.nn.conv import Conv2DAttrs
from relay.semantics.ops.nn.dense import DenseAttrs
from relay.semantics.ops.registry import Attrs
from relay.semantics.syntax import TensorType, Type
from relay.targets.cpu import externs
from relay.targets.cpu.codegen import compile_kernel


class _Context(te.LowerContext):
    def __init__(self) -> None:
        self.names = itertools.count()

    def dim(self, d: object) -> ir.PrimExpr:
        assert isinstance(d, int)
        return ir.index(d)

    def shape(self, t: Type) -> tuple[ir.PrimExpr, ...]:
        assert isinstance(t, TensorType)
        return tuple(self.dim(d) for d in t.shape)

    def fresh(self, hint: str) -> str:
        return f"{hint}{next(self.names)}"


def kernel_of(op: str, arg_types: list[TensorType], attrs: Attrs) -> ir.Kernel:
    """One call of ``op`` lowered with the current gemm strategy."""
    relation = OPS[op].relation
    assert relation is not None
    out_type = relation(tuple(arg_types), attrs)
    ctx = _Context()
    inputs = [
        te.Placeholder(ir.Buffer(f"in{k}", ctx.shape(t), t.dtype)) for k, t in enumerate(arg_types)
    ]
    result = te.LOWERINGS[op].fn(ctx, tuple(inputs), attrs, tuple(arg_types), out_type)
    assert isinstance(result, te.Tensor)
    return lower_tensors(op.replace(".", "_"), inputs, [result])


def best(fn: Callable[[], object], repeat: int) -> float:
    """The best wall time of ``repeat`` runs of ``fn`` after one warm-up."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def set_blas_threads(n: int) -> None:
    """OpenBLAS's thread count (numpy's and the sgemm kernels', one library)."""
    lib = ctypes.CDLL(externs.sgemm().library)
    for name in ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads"):
        if hasattr(lib, name):
            getattr(lib, name)(ctypes.c_int(n))
            return


def onnx_session(model: onnx.ModelProto, threads: int) -> ort.InferenceSession:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    return ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )


def dense_case(m: int, k: int, n: int) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((m, k)).astype(np.float32)
    w = rng.standard_normal((n, k)).astype(np.float32)
    node = helper.make_node("Gemm", ["x", "w"], ["y"], transB=1)
    graph = helper.make_graph(
        [node],
        "dense",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k]),
            helper.make_tensor_value_info("w", TensorProto.FLOAT, [n, k]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    types = [TensorType((m, k), "float32"), TensorType((n, k), "float32")]
    wt = np.ascontiguousarray(w.T)
    return {
        "name": f"dense {m}x{k}x{n}",
        "flops": 2.0 * m * n * k,
        "op": ("nn.dense", types, DenseAttrs(units=None)),
        "inputs": [x, w],
        "out": (m, n),
        "numpy": lambda: np.matmul(x, wt),
        "onnx": (model, {"x": x, "w": w}),
    }


def conv_case(c: int, o: int, hw: int) -> dict[str, Any]:
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, c, hw, hw)).astype(np.float32)
    w = rng.standard_normal((o, c, 3, 3)).astype(np.float32)
    node = helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1], kernel_shape=[3, 3])
    graph = helper.make_graph(
        [node],
        "conv",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, hw, hw]),
            helper.make_tensor_value_info("w", TensorProto.FLOAT, [o, c, 3, 3]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, o, hw, hw])],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    types = [TensorType((1, c, hw, hw), "float32"), TensorType((o, c, 3, 3), "float32")]
    wm = w.reshape(o, c * 9)
    cols = rng.standard_normal((c * 9, hw * hw)).astype(np.float32)
    return {
        "name": f"conv2d 3x3 {c}->{o} at {hw}x{hw}",
        "flops": 2.0 * o * c * 9 * hw * hw,
        "op": ("nn.conv2d", types, Conv2DAttrs(padding=(1, 1))),
        "inputs": [x, w],
        "out": (1, o, hw, hw),
        "numpy": lambda: np.matmul(wm, cols),
        "onnx": (model, {"x": x, "w": w}),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    parser.add_argument(
        "--micro-kernels",
        action="store_true",
        help="also time the packed nest with the register micro-kernel (column reg)",
    )
    args = parser.parse_args()
    cases = [dense_case(512, 512, 512), dense_case(1, 2048, 1000)]
    cases += [conv_case(64, 64, 56), conv_case(256, 256, 14)]
    print(f"GFLOP/s (best of {args.repeat}; measured under load unless the machine is idle)")
    header = f"{'case':<30}{'thr':>4}{'packed':>9}{'sgemm':>9}{'numpy':>9}{'onnxrt':>9}"
    reg_header = f"{'reg':>9}" if args.micro_kernels else ""
    print(header + f"{'pk/np':>7}{'sg/np':>7}{'pk/ort':>8}{'sg/ort':>8}{reg_header}")
    for case in cases:
        op, types, attrs = case["op"]
        expected = None
        kernels = {}
        for strategy in schedules.STRATEGIES:
            with schedules.gemm_strategy(strategy):
                kernels[strategy] = kernel_of(op, types, attrs)
        if args.micro_kernels:
            default = schedules.MICRO_KERNEL
            schedules.MICRO_KERNEL = "register"
            try:
                with schedules.gemm_strategy("packed"):
                    kernels["register"] = kernel_of(op, types, attrs)
            finally:
                schedules.MICRO_KERNEL = default
        for threads in args.threads:
            set_blas_threads(threads)
            rates: dict[str, float] = {}
            for strategy, kernel in kernels.items():
                compiled = compile_kernel(kernel, threads=threads)
                out = np.empty(case["out"], np.float32)
                inputs = case["inputs"]
                seconds = best(lambda c=compiled, o=out, i=inputs: c(i, [o], {}), args.repeat)
                rates[strategy] = case["flops"] / seconds / 1e9
                if expected is None:
                    expected = OPS[op].reference(tuple(case["inputs"]), attrs)  # type: ignore[misc]
                np.testing.assert_allclose(out, expected, rtol=1e-3, atol=1e-3)
            rates["numpy"] = case["flops"] / best(case["numpy"], args.repeat) / 1e9
            model, feeds = case["onnx"]
            session = onnx_session(model, threads)
            rates["onnx"] = (
                case["flops"] / best(lambda s=session, f=feeds: s.run(None, f), args.repeat) / 1e9
            )
            p, s, n, r = rates["packed"], rates["blas"], rates["numpy"], rates["onnx"]
            reg = f"{rates['register']:>9.1f}" if "register" in rates else ""
            print(
                f"{case['name']:<30}{threads:>4}{p:>9.1f}{s:>9.1f}{n:>9.1f}{r:>9.1f}"
                f"{p / n:>7.2f}{s / n:>7.2f}{p / r:>8.2f}{s / r:>8.2f}{reg}",
                flush=True,
            )


if __name__ == "__main__":
    main()
