"""The conformance kit as a pytest plugin, for a backend's own CI.

Installed with relay (the ``pytest11`` entry point ``relay-conformance``), it does nothing
unless ``--relay-target`` is given; then the run also collects one test item per conformance
case::

    pytest --relay-target NAME [--relay-programs N] [--relay-seed N] [--relay-corpus DIR]
           [--relay-expected-failures FILE] [--relay-report FILE.html|FILE.md]

The items are the cases of ``relay conform`` with the same options (the corpus, then ``N``
generated programs, default 20), under a collector ``relay-conform[NAME]``, each named by its
test id ``CASE[constructs,operators]`` (``conv2d[tuples,nn.conv2d]``, ``gen:0:3[if,add]``), so
``-k nn.conv2d`` or ``-k references`` selects by operator or construct. An item runs the case
and judges it with the functions ``relay conform`` uses (``relay.oracles.conform_kit``): a
pass passes; a failure fails with the verdict and the program; a case on the expected-failure
list is ``xfailed`` when it fails and fails (an unexpected pass) when it passes; a case using
what the target declares unsupported, or expecting undefined behaviour, is skipped with the
reason. At the end the terminal summary shows ``relay conform``'s table and warns about stale
expected-failure entries; ``--relay-report`` writes the same report as ``relay conform
--report`` (failing generated programs shrunk).

Without ``--relay-target`` the plugin only registers its options: it imports nothing heavy and
collects nothing, so it neither slows nor changes another test run.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from .oracles.conform_kit import ConformCase, ConformOutcome, ExpectedFailures
    from .oracles.engines import Engine
    from .targets.base import Target


@dataclass
class _Kit:
    """The run's target, inputs and the outcomes so far."""

    target: Target
    corpus: Path
    expected: ExpectedFailures
    programs: int
    seed: int
    report: Path | None
    engine: Engine
    outcomes: list[ConformOutcome] = field(default_factory=list)
    cases: dict[str, ConformCase] = field(default_factory=dict)


_KIT = pytest.StashKey[_Kit]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ``--relay-*`` options."""
    group = parser.getgroup("relay", "Relay conformance kit (relay.pytest_plugin)")
    group.addoption("--relay-target", default=None, metavar="NAME",
                    help="collect the conformance cases and run them on this target (cpu, or "
                    "one installed through the relay.targets entry-point group)")  # fmt: skip
    group.addoption("--relay-programs", type=int, default=20, metavar="N",
                    help="generated programs after the corpus (default 20)")  # fmt: skip
    group.addoption("--relay-seed", type=int, default=0, metavar="N",
                    help="the generators' seed (default 0)")  # fmt: skip
    group.addoption("--relay-corpus", default=None, metavar="DIR",
                    help="the corpus folder (default: relay's tests/conformance)")  # fmt: skip
    group.addoption(
        "--relay-expected-failures",
        default=None,
        metavar="FILE",
        help="expected failures, as for relay conform --expected-failures",
    )
    group.addoption("--relay-report", default=None, metavar="FILE",
                    help="write relay conform's report (FILE.html or FILE.md)")  # fmt: skip


def pytest_configure(config: pytest.Config) -> None:
    """With ``--relay-target``: build the target and read the inputs (a usage error if any is
    wrong)."""
    name = config.getoption("relay_target")
    if not name:
        return
    from .cli_target import TargetUsage, conform_inputs, make_target
    from .oracles.engines import target_engine

    report = config.getoption("relay_report")
    try:
        target = make_target(name, None)
        corpus, expected = conform_inputs(target.name, config.getoption("relay_corpus"),
                                          config.getoption("relay_expected_failures"))  # fmt: skip
        if report:
            from .oracles.conform_report import report_format

            report_format(Path(report))
    except (TargetUsage, ValueError) as err:
        raise pytest.UsageError(f"--relay-target: {err}") from None
    assert corpus is not None
    programs = config.getoption("relay_programs")
    if programs < 0:
        raise pytest.UsageError(f"--relay-programs must be at least 0, found {programs}")
    config.stash[_KIT] = _Kit(target, corpus, expected, programs, config.getoption("relay_seed"),
                              Path(report) if report else None, target_engine(target))  # fmt: skip
    config.addinivalue_line("markers", "relay_conformance: a case of the Relay conformance kit")


class ConformanceFailure(Exception):
    """A case that failed, or passed although listed as an expected failure."""

    def __init__(self, outcome: ConformOutcome) -> None:
        super().__init__(outcome.message)
        self.outcome = outcome


class ConformanceItem(pytest.Item):
    """One conformance case on the target."""

    def __init__(self, *, case: ConformCase, kit: _Kit, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.case = case
        self.kit = kit
        self.add_marker("relay_conformance")
        self.extra_keyword_matches.update([*case.tags, *case.ops])

    def runtest(self) -> None:
        """Run and judge the case as ``relay conform`` does, then report its status."""
        from .oracles.conform_kit import judge, run_conform_case

        run = run_conform_case(self.kit.target, self.case, self.kit.engine)
        outcome = judge(self.case, run, self.kit.expected)
        self.kit.outcomes.append(outcome)
        self.user_properties.append(("relay_status", outcome.status))
        if outcome.status == "skip":
            pytest.skip(outcome.message)
        if outcome.status == "xfail":
            pytest.xfail(outcome.message)
        if outcome.status in ("fail", "xpass"):
            raise ConformanceFailure(outcome)

    def repr_failure(
        self,
        excinfo: pytest.ExceptionInfo[BaseException],
        style: Any = None,
    ) -> str:
        """The verdict and the program, not a traceback into the kit."""
        if not isinstance(excinfo.value, ConformanceFailure):
            return str(super().repr_failure(excinfo, style=style))
        o = excinfo.value.outcome
        lines = [f"{o.status}: {o.message}"]
        if o.detail:
            lines += ["", o.detail]
        if o.program:
            lines += ["", "program:", o.program.rstrip()]
        return "\n".join(lines)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        """Where the case comes from: its corpus file, or the generator."""
        if self.case.corpus_case is not None:
            return Path(self.case.corpus_case.path), None, f"relay conformance {self.name}"
        return self.path, None, f"relay conformance {self.name} (generated, seed {self.case.seed})"


class ConformanceCollector(pytest.Collector):
    """The cases of the run (``conform_kit.conform_cases``)."""

    def __init__(self, *, kit: _Kit, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.kit = kit

    def collect(self) -> Iterable[pytest.Item]:
        """One ``ConformanceItem`` per case."""
        from .oracles.conform_kit import conform_cases

        for case in conform_cases(
            self.kit.corpus, self.kit.programs, self.kit.seed, self.kit.target
        ):
            self.kit.cases[case.name] = case
            yield ConformanceItem.from_parent(self, name=case.test_id, case=case, kit=self.kit)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Add the conformance items (before ``-k`` and ``-m`` deselect)."""
    kit = config.stash.get(_KIT, None)
    if kit is None:
        return
    name = f"relay-conform[{kit.target.name}]"
    collector = ConformanceCollector.from_parent(session, name=name, nodeid=name, kit=kit)
    collected = list(collector.collect())
    # Reported as collection reports them, so that the counts ("collected N items") include
    # the cases.
    nodes: list[pytest.Item | pytest.Collector] = list(collected)
    config.hook.pytest_collectreport(report=pytest.CollectReport(name, "passed", None, nodes))
    items.extend(collected)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """``relay conform``'s table for the cases that ran, stale entries, and the report."""
    kit = config.stash.get(_KIT, None)
    if kit is None or not kit.outcomes:
        return
    from .oracles.conform_kit import ConformReport, shrunk_outcome

    report = ConformReport(kit.target.name, list(kit.outcomes), seed=kit.seed,
                           programs=kit.programs)  # fmt: skip
    terminalreporter.section(f"relay conformance: target {kit.target.name}")
    for line in report.table().splitlines():
        terminalreporter.write_line(line)
    terminalreporter.write_line(report.summary())
    # Stale as relay conform says it (no case that ran, and was not skipped, is listed by
    # the entry), and only when every collected case ran: -k or -m would make entries stale.
    if len(kit.outcomes) == len(kit.cases):
        for key in kit.expected.stale():
            terminalreporter.write_line(
                f"warning: expected failure {key} names no case of this run"
            )
    if kit.report is not None:
        from .oracles.conform_report import write_report

        report.outcomes = [
            shrunk_outcome(kit.target, o, kit.cases[o.name], kit.programs)
            if o.status in ("fail", "xfail") and kit.cases[o.name].generated is not None
            else o
            for o in report.outcomes
        ]
        write_report(report, kit.report)
        terminalreporter.write_line(f"report written to {kit.report}")
