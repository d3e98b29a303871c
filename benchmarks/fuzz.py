"""``relay fuzz``: throughput with the oracle on, and time to the first counterexample of each
deliberately broken pass (``tests/mutants``).

It prints two tables.

- **Throughput**, per built-in pass (every pass in ``BUILTIN_PASSES``, read at run time, so
  new passes are included, and the ``opt-level-3`` pipeline): generated examples per second
  with the oracle on (the pass under the oracle instrument: well-formedness, types, and the
  interpreter run on input and output, exactly what ``relay fuzz`` does per example), over a
  fixed number of examples per pass, in wall time and in CPU time of this process (the
  machine may be shared; CPU time does not count what other processes take). The peer, in the
  last column, is the same examples with the pass alone (no oracle): the ratio is the price
  of checking. A pass that fails an example here is a real bug and is printed.
- **Time to first counterexample**, per mutant: the median over ``--seeds`` seeds of the wall
  time and the number of examples until the first failing example is generated, *before*
  shrinking (what a user waits for before ``relay fuzz`` knows it has a bug; shrinking then
  takes what is left of its budget). A mutant not caught within ``--mutant-time`` seconds on
  a seed counts as that limit (shown with ``>``).

Both run the fuzz body themselves, with the same strategy (``oracles.fuzz.cases``, with each
pass's focus operators), the same checks (``oracles.pass_oracle.check_pass`` with the fuzz
campaign's fuel, per-example timeout and tolerance) and the same Hypothesis settings as
``relay fuzz``, but only the generate phase: ``fuzz_pass`` records examples to the first
failure (``found after N examples`` in a report) but not the time, and it always shrinks.

    python benchmarks/fuzz.py [--examples N] [--seeds K] [--mutant-time S] [--only NAME ...]
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed

from relay.compiler.pass_manager import BUILTIN_PASSES, PassContext, Sequential, run_pass
from relay.oracles.fuzz import (
    EXAMPLE_TIMEOUT,
    REDUCTION_LENGTH,
    Case,
    LoadedPass,
    cases,
    focus_of,
    load_pass,
)
from relay.oracles.pass_oracle import DEFAULT_FUEL, PassTimeout, check_pass, time_limit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.mutants import MUTANTS  # noqa: E402


class _Found(BaseException):
    """Stops a run at the first failing example (Hypothesis lets a BaseException through
    without shrinking)."""


@dataclass
class Run:
    """One pass on one seed: examples run, wall and CPU seconds, and the first verdict."""

    examples: int = 0
    wall: float = 0.0
    cpu: float = 0.0
    verdict: str | None = None
    message: str = ""


def fuzz_until_failure(
    loaded: LoadedPass, *, seed: int, max_examples: int, time_budget: float, oracle: bool = True
) -> Run:
    """Run ``relay fuzz``'s body on generated examples until the first failure, ``max_examples``
    or ``time_budget`` seconds; without ``oracle``, run the pass alone (no checks)."""
    run = Run()
    start, cpu_start = time.monotonic(), time.process_time()
    deadline = start + time_budget
    p = loaded.pass_

    def body(case: Case) -> None:
        now = time.monotonic()
        if now > deadline:
            raise _Found()
        run.examples += 1
        timeout = min(EXAMPLE_TIMEOUT, max(deadline - now, 1.0))
        if not oracle:
            ctx = PassContext()
            # a failure of the pass alone is the checked run's business, not this one's
            with contextlib.suppress(PassTimeout, Exception), time_limit(timeout), ctx:
                p(case.mod) if isinstance(p, Sequential) else run_pass(p, case.mod, ctx)
            return
        verdict = check_pass(
            p,
            case.mod,
            case.args,
            timeout=timeout,
            fuel=DEFAULT_FUEL,
            reduction_length=REDUCTION_LENGTH,
        )
        if verdict is not None:
            run.wall = time.monotonic() - start
            run.verdict, run.message = verdict.kind, verdict.message
            raise _Found()

    test = settings(
        max_examples=max_examples,
        deadline=None,
        database=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate],
        print_blob=False,
    )(hypothesis_seed(seed)(given(cases(12, focus_of(p)))(body)))
    with contextlib.suppress(_Found):
        test()
    if run.verdict is None:
        run.wall = time.monotonic() - start
    run.cpu = time.process_time() - cpu_start
    return run


def throughput(names: list[str], examples: int, seed: int) -> None:
    print(f"Throughput: {examples} examples per pass, oracle on (seed {seed})")
    print(f"  {'pass':32s} {'ex/s wall':>10s} {'ex/s CPU':>9s} {'pass alone':>11s} {'ratio':>6s}")
    rates: list[float] = []
    for name in names:
        loaded = load_pass(name)
        checked = fuzz_until_failure(loaded, seed=seed, max_examples=examples, time_budget=600)
        alone = fuzz_until_failure(
            loaded, seed=seed, max_examples=examples, time_budget=600, oracle=False
        )
        wall = checked.examples / checked.wall if checked.wall else 0.0
        cpu = checked.examples / checked.cpu if checked.cpu else 0.0
        alone_cpu = alone.examples / alone.cpu if alone.cpu else 0.0
        ratio = alone_cpu / cpu if cpu else 0.0
        rates.append(cpu)
        line = f"  {name:32s} {wall:10.1f} {cpu:9.1f} {alone_cpu:11.1f} {ratio:5.1f}x"
        if checked.verdict is not None:
            line += f"  FAILED after {checked.examples}: {checked.verdict}: {checked.message}"
        print(line, flush=True)
    if rates:
        print(f"  median over {len(rates)} passes: {statistics.median(rates):.1f} examples/s (CPU)")


def mutants(only: list[str], seeds: int, limit: float, max_examples: int) -> None:
    print(f"\nTime to first counterexample (before shrinking), median over {seeds} seeds")
    print(f"  {'mutant':28s} {'median s':>9s} {'median ex':>10s}  verdicts   per seed (s)")
    medians: list[float] = []
    for m in MUTANTS:
        if only and m.attr not in only:
            continue
        loaded = load_pass(str(ROOT / "tests" / "mutants" / m.file) + ":" + m.attr)
        runs = [
            fuzz_until_failure(loaded, seed=s, max_examples=max_examples, time_budget=limit)
            for s in range(seeds)
        ]
        times = [r.wall if r.verdict is not None else limit for r in runs]
        counts = [r.examples for r in runs]
        kinds = sorted({r.verdict for r in runs if r.verdict is not None})
        missed = sum(r.verdict is None for r in runs)
        med = statistics.median(times)
        medians.append(med)
        per_seed = " ".join(
            f"{t:.1f}" if r.verdict is not None else f">{limit:g}"
            for t, r in zip(times, runs, strict=True)
        )
        shown = f"{'>' if med >= limit else ''}{med:.1f}"
        print(
            f"  {m.attr:28s} {shown:>9s} {statistics.median(counts):10.0f}  "
            f"{','.join(kinds) or '-':9s}  {per_seed}"
            + (f"  ({missed} of {seeds} seeds missed)" if missed else ""),
            flush=True,
        )
    if medians:
        print(f"  median over {len(medians)} mutants: {statistics.median(medians):.1f} s")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--examples", type=int, default=40, help="examples per pass (throughput)")
    ap.add_argument("--seeds", type=int, default=5, help="seeds per mutant")
    ap.add_argument("--mutant-time", type=float, default=60.0, help="seconds per mutant and seed")
    ap.add_argument("--mutant-examples", type=int, default=2000, help="examples per mutant/seed")
    ap.add_argument("--seed", type=int, default=0, help="seed of the throughput runs")
    ap.add_argument("--only", nargs="*", default=[], help="only these passes or mutants")
    ap.add_argument("--no-throughput", action="store_true")
    ap.add_argument("--no-mutants", action="store_true")
    args = ap.parse_args(argv)
    if not args.no_throughput:
        names = [n for n in [*BUILTIN_PASSES, "opt-level-3"] if not args.only or n in args.only]
        throughput(names, args.examples, args.seed)
    if not args.no_mutants:
        mutants(args.only, args.seeds, args.mutant_time, args.mutant_examples)
    return 0


if __name__ == "__main__":
    sys.exit(main())
