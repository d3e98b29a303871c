"""ONNX's own backend conformance suite (the node cases) against Relay's interpreter.

Every node case the installed ``onnx`` generates runs through ``relay.frontend.onnx_backend``
(``RelayBackend``: import, run on the interpreter, compare at the case's rtol/atol as
``onnx.backend.test`` does). The outcomes are held against ``tests/onnx_expected_failures.txt``:
a failing case that is not listed, or a listed case that passes, fails the test. The pass rate
among the cases whose ops have a Relay equivalent (all but the ``unsupported`` entries) must
reach the issue's goal of 90%.

The official runner is exercised too: ``onnx.backend.test.BackendTest(RelayBackend)`` builds
its unittest cases, a sample of which run by default; all of them under the ``slow`` marker.
"""

from __future__ import annotations

import unittest
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("onnx")

from relay.frontend.onnx_backend import (
    CATEGORIES,
    Outcome,
    RelayBackend,
    node_cases,
    read_expected_failures,
    run_case,
)

EXPECTED_FILE = Path(__file__).parent / "onnx_expected_failures.txt"
GOAL = 0.90


@pytest.fixture(scope="module")
def cases() -> list[Any]:
    return node_cases()


@pytest.fixture(scope="module")
def outcomes(cases: list[Any]) -> list[Outcome]:
    return [run_case(c) for c in cases]


@pytest.fixture(scope="module")
def expected() -> dict[str, Any]:
    return read_expected_failures(EXPECTED_FILE.read_text(), str(EXPECTED_FILE))


@pytest.mark.slow
def test_there_are_node_cases(cases: list[Any]) -> None:
    assert len(cases) > 1000  # onnx 1.23 generates 1,884


@pytest.mark.slow
def test_outcomes_match_the_expected_failures(
    outcomes: list[Outcome], expected: dict[str, Any]
) -> None:
    unexpected = [o for o in outcomes if o.status != "pass" and o.name not in expected]
    fixed = [o.name for o in outcomes if o.status == "pass" and o.name in expected]
    lines = [f"unexpected failure {o.name}: {o.status}: {o.message}" for o in unexpected]
    lines += [f"unexpected pass {name} (remove it from {EXPECTED_FILE.name})" for name in fixed]
    assert not lines, "\n".join(lines)


@pytest.mark.slow
def test_every_listed_case_exists(cases: list[Any], expected: dict[str, Any]) -> None:
    names = {c.name for c in cases}
    assert sorted(set(expected) - names) == []


@pytest.mark.slow
def test_pass_rate_goal(outcomes: list[Outcome], expected: dict[str, Any]) -> None:
    unsupported = {n for n, e in expected.items() if e.category == "unsupported"}
    counted = [o for o in outcomes if o.name not in unsupported]
    passed = sum(o.status == "pass" for o in counted)
    assert passed / len(counted) >= GOAL, f"{passed} of {len(counted)} pass"


@pytest.mark.slow
def test_unsupported_entries_fail_as_unsupported(
    outcomes: list[Outcome], expected: dict[str, Any]
) -> None:
    """A case listed as having no Relay equivalent is refused at import with a message, never
    a wrong answer or a crash."""
    wrong = [
        f"{o.name}: {o.status}: {o.message}"
        for o in outcomes
        if o.name in expected and expected[o.name].category == "unsupported"
        if o.status != "unsupported"
    ]
    assert not wrong, "\n".join(wrong)


@pytest.mark.slow
def test_no_case_crashes_the_importer(outcomes: list[Outcome]) -> None:
    crashed = [f"{o.name}: {o.message}" for o in outcomes if "crashed" in o.message]
    assert not crashed, "\n".join(crashed)


def test_expected_failure_format() -> None:
    text = "# comment\n\ntest_a: wrong: a reason: with a colon\n"
    parsed = read_expected_failures(text)
    assert parsed["test_a"].category == "wrong"
    assert parsed["test_a"].reason == "a reason: with a colon"
    assert set(CATEGORIES) == {"unsupported", "missing", "wrong"}
    with pytest.raises(ValueError, match="<expected failures>:1"):
        read_expected_failures("test_a: maybe: why\n")
    with pytest.raises(ValueError, match="listed twice"):
        read_expected_failures("test_a: wrong: x\ntest_a: wrong: y\n")


def _backend_test_suite(pattern: str | None) -> unittest.TestSuite:
    import onnx.backend.test

    backend_test = onnx.backend.test.BackendTest(RelayBackend, __name__)
    if pattern is not None:
        backend_test.include(pattern)
    expected = read_expected_failures(EXPECTED_FILE.read_text(), str(EXPECTED_FILE))
    for name in expected:
        backend_test.exclude(f"^{name}_cpu$")
    suite = unittest.TestSuite()
    for kind, case in backend_test.test_cases.items():
        if kind == "OnnxBackendNodeModelTest":  # the node cases; not the other data kinds
            suite.addTests(unittest.defaultTestLoader.loadTestsFromTestCase(case))
    return suite


def test_official_backend_runner_sample() -> None:
    """``onnx.backend.test.BackendTest`` itself drives ``RelayBackend`` (a sample of ops)."""
    suite = _backend_test_suite(r"^test_(abs|conv_with_strides_padding|gemm_default_.*|relu)_cpu$")
    result = unittest.TextTestRunner(verbosity=0).run(suite)
    assert result.testsRun >= 4
    assert result.wasSuccessful(), [str(e) for e in result.failures + result.errors]


@pytest.mark.slow
def test_official_backend_runner_all_node_cases() -> None:
    """Every node case through ``BackendTest``, the expected failures excluded."""
    suite = _backend_test_suite(r"^test_.*_cpu$")
    result = unittest.TextTestRunner(verbosity=0).run(suite)
    # Skipped: the listed cases and every case's CUDA variant (RelayBackend is CPU only).
    ran = result.testsRun - len(result.skipped)
    assert ran > 1300, ran
    assert result.wasSuccessful(), [str(e)[:300] for e in result.failures + result.errors][:20]


def _targets_have_get_target() -> bool:
    import relay.targets

    return hasattr(relay.targets, "get_target")


@pytest.mark.skipif(
    not _targets_have_get_target(),
    reason="relay.targets has no get_target on this branch (it comes with the CPU target)",
)
def test_cpu_engine_runs_a_model_on_the_cpu_target() -> None:
    """``engine="cpu"``: the model compiled once by the CPU target, its outputs numpy's."""
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper

    from relay.oracles.compare import compare_arrays

    scale = np.array([[0.5, -2.0, 3.0]], np.float32)
    graph = helper.make_graph(
        [
            helper.make_node("Mul", ["x", "scale"], ["scaled"]),
            helper.make_node("Add", ["scaled", "x"], ["summed"]),
            helper.make_node("Relu", ["summed"], ["y"]),
        ],
        "cpu_engine",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
        [numpy_helper.from_array(scale, "scale")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    rep = RelayBackend.prepare(model, engine="cpu")
    x = np.array([[1.0, 2.0, -3.0], [-4.0, 0.25, 6.0]], np.float32)
    for _ in range(2):
        (y,) = rep.run([x])
        assert compare_arrays(np.maximum(x * scale + x, 0), y) is None
    assert len(rep.executables) == 1  # compiled once
