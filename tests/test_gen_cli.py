"""``relay gen``: files written and accepted by ``relay check``, determinism by seed, the
``--stats`` tables, and bad usage."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from relay.cli import main
from relay.cli_gen import Stats, format_stats, percentile
from relay.oracles.gen_modules import EXTRA_FEATURES, FEATURES
from relay.oracles.generate import generate
from relay.semantics.ops import OPS
from relay.semantics.syntax import FuncType
from relay.semantics.text.parser import parse
from relay.semantics.text.printer import format_type
from relay.semantics.typing import infer_types

ROOT = Path(__file__).parent.parent


def files(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text() for p in sorted(folder.iterdir())}


def test_gen_writes_programs_that_parse_and_type_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gen", "--count", "12", "--seed", "3", "--out", str(tmp_path / "out")]) == 0
    written = files(tmp_path / "out")
    kinds = ["module", "dataflow"] * 6  # mixed (the default) alternates, a module first
    assert list(written) == [f"gen_{i:04d}-{k}.relay" for i, k in enumerate(kinds)]
    assert "wrote 12 programs" in capsys.readouterr().err
    for name, text in written.items():
        assert text.startswith("// relay gen --seed 3 --kind mixed: program ")
        mod = parse(text, source_name=name)
        main_type = infer_types(mod).global_type("main")
        assert isinstance(main_type, FuncType)
        # The header gives @main's parameter types, as the checker infers them.
        header = re.search(r"^// parameters of @main: (.*)$", text, re.MULTILINE)
        assert header is not None
        expected = ", ".join(format_type(t) for t in main_type.arg_types) or "none"
        assert header.group(1) == expected
        assert main(["check", str(tmp_path / "out" / name)]) == 0
    assert "@main: fn (" in capsys.readouterr().out


@pytest.mark.parametrize("kind", ["modules", "dataflow"])
def test_kind_selects_the_generator(kind: str, tmp_path: Path) -> None:
    assert main(["gen", "--count", "5", "--kind", kind, "--out", str(tmp_path)]) == 0
    suffix = "-module.relay" if kind == "modules" else "-dataflow.relay"
    assert len(files(tmp_path)) == 5
    assert all(name.endswith(suffix) for name in files(tmp_path))


def test_the_same_seed_gives_the_same_files(tmp_path: Path) -> None:
    args = ["gen", "--count", "16", "--seed", "11"]
    # Two fresh processes, with different hash seeds: nothing may depend on either. (Within
    # the test process, earlier tests' use of the generators may shift later draws.)
    for out, hash_seed in (("a", "1"), ("b", "12345")):
        result = subprocess.run(
            [sys.executable, "-m", "relay", *args, "--out", str(tmp_path / out)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env={"PYTHONHASHSEED": hash_seed, "PATH": ""},
            check=False,
        )
        assert result.returncode == 0, result.stderr
    assert files(tmp_path / "a") == files(tmp_path / "b")
    assert main(["gen", "--count", "16", "--seed", "12", "--out", str(tmp_path / "c")]) == 0
    a, c = files(tmp_path / "a"), files(tmp_path / "c")
    body = [text.split("\n", 1)[1] for text in a.values()]  # without the "--seed" line
    other = [text.split("\n", 1)[1] for text in c.values()]
    assert sum(x != y for x, y in zip(body, other, strict=True)) >= 8


def test_without_out_the_programs_go_to_standard_output(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["gen", "--count", "1", "--kind", "dataflow", "--seed", "5"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("// relay gen --seed 5 --kind dataflow: program 0 of 1")
    infer_types(parse(out))


def test_stats_prints_every_feature_every_op_and_size_percentiles(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["gen", "--count", "40", "--stats"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("features: programs containing each, of 40\n")
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line[:2] == "  "}
    for feature in (*FEATURES, *EXTRA_FEATURES):
        assert feature in rows, feature
        assert 0 <= int(rows[feature][0]) <= 40
    assert rows["Function"][0] == "40"  # every program has a @main
    for name in OPS:  # every registered operator has a row, drawn or not
        assert name in rows, name
    assert sum(int(rows[name][0]) for name in OPS) > 0
    size = re.search(r"^  dataflow +20 +(\d+) +(\d+) +(\d+) +(\d+)$", out, re.MULTILINE)
    assert size is not None
    p50, p90, p99, largest = map(int, size.groups())
    assert 1 <= p50 <= p90 <= p99 <= largest
    assert re.search(r"^  module +20 ", out, re.MULTILINE)
    assert re.search(r"^  all +40 ", out, re.MULTILINE)
    assert "never generated: " in out


def test_stats_count_features_ops_and_nodes_of_each_program() -> None:
    stats = Stats()
    for program in generate(6, 0, "dataflow"):
        stats.add(program)
    [program] = generate(1, 0, "dataflow")  # the simplest: one negative(%p0)
    one = Stats()
    one.add(program)
    assert one.ops["negative"] == 1 and one.ops.total() == 1
    assert one.sizes == {"dataflow": [4]}  # fn, call, op, parameter
    assert {"Function", "Call", "Op", "Var"} <= set(one.features)
    assert "Constructor" not in one.features
    assert stats.programs == 6 and len(stats.sizes["dataflow"]) == 6
    report = format_stats(one)
    assert re.search(r"^  negative +1 +100\.00%$", report, re.MULTILINE)
    assert re.search(r"^  add +0 +0\.00%$", report, re.MULTILINE)
    assert "never generated: GlobalVar, Constant, Tuple, " in report


def test_percentiles_use_the_nearest_rank() -> None:
    values = list(range(1, 101))
    assert [percentile(values, p) for p in (50, 90, 99, 100)] == [50, 90, 99, 100]
    assert percentile([7], 50) == 7


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--count", "0"], "--count 0: expected an integer from 1 to"),
        (["--count", "-3"], "--count -3: expected an integer from 1 to"),
        (["--count", "many"], "--count many: expected a positive integer"),
        (["--seed", "-1"], "--seed -1: expected a non-negative integer"),
        (["--kind", "graphs"], "--kind graphs: expected one of modules, dataflow, mixed"),
    ],
)
def test_bad_usage_is_one_line_and_exit_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["gen", *args]) == 2
    err = capsys.readouterr().err
    assert err == f"relay: error: {err.removeprefix('relay: error: ').rstrip()}\n"
    assert message in err and err.count("\n") == 1


def test_an_out_directory_that_cannot_be_made_or_written_is_bad_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    for out in (blocker, blocker / "sub"):
        assert main(["gen", "--count", "2", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"relay: error: --out {out}: ")
        assert err.count("\n") == 1 and "Traceback" not in err
    assert blocker.read_text() == ""  # nothing was generated, nothing written
