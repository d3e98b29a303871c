"""``relay fuzz``: loading passes, reports of shrunk counterexamples, replay, budgets, exit
codes."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from relay import parse
from relay.cli import main
from relay.oracles.fuzz import fuzz_pass, load_pass

BROKEN = '''
from dataclasses import dataclass

from relay.compiler.ir import rewrite_module
from relay.compiler.pass_manager import Pass
from relay.semantics.syntax import Call, Op


def _swap(e):
    if isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == "subtract":
        return Call(e.op, (e.args[1], e.args[0]))
    return None


@dataclass(frozen=True)
class SwapSubtract(Pass):
    """subtract(a, b) -> subtract(b, a): wrong unless a == b."""

    focus_ops = frozenset({"subtract"})

    def transform(self, mod):
        return rewrite_module(mod, _swap)


swap = SwapSubtract()


def identity(mod):
    return mod


not_callable = 3
'''


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    path = tmp_path / "plugin.py"
    path.write_text(BROKEN)
    return path


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["fuzz", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_broken_pass_is_reported_shrunk_and_replays(
    plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out_dir = tmp_path / "out"
    spec = f"{plugin}:swap"
    code, out, err = run(
        ["--pass", spec, "--max-examples", "200", "--time", "60", "--out", str(out_dir)], capsys
    )
    assert code == 1
    (report,) = out_dir.iterdir()
    assert report.name.startswith("swap-") and report.suffix == ".relay"
    text = report.read_text()
    assert "// pass: SwapSubtract" in text
    assert "// verdict: mismatch: " in text  # a different value, or an error for a value
    assert f"// reproduce: relay fuzz --pass {spec} --replay {report}" in text
    assert "subtract" in text
    parse(text)  # the report is a valid Relay file
    assert "FAILED" in out and "1 of 1 passes failed" in out
    assert "swap" in err  # progress and the per-pass line go to stderr
    code, out, _ = run(["--pass", spec, "--replay", str(report)], capsys)
    assert code == 1 and "verdict: mismatch" in out
    code, out, _ = run(["--pass", f"{plugin}:identity", "--replay", str(report)], capsys)
    assert code == 0 and "the checks pass" in out


def test_a_correct_pass_exits_0_with_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(
        ["--pass", "dead-code-elimination", "--pass", "FoldConstant", "--max-examples", "15"],
        capsys,
    )
    assert code == 0
    assert "relay fuzz: 2 passes, 30 examples" in out
    assert "dead-code-elimination" in out and "fold-constant" in out and "ok" in out


def test_module_attribute_specs_and_classes(capsys: pytest.CaptureFixture[str]) -> None:
    spec = "relay.compiler.passes.dce:DeadCodeElimination"
    code, out, _ = run(["--pass", spec, "--max-examples", "5"], capsys)
    assert code == 0 and "DeadCodeElimination" in out


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("no-such-pass", "unknown pass 'no-such-pass'"),
        ("/nowhere/x.py:f", "no such file: /nowhere/x.py"),
        ("relay.no_such_module:f", "cannot import relay.no_such_module"),
        ("PLUGIN:missing", "has no attribute 'missing'"),
        ("PLUGIN:not_callable", "neither a pass nor a callable"),
        ("opt-level-7", "unknown pass 'opt-level-7'"),
    ],
)
def test_a_pass_that_cannot_be_loaded_is_bad_usage(
    spec: str, message: str, plugin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["--pass", spec.replace("PLUGIN", str(plugin))], capsys)
    assert code == 2
    assert err.startswith("relay fuzz: error: ") and message in err
    assert "Traceback" not in err


def test_the_time_budget_bounds_the_campaign(capsys: pytest.CaptureFixture[str]) -> None:
    start = time.monotonic()
    code, out, _ = run(
        ["--pass", "to-a-normal-form", "--pass", "infer-type", "--max-examples", "100000",
         "--time", "4"],
        capsys,
    )  # fmt: skip
    assert code == 0
    assert time.monotonic() - start < 12
    assert "2 passes" in out


def test_the_database_replays_an_earlier_failure_first(
    plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "db"
    args = ["--pass", f"{plugin}:swap", "--max-examples", "200", "--database", str(db)]
    code, _, _ = run([*args, "--out", str(tmp_path / "a")], capsys)
    assert code == 1
    code, _, _ = run([*args, "--out", str(tmp_path / "b"), "--seed", "7"], capsys)
    assert code == 1
    (report,) = (tmp_path / "b").iterdir()
    assert "// found after 1 example (then shrunk)" in report.read_text()
    code, _, _ = run([*args, "--out", str(tmp_path / "b"), "--seed", "8"], capsys)
    assert code == 1
    assert [p.name for p in (tmp_path / "b").iterdir()] == [report.name]  # no duplicate


def test_replay_needs_one_pass_and_an_existing_file(
    plugin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["--pass", f"{plugin}:swap", "--replay", "/nowhere.relay"], capsys)
    assert code == 2 and "no such file" in err
    code, _, err = run(["--replay", "/nowhere.relay"], capsys)
    assert code == 2 and "exactly one --pass" in err


def test_jobs_run_passes_in_processes(
    plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(
        ["--pass", "infer-type", "--pass", f"{plugin}:swap", "--jobs", "2",
         "--max-examples", "40", "--time", "30", "--out", str(tmp_path / "out")],
        capsys,
    )  # fmt: skip
    assert code == 1
    assert "infer-type" in out and "ok" in out and "FAILED" in out
    (report,) = (tmp_path / "out").iterdir()
    assert report.name.startswith("swap-")


@pytest.mark.slow
def test_time_alone_runs_to_time(capsys: pytest.CaptureFixture[str]) -> None:
    start = time.monotonic()
    code, out, _ = run(["--pass", "infer-type", "--time", "4"], capsys)
    elapsed = time.monotonic() - start
    assert code == 0
    assert 3.5 < elapsed < 10, elapsed  # not stopped by an example count
    assert "1 passes" in out and " examples " in out


def test_the_default_seed_is_random_and_printed(capsys: pytest.CaptureFixture[str]) -> None:
    import re

    seeds = []
    for _ in range(2):
        code, out, _ = run(["--pass", "infer-type", "--max-examples", "2"], capsys)
        assert code == 0
        found = re.search(r"relay fuzz: seed (\d+) \(rerun with --seed \1\)", out)
        assert found is not None, out
        seeds.append(found.group(1))
    assert seeds[0] != seeds[1]
    code, out, _ = run(["--pass", "infer-type", "--max-examples", "2", "--seed", "5"], capsys)
    assert "relay fuzz: seed 5 " in out


SWAP_ALL = """
from relay.compiler.ir import rewrite_module
from relay.semantics.syntax import Call, Op

NAMES = {"subtract", "divide", "less", "greater", "power", "floor_divide", "floor_mod"}


def _swap(e):
    if isinstance(e, Call) and isinstance(e.op, Op) and e.op.name in NAMES:
        return Call(e.op, (e.args[1], e.args[0]), e.attrs)
    return None


def swap(mod):
    return rewrite_module(mod, _swap)
"""


@pytest.mark.slow
def test_a_rerun_resumes_shrinking_and_writes_no_duplicate(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plugin = tmp_path / "swap_all.py"
    plugin.write_text(SWAP_ALL)
    db = tmp_path / "db"
    base = ["--pass", f"{plugin}:swap", "--no-footprint", "--seed", "3", "--database", str(db)]
    # A budget that runs out while shrinking: the report is of a partly shrunk program.
    # (The first budget that finds the failure at all; the machine may be slow.)
    for budget in ("0.6", "1.2", "2.4", "4.8", "9.6", "30"):
        code, _, _ = run([*base, "--time", budget, "--out", str(tmp_path / "a")], capsys)
        if code == 1:
            break
    assert code == 1
    assert len(list((tmp_path / "a").iterdir())) == 1
    saved = _saved_entries(db)
    code, _, _ = run([*base, "--time", "30", "--out", str(tmp_path / "b")], capsys)
    assert code == 1
    (resumed,) = (tmp_path / "b").iterdir()
    # Resumed from the database: the failure is found while the saved entries are replayed, not
    # again by generation. (How far each run shrinks depends on the machine's speed, and a
    # shrink step that Hypothesis takes as smaller need not print as fewer lines, so the sizes
    # of the reports are not compared.)
    assert 1 <= _found_after(resumed) <= saved
    saved = _saved_entries(db)
    code, _, _ = run([*base, "--time", "30", "--out", str(tmp_path / "b")], capsys)
    assert code == 1
    # The same failure is not reported twice; a rerun writes a new report only for a program it
    # shrank the failure on to, and that one too was found by replaying the database.
    reports = sorted((tmp_path / "b").iterdir())
    keys = [_failure_key(p) for p in reports]
    assert len(set(keys)) == len(keys)
    assert all(_found_after(p) <= saved for p in reports if p != resumed)


def test_a_round_stuck_in_hypothesis_shrinking_stops_at_the_deadline(
    plugin: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Hypothesis's shrinker can go on without running the test (so without seeing the
    deadline): the round is stopped at the deadline all the same, and the failure is reduced
    and reported within the budget."""
    from hypothesis.internal.conjecture import shrinker

    def stuck(self: object) -> None:
        _spin_until(time.monotonic() + 60)

    monkeypatch.setattr(shrinker.Shrinker, "shrink", stuck)
    loaded = load_pass(f"{plugin}:swap")
    start = time.monotonic()
    result = fuzz_pass(
        loaded, max_examples=None, time_budget=15.0, seed=3, out_dir=tmp_path, database=None,
        footprint=False,
    )  # fmt: skip
    assert time.monotonic() - start < 25
    assert result.verdict is not None and result.verdict.kind == "mismatch"
    assert result.path is not None and Path(result.path).exists()


def _spin_until(end: float) -> None:
    while time.monotonic() < end:
        sum(range(1000))


def _saved_entries(db: Path) -> int:
    """How many examples the Hypothesis database holds (each is a file in a key's folder)."""
    steering = db / "relay-fuzz-steering"
    return sum(1 for p in db.rglob("*") if p.is_file() and steering not in p.parents)


def _found_after(path: Path) -> int:
    (line,) = [x for x in path.read_text().splitlines() if x.startswith("// found after ")]
    return int(line.split()[3])


def _failure_key(path: Path) -> str:
    (line,) = [x for x in path.read_text().splitlines() if x.startswith("// failure-key:")]
    return line
