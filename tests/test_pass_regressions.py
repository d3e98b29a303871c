"""Counterexamples ``relay fuzz`` found in the built-in passes, kept as regression tests: each
file is a fuzz report (the pass in its header, the arguments as ``ARG-JSON`` lines), and the
pass must now pass every check on it."""

from __future__ import annotations

from pathlib import Path

import pytest

from relay.oracles.fuzz import load_pass, replay

CASES = sorted((Path(__file__).parent / "pass_regressions").glob("*.relay"))


def pass_of(path: Path) -> str:
    for line in path.read_text().splitlines():
        if line.startswith("// pass: "):
            return line.removeprefix("// pass: ").strip()
    raise AssertionError(f"{path} names no pass")


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_the_pass_now_passes_the_checks(path: Path) -> None:
    _, verdict = replay(load_pass(pass_of(path)), path)
    assert verdict is None, verdict.report()
