"""Tests for structural equality and alpha-equivalence (``relay.semantics.equality``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

from relay.semantics.equality import alpha_equal, structural_equal
from relay.semantics.errors import SourceFile, Span
from relay.semantics.ops.registry import Attrs
from relay.semantics.syntax import (
    ANY,
    Call,
    Clause,
    Constant,
    Constructor,
    Expr,
    Function,
    FuncType,
    GlobalTypeVar,
    GlobalVar,
    If,
    IncompleteType,
    IRModule,
    Let,
    Match,
    Op,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
    RefCreate,
    RefRead,
    RefType,
    RefWrite,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    TypeCall,
    TypeData,
    TypeVar,
    Var,
    dim_symbol,
    scalar_type,
)

F32 = scalar_type("float32")
I32 = scalar_type("int32")
ADD = Op("add")

Relation = Callable[[Expr, Expr], bool]
BOTH = pytest.mark.parametrize("equal", [structural_equal, alpha_equal])


@dataclass(frozen=True, slots=True)
class _Axis(Attrs):
    axis: int = 0


def add(x: Expr, y: Expr) -> Call:
    return Call(ADD, (x, y))


def const(value: float, dtype: str = "float32") -> Constant:
    return Constant(np.array(value, dtype=dtype))


def identity_fn(name: str) -> Function:
    x = Var(name, F32)
    return Function((x,), x, F32)


# ---------------------------------------------------------------------------------------------
# Binders


def test_same_object_and_copies_are_equal() -> None:
    f = identity_fn("x")
    assert structural_equal(f, f)
    assert alpha_equal(f, f)
    assert structural_equal(identity_fn("x"), identity_fn("x"))
    assert alpha_equal(identity_fn("x"), identity_fn("x"))


def test_alpha_renamed_function() -> None:
    assert alpha_equal(identity_fn("x"), identity_fn("y"))
    assert not structural_equal(identity_fn("x"), identity_fn("y"))


def test_alpha_renamed_let() -> None:
    def program(name: str) -> Let:
        x = Var(name, F32)
        return Let(x, const(1.0), add(x, x))

    assert alpha_equal(program("x"), program("y"))
    assert not structural_equal(program("x"), program("y"))
    assert structural_equal(program("x"), program("x"))


def test_recursive_let_binds_before_value() -> None:
    def program(name: str) -> Let:
        f = Var(name)
        n = Var("n", I32)
        return Let(f, Function((n,), Call(f, (n,))), Call(f, (const(0, "int32"),)))

    assert alpha_equal(program("f"), program("g"))
    assert structural_equal(program("f"), program("f"))
    assert not structural_equal(program("f"), program("g"))


def _list_match(name: str, complete: bool = True) -> Function:
    list_t = GlobalTypeVar("List")
    cons = Constructor("Cons", (F32, TypeCall(list_t, (F32,))), list_t, 0)
    nil = Constructor("Nil", (), list_t, 1)
    xs = Var("xs", TypeCall(list_t, (F32,)))
    head = Var(name, F32)
    clauses = (
        Clause(PatternConstructor(cons, (PatternVar(head), PatternWildcard())), head),
        Clause(PatternConstructor(nil, ()), const(0.0)),
    )
    return Function((xs,), Match(xs, clauses, complete))


def test_alpha_renamed_match() -> None:
    assert alpha_equal(_list_match("h"), _list_match("y"))
    assert not structural_equal(_list_match("h"), _list_match("y"))
    assert structural_equal(_list_match("h"), _list_match("h"))


def test_match_completeness_differs() -> None:
    assert not alpha_equal(_list_match("h"), _list_match("h", complete=False))


def test_pattern_shapes() -> None:
    x, y = Var("x"), Var("y")
    assert alpha_equal(
        PatternTuple((PatternVar(x), PatternWildcard())),
        PatternTuple((PatternVar(y), PatternWildcard())),
    )
    assert not alpha_equal(PatternTuple((PatternVar(x),)), PatternTuple((PatternWildcard(),)))
    assert not alpha_equal(PatternTuple((PatternWildcard(),)), PatternTuple(()))


@BOTH
def test_wrong_variable_correspondence(equal: Relation) -> None:
    x, y = Var("x", F32), Var("y", F32)
    a, b = Var("x", F32), Var("y", F32)
    assert not equal(Function((x, y), x), Function((a, b), b))
    assert equal(Function((x, y), x), Function((a, b), a))


@BOTH
def test_bound_vs_free_variable(equal: Relation) -> None:
    x = Var("x", F32)
    free_x = Var("x", F32)
    # fn (%x) { %x } against fn (%x) { %x' } with %x' free: the body's %x is not the binder.
    assert not equal(Function((x,), x), Function((Var("x", F32),), free_x))


@BOTH
def test_different_bodies(equal: Relation) -> None:
    x, y = Var("x", F32), Var("x", F32)
    assert not equal(Function((x,), add(x, x)), Function((y,), Call(Op("subtract"), (y, y))))
    assert not equal(Function((x,), x), Function((y,), const(1.0)))
    assert not equal(Function((x,), x, F32), Function((y,), y, I32))
    assert not equal(Function((x,), x, F32), Function((y,), y))


@BOTH
def test_annotations_compare(equal: Relation) -> None:
    assert not equal(Function((Var("x", F32),), const(1.0)), Function((Var("x"),), const(1.0)))
    assert not equal(Function((Var("x", F32),), const(1.0)), Function((Var("x", I32),), const(1.0)))


@BOTH
def test_free_variables_by_name(equal: Relation) -> None:
    assert equal(add(Var("x", F32), Var("y", F32)), add(Var("x", F32), Var("y", F32)))
    assert not equal(Var("x", F32), Var("y", F32))
    assert not equal(Var("x", F32), Var("x", I32))


def test_spans_ignored() -> None:
    span = Span(SourceFile("a.relay", "%x"), 1, 1, 1, 3)
    assert structural_equal(Var("x", F32, span=span), Var("x", F32))
    assert structural_equal(TensorType((2,), "int8", span=span), TensorType((2,), "int8"))


# ---------------------------------------------------------------------------------------------
# Sharing


@BOTH
def test_sharing_vs_duplication(equal: Relation) -> None:
    x = Var("x", F32)
    f = Op("exp")
    shared = Call(f, (x,))
    assert not equal(add(shared, shared), add(Call(f, (x,)), Call(f, (x,))))
    assert not equal(add(Call(f, (x,)), Call(f, (x,))), add(shared, shared))
    other = Call(f, (x,))
    assert equal(add(shared, shared), add(other, other))


@BOTH
def test_atoms_may_be_shared_or_not(equal: Relation) -> None:
    one = const(1.0)
    assert equal(add(one, one), add(const(1.0), const(1.0)))
    assert equal(Tuple((ADD, ADD)), Tuple((Op("add"), Op("add"))))


@BOTH
def test_sharing_across_let_scopes(equal: Relation) -> None:
    # let %a = (1f,); (%a, %a) against let %a = (1f,); (%a, (1f,)) -- the atoms are equal but
    # the second tuple node is fresh on the right, so the graphs differ.
    def program(share: bool) -> Expr:
        inner = Tuple((const(1.0),))
        a = Var("a")
        return Let(a, inner, Tuple((inner, inner if share else Tuple((const(1.0),)))))

    assert equal(program(True), program(True))
    assert not equal(program(True), program(False))


# ---------------------------------------------------------------------------------------------
# Atoms and fields


@BOTH
def test_constants_bit_exact(equal: Relation) -> None:
    quiet = np.array(np.nan, dtype="float32")
    payload = np.frombuffer(np.uint32(0x7FC00001).tobytes(), dtype="float32").reshape(())
    assert equal(Constant(quiet), Constant(quiet.copy()))
    assert not equal(Constant(quiet), Constant(payload.copy()))
    assert not equal(const(0.0), const(-0.0))
    assert not equal(const(1.0, "float32"), const(1.0, "float64"))
    assert not equal(const(1, "int32"), const(1, "int64"))
    assert not equal(Constant(np.zeros((2, 3), "float32")), Constant(np.zeros((3, 2), "float32")))
    assert equal(Constant(np.arange(6, dtype="int8")), Constant(np.arange(6, dtype="int8")))


@BOTH
def test_call_attrs(equal: Relation) -> None:
    x = Var("x", F32)
    op = Op("sum")
    assert equal(Call(op, (x,), _Axis(1)), Call(op, (x,), _Axis(1)))
    assert not equal(Call(op, (x,), _Axis(1)), Call(op, (x,), _Axis(2)))
    assert not equal(Call(op, (x,), _Axis(0)), Call(op, (x,), None))
    assert equal(Call(op, (x,), None), Call(op, (x,), None))


@BOTH
def test_call_type_args_and_ops(equal: Relation) -> None:
    x = Var("x", F32)
    assert not equal(Call(ADD, (x, x), None, (F32,)), Call(ADD, (x, x), None, (I32,)))
    assert not equal(Call(ADD, (x, x)), Call(ADD, (x, x), None, (F32,)))
    assert not equal(Call(ADD, (x, x)), Call(Op("multiply"), (x, x)))
    assert not equal(Call(ADD, (x, x)), Call(ADD, (x,)))


@BOTH
def test_other_expression_forms(equal: Relation) -> None:
    x = Var("x")
    t = Tuple((x, x))
    assert equal(TupleGetItem(t, 0), TupleGetItem(Tuple((x, x)), 0))
    assert not equal(TupleGetItem(t, 0), TupleGetItem(Tuple((x, x)), 1))
    assert equal(If(x, const(1.0), const(2.0)), If(x, const(1.0), const(2.0)))
    assert not equal(If(x, const(1.0), const(2.0)), If(x, const(2.0), const(1.0)))
    assert equal(RefWrite(RefCreate(x), RefRead(x)), RefWrite(RefCreate(x), RefRead(x)))
    assert not equal(RefCreate(x), RefRead(x))
    assert equal(GlobalVar("f"), GlobalVar("f"))
    assert not equal(GlobalVar("f"), GlobalVar("g"))
    assert not equal(GlobalVar("f"), Var("f"))


@BOTH
def test_function_attrs(equal: Relation) -> None:
    x, y = Var("x"), Var("x")
    assert equal(
        Function((x,), x, attrs=(("Primitive", 1),)), Function((y,), y, attrs=(("Primitive", 1),))
    )
    assert not equal(Function((x,), x, attrs=(("Primitive", 1),)), Function((y,), y))


@BOTH
def test_constructors(equal: Relation) -> None:
    list_t, opt_t = GlobalTypeVar("List"), GlobalTypeVar("Option")
    assert equal(
        Constructor("Nil", (), list_t, 1), Constructor("Nil", (), GlobalTypeVar("List"), 1)
    )
    assert not equal(Constructor("Nil", (), list_t, 1), Constructor("Nil", (), list_t, 0))
    assert not equal(Constructor("Nil", (), list_t, 1), Constructor("Nil", (), opt_t, 1))


# ---------------------------------------------------------------------------------------------
# Types


def test_types_structural() -> None:
    n = dim_symbol("n")
    assert structural_equal(TensorType((n, 3, ANY), "float32"), TensorType((n, 3, ANY), "float32"))
    assert not structural_equal(TensorType((n, 3), "float32"), TensorType((3, n), "float32"))
    assert not structural_equal(TensorType((3,), "float32"), TensorType((3,), "int32"))
    assert structural_equal(RefType(TupleType((F32, I32))), RefType(TupleType((F32, I32))))
    assert not structural_equal(TupleType((F32, I32)), TupleType((I32, F32)))
    assert not structural_equal(TypeVar("A"), TypeVar("B"))
    assert structural_equal(TypeVar("A"), TypeVar("A"))


def test_polymorphic_function_type_params() -> None:
    def program(name: str) -> Function:
        a = TypeVar(name)
        x = Var("x", a)
        return Function((x,), x, a, (a,))

    assert alpha_equal(program("A"), program("B"))
    assert not structural_equal(program("A"), program("B"))
    assert structural_equal(program("A"), program("A"))


def test_polymorphic_function_wrong_type_param() -> None:
    a, b = TypeVar("A"), TypeVar("B")
    x, y = Var("x", a), Var("x", a)
    # fn [A, B](%x: A) -> A against fn [A, B](%x: A) -> B
    assert not alpha_equal(Function((x,), x, a, (a, b)), Function((y,), y, b, (a, b)))
    # fn [A, B](%x: A) against fn [B, A](%x: B): A is the first parameter on both sides.
    z = Var("x", b)
    assert alpha_equal(Function((x,), x, None, (a, b)), Function((z,), z, None, (b, a)))
    assert not alpha_equal(Function((x,), x, None, (a, b)), Function((y,), y, None, (b, a)))


def test_func_type_params() -> None:
    a, b = TypeVar("A"), TypeVar("B")
    assert alpha_equal(FuncType((a,), a, (a,)), FuncType((b,), b, (b,)))
    assert not structural_equal(FuncType((a,), a, (a,)), FuncType((b,), b, (b,)))
    assert structural_equal(FuncType((a,), a, (a,)), FuncType((a,), a, (a,)))
    assert not alpha_equal(FuncType((a, b), a, (a, b)), FuncType((a, b), b, (a, b)))
    # A bound type parameter never equals a free one of the same name.
    assert not alpha_equal(FuncType((a,), a, (a,)), FuncType((a,), a, (b,)))
    assert not alpha_equal(FuncType((a,), a, (a,)), FuncType((a,), a))


def test_type_params_shadowing() -> None:
    # fn [A](A) -> fn [A](A) -> A: the inner A shadows the outer one.
    a, b, c = TypeVar("A"), TypeVar("B"), TypeVar("C")
    inner_inner = FuncType((a,), a, (a,))
    assert alpha_equal(
        FuncType((a,), inner_inner, (a,)), FuncType((b,), FuncType((c,), c, (c,)), (b,))
    )
    assert not alpha_equal(
        FuncType((a,), inner_inner, (a,)), FuncType((b,), FuncType((c,), b, (c,)), (b,))
    )


def test_incomplete_types() -> None:
    h1, h2 = IncompleteType(), IncompleteType()
    assert structural_equal(h1, h1)
    assert not structural_equal(h1, h2)
    assert alpha_equal(h1, h2)
    assert alpha_equal(TupleType((h1, h1)), TupleType((h2, h2)))
    assert not alpha_equal(TupleType((h1, h1)), TupleType((h1, h2)))
    assert not alpha_equal(TupleType((h1, h2)), TupleType((h1, h1)))


def test_different_kinds_unequal() -> None:
    assert not structural_equal(Var("x"), TypeVar("x"))  # type: ignore[call-overload]
    assert not alpha_equal(IRModule(), Var("x"))  # type: ignore[call-overload]


# ---------------------------------------------------------------------------------------------
# Modules


def _list_data(field: Type | None = None, extern: bool = False) -> TypeData:
    list_t = GlobalTypeVar("List")
    a = TypeVar("A")
    cons = Constructor("Cons", (field or a, TypeCall(list_t, (a,))), list_t, 0)
    nil = Constructor("Nil", (), list_t, 1)
    return TypeData(list_t, (a,), (cons, nil), extern)


def _module(order: int, body: float = 1.0, data: TypeData | None = None) -> IRModule:
    main, helper = GlobalVar("main"), GlobalVar("helper")
    x = Var("x", F32)
    functions = [
        (main, Function((x,), Call(GlobalVar("helper"), (x,)))),
        (helper, Function((Var("y", F32),), const(body))),
    ]
    option_t = GlobalTypeVar("Option")
    option = TypeData(option_t, (), (Constructor("None", (), option_t, 0),))
    types = [(_list_data().header, data or _list_data()), (option_t, option)]
    if order:
        functions.reverse()
        types.reverse()
    return IRModule(dict(functions), dict(types))


@BOTH
def test_modules_order_insensitive(equal: Callable[[IRModule, IRModule], bool]) -> None:
    assert equal(_module(0), _module(1))


@BOTH
def test_modules_differing_function(equal: Callable[[IRModule, IRModule], bool]) -> None:
    assert not equal(_module(0), _module(0, body=2.0))
    smaller = IRModule({GlobalVar("main"): identity_fn("x")})
    assert not equal(_module(0), smaller)


@BOTH
def test_modules_differing_adt(equal: Callable[[IRModule, IRModule], bool]) -> None:
    assert not equal(_module(0), _module(0, data=_list_data(field=F32)))
    assert not equal(_module(0), _module(0, data=_list_data(extern=True)))
    no_types = IRModule(dict(_module(0).functions))
    assert not equal(_module(0), no_types)


def test_module_type_vars_alpha() -> None:
    list_t, b = GlobalTypeVar("List"), TypeVar("B")
    renamed = TypeData(
        list_t,
        (b,),
        (
            Constructor("Cons", (b, TypeCall(list_t, (b,))), list_t, 0),
            Constructor("Nil", (), list_t, 1),
        ),
    )
    assert alpha_equal(IRModule({}, {list_t: _list_data()}), IRModule({}, {list_t: renamed}))
    assert not structural_equal(
        IRModule({}, {list_t: _list_data()}), IRModule({}, {list_t: renamed})
    )


# ---------------------------------------------------------------------------------------------
# Depth

DEPTH = 100_000


def _let_chain(name: str, tail: float = 0.0) -> Expr:
    """let %x0 = 1f; let %x1 = add(%x0, 1f); ...; add(%x99999, tail): the tail is deepest."""
    vars_ = [Var(f"{name}{i}", F32) for i in range(DEPTH)]
    body: Expr = add(vars_[-1], const(tail))
    for i in range(DEPTH - 1, -1, -1):
        value = const(1.0) if i == 0 else add(vars_[i - 1], const(1.0))
        body = Let(vars_[i], value, body)
    return body


def _add_chain(leaf: str) -> Expr:
    """add(add(...add(%leaf, 1f)..., 1f), 1f): the free variable is deepest."""
    e: Expr = Var(leaf, F32)
    for _ in range(DEPTH):
        e = add(e, const(1.0))
    return e


def _tuple_type_nest(leaf: Type) -> Type:
    t = leaf
    for _ in range(DEPTH):
        t = TupleType((t,))
    return t


@pytest.mark.slow
def test_deep_let_chain() -> None:
    a, b, c = _let_chain("x"), _let_chain("y"), _let_chain("y", tail=2.0)
    start = time.perf_counter()
    assert structural_equal(a, a)
    assert alpha_equal(a, b)
    assert not structural_equal(a, b)
    assert not alpha_equal(b, c)
    assert time.perf_counter() - start < 20  # a loose bound: catches a hang, not a benchmark


@pytest.mark.slow
def test_deep_add_chain() -> None:
    a, b, c = _add_chain("x"), _add_chain("x"), _add_chain("y")
    assert structural_equal(a, b)
    assert alpha_equal(a, b)
    assert not structural_equal(a, c)
    assert not alpha_equal(a, c)


def test_deep_tuple_type() -> None:
    a, b, c = _tuple_type_nest(F32), _tuple_type_nest(F32), _tuple_type_nest(I32)
    assert structural_equal(a, b)
    assert alpha_equal(a, b)
    assert not structural_equal(a, c)
    assert not alpha_equal(a, c)


def test_deep_func_type_params() -> None:
    # fn [T0](fn [T1](... fn [Tn](Tn) -> T0 ...)): scopes nest 1,000 deep (each copies).
    def nest(prefix: str) -> Type:
        params = [TypeVar(f"{prefix}{i}") for i in range(1000)]
        t: Type = FuncType((params[-1],), params[0], (params[-1],))
        for p in reversed(params[:-1]):
            t = FuncType((t,), p, (p,))
        return t

    assert alpha_equal(nest("A"), nest("B"))
    assert not structural_equal(nest("A"), nest("B"))
    assert structural_equal(nest("A"), nest("A"))


def test_shared_type_dag_is_linear() -> None:
    # Each level holds the previous one twice: 2**60 paths, 60 distinct nodes.
    t: Type = F32
    u: Type = F32
    for _ in range(60):
        t = TupleType((t, t))
        u = TupleType((u, u))
    assert structural_equal(t, u)
    assert alpha_equal(t, u)
