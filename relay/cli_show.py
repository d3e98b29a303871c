"""``relay show``: draw a function's dataflow graph with its fused groups (``relay.pictures``).

``relay show FILE`` prints the Graphviz DOT source of ``@main``'s graph after ``FuseOps``;
``-o graph.svg`` (or ``.png``, ``.pdf``) draws it with the system's ``dot``, ``-o graph.dot``
writes the source; ``--function NAME`` picks another global, ``--no-fuse`` draws the function
as written. Without ``dot`` (or the ``graphviz`` package) a picture is refused with how to
install it (exit 2); a program that does not parse or type-check is reported as by ``relay
check`` (exit 1)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from .semantics.text.parser import parse


def cmd_show(args: argparse.Namespace) -> int:
    """Draw the picture; 0 done, 1 a bad program, 2 bad usage or no Graphviz."""
    from .cli import UsageError, load_program
    from .pictures import PictureError, dataflow_graph, render, to_dot

    program = load_program(args)
    name: str = args.function
    if name not in program.module:
        known = ", ".join(f"@{gv.name}" for gv in program.module.functions) or "none"
        raise UsageError(f"{program.name} has no function @{name} (its globals: {known})")
    try:
        picture = dataflow_graph(program.module, name, fuse=args.fuse)
        if args.output is None:
            sys.stdout.write(to_dot(picture).source)
        else:
            render(picture, Path(args.output))
    except PictureError as err:
        print(f"relay show: error: {err}", file=sys.stderr)
        return 2
    except OSError as err:
        print(f"relay show: error: cannot write {args.output}: {err.strerror}", file=sys.stderr)
        return 2
    return 0


def draw_file(path: str, out: str, name: str = "main") -> None:
    """Draw ``@name`` of the Relay file ``path`` (a fuzz report, say) to ``out``
    (``PictureError`` without Graphviz; ``RelayError`` for a bad program)."""
    from .pictures import dataflow_graph, render

    mod = parse(Path(path).read_text(encoding="utf-8"), source_name=path)
    if name in mod:
        render(dataflow_graph(mod, name), Path(out))


def add_parser(sub: Any) -> None:
    """Add the ``show`` subcommand to ``sub`` (an argparse subparsers object)."""
    from .cli import add_file_arguments

    p = sub.add_parser(
        "show",
        help="draw a function's dataflow graph with its fused groups (Graphviz)",
        description="Draw the dataflow graph of a function (@main by default) after FuseOps: "
        "one node per computation, and a cluster per fused group (the kernels a target "
        "compiles), coloured by its fusion pattern. Prints Graphviz DOT source, or with -o "
        "draws FILE.svg, .png or .pdf with Graphviz's dot (FILE.dot: the source).",
    )
    add_file_arguments(p)
    p.add_argument("-o", "--output", default=None, metavar="OUT",
                   help="where to draw it: .svg, .png, .pdf (needs dot) or .dot")  # fmt: skip
    p.add_argument("--function", default="main", metavar="NAME",
                   help="the global function to draw (default main)")  # fmt: skip
    p.add_argument("--no-fuse", dest="fuse", action="store_false",
                   help="draw the function as written, without running FuseOps")  # fmt: skip
    p.set_defaults(handler=cmd_show)


__all__ = ["add_parser", "cmd_show", "draw_file"]
