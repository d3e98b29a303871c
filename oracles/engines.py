"""The engines a conformance case or a differential check runs on: the big-step spec, the
interpreter, and any target (``target_engine``), each with the signature of
``relay.semantics.evaluation.evaluate``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..compiler.pass_manager import PassContext
from ..semantics.syntax import (
    IRModule,
)
from ..semantics.values import (
    Store,
    Value,
)
from ..targets.base import Executable, Target

NO_COMPILE_TIME_FOLDING = frozenset({"fold-constant"})
"""The passes ``target_engine`` disables by default."""


class EvalResult(Protocol):
    """What an engine returns: the value and the final store (σ) its references live in."""

    @property
    def value(self) -> Value: ...

    @property
    def store(self) -> Store: ...


class Engine(Protocol):
    """An evaluator with the signature of ``relay.semantics.evaluation.evaluate``."""

    def __call__(
        self, mod: IRModule, args: Sequence[Value], *, entry: str = ..., fuel: int = ...
    ) -> EvalResult: ...


ENGINES = ("spec", "interpreter")
"""The engine names ``engine_named`` knows."""


def interpreter_engine() -> Engine | None:
    """``relay.interpreter.evaluate``, or ``None`` while the interpreter has not landed."""
    try:
        from .. import interpreter
    except ImportError:  # pragma: no cover - the package always exists
        return None
    evaluate: object = getattr(interpreter, "evaluate", None)
    if not callable(evaluate):
        return None
    engine: Engine = evaluate
    return engine


def spec_engine() -> Engine:
    """``relay.semantics.evaluation.evaluate``: the big-step rules."""
    from ..semantics.evaluation import evaluate

    engine: Engine = evaluate
    return engine


def target_engine(
    target: Target, *, opt_level: int = 3, disabled: frozenset[str] = NO_COMPILE_TIME_FOLDING
) -> Engine:
    """An engine that compiles each module for ``target`` (once per module object: the last
    few are kept) and runs the compiled code. A module the target cannot compile raises its
    ``BackendError``; a program's failures are the host runtime's (the interpreter's).

    The passes named in ``disabled`` do not run: by default constant folding, which would
    evaluate constant sub-programs with the interpreter at compile time, so that the target's
    own kernels compute every operator call of a test program."""
    compiled: dict[int, tuple[IRModule, Executable]] = {}

    def evaluate(
        mod: IRModule, args: Sequence[Value], *, entry: str = "main", fuel: int = 10_000_000
    ) -> EvalResult:
        entry_ = compiled.get(id(mod))
        if entry_ is None or entry_[0] is not mod:
            if len(compiled) >= 8:
                del compiled[next(iter(compiled))]
            with PassContext(disabled=disabled):
                exe = target.compile(mod, opt_level=opt_level)
            entry_ = compiled[id(mod)] = (mod, exe)
        return entry_[1].evaluate(args, entry=entry, fuel=fuel)

    return evaluate


def engine_named(name: str) -> Engine:
    """The engine called ``name`` (one of ``ENGINES``); ``LookupError`` if it is not there."""
    if name == "spec":
        return spec_engine()
    if name == "interpreter":
        engine = interpreter_engine()
        if engine is None:
            raise LookupError("the interpreter engine is not available yet (relay.interpreter "
                              "has no evaluate); use the spec engine")  # fmt: skip
        return engine
    raise LookupError(f"unknown engine {name!r}: expected one of {', '.join(ENGINES)}")


__all__ = [
    "ENGINES",
    "NO_COMPILE_TIME_FOLDING",
    "Engine",
    "EvalResult",
    "engine_named",
    "interpreter_engine",
    "spec_engine",
    "target_engine",
]
