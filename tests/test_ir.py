"""The compiler's IR tools: rebuilding keeps sharing, fresh binders, free variables, and the
well-formedness check the oracle runs after every pass."""

from __future__ import annotations

import numpy as np

from relay import parse
from relay.compiler.ir import (
    binders,
    free_vars,
    fresh_binders,
    is_pure,
    rewrite,
    substitute,
    well_formed,
)
from relay.semantics.equality import alpha_equal
from relay.semantics.syntax import (
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    IRModule,
    Let,
    Op,
    Var,
    post_order,
)


def body(text: str) -> Function:
    return parse(text)["main"]


def test_rewrite_keeps_shared_nodes_shared() -> None:
    fn = body("def @main(%x: float32) { %0 = exp(%x); add(%0, %0) }")

    def swap(e: Expr) -> Expr | None:
        if isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == "exp":
            return Call(Op("log"), e.args)
        return None

    out = rewrite(fn, swap)
    assert isinstance(out, Function) and isinstance(out.body, Call)
    lhs, rhs = out.body.args
    assert lhs is rhs and isinstance(lhs, Call) and lhs.op.name == "log"  # type: ignore[union-attr]


def test_rewrite_returns_the_same_node_when_nothing_changes() -> None:
    fn = body("def @main(%x: float32) { add(%x, 1f) }")
    assert rewrite(fn, lambda e: None) is fn


def test_substitute_replaces_free_occurrences() -> None:
    fn = body("def @main(%x: float32, %y: float32) { add(%x, %y) }")
    x, y = fn.params
    out = substitute(fn.body, {x: y})
    assert isinstance(out, Call) and out.args[0] is y and out.args[1] is y


def test_fresh_binders_copies_without_sharing_binders() -> None:
    fn = body("def @main(%x: int32) { let %y = add(%x, 1); match ((%y, %x)) { (%a, _) => %a } }")
    copy = fresh_binders(fn.body)
    assert alpha_equal(copy, fn.body)
    old = {id(v) for e in post_order(fn.body) for v in binders(e)}
    new = {id(v) for e in post_order(copy) for v in binders(e)}
    assert old and new and not old & new
    assert [v.name_hint for v in free_vars(copy)] == ["x"]


def test_free_vars_in_order() -> None:
    fn = body("def @main(%a: int32, %b: int32) { let %c = add(%b, %a); fn (%d: int32) { %c } }")
    assert [v.name_hint for v in free_vars(fn.body)] == ["b", "a"]


def test_purity() -> None:
    assert is_pure(body("def @main(%x: float32) { (exp(%x), %x) }").body)
    assert not is_pure(body("def @main(%x: float32) { ref(%x) }").body)
    assert not is_pure(body("def @main(%f: fn (int32) -> int32) { %f(1) }").body)


def test_well_formed_programs_have_no_problems() -> None:
    mod = parse(
        "def @f(%x: int32) -> int32 { %x }\n"
        "def @main(%x: int32) { let %g = fn (%n: int32) -> int32 { %g(%n) }; @f(%x) }"
    )
    assert well_formed(mod) == []


def test_unbound_and_duplicate_variables_are_found() -> None:
    x = Var("x")
    y = Var("y")
    twice = Function((x,), Let(x, Constant(_zero()), x))
    escaped = Function((), y)
    mod = IRModule({GlobalVar("main"): twice, GlobalVar("g"): escaped})
    messages = [str(p) for p in well_formed(mod)]
    assert "@main: %x is bound more than once" in messages
    assert "@g: %y is used outside the scope of its binder" in messages


def test_a_variable_used_after_its_let_is_out_of_scope() -> None:
    x = Var("x")
    inner = Let(x, Constant(_zero()), x)
    fn = Function((), Call(Op("add"), (inner, x)))
    problems = well_formed(IRModule({GlobalVar("main"): fn}))
    assert [p.message for p in problems] == ["%x is used outside the scope of its binder"]


def test_an_undefined_global_is_found() -> None:
    fn = Function((), Call(GlobalVar("nowhere"), ()))
    problems = well_formed(IRModule({GlobalVar("main"): fn}))
    assert [p.message for p in problems] == ["@nowhere is not defined in the module"]


def _zero() -> np.ndarray:
    return np.array(0, "int32")
