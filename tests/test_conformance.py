"""The conformance corpus (``tests/conformance/*.relay``) and its harness.

Every case type-checks (with its arguments applied to its entry) and gives its expected result
on the big-step spec and, once ``relay.interpreter.evaluate`` exists, on the interpreter, where
the two engines must also agree with each other; every evaluation rule fires somewhere in the
corpus. The rest tests the harness itself: directive errors, and the comparison policy.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from relay.oracles.compare import compare_values, value_from_json
from relay.oracles.conformance import run_case
from relay.oracles.corpus import DIRECTIVES, Case, ExpectError, ExpectValue, corpus, load_case
from relay.oracles.engines import interpreter_engine, spec_engine
from relay.semantics.errors import ParseError, RelayError
from relay.semantics.evaluation import RULES, evaluate
from relay.semantics.syntax import IRModule
from relay.semantics.typing import infer_types
from relay.semantics.values import (
    ClosureValue,
    ConstructorValue,
    RefValue,
    TensorValue,
    TupleValue,
    Value,
    value_to_json,
)

CORPUS = Path(__file__).parent / "conformance"
PATHS = corpus(CORPUS)
IDS = [p.stem for p in PATHS]


def test_the_corpus_has_at_least_forty_programs() -> None:
    assert len(PATHS) >= 40


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_case_type_checks_with_its_arguments(path: Path) -> None:
    infer_types(load_case(path).applied())


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_case_on_the_spec(path: Path) -> None:
    outcome = run_case(load_case(path), spec_engine())
    assert outcome.ok, outcome.message


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_case_on_the_interpreter(path: Path) -> None:
    engine = interpreter_engine()
    if engine is None:
        pytest.skip("relay.interpreter.evaluate does not exist yet")
    outcome = run_case(load_case(path), engine)
    assert outcome.ok, outcome.message


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_spec_and_interpreter_agree(path: Path) -> None:
    engine = interpreter_engine()
    if engine is None:
        pytest.skip("relay.interpreter.evaluate does not exist yet")
    case = load_case(path)
    spec, interpreter = run_case(case, spec_engine()), run_case(case, engine)
    if spec.error is not None or interpreter.error is not None:
        assert type(spec.error) is type(interpreter.error), (spec.error, interpreter.error)
        return
    assert spec.result is not None and interpreter.result is not None
    difference = compare_values(
        spec.result.value,
        interpreter.result.value,
        expected_store=spec.result.store,
        actual_store=interpreter.result.store,
        reduction_length=case.reduction_length,
    )
    assert difference is None, difference


def _rule_named_by(err: RelayError) -> str | None:
    """The rule an evaluation error names at the start of its message (``E-Match-Fail: ..``)."""
    head = err.message.split(":", 1)[0]
    return head if head in RULES else None


def test_every_evaluation_rule_fires_somewhere_in_the_corpus() -> None:
    fired: Counter[str] = Counter()
    for path in PATHS:
        case = load_case(path)
        try:
            result = evaluate(case.module, case.args, entry=case.entry, fuel=case.fuel)
        except RelayError as err:
            # A failing run loses its counts; the rule that failed names itself.
            rule = _rule_named_by(err)
            if rule is not None:
                fired[rule] += 1
            continue
        fired.update(result.rules_fired)
    missing = [rule for rule in RULES if fired[rule] == 0]
    assert not missing, f"rules no corpus program exercises: {missing}"


def test_every_error_kind_is_expected_somewhere() -> None:
    kinds = {c.expect.kind for c in map(load_case, PATHS) if isinstance(c.expect, ExpectError)}
    assert kinds == {"RelayRuntimeError", "UndefinedBehavior", "Exhaustion"}


@pytest.mark.parametrize("path", PATHS, ids=IDS)
def test_results_survive_the_json_round_trip(path: Path) -> None:
    case = load_case(path)
    outcome = run_case(case, spec_engine())
    if outcome.result is None:
        return
    text = json.dumps(value_to_json(outcome.result.value, outcome.result.store), allow_nan=False)
    store: dict[int, Value] = {}
    back = value_from_json(json.loads(text), case.module, store)
    assert compare_values(back, outcome.result.value, expected_store=store,
                          actual_store=outcome.result.store, aliasing=False) is None  # fmt: skip


# ---------------------------------------------------------------------------------------------
# The harness


def write(tmp_path: Path, text: str, name: str = "case.relay") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


LIST = "type List[A] { Cons(A, List[A]), Nil }\n"


def test_directives_are_read_from_the_header_only(tmp_path: Path) -> None:
    path = write(tmp_path, "// A prose line.\n// ARGS: 1,\n// ARGS: (2, 3i64)\n"
                 "// ENTRY: @f\n// FUEL: 50\n// REDUCTION-LENGTH: 3\n// EXPECT: 6i64\n"
                 '#[version = "0.0.5"]\n'
                 "def @f(%a: int32, %b: (int32, int64)) -> int64 {\n"
                 "  // EXPECT: this is not a directive\n"
                 '  cast(%a + %b.0, dtype="int64") + %b.1\n}\n')  # fmt: skip
    case = load_case(path)
    assert (case.entry, case.fuel, case.reduction_length, len(case.args)) == ("f", 50, 3, 2)
    assert isinstance(case.expect, ExpectValue)
    assert run_case(case, spec_engine()).ok


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("// EXPECTS: 1\n", "unknown directive EXPECTS"),
        ("// EXPECT: 1\n// EXPECT-ERROR: Exhaustion: x\n", "exactly one of EXPECT"),
        ("// ARGS: 1\n", "exactly one of EXPECT"),
        ("// EXPECT: 1\n// ENTRY: nope\n", "the entry @nope is not defined"),
        ("// EXPECT: 1\n// FUEL: 0\n", "FUEL needs a positive integer"),
        ("// EXPECT: 1\n// FUEL: 1\n// FUEL: 2\n", "FUEL is given more than once"),
        ("// EXPECT: add(1, 2)\n", "not a value literal"),
        ("// EXPECT: %x\n", "unbound variable %x"),
        ("// EXPECT: 1.5\n", "needs its f suffix"),
        ("// EXPECT: 1, 2\n", "EXPECT needs one value, found 2"),
        ("// EXPECT: Cons(1)\n", "Cons takes 2 fields, found 1"),
        ("// ARGS: ref(1)\n// EXPECT: 1\n", "arguments cannot create references"),
        ("// EXPECT-ERROR: Stuck: anything\n", "KIND one of"),
        ('// EXPECT-JSON: {"kind": "tensor", "dtype": "float32", "shape": [2], "data": [1]}\n',
         "the data has shape [1], not [2]"),
        ('// EXPECT-JSON: {"kind": "constructor", "name": "Nope", "fields": []}\n',
         "no constructor called 'Nope'"),
        ("// EXPECT-JSON: {\n", "EXPECT-JSON is not JSON"),
        ("// EXPECT:\n", "directive EXPECT has no text"),
    ],
)  # fmt: skip
def test_malformed_cases_are_parse_errors_with_a_location(
    tmp_path: Path, header: str, message: str
) -> None:
    path = write(tmp_path, header + '#[version = "0.0.5"]\n' + LIST + "def @main() { 1 }\n")
    with pytest.raises(ParseError) as info:
        load_case(path)
    assert message in info.value.message
    assert info.value.span is not None and info.value.span.source.name == str(path)


def test_a_directive_error_points_into_the_directive(tmp_path: Path) -> None:
    path = write(tmp_path, "// EXPECT: (1, 1.5)\ndef @main() { 1 }\n")
    with pytest.raises(ParseError) as info:
        load_case(path)
    rendered = info.value.render()
    assert rendered.splitlines() == [
        f"{path}:1:16: error: invalid literal 1.5: a float literal needs its f suffix (1.5f)",
        "// EXPECT: (1, 1.5)",
        "               ^~~",
    ]


def outcome_of(tmp_path: Path, text: str) -> str:
    result = run_case(load_case(write(tmp_path, text)), spec_engine())
    return "ok" if result.ok else result.message


def test_a_wrong_value_is_reported_with_its_path(tmp_path: Path) -> None:
    text = "// EXPECT: (1, Cons(2, Nil))\n" + LIST + "def @main() { (1, Cons(3, Nil)) }\n"
    assert outcome_of(tmp_path, text) == "result.1.Cons.0: expected 2, found 3 (not equal)"


def test_an_error_of_the_wrong_kind_or_text_fails(tmp_path: Path) -> None:
    body = "def @main() -> int32 { divide(1, 0) }\n"
    assert outcome_of(tmp_path, "// EXPECT-ERROR: UndefinedBehavior: by zero\n" + body) == "ok"
    assert outcome_of(tmp_path, "// EXPECT-ERROR: Exhaustion: by zero\n" + body).startswith(
        "expected Exhaustion, found UndefinedBehavior"
    )
    assert outcome_of(tmp_path, "// EXPECT-ERROR: UndefinedBehavior: overflow\n" + body) \
        .startswith("expected UndefinedBehavior containing 'overflow'")  # fmt: skip
    assert outcome_of(tmp_path, "// EXPECT: 1\n" + body).startswith(
        "expected a value, found UndefinedBehavior"
    )
    assert outcome_of(tmp_path, "// EXPECT-ERROR: Exhaustion: fuel\ndef @main() { 1 }\n") == (
        "expected Exhaustion ('fuel'), but evaluation returned 1"
    )


def test_fuel_directive_limits_the_run(tmp_path: Path) -> None:
    body = "def @main() -> int32 { let %x = 1; let %y = 2; %x + %y }\n"
    assert outcome_of(tmp_path, "// EXPECT: 3\n" + body) == "ok"
    assert outcome_of(tmp_path, "// FUEL: 2\n// EXPECT: 3\n" + body).startswith(
        "expected a value, found Exhaustion"
    )


# ---------------------------------------------------------------------------------------------
# compare_values


def t(*data: object, dtype: str = "float32") -> TensorValue:
    return TensorValue(np.array(data if len(data) != 1 else data[0], dtype=dtype))


MOD = IRModule()


def test_compare_tensors_follows_the_tolerance_policy() -> None:
    assert compare_values(t(1.0, float("nan")), t(1.0 + 1e-7, float("nan"))) is None
    assert compare_values(t(1.0), t(1.1)) is not None
    assert compare_values(t(1, dtype="int32"), t(1, dtype="int64")) is not None
    assert compare_values(t(100.0), t(100.0 + 2e-4), reduction_length=1) is not None
    assert compare_values(t(100.0), t(100.0 + 2e-4), reduction_length=100) is None


def test_compare_is_structural_and_names_the_path() -> None:
    pair = TupleValue((t(1.0), TupleValue((t(2.0), t(3.0)))))
    other = TupleValue((t(1.0), TupleValue((t(2.0), t(4.0)))))
    assert compare_values(pair, pair) is None
    assert (compare_values(pair, other) or "").startswith("result.1.1: expected 3.0, found 4.0")
    assert compare_values(pair, TupleValue((t(1.0),))) == (
        "result: expected a tuple of 2 fields, found 1"
    )
    assert compare_values(pair, t(1.0)) == "result: expected a tuple, found a tensor"


def test_compare_constructor_values_by_name_and_fields() -> None:
    case = load_case(CORPUS / "list_recursion.relay")
    ctors = case.module.constructors()
    nil = ConstructorValue(ctors["Nil"], ())
    one = ConstructorValue(ctors["Cons"], (t(1, dtype="int32"), nil))
    assert compare_values(one, one) is None
    assert compare_values(one, nil) == "result: expected constructor Cons, found Nil"


def test_compare_long_lists_without_deep_recursion() -> None:
    case = load_case(CORPUS / "list_recursion.relay")
    ctors = case.module.constructors()
    value = ConstructorValue(ctors["Nil"], ())
    for i in range(20_000):
        value = ConstructorValue(ctors["Cons"], (t(i, dtype="int32"), value))
    assert compare_values(value, value) is None


def test_compare_references_by_contents_and_aliasing() -> None:
    store = {0: t(5.0), 1: t(5.0), 2: t(6.0)}
    shared = TupleValue((RefValue(0), RefValue(0)))
    distinct = TupleValue((RefValue(0), RefValue(1)))
    assert compare_values(shared, shared, expected_store=store, actual_store=store) is None
    assert compare_values(distinct, distinct, expected_store=store, actual_store=store) is None
    assert "alias" in (compare_values(shared, distinct, expected_store=store,
                                      actual_store=store) or "")  # fmt: skip
    assert "alias" in (compare_values(distinct, shared, expected_store=store,
                                      actual_store=store) or "")  # fmt: skip
    assert compare_values(RefValue(0), RefValue(2), expected_store=store,
                          actual_store=store) is not None  # fmt: skip
    assert compare_values(shared, distinct, expected_store=store, actual_store=store,
                          aliasing=False) is None  # fmt: skip


def test_closures_are_not_compared() -> None:
    case = load_case(CORPUS / "closures.relay")
    fn = case.module["main"]
    assert compare_values(ClosureValue(fn), ClosureValue(case.module["make_adder"])) is None
    assert compare_values(ClosureValue(fn), t(1.0)) == "result: expected a function, found a tensor"


def test_every_directive_is_documented() -> None:
    import relay.oracles.corpus as corpus_format

    doc = corpus_format.__doc__ or ""
    assert all(f"// {name}:" in doc for name in DIRECTIVES)


def test_case_objects_keep_their_inputs() -> None:
    case = load_case(CORPUS / "arguments.relay")
    assert isinstance(case, Case) and case.name == "arguments" and len(case.args) == 6
