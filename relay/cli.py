"""The ``relay`` command line.

Exit codes: 0 success; 1 the input program is wrong (parse, type or runtime error) or a check
found a counterexample; 2 bad usage (unknown flag, missing file); 3 an internal error (one line
saying so; the traceback only with ``--debug``). Errors go to stderr as
``FILE:LINE:COL: error: ...`` followed by the source line and a caret.
"""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Callable, Sequence

from . import __version__
from .semantics.errors import RelayError, Stuck
from .semantics.text.parser import parse
from .semantics.text.printer import astext, format_type
from .semantics.typing import infer_types

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
        sys.stdout.write(astext(mod, lambda e: info.expr_types.get(id(e))))
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
