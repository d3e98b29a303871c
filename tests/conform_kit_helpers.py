"""A deliberately wrong target for the conformance-kit tests (``tests/test_conform_kit.py``).

``skewed`` runs every program with the interpreter, but when the program calls ``negative``
it adds one to every float tensor of the result: so every case that calls ``negative`` and
returns a float fails, and nothing else does. It declares references unsupported, so the
reference cases are skipped. ``install(folder)`` makes it an installed third-party target
(a ``dist-info`` with a ``relay.targets`` entry point in ``folder``, for ``sys.path`` or
``PYTHONPATH``), as a backend author's package would be.

The generated programs a test runs change whenever the generators do, so the tests do not
name them: ``skewed_status`` says what the skewed target must give on a drawn program, and
``skew_draw`` finds a seed whose draw has a program that fails and one that passes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from relay.interpreter import evaluate
from relay.oracles.conform_kit import ConformCase, conform_cases, operators
from relay.semantics.errors import Exhaustion, UndefinedBehavior
from relay.semantics.evaluation import Result
from relay.semantics.syntax import IRModule
from relay.semantics.values import TensorValue, TupleValue, Value
from relay.targets.base import ENTRY_POINT_GROUP, Executable, Target

SKEWED_OP = "negative"


def skew(v: Value) -> Value:
    """``v`` with one added to every float tensor in it."""
    if isinstance(v, TensorValue) and v.data.dtype.kind == "f":
        return TensorValue((v.data + np.ones((), v.data.dtype)).astype(v.data.dtype))
    if isinstance(v, TupleValue):
        return TupleValue(tuple(skew(f) for f in v.fields))
    return v


def skewed(v: Value) -> bool:
    """Whether ``skew`` changes ``v``: it holds a float tensor (in nested tuples)."""
    if isinstance(v, TensorValue):
        return v.data.dtype.kind == "f"
    return isinstance(v, TupleValue) and any(skewed(f) for f in v.fields)


class SkewedExecutable(Executable):
    """The interpreter, wrong whenever the module calls ``negative``."""

    def __init__(self, mod: IRModule) -> None:
        self.mod = mod
        self.wrong = SKEWED_OP in operators(mod)

    def evaluate(
        self, args: Sequence[Value], *, entry: str = "main", fuel: int | None = None
    ) -> Result:
        """The interpreter's result, skewed if the module calls ``negative``."""
        result = evaluate(self.mod, args, entry=entry, fuel=fuel)
        return replace(result, value=skew(result.value)) if self.wrong else result

    def artifacts(self) -> dict[str, dict[str, str | bytes]]:
        """No kernels."""
        return {}


class SkewedTarget(Target):
    """Every operator, no references; wrong on ``negative``."""

    name = "skewed"
    description = "a wrong target for tests"

    def supports(self, op: str) -> str | None:
        """Every operator."""
        return None

    def supports_feature(self, feature: str) -> str | None:
        """Everything but references."""
        return "no store" if feature == "references" else None

    def compile(self, mod: IRModule, opt_level: int = 3) -> SkewedExecutable:
        """Check what the module uses, then keep it."""
        self.check_supported(mod)
        return SkewedExecutable(mod)


def install(folder: Path) -> Path:
    """A ``dist-info`` in ``folder`` whose ``relay.targets`` entry point ``skewed`` is this
    module's ``SkewedTarget`` (the module itself must be importable: ``tests/`` on the path)."""
    dist = folder / "skewed_target-0.1.dist-info"
    dist.mkdir(parents=True, exist_ok=True)
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: skewed-target\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        f"[{ENTRY_POINT_GROUP}]\nskewed = conform_kit_helpers:SkewedTarget\n"
    )
    return folder


def skewed_status(case: ConformCase) -> str:
    """What the skewed target gives on a generated ``case``: ``skip`` if it uses references or
    its outcome is undefined or out of fuel, else ``fail`` if it calls ``negative`` and its
    result holds a float tensor, else ``pass``."""
    assert case.generated is not None
    if "references" in case.tags:
        return "skip"
    try:
        results = [evaluate(case.module, args).value for args in case.generated.all_args]
    except (UndefinedBehavior, Exhaustion):
        return "skip"
    wrong = SKEWED_OP in case.ops and any(skewed(v) for v in results)
    return "fail" if wrong else "pass"


def skew_draw(programs: int, need: Sequence[str] = ("pass", "fail")) -> tuple[int, dict[str, str]]:
    """The first seed whose ``programs`` generated programs hold a program of each status of
    ``need`` on the skewed target, and ``skewed_status`` of each of them (by case name)."""
    for seed in range(100):
        want = {c.name: skewed_status(c) for c in conform_cases(None, programs, seed)}
        if set(need) <= set(want.values()):
            return seed, want
    raise AssertionError(f"no seed below 100 draws {need} in {programs} programs")
