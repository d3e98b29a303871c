"""``relay show``: a function's dataflow graph with its fused groups, and ``relay fuzz
--pictures``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from relay import parse
from relay.cli import main
from relay.compiler.passes.fuse_ops import FuseOps, is_primitive
from relay.pictures import dataflow_graph, to_dot
from relay.semantics.syntax import Call, Function, Op, post_order

pytest.importorskip("graphviz", reason="the graphviz package (the 'pictures' extra)")

NET = """#[version = "0.0.5"]
def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(4, 3), float32], %c: bool) {
  %0 = nn.dense(%x, %w, units=4);
  %1 = add(%0, 1f);
  %2 = nn.relu(%1);
  let %y = exp(%2);
  %3 = sum(%y, axis=[1]);
  if (%c) { %3 } else { negative(%3) }
}
"""

CONTROL = """#[version = "0.0.5"]
type List[A] { Cons(A, List[A]), Nil }
def @len(%l: List[float32]) -> int32 {
  match (%l) { Cons(_, %t) => add(@len(%t), 1), Nil => 0 }
}
def @main(%x: float32) {
  let %r = ref(%x);
  let %f = fn (%a: float32) { multiply(%a, ref_read(%r)) };
  let %_ = ref_write(%r, %f(%x));
  (@len(Cons(%x, Nil)), ref_read(%r))
}
"""


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(["show", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _primitive_ops(text: str) -> list[list[str]]:
    """The operators of each primitive function FuseOps makes of ``@main`` (the expectation,
    read from the pass's output, not from the picture)."""
    fused = FuseOps()(parse(text))
    groups = []
    for e in post_order(fused["main"]):
        if isinstance(e, Function) and is_primitive(e):
            ops = [c.op.name for c in post_order(e.body) if isinstance(c, Call)
                   and isinstance(c.op, Op)]  # fmt: skip
            groups.append(sorted(ops))
    return groups


def _head(label: str) -> str:
    """The operator of a call's label (after any ``%name =`` line)."""
    lines = label.split("\n")
    return lines[1] if lines[0].endswith(" =") else lines[0]


def test_every_fused_group_is_a_cluster_of_its_operators() -> None:
    picture = dataflow_graph(parse(NET))
    clusters = picture.fused_groups()
    drawn = sorted(
        sorted(
            _head(label)
            for label, shape, c in picture.nodes.values()
            if c == cluster.key and shape == "box"
        )
        for cluster in clusters
    )
    assert drawn == sorted(_primitive_ops(NET))
    patterns = [c.label.split(": ")[1] for c in clusters]
    assert sorted(patterns) == ["comm_reduce", "elemwise", "out_elemwise_fusable"]


def test_show_prints_dot_with_clusters_and_types(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "net.relay"
    path.write_text(NET)
    code, out, _ = run([str(path)], capsys)
    assert code == 0
    assert out.startswith("digraph main {")
    assert out.count("subgraph cluster_fused_") == 3
    assert "fused group 1: out_elemwise_fusable" in out
    assert "Tensor[(2, 4), float32]" in out and "units=4" in out and "%y =" in out
    code, out, _ = run([str(path), "--no-fuse"], capsys)
    assert code == 0 and "cluster_fused" not in out


def test_control_flow_closures_and_references_draw(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    picture = dataflow_graph(parse(CONTROL))
    labels = [label for label, _, _ in picture.nodes.values()]
    assert any(label.startswith("%f =\nfn (%a)") for label in labels)
    assert any(c.kind == "fn" for c in picture.clusters.values())
    assert any(label.startswith("call @len") for label in labels)
    assert "%_ =\nref_write" in labels
    source = to_dot(picture).source
    assert "cluster_fn_1" in source
    path = tmp_path / "c.relay"
    path.write_text(CONTROL)
    code, out, _ = run([str(path), "--function", "len"], capsys)
    assert code == 0 and 'label="@len"' in out and "match" in out and "Cons(_, %t)" in out


def test_a_deep_program_draws_without_recursion() -> None:
    lets = "".join(f"  let %v{i} = add(%v{i - 1}, 1f);\n" for i in range(1, 1500))
    text = f'#[version = "0.0.5"]\ndef @main(%v0: float32) {{\n{lets}  %v1499\n}}\n'
    picture = dataflow_graph(parse(text))
    assert len(picture.edges) >= 1499


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_show_draws_svg_with_dot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "net.relay"
    path.write_text(NET)
    code, _, err = run([str(path), "-o", str(tmp_path / "g.svg")], capsys)
    assert code == 0, err
    svg = (tmp_path / "g.svg").read_text()
    assert "<svg" in svg and "fused group 1" in svg and "nn.dense" in svg


def test_without_dot_a_picture_is_refused_clearly(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import relay.pictures

    monkeypatch.setattr(relay.pictures.shutil, "which", lambda name: None)
    path = tmp_path / "net.relay"
    path.write_text(NET)
    code, _, err = run([str(path), "-o", str(tmp_path / "g.svg")], capsys)
    assert code == 2
    assert "relay show: error: Graphviz's dot program is not installed" in err
    assert not (tmp_path / "g.svg").exists()
    code, _, err = run([str(path), "-o", str(tmp_path / "g.dot")], capsys)  # no dot needed
    assert code == 0 and (tmp_path / "g.dot").read_text().startswith("digraph")


def test_bad_usage_and_bad_programs(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "net.relay"
    path.write_text(NET)
    code, _, err = run([str(path), "-o", str(tmp_path / "g.gif")], capsys)
    assert code == 2 and "cannot tell the format" in err
    code, _, err = run([str(path), "--function", "nope"], capsys)
    assert code == 2 and "has no function @nope (its globals: @main)" in err
    bad = tmp_path / "bad.relay"
    bad.write_text('#[version = "0.0.5"]\ndef @main(%x: float32) { add(%x, 1) }\n')
    code, _, err = run([str(bad)], capsys)
    assert code == 1 and err.startswith(f"{bad}:2:") and "Traceback" not in err
    code, _, err = run([str(tmp_path / "missing.relay")], capsys)
    assert code == 2 and "no such file" in err


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_a_report_gets_its_picture_beside_it(tmp_path: Path) -> None:
    from relay.cli_fuzz import _pictures
    from relay.oracles.fuzz import PassResult

    report = tmp_path / "p-1.relay"
    report.write_text("// relay fuzz: counterexample\n" + NET)
    result = PassResult("p")
    result.paths = [str(report)]
    _pictures([result])
    assert "nn.dense" in Path(f"{report}.svg").read_text()


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_fuzz_reports_come_with_pictures(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    plugin = tmp_path / "swap.py"
    plugin.write_text(
        "from relay.compiler.ir import rewrite_module\n"
        "from relay.semantics.syntax import Call, Op\n"
        "def _s(e):\n"
        "    if isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == 'subtract':\n"
        "        return Call(e.op, (e.args[1], e.args[0]))\n"
        "def swap(mod):\n"
        "    return rewrite_module(mod, _s)\n"
    )
    out = tmp_path / "out"
    code = main(["fuzz", "--pass", f"{plugin}:swap", "--time", "20", "--seed", "1",
                 "--out", str(out), "--pictures"])  # fmt: skip
    capsys.readouterr()
    assert code == 1
    (report,) = out.glob("*.relay")
    picture = Path(f"{report}.svg")
    assert picture.is_file() and "<svg" in picture.read_text()
    assert "subtract" in picture.read_text()
