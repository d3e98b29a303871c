"""The ResNet-18 of ``benchmarks/resnet.py`` quantized: agreement with the float network.

The float network (random weights, batch norm) is quantized with ``relay.compiler.passes.
quantize`` (TVM's defaults: int8 data and weights, int32 accumulation, the first convolution
and the dense layer left float), calibrated on ``--calibration`` random images, then both run
in the interpreter on ``--inputs`` other random images (standard normal, another seed). It
prints the top-1 agreement, the top-5 overlap, and the relative error of the logits
(``max |float - quantized| / max |float|`` per image, the median and the worst).

A random-weight network gives random images nearly the same pooled features (the average
of the last map over 7x7 positions, after batch norms that standardise every image alike):
``benchmarks/resnet.py`` centres the logits (the final bias cancels the mean features), so
they vary with the input, but then they are the product of the dense weights with a
difference of a few percent of the features, and a quantization error of the same few
percent decides the class. The script therefore also prints the error where the quantizer
works, the pooled features (the dense layer's input, before the float dense layer):
``||q - f|| / ||f||`` per image, against the features' own variation between images
``||f - mean f|| / ||f||``; top-1 agreement means something only where the first is well
below the second. It prints how many distinct classes the float network chose as well.

With ``--graph-pack`` the quantized network is also packed (``graph_pack``: NCHW1n16c data,
OIHW16o16i weights) and checked equal to the unpacked quantized network bit for bit. If the
``accel`` target is registered (``relay.targets``), the packed network also runs on it and
the script prints its per-layer counters (bytes moved, GEMM utilisation) where the target's
executable reports them. Run:

    python benchmarks/quantized_resnet.py [--inputs 100] [--calibration 8] [--mode max]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent))

import resnet

from relay.compiler.passes.quantize import QConfig, quantize
from relay.interpreter import evaluate
from relay.semantics.syntax import Call, Function, GlobalVar, IRModule
from relay.semantics.values import TensorValue

Array = npt.NDArray[np.float32]
FEATURE_IMAGES = 10
"""The first this many test images also give the pooled-feature comparison."""


def features(mod: IRModule) -> IRModule:
    """``@main`` cut before its final layer: ``add(nn.dense(features, w), b)`` returns
    ``features``."""
    main = next(f for gv, f in mod.functions.items() if gv.name == "main")
    dense = main.body.args[0] if isinstance(main.body, Call) else None
    assert isinstance(dense, Call), "expected add(nn.dense(x, w), b) as the body of @main"
    return IRModule({GlobalVar("main"): Function(main.params, dense.args[0])})


def logits(mod: IRModule, image: Array) -> Array:
    value = evaluate(mod, [TensorValue(image)], fuel=None).value
    assert isinstance(value, TensorValue)
    return np.asarray(value.data, dtype=np.float32).reshape(-1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--inputs", type=int, default=100, help="test images (100)")
    parser.add_argument("--calibration", type=int, default=8, help="calibration images (8)")
    parser.add_argument("--mode", default="max", choices=["max", "percentile", "global_scale"])
    parser.add_argument("--graph-pack", action="store_true", help="also pack and compare")
    args = parser.parse_args()

    mod, _ = resnet.build(18)
    calibration_rng, test_rng = np.random.default_rng(1), np.random.default_rng(2)
    shape = (1, 3, 224, 224)
    dataset = [
        [calibration_rng.standard_normal(shape).astype(np.float32)] for _ in range(args.calibration)
    ]
    start = time.perf_counter()
    quantized = quantize(mod, QConfig(calibrate_mode=args.mode), dataset)
    float_features = features(mod)
    quantized_features = quantize(float_features, QConfig(calibrate_mode=args.mode), dataset)
    print(f"quantize ({args.mode}, {args.calibration} calibration images): "
          f"{time.perf_counter() - start:.1f} s")  # fmt: skip
    packed = None
    if args.graph_pack:
        from relay.compiler.passes.graph_pack import graph_pack

        packed = graph_pack(quantized)

    agree = 0
    overlap = 0
    errors: list[float] = []
    classes: set[int] = set()
    pooled: list[tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]] = []
    float_time = quant_time = 0.0
    for i in range(args.inputs):
        image = test_rng.standard_normal(shape).astype(np.float32)
        t0 = time.perf_counter()
        f = logits(mod, image)
        t1 = time.perf_counter()
        q = logits(quantized, image)
        t2 = time.perf_counter()
        float_time += t1 - t0
        quant_time += t2 - t1
        if packed is not None and i < 3:
            assert np.array_equal(logits(packed, image), q), "graph_pack changed the values"
        classes.add(int(f.argmax()))
        agree += int(f.argmax() == q.argmax())
        overlap += len(set(np.argsort(f)[-5:]) & set(np.argsort(q)[-5:]))
        errors.append(float(np.abs(f - q).max() / np.abs(f).max()))
        if i < FEATURE_IMAGES:
            pair = (logits(float_features, image), logits(quantized_features, image))
            pooled.append((pair[0].astype(np.float64), pair[1].astype(np.float64)))
    n = args.inputs
    print(f"top-1 agreement: {agree}/{n} ({100 * agree / n:.0f}%); the float network chose "
          f"{len(classes)} distinct classes")  # fmt: skip
    print(f"top-5 overlap: {overlap / n:.2f} of 5")
    print(f"logit error / max |logit|: median {np.median(errors):.4f}, worst {max(errors):.4f}")
    mean = np.mean([f for f, _ in pooled], axis=0)
    error = [np.linalg.norm(q - f) / np.linalg.norm(f) for f, q in pooled]
    spread = [np.linalg.norm(f - mean) / np.linalg.norm(f) for f, _ in pooled]
    print(f"pooled features over {len(pooled)} images: quantization error ||q - f|| / ||f|| "
          f"median {np.median(error):.4f}; variation between images ||f - mean f|| / ||f|| "
          f"median {np.median(spread):.4f}")  # fmt: skip
    print(f"interpreter time per image: float {float_time / n:.2f} s, "
          f"quantized {quant_time / n:.2f} s (machine under load)")  # fmt: skip
    if packed is not None:
        print("graph_pack: packed network equal to the quantized one on 3 images")
        _accel(packed, test_rng.standard_normal(shape).astype(np.float32))


def _accel(packed: IRModule, image: Array) -> None:
    """Run on the ``accel`` target if there is one, and print what its counters report."""
    from relay.targets import target_names

    if "accel" not in target_names():
        print("accel target: not registered here (merge the vtasim branch for its counters)")
        return
    from relay.targets import get_target

    exe = get_target("accel").compile(packed)
    out = exe.run(TensorValue(image))
    assert isinstance(out, TensorValue)
    print(f"accel: equal to the interpreter: {np.array_equal(out.data, logits(packed, image))}")
    counters = getattr(exe, "counters", None)
    if counters is None:
        print("accel: the executable reports no counters")
        return
    report = counters() if callable(counters) else counters
    for row in report if isinstance(report, list) else [report]:
        print(f"  {row}")


if __name__ == "__main__":
    main()
