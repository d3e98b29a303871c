"""The example third-party target (``examples/target_plugin``, onnxruntime) plugged in the way
a backend author's package is, and held to the interpreter by ``relay conform`` and the
pytest plugin. The quick tests install it as a ``dist-info`` on ``sys.path`` made from the
package's own ``pyproject.toml``; the slow one installs it with pip and runs both front ends
in fresh processes."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

import relay
from relay.cli import main
from relay.oracles.conform_kit import conform
from relay.oracles.target_oracle import check_target, declared_unsupported
from relay.semantics.errors import BackendError
from relay.semantics.values import TensorValue, TupleValue
from relay.targets import base, get_target

pytest.importorskip("onnxruntime")

ROOT = Path(__file__).parent.parent
PACKAGE = ROOT / "examples" / "target_plugin"
CORPUS = ROOT / "tests" / "conformance"
pytest_plugins = ["pytester"]


def entry_point() -> tuple[str, str]:
    """The ``relay.targets`` entry point the package's pyproject declares."""
    project = tomllib.loads((PACKAGE / "pyproject.toml").read_text())["project"]
    ((name, value),) = project["entry-points"]["relay.targets"].items()
    return name, value


@pytest.fixture
def onnxruntime_target(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The package importable and its entry point installed (a ``dist-info`` directory)."""
    name, value = entry_point()
    dist = tmp_path / "relay_onnxruntime_target-0.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: relay-onnxruntime-target\n"
                                   "Version: 0.1.0\n")  # fmt: skip
    (dist / "entry_points.txt").write_text(f"[relay.targets]\n{name} = {value}\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(PACKAGE))
    yield
    base._INSTANCES.pop(name, None)
    for module in [m for m in sys.modules if m.startswith("relay_onnxruntime")]:
        del sys.modules[module]


PROGRAM = """
def @scale(%v: Tensor[(2, 3), float32]) { multiply(%v, 2f) }
def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(4, 3), float32], %t: (int32, int32)) {
  let %d = nn.dense(%x, %w, units=4);
  let %s = sum(@scale(%x), axis=[1], keepdims=True);
  (nn.softmax(%d), %s, transpose(%d, axes=None), %t.1 != %t.0, not_equal(nanf, 1f),
   stack((%s, %s), axis=1), reshape(%d, newshape=[-1]), max(%x, axis=[0], exclude=True),
   maximum(nanf, 1f), minimum(1f, nanf), nn.relu(nanf), clip(nanf, a_min=0f, a_max=1f),
   sign(nanf))
}
"""


@pytest.mark.usefixtures("onnxruntime_target")
def test_a_dataflow_program_agrees_with_the_interpreter() -> None:
    target = get_target("onnxruntime")
    assert type(target).__module__ == "relay_onnxruntime.target"
    mod = relay.parse(PROGRAM)
    rng = np.random.default_rng(0)
    x = TensorValue(rng.standard_normal((2, 3)).astype(np.float32))
    w = TensorValue(rng.standard_normal((4, 3)).astype(np.float32))
    pair = TupleValue((TensorValue(np.int32(3)), TensorValue(np.int32(4))))
    assert check_target(target, mod, [x, w, pair]) is None
    exe = target.compile(mod)
    out = exe.run(x, w, pair)
    assert isinstance(out, TupleValue) and len(out.fields) == 13
    # NaN where Relay's selects and ONNX's operators differ (computed by hand from TVM's
    # definitions: a > b ? a : b and so on)
    got = [f.data for f in out.fields[8:] if isinstance(f, TensorValue)]
    assert [bool(out.fields[4].data)] == [False]  # type: ignore[union-attr]
    assert got[0] == 1 and np.isnan(got[1]) and got[2] == 0 and got[3] == 1 and got[4] == 0
    assert b"MatMul" in exe.artifacts()["main"]["onnx"]


@pytest.mark.usefixtures("onnxruntime_target")
def test_what_it_lacks_is_declared_and_located() -> None:
    target = get_target("onnxruntime")
    cases = {
        "def @main(%x: float32) { nn.conv2d(%x, %x) }": "does not support nn.conv2d",
        "def @main(%x: int32) { divide(%x, %x) }": "does not support divide:int32",
        "def @main(%x: float32) { if (True) { %x } else { %x } }": "does not support if",
        "def @main(%x: Tensor[(?), float32]) { negative(%x) }": "does not support dynamic-shape",
    }
    for text, message in cases.items():
        with pytest.raises(BackendError) as err:
            target.compile(relay.parse(text))
        assert message in err.value.message
        assert err.value.span is not None
        assert declared_unsupported(target, err.value)  # so the kit skips such programs


@pytest.mark.usefixtures("onnxruntime_target")
def test_relay_conform_and_the_plugin_on_the_example(
    capsys: pytest.CaptureFixture[str], pytester: pytest.Pytester, tmp_path: Path
) -> None:
    report = tmp_path / "report.md"
    argv = ["conform", "--target", "onnxruntime", "--programs", "2", "--report", str(report)]
    assert main(argv) == 0
    out = capsys.readouterr().out
    summary = out.strip().splitlines()[-2]
    assert summary.startswith("relay conform --target onnxruntime:") and " 0 failed" in summary
    assert "| op:broadcast |" in report.read_text()
    expected = conform(get_target("onnxruntime"), corpus_dir=CORPUS, programs=2)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--relay-target",
                                          "onnxruntime", "--relay-programs", "2")  # fmt: skip
    c = expected.counts()
    result.assert_outcomes(passed=c["pass"], skipped=c["skip"])
    passed = {o.name for o in expected.outcomes if o.status == "pass"}
    assert {"broadcast", "comparison", "concatenate_stack", "softmax", "transpose"} <= passed


@pytest.mark.slow
def test_pip_installed_example_conforms_in_fresh_processes(tmp_path: Path) -> None:
    site = tmp_path / "site"
    command = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site)]
    has_bdist_wheel = importlib.util.find_spec("wheel") is not None
    command += ["--no-build-isolation"] if has_bdist_wheel else []
    subprocess.run([*command, str(PACKAGE)], check=True, timeout=600)
    env = {**os.environ, "PYTHONPATH": str(site)}
    conform_run = subprocess.run(
        [sys.executable, "-m", "relay", "conform", "--target", "onnxruntime", "--programs", "100"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600,
    )  # fmt: skip
    assert conform_run.returncode == 0, conform_run.stdout + conform_run.stderr
    plugin_run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--relay-target",
         "onnxruntime", "--relay-programs", "100"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600,
    )  # fmt: skip
    assert plugin_run.returncode == 0, plugin_run.stdout
    summary = conform_run.stdout.strip().splitlines()[-1]
    print(summary)
    passed = summary.split(" passed")[0].rsplit(" ", 1)[-1]
    assert f"{passed} passed" in plugin_run.stdout.strip().splitlines()[-1]
