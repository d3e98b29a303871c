"""Printing values: ``format_value``, ``value_to_json`` and ``dump_json`` at any depth, and on
cyclic references (a reference whose contents contain itself)."""

from __future__ import annotations

import json
from collections.abc import Callable

import numpy as np
import pytest

import relay
from relay.interpreter import evaluate as interpret
from relay.semantics.evaluation import Result
from relay.semantics.evaluation import evaluate as spec
from relay.semantics.values import (
    JSON,
    ClosureValue,
    ConstructorValue,
    RefValue,
    Store,
    TensorValue,
    TupleValue,
    Value,
    dump_json,
    format_value,
    value_to_json,
)

MODULE = relay.parse("""#[version = "0.0.5"]
type List[A] {
  Cons(A, List[A]),
  Nil,
}
type Node {
  Leaf,
  Link(ref(Node)),
}
def @tie() -> ref(Node) {
  let %r = ref(Leaf);
  let %u = ref_write(%r, Link(%r));
  %r
}
def @knot() {
  let %r = ref(fn (%x: int32) -> int32 { %x });
  let %f = fn (%y: int32) -> int32 { let %g = ref_read(%r); %g(%y) };
  let %u = ref_write(%r, %f);
  (%r, %r)
}
def @shared() {
  let %r = ref(1);
  (%r, %r)
}
""")
CONS = MODULE.lookup_constructor("Cons")
NIL = MODULE.lookup_constructor("Nil")
LINK = MODULE.lookup_constructor("Link")
N = 100_000
ENGINES: dict[str, Callable[..., Result]] = {"spec": spec, "interpreter": interpret}


def int_list(n: int) -> Value:
    """``Cons(0, Cons(1, .. Cons(n - 1, Nil)))``, built without recursion."""
    v: Value = ConstructorValue(NIL, ())
    for i in reversed(range(n)):
        v = ConstructorValue(CONS, (TensorValue(np.array(i, dtype="int32")), v))
    return v


def test_a_100000_element_list_formats() -> None:
    expected = "".join(f"Cons({i}, " for i in range(N)) + "Nil" + ")" * N
    assert format_value(int_list(N)) == expected


@pytest.mark.slow
def test_a_100000_element_list_converts_to_json() -> None:
    data = value_to_json(int_list(N))
    # Walk the cells with a loop (``==`` on nested dicts would itself recurse).
    for i in range(N):
        assert isinstance(data, dict)
        assert data["kind"] == "constructor" and data["name"] == "Cons"
        fields = data["fields"]
        assert isinstance(fields, list) and len(fields) == 2
        assert fields[0] == {"kind": "tensor", "dtype": "int32", "shape": [], "data": i}
        data = fields[1]
    assert data == {"kind": "constructor", "name": "Nil", "fields": []}


@pytest.mark.slow
def test_dump_json_writes_a_100000_deep_value() -> None:
    cell = '{"kind": "constructor", "name": "Cons", "fields": [{"kind": "tensor", "dtype": '
    expected = (
        "".join(f'{cell}"int32", "shape": [], "data": {i}}}, ' for i in range(N))
        + '{"kind": "constructor", "name": "Nil", "fields": []}'
        + "]}" * N
    )
    assert dump_json(value_to_json(int_list(N))) == expected


@pytest.mark.parametrize(
    "data",
    [
        None,
        True,
        -3,
        2.5,
        "nan",
        'quote " and \\ and é',
        [],
        {},
        [1, [2, [3, {}]], {"a": [None, False]}],
        {"kind": "tensor", "x": {"y": [1.5, -0.0, 1e300]}, "": "empty key"},
    ],
)
def test_dump_json_agrees_with_json_dumps(data: JSON) -> None:
    assert dump_json(data) == json.dumps(data, allow_nan=False)


def test_dump_json_refuses_non_finite_floats_as_json_does() -> None:
    with pytest.raises(ValueError):
        dump_json([float("nan")])


@pytest.mark.parametrize("engine", ENGINES)
def test_a_reference_holding_an_adt_that_holds_the_reference(engine: str) -> None:
    result = ENGINES[engine](MODULE, [], entry="tie")
    assert format_value(result.value, result.store) == "#0=ref(Link(#0#))"
    assert value_to_json(result.value, result.store) == {
        "kind": "ref",
        "label": 0,
        "value": {
            "kind": "constructor",
            "name": "Link",
            "fields": [{"kind": "backref", "label": 0}],
        },
    }
    # The public API returns the value (without the store): printing it does not loop either.
    value = relay.evaluate(MODULE, entry="tie")
    assert isinstance(value, RefValue)
    assert format_value(value) == f"ref(<{value.location}>)"


@pytest.mark.parametrize("engine", ENGINES)
def test_a_reference_holding_a_closure_that_holds_the_reference(engine: str) -> None:
    result = ENGINES[engine](MODULE, [], entry="knot")
    first, second = result.value.fields  # type: ignore[union-attr]
    assert isinstance(first, RefValue) and first.location == second.location  # type: ignore[union-attr]
    closure = result.store[first.location]
    assert isinstance(closure, ClosureValue)  # the closure's environment holds %r
    assert format_value(result.value, result.store) == "(ref(<closure>), ref(<closure>))"
    ref_form: JSON = {"kind": "ref", "value": {"kind": "closure"}}
    assert value_to_json(result.value, result.store) == {
        "kind": "tuple",
        "fields": [ref_form, ref_form],
    }


@pytest.mark.parametrize("engine", ENGINES)
def test_a_shared_reference_that_is_not_cyclic_is_printed_at_each_use(engine: str) -> None:
    result = ENGINES[engine](MODULE, [], entry="shared")
    assert format_value(result.value, result.store) == "(ref(1), ref(1))"
    assert "label" not in dump_json(value_to_json(result.value, result.store))


def one(i: int) -> TensorValue:
    return TensorValue(np.array(i, dtype="int32"))


def test_a_cycle_built_directly() -> None:
    store: Store = {7: ConstructorValue(LINK, (RefValue(7),))}
    assert format_value(RefValue(7), store) == "#0=ref(Link(#0#))"
    # Inside a tuple, and met twice: each occurrence is a cycle of its own.
    pair = TupleValue((RefValue(7), RefValue(7)))
    assert format_value(pair, store) == "(#0=ref(Link(#0#)), #1=ref(Link(#1#)))"
    assert dump_json(value_to_json(pair, store)) == (
        '{"kind": "tuple", "fields": ['
        '{"kind": "ref", "label": 0, "value": {"kind": "constructor", "name": "Link", '
        '"fields": [{"kind": "backref", "label": 0}]}}, '
        '{"kind": "ref", "label": 1, "value": {"kind": "constructor", "name": "Link", '
        '"fields": [{"kind": "backref", "label": 1}]}}]}'
    )


def test_nested_cycles_are_labelled_in_output_order() -> None:
    # ref 0 holds (ref 1, ref 0); ref 1 holds (ref 1,): ref 1's cycle is found first, but
    # ref 0 comes first in the text, so it is #0.
    store: Store = {
        0: TupleValue((RefValue(1), RefValue(0))),
        1: TupleValue((RefValue(1),)),
    }
    assert format_value(RefValue(0), store) == "#0=ref((#1=ref((#1#,)), #0#))"
    data = value_to_json(RefValue(0), store)
    assert dump_json(data) == (
        '{"kind": "ref", "label": 0, "value": {"kind": "tuple", "fields": ['
        '{"kind": "ref", "label": 1, "value": {"kind": "tuple", "fields": ['
        '{"kind": "backref", "label": 1}]}}, {"kind": "backref", "label": 0}]}}'
    )


@pytest.mark.slow
def test_a_long_cycle_through_100000_references() -> None:
    # ref i holds Link(ref i+1), and the last one points back at the first.
    store: Store = {i: ConstructorValue(LINK, (RefValue((i + 1) % N),)) for i in range(N)}
    text = format_value(RefValue(0), store)
    assert text == "#0=" + "ref(Link(" * N + "#0#" + "))" * N
    assert dump_json(value_to_json(RefValue(0), store)).count('"backref"') == 1


def test_references_without_a_store_and_other_atoms() -> None:
    assert format_value(RefValue(3)) == "ref(<3>)"
    assert value_to_json(RefValue(3)) == {"kind": "ref", "value": None}
    assert format_value(TupleValue((one(1),))) == "(1,)"
    assert format_value(TupleValue(())) == "()"
    assert format_value(TensorValue(np.array([1.5, 2], dtype="float32"))) == (
        "[1.5, 2. ] /* float32[2] */"
    )
    assert value_to_json(TensorValue(np.array([[1, 2]], dtype="int8"))) == {
        "kind": "tensor",
        "dtype": "int8",
        "shape": [1, 2],
        "data": [[1, 2]],
    }
    special = TensorValue(np.array([np.nan, np.inf, -np.inf, 0.5], dtype="float32"))
    assert value_to_json(special)["data"] == ["nan", "inf", "-inf", 0.5]  # type: ignore[index]


def test_the_derivation_puts_the_premises_that_chose_a_rule_under_it() -> None:
    # (Printed with format_value; kept here with the other printing tests.) The condition of
    # an if, and the arguments and callee of a call, are evaluated by the table of contents
    # to choose the rule; the derivation still shows them as that rule's first premises.
    from relay.semantics.evaluation import format_derivation

    mod = relay.parse("""#[version = "0.0.5"]
type Box { Box(int32) }
def @main(%x: int32) {
  if (%x > 0) { Box(%x) } else { Box(0) }
}
""")
    result = spec(mod, [one(3)], explain=True)
    assert result.derivation is not None
    lines = format_derivation(result.derivation).splitlines()
    depths = [(len(line) - len(line.lstrip())) // 2 for line in lines]
    names = [line.split()[0] for line in lines]
    assert names == [
        "E-Call-Closure",  # @main(3): the conclusion
        "E-If-True",
        "E-Call-Op",  # the condition, a premise of E-If-True
        "E-Var",
        "E-Const",
        "E-Call-Constructor",  # the branch
        "E-Var",  # the argument, a premise of E-Call-Constructor
        "E-Ctor",  # then the callee
    ]
    assert depths == [0, 1, 2, 3, 3, 2, 3, 3]
    assert lines[-3].endswith("⇓ Box(3)")
    assert result.rules_fired["E-If-True"] == 1 and result.rules_fired["E-If-False"] == 0
