"""The ``relay`` command line.

Exit codes: 0 success; 1 the input program is wrong (parse, type or runtime error; a file
that is not UTF-8 is a parse error at its first bad byte) or a check found a counterexample;
2 bad usage (unknown flag, missing file, arguments that do not fit the entry function); 3 an
internal error (one line saying so; the traceback only with ``--debug``). Errors go to stderr
as ``FILE:LINE:COL: error: ...`` followed by the source line and a caret.

A command's options may come anywhere among its positional arguments (``--`` ends them), as
compilers take them; a usage error prints that command's usage. Each subcommand's module is
cheap to import: what needs hypothesis or z3 is imported by the command that runs it.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from . import (
    __version__,
    cli_fuzz,
    cli_gen,
    cli_grad,
    cli_onnx,
    cli_ops,
    cli_opt,
    cli_show,
    cli_target,
)
from .api import (
    ENGINES,
    ArgumentError,
    argument_source,
    check_call,
    check_entry,
    evaluate_entry,
    merge,
    parse_in_scope,
)
from .semantics.errors import Exhaustion, ParseError, RelayError, SourceFile, Span, Stuck
from .semantics.syntax import DTYPES, Constant, Expr, Function, GlobalVar, IRModule
from .semantics.text.printer import astext, format_type
from .semantics.typing import infer_types
from .semantics.values import TensorValue, Value, dump_json, format_value, value_to_json

if TYPE_CHECKING:
    from .semantics.evaluation import Result

EXIT_OK = 0
EXIT_PROGRAM = 1
EXIT_USAGE = 2
EXIT_INTERNAL = 3

NPY_HEADER_LIMIT = 1 << 16
"""The most bytes of ``.npy`` header read before the array (numpy's own limit is 10,000)."""


class UsageError(Exception):
    """Bad usage of the command line: reported on one line, exit code 2."""


def decode_source(data: bytes, name: str) -> str:
    """``data`` as UTF-8 text (a leading byte-order mark dropped); ``ParseError`` at the first
    byte that is not UTF-8, naming its offset: such a file is a malformed program."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        start, reason = err.start, err.reason
    before = data[:start].decode("utf-8-sig")
    line = before.count("\n") + 1
    column = len(before) - (before.rfind("\n") + 1) + 1
    # The line is echoed (the bad bytes as U+FFFD) only if it is printable text.
    text = data.decode("utf-8-sig", errors="replace")
    line_text = text.split("\n")[line - 1].rstrip("\r")
    shown = text if all(ch.isprintable() or ch == "\t" for ch in line_text) else ""
    span = Span(SourceFile(name, shown), line, column, line, column + 1)
    raise ParseError(f"the file is not UTF-8 text: byte 0x{data[start]:02x} at byte offset "
                     f"{start} ({reason})", span)  # fmt: skip


def read_source(path: str) -> tuple[str, str]:
    """The text and display name of ``path``; ``-`` is standard input (``<stdin>``)."""
    if path == "-":
        buffer = getattr(sys.stdin, "buffer", None)
        if buffer is None:  # a text stream put in place of stdin (tests do)
            return sys.stdin.read(), "<stdin>"
        return decode_source(buffer.read(), "<stdin>"), "<stdin>"
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise UsageError(f"no such file: {path}") from None
    except IsADirectoryError:
        raise UsageError(f"is a directory, not a file: {path}") from None
    except OSError as err:
        raise UsageError(f"cannot read {path}: {err.strerror}") from None
    return decode_source(data, path), path


@dataclass(frozen=True, slots=True)
class Program:
    """FILE read after its ``--prelude`` files: ``own`` holds FILE's definitions, ``module``
    the prelude's and FILE's together (what is checked and run)."""

    name: str
    own: IRModule
    module: IRModule


def load_program(args: argparse.Namespace) -> Program:
    """Read the ``--prelude`` files in order, each with the earlier ones in scope, then FILE."""
    scope: IRModule | None = None
    for path in args.prelude or ():
        text, name = read_source(path)
        scope = merge(scope, parse_in_scope(text, name, scope))
    text, name = read_source(args.file)
    own = parse_in_scope(text, name, scope)
    return Program(name, own, merge(scope, own))


def cmd_fmt(args: argparse.Namespace) -> int:
    """``relay fmt FILE``: print the canonical text of a program (not of its preludes)."""
    program = load_program(args)
    if args.types:
        info = infer_types(program.module)
        sys.stdout.write(astext(program.own, lambda e: info.expr_types.get(e)))
    else:
        sys.stdout.write(astext(program.own))
    sys.stdout.write("\n")
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    """``relay check FILE``: type-check (with the preludes), then print the type of each of
    FILE's globals in definition order."""
    program = load_program(args)
    info = infer_types(program.module)
    for gv in program.own.functions:
        print(f"@{gv.name}: {format_type(info.global_type(gv.name))}")
    return EXIT_OK


def read_npy(index: int, path: str) -> Constant:
    """ARG ``index`` of ``relay run``, a ``.npy`` file: its header is checked against the file's
    size before the array is read, so a corrupt header cannot ask for terabytes."""
    fmt = np.lib.format
    where = f"argument {index} ({path!r})"
    try:
        with open(path, "rb") as f:
            head = f.read(8)
            if head.startswith(b"PK\x03\x04"):
                raise UsageError(f"{where} is a .npz archive; pass each array as a .npy file "
                                 "(numpy.save)")  # fmt: skip
            f.seek(0)
            try:
                version = fmt.read_magic(f)
                read = fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0
                shape, _, dtype = read(f, max_header_size=NPY_HEADER_LIMIT)
            except (ValueError, SyntaxError, TypeError) as err:
                raise UsageError(f"{where} is not a .npy array: {err}") from None
            offset = f.tell()
            f.seek(0, 2)
            size = f.tell() - offset
            if dtype.hasobject:
                raise UsageError(f"{where} holds Python objects; Relay tensors are one of "
                                 f"{', '.join(DTYPES)}")  # fmt: skip
            expected = int(np.prod(shape, dtype=object)) * dtype.itemsize
            if size != expected:
                raise UsageError(f"{where}: its header says shape {shape} of {dtype.name} "
                                 f"({expected:,} bytes), but the file holds {size:,} bytes of "
                                 "data")  # fmt: skip
            f.seek(0)
            data = np.load(f, allow_pickle=False)
    except FileNotFoundError:
        raise UsageError(f"argument {index}: no such file: {path}") from None
    except OSError as err:
        raise UsageError(f"{where}: cannot read it: {err.strerror or err}") from None
    except ValueError as err:
        raise UsageError(f"{where} is not a .npy array: {err}") from None
    if data.dtype.name not in DTYPES:
        raise UsageError(f"{where} holds {data.dtype.name} values; Relay tensors are one of "
                         f"{', '.join(DTYPES)}")  # fmt: skip
    native = np.array(data, dtype=data.dtype.name, order="C")  # native order, rank kept
    return Constant(native, span=Span(SourceFile(path, ""), 1, 1, 1, 1))


def read_argument(mod: IRModule, index: int, text: str) -> Expr:
    """ARG ``index`` (1-based) of ``relay run``: a ``.npy`` file, or a closed Relay expression
    read with the module's constructors and globals in scope."""
    from .oracles.corpus import parse_expressions

    if text.lower().endswith((".npy", ".npz")):
        return read_npy(index, text)
    try:
        exprs = parse_expressions(mod, argument_source(index, text))
    except RelayError as err:
        raise UsageError(f"argument {index} ({text!r}) is not a Relay expression: "
                         f"{err.message}") from None  # fmt: skip
    if len(exprs) != 1:
        raise UsageError(f"argument {index} ({text!r}) must be one expression, found "
                         f"{len(exprs)}; write a tuple as (a, b)")  # fmt: skip
    return exprs[0]


def fuel_of(args: argparse.Namespace) -> int:
    """``--fuel``, or no limit."""
    from .api import NO_FUEL_LIMIT

    fuel: int | None = args.fuel
    return NO_FUEL_LIMIT if fuel is None else fuel


def evaluate(
    args: argparse.Namespace, mod: IRModule, values: Sequence[Value], entry: str, engine: str
) -> Result:
    """Run ``@entry``; running out of the fuel ``--fuel`` gave says so."""
    try:
        return evaluate_entry(mod, values, entry=entry, engine=engine, fuel=fuel_of(args))
    except Exhaustion as err:
        raise with_fuel_hint(err, args) from None


def with_fuel_hint(err: Exhaustion, args: argparse.Namespace) -> Exhaustion:
    """``err``, saying which ``--fuel`` ran out and how to give more."""
    if args.fuel is None or not err.message.startswith("out of fuel"):
        return err
    return Exhaustion(f"{err.message} (--fuel {args.fuel:,}; give a larger --fuel, or leave it "
                      "out for no limit)", err.span)  # fmt: skip


def prepare_run(args: argparse.Namespace, engine: str) -> tuple[IRModule, list[Value]]:
    """Parse and type-check FILE with the ARGs of ``run``/``explain`` applied to its entry,
    then evaluate the ARGs."""
    program = load_program(args)
    mod = program.module
    entry = args.entry.removeprefix("@")
    try:
        check_entry(mod, entry, len(args.args), program.name)
        exprs = [read_argument(mod, i, a) for i, a in enumerate(args.args, start=1)]
        labels = [f"argument {i} ({a!r})" for i, a in enumerate(args.args, start=1)]
        check_call(mod, entry, exprs, labels)  # one type-check of the program and the call
    except ArgumentError as err:
        raise UsageError(str(err)) from None
    values: list[Value] = []
    for i, e in enumerate(exprs, start=1):
        if isinstance(e, Constant):
            values.append(TensorValue(e.data))
            continue
        gv = GlobalVar(f"argument_{i}")
        while gv.name in mod:
            gv = GlobalVar(gv.name + "_")
        result = evaluate(args, mod.with_function(gv, Function((), e)), [], gv.name, engine)
        if result.store:
            raise UsageError(f"argument {i} creates references; the entry starts from an empty "
                             "store, so create them inside the program")  # fmt: skip
        values.append(result.value)
    return mod, values


def cmd_run(args: argparse.Namespace) -> int:
    """``relay run FILE [ARGS...]``: evaluate the entry function and print its value (with
    ``--target``, compiled for that target and run there)."""
    if args.target is None and args.threads is not None:
        raise UsageError("--threads needs --target")
    mod, values = prepare_run(args, args.engine)
    if args.target is not None:
        try:
            target = cli_target.make_target(args.target, args.threads)
        except cli_target.TargetUsage as err:
            raise UsageError(str(err)) from None
        exe = target.compile(mod)
        try:
            result = exe.evaluate(values, entry=args.entry.removeprefix("@"), fuel=args.fuel)
        except Exhaustion as err:
            raise with_fuel_hint(err, args) from None
    else:
        result = evaluate(args, mod, values, args.entry.removeprefix("@"), args.engine)
    if args.json:
        print(dump_json(value_to_json(result.value, result.store)))
    else:
        print(format_value(result.value, result.store))
    return EXIT_OK


def cmd_explain(args: argparse.Namespace) -> int:
    """``relay explain FILE [ARGS...]``: print the derivation tree of the spec's evaluation."""
    from .semantics.evaluation import evaluate as spec_evaluate
    from .semantics.evaluation import format_derivation

    mod, values = prepare_run(args, "spec")
    try:
        result = spec_evaluate(mod, values, entry=args.entry.removeprefix("@"),
                               fuel=fuel_of(args), explain=True)  # fmt: skip
    except Exhaustion as err:
        raise with_fuel_hint(err, args) from None
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


def add_file_arguments(p: argparse.ArgumentParser) -> None:
    """FILE and ``--prelude``, which every command that reads a program takes."""
    p.add_argument("file", metavar="FILE", help="a .relay file, or - for standard input")
    p.add_argument(
        "--prelude",
        action="append",
        metavar="FILE",
        help="read FILE first: its types, constructors and globals are in scope (repeatable; "
        "each prelude sees the ones before it)",
    )


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    """The arguments ``run`` and ``explain`` share."""
    add_file_arguments(p)
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
        default=None,
        metavar="N",
        help="stop with an error after N evaluation steps (default: no limit)",
    )


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level argument parser, and each subcommand's own by name."""
    parser = argparse.ArgumentParser(
        prog="relay",
        description="The Relay reference implementation: format, check and run Relay programs. "
        "Options may come before or after FILE; -- ends them.",
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
        description="Parse a Relay program and print it in canonical form (without the "
        "definitions of its preludes).",
    )
    add_file_arguments(fmt)
    fmt.add_argument(
        "--types", action="store_true", help="type-check, and annotate with /* ty=... */"
    )
    fmt.set_defaults(handler=cmd_fmt)
    check = sub.add_parser(
        "check",
        help="type-check a program and print the type of each global",
        description="Type-check a Relay program (with its preludes); print '@name: <type>' for "
        "each of its global functions, in definition order.",
    )
    add_file_arguments(check)
    check.set_defaults(handler=cmd_check)
    run = sub.add_parser(
        "run",
        help="evaluate a program's entry function and print the result",
        description="Type-check a Relay program, then apply its entry function (@main unless "
        "--entry) to the arguments and print the value. A runtime error (an incomplete match?, "
        "undefined behaviour, running out of --fuel) is reported with its location; exit 1.",
    )
    add_run_arguments(run)
    run.add_argument(
        "--engine",
        choices=ENGINES,
        default="interpreter",
        help="the evaluator: the interpreter (the default) or the big-step spec",
    )
    run.add_argument(
        "--json",
        action="store_true",
        help='print the value as JSON (non-finite floats as "nan", "inf", "-inf")',
    )
    cli_target.add_target_option(run, required=False)
    run.set_defaults(handler=cmd_run)
    explain = sub.add_parser(
        "explain",
        help="print the derivation tree of an evaluation",
        description="Evaluate like 'relay run', with the big-step spec, and print the "
        "derivation: one line per rule that fired, premises indented under their conclusion.",
    )
    add_run_arguments(explain)
    explain.set_defaults(handler=cmd_explain)
    for module in (cli_ops, cli_gen, cli_fuzz, cli_onnx, cli_grad, cli_opt, cli_show):
        module.add_parser(sub)
    cli_target.add_parsers(sub)
    for command in sub.choices.values():  # --debug is accepted after the command too
        command.add_argument("--debug", action="store_true", help=argparse.SUPPRESS)
    return parser, dict(sub.choices)


def parse_command_line(argv: Sequence[str]) -> argparse.Namespace:
    """The options of ``argv``: the global ones before COMMAND, then COMMAND's own, which may
    come before, between or after its positional arguments (``--`` ends the options).

    Bad usage exits with code 2 after the usage of the command it is about.
    """
    parser, commands = build_parser()
    i = 0
    while i < len(argv) and argv[i] == "--debug":
        i += 1
    if i == len(argv) or argv[i] not in commands:
        parser.parse_args(argv)  # --help, --version, or the usage error: exits
        parser.error("expected a command")  # pragma: no cover - parse_args has exited
    args = commands[argv[i]].parse_intermixed_args(argv[i + 1 :])
    args.debug = args.debug or i > 0
    args.command = argv[i]
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    args = parse_command_line(sys.argv[1:] if argv is None else list(argv))
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
        if cli_target.is_rejected_kernel(err):
            print(cli_target.rejected_message(err), file=sys.stderr)
            return EXIT_INTERNAL
        if args.debug:
            traceback.print_exc()
        print(
            f"relay: internal error: {type(err).__name__}: {err}. This is a bug in relay; "
            "rerun with --debug and report the traceback.",
            file=sys.stderr,
        )
        return EXIT_INTERNAL
