"""A deliberately wrong target for the conformance-kit tests (``tests/test_conform_kit.py``).

``skewed`` runs every program with the interpreter, but when the program calls ``negative``
it adds one to every float tensor of the result: so every case that calls ``negative`` and
returns a float fails, and nothing else does. It declares references unsupported, so the
reference cases are skipped. ``install(folder)`` makes it an installed third-party target
(a ``dist-info`` with a ``relay.targets`` entry point in ``folder``, for ``sys.path`` or
``PYTHONPATH``), as a backend author's package would be.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from relay.interpreter import evaluate
from relay.oracles.conform_kit import operators
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
