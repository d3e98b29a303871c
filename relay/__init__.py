"""Relay: a reference implementation of the Relay IR (Roesch et al., arXiv 1904.08368).

The public API is small; everything else is reachable through the subpackages
``relay.semantics``, ``relay.interpreter``, ``relay.compiler``, ``relay.targets`` and
``relay.oracles``.

- ``parse(text, source_name="<string>") -> IRModule``: a module, or a bare expression, which
  becomes ``@main`` over its free variables;
- ``astext(mod, *, types=False) -> str`` (also ``str(mod)``): the canonical text, with
  ``/* ty=... */`` comments if ``types``;
- ``infer_types(mod) -> TypeInfo``: the type of every global and sub-expression; raises
  ``RelayTypeError``;
- ``evaluate(mod, *args, entry="main", engine="interpreter") -> Value``: apply a global to
  arguments (numpy arrays or values) and return its value;
- ``RelayError`` and its subclasses.
"""

import numpy as np
import numpy.typing as npt

from .semantics.errors import (
    BackendError,
    Exhaustion,
    ParseError,
    PassError,
    RelayError,
    RelayRuntimeError,
    RelayTypeError,
    Stuck,
    UndefinedBehavior,
)
from .semantics.syntax import IRModule
from .semantics.text.parser import parse
from .semantics.text.printer import astext as _astext
from .semantics.typing import TypeInfo, infer_types
from .semantics.values import TensorValue, Value


def astext(mod: IRModule, *, types: bool = False) -> str:
    """The canonical text of ``mod``; with ``types``, annotated with inferred types.

    ``types=True`` type-checks the module first and so raises ``RelayTypeError`` if it is
    ill-typed.
    """
    if not types:
        return _astext(mod)
    info = infer_types(mod)
    return _astext(mod, lambda e: info.expr_types.get(e))


def evaluate(
    mod: IRModule,
    *args: Value | npt.NDArray[np.generic] | np.generic,
    entry: str = "main",
    engine: str = "interpreter",
    fuel: int = 1_000_000,
) -> Value:
    """Apply the global ``entry`` of ``mod`` to ``args`` and return the value.

    Each argument is a value (``relay.semantics.values``) or a numpy array or scalar, which
    becomes a ``TensorValue`` of its own dtype (so write ``np.float32(1)``, not ``1.0``).
    ``engine`` is ``"interpreter"`` (the definitional interpreter; until it lands this runs
    the spec) or ``"spec"`` (the big-step rules). The module should be well-typed
    (``infer_types``): on an ill-typed one evaluation may get ``Stuck``. Raises
    ``RelayRuntimeError``, ``UndefinedBehavior`` or ``Exhaustion`` (out of ``fuel``) when
    evaluation fails. A returned reference's contents are not part of the value: use the
    engines in ``relay.oracles.conformance`` to get the final store as well.
    """
    from .oracles.conformance import ENGINES, engine_named, interpreter_engine

    if engine not in ENGINES:
        raise ValueError(f"engine={engine!r} is not one of {', '.join(map(repr, ENGINES))}")
    run = interpreter_engine() if engine == "interpreter" else None
    if run is None:
        run = engine_named("spec")
    values = tuple(_as_value(a, i) for i, a in enumerate(args, start=1))
    return run(mod, values, entry=entry, fuel=fuel).value


def _as_value(arg: object, index: int) -> Value:
    from .semantics.syntax import DTYPES
    from .semantics.values import (
        ClosureValue,
        ConstructorFnValue,
        ConstructorValue,
        RefValue,
        TupleValue,
    )

    if isinstance(arg, TensorValue | TupleValue | ClosureValue | ConstructorValue
                  | ConstructorFnValue | RefValue):  # fmt: skip
        return arg
    if isinstance(arg, np.ndarray | np.generic):
        data = np.asarray(arg)
        if data.dtype.name not in DTYPES:
            raise TypeError(f"argument {index} has dtype {data.dtype.name}; expected one of "
                            f"{', '.join(DTYPES)}")  # fmt: skip
        return TensorValue(np.array(data, dtype=data.dtype.name, order="C"))  # keeps rank 0
    raise TypeError(
        f"argument {index} is a {type(arg).__name__}; expected a numpy array or scalar (such as "
        "np.float32(1.5)) or a value from relay.semantics.values"
    )


__version__ = "0.1.0"

__all__ = [
    "BackendError",
    "Exhaustion",
    "IRModule",
    "ParseError",
    "PassError",
    "RelayError",
    "RelayRuntimeError",
    "RelayTypeError",
    "Stuck",
    "TypeInfo",
    "UndefinedBehavior",
    "__version__",
    "astext",
    "evaluate",
    "infer_types",
    "parse",
]
