"""The CPU target's real path end to end: FuseOps, ``lower_primitive``, LLVM, the host
runtime; whole programs against the interpreter, ``relay compile``'s artifacts, and no
generated program reaching a kernel LLVM rejects."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import relay
from relay.cli import main
from relay.oracles.compare import compare_values
from relay.oracles.conformance import run_case
from relay.oracles.corpus import corpus, load_case
from relay.oracles.engines import target_engine
from relay.oracles.target_oracle import check_target_outcome, declared_unsupported, generated_cases
from relay.semantics.errors import BackendError
from relay.semantics.values import TensorValue
from relay.targets.cpu import CpuTarget, LlvmPrimitive

CORPUS = Path(__file__).parent / "conformance"

CHAIN = """
def @main(%x: Tensor[(4, 8), float32], %y: Tensor[(8), float32]) {
  %0 = add(%x, %y);
  %1 = exp(%0);
  %2 = multiply(%1, 2f);
  (sum(%2, axis=[1]), tanh(%2))
}
"""


def f32(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def test_dataflow_program_runs_compiled_kernels() -> None:
    mod = relay.parse(CHAIN)
    exe = CpuTarget().compile(mod)
    assert all(isinstance(k.compiled, LlvmPrimitive) for k in exe.kernels.values())
    assert "main" in exe.plans
    x, y = f32(4, 8), f32(8, seed=1)
    got = exe.run(TensorValue(x), TensorValue(y))
    assert compare_values(relay.evaluate(mod, x, y), got, reduction_length=8) is None
    for artifacts in exe.artifacts().values():
        assert {"loop-ir", "llvm", "asm", "obj"} <= set(artifacts)


def test_any_dimensions_on_the_real_path() -> None:
    text = "def @main(%x: Tensor[(?, 3), int32]) { sum(multiply(%x, %x), axis=[0]) }"
    mod = relay.parse(text)
    built = relay.build(mod, target="cpu")
    for rows in (1, 4, 7):
        x = np.arange(rows * 3, dtype=np.int32).reshape(rows, 3)
        got = built.run(x)
        assert isinstance(got, TensorValue)
        assert np.array_equal(got.data, (x * x).sum(axis=0).astype(np.int32))


def test_control_flow_and_recursion_with_compiled_kernels() -> None:
    text = """
def @pow(%x: Tensor[(3), float32], %n: int32) -> Tensor[(3), float32] {
  if (equal(%n, 0)) { ones_like(%x) } else { multiply(%x, @pow(%x, subtract(%n, 1))) }
}
def @main(%x: Tensor[(3), float32]) { @pow(%x, 5) }
"""
    mod = relay.parse(text)
    x = np.array([1.5, -2, 0.5], np.float32)
    got = relay.build(mod).run(x)
    assert isinstance(got, TensorValue)
    assert np.allclose(got.data, x**5)


@pytest.mark.slow
def test_conformance_corpus_on_the_cpu_target() -> None:
    target = CpuTarget()
    engine = target_engine(target)
    failed, ran = [], 0
    for path in corpus(CORPUS):
        case = load_case(path)
        if getattr(case.expect, "kind", "") == "UndefinedBehavior":
            continue  # any behaviour refines it (a trap included): not run on a target
        outcome = run_case(case, engine)
        if isinstance(outcome.error, BackendError) and declared_unsupported(target, outcome.error):
            continue
        ran += 1
        if not outcome.ok:
            failed.append(f"{path.name}: {outcome.message}")
    assert failed == []
    assert ran >= 30


@pytest.mark.slow
def test_no_generated_program_reaches_a_rejected_kernel() -> None:
    target = CpuTarget()
    verdicts = []
    for case in generated_cases(24, seed=7):
        _, verdict = check_target_outcome(target, case.mod, case.args)
        if verdict is not None:
            verdicts.append(verdict.report())
    assert verdicts == []


@pytest.mark.parametrize("emit", ["llvm", "asm", "obj", "loop-ir"])
def test_compile_writes_each_kind_of_artifact(
    emit: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "chain.relay"
    src.write_text(CHAIN)
    out = tmp_path / "out"
    assert main(["compile", str(src), "--target", "cpu", "--emit", emit, "-o", str(out)]) == 0
    index = json.loads((out / "index.json").read_text())
    assert len(index["kernels"]) == 3
    for kernel in index["kernels"]:
        data = (out / kernel["file"]).read_bytes()
        if emit == "obj":
            assert data.startswith(b"\x7fELF")
        elif emit == "llvm":
            assert b"define" in data
        else:
            assert data.strip()
    assert "3 kernels" in capsys.readouterr().out


def test_run_on_the_cpu_target_prints_the_interpreters_value(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "p.relay"
    src.write_text("def @main(%x: int32) { multiply(add(%x, 3), %x) }")
    assert main(["run", str(src), "--target", "cpu", "--threads", "2", "4"]) == 0
    assert capsys.readouterr().out.strip() == "28"


def test_host_operators_run_on_the_host() -> None:
    text = """
def @main(%x: Tensor[(2, 3), float32], %s: Tensor[(2), int64]) {
  (exp(vm.reshape_tensor(tanh(%x), %s, newshape=[3, 2])), shape_of(%x, dtype="int32"))
}
"""
    mod = relay.parse(text)
    exe = CpuTarget().compile(mod)
    x, shape = f32(2, 3), np.array([3, 2], np.int64)
    got = exe.run(TensorValue(x), TensorValue(shape))
    assert compare_values(relay.evaluate(mod, x, shape), got) is None
    assert not any("reshape_tensor" in name for name in exe.kernels)  # the host does it
    assert any("shape_of" in name for name in exe.kernels)  # lowered natively: a kernel
    with pytest.raises(relay.RelayRuntimeError, match="the shape argument holds"):
        exe.run(TensorValue(x), TensorValue(np.array([6, 1], np.int64)))


@pytest.mark.parametrize(
    "body",
    [
        # Found by relay fuzz --target cpu: FuseOps fused two host calls into one kernel.
        'ndarray_size(ndarray_size(%x, dtype="int32"), dtype="int32")',
        'add(ndarray_size(exp(%x), dtype="int64"), 1i64)',
        'add(ndarray_size(1f, dtype="int32"), ndarray_size(%x, dtype="int32"))',  # also found
        'multiply(cast(shape_of(tanh(%x), dtype="int32"), dtype="float32"), %x)',
    ],
)
def test_host_operators_fused_with_others_still_run_on_the_host(body: str) -> None:
    mod = relay.parse(f"def @main(%x: Tensor[(3), float32]) {{ {body} }}")
    x = f32(3)
    got = relay.build(mod).run(x)
    assert compare_values(relay.evaluate(mod, x), got) is None


def test_a_value_dependent_output_shape_comes_from_the_shape_function() -> None:
    # Found by relay fuzz --target cpu: arange's length is known only from its arguments.
    text = """
def @main(%a: float32, %b: float32) {
  (arange(%a, %b, 1.5f, dtype="float32"), arange(%a, %b, 0.5f, dtype="float32"))
}
"""
    mod = relay.parse(text)
    built = relay.build(mod)
    for stop in (4.0, 10.0):
        args = (np.float32(1), np.float32(stop))
        assert compare_values(relay.evaluate(mod, *args), built.run(*args)) is None
