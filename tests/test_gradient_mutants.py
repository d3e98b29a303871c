"""The AD oracle catches every broken gradient of ``tests/ad_mutants`` (``relay fuzz --check
gradient``, seed 0, no per-mutant tuning): two in the default run within ``QUICK_EXAMPLES``
examples each, all of them under ``slow`` within 60 s each; the report replays to the same
verdict kind."""

from __future__ import annotations

from pathlib import Path

import pytest
from ad_mutants import MUTANTS  # tests/ad_mutants (pytest puts tests/ on the path)

from relay.cli import main

BROKEN = Path(__file__).resolve().parent / "ad_mutants" / "broken.py"
QUICK = ["dropped_accumulation", "ref_cuts_gradient"]
"""The default run's mutants: at seed 0 each is found at its 3rd example (measured: 60 s
campaigns, ``relay fuzz --check gradient --pass tests/ad_mutants/broken.py:NAME --time 60
--seed 0``), and the whole run, shrinking included, takes a second or two."""

QUICK_EXAMPLES = 8
"""The default run's bound per mutant: generated examples (shrinking shares it), not seconds.
A time budget makes the test depend on the machine's speed (see ``tests/test_mutants.py``'s
``CAMPAIGN_EXAMPLES``); seed 0 draws the same examples everywhere, so the bound leaves a
margin over where the mutants are found and a few shrinking steps."""

QUICK_SECONDS = 120.0
"""The default run's time budget, far above what the examples need: the bound decides."""


def caught(
    name: str,
    budget: float,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    max_examples: int | None = None,
) -> None:
    spec = f"{BROKEN}:{name}"
    args = ["fuzz", "--check", "gradient", "--pass", spec, "--time", str(budget), "--seed", "0",
            "--out", str(tmp_path)]  # fmt: skip
    if max_examples is not None:
        args += ["--max-examples", str(max_examples)]
    code = main(args)
    out = capsys.readouterr().out
    assert code == 1, f"{name} ({MUTANTS[name]}) was not caught:\n{out}"
    (report,) = tmp_path.glob("*.relay")
    kind = report.read_text().splitlines()[2].removeprefix("// verdict: ").split(":")[0]
    assert main(["fuzz", "--check", "gradient", "--pass", spec, "--replay", str(report)]) == 1
    assert f"verdict: {kind}:" in capsys.readouterr().out


@pytest.mark.parametrize("name", QUICK)
def test_mutant_is_caught_quickly(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    caught(name, QUICK_SECONDS, tmp_path, capsys, QUICK_EXAMPLES)


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_every_mutant_is_caught_within_a_minute(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    caught(name, 60.0, tmp_path, capsys)


@pytest.mark.slow
def test_no_false_alarm_on_the_correct_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["fuzz", "--check", "gradient", "--time", "120", "--seed", "0",
                 "--out", str(tmp_path)])  # fmt: skip
    assert code == 0, capsys.readouterr().out
    assert not list(tmp_path.glob("*.relay"))


def test_every_mutant_is_listed() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("ad_broken", BROKEN)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    from relay.compiler.pass_manager import Pass

    defined = {n for n, v in vars(module).items() if isinstance(v, Pass)}
    assert defined == set(MUTANTS)
    assert len(MUTANTS) >= 8
