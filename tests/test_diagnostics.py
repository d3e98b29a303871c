"""Malformed programs get one precise diagnostic: FILE:LINE:COL, the message, line and caret.

The messages are a contract: these tests check them as text.
"""

import pytest

import relay


def diagnostic(text: str, name: str = "bad.relay") -> str:
    with pytest.raises(relay.ParseError) as info:
        relay.parse(text, source_name=name)
    return info.value.render()


CASES = [
    (
        "unknown operator",
        "def @main() {\n  foo(1)\n}",
        "bad.relay:2:3: error: unknown operator or constructor 'foo'\n  foo(1)\n  ^~~",
    ),
    (
        "constructor of no type",
        "type T { A }\ndef @main() { B(1) }",
        "bad.relay:2:15: error: unknown operator or constructor 'B'\n"
        "def @main() { B(1) }\n              ^",
    ),
    (
        "unknown constructor in a pattern",
        "type T { A }\ndef @main(%t: T) { match (%t) { B => 0 } }",
        "bad.relay:2:33: error: unknown constructor B\n"
        "def @main(%t: T) { match (%t) { B => 0 } }\n                                ^",
    ),
    (
        "unbound variable",
        "def @main(%x: int32) { add(%x, %y) }",
        "bad.relay:1:32: error: unbound variable %y\n"
        "def @main(%x: int32) { add(%x, %y) }\n                               ^~",
    ),
    (
        "float without suffix",
        "def @main() { 1.5 }",
        "bad.relay:1:15: error: invalid literal 1.5: a float literal needs its f suffix (1.5f)\n"
        "def @main() { 1.5 }\n              ^~~",
    ),
    (
        "integer out of range",
        "def @main() { 32768i16 }",
        "bad.relay:1:15: error: integer literal 32768i16 does not fit int16\n"
        "def @main() { 32768i16 }\n              ^~~~~~~~",
    ),
    (
        "bad width",
        "def @main() { 1i8 }",
        "bad.relay:1:15: error: invalid literal 1i8: integer widths are i16, i32 and i64\n"
        "def @main() { 1i8 }\n              ^~~",
    ),
    (
        "wrong version",
        '#[version = "0.0.4"]\ndef @main() { 1 }',
        'bad.relay:1:1: error: unsupported version "0.0.4": expected #[version = "0.0.5"]\n'
        '#[version = "0.0.4"]\n^~~~~~~~~~~~~~~~~~~~',
    ),
    (
        "unterminated comment",
        "def @main() {\n  1 /* oops\n}",
        "bad.relay:2:5: error: unterminated comment: this /* is never closed\n  1 /* oops\n    ^~",
    ),
    (
        "attribute of the wrong type",
        'def @main(%x: Tensor[(2, 3), float32]) {\n  sum(%x, axis="one")\n}',
        "bad.relay:2:11: error: sum: attribute 'axis' expects a list of integers, found the "
        'string "one"\n  sum(%x, axis="one")\n          ^~~~',
    ),
    (
        "unknown attribute",
        "def @main(%x: float32) { nn.softmax(%x, axes=1) }",
        "bad.relay:1:41: error: nn.softmax: unknown attribute 'axes' (known attributes: axis)\n"
        "def @main(%x: float32) { nn.softmax(%x, axes=1) }\n"
        "                                        ^~~~",
    ),
    (
        "missing attribute",
        "def @main(%x: float32) { cast(%x) }",
        "bad.relay:1:26: error: cast: missing required attribute 'dtype'\n"
        "def @main(%x: float32) { cast(%x) }\n                         ^~~~~~~~",
    ),
    (
        "duplicate definition",
        "def @f() { 1 }\ndef @f() { 2 }",
        "bad.relay:2:5: error: duplicate definition of @f\ndef @f() { 2 }\n    ^~\n"
        "bad.relay:1:5: note: previous definition here\ndef @f() { 1 }\n    ^~",
    ),
    (
        "duplicate type",
        "type T { A }\ntype T { B }",
        "bad.relay:2:6: error: duplicate definition of type T\ntype T { B }\n     ^\n"
        "bad.relay:1:6: note: previous definition here\ntype T { A }\n     ^",
    ),
    (
        "duplicate constructor",
        "type T { A }\ntype U { A }",
        "bad.relay:2:10: error: duplicate constructor A\ntype U { A }\n         ^\n"
        "bad.relay:1:10: note: previous definition here\ntype T { A }\n         ^",
    ),
    (
        "wrong arity",
        "def @main() { add(1) }",
        "bad.relay:1:15: error: operator add expects 2 arguments (lhs, rhs), found 1\n"
        "def @main() { add(1) }\n              ^~~~~~",
    ),
    (
        "missing parenthesis",
        "def @main() { (1, 2 }",
        "bad.relay:1:21: error: expected ')', found '}'\n"
        "def @main() { (1, 2 }\n                    ^",
    ),
    (
        "unknown dtype",
        "def @main(%x: Tensor[(1), float33]) { %x }",
        "bad.relay:1:27: error: unknown dtype 'float33' (known: bool, int8, int16, int32, int64, "
        "uint8, uint16, uint32, uint64, float16, float32, float64)\n"
        "def @main(%x: Tensor[(1), float33]) { %x }\n                          ^~~~~~~",
    ),
    (
        "unknown type",
        "def @main(%x: Foo) { %x }",
        "bad.relay:1:15: error: unknown type Foo\ndef @main(%x: Foo) { %x }\n              ^~~",
    ),
    (
        "undefined global",
        "def @main() { @g() }",
        "bad.relay:1:15: error: undefined global @g\ndef @main() { @g() }\n              ^~",
    ),
    (
        "graph variable before binding",
        "def @main() { %0 }",
        "bad.relay:1:15: error: graph variable %0 is used before it is bound\n"
        "def @main() { %0 }\n              ^~",
    ),
    (
        "unterminated string",
        'def @main() { nn.pad(1, 2, pad_mode="edge) }',
        "bad.relay:1:37: error: unterminated string literal\n"
        'def @main() { nn.pad(1, 2, pad_mode="edge) }\n                                    ^',
    ),
    (
        "unexpected character",
        "def @main() { 1 $ 2 }",
        "bad.relay:1:17: error: unexpected character '$'\ndef @main() { 1 $ 2 }\n                ^",
    ),
    (
        "dangling meta reference",
        "def @main() { meta[relay.Constant][0] }",
        "bad.relay:1:15: error: meta[relay.Constant][0] refers to a #[metadata] section, and "
        "there is none\ndef @main() { meta[relay.Constant][0] }\n              "
        "^~~~~~~~~~~~~~~~~~~~~~~",
    ),
    (
        "extern type with constructors",
        "extern type H { A }",
        "bad.relay:1:15: error: an extern type cannot have constructors\n"
        "extern type H { A }\n              ^",
    ),
    (
        "trailing garbage",
        "def @main() { 1 } x",
        "bad.relay:1:19: error: expected 'def', 'type' or end of file, found 'x'\n"
        "def @main() { 1 } x\n                  ^",
    ),
    (
        "end of file",
        "def @main() { add(1,",
        "bad.relay:1:21: error: unexpected end of file in a definition: a '}' is missing\n"
        "def @main() { add(1,\n                    ^",
    ),
]


@pytest.mark.parametrize(("what", "text", "expected"), CASES, ids=[c[0] for c in CASES])
def test_diagnostic_text(what: str, text: str, expected: str) -> None:
    assert diagnostic(text) == expected


def test_nesting_limit_is_a_clean_error() -> None:
    from relay.semantics.text.parser import MAX_NESTING

    deep = "(" * (MAX_NESTING + 10) + "1" + ")" * (MAX_NESTING + 10)
    message = diagnostic(deep)
    assert f"nesting too deep: more than {MAX_NESTING} levels" in message


def test_malformed_metadata_points_into_the_json() -> None:
    message = diagnostic('def @main() { 1 }\n#[metadata]\n{\n  "root": 1,\n  oops\n}')
    assert message.startswith("bad.relay:5:3: error: malformed metadata section: ")


def test_a_long_line_is_echoed_as_a_window_around_the_caret() -> None:
    padding = "/* " + "x" * 1_000_000 + " */ "
    text = f"def @main() {{ {padding}add(1, 2.5) {padding}}}"
    rendered = diagnostic(text)
    column = len("def @main() { ") + len(padding) + len("add(1, ") + 1
    head, line, caret = rendered.split("\n")
    assert head == (f"bad.relay:1:{column}: error: invalid literal 2.5: a float literal needs its "
                    "f suffix (2.5f)")  # fmt: skip
    assert line.startswith("…") and line.endswith("…")
    assert len(line) == relay.semantics.errors.ECHO_WIDTH + 2
    assert "xxx */ add(1, 2.5) /* xxx" in line
    assert line[caret.index("^") :].startswith("2.5")  # the caret is under the literal
    assert caret.endswith("^~~")


def test_clipping_keeps_the_start_and_the_end_of_a_line() -> None:
    from relay.semantics.errors import ECHO_WIDTH, SourceFile, Span, render_diagnostic

    source = SourceFile("f.relay", "ab" * ECHO_WIDTH)
    at_start = render_diagnostic("m", Span(source, 1, 2, 1, 400)).split("\n")
    assert at_start[1] == source.text[:ECHO_WIDTH] + "…"
    assert at_start[2] == " ^" + "~" * (ECHO_WIDTH - 2)  # the underline ends with the window
    at_end = render_diagnostic("m", Span(source, 1, 2 * ECHO_WIDTH, 1, 2 * ECHO_WIDTH + 1))
    line, caret = at_end.split("\n")[1:]
    assert line == "…" + source.text[-ECHO_WIDTH:]
    assert caret == " " * ECHO_WIDTH + "^"
    short = render_diagnostic("m", Span(SourceFile("g", "\tab"), 1, 3, 1, 4)).split("\n")
    assert short[1:] == ["\tab", "\t ^"]
