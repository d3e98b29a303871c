"""Relay: a reference implementation of the Relay IR (Roesch et al., arXiv 1904.08368).

The public API is small; everything else is reachable through the subpackages
``relay.semantics``, ``relay.interpreter``, ``relay.compiler``, ``relay.targets`` and
``relay.oracles``.

- ``parse(text, source_name="<string>", *, prelude=None) -> IRModule``: a module, or a bare
  expression, which becomes ``@main`` over its free variables; with a ``prelude`` module, its
  types, constructors and globals are in scope and the result holds both;
- ``astext(mod, *, types=False) -> str`` (also ``str(mod)``): the canonical text, with
  ``/* ty=... */`` comments if ``types``;
- ``infer_types(mod) -> TypeInfo``: the type of every global and sub-expression; raises
  ``RelayTypeError``;
- ``evaluate(mod, *args, entry="main", engine="interpreter", fuel=None) -> Value``: type-check
  the module and the arguments (numpy arrays or values) against the global's parameters,
  apply it, and return its value;
- ``build(mod, target="cpu", *, opt_level=3, threads=None) -> Built``: the module compiled
  for a target (``relay.targets``); ``built.run(*args, entry="main")`` checks the arguments as
  ``evaluate`` does and runs the compiled code; ``built.artifacts()`` is each kernel's code;
- ``RelayError`` and its subclasses.
"""

import numpy as np
import numpy.typing as npt

from . import deferred_imports  # noqa: F401  (first: sympy loads only when a program needs it)

# isort: split
from . import api as _api
from .api import ArgumentError
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
from .semantics.errors import Span as _Span
from .semantics.syntax import IRModule
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


def parse(text: str, source_name: str = "<string>", *, prelude: IRModule | None = None) -> IRModule:
    """Parse a module, or a bare expression (which becomes ``@main`` over its free variables).

    With ``prelude`` (a module, such as one ``parse`` returned), the prelude's types,
    constructors and globals are in scope in ``text``, and the result holds the prelude's
    definitions followed by those of ``text``: the module to check and run (TVM loaded its
    ``prelude.rly`` this way before ``nat.rly``). Redefining a name of the prelude is a
    ``ParseError``. Several preludes: parse each with the ones before it as its prelude.
    Raises ``ParseError`` (with a span) for anything that is not a Relay program.
    """
    return _api.merge(prelude, _api.parse_in_scope(text, source_name, prelude))


def evaluate(
    mod: IRModule,
    *args: Value | npt.NDArray[np.generic] | np.generic,
    entry: str = "main",
    engine: str = "interpreter",
    fuel: int | None = None,
) -> Value:
    """Apply the global ``entry`` of ``mod`` to ``args`` and return the value.

    Each argument is a value (``relay.semantics.values``) or a numpy array or scalar, which
    becomes a ``TensorValue`` of its own dtype (so write ``np.float32(1)``, not ``1.0``).
    The module is type-checked first, together with the call: ``RelayTypeError`` if the module
    is ill-typed, ``ArgumentError`` (a ``TypeError``) if ``entry`` is missing, the number of
    arguments is wrong or an argument's type does not fit its parameter (closures and
    references are not checked: they have no expression to check). ``engine`` is
    ``"interpreter"`` (the definitional interpreter) or ``"spec"`` (the big-step rules).
    ``fuel`` bounds the number of evaluation steps (default: no limit). Raises
    ``RelayRuntimeError``, ``UndefinedBehavior`` or ``Exhaustion`` (out of ``fuel``, memory or
    depth) when evaluation fails. A returned reference's contents are not part of the value:
    use ``relay.api.evaluate_entry`` to get the final store as well.
    """
    if engine not in _api.ENGINES:
        raise ValueError(f"engine={engine!r} is not one of {', '.join(map(repr, _api.ENGINES))}")
    values = tuple(_as_value(a, i) for i, a in enumerate(args, start=1))
    exprs = [
        _api.value_expr(v, mod, _Span(_api.argument_source(i), 1, 1, 1, 1))
        for i, v in enumerate(values, start=1)
    ]
    labels = [f"argument {i} ({_describe(v)})" for i, v in enumerate(values, start=1)]
    _api.check_call(mod, entry, exprs, labels)
    limit = _api.NO_FUEL_LIMIT if fuel is None else fuel
    return _api.evaluate_entry(mod, values, entry=entry, engine=engine, fuel=limit).value


def build(
    mod: IRModule, target: str = "cpu", *, opt_level: int = 3, threads: int | None = None
) -> _api.Built:
    """``mod`` type-checked and compiled for the target called ``target`` (``"cpu"``, or one
    installed through the ``relay.targets`` entry-point group), with the ``opt-level-N``
    pipeline. ``threads`` sets the cpu target's threads for parallel loops. Raises
    ``RelayTypeError`` for an ill-typed module, ``BackendError`` (``target NAME does not
    support OP``) for what the target cannot compile, and ``LookupError`` for an unknown
    target. ``built.run(*args)`` takes what ``evaluate`` takes and raises the same
    ``ArgumentError`` for arguments that do not fit."""
    from .cli_target import TargetUsage, make_target

    infer_types(mod)
    try:
        compiler = make_target(target, threads)
    except TargetUsage as err:
        raise LookupError(str(err)) from None
    return _api.Built(mod, compiler.compile(mod, opt_level=opt_level), _as_value, _describe)


def _describe(v: Value) -> str:
    if isinstance(v, TensorValue):
        dtype = v.data.dtype.name
        return f"{'an' if dtype[0] in 'aeiou' else 'a'} {dtype} array of shape {v.data.shape}"
    return f"a {type(v).__name__}"


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
    "ArgumentError",
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
    "build",
    "evaluate",
    "infer_types",
    "parse",
]
