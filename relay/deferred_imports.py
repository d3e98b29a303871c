"""Deferred imports: a heavy module loads when it is first used, not when it is imported.

sympy takes about 0.2 s to import, more than the rest of ``relay fmt`` together, and only
programs with symbolic dimensions (and the type relations' dimension arithmetic) use it.
``defer("sympy")``, run when this module is imported (``relay/__init__.py`` imports it
before any subpackage), puts a stand-in module in ``sys.modules``: every ``import sympy``
statement in the project binds it as usual, and the first attribute read (``sympy.Symbol``,
``sympy.Expr`` in an ``isinstance``) imports the real module and makes the stand-in a view of
it. The source keeps ordinary ``import sympy`` lines (so mypy and readers see a plain
import); nothing changes for code that uses the module, only when the import cost is paid.

``importlib.util.LazyLoader`` does not serve here: on Python 3.11 an ``import`` statement
reads the module's ``__spec__``, which makes a LazyLoader module load at once.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types

_lock = threading.Lock()


class DeferredModule(types.ModuleType):
    """A stand-in for the module ``__name__`` that imports it on the first attribute read."""

    def __getattr__(self, attr: str) -> object:
        # Called only for attributes the stand-in lacks: before loading, all but __spec__
        # and __name__; after, only those the real module gained since (submodules).
        real = _load(self)
        return getattr(real, attr)

    def __dir__(self) -> list[str]:
        return dir(_load(self))


def _load(stand_in: DeferredModule) -> types.ModuleType:
    name = stand_in.__name__
    with _lock:
        real = stand_in.__dict__.get("_deferred_real")
        if isinstance(real, types.ModuleType):
            return real
        if sys.modules.get(name) is stand_in:
            del sys.modules[name]
        real = importlib.import_module(name)
        stand_in.__dict__.update(real.__dict__)
        stand_in.__dict__["_deferred_real"] = real
        return real


def defer(name: str) -> None:
    """Make ``import name`` cheap until the module is used; nothing if it is already imported
    or is not installed (then the first ``import`` fails as it would have)."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None:
        return
    stand_in = DeferredModule(name)
    stand_in.__spec__ = spec
    sys.modules[name] = stand_in


def is_loaded(name: str) -> bool:
    """Whether the module ``name`` has really been imported (not only deferred)."""
    module = sys.modules.get(name)
    if module is None:
        return False
    return not isinstance(module, DeferredModule) or "_deferred_real" in module.__dict__


defer("sympy")
