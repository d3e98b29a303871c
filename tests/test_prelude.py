"""``--prelude FILE`` and ``relay.parse(text, prelude=mod)``: definitions read first, in scope.

TVM loaded ``prelude.rly`` before its other standard-library files (``nat.rly`` uses ``List``
without defining it); these small hand-written files stand in for that arrangement.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import relay

ROOT = Path(__file__).parent.parent

BASE = """#[version = "0.0.5"]
// A small library: lists and their length.
type List[A] {
  Cons(A, List[A]),
  Nil,
}

def @length[A](%l: List[A]) -> int32 {
  match (%l) {
    Cons(_, %t) => 1 + @length(%t),
    Nil => 0,
  }
}
"""

NAT = """#[version = "0.0.5"]
type Nat {
  Z,
  S(Nat),
}

def @nat_to_list(%n: Nat) -> List[Nat] {
  match (%n) {
    Z => Nil,
    S(%m) => Cons(%n, @nat_to_list(%m)),
  }
}
"""

MAIN = "def @main(%n: Nat) -> int32 {\n  @length(@nat_to_list(%n))\n}\n"


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
def files(tmp_path: Path) -> dict[str, str]:
    paths = {}
    for name, text in (("base", BASE), ("nat", NAT), ("main", MAIN)):
        path = tmp_path / f"{name}.relay"
        path.write_text(text, encoding="utf-8")
        paths[name] = str(path)
    return paths


def test_fmt_prints_only_the_main_files_definitions(files: dict[str, str]) -> None:
    result = run("fmt", "--prelude", files["base"], files["nat"])
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        '#[version = "0.0.5"]\ntype Nat {\n  Z,\n  S(Nat),\n}\n\n'
        "def @nat_to_list(%n: Nat) -> List[Nat] {\n  match (%n) {\n    Z => {\n      Nil\n"
        "    },\n    S(%m) => {\n      %0 = @nat_to_list(%m);\n      Cons(%n, %0)\n    },\n"
        "  }\n}\n\n"
    )
    typed = run("fmt", files["nat"], "--types", "--prelude", files["base"])
    assert typed.returncode == 0, typed.stderr
    assert "Cons(%n, %0) /* ty=List[Nat] */" in typed.stdout
    assert "def @length" not in typed.stdout


def test_without_its_prelude_the_file_is_an_error(files: dict[str, str]) -> None:
    result = run("check", files["nat"])
    assert result.returncode == 1
    assert result.stderr.startswith(f"{files['nat']}:7:30: error: unknown type List\n")


def test_check_types_all_together_and_prints_the_main_files_globals(
    files: dict[str, str],
) -> None:
    result = run("check", "--prelude", files["base"], "--prelude", files["nat"], files["main"])
    assert (result.returncode, result.stdout) == (0, "@main: fn (Nat) -> int32\n"), result.stderr


def test_preludes_are_read_in_order(files: dict[str, str]) -> None:
    result = run("check", "--prelude", files["nat"], "--prelude", files["base"], files["main"])
    assert result.returncode == 1
    assert result.stderr.startswith(f"{files['nat']}:7:30: error: unknown type List\n")


def test_run_and_explain_see_the_preludes(files: dict[str, str]) -> None:
    preludes = ["--prelude", files["base"], "--prelude", files["nat"]]
    result = run("run", files["main"], "S(S(S(Z)))", *preludes)
    assert (result.returncode, result.stdout) == (0, "3\n"), result.stderr
    listed = run("run", *preludes, "--entry", "nat_to_list", files["main"], "S(Z)")
    assert (listed.returncode, listed.stdout) == (0, "Cons(S(Z), Nil)\n"), listed.stderr
    explain = run("explain", *preludes, files["main"], "Z")
    assert explain.returncode == 0, explain.stderr
    assert explain.stdout.splitlines()[-1] == "⇓ 0"
    bare = run("run", "--prelude", files["base"], "-", stdin="@length(Cons(1f, Nil))")
    assert (bare.returncode, bare.stdout) == (0, "1\n"), bare.stderr


def test_redefining_a_prelude_name_is_an_error(files: dict[str, str], tmp_path: Path) -> None:
    again = tmp_path / "again.relay"
    again.write_text("def @length(%x: int32) { %x }\n", encoding="utf-8")
    result = run("check", "--prelude", files["base"], str(again))
    assert result.returncode == 1
    assert result.stderr.startswith(f"{again}:1:5: error: duplicate definition of @length")
    result = run("check", "--prelude", files["base"], files["base"])
    assert result.returncode == 1
    assert result.stderr.startswith(f"{files['base']}:3:6: error: duplicate definition of "
                                    "type List")  # fmt: skip


def test_parse_with_a_prelude_module() -> None:
    base = relay.parse(BASE, "base.relay")
    both = relay.parse(NAT, "nat.relay", prelude=base)
    assert [gv.name for gv in both.functions] == ["length", "nat_to_list"]
    assert [h.name for h in both.type_definitions] == ["List", "Nat"]
    assert both.get_global_var("length") is base.get_global_var("length")
    assert both.constructors()["Cons"] is base.constructors()["Cons"]
    mod = relay.parse(MAIN, "main.relay", prelude=both)
    relay.infer_types(mod)
    nat = mod.constructors()
    from relay.semantics.values import ConstructorValue

    two = ConstructorValue(
        nat["S"], (ConstructorValue(nat["S"], (ConstructorValue(nat["Z"], ()),)),)
    )
    assert relay.evaluate(mod, two).data == 2  # type: ignore[union-attr]
    with pytest.raises(relay.ParseError, match="unknown type List"):
        relay.parse(NAT, "nat.relay")
    with pytest.raises(relay.ParseError, match="duplicate definition of @main: the prelude"):
        relay.parse("1f", "<string>", prelude=relay.parse("def @main() { 0 }"))
