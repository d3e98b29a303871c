"""InferType: write the inferred types into the program.

Pre: the module is well-typed. Post: the same module, except that every function parameter
and ``let`` variable without a type annotation gets its inferred type, and every function
without a return type gets its inferred one (where the inferred type is fully known: a type
left open by inference, such as the element type of an unused ``Nil``, is not written). The
meaning is unchanged; the printed program shows every binder's type, as TVM's ``InferType``
made ``checked_type`` available to later passes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from ...semantics.syntax import (
    Expr,
    Function,
    FuncType,
    GlobalVar,
    IncompleteType,
    IRModule,
    Let,
    Type,
    Var,
    post_order,
    type_children,
)
from ...semantics.typing import TypeInfo, infer_types
from ..ir import map_functions, rename_binders, rewrite_pairs
from ..pass_manager import Pass, register_pass
from .normal_forms import changed_globals


def is_complete(t: Type) -> bool:
    """Whether ``t`` has no hole left by inference."""
    stack = [t]
    while stack:
        u = stack.pop()
        if isinstance(u, IncompleteType):
            return False
        stack.extend(type_children(u))
    return True


def binder_types(root: Expr, info: TypeInfo) -> dict[int, Type]:
    """The inferred type of each parameter and let variable bound in ``root``, by id."""
    out: dict[int, Type] = {}
    for e in post_order(root):
        if isinstance(e, Function):
            ft = info.expr_types.get(e)
            if isinstance(ft, FuncType):
                for p, t in zip(e.params, ft.arg_types, strict=True):
                    out[id(p)] = t
        elif isinstance(e, Let):
            value_type = info.expr_types.get(e.value)
            if value_type is not None:
                out[id(e.var)] = value_type
    return out


def annotate(root: Function, info: TypeInfo) -> Function:
    """``root`` with the missing annotations written (see the module docstring)."""
    types = binder_types(root, info)

    def with_return(original: Expr, rebuilt: Expr) -> Expr | None:
        if not isinstance(rebuilt, Function) or rebuilt.ret_type is not None:
            return None
        ft = info.expr_types.get(original)
        if isinstance(ft, FuncType) and is_complete(ft.ret_type):
            return replace(rebuilt, ret_type=ft.ret_type)
        return None

    def make(v: Var) -> Var | None:
        t = types.get(id(v))
        if v.type_annotation is not None or t is None or not is_complete(t):
            return None
        return Var(v.name_hint, t, span=v.span)

    out = rename_binders(rewrite_pairs(root, with_return), make)
    assert isinstance(out, Function)
    return out


def keep_global_types(
    before: IRModule, after: IRModule, redo: Callable[[IRModule], IRModule]
) -> IRModule:
    """``after`` (a pass's output on ``before``), unless it lost type information: removing
    code can remove what fixed a global's inferred types (an unannotated parameter used as a
    ``List[int32]`` by the removed code). Then the pass is redone (``redo``) on ``before`` with
    those globals' inferred types written as annotations; if even that changes a type, the
    input is returned unchanged."""
    info = infer_types(before)
    changed = changed_globals(info.globals, after)
    if not changed:
        return after
    annotated = IRModule(
        {gv: annotate(f, info) if gv.name in changed else f for gv, f in before.functions.items()},
        before.type_definitions,
    )
    out = redo(annotated)
    return before if changed_globals(info.globals, out) else out


@register_pass
@dataclass(frozen=True)
class InferType(Pass):
    """Annotate binders and return types with their inferred types.

    Pre: well-typed. Post: same meaning and global types; every parameter and let variable
    whose inferred type is fully known is annotated, and so is every function's return type.
    """

    opt_level = 0

    def transform(self, mod: IRModule) -> IRModule:
        info = infer_types(mod)

        def one(_: GlobalVar, fn: Function) -> Function:
            return annotate(fn, info)

        return map_functions(mod, one)
