"""``relay ops``: the operator registry as a table, or as JSON."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .semantics.ops import OPS, OpDef


def op_record(op: OpDef) -> dict[str, Any]:
    """The JSON object ``relay ops --json`` prints for ``op``."""
    attrs = [] if op.attrs_type is None else [s.name for s in op.attrs_type.field_specs()]
    return {
        "name": op.name,
        "family": op.family,
        "pattern": op.pattern.name.lower(),
        "num_inputs": op.num_inputs,
        "attrs": attrs,
        "check": op.check,
    }


def cmd_ops(args: argparse.Namespace) -> int:
    """Print every registered operator, sorted by family then name."""
    records = sorted((op_record(op) for op in OPS.values()), key=lambda r: (r["family"], r["name"]))
    if args.family is not None:
        families = sorted({r["family"] for r in records})
        if args.family not in families:
            print(
                f"relay: error: no family {args.family!r}; the families are {', '.join(families)}",
                file=sys.stderr,
            )
            return 2
        records = [r for r in records if r["family"] == args.family]
    if args.json:
        json.dump(records, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    header = ("name", "family", "pattern", "attrs", "check")
    rows = [
        (r["name"], r["family"], r["pattern"], str(len(r["attrs"])), r["check"]) for r in records
    ]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip())
    families = sorted({r["family"] for r in records})
    print(f"{len(records)} operators in {len(families)} families")
    return 0


def add_parser(sub: Any) -> None:
    """Add the ``ops`` subcommand to ``sub`` (an argparse subparsers object)."""
    ops = sub.add_parser(
        "ops",
        help="list the registered operators",
        description="Print the operator registry: for each operator its name, family, fusion "
        "pattern, number of attributes and the independent check of its reference semantics.",
    )
    ops.add_argument(
        "--json",
        action="store_true",
        help="print a JSON list of objects with the keys name, family, pattern, num_inputs, "
        "attrs (attribute names) and check",
    )
    ops.add_argument("--family", metavar="NAME", help="only the operators of this family")
    ops.set_defaults(handler=cmd_ops)
