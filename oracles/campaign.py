"""Campaigns on many workers: local processes (``relay fuzz --jobs N``) and a Dask cluster
(``relay fuzz --scheduler ADDRESS``).

**Shards.** A campaign is a list of jobs, each one shard of one pass's campaign
(``fuzz.Shard``): with ``W`` workers and ``P`` passes, each pass gets ``max(1, W // P)``
shards, so one pass on four workers is fuzzed by four shards at once, each drawing from its
own seed, checking its own share of the motifs, and sharing the example database. The jobs run
in ``ceil(jobs / W)`` waves; each job's time budget is the campaign's divided by the number of
waves, and a pass's ``max_examples`` is split among its shards. A shard that finds a failure
tells the others of its pass to stop generating (they have nothing left to find: the pass
reports its first failure), and shrinks it alone.

**Reports.** A pass's shards are merged into one ``PassResult``: examples added up, the
longest time, and the smallest failure first. Every failure goes to one report directory,
through ``reports.write_report``, which writes a failure (by its ``failure_key``) once however
many workers found it. Local workers write their reports themselves, as soon as they are
shrunk; Dask workers may run on other machines, so they send the report's text back and the
client writes it.

**Local processes.** A ``fork`` pool of ``W`` processes (the motif corpus is built once,
before forking); the workers send progress over a queue, and share one stop event per pass.

**Dask.** ``distributed.Client(ADDRESS)``; ``W`` is the cluster's thread count (or ``--jobs``
when given). Each job is a task that runs its shard in a child process (``python -m
relay.oracles.campaign``, speaking JSON lines on a pipe), because the per-example timeout is
a ``SIGALRM``, which works only on a process's main thread, and a worker's tasks run on other
threads; a pass that crashes the interpreter then takes down the child, not the worker. The
task forwards the child's progress to the client as Dask events (``log_event`` on a topic of
the campaign's own, ``subscribe_topic`` at the client) and the stop signal through a Dask
``Event`` per pass. The pass spec is loaded again in each child: a ``FILE.py:ATTR`` pass must
be at the same path on every worker machine, and ``--database`` should be ``redis://`` when
the workers do not share the client's file system.

**Kill-safety.** A failure is in the example database from the moment it is found, at the
smallest program it has been shrunk to (``campaign_db``), and a report file appears only
complete; so a campaign killed with SIGKILL at any moment loses nothing it found: the next run
with the same database replays the failures first and reports them. The ``failure found``
progress line of a pass is printed only once its failure is in the database, or, for a failure
of a motif check (which Hypothesis did not draw, so the database does not hold it), once its
report is written; on Dask, where the client writes the reports, such a failure is lost if the
client is killed before the task ends, and the next run's motif checks look for it again.

Footprint learning (running the pass alone on the motif corpus) is repeated by every shard
of a pass; it is bounded by its share of the budget (``fuzz.LEARN_SHARE``).
"""

from __future__ import annotations

import base64
import importlib
import json
import math
import multiprocessing
import os
import pickle
import queue
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, TextIO

from .fuzz import (
    Hooks,
    LoadedPass,
    PassLoadError,
    PassResult,
    Shard,
    fuzz_pass,
    load_pass,
)
from .pass_oracle import Verdict
from .reports import write_report

CONNECT_TIMEOUT = 10.0
"""Seconds to wait for the Dask scheduler before giving up."""


class CampaignError(Exception):
    """A campaign that cannot start: a scheduler that cannot be reached, a missing extra (bad
    usage: exit 2 at the command line)."""


@dataclass(frozen=True)
class Job:
    """One shard of one pass's campaign, as sent to a worker (plain data: it crosses
    processes and machines)."""

    spec: str
    pass_index: int
    shard: int
    shards: int
    max_examples: int | None
    time_budget: float
    seed: int
    out_dir: str
    database: str | None
    footprint: bool
    write: bool


def _split(total: int | None, parts: int, i: int) -> int | None:
    """Part ``i`` of ``total`` split into ``parts`` nearly equal whole parts (at least 1)."""
    if total is None:
        return None
    return max(1, total // parts + (1 if i < total % parts else 0))


def plan(
    specs: Sequence[str],
    workers: int,
    *,
    time_budget: float,
    max_examples: int | None,
    seed: int,
    out_dir: Path,
    database: Path | str | None,
    footprint: bool,
    write: bool = True,
) -> list[Job]:
    """The jobs of a campaign of ``specs`` on ``workers`` workers (see the module docstring)."""
    shards = max(1, workers // max(1, len(specs)))
    waves = math.ceil(len(specs) * shards / max(1, workers))
    budget = max(0.5, time_budget / waves)
    return [
        Job(
            spec,
            p,
            i,
            shards,
            _split(max_examples, shards, i),
            budget,
            seed,
            str(out_dir),
            None if database is None else str(database),
            footprint,
            write,
        )
        for i in range(shards)
        for p, spec in enumerate(specs)
    ]


def merge(label: str, results: Sequence[PassResult]) -> PassResult:
    """One pass's result from its shards' (see the module docstring)."""
    out = PassResult(label)
    out.examples = sum(r.examples for r in results)
    out.unchanged = sum(r.unchanged for r in results)
    out.seconds = max((r.seconds for r in results), default=0.0)
    out.footprint = next((r.footprint for r in results if r.footprint), "")
    failing = [r for r in results if r.verdict is not None]
    if failing:
        best = min(failing, key=lambda r: len(r.report[0]) if r.report else math.inf)
        out.verdict, out.path, out.report = best.verdict, best.path, best.report
        out.first_failure = best.first_failure
        paths = [p for r in [best, *failing] for p in r.paths or ([r.path] if r.path else [])]
        out.paths = list(dict.fromkeys(paths))
    errors = [r.error for r in results if r.error is not None]
    if errors and not failing:
        out.error = errors[0]
    return out


class Sink:
    """What the campaign's runner does with its workers' messages: progress lines, example
    counts (added up over a pass's shards for ``ticks(label, examples, failures)``), and
    results (a report a worker did not write is written here)."""

    def __init__(
        self,
        jobs: Sequence[Job],
        labels: Sequence[str],
        progress: Callable[[str], None] | None,
        ticks: Callable[[str, int, int], None] | None,
    ) -> None:
        self.jobs = jobs
        self.labels = labels
        self.progress = progress
        self.ticks = ticks
        self.counts: dict[int, tuple[int, int]] = {}
        self.start = time.monotonic()
        self.last_line: dict[int, float] = {}
        self.results: dict[int, PassResult] = {}
        self.lock = threading.Lock()

    def line(self, text: str) -> None:
        if self.progress is not None:
            self.progress(text)

    def tick(self, job: int, examples: int, failures: int) -> None:
        with self.lock:
            self.counts[job] = (examples, failures)
            p = self.jobs[job].pass_index
            mine = [c for j, c in self.counts.items() if self.jobs[j].pass_index == p]
            total = sum(c[0] for c in mine)
            failed = max(c[1] for c in mine)
        if self.ticks is not None:
            self.ticks(self.labels[p], total, failed)
        elif self.progress is not None:  # no live display: a line per pass every 2 s
            now = time.monotonic()
            if now - self.last_line.get(p, self.start) > 2.0:
                self.last_line[p] = now
                rate = total / max(now - self.start, 1e-9)
                self.progress(
                    f"[{self.labels[p]}] {total} examples, {failed} failures, {rate:.1f}/s"
                )

    def result(self, job: int, r: PassResult) -> None:
        spec = self.jobs[job]
        if r.report is not None and r.path is None:
            text, key = r.report
            r.path = str(write_report(Path(spec.out_dir), r.label, text, key))
            r.paths = [r.path]
        self.results[job] = r
        self.tick(job, r.examples, 0 if r.verdict is None else 1)

    def merged(self) -> list[PassResult]:
        """One result per pass, in the order of the passes."""
        by_pass: dict[int, list[PassResult]] = {}
        for j, r in sorted(self.results.items()):
            by_pass.setdefault(self.jobs[j].pass_index, []).append(r)
        return [merge(self.labels[p], by_pass.get(p, [])) for p in range(len(self.labels))]


def _run_job(job: Job, hooks: Hooks) -> PassResult:
    """Run one job in this process."""
    try:
        loaded: LoadedPass = load_pass(job.spec)
    except PassLoadError as err:
        return PassResult(job.spec, error=str(err))
    return fuzz_pass(
        loaded,
        max_examples=job.max_examples,
        time_budget=job.time_budget,
        seed=job.seed,
        out_dir=Path(job.out_dir),
        database=job.database,
        footprint=job.footprint,
        shard=Shard(job.shard, job.shards),
        hooks=hooks,
        write=job.write,
    )


# ---------------------------------------------------------------------------------------------
# Local processes


_channel: Any = None  # the worker's end of the progress queue (set in each forked worker)
_stops: list[Any] = []  # one multiprocessing.Event per pass


def _init_local(channel: Any, stops: list[Any]) -> None:
    global _channel, _stops
    _channel, _stops = channel, stops


def _local_job(index: int, job: Job) -> PassResult:
    stop = _stops[job.pass_index]

    def found(verdict: Verdict) -> None:
        stop.set()

    hooks = Hooks(
        progress=lambda text: _channel.put(("line", text)),
        tick=lambda examples, failures: _channel.put(("tick", index, examples, failures)),
        found=found,
        stop=stop.is_set,
    )
    return _run_job(job, hooks)


def _drain(channel: Any, sink: Sink, timeout: float) -> None:
    """Hand ``sink`` every message waiting on ``channel`` (waiting ``timeout`` s for one)."""
    try:
        message = channel.get(timeout=timeout) if timeout > 0 else channel.get_nowait()
    except queue.Empty:
        return
    while True:
        match message:
            case ("line", text):
                sink.line(text)
            case ("tick", job, examples, failures):
                sink.tick(job, examples, failures)
        try:
            message = channel.get_nowait()
        except queue.Empty:
            return


def run_local(jobs: Sequence[Job], workers: int, sink: Sink) -> None:
    """Run ``jobs`` on a pool of ``workers`` forked processes, handing ``sink`` their
    messages and results."""
    ctx = multiprocessing.get_context("fork")
    channel = ctx.Queue()
    stops = [ctx.Event() for _ in sink.labels]
    with ctx.Pool(min(workers, len(jobs)), _init_local, (channel, stops)) as pool:
        pending = {i: pool.apply_async(_local_job, (i, job)) for i, job in enumerate(jobs)}
        while pending:
            _drain(channel, sink, 0.2)
            for i, r in list(pending.items()):
                if r.ready():
                    del pending[i]
                    _drain(channel, sink, 0)
                    sink.result(i, r.get())
        _drain(channel, sink, 0)


# ---------------------------------------------------------------------------------------------
# Dask


def _distributed() -> Any:
    """The ``distributed`` package (its functions are untyped: used through ``Any``)."""
    return importlib.import_module("distributed")


def connect(address: str) -> Any:
    """A Dask client of the scheduler at ``address``; ``CampaignError`` if the extra is not
    installed or the scheduler cannot be reached."""
    try:
        distributed = _distributed()
    except ImportError:
        raise CampaignError(
            "--scheduler needs Dask's distributed scheduler: pip install 'relay-ref[distributed]'"
        ) from None
    try:
        return distributed.Client(address, timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError, ValueError, TypeError) as err:
        raise CampaignError(f"--scheduler {address}: cannot connect: {err}") from None


def cluster_workers(client: Any) -> int:
    """The number of threads of the cluster's workers (at least 1)."""
    return max(1, sum(int(n) for n in client.nthreads().values()))


def run_dask(client: Any, jobs: Sequence[Job], sink: Sink) -> None:
    """Run ``jobs`` as tasks on the cluster of ``client`` (see the module docstring)."""
    as_completed = _distributed().as_completed
    run = f"relay-fuzz-{secrets.token_hex(6)}"

    def handler(event: Any) -> None:
        _, message = event
        match message:
            case {"line": str(text)}:
                sink.line(text)
            case {"tick": [int(job), int(examples), int(failures)]}:
                sink.tick(job, examples, failures)

    client.subscribe_topic(run, handler)
    try:
        futures = {
            client.submit(_dask_job, i, asdict(job), run, pure=False, key=f"{run}-{i}"): i
            for i, job in enumerate(jobs)
        }
        for future in as_completed(futures):
            index, data = future.result()
            sink.result(index, pickle.loads(base64.b64decode(data)))
        time.sleep(0.2)  # the last events travel separately from the results
    finally:
        client.unsubscribe_topic(run)


def _dask_job(index: int, job: dict[str, Any], run: str) -> tuple[int, str]:
    """The task: run the job in a child process, forward its messages as Dask events and the
    stop signal of its pass from a Dask ``Event``; the result, pickled."""
    distributed = _distributed()
    worker = distributed.get_worker()
    stop: Any = distributed.Event(f"{run}-stop-{job['pass_index']}")
    child = subprocess.Popen(
        [sys.executable, "-m", "relay.oracles.campaign"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdin is not None and child.stdout is not None
    child.stdin.write(json.dumps(job) + "\n")
    child.stdin.flush()
    lines: queue.Queue[str | None] = queue.Queue()
    reader = threading.Thread(target=_read_lines, args=(child.stdout, lines), daemon=True)
    reader.start()
    result: str | None = None
    stopped = False
    while True:
        try:
            line = lines.get(timeout=0.5)
        except queue.Empty:
            line = ""
        if line is None:
            break
        if line:
            message = json.loads(line)
            if "result" in message:
                result = message["result"]
            elif "found" in message:
                stop.set()
            else:
                if "tick" in message:
                    message = {"tick": [index, *message["tick"]]}
                worker.log_event(run, message)
        if not stopped and stop.is_set():
            stopped = True
            try:
                child.stdin.write("stop\n")
                child.stdin.flush()
            except (BrokenPipeError, OSError):
                pass
    code = child.wait()
    if result is None:
        failed = PassResult(job["spec"], error=f"the worker's process exited with code {code}")
        return index, base64.b64encode(pickle.dumps(failed)).decode()
    return index, result


def _read_lines(stream: TextIO, out: queue.Queue[str | None]) -> None:
    for line in stream:
        out.put(line)
    out.put(None)


def _child_main() -> None:
    """The child process of a Dask task: a job as JSON on the first line of stdin (``stop``
    on a later line stops generating); JSON lines on stdout: ``{"line": TEXT}``, ``{"tick":
    [EXAMPLES, FAILURES]}``, ``{"found": KIND}``, then ``{"result": PICKLED}``. Whatever the
    pass prints goes to stderr."""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    lock = threading.Lock()

    def send(message: dict[str, Any]) -> None:
        with lock:
            out.write(json.dumps(message) + "\n")
            out.flush()

    job = Job(**json.loads(sys.stdin.readline()))
    stopping = threading.Event()

    def watch() -> None:
        for line in sys.stdin:
            if line.strip() == "stop":
                stopping.set()

    threading.Thread(target=watch, daemon=True).start()
    hooks = Hooks(
        progress=lambda text: send({"line": text}),
        tick=lambda examples, failures: send({"tick": [examples, failures]}),
        found=lambda verdict: send({"found": verdict.kind}),
        stop=stopping.is_set,
    )
    result = _run_job(job, hooks)
    send({"result": base64.b64encode(pickle.dumps(result)).decode()})


@dataclass
class Campaign:
    """What ``fuzz.run_campaign`` hands this module: the passes and their options."""

    specs: Sequence[str]
    labels: Sequence[str]
    time_budget: float
    max_examples: int | None
    seed: int
    out_dir: Path
    database: Path | str | None
    footprint: bool
    progress: Callable[[str], None] | None = None
    ticks: Callable[[str, int, int], None] | None = None

    def run(self, workers: int, scheduler: str | None) -> list[PassResult]:
        """Run on ``workers`` local processes, or on the Dask cluster at ``scheduler`` (with
        ``workers`` tasks at once when above 1, else as many as the cluster has threads)."""
        client = connect(scheduler) if scheduler is not None else None
        try:
            if client is not None and workers <= 1:
                workers = cluster_workers(client)
            jobs = plan(
                self.specs,
                workers,
                time_budget=self.time_budget,
                max_examples=self.max_examples,
                seed=self.seed,
                out_dir=self.out_dir,
                database=self.database,
                footprint=self.footprint,
                write=client is None,
            )
            sink = Sink(jobs, self.labels, self.progress, self.ticks)
            if client is not None:
                run_dask(client, jobs, sink)
            else:
                run_local(jobs, workers, sink)
            return sink.merged()
        finally:
            if client is not None:
                client.close()


if __name__ == "__main__":
    _child_main()
