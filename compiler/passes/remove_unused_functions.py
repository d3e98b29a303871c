"""RemoveUnusedFunctions: drop global functions that ``@main`` cannot reach.

Pre: a well-formed module. Post: the globals reachable from ``@main`` (through any use of a
``GlobalVar``, called or passed as a value), in their original order; type definitions stay.
A module without ``@main`` is returned unchanged (every global is an entry point). Where a
removed global's uses were what determined a kept global's types (an unannotated parameter),
the kept global gets its inferred types written as annotations, so its type is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...semantics.syntax import GlobalVar, IRModule, post_order
from ..pass_manager import Pass, register_pass
from .infer_type import keep_global_types


def reachable(mod: IRModule, entry: str = "main") -> set[str]:
    """The names of the globals reachable from ``entry``."""
    seen = {entry}
    work = [entry]
    while work:
        fn = mod[work.pop()]
        for e in post_order(fn):
            if isinstance(e, GlobalVar) and e.name not in seen and e.name in mod:
                seen.add(e.name)
                work.append(e.name)
    return seen


@register_pass
@dataclass(frozen=True)
class RemoveUnusedFunctions(Pass):
    """Remove globals not reachable from ``@main``.

    Pre: well-formed, with ``@main``. Post: the same ``@main`` and every global it can reach.
    """

    opt_level = 1

    def transform(self, mod: IRModule) -> IRModule:
        if "main" not in mod:
            return mod
        out = remove_unreachable(mod)
        if len(out.functions) == len(mod.functions):
            return out
        return keep_global_types(mod, out, remove_unreachable)


def remove_unreachable(mod: IRModule) -> IRModule:
    """``mod`` without the globals ``@main`` cannot reach."""
    keep = reachable(mod)
    functions = {gv: f for gv, f in mod.functions.items() if gv.name in keep}
    return IRModule(functions, mod.type_definitions)
