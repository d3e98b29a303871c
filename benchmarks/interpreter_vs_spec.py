"""The interpreter against the big-step spec, on every program both can run.

Programs: each global of ``tests/programs/*.relay`` and ``examples/*.relay`` whose parameters
are tensors (or tuples of them), on random arguments; every case of the conformance corpus
``tests/conformance/*.relay`` (with its own arguments and fuel), if present; and a few scaled
programs (a list recursion, a let-chain, a graph with sharing) at sizes the spec can still
follow. For each, the best time of each engine (the interpreter's with its module already
compiled, as the oracle uses it; the compile time is shown apart) and the ratio spec /
interpreter. Both engines must agree on the outcome, or the script says so. Run:

    python benchmarks/interpreter_vs_spec.py [--repeat 3] [--min-time 0.05]
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

import relay
from relay.interpreter import compile_module
from relay.interpreter import evaluate as interpret
from relay.semantics import syntax as s
from relay.semantics.errors import RelayError
from relay.semantics.evaluation import evaluate as spec
from relay.semantics.values import TensorValue, TupleValue, Value, format_value

ROOT = Path(__file__).resolve().parent.parent

Case = tuple[str, s.IRModule, str, list[Value], int]
"""name, module, entry, arguments, fuel."""


def random_value(t: s.Type, rng: np.random.Generator) -> Value | None:
    match t:
        case s.TensorType(shape, dtype) if all(isinstance(d, int) for d in shape):
            dims = tuple(d for d in shape if isinstance(d, int))
            if dtype == "bool":
                return TensorValue(rng.integers(0, 2, size=dims).astype(dtype))
            if dtype.startswith(("int", "uint")):
                return TensorValue(np.asarray(rng.integers(0, 5, size=dims), dtype=dtype))
            return TensorValue(np.asarray(rng.uniform(0.5, 2.0, size=dims), dtype=dtype))
        case s.TupleType(fields):
            values = [random_value(f, rng) for f in fields]
            if any(v is None for v in values):
                return None
            return TupleValue(tuple(v for v in values if v is not None))
    return None


def program_cases() -> list[Case]:
    rng = np.random.default_rng(0)
    cases: list[Case] = []
    paths = sorted((ROOT / "tests/programs").glob("*.relay")) + sorted(
        (ROOT / "examples").glob("*.relay")
    )
    for path in paths:
        mod = relay.parse(path.read_text(), str(path))
        types = relay.infer_types(mod)
        for name in types.globals:
            fn_type = types.global_type(name)
            assert isinstance(fn_type, s.FuncType)
            args = [random_value(t, rng) for t in fn_type.arg_types]
            if fn_type.type_params or any(a is None for a in args):
                continue
            values = [a for a in args if a is not None]
            cases.append((f"{path.relative_to(ROOT)}@{name}", mod, name, values, 1_000_000))
    return cases


def conformance_cases() -> list[Case]:
    folder = ROOT / "tests/conformance"
    try:
        from relay.oracles.corpus import corpus, load_case
    except ImportError:
        return []
    cases: list[Case] = []
    for path in corpus(folder):
        case = load_case(path)
        cases.append((str(path.relative_to(ROOT)), case.module, case.entry, list(case.args),
                      case.fuel))  # fmt: skip
    return cases


LIST = """#[version = "0.0.5"]
type List[A] { Cons(A, List[A]), Nil }
def @build(%n: float32) -> List[float32] {
  if (%n == 0f) { Nil } else { Cons(%n, @build(%n - 1f)) }
}
def @sum(%xs: List[float32]) -> float32 {
  match (%xs) { Cons(%x, %rest) => %x + @sum(%rest), Nil => 0f }
}
def @main(%n: float32) -> float32 { @sum(@build(%n)) }
"""


def scaled_cases() -> list[Case]:
    x = s.Var("x", s.TensorType((4, 4), "float32"))
    ones = TensorValue(np.ones((4, 4), np.float32))
    chain = [x] + [s.Var(f"v{i}") for i in range(2000)]
    body: s.Expr = chain[-1]
    for i in reversed(range(2000)):
        body = s.Let(chain[i + 1], s.Call(s.Op("add"), (chain[i], x)), body)
    let_chain = s.IRModule({s.GlobalVar("main"): s.Function((x,), body)})
    nodes: list[s.Expr] = [x]
    for i in range(2000):
        nodes.append(s.Call(s.Op("multiply"), (nodes[i // 2], nodes[-1])))
    dag = s.IRModule({s.GlobalVar("main"): s.Function((x,), nodes[-1])})
    half = TensorValue(np.full((4, 4), 0.999, np.float32))
    return [
        ("scaled: list of 300, build and sum", relay.parse(LIST), "main",
         [TensorValue(np.asarray(300, np.float32))], 1_000_000),
        ("scaled: let-chain of 2000 adds", let_chain, "main", [ones], 1_000_000),
        ("scaled: DAG of 2000 shared multiplies", dag, "main", [half], 1_000_000),
    ]  # fmt: skip


def best(run: Callable[[], object], repeat: int, min_time: float) -> float:
    """The best time of ``repeat`` measurements, each looping ``run`` for ``min_time``."""
    times = []
    for _ in range(repeat):
        count, start = 0, time.perf_counter()
        while True:
            run()
            count += 1
            elapsed = time.perf_counter() - start
            if elapsed >= min_time:
                break
        times.append(elapsed / count)
    return min(times)


def describe(engine: Callable[[], object]) -> str:
    try:
        result = engine()
    except RelayError as err:
        return f"{type(err).__name__}: {err.message}"
    value = getattr(result, "value", None)
    store = getattr(result, "store", None)
    assert isinstance(value, Value)
    return format_value(value, store)


def run_case(
    mod: s.IRModule, entry: str, args: Sequence[Value], fuel: int, engine: str
) -> Callable[[], object]:
    def go() -> object:
        try:
            if engine == "spec":
                return spec(mod, args, entry=entry, fuel=fuel)
            return interpret(mod, args, entry=entry, fuel=fuel)
        except RelayError:
            return None

    return go


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--min-time", type=float, default=0.05)
    args = parser.parse_args()

    cases = program_cases() + conformance_cases() + scaled_cases()
    print(f"{'program':52s} {'spec':>10s} {'interp':>10s} {'ratio':>8s} {'compile':>9s}")
    ratios: list[float] = []
    totals = [0.0, 0.0]
    for name, mod, entry, values, fuel in cases:
        expected = describe(lambda: spec(mod, values, entry=entry, fuel=fuel))  # noqa: B023
        actual = describe(lambda: interpret(mod, values, entry=entry, fuel=fuel))  # noqa: B023
        start = time.perf_counter()
        compile_module(mod)
        t_compile = time.perf_counter() - start
        t_spec = best(run_case(mod, entry, values, fuel, "spec"), args.repeat, args.min_time)
        t_interp = best(run_case(mod, entry, values, fuel, "interp"), args.repeat, args.min_time)
        ratio = t_spec / t_interp
        ratios.append(ratio)
        totals[0] += t_spec
        totals[1] += t_interp
        flag = "" if expected == actual else "   DISAGREE: " + f"{expected!r} vs {actual!r}"
        print(f"{name[:52]:52s} {t_spec * 1e3:8.2f}ms {t_interp * 1e3:8.2f}ms {ratio:7.1f}x "
              f"{t_compile * 1e3:7.2f}ms{flag}")  # fmt: skip
    geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(
        f"{len(cases)} programs; spec / interpreter: geometric mean {geomean:.1f}x, "
        f"min {min(ratios):.1f}x, max {max(ratios):.1f}x; total time "
        f"{totals[0] * 1e3:.0f} ms vs {totals[1] * 1e3:.0f} ms "
        f"({totals[0] / totals[1]:.1f}x)"
    )


if __name__ == "__main__":
    main()
