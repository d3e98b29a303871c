"""The pass oracle alone: checks per second of ``check_pass`` on generated programs.

``benchmarks/fuzz.py`` measures whole campaigns (Hypothesis drawing programs, the pass, the
checks); this script holds the programs fixed and measures the oracle side only. It draws
``--cases`` programs with their arguments from ``oracles.fuzz.cases()`` once (a
``@given(st.data())`` function with ``derandomize=True``, the generate phase only, so the same
programs every run), then for each pass times ``check_pass`` (the pass under the oracle
instrument: well-formedness, types, the interpreter on input and output) over all of them,
in CPU time of this process (``time.process_time``: other processes on a shared machine do
not count). It prints checks per second per pass and their median; the peer column is the
pass alone (no oracle), so the ratio is the price of checking.

With ``--arg-sets K`` it also times ``check_pass_many`` with ``K`` argument sets per program
(the case's own and ``K - 1`` more drawn from ``gen_args.values``), and prints argument sets
compared per second: the pass and the type checks run once per program, the interpreter
``K + 1`` times.

With ``--profile`` it runs the whole measurement under ``cProfile`` and prints the functions
with the most time (own and cumulative), which is how the oracle's hot spots were found.

    python benchmarks/oracle_throughput.py [--cases N] [--pass NAME ... | --all] [--arg-sets K]
        [--profile] [--seed S]

Default passes: a sample of six (``DEFAULT_PASSES``); ``--all``: every built-in pass and
``opt-level-3``, the set ``relay fuzz`` runs by default.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from relay.compiler.pass_manager import PassContext
from relay.oracles import pass_oracle
from relay.oracles.fuzz import REDUCTION_LENGTH, Case, builtin_names, cases, load_pass
from relay.oracles.gen_args import values
from relay.oracles.pass_oracle import DEFAULT_FUEL, check_pass
from relay.semantics.syntax import FuncType
from relay.semantics.typing import infer_types
from relay.semantics.values import Value

DEFAULT_PASSES = [
    "dead-code-elimination",
    "fold-constant",
    "simplify-expr",
    "to-a-normal-form",
    "eliminate-common-subexpr",
    "opt-level-3",
]


def draw_cases(count: int, seed: int, arg_sets: int) -> list[tuple[Case, list[tuple[Value, ...]]]]:
    """``count`` cases of ``oracles.fuzz.cases()``, each with ``arg_sets - 1`` more argument
    sets for ``@main`` drawn from ``gen_args.values`` (none where a parameter type has no
    generator)."""
    out: list[tuple[Case, list[tuple[Value, ...]]]] = []

    @settings(
        max_examples=count,
        phases=[Phase.generate],
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(data=st.data())
    def one(data: st.DataObject) -> None:
        case = data.draw(cases())
        more: list[tuple[Value, ...]] = []
        if arg_sets > 1:
            main = infer_types(case.mod).global_type("main")
            assert isinstance(main, FuncType)
            try:
                strategies = [values(t) for t in main.arg_types]
            except InvalidArgument:  # a parameter no generator makes (function, ref, ADT)
                strategies = None
            if strategies is not None:
                more = [tuple(data.draw(s) for s in strategies) for _ in range(arg_sets - 1)]
        out.append((case, more))

    hypothesis_seed(seed)(one)()
    return out


def measure(
    spec: str, drawn: list[tuple[Case, list[tuple[Value, ...]]]], arg_sets: int
) -> tuple[float, float, float | None, int]:
    """Checks/s with the oracle, passes/s without, argument sets/s with ``check_pass_many``
    (``None`` unless ``arg_sets > 1``), and the number of failing checks."""
    loaded = load_pass(spec)
    failures = 0
    start = time.process_time()
    for case, _ in drawn:
        verdict = check_pass(
            loaded.pass_, case.mod, case.args, fuel=DEFAULT_FUEL, reduction_length=REDUCTION_LENGTH
        )
        if verdict is not None:
            failures += 1
            print(f"  {spec}: {verdict.kind}: {verdict.message}")
    checked = len(drawn) / (time.process_time() - start)
    start = time.process_time()
    for case, _ in drawn:
        with PassContext(opt_level=3):
            loaded.pass_(case.mod)
    alone = len(drawn) / (time.process_time() - start)
    many: float | None = None
    many_fn = getattr(pass_oracle, "check_pass_many", None)
    if arg_sets > 1 and many_fn is not None:
        compared = 0
        start = time.process_time()
        for case, more in drawn:
            sets = [case.args, *more]
            compared += len(sets)
            many_fn(
                loaded.pass_, case.mod, sets, fuel=DEFAULT_FUEL, reduction_length=REDUCTION_LENGTH
            )
        many = compared / (time.process_time() - start)
        print(f"  {spec}: {compared / len(drawn):.2f} argument sets per program")
    return checked, alone, many, failures


def main() -> None:
    """Parse the options, draw the cases, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=300)
    parser.add_argument("--pass", dest="passes", action="append", metavar="NAME")
    parser.add_argument("--arg-sets", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--all", action="store_true", help="every built-in pass and opt-level-3")
    args = parser.parse_args()
    passes: list[str] = builtin_names() if args.all else args.passes or DEFAULT_PASSES
    start = time.process_time()
    drawn = draw_cases(args.cases, args.seed, args.arg_sets)
    print(f"{len(drawn)} cases drawn in {time.process_time() - start:.1f} s CPU (seed {args.seed})")
    profile = cProfile.Profile() if args.profile else None
    if profile is not None:
        profile.enable()
    rates: list[float] = []
    print(f"  {'pass':28} {'checks/s':>9} {'pass alone/s':>13} {'ratio':>6} {'arg sets/s':>11}")
    for spec in passes:
        checked, alone, many, _ = measure(spec, drawn, args.arg_sets)
        rates.append(checked)
        many_text = f"{many:11.1f}" if many is not None else f"{'-':>11}"
        print(f"  {spec:28} {checked:9.1f} {alone:13.1f} {alone / checked:6.1f} {many_text}")
    print(f"  median checks/s over {len(passes)} passes: {statistics.median(rates):.1f}")
    if profile is not None:
        profile.disable()
        stats = pstats.Stats(profile)
        stats.sort_stats("tottime").print_stats(25)
        stats.sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()
