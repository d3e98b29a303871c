"""``relay import-onnx MODEL.onnx [-o OUT.relay]``: an ONNX model as a Relay module.

The module's ``@main`` takes the graph's inputs and returns its outputs; the weights are
constants in the ``#[metadata]`` section (TVM's form). An ONNX op without a translation, or a
model that is not ONNX, is ``MODEL.onnx: error: ...`` with exit code 1 (a binary file has no
source line to show); a missing file is bad usage (exit 2). Needs the ``onnx`` package.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any


def cmd_import_onnx(args: argparse.Namespace) -> int:
    """Import the model and print (or write) its Relay text."""
    from .frontend import from_onnx
    from .semantics.text.printer import astext

    path: str = args.model
    if not os.path.isfile(path):
        what = "is a directory, not a file" if os.path.isdir(path) else "no such file"
        print(f"relay: error: {what}: {path}", file=sys.stderr)
        return 2
    mod = from_onnx(path)  # OnnxImportError: rendered by relay.cli.main, exit 1
    text = astext(mod)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        with open(args.output, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as err:
        print(f"relay: error: cannot write {args.output}: {err.strerror}", file=sys.stderr)
        return 2
    return 0


def add_parser(sub: Any) -> None:
    """Add the ``import-onnx`` subcommand to ``sub`` (an argparse subparsers object)."""
    p = sub.add_parser(
        "import-onnx",
        help="convert an ONNX model to a Relay module",
        description="Read an ONNX model and print it as a Relay module: @main over the graph "
        "inputs, weights in the metadata section. Needs the onnx package.",
    )
    p.add_argument("model", metavar="MODEL", help="an .onnx file")
    p.add_argument(
        "-o", "--output", metavar="OUT", help="write the module to OUT instead of standard output"
    )
    p.set_defaults(handler=cmd_import_onnx)
