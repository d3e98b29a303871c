"""The "light" models shipped in the onnx wheel: import, type-check, run, compare, optimise.

Each model (``onnx/backend/test/data/light/light_<name>.onnx``) comes with its expected output
(``light_<name>_output_0.pb``) for the input ``onnx.backend.test`` feeds it (``arange(n) / n``
in the input's shape). Each must import, type-check, run on the interpreter and match under
the tolerance policy (``relay.oracles.compare``), with the reduction length of the widest dot
product in these networks.

That check alone is weak: a light model's weights are ``ConstantOfShape`` fills (one value per
tensor), so every class gets the same logit and the shipped output is the uniform 1/1000 (or
one repeated value). So each model is also run with the fills replaced by seeded random
weights (He-scaled for convolutions and dense layers, uniform in [0.5, 1.5) for the 1-d
parameters) and its final ``Softmax`` cut off, and its logits compared with onnxruntime's; and
that randomised model must pass ``opt-level-3`` under the pass oracle (every pass re-checked and
its output run against its input). SqueezeNet and ShuffleNet run by default; the other seven
are ``slow``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

onnx = pytest.importorskip("onnx")

from onnx import numpy_helper  # noqa: E402

from relay import infer_types  # noqa: E402
from relay.compiler.passes import pipeline  # noqa: E402
from relay.frontend import from_onnx  # noqa: E402
from relay.interpreter import evaluate  # noqa: E402
from relay.oracles.compare import compare_arrays  # noqa: E402
from relay.oracles.pass_oracle import check_pass  # noqa: E402
from relay.semantics.syntax import IRModule, TensorType  # noqa: E402
from relay.semantics.values import TensorValue  # noqa: E402

LIGHT = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"

REDUCTION_LENGTH = 9216
"""The longest dot product in these networks (VGG-19's and AlexNet's first dense layer:
256 * 6 * 6 = 9216 terms); the comparison budget scales with it."""

FAST = ["squeezenet", "shufflenet"]
SLOW = [
    "resnet50",
    "vgg19",
    "inception_v1",
    "inception_v2",
    "densenet121",
    "bvlc_alexnet",
    "zfnet512",
]


def model_input(mod: IRModule) -> npt.NDArray[np.float32]:
    """``onnx.backend.test``'s input for a light model: ``arange(n) / n`` in @main's shape."""
    t = mod["main"].params[0].type_annotation
    assert isinstance(t, TensorType)
    shape = tuple(int(d) for d in t.shape)  # type: ignore[call-overload]
    n = int(np.prod(shape))
    return (np.arange(n).reshape(shape) / n).astype(np.float32)


def expected_output(name: str) -> npt.NDArray[Any]:
    """The output shipped with the model."""
    return numpy_helper.to_array(onnx.load_tensor(str(LIGHT / f"light_{name}_output_0.pb")))


def randomized(model: Any, seed: int = 0) -> Any:
    """``model`` with each ``ConstantOfShape`` weight fill replaced by a random initializer of
    its shape, and a final ``Softmax`` removed (the logits are the output)."""
    rng = np.random.default_rng(seed)
    m = onnx.ModelProto.FromString(model.SerializeToString())
    graph = m.graph
    shapes = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    nodes = []
    for node in graph.node:
        if node.op_type == "ConstantOfShape" and node.input[0] in shapes:
            shape = tuple(int(d) for d in shapes[node.input[0]])
            if len(shape) >= 2:
                fan_in = int(np.prod(shape[1:]))
                w = rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)
            else:
                w = rng.uniform(0.5, 1.5, shape)
            weight = numpy_helper.from_array(w.astype(np.float32), node.output[0])
            graph.initializer.append(weight)
        else:
            nodes.append(node)
    if nodes[-1].op_type == "Softmax":
        graph.output[0].name = nodes.pop().input[0]
    del graph.node[:]
    graph.node.extend(nodes)
    return m


def onnxruntime_output(model: Any, x: npt.NDArray[np.float32]) -> npt.NDArray[Any]:
    """onnxruntime's output of ``model`` on ``x``."""
    ort = pytest.importorskip("onnxruntime")
    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    result: npt.NDArray[Any] = session.run(None, {session.get_inputs()[0].name: x})[0]
    return result


def check_model(name: str) -> None:
    """Import, type-check, run and compare with the shipped output; then the randomised model
    against onnxruntime, and opt-level-3 under the oracle on it."""
    model = onnx.load(str(LIGHT / f"light_{name}.onnx"))
    mod = from_onnx(model)
    info = infer_types(mod)
    expected = expected_output(name)
    main_type = info.global_type("main")
    assert str(expected.shape).replace(" ", "") in str(main_type).replace(" ", ""), main_type
    x = model_input(mod)
    actual = evaluate(mod, [TensorValue(x)], fuel=None).value
    assert isinstance(actual, TensorValue)
    mismatch = compare_arrays(expected, actual.data, reduction_length=REDUCTION_LENGTH)
    assert mismatch is None, f"{name}: {mismatch}"

    random_model = randomized(model)
    random_mod = from_onnx(random_model)
    logits = evaluate(random_mod, [TensorValue(x)], fuel=None).value
    assert isinstance(logits, TensorValue)
    peer = onnxruntime_output(random_model, x)
    assert np.isfinite(peer).all() and np.unique(peer).size > 1, "degenerate random logits"
    mismatch = compare_arrays(peer, logits.data, reduction_length=REDUCTION_LENGTH)
    assert mismatch is None, f"{name} (random weights) vs onnxruntime: {mismatch}"
    verdict = check_pass(
        pipeline(3), random_mod, [TensorValue(x)], reduction_length=REDUCTION_LENGTH
    )
    assert verdict is None, verdict.report()


@pytest.mark.parametrize("name", FAST)
def test_light_model(name: str) -> None:
    check_model(name)


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW)
def test_light_model_slow(name: str) -> None:
    check_model(name)


def test_every_light_model_is_listed() -> None:
    shipped = sorted(p.name[len("light_") : -len(".onnx")] for p in LIGHT.glob("light_*.onnx"))
    assert shipped == sorted(FAST + SLOW)


def test_the_comparison_can_fail() -> None:
    """At this budget the policy still catches a 2% error on the randomised logits."""
    model = randomized(onnx.load(str(LIGHT / "light_squeezenet.onnx")))
    x = model_input(from_onnx(model))
    peer = onnxruntime_output(model, x)
    assert compare_arrays(peer, peer * np.float32(1.02), reduction_length=REDUCTION_LENGTH)
