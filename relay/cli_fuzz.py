"""``relay fuzz``: differential fuzzing of passes against the oracle (``oracles.fuzz``)."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

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


def cmd_fuzz(args: argparse.Namespace) -> int:
    """Run the campaign (or replay one case); 0 no failure, 1 a failure, 2 bad usage."""
    if args.target is not None:  # the compile path of a target, not passes
        from .cli_target import cmd_fuzz_target

        return cmd_fuzz_target(args)
    # The campaign needs hypothesis and z3: imported here, so other commands start fast.
    from .oracles.fuzz import PassLoadError, builtin_names, load_pass, replay, run_campaign

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
            _, verdict = replay(loaded[0], path)
        except RelayError as err:
            print(err.render(), file=sys.stderr)
            return 2
        if verdict is None:
            print(f"{loaded[0].label}: the checks pass on {path}")
            return 0
        print(verdict.report())
        return 1
    start = time.monotonic()
    results = run_campaign(
        specs,
        max_examples=args.max_examples,
        time_budget=args.time,
        seed=args.seed,
        jobs=args.jobs,
        out_dir=Path(args.out),
        database=Path(args.database) if args.database else None,
        progress=_progress,
    )
    elapsed = time.monotonic() - start
    failed = [r for r in results if r.verdict is not None or r.error is not None]
    total = sum(r.examples for r in results)
    print(f"relay fuzz: {len(results)} passes, {total} examples in {elapsed:.1f} s")
    width = max(len(r.label) for r in results)
    for r in results:
        rate = r.examples / r.seconds if r.seconds > 0 else 0.0
        if r.verdict is not None:
            status = f"FAILED: {r.verdict.kind}: {r.verdict.message} -> {r.path}"
        elif r.error is not None:
            status = f"ERROR: {r.error}"
        else:
            status = "ok"
        print(f"  {r.label.ljust(width)}  {r.examples:6d} examples  {rate:7.1f}/s  {status}")
    if failed:
        print(f"relay fuzz: {len(failed)} of {len(results)} passes failed")
        return 1
    return 0


def add_parser(sub: Any) -> None:
    """Add the ``fuzz`` subcommand to ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser(
        "fuzz",
        help="fuzz passes against the oracle and report shrunk counterexamples",
        description="Run each pass on generated well-typed programs under the oracle "
        "instrument (well-formedness, types, and the interpreter's values before and after). "
        "A failure is shrunk and written to OUT/<pass>-<n>.relay with a report in its header; "
        "exit 1. Otherwise exit 0 with a summary.",
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
    p.add_argument("--max-examples", type=_positive, default=100, metavar="N",
                   help="examples per pass (default 100)")  # fmt: skip
    p.add_argument("--time", type=_seconds, default=600.0, metavar="SECONDS",
                   help="wall-clock budget of the whole campaign, shrinking included "
                   "(default 600)")  # fmt: skip
    p.add_argument("--seed", type=int, default=0, metavar="N",
                   help="random seed (default 0); a campaign replays exactly with the same seed "
                   "and the same --max-examples")  # fmt: skip
    p.add_argument("--jobs", type=_positive, default=1, metavar="N",
                   help="processes (default 1)")  # fmt: skip
    p.add_argument("--out", default="relay-fuzz-out", metavar="DIR",
                   help="where failures are written (default ./relay-fuzz-out)")  # fmt: skip
    p.add_argument("--database", default=None, metavar="DIR",
                   help="the Hypothesis example database: a rerun replays earlier failures "
                   "first")  # fmt: skip
    p.add_argument("--replay", default=None, metavar="FILE",
                   help="re-run the checks of one saved case (needs one --pass)")  # fmt: skip
    from .cli_target import add_target_option

    add_target_option(p, required=False)  # with --target: fuzz that target's compile path
    p.set_defaults(handler=cmd_fuzz)
