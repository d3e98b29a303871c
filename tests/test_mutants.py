"""The mutation self-check of ``relay fuzz``: every deliberately broken pass in
``tests/mutants`` is caught, and the correct built-in passes are not.

Each mutant is fuzzed through the command line (``relay fuzz --pass FILE.py:ATTR``, in
process; the one that loops in a subprocess, so a broken time limit cannot hang the suite)
with a small budget of examples and seconds and a fixed seed, and must exit 1 with one report
file whose verdict is one of the kinds ``tests.mutants.MUTANTS`` lists for it. Seeds are
fixed, so a run is deterministic in the examples it draws (for a given ``--max-examples``).
The time limit bounds the whole run: the seeds find their counterexample in about a second,
and shrinking then uses what is left (``benchmarks/fuzz.py`` measures the time to the first
counterexample as a median over seeds, which is the honest figure).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from mutants import MUTANTS, Mutant  # tests/mutants (pytest puts tests/ on the path)

from relay.cli import main

ROOT = Path(__file__).resolve().parent.parent

SEEDS: dict[str, int] = {
    "dce_ignores_effects": 2,
    "dce_inline_once": 4,
    "float_lets": 11,
    "inline_shared_binders": 0,
    "inline_by_name": 15,
    "remove_uncalled_functions": 0,
    "fast_math": 2,
    "fold_consecutive_casts": 2,
    "fold_scale_through_relu": 2,
    "int_divide_as_floor": 0,
    "float_mod_as_floor": 0,
    "fold_constant_numpy_dtype": 0,
    "cache_in_module": 0,
    "dce_returns_none": 0,
    "canonicalize_forever": 0,
}
"""The seed each mutant of the default run is fuzzed with: the first of 0, 1, 2, ... at which
it is caught within 60 examples and 5 seconds (the median time over seeds is
``benchmarks/fuzz.py``'s figure). The two mutants not listed (merged reference creations,
store-to-load forwarding past an alias) are caught only after hundreds of examples, since
their bug shows only when a generated program observes the effect they move; they run in the
slow test with a large budget."""

MAX_EXAMPLES: dict[str, int] = {"dce_inline_once": 200}
"""Examples per mutant (default 60). Hypothesis sizes what it draws by how far through
``max_examples`` it is, so a seed's sequence of programs depends on this number too."""

TIME = 5.0
"""Per-mutant budget: seconds of fuzzing, shrinking included (the campaign stops at the first
failure once shrunk or when this runs out, reporting the smallest failure found so far)."""


def _spec(m: Mutant) -> str:
    return f"{ROOT / 'tests' / 'mutants' / m.file}:{m.attr}"


def _fuzz_args(spec: str, out: Path, *, seed: int, examples: int, seconds: float) -> list[str]:
    return ["fuzz", "--pass", spec, "--max-examples", str(examples), "--time", str(seconds),
            "--seed", str(seed), "--out", str(out)]  # fmt: skip


def _verdict(out: Path) -> str:
    reports = sorted(out.glob("*.relay"))
    assert len(reports) == 1, f"expected one report in {out}, found {reports}"
    header = reports[0].read_text(encoding="utf-8").splitlines()
    assert header[0] == "// relay fuzz: counterexample"
    line = next(x for x in header if x.startswith("// verdict: "))
    return line[len("// verdict: ") :].split(":", 1)[0]


def test_there_are_enough_mutants() -> None:
    assert len(MUTANTS) >= 14
    assert len(FAST) + len(LOOPING) >= 12
    assert len({m.attr for m in MUTANTS}) == len(MUTANTS)
    for m in MUTANTS:
        assert (ROOT / "tests" / "mutants" / m.file).is_file()


FAST = [m for m in MUTANTS if m.attr in SEEDS and "timeout" not in m.verdicts]
LOOPING = [m for m in MUTANTS if m.attr in SEEDS and "timeout" in m.verdicts]
SLOW = [m for m in MUTANTS if m.attr not in SEEDS]


@pytest.mark.parametrize("mutant", FAST, ids=lambda m: m.attr)
def test_mutant_is_caught(mutant: Mutant, tmp_path: Path) -> None:
    # A fresh process: the programs a seed draws are those of ``relay fuzz`` on the command
    # line, whatever earlier tests in this process did with the generators.
    args = _fuzz_args(
        _spec(mutant),
        tmp_path,
        seed=SEEDS[mutant.attr],
        examples=MAX_EXAMPLES.get(mutant.attr, 60),
        seconds=TIME,
    )
    proc = subprocess.run(
        [sys.executable, "-m", "relay", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 1, f"{mutant.attr} was not caught:\n{proc.stdout}{proc.stderr}"
    assert _verdict(tmp_path) in mutant.verdicts, proc.stdout


@pytest.mark.parametrize("mutant", LOOPING, ids=lambda m: m.attr)
def test_looping_mutant_is_caught(mutant: Mutant, tmp_path: Path) -> None:
    args = _fuzz_args(_spec(mutant), tmp_path, seed=SEEDS.get(mutant.attr, 0), examples=50,
                      seconds=4)  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-m", "relay", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert _verdict(tmp_path) in mutant.verdicts


@pytest.mark.slow
@pytest.mark.parametrize("mutant", SLOW, ids=lambda m: m.attr)
def test_rarely_observable_mutant_is_caught(
    mutant: Mutant, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(_fuzz_args(_spec(mutant), tmp_path, seed=0, examples=5000, seconds=600))
    printed = capsys.readouterr().out
    assert code == 1, f"{mutant.attr} was not caught:\n{printed}"
    assert _verdict(tmp_path) in mutant.verdicts, printed


CORRECT = ["dead-code-elimination", "eliminate-common-subexpr", "fold-constant", "div-to-mul"]


def test_correct_passes_are_not_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["fuzz", "--max-examples", "15", "--time", "60", "--seed", "1", "--out", str(tmp_path)]
    for name in CORRECT:
        args += ["--pass", name]
    code = main(args)
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert not list(tmp_path.glob("*.relay"))


@pytest.mark.slow
def test_correct_passes_large_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every built-in pass and the ``opt-level-3`` pipeline, 300 examples each: no report."""
    code = main(["fuzz", "--max-examples", "300", "--time", "3600", "--seed", "7",
                 "--out", str(tmp_path)])  # fmt: skip
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert not list(tmp_path.glob("*.relay"))
