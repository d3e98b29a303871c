"""The engines a conformance case or a differential check runs on: the big-step spec and the
interpreter, each with the signature of ``relay.semantics.evaluation.evaluate``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ..semantics.syntax import (
    IRModule,
)
from ..semantics.values import (
    Store,
    Value,
)


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


__all__ = ["ENGINES", "Engine", "EvalResult", "engine_named", "interpreter_engine", "spec_engine"]
