"""Every op's type relation agrees with its independent Z3 encoding on sampled calls.

For each registered op, Hypothesis draws calls from ``SAMPLERS[op]`` (mostly well-typed,
some deliberately broken) and ``validate_call`` checks the relation's answer with Z3: an
accepted call's result satisfies the encoding and is the only one it allows, a rejected
call has no well-typed assignment. Ops whose relation is still missing are skipped, with the
reason, and show up in pytest's skip count.

The default run draws 15 calls per op (all ops in well under 90 s on two cores); the
``slow`` variant draws 300 (``pytest -m slow property_tests/test_z3_validation.py``), which
is what it takes to catch narrow mistakes such as a wrong ``ceil_mode`` rounding.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from relay.oracles.samplers import SAMPLERS, Sample
from relay.oracles.validate import validate_call
from relay.semantics.ops import OPS

EXAMPLES = 15
LONG_EXAMPLES = 300


def check_op(op_name: str, examples: int) -> None:
    op = OPS[op_name]
    if op.relation is None:
        pytest.skip(f"{op_name} has no relation yet")

    @settings(max_examples=examples, deadline=None)
    @given(sample=SAMPLERS[op_name]())
    def check(sample: Sample) -> None:
        assert len(sample.arg_types) == op.num_inputs
        problems = validate_call(op_name, sample.arg_types, sample.attrs)
        assert not problems, "\n".join(problems)

    check()


@pytest.mark.parametrize("op_name", sorted(OPS))
def test_relation_agrees_with_z3_encoding(op_name: str) -> None:
    check_op(op_name, EXAMPLES)


@pytest.mark.slow
@pytest.mark.parametrize("op_name", sorted(OPS))
def test_relation_agrees_with_z3_encoding_long(op_name: str) -> None:
    check_op(op_name, LONG_EXAMPLES)
