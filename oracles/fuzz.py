"""Differential fuzzing of passes: ``relay fuzz``.

A campaign runs each pass on generated well-typed programs under the oracle instrument
(``pass_oracle``) and stops that pass at its first failure, after Hypothesis has shrunk the
failing program. The programs come from both generators: dataflow graphs of registered
operators (``gen_dataflow``) and whole modules with ADTs, closures, references and recursion
(``gen_modules``), each with arguments for ``@main``.

**Budgets.** ``max_examples`` bounds each pass; ``time_budget`` bounds the whole campaign,
shared evenly among the passes (with ``jobs`` processes, each process's share of the wall
time). Whichever comes first ends a pass; shrinking counts against the same budget, and when
it runs out mid-shrink the smallest failing program found so far is reported. A per-example
timeout catches a pass that loops.

**Reports.** A failure is written to ``<out>/<pass>-<n>.relay``: a valid Relay file whose
header comment is the report (the pass, the verdict, the inputs, expected and actual values,
the command that reproduces it) and whose ``// ARG-JSON:`` lines hold the arguments, so that
``relay fuzz --pass SPEC --replay FILE`` re-runs the same check.

**Loading passes.** A ``--pass`` spec is a built-in pass's command-line name
(``fold-constant``) or class name (``FoldConstant``), ``opt-level-0`` ... ``opt-level-3``, or
``module:attribute`` / ``path/to/file.py:attribute`` naming a ``Pass`` object, a ``Pass``
subclass, or any callable from ``IRModule`` to ``IRModule``.
"""

from __future__ import annotations

import importlib
import importlib.util
import math
import multiprocessing
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase

from relay.compiler import passes as builtin
from relay.compiler.pass_manager import BUILTIN_PASSES, Pass, as_pass, flatten
from relay.semantics.syntax import IRModule
from relay.semantics.text.printer import astext
from relay.semantics.values import Value

from .gen_args import values
from .gen_dataflow import OP_ORDER, dataflow_programs
from .gen_modules import modules
from .pass_oracle import DEFAULT_FUEL, Verdict, check_pass
from .reports import read_case, replay, report_text

REDUCTION_LENGTH = 64
"""The float tolerance of the value comparison, in terms combined per element (see
``compare.py``): passes may reassociate, and errors compound through a generated graph."""

EXAMPLE_TIMEOUT = 20.0
"""Seconds one example (the pass and the checks) may take before it counts as a loop."""


class PassLoadError(Exception):
    """A ``--pass`` spec that names nothing loadable (bad usage)."""


@dataclass(frozen=True)
class LoadedPass:
    """A pass to fuzz: how it was named, its report name, and the pass object."""

    spec: str
    label: str
    pass_: Pass


def builtin_names() -> list[str]:
    """The command-line names of the built-in passes and pipelines (the default campaign)."""
    return [*BUILTIN_PASSES, "opt-level-3"]


def load_pass(spec: str) -> LoadedPass:
    """The pass ``spec`` names (see the module docstring); ``PassLoadError`` if none."""
    by_class = {cls.__name__: name for name, cls in BUILTIN_PASSES.items()}
    if spec in BUILTIN_PASSES or spec in by_class:
        name = by_class.get(spec, spec)
        return LoadedPass(spec, name, BUILTIN_PASSES[name]())
    if spec.startswith("opt-level-") and spec[len("opt-level-") :] in ("0", "1", "2", "3"):
        return LoadedPass(spec, spec, builtin.pipeline(int(spec[-1])))
    if ":" not in spec:
        known = ", ".join(builtin_names())
        raise PassLoadError(f"unknown pass {spec!r} (built-in passes: {known}; or MODULE:ATTR)")
    where, _, attr = spec.rpartition(":")
    if not where or not attr:
        raise PassLoadError(f"expected MODULE:ATTRIBUTE or FILE.py:ATTRIBUTE, found {spec!r}")
    module = _load_module(where)
    try:
        obj = getattr(module, attr)
    except AttributeError:
        raise PassLoadError(f"{where} has no attribute {attr!r}") from None
    if isinstance(obj, type) and issubclass(obj, Pass):
        try:
            obj = obj()
        except TypeError as err:
            raise PassLoadError(f"cannot instantiate pass class {attr}: {err}") from None
    try:
        p = as_pass(obj, attr)
    except TypeError as err:
        raise PassLoadError(str(err)) from None
    return LoadedPass(spec, attr, p)


def _load_module(where: str) -> object:
    try:
        if where.endswith(".py") or os.sep in where:
            path = Path(where)
            if not path.is_file():
                raise PassLoadError(f"no such file: {where}")
            name = f"relay_fuzz_plugin_{abs(hash(str(path.resolve())))}"
            spec = importlib.util.spec_from_file_location(name, path)
            if spec is None or spec.loader is None:
                raise PassLoadError(f"cannot load {where} as a Python module")
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            spec.loader.exec_module(module)
            return module
        return importlib.import_module(where)
    except PassLoadError:
        raise
    except Exception as err:  # the plugin's own import failed
        raise PassLoadError(f"cannot import {where}: {type(err).__name__}: {err}") from None


# ---------------------------------------------------------------------------------------------
# The programs


@dataclass(frozen=True)
class Case:
    """A program and the arguments of its ``@main``."""

    mod: IRModule
    args: tuple[Value, ...]

    def __repr__(self) -> str:
        return "Case(\n" + astext(self.mod) + "\n)"


def cases(max_nodes: int = 12, focus: Sequence[str] = ()) -> st.SearchStrategy[Case]:
    """Programs with arguments for ``@main``: dataflow programs of up to ``max_nodes`` operator
    calls and whole modules, half and half; for a pass with ``focus`` operators, three in four
    are dataflow programs that use them. Dataflow programs use a small random subset of the
    operators (swarm testing: a few operators, each used several times, find more bugs than
    every operator once). Arguments are ``gen_args``' default ones, which keep values finite:
    with special values (NaN, infinities, the largest floats) a correct rewrite that computes
    in another order overflows where the input did not, beyond any tolerance. Shrinks towards
    a small dataflow program of the first operators."""
    focus = tuple(n for n in focus if n in OP_ORDER)
    swarm = st.lists(st.sampled_from(OP_ORDER), min_size=1, max_size=6, unique=True)
    choice = st.integers(0, 3)

    @st.composite
    def build(draw: st.DrawFn) -> Case:
        kind: int = draw(choice)
        if kind == 3 or (kind == 2 and not focus):
            case = draw(modules())
            return Case(case.mod, tuple(draw(values(t)) for t in case.param_types))
        ops: list[str] = draw(swarm)
        if focus and kind != 2:
            ops = list(dict.fromkeys([*focus, *ops]))
        program = draw(dataflow_programs(max_nodes=max_nodes, ops=ops))
        return Case(program.mod, tuple(draw(program.arguments())))

    return build()


# ---------------------------------------------------------------------------------------------
# Report files


# ---------------------------------------------------------------------------------------------
# Campaigns


@dataclass
class PassResult:
    """How one pass fared: examples run, seconds, and the failure (verdict and file)."""

    label: str
    examples: int = 0
    seconds: float = 0.0
    first_failure: tuple[int, float] | None = None
    """The examples run and seconds spent until the first failure, before shrinking."""
    verdict: Verdict | None = None
    path: str | None = None
    error: str | None = None


class _Stop(BaseException):
    """Ends a pass's campaign when its time is up (a BaseException: Hypothesis lets it
    through instead of treating it as a failure to shrink)."""


@dataclass
class _State:
    deadline: float
    examples: int = 0
    best: tuple[Case, Verdict] | None = None
    first_found_after: int = 0
    first_found_at: float = 0.0
    last_progress: float = field(default_factory=time.monotonic)


def focus_of(p: Pass) -> list[str]:
    """The focus operators of ``p`` and, for a pipeline, of every pass in it."""
    return sorted({op for q in flatten([p]) for op in q.focus_ops})


def fuzz_pass(
    loaded: LoadedPass,
    *,
    max_examples: int,
    time_budget: float,
    seed: int,
    out_dir: Path,
    database: Path | None,
    progress: Callable[[str], None] | None = None,
    example_timeout: float = EXAMPLE_TIMEOUT,
    max_nodes: int = 12,
) -> PassResult:
    """Fuzz one pass; stop at the first failure (shrunk) or when a budget runs out."""
    start = time.monotonic()
    state = _State(deadline=start + time_budget)
    result = PassResult(loaded.label)

    def size(case: Case) -> int:
        return len(astext(case.mod))

    def body(case: Case) -> None:
        now = time.monotonic()
        if now > state.deadline:
            raise _Stop()
        state.examples += 1
        if progress is not None and now - state.last_progress > 2.0:
            state.last_progress = now
            rate = state.examples / max(now - start, 1e-9)
            failures = 0 if state.best is None else 1
            progress(
                f"[{loaded.label}] {state.examples} examples, {failures} failures, {rate:.1f}/s"
            )
        verdict = check_pass(
            loaded.pass_,
            case.mod,
            case.args,
            timeout=min(example_timeout, max(state.deadline - now, 1.0)),
            fuel=DEFAULT_FUEL,
            reduction_length=REDUCTION_LENGTH,
        )
        if verdict is not None:
            if state.best is None:
                state.first_found_after = state.examples
                state.first_found_at = time.monotonic() - start
            if state.best is None or size(case) <= size(state.best[0]):
                state.best = (case, verdict)
            raise AssertionError(verdict.report())

    body.__name__ = f"fuzz_{loaded.label}".replace("-", "_").replace(".", "_")
    body._hypothesis_internal_add_digest = loaded.spec.encode()  # type: ignore[attr-defined]
    db = DirectoryBasedExampleDatabase(str(database)) if database is not None else None
    test = settings(
        max_examples=max_examples,
        deadline=None,
        database=db,
        derandomize=False,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
        print_blob=False,
    )(hypothesis_seed(seed)(given(cases(max_nodes, focus_of(loaded.pass_)))(body)))
    try:
        test()
    except _Stop:
        pass
    except AssertionError:
        pass  # the shrunk failure: state.best holds it
    except Exception as err:  # Hypothesis itself gave up (e.g. Flaky): report it
        if state.best is None:
            result.error = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
    result.examples = state.examples
    result.seconds = time.monotonic() - start
    if state.best is not None:
        case, verdict = state.best
        out_dir.mkdir(parents=True, exist_ok=True)
        n = 1
        while (out_dir / f"{loaded.label}-{n}.relay").exists():
            n += 1
        path = out_dir / f"{loaded.label}-{n}.relay"
        path.write_text(
            report_text(verdict, case, loaded.spec, str(path), examples=state.first_found_after),
            encoding="utf-8",
        )
        result.verdict = verdict
        result.path = str(path)
        result.first_failure = (state.first_found_after, state.first_found_at)
    return result


def _fuzz_worker(job: tuple[str, dict[str, object]]) -> PassResult:
    spec, kwargs = job
    try:
        loaded = load_pass(spec)
    except PassLoadError as err:
        return PassResult(spec, error=str(err))
    return fuzz_pass(loaded, **kwargs)  # type: ignore[arg-type]


def run_campaign(
    specs: Sequence[str],
    *,
    max_examples: int,
    time_budget: float,
    seed: int,
    jobs: int,
    out_dir: Path,
    database: Path | None,
    progress: Callable[[str], None] | None = None,
) -> list[PassResult]:
    """Fuzz every pass of ``specs`` (already checked to load) and return their results, in
    order. The time budget is shared: each pass gets ``time_budget * jobs / len(specs)``
    seconds (at most ``time_budget``)."""
    share = min(time_budget, time_budget * max(1, jobs) / max(1, len(specs)))
    kwargs: dict[str, object] = {
        "max_examples": max_examples,
        "seed": seed,
        "out_dir": out_dir,
        "database": database,
    }
    if jobs <= 1 or len(specs) <= 1:
        results = []
        deadline = time.monotonic() + time_budget
        for i, spec in enumerate(specs):
            left = max(0.5, deadline - time.monotonic())
            budget = min(left, left / (len(specs) - i) if i else share)
            loaded = load_pass(spec)
            results.append(
                fuzz_pass(loaded, time_budget=budget, progress=progress, **kwargs)  # type: ignore[arg-type]
            )
            if progress is not None:
                progress(_summary_line(results[-1]))
        return results
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(min(jobs, len(specs))) as pool:
        jobs_list = [(spec, {**kwargs, "time_budget": share}) for spec in specs]
        results = []
        for r in pool.imap(_fuzz_worker, jobs_list):
            results.append(r)
            if progress is not None:
                progress(_summary_line(r))
        return results


def _summary_line(r: PassResult) -> str:
    rate = r.examples / r.seconds if r.seconds > 0 else math.inf
    status = "ok" if r.verdict is None and r.error is None else "FAILED"
    if r.error is not None:
        status = f"error: {r.error}"
    elif r.verdict is not None:
        status = f"FAILED ({r.verdict.kind}) -> {r.path}"
        if r.first_failure is not None:
            n, seconds = r.first_failure
            status += f" (first failure at example {n}, after {seconds:.1f} s)"
    return f"{r.label}: {r.examples} examples in {r.seconds:.1f} s ({rate:.1f}/s): {status}"


__all__ = [
    "Case",
    "LoadedPass",
    "PassLoadError",
    "PassResult",
    "builtin_names",
    "cases",
    "fuzz_pass",
    "load_pass",
    "read_case",
    "replay",
    "report_text",
    "run_campaign",
]
