"""LazyGradientInit: float tensors become GradCell values, so zeros and ones are never built
unless needed (TVM's ``LazyGradientInit``, meant to run after ``Gradient``).

The module gets the data type and its reader::

    type GradCell[T] { Raw(T), One(fn () -> T), Zero(fn () -> T) }
    def @from_gradcell[T](%g: GradCell[T]) -> T  { Raw(%x) => %x, One(%f) | Zero(%f) => %f() }

and every global ``@f`` a translation ``@f_lazy`` in which every float tensor ``t`` is a
``GradCell[t]`` (through tuples, functions, references and data types, as ``Gradient``
translates types; a data type whose fields hold float tensors gets a ``_lazy`` copy)::

    zeros_like(x), zeros(..)   ~>  Zero(fn () { zeros_like(@from_gradcell(x')) })   (a thunk)
    ones_like(x), ones(..)     ~>  One(fn () { .. })
    add(a, b)                  ~>  b' if a' is Zero, a' if b' is Zero, else Raw(add(..))
    multiply(a, b)             ~>  the Zero operand if there is one, the other operand if one
                                   is One, else Raw(multiply(..))
    any other op(a, ..)        ~>  Raw(op(@from_gradcell(a'), ..))
    a float constant c         ~>  Raw(c)

The shortcuts apply only where both operands and the result have one static type (no
broadcasting), so they mean what the operator means. ``@main`` keeps its type: it becomes
``@main(%x..) { @from_gradcell(@main_lazy(Raw(%x)..)) }`` (through tuples). A module whose
``@main`` takes or returns anything else holding floats (a function, a reference, a data
type) is returned unchanged.

Pre: well-typed; no operator used as a value. Post: the same meaning and the same type of
``@main``; the original globals are kept (the translated ones are what ``@main`` runs), with
their types: where only ``@main``'s calls fixed one (an unannotated result), the pass writes it
as annotations.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...semantics.syntax import (
    Call,
    Clause,
    Constant,
    Constructor,
    Expr,
    Function,
    FuncType,
    GlobalTypeVar,
    GlobalVar,
    IRModule,
    Match,
    Op,
    PatternConstructor,
    PatternVar,
    PatternWildcard,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    TypeCall,
    TypeData,
    TypeVar,
    Var,
)
from ...semantics.typing import infer_types
from ..pass_manager import Pass, register_pass
from .gradient import prepare
from .gradient.higher_order import ReverseAD, fresh_name, is_float_tensor, lets
from .gradient.rules.common import carries_gradient
from .infer_type import keep_global_types

LAZY = {"zeros_like": "Zero", "zeros": "Zero", "ones_like": "One", "ones": "One"}


class LazyCells(ReverseAD):
    """The translation (see the module docstring): ``ReverseAD``'s structural part, with
    ``GradCell`` as the image of a float tensor and no backpropagator."""

    suffix = "_lazy"

    def __init__(self, mod: IRModule, info: object, cell: TypeData, reader: GlobalVar) -> None:
        self.cell = cell
        self.raw, self.one, self.zero = cell.constructors
        self.reader = reader
        super().__init__(mod, info)  # type: ignore[arg-type]

    def ty(self, t: Type) -> Type:
        if is_float_tensor(t):
            return TypeCall(self.cell.header, (t,))
        return super().ty(t)

    def from_cell(self, w: Expr, t: Type) -> Expr:
        """The plain value of the translated atom ``w`` of type ``T(t)``."""
        if is_float_tensor(t):
            return Call(self.reader, (w,))
        if isinstance(t, TupleType) and carries_gradient(t):
            return Tuple(
                tuple(self.from_cell(TupleGetItem(w, i), f) for i, f in enumerate(t.fields))
            )
        return w

    def to_cell(self, y: Expr, t: Type) -> Expr:
        """The translation of the plain atom ``y`` of type ``t``."""
        if is_float_tensor(t):
            return Call(self.raw, (y,))
        if isinstance(t, TupleType) and carries_gradient(t):
            fields = enumerate(t.fields)
            return Tuple(tuple(self.to_cell(TupleGetItem(y, i), f) for i, f in fields))
        return y

    def constant(self, c: Constant) -> Expr:
        return self.to_cell(c, self.type_of(c))

    def node(self, e: Expr, bp: Var) -> Expr:
        if isinstance(e, Call) and isinstance(e.op, GlobalVar):
            args = tuple(self.expr(a, bp) for a in e.args)
            type_args = tuple(self.ty(t) for t in e.type_args)
            return Call(self.global_var(e.op), args, None, type_args, span=e.span)
        return super().node(e, bp)

    def global_function(self, gv: GlobalVar) -> Function:
        fn = self.mod.functions[gv]
        params = tuple(self.new_var(p) for p in fn.params)
        t = self.info.globals.get(gv.name)
        ret = t.ret_type if isinstance(t, FuncType) else fn.ret_type
        dummy = Var("unused")
        return Function(params, self.expr(fn.body, dummy), self.annotation(ret),
                        fn.type_params, fn.attrs, span=fn.span)  # fmt: skip

    def op_call(self, e: Call, callee: Op, args: tuple[Expr, ...], bp: Var) -> Expr:
        arg_types = tuple(self.type_of(a) for a in args)
        out_type = self.type_of(e)
        bindings: list[tuple[Var, Expr]] = []
        cells: list[Var] = []
        for i, a in enumerate(args):
            w = Var(f"c{i}")
            bindings.append((w, self.expr(a, bp)))
            cells.append(w)
        plain = tuple(self.from_cell(w, t) for w, t in zip(cells, arg_types, strict=True))
        forward = Call(callee, plain, e.attrs, e.type_args, span=e.span)
        same = all(t == out_type for t in arg_types) and static(out_type)
        if callee.name in LAZY and is_float_tensor(out_type):
            ctor = self.one if LAZY[callee.name] == "One" else self.zero
            return lets(bindings, Call(ctor, (Function((), forward),)))
        if callee.name in ("add", "multiply") and same and is_float_tensor(out_type):
            return lets(bindings, self.shortcut(callee.name, cells[0], cells[1], forward))
        y = Var("y")
        return lets([*bindings, (y, forward)], self.to_cell(y, out_type))

    def shortcut(self, name: str, a: Var, b: Var, forward: Call) -> Expr:
        """``add``/``multiply`` of two cells, without computing where a Zero or One decides."""
        raw = Call(self.raw, (forward,))

        def case(ctor: Constructor, rhs: Expr) -> Clause:
            return Clause(PatternConstructor(ctor, (PatternWildcard(),)), rhs)

        other = Clause(PatternWildcard(), raw)
        if name == "add":
            inner = Match(b, (case(self.zero, a), other))
            return Match(a, (case(self.zero, b), Clause(PatternWildcard(), inner)))
        inner = Match(b, (case(self.zero, b), case(self.one, a), other))
        return Match(a, (case(self.zero, a), case(self.one, b), Clause(PatternWildcard(), inner)))

    def entry_wrapper(self, fn: Function, lazy: GlobalVar) -> Function:
        """``@main`` on plain values, calling its translation."""
        params = []
        for p in fn.params:
            t = self.info.expr_types.get(p, p.type_annotation)
            params.append(Var(p.name_hint, t, span=p.span))
        bindings: list[tuple[Var, Expr]] = []
        cells = []
        for p in params:
            assert p.type_annotation is not None
            w = Var(f"{p.name_hint}_cell")
            bindings.append((w, self.to_cell(p, p.type_annotation)))
            cells.append(w)
        t = self.info.globals["main"]
        assert isinstance(t, FuncType)
        result = Var("result")
        bindings.append((result, Call(lazy, tuple(cells))))
        return Function(tuple(params), lets(bindings, self.from_cell(result, t.ret_type)),
                        t.ret_type, fn.type_params, fn.attrs, span=fn.span)  # fmt: skip


def static(t: Type) -> bool:
    return isinstance(t, TensorType) and all(isinstance(d, int) for d in t.shape)


def convertible(t: Type) -> bool:
    """Whether ``from_cell``/``to_cell`` convert a value of type ``t``: tensors, tuples of
    them, and anything without floats."""
    if isinstance(t, TensorType):
        return True
    if isinstance(t, TupleType):
        return all(convertible(f) for f in t.fields)
    return not _mentions_float(t)


def _mentions_float(t: Type) -> bool:
    if isinstance(t, TensorType):
        return t.dtype.startswith("float")
    if isinstance(t, TypeVar):
        return True  # it may be instantiated with one
    from ...semantics.syntax import type_children

    return isinstance(t, TypeCall) or any(_mentions_float(c) for c in type_children(t))


def gradcell(mod: IRModule) -> tuple[TypeData, GlobalVar, Function]:
    """The ``GradCell`` data type and ``@from_gradcell`` (names made fresh where taken)."""
    taken = {h.name for h in mod.type_definitions}
    header = GlobalTypeVar(fresh_name("GradCell", taken))
    a = TypeVar("T")
    thunk = FuncType((), a)
    ctor_names = set(mod.constructors())
    names = [fresh_name(n, ctor_names) for n in ("Raw", "One", "Zero")]
    raw = Constructor(names[0], (a,), header, 0)
    one = Constructor(names[1], (thunk,), header, 1)
    zero = Constructor(names[2], (thunk,), header, 2)
    data = TypeData(header, (a,), (raw, one, zero))
    reader = GlobalVar(fresh_name("from_gradcell", {g.name for g in mod.functions}))
    g, x, f1, f2 = Var("g", TypeCall(header, (a,))), Var("x", a), Var("f", thunk), Var("f", thunk)
    body = Match(g, (
        Clause(PatternConstructor(raw, (PatternVar(x),)), x),
        Clause(PatternConstructor(one, (PatternVar(f1),)), Call(f1, ())),
        Clause(PatternConstructor(zero, (PatternVar(f2),)), Call(f2, ())),
    ))  # fmt: skip
    return data, reader, Function((g,), body, a, (a,))


def lazy_gradient_init(mod: IRModule) -> IRModule:
    """``mod`` with ``@main`` running on GradCell values (see the module docstring)."""
    if "main" not in mod:
        return mod
    info = infer_types(mod)
    main_type = info.globals["main"]
    if not isinstance(main_type, FuncType) or not all(
        convertible(t) for t in (*main_type.arg_types, main_type.ret_type)
    ):
        return mod
    data, reader, read_fn = gradcell(mod)
    prepared = prepare(mod).with_type_definition(data).with_function(reader, read_fn)
    info = infer_types(prepared)
    cells = LazyCells(prepared, info, data, reader)
    gv = prepared.get_global_var("main")
    lazy = cells.global_var(gv)
    done: dict[GlobalVar, Function] = {}
    while len(done) < len(cells.globals):
        for old in list(cells.globals):
            if old not in done:
                done[old] = cells.global_function(old)
    functions = dict(prepared.functions)
    functions[gv] = cells.entry_wrapper(prepared.functions[gv], lazy)
    for old, new in cells.globals.items():
        functions[new] = done[old]
    types = dict(prepared.type_definitions)
    for d in cells.new_types:
        types[d.header] = d
    return replace(prepared, functions=functions, type_definitions=types)


@register_pass
@dataclass(frozen=True)
class LazyGradientInit(Pass):
    """Float tensors as GradCell values: zeros and ones built only when read (see the module
    docstring for pre- and postconditions)."""

    opt_level = 3
    focus_ops = frozenset({"zeros_like", "ones_like", "zeros", "ones", "add", "multiply"})

    def transform(self, mod: IRModule) -> IRModule:
        # The kept originals are no longer called by @main (it runs their translations): a
        # type that @main's calls fixed is written as annotations instead (keep_global_types).
        return keep_global_types(mod, lazy_gradient_init(mod), lazy_gradient_init)


__all__ = ["LazyCells", "LazyGradientInit", "lazy_gradient_init"]
