"""Deep programs: nothing in the text format recurses on program depth.

Let-chains, sequences and graph bindings parse and print at any length (here 15,000: fifteen
times Python's default recursion limit, and above the limit the parser raises while it runs);
other nesting works to ``MAX_NESTING`` levels, and deeper input is a clean ``ParseError``.
"""

import pytest

import relay
from relay.semantics import syntax as s
from relay.semantics.equality import alpha_equal
from relay.semantics.text.parser import MAX_NESTING

LONG = 15_000


def round_trips(mod: s.IRModule) -> None:
    text = relay.astext(mod)
    again = relay.parse(text)
    assert alpha_equal(mod, again)
    assert relay.astext(again) == text


@pytest.mark.slow
def test_long_let_chain() -> None:
    lets = "".join(f"  let %v{i} = add(%x, {i});\n" for i in range(LONG))
    mod = relay.parse(f"def @main(%x: int32) {{\n{lets}  %v{LONG - 1}\n}}")
    body = mod["main"].body
    depth = 0
    while isinstance(body, s.Let):
        body = body.body
        depth += 1
    assert depth == LONG
    round_trips(mod)


@pytest.mark.slow
def test_long_sequence_and_graph_bindings() -> None:
    seq = "".join(f"  ref_write(%r, {i});\n" for i in range(LONG))
    round_trips(relay.parse(f"def @main(%r: ref(int32)) {{\n{seq}  ref_read(%r)\n}}"))
    graph = "".join(f"  %{i + 1} = add(%{i}, 1);\n" for i in range(LONG))
    mod = relay.parse(f"def @main(%x: int32) {{\n  %0 = add(%x, 1);\n{graph}  %{LONG}\n}}")
    round_trips(mod)


def test_deep_expression_built_through_the_api_prints() -> None:
    e: s.Expr = s.Var("x")
    for _ in range(LONG):
        e = s.Call(s.Op("negative"), (e,))
    mod = s.IRModule({s.GlobalVar("main"): s.Function((), e)})
    text = relay.astext(mod)
    assert text.count("negative(") == LONG
    reparsed = relay.parse(text.replace("def @main()", "def @main(%x)"))
    assert isinstance(reparsed["main"].body, s.Call)


NESTINGS = [
    ("parentheses", "(", ")"),
    ("calls", "negative(", ")"),
    ("functions", "fn () { ", " }"),
    ("ifs", "if (True) { ", " } else { 0 }"),
    ("blocks", "{ ", " }"),
    ("references", "ref(", ")"),
    ("tuples", "(", ",)"),
]


@pytest.mark.parametrize(("what", "open_", "close"), NESTINGS, ids=[n[0] for n in NESTINGS])
def test_nesting_to_depth_1000_round_trips(what: str, open_: str, close: str) -> None:
    depth = 1000
    mod = relay.parse(open_ * depth + "1" + close * depth)
    round_trips(mod)


@pytest.mark.parametrize(("what", "open_", "close"), NESTINGS, ids=[n[0] for n in NESTINGS])
def test_deeper_nesting_is_a_clean_parse_error(what: str, open_: str, close: str) -> None:
    depth = MAX_NESTING + 5
    with pytest.raises(relay.ParseError, match="nesting too deep"):
        relay.parse(open_ * depth + "1" + close * depth)


def test_deep_types() -> None:
    depth = 1000
    tuple_type = "(" * depth + "int32" + ",)" * depth
    round_trips(relay.parse(f"def @f(%x: {tuple_type}) {{ %x }}"))
    fn_type = "fn () -> " * depth + "int32"
    round_trips(relay.parse(f"def @f(%x: {fn_type}) {{ %x }}"))
    with pytest.raises(relay.ParseError, match="nesting too deep"):
        relay.parse("def @f(%x: " + "(" * 2000 + "int32" + ",)" * 2000 + ") { %x }")
