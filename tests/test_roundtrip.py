"""Print then parse is the identity up to alpha-equivalence, and printing is a fixpoint.

The programs in ``tests/programs/`` are written by hand to cover every construct of the text
format between them.
"""

from pathlib import Path

import pytest

import relay
from relay.semantics.equality import alpha_equal

PROGRAMS = sorted((Path(__file__).parent / "programs").glob("*.relay"))


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_print_parse_is_identity_and_print_is_fixpoint(path: Path) -> None:
    mod = relay.parse(path.read_text(), source_name=str(path))
    text = relay.astext(mod)
    again = relay.parse(text)
    assert alpha_equal(mod, again), text
    assert relay.astext(again) == text


def test_examples_round_trip() -> None:
    for path in (Path(__file__).parent.parent / "examples").glob("*.relay"):
        mod = relay.parse(path.read_text())
        assert alpha_equal(mod, relay.parse(relay.astext(mod)))


def test_the_programs_cover_every_construct() -> None:
    from relay.semantics import syntax as s

    seen: set[type] = set()
    patterns: set[type] = set()
    for path in PROGRAMS:
        mod = relay.parse(path.read_text())
        for fn in mod.functions.values():
            for node in s.post_order(fn):
                seen.add(type(node))
                if isinstance(node, s.Match):
                    seen.add(s.Match if node.complete else type("MatchPartial", (), {}))
                    for clause in node.clauses:
                        stack: list[s.Pattern] = [clause.lhs]
                        while stack:
                            p = stack.pop()
                            patterns.add(type(p))
                            if isinstance(p, s.PatternConstructor | s.PatternTuple):
                                stack.extend(p.patterns)
    expected = {
        s.Var,
        s.GlobalVar,
        s.Constant,
        s.Tuple,
        s.TupleGetItem,
        s.Function,
        s.Call,
        s.Let,
        s.If,
        s.Match,
        s.RefCreate,
        s.RefRead,
        s.RefWrite,
        s.Op,
        s.Constructor,
    }
    assert expected <= seen
    assert "MatchPartial" in {t.__name__ for t in seen}
    assert patterns == {s.PatternWildcard, s.PatternVar, s.PatternConstructor, s.PatternTuple}
