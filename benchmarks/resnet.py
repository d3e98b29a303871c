"""A ResNet on a 1x3x224x224 image: the interpreter against onnxruntime, in the same process.

The network (ResNet-18 with basic blocks, or ResNet-50 with bottlenecks: conv2d, batch_norm,
relu, residual add, max/global-average pooling, dense) is built twice from the same random
weights: as a Relay module through the AST, with the core ops, and as an ONNX graph through
``onnx.helper``. The weights are He-initialised (normal, variance ``2 / fan-in``); the final
layer's bias cancels the mean pooled features of random images, so that the logits, and the
class chosen, vary from one random image to the next (without it every image got one class).
Both run on the same input; the script checks the outputs agree and prints
the best time of each, and the ratio. Run:

    python benchmarks/resnet.py [--depth 18|50] [--repeat 5]

The interpreter's time is a compiled module's run (the compile time is printed apart); the
kernels are the interpreter's (``relay.interpreter.kernels``: convolution as im2col and one
BLAS matrix product, pooling, batch norm and relu on whole arrays, each held equal to the
operator's reference semantics by ``tests/test_interpreter_kernels.py``), so the ratio
measures those kernels against onnxruntime's, plus the interpreter's dispatch, which is a few
microseconds per node.

Threads: numpy's BLAS and onnxruntime each use every core by default. On a loaded machine,
threaded kernels wait for time slices and both figures become noise; compare single-threaded
then, with ``OPENBLAS_NUM_THREADS=1`` (the script gives onnxruntime as many intra-op threads as
that variable says, and prints the setting).
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import onnx
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

from relay.interpreter import evaluate, program_for
from relay.interpreter.instructions import OpCall
from relay.semantics import syntax as s
from relay.semantics.ops import lookup
from relay.semantics.ops.registry import Attrs, Reference
from relay.semantics.values import TensorValue

Array = npt.NDArray[np.float32]


def attrs(op: str, **fields: object) -> Attrs:
    """The attributes of a call of ``op`` (its registered attributes class)."""
    opdef = lookup(op)
    assert opdef is not None and opdef.attrs_type is not None, op
    return opdef.attrs_type.from_kwargs(fields)


class Net:
    """Builds the Relay expression and the ONNX nodes side by side, layer by layer."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.channels: dict[str, int] = {"data": 3}
        self.count = 0

    def name(self, what: str) -> str:
        self.count += 1
        return f"{what}{self.count}"

    def weight(
        self, shape: tuple[int, ...], scale: float, offset: float = 0.0
    ) -> tuple[s.Constant, str]:
        data = (offset + scale * self.rng.standard_normal(shape)).astype(np.float32)
        name = self.name("w")
        self.initializers.append(numpy_helper.from_array(data, name))
        return s.Constant(data), name

    def conv(self, x: tuple[s.Expr, str], out: int, k: int, stride: int) -> tuple[s.Expr, str]:
        e, xn = x
        cin = self.channels[xn]
        w, wn = self.weight((out, cin, k, k), (2.0 / (cin * k * k)) ** 0.5)
        pad = k // 2
        conv = attrs(
            "nn.conv2d",
            strides=(stride, stride),
            padding=(pad, pad, pad, pad),
            channels=out,
            kernel_size=(k, k),
        )
        yn = self.name("conv")
        self.nodes.append(
            helper.make_node(
                "Conv",
                [xn, wn],
                [yn],
                kernel_shape=[k, k],
                strides=[stride, stride],
                pads=[pad, pad, pad, pad],
            )
        )
        self.channels[yn] = out
        return s.Call(s.Op("nn.conv2d"), (e, w), conv), yn

    def bn(self, x: tuple[s.Expr, str]) -> tuple[s.Expr, str]:
        e, xn = x
        c = self.channels[xn]
        gamma, gn = self.weight((c,), 0.1, 1.0)
        beta, bn = self.weight((c,), 0.1)
        mean, mn = self.weight((c,), 0.1)
        var = np.abs(1.0 + 0.1 * self.rng.standard_normal(c)).astype(np.float32)
        vn = self.name("var")
        self.initializers.append(numpy_helper.from_array(var, vn))
        yn = self.name("bn")
        self.nodes.append(
            helper.make_node("BatchNormalization", [xn, gn, bn, mn, vn], [yn], epsilon=1e-5)
        )
        self.channels[yn] = c
        call = s.Call(s.Op("nn.batch_norm"), (e, gamma, beta, mean, s.Constant(var)),
                      attrs("nn.batch_norm", epsilon=1e-5))  # fmt: skip
        return s.TupleGetItem(call, 0), yn

    def relu(self, x: tuple[s.Expr, str]) -> tuple[s.Expr, str]:
        e, xn = x
        yn = self.name("relu")
        self.nodes.append(helper.make_node("Relu", [xn], [yn]))
        self.channels[yn] = self.channels[xn]
        return s.Call(s.Op("nn.relu"), (e,)), yn

    def add(self, x: tuple[s.Expr, str], y: tuple[s.Expr, str]) -> tuple[s.Expr, str]:
        zn = self.name("add")
        self.nodes.append(helper.make_node("Add", [x[1], y[1]], [zn]))
        self.channels[zn] = self.channels[x[1]]
        return s.Call(s.Op("add"), (x[0], y[0])), zn

    def basic(self, x: tuple[s.Expr, str], out: int, stride: int) -> tuple[s.Expr, str]:
        y = self.relu(self.bn(self.conv(x, out, 3, stride)))
        y = self.bn(self.conv(y, out, 3, 1))
        shortcut = x
        if stride != 1 or self.channels[x[1]] != out:
            shortcut = self.bn(self.conv(x, out, 1, stride))
        return self.relu(self.add(y, shortcut))

    def bottleneck(self, x: tuple[s.Expr, str], out: int, stride: int) -> tuple[s.Expr, str]:
        width = out // 4
        y = self.relu(self.bn(self.conv(x, width, 1, 1)))
        y = self.relu(self.bn(self.conv(y, width, 3, stride)))
        y = self.bn(self.conv(y, out, 1, 1))
        shortcut = x
        if stride != 1 or self.channels[x[1]] != out:
            shortcut = self.bn(self.conv(x, out, 1, stride))
        return self.relu(self.add(y, shortcut))


CENTRE_IMAGES = 16
"""Random images whose mean pooled features the final layer's bias cancels (``build``)."""


def build(depth: int, seed: int = 0) -> tuple[s.IRModule, onnx.ModelProto]:
    """The network as a Relay module (``@main(%data)``) and as an ONNX model."""
    net = Net(seed)
    data = s.Var("data", s.TensorType((1, 3, 224, 224), "float32"))
    x: tuple[s.Expr, str] = (data, "data")
    x = net.relu(net.bn(net.conv(x, 64, 7, 2)))
    pooled = net.name("pool")
    net.nodes.append(helper.make_node("MaxPool", [x[1]], [pooled], kernel_shape=[3, 3],
                                      strides=[2, 2], pads=[1, 1, 1, 1]))  # fmt: skip
    net.channels[pooled] = 64
    pool = attrs("nn.max_pool2d", pool_size=(3, 3), strides=(2, 2), padding=(1, 1, 1, 1))
    x = (s.Call(s.Op("nn.max_pool2d"), (x[0],), pool), pooled)
    block: Callable[[tuple[s.Expr, str], int, int], tuple[s.Expr, str]]
    if depth == 18:
        stages, widths, block = (2, 2, 2, 2), (64, 128, 256, 512), net.basic
    else:
        stages, widths, block = (3, 4, 6, 3), (256, 512, 1024, 2048), net.bottleneck
    for i, (count, width) in enumerate(zip(stages, widths, strict=True)):
        for j in range(count):
            x = block(x, width, 2 if j == 0 and i > 0 else 1)
    gap = net.name("gap")
    flat = net.name("flat")
    net.nodes.append(helper.make_node("GlobalAveragePool", [x[1]], [gap]))
    net.nodes.append(helper.make_node("Flatten", [gap], [flat]))
    e = s.Call(s.Op("nn.batch_flatten"), (s.Call(s.Op("nn.global_avg_pool2d"), (x[0],),
                                                 attrs("nn.global_avg_pool2d")),))  # fmt: skip
    w, wn = net.weight((1000, widths[-1]), (1.0 / widths[-1]) ** 0.5)
    b, bn = net.weight((1000,), 0.01)
    # Centre the logits: the pooled features of random images are nearly the same for every
    # image (the average over the last map), so their common part would choose one class for
    # all of them. The bias cancels that part (measured on CENTRE_IMAGES images of another
    # seed), leaving logits that vary with the input.
    features = s.IRModule({s.GlobalVar("main"): s.Function((data,), e)})
    rng = np.random.default_rng(seed + 1000)
    mean = np.zeros(widths[-1], dtype=np.float64)
    for _ in range(CENTRE_IMAGES):
        image = rng.standard_normal((1, 3, 224, 224)).astype(np.float32)
        value = evaluate(features, [TensorValue(image)], fuel=None).value
        assert isinstance(value, TensorValue)
        mean += np.asarray(value.data, dtype=np.float64).reshape(-1) / CENTRE_IMAGES
    centred = (b.data - w.data.astype(np.float64) @ mean).astype(np.float32)
    b = s.Constant(centred)
    net.initializers[-1] = numpy_helper.from_array(centred, bn)
    net.nodes.append(helper.make_node("Gemm", [flat, wn, bn], ["logits"], transB=1))
    e = s.Call(s.Op("add"), (s.Call(s.Op("nn.dense"), (e, w), attrs("nn.dense", units=1000)), b))
    mod = s.IRModule({s.GlobalVar("main"): s.Function((data,), e)})
    graph = helper.make_graph(
        net.nodes,
        f"resnet{depth}",
        [helper.make_tensor_value_info("data", TensorProto.FLOAT, [1, 3, 224, 224])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, [1, 1000])],
        net.initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model)
    return mod, model


def kernel_breakdown(mod: s.IRModule, image: Array) -> tuple[float, dict[str, float]]:
    """One run's time, and the time inside each operator's kernel.

    The kernels of a fresh compilation of a copy of the module (the reference functions, or
    the interpreter's faster ones: ``relay.interpreter.kernels``) are wrapped with timers.
    """
    spent: dict[str, float] = {}

    def timed(name: str, kernel: Reference) -> Reference:
        def run(args: tuple[npt.NDArray[np.generic], ...], attrs: Attrs | None) -> object:
            start = time.perf_counter()
            try:
                return kernel(args, attrs)
            finally:
                spent[name] = spent.get(name, 0.0) + time.perf_counter() - start

        return run  # type: ignore[return-value]

    copy = s.IRModule(dict(mod.functions), dict(mod.type_definitions))
    for ins in program_for(copy).instructions():
        if isinstance(ins, OpCall):
            ins.kernel = timed(ins.name, ins.kernel)
    start = time.perf_counter()
    evaluate(copy, [TensorValue(image)])
    total = time.perf_counter() - start
    return total, spent


def best(run: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--depth", type=int, choices=(18, 50), default=50)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    mod, model = build(args.depth)
    image = np.random.default_rng(1).standard_normal((1, 3, 224, 224)).astype(np.float32)

    start = time.perf_counter()
    program_for(mod)
    compile_time = time.perf_counter() - start

    def interpret() -> Array:
        result = evaluate(mod, [TensorValue(image)])
        assert isinstance(result.value, TensorValue)
        return result.value.data.astype(np.float32)

    options = onnxruntime.SessionOptions()
    threads = os.environ.get("OPENBLAS_NUM_THREADS", "")
    if threads.isdigit():
        options.intra_op_num_threads = int(threads)
    session = onnxruntime.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )

    def ort() -> Array:
        out: Array = session.run(["logits"], {"data": image})[0]
        return out

    ours, theirs = interpret(), ort()  # warm up, and check they compute the same thing
    error = float(np.max(np.abs(ours - theirs)) / max(1e-6, float(np.max(np.abs(theirs)))))
    nodes = sum(1 for _ in s.post_order(mod["main"]))
    ops = sum(1 for e in s.post_order(mod["main"]) if isinstance(e, s.Call))
    print(f"ResNet-{args.depth}, 1x3x224x224 float32: {ops} operator calls, {nodes} Relay nodes, "
          f"{len(model.graph.node)} ONNX nodes")  # fmt: skip
    print(f"outputs agree: max |difference| / max |output| = {error:.2e}")
    print(f"threads: OPENBLAS_NUM_THREADS={threads or '(unset: all cores)'}, onnxruntime alike")
    t_interp = best(interpret, args.repeat)
    t_ort = best(ort, args.repeat)
    print(f"interpreter compile (once per module): {compile_time * 1e3:9.1f} ms")
    print(f"interpreter run (best of {args.repeat}):         {t_interp * 1e3:9.1f} ms")
    print(f"onnxruntime run (best of {args.repeat}):         {t_ort * 1e3:9.1f} ms")
    print(f"ratio interpreter / onnxruntime:        {t_interp / t_ort:9.2f}x")
    total, spent = kernel_breakdown(mod, image)
    print(f"where one interpreter run ({total * 1e3:.1f} ms) goes:")
    for name, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        print(f"  {name:24s} {seconds * 1e3:9.1f} ms  {seconds / total:6.1%}")
    outside = total - sum(spent.values())
    print(f"  {'(the interpreter itself)':24s} {outside * 1e3:9.1f} ms  {outside / total:6.1%}")


if __name__ == "__main__":
    main()
