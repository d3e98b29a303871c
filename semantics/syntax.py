"""The abstract syntax of Relay.

Expressions (identity equality: a ``Var`` is its binder, shared sub-expressions stay shared)::

    e ::= %x                                  Var(name_hint, type_annotation)
        | @f                                  GlobalVar(name)
        | c                                   Constant(data)         a numpy array
        | (e1, ..., en)                       Tuple(fields)
        | e.i                                 TupleGetItem(tuple, index)
        | fn [T..](%x: t, ..) -> t { e }      Function(params, body, ret_type, type_params, attrs)
        | e(e1, ..., en, k=v..)               Call(op, args, attrs, type_args)
        | let %x: t = e1; e2                  Let(var, value, body)
        | if (e0) { e1 } else { e2 }          If(cond, true_branch, false_branch)
        | match (e) { p => e, .. }            Match(data, clauses, complete=True)
        | match? (e) { p => e, .. }           Match(data, clauses, complete=False)
        | ref(e) | ref_read(e) | ref_write(e1, e2)   RefCreate | RefRead | RefWrite
        | add | nn.conv2d                     Op(name)
        | Cons                                Constructor(name, inputs, belongs_to, tag)

Patterns::

    p ::= _ | %x: t | Cons(p1, .., pn) | (p1, .., pn)
          PatternWildcard | PatternVar | PatternConstructor | PatternTuple

Types (structural equality)::

    t ::= Tensor[(d1, .., dn), dtype]         TensorType(shape, dtype); d is int, ? or symbolic
        | (t1, .., tn)                        TupleType(fields)
        | fn [T..](t1, .., tn) -> t           FuncType(arg_types, ret_type, type_params, ..)
        | T                                   TypeVar(name)
        | _                                   IncompleteType()   (identity equality)
        | ref(t)                              RefType(value)
        | List[t1, .., tn]                    TypeCall(func, args) of a GlobalTypeVar

Modules: ``IRModule(functions, type_definitions)``, where a type definition is
``TypeData(header, type_vars, constructors)``, written ``type List[A] { Cons(A, List[A]), Nil }``.

Metadata such as ``span`` follows ``KW_ONLY``, so it stays out of ``match`` patterns.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import TYPE_CHECKING, TypeAlias

import numpy as np
import numpy.typing as npt
import sympy

from .errors import Span

if TYPE_CHECKING:
    from .ops.registry import Attrs

# ---------------------------------------------------------------------------------------------
# Data types and dimensions

DTYPES: tuple[str, ...] = (
    "bool",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float16",
    "float32",
    "float64",
)
"""The dtypes Relay programs here may use."""


def is_dtype(name: str) -> bool:
    """Whether ``name`` is one of ``DTYPES``."""
    return name in DTYPES


@dataclass(frozen=True, slots=True)
class AnyDim:
    """The dimension ``?``: a size known only at run time."""

    def __repr__(self) -> str:
        return "?"


ANY = AnyDim()

# A dimension: a known size, ``?``, or a symbolic size (a sympy expression over integer symbols).
Dim: TypeAlias = "int | AnyDim | sympy.Expr"


def dim_symbol(name: str) -> sympy.Symbol:
    """The symbolic dimension called ``name``; the same name always gives an equal symbol."""
    return sympy.Symbol(name, integer=True, nonnegative=True)


def normalize_dim(d: Dim) -> Dim:
    """A sympy integer becomes a Python ``int``; other dimensions are returned as they are."""
    if isinstance(d, bool):
        raise TypeError("a dimension cannot be a bool")
    if isinstance(d, int | AnyDim):
        return d
    if isinstance(d, sympy.Integer):
        return int(d)
    return d


# ---------------------------------------------------------------------------------------------
# Types


@dataclass(frozen=True, slots=True)
class TensorType:
    """``Tensor[(d1, .., dn), dtype]``; rank 0 is written as the bare dtype."""

    shape: tuple[Dim, ...]
    dtype: str
    _: KW_ONLY
    span: Span | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class TupleType:
    """``(t1, .., tn)``."""

    fields: tuple[Type, ...]
    _: KW_ONLY
    span: Span | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class TypeVar:
    """A type variable ``A``, bound by a function's or a type definition's parameters."""

    name: str
    _: KW_ONLY
    span: Span | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class GlobalTypeVar:
    """The name of an algebraic data type defined in the module (``List``)."""

    name: str
    _: KW_ONLY
    span: Span | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class TypeConstraint:
    """A constraint attached to a function type (TVM's ``TypeConstraint``); kept opaque."""

    name: str
    args: tuple[Type, ...]
    _: KW_ONLY
    span: Span | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class FuncType:
    """``fn [T..](t1, .., tn) -> t``."""

    arg_types: tuple[Type, ...]
    ret_type: Type
    type_params: tuple[TypeVar, ...] = ()
    type_constraints: tuple[TypeConstraint, ...] = ()
    _: KW_ONLY
    span: Span | None = field(default=None, compare=False)


_incomplete_ids = itertools.count()


@dataclass(frozen=True, slots=True, eq=False)
class IncompleteType:
    """``_``: a type still to be inferred. Two holes are equal only if they are the same."""

    id: int = field(default_factory=lambda: next(_incomplete_ids))
    _: KW_ONLY
    span: Span | None = None


@dataclass(frozen=True, slots=True)
class RefType:
    """``ref(t)``: the type of a mutable reference cell holding a ``t``."""

    value: Type
    _: KW_ONLY
    span: Span | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class TypeCall:
    """``List[t1, .., tn]``: an algebraic data type applied to arguments."""

    func: GlobalTypeVar
    args: tuple[Type, ...]
    _: KW_ONLY
    span: Span | None = field(default=None, compare=False)


Type: TypeAlias = (
    TensorType
    | TupleType
    | FuncType
    | TypeVar
    | GlobalTypeVar
    | IncompleteType
    | RefType
    | TypeCall
)


def type_children(t: Type) -> tuple[Type, ...]:
    """The types directly inside ``t``."""
    match t:
        case TupleType(fields):
            return fields
        case FuncType(args, ret):
            return (*args, ret)
        case RefType(value):
            return (value,)
        case TypeCall(_, args):
            return args
    return ()


def scalar_type(dtype: str) -> TensorType:
    """The rank-0 tensor type of ``dtype``."""
    return TensorType((), dtype)


# ---------------------------------------------------------------------------------------------
# Expressions

# A value of an attribute of a function or of an untyped call.
AttrValue: TypeAlias = "int | float | bool | str | tuple[AttrValue, ...] | None"


@dataclass(frozen=True, slots=True, eq=False)
class Var:
    """``%x``: a local variable. Identity is the binder: two ``Var`` objects are two variables."""

    name_hint: str
    type_annotation: Type | None = None
    _: KW_ONLY
    span: Span | None = None


@dataclass(frozen=True, slots=True, eq=False)
class GlobalVar:
    """``@f``: the name of a global function of the module."""

    name: str
    _: KW_ONLY
    span: Span | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Constant:
    """A constant tensor; rank-0 constants of common dtypes are written as literals."""

    data: npt.NDArray[np.generic]
    _: KW_ONLY
    span: Span | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Tuple:
    """``(e1, .., en)``."""

    fields: tuple[Expr, ...]
    _: KW_ONLY
    span: Span | None = None


@dataclass(frozen=True, slots=True, eq=False)
class TupleGetItem:
    """``e.i``: the ``i``-th field of a tuple."""

    tuple: Expr
    index: int
    _: KW_ONLY
    span: Span | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Function:
    """``fn [T..](%x: t, .., k=v) -> t { body }``; ``attrs`` are the function's attributes."""

    params: tuple[Var, ...]
    body: Expr
    ret_type: Type | None = None
    type_params: tuple[TypeVar, ...] = ()
    attrs: tuple[tuple[str, AttrValue], ...] = ()
    _: KW_ONLY
    span: Span | None = None

    def attr(self, key: str) -> AttrValue:
        """The value of the function attribute ``key``, or ``None``."""
        return dict(self.attrs).get(key)


@dataclass(frozen=True, slots=True, eq=False)
class Call:
    """``op(e1, .., en, k=v..)``; ``op`` is an operator or any expression of function type."""

    op: Expr
    args: tuple[Expr, ...]
    attrs: Attrs | None = None
    type_args: tuple[Type, ...] = ()
    _: KW_ONLY
    span: Span | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Let:
    """``let %x: t = value; body``."""

    var: Var
    value: Expr
    body: Expr
    _: KW_ONLY
    span: Span | None = None


@dataclass(frozen=True, slots=True, eq=False)
class If:
    """``if (cond) { true_branch } else { false_branch }``."""

    cond: Expr
    true_branch: Expr
    false_branch: Expr
    _: KW_ONLY
    span: Span | None = None


@dataclass(frozen=True, slots=True, eq=False)
class PatternWildcard:
    """``_``: matches anything, binds nothing."""

    _: KW_ONLY
    span: Span | None = None


@dataclass(frozen=True, slots=True, eq=False)
class PatternVar:
    """``%x: t``: matches anything and binds it to ``var``."""

    var: Var
    _: KW_ONLY
    span: Span | None = None


@dataclass(frozen=True, slots=True, eq=False)
class PatternConstructor:
    """``Cons(p1, .., pn)``: matches a value built by ``constructor`` whose fields match."""

    constructor: Constructor
    patterns: tuple[Pattern, ...]
    _: KW_ONLY
    span: Span | None = None


@dataclass(frozen=True, slots=True, eq=False)
class PatternTuple:
    """``(p1, .., pn)``: matches a tuple whose fields match."""

    patterns: tuple[Pattern, ...]
    _: KW_ONLY
    span: Span | None = None


Pattern: TypeAlias = PatternWildcard | PatternVar | PatternConstructor | PatternTuple


@dataclass(frozen=True, slots=True, eq=False)
class Clause:
    """``pattern => rhs``: one arm of a ``match``."""

    lhs: Pattern
    rhs: Expr
    _: KW_ONLY
    span: Span | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Match:
    """``match (data) { clauses }``; ``complete=False`` is ``match?``, which may fall through."""

    data: Expr
    clauses: tuple[Clause, ...]
    complete: bool = True
    _: KW_ONLY
    span: Span | None = None


@dataclass(frozen=True, slots=True, eq=False)
class RefCreate:
    """``ref(value)``: a new reference cell."""

    value: Expr
    _: KW_ONLY
    span: Span | None = None


@dataclass(frozen=True, slots=True, eq=False)
class RefRead:
    """``ref_read(ref)``: the contents of a reference cell."""

    ref: Expr
    _: KW_ONLY
    span: Span | None = None


@dataclass(frozen=True, slots=True, eq=False)
class RefWrite:
    """``ref_write(ref, value)``: overwrite a cell; evaluates to ``()``."""

    ref: Expr
    value: Expr
    _: KW_ONLY
    span: Span | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Op:
    """A primitive operator, by its registered name (``add``, ``nn.conv2d``)."""

    name: str
    _: KW_ONLY
    span: Span | None = None


@dataclass(frozen=True, slots=True, eq=False)
class Constructor:
    """A constructor of an algebraic data type: ``Cons`` of ``List``, with field types."""

    name: str
    inputs: tuple[Type, ...]
    belongs_to: GlobalTypeVar
    tag: int
    _: KW_ONLY
    span: Span | None = None


Expr: TypeAlias = (
    Var
    | GlobalVar
    | Constant
    | Tuple
    | TupleGetItem
    | Function
    | Call
    | Let
    | If
    | Match
    | RefCreate
    | RefRead
    | RefWrite
    | Op
    | Constructor
)

ATOMS = (Var, GlobalVar, Constant, Op, Constructor)
"""Expressions that are printed inline wherever they occur."""


def children(e: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of ``e``, in evaluation order (a call's arguments first)."""
    match e:
        case Var() | GlobalVar() | Constant() | Op() | Constructor():
            return ()
        case Tuple(fields):
            return fields
        case TupleGetItem(tup, _):
            return (tup,)
        case Function(_, body):
            return (body,)
        case Call(op, args):
            return (*args, op)
        case Let(_, value, body):
            return (value, body)
        case If(cond, true_branch, false_branch):
            return (cond, true_branch, false_branch)
        case Match(data, clauses):
            return (data, *(c.rhs for c in clauses))
        case RefCreate(value):
            return (value,)
        case RefRead(ref):
            return (ref,)
        case RefWrite(ref, value):
            return (ref, value)
    raise AssertionError(f"unknown expression {type(e).__name__}")


def pattern_vars(p: Pattern) -> list[Var]:
    """The variables a pattern binds, left to right."""
    out: list[Var] = []
    stack: list[Pattern] = [p]
    while stack:
        q = stack.pop()
        match q:
            case PatternWildcard():
                pass
            case PatternVar(var):
                out.append(var)
            case PatternConstructor(_, patterns) | PatternTuple(patterns):
                stack.extend(reversed(patterns))
    return out


def post_order(root: Expr) -> Iterator[Expr]:
    """Every distinct sub-expression of ``root`` once, children before parents, iteratively."""
    seen: set[int] = set()
    stack: list[tuple[Expr, bool]] = [(root, False)]
    while stack:
        e, expanded = stack.pop()
        if expanded:
            yield e
            continue
        if id(e) in seen:
            continue
        seen.add(id(e))
        stack.append((e, True))
        for c in reversed(children(e)):
            if id(c) not in seen:
                stack.append((c, False))


# ---------------------------------------------------------------------------------------------
# Modules


@dataclass(frozen=True, slots=True)
class TypeData:
    """``type Name[A..] { Ctor(t..), .. }``; ``extern`` marks ``extern type Name``."""

    header: GlobalTypeVar
    type_vars: tuple[TypeVar, ...]
    constructors: tuple[Constructor, ...]
    extern: bool = False
    _: KW_ONLY
    span: Span | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True, eq=False)
class IRModule:
    """Global functions and type definitions, each in definition order. Immutable."""

    functions: Mapping[GlobalVar, Function] = field(default_factory=dict)
    type_definitions: Mapping[GlobalTypeVar, TypeData] = field(default_factory=dict)

    def get_global_var(self, name: str) -> GlobalVar:
        """The global called ``name``; ``KeyError`` if there is none."""
        for gv in self.functions:
            if gv.name == name:
                return gv
        raise KeyError(name)

    def __getitem__(self, name: str) -> Function:
        return self.functions[self.get_global_var(name)]

    def __contains__(self, name: object) -> bool:
        return any(gv.name == name for gv in self.functions)

    def get_type_data(self, name: str) -> TypeData:
        """The type definition called ``name``; ``KeyError`` if there is none."""
        for header, data in self.type_definitions.items():
            if header.name == name:
                return data
        raise KeyError(name)

    def constructors(self) -> dict[str, Constructor]:
        """Every constructor of every type definition, by name."""
        return {c.name: c for d in self.type_definitions.values() for c in d.constructors}

    def lookup_constructor(self, name: str) -> Constructor:
        """The constructor called ``name``; ``KeyError`` if there is none."""
        return self.constructors()[name]

    def with_function(self, gv: GlobalVar, fn: Function) -> IRModule:
        """A new module in which ``gv`` is bound to ``fn`` (replacing, or added at the end)."""
        functions = dict(self.functions)
        functions[gv] = fn
        return IRModule(functions, self.type_definitions)

    def with_type_definition(self, data: TypeData) -> IRModule:
        """A new module with ``data`` added (or replacing the definition of the same header)."""
        types = dict(self.type_definitions)
        types[data.header] = data
        return IRModule(self.functions, types)

    def __str__(self) -> str:
        from .text.printer import astext

        return astext(self)
