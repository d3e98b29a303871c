"""Broken common-subexpression elimination: keys that are too coarse.

EliminateCommonSubexpr replaces an operator call by an earlier call in the same scope that
computes the same thing: the same operator, equal attributes, the same arguments. Each mutant
below is that pass (operator calls only, scopes from ``relay.semantics.sharing``, so effects
and branches are handled right) with one part of the key wrong.
"""

from __future__ import annotations

from collections.abc import Callable

from relay.compiler.ir import map_functions, rewrite_pairs
from relay.semantics.sharing import sharing_plan
from relay.semantics.syntax import Call, Constant, Expr, Function, GlobalVar, IRModule, Op

Key = Callable[[Call], tuple[object, ...]]


def _cse(
    mod: IRModule, key_of_call: Key, key_of_constant: Callable[[Constant], object]
) -> IRModule:
    def one(_: GlobalVar, fn: Function) -> Function:
        plan = sharing_plan(fn)
        seen: dict[tuple[object, ...], Expr] = {}

        def visit(original: Expr, rebuilt: Expr) -> Expr | None:
            if isinstance(rebuilt, Constant):  # an atom: evaluated nowhere, shared anywhere
                key: tuple[object, ...] = ("const", key_of_constant(rebuilt))
            elif isinstance(rebuilt, Call) and isinstance(rebuilt.op, Op):
                scope = plan.scope.get(original)
                if scope is None:
                    return None
                key = (scope, *key_of_call(rebuilt))
            else:
                return None
            earlier = seen.setdefault(key, rebuilt)
            return None if earlier is rebuilt else earlier

        out = rewrite_pairs(fn, visit)
        assert isinstance(out, Function)
        return out

    return map_functions(mod, one)


def _constant_bits(c: Constant) -> object:
    return (c.data.dtype.str, c.data.shape, c.data.tobytes())


def _call_key(e: Call) -> tuple[object, ...]:
    assert isinstance(e.op, Op)
    return (e.op.name, repr(e.attrs), e.type_args, *e.args)


def _call_key_without_attrs(e: Call) -> tuple[object, ...]:
    assert isinstance(e.op, Op)
    return (e.op.name, e.type_args, *e.args)  # BUG: the attributes are not in the key


def cse_ignores_attrs(mod: IRModule) -> IRModule:
    """EliminateCommonSubexpr keyed on the operator and its arguments only: ``sum(%x,
    axis=[0])`` and ``sum(%x, axis=[1])`` merge, as do two ``cast``s of one value to
    different dtypes.

    Bug class: attribute-blind CSE (two calls with different attributes merged; TVM's CSE
    compared attributes structurally after this was found).
    """
    return _cse(mod, _call_key_without_attrs, _constant_bits)


def _constant_value(c: Constant) -> object:
    # BUG: values compared with ==: 0.0 == -0.0 (and hash equally), so the two zeros merge
    return (c.data.dtype.str, c.data.shape, tuple(c.data.ravel().tolist()))


def cse_constants_by_value(mod: IRModule) -> IRModule:
    """EliminateCommonSubexpr that also merges equal constants, comparing them by value with
    ``==``: ``0f`` and ``-0f`` are equal, so ``divide(1f, -0f)`` reads ``0f`` and gives
    ``inf`` instead of ``-inf``.

    Bug class: structural equality that is too coarse (constants compared as numbers, not
    bits; TVM's structural equality compares NDArray bytes).
    """
    return _cse(mod, _call_key, _constant_value)
