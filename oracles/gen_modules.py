"""Whole-module generator: well-typed Relay modules by construction.

``modules()`` is a Hypothesis strategy of ``ModuleCase``s: an ``IRModule`` (algebraic data
type definitions, global functions, and ``@main`` last), the types of ``@main``'s parameters
(tensors and tuples of tensors, so that arguments are easy to draw) and the type its body was
built at, and which parameters must be positive or non-zero (``case.arguments()`` and
``case.argument_sets(k)`` draw arguments accordingly). ``features(mod)`` names the language
features a module uses, as TVM's feature detector did; ``extra_features(mod)`` names the ones
beyond that list; ``construct_counts(mod)`` counts the ``CONSTRUCTS`` it uses.

**Operators.** A module first has the dataflow builders (``builders``) make up to
``max_templates`` operator calls, each operator drawn uniformly from the whole registry (all
dtypes, ranks up to 4, convolutions, transposes, reshapes, ...) or by ``op_weights``: these
are *templates*. ``@main`` calls each template once on new arguments, and any term of a
template's result type may call it again: its arguments are terms of their types (the
template graph's parameters are parameters of ``@main`` too, so they can depend on the
inputs), but for constants the builders chose (kept: index arrays, shapes) and values that
must be positive or non-zero (the ``@main`` parameter standing for them, drawn so, or a
fresh constant). Template parameter and result types with at most ``MAX_PALETTE_ELEMENTS``
elements join the palette of tensor types terms are drawn at. The only other operator calls
are a counting-down function's test and decrement and an ``if``'s test of scalars, each
drawn among several operators so that none is called far more often than a template's.

**Weights.** Each rule is one of the ``CONSTRUCTS``; the rule a term uses is drawn in
proportion to its construct's weight: ``BASE_WEIGHTS`` (recursion and constants rarer, every
other rule alike) times ``construct_weights`` (the footprint learner's steering; 0: only
where nothing else can build the term).

**Observable.** Every value ``@main``'s spine computes (each global call and template call)
reaches its result: the body is returned with every spine variable it does not use, as
``(body, %y..)``. A write to a reference in scope is followed by a read of it (``write_then``;
the read bound innermost, the likeliest variable of its type), an alias block reads through
the other name, and an ``if`` tests values at hand (a comparison of scalar variables) half
the time, so that several argument draws take both branches.

**Type-directed.** To build a term the generator is given a type and a typing context (the
variables in scope with their types), lists the rules that can produce a term of that type
there, draws one and recurses on its premises: a variable of that type; an introduction form
(a constant or an operator call for a tensor, a tuple, a ``fn``, a global or a constructor used
as a function value, ``ref``, a constructor call); or an elimination form whose result has
that type (``let``, ``if``, a projection, ``ref_read``, a call of a global, of a local closure
or of a ``fn`` literal, ``match``/``match?``, a ``ref_write`` sequence, an aliasing block, a
let-bound recursive closure, a let-bound polymorphic ``fn [T]``, a recursive call). A rule is
listed only if its premises can be met: a type is *buildable* in a context if an introduction
form reaches it or a variable has it (a type variable is only ever reached through a
variable). Nothing is filtered after the fact, so every module type-checks, and all
randomness comes from ``draw``.

**Sharing (Graph).** Every compound term built is remembered with its type and free
variables; a later term of the same type, in a scope where those variables are bound, may
reuse the same node object. Sharing stays inside one global (the text format cannot say more).

**Termination.** Globals call only earlier globals. Recursion is only of two kinds: structural
(a function whose first parameter is an ADT value, matched at once; the recursive call passes a
pattern variable bound to a field of the same type) or counting down (a first parameter ``%n:
int32``, ``if (%n <= 0) { base } else { .. f(%n - 1) .. }`` with the test and the decrement
written one of several ways, and every other call passes a constant in ``[0, 3]``, ``minimum(e,
3)``, ``minimum(3, e)`` or ``clip(e, 0, 3)``). A recursive call is offered only in the body of
the function itself, not inside a nested ``fn`` (a closure passed down could otherwise call
back with the same argument), and a shared node containing one is reused only in that same
region. A counting-down function is never used as a value. References hold only first-order
values (no functions, no type variables), so no cycle can be tied through the store. Programs
can still be exponential (a call tree), so evaluations run with fuel.

**Shrinking.** Every choice is an integer drawn from a range whose low end is the simplest
option (a list of options is indexed, simplest first; the rule of a term, the operator of a
template and an ``if``'s test are fair draws that shrink to their first): fewer
templates, fewer globals, no type definitions, shallower bodies, a variable or a constant
before a compound form, introduction forms before elimination forms, rank-0 ``int32`` (always
the first tensor type) before the other tensor types, tensors before compound types, constants
towards zero, no type annotation. So a failing module shrinks towards fewer nodes, smaller
shapes and simpler types.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple, TypeAlias
from typing import TypeVar as PyTypeVar

import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from relay.semantics.ops.elementwise import ClipAttrs
from relay.semantics.ops.registry import Attrs
from relay.semantics.syntax import (
    ATOMS,
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
    pattern_vars,
    post_order,
    type_children,
)
from relay.semantics.text.printer import astext
from relay.semantics.typing import missing_case, substitute
from relay.semantics.values import Value

from .builders import BUILDERS
from .builders.core import _eligible, _Graph
from .gen_args import argument_sets, arrays, uniform_index, weighted_index
from .gen_dataflow import OP_ORDER, op_cumulative

_X = PyTypeVar("_X")

DTYPES: tuple[str, ...] = ("int32", "float32", "bool")
"""The tensor dtypes of generated modules, simplest first."""

INT32 = TensorType((), "int32")
BOOL = TensorType((), "bool")

FEATURES: tuple[str, ...] = (
    "Var", "GlobalVar", "Constant", "Tuple", "TupleGetItem", "Function", "Op", "Call", "Let",
    "If", "RefCreate", "RefRead", "RefWrite", "Constructor", "Match", "Graph", "LetRec",
)  # fmt: skip
"""The features TVM's feature detector (``relay.analysis.detect_feature``) names."""

EXTRA_FEATURES: tuple[str, ...] = (
    "TypeDefinition", "Polymorphism", "CompleteMatch", "PartialMatch", "AliasingRefs",
    "StructuralRecursion", "CounterRecursion", "ClosureCapture", "HigherOrder",
)  # fmt: skip
"""What ``extra_features`` detects, beyond ``FEATURES``."""


CONSTRUCTS: tuple[str, ...] = (
    "variable", "constant", "operator", "tuple", "closure", "ref", "adt", "let", "if",
    "match", "global-call", "local-call", "recursion", "polymorphism", "sharing",
)  # fmt: skip
"""The constructs ``modules(construct_weights=...)`` weighs and ``construct_counts`` counts:

- ``variable``: a use of a variable in scope;
- ``constant``: a tensor constant;
- ``operator``: a call of a registered operator (built by the dataflow builders);
- ``tuple``: a tuple, or a projection of one;
- ``closure``: a ``fn`` literal (passed, bound, or applied at once);
- ``ref``: ``ref``, ``ref_read`` and ``ref_write`` (also a write then a read, and aliases);
- ``adt``: type definitions, constructor calls and constructors as values;
- ``let``: a ``let`` (also one binding a call's result);
- ``if``: an ``if``;
- ``match``: ``match`` and ``match?``;
- ``global-call``: a call of a global function, or a global used as a value;
- ``local-call``: a call of a let-bound or parameter function;
- ``recursion``: recursive functions (global or let-bound) and recursive calls;
- ``polymorphism``: a let-bound ``fn [T]`` (and, counted, any ``fn`` with type parameters);
- ``sharing``: a node reused where it was built (Graph).
"""

BASE_WEIGHTS: dict[str, float] = {"recursion": 0.1, "constant": 0.1}
"""The default distribution: every rule that can build a term is equally likely, but for
the recursive ones (a recursive call adds its counter's test and decrement, always the same
few operators, which would outnumber every drawn operator). ``construct_weights`` multiply
these."""

_Option: TypeAlias = "tuple[str, Callable[[], Expr]]"
"""A rule that can build the term asked for, and the construct it is."""

_TemplateArg: TypeAlias = "tuple[str, Type, Expr | None]"
"""How a template's argument is rebuilt: ``("term", t, None)`` a term of ``t``,
``("constant", t, c)`` the constant ``c`` kept, ``("positive" | "nonzero", t, p)`` the
parameter of ``@main`` for the builders' parameter ``p`` where in scope, else a fresh
constant of that kind, ``("tuple", t, None)`` a tuple of terms of the fields of ``t``."""


@dataclass(frozen=True, eq=False)
class _Template:
    """An operator call made by the dataflow builders (``builders``), which a module calls
    again on arguments of the same types: its operator, attributes, arguments and result."""

    op: Op
    attrs: Attrs | None
    args: tuple[_TemplateArg, ...]
    result: Type


class ModuleCase(NamedTuple):
    """A generated module, the parameter types of its ``@main``, and the type of its result."""

    mod: IRModule
    param_types: tuple[Type, ...]
    ret_type: Type
    positive: tuple[bool, ...] = ()
    """Per parameter (or empty: none): whether it must be positive (it stands for a builders'
    parameter that feeds ``log``, ``sqrt``, ...)."""
    nonzero: tuple[bool, ...] = ()
    """Per parameter (or empty: none): whether it must hold no zero (an integer divisor)."""

    def __repr__(self) -> str:  # Hypothesis shows a failing case as Relay text
        return "ModuleCase(\n" + astext(self.mod) + ")"

    def arguments(self, *, special: bool | None = False) -> st.SearchStrategy[tuple[Value, ...]]:
        """Arguments for ``@main`` (``gen_args.arguments``, positive and non-zero where the
        module needs it; ``special=None`` draws the mode)."""
        return self.argument_sets(1, special=special).map(lambda sets: sets[0])

    def argument_sets(
        self, k: int, *, special: bool | None = None
    ) -> st.SearchStrategy[tuple[tuple[Value, ...], ...]]:
        """``k`` independent argument tuples for ``@main``, so that both branches of its
        conditions are taken (``gen_args.argument_sets``)."""
        n = len(self.param_types)
        return argument_sets(
            self.param_types,
            k,
            special=special,
            positive=self.positive if len(self.positive) == n else None,
            nonzero=self.nonzero if len(self.nonzero) == n else None,
        )


# ---------------------------------------------------------------------------------------------
# Type definitions: fixed templates and random ones


def _template_list() -> TypeData:
    a = TypeVar("A")
    header = GlobalTypeVar("List")
    self_type = TypeCall(header, (a,))
    cons = Constructor("Cons", (a, self_type), header, 0)
    return TypeData(header, (a,), (cons, Constructor("Nil", (), header, 1)))


def _template_option() -> TypeData:
    a = TypeVar("A")
    header = GlobalTypeVar("Option")
    some = Constructor("Some", (a,), header, 0)
    return TypeData(header, (a,), (some, Constructor("Nothing", (), header, 1)))


def _template_tree() -> TypeData:
    a = TypeVar("A")
    header = GlobalTypeVar("Tree")
    self_type = TypeCall(header, (a,))
    leaf = Constructor("Leaf", (), header, 0)
    return TypeData(header, (a,), (leaf, Constructor("Node", (self_type, a, self_type), header, 1)))


def _template_nat() -> TypeData:
    header = GlobalTypeVar("Nat")
    zero = Constructor("Z", (), header, 0)
    return TypeData(header, (), (zero, Constructor("S", (TypeCall(header, ()),), header, 1)))


_TEMPLATES: tuple[Callable[[], TypeData], ...] = (
    _template_list,
    _template_option,
    _template_tree,
    _template_nat,
)


@dataclass(frozen=True, eq=False)
class _Adt:
    """A type definition and what the generator needs to know about it."""

    data: TypeData
    base: tuple[Constructor, ...]  # constructors with no field of the type itself
    recursive: bool
    first_order: bool  # no field holds a function

    def self_type(self) -> TypeCall:
        return TypeCall(self.data.header, self.data.type_vars)

    def fields(self, ctor: Constructor, args: Sequence[Type]) -> tuple[Type, ...]:
        """The field types of ``ctor`` in ``Name[args]``."""
        mapping = dict(zip(self.data.type_vars, args, strict=True))
        return tuple(substitute(f, mapping) for f in ctor.inputs)


def _has_function(t: Type, adts: dict[str, _Adt]) -> bool:
    stack = [t]
    while stack:
        u = stack.pop()
        match u:
            case FuncType():
                return True
            case TupleType(fields):
                stack.extend(fields)
            case RefType(value):
                stack.append(value)
            case TypeCall(func, args):
                adt = adts.get(func.name)
                if adt is not None and not adt.first_order:
                    return True
                stack.extend(args)
    return False


# ---------------------------------------------------------------------------------------------
# Typing contexts


@dataclass(frozen=True, eq=False)
class _Global:
    """A global function: its name, type, and the index of its count-down parameter."""

    gv: GlobalVar
    type: FuncType
    counter: int | None


@dataclass(frozen=True, eq=False)
class _Binding:
    """A variable in scope. A counting-down closure (``counter`` is the index of its counter)
    and a polymorphic closure are only ever called, never used as values."""

    var: Var
    type: Type
    counter: int | None = None

    @property
    def is_value(self) -> bool:
        if self.counter is not None:
            return False
        return not (isinstance(self.type, FuncType) and self.type.type_params)


@dataclass(frozen=True, eq=False)
class _Rec:
    """Where a recursive call is allowed: the callee, its parameter and result types, and
    what the first argument may be (a strictly smaller pattern variable, or ``%n - 1``)."""

    callee: GlobalVar | Var
    params: tuple[Type, ...]
    ret: Type
    smaller: tuple[Var, ...]
    counter: Var | None


@dataclass(frozen=True, eq=False)
class _Ctx:
    """Γ: the variables in scope (innermost last), the recursive call allowed here, the ids of
    every variable that may occur free here, and the type parameters in scope."""

    bindings: tuple[_Binding, ...] = ()
    rec: _Rec | None = None
    scope: frozenset[int] = frozenset()
    type_scope: frozenset[TypeVar] = frozenset()

    def bind(self, *new: _Binding) -> _Ctx:
        return _Ctx(self.bindings + new, self.rec, self.scope | {id(b.var) for b in new},
                    self.type_scope)  # fmt: skip

    def function_body(
        self, params: Sequence[_Binding], type_params: Sequence[TypeVar] = ()
    ) -> _Ctx:
        """The context of a ``fn`` body: no recursive call reaches into a nested function."""
        return _Ctx(self.bindings + tuple(params), None,
                    self.scope | {id(b.var) for b in params},
                    self.type_scope | set(type_params))  # fmt: skip

    def with_rec(self, rec: _Rec | None, *also: Var) -> _Ctx:
        return _Ctx(self.bindings, rec, self.scope | {id(v) for v in also}, self.type_scope)

    def values(self) -> Iterator[_Binding]:
        return (b for b in self.bindings if b.is_value)

    def available(self) -> tuple[TypeVar, ...]:
        """The type variables a term can be built at: those some variable has."""
        out: list[TypeVar] = []
        for b in self.values():
            if isinstance(b.type, TypeVar) and b.type not in out:
                out.append(b.type)
        return tuple(out)


@dataclass(frozen=True, eq=False)
class _Shared:
    """A node built earlier that later terms may reuse (sharing)."""

    expr: Expr
    type: Type
    free: frozenset[int]
    rec: _Rec | None  # the region it must stay in, if it contains a recursive call
    type_scope: frozenset[TypeVar]  # annotations inside may name these type parameters


def _free_var_ids(e: Expr) -> frozenset[int]:
    used: set[int] = set()
    bound: set[int] = set()
    for node in post_order(e):
        match node:
            case Var():
                used.add(id(node))
            case Function(params):
                bound.update(id(p) for p in params)
            case Let(var):
                bound.add(id(var))
            case Match(_, clauses):
                for clause in clauses:
                    bound.update(id(v) for v in pattern_vars(clause.lhs))
    return frozenset(used - bound)


def _match_type(
    pattern: Type, target: Type, params: frozenset[TypeVar], subst: dict[TypeVar, Type]
) -> bool:
    """Extend ``subst`` (over ``params``) so that ``pattern[subst] == target``, if possible."""
    if isinstance(pattern, TypeVar) and pattern in params:
        if pattern in subst:
            return subst[pattern] == target
        subst[pattern] = target
        return True
    match pattern, target:
        case TupleType(fs), TupleType(gs):
            return len(fs) == len(gs) and all(
                _match_type(f, g, params, subst) for f, g in zip(fs, gs, strict=True)
            )
        case FuncType(fa, fr, ftp), FuncType(ga, gr, gtp):
            return (
                not ftp
                and not gtp
                and len(fa) == len(ga)
                and all(_match_type(f, g, params, subst) for f, g in zip(fa, ga, strict=True))
                and _match_type(fr, gr, params, subst)
            )
        case RefType(f), RefType(g):
            return _match_type(f, g, params, subst)
        case TypeCall(ff, fs), TypeCall(gf, gs):
            return ff.name == gf.name and all(
                _match_type(f, g, params, subst) for f, g in zip(fs, gs, strict=True)
            )
    return pattern == target


def _mentions_adt(t: Type) -> bool:
    stack = [t]
    while stack:
        u = stack.pop()
        if isinstance(u, TypeCall):
            return True
        stack.extend(type_children(u))
    return False


def _instance_of(fn_type: FuncType, t: FuncType) -> bool:
    """Whether some instance of the (possibly polymorphic) ``fn_type`` is ``t``."""
    bare = FuncType(fn_type.arg_types, fn_type.ret_type)
    return _match_type(bare, t, frozenset(fn_type.type_params), {})


# ---------------------------------------------------------------------------------------------
# The builder


@dataclass(frozen=True)
class _Limits:
    max_globals: int
    max_depth: int
    max_nodes: int
    max_adts: int
    max_templates: int = 12


_COMPARISONS = ("less", "greater", "equal", "not_equal", "less_equal", "greater_equal")

FLOAT32 = TensorType((), "float32")

_CONDITIONS: tuple[tuple[str, TensorType, int], ...] = (
    *((name, INT32, 2) for name in _COMPARISONS),
    *((name, FLOAT32, 2) for name in _COMPARISONS),
    *((name, BOOL, 2) for name in ("logical_and", "logical_or", "logical_xor")),
    ("logical_not", BOOL, 1),
    *((name, FLOAT32, 1) for name in ("isnan", "isinf", "isfinite")),
)
"""The tests an ``if`` condition may be: operator, operand type, arity."""

_Rule = Callable[[], Expr]

_GUARDS: tuple[tuple[str, int, bool], ...] = (
    ("less_equal", 0, False), ("less", 1, False), ("greater_equal", 0, True),
    ("greater", 1, True),
)  # fmt: skip
"""The base-case tests of a counting-down function, ``n <= 0`` written four ways (operator,
constant, whether the constant comes first), drawn uniformly."""

_INTEGERS: dict[tuple[int, int], st.SearchStrategy[int]] = {}
_BOOLEANS = st.booleans()
_FLOATS = st.floats(-4, 4, width=32)


class _Builder:
    """One module being built; every choice is drawn through ``draw``."""

    def __init__(
        self,
        draw: st.DrawFn,
        limits: _Limits,
        op_cumulative: Sequence[float],
        construct_weights: Mapping[str, float],
    ) -> None:
        self.draw = draw
        self.limits = limits
        self.op_cumulative = op_cumulative
        self.construct_weights = construct_weights
        self.templates: dict[Type, list[_Template]] = {}
        self.all_templates: list[_Template] = []
        self.template_params: list[Type] = []
        self.template_flags: list[tuple[bool, bool]] = []  # positive, non-zero
        self.template_vars: list[Var] = []
        self.param_of: dict[Var, Var] = {}  # the builders' parameter -> @main's
        self.main_flags: list[tuple[bool, bool]] = []
        self.adts: dict[str, _Adt] = {}
        self.globals: list[_Global] = []
        self.pool: list[_Shared] = []
        self.palette: list[TensorType] = [INT32]
        self.nodes = 0
        self.rec_calls = 0
        self.type_params = 0
        self.types_module = IRModule()

    # -- drawing ---------------------------------------------------------------------------

    def integer(self, lo: int, hi: int) -> int:
        """An integer in ``[lo, hi]``, shrinking towards ``lo``."""
        if lo == hi:
            return lo
        strategy = _INTEGERS.get((lo, hi))
        if strategy is None:
            strategy = _INTEGERS[lo, hi] = st.integers(lo, hi)
        return self.draw(strategy)

    def flag(self) -> bool:
        """A bool, shrinking towards ``False``."""
        return self.draw(_BOOLEANS)

    def pick(self, items: Sequence[_X]) -> _X:
        """One of ``items``, shrinking towards the first."""
        return items[self.integer(0, len(items) - 1)]

    def choose(self, options: Sequence[_Option]) -> Expr:
        """Apply one of ``options``, drawn in proportion to its construct's weight (uniformly
        by default; shrinks towards the first). Where every option weighs 0, the term is still
        built, by one of them drawn uniformly: a weight 0 means "never where avoidable"."""
        weights = [self.weight(c) for c, _ in options]
        if sum(weights) <= 0:
            weights = [1.0] * len(options)
        return options[weighted_index(self.draw, list(itertools.accumulate(weights)))][1]()

    def weight(self, construct: str) -> float:
        """The weight of ``construct``: its ``BASE_WEIGHTS`` entry times its
        ``construct_weights`` entry (1 unless given)."""
        return BASE_WEIGHTS.get(construct, 1.0) * self.construct_weights.get(construct, 1.0)

    def fresh_type_var(self) -> TypeVar:
        self.type_params += 1
        return TypeVar(f"T{self.type_params - 1}")

    # -- types -----------------------------------------------------------------------------

    def tensor_type(self) -> TensorType:
        dtype = self.pick(DTYPES)
        rank = self.integer(0, 2)
        return TensorType(tuple(self.integer(1, 3) for _ in range(rank)), dtype)

    def draw_type(self, tvs: Sequence[TypeVar], depth: int, *, first_order: bool = False) -> Type:
        """A type over the type variables ``tvs``; ``first_order``: no functions and no type
        variables (what a reference may hold). Shrinks to ``palette[0]``, then tensors."""
        options: list[Callable[[], Type]] = [lambda: self.pick(self.palette)]
        if tvs and not first_order:
            options.append(lambda: self.pick(tvs))
        if depth > 0:
            adts = [a for a in self.adts.values() if a.first_order or not first_order]
            options.append(lambda: TupleType(tuple(
                self.draw_type(tvs, depth - 1, first_order=first_order)
                for _ in range(self.integer(0, 3)))))  # fmt: skip
            if adts:
                options.append(lambda: self.adt_type(adts, tvs, depth, first_order))
            options.append(lambda: RefType(self.draw_type((), depth - 1, first_order=True)))
            if not first_order:
                options.append(lambda: FuncType(
                    tuple(self.draw_type(tvs, depth - 1) for _ in range(self.integer(0, 2))),
                    self.draw_type(tvs, depth - 1)))  # fmt: skip
                if self.function_types():
                    options.append(lambda: self.existing_function_type(tvs, depth))
        return options[self.integer(0, len(options) - 1)]()

    def function_types(self) -> list[FuncType]:
        """The types of the globals and constructors that can be function values."""
        out = [g.type for g in self.globals if g.counter is None]
        for adt in self.adts.values():
            result = adt.self_type()
            out.extend(
                FuncType(c.inputs, result, adt.data.type_vars)
                for c in adt.data.constructors
                if c.inputs
            )
        return out

    def existing_function_type(self, tvs: Sequence[TypeVar], depth: int) -> FuncType:
        """The type of a global or a constructor, instantiated: a parameter of this type can
        be passed that global or constructor."""
        fn_type = self.pick(self.function_types())
        subst = {tv: self.draw_type(tvs, depth - 1) for tv in fn_type.type_params}
        return FuncType(
            tuple(substitute(a, subst) for a in fn_type.arg_types),
            substitute(fn_type.ret_type, subst),
        )

    def adt_type(
        self, adts: Sequence[_Adt], tvs: Sequence[TypeVar], depth: int, first_order: bool
    ) -> TypeCall:
        adt = self.pick(adts)
        args = tuple(
            self.draw_type(tvs, depth - 1, first_order=first_order) for _ in adt.data.type_vars
        )
        return TypeCall(adt.data.header, args)

    def first_order(self, t: Type) -> bool:
        stack = [t]
        while stack:
            u = stack.pop()
            match u:
                case FuncType() | TypeVar():
                    return False
                case TupleType(fields):
                    stack.extend(fields)
                case RefType(value):
                    stack.append(value)
                case TypeCall(func, args):
                    if not self.adts[func.name].first_order:
                        return False
                    stack.extend(args)
        return True

    def buildable(self, ctx: _Ctx, t: Type) -> bool:
        """Whether a term of type ``t`` can be built in ``ctx`` (see the module docstring)."""
        return self._buildable(self.known(ctx), t)

    def known(self, ctx: _Ctx) -> frozenset[Type]:
        """The types of the variables usable as values in ``ctx``."""
        return frozenset(b.type for b in ctx.values())

    def _buildable(self, known: frozenset[Type], t: Type) -> bool:
        if t in known:
            return True
        match t:
            case TensorType():
                return True
            case TupleType(fields):
                return all(self._buildable(known, f) for f in fields)
            case FuncType(args, ret, type_params):
                return not type_params and self._buildable(known | set(args), ret)
            case RefType(value):
                return self._buildable(known, value)
            case TypeCall(func, args):
                adt = self.adts[func.name]
                return any(
                    all(self._buildable(known, f) for f in adt.fields(c, args)) for c in adt.base
                )
        return False

    # -- type definitions ------------------------------------------------------------------

    def add_adt(self, data: TypeData) -> None:
        self_type = TypeCall(data.header, data.type_vars)
        base = tuple(c for c in data.constructors if self_type not in c.inputs)
        recursive = len(base) < len(data.constructors)
        first_order = not any(_has_function(f, self.adts) for c in data.constructors
                              for f in c.inputs)  # fmt: skip
        self.adts[data.header.name] = _Adt(data, base, recursive, first_order)
        self.types_module = self.types_module.with_type_definition(data)

    def random_adt(self, k: int) -> TypeData:
        """``type DataK[A..] { DataK_0(..), .. }``: the first constructor is not recursive."""
        header = GlobalTypeVar(f"Data{k}")
        tvs = (TypeVar("A"), TypeVar("B"))[: self.integer(0, 2)]
        self_type = TypeCall(header, tvs)
        ctors = []
        for i in range(self.integer(1, 3)):
            fields = tuple(
                self.field_type(tvs, self_type if i > 0 else None)
                for _ in range(self.integer(0, 2))
            )
            ctors.append(Constructor(f"Data{k}_{i}", fields, header, i))
        return TypeData(header, tvs, tuple(ctors))

    def field_type(self, tvs: Sequence[TypeVar], self_type: TypeCall | None) -> Type:
        options: list[Callable[[], Type]] = [lambda: self.pick(self.palette)]
        if tvs:
            options.append(lambda: self.pick(tvs))
        if self_type is not None:
            options.append(lambda: self_type)
        options.append(lambda: TupleType((self.pick(self.palette), self.draw_type(tvs, 0))))
        if self.adts:
            options.append(lambda: self.adt_type(list(self.adts.values()), tvs, 1, False))
        options.append(lambda: FuncType((self.draw_type(tvs, 0),), self.draw_type(tvs, 0)))
        return options[self.integer(0, len(options) - 1)]()

    # -- terms -----------------------------------------------------------------------------

    def term(self, ctx: _Ctx, t: Type, depth: int) -> Expr:
        """A term of type ``t`` in ``ctx``; ``t`` must be buildable there."""
        self.nodes += 1
        leaf = depth <= 0 or self.nodes >= self.limits.max_nodes
        options: list[_Option] = []
        # Innermost first: the variable a ``let`` just bound is the likeliest, so that its
        # value reaches the result.
        variables = [b.var for b in reversed(ctx.bindings) if b.is_value and b.type == t]
        if variables:
            options.append(("variable", lambda: self.pick(variables)))
        options.extend(self.introductions(ctx, t, depth, leaf))
        shared = [
            s
            for s in self.pool
            if s.type == t
            and s.free <= ctx.scope
            and (s.rec is None or s.rec is ctx.rec)
            and s.type_scope <= ctx.type_scope
        ]
        if shared:
            options.append(("sharing", lambda: self.pick(shared).expr))
        if not leaf:
            options.extend(self.eliminations(ctx, t, depth))
        assert options, f"no way to build a term of type {t} (a generator bug)"
        rec_calls = self.rec_calls
        pool_size = len(self.pool)
        e = self.choose(options)
        if not isinstance(e, ATOMS) and all(s.expr is not e for s in self.pool[:pool_size]):
            region = ctx.rec if self.rec_calls > rec_calls else None
            self.pool.append(_Shared(e, t, _free_var_ids(e), region, ctx.type_scope))
        return e

    def sub(self, depth: int, leaf: bool) -> int:
        return 0 if leaf else depth - 1

    # Introduction forms -------------------------------------------------------------------

    def introductions(self, ctx: _Ctx, t: Type, depth: int, leaf: bool) -> list[_Option]:
        d = self.sub(depth, leaf)
        match t:
            case TensorType():
                tensor_type = t
                options: list[_Option] = [("constant", lambda: self.constant(tensor_type))]
                templates = self.templates.get(t, [])
                if not leaf and templates:
                    options.append(
                        ("operator", lambda: self.instantiate(ctx, self.pick(templates), depth - 1))
                    )
                return options
            case TupleType(fields):
                options = []
                if all(self.buildable(ctx, f) for f in fields):
                    options.append(
                        ("tuple", lambda: Tuple(tuple(self.term(ctx, f, d) for f in fields)))
                    )
                templates = self.templates.get(t, [])
                if not leaf and templates:
                    options.append(
                        ("operator", lambda: self.instantiate(ctx, self.pick(templates), depth - 1))
                    )
                if not fields and not leaf:
                    options.append(("ref", lambda: self.ref_write(ctx, d)))
                return options
            case FuncType(args, ret, type_params):
                if type_params:
                    return []
                options = []
                if self._buildable(self.known(ctx) | set(args), ret):
                    options.append(("closure", lambda: self.function(ctx, args, ret, d)))
                options.extend(self.function_values(t))
                return options
            case RefType(value):
                if not self.buildable(ctx, value):
                    return []
                return [("ref", lambda: RefCreate(self.term(ctx, value, d)))]
            case TypeCall(func, args):
                adt = self.adts[func.name]
                ctors = [
                    c
                    for c in (adt.base if leaf else adt.data.constructors)
                    if all(self.buildable(ctx, f) for f in adt.fields(c, args))
                ]
                ctors.sort(key=lambda c: c not in adt.base)
                if not ctors:
                    return []
                return [("adt", lambda: self.construct(ctx, adt, self.pick(ctors), args, d))]
        return []

    def constant(self, t: TensorType) -> Constant:
        """Small values: for up to four int32, float32 or bool elements, integers in [-3, 3],
        floats in [-4, 4], shrinking to zero; otherwise ``gen_args.arrays``' default values
        (a seed for a large tensor)."""
        shape = tuple(d for d in t.shape if isinstance(d, int))
        size = int(np.prod(shape))
        values: list[object]
        if size > 4 or t.dtype not in DTYPES:
            return Constant(self.draw(arrays(t.dtype, shape)))
        if t.dtype == "bool":
            values = [self.flag() for _ in range(size)]
        elif t.dtype == "int32":
            values = [self.integer(-3, 3) for _ in range(size)]
        else:
            values = [self.draw(_FLOATS) for _ in range(size)]
        return Constant(np.array(values, dtype=t.dtype).reshape(shape))

    def construct(
        self, ctx: _Ctx, adt: _Adt, ctor: Constructor, args: Sequence[Type], depth: int
    ) -> Call:
        return Call(ctor, tuple(self.term(ctx, f, depth) for f in adt.fields(ctor, args)))

    def function(
        self,
        ctx: _Ctx,
        args: Sequence[Type],
        ret: Type,
        depth: int,
        type_params: tuple[TypeVar, ...] = (),
    ) -> Function:
        """``fn [T..](%p: t..) -> ret { body }``, capturing ``ctx``."""
        params = tuple(Var("p", a) for a in args)
        inner = ctx.function_body(
            [_Binding(p, a) for p, a in zip(params, args, strict=True)], type_params
        )
        body = self.term(inner, ret, depth)
        return Function(params, body, self.result_annotation(ret, type_params), type_params)

    def result_annotation(self, ret: Type, type_params: Sequence[TypeVar]) -> Type | None:
        """A function's result type, or ``None`` where drawn so. A polymorphic function whose
        result mentions an ADT always has it written: a body such as ``Nil`` leaves a hole in
        its type that, unwritten, would be shared by all instantiations (no generalisation)."""
        if type_params and _mentions_adt(ret):
            return ret
        return None if self.flag() else ret

    def function_values(self, t: FuncType) -> list[_Option]:
        """Globals and constructors used as function values of type ``t``."""
        options: list[_Option] = []
        globals_ = [g for g in self.globals if g.counter is None and _instance_of(g.type, t)]
        if globals_:
            options.append(("global-call", lambda: self.pick(globals_).gv))
        ret = t.ret_type
        if isinstance(ret, TypeCall) and t.arg_types:
            adt = self.adts[ret.func.name]
            ctors = [
                c
                for c in adt.data.constructors
                if len(c.inputs) == len(t.arg_types) and adt.fields(c, ret.args) == t.arg_types
            ]
            if ctors:
                options.append(("adt", lambda: self.pick(ctors)))
        return options

    def instantiate(self, ctx: _Ctx, template: _Template, depth: int) -> Call:
        """A call of a template (an operator call the dataflow builders made, see
        ``_Template``) on new arguments: terms of the argument types, except where the
        template needs a constant (kept), or a positive or non-zero value (a fresh constant)."""
        return Call(template.op, tuple(self.template_arg(ctx, a, depth) for a in template.args),
                    template.attrs)  # fmt: skip

    def template_arg(self, ctx: _Ctx, arg: _TemplateArg, depth: int) -> Expr:
        kind, t, kept = arg
        if kind == "constant":
            assert kept is not None
            return kept
        if kind == "tuple":
            assert isinstance(t, TupleType)
            return Tuple(tuple(self.term(ctx, f, depth) for f in t.fields))
        if kind in ("positive", "nonzero"):
            assert isinstance(t, TensorType)
            main_param = self.param_of.get(kept) if isinstance(kept, Var) else None
            if main_param is not None and id(main_param) in ctx.scope:
                return main_param
            shape = tuple(d for d in t.shape if isinstance(d, int))
            data = self.draw(arrays(t.dtype, shape, positive=kind == "positive", nonzero=True))
            return Constant(data)
        return self.term(ctx, t, depth)

    # Elimination forms --------------------------------------------------------------------

    def eliminations(self, ctx: _Ctx, t: Type, depth: int) -> list[_Option]:
        d = depth - 1
        tvs = ctx.available()
        options: list[_Option] = [
            ("let", lambda: self.let(ctx, t, d)),
            ("if", lambda: If(self.condition(ctx, d), self.term(ctx, t, d), self.term(ctx, t, d))),
            ("tuple", lambda: self.projection(ctx, t, d)),
        ]
        if self.first_order(t):
            options.append(("ref", lambda: RefRead(self.term(ctx, RefType(t), d))))
        global_calls = self.global_calls(ctx, t)
        if global_calls:
            options.append(
                ("global-call", lambda: self.call_global(ctx, d, *self.pick(global_calls)))
            )
        local_calls = self.local_calls(ctx, t)
        if local_calls:
            options.append(("local-call", lambda: self.call_local(ctx, d, *self.pick(local_calls))))
        options.append(("closure", lambda: self.call_function(ctx, t, d)))
        callables = self.callables(ctx)
        if callables:
            options.append(("let", lambda: self.let_call(ctx, self.pick(callables), t, d)))
        options.append(("match", lambda: self.match(ctx, t, d)))
        options.append(("ref", lambda: self.write_then(ctx, t, d)))
        options.append(("ref", lambda: self.alias(ctx, t, d)))
        options.append(("recursion", lambda: self.let_rec(ctx, t, d)))
        options.append(("polymorphism", lambda: self.let_poly(ctx, t, d, tvs)))
        rec = ctx.rec
        if (
            rec is not None
            and rec.ret == t
            and (rec.counter is not None or rec.smaller)
            and all(self.buildable(ctx, p) for p in rec.params[1:])
        ):
            options.append(("recursion", lambda: self.rec_call(ctx, rec, d)))
        return options

    def condition(self, ctx: _Ctx, depth: int) -> Expr:
        """An ``if`` condition: a bool term, or (half the time, when a scalar variable is in
        scope) a test of scalar terms of its type, so that it depends on the values at hand:
        a comparison of two int32 or float32 scalars, a logical operator on bool scalars, or
        a float class test (``_CONDITIONS``, drawn uniformly)."""
        # Only tests whose operand type some variable has: a test of constants is constant.
        known = self.known(ctx)
        tests = [c for c in _CONDITIONS if c[1] in known]
        if not self.flag() or not tests:
            return self.term(ctx, BOOL, depth)
        name, operand, arity = tests[uniform_index(self.draw, len(tests))]
        return Call(Op(name), tuple(self.term(ctx, operand, depth) for _ in range(arity)))

    def write_then(self, ctx: _Ctx, t: Type, depth: int) -> Let:
        """``ref_write(r, e); let %w = ref_read(r); body``: a write, and a read after it
        (bound innermost, so the likeliest variable of its type in the body)."""
        refs = [b for b in ctx.values() if isinstance(b.type, RefType)]
        if not refs:
            return Let(Var("_"), self.ref_write(ctx, depth), self.term(ctx, t, depth))
        binding = self.pick(refs)
        assert isinstance(binding.type, RefType)
        value = binding.type.value
        write = RefWrite(binding.var, self.term(ctx, value, depth))
        w = Var("w", value if self.flag() else None)
        inner = ctx.bind(_Binding(w, value))
        body: Expr = w if value == t and self.flag() else self.term(inner, t, depth)
        return Let(Var("_"), write, Let(w, RefRead(binding.var), body))

    def let(self, ctx: _Ctx, t: Type, depth: int) -> Let:
        bound = self.draw_type(ctx.available(), 2)
        var = Var("x", bound if self.flag() else None)
        value = self.term(ctx, bound, depth)
        return Let(var, value, self.term(ctx.bind(_Binding(var, bound)), t, depth))

    def projection(self, ctx: _Ctx, t: Type, depth: int) -> TupleGetItem:
        arity = self.integer(1, 3)
        index = self.integer(0, arity - 1)
        tvs = ctx.available()
        fields = [self.draw_type(tvs, 1) for _ in range(arity - 1)]
        fields.insert(index, t)
        return TupleGetItem(self.term(ctx, TupleType(tuple(fields)), depth), index)

    def ref_write(self, ctx: _Ctx, depth: int) -> RefWrite:
        """``ref_write(r, v)``: to a reference in scope when there is one."""
        refs = [b for b in ctx.values() if isinstance(b.type, RefType)]
        if refs and not self.flag():
            binding = self.pick(refs)
            assert isinstance(binding.type, RefType)
            return RefWrite(binding.var, self.term(ctx, binding.type.value, depth))
        value = self.draw_type((), 1, first_order=True)
        return RefWrite(self.term(ctx, RefType(value), depth), self.term(ctx, value, depth))

    def alias(self, ctx: _Ctx, t: Type, depth: int) -> Let:
        """``let %r = ref(e0); let %s = %r; ref_write(%s, e1); let %v = ref_read(%r); body``:
        a write through one name, observed through the other."""
        value = self.draw_type((), 1, first_order=True)
        ref_type = RefType(value)
        r = Var("r", ref_type if self.flag() else None)
        s = Var("s", ref_type if self.flag() else None)
        v = Var("v", value if self.flag() else None)
        initial = self.term(ctx, value, depth)
        written = self.term(ctx, value, depth)
        inner = ctx.bind(_Binding(r, ref_type), _Binding(s, ref_type), _Binding(v, value))
        # Half the time, when the types allow, the value read is the block's value, so that
        # the write is observable in the result (a pass that loses or reorders it is caught).
        observe = self.flag()
        body: Expr = v if observe and value == t else self.term(inner, t, depth)
        read = Let(v, RefRead(r), body)
        return Let(r, RefCreate(initial), Let(s, r, Let(Var("_"), RefWrite(s, written), read)))

    # Calls --------------------------------------------------------------------------------

    def global_calls(self, ctx: _Ctx, t: Type) -> list[tuple[_Global, dict[TypeVar, Type]]]:
        out = []
        for g in self.globals:
            subst: dict[TypeVar, Type] = {}
            if not _match_type(g.type.ret_type, t, frozenset(g.type.type_params), subst):
                continue
            if self.arguments_buildable(ctx, g.type, subst, g.counter):
                out.append((g, subst))
        return out

    def local_calls(self, ctx: _Ctx, t: Type) -> list[tuple[_Binding, dict[TypeVar, Type]]]:
        out = []
        for b in ctx.bindings:
            if not isinstance(b.type, FuncType):
                continue
            subst: dict[TypeVar, Type] = {}
            if not _match_type(b.type.ret_type, t, frozenset(b.type.type_params), subst):
                continue
            if self.arguments_buildable(ctx, b.type, subst, b.counter):
                out.append((b, subst))
        return out

    def arguments_buildable(
        self, ctx: _Ctx, fn_type: FuncType, subst: dict[TypeVar, Type], counter: int | None
    ) -> bool:
        # A type parameter the result does not fix will be drawn over the available type
        # variables, which is buildable exactly when a scalar stand-in is.
        probe = {tv: subst.get(tv, INT32) for tv in fn_type.type_params}
        return all(
            self.buildable(ctx, substitute(a, probe))
            for i, a in enumerate(fn_type.arg_types)
            if i != counter
        )

    def arguments(
        self,
        ctx: _Ctx,
        fn_type: FuncType,
        subst: dict[TypeVar, Type],
        counter: int | None,
        depth: int,
    ) -> tuple[Expr, ...]:
        tvs = ctx.available()
        full = {tv: subst[tv] if tv in subst else self.draw_type(tvs, 1)
                for tv in fn_type.type_params}  # fmt: skip
        return tuple(
            self.counter_argument(ctx, depth) if i == counter
            else self.term(ctx, substitute(a, full), depth)
            for i, a in enumerate(fn_type.arg_types)
        )  # fmt: skip

    def call_global(self, ctx: _Ctx, depth: int, g: _Global, subst: dict[TypeVar, Type]) -> Call:
        return Call(g.gv, self.arguments(ctx, g.type, subst, g.counter, depth))

    def call_local(self, ctx: _Ctx, depth: int, b: _Binding, subst: dict[TypeVar, Type]) -> Call:
        assert isinstance(b.type, FuncType)
        return Call(b.var, self.arguments(ctx, b.type, subst, b.counter, depth))

    def callables(self, ctx: _Ctx) -> list[tuple[Expr, FuncType, int | None]]:
        """The globals and local functions whose arguments can be built here."""
        out: list[tuple[Expr, FuncType, int | None]] = [
            (g.gv, g.type, g.counter)
            for g in self.globals
            if self.arguments_buildable(ctx, g.type, {}, g.counter)
        ]
        for b in ctx.bindings:
            if isinstance(b.type, FuncType) and self.arguments_buildable(
                ctx, b.type, {}, b.counter
            ):
                out.append((b.var, b.type, b.counter))
        return out

    def let_call(
        self, ctx: _Ctx, callee: tuple[Expr, FuncType, int | None], t: Type, depth: int
    ) -> Let:
        """``let %y = f(e..); body`` for any global or local function ``f``, whatever its
        result type (instantiated afresh if it is polymorphic)."""
        op, fn_type, counter = callee
        tvs = ctx.available()
        subst = {tv: self.draw_type(tvs, 1) for tv in fn_type.type_params}
        ret = substitute(fn_type.ret_type, subst)
        y = Var("y", ret if self.flag() else None)
        call = Call(op, self.arguments(ctx, fn_type, subst, counter, depth))
        return Let(y, call, self.term(ctx.bind(_Binding(y, ret)), t, depth))

    def call_function(self, ctx: _Ctx, t: Type, depth: int) -> Call:
        """``(fn (%p: a..) { .. })(e..)``: a ``fn`` literal applied at once."""
        tvs = ctx.available()
        args = tuple(self.draw_type(tvs, 1) for _ in range(self.integer(0, 2)))
        fn = self.function(ctx, args, t, depth)
        return Call(fn, tuple(self.term(ctx, a, depth) for a in args))

    def counter_argument(self, ctx: _Ctx, depth: int) -> Expr:
        """The counter of a counting-down function: a constant in [0, 3], or ``minimum(e,
        3)``, ``minimum(3, e)`` or ``clip(e, 0, 3)`` (drawn uniformly)."""
        if depth <= 0 or not self.flag():
            return Constant(np.array(self.integer(0, 3), dtype="int32"))
        three = Constant(np.array(3, dtype="int32"))
        e = self.term(ctx, INT32, depth - 1)
        form = uniform_index(self.draw, 3)
        if form == 2:
            return Call(Op("clip"), (e,), ClipAttrs(a_min=0.0, a_max=3.0))
        return Call(Op("minimum"), (e, three) if form == 0 else (three, e))

    def rec_call(self, ctx: _Ctx, rec: _Rec, depth: int) -> Call:
        self.rec_calls += 1
        first: Expr
        if rec.counter is not None:
            # n - 1, or n + -1 (drawn uniformly).
            if uniform_index(self.draw, 2) == 0:
                first = Call(Op("subtract"), (rec.counter, Constant(np.array(1, dtype="int32"))))
            else:
                first = Call(Op("add"), (rec.counter, Constant(np.array(-1, dtype="int32"))))
        else:
            first = self.pick(rec.smaller)
        rest = tuple(self.term(ctx, p, depth) for p in rec.params[1:])
        return Call(rec.callee, (first, *rest))

    # Pattern matching ---------------------------------------------------------------------

    def match(self, ctx: _Ctx, t: Type, depth: int) -> Match:
        """``match`` (one clause per constructor, or drawn patterns completed by a catch-all)
        or ``match?`` (drawn patterns, possibly incomplete)."""
        data_types = [b for b in ctx.values() if isinstance(b.type, TypeCall | TupleType)]
        scrutinee: Expr
        if data_types and not self.flag():
            binding = self.pick(data_types)
            scrutinee, data_type = binding.var, binding.type
        else:
            tvs = ctx.available()
            if self.adts and not self.flag():
                data_type = self.adt_type(list(self.adts.values()), tvs, 2, False)
            else:
                data_type = TupleType(tuple(self.draw_type(tvs, 1)
                                            for _ in range(self.integer(1, 3))))  # fmt: skip
            scrutinee = self.term(ctx, data_type, depth)
        mode = self.integer(0, 2)
        patterns: list[tuple[Pattern, list[_Binding]]]
        if mode == 0:
            patterns = self.covering_patterns(data_type)
        else:
            patterns = [self.pattern(data_type, 2) for _ in range(self.integer(1, 3))]
            if mode == 1 and missing_case(self.types_module, [p for p, _ in patterns]):
                patterns.append(self.catch_all(data_type))
        clauses = tuple(Clause(p, self.term(ctx.bind(*bs), t, depth)) for p, bs in patterns)
        return Match(scrutinee, clauses, complete=mode != 2)

    def covering_patterns(self, t: Type) -> list[tuple[Pattern, list[_Binding]]]:
        """One clause per constructor (or one tuple pattern), fields bound or ignored."""
        if isinstance(t, TupleType):
            fields = [self.catch_all(f) for f in t.fields]
            return [(PatternTuple(tuple(p for p, _ in fields)), [b for _, bs in fields
                                                                  for b in bs])]  # fmt: skip
        assert isinstance(t, TypeCall)
        adt = self.adts[t.func.name]
        out: list[tuple[Pattern, list[_Binding]]] = []
        for ctor in adt.data.constructors:
            fields = [self.catch_all(f) for f in adt.fields(ctor, t.args)]
            bindings = [b for _, bs in fields for b in bs]
            out.append((PatternConstructor(ctor, tuple(p for p, _ in fields)), bindings))
        return out

    def catch_all(self, t: Type) -> tuple[Pattern, list[_Binding]]:
        """``%v: t`` or ``_``. Pattern variables are annotated: a scrutinee such as ``Nil``
        may leave its type arguments unknown, and a use of the variable needs them."""
        if self.flag():
            return PatternWildcard(), []
        var = Var("v", t)
        return PatternVar(var), [_Binding(var, t)]

    def pattern(self, t: Type, depth: int) -> tuple[Pattern, list[_Binding]]:
        options: list[Callable[[], tuple[Pattern, list[_Binding]]]] = [lambda: self.catch_all(t)]
        if depth > 0 and isinstance(t, TypeCall):
            adt = self.adts[t.func.name]
            options.append(lambda: self.constructor_pattern(adt, t, depth))
        if depth > 0 and isinstance(t, TupleType):
            options.append(lambda: self.tuple_pattern(t, depth))
        return options[self.integer(0, len(options) - 1)]()

    def constructor_pattern(
        self, adt: _Adt, t: TypeCall, depth: int
    ) -> tuple[Pattern, list[_Binding]]:
        ctor = self.pick(adt.data.constructors)
        subs = [self.pattern(f, depth - 1) for f in adt.fields(ctor, t.args)]
        return PatternConstructor(ctor, tuple(p for p, _ in subs)), [b for _, bs in subs
                                                                     for b in bs]  # fmt: skip

    def tuple_pattern(self, t: TupleType, depth: int) -> tuple[Pattern, list[_Binding]]:
        subs = [self.pattern(f, depth - 1) for f in t.fields]
        return PatternTuple(tuple(p for p, _ in subs)), [b for _, bs in subs for b in bs]

    # Recursive and polymorphic functions --------------------------------------------------

    def recursive_adts(self) -> list[_Adt]:
        return [a for a in self.adts.values() if a.recursive]

    def counting_down(
        self,
        ctx: _Ctx,
        callee: GlobalVar | Var,
        extra: Sequence[Type],
        ret: Type,
        depth: int,
        type_params: tuple[TypeVar, ...] = (),
    ) -> Function:
        """``fn (%n: int32, ..) -> ret { if (%n <= 0) { base } else { .. f(%n - 1, ..) .. } }``."""
        n = Var("n", INT32)
        params = (n, *(Var("p", a) for a in extra))
        types = (INT32, *extra)
        inner = ctx.function_body(
            [_Binding(v, a) for v, a in zip(params, types, strict=True)], type_params
        )
        base = self.term(inner, ret, depth)
        rec = _Rec(callee, types, ret, (), n)
        step = self.recursing(inner.with_rec(rec, *([callee] if isinstance(callee, Var) else [])),
                              rec, depth)  # fmt: skip
        guard, bound, flipped = _GUARDS[uniform_index(self.draw, len(_GUARDS))]
        k = Constant(np.array(bound, dtype="int32"))
        body = If(Call(Op(guard), (k, n) if flipped else (n, k)), base, step)
        return Function(params, body, self.result_annotation(ret, type_params), type_params)

    def structural(
        self,
        ctx: _Ctx,
        callee: GlobalVar | Var,
        data_type: TypeCall,
        extra: Sequence[Type],
        ret: Type,
        depth: int,
        type_params: tuple[TypeVar, ...] = (),
    ) -> Function:
        """``fn (%x: D[..], ..) -> ret { match (%x) { C(%v..) => .. f(%v, ..) .. } }``, where
        ``%v`` is bound to a field of type ``D[..]``."""
        x = Var("x", data_type)
        params = (x, *(Var("p", a) for a in extra))
        types = (data_type, *extra)
        inner = ctx.function_body(
            [_Binding(v, a) for v, a in zip(params, types, strict=True)], type_params
        )
        also = [callee] if isinstance(callee, Var) else []
        adt = self.adts[data_type.func.name]
        clauses = []
        for ctor in adt.data.constructors:
            fields = adt.fields(ctor, data_type.args)
            vars_ = tuple(Var("v", f) for f in fields)
            smaller = tuple(v for v, f in zip(vars_, fields, strict=True) if f == data_type)
            rec = _Rec(callee, types, ret, smaller, None) if smaller else None
            clause_ctx = inner.bind(*(_Binding(v, f) for v, f in zip(vars_, fields,
                                                                     strict=True)))  # fmt: skip
            clause_ctx = clause_ctx.with_rec(rec, *also)
            if rec is None:
                rhs = self.term(clause_ctx, ret, depth)
            else:
                rhs = self.recursing(clause_ctx, rec, depth)
            lhs = PatternConstructor(ctor, tuple(PatternVar(v) for v in vars_))
            clauses.append(Clause(lhs, rhs))
        body = Match(x, tuple(clauses))
        return Function(params, body, self.result_annotation(ret, type_params), type_params)

    def recursing(self, ctx: _Ctx, rec: _Rec, depth: int) -> Let:
        """``let %y = f(smaller, ..); e``: where recursion is allowed, it happens at least once
        (a recursive call may be drawn again inside ``e``)."""
        y = Var("y", rec.ret if self.flag() else None)
        call = self.rec_call(ctx, rec, depth)
        return Let(y, call, self.term(ctx.bind(_Binding(y, rec.ret)), rec.ret, depth))

    def let_rec(self, ctx: _Ctx, t: Type, depth: int) -> Let:
        """A let-bound recursive closure (counting down, or structural when an ADT is
        recursive; then possibly polymorphic, with the annotation that needs), then a body."""
        tvs = ctx.available()
        adts = self.recursive_adts()
        f = Var("f")
        if adts and self.flag():
            adt = self.pick(adts)
            type_params: tuple[TypeVar, ...] = ()
            if adt.data.type_vars and self.flag():
                type_params = tuple(self.fresh_type_var() for _ in adt.data.type_vars)
                args: tuple[Type, ...] = type_params
            else:
                args = tuple(self.draw_type(tvs, 1) for _ in adt.data.type_vars)
            data_type = TypeCall(adt.data.header, args)
            extra = [self.draw_type((*tvs, *type_params), 1)
                     for _ in range(self.integer(0, 1))]  # fmt: skip
            inside = (*tvs, *(a for a in extra if isinstance(a, TypeVar)))
            ret = self.draw_type(inside, 2)
            fn_type = FuncType((data_type, *extra), ret, type_params)
            if type_params or self.flag():
                f = Var("f", fn_type)
            value = self.structural(ctx, f, data_type, extra, ret, depth, type_params)
            binding = _Binding(f, fn_type)
        else:
            extra = [self.draw_type(tvs, 1) for _ in range(self.integer(0, 1))]
            ret = self.draw_type(tvs, 2)
            fn_type = FuncType((INT32, *extra), ret)
            if self.flag():
                f = Var("f", fn_type)
            value = self.counting_down(ctx, f, extra, ret, depth)
            binding = _Binding(f, fn_type, counter=0)
        return Let(f, value, self.term(ctx.bind(binding), t, depth))

    def let_poly(self, ctx: _Ctx, t: Type, depth: int, tvs: Sequence[TypeVar]) -> Let:
        """``let %g = fn [T](%p: T, ..) -> ret { .. }; body``, ``%g`` called at instances."""
        tv = self.fresh_type_var()
        inside = (*tvs, tv)
        args = (tv, *(self.draw_type(inside, 1) for _ in range(self.integer(0, 1))))
        ret = self.draw_type(inside, 2)
        fn_type = FuncType(args, ret, (tv,))
        g = Var("g", fn_type if self.flag() else None)
        value = self.function(ctx, args, ret, depth, (tv,))
        return Let(g, value, self.term(ctx.bind(_Binding(g, fn_type)), t, depth))

    # -- globals and the module ------------------------------------------------------------

    def global_function(self, index: int) -> tuple[GlobalVar, Function]:
        """``@fN``: plain (possibly polymorphic), counting down, or structural."""
        gv = GlobalVar(f"f{index}")
        depth = self.integer(1, self.limits.max_depth)
        self.nodes = 0
        self.pool = []
        ctx = _Ctx()
        adts = self.recursive_adts()
        kinds = ["plain", "counter", *(["structural"] if adts else [])]
        kind_weights = [1.0, *(self.weight("recursion") for _ in kinds[1:])]
        kind = kinds[weighted_index(self.draw, list(itertools.accumulate(kind_weights)))]
        counter: int | None = None
        type_params: tuple[TypeVar, ...] = ()
        if kind == "structural":
            adt = self.pick(adts)
            if adt.data.type_vars and self.flag():
                type_params = tuple(self.fresh_type_var() for _ in adt.data.type_vars)
                args: tuple[Type, ...] = type_params
            else:
                args = tuple(self.draw_type((), 1) for _ in adt.data.type_vars)
            data_type = TypeCall(adt.data.header, args)
            extra = [self.draw_type(type_params, 1) for _ in range(self.integer(0, 2))]
            avail = tuple(dict.fromkeys(a for a in extra if isinstance(a, TypeVar)))
            ret = self.draw_type(avail, 2)
            fn = self.structural(ctx, gv, data_type, extra, ret, depth, type_params)
        else:
            type_params = tuple(self.fresh_type_var() for _ in range(self.integer(0, 2)))
            extra = [*type_params, *(self.draw_type(type_params, 2)
                                     for _ in range(self.integer(0, 2)))]  # fmt: skip
            ret = self.draw_type(type_params, 2)
            if kind == "counter":
                fn = self.counting_down(ctx, gv, extra, ret, depth, type_params)
                counter = 0
            else:
                params = tuple(Var("p", a) for a in extra)
                bindings = [_Binding(p, a) for p, a in zip(params, extra, strict=True)]
                inner = ctx.function_body(bindings, type_params)
                body = self.term(inner, ret, depth)
                fn = Function(params, body, self.result_annotation(ret, type_params), type_params)
        arg_types = tuple(p.type_annotation for p in fn.params)
        assert all(a is not None for a in arg_types)
        fn_type = FuncType(tuple(a for a in arg_types if a is not None), ret, type_params)
        self.globals.append(_Global(gv, fn_type, counter))
        return gv, fn

    def main_param_type(self) -> Type:
        if self.flag():
            return TupleType(tuple(self.pick(self.palette) for _ in range(self.integer(1, 2))))
        return self.pick(self.palette)

    def main(self) -> tuple[GlobalVar, Function, tuple[Type, ...], Type]:
        """``@main``: parameters (drawn, then one per parameter of the templates' graph); a
        spine of lets, one per global (each called once, unless drawn otherwise) and one
        per template (each operator call the builders made, on new arguments), then a body;
        every let-bound value the body does not use is returned beside it, ``(body,
        %y..)``, so that every result reaches the output."""
        depth = self.integer(1, self.limits.max_depth)
        self.nodes = 0
        self.pool = []
        param_types = tuple(self.main_param_type() for _ in range(self.integer(0, 3)))
        # The parameters of the builders' calls too, so that the template calls' arguments
        # can depend on the inputs.
        param_types = (*param_types, *self.template_params)
        ret = self.draw_type((), 2)
        params = tuple(Var("p", a) for a in param_types)
        drawn = len(params) - len(self.template_vars)
        self.param_of = dict(zip(self.template_vars, params[drawn:], strict=True))
        self.main_flags = [(False, False)] * drawn + self.template_flags
        ctx = _Ctx().function_body([_Binding(p, a) for p, a in zip(params, param_types,
                                                                    strict=True)])  # fmt: skip
        calls = [(g.gv, g.type, g.counter) for g in self.globals if self.flag()]
        lets: list[tuple[Var, Expr, Type]] = []
        for callee in calls:
            _, fn_type, counter = callee
            subst = {tv: self.draw_type((), 1) for tv in fn_type.type_params}
            y = Var("y")
            result = substitute(fn_type.ret_type, subst)
            lets.append((y, Call(callee[0], self.arguments(ctx, fn_type, subst, counter, 1)),
                         result))  # fmt: skip
            ctx = ctx.bind(_Binding(y, result))
        for template in self.all_templates:
            y = Var("y")
            lets.append((y, self.instantiate(ctx, template, 1), template.result))
            ctx = ctx.bind(_Binding(y, template.result))
        body = self.term(ctx, ret, depth)
        used = _free_var_ids(body)
        unused = [(y, t) for y, _, t in lets if id(y) not in used]
        if unused:
            body = Tuple((body, *(y for y, _ in unused)))
            ret = TupleType((ret, *(t for _, t in unused)))
        for y, call, _ in reversed(lets):
            body = Let(y, call, body)
        fn = Function(params, body, ret if self.flag() else None)
        return GlobalVar("main"), fn, param_types, ret

    def make_templates(self) -> None:
        """Operator calls made by the dataflow builders (operators drawn in proportion to the
        op weights, uniformly by default), which terms of their result types may call again
        (``instantiate``) and ``@main`` calls once each. Their eligible parameter and result
        tensor types (at most ``MAX_PALETTE_ELEMENTS`` elements) join the palette."""
        if self.weight("operator") <= 0:
            return
        g = _Graph(self.draw)
        # As in gen_dataflow: the count first (one integer choice, which the shrinker lowers
        # while deleting the span of a template), each template's draws one span.
        for _ in range(self.integer(0, self.limits.max_templates)):
            self.draw(_template_node(g, self.op_cumulative))
        for call in g.calls:
            args = tuple(
                _template_arg(g, e, t) for e, t in zip(call.call.args, call.arg_types, strict=True)
            )
            assert isinstance(call.call.op, Op)
            template = _Template(call.call.op, call.call.attrs, args, call.result)
            self.all_templates.append(template)
            if _concrete(call.result):
                self.templates.setdefault(call.result, []).append(template)
        self.template_params = [p.type_annotation for p in g.params if p.type_annotation]
        self.template_vars = list(g.params)
        self.template_flags = list(zip(g.positive_params, g.nonzero_params, strict=True))
        for t in [*self.template_params, *(c.result for c in g.calls)]:
            if (
                isinstance(t, TensorType)
                and _eligible(t)
                and int(np.prod(t.shape)) <= MAX_PALETTE_ELEMENTS  # type: ignore[arg-type]
                and t not in self.palette
            ):
                self.palette.append(t)

    def module(self) -> ModuleCase:
        # The tensor types drawn types use: int32 first (what they shrink to), then others.
        self.palette = [INT32, *(self.tensor_type() for _ in range(self.integer(0, 2)))]
        self.make_templates()
        adts = self.weight("adt") > 0
        for template in _TEMPLATES:
            if self.flag() and adts:
                self.add_adt(template())
        for k in range(self.integer(0, self.limits.max_adts if adts else 0)):
            self.add_adt(self.random_adt(k))
        functions: dict[GlobalVar, Function] = {}
        max_globals = self.limits.max_globals if self.weight("global-call") > 0 else 0
        for index in range(self.integer(0, max_globals)):
            gv, fn = self.global_function(index)
            functions[gv] = fn
        gv, fn, param_types, ret = self.main()
        functions[gv] = fn
        types = {a.data.header: a.data for a in self.adts.values()}
        positive = tuple(p for p, _ in self.main_flags)
        nonzero = tuple(z for _, z in self.main_flags)
        return ModuleCase(IRModule(functions, types), param_types, ret, positive, nonzero)


def _check_limit(name: str, value: int, lo: int, hi: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
        raise InvalidArgument(
            f"{name}={value!r} must be an integer in [{lo}, {hi}]; pass a smaller {name} "
            "for faster tests"
        )


def modules(
    *,
    max_globals: int = 3,
    max_depth: int = 4,
    max_nodes: int = 40,
    max_adts: int = 1,
    max_templates: int = 24,
    op_weights: Mapping[str, float] | None = None,
    construct_weights: Mapping[str, float] | None = None,
) -> st.SearchStrategy[ModuleCase]:
    """Well-typed modules: type definitions (drawn from List, Option, Tree and Nat, plus up to
    ``max_adts`` random ones), up to ``max_templates`` operator calls made by the dataflow
    builders (called again wherever a term of their result type is wanted, and each once in
    ``@main``), up to ``max_globals`` global functions, and ``@main``.

    Each function body is at most ``max_depth`` rules deep and builds about ``max_nodes``
    terms at most (past that, only variables, constants and small introductions). Operators
    are drawn uniformly, or in proportion to ``op_weights`` (as ``dataflow_programs`` does);
    each term's rule is drawn in proportion to the weight of its construct (``CONSTRUCTS``;
    1 unless ``construct_weights`` says otherwise, 0: only where nothing else can build the
    term; ``operator``, ``adt``, ``global-call`` and ``recursion`` at 0 also mean no
    templates, no type definitions, no globals and no recursive globals). Shrinks towards
    fewer globals, no templates, no type definitions, shallower bodies, fewer nodes, rank-0
    int32 tensors and zero constants.
    """
    _check_limit("max_globals", max_globals, 0, 20)
    _check_limit("max_depth", max_depth, 1, 20)
    _check_limit("max_nodes", max_nodes, 1, 10_000)
    _check_limit("max_adts", max_adts, 0, 5)
    _check_limit("max_templates", max_templates, 0, 100)
    cumulative = op_cumulative(OP_ORDER, op_weights)
    weights = dict(construct_weights or {})
    unknown = sorted(k for k in weights if k not in CONSTRUCTS)
    bad = {k: w for k, w in weights.items() if not 0 <= float(w) < float("inf")}
    if unknown or bad:
        raise InvalidArgument(
            f"construct_weights must map names of CONSTRUCTS to finite weights >= 0 (unknown: "
            f"{unknown}, bad weights: {bad}); the constructs: {', '.join(CONSTRUCTS)}"
        )
    limits = _Limits(max_globals, max_depth, max_nodes, max_adts, max_templates)

    @st.composite
    def build(draw: st.DrawFn) -> ModuleCase:
        return _Builder(draw, limits, cumulative, weights).module()

    return build()


MAX_PALETTE_ELEMENTS = 64
"""A template's parameter or result type with more elements does not join the palette (the
types that parameters, constants and other terms are drawn at); its calls are still made."""


@st.composite
def _template_node(draw: st.DrawFn, g: _Graph, cumulative: Sequence[float]) -> None:
    """One template's operator call, built by the dataflow builders into ``g``."""
    outer, g.draw = g.draw, draw
    name = OP_ORDER[weighted_index(draw, cumulative)]
    g.call(name, BUILDERS[name](g))
    g.draw = outer


def _concrete(t: Type) -> bool:
    """A tensor, or a tuple of tensors, of integer dimensions only."""
    fields = t.fields if isinstance(t, TupleType) else (t,)
    return all(
        isinstance(f, TensorType) and all(isinstance(d, int) for d in f.shape) for f in fields
    )


def _template_arg(g: _Graph, e: Expr, t: Type) -> _TemplateArg:
    """How a template rebuilds the argument ``e`` of a call the builders made (``_TemplateArg``):
    constants are kept, a surely non-negative value or an integer divisor becomes the
    parameter of ``@main`` standing for it (drawn positive or non-zero) where that is in
    scope, else a fresh constant of that kind, a tuple is rebuilt field by field, anything
    else is a term of its type."""
    if isinstance(e, Constant):
        return ("constant", t, e)
    if isinstance(e, Tuple):
        return ("tuple", t, None)
    entry = g.entry_of[id(e)]
    param = e if isinstance(e, Var) else None
    if isinstance(t, TensorType) and entry.positive == (True,):
        return ("positive", t, param)
    if isinstance(e, Var) and g.nonzero_params[g.params.index(e)]:
        return ("nonzero", t, param)
    return ("term", t, None)


def construct_counts(mod: IRModule) -> Counter[str]:
    """How often ``mod`` uses each construct of ``CONSTRUCTS`` (nodes counted once however
    shared), read off the syntax: a variable use, a constant, an operator call, a tuple or
    projection, a nested ``fn``, a reference node, a constructor or a type definition, a
    ``let``, an ``if``, a ``match``, a call of a global or a global as a value, a call of a
    local function, a recursive call (a global calling itself, a let-bound function called in
    its own value), a ``fn`` with type parameters, and a node with several parents."""
    found: Counter[str] = Counter()
    found["adt"] += len(mod.type_definitions)
    for gv, fn in mod.functions.items():
        if fn.type_params:
            found["polymorphism"] += 1
        recursive: set[int] = set()
        for node in post_order(fn):
            match node:
                case Var():
                    found["variable"] += 1
                case Constant():
                    found["constant"] += 1
                case Tuple() | TupleGetItem():
                    found["tuple"] += 1
                case Function():
                    if node is not fn:
                        found["closure"] += 1
                        if node.type_params:
                            found["polymorphism"] += 1
                case RefCreate() | RefRead() | RefWrite():
                    found["ref"] += 1
                case Constructor():
                    found["adt"] += 1
                case Let(var, value):
                    found["let"] += 1
                    if isinstance(value, Function) and _occurs(var, value):
                        recursive.add(id(var))
                case If():
                    found["if"] += 1
                case Match():
                    found["match"] += 1
                case GlobalVar():
                    found["global-call"] += 1
                case Call(op):
                    if isinstance(op, Op):
                        found["operator"] += 1
                    elif isinstance(op, GlobalVar) and op.name == gv.name:
                        found["recursion"] += 1
                    elif isinstance(op, Var):
                        found["local-call"] += 1
        for node in post_order(fn):
            if isinstance(node, Call) and isinstance(node.op, Var) and id(node.op) in recursive:
                found["recursion"] += 1
        found["sharing"] += sum(n > 1 for n in _uses(fn).values())
    return +found


# ---------------------------------------------------------------------------------------------
# Feature detection


def _uses(root: Expr) -> dict[int, int]:
    """How many parents each non-atomic node has."""
    uses: dict[int, int] = {}
    for node in post_order(root):
        for child in children(node):
            if not isinstance(child, ATOMS):
                uses[id(child)] = uses.get(id(child), 0) + 1
    return uses


def _occurs(var: Var, e: Expr) -> bool:
    return any(node is var for node in post_order(e))


def features(mod: IRModule) -> set[str]:
    """The features of ``mod`` as TVM's feature detector named them (``FEATURES``): one per
    kind of expression node met, ``Graph`` when a non-atomic node has several parents, and
    ``LetRec`` when a ``let`` variable occurs in its own value."""
    found: set[str] = set()
    for fn in mod.functions.values():
        if fn.params:
            found.add("Var")
        for node in post_order(fn):
            found.add(type(node).__name__)
            if isinstance(node, Let) and _occurs(node.var, node.value):
                found.add("LetRec")
            if isinstance(node, Function | Let | Match):
                binders = (
                    node.params if isinstance(node, Function)
                    else [node.var] if isinstance(node, Let)
                    else [v for c in node.clauses for v in pattern_vars(c.lhs)]
                )  # fmt: skip
                if binders:
                    found.add("Var")
        if any(n > 1 for n in _uses(fn).values()):
            found.add("Graph")
    return found


def extra_features(mod: IRModule) -> set[str]:
    """Features beyond TVM's list (``EXTRA_FEATURES``), detected syntactically:
    ``TypeDefinition`` (the module defines a type), ``Polymorphism`` (a ``fn`` with type
    parameters), ``CompleteMatch``/``PartialMatch`` (``match``/``match?``), ``AliasingRefs``
    (``let %s = %r`` of a ``ref(..)``, written through one name and read through the other),
    ``StructuralRecursion``/``CounterRecursion`` (a recursive call whose argument is a pattern
    variable, or ``subtract(..)``), ``ClosureCapture`` (a nested ``fn`` with free variables)
    and ``HigherOrder`` (a ``fn``, global or constructor passed as an argument, or a call of a
    parameter)."""
    found: set[str] = set()
    if mod.type_definitions:
        found.add("TypeDefinition")
    for gv, fn in mod.functions.items():
        nodes = list(post_order(fn))
        refs: set[int] = set()
        aliases: list[tuple[Var, Var]] = []
        pattern_bound: set[int] = set()
        params: set[int] = set()
        written: set[int] = set()
        read: set[int] = set()
        recursive_calls: list[Call] = []
        for node in nodes:
            match node:
                case Function(ps, _, _, type_params):
                    params.update(id(p) for p in ps)
                    if type_params:
                        found.add("Polymorphism")
                    if node is not fn and _free_var_ids(node):
                        found.add("ClosureCapture")
                case Match(_, clauses, complete):
                    found.add("CompleteMatch" if complete else "PartialMatch")
                    for c in clauses:
                        pattern_bound.update(id(v) for v in pattern_vars(c.lhs))
                case Let(var, RefCreate()):
                    refs.add(id(var))
                case Let(var, Var() as value):
                    aliases.append((var, value))
                case Let(var, Function() as value) if _occurs(var, value):
                    recursive_calls.extend(
                        c for c in post_order(value) if isinstance(c, Call) and c.op is var
                    )
                case RefWrite(Var() as r):
                    written.add(id(r))
                case RefRead(Var() as r):
                    read.add(id(r))
                case Call(op, args):
                    if isinstance(op, GlobalVar) and op.name == gv.name:
                        recursive_calls.append(node)
                    if any(isinstance(a, Function | GlobalVar | Constructor) for a in args):
                        found.add("HigherOrder")
        for node in nodes:
            if isinstance(node, Call) and isinstance(node.op, Var) and id(node.op) in params:
                found.add("HigherOrder")
        for s, r in aliases:
            if id(r) in refs and (
                (id(s) in written and id(r) in read) or (id(r) in written and id(s) in read)
            ):
                found.add("AliasingRefs")
        for call in recursive_calls:
            for a in call.args:
                if isinstance(a, Var) and id(a) in pattern_bound:
                    found.add("StructuralRecursion")
                if (
                    isinstance(a, Call)
                    and isinstance(a.op, Op)
                    and a.op.name in ("subtract", "add")
                    and a.args[0] is not None
                    and isinstance(a.args[0], Var)
                ):
                    found.add("CounterRecursion")
    return found
