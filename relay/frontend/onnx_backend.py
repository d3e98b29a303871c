"""ONNX's backend interface over Relay, and the runner of ONNX's node conformance cases.

``RelayBackend`` implements ``onnx.backend.base.Backend``: ``prepare(model)`` imports the model
(``relay.frontend.from_onnx``) and returns a ``RelayBackendRep`` whose ``run(inputs)`` applies
``@main`` on the interpreter (``engine="spec"`` for the big-step rules, ``engine="cpu"`` for
the CPU target: ``relay.targets.get_target("cpu").compile(mod)``, compiled once per module)
and returns the outputs as numpy arrays. So ``onnx.backend.test.BackendTest(RelayBackend,
__name__)`` runs ONNX's own suite against Relay::

    import onnx.backend.test
    from relay.frontend.onnx_backend import RelayBackend
    globals().update(onnx.backend.test.BackendTest(RelayBackend, __name__).test_cases)

``node_cases()`` and ``run_case(case)`` run the node cases directly, the way ``BackendTest``
does (each data set through ``prepare``/``run``, compared with ``assert_similar_outputs`` at the
case's own ``rtol``/``atol``), but returning an outcome instead of raising, for the test that
holds the results against the expected-failure list and for ``benchmarks/onnx_suite.py``.

The expected-failure list (``read_expected_failures``) is data: one line per case,
``test_name: category: reason`` (the reason may contain colons), ``#`` comments and blank
lines ignored. The category is ``unsupported`` (the case needs an ONNX op, element type or
feature with no Relay equivalent: those cases are outside the pass-rate goal), ``missing``
(Relay could express it; the importer does not translate it yet) or ``wrong`` (translated, but
the result differs: the reason says how).
"""

from __future__ import annotations

import importlib
import time
import warnings
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import onnx
from onnx.backend.base import Backend, BackendRep

from .. import evaluate
from ..semantics.errors import RelayError
from ..semantics.syntax import IRModule
from ..semantics.values import TensorValue, TupleValue, Value
from . import OnnxImportError, from_onnx

Array = npt.NDArray[Any]

TARGET_ENGINES = ("cpu",)
"""The engines that are compiled targets (``relay.targets.get_target(name)``), beside the
interpreter's ``"interpreter"`` and ``"spec"``."""

CATEGORIES = ("unsupported", "missing", "wrong")
"""The categories of an expected failure."""


def _arrays(value: Value) -> tuple[Array, ...]:
    if isinstance(value, TensorValue):
        return (value.data,)
    if isinstance(value, TupleValue):
        out: list[Array] = []
        for field in value.fields:
            out.extend(_arrays(field))
        return tuple(out)
    raise TypeError(f"an ONNX graph output cannot be a {type(value).__name__}")


class RelayBackendRep(BackendRep):
    """A prepared model: the imported module and the engine that runs it.

    Specialisation: where Relay takes as an attribute what the graph computes from an input
    (a ``Reshape`` whose shape is a graph input, a ``ReduceSum`` whose axes are), the module
    cannot be built before the input's value is known. Such inputs are then bound at ``run``:
    the model is imported with them as constants (``from_onnx(..., bind=...)``), once per
    distinct value. Every other input stays a parameter of ``@main``.
    """

    def __init__(self, model: onnx.ModelProto, engine: str = "interpreter") -> None:
        self.model = model
        self.engine = engine
        self.names = _graph_inputs(model)
        self.bound: list[str] = []
        self.modules: dict[bytes, IRModule] = {}
        self.executables: dict[int, tuple[IRModule, Any]] = {}
        self.mod: IRModule | None = self._specialise({})

    def _specialise(self, values: dict[str, Array]) -> IRModule | None:
        """The module with the inputs of ``self.bound`` bound to ``values``. An import that
        needs one more graph input as a constant adds it to ``self.bound`` and retries; with
        no ``values`` yet (at ``prepare``) that gives ``None``: the module waits for ``run``."""
        while True:
            key = b"".join(values[n].tobytes() + repr(values[n].shape).encode()
                           for n in self.bound)  # fmt: skip
            if key in self.modules:
                return self.modules[key]
            try:
                mod = from_onnx(self.model, bind={n: values[n] for n in self.bound})
            except OnnxImportError as err:
                name = err.value_name
                if err.kind == "constant" and name in self.names and name not in self.bound:
                    if not values:
                        return None
                    self.bound.append(name)
                    continue
                raise
            self.modules[key] = mod
            return mod

    def run(self, inputs: Any, **kwargs: Any) -> tuple[Array, ...]:
        """The graph's outputs on ``inputs`` (a list of arrays in graph-input order, or one
        array, or a dict by input name)."""
        if isinstance(inputs, dict):
            values = {name: np.asarray(inputs[name]) for name in self.names}
        elif isinstance(inputs, np.ndarray):
            values = dict(zip(self.names, [inputs], strict=True))
        else:
            values = dict(zip(self.names, [np.asarray(a) for a in inputs], strict=True))
        mod = self.mod if self.mod is not None and not self.bound else self._specialise(values)
        assert mod is not None
        args = [values[n] for n in self.names if n not in self.bound]
        if self.engine in TARGET_ENGINES:
            return _arrays(self._executable(mod).run(*(TensorValue(a) for a in args)))
        value = evaluate(mod, *args, engine=self.engine)
        return _arrays(value)

    def _executable(self, mod: IRModule) -> Any:
        """``mod`` compiled for the target ``self.engine``, once (``relay.targets``, imported
        here: the frontend does not need the targets to import models)."""
        found = self.executables.get(id(mod))
        if found is not None and found[0] is mod:
            return found[1]
        # Through importlib, so that this reads the same to mypy with and without targets'
        # get_target (the targets arrive on another branch).
        targets = importlib.import_module("..targets", __package__)
        executable = targets.get_target(self.engine).compile(mod)
        self.executables[id(mod)] = (mod, executable)
        return executable


def _graph_inputs(model: onnx.ModelProto) -> list[str]:
    """The names of the graph inputs that are not initializers, in order."""
    inits = {i.name for i in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in inits]


class RelayBackend(Backend):
    """ONNX models run by Relay's interpreter or its CPU target (CPU only)."""

    @classmethod
    def prepare(cls, model: onnx.ModelProto, device: str = "CPU", **kwargs: Any) -> RelayBackendRep:
        """Import ``model``; ``engine="spec"`` selects the big-step rules, ``engine="cpu"``
        the CPU target."""
        return RelayBackendRep(model, str(kwargs.get("engine", "interpreter")))

    @classmethod
    def run_model(
        cls, model: onnx.ModelProto, inputs: Any, device: str = "CPU", **kwargs: Any
    ) -> tuple[Array, ...]:
        """Import and run ``model`` once."""
        return cls.prepare(model, device, **kwargs).run(inputs)

    @classmethod
    def supports_device(cls, device: str) -> bool:
        """Only the CPU."""
        return device.upper() == "CPU"


@dataclass(frozen=True)
class Expected:
    """An expected failure: its category (``CATEGORIES``) and reason."""

    category: str
    reason: str


def read_expected_failures(text: str, source: str = "<expected failures>") -> dict[str, Expected]:
    """Parse the expected-failure list (format in the module docstring); ``ValueError`` with
    ``FILE:LINE`` on a malformed line or a duplicate."""
    out: dict[str, Expected] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split(":", 2)]
        if len(parts) != 3 or not all(parts) or parts[1] not in CATEGORIES:
            raise ValueError(f"{source}:{number}: expected 'test_name: category: reason' with a "
                             f"category in {', '.join(CATEGORIES)}, found {line!r}")  # fmt: skip
        if parts[0] in out:
            raise ValueError(f"{source}:{number}: {parts[0]} is listed twice")
        out[parts[0]] = Expected(parts[1], parts[2])
    return out


def node_cases() -> list[Any]:
    """ONNX's node test cases (``onnx.backend.test.case.TestCase``), generated by the
    installed ``onnx`` (its expected outputs come from its own numpy code), sorted by name."""
    from onnx.backend.test.loader import load_node_model_tests

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        cases = list(load_node_model_tests())
    return sorted(cases, key=lambda c: c.name)


def case_ops(case: Any) -> tuple[str, ...]:
    """The ONNX op types a node case's graph uses, sorted."""
    return tuple(sorted({n.op_type for n in case.model.graph.node}))


@dataclass(frozen=True)
class Outcome:
    """What running one node case gave: ``status`` is ``pass``, ``unsupported`` (the import
    said the op or a feature is not supported), ``error`` (another import or run failure) or
    ``mismatch`` (outputs differ); ``message`` says why; ``seconds`` is the time it took."""

    name: str
    ops: tuple[str, ...]
    status: str
    message: str
    seconds: float


def run_case(case: Any, engine: str = "interpreter") -> Outcome:
    """Run one node case as ``BackendTest`` does; never raises for a failing case."""
    from onnx.backend.test.runner import Runner

    start = time.perf_counter()

    def done(status: str, message: str) -> Outcome:
        elapsed = time.perf_counter() - start
        return Outcome(case.name, case_ops(case), status, message, elapsed)

    try:
        rep = RelayBackend.prepare(case.model, engine=engine)
    except OnnxImportError as err:
        return done("unsupported" if err.kind == "unsupported" else "error", err.message)
    except RelayError as err:
        return done("error", f"import: {type(err).__name__}: {err.message}")
    except Exception as err:  # a bug in the importer: reported, counted as a failure
        return done("error", f"import crashed: {type(err).__name__}: {err}")
    for inputs, expected in case.data_sets:
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                actual = rep.run([_normalize(a) for a in inputs])
        except OnnxImportError as err:
            return done("unsupported" if err.kind == "unsupported" else "error", err.message)
        except RelayError as err:
            return done("error", f"run: {type(err).__name__}: {err.message}")
        except Exception as err:
            return done("error", f"run crashed: {type(err).__name__}: {err}")
        try:
            wanted = [_normalize(a) for a in expected]
            Runner.assert_similar_outputs(wanted, list(actual), case.rtol, case.atol)
        except AssertionError as err:
            first = " ".join(str(err).split())[:300]
            return done("mismatch", first)
    return done("pass", "")


def _normalize(a: Any) -> Any:
    """A ``TensorProto`` in a case's data as an array (the cases hold both)."""
    if isinstance(a, onnx.TensorProto):
        from onnx import numpy_helper

        return numpy_helper.to_array(a)
    return a


def run_cases(cases: Iterable[Any], engine: str = "interpreter") -> list[Outcome]:
    """``run_case`` on each case."""
    return [run_case(c, engine) for c in cases]


__all__ = [
    "CATEGORIES",
    "TARGET_ENGINES",
    "Expected",
    "Outcome",
    "RelayBackend",
    "RelayBackendRep",
    "case_ops",
    "node_cases",
    "read_expected_failures",
    "run_case",
    "run_cases",
]
