"""The parser never fails with anything but its own ``ParseError``.

Random bytes, random token soup, and random mutations (deletions, insertions, duplications,
swaps) of valid programs go in; either a module or a ``ParseError`` with a span comes out.
When a mutated program does parse, printing it and parsing again is still the identity.
"""

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

import relay
from relay.semantics.equality import alpha_equal

PROGRAMS = [p.read_text() for p in sorted((Path(__file__).parent.parent / "tests" / "programs")
                                           .glob("*.relay"))]  # fmt: skip
TOKENS = [
    "def", "@main", "(", ")", "{", "}", "[", "]", "%x", "%0", "=", ";", ",", ":", "let", "fn",
    "if", "else", "match", "match?", "=>", "_", "type", "extern", "ref", "ref_read", "ref_write",
    "add", "nn.conv2d", "Cons", "Nil", "1", "-1", "1.5f", "inff", "nanf", "True", "\"s\"",
    "Tensor", "float32", "->", "+", "*", "/", "<=", "==", ".", "0", "meta[relay.Constant][0]",
    "#[version = \"0.0.5\"]", "#[metadata]", "free_var", "//", "/*", "*/", "?", "axis=1", " ",
    "\n",
]  # fmt: skip


def parses_or_reports(text: str) -> None:
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


@given(st.binary(max_size=300))
def test_random_bytes(data: bytes) -> None:
    parses_or_reports(data.decode("utf-8", errors="replace"))


@given(st.lists(st.sampled_from(TOKENS), max_size=60))
def test_random_token_soup(tokens: list[str]) -> None:
    parses_or_reports(" ".join(tokens))


@st.composite
def mutated_program(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(PROGRAMS))
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


@given(mutated_program())
def test_mutated_programs(text: str) -> None:
    parses_or_reports(text)
