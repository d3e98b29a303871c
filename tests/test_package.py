"""The distribution: a wheel built from the repository holds every subpackage."""

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent


def test_subpackages_import_as_ordinary_packages() -> None:
    import relay.compiler
    import relay.interpreter
    import relay.oracles
    import relay.semantics
    import relay.targets

    for module in (relay.semantics, relay.interpreter, relay.compiler, relay.targets,
                   relay.oracles):  # fmt: skip
        assert module.__doc__
        assert Path(module.__file__ or "").parent.parent.name == "relay"


@pytest.mark.skipif(
    subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True).returncode,
    reason="pip is not available",
)
@pytest.mark.slow
def test_wheel_contains_the_linked_subpackages(tmp_path: Path) -> None:
    # Built the way ``pip install .`` builds it: in an isolated environment holding the
    # pyproject's build requirements, so the test needs nothing the README's install command
    # does not install (the venv it makes has no ``wheel`` package).
    result = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    (wheel,) = tmp_path.glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    for package in ("semantics", "interpreter", "compiler", "targets", "oracles"):
        assert f"relay/{package}/__init__.py" in names
    assert "relay/semantics/text/parser.py" in names
    assert "relay/semantics/ops/registry.py" in names
    assert "relay/cli.py" in names
    assert "relay/py.typed" in names
    assert not any(n.startswith(("tests/", "semantics/")) for n in names)
