"""A tiny third-party target, installed by ``tests/test_targets.py`` through the
``relay.targets`` entry-point group (a ``dist-info`` directory on ``sys.path``).

It supports four elementwise operators and every language feature except references, and
"compiles" a module by keeping it for the interpreter: enough to show how an outside package
plugs into ``relay.targets.get_target`` and ``relay conform --target``.
"""

from __future__ import annotations

from collections.abc import Sequence

from relay.interpreter import evaluate
from relay.semantics.evaluation import Result
from relay.semantics.syntax import IRModule
from relay.semantics.values import Value
from relay.targets.base import Executable, Target

SUPPORTED = frozenset({"add", "subtract", "multiply", "negative"})


class ExampleExecutable(Executable):
    """The module, run by the interpreter."""

    def __init__(self, mod: IRModule) -> None:
        self.mod = mod

    def evaluate(
        self, args: Sequence[Value], *, entry: str = "main", fuel: int | None = None
    ) -> Result:
        """``@entry`` applied to ``args`` by the interpreter."""
        return evaluate(self.mod, args, entry=entry, fuel=fuel)

    def artifacts(self) -> dict[str, dict[str, str | bytes]]:
        """One pseudo-kernel: the module's text."""
        return {"module": {"loop-ir": str(self.mod)}}


class ExampleTarget(Target):
    """Adds, subtracts, multiplies and negates; no references."""

    name = "example"
    description = "a test target"

    def supports(self, op: str) -> str | None:
        """Only the four operators of ``SUPPORTED``."""
        return None if op in SUPPORTED else "the example target only adds and multiplies"

    def supports_feature(self, feature: str) -> str | None:
        """Everything but references."""
        return "the example target has no store" if feature == "references" else None

    def compile(self, mod: IRModule, opt_level: int = 3) -> ExampleExecutable:
        """Check what the module uses, then keep it."""
        self.check_supported(mod)
        return ExampleExecutable(mod)
