"""Footprint learning (``oracles.footprint``): the motifs a pass changes are found, and the
campaign catches broken passes whose pattern the default generators almost never draw."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from relay.cli import main
from relay.compiler.pass_manager import as_pass
from relay.oracles.footprint import diff, learn, motif_corpus
from relay.semantics.text.parser import parse

BROKEN = '''
from relay.compiler.ir import rewrite_module
from relay.semantics.ops.nn.activation import LeakyReluAttrs
from relay.semantics.syntax import Call, Op, RefWrite, Tuple


def _relu_relu(e):
    match e:
        case Call(Op(name="nn.relu"), (Call(Op(name="nn.relu"), (x,)),)):
            return Call(Op("nn.relu"), (Call(Op("negative"), (x,)),))
    return None


def relu_relu(mod):
    """nn.relu(nn.relu(x)) -> nn.relu(negative(x)): wrong; touches nothing else."""
    return rewrite_module(mod, _relu_relu)


def _leaky(e):
    match e:
        case Call(Op(name="nn.relu"), args):
            return Call(Op("nn.leaky_relu"), args, LeakyReluAttrs(alpha=0.01))
    return None


def relu_to_leaky(mod):
    """nn.relu(x) -> nn.leaky_relu(x, alpha=0.01): wrong for negative x."""
    return rewrite_module(mod, _leaky)


def _drop(e):
    return Tuple(()) if isinstance(e, RefWrite) else None


def drop_ref_write(mod):
    """ref_write(r, v) -> (): the write is lost."""
    return rewrite_module(mod, _drop)
'''


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("broken") / "broken.py"
    path.write_text(BROKEN)
    return path


def _load(path: Path, name: str) -> object:
    namespace: dict[str, object] = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace[name]


def test_the_corpus_is_well_typed_and_covers_every_kind() -> None:
    from relay.semantics.typing import infer_types

    corpus = motif_corpus()
    kinds = {m.kind for m in corpus.motifs}
    assert kinds == {"single", "pair", "constant", "construct"}
    assert {m.construct for m in corpus.motifs} >= {"let", "if", "match", "ref", "closure"}
    for m in corpus.motifs[::50]:
        infer_types(m.mod)


def test_learning_finds_exactly_the_relu_relu_trigger(broken: Path) -> None:
    fp = learn(as_pass(_load(broken, "relu_relu"), "relu_relu"))  # type: ignore[arg-type]
    assert fp.triggers, "no motif triggered the pass"
    for m in fp.triggers:
        text = str(m.mod)
        assert text.count("nn.relu") >= 2, text
    assert "nn.relu(nn.relu)" in {m.name for m in fp.triggers}
    assert fp.focus(1) == ["nn.relu"]
    assert fp.op_weights()["nn.relu"] > fp.op_weights()["add"] == 1.0


def test_learning_a_pass_that_changes_nothing_finds_nothing() -> None:
    fp = learn(as_pass(lambda mod: mod, "identity"))
    assert fp.triggers == [] and fp.tested == len(motif_corpus().motifs)
    assert fp.runs < len(motif_corpus().motifs) / 10  # group testing: one run per batch


def test_learning_a_construct_pass_scores_the_construct(broken: Path) -> None:
    fp = learn(as_pass(_load(broken, "drop_ref_write"), "drop"))  # type: ignore[arg-type]
    assert fp.constructs.most_common(1)[0][0] == "ref"
    assert all(m.construct == "ref" for m in fp.triggers)


def test_diff_names_what_appeared_and_disappeared() -> None:
    before = parse("fn (%x: float32) { nn.relu(nn.relu(%x)) }")
    after = parse("fn (%x: float32) { nn.relu(negative(%x)) }")
    d = diff(before, after)
    assert d.removed["nn.relu"] == 1 and d.added["negative"] == 1
    assert d.removed["nn.relu<nn.relu"] == 1 and d.added["nn.relu<negative"] == 1
    assert {"nn.relu", "negative"} <= d.touched()


@pytest.mark.parametrize("name", ["relu_relu", "relu_to_leaky", "drop_ref_write"])
def test_the_campaign_catches_the_broken_pass_fast(
    name: str, broken: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    start = time.monotonic()
    code = main(["fuzz", "--pass", f"{broken}:{name}", "--time", "30", "--out", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 1, out
    assert time.monotonic() - start < 35
    assert "footprint:" in err
    (report,) = tmp_path.iterdir()
    assert "verdict: mismatch" in report.read_text()


def test_no_footprint_turns_learning_off(broken: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["fuzz", "--pass", f"{broken}:relu_relu", "--no-footprint", "--time", "2"])
    _, err = capsys.readouterr()
    assert "footprint:" not in err
    assert code in (0, 1)
