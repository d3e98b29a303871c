"""Reverse-mode AD of higher-order programs: the Relay paper's transformation (TVM's
``gradient(expr, mod, mode="higher_order")``).

Every float tensor ``x : t`` of the program becomes a pair ``(x, r) : (t, ref(t))`` whose
reference ``r`` accumulates ``x``'s gradient, and the program threads one backpropagator
``%bp : ref(fn () -> ())``. Each operator call, run forward on the primal values, pushes onto
``%bp`` a closure that reads the call's own gradient cell and adds the operator's
vector-Jacobian product (``rules``) into its arguments' cells, then runs what ``%bp`` held
before. Seeding the result's cell with ones and running ``%bp`` once replays every call in
reverse order::

    T(Tensor[s, float*]) = (Tensor[s, float*], ref(Tensor[s, float*]))
    T(other tensor) = itself     T((t1, .., tn)) = (T(t1), .., T(tn))
    T(fn (ts) -> t) = fn (T(ts)) -> T(t)      T(ref(t)) = ref(T(t))
    T(D[ts]) = D'[T(ts)]   where D' is D with its constructors' fields under T (D itself
                           when none holds a float tensor, such as List[A])

Everything but calls of operators and float constants is translated structurally:
``let``, ``if`` (its condition is a bool and is not wrapped), ``match`` (patterns over the
translated constructors), references (a cell holds a wrapped value, so gradients flow through
whatever is written and read), closures, tuples and constructors. A global ``@f`` becomes
``@f_grad`` taking ``%bp`` first, so recursion and mutual recursion work; a closure captures
``%bp``. Sharing cannot occur: the input is put in A-normal form first (``to_anf``), after
``EtaExpand`` has turned globals and constructors used as values into ``fn`` literals.

The entry ``@main(%x1: t1, .., %xn: tn) -> t`` (float tensors only) becomes::

    fn (%x1, .., %xn) -> (t, (t1, .., tn))       the value and the gradient of sum(@main(..))

or, with ``with_cotangent``, ``fn (%x1, .., %xn, %dy: t)``: the gradient of
``sum(@main(..) * %dy)`` (the vector-Jacobian product with ``%dy``).

Preconditions: well-typed; every operator call has a rule or a zero gradient (``rules``);
no operator is used as a value. A violation is a ``PassError`` at the offending node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from ....semantics.errors import PassError
from ....semantics.syntax import (
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
    Var,
    type_children,
)
from ....semantics.typing import TypeInfo
from .rules import RULES, ZERO_GRADIENT, GradCall, GradRule, NoGradient
from .rules.common import add, carries_gradient, ones_like, zeros_like

UNIT = TupleType(())
BACKPROP = FuncType((), UNIT)


def is_float_tensor(t: Type) -> bool:
    return isinstance(t, TensorType) and t.dtype.startswith("float")


def has_hole(t: Type) -> bool:
    stack = [t]
    while stack:
        u = stack.pop()
        if isinstance(u, IncompleteType):
            return True
        stack.extend(type_children(u))
    return False


def seq(effect: Expr, then: Expr) -> Let:
    """``effect; then``."""
    return Let(Var("_"), effect, then)


def lets(bindings: Sequence[tuple[Var, Expr]], body: Expr) -> Expr:
    for var, value in reversed(bindings):
        body = Let(var, value, body)
    return body


class ReverseAD:
    """The translation of one module (see the module docstring). ``accumulate`` and the
    ``rules`` table are what a broken gradient (a mutant) replaces. ``LazyGradientInit``
    reuses the structural part with another type map (``ty``) and operator translation."""

    suffix = "_grad"
    """Appended to the names of translated globals, data types and constructors."""

    def __init__(self, mod: IRModule, info: TypeInfo, rules: Mapping[str, GradRule] = RULES):
        self.mod = mod
        self.info = info
        self.rules = rules
        self.vars: dict[Var, Var] = {}
        self.globals: dict[GlobalVar, GlobalVar] = {}
        self.headers: dict[GlobalTypeVar, GlobalTypeVar] = {}
        self.ctors: dict[Constructor, Constructor] = {}
        self.new_types: list[TypeData] = []
        self._plan_types()

    # -- types ---------------------------------------------------------------------------------

    def _plan_types(self) -> None:
        """Decide which data types change (a constructor field holds, possibly through other
        changed types, a float tensor) and build their translated definitions."""
        names = {gv.name for gv in self.mod.type_definitions}
        changed: set[GlobalTypeVar] = set()
        while True:
            self.headers = {h: h for h in changed}
            grow = {
                h
                for h, data in self.mod.type_definitions.items()
                if h not in changed
                and any(self.ty(t) != t for c in data.constructors for t in c.inputs)
            }
            if not grow:
                break
            changed |= grow
        self.headers = {}
        for h in changed:
            name = fresh_name(f"{h.name}{self.suffix}", names)
            names.add(name)
            self.headers[h] = GlobalTypeVar(name)
        ctor_names = {c.name for c in self.mod.constructors().values()}
        for h in changed:
            data = self.mod.type_definitions[h]
            new_ctors = []
            for c in data.constructors:
                name = fresh_name(f"{c.name}{self.suffix}", ctor_names)
                ctor_names.add(name)
                new = Constructor(name, tuple(self.ty(t) for t in c.inputs), self.headers[h], c.tag)
                self.ctors[c] = new
                new_ctors.append(new)
            self.new_types.append(TypeData(self.headers[h], data.type_vars, tuple(new_ctors)))

    def ty(self, t: Type) -> Type:
        """``T(t)``."""
        match t:
            case TensorType():
                return TupleType((t, RefType(t))) if is_float_tensor(t) else t
            case TupleType(fields):
                return TupleType(tuple(self.ty(f) for f in fields))
            case FuncType(args, ret, params, constraints):
                return FuncType(tuple(self.ty(a) for a in args), self.ty(ret), params,
                                constraints)  # fmt: skip
            case RefType(value):
                return RefType(self.ty(value))
            case TypeCall(func, args):
                return TypeCall(self.headers.get(func, func), tuple(self.ty(a) for a in args))
        return t

    def annotation(self, t: Type | None) -> Type | None:
        if t is None or has_hole(t):
            return None
        return self.ty(t)

    def type_of(self, e: Expr) -> Type:
        try:
            return self.info.type_of(e)
        except KeyError:
            raise PassError("Gradient: an expression has no inferred type", e.span,
                            pass_name="Gradient") from None  # fmt: skip

    # -- values --------------------------------------------------------------------------------

    def new_var(self, v: Var) -> Var:
        t = self.info.expr_types.get(v, v.type_annotation)
        out = Var(v.name_hint, self.annotation(t), span=v.span)
        self.vars[v] = out
        return out

    def primal(self, w: Expr, t: Type) -> Expr:
        """The primal value of the wrapped atom ``w`` of type ``T(t)``."""
        if is_float_tensor(t):
            return TupleGetItem(w, 0)
        if isinstance(t, TupleType) and carries_gradient(t):
            return Tuple(tuple(self.primal(TupleGetItem(w, i), f) for i, f in enumerate(t.fields)))
        return w

    def wrap(self, y: Var, t: Type) -> Expr:
        """The wrapped value of the primal atom ``y`` of type ``t``, with fresh zero cells."""
        if is_float_tensor(t):
            return Tuple((y, RefCreate(zeros_like(y))))
        if isinstance(t, TupleType) and carries_gradient(t):
            return Tuple(tuple(self.wrap_field(y, i, f) for i, f in enumerate(t.fields)))
        return y

    def wrap_field(self, y: Var, i: int, t: Type) -> Expr:
        item = Var(f"{y.name_hint}_{i}")
        return Let(item, TupleGetItem(y, i), self.wrap(item, t))

    def cotangent(self, w: Expr, t: Type) -> Expr:
        """The gradient accumulated so far in the cells of the wrapped atom ``w``."""
        if is_float_tensor(t):
            return RefRead(TupleGetItem(w, 1))
        if isinstance(t, TupleType):
            return Tuple(
                tuple(self.cotangent(TupleGetItem(w, i), f) for i, f in enumerate(t.fields))
            )
        return zeros_like(w)

    def accumulate(self, w: Expr, t: Type, grad: Expr, then: Expr) -> Expr:
        """``then`` after adding ``grad`` into the cells of the wrapped atom ``w``."""
        if is_float_tensor(t):
            cell = TupleGetItem(w, 1)
            return seq(RefWrite(cell, add(RefRead(TupleGetItem(w, 1)), grad)), then)
        if isinstance(t, TupleType):
            g = Var("g")
            body = then
            for i in reversed(range(len(t.fields))):
                if carries_gradient(t.fields[i]):
                    body = self.accumulate(
                        TupleGetItem(w, i), t.fields[i], TupleGetItem(g, i), body
                    )
            return Let(g, grad, body)
        return then

    # -- expressions ---------------------------------------------------------------------------

    def expr(self, e: Expr, bp: Var) -> Expr:
        """``T(e)``, with ``bp`` the backpropagator in scope."""
        spine: list[tuple[Var, Expr]] = []
        while isinstance(e, Let):  # A-normal form nests lets thousands deep: walk the spine
            var = self.new_var(e.var)  # first: a recursive closure refers to itself
            spine.append((var, self.expr(e.value, bp)))
            e = e.body
        return lets(spine, self.node(e, bp))

    def node(self, e: Expr, bp: Var) -> Expr:
        match e:
            case Var():
                if e not in self.vars:
                    raise PassError(f"Gradient: free variable %{e.name_hint}", e.span,
                                    pass_name="Gradient")  # fmt: skip
                return self.vars[e]
            case GlobalVar():
                raise PassError(f"Gradient: @{e.name} used as a value (run eta-expand)", e.span,
                                pass_name="Gradient")  # fmt: skip
            case Constant():
                return self.constant(e)
            case Tuple(fields):
                return Tuple(tuple(self.expr(f, bp) for f in fields), span=e.span)
            case TupleGetItem(tup, index):
                return TupleGetItem(self.expr(tup, bp), index, span=e.span)
            case Function():
                return self.function(e, bp)
            case Call(Op() as callee, args):
                return self.op_call(e, callee, args, bp)
            case Call(GlobalVar() as gv, args):
                return Call(self.global_var(gv), (bp, *(self.expr(a, bp) for a in args)),
                            None, tuple(self.ty(t) for t in e.type_args), span=e.span)  # fmt: skip
            case Call(Constructor() as c, args):
                return Call(self.ctors.get(c, c), tuple(self.expr(a, bp) for a in args),
                            span=e.span)  # fmt: skip
            case Call(callee, args):
                new_args = tuple(self.expr(a, bp) for a in args)
                type_args = tuple(self.ty(t) for t in e.type_args)
                return Call(self.expr(callee, bp), new_args, e.attrs, type_args, span=e.span)
            case Let():
                return self.expr(e, bp)
            case If(cond, then, other):
                return If(self.expr(cond, bp), self.expr(then, bp), self.expr(other, bp),
                          span=e.span)  # fmt: skip
            case Match(data, clauses, complete):
                new_data = self.expr(data, bp)
                new_clauses = []
                for clause in clauses:
                    lhs = self.pattern(clause.lhs)
                    rhs = self.expr(clause.rhs, bp)
                    new_clauses.append(Clause(lhs, rhs, span=clause.span))
                return Match(new_data, tuple(new_clauses), complete, span=e.span)
            case RefCreate(value):
                return RefCreate(self.expr(value, bp), span=e.span)
            case RefRead(ref):
                return RefRead(self.expr(ref, bp), span=e.span)
            case RefWrite(ref, value):
                return RefWrite(self.expr(ref, bp), self.expr(value, bp), span=e.span)
            case Op():
                raise PassError(f"Gradient: operator {e.name} used as a value", e.span,
                                pass_name="Gradient")  # fmt: skip
            case Constructor():
                return self.ctors.get(e, e)
        raise AssertionError(type(e).__name__)

    def constant(self, c: Constant) -> Expr:
        t = self.type_of(c)
        if is_float_tensor(t):
            return Tuple((c, RefCreate(zeros_like(c))))
        return c

    def pattern(self, p: Pattern) -> Pattern:
        match p:
            case PatternWildcard():
                return PatternWildcard(span=p.span)
            case PatternVar(var):
                return PatternVar(self.new_var(var), span=p.span)
            case PatternConstructor(ctor, patterns):
                return PatternConstructor(self.ctors.get(ctor, ctor),
                                          tuple(self.pattern(q) for q in patterns),
                                          span=p.span)  # fmt: skip
            case PatternTuple(patterns):
                return PatternTuple(tuple(self.pattern(q) for q in patterns), span=p.span)
        raise AssertionError(type(p).__name__)

    def function(self, fn: Function, bp: Var) -> Function:
        params = tuple(self.new_var(p) for p in fn.params)
        return Function(params, self.expr(fn.body, bp), self.annotation(fn.ret_type),
                        fn.type_params, fn.attrs, span=fn.span)  # fmt: skip

    def global_var(self, gv: GlobalVar) -> GlobalVar:
        if gv not in self.globals:
            taken = {g.name for g in self.mod.functions} | {g.name for g in self.globals.values()}
            self.globals[gv] = GlobalVar(fresh_name(f"{gv.name}{self.suffix}", taken))
        return self.globals[gv]

    def global_function(self, gv: GlobalVar) -> Function:
        """``@f_grad``: ``@f`` translated, taking the backpropagator first."""
        fn = self.mod.functions[gv]
        bp = Var("bp", RefType(BACKPROP))
        params = tuple(self.new_var(p) for p in fn.params)
        t = self.info.globals.get(gv.name)
        ret = t.ret_type if isinstance(t, FuncType) else fn.ret_type
        return Function((bp, *params), self.expr(fn.body, bp), self.annotation(ret),
                        fn.type_params, fn.attrs, span=fn.span)  # fmt: skip

    def op_call(self, e: Call, callee: Op, args: tuple[Expr, ...], bp: Var) -> Expr:
        """``y = op(primal args)`` forward; the backpropagator gets the rule's closure."""
        arg_types = tuple(self.type_of(a) for a in args)
        out_type = self.type_of(e)
        bindings: list[tuple[Var, Expr]] = []
        wrapped: list[Var] = []
        primals: list[Expr] = []
        for i, (a, t) in enumerate(zip(args, arg_types, strict=True)):
            w = Var(f"a{i}")
            bindings.append((w, self.expr(a, bp)))
            wrapped.append(w)
            if carries_gradient(t):
                p = Var(f"p{i}")
                bindings.append((p, self.primal(w, t)))
                primals.append(p)
            else:
                primals.append(w)
        forward = Call(callee, tuple(primals), e.attrs, e.type_args, span=e.span)
        y = Var("y")
        bindings.append((y, forward))
        out = Var("out")
        bindings.append((out, self.wrap(y, out_type)))
        needs = carries_gradient(out_type) and any(carries_gradient(t) for t in arg_types)
        if not needs or callee.name in ZERO_GRADIENT:
            return lets(bindings, out)
        rule = self.rules.get(callee.name)
        if rule is None:
            raise NoGradient(f"Gradient: no gradient rule for operator {callee.name}", e.span,
                             pass_name="Gradient")  # fmt: skip
        g = Var("g")
        call = GradCall(forward, y, g, arg_types, out_type)
        grads = rule(call)
        previous = Var("next")
        body: Expr = Call(previous, ())
        for i in reversed(range(len(args))):
            grad = grads[i] if i < len(grads) else None
            if grad is not None and carries_gradient(arg_types[i]):
                body = self.accumulate(wrapped[i], arg_types[i], grad, body)
        back = Function((), Let(g, self.cotangent(out, out_type), body), UNIT)
        push = RefWrite(bp, back)
        return lets(bindings, Let(previous, RefRead(bp), seq(push, out)))

    # -- the entry -----------------------------------------------------------------------------

    def entry(self, fn: Function, *, with_cotangent: bool) -> Function:
        """The gradient function of ``@main`` (see the module docstring)."""
        params = []
        for p in fn.params:
            t = self.info.expr_types.get(p, p.type_annotation)
            if t is None or not is_float_tensor(t):
                raise PassError(f"Gradient: parameter %{p.name_hint} must be a float tensor, "
                                f"found {describe(t)}", p.span, pass_name="Gradient")  # fmt: skip
            params.append((p, t))
        fn_type = self.info.globals.get("main")
        ret = fn_type.ret_type if isinstance(fn_type, FuncType) else fn.ret_type
        if ret is None or not is_float_tensor(ret):
            raise PassError(f"Gradient: @main must return a float tensor, found {describe(ret)}",
                            fn.span, pass_name="Gradient")  # fmt: skip
        bp = Var("bp", RefType(BACKPROP))
        new_params = [Var(p.name_hint, t, span=p.span) for p, t in params]
        bindings: list[tuple[Var, Expr]] = [(bp, RefCreate(Function((), Tuple(()), UNIT)))]
        for (p, _), x in zip(params, new_params, strict=True):
            w = self.new_var(p)
            bindings.append((w, Tuple((x, RefCreate(zeros_like(x))))))
        result = Var("result", self.ty(ret))
        bindings.append((result, self.expr(fn.body, bp)))
        seed: Expr = ones_like(TupleGetItem(result, 0))
        if with_cotangent:
            dy = Var("dy", ret)
            new_params.append(dy)
            seed = dy
        run = Var("backward")
        grads = Tuple(tuple(RefRead(TupleGetItem(self.vars[p], 1)) for p, _ in params))
        body = seq(
            RefWrite(TupleGetItem(result, 1), seed),
            Let(run, RefRead(bp), seq(Call(run, ()), Tuple((TupleGetItem(result, 0), grads)))),
        )
        out_type = TupleType((ret, TupleType(tuple(t for _, t in params))))
        return Function(tuple(new_params), lets(bindings, body), out_type, span=fn.span)


def describe(t: Type | None) -> str:
    from ....semantics.text.printer import format_type

    return "an unknown type" if t is None else format_type(t)


def fresh_name(base: str, taken: set[str]) -> str:
    if base not in taken:
        return base
    n = 1
    while f"{base}{n}" in taken:
        n += 1
    return f"{base}{n}"


def reverse_ad(
    mod: IRModule,
    info: TypeInfo,
    *,
    entry: str = "main",
    with_cotangent: bool = False,
    rules: Mapping[str, GradRule] = RULES,
    translator: type[ReverseAD] = ReverseAD,
) -> IRModule:
    """``mod`` (in A-normal form, with ``info`` its types) with ``@entry`` replaced by its
    gradient and the globals it calls translated beside the originals."""
    ad = translator(mod, info, rules)
    gv = mod.get_global_var(entry)
    main = ad.entry(mod.functions[gv], with_cotangent=with_cotangent)
    done: dict[GlobalVar, Function] = {}
    while len(done) < len(ad.globals):
        for old in list(ad.globals):
            if old not in done:
                done[old] = ad.global_function(old)
    functions = {g: f for g, f in mod.functions.items()}
    functions[gv] = main
    for old, new in ad.globals.items():
        functions[new] = done[old]
    types = dict(mod.type_definitions)
    for data in ad.new_types:
        types[data.header] = data
    return replace(mod, functions=functions, type_definitions=types)
