"""The Target interface and registry: built-in targets by name, third-party targets through
the ``relay.targets`` entry-point group (a tiny package installed from ``tests/``), and the
compile error for an unsupported operator or feature."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

import relay
from relay.semantics.errors import BackendError
from relay.semantics.values import TensorValue
from relay.targets import CpuTarget, Executable, Target, TargetLoadError, get_target, target_names
from relay.targets.base import ENTRY_POINT_GROUP, FEATURES, first_unsupported

TESTS = Path(__file__).parent


@pytest.fixture
def example_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``tests/example_target`` installed as a distribution with a ``relay.targets`` entry
    point: its ``dist-info`` in a temporary directory on ``sys.path``, the package beside."""
    dist = tmp_path / "example_target-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: example-target\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\nexample = example_target:ExampleTarget\n"
        "broken = example_target_missing:Nothing\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.syspath_prepend(str(TESTS))
    yield
    sys.modules.pop("example_target", None)
    from relay.targets import base

    base._INSTANCES.pop("example", None)


def test_cpu_is_built_in() -> None:
    assert "cpu" in target_names()
    target = get_target("cpu")
    assert isinstance(target, CpuTarget)
    assert target.name == "cpu"
    assert get_target("cpu") is target


def test_unknown_target_names_the_known_ones() -> None:
    with pytest.raises(TargetLoadError, match=r"unknown target 'nope'.*cpu"):
        get_target("nope")


def test_third_party_target_found_through_entry_points(example_installed: None) -> None:
    assert "example" in target_names()
    target = get_target("example")
    assert type(target).__name__ == "ExampleTarget"
    assert isinstance(target, Target)
    mod = relay.parse("def @main(%x: float32) { multiply(add(%x, 1f), %x) }")
    exe = target.compile(mod)
    assert isinstance(exe, Executable)
    out = exe.run(TensorValue(np.array(3, np.float32)))
    assert isinstance(out, TensorValue) and out.data == np.float32(12)


def test_broken_entry_point_is_a_clear_error(example_installed: None) -> None:
    with pytest.raises(TargetLoadError, match=r"target 'broken' .* does not load"):
        get_target("broken")


def test_unsupported_operator_is_a_located_compile_error(example_installed: None) -> None:
    text = "def @main(%x: float32) {\n  add(%x, exp(%x))\n}"
    mod = relay.parse(text, "prog.relay")
    with pytest.raises(BackendError) as info:
        get_target("example").compile(mod)
    err = info.value
    assert err.message.startswith("target example does not support exp")
    assert err.span is not None and (err.span.line, err.span.column) == (2, 11)
    assert err.render().startswith("prog.relay:2:11: error: target example does not support exp")


def test_unsupported_feature_is_a_compile_error(example_installed: None) -> None:
    mod = relay.parse("def @main(%x: float32) { let %r = ref(%x); ref_read(%r) }")
    with pytest.raises(BackendError, match="target example does not support references"):
        get_target("example").compile(mod)


def test_first_unsupported_finds_nothing_in_a_supported_program(example_installed: None) -> None:
    mod = relay.parse("def @main(%x: float32) { if (True) { negative(%x) } else { %x } }")
    assert first_unsupported(get_target("example"), mod) is None
    assert "if" in FEATURES and "references" in FEATURES


def test_cpu_supports_placements_and_reports_unknown_ops() -> None:
    target = CpuTarget()
    assert target.supports("on_device") is None
    reason = target.supports("no.such.op")
    assert reason is not None and "no.such.op" in reason
