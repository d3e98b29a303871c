"""The parser never fails with anything but its own ``ParseError``.

Random bytes, random token soup, random mutations (deletions, insertions, duplications,
swaps) of valid programs, random symbolic dimensions, and mutated ``#[metadata]`` sections go
in; either a module or a ``ParseError`` with a span comes out. When the input does parse,
printing it and parsing again is the identity (alpha-equality, and the same text).

Escapes found so far, each kept as a seed: a dimension dividing by zero
(``floormod(k, n * floordiv(0, 2))``: sympy's ``ZeroDivisionError``), a metadata ``"root"`` of
5,000 digits (Python's integer-string limit), a ``tir.Var`` whose ``name_hint`` injects text.

The default run feeds a few hundred inputs; ``pytest -m slow property_tests`` feeds each
strategy its ``SLOW_EXAMPLES`` (over 10^6 inputs in all, with the typing robustness file).
"""

import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import relay
from relay.semantics.equality import alpha_equal

PROGRAMS = [p.read_text() for p in sorted((Path(__file__).parent.parent / "tests" / "programs")
                                           .glob("*.relay"))]  # fmt: skip
SYMBOLIC = [
    "def @main(%p0: Tensor[(?, 1, n + 1, n), int64]) { nn.batch_flatten(%p0) }",
    "def @main(%p0: Tensor[(m*m, 2), int64]) { %p0 }",
    "def @main(%x: Tensor[(n, n), float32]) { reshape(%x, newshape=[-1]) }",
    "def @main(%x: Tensor[(floormod(k, n * floordiv(0, 2))), float32]) { %x }",
    "def @main(%x: Tensor[(floordiv(n, 0), 2 - n), float32]) { %x }",
    "def @main(%z: int, %x: Tensor[(floordiv(2*n + 1, 2), (n - 1)*(n + 1)), int]) { %z }",
]
TOKENS = [
    "def", "@main", "(", ")", "{", "}", "[", "]", "%x", "%0", "=", ";", ",", ":", "let", "fn",
    "if", "else", "match", "match?", "=>", "_", "type", "extern", "ref", "ref_read", "ref_write",
    "add", "nn.conv2d", "Cons", "Nil", "1", "-1", "1.5f", "inff", "nanf", "True", "\"s\"",
    "Tensor", "float32", "->", "+", "*", "/", "<=", "==", ".", "0", "meta[relay.Constant][0]",
    "#[version = \"0.0.5\"]", "#[metadata]", "free_var", "//", "/*", "*/", "?", "axis=1", " ",
    "\n", "floordiv", "floormod", "n", "m", "int", "meta[tir.Var][0]",
    "virtual_device=meta[VirtualDevice][0]", "{virtual_device=meta[VirtualDevice][0]}",
]  # fmt: skip
SLOW_EXAMPLES = 200_000
"""Examples per strategy in the ``slow`` run (5 strategies here: 10^6)."""


def parses_or_reports(text: str) -> None:
    """``text`` parses and reprints to a fixpoint, or is a ``ParseError`` with a span."""
    try:
        mod = relay.parse(text, source_name="fuzz.relay")
    except relay.ParseError as err:
        assert err.span is not None
        assert err.render().startswith("fuzz.relay:")
        return
    printed = relay.astext(mod)
    again = relay.parse(printed)
    assert alpha_equal(mod, again)
    assert relay.astext(again) == printed


def metadata_document(var_name: str, root: object = 1) -> dict[str, object]:
    """A metadata graph with a tir.Var called ``var_name`` and a VirtualDevice."""
    return {
        "root": root,
        "nodes": [
            {"type_key": ""},
            {"type_key": "Map", "keys": ["tir.Var", "VirtualDevice"], "data": [2, 5]},
            {"type_key": "Array", "data": [3]},
            {"type_key": "tir.Var", "attrs": {"dtype": "int64", "name_hint": "4"}},
            {"type_key": "runtime.String", "repr_str": var_name},
            {"type_key": "Array", "data": [6]},
            {"type_key": "VirtualDevice", "attrs": {"device_type_int": "1",
                                                    "virtual_device_id": "0"}},
        ],
        "b64ndarrays": [],
    }  # fmt: skip


META_PROGRAM = (
    "def @main(%x {virtual_device=meta[VirtualDevice][0]}: Tensor[(meta[tir.Var][0], 2), "
    "float32]) {\n  on_device(%x, virtual_device=meta[VirtualDevice][0])\n}\n#[metadata]\n"
)


def _json_values() -> st.SearchStrategy[object]:
    scalars = st.one_of(
        st.none(), st.booleans(), st.integers(-(10**30), 10**30), st.floats(),
        st.text(max_size=8),
        st.sampled_from(["0", "1", "2", "4", "9" * 5000, "-1", "AAAA", "n", "1), float32])"]),
    )  # fmt: skip
    keys = st.sampled_from(["type_key", "attrs", "keys", "data", "repr_str", "repr_b64",
                            "name_hint", "root", "nodes", "device_type_int"])  # fmt: skip
    return st.recursive(
        scalars, lambda c: st.lists(c, max_size=3) | st.dictionaries(keys, c, max_size=3),
        max_leaves=6,
    )  # fmt: skip


def _paths(value: object, path: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*path, i))
    return out


_BASE = metadata_document("n")
_BASE_PATHS = _paths(_BASE)


@st.composite
def mutated_metadata(draw: st.DrawFn) -> str:
    """``META_PROGRAM`` with a metadata graph in which a few values are replaced."""
    document: object = json.loads(json.dumps(_BASE))
    for _ in range(draw(st.integers(0, 3))):
        path = draw(st.sampled_from(_BASE_PATHS))
        value = draw(_json_values())
        if not path:
            document = value
            continue
        target = document
        try:
            for key in path[:-1]:
                target = target[key]  # type: ignore[index]
            target[path[-1]] = value  # type: ignore[index]
        except (KeyError, IndexError, TypeError):
            pass
    text = json.dumps(document)
    if draw(st.booleans()):
        i = draw(st.integers(0, len(text)))
        text = text[:i] + draw(st.text(max_size=3)) + text[i + draw(st.integers(0, 3)) :]
    return META_PROGRAM + text


@st.composite
def mutated_program(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(PROGRAMS + SYMBOLIC))
    for _ in range(draw(st.integers(1, 4))):
        if not text:
            break
        i = draw(st.integers(0, len(text) - 1))
        j = draw(st.integers(i, min(len(text), i + 20)))
        kind = draw(st.sampled_from(["delete", "insert", "duplicate", "swap", "token"]))
        if kind == "delete":
            text = text[:i] + text[j:]
        elif kind == "insert":
            text = text[:i] + draw(st.text(max_size=5)) + text[i:]
        elif kind == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        elif kind == "swap":
            k = draw(st.integers(0, len(text) - 1))
            text = text[:i] + text[k] + text[i + 1 : k] + text[i] + text[k + 1 :] if i < k else text
        else:
            text = text[:i] + " " + draw(st.sampled_from(TOKENS)) + " " + text[j:]
    return text


_dim_atom = st.one_of(st.integers(0, 5).map(str), st.sampled_from(["n", "m", "?", "-1"]))
dimension = st.recursive(
    _dim_atom,
    lambda c: st.one_of(
        st.tuples(c, st.sampled_from([" + ", " - ", "*"]), c).map(lambda t: f"({''.join(t)})"),
        st.tuples(st.sampled_from(["floordiv", "floormod"]), c, c).map(
            lambda t: f"{t[0]}({t[1]}, {t[2]})"
        ),
    ),
    max_leaves=8,
)


@st.composite
def symbolic_program(draw: st.DrawFn) -> str:
    """A parameter with random symbolic dimensions, through an op that computes with them."""
    dims = ", ".join(draw(st.lists(dimension, min_size=1, max_size=4)))
    body = draw(st.sampled_from(["%x", "nn.batch_flatten(%x)", "reshape(%x, newshape=[-1])",
                                 "add(%x, %x)", "sum(%x, axis=[0])"]))  # fmt: skip
    return f"def @main(%x: Tensor[({dims}), float32]) {{ {body} }}"


def _bytes(data: bytes) -> None:
    parses_or_reports(data.decode("utf-8", errors="replace"))


def _soup(tokens: list[str]) -> None:
    parses_or_reports(" ".join(tokens))


STRATEGIES = {
    "random bytes": (st.binary(max_size=300), _bytes),
    "token soup": (st.lists(st.sampled_from(TOKENS), max_size=60), _soup),
    "mutated programs": (mutated_program(), parses_or_reports),
    "symbolic dimensions": (symbolic_program(), parses_or_reports),
    "mutated metadata": (mutated_metadata(), parses_or_reports),
}


@given(st.binary(max_size=300))
def test_random_bytes(data: bytes) -> None:
    _bytes(data)


@given(st.lists(st.sampled_from(TOKENS), max_size=60))
def test_random_token_soup(tokens: list[str]) -> None:
    _soup(tokens)


@given(mutated_program())
@example(SYMBOLIC[3])
@example(SYMBOLIC[4])
def test_mutated_programs(text: str) -> None:
    parses_or_reports(text)


@given(symbolic_program())
def test_symbolic_dimensions(text: str) -> None:
    parses_or_reports(text)


@given(mutated_metadata())
@example(META_PROGRAM + json.dumps(metadata_document("n", root="9" * 5000)))
@example(META_PROGRAM + json.dumps(metadata_document("n", root=int("9" * 4000))))
@example(META_PROGRAM + json.dumps(metadata_document("1), float32]) { %x }\ndef @evil(%x: (1")))
def test_mutated_metadata(text: str) -> None:
    parses_or_reports(text)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(STRATEGIES))
def test_slow_robustness(name: str) -> None:
    strategy, check = STRATEGIES[name]
    settings(max_examples=SLOW_EXAMPLES)(given(strategy)(check))()
