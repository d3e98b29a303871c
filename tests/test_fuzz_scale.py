"""``relay fuzz`` beyond one process: shards of one pass on ``--jobs`` workers and on a Dask
``LocalCluster``, the example database shared through a real ``redis-server``, a campaign
killed with SIGKILL, and the live display."""

from __future__ import annotations

import io
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from relay.cli import main
from relay.oracles.campaign import Job, merge, plan
from relay.oracles.fuzz import PassResult, run_campaign
from relay.oracles.pass_oracle import Verdict
from relay.semantics.text.parser import parse

PASSES = """
from dataclasses import dataclass

from relay.compiler.ir import rewrite_module
from relay.compiler.pass_manager import Pass
from relay.semantics.syntax import Call, Op


def _swapper(name):
    def swap(e):
        if isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == name:
            return Call(e.op, (e.args[1], e.args[0]), e.attrs)
        return None

    @dataclass(frozen=True)
    class Swap(Pass):
        focus_ops = frozenset({name})

        def transform(self, mod):
            return rewrite_module(mod, swap)

    return Swap()


swap_subtract = _swapper("subtract")
swap_divide = _swapper("divide")
swap_less = _swapper("less")


def identity(mod):
    return mod
"""


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    path = tmp_path / "passes.py"
    path.write_text(PASSES)
    return path


def _key(path: Path) -> str:
    (line,) = [x for x in path.read_text().splitlines() if x.startswith("// failure-key:")]
    return line


def _found_after(path: Path) -> int:
    (line,) = [x for x in path.read_text().splitlines() if x.startswith("// found after ")]
    return int(line.split()[3])


def _reports(out: Path) -> list[Path]:
    return sorted(out.glob("*.relay")) if out.is_dir() else []


# ---------------------------------------------------------------------------------------------
# Planning and merging


def test_one_pass_on_four_workers_is_four_shards_sharing_its_examples() -> None:
    jobs = plan(["p"], 4, time_budget=60, max_examples=10, seed=5, out_dir=Path("o"),
                database="db", footprint=True)  # fmt: skip
    assert [(j.spec, j.shard, j.shards) for j in jobs] == [("p", i, 4) for i in range(4)]
    assert sum(j.max_examples or 0 for j in jobs) == 10
    assert all(j.time_budget == 60 and j.database == "db" for j in jobs)


def test_more_passes_than_workers_run_in_waves() -> None:
    jobs = plan(["a", "b", "c"], 2, time_budget=60, max_examples=None, seed=0,
                out_dir=Path("o"), database=None, footprint=False)  # fmt: skip
    assert [(j.spec, j.shards) for j in jobs] == [("a", 1), ("b", 1), ("c", 1)]
    assert all(j.time_budget == 30 for j in jobs)  # two waves


def test_merge_adds_up_the_shards_and_puts_the_smallest_failure_first() -> None:
    v = Verdict("p", "mismatch", "m")
    big = PassResult("p", 10, 2.0, (3, 1.0), v, "o/p-1.relay", report=("x" * 50, "k1"))
    big.paths = ["o/p-1.relay"]
    small = PassResult("p", 7, 3.0, (5, 2.0), v, "o/p-2.relay", report=("x" * 10, "k2"))
    small.paths = ["o/p-2.relay"]
    merged = merge("p", [big, small, PassResult("p", 4, 1.0)])
    assert (merged.examples, merged.seconds) == (21, 3.0)
    assert merged.path == "o/p-2.relay" and merged.paths == ["o/p-2.relay", "o/p-1.relay"]
    assert merged.first_failure == (5, 2.0)


def test_jobs_plan_is_plain_data() -> None:
    import pickle

    (job,) = plan(["p"], 1, time_budget=1, max_examples=None, seed=0, out_dir=Path("o"),
                  database=None, footprint=False)  # fmt: skip
    assert pickle.loads(pickle.dumps(job)) == job and isinstance(job, Job)


# ---------------------------------------------------------------------------------------------
# Local processes


@pytest.mark.slow
def test_jobs_split_one_pass_and_a_rerun_replays_from_the_shared_database(
    plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "db"
    base = ["fuzz", "--pass", f"{plugin}:swap_subtract", "--no-footprint", "--jobs", "2",
            "--max-examples", "300", "--time", "60", "--database", str(db)]  # fmt: skip
    assert main([*base, "--out", str(tmp_path / "a"), "--seed", "1"]) == 1
    out, err = capsys.readouterr()
    assert "1 of 1 passes failed" in out and "failure found at example" in err
    first = _reports(tmp_path / "a")
    assert first and len({_key(p) for p in first}) == len(first)  # no duplicates
    for p in first:
        parse(p.read_text())
    # Another seed: the failures are replayed from the database before anything is drawn.
    assert main([*base, "--out", str(tmp_path / "b"), "--seed", "2"]) == 1
    again = _reports(tmp_path / "b")
    assert again and all(_found_after(p) == 1 for p in again)


# ---------------------------------------------------------------------------------------------
# Redis


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture
def redis_url() -> Iterator[str]:
    """A real redis-server on a free local port, for the test only (no persistence)."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is not installed (apt-get install redis-server)")
    pytest.importorskip("redis", reason="the redis package (the 'distributed' extra)")
    import redis

    port = _free_port()
    proc = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly",
         "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    client = redis.Redis(host="127.0.0.1", port=port)
    try:
        for _ in range(100):
            try:
                client.ping()
                break
            except redis.exceptions.ConnectionError:
                time.sleep(0.05)
        else:
            pytest.fail("redis-server did not start")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        client.close()
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.slow
def test_the_database_is_shared_through_redis(
    plugin: Path, tmp_path: Path, redis_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import redis

    base = ["fuzz", "--pass", f"{plugin}:swap_subtract", "--no-footprint", "--max-examples",
            "300", "--time", "60", "--database", redis_url]  # fmt: skip
    assert main([*base, "--out", str(tmp_path / "a"), "--seed", "1"]) == 1
    keys = redis.Redis.from_url(redis_url).keys("relay-fuzz:*")
    assert keys  # the failure and its steering are in Redis, nothing on disk
    assert main([*base, "--out", str(tmp_path / "b"), "--seed", "9"]) == 1
    (report,) = _reports(tmp_path / "b")
    assert _found_after(report) == 1


def test_a_bad_database_is_bad_usage(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = f"redis://127.0.0.1:{_free_port()}/0"  # nothing listens there
    code = main(["fuzz", "--pass", "infer-type", "--database", url, "--max-examples", "1"])
    _, err = capsys.readouterr()
    assert code == 2 and "cannot reach the Redis server" in err and "Traceback" not in err
    (tmp_path / "f").write_text("")
    code = main(["fuzz", "--pass", "infer-type", "--database", str(tmp_path / "f")])
    _, err = capsys.readouterr()
    assert code == 2 and "is not a directory" in err


def test_an_unreachable_scheduler_is_bad_usage(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("distributed")
    import relay.oracles.campaign as campaign

    monkeypatch.setattr(campaign, "CONNECT_TIMEOUT", 1.0)
    address = f"tcp://127.0.0.1:{_free_port()}"
    code = main(["fuzz", "--pass", "infer-type", "--scheduler", address, "--no-footprint"])
    _, err = capsys.readouterr()
    assert code == 2 and f"--scheduler {address}: cannot connect" in err


# ---------------------------------------------------------------------------------------------
# Dask


@pytest.mark.slow
def test_a_local_cluster_campaign_reports_into_one_directory(plugin: Path, tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    out = tmp_path / "out"
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        results = run_campaign(
            [f"{plugin}:swap_subtract", f"{plugin}:identity"],
            max_examples=200,
            time_budget=120,
            seed=3,
            jobs=1,
            out_dir=out,
            database=tmp_path / "db",
            footprint=False,
            scheduler=cluster.scheduler_address,
        )
    broken, fine = results
    assert broken.label == "swap_subtract" and broken.verdict is not None
    assert fine.label == "identity" and fine.verdict is None and fine.examples == 200
    reports = _reports(out)  # written by the client, from the workers' texts
    assert reports and all(p.name.startswith("swap_subtract-") for p in reports)
    assert len({_key(p) for p in reports}) == len(reports)
    assert {str(p) for p in reports} == set(broken.paths)
    assert "--replay " + str(reports[0]) in reports[0].read_text() or len(reports) > 1


# ---------------------------------------------------------------------------------------------
# SIGKILL


def _campaign(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "relay", "fuzz", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own process group: the kill takes every worker
    )


def _kill_and_rerun(plugin: Path, tmp_path: Path, database: str) -> None:
    """Two passes, each split in two shards on four workers, killed with SIGKILL just after
    the first failure is found; the rerun must replay every failure found before the kill."""
    passes = [x for name in ("swap_subtract", "swap_divide")
              for x in ("--pass", f"{plugin}:{name}")]  # fmt: skip
    common = [*passes, "--no-footprint", "--jobs", "4", "--database", database]
    killed = _campaign([*common, "--time", "60", "--out", str(tmp_path / "a"), "--seed", "4"])
    assert killed.stderr is not None
    lines = []
    for line in killed.stderr:  # until the first failure is safe in the database
        lines.append(line)
        if "failure found" in line:
            break
    time.sleep(0.3)  # and a little more: the kill comes mid-shrink, or mid-write
    os.killpg(killed.pid, signal.SIGKILL)
    _, rest = killed.communicate(timeout=30)
    lines.extend(rest.splitlines())
    found = {line.split("]")[0].lstrip("[") for line in lines if "failure found" in line}
    assert found, "".join(lines)
    for p in _reports(tmp_path / "a"):  # whatever was reported before the kill is whole
        parse(p.read_text())
    # The next run replays every failure found before the kill, first thing.
    rerun = _campaign([*common, "--time", "6", "--out", str(tmp_path / "b"), "--seed", "5"])
    out, err = rerun.communicate(timeout=300)
    assert rerun.returncode == 1, err
    for label in found:
        reports = sorted((tmp_path / "b").glob(f"{label}-*.relay"))
        assert reports, (label, out, err)
        # Replayed (another shard of the pass may find one of its own meanwhile).
        assert any(_found_after(p) == 1 for p in reports), label


@pytest.mark.slow
def test_a_campaign_killed_with_sigkill_loses_no_failure(plugin: Path, tmp_path: Path) -> None:
    _kill_and_rerun(plugin, tmp_path, str(tmp_path / "db"))


@pytest.mark.slow
def test_a_campaign_killed_with_sigkill_loses_no_failure_in_redis(
    plugin: Path, tmp_path: Path, redis_url: str
) -> None:
    _kill_and_rerun(plugin, tmp_path, redis_url)


# ---------------------------------------------------------------------------------------------
# The display


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_the_live_display_draws_bars_and_a_table_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from relay.cli_progress import Display, print_table

    err, out = _Terminal(), _Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    monkeypatch.setattr(sys, "stdout", out)
    with Display(["fold-constant"], 10.0, 100) as display:
        assert display.ticks is not None
        display.tick("fold-constant", 40, 0)
        display.line("[fold-constant] an event")
        display.finish([PassResult("fold-constant", 100, 2.0)])
    v = Verdict("p", "mismatch", "m")
    assert print_table([PassResult("fold-constant", 100, 2.0),
                        PassResult("swap", 3, 1.0, None, v, "out/swap-1.relay")])  # fmt: skip
    shown, table = err.getvalue(), out.getvalue()
    assert "fold-constant" in shown and "an event" in shown and "━" in shown
    assert "100 examples" in shown
    assert "swap" in table and "FAILED" in table and "out/swap-1.relay" in table
    assert "┃" in table or "│" in table  # a table, not lines


def test_without_a_terminal_the_display_is_plain_lines(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from relay.cli_progress import Display, print_table

    display = Display(["a"], 10.0, None)
    assert not display.live and display.ticks is None
    display.line("[a] an event")
    assert not print_table([PassResult("a", 1, 1.0)])
    assert capsys.readouterr().err == "[a] an event\n"
