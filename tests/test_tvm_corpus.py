"""The TVM corpus tools: extraction from a TVM test file, and (with a TVM checkout) the
whole corpus.

``tests/tvm/extract.py`` is tested on a small test file written here in TVM's style. The
whole-corpus run needs TVM 0.18's sources, which are not part of this repository: set
``RELAY_TVM_SOURCE`` to a checkout (or ``git archive`` export) to run it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE / "tvm"))

import extract  # noqa: E402

import relay  # noqa: E402

TEST_FILE = '''
import numpy as np
import pytest
import tvm
from tvm import relay

SEMVER = '#[version = "0.0.5"]\\n'
CPU = tvm.target.VirtualDevice(tvm.device("cpu"), tvm.target.Target("llvm"))
core = tvm.IRModule()
core.import_from_std("core.rly")


def test_plain():
    mod = tvm.relay.parse(SEMVER + "def @main(%x: int32) { %x }")


def test_named():
    text = """
    #[version = "0.0.5"]
    def @main(%x: float32) { add(%x, 1f) }
    """
    tvm.relay.fromtext(text)


def test_built_at_run_time():
    text = "def @main() {"
    text += " 0 }"
    tvm.relay.parse(text)


def test_rejected():
    with pytest.raises(tvm.error.DiagnosticError):
        tvm.relay.parse("def @main( {")


def test_meta():
    const = np.ones((2, 3), dtype="float32")
    metatable = {"VirtualDevice": [CPU], "relay.Constant": [relay.const(const)]}

    def input():
        return tvm.relay.parse(
            """
            #[version = "0.0.5"]
            def @main(%x: Tensor[(2, 3), float32]) { add(%x, meta[relay.Constant][0]) }
            """,
            "from_string",
            core,
            metatable,
        )


def test_expression():
    tvm.relay.parse_expr("fn (%x) { %x }")
'''


def test_extract_finds_literal_programs_and_rebuilds_meta_tables(tmp_path: Path) -> None:
    source = tmp_path / "test_example.py"
    source.write_text(textwrap.dedent(TEST_FILE), encoding="utf-8")
    found = extract.programs_in(source)
    texts = [text for _, text, _, _ in found]
    assert len(found) == 4, texts  # not the run-time string, not the rejected program
    assert any("def @main(%x: int32)" in t for t in texts)
    assert any("add(%x, 1f)" in t for t in texts)
    assert [is_expr for _, t, is_expr, _ in found if "fn (%x)" in t] == [True]
    (meta,) = [t for t in texts if "meta[relay.Constant]" in t]
    assert meta.startswith(extract.PRELUDE_LINE + "std__core.module.relay\n")
    assert "#[metadata]" in meta
    mod = relay.parse(meta.split("\n", 1)[1], "<meta>")
    value = relay.evaluate(mod, np.zeros((2, 3), dtype="float32"))
    assert value.data.tolist() == [[1.0] * 3] * 2  # type: ignore[attr-defined]


@pytest.mark.skipif("RELAY_TVM_SOURCE" not in os.environ, reason="RELAY_TVM_SOURCE not set")
def test_tvm_corpus(tmp_path: Path) -> None:
    out = tmp_path / "programs"
    subprocess.run(
        [sys.executable, str(HERE / "tvm" / "extract.py"), os.environ["RELAY_TVM_SOURCE"], out],
        check=True,
    )
    run = subprocess.run(
        [sys.executable, str(HERE / "tvm" / "check_corpus.py"), str(out)],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-4000:]
