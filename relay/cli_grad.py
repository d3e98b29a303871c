"""``relay grad`` (the Gradient pass on a file) and ``relay fuzz --check gradient`` (the AD
oracle's campaign, ``oracles.ad_oracle``)."""

from __future__ import annotations

import argparse
import secrets
import sys
from pathlib import Path
from typing import Any

from .semantics.errors import RelayError
from .semantics.values import TupleValue, Value, format_value


def cmd_grad(args: argparse.Namespace) -> int:
    """Print the gradient module of FILE, or run it on ARGs (then ``--update``)."""
    from . import cli
    from .compiler.passes.gradient import gradient
    from .interpreter import evaluate

    entry = args.entry.removeprefix("@")
    if args.args or args.args_from:
        if args.args and args.args_from:
            raise cli.UsageError("give ARGs or --args-from, not both")
        if args.args:
            mod, values = cli.prepare_run(args, "interpreter")
        else:
            mod = cli.load_program(args).module
            source = args.args_from.removeprefix("@")
            if source not in mod:
                raise cli.UsageError(f"--args-from: the program has no @{source}")
            made = evaluate(mod, [], entry=source).value
            if not isinstance(made, TupleValue):
                raise cli.UsageError(f"--args-from: @{source} must return a tuple of arguments")
            values = list(made.fields)
    else:
        mod = cli.load_program(args).module
        values = []
    if entry not in mod:
        raise cli.UsageError(f"the program has no @{entry}")
    grad_mod = gradient(mod, mode=args.mode, entry=entry)
    if not (args.args or args.args_from):
        if args.update:
            raise cli.UsageError("--update needs the arguments (ARGs or --args-from)")
        print(grad_mod, end="")
        return 0
    result = evaluate(grad_mod, values, entry=entry).value
    if args.update is None:
        print(format_value(result))
        return 0
    update = args.update.removeprefix("@")
    if update not in mod:
        raise cli.UsageError(f"--update: the program has no @{update}")
    assert isinstance(result, TupleValue)
    new: Value = evaluate(grad_mod, [*values, result.fields[1]], entry=update).value
    print(f"value: {format_value(result.fields[0])}")
    print(f"@{update}: {format_value(new)}")
    return 0


def add_parser(sub: Any) -> None:
    """Add the ``grad`` subcommand to ``sub`` (an argparse subparsers object)."""
    from . import cli

    p = sub.add_parser(
        "grad",
        help="differentiate a program's entry function (the Gradient pass)",
        description="Replace the entry function (@main unless --entry), which must map float "
        "tensors to a float tensor, by its gradient: a function returning (value, (d/dx1, .., "
        "d/dxn)) of the sum of the result. Without arguments print the new module; with ARGs "
        "(or --args-from) run it and print the value and gradients; with --update NAME also "
        "apply @NAME to the arguments followed by the gradients (an SGD step, say) and print "
        "what it returns.",
    )
    cli.add_run_arguments(p)
    p.add_argument("--mode", choices=("higher_order", "first_order"), default="higher_order",
                   help="higher_order (closures, references, control flow, recursion; the "
                   "default) or first_order (dataflow graphs)")  # fmt: skip
    p.add_argument("--args-from", default=None, metavar="NAME",
                   help="take the arguments from the tuple @NAME() returns")  # fmt: skip
    p.add_argument("--update", default=None, metavar="NAME",
                   help="then apply @NAME(args.., gradients) and print its value")  # fmt: skip
    p.set_defaults(handler=cmd_grad)


# ---------------------------------------------------------------------------------------------
# relay fuzz --check gradient


def cmd_fuzz_gradient(args: argparse.Namespace) -> int:
    """``relay fuzz --check gradient``: the AD oracle's campaign over ``--pass`` (default: the
    built-in ``gradient`` in both modes), or the replay of one report."""
    from .oracles.ad_oracle import check_gradient, run_gradient_campaign
    from .oracles.fuzz import PassLoadError, load_pass
    from .oracles.reports import read_case

    specs: list[str] = args.passes or ["gradient", "first-order-gradient"]
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
            case = read_case(path.read_text(encoding="utf-8"), str(path))
            verdict, outcome = check_gradient(loaded[0].pass_, case.mod, case.args)
        except RelayError as err:
            print(err.render(), file=sys.stderr)
            return 2
        if verdict is None:
            counts = f"{outcome.compared} directions compared, {outcome.skipped} skipped"
            print(f"{loaded[0].label}: the gradient checks pass on {path} ({counts})")
            return 0
        print(verdict.report())
        return 1
    seed: int = args.seed if args.seed is not None else secrets.randbelow(2**32)
    print(f"relay fuzz: seed {seed} (rerun with --seed {seed})", flush=True)
    share = args.time / len(loaded)
    failed = 0
    for lp in loaded:
        r = run_gradient_campaign(
            lp.pass_,
            label=lp.label,
            spec=lp.spec,
            time_budget=share,
            seed=seed,
            out_dir=Path(args.out),
            max_examples=args.max_examples,
            progress=lambda line: print(line, file=sys.stderr, flush=True),
        )
        rate = r.examples / r.seconds if r.seconds > 0 else 0.0
        status = "ok"
        if r.verdict is not None:
            failed += 1
            status = f"FAILED: {r.verdict.kind}: {r.verdict.message} -> {r.path}"
            status += f" (found after {r.found_after} examples, {r.found_at:.1f} s)"
        print(f"  {lp.label}  {r.examples} examples  {rate:.1f}/s  {r.compared} directions "
              f"compared, {r.skipped} skipped at non-differentiable points, "
              f"{r.inconclusive} programs inconclusive  {status}")  # fmt: skip
    return 1 if failed else 0
