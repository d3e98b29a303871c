"""The conformance kit for backend authors: expected-failure lists, the run on a wrong target,
the report with shrunk failures, and the pytest plugin, which must give the verdicts
``relay conform`` gives (and be inert without ``--relay-target``)."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from conform_kit_helpers import SKEWED_OP, SkewedTarget, install, skew_draw

from relay.cli import main
from relay.oracles.conform_kit import (
    ConformReport,
    ExpectedFailures,
    conform,
    conform_cases,
    corpus_conform_case,
)
from relay.oracles.conform_report import render_html, render_markdown
from relay.semantics.text.printer import astext
from relay.targets import base

pytest_plugins = ["pytester"]

TESTS = Path(__file__).parent
CORPUS = TESTS / "conformance"
PROGRAMS = 3
"""Generated programs per run: ``skew_draw`` picks a seed whose draw holds one the skewed
target fails and one it passes."""

XFAIL = """\
# a comment, then a blank line

unary_math        the skew, by case id
{passing}           passes: an unexpected pass
construct:references   no case that runs uses them: stale, since they are all skipped
op:nn/pool        a family no case of the skew fails in: the pooling case is an unexpected pass
"""
"""An expected-failure list; ``{passing}`` is to be a generated program that passes."""


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
    listed = ExpectedFailures.parse(XFAIL.format(passing="gen:0:2"), "x.txt")
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
    seed, want = skew_draw(PROGRAMS)
    report = conform(SkewedTarget(), corpus_dir=small, programs=PROGRAMS, seed=seed)
    assert {n: s for n, s in statuses(report).items() if n.startswith("gen:")} == want
    failed = {o.name for o in report.outcomes if o.status == "fail"}
    assert failed == {"unary_math"} | {n for n, s in want.items() if s == "fail"}
    assert all(SKEWED_OP in o.ops for o in report.outcomes if o.status == "fail")
    assert not report.ok
    skipped = {o.name for o in report.outcomes if o.status == "skip"}
    assert "refs_alias" in skipped and "int_division_by_zero" in skipped
    listed = ExpectedFailures.parse(f"op:{SKEWED_OP} skewed\n")
    relisted = conform(SkewedTarget(), corpus_dir=small, programs=PROGRAMS, seed=seed,
                       expected_failures=listed)  # fmt: skip
    assert {n for n, s in statuses(relisted).items() if s == "xfail"} == failed
    assert relisted.ok and relisted.stale == []


def first(want: dict[str, str], status: str) -> str:
    """The first generated program of ``skew_draw``'s draw with ``status``."""
    return next(name for name, s in want.items() if s == status)


def test_report_shows_the_table_and_the_shrunk_failure(small: Path) -> None:
    seed, want = skew_draw(PROGRAMS)
    failing, passing = first(want, "fail"), first(want, "pass")
    listed = ExpectedFailures.parse(XFAIL.format(passing=passing))
    report = conform(SkewedTarget(), corpus_dir=small, programs=PROGRAMS, seed=seed,
                     expected_failures=listed, shrink=True)  # fmt: skip
    got = statuses(report)
    assert (got["unary_math"], got[failing], got[passing]) == ("xfail", "fail", "xpass")
    assert got["pooling"] == "xpass" and report.stale == ["construct:references"]
    gen = next(o for o in report.outcomes if o.name == failing)
    assert gen.shrunk and SKEWED_OP in gen.program and "verdict: mismatch" in gen.detail
    markdown = render_markdown(report)
    assert "| construct / family | pass | fail | xfail | xpass | skip |" in markdown
    assert f"## Failures\n\n### `{failing}`" in markdown and "The shrunk program:" in markdown
    assert "- `construct:references` names no case of this run" in markdown
    page = render_html(report)
    assert "<h2>Unexpected passes</h2>" in page and f'<h3 id="{passing}">' in page
    assert "negative" in page and "<script" not in page


def test_conform_report_from_the_command_line(
    skewed_installed: Path, small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    seed, _ = skew_draw(1, ["fail"])
    out = tmp_path / "report.md"
    argv = ["conform", "--target", "skewed", "--programs", "1", "--corpus", str(small),
            "--seed", str(seed), "--report", str(out)]  # fmt: skip
    assert main(argv) == 1
    text = capsys.readouterr().out
    assert "FAIL: unary_math:" in text and f"report written to {out}" in text
    assert f"### `gen:{seed}:0`" in out.read_text() and "The shrunk program:" in out.read_text()
    assert main([*argv[:-1], str(tmp_path / "report.pdf")]) == 2
    assert "the report is .html or .md (found '.pdf')" in capsys.readouterr().err
    bad = tmp_path / "bad.txt"
    bad.write_text("op:nope x\n")
    assert main([*argv[:9], "--expected-failures", str(bad)]) == 2
    assert f"{bad}:1: op:nope: no operator" in capsys.readouterr().err


# pytester drops every module imported during an in-process run, and again every module
# imported during the test: a package that imports submodules lazily (sympy's ``expand``
# imports ``sympy.simplify``) is then left half-imported, and a later test that draws
# programs fails with a circular import. ``KeepModules`` and the two fixtures put them back.


class KeepModules:
    """A plugin for an in-process pytest run that notes ``sys.modules`` at its end, for
    ``run_pytest`` to put back what the run imported."""

    def __init__(self) -> None:
        self.modules: dict[str, ModuleType] = {}

    def pytest_unconfigure(self) -> None:
        """The run is over: note what it imported."""
        self.modules = dict(sys.modules)


@pytest.fixture
def kept_modules() -> Iterator[dict[str, ModuleType]]:
    """Set up before pytester, torn down after it: puts back the modules noted in the dict."""
    noted: dict[str, ModuleType] = {}
    yield noted
    for name, module in noted.items():
        sys.modules.setdefault(name, module)


@pytest.fixture
def pytester(
    kept_modules: dict[str, ModuleType], pytester: pytest.Pytester
) -> Iterator[pytest.Pytester]:
    """pytester's, noting at the end of the test the modules it imported (see above)."""
    yield pytester
    kept_modules.update(sys.modules)


def run_pytest(pytester: pytest.Pytester, *args: str) -> tuple[int, str, Path]:
    """pytest run in this process (kernel caches stay warm) in the pytester's empty folder:
    exit status, output, and the JUnit XML file."""
    junit = pytester.path / "junit.xml"
    keep = KeepModules()
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-rA",
                                          f"--junitxml={junit}", *args, plugins=[keep])  # fmt: skip
    for name, module in keep.modules.items():
        sys.modules.setdefault(name, module)
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


def test_plugin_gives_the_verdicts_of_relay_conform(
    skewed_installed: Path, small: Path, tmp_path: Path, pytester: pytest.Pytester
) -> None:
    seed, drawn = skew_draw(PROGRAMS)
    failing = next(c for c in conform_cases(None, PROGRAMS, seed) if c.name == first(drawn, "fail"))
    xfail = tmp_path / "xfail.txt"
    xfail.write_text(XFAIL.format(passing=first(drawn, "pass")))
    report = conform(SkewedTarget(), corpus_dir=small, programs=PROGRAMS, seed=seed,
                     expected_failures=ExpectedFailures.read(xfail))  # fmt: skip
    want = statuses(report)
    assert set(want.values()) == {"pass", "fail", "xfail", "xpass", "skip"}
    code, output, junit = run_pytest(
        pytester, "--relay-target", "skewed", "--relay-programs", str(PROGRAMS),
        "--relay-seed", str(seed), "--relay-corpus", str(small),
        "--relay-expected-failures", str(xfail),
    )  # fmt: skip
    assert code == 1, output
    assert plugin_statuses(junit) == want
    # pytest's own outcomes follow: a failure and an unexpected pass fail, a listed failure is
    # xfailed, the rest pass or skip.
    c = {s: sum(v == s for v in want.values()) for s in ("pass", "fail", "xfail", "xpass", "skip")}
    summary = output.strip().splitlines()[-1]
    assert f"{c['fail'] + c['xpass']} failed, {c['pass']} passed, {c['skip']} skipped" in summary
    assert f"{c['xfail']} xfailed" in summary
    # pytest cuts the short summary to the terminal's width except where it sees a CI variable,
    # so the line is matched by its start, not its end.
    assert any(
        line.startswith("FAILED ")
        and f"relay-conform[skewed]::{failing.test_id} - fail: mismatch: result: " in line
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


# ---------------------------------------------------------------------------------------------
# The generated programs are the same for the same seed everywhere

CONSTANTS = "VALUES = [{}]\nNAMES = [{}]\n".format(
    ", ".join(f"{(-1) ** i * (7919 * i + 3)}, {i * 0.37 + 1e5}" for i in range(60)),
    ", ".join(f"'word{i}'" for i in range(30)),
)
"""A module full of literal constants: Hypothesis mixes those of the loaded local modules into
what it draws unless ``stable_draws`` is in force."""


def drawn(count: int, seed: int) -> list[str]:
    """The text and arguments of the programs ``generated_cases`` draws."""
    from relay.oracles.target_oracle import generated_cases
    from relay.semantics.values import format_value

    return [
        astext(c.mod) + repr([[format_value(a) for a in args] for args in c.all_args])
        for c in generated_cases(count, seed)
    ]


def test_generated_cases_do_not_depend_on_imports_or_the_settings_profile(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hypothesis import settings

    # Without ``stable_draws`` the 5th and 7th of these programs change (measured).
    before = drawn(8, 4)
    assert len(set(before)) == 8  # distinct programs
    (tmp_path / "kit_constants.py").write_text(CONSTANTS)
    monkeypatch.syspath_prepend(str(tmp_path))
    __import__("kit_constants")
    settings.register_profile("kit-other", max_examples=5, derandomize=True, deadline=50)
    profile = settings.get_current_profile_name()
    settings.load_profile("kit-other")
    try:
        assert drawn(8, 4) == before
    finally:
        settings.load_profile(profile)
        sys.modules.pop("kit_constants", None)


DRAW = """\
import hashlib, sys
for name in sys.argv[1:]:
    __import__(name)
from relay.oracles.target_oracle import case_key, generated_cases
keys = [case_key(c) for c in generated_cases(20, 5)]
print(len(set(keys)), hashlib.sha256("\\n".join(keys).encode()).hexdigest())
"""


@pytest.mark.slow
def test_generated_cases_are_the_same_in_fresh_processes(tmp_path: Path) -> None:
    """Two fresh processes, with other imports, hash seeds and module constants before the
    draw, draw the same programs (the determinism a backend author's CI relies on)."""
    (tmp_path / "draw.py").write_text(DRAW)
    (tmp_path / "kit_constants.py").write_text(CONSTANTS)
    runs = [(["relay"], "0"), (["relay.cli", "kit_constants", "relay.pytest_plugin"], "77")]
    outputs = []
    for imports, hash_seed in runs:
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(tmp_path)}
        done = subprocess.run([sys.executable, str(tmp_path / "draw.py"), *imports], env=env,
                              capture_output=True, text=True, timeout=600)  # fmt: skip
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] and outputs[0].startswith("20 ")
