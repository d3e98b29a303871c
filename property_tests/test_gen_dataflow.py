"""Generated dataflow programs are well-typed, evaluate, round-trip, and pass Z3 validation.

The programs come from ``oracles.gen_dataflow.dataflow_programs`` and their arguments from
``program.arguments()`` (``oracles.gen_args.arguments``, positive where the program asks).
Properties:

(a) type inference succeeds, ``@main`` has the type the generator predicted, and so does every
    call in it (the checker and the generator's relation calls agree node by node);
(b) the spec evaluator runs the program without ``Stuck`` (progress), and the result and the
    value of every operator call have their inferred types (preservation: dtype and shape of
    tensors, structure of tuples). ``UndefinedBehavior`` and ``Exhaustion`` are acceptable
    outcomes and are counted. With default arguments, most programs must evaluate to values
    that are all finite, and no value the generator marked surely non-negative may be
    negative, nor NaN from finite inputs (the soundness of its positivity rules);
(c) print then parse gives an alpha-equal module, and printing is a fixpoint;
(d) sampled operator calls of each program pass ``validate_call`` (the relation agrees with
    its Z3 encoding);

plus: every registered operator has a builder and is generated; each operator alone builds
defined calls; shrinking reaches the smallest program; the argument strategies give values
of the exact types, small and non-zero by default (positive when asked), with edge values in
special mode.

The whole file takes about 35 s of CPU time in the ``ci`` profile (under a minute on two
cores); the example counts below are chosen for that.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator

import numpy as np
import pytest
from hypothesis import find, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from relay.oracles.gen_args import arguments, values
from relay.oracles.gen_dataflow import (
    OP_ORDER,
    DataflowProgram,
    dataflow_programs,
    missing_builders,
)
from relay.oracles.validate import validate_call
from relay.semantics.equality import alpha_equal
from relay.semantics.errors import Exhaustion, UndefinedBehavior
from relay.semantics.evaluation import Derivation, evaluate
from relay.semantics.ops import OPS
from relay.semantics.syntax import ANY, DTYPES, Call, FuncType, TensorType, TupleType, Type, Var
from relay.semantics.text.parser import parse
from relay.semantics.text.printer import astext, format_type
from relay.semantics.typing import infer_types
from relay.semantics.values import TensorValue, TupleValue, Value

SMALL = 20
MEDIUM = 200


def type_mismatch(v: Value, t: Type) -> str | None:
    """Why ``v`` is not a value of type ``t`` (tensors and tuples), or ``None`` if it is; a
    ``?`` dimension (a dynamic operator's result) holds any size."""
    match v, t:
        case TensorValue(data), TensorType(shape, dtype):
            fits = len(data.shape) == len(shape) and all(
                d is ANY or d == n for d, n in zip(shape, data.shape, strict=True)
            )
            if data.dtype.name != dtype or not fits:
                return f"a {data.dtype.name}{list(data.shape)} tensor for {format_type(t)}"
            return None
        case TupleValue(fields), TupleType(types) if len(fields) == len(types):
            for i, (f, ft) in enumerate(zip(fields, types, strict=True)):
                problem = type_mismatch(f, ft)
                if problem is not None:
                    return f"field {i}: {problem}"
            return None
    return f"{type(v).__name__} for {format_type(t)}"


def op_calls(d: Derivation | None) -> Iterator[Derivation]:
    """The ``E-Call-Op`` nodes of a derivation tree, in evaluation order (each after its
    premises, premises left to right)."""
    stack: list[tuple[Derivation, bool]] = [(d, False)] if d is not None else []
    while stack:
        node, expanded = stack.pop()
        if expanded:
            if node.rule == "E-Call-Op":
                yield node
            continue
        stack.append((node, True))
        stack.extend((premise, False) for premise in reversed(node.premises))


def check_types(p: DataflowProgram) -> None:
    """(a): @main and every call have the types the generator predicted."""
    info = infer_types(p.mod)
    assert info.global_type("main") == FuncType(p.param_types, p.result_type), astext(p.mod)
    for c in p.calls:
        assert info.type_of(c.call) == c.result, f"{c.op_name}: {format_type(c.result)}"


def check_evaluation(p: DataflowProgram, args: tuple[Value, ...], *, special: bool) -> str:
    """(b): evaluates, or stops with UB or exhaustion; every value has its type. With default
    arguments (``special=False``), a value the generator marked surely positive is never
    negative, nor NaN while every value before it was finite (0 and inf are allowed: the flag
    ignores underflow and overflow, and a NaN that acos made earlier may flow in). Returns
    the outcome: "finite" or "non-finite" (a value), "undefined" or "exhausted"."""
    for a, t in zip(args, p.param_types, strict=True):
        assert type_mismatch(a, t) is None, "the argument strategy gave a value of another type"
    try:
        result = evaluate(p.mod, args, explain=True)
    except UndefinedBehavior:
        return "undefined"
    except Exhaustion:
        return "exhausted"
    problem = type_mismatch(result.value, p.result_type)
    assert problem is None, f"@main returned {problem}\n{astext(p.mod)}"
    predicted = {id(c.call): c for c in p.calls}
    finite = True
    for node in op_calls(result.derivation):
        assert isinstance(node.expr, Call) and node.value is not None
        call = predicted[id(node.expr)]
        problem = type_mismatch(node.value, call.result)
        assert problem is None, f"{call.op_name} returned {problem}\n{astext(p.mod)}"
        # A NaN (acos out of its domain) or inf met earlier may reach this call's inputs, and
        # the positivity rules do not track it (exp and sigmoid of NaN are NaN).
        nan_allowed = not finite
        finite = finite and all_finite(node.value)
        fields = node.value.fields if isinstance(node.value, TupleValue) else (node.value,)
        for flag, field in zip(call.positive, fields, strict=True):
            assert isinstance(field, TensorValue)
            if flag and not special:
                data = field.data.astype(np.float64)
                nan = np.isnan(data).any() and not nan_allowed
                assert not (nan or (data < 0).any()), (
                    f"{call.op_name} was to be positive: {data}\n{astext(p.mod)}"
                )
    return "finite" if finite else "non-finite"


def all_finite(v: Value) -> bool:
    """Whether every float element of a tensor, or of a tuple's tensors, is finite."""
    if isinstance(v, TupleValue):
        return all(all_finite(f) for f in v.fields)
    assert isinstance(v, TensorValue)
    return v.data.dtype.kind != "f" or bool(np.isfinite(v.data).all())


def check_round_trip(p: DataflowProgram) -> None:
    """(c): print, parse, compare; print again, compare the text."""
    text = astext(p.mod)
    again = parse(text)
    assert alpha_equal(p.mod, again), text
    assert astext(again) == text


def test_every_op_has_a_builder() -> None:
    assert missing_builders() == []
    assert sorted(OP_ORDER) == sorted(OPS)


def test_programs_type_check_and_evaluate_to_values_of_their_types() -> None:
    outcomes: Counter[str] = Counter()

    @settings(max_examples=80)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        p = data.draw(dataflow_programs(max_nodes=SMALL), label="program")
        check_types(p)
        args = data.draw(p.arguments(), label="args")
        outcomes[check_evaluation(p, args, special=False)] += 1

    check()
    # Calls are drawn to be defined and, mostly, finite for default arguments: what is left
    # is overflow (the default values include +-64) and NaN (0 / 0, the default values
    # include zero): about one program in five (benchmarks/generator.py measures it).
    assert outcomes["finite"] >= 0.65 * outcomes.total(), outcomes


def test_special_arguments_never_get_a_program_stuck() -> None:
    @settings(max_examples=40)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        p = data.draw(dataflow_programs(max_nodes=SMALL), label="program")
        check_evaluation(p, data.draw(p.arguments(special=True), label="args"), special=True)

    check()


@settings(max_examples=60)
@given(p=dataflow_programs(max_nodes=SMALL))
def test_print_then_parse_is_alpha_equal_and_printing_is_a_fixpoint(p: DataflowProgram) -> None:
    check_round_trip(p)


@settings(max_examples=25)
@given(data=st.data())
def test_sampled_calls_pass_z3_validation(data: st.DataObject) -> None:
    p = data.draw(dataflow_programs(max_nodes=SMALL), label="program")
    chosen = data.draw(
        st.sets(st.integers(0, len(p.calls) - 1), min_size=1, max_size=3), label="calls"
    )
    for i in sorted(chosen):
        c = p.calls[i]
        problems = validate_call(c.op_name, c.arg_types, c.call.attrs)
        assert not problems, "\n".join(problems)


def test_medium_programs_check_evaluate_and_round_trip() -> None:
    outcomes: Counter[str] = Counter()

    @settings(max_examples=6)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        p = data.draw(dataflow_programs(min_nodes=50, max_nodes=MEDIUM), label="program")
        assert 50 <= len(p.calls) <= MEDIUM
        check_types(p)
        args = data.draw(p.arguments(), label="args")
        outcomes[check_evaluation(p, args, special=False)] += 1
        check_round_trip(p)

    check()
    assert outcomes["finite"] + outcomes["non-finite"] >= 1, outcomes


@pytest.mark.slow
def test_every_registered_op_is_generated() -> None:
    seen: set[str] = set()

    @settings(max_examples=400, derandomize=True)
    @given(p=dataflow_programs(min_nodes=SMALL, max_nodes=2 * SMALL))
    def collect(p: DataflowProgram) -> None:
        seen.update(p.op_names)

    collect()
    assert sorted(set(OPS) - seen) == []


@pytest.mark.parametrize("op_name", sorted(OPS))
def test_each_op_alone_builds_well_typed_defined_calls(op_name: str) -> None:
    """Programs of one operator only: every dtype and attribute form its builder draws."""

    @settings(max_examples=8)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        p = data.draw(dataflow_programs(max_nodes=3, ops=[op_name]), label="program")
        assert p.op_names == {op_name}
        check_types(p)
        check_evaluation(p, data.draw(p.arguments(), label="args"), special=False)

    check()


@pytest.mark.slow
def test_a_failing_program_shrinks_to_one_call_on_fresh_parameters() -> None:
    p = find(
        dataflow_programs(max_nodes=10),
        lambda p: "nn.conv2d" in p.op_names,
        settings=settings(max_examples=1000, database=None, derandomize=True),
    )
    assert [c.op_name for c in p.calls] == ["nn.conv2d"]
    assert all(isinstance(e, Var) for e in p.calls[0].call.args)
    assert [format_type(t) for t in p.param_types] == [
        "Tensor[(1, 1, 1, 1), float32]",
        "Tensor[(1, 1, 1, 1), float32]",
    ]


def test_strategy_arguments_are_checked_eagerly() -> None:
    with pytest.raises(InvalidArgument, match="min_nodes"):
        dataflow_programs(max_nodes=0)
    with pytest.raises(InvalidArgument, match=r"nn\.conv4d"):
        dataflow_programs(ops=["nn.conv4d"])
    with pytest.raises(InvalidArgument, match="not a tensor or tuple type"):
        arguments([FuncType((), TensorType((), "float32"))])


_TENSOR_TYPES = st.builds(
    TensorType, st.lists(st.integers(0, 5), max_size=4).map(tuple), st.sampled_from(DTYPES)
)


@settings(max_examples=60)
@given(data=st.data(), t=_TENSOR_TYPES)
def test_default_arguments_have_the_type_and_are_small_nonzero_or_positive(
    data: st.DataObject, t: TensorType
) -> None:
    v = data.draw(values(TupleType((t, t))))
    assert type_mismatch(v, TupleType((t, t))) is None
    assert isinstance(v, TupleValue) and isinstance(v.fields[0], TensorValue)
    if t.dtype != "bool":
        wide = v.fields[0].data.astype(np.float64)
        small = np.abs(wide) <= 3
        if t.dtype.startswith("float"):  # the large but finite class
            small |= np.abs(wide) == 64
        assert np.all(small)
        nonzero = data.draw(values(t, nonzero=True))
        assert isinstance(nonzero, TensorValue) and np.all(nonzero.data != 0)
    positive = data.draw(values(t, positive=True))
    assert isinstance(positive, TensorValue) and type_mismatch(positive, t) is None
    assert np.all(positive.data.astype(np.float64) > 0)


def test_special_arguments_include_every_kind_of_edge_value() -> None:
    seen: set[str] = set()

    @settings(max_examples=100, derandomize=True)
    @given(
        v=values(TensorType((4,), "float32"), special=True),
        w=values(TensorType((3,), "int32"), special=True),
    )
    def collect(v: Value, w: Value) -> None:
        assert isinstance(v, TensorValue) and isinstance(w, TensorValue)
        for x in v.data.tolist():
            seen.update(
                name
                for name, hit in (
                    ("nan", math.isnan(x)),
                    ("inf", x == math.inf),
                    ("-inf", x == -math.inf),
                    ("-0.0", x == 0 and math.copysign(1, x) < 0),
                )
                if hit
            )
        seen.update(
            name
            for x in w.data.tolist()
            for name, hit in (("int min", x == -(2**31)), ("int max", x == 2**31 - 1))
            if hit
        )

    collect()
    assert seen == {"nan", "inf", "-inf", "-0.0", "int min", "int max"}
