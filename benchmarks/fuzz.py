"""``relay fuzz`` against the mutation corpus: mutation score, time to first failure, false
alarms and campaign throughput.

Two tables, both measured with the campaign driver itself (``oracles.fuzz.fuzz_pass``, the
body of ``relay fuzz --pass SPEC``: whatever the driver does to choose programs, footprint
learning included, is what is measured):

- **Mutants** (``tests/mutants``, every entry of ``MUTANTS``): each mutant is fuzzed on
  ``--seeds`` seeds (0, 1, ...) with ``--time`` seconds per seed. A seed *catches* the mutant
  when the campaign reports a failure whose verdict kind is one ``MUTANTS`` lists for it (a
  failure of another kind is counted as a wrong verdict, not a catch). Per mutant: the seeds
  that caught it, the median over seeds of the wall time and of the examples to the *first*
  failing example (before shrinking; a seed that missed counts as the limit, shown with
  ``>``), the verdict kinds, and the largest shrunk report (lines of program). The mutation
  score is the share of mutants caught on every seed.
- **Passes** (every built-in pass, the ``opt-level-3`` pipeline, and every correct pass of
  ``tests/mutants/correct.py``): each is fuzzed for ``--pass-time`` seconds on one seed.
  Programs checked per second is the campaign's throughput (wall time, so measured on a shared
  machine it is a lower bound); any report is a false alarm (or a real bug in a built-in
  pass) and is printed with its file.

    python benchmarks/fuzz.py [--mutants NAME,...] [--seeds N] [--time S] [--reach N]
                              [--passes NAME,...] [--pass-time S] [--no-mutants] [--no-passes]
                              [--keep DIR] [--verbose]

``--keep DIR`` writes the reports in ``DIR`` (default: a temporary folder, removed at the end);
``--verbose`` prints each campaign's progress lines on stderr (the failure found, how far its
report was reduced).

``--reach N`` adds a first table: how many of ``N`` programs from ``relay gen`` (the
unsteered stream) each mutant changes, without evaluating anything; the issue measured 0 to 9
of 1,000 for most of its mutants, which is why a blind fuzzer misses them.

``--mutants`` and ``--passes`` take attribute names (``relu_as_leaky_relu``) or pass names
(``fold-constant``, ``relu_idempotent``), comma-separated; a quick look is
``--mutants relu_as_leaky_relu,float_lets --seeds 2 --time 20 --no-passes``.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from relay.oracles.fuzz import builtin_names, fuzz_pass, load_pass
from relay.oracles.pass_oracle import time_limit
from relay.semantics.errors import RelayError
from relay.semantics.syntax import IRModule
from relay.semantics.text.parser import parse
from relay.semantics.text.printer import astext

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from mutants import MUTANTS, Mutant  # noqa: E402
from mutants.correct import CORRECT  # noqa: E402

CORRECT_FILE = ROOT / "tests" / "mutants" / "correct.py"


@dataclass
class Outcome:
    """One campaign: what it found, how fast, and how large its report is."""

    examples: int
    seconds: float
    kind: str | None = None
    first_examples: int = 0
    first_seconds: float = 0.0
    report_lines: int = 0
    path: str | None = None
    error: str | None = None


def program_lines(text: str) -> int:
    """Lines of program in a report file: not blank, not a comment, not the version line, and
    not in the metadata section (the measure ``tests/test_mutants.py`` bounds)."""
    # The section starts a line; a report's header comment may quote one ("//   #[metadata]").
    body = ("\n" + text).split("\n#[metadata]", 1)[0]
    return sum(
        1
        for line in body.splitlines()
        if line.strip() and not line.lstrip().startswith(("//", "#[version"))
    )


MAX_EXAMPLES = 1_000_000
"""``--max-examples`` of every campaign here and in ``tests/test_mutants.py``: more than any
budget reaches, so time decides. (Hypothesis sizes what it draws by how far through
``max_examples`` a run is, so the programs a seed draws depend on this number too: with
``10**9`` seed 0 draws other programs than with ``10**6``.)"""


VERBOSE = False
"""``--verbose``: each campaign's progress lines (failures found, reductions) on stderr."""


def _progress(line: str) -> None:
    print(f"  | {line}", file=sys.stderr, flush=True)


def campaign(spec: str, *, seed: int, seconds: float, out: Path) -> Outcome:
    """Fuzz the pass ``spec`` for ``seconds`` on ``seed``, as ``relay fuzz --pass SPEC --seed
    SEED --time SECONDS --max-examples 1000000`` does."""
    result = fuzz_pass(
        load_pass(spec),
        max_examples=MAX_EXAMPLES,
        time_budget=seconds,
        seed=seed,
        out_dir=out,
        database=None,
        progress=_progress if VERBOSE else None,
    )
    outcome = Outcome(result.examples, result.seconds, error=result.error)
    if result.verdict is not None:
        outcome.kind = result.verdict.kind
        outcome.path = result.path
        if result.first_failure is not None:
            outcome.first_examples, outcome.first_seconds = result.first_failure
        if result.path is not None:
            outcome.report_lines = program_lines(Path(result.path).read_text(encoding="utf-8"))
    return outcome


def _median(xs: list[float]) -> float:
    return statistics.median(xs) if xs else 0.0


def mutant_table(chosen: list[Mutant], seeds: int, limit: float, out: Path) -> None:
    """Print the mutants table and the mutation score."""
    print(f"Mutants: {seeds} seeds, {limit:g} s per seed (first failure before shrinking)")
    print(f"  {'mutant':38s} {'caught':>6s} {'median s':>9s} {'median ex':>9s} "
          f"{'lines':>5s}  verdicts")  # fmt: skip
    everywhere = 0
    medians: list[float] = []
    missed: list[str] = []
    for m in chosen:
        runs = [
            campaign(
                f"{ROOT / 'tests' / 'mutants' / m.file}:{m.attr}",
                seed=s,
                seconds=limit,
                out=out / f"{m.attr}-{s}",
            )
            for s in range(seeds)
        ]
        hit = [r.kind in m.verdicts for r in runs]
        caught = [r for r, h in zip(runs, hit, strict=True) if h]
        wrong = sorted({r.kind for r in runs if r.kind is not None and r.kind not in m.verdicts})
        times = [r.first_seconds if h else limit for r, h in zip(runs, hit, strict=True)]
        counts = [
            float(r.first_examples if h else r.examples) for r, h in zip(runs, hit, strict=True)
        ]
        med = _median(times)
        medians.append(med)
        everywhere += len(caught) == seeds
        if len(caught) < seeds:
            missed.append(m.attr)
        shown = f"{'>' if med >= limit else ''}{med:.1f}"
        kinds = ",".join(sorted({r.kind for r in caught if r.kind})) or "-"
        if wrong:
            kinds += f" (wrong: {','.join(str(k) for k in wrong)})"
        lines = max((r.report_lines for r in caught), default=0)
        print(f"  {m.attr:38s} {len(caught):>3d}/{seeds:<2d} {shown:>9s} "
              f"{_median(counts):9.0f} {lines or '-':>5}  {kinds}", flush=True)  # fmt: skip
    if chosen:
        score = 100.0 * everywhere / len(chosen)
        print(f"  mutation score: {everywhere}/{len(chosen)} caught on every seed ({score:.0f}%);"
              f" median time to first failure {_median(medians):.1f} s")  # fmt: skip
        if missed:
            print(f"  not caught on every seed: {', '.join(missed)}")


def pass_table(names: list[str], seconds: float, out: Path) -> None:
    """Print the passes table: throughput and false alarms."""
    print(f"\nPasses: {seconds:g} s each, seed 0")
    print(f"  {'pass':38s} {'examples':>8s} {'programs/s':>10s}  result")
    rates: list[float] = []
    alarms = 0
    for name in names:
        spec = f"{CORRECT_FILE}:{name}" if name in CORRECT else name
        r = campaign(spec, seed=0, seconds=seconds, out=out / f"pass-{name}")
        rate = r.examples / r.seconds if r.seconds > 0 else 0.0
        if name not in CORRECT:
            rates.append(rate)
        status = "ok"
        if r.kind is not None:
            alarms += 1
            status = f"REPORTED {r.kind} -> {r.path}"
        elif r.error is not None:
            status = f"error: {r.error}"
        print(f"  {name:38s} {r.examples:8d} {rate:10.1f}  {status}", flush=True)
    if rates:
        print(f"  median throughput over {len(rates)} built-in passes: "
              f"{_median(rates):.1f} programs/s (wall, one process)")  # fmt: skip
    print(f"  false alarms: {alarms}")


def reach_table(chosen: list[Mutant], count: int, out: Path) -> None:
    """Print how many of ``count`` programs of ``relay gen`` (the generator's own stream,
    without steering) each mutant changes: a pass that changes no program cannot fail on one,
    so this bounds what a blind fuzzer can find (no evaluation: cheap)."""
    folder = out / "gen"
    subprocess.run(
        [sys.executable, "-m", "relay", "gen", "--count", str(count), "--seed", "0",
         "--out", str(folder)],
        check=True, capture_output=True, cwd=ROOT,
    )  # fmt: skip
    texts = [path.read_text(encoding="utf-8") for path in sorted(folder.glob("*.relay"))]
    programs = []
    for text in texts:
        with contextlib.suppress(RelayError):
            programs.append((text, parse(text)))
    print(f"\nReach: programs of {len(programs)} from `relay gen --seed 0` each mutant changes")
    for m in chosen:
        p = load_pass(f"{ROOT / 'tests' / 'mutants' / m.file}:{m.attr}").pass_
        changed = 0
        for text, mod in programs:
            if "mutated-input" in m.verdicts:
                mod = parse(text)  # the pass changes what it is given: give it a copy
            before = astext(mod)
            try:
                with time_limit(2.0):
                    after = p.transform(mod)
            except Exception:  # a crash, a timeout: the pass did touch the program
                changed += 1
                continue
            changed += not isinstance(after, IRModule) or astext(after) != before
        print(f"  {m.attr:38s} {changed:5d}", flush=True)


def _names(text: str | None) -> list[str]:
    return [n for n in (text or "").split(",") if n]


def main(argv: list[str] | None = None) -> int:
    """Parse the options and print the tables."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mutants", metavar="NAME,...", help="only these mutants (default: all)")
    ap.add_argument("--seeds", type=int, default=5, help="seeds per mutant (default 5)")
    ap.add_argument("--time", type=float, default=60.0, help="seconds per mutant and seed")
    ap.add_argument("--passes", metavar="NAME,...", help="only these passes (default: all)")
    ap.add_argument("--pass-time", type=float, default=20.0, help="seconds per pass")
    ap.add_argument(
        "--reach",
        type=int,
        default=0,
        metavar="N",
        help="also count how many of N generated programs each mutant changes",
    )
    ap.add_argument("--no-mutants", action="store_true", help="skip the mutants table")
    ap.add_argument("--no-passes", action="store_true", help="skip the passes table")
    ap.add_argument(
        "--keep", metavar="DIR", help="write the reports in DIR (default: a temporary one)"
    )
    ap.add_argument("--verbose", action="store_true", help="campaign progress lines on stderr")
    args = ap.parse_args(argv)
    global VERBOSE
    VERBOSE = args.verbose
    wanted = _names(args.mutants)
    unknown = set(wanted) - {m.attr for m in MUTANTS}
    passes = _names(args.passes) or [*builtin_names(), *CORRECT]
    if unknown:
        print(f"fuzz.py: error: unknown mutants: {', '.join(sorted(unknown))}", file=sys.stderr)
        return 2
    start = time.monotonic()
    with contextlib.ExitStack() as stack:
        tmp = args.keep or stack.enter_context(
            tempfile.TemporaryDirectory(prefix="relay-fuzz-bench-")
        )
        chosen = [m for m in MUTANTS if not wanted or m.attr in wanted]
        if args.reach:
            reach_table(chosen, args.reach, Path(tmp))
        if not args.no_mutants:
            mutant_table(chosen, args.seeds, args.time, Path(tmp))
        if not args.no_passes:
            pass_table(passes, args.pass_time, Path(tmp))
    print(f"\n(total {time.monotonic() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
