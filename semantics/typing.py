"""Static semantics: the typing judgement ``Γ ⊢ e : τ``, by inference with unification.

Γ maps each variable to its type. Because a ``Var`` is its own binder (identity), Γ is one
table for the whole module, and the rules can be applied in any order that visits a node after
its sub-expressions: the checker walks every body once, bottom-up, with an explicit stack, and
calls the rule of each node. Unknown types are holes (``IncompleteType``) that unification
fills; an operator call contributes its type relation, which fires once its argument types are
known (a relation whose inputs are not yet known is postponed, and the postponed ones are
retried until nothing changes). Tuple projections whose tuple type is not yet known are
postponed the same way.

Rules (one function each, named after the rule)::

    T-Var       Γ(x) = τ                          ⟹  Γ ⊢ %x : τ
    T-Global    @f : τ in the module              ⟹  Γ ⊢ @f : inst(τ)
    T-Const     c a tensor of shape s, dtype d    ⟹  Γ ⊢ c : Tensor[s, d]
    T-Tuple     Γ ⊢ ei : τi                       ⟹  Γ ⊢ (e1, .., en) : (τ1, .., τn)
    T-Proj      Γ ⊢ e : (τ0, .., τn), i ≤ n       ⟹  Γ ⊢ e.i : τi
    T-Fn        Γ, xi : τi ⊢ e : τ                ⟹  Γ ⊢ fn [T..](%xi: τi) { e } : fn [T..](τi) -> τ
    T-Call      Γ ⊢ f : fn (τi) -> τ, Γ ⊢ ei : τi ⟹  Γ ⊢ f(ei) : τ   (f polymorphic: instantiated)
    T-Call-Op   Γ ⊢ ei : τi, R_op(τi, attrs) = τ  ⟹  Γ ⊢ op(ei, attrs) : τ
    T-Call-Placement  Γ ⊢ e : τ, attrs valid     ⟹  Γ ⊢ on_device(e, attrs) : τ (device_copy too)
    T-Let       Γ ⊢ e1 : τ1, Γ, x : τ1 ⊢ e2 : τ   ⟹  Γ ⊢ let %x = e1; e2 : τ
    T-If        Γ ⊢ c : bool, Γ ⊢ e1 : τ, Γ ⊢ e2 : τ  ⟹  Γ ⊢ if (c) {e1} else {e2} : τ
    T-Match     Γ ⊢ e : τ, pi : τ ⊣ Γi, Γ Γi ⊢ ei : τ'  ⟹  Γ ⊢ match (e) { pi => ei } : τ'
    T-Ctor      C of type D[A..] with fields τi    ⟹  Γ ⊢ C : fn [A..](τi) -> D[A..]
    T-Op        an operator as a value            (only its calls are typed, by T-Call-Op)
    T-RefCreate Γ ⊢ e : τ                         ⟹  Γ ⊢ ref(e) : ref(τ)
    T-RefRead   Γ ⊢ e : ref(τ)                    ⟹  Γ ⊢ ref_read(e) : τ
    T-RefWrite  Γ ⊢ e1 : ref(τ), Γ ⊢ e2 : τ        ⟹  Γ ⊢ ref_write(e1, e2) : ()

Patterns (``p : τ ⊣ Γ'``: ``p`` matches values of type τ and binds Γ')::

    P-Wildcard  _ : τ ⊣ ·
    P-Var       %x : τ ⊣ x : τ
    P-Ctor      C : fn [A..](τi) -> D[A..], pi : τi[σ] ⊣ Γi  ⟹  C(pi) : D[σ] ⊣ Γ1 .. Γn
    P-Tuple     pi : τi ⊣ Γi  ⟹  (pi) : (τi) ⊣ Γ1 .. Γn

``match`` must be exhaustive (the error names a missing case); ``match?`` need not be.

Symbolic dimensions. Inside a function, a symbolic dimension of its signature is fixed (a
rigid name). At a use of a global function, the symbols of its signature are instantiated
afresh, like its type parameters: ``def @f(%x: Tensor[(n, 3), float32]) -> Tensor[(n, 3),
float32]`` applied to a ``Tensor[(5, 3), float32]`` has type ``Tensor[(5, 3), float32]``.
Dimensions are compared with ``ops.shapes.dims_equal``: ``?`` is compatible with any size;
otherwise two sizes must be provably equal (``n`` and ``n`` are, ``n`` and ``3`` are not).

A function found where a function with fewer type parameters is expected is instantiated, as
TVM's unifier did: ``fn [A](%x: A) { %x }`` passed for a parameter of type ``fn (int32) ->
int32`` gets ``A`` a fresh hole, here solved to ``int32``. (With type parameters on both
sides, the found function's first ones are renamed to the expected one's, and its extra ones
instantiated.) The other way round is an error: a function of type ``fn (int32) -> int32``
cannot be used where ``fn [A](A) -> A`` is expected. In argument positions the roles swap
(what the expected function type's arguments supply is what the found one's receive).

There is no let-generalisation: a ``let``-bound function is polymorphic only if it was written
with type parameters (``fn [A](%x: A) { %x }``).
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import assert_never

import numpy as np
import sympy

from .errors import RelayTypeError, Span
from .ops import OPS
from .ops.annotation import PLACEMENTS
from .ops.registry import RelationError
from .ops.shapes import dims_equal
from .syntax import (
    ATOMS,
    AnyDim,
    Call,
    Clause,
    Constant,
    Constructor,
    Dim,
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
    Pattern,
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
    children,
    normalize_dim,
    type_children,
)
from .text.printer import format_type, scalar_literal

BOOL = TensorType((), "bool")
UNIT = TupleType(())


# ---------------------------------------------------------------------------------------------
# The result


@dataclass
class TypeInfo:
    """The inferred types: of every global, and (a side table keyed by the nodes themselves,
    which hash by identity) of every sub-expression."""

    globals: dict[str, Type]
    expr_types: dict[Expr, Type]

    def type_of(self, e: Expr) -> Type:
        """The type of the sub-expression ``e`` (``KeyError`` if it was not checked)."""
        return self.expr_types[e]

    def global_type(self, name: str) -> Type:
        """The type of the global function ``@name``."""
        return self.globals[name]


# ---------------------------------------------------------------------------------------------
# Unification


class _Mismatch(Exception):
    """Two types do not unify; the checker turns it into a ``RelayTypeError``."""


_fresh_dims = itertools.count()


class Solver:
    """Holes and dimension variables, and their solutions."""

    def __init__(self) -> None:
        self.holes: dict[int, Type] = {}
        self.dim_vars: dict[sympy.Symbol, Dim | None] = {}

    # -- resolution ------------------------------------------------------------------------

    def resolve(self, t: Type) -> Type:
        """``t`` with every solved hole and dimension variable replaced by its solution (``t``
        itself where nothing in it is solved: types compare structurally, and not rebuilding
        them is most of what makes unification cheap)."""
        match t:
            case TensorType(shape):
                if not self.dim_vars or all(isinstance(d, int) for d in shape):
                    return t
                dims = tuple(self.resolve_dim(d) for d in shape)
                return t if dims == shape else TensorType(dims, t.dtype, span=t.span)
            case IncompleteType():
                solution = self.holes.get(t.id)
                if solution is None:
                    return t
                resolved = self.resolve(solution)
                self.holes[t.id] = resolved  # path compression
                return resolved
            case TypeVar() | GlobalTypeVar():
                return t
            case _ if not self.holes and not self.dim_vars:
                return t  # nothing solved yet
            case TupleType(fields):
                new = self._resolve_all(fields)
                return t if new is fields else TupleType(new, span=t.span)
            case FuncType(args, ret, type_params, constraints):
                new, result = self._resolve_all(args), self.resolve(ret)
                if new is args and result is ret:
                    return t
                return FuncType(new, result, type_params, constraints, span=t.span)
            case RefType(value):
                inner = self.resolve(value)
                return t if inner is value else RefType(inner, span=t.span)
            case TypeCall(func, args):
                new = self._resolve_all(args)
                return t if new is args else TypeCall(func, new, span=t.span)
            case _:
                assert_never(t)

    def _resolve_all(self, ts: tuple[Type, ...]) -> tuple[Type, ...]:
        """``resolve`` of each of ``ts``; ``ts`` itself where none of them changed."""
        new = tuple(self.resolve(u) for u in ts)
        return ts if all(a is b for a, b in zip(new, ts, strict=True)) else new

    def resolve_dim(self, d: Dim) -> Dim:
        if isinstance(d, int | AnyDim) or not self.dim_vars:
            return d
        bound = {v: s for v, s in self.dim_vars.items() if s is not None}
        if not bound or not (d.free_symbols & bound.keys()):
            return d
        return normalize_dim(sympy.expand(d.xreplace(bound)))

    def fresh_dim(self, name: str) -> sympy.Symbol:
        var = sympy.Symbol(f"{name}'{next(_fresh_dims)}", integer=True, nonnegative=True)
        self.dim_vars[var] = None
        return var

    def is_known(self, t: Type) -> bool:
        """Whether ``t`` (resolved) has no holes left."""
        if isinstance(t, TensorType):
            return True
        stack: list[Type] = [t]
        while stack:
            u = stack.pop()
            if isinstance(u, IncompleteType):
                return False
            stack.extend(type_children(u))
        return True

    # -- unification -----------------------------------------------------------------------

    def unify(self, a: Type, b: Type) -> Type:
        """Make ``a`` (expected) and ``b`` (found) equal by filling holes; ``_Mismatch`` if
        they cannot be. Symmetric, except that a polymorphic function type found where a less
        polymorphic one is expected is instantiated (see the module docstring)."""
        a = self.resolve(a)
        b = self.resolve(b)
        if isinstance(a, IncompleteType):
            if a is not b:
                self._bind(a, b)
            return b
        if isinstance(b, IncompleteType):
            self._bind(b, a)
            return a
        match a, b:
            case TensorType(), TensorType():
                if a.dtype != b.dtype:
                    raise _Mismatch(f"dtype {a.dtype} and dtype {b.dtype} differ")
                if len(a.shape) != len(b.shape):
                    raise _Mismatch(f"rank {len(a.shape)} and rank {len(b.shape)} differ")
                for x, y in zip(a.shape, b.shape, strict=True):
                    self.unify_dim(x, y)
                return self.resolve(a)
            case TupleType(), TupleType():
                if len(a.fields) != len(b.fields):
                    raise _Mismatch(
                        f"a tuple of {len(a.fields)} fields and one of {len(b.fields)} differ"
                    )
                for x, y in zip(a.fields, b.fields, strict=True):
                    self.unify(x, y)
                return self.resolve(a)
            case FuncType(), FuncType():
                if len(a.arg_types) != len(b.arg_types):
                    raise _Mismatch(
                        f"a function of {len(a.arg_types)} arguments and one of "
                        f"{len(b.arg_types)} differ"
                    )
                if len(a.type_params) > len(b.type_params):
                    raise _Mismatch(
                        f"a function with {len(a.type_params)} type parameters and one with "
                        f"{len(b.type_params)} differ (a function can be used at a less "
                        "polymorphic type, not a more polymorphic one)"
                    )
                # b (found) has at least as many type parameters as a (expected). As TVM's
                # unifier did, b's first ones are renamed to a's, and the extra ones (all of
                # them, when a is not polymorphic) are instantiated with fresh holes. Argument
                # types are unified the other way round: there, the roles of expected and
                # found are swapped.
                shared = len(a.type_params)
                mapping: dict[TypeVar, Type] = dict(
                    zip(b.type_params[:shared], a.type_params, strict=True)
                )
                mapping.update((tv, IncompleteType()) for tv in b.type_params[shared:])
                for x, y in zip(a.arg_types, b.arg_types, strict=True):
                    self.unify(substitute(y, mapping), x)
                self.unify(a.ret_type, substitute(b.ret_type, mapping))
                return self.resolve(a)
            case RefType(), RefType():
                self.unify(a.value, b.value)
                return self.resolve(a)
            case TypeCall(), TypeCall():
                if a.func.name != b.func.name or len(a.args) != len(b.args):
                    raise _Mismatch(f"{format_type(a)} and {format_type(b)} differ")
                for x, y in zip(a.args, b.args, strict=True):
                    self.unify(x, y)
                return self.resolve(a)
            case TypeCall(), GlobalTypeVar() | GlobalTypeVar(), TypeCall():
                pass
            case _:
                if a == b:
                    return a
        raise _Mismatch(f"{_kind(a)} and {_kind(b)} differ")

    def _bind(self, hole: IncompleteType, t: Type) -> None:
        stack = [t]
        while stack:  # the occurs check
            u = self.resolve(stack.pop())
            if u is hole:
                raise _Mismatch("a type would have to contain itself")
            stack.extend(type_children(u))
        self.holes[hole.id] = t

    def unify_dim(self, a: Dim, b: Dim) -> None:
        a = self.resolve_dim(a)
        b = self.resolve_dim(b)
        for var, other in ((a, b), (b, a)):
            if isinstance(var, sympy.Symbol) and self.dim_vars.get(var, 0) is None:
                if var != other:
                    self.dim_vars[var] = other
                return
        if isinstance(a, AnyDim) or isinstance(b, AnyDim):
            return
        if not dims_equal(a, b):
            raise _Mismatch(f"dimension {a} and dimension {b} differ")


def _kind(t: Type) -> str:
    match t:
        case TensorType():
            return "a tensor " + format_type(t)
        case TupleType():
            return "a tuple " + format_type(t)
        case FuncType():
            return "a function " + format_type(t)
        case RefType():
            return "a reference " + format_type(t)
        case TypeCall() | TypeVar() | GlobalTypeVar() | IncompleteType():
            return format_type(t)
        case _:
            assert_never(t)


def substitute(t: Type, mapping: Mapping[TypeVar, Type]) -> Type:
    """``t`` with the type variables of ``mapping`` replaced."""
    if not mapping:
        return t
    match t:
        case TypeVar():
            return mapping.get(t, t)
        case TupleType(fields):
            return TupleType(tuple(substitute(f, mapping) for f in fields))
        case FuncType(args, ret, type_params, constraints):
            inner = {k: v for k, v in mapping.items() if k not in type_params}
            return FuncType(tuple(substitute(a, inner) for a in args), substitute(ret, inner),
                            type_params, constraints)  # fmt: skip
        case RefType(value):
            return RefType(substitute(value, mapping))
        case TypeCall(func, args):
            return TypeCall(func, tuple(substitute(a, mapping) for a in args))
        case TensorType() | GlobalTypeVar() | IncompleteType():
            return t
        case _:
            assert_never(t)


def _dim_symbols(t: Type) -> set[sympy.Symbol]:
    out: set[sympy.Symbol] = set()
    stack = [t]
    while stack:
        u = stack.pop()
        if isinstance(u, TensorType):
            for d in u.shape:
                if isinstance(d, sympy.Expr):
                    out |= d.free_symbols
        stack.extend(type_children(u))
    return out


def _replace_dims(t: Type, mapping: dict[sympy.Symbol, sympy.Symbol]) -> Type:
    match t:
        case TensorType(shape, dtype):
            return TensorType(tuple(d if isinstance(d, int | AnyDim)
                                    else normalize_dim(d.xreplace(mapping)) for d in shape),
                              dtype)  # fmt: skip
        case TupleType(fields):
            return TupleType(tuple(_replace_dims(f, mapping) for f in fields))
        case FuncType(args, ret, type_params, constraints):
            return FuncType(tuple(_replace_dims(a, mapping) for a in args),
                            _replace_dims(ret, mapping), type_params, constraints)  # fmt: skip
        case RefType(value):
            return RefType(_replace_dims(value, mapping))
        case TypeCall(func, args):
            return TypeCall(func, tuple(_replace_dims(a, mapping) for a in args))
        case TypeVar() | GlobalTypeVar() | IncompleteType():
            return t
        case _:
            assert_never(t)


# ---------------------------------------------------------------------------------------------
# The checker


@dataclass
class _Postponed:
    """A relation or projection waiting for its input types."""

    node: Call | TupleGetItem


class Checker:
    """Applies the typing rules to a module (see the module docstring)."""

    def __init__(self, mod: IRModule) -> None:
        self.mod = mod
        self.solver = Solver()
        self.var_types: dict[Var, Type] = {}
        self.expr_types: dict[Expr, Type] = {}
        self.global_types: dict[str, Type] = {}
        self.postponed: list[_Postponed] = []
        self.const_types: dict[tuple[tuple[int, ...], np.dtype[np.generic]], TensorType] = {}

    # -- errors ----------------------------------------------------------------------------

    def fail(self, rule: str, message: str, span: Span | None) -> RelayTypeError:
        return RelayTypeError(f"{rule}: {message}", span, rule=rule)

    def unify(self, a: Type, b: Type, rule: str, what: str, span: Span | None) -> Type:
        try:
            return self.solver.unify(a, b)
        except _Mismatch as err:
            expected = format_type(self.solver.resolve(a))
            found = format_type(self.solver.resolve(b))
            raise self.fail(rule, f"{what}: expected {expected}, found {found} ({err})",
                            span) from None  # fmt: skip

    # -- the module ------------------------------------------------------------------------

    def check_module(self) -> TypeInfo:
        for data in self.mod.type_definitions.values():
            self.check_type_data(data)
        for gv, fn in self.mod.functions.items():
            self.global_types[gv.name] = self.signature(fn)
        for gv, fn in self.mod.functions.items():
            fn_type = self.check_expr(fn)
            self.unify(self.global_types[gv.name], fn_type, "T-Global",
                       f"the definition of @{gv.name}", fn.span)  # fmt: skip
        self.solve_postponed(final=True)
        resolve = self.solver.resolve
        types = self.expr_types
        for e, t in types.items():  # in place: one table, not two
            types[e] = resolve(t)
        return TypeInfo({name: resolve(t) for name, t in self.global_types.items()}, types)

    def check_type_data(self, data: TypeData) -> None:
        known = {tv.name for tv in data.type_vars}
        for ctor in data.constructors:
            for t in ctor.inputs:
                self.check_well_formed(t, known, ctor.span)

    def check_well_formed(self, t: Type, type_vars: set[str] | None, span: Span | None) -> None:
        """ADTs exist and are applied to the right number of arguments, and type variables are
        bound (when ``type_vars``, the names in scope, is given)."""
        stack = [t]
        while stack:
            u = stack.pop()
            match u:
                case TypeVar(name):
                    if type_vars is not None and name not in type_vars:
                        raise self.fail("T-Type", f"unbound type variable {name}", u.span or span)
                case TypeCall(func, args):
                    try:
                        data = self.mod.get_type_data(func.name)
                    except KeyError:
                        raise self.fail("T-Type", f"unknown type {func.name}",
                                        u.span or span) from None  # fmt: skip
                    if len(args) != len(data.type_vars):
                        raise self.fail(
                            "T-Type",
                            f"{func.name} takes {len(data.type_vars)} type argument"
                            f"{'' if len(data.type_vars) == 1 else 's'}, found {len(args)}",
                            u.span or span,
                        )
                    stack.extend(args)
                case TupleType(fields):
                    stack.extend(fields)
                case FuncType(args, ret, type_params):
                    if type_vars is not None:
                        type_vars = type_vars | {tv.name for tv in type_params}
                    stack.extend(args)
                    stack.append(ret)
                case RefType(value):
                    stack.append(value)
                case TensorType() | GlobalTypeVar() | IncompleteType():
                    pass
                case _:
                    assert_never(u)

    def signature(self, fn: Function) -> Type:
        """A global's declared type: annotations where written, holes elsewhere."""
        scope = {tv.name for tv in fn.type_params}
        for p in fn.params:
            if p.type_annotation is not None:
                self.check_well_formed(p.type_annotation, scope, p.span)
        if fn.ret_type is not None:
            self.check_well_formed(fn.ret_type, scope, fn.span)
        params = tuple(self.var_type(p) for p in fn.params)
        ret = fn.ret_type if fn.ret_type is not None else IncompleteType()
        return FuncType(params, ret, fn.type_params)

    def var_type(self, var: Var) -> Type:
        t = self.var_types.get(var)
        if t is None:
            if var.type_annotation is not None:
                self.check_well_formed(var.type_annotation, None, var.span)
                t = var.type_annotation
            else:
                t = IncompleteType()
            self.var_types[var] = t
        return t

    def instantiate(self, t: Type, *, dims: bool) -> Type:
        """Fresh holes for the type parameters of a polymorphic function type (and fresh
        dimension variables for its symbolic dimensions, if ``dims``)."""
        if isinstance(t, FuncType) and t.type_params:
            fresh: dict[TypeVar, Type] = {tv: IncompleteType() for tv in t.type_params}
            t = FuncType(tuple(substitute(a, fresh) for a in t.arg_types),
                         substitute(t.ret_type, fresh), (), t.type_constraints)  # fmt: skip
        if dims:
            symbols = _dim_symbols(t)
            if symbols:
                t = _replace_dims(t, {s: self.solver.fresh_dim(s.name) for s in symbols})
        return t

    # -- the walk --------------------------------------------------------------------------

    def check_expr(self, root: Expr) -> Type:
        """Type ``root`` and everything under it, with an explicit stack, in evaluation order.

        A ``let`` binds its variable, and a ``match`` its patterns, as soon as the value or
        scrutinee is typed, before the body or clauses: the rules' premises are the same, but
        this order lets the relations in a long let-chain fire as they are met instead of
        being postponed.
        """
        visit, bind, finish = 0, 1, 2
        types = self.expr_types
        stack: list[tuple[Expr, int]] = [(root, visit)]
        # A node met again is already typed: the stack is depth-first, so a shared node's
        # first visit finishes before any later visit of it is popped.
        while stack:
            e, phase = stack.pop()
            if phase == visit:
                if e in types:
                    continue
                if isinstance(e, ATOMS):  # no sub-expressions: its rule applies at once
                    types[e] = self.rule(e)
                    continue
                stack.append((e, finish))
                match e:
                    case Let(_, value, body):
                        stack.extend(((body, visit), (e, bind), (value, visit)))
                    case Match(data, clauses):
                        stack.extend((c.rhs, visit) for c in reversed(clauses))
                        stack.extend(((e, bind), (data, visit)))
                    case _:
                        stack.extend((c, visit) for c in reversed(children(e)))
            elif phase == bind:
                if isinstance(e, Let):
                    t_let_bind(self, e)
                elif isinstance(e, Match):
                    t_match_bind(self, e)
            else:
                types[e] = self.rule(e)
        return types[root]

    def t(self, e: Expr) -> Type:
        """The type of the sub-expression ``e`` at this use."""
        if isinstance(e, GlobalVar | Constructor):
            # One global or constructor node may be used in many places; each use of a
            # polymorphic one is instantiated afresh.
            return self.rule(e)
        return self.expr_types[e]

    def rule(self, e: Expr) -> Type:
        """The table of contents: the rule for each kind of expression."""
        match e:
            case Var():
                return t_var(self, e)
            case GlobalVar():
                return t_global(self, e)
            case Constant():
                return t_const(self, e)
            case Tuple():
                return t_tuple(self, e)
            case TupleGetItem():
                return t_proj(self, e)
            case Function():
                return t_fn(self, e)
            case Call(Op(name)) if name in PLACEMENTS:
                return t_call_placement(self, e)
            case Call(Op()):
                return t_call_op(self, e)
            case Call():
                return t_call(self, e)
            case Let():
                return t_let(self, e)
            case If():
                return t_if(self, e)
            case Match():
                return t_match(self, e)
            case RefCreate():
                return t_ref_create(self, e)
            case RefRead():
                return t_ref_read(self, e)
            case RefWrite():
                return t_ref_write(self, e)
            case Op():
                return t_op(self, e)
            case Constructor():
                return t_ctor(self, e)
            case _:
                assert_never(e)

    # -- postponed relations ---------------------------------------------------------------

    def solve_postponed(self, *, final: bool) -> None:
        """Retry postponed relations and projections until none can make progress."""
        progress = True
        while progress and self.postponed:
            progress = False
            waiting = self.postponed
            self.postponed = []
            for item in waiting:
                if self.try_fire(item.node):
                    progress = True
                else:
                    self.postponed.append(item)
        if final and self.postponed:
            node = self.postponed[0].node
            if isinstance(node, TupleGetItem):
                raise self.fail("T-Proj", "cannot infer the type of the tuple being projected",
                                node.span)  # fmt: skip
            args = ", ".join(format_type(self.solver.resolve(self.t(a))) for a in node.args)
            raise self.fail(_relation_name(node), f"cannot infer the argument types of "
                            f"{_call_text(node)}: {args}", node.span)  # fmt: skip

    def try_fire(self, node: Call | TupleGetItem) -> bool:
        if isinstance(node, TupleGetItem):
            tuple_type = self.solver.resolve(self.t(node.tuple))
            if isinstance(tuple_type, IncompleteType):
                return False
            self.unify(self.t(node), project(self, node, tuple_type), "T-Proj",
                       "the projection", node.span)  # fmt: skip
            return True
        arg_types = tuple(self.solver.resolve(self.t(a)) for a in node.args)
        if not all(self.solver.is_known(a) for a in arg_types):
            return False
        result = apply_relation(self, node, arg_types)
        self.unify(self.t(node), result, _relation_name(node), "the result", node.span)
        return True


# ---------------------------------------------------------------------------------------------
# The rules


def t_var(ctx: Checker, e: Var) -> Type:
    """T-Var
    Γ(x) = τ
    ─────────────
    Γ ⊢ %x : τ
    """
    return ctx.var_type(e)


def t_global(ctx: Checker, e: GlobalVar) -> Type:
    """T-Global
    @f : τ in the module
    ─────────────────────   (type parameters and symbolic dimensions instantiated afresh)
    Γ ⊢ @f : inst(τ)
    """
    t = ctx.global_types.get(e.name)
    if t is None:
        raise ctx.fail("T-Global", f"undefined global @{e.name}", e.span)
    return ctx.instantiate(ctx.solver.resolve(t), dims=True)


def t_const(ctx: Checker, e: Constant) -> Type:
    """T-Const
    c is a tensor of shape s and dtype d
    ─────────────────────────────────────
    Γ ⊢ c : Tensor[s, d]
    """
    key = (e.data.shape, e.data.dtype)
    t = ctx.const_types.get(key)
    if t is None:  # one type object per shape and dtype: a program has many equal constants
        t = ctx.const_types[key] = TensorType(tuple(int(d) for d in e.data.shape),
                                              e.data.dtype.name)  # fmt: skip
    return t


def t_tuple(ctx: Checker, e: Tuple) -> Type:
    """T-Tuple
    Γ ⊢ e1 : τ1  ...  Γ ⊢ en : τn
    ─────────────────────────────────
    Γ ⊢ (e1, .., en) : (τ1, .., τn)
    """
    return TupleType(tuple(ctx.t(f) for f in e.fields))


def t_proj(ctx: Checker, e: TupleGetItem) -> Type:
    """T-Proj
    Γ ⊢ e : (τ0, .., τn)    0 ≤ i ≤ n
    ──────────────────────────────────
    Γ ⊢ e.i : τi
    """
    tuple_type = ctx.solver.resolve(ctx.t(e.tuple))
    if isinstance(tuple_type, IncompleteType):
        ctx.postponed.append(_Postponed(e))
        return IncompleteType()
    return project(ctx, e, tuple_type)


def project(ctx: Checker, e: TupleGetItem, tuple_type: Type) -> Type:
    if not isinstance(tuple_type, TupleType):
        raise ctx.fail("T-Proj", f"expected a tuple, found {_kind(tuple_type)}", e.span)
    if not 0 <= e.index < len(tuple_type.fields):
        raise ctx.fail("T-Proj", f"index {e.index} is out of range for a tuple of "
                       f"{len(tuple_type.fields)} fields {format_type(tuple_type)}",
                       e.span)  # fmt: skip
    return tuple_type.fields[e.index]


def t_fn(ctx: Checker, e: Function) -> Type:
    """T-Fn
    Γ, x1 : τ1, .., xn : τn ⊢ e : τ
    ──────────────────────────────────────────────────────
    Γ ⊢ fn [T..](%x1: τ1, .., %xn: τn) -> τ { e } : fn [T..](τ1, .., τn) -> τ
    """
    body = ctx.t(e.body)
    if e.ret_type is not None:
        body = ctx.unify(e.ret_type, body, "T-Fn", "the function body", _where(e.body, e))
    return FuncType(tuple(ctx.var_type(p) for p in e.params), body, e.type_params)


def t_call(ctx: Checker, e: Call) -> Type:
    """T-Call
    Γ ⊢ f : fn [T..](τ1, .., τn) -> τ    Γ ⊢ ei : τi[σ]
    ───────────────────────────────────────────────────   (σ: fresh types for T..)
    Γ ⊢ f(e1, .., en) : τ[σ]
    """
    callee = ctx.solver.resolve(ctx.t(e.op))
    if isinstance(callee, IncompleteType):
        callee = ctx.unify(callee, FuncType(tuple(IncompleteType() for _ in e.args),
                                            IncompleteType()), "T-Call", "the callee",
                           e.op.span)  # fmt: skip
    if not isinstance(callee, FuncType):
        raise ctx.fail("T-Call", f"expected a function to call, found {_kind(callee)}", e.span)
    fn_type = ctx.instantiate(callee, dims=False)
    assert isinstance(fn_type, FuncType)
    if len(fn_type.arg_types) != len(e.args):
        raise ctx.fail("T-Call", f"expected {len(fn_type.arg_types)} argument"
                       f"{'' if len(fn_type.arg_types) == 1 else 's'}, found {len(e.args)}, "
                       f"in a call of {format_type(fn_type)}", e.span)  # fmt: skip
    for i, (param, arg) in enumerate(zip(fn_type.arg_types, e.args, strict=True)):
        ctx.unify(param, ctx.t(arg), "T-Call", f"argument {i}", _where(arg, e))
    return fn_type.ret_type


def t_call_op(ctx: Checker, e: Call) -> Type:
    """T-Call-Op
    Γ ⊢ e1 : τ1  ..  Γ ⊢ en : τn    R_op(τ1, .., τn; attrs) = τ
    ──────────────────────────────────────────────────────────────
    Γ ⊢ op(e1, .., en, attrs) : τ
    (postponed until τ1 .. τn are known)
    """
    assert isinstance(e.op, Op)
    opdef = OPS.get(e.op.name)
    if opdef is None:
        raise ctx.fail("T-Call-Op", f"unknown operator {e.op.name}", e.span)
    if len(e.args) != opdef.num_inputs:
        raise ctx.fail("T-Call-Op", f"operator {e.op.name} expects {opdef.num_inputs} "
                       f"arguments, found {len(e.args)}", e.span)  # fmt: skip
    arg_types = tuple(ctx.solver.resolve(ctx.t(a)) for a in e.args)
    if not all(ctx.solver.is_known(a) for a in arg_types):
        ctx.postponed.append(_Postponed(e))
        return IncompleteType()
    return apply_relation(ctx, e, arg_types)


def t_call_placement(ctx: Checker, e: Call) -> Type:
    """T-Call-Placement
    Γ ⊢ e1 : τ    R_p(τ; attrs) = τ (the attributes name valid devices)
    ──────────────────────────────────────────────────────────────
    Γ ⊢ p(e1, attrs) : τ
    where p is ``on_device`` or ``device_copy`` (``ops.annotation.PLACEMENTS``): the identity
    on any type. τ need not be known yet: the call's type is its argument's, as TVM's
    ``IdentityRel`` unified them, so a function's parameter types can flow through a
    placement (``let %h = on_device(fn (%a) {..}); %h(%z)``).
    """
    assert isinstance(e.op, Op)
    if len(e.args) != 1:
        raise ctx.fail("T-Call-Op", f"operator {e.op.name} expects 1 argument, found "
                       f"{len(e.args)}", e.span)  # fmt: skip
    t = ctx.t(e.args[0])
    apply_relation(ctx, e, (ctx.solver.resolve(t),))
    return t


def apply_relation(ctx: Checker, e: Call, arg_types: tuple[Type, ...]) -> Type:
    assert isinstance(e.op, Op)
    opdef = OPS[e.op.name]
    name = _relation_name(e)
    if opdef.relation is None:
        raise ctx.fail(name, f"operator {opdef.name} has no type relation yet", e.span)
    try:
        return opdef.relation(arg_types, e.attrs)
    except RelationError as err:
        types = " vs ".join(format_type(t) for t in arg_types)
        raise ctx.fail(name, f"{err} in {_call_text(e)}: {types}", e.span) from None


def t_let(ctx: Checker, e: Let) -> Type:
    """T-Let
    Γ ⊢ e1 : τ1    Γ, x : τ1 ⊢ e2 : τ2
    ────────────────────────────────────
    Γ ⊢ let %x: τ1 = e1; e2 : τ2
    (the first premise is applied by ``t_let_bind`` as soon as e1 is typed)
    """
    return ctx.t(e.body)


def t_let_bind(ctx: Checker, e: Let) -> None:
    """T-Let, first premise: x : τ1 where Γ ⊢ e1 : τ1 (and τ1 agrees with x's annotation).

    An unannotated variable not yet used (the value is not a function calling itself through
    it) simply gets τ1: the hole it would get would be unified with τ1 at once."""
    value = ctx.t(e.value)
    if e.var.type_annotation is None and e.var not in ctx.var_types:
        ctx.var_types[e.var] = value
        return
    ctx.unify(ctx.var_type(e.var), value, "T-Let", f"the value bound to %{e.var.name_hint}",
              _where(e.value, e))  # fmt: skip


def t_if(ctx: Checker, e: If) -> Type:
    """T-If
    Γ ⊢ c : bool    Γ ⊢ e1 : τ    Γ ⊢ e2 : τ
    ──────────────────────────────────────────
    Γ ⊢ if (c) { e1 } else { e2 } : τ
    """
    ctx.unify(BOOL, ctx.t(e.cond), "T-If", "the condition", _where(e.cond, e))
    return ctx.unify(ctx.t(e.true_branch), ctx.t(e.false_branch), "T-If",
                     "the else branch", _where(e.false_branch, e))  # fmt: skip


def t_match(ctx: Checker, e: Match) -> Type:
    """T-Match
    Γ ⊢ e : τ    pi : τ ⊣ Γi    Γ, Γi ⊢ ei : τ'   (for each clause)
    ─────────────────────────────────────────────────────────────────
    Γ ⊢ match (e) { p1 => e1, .., pn => en } : τ'
    (``match`` must be exhaustive; ``match?`` need not be. The pattern premises are applied
    by ``t_match_bind`` as soon as e is typed.)
    """
    result: Type = IncompleteType()
    for clause in e.clauses:
        result = ctx.unify(result, ctx.t(clause.rhs), "T-Match", "this clause",
                           _where(clause.rhs, clause))  # fmt: skip
    if e.complete:
        missing = missing_case(ctx.mod, [c.lhs for c in e.clauses])
        if missing is not None:
            raise ctx.fail("T-Match", f"match is not exhaustive: {missing} is not covered "
                           "(use match? for a partial match)", e.span)  # fmt: skip
    return result


def t_match_bind(ctx: Checker, e: Match) -> None:
    """T-Match, pattern premises: pi : τ ⊣ Γi for each clause, where Γ ⊢ e : τ."""
    if not e.clauses:
        raise ctx.fail("T-Match", "a match needs at least one clause", e.span)
    for clause in e.clauses:
        check_pattern(ctx, clause.lhs, ctx.t(e.data))


def t_ref_create(ctx: Checker, e: RefCreate) -> Type:
    """T-RefCreate
    Γ ⊢ e : τ
    ──────────────────────
    Γ ⊢ ref(e) : ref(τ)
    """
    return RefType(ctx.t(e.value))


def t_ref_read(ctx: Checker, e: RefRead) -> Type:
    """T-RefRead
    Γ ⊢ e : ref(τ)
    ──────────────────────
    Γ ⊢ ref_read(e) : τ
    """
    value: Type = IncompleteType()
    ctx.unify(RefType(value), ctx.t(e.ref), "T-RefRead", "the reference", _where(e.ref, e))
    return ctx.solver.resolve(value)


def t_ref_write(ctx: Checker, e: RefWrite) -> Type:
    """T-RefWrite
    Γ ⊢ e1 : ref(τ)    Γ ⊢ e2 : τ
    ──────────────────────────────────
    Γ ⊢ ref_write(e1, e2) : ()
    """
    value: Type = IncompleteType()
    ctx.unify(RefType(value), ctx.t(e.ref), "T-RefWrite", "the reference",
              _where(e.ref, e))  # fmt: skip
    ctx.unify(value, ctx.t(e.value), "T-RefWrite", "the value written",
              _where(e.value, e))  # fmt: skip
    return UNIT


def t_op(ctx: Checker, e: Op) -> Type:
    """T-Op
    An operator is typed only where it is called (T-Call-Op): its type is given by a relation
    on its arguments, not by a function type. A bare operator gets a hole.
    """
    if e.name not in OPS:
        raise ctx.fail("T-Op", f"unknown operator {e.name}", e.span)
    return IncompleteType()


def t_ctor(ctx: Checker, e: Constructor) -> Type:
    """T-Ctor
    C(τ1, .., τn) is a constructor of type D[A1, .., Ak]
    ──────────────────────────────────────────────────────
    Γ ⊢ C : fn [A1, .., Ak](τ1, .., τn) -> D[A1, .., Ak]    (instantiated afresh)
    """
    data = constructor_data(ctx, e)
    return ctx.instantiate(constructor_type(e, data), dims=False)


def constructor_data(ctx: Checker, e: Constructor) -> TypeData:
    try:
        data = ctx.mod.get_type_data(e.belongs_to.name)
    except KeyError:
        raise ctx.fail("T-Ctor", f"constructor {e.name} belongs to the unknown type "
                       f"{e.belongs_to.name}", e.span) from None  # fmt: skip
    if not any(c.name == e.name for c in data.constructors):
        raise ctx.fail("T-Ctor", f"{e.belongs_to.name} has no constructor {e.name}", e.span)
    return data


def constructor_type(e: Constructor, data: TypeData) -> FuncType:
    result = TypeCall(data.header, tuple(data.type_vars))
    return FuncType(e.inputs, result, data.type_vars)


# ---------------------------------------------------------------------------------------------
# Patterns


def check_pattern(ctx: Checker, p: Pattern, expected: Type) -> None:
    """``p : τ ⊣ Γ'``: ``p`` matches values of type ``expected``; binds its variables."""
    match p:
        case PatternWildcard():
            pass  # P-Wildcard
        case PatternVar(var):
            # P-Var
            ctx.unify(ctx.var_type(var), expected, "P-Var", f"the pattern %{var.name_hint}",
                      p.span)  # fmt: skip
        case PatternConstructor(ctor, patterns):
            # P-Ctor
            data = constructor_data(ctx, ctor)
            fresh: dict[TypeVar, Type] = {tv: IncompleteType() for tv in data.type_vars}
            adt = TypeCall(data.header, tuple(fresh[tv] for tv in data.type_vars))
            ctx.unify(adt, expected, "P-Ctor", f"the pattern {ctor.name}", p.span)
            if len(patterns) != len(ctor.inputs):
                raise ctx.fail("P-Ctor", f"constructor {ctor.name} has {len(ctor.inputs)} "
                               f"fields, the pattern has {len(patterns)}", p.span)  # fmt: skip
            for sub, field_type in zip(patterns, ctor.inputs, strict=True):
                check_pattern(ctx, sub, substitute(field_type, fresh))
        case PatternTuple(patterns):
            # P-Tuple
            fields = tuple(IncompleteType() for _ in patterns)
            ctx.unify(TupleType(fields), expected, "P-Tuple", "the tuple pattern", p.span)
            for sub, field_type in zip(patterns, fields, strict=True):
                check_pattern(ctx, sub, field_type)
        case _:
            assert_never(p)


# Exhaustiveness: the usefulness algorithm of Maranget ("Warnings for pattern matching").
# A pattern vector is a list of patterns; ``_uncovered`` returns a value (as text pieces) that
# no row matches, or None when the rows cover everything.

_Row = list[Pattern | None]  # None is the wildcard


def _head(p: Pattern | None) -> Pattern | None:
    return None if isinstance(p, PatternWildcard | PatternVar) else p


def missing_case(mod: IRModule, patterns: Sequence[Pattern]) -> str | None:
    """A value not matched by any of ``patterns``, written as a pattern, or ``None``."""
    rows: list[_Row] = [[_head(p)] for p in patterns]
    witness = _uncovered(mod, rows, 1)
    return None if witness is None else witness[0]


def _uncovered(mod: IRModule, rows: list[_Row], width: int) -> list[str] | None:
    if width == 0:
        return None if rows else []
    firsts = [_head(r[0]) for r in rows]
    ctors = [p for p in firsts if isinstance(p, PatternConstructor)]
    tuples = [p for p in firsts if isinstance(p, PatternTuple)]
    if tuples:
        arity = len(tuples[0].patterns)
        expanded = [_expand_tuple(r, arity) for r in rows]
        witness = _uncovered(mod, expanded, arity + width - 1)
        if witness is None:
            return None
        inner = ", ".join(witness[:arity])
        return [f"({inner}{',' if arity == 1 else ''})", *witness[arity:]]
    if ctors:
        data = mod.get_type_data(ctors[0].constructor.belongs_to.name)
        for ctor in data.constructors:
            n = len(ctor.inputs)
            specialized = [s for r in rows if (s := _specialize(r, ctor, n)) is not None]
            witness = _uncovered(mod, specialized, n + width - 1)
            if witness is not None:
                args = f"({', '.join(witness[:n])})" if n else ""
                return [ctor.name + args, *witness[n:]]
        return None
    # Only wildcards in the first column: it is covered iff the rest is.
    defaults = [r[1:] for r in rows]
    witness = _uncovered(mod, defaults, width - 1)
    return None if witness is None else ["_", *witness]


def _expand_tuple(row: _Row, arity: int) -> _Row:
    first = _head(row[0])
    if isinstance(first, PatternTuple):
        return [*(_head(p) for p in first.patterns), *row[1:]]
    return [*([None] * arity), *row[1:]]


def _specialize(row: _Row, ctor: Constructor, n: int) -> _Row | None:
    first = _head(row[0])
    if first is None:
        return [*([None] * n), *row[1:]]
    if isinstance(first, PatternConstructor):
        if first.constructor.name != ctor.name:
            return None
        return [*(_head(p) for p in first.patterns), *row[1:]]
    return None


# ---------------------------------------------------------------------------------------------
# Helpers and the entry point


def _where(child: Expr, parent: Expr | Clause) -> Span | None:
    """Where to point for an error about ``child``: its own span, unless it is a shared atom
    (a variable's span is its binding site, not this use), then the parent's."""
    if isinstance(child, Var | GlobalVar | Constructor | Op) or child.span is None:
        return parent.span
    return child.span


def _relation_name(e: Call) -> str:
    assert isinstance(e.op, Op)
    opdef = OPS.get(e.op.name)
    if opdef is None or not opdef.relation_name:
        return e.op.name
    return opdef.relation_name


def _call_text(e: Call) -> str:
    """A short rendering of a call for messages: ``add(%x, %y)``."""
    assert isinstance(e.op, Op)
    parts = []
    for a in e.args:
        match a:
            case Var(name):
                parts.append("%" + name)
            case Constant(data):
                parts.append(scalar_literal(data) or f"<{data.dtype.name} tensor>")
            case GlobalVar(name):
                parts.append("@" + name)
            case _:
                parts.append("...")
    return f"{e.op.name}({', '.join(parts)})"


TYPE_RECURSION_LIMIT = 20_000
"""The Python recursion limit ``infer_types`` runs under (see ``_deep_types``)."""


@contextmanager
def _deep_types() -> Iterator[None]:
    """Raise Python's recursion limit to at least ``TYPE_RECURSION_LIMIT`` for the duration,
    and put back the value found on entry however the block ends (so nested uses restore in
    turn). Expressions are walked with an explicit stack; types (whose nesting is not program
    depth, but can be deep in generated programs) are resolved and unified recursively."""
    before = sys.getrecursionlimit()
    sys.setrecursionlimit(max(before, TYPE_RECURSION_LIMIT))
    try:
        yield
    finally:
        sys.setrecursionlimit(before)


def infer_types(mod: IRModule) -> TypeInfo:
    """Infer the type of every global and sub-expression of ``mod``.

    Raises ``RelayTypeError`` (whose ``rule`` names the typing rule or relation) if the module
    is ill-typed. Types are resolved recursively, so while it runs this raises Python's
    recursion limit to ``TYPE_RECURSION_LIMIT`` (a process-wide setting, which other threads
    see meanwhile) and restores the caller's limit when it returns or raises. It changes no
    other process-wide state (the garbage collector is left alone).
    """
    with _deep_types():
        return Checker(mod).check_module()
