"""The accelerator target on a quantized ResNet-18-like network: bit-exactness, bytes moved,
GEMM utilisation and simulator speed.

The network is ``benchmarks/resnet.py``'s ResNet-18 shape (a 7x7/2 stem, max pooling, four
stages of two basic blocks with 64, 128, 256, 512 channels, 1x1/2 projection shortcuts,
global average pooling, a 1000-way dense layer), written directly in its quantized form, the
form that power-of-two ``quantize`` then ``graph_pack``-free offload gives: every convolution
is int8 x int8 accumulated in int32, then ``+ bias``, ``>> shift``, ``clip(-127, 127)``,
``cast int8`` (with ``relu`` where the float network has one); a residual add widens the
shortcut to int32 and adds it before the block's final requantization. Weights are random
int8, biases random int32, shifts chosen so activations keep a spread. The image is int8.

The script compiles the network for ``accel``, checks its output against the interpreter bit
for bit, and prints per offloaded layer: the bytes loaded (input, weight, accumulator,
micro-op) and stored, GEMM micro-ops, the cycle estimate and GEMM utilisation (useful MACs /
(cycles x 256)), and the simulator's speed (simulated useful MACs per host second). Run:

    python benchmarks/accel.py [--size 224] [--repeat 1]
    python benchmarks/accel.py --quantized-resnet N    # the real network, N images

``--quantized-resnet N`` takes instead ``benchmarks/resnet.py``'s float ResNet-18, quantizes it
(``compiler.passes.quantize``, TVM's defaults: the first convolution and the dense layer stay
float) and packs it (``graph_pack``: NCHW1n16c/OIHW16o16i), runs N random images on ``accel``,
and checks each against the interpreter (bit for bit) and the float network (top-1).

``--size 112`` quarters the work (the layers keep their channels). Figures measured on a
loaded machine vary; the byte counts and cycle estimates do not. numpy's BLAS threads fight
over a loaded machine's cores: ``OPENBLAS_NUM_THREADS=1`` gives steadier simulator figures.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import relay
from relay.compiler.pass_manager import PassContext
from relay.oracles.engines import NO_COMPILE_TIME_FOLDING
from relay.semantics.values import TensorValue
from relay.targets import get_target
from relay.targets.accel import AccelPrimitive


class Builder:
    """Writes the quantized network as Relay text, its weights as parameters."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        self.lines: list[str] = []
        self.params: list[tuple[str, np.ndarray]] = []
        self.n = 0

    def emit(self, expr: str) -> str:
        name = f"%{self.n}"
        self.n += 1
        self.lines.append(f"  {name} = {expr};")
        return name

    def param(self, prefix: str, value: np.ndarray) -> str:
        name = f"%{prefix}{len(self.params)}"
        self.params.append((name, value))
        return name

    def conv(self, x: str, c: int, o: int, k: int, stride: int, *, relu: bool,
             residual: str | None = None) -> str:  # fmt: skip
        w = self.param("w", self.rng.integers(-128, 128, (o, c, k, k)).astype(np.int8))
        b = self.param("b", self.rng.integers(-(1 << 12), 1 << 12, (o, 1, 1)).astype(np.int32))
        pad = k // 2
        # |acc| grows like sqrt(c k k) * 128 * 64: shift it back into int8's range
        shift = int(np.ceil(np.log2(np.sqrt(c * k * k) * 128 * 74 / 64)))
        v = self.emit(f"nn.conv2d({x}, {w}, strides=[{stride}, {stride}], "
                      f"padding=[{pad}, {pad}, {pad}, {pad}], channels={o}, "
                      f'kernel_size=[{k}, {k}], out_dtype="int32")')  # fmt: skip
        v = self.emit(f"add({v}, {b})")
        v = self.emit(f"right_shift({v}, {shift})")
        if residual is not None:
            v = self.emit(f'add({v}, cast({residual}, dtype="int32"))')
        v = self.emit(f"clip({v}, a_min=-127f, a_max=127f)")
        v = self.emit(f'cast({v}, dtype="int8")')
        if relu:
            v = self.emit(f"nn.relu({v})")
        return v

    def block(self, x: str, c: int, o: int, stride: int) -> str:
        y = self.conv(x, c, o, 3, stride, relu=True)
        shortcut = x if stride == 1 and c == o else self.conv(x, c, o, 1, stride, relu=False)
        return self.conv(y, o, o, 3, 1, relu=True, residual=shortcut)


def build(size: int, seed: int = 0) -> tuple[relay.IRModule, list[np.ndarray]]:
    """The quantized network's module and its arguments (image first, then the weights)."""
    b = Builder(seed)
    image = b.rng.integers(-128, 128, (1, 3, size, size)).astype(np.int8)
    v = b.conv("%image", 3, 64, 7, 2, relu=True)
    v = b.emit(f"nn.max_pool2d({v}, pool_size=[3, 3], strides=[2, 2], padding=[1, 1, 1, 1])")
    c = 64
    for o, stride in ((64, 1), (128, 2), (256, 2), (512, 2)):
        v = b.block(v, c, o, stride)
        v = b.block(v, o, o, 1)
        c = o
    v = b.emit(f'cast({v}, dtype="int32")')
    v = b.emit(f"nn.global_avg_pool2d({v})")
    v = b.emit(f"reshape({v}, newshape=[1, 512])")
    v = b.emit(f'cast({v}, dtype="int8")')
    w = b.param("w", b.rng.integers(-128, 128, (1000, 512)).astype(np.int8))
    b.emit(f'nn.dense({v}, {w}, units=1000, out_dtype="int32")')
    sig = [f"%image: Tensor[(1, 3, {size}, {size}), int8]"]
    for name, value in b.params:
        dims = ", ".join(map(str, value.shape)) + ("," if value.ndim == 1 else "")
        sig.append(f"{name}: Tensor[({dims}), {value.dtype.name}]")
    last = b.lines[-1].split(" = ")[0].strip()
    text = (f'#[version = "0.0.5"]\ndef @main({", ".join(sig)}) {{\n' + "\n".join(b.lines)
            + f"\n  {last}\n}}\n")  # fmt: skip
    return relay.parse(text), [image] + [v for _, v in b.params]


def report(exe: object, runs: int) -> None:
    """Per offloaded layer of ``exe`` (over ``runs`` runs): bytes moved, cycles, utilisation;
    then the totals and the simulator's speed."""
    kernels = exe.kernels  # type: ignore[attr-defined]
    offloaded = {n: k.compiled for n, k in kernels.items()
                 if isinstance(k.compiled, AccelPrimitive)}  # fmt: skip
    head = (f"{'layer':<44} {'inp KB':>8} {'wgt KB':>8} {'acc KB':>7} {'uop KB':>6} "
            f"{'out KB':>7} {'Mcycles':>8} {'util':>6}")  # fmt: skip
    print(head)
    total_macs = total_cycles = 0
    sim_s = sim_cpu = 0.0
    totals = dict.fromkeys(("INP", "WGT", "ACC", "UOP", "OUT"), 0)
    for name, k in offloaded.items():
        lay, c = k.region.layer, k.counters
        per = max(k.runs, 1)
        macs = lay.macs * k.runs
        total_macs += macs
        total_cycles += c.cycles
        sim_s += k.seconds
        sim_cpu += k.cpu_seconds
        for mem in ("INP", "WGT", "ACC", "UOP"):
            totals[mem] += c.load_bytes[mem] // per
        totals["OUT"] += c.store_bytes // per
        what = f"{lay.c}->{lay.o} {lay.kh}x{lay.kw}/{lay.stride[0]} {lay.h}x{lay.w} ({name[6:22]})"
        print(f"{what:<44} {c.load_bytes['INP'] / per / 1024:>8.0f} "
              f"{c.load_bytes['WGT'] / per / 1024:>8.0f} "
              f"{c.load_bytes['ACC'] / per / 1024:>7.1f} "
              f"{c.load_bytes['UOP'] / per / 1024:>6.1f} {c.store_bytes / per / 1024:>7.0f} "
              f"{c.cycles / per / 1e6:>8.3f} {macs / max(c.cycles * 256, 1):>6.1%}")  # fmt: skip
    util = total_macs / max(total_cycles * 256, 1)
    cells = " ".join(f"{totals[m] / 1024:>{w}.0f}" for m, w in
                     (("INP", 8), ("WGT", 8), ("ACC", 7), ("UOP", 6), ("OUT", 7)))  # fmt: skip
    print(f"{'total':<44} {cells} {total_cycles / runs / 1e6:>8.3f} {util:>6.1%}")
    clock = get_target("accel").config.clock_mhz  # type: ignore[attr-defined]
    ms = total_cycles / runs / clock / 1e3
    print(f"GEMM utilisation (useful MACs / (cycles x 256)): {util:.1%}; estimated accelerator "
          f"time {ms:.1f} ms per image at {clock:.0f} MHz")  # fmt: skip
    print(f"simulator speed: {total_macs / sim_s / 1e6:.0f} M simulated MACs per host second, "
          f"{total_macs / sim_cpu / 1e6:.0f} M per CPU second "
          f"({total_macs / runs / 1e9:.2f} GMAC per image, {sim_s / runs:.1f} s in the "
          f"simulator per image)")  # fmt: skip


def quantized_resnet(images: int) -> None:
    """The float ResNet-18 of ``benchmarks/resnet.py``, quantized (``quantize``, TVM's
    defaults but ``max`` calibration on 4 random images: a global scale clips the activations
    of this network) and packed (``graph_pack``), on ``accel``: bit-exact against the ``cpu``
    target's run of the packed program (the first convolution and the dense layer stay float,
    and LLVM sums them in another order than the interpreter, so against the interpreter the
    figure is the largest difference), top-1 agreement with the float network."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import resnet

    from relay.compiler.passes.graph_pack import graph_pack
    from relay.compiler.passes.quantize import QConfig, quantize

    float_mod, _ = resnet.build(18)
    rng = np.random.default_rng(1)
    shape = (1, 3, 224, 224)
    calibration = [[rng.standard_normal(shape).astype(np.float32)] for _ in range(4)]
    packed = graph_pack(quantize(float_mod, QConfig(calibrate_mode="max"), calibration))
    start = time.perf_counter()
    exe = get_target("accel").compile(packed)
    n_acc = sum(isinstance(k.compiled, AccelPrimitive) for k in exe.kernels.values())
    print(f"quantized ResNet-18 (quantize + graph_pack), 1x3x224x224: {n_acc} kernels on the "
          f"accelerator, {len(exe.kernels) - n_acc} on the CPU; compiled in "
          f"{time.perf_counter() - start:.1f} s")  # fmt: skip
    cpu = get_target("cpu").compile(packed)
    agree = exact = 0
    classes: set[int] = set()
    worst = 0.0
    for _ in range(images):
        image = TensorValue(rng.standard_normal(shape).astype(np.float32))
        got = exe.run(image)
        expect = relay.evaluate(packed, image)
        reference = relay.evaluate(float_mod, image)
        assert isinstance(got, TensorValue) and isinstance(expect, TensorValue)
        assert isinstance(reference, TensorValue)
        on_cpu = cpu.run(image)
        assert isinstance(on_cpu, TensorValue)
        exact += int(np.array_equal(got.data, on_cpu.data))
        ours, theirs = (np.asarray(v.data, dtype=np.float64) for v in (got, expect))
        worst = max(worst, float(np.abs(ours - theirs).max() / np.abs(theirs).max()))
        agree += int(np.argmax(got.data) == np.argmax(reference.data))
        classes.add(int(np.argmax(reference.data)))
    print(f"bit-exact with the cpu target on {exact}/{images} images; against the interpreter "
          f"(the float first conv and dense sum in another order) the worst max |difference| / "
          f"max |logit| is {worst:.1e}; top-1 agreement with the float network {agree}/{images}; "
          f"the float network chose {len(classes)} distinct classes")  # fmt: skip
    report(exe, images)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", type=int, default=224)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--quantized-resnet", type=int, default=0, metavar="N",
                    help="instead: the quantized float ResNet-18 on N images")  # fmt: skip
    args = ap.parse_args()
    if args.quantized_resnet:
        quantized_resnet(args.quantized_resnet)
        return
    mod, arrays = build(args.size)
    values = [TensorValue(a) for a in arrays]
    start = time.perf_counter()
    with PassContext(disabled=NO_COMPILE_TIME_FOLDING):
        exe = get_target("accel").compile(mod)
    compile_s = time.perf_counter() - start
    n_acc = sum(isinstance(k.compiled, AccelPrimitive) for k in exe.kernels.values())
    print(f"quantized ResNet-18, 1x3x{args.size}x{args.size} int8: {n_acc} kernels on "
          f"the accelerator, {len(exe.kernels) - n_acc} on the CPU; compiled in "
          f"{compile_s:.1f} s")  # fmt: skip
    runs = []
    for _ in range(args.repeat):
        start = time.perf_counter()
        got = exe.run(*values)
        runs.append(time.perf_counter() - start)
    start = time.perf_counter()
    expect = relay.evaluate(mod, *values)
    interp_s = time.perf_counter() - start
    assert isinstance(got, TensorValue) and isinstance(expect, TensorValue)
    same = got.data.dtype == expect.data.dtype and np.array_equal(got.data, expect.data)
    print(
        f"bit-exact with the interpreter: {'yes' if same else 'NO'} "
        f"(top-1 class {int(np.argmax(got.data))} vs {int(np.argmax(expect.data))})"
    )
    report(exe, args.repeat)
    print(f"whole run on accel {min(runs):.1f} s; the interpreter {interp_s:.1f} s")


if __name__ == "__main__":
    main()
