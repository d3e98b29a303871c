"""``relay fuzz``: differential fuzzing of passes against the oracle (``oracles.fuzz``).

How it learns a pass's footprint, and how to turn that off, is in the ``--help`` description
(``DESCRIPTION``) and in ``oracles/fuzz.py``'s and ``oracles/footprint.py``'s docstrings."""

from __future__ import annotations

import argparse
import secrets
import sys
import time
from pathlib import Path
from typing import Any

from .cli_progress import Display, print_table
from .semantics.errors import RelayError


class _Usage(Exception):
    pass


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, found {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, found {value}")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, found {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, found {text}")
    return value


def _progress(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _gradient_check(args: argparse.Namespace) -> bool:
    """Whether the campaign is the AD oracle's: ``--check gradient``, or only built-in passes
    that are held to it (``Gradient``: ``oracle = "gradient"``)."""
    if args.check == "gradient":
        return True
    if args.check == "value" or not args.passes:
        return False
    from .compiler.pass_manager import BUILTIN_PASSES

    by_class = {cls.__name__: cls for cls in BUILTIN_PASSES.values()}
    classes = [BUILTIN_PASSES.get(spec) or by_class.get(spec) for spec in args.passes]
    return all(getattr(cls, "oracle", "") == "gradient" for cls in classes)


def cmd_fuzz(args: argparse.Namespace) -> int:
    """Run the campaign (or replay one case); 0 no failure, 1 a failure, 2 bad usage."""
    if args.target is not None:  # the compile path of a target, not passes
        from .cli_target import cmd_fuzz_target

        return cmd_fuzz_target(args)
    if _gradient_check(args):  # the AD oracle, not the value oracle
        from .cli_grad import cmd_fuzz_gradient

        return cmd_fuzz_gradient(args)
    # The campaign needs hypothesis and z3: imported here, so other commands start fast.
    from .oracles.fuzz import PassLoadError, builtin_names, load_pass, replay

    specs: list[str] = args.passes or builtin_names()
    try:
        loaded = [load_pass(spec) for spec in specs]
    except PassLoadError as err:
        print(f"relay fuzz: error: {err}", file=sys.stderr)
        return 2
    if args.replay is not None:
        if len(loaded) != 1:
            print("relay fuzz: error: --replay needs exactly one --pass", file=sys.stderr)
            return 2
        path = Path(args.replay)
        if not path.is_file():
            print(f"relay fuzz: error: no such file: {args.replay}", file=sys.stderr)
            return 2
        try:
            _, verdict = replay(loaded[0], path, note=_progress)
        except RelayError as err:
            print(err.render(), file=sys.stderr)
            return 2
        if verdict is None:
            print(f"{loaded[0].label}: the checks pass on {path}")
            return 0
        print(verdict.report())
        return 1
    results = _campaign(args, specs, [p.label for p in loaded])
    if results is None:
        return 2
    failed = [r for r in results if r.verdict is not None or r.error is not None]
    if args.pictures:
        _pictures(results)
    if not print_table(results):
        _print_summary(results)
    if failed:
        print(f"relay fuzz: {len(failed)} of {len(results)} passes failed")
        return 1
    return 0


def _campaign(args: argparse.Namespace, specs: list[str], labels: list[str]) -> list[Any] | None:
    """Run the campaign of ``relay fuzz`` with its live display; ``None`` (after a message)
    when its database or scheduler cannot be used."""
    from .oracles.campaign import CampaignError
    from .oracles.campaign_db import DatabaseError, check_location
    from .oracles.fuzz import run_campaign

    database: str | None = args.database
    try:
        if database is not None:
            check_location(database)
    except DatabaseError as err:
        print(f"relay fuzz: error: {err}", file=sys.stderr)
        return None
    seed: int = args.seed if args.seed is not None else secrets.randbelow(2**32)
    print(f"relay fuzz: seed {seed} (rerun with --seed {seed})", flush=True)
    start = time.monotonic()
    try:
        with Display(labels, args.time, args.max_examples) as display:
            results = run_campaign(
                specs,
                max_examples=args.max_examples,
                time_budget=args.time,
                seed=seed,
                footprint=args.footprint,
                jobs=args.jobs,
                out_dir=Path(args.out),
                database=database,
                progress=display.line,
                scheduler=args.scheduler,
                ticks=display.ticks,
            )
            display.finish(results)
    except CampaignError as err:
        print(f"relay fuzz: error: {err}", file=sys.stderr)
        return None
    elapsed = time.monotonic() - start
    total = sum(r.examples for r in results)
    print(f"relay fuzz: {len(results)} passes, {total} examples in {elapsed:.1f} s")
    return results


def _pictures(results: list[Any]) -> None:
    """Draw the program of every report beside it (``REPORT.relay.svg``); a note on stderr where
    Graphviz is missing (the reports stand without their pictures)."""
    from .cli_show import draw_file
    from .pictures import PictureError

    for r in results:
        for path in r.paths:
            try:
                draw_file(path, path + ".svg")
            except PictureError as err:
                print(f"relay fuzz: no picture of {path}: {err}", file=sys.stderr)
                return
            except RelayError as err:
                print(f"relay fuzz: no picture of {path}: {err.message}", file=sys.stderr)


def _print_summary(results: list[Any]) -> None:
    width = max(len(r.label) for r in results)
    for r in results:
        rate = r.examples / r.seconds if r.seconds > 0 else 0.0
        if r.verdict is not None:
            status = f"FAILED: {r.verdict.kind}: {r.verdict.message} -> {r.path}"
        elif r.error is not None:
            status = f"ERROR: {r.error}"
        else:
            status = "ok"
        print(
            f"  {r.label.ljust(width)}  {r.examples:6d} examples  {rate:7.1f}/s  "
            f"({r.unchanged} unchanged)  {status}"
        )


DESCRIPTION = """\
Run each pass on generated well-typed programs under the oracle instrument (well-formedness,
types, and the interpreter's values before and after, on 3 argument tuples per program). A
failure is shrunk and written to OUT/<pass>-<n>.relay with a report in its header (the same
failure found again is not written twice); exit 1. Otherwise exit 0 with a summary of the
examples each pass got. Before it is written, a failure's program is reduced (at most 10 s,
within --time): globals, types, lets and parameters it does not need are dropped and parts
replaced by simpler ones of the same type while it still fails the same way.

Footprint learning (on by default): before generating, the pass alone (nothing evaluated)
runs on a corpus of small motifs: every operator alone, operators applied to other operators'
results (also sharing an operand: x * x), operators with constant operands 0, 1, -1, 0.5, 2,
NaN, inf (and all constant, integer extremes included), the same call on 0 and -0, every
construct (let, if, match, ref, closure, call of a global) around an operator, the shapes in
which reference effects interfere (a read before or after a write, an alias, two cells of one
value, an overwritten store, a writing closure), shadowed names, an if on a computed
condition and a counting-down recursion; then, while its share of the time lasts (a fifth, at
most 10 s), pairs of every operator with every other. The motifs the pass changed are checked
as they are found, on ordinary and special arguments; then generation is steered towards what the
pass touched: its operators (and the ones its rewrites introduce) appear in most dataflow
programs and weigh more in the generators, the constructs it touched weigh more in whole
modules, and the structural diff of every program it changes updates the weights between
rounds. A program the pass leaves alpha-equal is not evaluated. --no-footprint turns learning
and steering off.
"""


def add_parser(sub: Any) -> None:
    """Add the ``fuzz`` subcommand to ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser(
        "fuzz",
        help="fuzz passes against the oracle and report shrunk counterexamples",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "--pass",
        dest="passes",
        action="append",
        metavar="SPEC",
        help="a built-in pass (fold-constant or FoldConstant), opt-level-0..3, MODULE:ATTR or "
        "FILE.py:ATTR (a pass object or a callable IRModule -> IRModule); repeatable; default: "
        "every built-in pass and opt-level-3",
    )
    p.add_argument("--max-examples", type=_positive, default=None, metavar="N",
                   help="examples per pass (default: no bound; --time decides)")  # fmt: skip
    p.add_argument("--time", type=_seconds, default=600.0, metavar="SECONDS",
                   help="wall-clock budget of the whole campaign, footprint learning and "
                   "shrinking included, shared evenly among the passes (default 600)")  # fmt: skip
    p.add_argument("--seed", type=int, default=None, metavar="N",
                   help="random seed (default: a random one, printed at the start); a campaign "
                   "draws the same programs again with the same seed")  # fmt: skip
    p.add_argument("--no-footprint", dest="footprint", action="store_false",
                   help="do not learn what the pass touches (no motif checks, no steering): "
                   "programs are drawn from the generators' default distribution")  # fmt: skip
    p.add_argument("--jobs", type=_positive, default=1, metavar="N",
                   help="worker processes (default 1); with more workers than passes, each "
                   "pass is split among several, sharing the example database")  # fmt: skip
    p.add_argument("--scheduler", default=None, metavar="ADDRESS",
                   help="run on the Dask cluster of this scheduler (tcp://HOST:PORT), as many "
                   "shards at once as it has worker threads (or --jobs); needs the "
                   "'distributed' extra")  # fmt: skip
    p.add_argument("--pictures", action="store_true",
                   help="draw the program of each report beside it, as REPORT.relay.svg (relay "
                   "show; needs Graphviz)")  # fmt: skip
    p.add_argument("--out", default="relay-fuzz-out", metavar="DIR",
                   help="where failures are written (default ./relay-fuzz-out)")  # fmt: skip
    p.add_argument("--database", default=None, metavar="DIR|redis://HOST:PORT/DB",
                   help="the Hypothesis example database, a directory or a Redis server "
                   "(shared by every worker): a rerun replays earlier failures first")  # fmt: skip
    p.add_argument("--check", choices=("value", "gradient"), default=None,
                   help="value: the pass oracle (the default); gradient: the AD oracle, which "
                   "holds a gradient pass (default: gradient and first-order-gradient) to "
                   "finite differences on generated differentiable programs (the default for "
                   "--pass gradient)")  # fmt: skip
    p.add_argument("--replay", default=None, metavar="FILE",
                   help="re-run the checks of one saved case (needs one --pass)")  # fmt: skip
    from .cli_target import add_target_option

    add_target_option(p, required=False)  # with --target: fuzz that target's compile path
    p.set_defaults(handler=cmd_fuzz)
