"""The conformance kit: one implementation behind ``relay conform`` and the pytest plugin.

A *conformance run* holds a target to the reference on a list of ``ConformCase``s: every case
of the corpus (``tests/conformance``, ``relay.oracles.corpus``) and ``N`` programs drawn by the
generators for a seed (``target_oracle.generated_cases``). Each case is

1. collected (``conform_cases``): named (a corpus file's stem, or ``gen:SEED:INDEX``), tagged
   with the constructs and operator families it uses (``target_oracle.tags``) and the operators
   it calls; its test id is ``NAME[TAGS]``, so a pytest ``-k`` selects by construct or op;
2. run (``run_conform_case``): a corpus case on the compiled target against its own stated
   expectation (``conformance.run_case``), a generated program against the interpreter
   (``target_oracle.check_target_outcome``, in a forked child so a crash is a verdict);
   a case using what the target declares unsupported, or whose outcome is undefined behaviour,
   is a skip;
3. judged (``judge``) against the expected-failure list: ``pass``, ``fail``, ``xfail`` (listed
   and failing), ``xpass`` (listed and passing: unexpected, and a failure of the run, so that
   the list stays exact) or ``skip``.

``relay conform`` calls ``conform`` (all three for every case); the plugin
(``relay.pytest_plugin``) makes one test item per collected case and calls ``run_conform_case``
and ``judge`` in the item, so the two give the same verdicts by construction
(``tests/test_conform_kit.py`` checks it end to end).

**Expected-failure files.** One entry per line, the first word the *key*, the rest of the line
the reason; ``#`` starts a comment line, blank lines are ignored::

    # case ids
    conv2d                 winograd transform not exact at float16
    gen:0:17               a generated program (gen:SEED:INDEX)
    # every case that calls an operator, or uses an operator family or a construct
    op:nn.conv2d           no convolution kernels yet
    op:nn/pool             pooling lands next release
    construct:references   no store on the device

A key is a case id, ``op:NAME`` with ``NAME`` an operator or an operator family (as ``relay
ops`` lists them), or ``construct:NAME`` with ``NAME`` one of ``CONSTRUCTS``. (A generated
program's id ``gen:SEED:INDEX`` holds for one number of programs ``N``, in every process
whatever it imported: the generators draw differently for another ``N``.) A case is
listed by its own id first, else by the first ``op:`` or ``construct:`` entry (in file
order) that it uses. An entry that names no case of the run is *stale*: both front ends warn.

**Shrinking.** With ``shrink=True`` a failing generated program is re-searched with the same
seed by Hypothesis and shrunk (``shrink_generated``); the outcome carries the smaller program
and its verdict, which the report (``conform_report``) shows.
"""

from __future__ import annotations

import re
import time
import warnings
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import Phase, given
from hypothesis import seed as hypothesis_seed
from hypothesis.errors import HypothesisWarning
from hypothesis.reporting import with_reporter

from ..semantics.errors import BackendError, Exhaustion, Stuck
from ..semantics.ops import OPS
from ..semantics.syntax import Call, Expr, IRModule, Op, children
from ..semantics.text.printer import astext
from ..targets.base import KernelRejected, Target
from .conformance import run_case
from .corpus import Case as CorpusCase
from .corpus import ExpectError, corpus, load_case
from .engines import Engine, target_engine
from .fuzz import Case
from .stable import stable_draws
from .target_oracle import (
    CONSTRUCTS,
    TargetVerdict,
    case_key,
    check_target_outcome,
    declared_unsupported,
    draw_settings,
    generated_cases,
    program_cases,
    tags,
)

STATUSES = ("pass", "fail", "xfail", "xpass", "skip")
"""The verdicts of a case, in the order the summary table shows them."""

MAX_NODES = 12
"""The size bound of generated programs (``fuzz.cases``), as ``generated_cases`` uses it."""


# ---------------------------------------------------------------------------------------------
# Collecting


def operators(mod: IRModule) -> tuple[str, ...]:
    """The registered operators ``mod`` calls, sorted (a walk with an explicit stack)."""
    found: set[str] = set()
    seen: set[Expr] = set()
    for fn in mod.functions.values():
        stack: list[Expr] = [fn.body]
        while stack:
            e = stack.pop()
            if e in seen:
                continue
            seen.add(e)
            if isinstance(e, Call) and isinstance(e.op, Op) and e.op.name in OPS:
                found.add(e.op.name)
            stack.extend(children(e))
    return tuple(sorted(found))


@dataclass(frozen=True)
class ConformCase:
    """One case of a run: a corpus file (``corpus_case``) or a generated program
    (``generated``, drawn ``index``-th for ``seed``)."""

    name: str
    tags: tuple[str, ...]
    ops: tuple[str, ...]
    corpus_case: CorpusCase | None = None
    generated: Case | None = None
    seed: int = 0
    index: int = 0

    @property
    def test_id(self) -> str:
        """``NAME[constructs and operators]``: what a test report and ``-k`` see."""
        constructs = [t for t in self.tags if not t.startswith("op:")]
        return f"{self.name}[{','.join([*constructs, *self.ops]) or 'no-ops'}]"

    @property
    def module(self) -> IRModule:
        """The case's program."""
        if self.corpus_case is not None:
            return self.corpus_case.module
        assert self.generated is not None
        return self.generated.mod


def corpus_conform_case(path: Path) -> ConformCase:
    """The case of one corpus file (``ParseError`` if the file is malformed)."""
    case = load_case(path)
    return ConformCase(path.stem, tuple(tags(case.module)), operators(case.module), case)


def conform_cases(
    corpus_dir: Path | None, programs: int, seed: int, target: Target | None = None
) -> list[ConformCase]:
    """Every corpus case of ``corpus_dir`` (in name order; none if ``None``), then ``programs``
    generated programs for ``seed`` (of the kind ``target`` asks for: ``program_cases``)."""
    out = [corpus_conform_case(p) for p in corpus(corpus_dir)] if corpus_dir else []
    for i, gen in enumerate(generated_cases(programs, seed, MAX_NODES, target=target)):
        out.append(ConformCase(f"gen:{seed}:{i}", tuple(tags(gen.mod)), operators(gen.mod),
                               generated=gen, seed=seed, index=i))  # fmt: skip
    return out


# ---------------------------------------------------------------------------------------------
# Running


@dataclass(frozen=True)
class CaseRun:
    """What running a case gave, before the expected-failure list is consulted: ``skip`` (and
    why, in ``message``), or ``ok``; a failure's ``message`` and, for a generated program, its
    ``verdict``."""

    ok: bool
    skip: bool
    message: str = ""
    verdict: TargetVerdict | None = None


def run_conform_case(target: Target, case: ConformCase, engine: Engine | None = None) -> CaseRun:
    """Run one case on ``target`` (``engine``: a ``target_engine(target)`` to reuse)."""
    if case.corpus_case is not None:
        return _run_corpus_case(target, case.corpus_case, engine or target_engine(target))
    assert case.generated is not None
    gen = case.generated
    try:
        skipped, verdict = check_target_outcome(target, gen.mod, gen.args, isolate=True)
    except Exception as err:  # the checker itself failed: an unexpected failure
        skipped = ""
        verdict = TargetVerdict(target.name, "crash", f"{type(err).__name__}: {err}")
    if verdict is not None:
        return CaseRun(False, False, f"{verdict.kind}: {verdict.message}", verdict)
    return CaseRun(True, bool(skipped), skipped)


def _run_corpus_case(target: Target, case: CorpusCase, engine: Engine) -> CaseRun:
    if isinstance(case.expect, ExpectError) and case.expect.kind == "UndefinedBehavior":
        # Any behaviour refines undefined behaviour, a trap included: not run.
        return CaseRun(True, True, "undefined behaviour: any result is acceptable")
    try:
        outcome = run_case(case, engine)
    except BackendError as err:
        return CaseRun(False, declared_unsupported(target, err), err.message)
    except KernelRejected as err:
        return CaseRun(False, False, str(err))
    except Exception as err:  # the target crashed: a failure of the case, not of the run
        return CaseRun(False, False, f"crash: {type(err).__name__}: {err}")
    if isinstance(outcome.error, BackendError):  # run_case reports Relay errors as outcomes
        return CaseRun(False, declared_unsupported(target, outcome.error),
                       outcome.error.message)  # fmt: skip
    return CaseRun(outcome.ok, False, outcome.message)


# ---------------------------------------------------------------------------------------------
# Expected failures


@dataclass(frozen=True)
class ExpectedFailure:
    """One entry of an expected-failure file: its key, reason and line."""

    key: str
    reason: str
    line: int


_GENERATED = re.compile(r"gen:-?\d+:\d+")


class ExpectedFailures:
    """An expected-failure list (see the module docstring), and which entries a run used."""

    def __init__(self, entries: Sequence[ExpectedFailure] = (), source: str = "") -> None:
        self.source = source
        self.entries: dict[str, ExpectedFailure] = {e.key: e for e in entries}
        self.used: set[str] = set()

    @classmethod
    def parse(cls, text: str, source: str = "<expected failures>") -> ExpectedFailures:
        """Read the file format; ``ValueError`` saying ``SOURCE:LINE: ...`` for an entry listed
        twice or a key that cannot name anything."""
        entries: dict[str, ExpectedFailure] = {}
        families = {op.family for op in OPS.values()}
        for number, line in enumerate(text.splitlines(), 1):
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            key, _, reason = stripped.partition(" ")
            where = f"{source}:{number}"
            if key in entries:
                raise ValueError(f"{where}: {key} is listed twice (first at line "
                                 f"{entries[key].line})")  # fmt: skip
            kind, sep, name = key.partition(":")
            if sep and kind == "op" and name not in OPS and name not in families:
                raise ValueError(f"{where}: {key}: no operator or operator family {name!r} "
                                 "(relay ops lists them)")  # fmt: skip
            if sep and kind == "construct" and name not in CONSTRUCTS:
                raise ValueError(f"{where}: {key}: the constructs are {', '.join(CONSTRUCTS)}")
            if sep and kind == "gen" and not _GENERATED.fullmatch(key):
                raise ValueError(f"{where}: {key}: a generated program is gen:SEED:INDEX")
            if sep and kind not in ("op", "construct", "gen"):
                raise ValueError(f"{where}: {key}: a key is a case id, gen:SEED:INDEX, "
                                 "op:NAME or construct:NAME")  # fmt: skip
            entries[key] = ExpectedFailure(key, reason.strip(), number)
        return cls(list(entries.values()), source)

    @classmethod
    def read(cls, path: Path) -> ExpectedFailures:
        """``parse`` of the file at ``path``."""
        return cls.parse(path.read_text(encoding="utf-8"), str(path))

    def lookup(self, case: ConformCase) -> ExpectedFailure | None:
        """The entry listing ``case``, if any: its own id first, else the first ``op:`` or
        ``construct:`` entry, in file order, that it uses; the entry is marked used."""
        found = self.entries.get(case.name)
        if found is None:
            keys = {f"op:{op}" for op in case.ops}
            keys |= {t if t.startswith("op:") else f"construct:{t}" for t in case.tags}
            found = next((e for k, e in self.entries.items() if k in keys), None)
        if found is not None:
            self.used.add(found.key)
        return found

    def stale(self) -> list[str]:
        """The entries no case looked up so far used, in file order."""
        return [k for k in self.entries if k not in self.used]


# ---------------------------------------------------------------------------------------------
# Judging


@dataclass(frozen=True)
class ConformOutcome:
    """One case on the target: ``status`` is one of ``STATUSES`` (see the module docstring).
    A failure carries its program's text (``program``; ``shrunk`` when Hypothesis shrank a
    generated one) and the verdict's report lines (``detail``)."""

    name: str
    status: str
    tags: tuple[str, ...]
    message: str = ""
    ops: tuple[str, ...] = ()
    program: str = ""
    detail: str = ""
    shrunk: bool = False
    listed_as: str = ""


def judge(case: ConformCase, run: CaseRun, expected: ExpectedFailures) -> ConformOutcome:
    """The verdict on ``case`` given what running it gave and the expected-failure list."""
    listed = None if run.skip else expected.lookup(case)
    if run.skip:
        status = "skip"
    elif run.ok:
        status = "xpass" if listed is not None else "pass"
    else:
        status = "xfail" if listed is not None else "fail"
    message = run.message
    if status == "xpass" and listed is not None:
        by = "" if listed.key == case.name else f" by {listed.key}"
        message = (f"listed as an expected failure{by} ({listed.reason or 'no reason given'}) "
                   "but passes")  # fmt: skip
    failed = status in ("fail", "xfail")
    return ConformOutcome(
        case.name,
        status,
        case.tags,
        message,
        case.ops,
        program=astext(case.module) if failed else "",
        detail=run.verdict.report() if failed and run.verdict is not None else "",
        listed_as=listed.key if listed is not None else "",
    )


# ---------------------------------------------------------------------------------------------
# Shrinking a failing generated program


def shrink_generated(
    target: Target, seed: int, count: int, index: int, *, max_nodes: int = MAX_NODES
) -> tuple[Case, TargetVerdict] | None:
    """Draw the ``count`` programs of ``seed`` again (the generator, seed, settings and
    skipped repeats of ``generated_cases``, which make the same draw), check the ``index``-th
    on ``target``, and
    if it fails let Hypothesis shrink it: the smallest failing program found and its verdict,
    or ``None`` if it passes this time."""
    best: list[tuple[Case, TargetVerdict]] = []
    seen: set[str] = set()

    @hypothesis_seed(seed)
    @draw_settings(count, [Phase.generate, Phase.shrink])
    @given(case=program_cases(target, max_nodes))
    def search(case: Case) -> None:
        if not best:
            key = case_key(case)
            if key in seen or len(seen) > index:
                return  # a repeat, or past the program asked for (it passed): not checked
            seen.add(key)
            if len(seen) != index + 1:
                return  # generating up to the program asked for: not checked
        try:
            _, verdict = check_target_outcome(target, case.mod, case.args, isolate=True)
        except (Exhaustion, Stuck):
            return
        if verdict is not None:
            if not best or len(astext(case.mod)) <= len(astext(best[0][0].mod)):
                best[:] = [(case, verdict)]
            raise AssertionError(verdict.message)

    try:
        with stable_draws(), with_reporter(lambda _text: None), warnings.catch_warnings():
            warnings.filterwarnings("ignore", "Generating overly large repr", HypothesisWarning)
            search()
    except AssertionError:
        pass
    except Exception:  # Hypothesis gave up (e.g. the failure is flaky): keep what was found
        pass
    return best[0] if best else None


def shrunk_outcome(
    target: Target, outcome: ConformOutcome, case: ConformCase, programs: int
) -> ConformOutcome:
    """``outcome`` of a failing generated ``case`` (one of ``programs``) with the program and
    verdict replaced by the shrunk ones, when shrinking finds it again."""
    from dataclasses import replace

    found = shrink_generated(target, case.seed, programs, case.index)
    if found is None:
        return outcome
    small, verdict = found
    return replace(outcome, program=astext(small.mod), detail=verdict.report(), shrunk=True)


# ---------------------------------------------------------------------------------------------
# A whole run


@dataclass
class ConformReport:
    """Every outcome of a run, the summary table, and whether the run succeeded."""

    target: str
    outcomes: list[ConformOutcome] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    """Expected-failure entries that named no case of the run."""
    seconds: float = 0.0
    seed: int = 0
    programs: int = 0

    @property
    def ok(self) -> bool:
        """No unexpected failure and no unexpected pass."""
        return not any(o.status in ("fail", "xpass") for o in self.outcomes)

    def counts(self) -> Counter[str]:
        """How many cases got each status."""
        return Counter(o.status for o in self.outcomes)

    def rows(self) -> list[tuple[str, Counter[str]]]:
        """The summary rows: ``all``, each construct, each operator family (``op:FAMILY``),
        and ``(none)`` for cases that use neither; each with its counts per status."""
        rows: dict[str, Counter[str]] = {"all": Counter()}
        for o in self.outcomes:
            rows["all"][o.status] += 1
            for t in o.tags or ("(none)",):
                rows.setdefault(t, Counter())[o.status] += 1
        order = ["all", *[c for c in CONSTRUCTS if c in rows],
                 *sorted(r for r in rows if r.startswith("op:")),
                 *[r for r in rows if r == "(none)"]]  # fmt: skip
        return [(r, rows[r]) for r in order]

    def table(self) -> str:
        """The summary per construct and operator family: pass, fail, xfail, xpass, skip."""
        rows = self.rows()
        width = max(18, *(len(r) for r, _ in rows))
        head = "  ".join(c.rjust(5) for c in STATUSES)
        lines = [f"{'construct / family'.ljust(width)}  {head}"]
        for r, counts in rows:
            lines.append(f"{r.ljust(width)}  " + "  ".join(str(counts[c]).rjust(5)
                                                         for c in STATUSES))  # fmt: skip
        return "\n".join(lines)

    def summary(self) -> str:
        """One line: cases, passes (and the rate among those run), failures, skips."""
        c = self.counts()
        total = len(self.outcomes)
        rate = 100.0 * c["pass"] / max(1, total - c["skip"])
        return (f"relay conform --target {self.target}: {total} cases, {c['pass']} passed "
                f"({rate:.1f}% of those run), {c['fail']} failed, {c['xfail']} expected "
                f"failures, {c['xpass']} unexpected passes, {c['skip']} skipped "
                "(unsupported, or undefined behaviour)")  # fmt: skip


def conform(
    target: Target,
    *,
    corpus_dir: Path | None,
    programs: int = 0,
    seed: int = 0,
    expected_failures: ExpectedFailures | None = None,
    on_outcome: Callable[[ConformOutcome], None] | None = None,
    shrink: bool = False,
) -> ConformReport:
    """Run the corpus of ``corpus_dir`` and ``programs`` generated programs on ``target``;
    with ``shrink``, shrink each failing generated program (see the module docstring)."""
    start = time.monotonic()
    expected = expected_failures if expected_failures is not None else ExpectedFailures()
    report = ConformReport(target.name, seed=seed, programs=programs)
    engine = target_engine(target)
    for case in conform_cases(corpus_dir, programs, seed, target):
        outcome = judge(case, run_conform_case(target, case, engine), expected)
        if shrink and outcome.status in ("fail", "xfail") and case.generated is not None:
            outcome = shrunk_outcome(target, outcome, case, programs)
        report.outcomes.append(outcome)
        if on_outcome is not None:
            on_outcome(outcome)
    report.stale = expected.stale()
    report.seconds = time.monotonic() - start
    return report


__all__ = [
    "STATUSES",
    "CaseRun",
    "ConformCase",
    "ConformOutcome",
    "ConformReport",
    "ExpectedFailure",
    "ExpectedFailures",
    "conform",
    "conform_cases",
    "corpus_conform_case",
    "judge",
    "operators",
    "run_conform_case",
    "shrink_generated",
    "shrunk_outcome",
]
