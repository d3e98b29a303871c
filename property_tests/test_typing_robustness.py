"""The type checker fails only with ``RelayTypeError``, never with an internal exception.

Programs that parse but may be ill-typed come from random mutations of the hand-written
programs (tokens replaced, deleted or duplicated); each is either typed or rejected with a
diagnostic that names a rule.
"""

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

import relay
from relay.semantics.text.printer import format_type
from relay.semantics.typing import infer_types

PROGRAMS = [p.read_text() for p in sorted((Path(__file__).parent.parent / "tests" / "programs")
                                           .glob("*.relay"))]  # fmt: skip
REPLACEMENTS = [
    "1", "1f", "True", "(1, 2)", "%x", "int32", "float32", "bool", "Tensor[(2, 3), float32]",
    "(int32,)", "add", "multiply", "nn.relu", "Nil", "Cons", "0i64", "2f16", "()", "axis=1",
    "axis=[0]", "keepdims=True", "List[int32]", "fn (int32) -> int32", "ref(int32)",
]  # fmt: skip


@st.composite
def mutated(draw: st.DrawFn) -> str:
    text = draw(st.sampled_from(PROGRAMS))
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


@given(mutated())
def test_mutated_programs_type_check_or_report_a_rule(text: str) -> None:
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


def test_every_hand_written_program_type_checks() -> None:
    for text in PROGRAMS:
        infer_types(relay.parse(text))
