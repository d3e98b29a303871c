"""The examples of automatic differentiation (``examples/{rnn,treelstm,mlp_train}.relay``): each
runs with ``relay run``, its gradient passes the AD oracle, and ``relay grad`` differentiates
it and runs a training step; plus ``relay fuzz --check gradient``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from relay.cli import main
from relay.compiler.passes.gradient import Gradient
from relay.oracles.ad_oracle import check_gradient
from relay.semantics.syntax import FuncType, TensorType
from relay.semantics.text.parser import parse
from relay.semantics.typing import infer_types
from relay.semantics.values import TensorValue

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NAMES = ["rnn", "treelstm", "mlp_train"]


def load(name: str) -> str:
    return (EXAMPLES / f"{name}.relay").read_text()


@pytest.mark.parametrize("name", NAMES)
def test_example_runs(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", str(EXAMPLES / f"{name}.relay"), "--entry", "demo"]) == 0
    out = capsys.readouterr().out.strip()
    assert out.endswith("f") and np.isfinite(float(out[:-1]))


@pytest.mark.parametrize("name", NAMES)
def test_example_gradient_passes_the_ad_oracle(name: str) -> None:
    mod = parse(load(name), f"{name}.relay")
    t = infer_types(mod).globals["main"]
    assert isinstance(t, FuncType)
    rng = np.random.default_rng(7)
    args = []
    for p in t.arg_types:
        assert isinstance(p, TensorType)
        shape = tuple(int(d) for d in p.shape)  # type: ignore[call-overload]
        args.append(TensorValue(rng.uniform(-1, 1, shape).astype(p.dtype)))
    verdict, outcome = check_gradient(Gradient(), mod, args)
    assert verdict is None, verdict.report()
    assert outcome.compared >= 4


def test_relay_grad_prints_a_module_that_reads_back(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["grad", str(EXAMPLES / "treelstm.relay")]) == 0
    text = capsys.readouterr().out
    mod = parse(text)
    assert "tree_lstm_grad" in mod and "Tree_grad" in text
    infer_types(mod)


def test_relay_grad_runs_a_training_step(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(EXAMPLES / "mlp_train.relay")
    assert main(["grad", path, "--args-from", "demo_args", "--update", "sgd"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("value: ") and lines[1].startswith("@sgd: (")


def test_relay_grad_reports_an_operator_without_a_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "pool.relay"
    path.write_text('#[version = "0.0.5"]\ndef @main(%x: Tensor[(1, 1, 4, 4), float32]) {\n'
                    "  nn.max_pool2d(%x, pool_size=[2, 2])\n}\n")  # fmt: skip
    assert main(["grad", str(path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:3:3: error: Gradient: no gradient rule for operator "
                          "nn.max_pool2d")  # fmt: skip
    assert "nn.max_pool2d(%x" in err


def test_fuzz_check_gradient_runs_and_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["fuzz", "--pass", "gradient", "--max-examples", "3", "--seed", "1",
                 "--out", str(tmp_path)])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0, out
    assert "gradient  3 examples" in out and "directions compared" in out
    assert not list(tmp_path.glob("*.relay"))
