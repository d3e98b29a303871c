"""Dataflow program generator: throughput, outcomes, and how often values stay finite.

For small programs (up to 20 operator calls) and medium ones (up to 200), it generates
programs with ``oracles.gen_dataflow.dataflow_programs`` and default arguments with
``oracles.gen_args.arguments``, and checks each one as ``property_tests/test_gen_dataflow.py``
does: type inference (the inferred type of ``@main`` must be the predicted one), the spec
evaluator with a derivation (every operator call's value must have its type), and print then
parse (alpha-equal, printing a fixpoint). It prints, per size:

- programs generated and checked per second of CPU time on one core (the script runs on
  one; CPU time, from ``time.process_time``, does not count time other processes take from
  a busy machine), with the split between generating and checking and the mean program
  size;
- the outcomes: a value, undefined behaviour, exhaustion;
- the fraction of programs whose values (every operator call's result, hence also the
  result of ``@main``) are all finite, among all programs and among those that evaluated;
- for small programs, Z3 validations of operator calls per second (the first three calls of
  each program);
- whole modules generated per second of CPU time (``--modules N``, the same way);
- coverage over 1,000 programs of each kind (``--coverage N``): the programs ``relay gen
  --count 2000 --kind mixed --seed 0`` makes (1,000 whole modules and 1,000 dataflow
  programs, alternating), counted as ``relay gen --stats`` counts them; every feature of
  ``gen_modules.FEATURES`` and ``EXTRA_FEATURES`` and every operator of the registry (read at
  run time) must occur, and any that does not is printed by name (the script then exits with
  status 1). Also printed from them: the operator balance (most calls of an operator over the
  fewest; goal at most 3), the fraction of calls whose arguments are all constants, and the
  fraction of modules whose every ``let`` in ``@main`` (global calls included) has its value
  reach the result (its variable used; ``let %_ = ...`` sequencing excluded), in ``@main`` and
  in every function.

How generation is driven: a ``@given(st.data())`` function, run once with
``max_examples=N``, ``phases=[Phase.generate]`` (no shrinking, no database replay) and
``derandomize=True`` (the same programs every run); it draws one program and its arguments
per example and times the draws and the checks separately. This is the way tests consume the
strategies, so the figures include Hypothesis's own overhead, and it uses no private
Hypothesis API nor ``.example()`` (which is meant for the REPL and warns when used in code).

    python benchmarks/generator.py [--small N] [--medium N] [--no-z3] [--coverage N] [--seed S]
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from dataclasses import dataclass, field

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from relay.cli_gen import Stats, balance
from relay.oracles.gen_dataflow import DataflowProgram, dataflow_programs
from relay.oracles.gen_modules import EXTRA_FEATURES, FEATURES, modules
from relay.oracles.generate import generate
from relay.oracles.validate import validate_call
from relay.semantics.equality import alpha_equal
from relay.semantics.errors import Exhaustion, UndefinedBehavior
from relay.semantics.evaluation import Derivation, evaluate
from relay.semantics.ops import OPS
from relay.semantics.syntax import Function, FuncType, Let, Var, post_order
from relay.semantics.text.parser import parse
from relay.semantics.text.printer import astext
from relay.semantics.typing import infer_types
from relay.semantics.values import TensorValue, TupleValue, Value


@dataclass
class Tally:
    """What one run measured."""

    programs: int = 0
    nodes: int = 0
    generate_s: float = 0.0
    check_s: float = 0.0
    outcomes: Counter[str] = field(default_factory=Counter)
    finite: int = 0
    z3_calls: int = 0
    z3_s: float = 0.0


def finite(v: Value) -> bool:
    """Whether every element of a tensor (or of every tensor of a tuple) is finite."""
    if isinstance(v, TensorValue):
        return v.data.dtype.kind != "f" or bool(np.isfinite(v.data).all())
    if isinstance(v, TupleValue):
        return all(finite(f) for f in v.fields)
    return True


def op_values(d: Derivation | None) -> list[Value]:
    """The values of every ``E-Call-Op`` node of a derivation."""
    out: list[Value] = []
    stack = [d] if d is not None else []
    while stack:
        node = stack.pop()
        if node.rule == "E-Call-Op" and node.value is not None:
            out.append(node.value)
        stack.extend(node.premises)
    return out


def check(p: DataflowProgram, args: tuple[Value, ...], tally: Tally) -> None:
    """Type, evaluate and round-trip one program, recording the outcome."""
    info = infer_types(p.mod)
    assert info.global_type("main") == FuncType(p.param_types, p.result_type)
    try:
        result = evaluate(p.mod, args, explain=True)
    except UndefinedBehavior:
        tally.outcomes["undefined behaviour"] += 1
    except Exhaustion:
        tally.outcomes["exhaustion"] += 1
    else:
        tally.outcomes["value"] += 1
        tally.finite += all(finite(v) for v in op_values(result.derivation))
    text = astext(p.mod)
    again = parse(text)
    assert alpha_equal(p.mod, again) and astext(again) == text


def run(max_nodes: int, count: int, z3: bool) -> Tally:
    """Generate and check ``count`` programs of at most ``max_nodes`` calls."""
    tally = Tally()

    @settings(
        max_examples=count,
        phases=[Phase.generate],
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],  # a benchmark, not a test
    )
    @given(data=st.data())
    def one(data: st.DataObject) -> None:
        start = time.process_time()
        p = data.draw(dataflow_programs(max_nodes=max_nodes))
        args = data.draw(p.arguments())
        middle = time.process_time()
        check(p, args, tally)
        end = time.process_time()
        tally.programs += 1
        tally.nodes += len(p.calls)
        tally.generate_s += middle - start
        tally.check_s += end - middle
        if z3:
            for c in p.calls[:3]:
                begin = time.process_time()
                problems = validate_call(c.op_name, c.arg_types, c.call.attrs)
                tally.z3_s += time.process_time() - begin
                tally.z3_calls += 1
                assert not problems, problems

    one()
    return tally


def report(name: str, max_nodes: int, t: Tally) -> None:
    total = t.generate_s + t.check_s
    evaluated = t.outcomes["value"]
    print(f"{name} programs (at most {max_nodes} calls, mean {t.nodes / t.programs:.1f}):")
    print(
        f"  {t.programs / total:7.1f} programs/s generated and checked on one core "
        f"({t.programs / t.generate_s:.1f}/s generating alone, {t.programs / t.check_s:.1f}/s "
        f"checking alone; checking takes {t.check_s / t.generate_s:.2f}x generating)"
    )
    shown = ", ".join(f"{k} {v / t.programs:.1%}" for k, v in t.outcomes.most_common())
    print(f"  outcomes: {shown}")
    print(
        f"  all values finite: {t.finite / t.programs:.1%} of programs, "
        f"{t.finite / max(evaluated, 1):.1%} of those that evaluated"
    )
    if t.z3_calls:
        print(f"  Z3 validation: {t.z3_calls / t.z3_s:.1f} calls/s ({t.z3_calls} calls)")


def unused_lets(fn: Function) -> int:
    """The ``let``s of ``fn`` (not ``let %_``) whose variable its body never uses."""
    out = 0
    for node in post_order(fn):
        if isinstance(node, Let) and node.var.name_hint != "_":
            out += not any(n is node.var for n in post_order(node.body) if isinstance(n, Var))
    return out


def module_speed(count: int) -> float:
    """Whole modules generated per second of CPU time (a ``@given(st.data())`` run)."""
    elapsed = [0.0]

    @settings(
        max_examples=count,
        phases=[Phase.generate],
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(data=st.data())
    def one(data: st.DataObject) -> None:
        start = time.process_time()
        data.draw(modules())
        elapsed[0] += time.process_time() - start

    one()
    return count / elapsed[0]


def coverage(count: int, seed: int) -> bool:
    """Print the feature and operator coverage of ``count`` programs of each kind (``relay gen
    --count 2*count --kind mixed --seed seed``); whether everything occurred."""
    start = time.process_time()
    stats = Stats()
    module_count = main_reached = all_reached = 0
    for program in generate(2 * count, seed, "mixed"):
        stats.add(program)
        if program.kind == "module":
            module_count += 1
            main_reached += unused_lets(program.mod["main"]) == 0
            all_reached += all(unused_lets(fn) == 0 for fn in program.mod.functions.values())
    elapsed = time.process_time() - start
    missing_features, missing_ops = stats.missing()
    all_features = (*FEATURES, *EXTRA_FEATURES)
    kinds = ", ".join(f"{len(v)} {k}" for k, v in sorted(stats.sizes.items()))
    print(f"coverage over {stats.programs} programs ({kinds}; relay gen --count {2 * count} "
          f"--seed {seed}, {elapsed:.1f} s of CPU to generate and count):")  # fmt: skip
    print(f"  features: {len(all_features) - len(missing_features)} of {len(all_features)} "
          f"({len(FEATURES)} TVM + {len(EXTRA_FEATURES)} extra); the rarest: "
          + ", ".join(f"{f} {stats.features[f]}" for f in
                      sorted(all_features, key=lambda f: stats.features[f])[:3]))  # fmt: skip
    drawn = [name for name in OPS if stats.ops[name]]
    rarest = sorted(OPS, key=lambda name: (stats.ops[name], name))[:3]
    print(f"  operators: {len(drawn)} of the {len(OPS)} registered, {stats.ops.total()} calls; "
          "the rarest: " + ", ".join(f"{n} {stats.ops[n]}" for n in rarest))  # fmt: skip
    ratio, most, fewest = balance(stats.ops)
    print(f"  operator balance: max/min calls {ratio:.2f} (most: {most} {stats.ops[most]}, "
          f"fewest: {fewest} {stats.ops[fewest]}; goal <= 3)")  # fmt: skip
    print(f"  all-constant calls: {stats.constant_calls / max(stats.ops.total(), 1):.1%} of "
          f"the calls (goal 5-10%)")  # fmt: skip
    if module_count:
        in_main, everywhere = main_reached / module_count, all_reached / module_count
        print(f"  every let's value reaches the result: {in_main:.1%} of the modules in @main, "
              f"{everywhere:.1%} in every function")  # fmt: skip
    if missing_features:
        print(f"  MISSING features: {', '.join(missing_features)}")
    if missing_ops:
        print(f"  MISSING operators: {', '.join(missing_ops)}")
    if not missing_features and not missing_ops:
        print("  every feature and every registered operator occurred")
    return not missing_features and not missing_ops


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", type=int, default=300, help="small programs to generate")
    parser.add_argument("--medium", type=int, default=60, help="medium programs to generate")
    parser.add_argument("--no-z3", action="store_true", help="skip the Z3 validation figure")
    parser.add_argument(
        "--coverage",
        type=int,
        default=1000,
        help="programs of each kind to count coverage over (default 1000; 0: skip)",
    )
    parser.add_argument("--seed", type=int, default=0, help="the relay gen seed for coverage")
    parser.add_argument("--modules", type=int, default=200, help="modules to time (0: skip)")
    args = parser.parse_args()
    small = run(20, args.small, z3=not args.no_z3)
    medium = run(200, args.medium, z3=False)
    report("small", 20, small)
    report("medium", 200, medium)
    per_node_small = (small.generate_s + small.check_s) / small.nodes
    per_node_medium = (medium.generate_s + medium.check_s) / medium.nodes
    print(f"time per node, medium / small: {per_node_medium / per_node_small:.2f}x")
    if args.modules > 0:
        print(f"whole modules: {module_speed(args.modules):.1f} generated/s on one core")
    if args.coverage > 0 and not coverage(args.coverage, args.seed):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
