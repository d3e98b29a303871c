"""The oracle instrument: after every pass, check that the output still means what the input
meant.

Three checks, in order, each of which names the pass that broke the program:

1. **Well-formed**: no variable used outside its binder's scope, no variable bound twice, no
   undefined global or constructor (``relay.compiler.ir.well_formed``).
2. **Well-typed, same types**: the output type-checks, and each global function present in
   both input and output has the same type, up to renaming of type parameters and except
   that a ``?`` dimension may become a known size (``fill_unknown_dims``); ``@main`` must
   stay.
3. **Same meaning**: the interpreter applies ``@main`` of the input and of the output to the
   same arguments and the results agree under the tolerance policy
   (``compare.compare_values``). If the input's evaluation has undefined behaviour, fails
   at run time (an incomplete ``match?``, an operator precondition) or runs out of fuel, any
   output is acceptable: a pass may assume the failing computation away, as TVM's passes did.
   The output may use more fuel than the input (four times as much) before it is judged to
   loop. On *extreme* arguments (``extreme``: finite values of huge magnitude) finite
   floats are not compared, only where NaN and infinities are (``compare``'s
   ``finite=False``): a correct reassociation of large terms changes finite results beyond
   any tolerance, while a rewrite wrong on NaN or infinity (``x * 0 -> 0``) still shows.

The instrument also checks that the pass did not change its input: the identity of every
global function and type definition, of every node reachable from them, and the bytes of every
constant are the same after the pass as before it (a fingerprint: printing the module before
and after, as this check once did, cost a quarter of the oracle's time).

**What is not repeated.** The checks are the expensive part of fuzzing a pass, so nothing is
computed twice: a module's global types and its outcome on each argument set are kept by
identity, so in a pipeline each intermediate module is type-checked and evaluated once (as
the output of one pass, then as the input of the next); an output alpha-equal to its input
(``semantics.equality.alpha_equal``: the same program up to binder names, bit-exact
constants, the same sharing) means what its input means, so it is neither type-checked nor
evaluated, and inherits the input's types and outcomes; and ``check_pass_many`` runs the pass
and the type checks once for several argument sets (the interpreter compiles each module once,
``interpreter.machine.program_for``, and runs it per set).

A failure raises ``PassCheckFailure`` carrying a ``Verdict``: the pass, the kind of failure,
a one-line message and, for a value mismatch, the inputs and both values.
"""

from __future__ import annotations

import signal
import sys
import time
import traceback
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

import numpy as np

from relay.compiler.ir import well_formed
from relay.compiler.pass_manager import Pass, PassContext, Sequential, run_pass
from relay.interpreter import evaluate
from relay.semantics.equality import alpha_equal
from relay.semantics.errors import (
    Exhaustion,
    PassError,
    RelayError,
    RelayRuntimeError,
    RelayTypeError,
    Stuck,
    UndefinedBehavior,
)
from relay.semantics.syntax import (
    ANY,
    Constant,
    FuncType,
    IRModule,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeCall,
    post_order,
)
from relay.semantics.text.printer import astext, format_type
from relay.semantics.typing import infer_types
from relay.semantics.values import Store, TensorValue, TupleValue, Value, format_value

from .compare import compare_values

DEFAULT_FUEL = 200_000
"""Evaluation steps allowed for the input program."""


@dataclass(frozen=True)
class Verdict:
    """Why a pass failed its check.

    ``kind`` is one of ``crash`` (the pass raised), ``not-a-module`` (it returned something
    else), ``timeout`` (it ran past the per-example limit), ``mutated-input``,
    ``ill-formed``, ``ill-typed`` (the output does not type-check), ``type-changed`` (a
    global's type changed or ``@main`` disappeared), ``mismatch`` (different values, or an
    error where the input gave a value) and ``loops`` (the output ran out of fuel where the
    input did not).
    """

    pass_name: str
    kind: str
    message: str
    inputs: tuple[str, ...] = ()
    expected: str = ""
    actual: str = ""
    detail: str = ""

    def report(self) -> str:
        """The verdict in lines, Alive2-style, for a report file's header comment."""
        lines = [f"pass: {self.pass_name}", f"verdict: {self.kind}: {self.message}"]
        if self.inputs:
            lines.append("inputs:")
            lines += [f"  %{i}: {text}" for i, text in enumerate(self.inputs)]
        if self.expected:
            lines.append(f"expected (input program): {self.expected}")
        if self.actual:
            lines.append(f"actual (after the pass): {self.actual}")
        if self.detail:
            lines.append("detail:")
            lines += [f"  {line}" for line in self.detail.rstrip().splitlines()]
        return "\n".join(lines)


class PassCheckFailure(Exception):
    """A pass broke a program; ``verdict`` says how."""

    def __init__(self, verdict: Verdict) -> None:
        super().__init__(f"{verdict.pass_name}: {verdict.kind}: {verdict.message}")
        self.verdict = verdict


@dataclass
class _Outcome:
    """The result of running ``@main``: a value (and store), or the error it raised."""

    value: Value | None
    store: Store
    error: RelayError | None

    def describe(self) -> str:
        if self.error is not None:
            return f"{type(self.error).__name__}: {self.error.message}"
        assert self.value is not None
        return _clip(format_value(self.value, self.store))


def _inputs(arguments: Sequence[Value]) -> tuple[str, ...]:
    """The arguments as a verdict shows them (formatted only for a verdict: printing every
    argument of every comparison cost a tenth of a campaign's time)."""
    return tuple(_clip(format_value(a, {})) for a in arguments)


def _clip(text: str, limit: int = 2000) -> str:
    return text if len(text) <= limit else text[:limit] + f" ... ({len(text)} characters)"


EXTREME_FLOAT = 2.0**16
"""A finite float argument element of larger magnitude makes the arguments *extreme*
(``extreme``)."""

EXTREME_INT = 2**12
"""An integer argument element of larger magnitude makes the arguments extreme: products of
two such, accumulated in float32 (a convolution with a float ``out_dtype``), lose bits."""


def extreme(arguments: Sequence[Value]) -> bool:
    """Whether ``arguments`` hold a value of extreme magnitude (special-mode values of
    ``gen_args``): a finite float beyond ``EXTREME_FLOAT`` or an integer beyond
    ``EXTREME_INT``. On such inputs a correct reassociation can cancel terms of magnitude 1e9
    into a result of magnitude 1, so finite floats are not compared (only where NaN and
    infinities are; integers and bools exactly, as always). NaN, infinities and subnormals
    do not count: they change no finite result's rounding beyond the budget."""
    stack: list[Value] = list(arguments)
    while stack:
        v = stack.pop()
        if isinstance(v, TupleValue):
            stack.extend(v.fields)
            continue
        if not isinstance(v, TensorValue):
            continue
        data = np.asarray(v.data)
        if data.size == 0 or data.dtype == np.bool_:
            continue
        x = np.abs(data.astype(np.float64))
        if np.issubdtype(data.dtype, np.floating):
            if np.any(np.isfinite(x) & (x > EXTREME_FLOAT)):
                return True
        elif np.any(x > EXTREME_INT):
            return True
    return False


def run_main(mod: IRModule, args: Sequence[Value], fuel: int) -> _Outcome:
    """Apply ``@main`` of ``mod`` to ``args`` with the interpreter."""
    try:
        result = evaluate(mod, args, fuel=fuel)
    except (RelayRuntimeError, UndefinedBehavior, Exhaustion, Stuck) as err:
        return _Outcome(None, {}, err)
    return _Outcome(result.value, result.store, None)


@dataclass
class OracleInstrument:
    """The pass instrument that checks every pass's output (see the module docstring).

    ``arguments`` are the values ``@main`` is applied to; ``None`` skips the meaning check
    (for a module whose ``@main`` takes parameters no generator can make). ``argument_sets``,
    when given, replaces it with several argument lists, compared in order: the first that
    tells input and output apart gives the verdict.
    """

    arguments: Sequence[Value] | None
    fuel: int = DEFAULT_FUEL
    reduction_length: int = 1
    argument_sets: Sequence[Sequence[Value]] | None = None
    _snapshots: list[_Fingerprint] = field(default_factory=list)
    _outcomes: dict[int, tuple[IRModule, dict[int, _Outcome]]] = field(default_factory=dict)
    _types: dict[int, tuple[IRModule, dict[str, Type]]] = field(default_factory=dict)

    def before_pass(self, p: Pass, mod: IRModule) -> None:
        self._snapshots.append(fingerprint(mod))

    def after_pass(self, p: Pass, before: IRModule, after: IRModule) -> None:
        if fingerprint(before) != self._snapshots.pop():
            raise PassCheckFailure(
                Verdict(p.name, "mutated-input", "the pass changed the module it was given")
            )
        self.check(p.name, before, after)

    def _sets(self) -> Sequence[Sequence[Value]] | None:
        if self.argument_sets is not None:
            return self.argument_sets
        return None if self.arguments is None else (self.arguments,)

    # -- the checks ---------------------------------------------------------------------------

    def check(self, pass_name: str, before: IRModule, after: IRModule) -> None:
        """Raise ``PassCheckFailure`` unless ``after`` is a correct result of ``pass_name`` on
        ``before``."""
        problems = well_formed(after)
        if problems:
            raise PassCheckFailure(
                Verdict(
                    pass_name,
                    "ill-formed",
                    str(problems[0]),
                    detail="\n".join(str(p) for p in problems[:10]),
                )
            )
        if self._same(before, after):
            self._inherit(before, after)  # the same program: same types, same values
            return
        old = self._typed(before)
        try:
            new = infer_types(after).globals
        except RelayTypeError as err:
            raise PassCheckFailure(
                Verdict(pass_name, "ill-typed", str(err), detail=_clip(astext(after), 4000))
            ) from None
        self._types[id(after)] = (after, new)
        if "main" in before and "main" not in after:
            raise PassCheckFailure(Verdict(pass_name, "type-changed", "@main was removed"))
        for name, t in old.items():
            u = new.get(name)
            if u is not None and not alpha_equal(fill_unknown_dims(t, u), u):
                raise PassCheckFailure(
                    Verdict(
                        pass_name,
                        "type-changed",
                        f"@{name} had type {format_type(t)}, now {format_type(u)}",
                    )
                )
        sets = self._sets()
        if sets is None or "main" not in before:
            return
        for index, arguments in enumerate(sets):
            self._compare(pass_name, before, after, index, arguments)

    def _compare(
        self,
        pass_name: str,
        before: IRModule,
        after: IRModule,
        index: int,
        arguments: Sequence[Value],
    ) -> None:
        expected = self._run(before, index, arguments, self.fuel)
        if expected.error is not None:
            return  # undefined, failing or non-terminating input: anything goes
        actual = self._run(after, index, arguments, 4 * self.fuel)
        if actual.error is not None:
            inputs = _inputs(arguments)
            kind = "loops" if isinstance(actual.error, Exhaustion) else "mismatch"
            raise PassCheckFailure(
                Verdict(
                    pass_name,
                    kind,
                    f"the input gives a value, the output raises {type(actual.error).__name__}",
                    inputs,
                    expected.describe(),
                    actual.describe(),
                )
            )
        assert expected.value is not None and actual.value is not None
        diff = compare_values(
            expected.value,
            actual.value,
            expected_store=expected.store,
            actual_store=actual.store,
            reduction_length=self.reduction_length,
            finite=not extreme(arguments),
        )
        if diff is not None:
            raise PassCheckFailure(
                Verdict(
                    pass_name,
                    "mismatch",
                    "the output computes a different value",
                    _inputs(arguments),
                    expected.describe(),
                    actual.describe(),
                    detail=f"first difference: {diff}",
                )
            )

    def _same(self, before: IRModule, after: IRModule) -> bool:
        """Whether ``after`` is ``before`` or alpha-equal to it (asked once per pass run, of a
        well-formed output)."""
        return after is before or alpha_equal(before, after)

    def _inherit(self, before: IRModule, after: IRModule) -> None:
        """Give ``after``, alpha-equal to ``before``, what is known about ``before``."""
        if after is before:
            return
        types = self._types.get(id(before))
        if types is not None and types[0] is before:
            self._types[id(after)] = (after, types[1])
        outcomes = self._outcomes.get(id(before))
        if outcomes is not None and outcomes[0] is before:
            self._outcomes[id(after)] = (after, outcomes[1])

    def _typed(self, mod: IRModule) -> dict[str, Type]:
        cached = self._types.get(id(mod))
        if cached is not None and cached[0] is mod:
            return cached[1]
        info = infer_types(mod).globals
        self._types[id(mod)] = (mod, info)
        return info

    def _run(self, mod: IRModule, index: int, arguments: Sequence[Value], fuel: int) -> _Outcome:
        cached = self._outcomes.get(id(mod))
        if cached is None or cached[0] is not mod:
            cached = (mod, {})
            self._outcomes[id(mod)] = cached
        out = cached[1].get(index)
        if out is None:
            out = cached[1][index] = run_main(mod, arguments, fuel)
        return out


_Fingerprint = tuple[tuple[int, ...], tuple[tuple[str, tuple[int, ...], int], ...]]


def fingerprint(mod: IRModule) -> _Fingerprint:
    """What must not change when a pass reads ``mod``: the identity of every global, type
    definition and expression node reachable from them, and the bytes of every constant (a
    numpy array is the one mutable thing in a module)."""
    ids: list[int] = []
    constants: list[tuple[str, tuple[int, ...], int]] = []
    for gv, fn in mod.functions.items():
        ids += (id(gv), id(fn))
        for e in post_order(fn):
            ids.append(id(e))
            if isinstance(e, Constant):
                constants.append((e.data.dtype.str, e.data.shape, hash(e.data.tobytes())))
    for header, data in mod.type_definitions.items():
        ids += (id(header), id(data))
    return tuple(ids), tuple(constants)


def fill_unknown_dims(old: Type, new: Type) -> Type:
    """``old`` with each ``?`` dimension replaced by the size ``new`` has in its place (where
    the two have the same structure there): a pass may make a type more precise, as
    DynamicToStatic turns a ``?`` into a known size, but never less precise or different."""
    match old, new:
        case TensorType(shape, dtype), TensorType(shape2, _) if len(shape) == len(shape2):
            dims = tuple(b if a is ANY else a for a, b in zip(shape, shape2, strict=True))
            return TensorType(dims, dtype)
        case TupleType(fields), TupleType(fields2) if len(fields) == len(fields2):
            return TupleType(
                tuple(fill_unknown_dims(a, b) for a, b in zip(fields, fields2, strict=True))
            )
        case FuncType(args, ret, params, constraints), FuncType(args2, ret2) if len(args) == len(
            args2
        ):
            return FuncType(
                tuple(fill_unknown_dims(a, b) for a, b in zip(args, args2, strict=True)),
                fill_unknown_dims(ret, ret2),
                params,
                constraints,
            )
        case RefType(value), RefType(value2):
            return RefType(fill_unknown_dims(value, value2))
        case TypeCall(func, args), TypeCall(_, args2) if len(args) == len(args2):
            return TypeCall(
                func, tuple(fill_unknown_dims(a, b) for a, b in zip(args, args2, strict=True))
            )
    return old


class PassTimeout(Exception):
    """The per-example time limit ran out."""


STOP_GRACE_SECONDS = 1.0
"""How long after its deadline a campaign's run of Hypothesis is stopped (``time_limit``),
wherever it is: Hypothesis's shrinker can go on for minutes on the long choice sequence of a
program without running the test (it replays the sequence on its own record of what it did),
and only a run of the test sees the deadline. An example started just before the deadline has
at least a second (``fuzz``'s ``check``)."""


@contextmanager
def time_limit(seconds: float, error: type[BaseException] = PassTimeout) -> Iterator[None]:
    """Raise ``error()`` (``PassTimeout``) in the main thread if the block runs longer than
    ``seconds`` (``SIGALRM``; no limit where that is not available or off the main thread). The
    alarm repeats every 0.1 s until the block is left: an exception raised where Python discards
    it (a weak-reference callback or a finaliser the collector happens to run) is raised again,
    and Python's "Exception ignored" message for the discarded one is left out.

    Limits nest: inside a block whose own limit comes first this one adds nothing (the outer
    one fires, with its error); otherwise the outer limit waits and runs on, with the time it
    had left, when the block is left."""
    if seconds <= 0 or not hasattr(signal, "setitimer"):
        yield
        return
    outer_left = signal.getitimer(signal.ITIMER_REAL)[0]
    if 0 < outer_left <= seconds:
        yield
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0.1)
        raise error()

    try:
        old = signal.signal(signal.SIGALRM, expire)
    except ValueError:  # not the main thread
        yield
        return
    unraisable = sys.unraisablehook

    def discarded(info: Any) -> None:
        if not isinstance(info.exc_value, error):  # raised again: not worth a traceback
            unraisable(info)

    sys.unraisablehook = discarded
    entered = time.monotonic()
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        sys.unraisablehook = unraisable
        if outer_left > 0:
            left = outer_left - (time.monotonic() - entered)
            signal.setitimer(signal.ITIMER_REAL, max(left, 1e-3))


def stop_at(deadline: float, error: type[BaseException]) -> AbstractContextManager[None]:
    """``time_limit`` until ``STOP_GRACE_SECONDS`` after ``deadline`` (a ``time.monotonic``
    instant): how a campaign bounds its run of Hypothesis."""
    return time_limit(max(deadline - time.monotonic(), 0.0) + STOP_GRACE_SECONDS, error)


def reset_time_limit(seconds: float) -> None:
    """Make the limit of the ``time_limit`` block now running (the innermost) expire
    ``seconds`` from now instead; nothing where no limit is in force."""
    if hasattr(signal, "setitimer") and signal.getitimer(signal.ITIMER_REAL)[0] > 0:
        signal.setitimer(signal.ITIMER_REAL, max(seconds, 1e-3))


def check_pass(
    p: Pass,
    mod: IRModule,
    arguments: Sequence[Value] | None,
    *,
    timeout: float = 0,
    fuel: int = DEFAULT_FUEL,
    reduction_length: int = 1,
    opt_level: int = 3,
) -> Verdict | None:
    """Run ``p`` on ``mod`` under the oracle instrument; the verdict if it failed, else
    ``None``. A pipeline (``Sequential``) is checked after each pass it runs."""
    oracle = OracleInstrument(arguments, fuel=fuel, reduction_length=reduction_length)
    return run_checked(p, mod, oracle, timeout, opt_level)


def check_pass_many(
    p: Pass,
    mod: IRModule,
    arg_sets: Sequence[Sequence[Value]],
    *,
    timeout: float = 0,
    fuel: int = DEFAULT_FUEL,
    reduction_length: int = 1,
    opt_level: int = 3,
) -> Verdict | None:
    """``check_pass`` with several argument lists for ``@main``: the pass, the
    well-formedness and type checks run once, and input and output are compared on every
    list, in order; the first list on which they differ gives the verdict (with its inputs).
    ``timeout`` bounds the whole check. No lists: the structural checks only."""
    oracle = OracleInstrument(
        None, fuel=fuel, reduction_length=reduction_length, argument_sets=arg_sets
    )
    return run_checked(p, mod, oracle, timeout, opt_level)


def run_checked(
    p: Pass, mod: IRModule, oracle: OracleInstrument, timeout: float, opt_level: int
) -> Verdict | None:
    """Run ``p`` on ``mod`` under ``oracle`` within ``timeout`` seconds; the verdict if a
    check failed or the pass crashed, looped or returned something else than a module."""
    ctx = PassContext(opt_level=opt_level, instruments=(oracle,))
    try:
        with time_limit(timeout), ctx:
            # run_pass raises PassError for an output that is not a module.
            if isinstance(p, Sequential):
                p(mod)
            else:
                run_pass(p, mod, ctx)
    except PassCheckFailure as failure:
        return failure.verdict
    except PassError as err:
        return Verdict(err.pass_name or p.name, "not-a-module", err.message)
    except PassTimeout:
        return Verdict(p.name, "timeout", f"did not finish within {timeout:g} s")
    except RecursionError:
        return Verdict(p.name, "crash", "RecursionError: maximum recursion depth exceeded")
    except Exception as err:  # the pass's own bug: reported, not crashed on
        tb = traceback.format_exception(type(err), err, err.__traceback__)
        return Verdict(p.name, "crash", f"{type(err).__name__}: {err}", detail="".join(tb[-6:]))
    return None


__all__ = [
    "DEFAULT_FUEL",
    "STOP_GRACE_SECONDS",
    "OracleInstrument",
    "PassCheckFailure",
    "PassTimeout",
    "Verdict",
    "check_pass",
    "check_pass_many",
    "fill_unknown_dims",
    "fingerprint",
    "reset_time_limit",
    "run_checked",
    "run_main",
    "stop_at",
    "time_limit",
]
