"""The parser's fast path for common statements builds exactly what the token-by-token path
builds: the same nodes, the same spans, the same errors.

``lexer._SCAN`` is the scanner that lexes a one-line ``let %x = op(..);`` or ``%N = ..;`` as
one ``Statement`` token (built directly by ``Parser.parse_statement``); ``lexer._PLAIN_SCAN``
lexes everything token by token. Each test parses the same text with both and compares the
results field by field, spans included (variables by binding position, so sharing must agree
too), or the errors by message, span and notes.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relay
from relay.oracles.gen_dataflow import dataflow_programs
from relay.semantics.errors import ParseError, Span
from relay.semantics.text import lexer

ROOT = Path(__file__).resolve().parent.parent
CORPUS = sorted(ROOT.glob("tests/**/*.relay")) + sorted(ROOT.glob("examples/*.relay"))
BINDERS = ("Var", "GlobalVar", "TypeVar", "GlobalTypeVar", "Constructor")


def _flatten(root: object) -> Iterator[object]:
    """Every field of the tree, in order; binders by first-appearance number."""
    seen: dict[int, int] = {}
    stack = [root]
    while stack:
        x = stack.pop()
        if isinstance(x, Span):
            yield ("span", x.line, x.column, x.end_line, x.end_column)
        elif dataclasses.is_dataclass(x) and not isinstance(x, type):
            name = type(x).__name__
            if name in BINDERS:
                if id(x) in seen:
                    yield ("ref", name, seen[id(x)])
                    continue
                seen[id(x)] = len(seen)
            yield ("node", name)
            fields = [
                f for f in dataclasses.fields(x) if f.name != "id" or name != "IncompleteType"
            ]
            stack.extend(getattr(x, f.name) for f in reversed(fields))
        elif isinstance(x, tuple | list):
            yield ("seq", len(x))
            stack.extend(reversed(x))
        elif isinstance(x, dict):
            yield ("dict", len(x))
            for k, v in reversed(list(x.items())):
                stack.extend((v, k))
        elif isinstance(x, np.ndarray):
            yield ("array", x.dtype.name, x.shape, x.tobytes())
        else:
            yield ("value", type(x).__name__, repr(x))


def _parse_with(text: str, scan: object) -> object:
    saved = lexer._SCAN
    lexer._SCAN = scan  # type: ignore[assignment]
    try:
        return ("ok", list(_flatten(relay.parse(text, "f.relay"))))
    except ParseError as err:
        span = err.span and (err.span.line, err.span.column, err.span.end_line, err.span.end_column)
        return ("error", str(err), span, [(n, (s.line, s.column)) for n, s in err.notes])
    finally:
        lexer._SCAN = saved


def assert_same(text: str) -> None:
    assert _parse_with(text, lexer._SCAN) == _parse_with(text, lexer._PLAIN_SCAN), text


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(ROOT)))
def test_fast_path_agrees_on_the_corpus_and_its_printing(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert_same(text)
    try:
        printed = relay.astext(relay.parse(text, "f.relay"))
    except ParseError:
        return  # a case whose program is the error under test
    assert_same(printed)


@settings(max_examples=60, deadline=None)
@given(dataflow_programs(max_nodes=12), st.data())
def test_fast_path_agrees_on_generated_and_mutated_programs(p: object, data: st.DataObject) -> None:
    text = relay.astext(p.mod)  # type: ignore[attr-defined]
    assert_same(text)
    # A cut, a deleted character or a doubled one: errors must agree too.
    i = data.draw(st.integers(0, max(len(text) - 1, 0)), label="at")
    kind = data.draw(st.sampled_from(["delete", "double", "cut"]), label="mutation")
    mutated = {"delete": text[:i] + text[i + 1 :], "double": text[:i] + text[i:] [:1] + text[i:],
               "cut": text[:i]}[kind]  # fmt: skip
    assert_same(mutated)
