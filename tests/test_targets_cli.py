"""The target commands of the command line (``relay run --target``, ``relay compile``,
``relay conform``, ``relay fuzz --target``) and ``relay.build``, on the example third-party
target (``tests/example_target``), so that they need no code generator."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_targets import example_installed  # noqa: F401  (the fixture)

import relay
from relay.cli import main

PROGRAM = "def @main(%x: float32) {\n  multiply(add(%x, 1f), %x)\n}\n"
USES_EXP = "def @main(%x: float32) {\n  add(%x, exp(%x))\n}\n"


def write(tmp_path: Path, text: str, name: str = "prog.relay") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.usefixtures("example_installed")
def test_run_on_a_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", write(tmp_path, PROGRAM), "--target", "example", "2f"]) == 0
    assert capsys.readouterr().out.strip() == "6f"


@pytest.mark.usefixtures("example_installed")
def test_unsupported_op_is_exit_1_at_its_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, USES_EXP)
    assert main(["run", path, "--target", "example", "2f"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{path}:2:11: error: target example does not support exp")


def test_unknown_target_is_bad_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", write(tmp_path, PROGRAM), "--target", "nope", "2f"]) == 2
    assert "unknown target 'nope'" in capsys.readouterr().err


@pytest.mark.usefixtures("example_installed")
def test_wrong_argument_is_the_interpreters_usage_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, PROGRAM)
    assert main(["run", path, "2"]) == 2
    plain = capsys.readouterr().err
    assert main(["run", path, "--target", "example", "2"]) == 2
    assert capsys.readouterr().err == plain
    assert "does not fit parameter %x" in plain


@pytest.mark.usefixtures("example_installed")
def test_build_checks_arguments_like_evaluate() -> None:
    mod = relay.parse(PROGRAM)
    built = relay.build(mod, target="example")
    out = built.run(np.float32(2))
    assert isinstance(out, relay.TensorValue) and out.data == np.float32(6)
    with pytest.raises(relay.ArgumentError) as from_build:
        built.run(np.int32(2))
    with pytest.raises(relay.ArgumentError) as from_evaluate:
        relay.evaluate(mod, np.int32(2))
    assert str(from_build.value) == str(from_evaluate.value)
    with pytest.raises(LookupError, match="unknown target"):
        relay.build(mod, target="nope")


@pytest.mark.usefixtures("example_installed")
def test_compile_writes_one_file_per_kernel_and_an_index(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    argv = ["compile", write(tmp_path, PROGRAM), "--target", "example", "--emit", "loop-ir"]
    assert main([*argv, "-o", str(out)]) == 0
    index = json.loads((out / "index.json").read_text())
    assert index["target"] == "example" and index["emit"] == "loop-ir"
    assert [k["name"] for k in index["kernels"]] == ["module"]
    assert "multiply" in (out / index["kernels"][0]["file"]).read_text()
    assert main([*argv[:-1], "llvm", "-o", str(out)]) == 2
    assert "no llvm artifact" in capsys.readouterr().err


@pytest.mark.usefixtures("example_installed")
def test_conform_passes_skips_and_reports_unexpected_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["conform", "--target", "example", "--programs", "2"]) == 0
    out = capsys.readouterr().out
    summary = out.strip().splitlines()[-1]
    assert "0 failed" in summary and "skipped (unsupported, or undefined behaviour)" in summary
    table = {line.split()[0]: line.split()[1:] for line in out.splitlines()[1:-1]}
    assert int(table["closures"][0]) > 0  # passes among the closure cases
    assert int(table["references"][4]) > 0  # skips: the example target has no store
    xfail = tmp_path / "xfail.txt"
    xfail.write_text("# expected failures\nclosures   thought to fail\n")
    argv = ["conform", "--target", "example", "--programs", "0"]
    assert main([*argv, "--expected-failures", str(xfail)]) == 1
    assert "XPASS: closures: listed as an expected failure (thought to fail)" in (
        capsys.readouterr().out
    )


@pytest.mark.usefixtures("example_installed")
def test_fuzz_a_target(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["fuzz", "--target", "example", "--max-examples", "5", "--time", "30"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "relay fuzz --target example: 5 programs" in out
    assert "checked programs use:" in out or "5 skipped" in out


@pytest.mark.usefixtures("example_installed")
def test_fuzz_a_target_bounded_by_time_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Regression: without --max-examples (its default is "no bound") the campaign crashed
    # with an internal error instead of running until --time was up.
    argv = ["fuzz", "--target", "example", "--time", "3", "--out", str(tmp_path)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "relay fuzz --target example:" in captured.out
    assert "internal error" not in captured.err and "@seed(" not in captured.out
