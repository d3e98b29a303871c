"""The ONNX importer (``relay.frontend.from_onnx``) and ``relay import-onnx``.

Small graphs built with ``onnx.helper`` are imported and run on the interpreter, and compared
with onnxruntime on the same inputs (an independent implementation); the tests also cover
the converter table's opset selection, symbolic and unknown dimensions, constant propagation,
the backend's specialisation of shape inputs, the printed form (metadata section, read back
by the parser) and the command line's errors.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import relay  # noqa: E402
from relay.cli import main  # noqa: E402
from relay.compiler.frontend.onnx.table import (  # noqa: E402
    CONVERTERS,
    NOT_YET,
    UNSUPPORTED,
    lookup,
)
from relay.frontend import OnnxImportError, from_onnx  # noqa: E402
from relay.frontend.onnx_backend import RelayBackend  # noqa: E402
from relay.oracles.compare import compare_arrays  # noqa: E402
from relay.semantics.syntax import AnyDim, Call, Constant, TensorType  # noqa: E402
from relay.semantics.values import TensorValue  # noqa: E402

Array = npt.NDArray[Any]
F32 = TensorProto.FLOAT


def model(
    nodes: list[Any],
    inputs: list[tuple[str, int, list[Any]]],
    outputs: list[tuple[str, int, list[Any] | None]],
    initializers: list[Any] = (),  # type: ignore[assignment]
    opset: int = 17,
) -> Any:
    """A model of ``nodes`` with typed inputs and outputs."""
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
        [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
        initializer=list(initializers),
    )
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def run_relay(m: Any, *args: Array) -> list[Array]:
    value = relay.evaluate(from_onnx(m), *args)
    if isinstance(value, TensorValue):
        return [value.data]
    return [f.data for f in value.fields]  # type: ignore[attr-defined]


def run_ort(m: Any, *args: Array) -> list[Array]:
    session = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [i.name for i in session.get_inputs()]
    return list(session.run(None, dict(zip(names, args, strict=True))))


def assert_same_as_ort(m: Any, *args: Array, reduction_length: int = 1) -> None:
    for want, got in zip(run_ort(m, *args), run_relay(m, *args), strict=True):
        mismatch = compare_arrays(want, got, reduction_length=reduction_length)
        assert mismatch is None, mismatch


rng = np.random.default_rng(7)


def test_conv_relu_pool_gemm_against_onnxruntime() -> None:
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    b = rng.standard_normal(4).astype(np.float32)
    fc = rng.standard_normal((10, 4 * 4 * 4)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], strides=[1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Flatten", ["p"], ["f"]),
        helper.make_node("Gemm", ["f", "fc"], ["y"], transB=1, alpha=0.5),
    ]
    inits = [numpy_helper.from_array(a, n) for a, n in ((w, "w"), (b, "b"), (fc, "fc"))]
    m = model(nodes, [("x", F32, [1, 3, 8, 8])], [("y", F32, [1, 10])], inits)
    x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
    assert_same_as_ort(m, x, reduction_length=64)


def test_weights_are_constants_and_print_in_the_metadata_section() -> None:
    w = rng.standard_normal((3, 2)).astype(np.float32)
    m = model(
        [helper.make_node("MatMul", ["x", "w"], ["y"])],
        [("x", F32, [4, 3])],
        [("y", F32, [4, 2])],
        [numpy_helper.from_array(w, "w")],
    )
    mod = from_onnx(m)
    text = relay.astext(mod)
    assert "meta[relay.Constant][0]" in text and "#[metadata]" in text
    again = relay.parse(text)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    a, b = relay.evaluate(mod, x), relay.evaluate(again, x)
    assert isinstance(a, TensorValue) and isinstance(b, TensorValue)
    assert np.array_equal(a.data, b.data)
    assert compare_arrays(x @ w, a.data, reduction_length=3) is None


def test_opset_selects_the_converter() -> None:
    """Softmax before opset 13 flattens from ``axis`` (default 1); from 13 it is per axis
    (default -1): the same graph means different things, and both agree with onnxruntime."""
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    outs = []
    for opset in (11, 13):
        m = model(
            [helper.make_node("Softmax", ["x"], ["y"])],
            [("x", F32, [2, 3, 4])],
            [("y", F32, [2, 3, 4])],
            opset=opset,
        )
        assert_same_as_ort(m, x, reduction_length=12)
        outs.append(run_relay(m, x)[0])
    assert not np.allclose(outs[0], outs[1])
    assert lookup("Softmax", 11) is not lookup("Softmax", 13)
    assert lookup("Softmax", 12) is lookup("Softmax", 11)
    assert lookup("NoSuchOp", 17) is None


def test_symbolic_and_unknown_dimensions() -> None:
    m = model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [("x", F32, ["batch", None, 4])],
        [("y", F32, ["batch", None, 4])],
    )
    mod = from_onnx(m)
    t = mod["main"].params[0].type_annotation
    assert isinstance(t, TensorType)
    assert str(t.shape[0]) == "batch" and isinstance(t.shape[1], AnyDim) and t.shape[2] == 4
    ret = relay.infer_types(mod).global_type("main")
    assert "batch" in str(ret) and "?" in str(ret)
    x = rng.standard_normal((2, 5, 4)).astype(np.float32)
    assert np.array_equal(run_relay(m, x)[0], np.maximum(x, 0))


def test_shape_computations_fold_to_constants() -> None:
    """Shape -> Gather -> Unsqueeze -> Concat -> Reshape: the shape is computed at import, so
    the Relay reshape has a static newshape attribute."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "i0"], ["d0"], axis=0),
        helper.make_node("Unsqueeze", ["d0", "ax"], ["d0u"]),
        helper.make_node("Concat", ["d0u", "minus1"], ["shape"], axis=0),
        helper.make_node("Reshape", ["x", "shape"], ["y"]),
    ]
    inits = [
        numpy_helper.from_array(np.array(0, np.int64), "i0"),
        numpy_helper.from_array(np.array([0], np.int64), "ax"),
        numpy_helper.from_array(np.array([-1], np.int64), "minus1"),
    ]
    m = model(nodes, [("x", F32, [2, 3, 4])], [("y", F32, [2, 12])], inits)
    body = from_onnx(m)["main"].body
    assert isinstance(body, Call) and isinstance(body.args[0], relay.semantics.syntax.Var)
    assert body.attrs is not None and tuple(body.attrs.newshape) == (2, -1)  # type: ignore[attr-defined]
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    assert_same_as_ort(m, x)


def test_backend_specialises_inputs_that_relay_takes_as_attributes() -> None:
    m = model(
        [helper.make_node("Reshape", ["x", "shape"], ["y"])],
        [("x", F32, [2, 6]), ("shape", TensorProto.INT64, [2])],
        [("y", F32, None)],
    )
    with pytest.raises(OnnxImportError) as info:
        from_onnx(m)
    assert info.value.kind == "constant" and info.value.value_name == "shape"
    rep = RelayBackend.prepare(m)
    x = np.arange(12, dtype=np.float32).reshape(2, 6)
    for shape in ([3, 4], [4, 3], [3, 4]):
        (y,) = rep.run([x, np.array(shape, np.int64)])
        assert y.shape == tuple(shape) and np.array_equal(y.reshape(-1), x.reshape(-1))
    assert len(rep.modules) == 2  # one specialisation per distinct shape value
    assert RelayBackend.supports_device("CPU") and not RelayBackend.supports_device("CUDA")


@pytest.mark.parametrize(
    ("op", "attrs", "dtype"),
    [
        ("Elu", {"alpha": 0.7}, np.float32),
        ("HardSwish", {}, np.float32),
        ("Round", {}, np.float32),
        ("Mish", {}, np.float32),
        ("Gelu", {"approximate": "tanh"}, np.float32),
    ],
)
def test_composed_activations_against_onnxruntime(
    op: str, attrs: dict[str, Any], dtype: Any
) -> None:
    opset = 20 if op == "Gelu" else 18
    m = model(
        [helper.make_node(op, ["x"], ["y"], **attrs)],
        [("x", F32, [64])],
        [("y", F32, [64])],
        opset=opset,
    )
    x = (rng.standard_normal(64) * 3).astype(dtype)
    x[:4] = [0.5, 1.5, 2.5, -2.5]  # ties for Round
    assert_same_as_ort(m, x)


def test_unsupported_op_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    m = model(
        [helper.make_node("NonZero", ["x"], ["y"], name="nz")],
        [("x", F32, [3])],
        [("y", TensorProto.INT64, None)],
    )
    with pytest.raises(OnnxImportError, match=r"ONNX op 'NonZero' \(node 'nz'\) is not supported"):
        from_onnx(m)
    path = tmp_path / "m.onnx"
    onnx.save(m, str(path))
    assert main(["import-onnx", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}: error: ONNX op 'NonZero' (node 'nz') is not supported")
    assert "Traceback" not in err


def test_unknown_op_names_the_node() -> None:
    m = model(
        [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Frobnicate", ["r"], ["y"])],
        [("x", F32, [3])],
        [("y", F32, [3])],
    )
    with pytest.raises(
        OnnxImportError, match=r"ONNX op 'Frobnicate' \(node 'y'\) is not supported"
    ):
        from_onnx(m)


def test_cli_writes_the_module(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    w = rng.standard_normal((2, 2)).astype(np.float32)
    m = model(
        [helper.make_node("Add", ["x", "w"], ["y"])],
        [("x", F32, [2, 2])],
        [("y", F32, [2, 2])],
        [numpy_helper.from_array(w, "w")],
    )
    path, out = tmp_path / "m.onnx", tmp_path / "m.relay"
    onnx.save(m, str(path))
    assert main(["import-onnx", str(path), "-o", str(out)]) == 0
    mod = relay.parse(out.read_text(), str(out))
    x = rng.standard_normal((2, 2)).astype(np.float32)
    y = relay.evaluate(mod, x)
    assert isinstance(y, TensorValue) and np.array_equal(y.data, x + w)
    assert main(["import-onnx", str(path)]) == 0
    assert capsys.readouterr().out.startswith('#[version = "0.0.5"]')


def test_cli_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["import-onnx", str(tmp_path / "missing.onnx")]) == 2
    assert "no such file" in capsys.readouterr().err
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x00\x01not a model")
    assert main(["import-onnx", str(bad)]) == 1
    assert capsys.readouterr().err.startswith(f"{bad}: error: not an ONNX model")


def test_cli_without_onnx_installed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "m.onnx"
    path.write_bytes(b"")
    monkeypatch.setitem(sys.modules, "onnx", None)  # import onnx now raises ImportError
    assert main(["import-onnx", str(path)]) == 1
    assert "the onnx package is not installed" in capsys.readouterr().err


def test_import_relay_does_not_import_onnx() -> None:
    code = "import relay, relay.cli, sys; print('onnx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_converter_table_names_real_onnx_ops_and_opsets() -> None:
    from onnx import defs

    assert CONVERTERS, "the converters are registered"
    for op, entries in CONVERTERS.items():
        assert defs.has(op), op
        versions = {s.since_version for s in defs.get_all_schemas_with_history() if s.name == op}
        for since, _ in entries:
            # since=1: from the op's first version; otherwise a version where it changed
            assert since == 1 or since in versions, (op, since)
    overlap = set(CONVERTERS) & (set(UNSUPPORTED) | set(NOT_YET))
    assert not overlap, overlap


def test_initializer_of_a_dtype_relay_lacks() -> None:
    t = helper.make_tensor("w", TensorProto.BFLOAT16, [1], [1.0])
    m = model(
        [helper.make_node("Identity", ["w"], ["y"])],
        [],
        [("y", TensorProto.BFLOAT16, [1])],
        [t],
    )
    with pytest.raises(OnnxImportError, match="BFLOAT16, which Relay does not have"):
        from_onnx(m)


def test_constants_stay_constants() -> None:
    m = model(
        [helper.make_node("Constant", [], ["c"], value_floats=[1.0, 2.0])],
        [],
        [("c", F32, [2])],
    )
    body = from_onnx(m)["main"].body
    assert isinstance(body, Constant) and body.data.tolist() == [1.0, 2.0]


def test_maxpool_indices_against_onnxruntime() -> None:
    node = helper.make_node(
        "MaxPool", ["x"], ["y", "i"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]
    )
    m = model(
        [node], [("x", F32, [2, 3, 7, 7])], [("y", F32, None), ("i", TensorProto.INT64, None)]
    )
    x = rng.standard_normal((2, 3, 7, 7)).astype(np.float32)
    assert_same_as_ort(m, x)


def test_bidirectional_lstm_against_onnxruntime() -> None:
    hidden, inputs, seq, batch = 3, 4, 5, 2
    w = rng.standard_normal((2, 4 * hidden, inputs)).astype(np.float32)
    r = rng.standard_normal((2, 4 * hidden, hidden)).astype(np.float32)
    b = rng.standard_normal((2, 8 * hidden)).astype(np.float32)
    node = helper.make_node(
        "LSTM", ["x", "w", "r", "b"], ["y", "h", "c"], hidden_size=hidden, direction="bidirectional"
    )
    inits = [numpy_helper.from_array(a, n) for a, n in ((w, "w"), (r, "r"), (b, "b"))]
    m = model(
        [node],
        [("x", F32, [seq, batch, inputs])],
        [("y", F32, None), ("h", F32, None), ("c", F32, None)],
        inits,
        opset=14,
    )
    x = rng.standard_normal((seq, batch, inputs)).astype(np.float32)
    assert_same_as_ort(m, x, reduction_length=inputs + hidden)


def test_if_on_a_runtime_condition_is_relay_if() -> None:
    def branch(name: str, op: str) -> Any:
        return helper.make_graph(
            [helper.make_node(op, ["x"], [f"{name}_y"])],
            name,
            [],
            [helper.make_tensor_value_info(f"{name}_y", F32, [3])],
        )

    node = helper.make_node(
        "If", ["c"], ["y"], then_branch=branch("t", "Neg"), else_branch=branch("e", "Abs")
    )
    m = model([node], [("c", TensorProto.BOOL, []), ("x", F32, [3])], [("y", F32, [3])])
    assert "if (" in relay.astext(from_onnx(m))
    x = rng.standard_normal(3).astype(np.float32)
    for c in (True, False):
        assert_same_as_ort(m, np.array(c), x)
