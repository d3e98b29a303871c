"""The type checker fails only with ``RelayTypeError``, never with an internal exception.

Programs that parse but may be ill-typed come from random mutations of the hand-written
programs and of programs over symbolic dimensions (tokens replaced, deleted or duplicated);
each is either typed or rejected with a diagnostic that names a rule. A typed program also
prints with its types (``relay fmt --types``), and that text reads back to the same program:
this is where a product of symbolic dimensions (``n*n``, inferred by ``nn.batch_flatten`` or
``reshape(newshape=[-1])``) once escaped as the printer's ``ValueError``.

The default run feeds a hundred inputs per property; ``pytest -m slow property_tests`` feeds
``SLOW_EXAMPLES`` to each (with the parser robustness file, over 10^6 inputs in all).
"""

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import relay
from relay.semantics.text.printer import format_type
from relay.semantics.typing import infer_types

PROGRAMS = [p.read_text() for p in sorted((Path(__file__).parent.parent / "tests" / "programs")
                                           .glob("*.relay"))]  # fmt: skip
SYMBOLIC = [
    "def @main(%p0: Tensor[(?, 1, n + 1, n), int64]) { nn.batch_flatten(%p0) }",
    "def @main(%p0: Tensor[(m*m, 2), int64]) { nn.batch_flatten(%p0) }",
    "def @main(%x: Tensor[(n, n), float32]) { reshape(%x, newshape=[-1]) }",
    "def @main(%x: Tensor[(n, 4), float32], %y: Tensor[(n, 4), float32]) {\n"
    "  nn.dense(%x, %y, units=None)\n}",
    "def @main(%x: Tensor[(2, n, floordiv(n, 2)), float32]) { sum(%x, axis=[1]) }",
    "def @main(%x: Tensor[(n - 1, 3), float32]) { concatenate((%x, %x), axis=0) }",
]
REPLACEMENTS = [
    "1", "1f", "True", "(1, 2)", "%x", "int32", "float32", "bool", "Tensor[(2, 3), float32]",
    "(int32,)", "add", "multiply", "nn.relu", "Nil", "Cons", "0i64", "2f16", "()", "axis=1",
    "axis=[0]", "keepdims=True", "List[int32]", "fn (int32) -> int32", "ref(int32)", "int",
    "Tensor[(n, n), float32]", "Tensor[(n*m, 2), int64]", "newshape=[-1]", "nn.batch_flatten",
    "reshape", "n", "floordiv(n, 2)", "transpose", "(%x, %x)",
]  # fmt: skip
SLOW_EXAMPLES = 150_000
"""Examples per property in the ``slow`` run."""


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(PROGRAMS + SYMBOLIC))
    words = text.split(" ")
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(words) - 1))
        kind = draw(st.sampled_from(["replace", "delete", "duplicate"]))
        if kind == "replace":
            words[i] = draw(st.sampled_from(REPLACEMENTS))
        elif kind == "delete":
            del words[i]
        else:
            words.insert(i, words[i])
    return " ".join(words)


def types_or_reports_a_rule(text: str) -> None:
    """``text`` does not parse, or type-checks and prints with types, or names a rule."""
    try:
        mod = relay.parse(text)
    except relay.ParseError:
        return
    try:
        info = infer_types(mod)
    except relay.RelayTypeError as err:
        assert err.rule, err.message
        assert err.message.startswith(err.rule)
        return
    for t in info.globals.values():
        format_type(t)
    typed = relay.astext(mod, types=True)
    assert relay.astext(relay.parse(typed)) == relay.astext(mod)


@given(mutated())
@example(SYMBOLIC[0])
@example(SYMBOLIC[1])
@example(SYMBOLIC[2])
def test_mutated_programs_type_check_or_report_a_rule(text: str) -> None:
    types_or_reports_a_rule(text)


def test_every_hand_written_program_type_checks() -> None:
    for text in PROGRAMS + SYMBOLIC:
        infer_types(relay.parse(text))


@pytest.mark.slow
def test_slow_mutated_programs_type_check_or_report_a_rule() -> None:
    settings(max_examples=SLOW_EXAMPLES)(given(mutated())(types_or_reports_a_rule))()
