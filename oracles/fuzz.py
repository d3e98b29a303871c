"""Differential fuzzing of passes: ``relay fuzz``.

A campaign runs each pass on generated well-typed programs under the oracle instrument
(``pass_oracle``) and stops that pass at its first failure, after Hypothesis has shrunk the
failing program. The programs come from both generators: dataflow graphs of registered
operators (``gen_dataflow``) and whole modules with ADTs, closures, references and recursion
(``gen_modules``), each with arguments for ``@main``.

**Footprint.** Before generating, the campaign learns what the pass touches
(``oracles.footprint``): it runs the pass alone (no evaluation) on a corpus of small motifs
(every operator alone, operators applied to other operators' results, operators with special
constant operands, each language construct around an operator, the shapes in which effects
interfere; then pairs of every operator while its budget lasts) and keeps the motifs the pass
changed. Those motifs are checked as learning finds them (``learn(found=)``), each, and
``VARIANTS`` other draws of it (``Motif.redraw``), on ``ARG_DRAWS`` drawn argument tuples and
``TRIGGER_SPECIAL_DRAWS`` in special mode, within
``TRIGGER_TIMEOUT`` seconds (a pass that loops on a motif is reported in seconds); then
the generated stream is steered towards what the pass touched: the operators it rewrote (and
the ones its rewrites introduce) are forced into the operator subsets of dataflow programs and
weighted up in the generators, and the constructs it touched are weighted up in whole modules.
The campaign runs in rounds of ``ROUND_EXAMPLES`` examples; every program the pass changes is
diffed structurally (operators and constructs that disappear, appear or move) and the next
round's weights add what the diffs showed; ``hypothesis.target`` on the diff size steers within
a round. ``footprint=False`` (``relay fuzz --no-footprint``) turns all of this off.

**Unchanged programs.** A program the pass returns alpha-equal to its input is not evaluated:
it cannot fail the value check, and its types are the input's.

**Arguments.** Each program is checked on ``ARG_DRAWS`` argument tuples (compiled once, run
``ARG_DRAWS`` times), so both branches of its control flow get a chance; each tuple is in
special mode (NaN, infinities, -0.0, subnormals, integer extremes) one time in five; where it
holds values of huge magnitude the oracle compares only NaN and infinities of float results
(``pass_oracle.extreme``).

**Seeds.** What a seed draws does not depend on what the process imported (``stable``).

**Budgets.** ``max_examples`` bounds each pass (``None``: no bound); ``time_budget`` bounds the
whole campaign, shared evenly among the passes (with ``jobs`` workers, the passes run as
shards on them: ``oracles.campaign``). Whichever comes first ends a pass; shrinking counts
against the same budget, and when it runs out mid-shrink the smallest failing program found so
far is reported. A per-example timeout catches a pass that loops.

**Database.** With a database (a directory or a Redis server: ``campaign_db``), a rerun
replays the failures it holds first and, if a campaign was stopped while shrinking (or
killed), goes on shrinking from the smallest program found so far. The steering weights in
force when a failure was found are kept in the database too, so that the rerun draws the same
programs from the same choices. A failure of a motif check is not in the database (Hypothesis
did not draw it): its report is written as soon as it is found.

**Reduction.** Before its report is written, the failure is reduced (``reduce.reduce_case``:
the program itself made smaller while the pass still fails the same way), within
``REDUCE_SECONDS`` and the campaign's end; when the first failure is found, shrinking's
deadline moves that much earlier (at most half the time left) to leave the reducer its time.

**Reports.** A failure is written to ``<out>/<pass>-<n>.relay`` by ``reports.write_report``:
once per distinct failure (its ``failure-key``, a hash of the program and the verdict kind:
the same failure found again is not written twice), to a temporary name linked into place,
never overwriting. It is a valid Relay file whose header comment is the report (the pass, the
verdict, the inputs, expected and actual values, the command that reproduces it) and whose
``// ARG-JSON:`` lines hold the arguments, so that ``relay fuzz --pass SPEC --replay FILE``
re-runs the same check.

**Loading passes.** A ``--pass`` spec is a built-in pass's command-line name
(``fold-constant``) or class name (``FoldConstant``), ``opt-level-0`` ... ``opt-level-3``, or
``module:attribute`` / ``path/to/file.py:attribute`` naming a ``Pass`` object, a ``Pass``
subclass, or any callable from ``IRModule`` to ``IRModule``.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import json
import math
import os
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, settings, target
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.database import ExampleDatabase
from hypothesis.errors import InvalidArgument

from relay.compiler import passes as builtin
from relay.compiler.pass_manager import (
    BUILTIN_PASSES,
    Pass,
    as_pass,
    flatten,
)
from relay.semantics.syntax import IRModule
from relay.semantics.text.printer import astext
from relay.semantics.values import Value

from .campaign_db import (
    ResumingDatabase,
    forget_steering,
    open_database,
    save_steering,
    saved_steerings,
)
from .footprint import Footprint, Motif, draws, learn, motif_corpus
from .gen_dataflow import OP_ORDER, dataflow_programs
from .gen_modules import modules
from .pass_oracle import (
    DEFAULT_FUEL,
    STOP_GRACE_SECONDS,
    OracleInstrument,
    Verdict,
    reset_time_limit,
    run_checked,
    stop_at,
)
from .reduce import REDUCE_SECONDS, NotFailing, reduce_case
from .reduce import size as program_size
from .reports import REPORT_PATH, failure_key, read_case, replay, report_text, write_report
from .stable import stable_draws

REDUCTION_LENGTH = 64
"""The float tolerance of the value comparison, in terms combined per element (see
``compare.py``): passes may reassociate, and errors compound through a generated graph."""

EXAMPLE_TIMEOUT = 20.0
"""Seconds one example (the pass and the checks) may take before it counts as a loop."""

ARG_DRAWS = 3
"""Argument tuples each program is checked on."""

ROUND_EXAMPLES = 200
"""Examples per round of a campaign; the steering weights are updated between rounds."""

MODULE_TEMPLATES = 8
"""Operator templates per whole module at most (``modules(max_templates=)``; its default of 24
makes modules of about 290 lines that take 73 ms to draw, against 210 lines and 44 ms with 8:
measured under load)."""

MAX_TRIGGER_CHECKS = 96
"""At most this many of the motifs a pass changed are checked before the generated stream."""

VARIANTS = 4
"""Each checked motif is also checked in this many other draws (``Motif.redraw``: other
shapes, dtypes, attributes), those the pass changes evaluated: a rewrite that matches a motif
is often wrong only for some of them (composed transposes at rank 3, not 2; attributes that
differ). Measured: a broken transpose fusion was wrong on 7 of 30 draws of the pair it
rewrote, none of them the corpus's own draw."""

TRIGGER_SPECIAL_DRAWS = 3
"""Argument tuples in special mode a motif is checked on, beyond its ``ARG_DRAWS`` (a motif is
small: NaN, infinities and integer extremes are what its rewrite may get wrong)."""

TRIGGER_TIMEOUT = 2.0
"""Seconds the check of one motif may take (a motif is a few calls: a pass that runs this
long on one loops, and a looping pass is then reported in seconds, not ``EXAMPLE_TIMEOUT``)."""

LEARN_SHARE = 0.2
"""The share of a pass's time budget footprint learning may use (at most ``LEARN_MAX`` s)."""

LEARN_MAX = 10.0


class PassLoadError(Exception):
    """A ``--pass`` spec that names nothing loadable (bad usage)."""


@dataclass(frozen=True)
class LoadedPass:
    """A pass to fuzz: how it was named, its report name, and the pass object."""

    spec: str
    label: str
    pass_: Pass


def builtin_names() -> list[str]:
    """The command-line names of the built-in passes and pipelines (the default campaign).
    Left out: passes held to another oracle (``Gradient``: ``oracle = "gradient"``) and passes
    that change the meaning on purpose (``quantize``: ``approximate = True``)."""
    exact = [
        n
        for n, cls in BUILTIN_PASSES.items()
        if getattr(cls, "oracle", "") != "gradient" and not getattr(cls, "approximate", False)
    ]
    return [*exact, "opt-level-3"]


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
    """A program and the arguments of its ``@main``: ``args``, the first argument tuple (or
    the one that failed), and ``arg_sets``, every tuple it is checked on (``(args,)`` when
    not given)."""

    mod: IRModule
    args: tuple[Value, ...]
    arg_sets: tuple[tuple[Value, ...], ...] = ()

    @property
    def all_args(self) -> tuple[tuple[Value, ...], ...]:
        """Every argument tuple the program is checked on."""
        return self.arg_sets or (self.args,)

    def __repr__(self) -> str:
        return "Case(\n" + astext(self.mod) + "\n)"


@dataclass(frozen=True)
class Steering:
    """How a round draws programs: operators forced into dataflow programs' operator subsets
    (``focus``), generator weights, and the share of whole modules (in quarters)."""

    focus: tuple[str, ...] = ()
    op_weights: Mapping[str, float] | None = None
    construct_weights: Mapping[str, float] | None = None
    module_quarters: int = 2

    def digest(self) -> str:
        """A short hash of the steering: the database keys a pass's examples by it, since the
        same choices make other programs under other weights."""
        data = json.dumps(
            [
                self.focus,
                sorted((self.op_weights or {}).items()),
                sorted((self.construct_weights or {}).items()),
                self.module_quarters,
            ]
        )
        return hashlib.sha256(data.encode()).hexdigest()[:16]

    def to_json(self) -> str:
        """The steering as JSON (kept beside the database with a failure)."""
        return json.dumps(
            {
                "focus": list(self.focus),
                "op_weights": self.op_weights,
                "construct_weights": self.construct_weights,
                "module_quarters": self.module_quarters,
            }
        )

    @staticmethod
    def from_json(text: str) -> Steering:
        """The steering ``to_json`` wrote."""
        d = json.loads(text)
        return Steering(
            tuple(d["focus"]), d["op_weights"], d["construct_weights"], int(d["module_quarters"])
        )


def steering_of(footprint: Footprint | None, focus_ops: Sequence[str] = ()) -> Steering:
    """The steering a footprint gives (with a pass's declared ``focus_ops`` first): its most
    touched operators as the focus, its scores as weights, and three quarters of whole modules
    when it touched constructs but no particular operator."""
    focus = tuple(n for n in focus_ops if n in OP_ORDER)
    if footprint is None:
        return Steering(focus)
    learned = [] if footprint.universal else footprint.focus()
    focus = tuple(dict.fromkeys([*focus, *(n for n in learned if n in OP_ORDER)]))
    quarters = 3 if footprint.constructs and not focus else 2
    return Steering(
        focus,
        None if footprint.universal else footprint.op_weights(),
        footprint.construct_weights() if footprint.constructs else None,
        quarters,
    )


def _accepts(fn: Callable[..., object], name: str) -> bool:
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _steered(fn: Callable[..., Any], **weights: Mapping[str, float] | None) -> dict[str, Any]:
    """The weight arguments ``fn`` takes (the generators' steering hooks; older generators
    without them are called without)."""
    return {k: v for k, v in weights.items() if v is not None and _accepts(fn, k)}


def cases(
    max_nodes: int = 12,
    focus: Sequence[str] = (),
    steering: Steering | None = None,
    arg_draws: int = ARG_DRAWS,
) -> st.SearchStrategy[Case]:
    """Programs with ``arg_draws`` argument tuples for ``@main``: dataflow programs of up to
    ``max_nodes`` operator calls and whole modules (``steering.module_quarters`` in four
    modules); with ``focus`` operators (``steering.focus``, or ``focus``), three in four
    dataflow programs use some of them. Dataflow programs use a small random subset of the
    operators (swarm testing: a few operators, each used several times, find more bugs than
    every operator once). Arguments are drawn by the program (``argument_sets``: positive and
    non-zero where it needs it), each tuple in special mode one time in
    ``gen_args.SPECIAL_CHANCE`` (NaN, infinities, -0.0, subnormals, integer extremes; the oracle
    compares only NaN and infinities of floats on huge values, ``pass_oracle.extreme``).
    Shrinks towards a small dataflow program of the first operators, and one argument tuple's
    ordinary values."""
    steering = steering if steering is not None else Steering(tuple(focus))
    focus = tuple(n for n in steering.focus if n in OP_ORDER)
    swarm = st.lists(st.sampled_from(OP_ORDER), min_size=1, max_size=6, unique=True)
    picks = (
        st.lists(st.sampled_from(focus), min_size=1, max_size=min(3, len(focus)), unique=True)
        if focus
        else st.just([])
    )
    choice = st.integers(0, 3)
    module_kwargs = _steered(
        modules, op_weights=steering.op_weights, construct_weights=steering.construct_weights
    )
    dataflow_kwargs = _steered(dataflow_programs, op_weights=steering.op_weights)
    module_strategy = modules(max_templates=MODULE_TEMPLATES, **module_kwargs)

    @st.composite
    def build(draw: st.DrawFn) -> Case:
        kind: int = draw(choice)
        # Kinds 0..3: modules take the last ``module_quarters`` (with a focus, at most one).
        quarters = min(steering.module_quarters, 1) if focus else steering.module_quarters
        if kind >= 4 - quarters:
            case = draw(module_strategy)
            sets = draw(case.argument_sets(arg_draws))
            return Case(case.mod, sets[0], sets)
        ops: list[str] = draw(swarm)
        chosen: list[str] = draw(picks)
        if focus and kind != 2:
            ops = list(dict.fromkeys([*chosen, *ops]))
        program = draw(dataflow_programs(max_nodes=max_nodes, ops=ops, **dataflow_kwargs))
        sets = draw(program.argument_sets(arg_draws))
        return Case(program.mod, sets[0], sets)

    return build()


# ---------------------------------------------------------------------------------------------
# Report files


# ---------------------------------------------------------------------------------------------
# Checking one case


class _CampaignInstrument(OracleInstrument):
    """The oracle instrument on every argument tuple (``argument_sets``), recording each
    pass's input and output when it changed the program (a well-formed output not alpha-equal
    to its input), and which tuple was being compared when a check failed. Outputs alpha-equal
    to their input are not checked (the instrument skips them: they mean what the input
    means)."""

    def __init__(self, arg_sets: Sequence[Sequence[Value]], **kwargs: Any) -> None:
        super().__init__(None, argument_sets=arg_sets, **kwargs)
        self.changes: list[tuple[IRModule, IRModule]] = []
        self.comparing: Sequence[Value] | None = None

    def _same(self, before: IRModule, after: IRModule) -> bool:
        same = super()._same(before, after)  # the one alpha-equality test of the pass run
        if not same:
            self.changes.append((before, after))
        return same

    def _compare(
        self,
        pass_name: str,
        before: IRModule,
        after: IRModule,
        index: int,
        arguments: Sequence[Value],
    ) -> None:
        self.comparing = arguments
        super()._compare(pass_name, before, after, index, arguments)


@dataclass
class Checked:
    """The outcome of checking one case: the verdict (``None``: it passed), the argument
    tuple it failed on, every (input, output) pair of a pass that changed the program, and
    whether the pass left the program alpha-equal."""

    verdict: Verdict | None
    failed_args: tuple[Value, ...] | None
    changes: list[tuple[IRModule, IRModule]]
    unchanged: bool


def check_case(p: Pass, mod: IRModule, arg_sets: Sequence[Sequence[Value]], *, timeout: float,
               fuel: int = DEFAULT_FUEL) -> Checked:  # fmt: skip
    """Run ``p`` on ``mod`` once and check its output on every argument tuple (the campaign's
    form of ``pass_oracle.check_pass_many``, which also says what the pass changed)."""
    oracle = _CampaignInstrument(arg_sets, fuel=fuel, reduction_length=REDUCTION_LENGTH)
    verdict = run_checked(p, mod, oracle, timeout, 3)
    failed = None
    if verdict is not None and oracle.comparing is not None:
        failed = tuple(oracle.comparing)
    unchanged = verdict is None and not oracle.changes
    return Checked(verdict, failed, oracle.changes, unchanged)


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
    unchanged: int = 0
    """Examples the pass left alpha-equal (not evaluated)."""
    footprint: str = ""
    """What footprint learning found (one line; empty when it was off)."""
    report: tuple[str, str] | None = None
    """The failure's report text (``REPORT_PATH`` not yet filled in) and its failure key,
    for a campaign whose workers do not write reports themselves (``write=False``)."""
    paths: list[str] = field(default_factory=list)
    """Every report of the pass (``path`` first): the shards of one pass may each find one."""


@dataclass(frozen=True)
class Shard:
    """Which part of a pass's campaign a worker runs: shard ``index`` of ``count``. Shard
    ``i`` draws from seed ``seed + i * SHARD_SEED_STRIDE``, checks every ``count``-th motif
    (from the ``i``-th), and replays every ``count``-th saved steering."""

    index: int = 0
    count: int = 1


SHARD_SEED_STRIDE = 1_000_003
"""How far apart the seeds of a pass's shards are (each round adds one to its shard's seed)."""


class _Stop(BaseException):
    """Ends a pass's campaign when its time is up (a BaseException: Hypothesis lets it
    through instead of treating it as a failure to shrink)."""


@dataclass
class _State:
    deadline: float
    examples: int = 0
    unchanged: int = 0
    best: tuple[Case, Verdict] | None = None
    first_found_after: int = 0
    first_found_at: float = 0.0
    last_progress: float = field(default_factory=time.monotonic)
    last_tick: float = 0.0
    last_stop_check: float = 0.0
    announced: bool = False
    in_round: bool = False


def focus_of(p: Pass) -> list[str]:
    """The focus operators of ``p`` and, for a pipeline, of every pass in it."""
    return sorted({op for q in flatten([p]) for op in q.focus_ops})


@dataclass(frozen=True)
class Hooks:
    """How a worker talks to whoever runs the campaign (every field optional).

    ``progress`` gets a line now and then (the footprint found, the first failure; every 2 s
    the counts, unless there is a ``tick``); ``tick``
    gets the examples run and failures found so far (at most every ``TICK_SECONDS``, and at
    the end); ``found`` gets the verdict of the first failure once it is safe in the
    database (at once where there is none), before shrinking; ``stop`` is asked (at most
    every ``STOP_CHECK_SECONDS``) whether to stop generating: another shard of the pass has
    found a failure."""

    progress: Callable[[str], None] | None = None
    tick: Callable[[int, int], None] | None = None
    found: Callable[[Verdict], None] | None = None
    stop: Callable[[], bool] | None = None


TICK_SECONDS = 0.5
STOP_CHECK_SECONDS = 0.5


def fuzz_pass(
    loaded: LoadedPass,
    *,
    max_examples: int | None,
    time_budget: float,
    seed: int,
    out_dir: Path,
    database: Path | str | None,
    progress: Callable[[str], None] | None = None,
    example_timeout: float = EXAMPLE_TIMEOUT,
    max_nodes: int = 12,
    footprint: bool = True,
    shard: Shard = Shard(),
    hooks: Hooks | None = None,
    write: bool = True,
) -> PassResult:
    """Fuzz one pass; stop at the first failure (shrunk) or when a budget runs out. With
    ``footprint``, learn what the pass touches first and steer towards it (module docstring).
    What a seed draws does not depend on what the process imported (``stable.stable_draws``).
    ``database`` is a directory or a ``redis://`` URL (``campaign_db.open_database``);
    ``shard`` says which part of the pass's campaign this is (``Shard``); with
    ``write=False`` the report is returned in ``PassResult.report``, not written."""
    hooks = hooks if hooks is not None else Hooks()
    if progress is not None and hooks.progress is None:
        hooks = Hooks(progress, hooks.tick, hooks.found, hooks.stop)
    with stable_draws():
        return _fuzz_pass(
            loaded,
            max_examples=max_examples,
            time_budget=time_budget,
            seed=seed + shard.index * SHARD_SEED_STRIDE,
            out_dir=out_dir,
            database=database,
            hooks=hooks,
            example_timeout=example_timeout,
            max_nodes=max_nodes,
            footprint=footprint,
            shard=shard,
            write=write,
        )


def _fuzz_pass(
    loaded: LoadedPass,
    *,
    max_examples: int | None,
    time_budget: float,
    seed: int,
    out_dir: Path,
    database: Path | str | None,
    hooks: Hooks,
    example_timeout: float,
    max_nodes: int,
    footprint: bool,
    shard: Shard,
    write: bool,
) -> PassResult:
    start = time.monotonic()
    end = start + time_budget
    state = _State(deadline=end)
    reduction: tuple[tuple[Case, Verdict], tuple[Case, Verdict]] | None = None
    result = PassResult(loaded.label)
    learned: Footprint | None = None
    progress = hooks.progress

    def size(case: Case) -> int:
        return len(astext(case.mod))

    def announce() -> None:
        """Tell ``hooks.found`` of the first failure (once)."""
        if state.best is not None and not state.announced:
            state.announced = True
            if progress is not None:
                progress(
                    f"[{loaded.label}] failure found at example {state.first_found_after} "
                    f"({state.best[1].kind}); shrinking"
                )
            if hooks.found is not None:
                hooks.found(state.best[1])

    def reduced_best() -> tuple[Case, Verdict]:
        """The best failure so far after ``reduce.reduce_case`` (once per failure, within
        ``REDUCE_SECONDS`` and the campaign's end; not for a timeout, whose every candidate
        would cost the whole limit)."""
        nonlocal reduction
        assert state.best is not None
        if reduction is None or reduction[0] is not state.best:
            case, verdict = best = state.best
            until = min(end, time.monotonic() + REDUCE_SECONDS)
            if verdict.kind != "timeout" and until > time.monotonic():
                try:
                    best = reduce_case(
                        loaded.pass_, case, verdict.kind, deadline=until, timeout=example_timeout
                    )
                except NotFailing:
                    pass  # flaky (it failed once): reported as found
                except Exception as err:  # a bug of the reducer must not lose the failure
                    if progress is not None:
                        progress(f"[{loaded.label}] not reduced: {type(err).__name__}: {err}")
                if progress is not None:
                    lines = (program_size(case.mod)[0], program_size(best[0].mod)[0])
                    progress(f"[{loaded.label}] reduced from {lines[0]} to {lines[1]} lines")
            reduction = (state.best, best)
        return reduction[1]

    def write_best() -> None:
        """Put the best failure so far, reduced, in ``result`` (and its report file, with
        ``write``)."""
        case, verdict = reduced_best()
        found_after = state.first_found_after
        text = report_text(verdict, case, loaded.spec, REPORT_PATH, examples=found_after)
        key = failure_key(case, verdict)
        result.report = (text, key)
        if write:
            result.path = str(write_report(out_dir, loaded.label, text, key))
            result.paths = [result.path]
        result.verdict = verdict
        result.first_failure = (state.first_found_after, state.first_found_at)

    def tick(now: float, force: bool = False) -> None:
        if hooks.tick is not None and (force or now - state.last_tick >= TICK_SECONDS):
            state.last_tick = now
            hooks.tick(state.examples, 0 if state.best is None else 1)

    def check(case: Case, limit: float = example_timeout) -> Checked:
        now = time.monotonic()
        if now > state.deadline or (max_examples is not None and state.examples >= max_examples):
            raise _Stop()
        if (
            state.best is None
            and hooks.stop is not None
            and now - state.last_stop_check >= STOP_CHECK_SECONDS
        ):
            state.last_stop_check = now
            if hooks.stop():
                raise _Stop()
        state.examples += 1
        tick(now)
        if progress is not None and hooks.tick is None and now - state.last_progress > 2.0:
            state.last_progress = now
            rate = state.examples / max(now - start, 1e-9)
            failures = 0 if state.best is None else 1
            progress(
                f"[{loaded.label}] {state.examples} examples, {failures} failures, {rate:.1f}/s"
            )
        checked = check_case(
            loaded.pass_,
            case.mod,
            case.all_args,
            timeout=min(limit, max(state.deadline - now, 1.0)),
        )
        state.unchanged += checked.unchanged
        if checked.verdict is not None:
            if state.best is None:
                state.first_found_after = state.examples
                state.first_found_at = time.monotonic() - start
                # Shrinking leaves the reducer its time (at most half of what is left).
                reserve = min(REDUCE_SECONDS, (state.deadline - now) / 2)
                state.deadline = max(now, state.deadline - reserve)
                if state.in_round:
                    reset_time_limit(state.deadline - time.monotonic() + STOP_GRACE_SECONDS)
            if state.best is None or size(case) <= size(state.best[0]):
                args = checked.failed_args if checked.failed_args is not None else case.args
                state.best = (Case(case.mod, args, case.all_args), checked.verdict)
        return checked

    # 1. Learning; the motifs the pass changed (or crashed on) are checked as they are found
    # (at most MAX_TRIGGER_CHECKS of them, in turns by shape), before the generated stream.
    # A shard checks every ``shard.count``-th of them.
    checked_motifs = 0

    def check_motif(m: Motif, draw_seed: int) -> bool:
        """Check one motif on drawn arguments; whether it failed."""
        data, context = draws(draw_seed)
        try:
            with context:
                sets = tuple(
                    data.draw(m.arguments(special=mode))
                    for mode in [None] * ARG_DRAWS + [True] * TRIGGER_SPECIAL_DRAWS
                )
        except InvalidArgument:
            return False  # a parameter of unknown shape: no arguments to draw
        limit = min(example_timeout, TRIGGER_TIMEOUT)
        return check(Case(m.mod, sets[0], sets), limit).verdict is not None

    def check_motifs(found: list[Motif]) -> bool:
        """Check ``found``; whether the campaign is to stop learning (a failure, or no time)."""
        nonlocal checked_motifs
        if hooks.stop is not None and hooks.stop():
            return True  # another shard found a failure
        try:
            ours = _diverse(found)[shard.index :: shard.count]
            for m in ours[: max(0, MAX_TRIGGER_CHECKS - checked_motifs)]:
                checked_motifs += 1
                variants = [m]
                if m.redraw is not None:
                    redrawn = (
                        m.redraw(seed + checked_motifs * VARIANTS + k) for k in range(VARIANTS)
                    )
                    variants += [v for v in redrawn if v is not None]
                for v in variants:
                    if check_motif(v, seed + checked_motifs):
                        # Not shrunk, nor in the database: reported at once, then announced.
                        write_best()
                        announce()
                        return True
        except _Stop:
            return True
        return time.monotonic() > state.deadline

    if footprint:
        budget = min(LEARN_MAX, LEARN_SHARE * time_budget)
        learned = learn(loaded.pass_, budget=budget, found=check_motifs)
        result.footprint = learned.summary()
        if progress is not None:
            progress(f"[{loaded.label}] {result.footprint}")

    # 2. Rounds of generated programs, steered by the footprint; first a round under each
    # steering a failure was saved under (this shard's share of them), to replay it.
    inner = open_database(database) if database is not None else None
    db = ResumingDatabase(inner, on_save=lambda key: announce()) if inner is not None else None
    replays = saved_steerings(inner, loaded.spec)[shard.index :: shard.count] if inner else []
    steering = replays[0] if replays else steering_of(learned, focus_of(loaded.pass_))
    round_number = 0
    while state.best is None and time.monotonic() < state.deadline:
        if max_examples is not None and state.examples >= max_examples:
            break

        body = _round_body(check, learned, inner, loaded.spec, steering)
        body.__name__ = f"fuzz_{loaded.label}".replace("-", "_").replace(".", "_")
        digest = f"{loaded.spec}/{steering.digest()}".encode()
        body._hypothesis_internal_add_digest = digest  # type: ignore[attr-defined]
        left = None if max_examples is None else max_examples - state.examples
        round_examples = ROUND_EXAMPLES if learned is not None else 10**9
        test = settings(
            max_examples=max(1, min(round_examples, left if left is not None else 10**9)),
            deadline=None,
            database=db,
            derandomize=False,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
            print_blob=False,
            report_multiple_bugs=False,
        )(hypothesis_seed(seed + round_number)(given(cases(max_nodes, steering=steering))(body)))
        before_round = state.examples
        try:
            state.in_round = True
            with stop_at(state.deadline, _Stop):
                test()
        except _Stop:
            break
        except AssertionError:
            pass  # the shrunk failure: state.best holds it
        except Exception as err:  # Hypothesis itself gave up (e.g. Flaky): report it
            if state.best is None:
                first = str(err).splitlines()[0] if str(err) else ""
                result.error = f"{type(err).__name__}: {first}"
                break
        finally:
            state.in_round = False
        if state.examples == before_round:
            break  # Hypothesis ran nothing (the search space is exhausted)
        if round_number < len(replays) and state.best is None and inner is not None:
            forget_steering(inner, loaded.spec, steering)  # replayed: nothing failed
        round_number += 1
        if round_number < len(replays):
            steering = replays[round_number]
        elif learned is not None or round_number == len(replays):
            steering = steering_of(learned, focus_of(loaded.pass_))

    announce()  # a failure found without a database
    tick(time.monotonic(), force=True)
    result.examples = state.examples
    result.unchanged = state.unchanged
    result.seconds = time.monotonic() - start
    if state.best is not None:
        write_best()
    return result


def _diverse(motifs: Sequence[Motif]) -> list[Motif]:
    """``motifs`` in turns by shape (the kind and the name up to its first parenthesis:
    ``single``, ``pair``, ``constant``, ``let``, ``ref-two-refs``, ...), each shape's in their
    order: the first checks cover every shape the pass changed, not the first operators of one
    shape."""
    groups: dict[str, list[Motif]] = {}
    for m in motifs:
        groups.setdefault(f"{m.kind}/{m.name.split('(', 1)[0].split('[', 1)[0]}", []).append(m)
    out: list[Motif] = []
    queues = [list(reversed(g)) for g in groups.values()]
    while queues:
        for q in queues:
            out.append(q.pop())
        queues = [q for q in queues if q]
    return out


def _round_body(
    check: Callable[[Case], Checked],
    learned: Footprint | None,
    database: ExampleDatabase | None,
    spec: str,
    steering: Steering,
) -> Callable[[Case], None]:
    """The test body of one round: check the case, record the pass's diffs in the footprint
    and target their size, and on a failure keep the round's steering in the database (before
    Hypothesis saves the failing example, so a rerun can draw it again)."""

    def body(case: Case) -> None:
        checked = check(case)
        if learned is not None:
            size_changed = 0
            for before, after in checked.changes:
                size_changed += learned.record(before, after).size
            target(float(size_changed), label="diff size")
        if checked.verdict is not None:
            if database is not None:
                save_steering(database, spec, steering)
            raise AssertionError(checked.verdict.report())

    return body


def run_campaign(
    specs: Sequence[str],
    *,
    max_examples: int | None,
    time_budget: float,
    seed: int,
    jobs: int,
    out_dir: Path,
    database: Path | str | None,
    progress: Callable[[str], None] | None = None,
    footprint: bool = True,
    scheduler: str | None = None,
    ticks: Callable[[str, int, int], None] | None = None,
) -> list[PassResult]:
    """Fuzz every pass of ``specs`` (already checked to load) and return their results, in
    order. With one job, the passes run one after the other here, sharing the time budget;
    with more, or a Dask ``scheduler`` address, they run as shards on workers
    (``oracles.campaign``: ``CampaignError`` if the scheduler cannot be reached).
    ``progress`` gets lines, ``ticks(label, examples, failures)`` each pass's counts."""
    if footprint and scheduler is None:
        built = time.monotonic()
        corpus = motif_corpus()  # inside the budget
        if jobs > 1 or len(specs) > 1:
            # Built whole once, before any fork, and not in the first pass's share of the
            # budget; one pass alone builds only what its learning reads.
            corpus.motifs  # noqa: B018
        time_budget = max(0.5, time_budget - (time.monotonic() - built))
    if jobs > 1 or scheduler is not None:
        from .campaign import Campaign

        labels = [load_pass(spec).label for spec in specs]
        campaign = Campaign(
            specs, labels, time_budget, max_examples, seed, out_dir, database, footprint,
            progress, ticks,
        )  # fmt: skip
        results = campaign.run(jobs, scheduler)
        if progress is not None:
            for r in results:
                progress(_summary_line(r))
        return results
    results = []
    deadline = time.monotonic() + time_budget
    for i, spec in enumerate(specs):
        left = max(0.5, deadline - time.monotonic())
        budget = left / (len(specs) - i)
        loaded = load_pass(spec)
        pass_ticks = None
        if ticks is not None:
            label = loaded.label

            def pass_ticks(examples: int, failures: int, label: str = label) -> None:
                ticks(label, examples, failures)

        results.append(
            fuzz_pass(
                loaded,
                time_budget=budget,
                max_examples=max_examples,
                seed=seed,
                out_dir=out_dir,
                database=database,
                footprint=footprint,
                hooks=Hooks(progress=progress, tick=pass_ticks),
            )
        )
        if progress is not None:
            progress(_summary_line(results[-1]))
    return results


def _summary_line(r: PassResult) -> str:
    rate = r.examples / r.seconds if r.seconds > 0 else math.inf
    status = "ok" if r.verdict is None and r.error is None else "FAILED"
    if r.error is not None:
        status = f"error: {r.error}"
    elif r.verdict is not None:
        status = f"FAILED ({r.verdict.kind}) -> {r.path}"
        if len(r.paths) > 1:
            status += f" (and {len(r.paths) - 1} more: {', '.join(r.paths[1:])})"
        if r.first_failure is not None:
            n, seconds = r.first_failure
            status += f" (first failure at example {n}, after {seconds:.1f} s)"
    return (
        f"{r.label}: {r.examples} examples ({r.unchanged} unchanged, not evaluated) in "
        f"{r.seconds:.1f} s ({rate:.1f}/s): {status}"
    )


__all__ = [
    "ARG_DRAWS",
    "Case",
    "Checked",
    "Hooks",
    "LoadedPass",
    "PassLoadError",
    "PassResult",
    "ResumingDatabase",
    "Shard",
    "Steering",
    "builtin_names",
    "cases",
    "check_case",
    "fuzz_pass",
    "load_pass",
    "read_case",
    "replay",
    "report_text",
    "run_campaign",
    "steering_of",
]
