"""Fuzz reports (``oracles/reports.py``): exact replay of binder names, replay without
arguments, and one atomically written report per distinct failure."""

from __future__ import annotations

import json
import multiprocessing
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from mutants import MUTANTS, Mutant  # tests/mutants (pytest puts tests/ on the path)

from relay import parse
from relay.cli import main
from relay.oracles.fuzz import Case, cases, load_pass
from relay.oracles.pass_oracle import check_pass
from relay.oracles.reports import (
    NAMES_PREFIX,
    REPORT_PATH,
    draw_arguments,
    failure_key,
    read_case,
    replay,
    report_text,
    restore_names,
    write_report,
)
from relay.semantics.equality import structural_equal
from relay.semantics.errors import ParseError
from relay.semantics.syntax import Call, Function, GlobalVar, IRModule, Let, Op, TensorType, Var
from relay.semantics.text.printer import astext
from relay.semantics.values import TensorValue

PLUGIN = '''
from dataclasses import replace

from relay.compiler.ir import map_functions, rewrite
from relay.semantics.syntax import Call, Op, Var


def by_name(mod):
    """Rebind each use of a parameter to the last parameter of its name, as a pass that
    looks parameters up by ``name_hint`` does: wrong when two parameters share a name."""

    def one(gv, fn):
        table = {p.name_hint: p for p in fn.params}

        def visit(e):
            if isinstance(e, Var) and any(e is p for p in fn.params):
                new = table[e.name_hint]
                return None if new is e else new
            return None

        return replace(fn, body=rewrite(fn.body, visit))

    return map_functions(mod, one)


def swap(mod):
    def visit(e):
        if isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == "subtract":
            return Call(e.op, (e.args[1], e.args[0]))
        return None

    return map_functions(mod, lambda gv, fn: replace(fn, body=rewrite(fn.body, visit)))


def identity(mod):
    return mod
'''

FLOAT = TensorType((), "float32")


@pytest.fixture
def plugin(tmp_path: Path) -> Path:
    path = tmp_path / "plugin.py"
    path.write_text(PLUGIN)
    return path


def two_ps() -> IRModule:
    """``@main(%p, %p) { subtract(%p, %p) }`` with two distinct binders named ``p``."""
    a, b = Var("p", FLOAT), Var("p", FLOAT)
    body = Call(Op("subtract"), (a, b))
    return IRModule({GlobalVar("main"): Function((a, b), body)})


ARGS = (TensorValue(np.array(5, "float32")), TensorValue(np.array(2, "float32")))


def cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["fuzz", *argv])
    out, err = capsys.readouterr()
    return code, out, err


# -- exact binder names -----------------------------------------------------------------------


def test_a_name_dependent_failure_replays(plugin: Path, tmp_path: Path) -> None:
    loaded = load_pass(f"{plugin}:by_name")
    case = Case(two_ps(), ARGS)
    verdict = check_pass(loaded.pass_, case.mod, case.args)
    assert verdict is not None and verdict.kind == "mismatch"
    path = tmp_path / "by_name-1.relay"
    text = report_text(verdict, case, loaded.spec, str(path))
    path.write_text(text)
    assert "def @main(%p: float32, %p1: float32)" in text  # the text cannot say %p twice
    assert f'{NAMES_PREFIX} {{"main": {{"p1": "p"}}}}' in text
    replayed, again = replay(loaded, path)
    assert again is not None and again.kind == "mismatch"
    assert again.expected == "3f" and again.actual == "0f"
    assert structural_equal(replayed.mod, case.mod)  # the very names, not just alpha-equal
    # Without the names line the printed program is another one, on which the pass is right:
    # the line is what makes the failure replay.
    plain = tmp_path / "plain.relay"
    plain.write_text("\n".join(x for x in text.splitlines() if not x.startswith(NAMES_PREFIX)))
    assert replay(loaded, plain)[1] is None


@pytest.mark.slow
def test_a_campaign_report_of_a_name_dependent_pass_replays(
    plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = f"{plugin}:by_name"
    out = tmp_path / "out"
    code, _, _ = cli(["--pass", spec, "--max-examples", "300", "--time", "30", "--seed", "0",
                      "--out", str(out)], capsys)  # fmt: skip
    assert code == 1
    (report,) = out.iterdir()
    text = report.read_text()
    assert NAMES_PREFIX in text
    kind = next(x for x in text.splitlines() if x.startswith("// verdict: "))
    kind = kind[len("// verdict: ") :].split(":", 1)[0]
    code, printed, _ = cli(["--pass", spec, "--replay", str(report)], capsys)
    assert code == 1 and f"verdict: {kind}:" in printed


def test_renamed_names_restore_generated_modules_exactly() -> None:
    seen: list[int] = []

    @settings(max_examples=60, phases=[Phase.generate], derandomize=True, database=None,
              deadline=None, suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(cases())
    def check(case: Case) -> None:
        renamed: dict[str, dict[str, str]] = {}
        text = astext(case.mod, renamed=renamed)
        back = restore_names(parse(text), renamed)
        assert structural_equal(back, case.mod), text
        seen.append(len(renamed))

    check()
    assert any(seen)  # some generated module needed the table


def test_the_names_table_is_a_function_of_the_printed_name() -> None:
    # @main(%p, %p, %p1, %a.b): the second p is printed %p1, so the hint p1 is printed %p11
    # (the default text does the same), and a.b, which a name cannot hold, a_b.
    a, b, c = Var("p", FLOAT), Var("p", FLOAT), Var("p1", FLOAT)
    odd = Var("a.b", FLOAT)
    body = Call(Op("add"), (Call(Op("subtract"), (a, b)), Call(Op("multiply"), (c, odd))))
    mod = IRModule({GlobalVar("main"): Function((a, b, c, odd), body)})
    renamed: dict[str, dict[str, str]] = {}
    text = astext(mod, renamed=renamed)
    assert renamed == {"main": {"p1": "p", "p11": "p1", "a_b": "a.b"}}
    assert text == astext(mod)
    assert structural_equal(restore_names(parse(text), renamed), mod)


def test_a_printed_name_never_stands_for_two_hints() -> None:
    # @main(%p) { let %f = fn (%p) { %p }; let %p1 = %p; %f(%p1) }: the default text prints
    # the closure's parameter %p1 and, once it is out of scope, the let's variable %p1 too;
    # with the table the let's variable is %p11, so %p1 means one hint.
    outer, inner, f, q = Var("p", FLOAT), Var("p", FLOAT), Var("f"), Var("p1")
    closure = Function((inner,), inner)
    body = Let(f, closure, Let(q, outer, Call(f, (q,))))
    mod = IRModule({GlobalVar("main"): Function((outer,), body)})
    default = astext(mod)
    assert "fn (%p1: float32)" in default and "let %p1 = %p;" in default
    renamed: dict[str, dict[str, str]] = {}
    text = astext(mod, renamed=renamed)
    assert renamed == {"main": {"p1": "p", "p11": "p1"}} and "let %p11 = %p;" in text
    assert structural_equal(restore_names(parse(text), renamed), mod)
    assert not structural_equal(parse(default), mod)


def test_a_bad_names_line_is_a_parse_error(tmp_path: Path) -> None:
    text = f'{NAMES_PREFIX} {{"nowhere": {{}}}}\n#[version = "0.0.5"]\ndef @main() {{ 1f }}\n'
    with pytest.raises(ParseError, match="no global @nowhere"):
        read_case(text, "bad.relay")


# -- replay without arguments -----------------------------------------------------------------

SUB = '#[version = "0.0.5"]\ndef @main(%a: float32, %b: float32) { subtract(%a, %b) }\n'


def test_replay_without_arguments_draws_them_and_says_so(
    plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sub.relay"
    path.write_text(SUB)
    code, out, err = cli(["--pass", f"{plugin}:swap", "--replay", str(path)], capsys)
    assert code == 1 and "verdict: mismatch" in out
    assert "no ARG-JSON lines: compared on 8 argument lists" in err
    code, out, err = cli(["--pass", f"{plugin}:identity", "--replay", str(path)], capsys)
    assert code == 0 and "the checks pass" in out and "no ARG-JSON lines" in err


def test_replay_with_nothing_to_compare_exits_2(
    plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ref.relay"
    path.write_text('#[version = "0.0.5"]\ndef @main(%r: ref(float32)) { ref_read(%r) }\n')
    code, out, err = cli(["--pass", f"{plugin}:identity", "--replay", str(path)], capsys)
    assert code == 2 and "the checks pass" not in out
    assert f"{path}:1:1: error: nothing was compared: the file has no ARG-JSON lines" in err
    assert "Traceback" not in err


def test_replay_rejects_the_wrong_number_of_arguments(
    plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "one.relay"
    arg = {"kind": "tensor", "dtype": "float32", "shape": [], "data": 1.0}
    path.write_text(f"// ARG-JSON: {json.dumps(arg)}\n{SUB}")
    code, _, err = cli(["--pass", f"{plugin}:identity", "--replay", str(path)], capsys)
    assert code == 2 and "1 ARG-JSON lines for an @main of 2 parameters" in err


def test_drawn_arguments_fit_the_parameters_and_repeat() -> None:
    types = [TensorType((2, 3), "int32"), TensorType((), "float32")]
    first = draw_arguments(types, 5, seed=3)
    assert len(first) == 5
    for a, b in first:
        assert isinstance(a, TensorValue) and isinstance(b, TensorValue)
        assert a.data.shape == (2, 3) and a.data.dtype == np.dtype("int32")
        assert b.data.shape == () and b.data.dtype == np.dtype("float32")
    again = draw_arguments(types, 5, seed=3)
    assert all(
        np.array_equal(x.data, y.data)  # type: ignore[union-attr]
        for s, t in zip(first, again, strict=True)
        for x, y in zip(s, t, strict=True)
    )
    assert len({str(v) for s in first for v in s}) > 2  # not the same list five times


def test_replay_of_an_ill_typed_program_without_arguments_exits_2(
    plugin: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.relay"
    path.write_text('#[version = "0.0.5"]\ndef @main(%a: float32) { add(%a, 1) }\n')
    code, out, err = cli(["--pass", f"{plugin}:identity", "--replay", str(path)], capsys)
    assert code == 2 and "the checks pass" not in out
    assert "error: nothing was compared: the program does not type-check" in err


# -- one report per failure -------------------------------------------------------------------


def test_write_report_once_per_failure(tmp_path: Path, plugin: Path) -> None:
    loaded = load_pass(f"{plugin}:swap")
    case = Case(parse(SUB), ARGS)
    verdict = check_pass(loaded.pass_, case.mod, case.args)
    assert verdict is not None
    text = report_text(verdict, case, loaded.spec, REPORT_PATH)
    key = failure_key(case, verdict)
    out = tmp_path / "out"
    first = write_report(out, "swap", text, key)
    assert first == out / "swap-1.relay"
    written = first.read_text()
    assert f"--replay {first}" in written and REPORT_PATH not in written
    assert written.count(f"// failure-key: {key}") == 1
    assert written == text.replace(REPORT_PATH, str(first))  # the key line was already there
    umask = os.umask(0)
    os.umask(umask)
    assert first.stat().st_mode & 0o777 == 0o666 & ~umask  # an ordinary file, not private
    assert write_report(out, "swap", text, key) == first  # the same failure: no new file
    assert first.read_text() == written
    other = write_report(out, "swap", text, "another-key")
    assert other == out / "swap-2.relay"
    assert sorted(p.name for p in out.iterdir()) == ["swap-1.relay", "swap-2.relay"]
    again = replay(loaded, first)[1]
    assert again is not None and again.kind == "mismatch"


def test_write_report_never_overwrites(tmp_path: Path) -> None:
    (tmp_path / "p-1.relay").write_text("// someone else's file\n")
    (tmp_path / "p-3.relay").write_text("not a report\n")
    path = write_report(tmp_path, "p", "// relay fuzz: counterexample\n", "k")
    assert path == tmp_path / "p-4.relay"
    assert (tmp_path / "p-1.relay").read_text() == "// someone else's file\n"
    assert path.read_text() == "// relay fuzz: counterexample\n// failure-key: k\n"
    assert not [p for p in tmp_path.iterdir() if p.suffix == ".tmp"]


# -- the mutation corpus ----------------------------------------------------------------------

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow
@pytest.mark.parametrize(
    "mutant", [m for m in MUTANTS if "timeout" not in m.verdicts], ids=lambda m: m.attr
)
def test_every_mutant_report_replays(
    mutant: Mutant, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The shrunk report of each broken pass of ``tests/mutants`` reproduces its verdict
    with ``--replay`` (the looping ones are left out: each replay would wait out the
    per-example time limit)."""
    spec = f"{ROOT / 'tests' / 'mutants' / mutant.file}:{mutant.attr}"
    code, _, _ = cli(["--pass", spec, "--max-examples", "2000", "--time", "60", "--seed", "0",
                      "--out", str(tmp_path)], capsys)  # fmt: skip
    if code == 0:
        pytest.skip(f"{mutant.attr} not caught with seed 0 in 60 s (tests/test_mutants.py)")
    (report,) = tmp_path.glob("*.relay")
    text = report.read_text()
    kind = next(x for x in text.splitlines() if x.startswith("// verdict: ")).split(":")[1]
    code, printed, _ = cli(["--pass", spec, "--replay", str(report)], capsys)
    assert code == 1, f"{report} does not replay:\n{text}\n{printed}"
    assert f"verdict: {kind.strip()}:" in printed


def _write_in_process(job: tuple[str, str, str]) -> str:
    out, text, key = job
    return str(write_report(Path(out), "race", text, key))


def test_concurrent_writers_neither_overwrite_nor_duplicate(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("fork")
    texts = [f"// relay fuzz: counterexample\n// writer {i}\n" for i in range(8)]
    with ctx.Pool(4) as pool:
        distinct = pool.map(_write_in_process, [(str(tmp_path / "a"), t, t) for t in texts])
        same = pool.map(_write_in_process, [(str(tmp_path / "b"), t, "one") for t in texts])
    assert len(set(distinct)) == 8  # eight failures, eight files, none overwritten
    assert sorted(Path(p).read_text() for p in distinct) == sorted(_expected(t, t) for t in texts)
    # One failure, one file: a writer that loses the race to the name finds the key there.
    assert len(set(same)) == 1 and len(list((tmp_path / "b").glob("*.relay"))) == 1


def _expected(text: str, key: str) -> str:
    first, rest = text.split("\n", 1)
    return f"{first}\n// failure-key: {key}\n{rest}"
