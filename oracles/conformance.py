"""Running the conformance corpus: each case (``relay.oracles.corpus``) on an engine
(``relay.oracles.engines``), its result judged against the case's expectation with
``relay.oracles.compare.compare_values``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..semantics.errors import (
    RelayError,
    Stuck,
)
from .compare import compare_values
from .corpus import ERROR_KINDS, Case, ExpectError, ExpectValue, corpus, load_case
from .engines import Engine, EvalResult


@dataclass(frozen=True, slots=True)
class CaseResult:
    """The outcome of one case on one engine: ``ok``, or ``message`` saying what differed."""

    case: Case
    ok: bool
    message: str = ""
    result: EvalResult | None = None
    error: RelayError | None = None


def run_case(case: Case, engine: Engine) -> CaseResult:
    """Run ``case`` on ``engine`` and judge the outcome against its expectation.

    A ``RelayError`` from the engine is an outcome (expected or not); any other exception is a
    bug in the engine or the harness and propagates.
    """
    try:
        result = engine(case.module, case.args, entry=case.entry, fuel=case.fuel)
    except RelayError as err:
        return _judge_error(case, err)
    match case.expect:
        case ExpectError(kind, text):
            return CaseResult(case, False, f"expected {kind} ({text!r}), but evaluation "
                              f"returned {_short(result)}", result)  # fmt: skip
        case ExpectValue(value, store, aliasing):
            message = compare_values(value, result.value, expected_store=store,
                                     actual_store=result.store, aliasing=aliasing,
                                     reduction_length=case.reduction_length)  # fmt: skip
            return CaseResult(case, message is None, message or "", result)


def _judge_error(case: Case, err: RelayError) -> CaseResult:
    kind = type(err).__name__
    if isinstance(err, Stuck):
        return CaseResult(case, False, f"evaluation got stuck (a bug): {err}", error=err)
    match case.expect:
        case ExpectError(expected_kind, text):
            if not isinstance(err, ERROR_KINDS[expected_kind]):
                return CaseResult(case, False, f"expected {expected_kind}, found {kind}: {err}",
                                  error=err)  # fmt: skip
            if text not in err.message:
                return CaseResult(case, False, f"expected {expected_kind} containing {text!r}, "
                                  f"found: {err.message}", error=err)  # fmt: skip
            return CaseResult(case, True, error=err)
        case ExpectValue():
            return CaseResult(case, False, f"expected a value, found {kind}: {err}", error=err)


def _short(result: EvalResult) -> str:
    from ..semantics.values import format_value

    text = format_value(result.value, result.store)
    return text if len(text) <= 80 else text[:77] + "..."


def run_corpus(
    folder: str | Path, engine: Engine, *, on_case: Callable[[CaseResult], None] | None = None
) -> list[CaseResult]:
    """Load and run every case of ``folder`` on ``engine``, in name order."""
    results = []
    for path in corpus(folder):
        outcome = run_case(load_case(path), engine)
        if on_case is not None:
            on_case(outcome)
        results.append(outcome)
    return results


__all__ = ["CaseResult", "run_case", "run_corpus"]
