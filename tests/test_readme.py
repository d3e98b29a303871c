"""The README's command-line examples print what the README says they print.

Every fenced block of the README whose first line starts with ``$ `` is a transcript: after a
``$ cat FILE`` line come the file's lines (written to a fresh directory), after a
``$ relay ...`` or ``$ echo '...' | relay ...`` line the command's output (stdout and stderr
together), up to the next ``$`` line. Each command is run there and its output compared.
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent

README = (ROOT / "README.md").read_text("utf-8")
TRANSCRIPTS = [
    b for b in re.findall(r"^```\n(.*?)^```$", README, flags=re.S | re.M) if b[:2] == "$ "
]


def steps(block: str) -> list[tuple[str, list[str]]]:
    """The commands of a transcript, each with the lines that follow it."""
    out: list[tuple[str, list[str]]] = []
    for line in block.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        else:
            out[-1][1].append(line)
    return out


def test_the_readme_has_transcripts() -> None:
    assert len(TRANSCRIPTS) >= 2
    assert any("integer division by zero" in block for block in TRANSCRIPTS)


@pytest.mark.parametrize("block", TRANSCRIPTS, ids=lambda b: b.splitlines()[0][2:40])
def test_transcript(block: str, tmp_path: Path) -> None:
    for command, lines in steps(block):
        stdin = None
        if " | " in command:
            producer, command = command.split(" | ", 1)
            words = shlex.split(producer)
            assert words[0] == "echo", producer
            stdin = " ".join(words[1:]) + "\n"
        words = shlex.split(command)
        if words[0] == "cat":
            (tmp_path / words[1]).write_text("\n".join(lines) + "\n", encoding="utf-8")
            continue
        assert words[0] == "relay", command
        result = subprocess.run(
            [sys.executable, "-m", "relay", *words[1:]],
            input=stdin,
            capture_output=True,
            text=True,
            cwd=tmp_path,
            check=False,
        )
        assert (result.stdout + result.stderr).splitlines() == lines, command
