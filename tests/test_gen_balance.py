"""The generators' distributions: operators drawn fairly (no index-0 bias) and steerable by
weight, constructs steerable and counted, values of every class, special values that catch a
rewrite exact only on ordinary values, and every value of ``@main``'s spine in its result."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from relay.cli_gen import all_constant, balance
from relay.oracles.builders.core import _positivity
from relay.oracles.compare import compare_values
from relay.oracles.gen_args import SPECIAL_CHANCE, argument_sets, element_values, uniform_index
from relay.oracles.gen_dataflow import OP_ORDER, DataflowProgram, dataflow_programs
from relay.oracles.gen_modules import CONSTRUCTS, ModuleCase, construct_counts, modules
from relay.oracles.generate import generate
from relay.semantics.evaluation import evaluate
from relay.semantics.syntax import Call, Let, Op, TensorType, Var, post_order
from relay.semantics.text.parser import parse
from relay.semantics.text.printer import astext
from relay.semantics.values import TensorValue, Value

GENERATE = settings(
    phases=[Phase.generate],
    database=None,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)


def op_calls() -> Counter[str]:
    """Calls per operator over 400 dataflow programs of ``relay gen --seed 0``."""
    calls: Counter[str] = Counter()
    for p in generate(400, 0, "dataflow"):
        for fn in p.mod.functions.values():
            for node in post_order(fn):
                if isinstance(node, Call) and isinstance(node.op, Op):
                    calls[node.op.name] += 1
    return calls


@pytest.mark.slow
def test_uniform_index_has_no_small_index_bias() -> None:
    seen: Counter[int] = Counter()

    @settings(GENERATE, max_examples=2000)
    @given(st.data())
    def draw(data: st.DataObject) -> None:
        seen[uniform_index(data.draw, 188)] += 1

    draw()
    # 2,000 draws over 188 options: about 10.6 each. Hypothesis's integers(0, 187) gives
    # index 0 and 187 several times that.
    assert max(seen[0], seen[1], seen[187]) < 35, seen.most_common(5)
    assert len(seen) > 170


@pytest.mark.slow
def test_dataflow_operators_are_balanced_and_often_all_constant() -> None:
    calls = op_calls()
    total = calls.total()
    expected = total / len(OP_ORDER)
    # The first operators of OP_ORDER (where Hypothesis's integers would put the mass) get
    # their fair share, not several times it.
    assert all(calls[name] < 2.5 * expected for name in OP_ORDER[:5]), calls.most_common(5)
    assert all(calls[name] > 0 for name in OP_ORDER)
    ratio, most, fewest = balance(calls)
    assert ratio < 6, (most, calls[most], fewest, calls[fewest])  # 400 programs: noisy


def test_op_weights_steer_and_zero_means_never() -> None:
    only_add = {name: 0.0 for name in OP_ORDER if name != "add"}
    no_negative = {"negative": 0.0}

    @settings(GENERATE, max_examples=30)
    @given(
        dataflow_programs(max_nodes=5, op_weights=only_add),
        dataflow_programs(max_nodes=5, op_weights=no_negative),
    )
    def check(a: DataflowProgram, b: DataflowProgram) -> None:
        assert {c.op_name for c in a.calls} == {"add"}
        assert "negative" not in {c.op_name for c in b.calls}

    check()


def test_all_constant_calls_are_counted() -> None:
    mod = parse("fn (%x: float32) { (add(1f, 2f), add(%x, 1f), concatenate((1f, 2f))) }")
    calls = [n for n in post_order(mod["main"]) if isinstance(n, Call) and isinstance(n.op, Op)]
    assert sorted(all_constant(c) for c in calls) == [False, True, True]


def test_construct_counts_name_what_a_module_uses() -> None:
    mod = parse(
        """
        def @f(%n: int32) -> int32 { if (less_equal(%n, 0)) { 0 } else { @f(subtract(%n, 1)) } }
        def @main(%x: int32) {
          let %r = ref(%x);
          let %g = fn (%y: int32) { add(%y, ref_read(%r)) };
          (%g(@f(%x)), 2)
        }
        """
    )
    counts = construct_counts(mod)
    assert set(counts) <= set(CONSTRUCTS)
    assert counts["let"] == 2 and counts["if"] == 1 and counts["closure"] == 1
    assert counts["ref"] == 2 and counts["tuple"] == 1 and counts["local-call"] == 1
    assert counts["global-call"] == 2  # @f inside itself, and in @main
    assert counts["recursion"] == 1 and counts["operator"] == 3
    assert counts["constant"] == 4 and "match" not in counts and "adt" not in counts


def test_construct_weights_zero_means_never() -> None:
    no_ops = {"operator": 0.0, "recursion": 0.0, "if": 0.0, "match": 0.0}

    @settings(GENERATE, max_examples=40)
    @given(modules(construct_weights=no_ops))
    def check(case: ModuleCase) -> None:
        counts = construct_counts(case.mod)
        assert counts["operator"] == 0 and counts["if"] == 0 and counts["match"] == 0

    check()


def test_main_returns_every_value_of_its_spine() -> None:
    @settings(GENERATE, max_examples=40)
    @given(modules())
    def check(case: ModuleCase) -> None:
        e = case.mod["main"].body
        while isinstance(e, Let):  # each global call and template call of the spine
            assert any(n is e.var for n in post_order(e.body)), astext(case.mod)
            e = e.body

    check()


def test_default_arguments_cover_the_value_classes() -> None:
    seen: set[str] = set()

    @settings(GENERATE, max_examples=300)
    @given(argument_sets((TensorType((8,), "float32"),), 1, special=False))
    def check(sets: tuple[tuple[Value, ...], ...]) -> None:
        [(v,)] = sets
        assert isinstance(v, TensorValue)
        d = v.data
        seen.update(name for name, hit in (
            ("negative", (d < 0).any()), ("zero", (d == 0).any()),
            ("fractional", (d != np.round(d)).any()), ("large", (np.abs(d) >= 64).any()),
            ("ties", len(set(d.tolist())) <= 2), ("nan", np.isnan(d).any()),
        ) if hit)  # fmt: skip

    check()
    assert seen == {"negative", "zero", "fractional", "large", "ties"}


def test_special_mode_is_drawn_about_one_time_in_five() -> None:
    special = Counter[bool]()

    @settings(GENERATE, max_examples=500)
    @given(argument_sets((TensorType((4,), "float32"),), 1, special=None))
    def check(sets: tuple[tuple[Value, ...], ...]) -> None:
        [(v,)] = sets
        assert isinstance(v, TensorValue)
        ordinary = np.array(element_values("float32"), dtype="float32")
        negative_zero = bool((np.signbit(v.data) & (v.data == 0)).any())
        special[not np.isin(v.data, ordinary).all() or negative_zero] += 1

    check()
    # Special mode draws ordinary values too, so this undercounts it a little.
    assert 0.3 / SPECIAL_CHANCE < special[True] / special.total() < 1.5 / SPECIAL_CHANCE


@pytest.mark.slow
def test_special_values_catch_x_times_zero_rewritten_to_zero() -> None:
    source = parse("def @main(%x: Tensor[(2), float32]) { multiply(%x, 0f) }")
    rewritten = parse("def @main(%x: Tensor[(2), float32]) { zeros_like(%x) }")

    def differs(sets: tuple[tuple[Value, ...], ...]) -> bool:
        return any(
            compare_values(evaluate(source, args).value, evaluate(rewritten, args).value)
            is not None
            for args in sets
        )

    t = TensorType((2,), "float32")
    ordinary = argument_sets((t,), 3, special=False)
    assert not any(differs(s) for s in [find(ordinary, lambda _: True)])  # -0.0 == 0.0
    found = find(argument_sets((t,), 3), differs, settings=settings(database=None))
    assert len(found) == 3  # three independent draws, one with NaN or an infinity


def test_abs_relu_sqrt_exp_and_squares_are_non_negative_whatever_the_input() -> None:
    t = TensorType((2,), "float32")
    x = Var("x", t)
    negative = ((False,),)
    for name in ("abs", "nn.relu", "sqrt", "exp"):
        assert _positivity(name, negative, None, (t,), t, [x]) == (True,), name
    assert _positivity("multiply", negative * 2, None, (t, t), t, [x, x]) == (True,)
    assert _positivity("multiply", negative * 2, None, (t, t), t, [x, Var("y", t)]) == (False,)
    assert _positivity("divide", ((True,), (True,)), None, (t, t), t, [x, x]) == (False,)


def test_integer_divisor_parameters_are_marked_nonzero() -> None:
    @settings(GENERATE, max_examples=40)
    @given(dataflow_programs(max_nodes=4, ops=["floor_divide", "trunc_mod"]))
    def check(p: DataflowProgram) -> None:
        params = list(p.params)
        for c in p.calls:
            divisor, t = c.call.args[1], c.arg_types[1]
            assert isinstance(t, TensorType)
            if isinstance(divisor, Var) and not t.dtype.startswith("float"):
                assert p.nonzero[params.index(divisor)]

    check()
