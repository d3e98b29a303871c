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
   loop.

The instrument also checks that the pass did not change its input (the printed text and the
identity of every global function are the same after the pass as before it).

A failure raises ``PassCheckFailure`` carrying a ``Verdict``: the pass, the kind of failure,
a one-line message and, for a value mismatch, the inputs and both values.
"""

from __future__ import annotations

import signal
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import FrameType

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
    FuncType,
    IRModule,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeCall,
)
from relay.semantics.text.printer import astext, format_type
from relay.semantics.typing import TypeInfo, infer_types
from relay.semantics.values import Store, Value, format_value

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


def _clip(text: str, limit: int = 2000) -> str:
    return text if len(text) <= limit else text[:limit] + f" ... ({len(text)} characters)"


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
    (for a module whose ``@main`` takes parameters no generator can make).
    """

    arguments: Sequence[Value] | None
    fuel: int = DEFAULT_FUEL
    reduction_length: int = 1
    _snapshots: list[tuple[str, list[tuple[int, int]]]] = field(default_factory=list)
    _outcomes: dict[int, tuple[IRModule, _Outcome]] = field(default_factory=dict)
    _types: dict[int, tuple[IRModule, TypeInfo]] = field(default_factory=dict)

    def before_pass(self, p: Pass, mod: IRModule) -> None:
        self._snapshots.append((astext(mod), _identity(mod)))

    def after_pass(self, p: Pass, before: IRModule, after: IRModule) -> None:
        text, ids = self._snapshots.pop()
        if _identity(before) != ids or astext(before) != text:
            raise PassCheckFailure(
                Verdict(p.name, "mutated-input", "the pass changed the module it was given")
            )
        self.check(p.name, before, after)

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
        old = self._typed(before)
        try:
            new = infer_types(after)
        except RelayTypeError as err:
            raise PassCheckFailure(
                Verdict(pass_name, "ill-typed", str(err), detail=_clip(astext(after), 4000))
            ) from None
        self._types[id(after)] = (after, new)
        if "main" in before and "main" not in after:
            raise PassCheckFailure(Verdict(pass_name, "type-changed", "@main was removed"))
        for name, t in old.globals.items():
            u = new.globals.get(name)
            if u is not None and not alpha_equal(fill_unknown_dims(t, u), u):
                raise PassCheckFailure(
                    Verdict(
                        pass_name,
                        "type-changed",
                        f"@{name} had type {format_type(t)}, now {format_type(u)}",
                    )
                )
        if self.arguments is None or "main" not in before:
            return
        expected = self._run(before, self.fuel)
        if expected.error is not None:
            return  # undefined, failing or non-terminating input: anything goes
        actual = self._run(after, 4 * self.fuel)
        inputs = tuple(_clip(format_value(a, {})) for a in self.arguments)
        if actual.error is not None:
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
        )
        if diff is not None:
            raise PassCheckFailure(
                Verdict(
                    pass_name,
                    "mismatch",
                    "the output computes a different value",
                    inputs,
                    expected.describe(),
                    actual.describe(),
                    detail=f"first difference: {diff}",
                )
            )

    def _typed(self, mod: IRModule) -> TypeInfo:
        cached = self._types.get(id(mod))
        if cached is not None and cached[0] is mod:
            return cached[1]
        info = infer_types(mod)
        self._types[id(mod)] = (mod, info)
        return info

    def _run(self, mod: IRModule, fuel: int) -> _Outcome:
        cached = self._outcomes.get(id(mod))
        if cached is not None and cached[0] is mod:
            return cached[1]
        assert self.arguments is not None
        out = run_main(mod, self.arguments, fuel)
        self._outcomes[id(mod)] = (mod, out)
        return out


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


def _identity(mod: IRModule) -> list[tuple[int, int]]:
    return [(id(gv), id(f)) for gv, f in mod.functions.items()] + [
        (id(h), id(d)) for h, d in mod.type_definitions.items()
    ]


class PassTimeout(Exception):
    """The per-example time limit ran out."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise ``PassTimeout`` in the main thread if the block runs longer than ``seconds``
    (``SIGALRM``; no limit where that is not available or off the main thread)."""
    if seconds <= 0 or not hasattr(signal, "setitimer"):
        yield
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        raise PassTimeout()

    try:
        old = signal.signal(signal.SIGALRM, expire)
    except ValueError:  # not the main thread
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


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
    "OracleInstrument",
    "PassCheckFailure",
    "PassTimeout",
    "Verdict",
    "check_pass",
    "fill_unknown_dims",
    "run_main",
    "time_limit",
]
