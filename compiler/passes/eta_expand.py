"""EtaExpand: global functions and constructors used as values become ``fn`` literals.

TVM 0.18's ``EtaExpand(expand_constructor, expand_global_var)`` (opt level 1): a global
``@f`` or a constructor ``C`` that is used as a value (anywhere but in the callee position of
a call) is replaced by the function that calls it::

    @f            ~>   fn (%x1: t1, .., %xn: tn) -> t { @f(%x1, .., %xn) }
    Cons          ~>   fn (%x1, %x2) { Cons(%x1, %x2) }

Calls such as ``@f(a)`` or ``Cons(a, b)`` are left as they are. Evaluating the new ``fn``
only creates a closure, and applying it calls ``@f`` (or builds the value) with the same
arguments, so the meaning is unchanged.

Types. The parameters are annotated with the types of ``@f``'s parameters as inferred for
the input (so an unannotated global still gives annotated parameters), the return type with
its result type; for a constructor, with its field types and its data type. A global with type
parameters, or a constructor of a polymorphic data type, is used at one instance at each use
(``T-Global`` and ``T-Ctor`` instantiate afresh), so its expansion is a *monomorphic* ``fn``
whose annotations leave out every type that mentions a type parameter: inference fills those
in at the use, exactly as it instantiated the global or constructor there. (TVM instead made a
polymorphic ``fn [A..]``; a polymorphic ``fn`` does not unify with the monomorphic type the
context expects — ``let %g: fn (int32) -> int32 = @id`` would stop type-checking — so this
pass deliberately differs.) Types with symbolic dimensions or still-unknown parts are left
out the same way. Each use gets its own new ``fn``, so one polymorphic global or constructor
node used at several instances stays well typed.

The registered pass (``EtaExpand()``, ``relay fuzz --pass eta-expand``) expands both kinds,
to be useful for fuzzing; TVM's Python API defaulted both flags to ``False``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...semantics.syntax import (
    ATOMS,
    AnyDim,
    Call,
    Constructor,
    Expr,
    Function,
    FuncType,
    GlobalVar,
    IncompleteType,
    IRModule,
    TensorType,
    Type,
    TypeVar,
    Var,
    children,
    post_order,
    type_children,
)
from ...semantics.typing import constructor_type, infer_types
from ..ir import map_functions, rewrite, with_children
from ..pass_manager import Pass, register_pass


def annotatable(t: Type, type_params: tuple[TypeVar, ...]) -> bool:
    """Whether ``t`` can be written as an annotation at any use: no hole, none of
    ``type_params``, no symbolic dimension."""
    stack: list[Type] = [t]
    while stack:
        u = stack.pop()
        match u:
            case IncompleteType():
                return False
            case TypeVar() if u in type_params:
                return False
            case TensorType(shape) if any(not isinstance(d, int | AnyDim) for d in shape):
                return False
        stack.extend(type_children(u))
    return True


def eta_function(callee: GlobalVar | Constructor, fn_type: FuncType | None) -> Function:
    """``fn (%x1, .., %xn) { callee(%x1, .., %xn) }`` with the annotations of ``fn_type`` that
    are ``annotatable``."""
    if fn_type is None:
        raise ValueError(f"no type known for {callee}")
    tps = fn_type.type_params
    params = tuple(
        Var(f"x{i + 1}", t if annotatable(t, tps) else None)
        for i, t in enumerate(fn_type.arg_types)
    )
    ret = fn_type.ret_type if annotatable(fn_type.ret_type, tps) else None
    return Function(params, Call(callee, params), ret)


@register_pass
@dataclass(frozen=True)
class EtaExpand(Pass):
    """Replace globals and constructors used as values by ``fn`` literals that call them.

    ``expand_constructor`` and ``expand_global_var`` choose the kinds expanded; this default
    instance expands both (TVM's Python API defaulted both to ``False``).

    Pre: well-formed and well-typed. Post: same meaning and types; no global (if
    ``expand_global_var``) and no constructor (if ``expand_constructor``) occurs except as
    the callee of a call.
    """

    expand_constructor: bool = True
    expand_global_var: bool = True

    opt_level = 1

    def transform(self, mod: IRModule) -> IRModule:
        kinds: tuple[type, ...] = ()
        if self.expand_global_var:
            kinds += (GlobalVar,)
        if self.expand_constructor:
            kinds += (Constructor,)
        if not kinds or not any(_value_uses(fn, kinds) for fn in mod.functions.values()):
            return mod
        global_types = infer_types(mod).globals if self.expand_global_var else {}
        datas = {d.header.name: d for d in mod.type_definitions.values()}

        def expand(e: Expr) -> Expr:
            if isinstance(e, GlobalVar) and self.expand_global_var:
                t = global_types.get(e.name)
                return eta_function(e, t if isinstance(t, FuncType) else None)
            if isinstance(e, Constructor) and self.expand_constructor:
                return eta_function(e, constructor_type(e, datas[e.belongs_to.name]))
            return e

        def visit(e: Expr) -> Expr | None:
            if isinstance(e, ATOMS):
                return None
            kids = children(e)
            callee = len(kids) - 1 if isinstance(e, Call) else -1
            return with_children(
                e, tuple(k if i == callee else expand(k) for i, k in enumerate(kids))
            )

        def one(_: GlobalVar, fn: Function) -> Function:
            out = rewrite(fn, visit)
            assert isinstance(out, Function)
            return out

        return map_functions(mod, one)


def _value_uses(fn: Function, kinds: tuple[type, ...]) -> bool:
    """Whether ``fn`` uses a global or constructor of ``kinds`` as a value."""
    for e in post_order(fn):
        kids = children(e)
        callee = len(kids) - 1 if isinstance(e, Call) else -1
        if any(isinstance(k, kinds) for i, k in enumerate(kids) if i != callee):
            return True
    return False
