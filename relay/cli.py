"""The ``relay`` command line.

Exit codes: 0 success; 1 the input program is wrong (parse, type or runtime error) or a check
found a counterexample; 2 bad usage (unknown flag, missing file); 3 an internal error (one line
saying so; the traceback only with ``--debug``). Errors go to stderr as
``FILE:LINE:COL: error: ...`` followed by the source line and a caret.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
from collections.abc import Callable, Sequence

import numpy as np

from . import __version__, cli_fuzz, cli_gen, cli_ops
from .oracles.conformance import (
    DEFAULT_FUEL,
    ENGINES,
    Engine,
    apply_entry,
    engine_named,
    interpreter_engine,
    parse_expressions,
)
from .semantics.errors import RelayError, RelayTypeError, SourceFile, Span, Stuck
from .semantics.syntax import DTYPES, Constant, Expr, Function, GlobalVar, IRModule
from .semantics.text.parser import parse
from .semantics.text.printer import astext, format_type
from .semantics.typing import infer_types
from .semantics.values import TensorValue, Value, format_value, value_to_json

EXIT_OK = 0
EXIT_PROGRAM = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3


class UsageError(Exception):
    """Bad usage of the command line: reported on one line, exit code 2."""


def read_source(path: str) -> tuple[str, str]:
    """The text and display name of ``path``; ``-`` is standard input (``<stdin>``)."""
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    try:
        with open(path, encoding="utf-8") as f:
            return f.read(), path
    except FileNotFoundError:
        raise UsageError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"is a directory, not a file: {path}") from None
    except UnicodeDecodeError as err:
        raise UsageError(f"{path} is not UTF-8 text: {err.reason} at byte {err.start}") from None
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror}") from None


def cmd_fmt(args: argparse.Namespace) -> int:
    """``relay fmt FILE``: print the canonical text of a program."""
    text, name = read_source(args.file)
    mod = parse(text, source_name=name)
    if args.types:
        info = infer_types(mod)
        sys.stdout.write(astext(mod, lambda e: info.expr_types.get(e)))
    else:
        sys.stdout.write(astext(mod))
    sys.stdout.write("\n")
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    """``relay check FILE``: type-check, then print each global's type in definition order."""
    text, name = read_source(args.file)
    mod = parse(text, source_name=name)
    info = infer_types(mod)
    for gv in mod.functions:
        print(f"@{gv.name}: {format_type(info.global_type(gv.name))}")
    return EXIT_OK


def read_argument(mod: IRModule, index: int, text: str) -> Expr:
    """ARG ``index`` (1-based) of ``relay run``: a ``.npy`` file, or a closed Relay expression
    read with the module's constructors and globals in scope."""
    if text.lower().endswith(".npy"):
        try:
            data = np.load(text, allow_pickle=False)
        except FileNotFoundError:
            raise UsageError(f"argument {index}: no such file: {text}") from None
        except (OSError, ValueError) as err:
            raise UsageError(
                f"argument {index}: cannot read {text} as a .npy array: {err}"
            ) from None
        if data.dtype.name not in DTYPES:
            raise UsageError(f"argument {index}: {text} holds {data.dtype.name} values; Relay "
                             f"tensors are one of {', '.join(DTYPES)}")  # fmt: skip
        native = np.array(data, dtype=data.dtype.name, order="C")  # native order, rank kept
        return Constant(native, span=Span(SourceFile(text, ""), 1, 1, 1, 1))
    source = SourceFile(f"<argument {index}>", text)
    try:
        exprs = parse_expressions(mod, source)
    except RelayError as err:
        raise UsageError(f"argument {index} ({text!r}) is not a Relay expression: "
                         f"{err.message}") from None  # fmt: skip
    if len(exprs) != 1:
        raise UsageError(f"argument {index} ({text!r}) must be one expression, found "
                         f"{len(exprs)}; write a tuple as (a, b)")  # fmt: skip
    return exprs[0]


def choose_engine(name: str | None) -> Engine:
    """The engine called ``name``; by default the interpreter, or the spec until it lands."""
    if name is None:
        return interpreter_engine() or engine_named("spec")
    try:
        return engine_named(name)
    except LookupError as err:
        raise UsageError(str(err)) from None


def prepare_run(args: argparse.Namespace, engine: Engine) -> tuple[IRModule, list[Value]]:
    """Parse and type-check FILE, then read, check and evaluate the ARGs of ``run``/``explain``."""
    text, name = read_source(args.file)
    mod = parse(text, source_name=name)
    infer_types(mod)
    entry = args.entry.removeprefix("@")
    if entry not in mod:
        defined = ", ".join(f"@{gv.name}" for gv in mod.functions) or "no functions"
        raise UsageError(f"no function @{entry} in {name} (it defines {defined})")
    params = mod[entry].params
    if len(args.args) != len(params):
        wanted = ", ".join(f"%{p.name_hint}" for p in params)
        raise UsageError(f"@{entry}({wanted}) takes {len(params)} argument"
                         f"{'' if len(params) == 1 else 's'}, found {len(args.args)}")  # fmt: skip
    exprs = [read_argument(mod, i, a) for i, a in enumerate(args.args, start=1)]
    try:
        infer_types(apply_entry(mod, entry, exprs))
    except RelayTypeError as err:
        sources = [e.span.source if e.span is not None else None for e in exprs]
        where = err.span.source if err.span is not None else None
        if where is not None and where in sources:
            i = sources.index(where)
            raise UsageError(f"argument {i + 1} ({args.args[i]!r}) does not fit @{entry}: "
                             f"{err.message}") from None  # fmt: skip
        raise UsageError(f"the arguments do not fit @{entry}: {err}") from None
    values: list[Value] = []
    for i, e in enumerate(exprs, start=1):
        if isinstance(e, Constant):
            values.append(TensorValue(e.data))
            continue
        gv = GlobalVar(f"argument_{i}")
        while gv.name in mod:
            gv = GlobalVar(gv.name + "_")
        result = engine(mod.with_function(gv, Function((), e)), [], entry=gv.name, fuel=args.fuel)
        if result.store:
            raise UsageError(f"argument {i} creates references; the entry starts from an empty "
                             "store, so create them inside the program")  # fmt: skip
        values.append(result.value)
    return mod, values


def cmd_run(args: argparse.Namespace) -> int:
    """``relay run FILE [ARGS...]``: evaluate the entry function and print its value."""
    engine = choose_engine(args.engine)
    mod, values = prepare_run(args, engine)
    result = engine(mod, values, entry=args.entry.removeprefix("@"), fuel=args.fuel)
    if args.json:
        print(json.dumps(value_to_json(result.value, result.store), allow_nan=False))
    else:
        print(format_value(result.value, result.store))
    return EXIT_OK


def cmd_explain(args: argparse.Namespace) -> int:
    """``relay explain FILE [ARGS...]``: print the derivation tree of the spec's evaluation."""
    from .semantics.evaluation import evaluate, format_derivation

    mod, values = prepare_run(args, engine_named("spec"))
    result = evaluate(mod, values, entry=args.entry.removeprefix("@"), fuel=args.fuel,
                      explain=True)  # fmt: skip
    if result.derivation is not None:
        print(format_derivation(result.derivation))
    print(f"⇓ {format_value(result.value, result.store)}")
    return EXIT_OK


def positive_int(text: str) -> int:
    """An argparse type: an integer of at least 1."""
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, found {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, found {value}")
    return value


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments ``run`` and ``explain`` share."""
    p.add_argument("file", metavar="FILE", help="a .relay file, or - for standard input")
    p.add_argument(
        "args",
        nargs="*",
        metavar="ARG",
        help="an argument of the entry function: a .npy file, or a Relay expression such as "
        "1f, '(2, 3i64)' or 'Cons(1, Nil)' (put -- before arguments that start with '-')",
    )
    p.add_argument("--entry", default="main", metavar="NAME", help="the global to run (main)")
    p.add_argument(
        "--fuel",
        type=positive_int,
        default=DEFAULT_FUEL,
        metavar="N",
        help=f"stop with an error after N evaluation steps (default {DEFAULT_FUEL:,})",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser for every subcommand."""
    parser = argparse.ArgumentParser(
        prog="relay",
        description="The Relay reference implementation: format, check and run Relay programs.",
    )
    parser.add_argument("--version", action="version", version=f"relay {__version__}")
    parser.add_argument(
        "--debug", action="store_true", help="show the Python traceback of internal errors"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    fmt = sub.add_parser(
        "fmt",
        help="print the canonical text of a program",
        description="Parse a Relay program and print it in canonical form.",
    )
    fmt.add_argument("file", metavar="FILE", help="a .relay file, or - for standard input")
    fmt.add_argument(
        "--types", action="store_true", help="type-check, and annotate with /* ty=... */"
    )
    fmt.set_defaults(handler=cmd_fmt)
    check = sub.add_parser(
        "check",
        help="type-check a program and print the type of each global",
        description="Type-check a Relay program; print '@name: <type>' for each global "
        "function, in definition order.",
    )
    check.add_argument("file", metavar="FILE", help="a .relay file, or - for standard input")
    check.set_defaults(handler=cmd_check)
    run = sub.add_parser(
        "run",
        help="evaluate a program's entry function and print the result",
        description="Type-check a Relay program, then apply its entry function (@main unless "
        "--entry) to the arguments and print the value. A runtime error (an incomplete match?, "
        "undefined behaviour, running out of fuel) is reported with its location; exit 1.",
    )
    add_run_arguments(run)
    run.add_argument(
        "--engine",
        choices=ENGINES,
        default=None,
        help="the evaluator: the interpreter (default, once it exists) or the big-step spec",
    )
    run.add_argument(
        "--json",
        action="store_true",
        help='print the value as JSON (non-finite floats as "nan", "inf", "-inf")',
    )
    run.set_defaults(handler=cmd_run)
    explain = sub.add_parser(
        "explain",
        help="print the derivation tree of an evaluation",
        description="Evaluate like 'relay run', with the big-step spec, and print the "
        "derivation: one line per rule that fired, premises indented under their conclusion.",
    )
    add_run_arguments(explain)
    explain.set_defaults(handler=cmd_explain)
    for module in (cli_ops, cli_gen, cli_fuzz):
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except UsageError as err:
        print(f"relay: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except Stuck as err:
        print(err.render(), file=sys.stderr)
        print("relay: internal error: evaluation got stuck; please report this", file=sys.stderr)
        return EXIT_INTERNAL
    except RelayError as err:
        print(err.render(), file=sys.stderr)
        return EXIT_PROGRAM
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as err:  # the tool's own bug: one line, traceback with --debug
        if args.debug:
            traceback.print_exc()
        print(
            f"relay: internal error: {type(err).__name__}: {err}. This is a bug in relay; "
            "rerun with --debug and report the traceback.",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
