"""The mutation self-check of ``relay fuzz``: every deliberately broken pass in
``tests/mutants`` is caught, and the correct passes are not.

Three layers, from the deterministic to the statistical:

1. **Witnesses** (every mutant, default run). ``tests/mutants/witnesses/ATTR.relay`` is a
   hand-written report file (a small program and its arguments, in the format ``relay fuzz``
   writes) on which the mutant is wrong. ``relay fuzz --pass SPEC --replay FILE`` must exit 1
   with one of the verdict kinds ``tests.mutants.MUTANTS`` lists: this shows that each mutant
   really is broken and that the oracle's checks see it, whatever the generator does. Every
   correct pass of ``tests/mutants/correct.py`` must pass every witness and its own exercise
   (``tests/mutants/exercises/NAME.relay``, the corner cases of its rewrite), which it must
   change (a pass that changes nothing cannot raise a false alarm).
2. **Campaigns** (a few mutants by default, every mutant under ``slow``). ``relay fuzz`` on
   the mutant with one seed for all (0) and a time budget, no per-mutant tuning: it must exit
   1 with one report whose verdict is listed, and the report must replay with ``--replay`` to
   the same verdict kind; in the slow run, with a minute per mutant, its program must also be
   small (``MAX_PROGRAM_LINES``). What today's fuzzer does not achieve is listed and expected
   to fail, not strictly (the lists are for the integrator to empty as the generator, the
   shrinker and the printer improve): ``MISSED_TODAY`` (not caught at seed 0),
   ``LARGE_REPORT_TODAY`` (shrunk report too long), ``REPLAY_BROKEN_TODAY`` (report does not
   reproduce).
3. **No false alarms**: the correct passes and some built-in passes fuzzed briefly (default)
   and every built-in pass at length (``slow``) give no report.
"""

from __future__ import annotations

import functools
import subprocess
import sys
from pathlib import Path

import pytest
from mutants import MUTANTS, Mutant  # tests/mutants (pytest puts tests/ on the path)
from mutants.correct import CORRECT

from relay.cli import main
from relay.oracles.fuzz import (
    EXAMPLE_TIMEOUT,
    REDUCTION_LENGTH,
    builtin_names,
    load_pass,
    read_case,
)
from relay.oracles.pass_oracle import check_pass
from relay.semantics.text.printer import astext

ROOT = Path(__file__).resolve().parent.parent
WITNESSES = ROOT / "tests" / "mutants" / "witnesses"
EXERCISES = ROOT / "tests" / "mutants" / "exercises"

MAX_PROGRAM_LINES = 10
"""A report's program (without its header comment and version line) is at most this long."""

FAST = (
    "int_divide_as_floor",
    "fold_constant_numpy_dtype",
    "inline_shared_binders",
    "fold_consecutive_casts",
)
"""The mutants fuzzed in the default run: a few bug classes (integer division, constant
folding, inlining, casts) among those today's generator reaches within 100 examples at seed 0
(4.9 to 6.0 s each with shrinking and replay, measured under load; the looping and caching
mutants, 15 to 17 s each, run under ``slow``). Every mutant runs under ``slow``; every
witness runs by default. The size of a shrunk report is checked in the slow run only: how far
shrinking gets depends on the time left after the first failure, which a loaded machine takes
away."""

CAMPAIGN_EXAMPLES = 200
"""The default run's bound per mutant: generated examples, not seconds. A time budget makes
the test depend on the machine's speed (in CI, a 10 s budget left footprint learning about a
second after the motif corpus was built: it stopped before the motifs that change and the
steered stream differed from the one measured), an example bound does not: seed 0 draws the
same examples everywhere."""

CAMPAIGN_SECONDS = 60.0
"""The default run's time budget per mutant, far above what it needs: learning gets its full
share (``LEARN_MAX``), and a mutant is caught and shrunk in a few seconds."""

SLOW_CAMPAIGN_SECONDS = 60.0
"""The slow run's budget per mutant: the issue's "caught within 60 s"."""

MISSED_TODAY: frozenset[str] = frozenset()
"""Mutants not caught at seed 0: none (measured with ``python benchmarks/fuzz.py --seeds 1
--time 20 --no-passes``, under load). Before: 48 of 52 caught, median time to the first
failure 2.3 s (48 to 50 of 52, 0.5 to 2.8 s, in earlier runs); ``widen_before_cast``,
``fold_scale_into_dense_wrong_axis``, ``concat_of_split`` and ``fold_cast_rounding`` missed
in 20 s. They left the list with the ``narrow`` motifs (narrow integer arithmetic under and
over casts, float constants between integers cast to integers), the ``axis-constant`` ones
(a non-uniform per-axis constant) and the ``tuple-pair`` ones (a tuple of two fields or more
passed whole): each is caught by a motif at the first example, in 0.8 to 1.1 s (after: 51
of 52, median 1.8 s, ``dce_ignores_effects`` missed once as the first mutant of the run,
which pays the corpus build, and caught at 13.9 s alone; ``--seeds 5 --time 20``: 50 of 52
on every seed, median 1.2 s, ``remove_uncalled_functions`` and ``dce_misses_closure_uses``
found by the generated stream on 4 of 5 seeds). A mutant that reappears here is an expected
failure of its campaign tests, not a strict one: the list is for the integrator to empty as
the generator learns to reach it."""

LARGE_REPORT_TODAY: frozenset[str] = frozenset()
"""Mutants whose report is longer than ``MAX_PROGRAM_LINES``; expected failures of the size
check: none. Measured with the reducer (``oracles/reduce.py``, ``REDUCE_SECONDS``) by ``python
benchmarks/fuzz.py --seeds 5 --time 60 --no-passes`` under load (the largest report of each
mutant over seeds 0 to 4), twice: every mutant's report is at most 10 lines on every seed but
one report each of ``remove_uncalled_functions`` (41 lines) and ``if_constant_wrong_branch``
(40), both found late by the generated stream and written unreduced (the same files reduce to
6 and 7 lines in 1 to 2 s, and reruns of those seeds reduced them: the campaign left the
reducer no time there, which the seed-0 size test does not see). At the limit:
``inline_by_name``, ``match_default_first`` (a one-constructor type made a tuple, the tuple a
parameter of ``@main``; 14 lines before) and ``dce_misses_closure_uses``, 10 each;
``unroll_without_binding`` 9; every other mutant 3 to 8. All 260 reports of the second run
replay with ``--replay`` to the same verdict kind (in the first, ``fast_math``'s did not: a
shared constant, ``divide(c, c)``, printed as two; the reducer now binds it by a ``let``)."""


REPLAY_BROKEN_TODAY: frozenset[str] = frozenset()
"""Mutants whose report does not reproduce its failure with ``--replay``: none measured
(``copy_propagate_by_name``, which finds variables by name, replays through the report's
``NAMES-JSON`` line)."""


def _spec(m: Mutant) -> str:
    return f"{ROOT / 'tests' / 'mutants' / m.file}:{m.attr}"


def program_lines(text: str) -> int:
    """The lines of program in a report file: not blank, not comments, not the version line,
    and not the metadata section."""
    # The section starts a line; a report's header comment may quote one ("//   #[metadata]").
    body = ("\n" + text).split("\n#[metadata]", 1)[0]
    return sum(
        1
        for line in body.splitlines()
        if line.strip() and not line.lstrip().startswith(("//", "#[version"))
    )


def _verdict_kind(printed: str) -> str:
    line = next(x for x in printed.splitlines() if x.startswith("verdict: "))
    return line[len("verdict: ") :].split(":", 1)[0]


def test_the_corpus_is_large_and_consistent() -> None:
    assert len(MUTANTS) >= 40
    assert len(CORRECT) >= 5
    assert len({m.attr for m in MUTANTS}) == len(MUTANTS)
    for m in MUTANTS:
        assert (ROOT / "tests" / "mutants" / m.file).is_file()
        assert (WITNESSES / f"{m.attr}.relay").is_file(), m.attr
    assert {p.stem for p in WITNESSES.glob("*.relay")} == {m.attr for m in MUTANTS}
    assert {p.stem for p in EXERCISES.glob("*.relay")} == set(CORRECT)
    listed = set(FAST) | MISSED_TODAY | LARGE_REPORT_TODAY | REPLAY_BROKEN_TODAY
    assert listed <= {m.attr for m in MUTANTS}


# -- 1. witnesses ----------------------------------------------------------------------------

LOOPING = frozenset(m.attr for m in MUTANTS if "timeout" in m.verdicts)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.attr)
def test_witness_exposes_the_mutant(mutant: Mutant, capsys: pytest.CaptureFixture[str]) -> None:
    path = WITNESSES / f"{mutant.attr}.relay"
    text = path.read_text(encoding="utf-8")
    assert program_lines(text) <= MAX_PROGRAM_LINES
    if mutant.attr in LOOPING:
        # --replay allows EXAMPLE_TIMEOUT seconds; the check itself, with a short limit
        case = read_case(text, str(path))
        verdict = check_pass(load_pass(_spec(mutant)).pass_, case.mod, case.args, timeout=1.0)
        assert verdict is not None and verdict.kind in mutant.verdicts
        return
    code = main(["fuzz", "--pass", _spec(mutant), "--replay", str(path)])
    printed = capsys.readouterr().out
    assert code == 1, printed
    assert _verdict_kind(printed) in mutant.verdicts, printed


def _witness_cases() -> list[tuple[str, str]]:
    return [(m.attr, (WITNESSES / f"{m.attr}.relay").read_text(encoding="utf-8")) for m in MUTANTS]


@pytest.mark.parametrize("name", CORRECT)
def test_correct_pass_passes_its_exercise_and_every_witness(name: str) -> None:
    """No false alarm on the program written to exercise the pass (which it must change:
    a pass that changes nothing cannot raise one), nor on any mutant's witness."""
    loaded = load_pass(f"{ROOT / 'tests' / 'mutants' / 'correct.py'}:{name}")
    exercise = EXERCISES / f"{name}.relay"
    cases = [(f"exercises/{name}", exercise.read_text(encoding="utf-8")), *_witness_cases()]
    for where, text in cases:
        case = read_case(text, where)
        verdict = check_pass(
            loaded.pass_, case.mod, case.args, timeout=EXAMPLE_TIMEOUT,
            reduction_length=REDUCTION_LENGTH,
        )  # fmt: skip
        assert verdict is None, f"{name} on {where}:\n{verdict.report()}"
    case = read_case(exercise.read_text(encoding="utf-8"), str(exercise))
    assert astext(loaded.pass_(case.mod)) != astext(case.mod), f"{name} left {exercise} alone"


COUNTERPARTS: dict[str, tuple[str, ...]] = {
    "cse_respecting_attrs": ("cse_ignores_attrs", "cse_constants_by_value"),
    "fuse_transposes": ("transpose_compose_wrong_order",),
    "float_pure_lets": ("float_lets",),
    "fold_add_multiply": ("fold_int_saturating",),
    "abs_of_non_negative": ("abs_of_non_negative",),
    "merge_clips": ("merge_clips_widening",),
    "if_not_swapped": ("if_not_unswapped",),
}
"""The mutants that are broken versions of a correct pass: each is caught on that pass's
exercise, so the exercise holds the case the side condition is there for."""


@pytest.mark.parametrize(
    ("name", "attr"), [(n, a) for n, attrs in COUNTERPARTS.items() for a in attrs]
)
def test_exercise_catches_the_broken_counterpart(name: str, attr: str) -> None:
    mutant = next(m for m in MUTANTS if m.attr == attr)
    exercise = EXERCISES / f"{name}.relay"
    case = read_case(exercise.read_text(encoding="utf-8"), str(exercise))
    verdict = check_pass(
        load_pass(_spec(mutant)).pass_, case.mod, case.args, timeout=EXAMPLE_TIMEOUT,
        reduction_length=REDUCTION_LENGTH,
    )  # fmt: skip
    assert verdict is not None and verdict.kind in mutant.verdicts


# -- 2. campaigns ----------------------------------------------------------------------------


@functools.cache
def _campaign(attr: str, seconds: float, out: Path, examples: int) -> tuple[int, str]:
    """Fuzz one mutant (seed 0, ``seconds``, at most ``examples`` generated examples) into
    ``out``: the exit code and what it printed.
    A fresh process, as a user runs it: the programs seed 0 draws do not depend on what
    earlier tests did in this one, and a broken time limit cannot hang the suite."""
    m = next(x for x in MUTANTS if x.attr == attr)
    args = ["fuzz", "--pass", _spec(m), "--seed", "0", "--time", str(seconds),
            "--max-examples", str(examples), "--out", str(out)]  # fmt: skip
    proc = subprocess.run(
        [sys.executable, "-m", "relay", *args], cwd=ROOT, capture_output=True, text=True,
        timeout=seconds + 120,
    )  # fmt: skip
    return proc.returncode, proc.stdout + proc.stderr


def _report(out: Path) -> Path:
    reports = sorted(out.glob("*.relay"))
    assert len(reports) == 1, f"expected one report in {out}, found {reports}"
    return reports[0]


def _check_campaign(mutant: Mutant, seconds: float, out: Path, examples: int = 1_000_000) -> None:
    code, printed = _campaign(mutant.attr, seconds, out, examples)
    caught = f"{mutant.attr} was not caught in {seconds:g} s, {examples} examples"
    assert code == 1, f"{caught}:\n{printed}"
    report = _report(out)
    header = report.read_text(encoding="utf-8").splitlines()
    assert header[0] == "// relay fuzz: counterexample"
    kind = next(x for x in header if x.startswith("// verdict: "))[len("// verdict: ") :]
    assert kind.split(":", 1)[0] in mutant.verdicts, printed


def _check_replay(mutant: Mutant, out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = _report(out)
    text = report.read_text(encoding="utf-8")
    kind = next(x for x in text.splitlines() if x.startswith("// verdict: "))
    if mutant.attr in LOOPING:
        case = read_case(text, str(report))
        verdict = check_pass(load_pass(_spec(mutant)).pass_, case.mod, case.args, timeout=1.0)
        assert verdict is not None and kind.startswith(f"// verdict: {verdict.kind}:")
        return
    capsys.readouterr()
    code = main(["fuzz", "--pass", _spec(mutant), "--replay", str(report)])
    printed = capsys.readouterr().out
    assert code == 1, f"the report of {mutant.attr} does not replay:\n{printed}"
    assert kind.startswith(f"// verdict: {_verdict_kind(printed)}:"), printed


def _expect(attr: str, missed: frozenset[str], why: str) -> list[pytest.MarkDecorator]:
    return [pytest.mark.xfail(reason=why, strict=False)] if attr in missed else []


def _fast() -> list[Mutant]:
    return [m for m in MUTANTS if m.attr in FAST]


@pytest.mark.parametrize("mutant", _fast(), ids=lambda m: m.attr)
def test_fast_campaign_catches_and_replays(
    mutant: Mutant, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path_factory.mktemp(mutant.attr)
    _check_campaign(mutant, CAMPAIGN_SECONDS, out, CAMPAIGN_EXAMPLES)
    _check_replay(mutant, out, capsys)


_SLOW_OUT: dict[str, Path] = {}


def _slow_out(attr: str, factory: pytest.TempPathFactory) -> Path:
    if attr not in _SLOW_OUT:
        _SLOW_OUT[attr] = factory.mktemp(f"slow-{attr}")
    return _SLOW_OUT[attr]


def _slow_params(missed: frozenset[str], why: str) -> list[object]:
    return [pytest.param(m, id=m.attr, marks=_expect(m.attr, missed, why)) for m in MUTANTS]


@pytest.mark.slow
@pytest.mark.parametrize(
    "mutant", _slow_params(MISSED_TODAY, "today's generator does not reach this mutant")
)
def test_campaign_catches(mutant: Mutant, tmp_path_factory: pytest.TempPathFactory) -> None:
    _check_campaign(mutant, SLOW_CAMPAIGN_SECONDS, _slow_out(mutant.attr, tmp_path_factory))


@pytest.mark.slow
@pytest.mark.parametrize(
    "mutant",
    _slow_params(MISSED_TODAY | REPLAY_BROKEN_TODAY, "not reached, or names not kept"),
)
def test_campaign_report_replays(
    mutant: Mutant, tmp_path_factory: pytest.TempPathFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _slow_out(mutant.attr, tmp_path_factory)
    _check_campaign(mutant, SLOW_CAMPAIGN_SECONDS, out)  # cached: run once per mutant
    _check_replay(mutant, out, capsys)


@pytest.mark.slow
@pytest.mark.parametrize(
    "mutant",
    _slow_params(MISSED_TODAY | LARGE_REPORT_TODAY, "not reached, or today's shrinker"),
)
def test_campaign_report_is_small(mutant: Mutant, tmp_path_factory: pytest.TempPathFactory) -> None:
    out = _slow_out(mutant.attr, tmp_path_factory)
    _check_campaign(mutant, SLOW_CAMPAIGN_SECONDS, out)
    size = program_lines(_report(out).read_text(encoding="utf-8"))
    assert size <= MAX_PROGRAM_LINES, f"the shrunk report has {size} lines of program"


# -- 3. no false alarms ----------------------------------------------------------------------

CORRECT_BUILTIN = [
    "dead-code-elimination",
    "eliminate-common-subexpr",
    "fold-constant",
    "div-to-mul",
]


def test_correct_passes_are_not_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["fuzz", "--max-examples", "15", "--time", "20", "--seed", "1", "--out", str(tmp_path)]
    for name in CORRECT_BUILTIN:
        args += ["--pass", name]
    for name in CORRECT:
        args += ["--pass", f"{ROOT / 'tests' / 'mutants' / 'correct.py'}:{name}"]
    code = main(args)
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert not list(tmp_path.glob("*.relay"))


@pytest.mark.slow
def test_correct_passes_large_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Every built-in pass, the ``opt-level-3`` pipeline and every correct pass of the corpus,
    300 examples each: no report."""
    args = ["fuzz", "--max-examples", "300", "--time", "3600", "--seed", "7",
            "--out", str(tmp_path)]  # fmt: skip
    correct = [f"{ROOT / 'tests' / 'mutants' / 'correct.py'}:{n}" for n in CORRECT]
    for name in [*builtin_names(), *correct]:
        args += ["--pass", name]
    code = main(args)
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert not list(tmp_path.glob("*.relay"))
