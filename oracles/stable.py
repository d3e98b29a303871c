"""Draws that depend on the seed only, not on what the process imported.

Hypothesis mixes into the values it draws (one draw in about twenty) the literal constants
of the *local* modules the process has loaded: every module outside the standard library and
site-packages, which for an editable install is all of ``relay`` (and a pass file loaded with
``--pass FILE.py:ATTR``). Its pool is rebuilt whenever ``sys.modules`` grows. So the programs
a seed draws depended on the imports before the campaign: ``relay fuzz`` (which imports
``relay.cli`` and its subcommands) drew other programs than ``fuzz_pass`` called from a
script or a test with the same seed and budget, and the motif corpus differed between them
too (measured: the module generator's 30 first programs differed once ``relay.cli_gen`` was
imported, from the seed of a large tensor constant).

``stable_draws()`` makes that pool empty while it is in force (Hypothesis's own global
constants, the same in every process, still apply): the campaign (``fuzz_pass``), the motif
corpus and ``--replay``'s drawn arguments run under it. It patches one private function of
Hypothesis (``providers._get_local_constants``), restored on exit; where a Hypothesis
version has no such function it does nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from hypothesis.internal.conjecture import providers

_NAME = "_get_local_constants"


def _no_local_constants() -> Any:
    """An empty pool of local constants (a fresh one: Hypothesis may add to what it gets)."""
    return getattr(providers, "Constants")()  # noqa: B009  (not exported, but public in use)


def _clear_cache() -> None:
    cache = getattr(providers, "CONSTANTS_CACHE", None)
    inner = getattr(cache, "cache", None)
    if inner is not None and hasattr(inner, "clear"):
        inner.clear()


_depth = 0


@contextmanager
def stable_draws() -> Iterator[None]:
    """Within the block, Hypothesis draws no constants of the loaded modules (see the module
    docstring). Nests; restores Hypothesis's own behaviour when the outermost block ends."""
    global _depth
    saved = getattr(providers, _NAME, None)
    if saved is None or not hasattr(providers, "Constants"):
        yield
        return
    if _depth == 0:
        setattr(providers, _NAME, _no_local_constants)
        _clear_cache()
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if _depth == 0:
            setattr(providers, _NAME, saved)
            _clear_cache()


__all__ = ["stable_draws"]
