"""``relay run`` and ``relay explain``: output forms, arguments, errors and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from relay.oracles.engines import interpreter_engine

ROOT = Path(__file__).parent.parent

PROGRAM = """#[version = "0.0.5"]
type List[A] { Cons(A, List[A]), Nil }
def @main(%x: float32, %l: List[int32]) {
  let %r = ref(%x);
  (stack((%x, 2f)), Cons(3, %l), %r, fn (%y: int32) { %y }, Nil)
}
def @length[A](%l: List[A]) -> int32 {
  match (%l) {
    Cons(_, %t) => 1 + @length(%t),
    Nil => 0,
  }
}
def @divide(%a: int32, %b: int32) -> int32 {
  divide(%a, %b)
}
def @add_one(%t: Tensor[(2, 2), float32]) -> Tensor[(2, 2), float32] {
  add(%t, 1f)
}
def @special() {
  (divide(0f, 0f), divide(1f, 0f), divide(-1f, 0f), stack((1f, nanf)))
}
def @partial(%l: List[int32]) -> int32 {
  match? (%l) {
    Cons(%h, _) => %h,
  }
}
def @loop(%n: int32) -> int32 {
  @loop(%n + 1)
}
"""


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "relay", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


@pytest.fixture
def program(tmp_path: Path) -> Path:
    path = tmp_path / "prog.relay"
    path.write_text(PROGRAM, encoding="utf-8")
    return path


def test_run_prints_tensor_adt_ref_and_closure_values_as_text(program: Path) -> None:
    result = run("run", str(program), "1.5f", "Cons(7, Nil)")
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "([1.5, 2. ] /* float32[2] */, Cons(3, Cons(7, Nil)), ref(1.5f), <closure>, Nil)\n"
    )
    assert result.stderr == ""


def test_run_json_prints_value_to_json(program: Path) -> None:
    result = run("run", "--json", str(program), "1.5f", "Nil")
    assert result.returncode == 0, result.stderr
    scalar = {"kind": "tensor", "dtype": "float32", "shape": [], "data": 1.5}
    assert json.loads(result.stdout) == {
        "kind": "tuple",
        "fields": [
            {"kind": "tensor", "dtype": "float32", "shape": [2], "data": [1.5, 2.0]},
            {"kind": "constructor", "name": "Cons", "fields": [
                {"kind": "tensor", "dtype": "int32", "shape": [], "data": 3},
                {"kind": "constructor", "name": "Nil", "fields": []},
            ]},
            {"kind": "ref", "value": scalar},
            {"kind": "closure"},
            {"kind": "constructor", "name": "Nil", "fields": []},
        ],
    }  # fmt: skip


def test_json_writes_non_finite_floats_as_strings(program: Path) -> None:
    result = run("run", "--json", "--entry", "special", str(program))
    assert result.returncode == 0, result.stderr

    def no_constants(name: str) -> object:
        raise AssertionError(f"non-standard JSON constant {name}")

    value = json.loads(result.stdout, parse_constant=no_constants)
    assert [f["data"] for f in value["fields"]] == ["nan", "inf", "-inf", [1.0, "nan"]]


def test_run_text_writes_non_finite_floats_as_literals(program: Path) -> None:
    result = run("run", "--entry", "@special", str(program))
    assert result.returncode == 0, result.stderr
    assert ", inff, -inff, [ 1., nan] /* float32[2] */)" in result.stdout


def test_npy_arguments(program: Path, tmp_path: Path) -> None:
    npy = tmp_path / "t.npy"
    np.save(npy, np.array([[1, 2], [3, 4]], dtype=np.float32))
    result = run("run", "--json", "--entry", "add_one", str(program), str(npy))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "kind": "tensor", "dtype": "float32", "shape": [2, 2], "data": [[2.0, 3.0], [4.0, 5.0]]
    }  # fmt: skip


def test_literal_arguments_may_be_any_closed_expression(program: Path) -> None:
    result = run("run", "--entry", "length", str(program), "Cons((1, 2f), Cons((3, 4f), Nil))")
    assert (result.returncode, result.stdout) == (0, "2\n"), result.stderr
    negative = run("run", "--entry", "divide", str(program), "--", "-7", "add(1, 1)")
    assert (negative.returncode, negative.stdout) == (0, "-3\n"), negative.stderr


def test_explicit_engines_agree(program: Path) -> None:
    spec = run("run", "--engine", "spec", str(program), "1.5f", "Nil")
    assert spec.returncode == 0, spec.stderr
    interpreter = run("run", "--engine", "interpreter", str(program), "1.5f", "Nil")
    if interpreter_engine() is None:
        assert interpreter.returncode == 2
        assert "interpreter engine is not available" in interpreter.stderr
    else:
        assert (interpreter.returncode, interpreter.stdout) == (0, spec.stdout)


def test_runtime_error_is_one_diagnostic_and_exit_1(program: Path) -> None:
    result = run("run", "--entry", "divide", str(program), "1", "0")
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 3
    assert lines[0].startswith(f"{program}:14:3: error: ")
    assert "integer division by zero" in lines[0]
    assert lines[1:] == ["  divide(%a, %b)", "  ^~~~~~~~~~~~~~"]


def test_incomplete_match_fails_at_run_time(program: Path) -> None:
    result = run("run", "--entry", "partial", str(program), "Nil")
    assert result.returncode == 1
    assert result.stderr.startswith(f"{program}:23:3: error: E-Match-Fail: ")


def test_fuel_exhaustion_is_exit_1(program: Path) -> None:
    result = run("run", "--entry", "loop", "--fuel", "500", str(program), "0")
    assert result.returncode == 1
    first = result.stderr.splitlines()[0]
    assert "error: out of fuel" in first
    assert first.endswith("(--fuel 500; give a larger --fuel, or leave it out for no limit)")
    assert "Traceback" not in result.stderr
    explain = run("explain", "--entry", "loop", str(program), "0", "--fuel", "50")
    assert explain.returncode == 1
    assert "(--fuel 50; give a larger --fuel" in explain.stderr.splitlines()[0]


def test_type_errors_are_exit_1_before_running(tmp_path: Path) -> None:
    path = tmp_path / "bad.relay"
    path.write_text("def @main() { add(1, 1f) }\n", encoding="utf-8")
    result = run("run", str(path))
    assert result.returncode == 1
    assert result.stderr.startswith(f"{path}:1:15: error: ")


def test_standard_input(program: Path) -> None:
    result = run("run", "-", stdin="def @main(%x: int32) { %x * 2 }")
    assert (result.returncode, result.stderr) == (
        2,
        "relay: error: @main(%x) takes 1 argument, found 0\n",
    )
    result = run("run", "-", "21", stdin="def @main(%x: int32) { %x * 2 }")
    assert (result.returncode, result.stdout) == (0, "42\n"), result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["1.5f"], "relay: error: @main(%x, %l) takes 2 arguments, found 1\n"),
        (["1.5", "Nil"], "relay: error: argument 1 ('1.5') is not a Relay expression: invalid "
                         "literal 1.5: a float literal needs its f suffix (1.5f)\n"),
        (["1", "Nil"], "relay: error: argument 1 ('1') does not fit parameter %x of @main: "
                       "expected float32, found int32 (dtype float32 and dtype int32 differ)\n"),
        (["1f", "Cons(1f, Nil)"], "relay: error: argument 2 ('Cons(1f, Nil)') does not fit "
                                  "parameter %l of @main: expected List[int32], found "
                                  "List[float32] (dtype int32 and dtype float32 differ)\n"),
        (["1f", "Cons(1, Nil), 2"], "relay: error: argument 2 ('Cons(1, Nil), 2') must be one "
                                    "expression, found 2; write a tuple as (a, b)\n"),
        (["1f", "%free"], "relay: error: argument 2 ('%free') is not a Relay expression: "
                          "unbound variable %free\n"),
        (["1f", "no/such.npy"], "relay: error: argument 2: no such file: no/such.npy\n"),
        (["--entry", "nope"], "relay: error: no function @nope in {program} (it defines @main, "
                              "@length, @divide, @add_one, @special, @partial, @loop)\n"),
        (["--fuel", "0"], None),
        (["--engine", "fast"], None),
    ],
)  # fmt: skip
def test_bad_usage_is_exit_2(program: Path, args: list[str], message: str | None) -> None:
    result = run("run", str(program), *args)
    assert result.returncode == 2, result.stderr
    assert result.stdout == ""
    if message is not None:
        assert result.stderr == message.format(program=program)


def test_unreadable_npy_is_exit_2(program: Path, tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.npy"
    garbage.write_bytes(b"not an array")
    result = run("run", str(program), str(garbage), "Nil")
    assert result.returncode == 2
    assert result.stderr.startswith(f"relay: error: argument 1 ('{garbage}') is not a .npy array")
    complex_npy = tmp_path / "complex.npy"
    np.save(complex_npy, np.array(1j))
    result = run("run", str(program), str(complex_npy), "Nil")
    assert result.returncode == 2
    assert "holds complex128 values" in result.stderr


def test_npz_archives_are_refused_by_name(program: Path, tmp_path: Path) -> None:
    archive = tmp_path / "a.npz"
    np.savez(archive, x=np.float32(1))
    disguised = tmp_path / "zip.npy"
    disguised.write_bytes(archive.read_bytes())
    for path in (archive, disguised):
        result = run("run", str(program), str(path), "Nil")
        assert (result.returncode, result.stdout) == (2, "")
        assert result.stderr == (f"relay: error: argument 1 ('{path}') is a .npz archive; pass "
                                 "each array as a .npy file (numpy.save)\n")  # fmt: skip


def test_an_npy_header_cannot_claim_more_data_than_the_file_holds(
    program: Path, tmp_path: Path
) -> None:
    import io

    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f4", "fortran_order": False, "shape": (10**11,)}
    )
    data = header.getvalue()
    assert len(data) <= 128
    huge = tmp_path / "huge.npy"
    huge.write_bytes(data + b"\0" * (128 - len(data)))
    result = run("run", "--entry", "add_one", str(program), str(huge))
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (
        f"relay: error: argument 1 ('{huge}'): its header says shape (100000000000,) of float32 "
        f"(400,000,000,000 bytes), but the file holds {128 - len(data)} bytes of data\n"
    )
    wrong_dtype = tmp_path / "f64.npy"
    np.save(wrong_dtype, np.ones((2, 2)))
    result = run("run", "--entry", "add_one", str(program), str(wrong_dtype))
    assert (result.returncode, result.stderr) == (2, (
        f"relay: error: argument 1 ('{wrong_dtype}') does not fit parameter %t of @add_one: "
        "expected Tensor[(2, 2), float32], found Tensor[(2, 2), float64] (dtype float32 and "
        "dtype float64 differ)\n"))  # fmt: skip


def test_a_deep_recursion_runs_with_the_default_options(tmp_path: Path) -> None:
    path = tmp_path / "deep.relay"
    path.write_text(DEEP, encoding="utf-8")
    result = run("run", str(path))
    assert (result.returncode, result.stdout, result.stderr) == (0, "100000i64\n", "")


DEEP = """#[version = "0.0.5"]
type List[A] { Cons(A, List[A]), Nil }
def @build(%n: int64, %acc: List[int64]) -> List[int64] {
  if (%n == 0i64) { %acc } else { @build(%n - 1i64, Cons(%n, %acc)) }
}
def @length(%l: List[int64]) -> int64 {
  match (%l) {
    Cons(_, %t) => 1i64 + @length(%t),
    Nil => 0i64,
  }
}
def @main() -> int64 {
  @length(@build(100000i64, Nil))
}
"""
"""A 100,000-element list built by one recursive global and measured by another: about
200,000 calls, which no default budget may stop."""


def test_arguments_cannot_create_references(program: Path) -> None:
    result = run("run", "--entry", "length", str(program), "Cons(ref(1), Nil)")
    assert result.returncode == 2
    assert result.stderr == (
        "relay: error: argument 1 creates references; the entry starts from an empty store, so "
        "create them inside the program\n"
    )


def test_missing_file_is_exit_2() -> None:
    result = run("run", "no/such/file.relay")
    assert (result.returncode, result.stderr) == (2, "relay: error: no such file: "
                                                  "no/such/file.relay\n")  # fmt: skip


def test_explain_prints_the_derivation_then_the_value(program: Path) -> None:
    result = run("explain", "--entry", "length", str(program), "Cons(1, Nil)")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[-1] == "⇓ 1"
    assert lines[0].startswith("E-Call-Closure")  # the entry call is the conclusion
    assert any(line.lstrip().startswith("E-Match") for line in lines)
    assert any(line.lstrip().startswith("M-Ctor") for line in lines)
    assert any(line.startswith("  ") for line in lines)  # premises are indented


def test_explain_reports_runtime_errors_like_run(program: Path) -> None:
    result = run("explain", "--entry", "divide", str(program), "1", "0")
    assert result.returncode == 1
    assert "integer division by zero" in result.stderr.splitlines()[0]


LONG_LIST = """#[version = "0.0.5"]
type List[A] { Cons(A, List[A]), Nil }
def @build(%n: int32, %acc: List[int32]) -> List[int32] {
  if (%n == 0) { %acc } else { @build(%n - 1, Cons(%n, %acc)) }
}
def @main() -> List[int32] { @build(5000, Nil) }
"""


@pytest.mark.parametrize("mode", [[], ["--json"]])
def test_run_prints_a_5000_element_list(tmp_path: Path, mode: list[str]) -> None:
    path = tmp_path / "long.relay"
    path.write_text(LONG_LIST)
    done = run("run", *mode, str(path))
    assert done.returncode == 0, done.stderr
    if mode:  # too deep for json.loads: check the shape of the text
        cons = '{"kind": "constructor", "name": "Cons", "fields": [{"kind": "tensor", '
        assert done.stdout.count(cons) == 5000
        assert done.stdout.rstrip().endswith('"name": "Nil", "fields": []}' + "]}" * 5000)
    else:
        assert done.stdout.count("Cons(") == 5000
