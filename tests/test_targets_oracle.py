"""The target oracle (``relay.oracles.target_oracle``) catches a broken target: on the CPU
runtime with stand-in backends whose kernels are wrong or rejected, the check fails, names the
kernel, and the command line reports a rejected kernel as an internal error with its IR saved."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from test_cpu_runtime import InterpretedBackend, InterpretedKernel

import relay
from relay.cli import main
from relay.oracles.target_oracle import check_target, fuzz_target, tags
from relay.semantics.syntax import Function
from relay.semantics.values import TensorValue
from relay.targets import base
from relay.targets.base import KernelRejected
from relay.targets.cpu import CpuTarget
from relay.targets.cpu.runtime import CompiledPrimitive, _op_names

Array = npt.NDArray[np.generic]


class OffByOne(InterpretedKernel):
    """Correct except that it adds 1 to its first output (negates a bool one)."""

    def __call__(self, inputs: Sequence[Array], outputs: Sequence[Array]) -> None:
        super().__call__(inputs, outputs)
        out = outputs[0]
        if out.dtype == np.bool_:
            np.logical_not(out, out=out)
        else:
            np.add(out, 1, out=out, casting="unsafe")


class BrokenBackend(InterpretedBackend):
    """Kernels using ``broken`` are off by one (every kernel for ``"*"``); kernels using
    ``reject`` are rejected."""

    def __init__(self, broken: str = "", reject: str = "") -> None:
        super().__init__()
        self.broken, self.reject = broken, reject

    def compile_primitive(self, fn: Function, name: str) -> CompiledPrimitive:
        ops = _op_names(fn)
        if self.reject in ops:
            raise KernelRejected("cpu", name, "invalid IR (test)", f"; IR of {name}\n")
        if self.broken in ops or self.broken == "*":
            return OffByOne(fn, name, self.calls)
        return super().compile_primitive(fn, name)


PROGRAM = """
def @main(%x: Tensor[(2, 3), float32]) {
  %0 = nn.relu(%x);
  %1 = sum(%0, axis=[1]);
  multiply(%1, 2f)
}
"""


def test_a_correct_target_passes() -> None:
    x = TensorValue(np.arange(6, dtype=np.float32).reshape(2, 3))
    assert check_target(CpuTarget(backend=InterpretedBackend()), relay.parse(PROGRAM), [x]) is None


def test_a_wrong_kernel_is_a_mismatch_naming_it() -> None:
    x = TensorValue(np.arange(6, dtype=np.float32).reshape(2, 3))
    target = CpuTarget(backend=BrokenBackend(broken="multiply"))
    verdict = check_target(target, relay.parse(PROGRAM), [x])
    assert verdict is not None and verdict.kind == "mismatch"
    assert verdict.kernel == "fused_multiply"
    report = verdict.report()
    assert "failing kernel: fused_multiply" in report
    assert "loop IR:\n  kernel fused_multiply" in report


def test_undefined_behaviour_is_skipped_not_failed() -> None:
    text = "def @main(%x: int32) { divide(%x, 0) }"
    target = CpuTarget(backend=BrokenBackend(broken="divide"))
    assert check_target(target, relay.parse(text), [TensorValue(np.array(3, np.int32))]) is None


def test_a_rejected_kernel_is_reported(tmp_path: Path) -> None:
    target = CpuTarget(backend=BrokenBackend(reject="nn.relu"))
    verdict = check_target(target, relay.parse(PROGRAM), [TensorValue(np.ones((2, 3), "f4"))])
    assert verdict is not None and verdict.kind == "rejected"
    assert verdict.kernel == "fused_nn_relu_sum" and "IR of fused_nn_relu_sum" in verdict.llvm_ir


def test_cli_saves_a_rejected_kernels_ir_and_exits_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(base._INSTANCES, "rejecting", CpuTarget(backend=BrokenBackend(
        reject="nn.relu")))  # fmt: skip
    monkeypatch.chdir(tmp_path)
    (tmp_path / "p.relay").write_text(PROGRAM)
    np.save(tmp_path / "x.npy", np.ones((2, 3), np.float32))
    assert main(["run", "p.relay", "--target", "rejecting", "x.npy"]) == 3
    err = capsys.readouterr().err
    assert "internal error: target cpu rejected kernel fused_nn_relu_sum" in err
    saved = tmp_path / "relay-rejected" / "fused_nn_relu_sum.ll"
    assert (
        str(saved.relative_to(tmp_path)) in err
        and saved.read_text() == "; IR of fused_nn_relu_sum\n"
    )


def test_fuzzing_finds_and_shrinks_a_broken_kernel(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    target = CpuTarget(backend=BrokenBackend(broken="*"))
    result = fuzz_target(
        target,
        max_examples=150,
        time_budget=12,
        seed=1,
        out_dir=tmp_path,
        isolate=False,
        fuel=5_000,  # the stand-in backend interprets every kernel: keep programs short
    )
    assert result.verdict is not None and result.path is not None
    text = Path(result.path).read_text()
    assert text.startswith("// relay fuzz --target cpu: counterexample")
    assert "// failing kernel: fused_" in text and "// loop IR:" in text
    assert f"// reproduce: relay fuzz --target cpu --replay {result.path}" in text
    relay.parse(text)  # the report is a valid program
    # Replayed from the command line: the broken target fails it, a correct one passes it.
    monkeypatch.setitem(base._INSTANCES, "broken", target)
    monkeypatch.setitem(base._INSTANCES, "good", CpuTarget(backend=InterpretedBackend()))
    assert main(["fuzz", "--target", "broken", "--replay", result.path]) == 1
    assert "verdict: mismatch" in capsys.readouterr().out
    assert main(["fuzz", "--target", "good", "--replay", result.path]) == 0
    assert main(["fuzz", "--target", "good", "--pass", "fold-constant"]) == 2


def test_a_campaign_stuck_in_hypothesis_shrinking_stops_at_the_deadline(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hypothesis's shrinker can go on without running the test, which alone sees the
    deadline: the campaign is stopped at its deadline all the same, with its failure."""
    from hypothesis.internal.conjecture import shrinker

    def stuck(self: object) -> None:
        end = time.monotonic() + 60
        while time.monotonic() < end:
            sum(range(1000))

    monkeypatch.setattr(shrinker.Shrinker, "shrink", stuck)
    start = time.monotonic()
    result = fuzz_target(
        CpuTarget(backend=BrokenBackend(broken="*")), max_examples=None, time_budget=12,
        seed=1, out_dir=tmp_path, isolate=False, fuel=5_000,
    )  # fmt: skip
    assert time.monotonic() - start < 25
    assert result.verdict is not None and result.path is not None


def test_tags_name_constructs_and_families() -> None:
    text = """
type Box { B(float32) }
def @main(%x: float32) {
  let %r = ref(%x);
  match (B(exp(ref_read(%r)))) { B(%y) => if (less(%y, 0f)) { (%y,).0 } else { %y } }
}
"""
    assert tags(relay.parse(text)) == [
        "if", "match", "references", "adts", "tuples", "op:broadcast", "op:elementwise"
    ]  # fmt: skip


class Segfault(InterpretedKernel):
    """Kills its process as a wild store in compiled code would."""

    def __call__(self, inputs: Sequence[Array], outputs: Sequence[Array]) -> None:
        import os
        import signal

        os.kill(os.getpid(), signal.SIGSEGV)


class CrashingBackend(InterpretedBackend):
    def compile_primitive(self, fn: Function, name: str) -> CompiledPrimitive:
        if "multiply" in _op_names(fn):
            return Segfault(fn, name, self.calls)
        return super().compile_primitive(fn, name)


def test_a_kernel_that_kills_its_process_is_a_crash_verdict() -> None:
    from relay.oracles.target_oracle import check_target_outcome

    x = TensorValue(np.arange(6, dtype=np.float32).reshape(2, 3))
    target = CpuTarget(backend=CrashingBackend())
    _, verdict = check_target_outcome(target, relay.parse(PROGRAM), [x], isolate=True)
    assert verdict is not None and verdict.kind == "crash"
    assert "died of SIGSEGV" in verdict.message
