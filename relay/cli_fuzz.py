"""``relay fuzz`` (being written)."""

from __future__ import annotations

from typing import Any


def add_parser(sub: Any) -> None:
    """Add the ``fuzz`` subcommand to ``sub`` (an argparse subparsers object)."""
