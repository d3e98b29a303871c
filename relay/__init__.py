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
- ``RelayError`` and its subclasses.
"""

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


def astext(mod: IRModule, *, types: bool = False) -> str:
    """The canonical text of ``mod``; with ``types``, annotated with inferred types.

    ``types=True`` type-checks the module first and so raises ``RelayTypeError`` if it is
    ill-typed.
    """
    if not types:
        return _astext(mod)
    info = infer_types(mod)
    return _astext(mod, lambda e: info.expr_types.get(id(e)))


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
    "infer_types",
    "parse",
]
