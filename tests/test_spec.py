"""The specification document (``docs/spec``): the committed copy is what
``docs/generate_spec.py`` generates from the code, every rule and operator is in it, and its
HTML builds with MkDocs (where the ``docs`` extra is installed)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from relay.semantics.evaluation import RULES
from relay.semantics.ops import OPS

DOCS = Path(__file__).parent.parent / "docs"


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate_spec", DOCS / "generate_spec.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["generate_spec"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generated() -> dict[str, str]:
    files: dict[str, str] = load_generator().generate()
    return files


def test_the_committed_spec_is_what_the_code_generates(generated: dict[str, str]) -> None:
    differ = load_generator().differences(generated, DOCS)
    assert not differ, f"out of date: {differ} (run python docs/generate_spec.py)"


def test_every_rule_and_operator_is_documented_and_linked(generated: dict[str, str]) -> None:
    evaluation = generated["spec/evaluation.md"]
    for rule in RULES:
        assert f"### {rule} <span" in evaluation
    typing = generated["spec/typing.md"]
    for rule in ("T-Var", "T-Call-Op", "T-Match", "T-RefWrite"):
        assert f"### {rule} <span" in typing
    # A rule is a fraction: premises over the bar, then the conclusion.
    assert ('<td class="rule-premises">ρ, σ ⊢ e1 ⇓ v1, σ1 &emsp;&emsp; ρ[x ↦ v1], σ1 ⊢ e2 ⇓ v2, '
            'σ2</td>') in evaluation  # fmt: skip
    assert '<td class="rule-conclusion">ρ, σ ⊢ let x = e1; e2 ⇓ v2, σ2</td>' in evaluation
    ops_pages = "".join(text for p, text in generated.items() if p.startswith("spec/operators/"))
    for name in OPS:
        assert f"\n## {name} {{ #" in ops_pages
    conv = generated["spec/operators/nn-conv.md"]
    assert "| `strides` | a list of integers | `(1, 1)` |" in conv
    assert "**Type relation.** `Conv2D`: data in a permutation of NCHW" in conv
    assert "exercised by: [conv2d](../cases.md#conv2d)" in conv
    cases = generated["spec/cases.md"]
    assert (
        "## refs_alias { #refs-alias }" in cases
        and "[E-RefWrite](evaluation.md#e-ref-write)" in cases
    )
    coverage = generated["spec/coverage.md"]
    assert (
        "rule functions are exercised by the 57 cases" in coverage
        or "cases of the corpus" in coverage
    )


def test_a_hand_edit_or_a_stray_file_is_a_difference(
    generated: dict[str, str], tmp_path: Path
) -> None:
    gen = load_generator()
    gen.write(generated, tmp_path)
    assert gen.differences(generated, tmp_path) == []
    (tmp_path / "spec" / "grammar.md").write_text("edited by hand\n")
    (tmp_path / "spec" / "extra.md").write_text("not generated\n")
    assert gen.differences(generated, tmp_path) == ["spec/grammar.md", "spec/extra.md"]


def test_the_html_builds(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="the docs extra (pip install -e '.[docs]') builds HTML")
    command = [sys.executable, "-m", "mkdocs", "build", "-f", str(DOCS / "mkdocs.yml"),
               "--strict", "-d", str(tmp_path / "site")]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "site" / "evaluation.html").read_text(encoding="utf-8")
    assert 'class="rule-premises"' in page and "E-Call-Closure" in page
