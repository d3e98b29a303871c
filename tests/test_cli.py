"""The ``relay`` command line: output, exit codes and error reporting."""

import subprocess
import sys
from pathlib import Path

import pytest

from relay.cli import main

ROOT = Path(__file__).parent.parent


def run(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "relay", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


def test_fmt_prints_the_canonical_form_of_a_file() -> None:
    result = run("fmt", "examples/tour.relay")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith('#[version = "0.0.5"]\ntype List[A] {\n')
    assert result.stderr == ""
    again = run("fmt", "-", stdin=result.stdout)
    assert again.stdout == result.stdout


def test_fmt_reads_standard_input() -> None:
    result = run("fmt", "-", stdin="add(%x, 1f)")
    assert result.returncode == 0
    assert result.stdout == '#[version = "0.0.5"]\ndef @main(%x) {\n  add(%x, 1f)\n}\n\n'


def test_parse_error_is_one_diagnostic_and_exit_1() -> None:
    result = run("fmt", "-", stdin="def @main() {\n  add(1, 2.5)\n}")
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr == (
        "<stdin>:2:10: error: invalid literal 2.5: a float literal needs its f suffix (2.5f)\n"
        "  add(1, 2.5)\n"
        "         ^~~\n"
    )


def test_missing_file_is_bad_usage() -> None:
    result = run("fmt", "no/such/file.relay")
    assert result.returncode == 2
    assert result.stderr == "relay: error: no such file: no/such/file.relay\n"


def test_unknown_flag_and_command_are_bad_usage() -> None:
    assert run("fmt", "--nope", "x").returncode == 2
    assert run("frobnicate").returncode == 2
    assert run().returncode == 2


def test_binary_input_is_a_malformed_program(tmp_path: Path) -> None:
    path = tmp_path / "b.relay"
    path.write_bytes(b"\xff\xfe\x00garbage")
    result = run("fmt", str(path))
    assert result.returncode == 1
    assert result.stderr == (
        f"{path}:1:1: error: the file is not UTF-8 text: byte 0xff at byte offset 0 "
        "(invalid start byte)\n"
    )  # a line that is not printable text is not echoed


def test_a_stray_byte_is_located_at_its_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "latin1.relay"
    path.write_bytes(b"def @main() {\n  1 // caf\xe9\n}\n")
    result = run("check", str(path))
    assert result.returncode == 1
    assert result.stderr == (
        f"{path}:2:11: error: the file is not UTF-8 text: byte 0xe9 at byte offset 24 "
        "(invalid continuation byte)\n  1 // caf\ufffd\n          ^\n"
    )


def test_non_utf8_standard_input_is_reported_without_surrogates() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "relay", "fmt", "-"],
        input=b"add(%x, 1f) // \xff\xff",
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 1
    err = result.stderr.decode("utf-8")  # strict: a leaked surrogate would not encode
    assert err.startswith("<stdin>:1:16: error: the file is not UTF-8 text: byte 0xff at byte "
                          "offset 15 (invalid start byte)\n")  # fmt: skip


def test_options_may_follow_the_file(tmp_path: Path) -> None:
    path = tmp_path / "p.relay"
    path.write_text("def @main(%x: int32) { %x }\ndef @f(%x: int32) { %x * 2 }\n")
    result = run("run", str(path), "--entry", "f", "21")
    assert (result.returncode, result.stdout) == (0, "42\n"), result.stderr
    result = run("run", str(path), "--entry", "f", "--", "-21")
    assert (result.returncode, result.stdout) == (0, "-42\n"), result.stderr
    result = run("fmt", str(path), "--types", "--debug")
    assert result.returncode == 0 and "/* ty=int32 */" in result.stdout, result.stderr


def test_a_usage_error_shows_the_subcommand_usage(tmp_path: Path) -> None:
    result = run("run", "--nope", "x")
    assert result.returncode == 2
    assert result.stderr.startswith("usage: relay run ")
    assert "relay run: error: unrecognized arguments: --nope" in result.stderr
    result = run("check")
    assert result.returncode == 2
    assert result.stderr.startswith("usage: relay check ")
    assert "the following arguments are required: FILE" in result.stderr


def test_internal_error_is_one_line_and_exit_3(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import relay.cli

    def broken(*args: object, **kwargs: object) -> str:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr(relay.cli, "astext", broken)
    assert main(["fmt", str(ROOT / "examples" / "tour.relay")]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "internal error: ZeroDivisionError: boom" in err and "--debug" in err
    assert main(["--debug", "fmt", str(ROOT / "examples" / "tour.relay")]) == 3
    assert "Traceback" in capsys.readouterr().err


def test_console_script_is_installed() -> None:
    import shutil

    exe = shutil.which("relay", path=str(Path(sys.executable).parent))
    assert exe is not None
    result = subprocess.run([exe, "--version"], capture_output=True, text=True, check=False)
    assert result.returncode == 0 and result.stdout.startswith("relay ")
