"""The ``onnxruntime`` Relay target: dataflow programs run as ONNX models by onnxruntime.

``OnnxRuntimeTarget().compile(mod)`` checks that the module uses only what the target
supports (``supports``: the operators of ``convert.KERNELS``; ``supports_feature``: tuples,
and none of control flow, closures, ADTs, references or recursion), then returns an
executable that converts each entry function it is asked to run to an ONNX model
(``convert.to_onnx``) once, and runs it with onnxruntime's CPU execution provider.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np

from relay.semantics.errors import BackendError
from relay.semantics.evaluation import Result
from relay.semantics.syntax import IRModule
from relay.semantics.values import TensorValue, TupleValue, Value
from relay.targets.base import Executable, Target

from .convert import KERNELS, Converted, to_onnx
from .convert import Value as Structure

LIMITATIONS = ("dynamic-shape", "recursion")
"""What the converter may meet beyond operators and features (see ``convert``)."""


class OnnxRuntimeExecutable(Executable):
    """A module whose entry functions run as ONNX models."""

    def __init__(self, mod: IRModule) -> None:
        self.mod = mod
        self.sessions: dict[str, tuple[Converted, object]] = {}

    def session(self, entry: str) -> tuple[Converted, object]:
        """The converted model and onnxruntime session of ``@entry``, made on first use."""
        found = self.sessions.get(entry)
        if found is None:
            import onnxruntime as ort

            converted = to_onnx(self.mod, entry)
            options = ort.SessionOptions()
            options.log_severity_level = 3  # errors only: no warnings on stderr
            session = ort.InferenceSession(converted.model, options,
                                           providers=["CPUExecutionProvider"])  # fmt: skip
            found = self.sessions[entry] = (converted, session)
        return found

    def evaluate(
        self, args: Sequence[Value], *, entry: str = "main", fuel: int | None = None
    ) -> Result:
        """Run ``@entry`` on ``args`` (tensors, or tuples of them) with onnxruntime; ``fuel``
        does not apply (a dataflow graph always ends)."""
        converted, session = self.session(entry)
        arrays = [leaf for a in args for leaf in _flatten(a)]
        feeds = dict(zip(converted.inputs, arrays, strict=True))
        outputs = session.run(None, feeds)  # type: ignore[attr-defined]
        names = [o.name for o in session.get_outputs()]  # type: ignore[attr-defined]
        by_name = {n: np.asarray(v) for n, v in zip(names, outputs, strict=True)}
        return Result(_value(converted.result, by_name), {}, None, Counter())

    def artifacts(self) -> dict[str, dict[str, str | bytes]]:
        """The ONNX model of each entry converted so far (``"onnx"``: its bytes)."""
        return {entry: {"onnx": c.model} for entry, (c, _) in self.sessions.items()}


def _flatten(v: Value) -> list[np.ndarray]:
    if isinstance(v, TupleValue):
        return [leaf for f in v.fields for leaf in _flatten(f)]
    if isinstance(v, TensorValue):
        return [np.array(v.data, order="C")]  # ascontiguousarray makes a scalar 1-d
    raise BackendError(f"target onnxruntime takes tensors and tuples, not {type(v).__name__}")


def _value(structure: Structure, by_name: dict[str, np.ndarray]) -> Value:
    if isinstance(structure, str):
        return TensorValue(by_name[structure])
    return TupleValue(tuple(_value(f, by_name) for f in structure))


class OnnxRuntimeTarget(Target):
    """Relay dataflow programs on onnxruntime (see the module docstring)."""

    name = "onnxruntime"
    description = "dataflow programs as ONNX models, run by onnxruntime"

    def supports(self, op: str) -> str | None:
        """``None`` for the operators of ``KERNELS``."""
        return None if op in KERNELS else "no ONNX conversion for it in this target"

    def supports_feature(self, feature: str) -> str | None:
        """Tuples only; and no ``OP:DTYPE`` without a kernel, no ``?`` dimension, no
        recursion (the limitations ``convert`` names)."""
        if feature == "tuples":
            return None
        if feature in LIMITATIONS:
            return f"{feature}: dataflow programs with static shapes only"
        if ":" in feature:
            return f"{feature}: onnxruntime has no kernel for this dtype"
        return "dataflow programs only"

    def compile(self, mod: IRModule, opt_level: int = 3) -> OnnxRuntimeExecutable:
        """Check what the module uses; the entry functions convert when first run (the
        converter's errors are ``BackendError``s naming what it lacks)."""
        self.check_supported(mod)
        exe = OnnxRuntimeExecutable(mod)
        if "main" in mod:  # converted now, so that what it cannot convert is a compile error
            exe.session("main")
        return exe
