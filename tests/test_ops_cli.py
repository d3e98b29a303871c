"""``relay ops``: the registry as a table and as JSON."""

from __future__ import annotations

import json

import pytest

from relay.cli import main
from relay.semantics.ops import OPS


def test_the_table_lists_every_operator(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ops"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split() == ["name", "family", "pattern", "attrs", "check"]
    rows = {line.split()[0]: line.split() for line in out[1:-1]}
    assert set(rows) == set(OPS)
    assert rows["nn.conv2d"][1:4] == ["nn/conv", "out_elemwise_fusable", "10"]
    assert rows["nn.conv2d"][4] == "onnxruntime:Conv"
    families = {op.family for op in OPS.values()}
    assert out[-1] == f"{len(OPS)} operators in {len(families)} families"


def test_json_has_the_documented_keys(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ops", "--json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert len(records) == len(OPS) >= 180
    by_name = {r["name"]: r for r in records}
    assert set(by_name["add"]) == {"name", "family", "pattern", "num_inputs", "attrs", "check"}
    assert by_name["add"]["num_inputs"] == 2 and by_name["add"]["attrs"] == []
    assert by_name["nn.softmax"]["attrs"] == ["axis"]
    assert by_name["qnn.quantize"]["family"] == "qnn"


def test_family_filter(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ops", "--family", "annotation", "--json"]) == 0
    names = sorted(r["name"] for r in json.loads(capsys.readouterr().out))
    assert names == ["annotation.stop_fusion", "device_copy", "on_device"]


def test_unknown_family_is_bad_usage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["ops", "--family", "bogus"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    families = sorted({op.family for op in OPS.values()})
    assert captured.err == (
        f"relay: error: no family 'bogus'; the families are {', '.join(families)}\n"
    )
