"""The properties of the generator issue that ``test_gen_modules.py`` and
``test_gen_dataflow.py`` leave out, on both generators.

- **Spec and interpreter agree** on generated modules (``gen_modules.modules``, arguments from
  ``gen_args.arguments``) and on generated dataflow programs (their own ``arguments()``, in
  default mode and in special mode, with NaN, infinities, zeros and extreme integers). Both
  engines run with the same fuel. A value must equal the spec's under the tolerance policy
  (``compare.compare_values``: ``compare_arrays`` for tensors, structural over tuples,
  constructor values and references, aliasing included; closures are *not* compared, as that
  policy says). A ``RelayRuntimeError`` or ``UndefinedBehavior`` on one side must be the same
  class of failure on the other; ``Exhaustion`` on either side is inconclusive (the budgets
  differ: the spec is bounded by Python's stack, the interpreter by its allocation and depth
  budgets) and is counted, and most cases must be conclusive. ``Stuck`` is always a bug.
- **Inference is deterministic and invariant under alpha-renaming** on dataflow programs
  (``test_gen_modules.py`` checks it on modules): inferring twice gives the same global and
  node types, and renaming every variable to ``x`` leaves ``@main``'s type unchanged (and
  printing then parsing the renamed module gives the original back, up to alpha).
- **Z3 validation** of the operator calls in generated *modules* (``test_gen_dataflow.py``
  validates dataflow calls): each call whose argument types the checker infers as concrete
  tensors passes ``validate_call``.
- **Determinism of ``relay gen``**: the same seed gives the same programs, text for text.

The whole file takes about 30 s on two cores in the ``ci`` profile.
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from relay.cli_gen import program_text
from relay.compiler.ir import map_functions, rename_binders
from relay.interpreter import evaluate as interpret
from relay.oracles.compare import compare_values
from relay.oracles.gen_args import arguments
from relay.oracles.gen_dataflow import DataflowProgram, dataflow_programs
from relay.oracles.gen_modules import ModuleCase, modules
from relay.oracles.generate import generate
from relay.oracles.validate import validate_call
from relay.semantics.equality import alpha_equal
from relay.semantics.errors import (
    Exhaustion,
    RelayError,
    RelayRuntimeError,
    Stuck,
    UndefinedBehavior,
)
from relay.semantics.evaluation import Result
from relay.semantics.evaluation import evaluate as spec
from relay.semantics.syntax import (
    Call,
    Function,
    GlobalVar,
    IRModule,
    Op,
    TensorType,
    Var,
    post_order,
)
from relay.semantics.text.parser import parse
from relay.semantics.text.printer import astext, format_type
from relay.semantics.typing import infer_types
from relay.semantics.values import Value

FUEL = 20_000
"""The fuel both engines get (what ``test_gen_modules.py`` gives the spec)."""


def run(engine: str, mod: IRModule, args: tuple[Value, ...]) -> Result | RelayError:
    """The outcome of one engine: its result, or the failure it stopped with."""
    try:
        if engine == "spec":
            return spec(mod, args, fuel=FUEL)
        return interpret(mod, args, fuel=FUEL)
    except Stuck as err:
        raise AssertionError(f"{engine}: a well-typed program got stuck: {err}") from err
    except (RelayRuntimeError, UndefinedBehavior, Exhaustion) as err:
        return err


def check_agreement(mod: IRModule, args: tuple[Value, ...]) -> str:
    """Spec and interpreter agree on ``@main(args)`` (see the module docstring); returns the
    outcome: ``value``, the failure's class name, or ``inconclusive``."""
    expected = run("spec", mod, args)
    actual = run("interpreter", mod, args)
    if isinstance(expected, Exhaustion) or isinstance(actual, Exhaustion):
        return "inconclusive"
    if isinstance(expected, RelayError) or isinstance(actual, RelayError):
        assert type(expected) is type(actual), (
            f"the spec gave {describe(expected)}, the interpreter {describe(actual)}\n{astext(mod)}"
        )
        return type(expected).__name__
    difference = compare_values(
        expected.value,
        actual.value,
        expected_store=expected.store,
        actual_store=actual.store,
    )
    assert difference is None, f"the interpreter differs from the spec: {difference}\n{astext(mod)}"
    return "value"


def describe(outcome: Result | RelayError) -> str:
    if isinstance(outcome, RelayError):
        return f"{type(outcome).__name__} ({outcome.message})"
    return "a value"


def conclusive(outcomes: Counter[str]) -> None:
    """Most cases ended in a value or a failure both engines must agree on."""
    assert outcomes["inconclusive"] <= 0.2 * outcomes.total(), outcomes
    assert outcomes["value"] >= 0.5 * outcomes.total(), outcomes


# ---------------------------------------------------------------------------------------------
# Spec and interpreter agree


def test_spec_and_interpreter_agree_on_generated_modules() -> None:
    outcomes: Counter[str] = Counter()

    @settings(max_examples=100)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        case: ModuleCase = data.draw(modules(), label="module")
        args = data.draw(arguments(case.param_types), label="args")
        outcome = check_agreement(case.mod, args)
        event(f"outcome: {outcome}")
        outcomes[outcome] += 1

    check()
    conclusive(outcomes)


def test_spec_and_interpreter_agree_on_generated_dataflow_programs() -> None:
    outcomes: Counter[str] = Counter()

    @settings(max_examples=100)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        p: DataflowProgram = data.draw(dataflow_programs(), label="program")
        special = data.draw(st.booleans(), label="special")
        args = data.draw(p.arguments(special=special), label="args")
        outcome = check_agreement(p.mod, args)
        event(f"outcome ({'special' if special else 'default'} arguments): {outcome}")
        outcomes[outcome] += 1

    check()
    conclusive(outcomes)


def test_spec_and_interpreter_agree_on_medium_dataflow_programs() -> None:
    outcomes: Counter[str] = Counter()

    @settings(max_examples=5)
    @given(data=st.data())
    def check(data: st.DataObject) -> None:
        p = data.draw(dataflow_programs(min_nodes=50, max_nodes=200), label="program")
        outcomes[check_agreement(p.mod, data.draw(p.arguments(), label="args"))] += 1

    check()
    assert outcomes["inconclusive"] < outcomes.total(), outcomes


# ---------------------------------------------------------------------------------------------
# Inference on dataflow programs


def renamed(mod: IRModule) -> IRModule:
    """``mod`` with every variable bound in it called ``x`` (shared nodes stay shared)."""

    def one(_: GlobalVar, fn: Function) -> Function:
        out = rename_binders(fn, lambda v: Var("x", v.type_annotation))
        assert isinstance(out, Function)
        return out

    return map_functions(mod, one)


@settings(max_examples=50)
@given(p=dataflow_programs())
def test_dataflow_inference_is_deterministic_and_invariant_under_renaming(
    p: DataflowProgram,
) -> None:
    first = infer_types(p.mod)
    second = infer_types(p.mod)
    assert first.globals.keys() == second.globals.keys()
    for name, t in first.globals.items():
        assert alpha_equal(t, second.globals[name]), name
    assert first.expr_types.keys() == second.expr_types.keys()
    for key, t in first.expr_types.items():
        assert alpha_equal(t, second.expr_types[key])

    other = renamed(p.mod)
    assert other is not p.mod and alpha_equal(other, p.mod)
    assert all(v.name_hint == "x" for v in other["main"].params)
    other_types = infer_types(other)
    for name, t in first.globals.items():
        assert alpha_equal(t, other_types.globals[name]), (
            f"@{name}: {format_type(t)} became {format_type(other_types.globals[name])}"
        )
    assert alpha_equal(parse(astext(other)), p.mod)


# ---------------------------------------------------------------------------------------------
# Z3 validation of the calls in generated modules


@settings(max_examples=40)
@given(case=modules())
def test_operator_calls_in_generated_modules_pass_z3_validation(case: ModuleCase) -> None:
    info = infer_types(case.mod)
    validated = 0
    for fn in case.mod.functions.values():
        for e in post_order(fn):
            if isinstance(e, Call) and isinstance(e.op, Op):
                arg_types = [info.type_of(a) for a in e.args]
                if all(isinstance(t, TensorType) for t in arg_types):
                    problems = validate_call(e.op.name, arg_types, e.attrs)
                    assert not problems, f"{e.op.name}: " + "\n".join(problems)
                    validated += 1
    event(f"calls validated: {min(validated, 5)}{'+' if validated >= 5 else ''}")


# ---------------------------------------------------------------------------------------------
# relay gen is deterministic


@pytest.mark.parametrize(
    ("seed", "kind"), [(0, "mixed"), (1, "modules"), (2, "dataflow"), (2**32 + 5, "mixed")]
)
def test_relay_gen_gives_the_same_programs_for_the_same_seed(seed: int, kind: str) -> None:
    # Not a Hypothesis test: ``generate`` runs a Hypothesis test of its own, and nesting them
    # is a health-check failure.
    def texts() -> list[str]:
        return [program_text(p, count=6, seed=seed, kind=kind) for p in generate(6, seed, kind)]

    first = texts()
    assert texts() == first
    assert len(set(first)) >= 3  # not one program six times
