"""Registry-wide: every operator's attributes survive printing and parsing.

For each registered operator, calls drawn by its sampler (``oracles.samplers``: attribute
values of every kind the op takes, defaults and non-defaults, with argument types including
symbolic and ``?`` dimensions) are printed as ``@main`` of a module, parsed back, and must be
alpha-equal to the original, attributes included; printing the parsed module gives the same
text (printing is a fixpoint).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from relay.oracles.samplers import SAMPLERS, Sample
from relay.semantics.equality import alpha_equal
from relay.semantics.ops import OPS
from relay.semantics.syntax import Call, Function, GlobalVar, IRModule, Op, Var
from relay.semantics.text.parser import parse
from relay.semantics.text.printer import astext


def module_of(name: str, sample: Sample) -> IRModule:
    params = tuple(Var(f"p{i}", t) for i, t in enumerate(sample.arg_types))
    call = Call(Op(name), params, sample.attrs)
    return IRModule({GlobalVar("main"): Function(params, call)})


@pytest.mark.parametrize("name", sorted(OPS))
def test_attributes_round_trip(name: str) -> None:
    @settings(max_examples=10, deadline=None)
    @given(SAMPLERS[name]())
    def check(sample: Sample) -> None:
        mod = module_of(name, sample)
        text = astext(mod)
        back = parse(text)
        assert alpha_equal(mod, back), text
        assert astext(back) == text
        call = back["main"].body
        assert isinstance(call, Call) and call.attrs == sample.attrs

    check()
