"""Relay: a reference implementation of the Relay IR (Roesch et al., arXiv 1904.08368).

The public API is small; everything else is reachable through the subpackages
``relay.semantics``, ``relay.interpreter``, ``relay.compiler``, ``relay.targets`` and
``relay.oracles``.

- ``parse(text, source_name="<string>") -> IRModule``: a module, or a bare expression, which
  becomes ``@main`` over its free variables;
- ``astext(mod) -> str`` (also ``str(mod)``): the canonical text;
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
from .semantics.text.printer import astext

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
    "UndefinedBehavior",
    "__version__",
    "astext",
    "parse",
]
