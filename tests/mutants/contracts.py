"""Broken passes that break the pass contract rather than a rewrite's algebra: a result that is
not a well-typed module of the same types, a changed input, no result at all, or no end.

The contract (``relay.compiler.pass_manager``): a pass is a pure function from ``IRModule``
to ``IRModule``; it never changes its input and returns a well-formed module whose globals
keep their types.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from relay.compiler.ir import map_functions, rewrite_module
from relay.compiler.pass_manager import Pass
from relay.compiler.passes.dce import eliminate, sweep
from relay.compiler.passes.fold_constant import fold, fold_call
from relay.compiler.passes.normal_forms import to_anf
from relay.semantics.syntax import (
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    IRModule,
    Op,
    Tuple,
    Var,
)

# -- constant folding that lets numpy choose the dtype ---------------------------------------


def _numpy_default(c: Constant) -> Constant:
    # BUG: tolist() and back: float32 -> float64, int8/int32 -> int64 (numpy's defaults)
    return Constant(np.array(c.data.tolist()), span=c.span)


def _fold_numpy_dtype(e: Expr) -> Expr | None:
    if isinstance(e, Call):
        out = fold_call(e)
        match out:
            case Constant():
                return _numpy_default(out)
            case Tuple(fields):
                return Tuple(
                    tuple(_numpy_default(f) if isinstance(f, Constant) else f for f in fields),
                    span=out.span,
                )
        return out
    return fold(e)


@dataclass(frozen=True)
class FoldConstantNumpyDtype(Pass):
    """FoldConstant that builds each folded constant from Python numbers
    (``np.array(value.tolist())``), so numpy picks the dtype: a folded ``int32`` becomes
    ``int64``, a ``float32`` becomes ``float64``. The module no longer type-checks (``add`` of
    an ``int32`` and an ``int64``) or its globals change type.

    Bug class: a pass that returns ill-typed IR (TVM's FoldConstant had dtype bugs of this
    kind where a folded value came back from a runtime with another dtype, e.g. for bool and
    float16 outputs).
    """

    focus_ops = frozenset({"add", "multiply", "sum", "cast"})

    def transform(self, mod: IRModule) -> IRModule:
        return rewrite_module(mod, _fold_numpy_dtype)


fold_constant_numpy_dtype = FoldConstantNumpyDtype()


# -- a pass that updates its input in place --------------------------------------------------


def cache_in_module(mod: IRModule) -> IRModule:
    """ToANormalForm that stores each converted function back into the module it was given
    (``mod.functions[gv] = new``, as a C++ pass may do with ``IRModule::Update`` on a module it
    owns) and returns a copy. The caller's module changes under it: a pipeline that keeps the
    input for later (the oracle, a fallback) sees the output instead.

    Bug class: a pass that mutates its input.
    """
    for gv, fn in list(mod.functions.items()):
        mod.functions[gv] = to_anf(fn)  # type: ignore[index]  # BUG: writes into the input
    return IRModule(dict(mod.functions), mod.type_definitions)


# -- a pass that returns None ----------------------------------------------------------------


def dce_returns_none(mod: IRModule) -> IRModule | None:
    """DeadCodeElimination with the visitor convention leaking out: it returns ``None`` ("no
    change") when it removed nothing, instead of the module.

    Bug class: a pass that does not return a module (TVM's Python ``function_pass`` decorator
    reported the same mistake as a crash in the next pass).
    """
    changed = False

    def one(gv: GlobalVar, fn: Function) -> Function:
        nonlocal changed
        _, removed = sweep(fn)
        changed = changed or removed
        return eliminate(fn)

    out = map_functions(mod, one)
    return out if changed else None


# -- a rewrite to a fixpoint that never converges --------------------------------------------

_COMMUTATIVE = frozenset({"add", "multiply", "maximum", "minimum", "logical_and", "logical_or"})


def _atoms_last(e: Expr) -> Expr | None:
    """``op(x, a) -> op(a, x)`` when ``a`` is an atom: "put constants and variables first"."""
    match e:
        case Call(Op(name), (x, y), attrs) if name in _COMMUTATIVE:
            if isinstance(y, Var | Constant):  # BUG: also when x is an atom
                return Call(e.op, (y, x), attrs, span=e.span)
    return None


@dataclass(frozen=True)
class CanonicalizeForever(Pass):
    """A canonicalization run to a fixpoint whose rule, "commute a commutative call so that its
    atom operand comes first", also fires when both operands are atoms: ``add(%a, %b)``
    becomes ``add(%b, %a)`` and back, forever. (Progress is measured by node identity, which
    every rebuild changes.)

    Bug class: a pass that does not terminate (a rewrite system without a well-founded
    order; TVM's SimplifyExpr and the arith rewrite simplifier each shipped such a cycle).
    """

    focus_ops = frozenset({"add", "multiply"})

    def transform(self, mod: IRModule) -> IRModule:
        while True:
            new = rewrite_module(mod, _atoms_last)
            if all(new.functions[gv] is f for gv, f in mod.functions.items()):
                return new
            mod = new


canonicalize_forever = CanonicalizeForever()
