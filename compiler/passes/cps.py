"""ToCPS and UnCPS: continuation-passing style and back.

**ToCPS** (TVM's ``ToCPS``, ``relay/transforms/to_cps.cc``). Every global ``@f`` gets a CPS
twin ``@f_cps`` (attribute ``CPS=1``): it takes one more parameter, the continuation ``%k``,
and instead of returning a value it passes it to ``%k``; it is polymorphic in the answer
type ``Ans``::

    def @f(%x: t) -> r { e }   ~>   def @f_cps[Ans](%x: t', %k: fn (r') -> Ans) -> Ans { [e] %k }

where a type ``t'`` is ``t`` with every function type ``fn (a..) -> b`` replaced by
``fn (a'.., fn (b') -> Ans) -> Ans``: every function value of the program is in CPS, local
closures, globals used as values (``@g`` becomes ``@g_cps``) and constructors used as values
(``Cons`` becomes ``fn (%a, %b, %k) { %k(Cons(%a, %b)) }``). The body is put in A-normal form
first, then each binding becomes one step: a pure one (operator and constructor calls,
tuples, projections, references, function literals) stays a ``let``; a call ``let %y =
%g(%a); e`` becomes ``%g'(%a', fn (%y) { [e] %k })``; an ``if`` or a ``match`` whose value is
bound gets a join continuation ``let %j = fn (%y) { [e] %k }`` that each branch ends in. A call
in tail position passes ``%k`` itself, so the recursion of a tail-recursive function is a tail
call in the result. Evaluation order is unchanged (arguments, then callee, then body).

Each global whose type mentions no function type becomes ``@f_cps`` applied to the identity
continuation, ``def @f(%x: t) -> r { @f_cps(%x, fn (%v) { %v }) }`` (TVM's ``UnCPS`` wrapper),
so global types are unchanged and ``@main`` runs the CPS code; a global whose type mentions
a function type keeps its direct definition (its callers outside the module pass direct-style
functions), and its twin is what CPS code calls.

Not accepted (the module is returned unchanged): an algebraic data type with a constructor
field of function type (its values would hold CPS closures its definition does not allow),
and functions marked ``Primitive`` or ``Compiler``.

**UnCPS** is the inverse on ToCPS's image: each wrapper ``@f(..) { @f_cps(.., fn (%v) { %v })
}`` becomes the direct-style translation of ``@f_cps``'s body (``%k(a)`` in tail position is
``a``, ``%g_cps(.., fn (%y) { e })`` is ``let %y = @g(..); e``, a join continuation becomes a
``let`` of the ``if`` or ``match``, and CPS types go back), and the ``CPS=1`` globals are
removed once nothing uses them. A global not in that image is left as it is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from ...semantics.syntax import (
    Call,
    Clause,
    Constant,
    Constructor,
    Expr,
    Function,
    FuncType,
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
    TypeVar,
    Var,
    post_order,
    type_children,
)
from ...semantics.typing import infer_types
from ..ir import substitute
from ..pass_manager import Pass, Sequential, register_pass
from .lambda_lift import is_primitive
from .normal_forms import to_anf

CPS_ATTR = "CPS"
MARK = ((CPS_ATTR, 1),)
"""The attribute of a function in CPS (a twin or a converted literal); a continuation has
none, which is how UnCPS tells a zero-parameter function from a continuation."""


def mentions_function(t: Type) -> bool:
    """Whether a function type occurs in ``t``."""
    stack = [t]
    while stack:
        u = stack.pop()
        if isinstance(u, FuncType):
            return True
        stack.extend(type_children(u))
    return False


def cps_type(t: Type, ans: TypeVar) -> Type:
    """``t`` with every function type in continuation-passing form with answer ``ans``."""
    match t:
        case FuncType(args, ret, params, constraints):
            k = FuncType((cps_type(ret, ans),), ans)
            return FuncType(
                (*(cps_type(a, ans) for a in args), k), ans, params, constraints, span=t.span
            )
        case TupleType(fields):
            return TupleType(tuple(cps_type(f, ans) for f in fields), span=t.span)
        case RefType(value):
            return RefType(cps_type(value, ans), span=t.span)
        case TypeCall(func, args):
            return TypeCall(func, tuple(cps_type(a, ans) for a in args), span=t.span)
    return t


def direct_type(t: Type, ans: str) -> Type:
    """The inverse of ``cps_type`` for the answer type variable called ``ans``."""
    match t:
        case FuncType(args, TypeVar(name), params, constraints) if (
            name == ans
            and args
            and isinstance(args[-1], FuncType)
            and len(args[-1].arg_types) == 1
            and args[-1].ret_type == TypeVar(ans)
        ):
            ret = direct_type(args[-1].arg_types[0], ans)
            return FuncType(
                tuple(direct_type(a, ans) for a in args[:-1]), ret, params, constraints,
                span=t.span,
            )  # fmt: skip
        case TupleType(fields):
            return TupleType(tuple(direct_type(f, ans) for f in fields), span=t.span)
        case RefType(value):
            return RefType(direct_type(value, ans), span=t.span)
        case TypeCall(func, args):
            return TypeCall(func, tuple(direct_type(a, ans) for a in args), span=t.span)
    return t


def _fresh_name(base: str, taken: set[str]) -> str:
    name, n = base, 0
    while name in taken:
        n += 1
        name = f"{base}{n}"
    taken.add(name)
    return name


def accepts(mod: IRModule) -> str | None:
    """Why ToCPS leaves ``mod`` as it is, or ``None`` if it converts it."""
    for data in mod.type_definitions.values():
        for ctor in data.constructors:
            if any(mentions_function(t) for t in ctor.inputs):
                return f"constructor {ctor.name} has a field of function type"
    for gv, fn in mod.functions.items():
        for e in post_order(fn):
            if isinstance(e, Function) and (is_primitive(e) or e.attr("Compiler") is not None):
                return f"@{gv.name} holds a primitive or external function"
    return None


# ---------------------------------------------------------------------------------------------
# ToCPS


@dataclass
class _ToCps:
    """Convert the functions of one global; ``twins`` maps each global to its CPS twin."""

    twins: dict[GlobalVar, GlobalVar]
    ans: TypeVar

    def __post_init__(self) -> None:
        self.ren: dict[Var, Var] = {}

    def typ(self, t: Type | None) -> Type | None:
        return None if t is None else cps_type(t, self.ans)

    def bind(self, v: Var) -> Var:
        new = Var(v.name_hint, self.typ(v.type_annotation), span=v.span)
        self.ren[v] = new
        return new

    def atom(self, e: Expr) -> Expr:
        """An atom as a CPS value."""
        match e:
            case Var():
                return self.ren[e]
            case GlobalVar():
                return self.twins[e]
            case Constructor():
                params = tuple(Var(f"a{i}") for i in range(len(e.inputs)))
                k = Var("k")
                return Function((*params, k), Call(k, (Call(e, params),)), attrs=MARK)
        return e

    def simple(self, e: Expr) -> Expr | None:
        """A binding's value that stays a ``let``, converted; ``None`` for the others."""
        match e:
            case Var() | GlobalVar() | Constant() | Constructor():
                return self.atom(e)
            case Tuple(fields):
                return replace(e, fields=tuple(self.atom(f) for f in fields))
            case TupleGetItem(tup):
                return replace(e, tuple=self.atom(tup))
            case Call(Op() | Constructor() as op, args):
                return replace(e, op=op, args=tuple(self.atom(a) for a in args))
            case RefCreate(value):
                return replace(e, value=self.atom(value))
            case RefRead(ref):
                return replace(e, ref=self.atom(ref))
            case RefWrite(ref, value):
                return replace(e, ref=self.atom(ref), value=self.atom(value))
            case Function():
                return self.function(e)
        return None

    def function(self, fn: Function) -> Function:
        params = tuple(self.bind(p) for p in fn.params)
        ret = None if fn.ret_type is None else cps_type(fn.ret_type, self.ans)
        k = Var("k", None if ret is None else FuncType((ret,), self.ans))
        attrs = (*fn.attrs, *MARK)
        return Function((*params, k), self.block(fn.body, k), None, fn.type_params, attrs,
                        span=fn.span)  # fmt: skip

    def callee(self, e: Expr) -> Expr:
        return self.twins[e] if isinstance(e, GlobalVar) else self.atom(e)

    def block(self, e: Expr, k: Var) -> Expr:
        """``e`` (A-normal form) passing its value to the continuation variable ``k``."""
        steps: list[Callable[[Expr], Expr]] = []
        while isinstance(e, Let):
            steps.append(self.step(e.var, e.value))
            e = e.body
        out = self.tail(e, k)
        for make in reversed(steps):
            out = make(out)
        return out

    def step(self, x: Var, value: Expr) -> Callable[[Expr], Expr]:
        """How the binding ``let x = value`` wraps the CPS code of what follows it."""
        if isinstance(value, Function):  # may be recursive: x is in scope in its value
            new = self.bind(x)
            fn = self.function(value)
            return lambda rest: Let(new, fn, rest)
        converted = self.simple(value)
        if converted is not None:
            new = self.bind(x)
            return lambda rest: Let(new, converted, rest)
        if isinstance(value, Call):
            args = tuple(self.atom(a) for a in value.args)
            f = self.callee(value.op)
            new = self.bind(x)
            return lambda rest: Call(f, (*args, Function((new,), rest)), value.attrs)
        # if, match, or a nested block: a join continuation
        join = Var("j")
        body = self.tail(value, join)
        new = self.bind(x)
        return lambda rest: Let(join, Function((new,), rest), body)

    def tail(self, e: Expr, k: Var) -> Expr:
        """``e`` in tail position: its value goes to ``k``."""
        match e:
            case Let():
                return self.block(e, k)
            case If(cond, then, other):
                return If(self.atom(cond), self.block(then, k), self.block(other, k), span=e.span)
            case Match(data, clauses, complete):
                out = []
                for c in clauses:
                    lhs = self.pattern(c.lhs)
                    out.append(Clause(lhs, self.block(c.rhs, k), span=c.span))
                return Match(self.atom(data), tuple(out), complete, span=e.span)
            case Call(op, args) if not isinstance(op, Op | Constructor):
                return Call(self.callee(op), (*(self.atom(a) for a in args), k), e.attrs)
        converted = self.simple(e)
        assert converted is not None, type(e).__name__
        if isinstance(e, Var | GlobalVar | Constant):
            return Call(k, (converted,))
        v = Var("v")
        return Let(v, converted, Call(k, (v,)))

    def pattern(self, p: Pattern) -> Pattern:
        match p:
            case PatternVar(var):
                return PatternVar(self.bind(var), span=p.span)
            case PatternTuple(patterns):
                return PatternTuple(tuple(self.pattern(q) for q in patterns), span=p.span)
            case PatternConstructor(ctor, patterns):
                return PatternConstructor(
                    ctor, tuple(self.pattern(q) for q in patterns), span=p.span
                )
        return p


def to_cps(mod: IRModule) -> IRModule:
    """``mod`` in continuation-passing style (see the module docstring)."""
    if accepts(mod) is not None or not mod.functions:
        return mod
    types = infer_types(mod).globals
    taken = {gv.name for gv in mod.functions}
    twins = {gv: GlobalVar(_fresh_name(f"{gv.name}_cps", taken)) for gv in mod.functions}
    functions: dict[GlobalVar, Function] = {}
    for gv, fn in mod.functions.items():
        ft = types[gv.name]
        assert isinstance(ft, FuncType)
        ans = TypeVar(_fresh_name("Ans", {tv.name for tv in ft.type_params}))
        conv = _ToCps(twins, ans)
        anf = to_anf(fn)
        # Inferred types may keep holes (an unused Nil's element type): written as they are,
        # they let inference fill them in the twin as it did in the original.
        params = tuple(
            Var(p.name_hint, cps_type(t, ans), span=p.span)
            for p, t in zip(anf.params, ft.arg_types, strict=True)
        )
        conv.ren.update(zip(anf.params, params, strict=True))
        k = Var("k", FuncType((cps_type(ft.ret_type, ans),), ans))
        body = conv.block(anf.body, k)
        attrs = (*fn.attrs, (CPS_ATTR, 1))
        twin = Function((*params, k), body, ans, (*ft.type_params, ans), attrs, span=fn.span)
        if any(mentions_function(t) for t in (*ft.arg_types, ft.ret_type)):
            functions[gv] = _signed(fn, ft)
        else:
            direct = tuple(Var(p.name_hint, p.type_annotation, span=p.span) for p in fn.params)
            v = Var("v")
            call = Call(twins[gv], (*direct, Function((v,), v)))
            functions[gv] = Function(
                direct, call, fn.ret_type, fn.type_params, fn.attrs, span=fn.span
            )
        functions[twins[gv]] = twin
    return IRModule(functions, mod.type_definitions)


def _signed(fn: Function, ft: FuncType) -> Function:
    """``fn`` with the inferred types written on its unannotated parameters and result.

    A global kept in direct style may have a type that only a call in another global fixes
    (``def @f(%x: List[int32]) { Nil }`` called as ``let %y: List[fn () -> int32] = @f(..)``);
    that call moves into a CPS twin, which calls ``@f_cps`` instead, so without the annotation
    ``@f``'s type would lose what the call fixed.
    """
    params = tuple(
        p if p.type_annotation is not None else Var(p.name_hint, t, span=p.span)
        for p, t in zip(fn.params, ft.arg_types, strict=True)
    )
    ret = fn.ret_type if fn.ret_type is not None else ft.ret_type
    if params == fn.params and ret is fn.ret_type:
        return fn
    body = substitute(fn.body, {p: q for p, q in zip(fn.params, params, strict=True) if p is not q})
    return Function(params, body, ret, fn.type_params, fn.attrs, span=fn.span)


# ---------------------------------------------------------------------------------------------
# UnCPS


class NotCps(Exception):
    """The code is not in the image of ToCPS."""


@dataclass
class _UnCps:
    """Direct style for the CPS code of one twin; ``direct`` maps twins to their globals."""

    direct: dict[GlobalVar, GlobalVar]
    ans: str

    def __post_init__(self) -> None:
        self.ren: dict[Var, Var] = {}

    def typ(self, t: Type | None) -> Type | None:
        return None if t is None else direct_type(t, self.ans)

    def binder(self, v: Var) -> Var:
        t = self.typ(v.type_annotation)
        if t == v.type_annotation:
            return v
        new = Var(v.name_hint, t, span=v.span)
        self.ren[v] = new
        return new

    def pattern(self, p: Pattern) -> Pattern:
        match p:
            case PatternVar(var):
                new = self.binder(var)
                return p if new is var else PatternVar(new, span=p.span)
            case PatternTuple(patterns) | PatternConstructor(_, patterns):
                return replace(p, patterns=tuple(self.pattern(q) for q in patterns))
        return p

    def value(self, e: Expr) -> Expr:
        match e:
            case Var():
                return self.ren.get(e, e)
            case GlobalVar() if e in self.direct:
                return self.direct[e]
            case GlobalVar() if e.name.endswith("_cps"):
                raise NotCps(f"@{e.name} has no direct counterpart")
            case Var() | GlobalVar() | Constant() | Constructor() | Op():
                return e
            case Tuple(fields):
                return replace(e, fields=tuple(self.value(f) for f in fields))
            case TupleGetItem(tup):
                return replace(e, tuple=self.value(tup))
            case Call(Op() | Constructor() as op, args):
                return replace(e, op=op, args=tuple(self.value(a) for a in args))
            case RefCreate(value):
                return replace(e, value=self.value(value))
            case RefRead(ref):
                return replace(e, ref=self.value(ref))
            case RefWrite(ref, value):
                return replace(e, ref=self.value(ref), value=self.value(value))
            case Function(params, body) if params and e.attr(CPS_ATTR):
                k = params[-1]
                direct_params = tuple(self.binder(p) for p in params[:-1])
                attrs = tuple(a for a in e.attrs if a[0] != CPS_ATTR)
                ret = self.result_type(k)
                return Function(direct_params, self.block(body, k), ret, e.type_params, attrs,
                                span=e.span)  # fmt: skip
        raise NotCps(f"{type(e).__name__} is not a CPS value")

    def result_type(self, k: Var) -> Type | None:
        """The direct-style result type of a function whose continuation is ``k``: ToCPS moves
        a result annotation onto the continuation, and it may be what fixes a type (a
        ``Leaf`` returned as ``Tree[int32]``), so it comes back."""
        t = k.type_annotation
        if isinstance(t, FuncType) and len(t.arg_types) == 1:
            return self.typ(t.arg_types[0])
        return None

    def block(self, e: Expr, k: Var) -> Expr:
        """The direct-style expression of CPS code ``e`` whose continuation is ``k``."""
        lets: list[tuple[Var, Expr]] = []
        while True:
            match e:
                case Let(j, Function((y,), rest) as cont, body) if not cont.attr(CPS_ATTR):
                    direct = self.block(body, j)
                    lets.append((self.binder(y), direct))
                    e = rest
                    continue
                case Let(x, value, body):
                    # the binder first: a let-bound function may call itself, and its body
                    # must see the renamed variable
                    new = self.binder(x)
                    lets.append((new, self.value(value)))
                    e = body
                    continue
                case Call(kv, (a,)) if kv is k:
                    out = self.value(a)
                case Call(f, args) if args and args[-1] is k:
                    out = Call(self.value(f), tuple(self.value(a) for a in args[:-1]), e.attrs)
                case Call(f, args) if (
                    args and isinstance(args[-1], Function) and len(args[-1].params) == 1
                ):
                    cont = args[-1]
                    call = Call(self.value(f), tuple(self.value(a) for a in args[:-1]), e.attrs)
                    lets.append((self.binder(cont.params[0]), call))
                    e = cont.body
                    continue
                case If(cond, then, other):
                    out = If(self.value(cond), self.block(then, k), self.block(other, k),
                             span=e.span)  # fmt: skip
                case Match(data, clauses, complete):
                    out = Match(
                        self.value(data),
                        tuple(
                            Clause(self.pattern(c.lhs), self.block(c.rhs, k), span=c.span)
                            for c in clauses
                        ),
                        complete,
                        span=e.span,
                    )
                case _:
                    raise NotCps(f"{type(e).__name__} in tail position")
            break
        for var, value in reversed(lets):
            out = Let(var, value, out)
        return out


def _wrapper_twin(fn: Function, twins: set[GlobalVar]) -> GlobalVar | None:
    """The twin a ToCPS wrapper ``@f(..) { @f_cps(.., fn (%v) { %v }) }`` calls."""
    match fn.body:
        case Call(GlobalVar() as twin, args) if (
            twin in twins
            and len(args) == len(fn.params) + 1
            and all(a is p for a, p in zip(args, fn.params, strict=False))
            and isinstance(args[-1], Function)
            and len(args[-1].params) == 1
            and args[-1].body is args[-1].params[0]
        ):
            return twin
    return None


def un_cps(mod: IRModule) -> IRModule:
    """``mod`` with ToCPS's wrappers in direct style again (see the module docstring)."""
    twins = {gv for gv, fn in mod.functions.items() if fn.attr(CPS_ATTR)}
    owner: dict[GlobalVar, GlobalVar] = {}
    for gv, fn in mod.functions.items():
        twin = _wrapper_twin(fn, twins)
        if twin is not None:
            owner[twin] = gv
    if not owner:
        return mod
    # Every twin names its direct global: ``@f_cps`` is ``@f``'s.
    by_name = {gv.name: gv for gv in mod.functions}
    direct: dict[GlobalVar, GlobalVar] = {}
    for twin in twins:
        base = owner.get(twin) or by_name.get(twin.name.removesuffix("_cps"))
        if base is not None:
            direct[twin] = base
    functions = dict(mod.functions)
    for twin, gv in owner.items():
        fn, cps = mod.functions[gv], mod.functions[twin]
        ans = cps.type_params[-1].name if cps.type_params else ""
        un = _UnCps(direct, ans)
        un.ren.update(zip(cps.params[:-1], fn.params, strict=True))
        try:
            body = un.block(cps.body, cps.params[-1])
        except NotCps:
            continue
        ret = fn.ret_type if fn.ret_type is not None else un.result_type(cps.params[-1])
        functions[gv] = replace(fn, body=body, ret_type=ret)
    out = IRModule(functions, mod.type_definitions)
    kept = {gv.name for gv, f in out.functions.items() if not f.attr(CPS_ATTR)}
    return _drop_unused_twins(out, kept)


def _drop_unused_twins(mod: IRModule, roots: set[str]) -> IRModule:
    """``mod`` without the CPS twins no global outside them reaches."""
    reach: set[GlobalVar] = set()
    stack = [gv for gv in mod.functions if gv.name in roots]
    while stack:
        gv = stack.pop()
        if gv in reach:
            continue
        reach.add(gv)
        for e in post_order(mod.functions[gv]):
            if isinstance(e, GlobalVar) and e in mod.functions:
                stack.append(e)
    return IRModule({gv: f for gv, f in mod.functions.items() if gv in reach}, mod.type_definitions)


@register_pass
@dataclass(frozen=True)
class ToCPS(Pass):
    """Convert every global to continuation-passing style (a ``_cps`` twin per global).

    Pre: well-typed; no constructor field of function type, no primitive function (else
    unchanged). Post: same meaning and types for every global of the input; each ``@f_cps``
    (``CPS=1``) takes a continuation and calls every function in CPS.
    """

    opt_level = 3

    def transform(self, mod: IRModule) -> IRModule:
        return to_cps(mod)


@register_pass
@dataclass(frozen=True)
class UnCPS(Pass):
    """Turn ToCPS's output back into direct style.

    Pre: well-typed. Post: same meaning and types; each ToCPS wrapper is the direct-style
    translation of its twin, and the twins nothing uses any more are removed.
    """

    opt_level = 3

    def transform(self, mod: IRModule) -> IRModule:
        return un_cps(mod)


@register_pass
@dataclass(frozen=True)
class CPSRoundTrip(Pass):
    """ToCPS then UnCPS, as one pass: ``relay fuzz`` holds the pair to the value oracle by
    default (UnCPS alone leaves every program outside ToCPS's image unchanged, so a campaign
    of it alone checks nothing).

    Pre: well-typed. Post: same meaning and types for every global.
    """

    opt_level = 3

    def transform(self, mod: IRModule) -> IRModule:
        return un_cps(to_cps(mod))


ROUND_TRIP = Sequential((ToCPS(), UnCPS()), label="to-cps-un-cps")
"""ToCPS then UnCPS, each checked by the oracle when fuzzed:
``relay fuzz --pass relay.compiler.passes.cps:ROUND_TRIP``."""
