"""The conformance kit for backend authors: expected-failure lists, the run on a wrong target,
the report with shrunk failures, and the pytest plugin, which must give the verdicts
``relay conform`` gives (and be inert without ``--relay-target``)."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

import pytest
from conform_kit_helpers import SKEWED_OP, SkewedTarget, install

from relay.cli import main
from relay.oracles.conform_kit import (
    ConformReport,
    ExpectedFailures,
    conform,
    corpus_conform_case,
)
from relay.oracles.conform_report import render_html, render_markdown
from relay.targets import base

pytest_plugins = ["pytester"]

TESTS = Path(__file__).parent
CORPUS = TESTS / "conformance"
PROGRAMS = 3
"""Generated programs per run: for seed 0, the first (gen:0:0) calls ``negative``, so it fails
on the skewed target, and gen:0:2 passes."""

XFAIL = """\
# a comment, then a blank line

unary_math        the skew, by case id
gen:0:2           passes: an unexpected pass
construct:references   no case that runs uses them: stale, since they are all skipped
op:nn/pool        a family no case of the skew fails in: the pooling case is an unexpected pass
"""


SMALL = ("conv2d", "int_division_by_zero", "pooling", "refs_alias", "tuples", "unary_math")
"""The corpus cases the skewed target runs in these tests: each status once at least."""


@pytest.fixture
def small(tmp_path: Path) -> Path:
    """A corpus folder holding the cases of ``SMALL``."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name in SMALL:
        (folder / f"{name}.relay").write_text((CORPUS / f"{name}.relay").read_text())
    return folder


@pytest.fixture
def skewed_installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The skewed target installed through the entry-point group; the folder holding it."""
    folder = install(tmp_path / "site")
    monkeypatch.syspath_prepend(str(folder))
    yield folder
    base._INSTANCES.pop("skewed", None)


def statuses(report: ConformReport) -> dict[str, str]:
    return {o.name: o.status for o in report.outcomes}


def test_expected_failure_keys_are_checked() -> None:
    listed = ExpectedFailures.parse(XFAIL, "x.txt")
    assert list(listed.entries) == ["unary_math", "gen:0:2", "construct:references", "op:nn/pool"]
    assert listed.entries["gen:0:2"].reason == "passes: an unexpected pass"
    assert listed.entries["unary_math"].line == 3
    bad = {
        "conv2d a\nconv2d b\n": "x.txt:2: conv2d is listed twice (first at line 1)",
        "op:nn.conv3x\n": "x.txt:1: op:nn.conv3x: no operator or operator family 'nn.conv3x'",
        "construct:loops\n": "x.txt:1: construct:loops: the constructs are if, match",
        "gen:0\n": "x.txt:1: gen:0: a generated program is gen:SEED:INDEX",
        "family:nn\n": "x.txt:1: family:nn: a key is a case id, gen:SEED:INDEX, op:NAME",
    }
    for text, message in bad.items():
        with pytest.raises(ValueError) as err:
            ExpectedFailures.parse(text, "x.txt")
        assert str(err.value).startswith(message)


def test_a_case_is_listed_by_its_id_first_then_by_op_family_or_construct() -> None:
    listed = ExpectedFailures.parse(
        "op:multiply by op\nconstruct:tuples by construct\nconv2d by id\nop:nn/conv by family\n"
    )
    conv2d = corpus_conform_case(CORPUS / "conv2d.relay")
    assert "nn.conv2d" in conv2d.ops and "op:nn/conv" in conv2d.tags
    found = listed.lookup(conv2d)
    assert found is not None and found.key == "conv2d"
    softmax = corpus_conform_case(CORPUS / "softmax.relay")  # tuples, no multiply
    found = listed.lookup(softmax)
    assert found is not None and found.key == "construct:tuples"
    assert listed.stale() == ["op:multiply", "op:nn/conv"]
    # ``tuples`` is also a corpus case: only ``construct:tuples`` names the construct.
    assert ExpectedFailures.parse("tuples x\n").lookup(softmax) is None


def test_conform_on_a_wrong_target_fails_exactly_the_skewed_cases(small: Path) -> None:
    report = conform(SkewedTarget(), corpus_dir=small, programs=PROGRAMS)
    failed = {o.name for o in report.outcomes if o.status == "fail"}
    assert failed == {"unary_math", "gen:0:0"}
    assert all(SKEWED_OP in o.ops for o in report.outcomes if o.status == "fail")
    assert not report.ok
    skipped = {o.name for o in report.outcomes if o.status == "skip"}
    assert "refs_alias" in skipped and "int_division_by_zero" in skipped
    listed = ExpectedFailures.parse(f"op:{SKEWED_OP} skewed\n")
    relisted = conform(SkewedTarget(), corpus_dir=small, programs=PROGRAMS,
                       expected_failures=listed)  # fmt: skip
    assert {n for n, s in statuses(relisted).items() if s == "xfail"} == failed
    assert relisted.ok and relisted.stale == []


@pytest.mark.xfail(
    reason="tied to the programs generated_cases draws for seed 0, which changed when the "
    "differentiable-program generator's template changes were merged; to be rewritten so "
    "the skewed target's outcomes do not depend on one draw",
    strict=False,
)
def test_report_shows_the_table_and_the_shrunk_failure(small: Path) -> None:
    listed = ExpectedFailures.parse(XFAIL)
    report = conform(SkewedTarget(), corpus_dir=small, programs=PROGRAMS,
                     expected_failures=listed, shrink=True)  # fmt: skip
    got = statuses(report)
    assert (got["unary_math"], got["gen:0:0"], got["gen:0:2"]) == ("xfail", "fail", "xpass")
    assert got["pooling"] == "xpass" and report.stale == ["construct:references"]
    gen = next(o for o in report.outcomes if o.name == "gen:0:0")
    assert gen.shrunk and SKEWED_OP in gen.program and "verdict: mismatch" in gen.detail
    markdown = render_markdown(report)
    assert "| construct / family | pass | fail | xfail | xpass | skip |" in markdown
    assert "## Failures\n\n### `gen:0:0`" in markdown and "The shrunk program:" in markdown
    assert "- `construct:references` names no case of this run" in markdown
    page = render_html(report)
    assert "<h2>Unexpected passes</h2>" in page and '<h3 id="gen:0:2">' in page
    assert "negative" in page and "<script" not in page


def test_conform_report_from_the_command_line(
    skewed_installed: Path, small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "report.md"
    argv = ["conform", "--target", "skewed", "--programs", "1", "--corpus", str(small),
            "--report", str(out)]  # fmt: skip
    assert main(argv) == 1
    text = capsys.readouterr().out
    assert "FAIL: unary_math:" in text and f"report written to {out}" in text
    assert "### `gen:0:0`" in out.read_text() and "The shrunk program:" in out.read_text()
    assert main([*argv[:-1], str(tmp_path / "report.pdf")]) == 2
    assert "the report is .html or .md (found '.pdf')" in capsys.readouterr().err
    bad = tmp_path / "bad.txt"
    bad.write_text("op:nope x\n")
    assert main([*argv[:7], "--expected-failures", str(bad)]) == 2
    assert f"{bad}:1: op:nope: no operator" in capsys.readouterr().err


def run_pytest(pytester: pytest.Pytester, *args: str) -> tuple[int, str, Path]:
    """pytest run in this process (kernel caches stay warm) in the pytester's empty folder:
    exit status, output, and the JUnit XML file."""
    junit = pytester.path / "junit.xml"
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-rA",
                                          f"--junitxml={junit}", *args)  # fmt: skip
    return int(result.ret), "\n".join(result.outlines + result.errlines), junit


def plugin_statuses(junit: Path) -> dict[str, str]:
    """Each conformance item's case name and status (the ``relay_status`` property)."""
    out: dict[str, str] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        props = {p.get("name"): p.get("value") for p in case.iter("property")}
        name = case.get("name", "")
        if "relay_status" in props:
            out[name.split("[", 1)[0]] = str(props["relay_status"])
    return out


@pytest.mark.xfail(
    reason="tied to the programs generated_cases draws for seed 0, which changed when the "
    "differentiable-program generator's template changes were merged; to be rewritten so "
    "the skewed target's outcomes do not depend on one draw",
    strict=False,
)
def test_plugin_gives_the_verdicts_of_relay_conform(
    skewed_installed: Path, small: Path, tmp_path: Path, pytester: pytest.Pytester
) -> None:
    xfail = tmp_path / "xfail.txt"
    xfail.write_text(XFAIL)
    report = conform(SkewedTarget(), corpus_dir=small, programs=PROGRAMS,
                     expected_failures=ExpectedFailures.read(xfail))  # fmt: skip
    want = statuses(report)
    assert set(want.values()) == {"pass", "fail", "xfail", "xpass", "skip"}
    code, output, junit = run_pytest(
        pytester, "--relay-target", "skewed", "--relay-programs", str(PROGRAMS),
        "--relay-corpus", str(small), "--relay-expected-failures", str(xfail),
    )  # fmt: skip
    assert code == 1, output
    assert plugin_statuses(junit) == want
    # pytest's own outcomes follow: a failure and an unexpected pass fail, a listed failure is
    # xfailed, the rest pass or skip.
    c = {s: sum(v == s for v in want.values()) for s in ("pass", "fail", "xfail", "xpass", "skip")}
    summary = output.strip().splitlines()[-1]
    assert f"{c['fail'] + c['xpass']} failed, {c['pass']} passed, {c['skip']} skipped" in summary
    assert f"{c['xfail']} xfailed" in summary
    assert any(
        line.startswith("FAILED ")
        and line.endswith("relay-conform[skewed]::gen:0:0[negative] - fail: mismatch: result: ...")
        for line in output.splitlines()
    )
    assert "warning: expected failure construct:references names no case" in output
    assert report.summary() in output  # the same table and summary line as relay conform
    # -k selects by operator or construct
    code, output, junit = run_pytest(pytester, "--relay-target", "skewed", "--relay-programs",
                                     "0", "--relay-corpus", str(small), "-k",
                                     "nn.conv2d or references")  # fmt: skip
    assert code == 0, output
    assert plugin_statuses(junit) == {"conv2d": "pass", "refs_alias": "skip"}


def test_plugin_usage_errors(pytester: pytest.Pytester) -> None:
    code, output, _ = run_pytest(pytester, "--relay-target", "nope")
    assert code == 4 and "--relay-target: unknown target 'nope'; the targets are: " in output
    code, output, _ = run_pytest(pytester, "--relay-target", "cpu", "--relay-corpus", "nowhere")
    assert code == 4 and "no such folder: nowhere" in output
    code, output, _ = run_pytest(pytester, "--help")
    assert code == 0 and "--relay-target=NAME" in output


def test_plugin_is_inert_without_relay_target(tmp_path: Path) -> None:
    # A fresh process: this one has loaded the kit already.
    (tmp_path / "test_other.py").write_text(
        "import sys\n\ndef test_nothing_of_the_kit_is_loaded():\n"
        "    assert 'relay.pytest_plugin' in sys.modules  # registered, through pytest11\n"
        "    assert 'relay.oracles.conform_kit' not in sys.modules\n"
        "    assert 'relay.targets' not in sys.modules\n"
    )
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--rootdir",
               str(tmp_path)]  # fmt: skip
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip().splitlines()[-1].startswith("1 passed")


@pytest.fixture
def cpu_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cpu target's disk cache where it was before pytester moved ``HOME``."""
    from relay.targets.cpu.cache import cache_dir

    monkeypatch.setenv("RELAY_CACHE_DIR", str(cache_dir()))


def agreement_on_cpu(pytester: pytest.Pytester, corpus: Path, programs: int) -> None:
    from relay.targets import get_target

    report = conform(get_target("cpu"), corpus_dir=corpus, programs=programs)
    code, output, junit = run_pytest(pytester, "--relay-target", "cpu", "--relay-programs",
                                     str(programs), "--relay-corpus", str(corpus))  # fmt: skip
    assert code == (0 if report.ok else 1), output
    assert plugin_statuses(junit) == statuses(report)
    print(report.summary())


@pytest.mark.usefixtures("cpu_cache")
def test_plugin_agrees_with_relay_conform_on_cpu(small: Path, pytester: pytest.Pytester) -> None:
    agreement_on_cpu(pytester, small, 2)


@pytest.mark.slow
@pytest.mark.usefixtures("cpu_cache")
def test_plugin_agrees_with_relay_conform_on_cpu_at_length(pytester: pytest.Pytester) -> None:
    """The whole corpus and 100 generated programs (the figure in the README)."""
    agreement_on_cpu(pytester, CORPUS, 100)
