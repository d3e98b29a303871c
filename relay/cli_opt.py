"""``relay opt FILE --pass NAME[,NAME..] [--option KEY=VALUE]``: run passes, print the result.

Each ``--pass`` names a built-in pass (command-line or class name), a pipeline
``opt-level-N``, or ``MODULE:ATTR`` / ``FILE.py:ATTR`` (as ``relay fuzz --pass``); the passes
run in order and the module is printed in canonical text. ``--option KEY=VALUE`` sets a field
of the passes' options: a field of the pass itself (``--option cfactor=4`` for
``graph-pack``) or of its ``config`` (``--option calibrate_mode=max`` for ``quantize``, whose
``config`` is a ``QConfig``). VALUE is read as an integer, a float, ``true``/``false``, a
comma-separated tuple of integers (``skip_conv_layers=0,1``; empty for ``()``), or else a
string. An option no pass has is a usage error.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import Any


def parse_value(text: str, default: object) -> object:
    """``text`` read as the kind of ``default`` (module docstring)."""
    if isinstance(default, bool):
        if text.lower() not in ("true", "false"):
            raise ValueError(f"expected true or false, found {text!r}")
        return text.lower() == "true"
    if isinstance(default, int):
        return int(text)
    if isinstance(default, float):
        return float(text)
    if isinstance(default, tuple):
        return tuple(int(v) for v in text.split(",") if v.strip())
    return text


def configure(p: object, options: dict[str, str]) -> tuple[object, set[str]]:
    """``p`` with the ``options`` that name its fields (or its ``config``'s) replaced; the
    names used."""
    if not dataclasses.is_dataclass(p) or isinstance(p, type):
        return p, set()
    fields = {f.name for f in dataclasses.fields(p)}
    used: set[str] = set()
    changes: dict[str, object] = {}
    for key, text in options.items():
        if key in fields and key != "config":
            changes[key] = parse_value(text, getattr(p, key))
            used.add(key)
    config = getattr(p, "config", None)
    if config is not None and dataclasses.is_dataclass(config) and not isinstance(config, type):
        config_fields = {f.name for f in dataclasses.fields(config)}
        inner = {
            key: parse_value(text, getattr(config, key))
            for key, text in options.items()
            if key in config_fields and key not in changes
        }
        if inner:
            changes["config"] = dataclasses.replace(config, **inner)
            used |= set(inner)
    return (dataclasses.replace(p, **changes) if changes else p), used


def cmd_opt(args: argparse.Namespace) -> int:
    """Run the passes on FILE and print the module."""
    from .cli import UsageError, load_program
    from .compiler.pass_manager import Pass
    from .oracles.fuzz import PassLoadError, load_pass
    from .semantics.text.printer import astext

    options: dict[str, str] = {}
    for item in args.option or ():
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise UsageError(f"--option {item!r}: expected KEY=VALUE")
        options[key] = value
    specs = [s for spec in args.passes for s in spec.split(",") if s]
    if not specs:
        raise UsageError("--pass: name at least one pass")
    passes: list[Pass] = []
    used: set[str] = set()
    for spec in specs:
        try:
            p = load_pass(spec).pass_
            configured, names = configure(p, options)
        except PassLoadError as err:
            raise UsageError(str(err)) from None
        except (ValueError, TypeError) as err:
            raise UsageError(f"--option for {spec}: {err}") from None
        assert isinstance(configured, Pass)
        passes.append(configured)
        used |= names
    unknown = sorted(set(options) - used)
    if unknown:
        raise UsageError(f"--option {unknown[0]}: none of the passes {', '.join(specs)} has it")
    program = load_program(args)
    mod = program.module
    for p in passes:
        mod = p(mod)
    sys.stdout.write(astext(mod))
    sys.stdout.write("\n")
    return 0


def add_parser(sub: Any) -> None:
    """Add the ``opt`` subcommand to ``sub`` (an argparse subparsers object)."""
    from .cli import add_file_arguments

    p = sub.add_parser(
        "opt",
        help="run passes on a program and print the result",
        description="Run the named passes in order on FILE and print the module. Options set "
        "fields of the passes (or of their config), e.g. "
        "--pass quantize --option calibrate_mode=max --option skip_conv_layers=.",
    )
    add_file_arguments(p)
    p.add_argument("--pass", "-p", dest="passes", action="append", required=True,
                   metavar="NAME", help="a pass or pipeline (repeatable)")  # fmt: skip
    p.add_argument("--option", "-O", action="append", metavar="KEY=VALUE",
                   help="set an option of the passes (repeatable)")  # fmt: skip
    p.set_defaults(handler=cmd_opt)
