"""Broken inliners and a broken RemoveUnusedFunctions.

Inlining substitutes a function's body for a call of it. Done right, the copy gets fresh
binders (``ir.fresh_binders``) and each argument is evaluated once, in order, before the body
(``let %x = arg; body``). TVM's Inline pass and its partial evaluator both had bugs of both
kinds: binders shared between the copy and the original (so a later pass that keys on the
binder confuses them, the Relay form of variable capture), and arguments substituted by name
(so an effectful argument is dropped when the parameter is unused, or evaluated where the
parameter is first used, possibly inside a closure, instead of before the call).
"""

from __future__ import annotations

from relay.compiler.ir import fresh_binders, map_functions, rewrite, substitute
from relay.semantics.syntax import (
    Call,
    Expr,
    Function,
    GlobalVar,
    IRModule,
    Let,
    post_order,
)


def _inlinable(mod: IRModule) -> dict[str, Function]:
    """The globals an inliner may inline: not ``@main``, not polymorphic, not recursive."""
    out: dict[str, Function] = {}
    for gv, fn in mod.functions.items():
        if gv.name == "main" or fn.type_params:
            continue
        if any(isinstance(e, GlobalVar) and e.name == gv.name for e in post_order(fn.body)):
            continue
        out[gv.name] = fn
    return out


def inline_shared_binders(mod: IRModule) -> IRModule:
    """Inline every call of a non-recursive global by ``let``-binding its parameters to the
    arguments, but without copying the body's binders: the inlined copy reuses the very
    ``Var`` objects of the global (its parameters and every ``let`` inside), so each is bound
    twice, and two inlined calls in one scope would capture each other's variables.

    Bug class: variable capture during substitution when inlining (no fresh binders).
    """
    table = _inlinable(mod)

    def visit(e: Expr) -> Expr | None:
        if isinstance(e, Call) and isinstance(e.op, GlobalVar) and e.op.name in table:
            fn = table[e.op.name]
            body = fn.body  # BUG: should be fresh_binders(fn) first
            for param, arg in reversed(tuple(zip(fn.params, e.args, strict=True))):
                body = Let(param, arg, body, span=e.span)
            return body
        return None

    def one(_: GlobalVar, fn: Function) -> Function:
        out = rewrite(fn, visit)
        assert isinstance(out, Function)
        return out

    return map_functions(mod, one)


def inline_by_name(mod: IRModule) -> IRModule:
    """Beta-reduce calls of ``fn`` literals and inline calls of non-recursive globals by
    substituting the arguments for the parameters (call by name), with fresh binders. An
    argument whose parameter is unused vanishes with its effects (``@f(ref_write(..))``), and
    one whose parameter is used only inside a closure in the body runs when the closure is
    called, not before the call.

    Bug class: inlining without let-binding the arguments (duplicated, dropped or moved
    effects).
    """
    table = _inlinable(mod)

    def visit(e: Expr) -> Expr | None:
        if not isinstance(e, Call):
            return None
        match e.op:
            case Function() as fn if not fn.type_params:
                pass
            case GlobalVar(name) if name in table:
                fn = table[name]
            case _:
                return None
        copy = fresh_binders(fn)
        assert isinstance(copy, Function)
        # BUG: should be let %param = arg; ... for each argument, in order
        return substitute(copy.body, dict(zip(copy.params, e.args, strict=True)))

    def one(_: GlobalVar, fn: Function) -> Function:
        out = rewrite(fn, visit)
        assert isinstance(out, Function)
        return out

    return map_functions(mod, one)


def remove_uncalled_functions(mod: IRModule) -> IRModule:
    """RemoveUnusedFunctions that keeps only the globals ``@main`` calls directly: a global
    reached through another global, or used as a value (``let %f = @g;``, ``@h(@g)``), is
    removed though the module still refers to it. Nor does it keep the types that a removed
    global's uses gave a kept one (``remove-unused-functions`` writes them as annotations): a
    removed ``@g`` that alone fixed what ``@f`` returns leaves ``@f``'s type changed.

    Bug class: an analysis that sees only call sites (TVM's RemoveUnusedFunctions and
    LambdaLift both had to learn that a GlobalVar in argument position is a use).
    """
    if "main" not in mod:
        return mod
    main = mod["main"]
    called = {
        e.op.name for e in post_order(main) if isinstance(e, Call) and isinstance(e.op, GlobalVar)
    }
    keep = {gv: f for gv, f in mod.functions.items() if gv.name == "main" or gv.name in called}
    return IRModule(keep, mod.type_definitions)
