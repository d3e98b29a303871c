"""Defunctionalization: first-class functions become constructor values and ``apply``.

TVM's ``Defunctionalization`` (``relay/transforms/defunctionalization.cc``). For every
function type ``fn (a1, .., an) -> b`` of a function *value* in the module, the pass adds an
algebraic data type ``FnN`` and a global ``@applyN``::

    type FnN { FnN_0(c1, .., cm), ..  }        one constructor per function value site
    def @applyN(%f: FnN, %x1: a1', .., %xn: an') -> b' {
      match (%f) { FnN_0(%c1, .., %cm) => body0', .. }
    }

where ``t'`` is ``t`` with every function type replaced by its data type. Each site that makes
a function value becomes a constructor call holding what the function needs:

- a ``fn`` literal: its free variables (a let-bound recursive function refers to itself as
  ``%f``, the value being applied);
- a global used as a value (``@g`` not in call position) and a constructor used as a value:
  no fields; the clause calls ``@g`` or the constructor;

and every call of a function value ``%h(%a..)`` becomes ``@applyN(%h, %a..)``. A function
type no value is ever made of (a parameter no caller fills in) gets a data type without
constructors, and its ``@applyN`` (which nothing can reach) calls itself. The program is
put in A-normal form first, so the callee and the arguments are atoms and moving the callee
first changes no evaluation order. Direct calls of globals, operators and constructors stay.

Global types are kept. A global whose parameters and result mention no function type is
converted in place. A higher-order global (a function type in its parameters or result) is
kept as it is, for callers outside the module, and gets a converted copy ``@g_defunc`` (fresh
binders) that converted code calls.

What is accepted (as TVM's pass, a program without polymorphic higher-order types): every
function value's type is fully known and monomorphic — no ``fn [T]`` literal, no function
value whose type mentions a type variable, no closure that captures a value whose type does
(a closure inside a polymorphic global), no higher-order global with type parameters
(``@map[A, B]``), no constructor of a polymorphic data type (``Some``) or polymorphic global
passed as a value (one node for all its uses, so no one type for this use) — no constructor
field of function type, and no primitive or external function. ``defunctionalize`` raises
``PassError`` naming the first thing it does not accept (``Defunctionalization(strict=True)``
too). The pass ``Defunctionalization()`` instead leaves each global it does not accept as it
is, and with it every global that uses a refused higher-order global (which would receive
constructor values where it expects functions): a refused global's own closures stay
closures, which is sound because what it exchanges with converted globals has no function
type. A constructor field of function type refuses the whole module.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ...semantics.errors import PassError
from ...semantics.syntax import (
    Call,
    Clause,
    Constructor,
    Expr,
    Function,
    FuncType,
    GlobalTypeVar,
    GlobalVar,
    If,
    IRModule,
    Let,
    Match,
    Op,
    Pattern,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    RefCreate,
    RefRead,
    RefType,
    RefWrite,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    TypeCall,
    TypeData,
    TypeVar,
    Var,
    children,
    post_order,
    type_children,
)
from ...semantics.typing import TypeInfo, infer_types
from ..ir import free_vars, fresh_binders
from ..pass_manager import Pass, register_pass
from .cps import mentions_function
from .infer_type import is_complete
from .lambda_lift import is_primitive
from .normal_forms import to_anf

PASS_NAME = "Defunctionalization"


def _has_type_var(t: Type) -> bool:
    stack = [t]
    while stack:
        u = stack.pop()
        if isinstance(u, TypeVar):
            return True
        stack.extend(type_children(u))
    return False


def _fail(message: str) -> PassError:
    return PassError(f"defunctionalization: {message}", pass_name=PASS_NAME)


def _value_sites(fn: Function) -> list[Expr]:
    """The function values made in ``fn``: ``fn`` literals (not ``fn`` itself), and globals
    and constructors used anywhere but in call position. A constructor or global is one node
    however often it is used, so an occurrence is a parent's child, not a node: ``Some`` both
    called (``Some(0)``) and passed (``%f(Some)``) is a value site."""
    out: list[Expr] = []
    seen: set[Expr] = set()
    nodes = list(post_order(fn.body))
    for e in nodes:
        if isinstance(e, Function):
            out.append(e)
    named = [fn.body] + [c for e in nodes for c in _value_children(e)]
    for c in named:
        if isinstance(c, GlobalVar | Constructor) and c not in seen:
            seen.add(c)
            out.append(c)
    return out


def _value_children(e: Expr) -> list[Expr]:
    """The children of ``e`` that are used as values: all but a call's callee (by position:
    ``@g(@g)`` passes the node it calls)."""
    if isinstance(e, Call):
        return list(e.args)
    return list(children(e))


def module_problem(mod: IRModule) -> str | None:
    """What in ``mod`` as a whole the pass does not accept, or ``None``."""
    for data in mod.type_definitions.values():
        for ctor in data.constructors:
            if any(mentions_function(t) for t in ctor.inputs):
                return f"constructor {ctor.name} has a field of function type"
    return None


def global_problem(gv: GlobalVar, fn: Function, info: TypeInfo) -> str | None:
    """Why the global ``gv`` (``fn``) cannot be converted, or ``None``."""
    ft = info.globals[gv.name]
    assert isinstance(ft, FuncType)
    if ft.type_params and _higher_order(ft):
        return f"@{gv.name} is a polymorphic higher-order function"
    for e in post_order(fn):
        if isinstance(e, Function) and (is_primitive(e) or e.attr("Compiler") is not None):
            return f"@{gv.name} holds a primitive or external function"
    for site in _value_sites(fn):
        t = info.expr_types.get(site)
        where = f"a function value in @{gv.name}"
        if isinstance(site, Function) and site.type_params:
            return f"{where} is polymorphic (fn [..])"
        # A closure's constructor holds what it captures: a field's type must be known too.
        if isinstance(site, Function) and any(
            _has_type_var(u) or not is_complete(u)
            for u in (info.expr_types.get(v) or v.type_annotation for v in free_vars(site))
            if u is not None
        ):
            return f"{where} captures a value whose type has type variables"
        # One node for every use: its recorded type is one use's instance, not this one's.
        if isinstance(site, Constructor) and any(_has_type_var(t) for t in site.inputs):
            return f"{where} is the constructor {site.name} of a polymorphic type"
        if isinstance(site, GlobalVar) and _is_polymorphic(info.globals.get(site.name)):
            return f"{where} is the polymorphic global @{site.name}"
        if not isinstance(t, FuncType) or not is_complete(t):
            return f"{where} has a type that is not fully known"
        if t.type_params or _has_type_var(t):
            return f"{where} has a type with type variables"
    for e in post_order(fn):
        if isinstance(e, Call) and not isinstance(e.op, Op | Constructor | GlobalVar):
            t = info.expr_types.get(e.op)
            if not isinstance(t, FuncType) or not is_complete(t) or _has_type_var(t):
                return f"a call in @{gv.name} has a callee of unknown or polymorphic type"
    return None


def _is_polymorphic(t: Type | None) -> bool:
    return isinstance(t, FuncType) and bool(t.type_params)


def _higher_order(ft: FuncType) -> bool:
    return any(mentions_function(t) for t in (*ft.arg_types, ft.ret_type))


def refused(mod: IRModule, info: TypeInfo) -> dict[GlobalVar, str]:
    """The globals left as they are, each with the reason: those ``global_problem`` names,
    and (to a fixpoint) those that refer to a refused higher-order global, which would get
    converted function values from them."""
    out: dict[GlobalVar, str] = {}
    for gv, fn in mod.functions.items():
        problem = global_problem(gv, fn, info)
        if problem is not None:
            out[gv] = problem
    by_name = {gv.name: gv for gv in mod.functions}
    changed = True
    while changed:
        changed = False
        for gv, fn in mod.functions.items():
            if gv in out:
                continue
            for e in post_order(fn):
                h = by_name.get(e.name) if isinstance(e, GlobalVar) else None
                ft = None if h is None else info.globals[h.name]
                if h in out and isinstance(ft, FuncType) and _higher_order(ft):
                    out[gv] = f"@{gv.name} uses @{h.name}, which is not converted: {out[h]}"
                    changed = True
                    break
    return out


@dataclass
class _Apply:
    """The data type and the apply function of one function type."""

    header: GlobalTypeVar
    apply: GlobalVar
    closure: Var
    params: tuple[Var, ...]
    ret: Type
    constructors: list[Constructor] = field(default_factory=list)
    clauses: list[Clause] = field(default_factory=list)


@dataclass
class _Defunc:
    mod: IRModule
    info: TypeInfo
    higher_order: dict[GlobalVar, GlobalVar]
    taken: set[str]
    applies: dict[FuncType, _Apply] = field(default_factory=dict)
    global_sites: dict[tuple[str, FuncType], Constructor] = field(default_factory=dict)

    def fresh(self, base: str) -> str:
        name, n = base, 0
        while name in self.taken:
            n += 1
            name = f"{base}_{n}"
        self.taken.add(name)
        return name

    # -- types --------------------------------------------------------------------------------

    def typ(self, t: Type) -> Type:
        match t:
            case FuncType():
                return TypeCall(self.apply_of(t).header, ())
            case TupleType(fields):
                return TupleType(tuple(self.typ(f) for f in fields))
            case RefType(value):
                return RefType(self.typ(value))
            case TypeCall(func, args):
                return TypeCall(func, tuple(self.typ(a) for a in args))
        return t

    def opt_typ(self, t: Type | None) -> Type | None:
        return None if t is None else self.typ(t)

    def apply_of(self, ft: FuncType) -> _Apply:
        key = replace(ft, span=None)
        found = self.applies.get(key)
        if found is not None:
            return found
        n = len(self.applies)
        header = GlobalTypeVar(self.fresh(f"Fn{n}"))
        entry = _Apply(header, GlobalVar(self.fresh(f"apply{n}")), Var("f"), (), ft.ret_type)
        self.applies[key] = entry
        entry.closure = Var("f", TypeCall(header, ()))
        entry.params = tuple(Var(f"x{i}", self.typ(a)) for i, a in enumerate(ft.arg_types))
        entry.ret = self.typ(ft.ret_type)
        return entry

    def new_constructor(self, entry: _Apply, fields: tuple[Type, ...]) -> Constructor:
        name = self.fresh(f"{entry.header.name}_{len(entry.constructors)}")
        ctor = Constructor(name, fields, entry.header, len(entry.constructors))
        entry.constructors.append(ctor)
        return ctor

    def site_type(self, e: Expr) -> FuncType:
        t = self.info.expr_types[e]
        assert isinstance(t, FuncType)
        return t

    # -- expressions --------------------------------------------------------------------------

    def binder(self, v: Var, sub: dict[Var, Expr]) -> Var:
        t = v.type_annotation
        if t is None or not mentions_function(t):
            return v
        new = Var(v.name_hint, self.typ(t), span=v.span)
        sub[v] = new
        return new

    def closure(self, fn: Function, sub: dict[Var, Expr], self_var: Var | None) -> Expr:
        """A ``fn`` literal as a constructor value; its body goes to the apply clause."""
        entry = self.apply_of(self.site_type(fn))
        captured = [v for v in free_vars(fn) if v is not self_var]
        fields = tuple(
            Var(v.name_hint, self.typ(self.info.expr_types.get(v) or _known(v))) for v in captured
        )
        ctor = self.new_constructor(
            entry, tuple(f.type_annotation for f in fields if f.type_annotation)
        )
        inner: dict[Var, Expr] = dict(zip(captured, fields, strict=True))
        inner.update(zip(fn.params, entry.params, strict=True))
        if self_var is not None:
            inner[self_var] = entry.closure
        body = self.expr(fn.body, inner)
        lhs = PatternConstructor(ctor, tuple(PatternVar(f) for f in fields))
        entry.clauses.append(Clause(lhs, body))
        return Call(ctor, tuple(self.expr(v, sub) for v in captured))

    def named(self, e: GlobalVar | Constructor) -> Expr:
        """A global or a constructor used as a value."""
        ft = self.site_type(e)
        entry = self.apply_of(ft)
        key = (f"{type(e).__name__} {e.name}", replace(ft, span=None))
        ctor = self.global_sites.get(key)
        if ctor is None:
            ctor = self.new_constructor(entry, ())
            self.global_sites[key] = ctor
            target: Expr = e
            if isinstance(e, GlobalVar):
                target = self.callee(self.mod.get_global_var(e.name))
            entry.clauses.append(Clause(PatternConstructor(ctor, ()), Call(target, entry.params)))
        return Call(ctor, ())

    def callee(self, gv: GlobalVar) -> GlobalVar:
        return self.higher_order.get(gv, gv)

    def expr(self, e: Expr, sub: dict[Var, Expr]) -> Expr:
        """``e`` (A-normal form) converted; ``sub`` renames variables."""
        lets: list[tuple[Var, Expr]] = []
        while isinstance(e, Let):
            var = self.binder(e.var, sub)
            if isinstance(e.value, Function):
                value = self.closure(e.value, sub, e.var)
            else:
                value = self.expr(e.value, sub)
            lets.append((var, value))
            e = e.body
        out = self.one(e, sub)
        for var, value in reversed(lets):
            out = Let(var, value, out)
        return out

    def one(self, e: Expr, sub: dict[Var, Expr]) -> Expr:
        match e:
            case Var():
                return sub.get(e, e)
            case GlobalVar() | Constructor():
                return self.named(e)
            case Function():
                return self.closure(e, sub, None)
            case Call(Op() as op, args):
                return replace(e, op=op, args=tuple(self.expr(a, sub) for a in args))
            case Call(Constructor() | GlobalVar() as op, args):
                callee = self.callee(op) if isinstance(op, GlobalVar) else op
                return Call(callee, tuple(self.expr(a, sub) for a in args), e.attrs, span=e.span)
            case Call(op, args):
                entry = self.apply_of(self.site_type(op))
                converted = (self.expr(op, sub), *(self.expr(a, sub) for a in args))
                return Call(entry.apply, converted, span=e.span)
            case Tuple(fields):
                return replace(e, fields=tuple(self.expr(f, sub) for f in fields))
            case TupleGetItem(tup):
                return replace(e, tuple=self.expr(tup, sub))
            case If(cond, then, other):
                return If(self.expr(cond, sub), self.expr(then, sub), self.expr(other, sub),
                          span=e.span)  # fmt: skip
            case Match(data, clauses, complete):
                out = []
                for c in clauses:
                    lhs = self.pattern(c.lhs, sub)
                    out.append(Clause(lhs, self.expr(c.rhs, sub), span=c.span))
                return Match(self.expr(data, sub), tuple(out), complete, span=e.span)
            case RefCreate(value):
                return replace(e, value=self.expr(value, sub))
            case RefRead(ref):
                return replace(e, ref=self.expr(ref, sub))
            case RefWrite(ref, value):
                return replace(e, ref=self.expr(ref, sub), value=self.expr(value, sub))
            case Let():
                return self.expr(e, sub)
        return e  # constants and operators

    def pattern(self, p: Pattern, sub: dict[Var, Expr]) -> Pattern:
        match p:
            case PatternVar(var):
                new = self.binder(var, sub)
                return p if new is var else PatternVar(new, span=p.span)
            case PatternTuple(patterns):
                return replace(p, patterns=tuple(self.pattern(q, sub) for q in patterns))
            case PatternConstructor(_, patterns):
                return replace(p, patterns=tuple(self.pattern(q, sub) for q in patterns))
        return p

    def function(self, fn: Function) -> Function:
        sub: dict[Var, Expr] = {}
        params = tuple(self.binder(p, sub) for p in fn.params)
        return replace(
            fn, params=params, body=self.expr(fn.body, sub), ret_type=self.opt_typ(fn.ret_type)
        )


def _known(v: Var) -> Type:
    assert v.type_annotation is not None, v.name_hint
    return v.type_annotation


def defunctionalize(mod: IRModule, *, partial: bool = False) -> IRModule:
    """``mod`` defunctionalized (see the module docstring). ``PassError`` names the first
    thing not accepted; with ``partial``, the globals not accepted are left as they are
    instead (``PassError`` only when the whole module is refused)."""
    problem = module_problem(mod)
    if problem is not None:
        raise _fail(problem)
    anf = IRModule({gv: to_anf(fn) for gv, fn in mod.functions.items()}, mod.type_definitions)
    info = infer_types(anf)
    kept = refused(anf, info)
    if kept and not partial:
        raise _fail(next(iter(kept.values())))
    if not any(_value_sites(fn) for gv, fn in anf.functions.items() if gv not in kept):
        return mod
    taken = {gv.name for gv in mod.functions} | {h.name for h in mod.type_definitions}
    taken |= set(mod.constructors())
    higher_order: dict[GlobalVar, GlobalVar] = {}
    copies: dict[GlobalVar, Function] = {}
    for gv, fn in anf.functions.items():
        ft = info.globals[gv.name]
        assert isinstance(ft, FuncType)
        if gv not in kept and _higher_order(ft):
            name = gv.name + "_defunc"
            while name in taken:
                name += "_"
            taken.add(name)
            higher_order[gv] = GlobalVar(name)
            copy = fresh_binders(fn)
            assert isinstance(copy, Function)
            copies[gv] = copy
    # The copies' nodes need types too: infer them in a module that holds them.
    typed = IRModule({**anf.functions, **{higher_order[g]: c for g, c in copies.items()}},
                     anf.type_definitions)  # fmt: skip
    info = infer_types(typed)
    d = _Defunc(typed, info, higher_order, taken)
    functions: dict[GlobalVar, Function] = {}
    for gv, fn in anf.functions.items():
        if gv in kept:
            functions[gv] = mod.functions[gv]
        elif gv in higher_order:
            functions[gv] = mod.functions[gv]
            functions[higher_order[gv]] = d.function(copies[gv])
        else:
            functions[gv] = d.function(fn)
    types = dict(mod.type_definitions)
    for entry in d.applies.values():
        types[entry.header] = TypeData(entry.header, (), tuple(entry.constructors))
        body: Expr = Match(entry.closure, tuple(entry.clauses), complete=True)
        if not entry.clauses:
            # No value of this function type is ever made (a parameter no caller fills in),
            # so the data type has no constructor and nothing reaches this body; a match
            # needs a clause, and a call of itself has any type.
            body = Call(entry.apply, (entry.closure, *entry.params))
        functions[entry.apply] = Function((entry.closure, *entry.params), body, entry.ret)
    return IRModule(functions, types)


@register_pass
@dataclass(frozen=True)
class Defunctionalization(Pass):
    """Replace first-class functions by constructor values of one data type per function
    type and calls of them by ``@applyN``.

    Pre: well-typed, no polymorphic higher-order types (see the module docstring; otherwise
    the module is left unchanged, or ``PassError`` with ``strict``). Post: same meaning and
    types for every global of the input; outside the kept higher-order globals no function
    value and no call of one is left.
    """

    opt_level = 3
    strict: bool = False

    def transform(self, mod: IRModule) -> IRModule:
        try:
            return defunctionalize(mod, partial=not self.strict)
        except PassError:
            if self.strict:
                raise
            return mod
