"""Holding a target to the interpreter: ``relay fuzz --target`` and ``relay conform --target``.

**The check** (``check_target``): the interpreter runs ``@main`` first. A program that reaches
``UndefinedBehavior`` may give any result on a target (Alive2's refinement), and one that runs
out of fuel is inconclusive: both are skipped. Otherwise the module is compiled for the target
with constant folding off (so the target's kernels compute every operator call, not the
interpreter at compile time) and run; its value must equal the interpreter's under the
tolerance policy (``compare.compare_values``), and an error must be the same kind of error.
A compile error for an operator or feature the target declares unsupported (``Target.supports``)
skips the program; for anything the target claims to support it is a failure, as is a kernel
the code generator rejects (``KernelRejected``: no generated program may reach it).

**Localising.** On a mismatch the program is run again with every kernel call recorded, and
each call is replayed in the interpreter on the primitive function it was compiled from: the
first kernel whose outputs differ is named in the report, with its loop IR and LLVM IR.

**Fuzzing** (``fuzz_target``): programs from both generators (``fuzz.cases``: dataflow graphs
and whole modules with ADTs, closures, references and recursion), shrunk by Hypothesis. Each
compiled program runs in a forked child process, so that one that dies of a signal or hangs is
a ``crash`` to shrink and report rather than the end of the campaign (compiling stays in the
campaign's process, so the kernel caches fill). A
failure is written to ``OUT/target-NAME-N.relay``: a header comment with the verdict, the
inputs, expected and actual values, the failing kernel's loop IR and LLVM IR, and the command
that replays it (``relay fuzz --target NAME --replay FILE``).

**Conformance** (``relay conform`` and the pytest plugin) is ``relay.oracles.conform_kit``:
the corpus and the programs of ``generated_cases``, each tagged (``tags``) and checked here.
"""

from __future__ import annotations

import json
import os
import pickle
import select
import signal
import time
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import numpy.typing as npt
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.database import DirectoryBasedExampleDatabase
from hypothesis.errors import HypothesisWarning
from hypothesis.reporting import with_reporter

from ..compiler.pass_manager import PassContext
from ..interpreter import evaluate
from ..semantics.errors import BackendError, Exhaustion, RelayError, Stuck, UndefinedBehavior
from ..semantics.ops import OPS
from ..semantics.syntax import (
    Call,
    Constructor,
    Expr,
    Function,
    GlobalVar,
    If,
    IRModule,
    Match,
    Op,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    TupleGetItem,
    TupleType,
    children,
)
from ..semantics.text.printer import astext
from ..semantics.values import TensorValue, TupleValue, Value, format_value, value_to_json
from ..targets.base import Executable, KernelRejected, Target
from .compare import compare_values
from .engines import NO_COMPILE_TIME_FOLDING
from .fuzz import Case, cases, read_case
from .pass_oracle import stop_at
from .stable import stable_draws

Array = npt.NDArray[np.generic]

EXAMPLE_TIMEOUT = 60.0
"""Seconds an isolated run (``check_target_outcome(isolate=True)``) may take before it counts
as a hang."""

REDUCTION_LENGTH = 64
"""The float tolerance of the comparison, in terms combined per element: kernels may
reassociate float reductions (and fuse multiply-adds) where the tolerance policy allows."""

FUEL = 200_000
"""The interpreter's fuel for a generated program."""


@dataclass(frozen=True)
class TargetVerdict:
    """Why a target failed a program: ``kind`` is ``compile-error`` (a supported program did
    not compile), ``rejected`` (the code generator rejected a kernel), ``crash`` (the target
    raised something other than a Relay error), ``error`` (an error where the interpreter gave
    a value, or another kind of error) or ``mismatch``."""

    target: str
    kind: str
    message: str
    inputs: tuple[str, ...] = ()
    expected: str = ""
    actual: str = ""
    kernel: str = ""
    loop_ir: str = ""
    llvm_ir: str = ""

    def report(self) -> str:
        """The verdict in lines, for a report file's header comment."""
        lines = [f"target: {self.target}", f"verdict: {self.kind}: {self.message}"]
        if self.inputs:
            lines.append("inputs:")
            lines += [f"  %{i}: {text}" for i, text in enumerate(self.inputs)]
        if self.expected:
            lines.append(f"expected (interpreter): {self.expected}")
        if self.actual:
            lines.append(f"actual (target {self.target}): {self.actual}")
        if self.kernel:
            lines.append(f"failing kernel: {self.kernel}")
        if self.loop_ir:
            lines.append("loop IR:")
            lines += [f"  {line}" for line in self.loop_ir.rstrip().splitlines()]
        if self.llvm_ir:
            lines.append("LLVM IR:")
            lines += [f"  {line}" for line in self.llvm_ir.rstrip().splitlines()]
        return "\n".join(lines)


def _clip(text: str, limit: int = 2000) -> str:
    return text if len(text) <= limit else text[:limit] + f" ... ({len(text)} characters)"


def _text(artifact: str | bytes | None) -> str:
    if artifact is None:
        return ""
    return artifact if isinstance(artifact, str) else artifact.decode("utf-8", "replace")


def compile_for_check(target: Target, mod: IRModule) -> Executable:
    """``mod`` compiled for ``target`` with constant folding off (see the module docstring)."""
    with PassContext(disabled=NO_COMPILE_TIME_FOLDING):
        return target.compile(mod)


def declared_unsupported(target: Target, err: BackendError) -> bool:
    """Whether ``err`` is about an operator or feature ``target`` says it does not support."""
    if not err.op:
        return False
    if err.op in OPS:
        return target.supports(err.op) is not None
    return target.supports_feature(err.op) is not None


def check_target(
    target: Target,
    mod: IRModule,
    args: Sequence[Value],
    *,
    fuel: int = FUEL,
    reduction_length: int = REDUCTION_LENGTH,
) -> TargetVerdict | None:
    """``None`` if ``target`` agrees with the interpreter on ``@main(args)`` (or the program is
    skipped: undefined behaviour, out of fuel, declared unsupported); else the verdict."""
    return check_target_outcome(target, mod, args, fuel=fuel,
                                reduction_length=reduction_length)[1]  # fmt: skip


PASS: tuple[str, TargetVerdict | None] = ("", None)


def check_target_outcome(
    target: Target,
    mod: IRModule,
    args: Sequence[Value],
    *,
    fuel: int = FUEL,
    reduction_length: int = REDUCTION_LENGTH,
    isolate: bool = False,
    timeout: float = EXAMPLE_TIMEOUT,
) -> tuple[str, TargetVerdict | None]:
    """``check_target``, saying also why the program was skipped: ``(reason, verdict)``, the
    reason ``""`` when it was checked.

    With ``isolate``, the compiled program runs in a forked child process (compiling stays
    here, so the kernel caches fill): code that dies (``SIGSEGV``, ``SIGFPE``, ...) or runs
    past ``timeout`` seconds is a ``crash`` verdict instead of the end of the campaign."""
    name = target.name
    inputs = tuple(_clip(format_value(a)) for a in args)
    try:
        expected = evaluate(mod, args, fuel=fuel)
        expected_error: RelayError | None = None
    except UndefinedBehavior:
        return "undefined behaviour (any result is acceptable)", None
    except (Exhaustion, Stuck) as err:
        return f"inconclusive: {type(err).__name__}", None
    except RelayError as err:
        expected_error = err
    try:
        exe = compile_for_check(target, mod)
    except BackendError as err:
        if declared_unsupported(target, err):
            return f"unsupported: {err.op}", None
        return "", TargetVerdict(name, "compile-error", err.message, inputs)
    except KernelRejected as err:
        return "", TargetVerdict(name, "rejected", str(err), inputs, kernel=err.kernel,
                                 llvm_ir=err.ir)  # fmt: skip
    except Exception as err:
        return "", TargetVerdict(name, "crash", f"compile: {type(err).__name__}: {err}",
                                 inputs)  # fmt: skip
    want = (
        f"{type(expected_error).__name__}: {expected_error.message}"
        if expected_error is not None
        else _clip(format_value(expected.value, expected.store))
    )

    def judge() -> tuple[str, TargetVerdict | None]:
        try:
            # Four times the input's fuel: compiled code may take other steps, but a target
            # that loops where the interpreter stops is an error, not a hang.
            actual = exe.evaluate(args, fuel=4 * fuel)
        except RelayError as err:
            if expected_error is not None and type(err) is type(expected_error):
                return PASS
            got = f"{type(err).__name__}: {err.message}"
            verdict = TargetVerdict(name, "error", got, inputs, want, got)
            return "", _localised(verdict, exe, args)
        except Exception as err:
            message = f"run: {type(err).__name__}: {err}"
            return "", TargetVerdict(name, "crash", message, inputs, want)
        got = _clip(format_value(actual.value, actual.store))
        if expected_error is not None:
            message = f"expected {type(expected_error).__name__}, the target returned a value"
            return "", TargetVerdict(name, "error", message, inputs, want, got)
        differs = compare_values(expected.value, actual.value, expected_store=expected.store,
                                 actual_store=actual.store,
                                 reduction_length=reduction_length)  # fmt: skip
        if differs is None:
            return PASS
        verdict = TargetVerdict(name, "mismatch", differs, inputs, want, got)
        return "", _localised(verdict, exe, args)

    if not isolate or not hasattr(os, "fork"):
        return judge()
    died = in_child(judge, timeout)
    if isinstance(died, str):
        return "", TargetVerdict(name, "crash", died, inputs, want)
    return died


def in_child(
    work: Callable[[], tuple[str, TargetVerdict | None]], timeout: float
) -> tuple[str, TargetVerdict | None] | str:
    """``work()`` run in a forked child process, its result sent back through a pipe; a string
    saying what happened if the child died of a signal, failed or ran past ``timeout``."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, send the outcome, exit without cleanup
        code = 0
        try:
            os.close(read_fd)
            data = pickle.dumps(work())
            with os.fdopen(write_fd, "wb") as out:
                out.write(data)
        except BaseException:
            code = 70
        finally:
            os._exit(code)
    os.close(write_fd)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout
    timed_out = False
    try:
        with os.fdopen(read_fd, "rb", buffering=0) as pipe:
            while True:
                left = max(0.0, deadline - time.monotonic())
                ready, _, _ = select.select([pipe], [], [], left)
                if not ready:
                    timed_out = True
                    os.kill(pid, signal.SIGKILL)
                    break
                chunk = pipe.read(1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
    except BaseException:  # stopped here (the campaign's time is up): no child left behind
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    _, status = os.waitpid(pid, 0)
    if timed_out:
        return f"no result within {timeout:g} s (a compiled program that loops?)"
    if os.WIFSIGNALED(status):
        return f"the compiled program died of {signal.Signals(os.WTERMSIG(status)).name}"
    if os.WEXITSTATUS(status) != 0 or not chunks:
        return f"the checking process failed (exit status {os.WEXITSTATUS(status)})"
    outcome: tuple[str, TargetVerdict | None] = pickle.loads(b"".join(chunks))
    return outcome


# ---------------------------------------------------------------------------------------------
# Localising a failure to a kernel


@dataclass
class _Recorded:
    name: str
    fn: Function
    inputs: list[npt.NDArray[np.generic]]
    outputs: list[npt.NDArray[np.generic]]


@contextmanager
def _recording(exe: Executable) -> Iterator[list[_Recorded]]:
    """Every kernel call of ``exe`` while inside, with copies of its inputs and outputs (for
    executables of the CPU runtime, whose kernels are ``PrimitiveCall``s)."""
    from ..targets.cpu.runtime import CompiledPrimitive, CpuExecutable

    calls: list[_Recorded] = []
    if not isinstance(exe, CpuExecutable):
        yield calls
        return
    saved = {name: k.compiled for name, k in exe.kernels.items()}

    def recorder(name: str, fn: Function, inner: CompiledPrimitive) -> CompiledPrimitive:
        class Recorder:
            def __call__(self, inputs: Sequence[Array], outputs: Sequence[Array]) -> None:
                inner(inputs, outputs)
                calls.append(_Recorded(name, fn, [a.copy() for a in inputs],
                                       [o.copy() for o in outputs]))  # fmt: skip

            def artifacts(self) -> dict[str, str | bytes]:
                return inner.artifacts()

        return Recorder()

    for name, k in exe.kernels.items():
        k.compiled = recorder(name, k.fn, saved[name])
    try:
        yield calls
    finally:
        for name, k in exe.kernels.items():
            k.compiled = saved[name]


def failing_kernel(exe: Executable, args: Sequence[Value], fuel: int = 4 * FUEL) -> str | None:
    """The first kernel whose outputs, on the inputs it got in a run of ``@main(args)``
    (within ``fuel``), differ from the interpreter's value of the primitive function it was
    compiled from."""
    with _recording(exe) as calls, suppress(RelayError, TypeError):
        exe.evaluate(args, fuel=fuel)
    for call in calls:
        mod = IRModule({GlobalVar("main"): Function(call.fn.params, call.fn.body,
                                                    call.fn.ret_type)})  # fmt: skip
        it = iter(call.inputs)
        values: list[Value] = []
        for p in call.fn.params:
            if isinstance(p.type_annotation, TupleType):
                fields = tuple(TensorValue(next(it)) for _ in p.type_annotation.fields)
                values.append(TupleValue(fields))
            else:
                values.append(TensorValue(next(it)))
        try:
            want = evaluate(mod, values).value
        except RelayError:
            continue  # undefined behaviour inside the kernel: any output is acceptable
        got: Value = (TensorValue(call.outputs[0]) if isinstance(want, TensorValue)
                      else _rebuild(want, iter(call.outputs)))  # fmt: skip
        if compare_values(want, got, reduction_length=REDUCTION_LENGTH) is not None:
            return call.name
    return None


def _rebuild(shape_of: Value, outputs: Iterator[npt.NDArray[np.generic]]) -> Value:
    if isinstance(shape_of, TupleValue):
        return TupleValue(tuple(_rebuild(f, outputs) for f in shape_of.fields))
    return TensorValue(next(outputs))


def _localised(verdict: TargetVerdict, exe: Executable, args: Sequence[Value]) -> TargetVerdict:
    name = failing_kernel(exe, args)
    if name is None:
        return verdict
    artifacts = exe.artifacts().get(name, {})
    from dataclasses import replace

    return replace(verdict, kernel=name, loop_ir=_text(artifacts.get("loop-ir")),
                   llvm_ir=_text(artifacts.get("llvm")))  # fmt: skip


# ---------------------------------------------------------------------------------------------
# Fuzz campaigns


def report_text(verdict: TargetVerdict, case: Case, path: str, *, examples: int = 0) -> str:
    """The report file for a failure: header comment, argument lines, then the program."""
    lines = [f"relay fuzz --target {verdict.target}: counterexample", *verdict.report().split("\n")]
    if examples:
        lines.append(f"found after {examples} example{'' if examples == 1 else 's'} (then shrunk)")
    lines.append(f"reproduce: relay fuzz --target {verdict.target} --replay {path}")
    header = [f"// {line}".rstrip() for line in lines]
    args = [f"// ARG-JSON: {json.dumps(value_to_json(a))}" for a in case.args]
    return "\n".join([*header, *args, "", astext(case.mod), ""])


@dataclass
class TargetFuzzResult:
    """A campaign's outcome: examples run (and skipped), seconds, the failure if any."""

    target: str
    examples: int = 0
    skipped: int = 0
    skip_reasons: Counter[str] = field(default_factory=Counter)
    """Skips by kind: ``undefined behaviour``, ``inconclusive``, ``unsupported``."""
    coverage: Counter[str] = field(default_factory=Counter)
    """How many of the programs checked (not skipped) use each construct and operator family
    (``tags``)."""
    seconds: float = 0.0
    verdict: TargetVerdict | None = None
    path: str | None = None
    error: str | None = None


_UNBOUNDED = 10**9
"""Hypothesis's ``max_examples`` for a campaign bounded only by its time budget."""


class _Stop(BaseException):
    """Ends the campaign when its time is up (Hypothesis lets a BaseException through)."""


def fuzz_target(
    target: Target,
    *,
    max_examples: int | None,
    time_budget: float,
    seed: int,
    out_dir: Path,
    database: Path | None = None,
    progress: Callable[[str], None] | None = None,
    max_nodes: int = 12,
    isolate: bool = True,
    fuel: int = FUEL,
) -> TargetFuzzResult:
    """Check ``target`` on generated programs until the first failure (shrunk, then written to
    ``out_dir``) or until ``max_examples`` (``None``: no bound) or ``time_budget`` runs out.
    ``fuel`` bounds the interpreter's run of each program (a program that exhausts it is
    inconclusive, and its compiled code is not run).
    With ``isolate``, each program's compiled code runs in a forked process
    (``check_target_outcome``): a crash of compiled code is a failure to shrink and report,
    not the end of the campaign."""
    start = time.monotonic()
    deadline = start + time_budget
    result = TargetFuzzResult(target.name)
    best: list[tuple[Case, TargetVerdict]] = []
    first_after = [0]
    last = [start]

    def body(case: Case) -> None:
        now = time.monotonic()
        if now > deadline:
            raise _Stop()
        result.examples += 1
        if progress is not None and now - last[0] > 2.0:
            last[0] = now
            rate = result.examples / max(now - start, 1e-9)
            progress(f"[{target.name}] {result.examples} examples, {len(best[:1])} failures, "
                     f"{rate:.1f}/s")  # fmt: skip
        skipped, verdict = check_target_outcome(
            target, case.mod, case.args, isolate=isolate, fuel=fuel
        )
        if skipped:
            result.skipped += 1
            result.skip_reasons[skipped.split(":")[0]] += 1
        else:
            result.coverage.update(tags(case.mod))
        if verdict is not None:
            if not best:
                first_after[0] = result.examples
            if not best or len(astext(case.mod)) <= len(astext(best[0][0].mod)):
                best[:] = [(case, verdict)]
            raise AssertionError(verdict.report())

    # a Python identifier (Hypothesis wants one): "gpu-sim" becomes fuzz_target_gpu_sim
    body.__name__ = "fuzz_target_" + "".join(c if c.isalnum() else "_" for c in target.name)
    db = DirectoryBasedExampleDatabase(str(database)) if database is not None else None
    test = settings(
        max_examples=_UNBOUNDED if max_examples is None else max_examples,
        deadline=None,
        database=db,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        phases=[Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink],
        print_blob=False,
    )(hypothesis_seed(seed)(given(program_cases(target, max_nodes))(body)))
    try:
        # Stopped at the deadline wherever it is: Hypothesis's shrinker can go on without
        # running the test, which alone sees the deadline (``pass_oracle.STOP_GRACE_SECONDS``).
        with with_reporter(lambda _text: None), stop_at(deadline, _Stop):
            test()  # the report is ours: Hypothesis stays quiet
    except (_Stop, AssertionError):
        pass
    except Exception as err:  # Hypothesis gave up (e.g. Flaky): report it
        if not best:
            result.error = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
    result.seconds = time.monotonic() - start
    if best:
        case, verdict = best[0]
        out_dir.mkdir(parents=True, exist_ok=True)
        n = 1
        while True:  # created exclusively: parallel campaigns share the folder
            path = out_dir / f"target-{target.name}-{n}.relay"
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            except FileExistsError:
                n += 1
                continue
            break
        with os.fdopen(fd, "w", encoding="utf-8") as report:
            report.write(report_text(verdict, case, str(path), examples=first_after[0]))
        result.verdict, result.path = verdict, str(path)
    return result


def fuzz_target_jobs(
    target: Target,
    *,
    jobs: int,
    max_examples: int | None,
    time_budget: float,
    seed: int,
    out_dir: Path,
    database: Path | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[TargetFuzzResult]:
    """``fuzz_target`` in ``jobs`` forked processes at once, with seeds ``seed``,
    ``seed + 1``, ..., each for the whole ``time_budget`` and its share of ``max_examples``;
    one result per process, in seed order."""
    if jobs <= 1 or not hasattr(os, "fork"):
        return [fuzz_target(target, max_examples=max_examples, time_budget=time_budget,
                            seed=seed, out_dir=out_dir, database=database,
                            progress=progress)]  # fmt: skip
    import multiprocessing

    share = None if max_examples is None else max(1, -(-max_examples // jobs))
    context = multiprocessing.get_context("fork")
    with context.Pool(jobs) as pool:
        runs = [pool.apply_async(fuzz_target, (target,), {
            "max_examples": share, "time_budget": time_budget, "seed": seed + i,
            "out_dir": out_dir, "database": database}) for i in range(jobs)]  # fmt: skip
        return [r.get() for r in runs]


def replay_target(target: Target, path: Path) -> tuple[Case, TargetVerdict | None]:
    """Re-run the check of a saved report file on ``target``."""
    case = read_case(path.read_text(encoding="utf-8"), str(path))
    return case, check_target(target, case.mod, case.args)


# ---------------------------------------------------------------------------------------------
# Conformance runs

CONSTRUCTS = ("if", "match", "closures", "recursion", "references", "adts", "tuples")
"""The language constructs a conformance summary counts (beside operator families)."""


def tags(mod: IRModule) -> list[str]:
    """The constructs (``CONSTRUCTS``) and operator families (``op:FAMILY``) ``mod`` uses."""
    found: set[str] = set()
    seen: set[Expr] = set()
    for gv, fn in mod.functions.items():
        stack: list[Expr] = [fn.body]
        while stack:
            e = stack.pop()
            if e in seen:
                continue
            seen.add(e)
            match e:
                case Call(Op(name)) if name in OPS:
                    found.add(f"op:{OPS[name].family}")
                case Call(Constructor()) | Constructor():
                    found.add("adts")
                case Call(GlobalVar(name)) if name == gv.name:
                    found.add("recursion")
                case If():
                    found.add("if")
                case Match():
                    found.add("match")
                case Function():
                    found.add("closures")
                case RefCreate() | RefRead() | RefWrite():
                    found.add("references")
                case Tuple() | TupleGetItem():
                    found.add("tuples")
                case _:
                    pass
            stack.extend(children(e))
    constructs = [c for c in CONSTRUCTS if c in found]
    return constructs + sorted(t for t in found if t.startswith("op:"))


def program_cases(target: Target | None, max_nodes: int = 12) -> st.SearchStrategy[Case]:
    """The programs checked on ``target``: ``fuzz.cases`` (both generators), or for a target
    whose ``fuzz_programs`` attribute is ``"quantized"`` (``accel``) the quantized conv/dense
    graphs of ``gen_quantized``."""
    if getattr(target, "fuzz_programs", "") == "quantized":
        from .gen_quantized import quantized_cases

        return quantized_cases()
    return cases(max_nodes)


def case_key(case: Case) -> str:
    """What makes two drawn programs the same case: the program's text and every argument."""
    args = " | ".join(",".join(format_value(a) for a in arg_set) for arg_set in case.all_args)
    return astext(case.mod) + "\n" + args


def draw_budget(count: int) -> int:
    """How many examples a draw of ``count`` distinct programs may generate: Hypothesis's
    generate phase mutates earlier examples, and about one draw in six repeats a program
    (measured: 82 distinct programs in the first 100 for seed 0)."""
    return 3 * count + 10


def draw_settings(count: int, phases: Sequence[Phase]) -> settings:
    """The settings of a draw of ``count`` programs, from Hypothesis's ``default`` profile
    rather than the one in force, so a profile the caller loaded (a CI profile, a pytest
    ``--hypothesis-profile``) does not change what is drawn."""
    return settings(settings.get_profile("default"), max_examples=draw_budget(count),
                    phases=phases, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
                    print_blob=False)  # fmt: skip


class _Drawn(Exception):
    """Ends a draw once it has what it needs (Hypothesis stops at the first failure)."""


def generated_cases(count: int, seed: int, max_nodes: int = 12, target: Target | None = None
                    ) -> list[Case]:  # fmt: skip
    """``count`` distinct programs with arguments from ``program_cases(target)`` (fewer only
    if ``draw_budget(count)`` examples hold fewer distinct ones), the same ones for the same
    ``seed``, ``count`` and generator in every process: one seeded Hypothesis run of the
    generate phase, under ``stable.stable_draws`` (so what the process imported does not
    matter) and ``draw_settings`` (nor the settings profile in force). A program drawn again
    (``case_key``) is skipped. The ``i``-th program depends on ``count`` too: Hypothesis
    shapes a run by its length."""
    out: list[Case] = []
    if count <= 0:
        return out
    seen: set[str] = set()

    @hypothesis_seed(seed)
    @draw_settings(count, [Phase.generate])
    @given(case=program_cases(target, max_nodes))
    def draw(case: Case) -> None:
        if len(out) == count:
            raise _Drawn
        key = case_key(case)
        if key not in seen:
            seen.add(key)
            out.append(case)
        if len(out) == count:
            raise _Drawn

    with stable_draws(), with_reporter(lambda _text: None), warnings.catch_warnings():
        # Ending the run by ``_Drawn`` makes Hypothesis print the last example, and warn
        # when that takes long: nobody sees the text, so the warning is noise.
        warnings.filterwarnings("ignore", "Generating overly large repr", HypothesisWarning)
        with suppress(_Drawn):
            draw()
    return out


__all__ = [
    "CONSTRUCTS",
    "REDUCTION_LENGTH",
    "TargetFuzzResult",
    "TargetVerdict",
    "case_key",
    "check_target",
    "check_target_outcome",
    "compile_for_check",
    "draw_budget",
    "draw_settings",
    "failing_kernel",
    "fuzz_target",
    "fuzz_target_jobs",
    "generated_cases",
    "in_child",
    "replay_target",
    "report_text",
    "tags",
]
