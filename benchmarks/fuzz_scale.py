"""Fuzz campaign throughput on several workers: a Dask ``LocalCluster`` against ``--jobs 1``.

One correct pass (``--pass``, ``fold-constant`` by default, so that no failure ends a shard
early) is fuzzed for ``--time`` seconds three ways, each from a fresh example database and
with footprint learning off (learning is a fixed cost per shard; here only the generated
stream is measured):

- ``jobs 1``: the campaign in this process, as ``relay fuzz --jobs 1``;
- ``jobs N``: ``N`` forked local processes, each a shard of the pass (``--jobs N``);
- ``dask N``: a ``LocalCluster`` of ``N`` worker processes of one thread, each running a
  shard in a child process (``--scheduler``).

Throughput is examples checked per second of the campaign's wall time, start-up of the
workers included (a Dask shard's child process imports relay and Hypothesis before its clock
starts, so its share of the wall time is smaller than ``--time``). The script prints each
figure and the ratios to ``jobs 1``. The goal is 3.5x with 4 workers on 4 cores; on a 2-core
machine run it with 2 (the default) and expect under 2x, less on a loaded machine. Run:

    python benchmarks/fuzz_scale.py [--workers 2] [--time 30] [--pass fold-constant]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from relay.oracles.fuzz import run_campaign


def campaign(spec: str, seconds: float, jobs: int, scheduler: str | None) -> tuple[int, float]:
    """Examples and wall seconds of one campaign."""
    with tempfile.TemporaryDirectory() as tmp:
        start = time.monotonic()
        (result,) = run_campaign(
            [spec],
            max_examples=None,
            time_budget=seconds,
            seed=1,
            jobs=jobs,
            out_dir=Path(tmp) / "out",
            database=Path(tmp) / "db",
            footprint=False,
            scheduler=scheduler,
        )
        wall = time.monotonic() - start
    if result.verdict is not None or result.error is not None:
        raise SystemExit(f"{spec} failed; choose a correct pass: {result.path or result.error}")
    return result.examples, wall


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--time", type=float, default=30.0, help="seconds per campaign")
    parser.add_argument("--pass", dest="spec", default="fold-constant")
    args = parser.parse_args()
    from distributed import LocalCluster

    print(f"{args.spec}, {args.time:g} s per campaign, {os.cpu_count()} cores here "
          "(figures taken under whatever load the machine has)")  # fmt: skip
    rows: list[tuple[str, int, float]] = []
    examples, wall = campaign(args.spec, args.time, 1, None)
    rows.append(("jobs 1", examples, wall))
    examples, wall = campaign(args.spec, args.time, args.workers, None)
    rows.append((f"jobs {args.workers}", examples, wall))
    with LocalCluster(
        n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        examples, wall = campaign(args.spec, args.time, 1, cluster.scheduler_address)
    rows.append((f"dask {args.workers}", examples, wall))
    base = rows[0][1] / rows[0][2]
    print(f"{'':10} {'examples':>9} {'wall s':>7} {'examples/s':>11} {'vs jobs 1':>10}")
    for name, examples, wall in rows:
        rate = examples / wall
        print(f"{name:10} {examples:9d} {wall:7.1f} {rate:11.1f} {rate / base:9.2f}x")


if __name__ == "__main__":
    main()
