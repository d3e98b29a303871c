"""Start-up: ``import relay`` and the everyday commands load no heavy dependency they do not use.

z3, hypothesis and onnxruntime belong to the oracles (``relay fuzz``, ``relay gen``, the
tests); sympy is deferred (``relay.deferred_imports``) until a symbolic dimension or the type
relations' dimension arithmetic needs it. Each check runs in a fresh interpreter, since this
one has imported everything already.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent

HEAVY = ("sympy", "z3", "hypothesis", "onnxruntime", "onnx", "llvmlite")

PROBE = """
import contextlib, io, json, sys
{code}
from relay.deferred_imports import is_loaded
print(json.dumps(sorted(m for m in {heavy!r} if is_loaded(m))))
"""


def loaded_after(code: str) -> list[str]:
    """The heavy modules a fresh interpreter has imported after running ``code``."""
    result = subprocess.run(
        [sys.executable, "-c", PROBE.format(code=code, heavy=HEAVY)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    names: list[str] = json.loads(result.stdout.splitlines()[-1])
    return names


def test_import_parse_and_print_load_nothing_heavy() -> None:
    code = (
        "import relay\n"
        "mod = relay.parse('def @main(%x: Tensor[(2, 3), float32]) { add(%x, 1f) }')\n"
        "assert 'Tensor[(2, 3), float32]' in relay.astext(mod)\n"
    )
    assert loaded_after(code) == []


def test_fmt_loads_nothing_heavy_and_run_no_oracle(tmp_path: Path) -> None:
    path = tmp_path / "p.relay"
    path.write_text("def @main(%x: Tensor[(2,), int32]) { add(%x, 1) }\n", encoding="utf-8")
    call = "from relay.cli import main\nwith contextlib.redirect_stdout(io.StringIO()):\n"
    assert loaded_after(call + f"    assert main(['fmt', {str(path)!r}]) == 0") == []
    argument = 'add(zeros(shape=[2], dtype="int32"), 1)'
    for argv in (["check", str(path)], ["run", str(path), argument]):
        assert set(loaded_after(call + f"    assert main({argv!r}) == 0")) <= {"sympy"}


def test_a_symbolic_dimension_loads_sympy_and_it_works() -> None:
    code = (
        "import relay, sympy\n"
        "from relay.deferred_imports import is_loaded\n"
        "assert not is_loaded('sympy')\n"
        "mod = relay.parse('def @main(%x: Tensor[(n, 3), float32]) { add(%x, 1f) }')\n"
        "assert is_loaded('sympy')\n"
        "assert isinstance(mod['main'].params[0].type_annotation.shape[0], sympy.Symbol)\n"
        "assert sys.modules['sympy'].Integer(2) + sympy.Symbol('k') - 2 == sympy.Symbol('k')\n"
    )
    assert loaded_after(code) == ["sympy"]


def test_integer_dimensions_are_read_as_ints() -> None:
    import relay
    from relay.semantics.syntax import TensorType

    text = "def @main(%x: Tensor[(2 * 3, floordiv(7, 2), floormod(7, 2), 4 - 1), float32]) { %x }"
    t = relay.parse(text)["main"].params[0].type_annotation
    assert isinstance(t, TensorType)
    assert t.shape == (6, 3, 1, 3)
    assert all(type(d) is int for d in t.shape)
    with pytest.raises(relay.ParseError, match="a dimension cannot be negative"):
        relay.parse("def @main(%x: Tensor[(2 - 5), float32]) { %x }")
    with pytest.raises(relay.ParseError, match="a dimension cannot be negative"):
        relay.parse("def @main(%x: Tensor[(n - n - 1), float32]) { %x }")
