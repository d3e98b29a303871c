"""Start-up time of the ``relay`` command, against the Python interpreter starting alone.

Runs ``relay fmt`` of a one-line file ``--runs`` times, each in a fresh process, interleaved
with as many runs of ``python -c pass`` (the floor: no command starts faster than the
interpreter), and prints the median wall time of each, their difference (what ``relay``
itself costs) and which heavy modules the ``fmt`` process imported. The runs may write
bytecode caches (``PYTHONDONTWRITEBYTECODE`` is dropped from their environment), as an
installed package has them: otherwise every run compiles every module again, which is
most of the time on a machine that sets it. The goal is a ``relay
fmt`` of one line in at most 0.3 s. Other commands are timed with ``--command`` (``check``,
``run``). Run:

    python benchmarks/startup.py [--runs 20] [--command fmt]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROGRAM = "def @main(%x: Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32] { add(%x, 1f) }\n"

HEAVY = ("sympy", "z3", "hypothesis", "onnxruntime", "llvmlite")

# What the timed process imported: the same command, run once more in-process.
PROBE = """
import sys, io, contextlib
from relay.cli import main
from relay.deferred_imports import is_loaded
with contextlib.redirect_stdout(io.StringIO()):
    main(sys.argv[1:])
print(" ".join(m for m in {heavy!r} if is_loaded(m)) or "none")
"""


ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def wall(argv: list[str]) -> float:
    """Seconds of wall time for one run of ``argv`` (which must succeed)."""
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, env=ENV)
    return time.perf_counter() - start


def main() -> None:
    """Time the runs and print the medians."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--runs", type=int, default=20, help="runs of each (default 20)")
    parser.add_argument(
        "--command", default="fmt", choices=("fmt", "check", "run"), help="the subcommand"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "one.relay"
        path.write_text(PROGRAM if args.command != "run" else "add(1, 2)\n", encoding="utf-8")
        relay_argv = [sys.executable, "-m", "relay", args.command, str(path)]
        python_argv = [sys.executable, "-c", "pass"]
        wall(relay_argv)  # warm the file cache and write the bytecode caches
        relay_times: list[float] = []
        python_times: list[float] = []
        for _ in range(args.runs):
            relay_times.append(wall(relay_argv))
            python_times.append(wall(python_argv))
        probe = subprocess.run(
            [sys.executable, "-c", PROBE.format(heavy=HEAVY), args.command, str(path)],
            check=True,
            capture_output=True,
            text=True,
            env=ENV,
        ).stdout.strip()
    relay_median = statistics.median(relay_times)
    python_median = statistics.median(python_times)
    print(f"relay {args.command} of a one-line file: median {relay_median:.3f} s "
          f"(min {min(relay_times):.3f} s) over {args.runs} fresh processes")  # fmt: skip
    print(f"python -c pass:                  median {python_median:.3f} s "
          f"(min {min(python_times):.3f} s)")  # fmt: skip
    print(
        f"relay's own start-up:            {relay_median - python_median:.3f} s "
        f"({relay_median / python_median:.1f}x python alone); goal for fmt: <= 0.300 s"
    )
    print(f"heavy modules imported: {probe}")


if __name__ == "__main__":
    main()
