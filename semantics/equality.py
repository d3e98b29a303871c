"""Structural equality and alpha-equivalence of Relay terms.

Expressions compare by identity in Python (a ``Var`` is its binder), so "are these two programs
the same?" is asked explicitly, with one of two relations. Both take two expressions, two
types, two patterns or two modules, and both ignore spans.

``alpha_equal(a, b)`` holds when ``a`` and ``b`` have the same shape node for node and:

- **Atoms.** Constants have the same dtype, shape and bytes (bit-exact: NaN payloads and the
  sign of zero count). Ops, global variables and global type variables agree by name;
  constructors by name, tag and the name of the type they belong to.
- **Other fields.** Call attributes are ``==`` (``None`` equals only ``None``); a call's type
  arguments, a function's return type, a variable's annotation are equal types (``None``
  equals only ``None``); function attributes are equal as dictionaries; ``match`` and
  ``match?`` differ; tuple projections agree on the index; tensor types agree on dtype and
  on every dimension (``?``, integers and sympy expressions by ``==``).
- **Variables.** A binder of ``a`` (function parameter, ``let`` variable, pattern variable)
  corresponds to the binder at the same position of ``b``, and the correspondence is a
  bijection over the whole comparison: every occurrence of a bound variable of ``a`` sits
  where ``b`` has its partner, and vice versa. Corresponding binders have equal annotations.
  A variable bound nowhere in ``a`` faces one bound nowhere in ``b``; two free variables are
  equal iff they have the same ``name_hint`` and equal annotations (free variables are names:
  they need not be the same object, nor in bijection).
- **Type variables.** Type parameters (``Function.type_params``, ``FuncType.type_params``,
  ``TypeData.type_vars``) bind by position and by scope (an inner binder shadows an outer one
  of the same name): a bound type variable of ``a`` faces the one bound at the same binding
  site in ``b``. Free type variables are equal iff their names are.
- **Holes.** Incomplete types correspond by a bijection, like variables.
- **Sharing.** The graphs are isomorphic: a bijection is kept between the non-atomic
  expression nodes of ``a`` and of ``b`` (everything except ``Var``, ``GlobalVar``,
  ``Constant``, ``Op`` and ``Constructor``). Meeting a node again requires meeting its partner
  again, so ``%0 = f(%x); add(%0, %0)`` differs from ``add(f(%x), f(%x))``. Atoms are exempt:
  one constant used twice equals two equal constants.
- **Modules.** The same global names with alpha-equal functions (globals matched by name),
  and the same type definitions by header name: the same ``extern`` flag, the same number of
  type variables (binders of the constructors' field types) and, position by position,
  constructors with equal name, tag and field types. Definition order is ignored. One
  comparison spans the whole module, so the bijections above hold across its functions.

``structural_equal(a, b)`` is ``alpha_equal(a, b)`` and, moreover, corresponding binders
(variables and type parameters) have equal names, and an incomplete type is equal only to
itself (the same object). So ``structural_equal`` implies ``alpha_equal``.

Both walk the terms with explicit stacks of pending pairs, never Python recursion, so
100,000-deep programs and types compare in linear time. A binder is registered when the pair
holding it is popped, before the pairs below it are pushed, and a clause's pattern is matched
before its right-hand side is pushed, so every bound variable is known before its uses are met
(a ``let``'s variable before its value: recursive closures refer to it there). A use met while
its variable is still unknown is settled at the end, once every binder has been seen, so even
a term that uses a variable outside its scope is judged by the definition above.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import repeat
from typing import TypeAlias, assert_never, overload

from .syntax import (
    Call,
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
    TypeVar,
    Var,
)

__all__ = ["Term", "alpha_equal", "structural_equal"]

Term: TypeAlias = Expr | Type | Pattern | IRModule
"""What the two relations compare: two of the same kind."""

# Expression nodes whose sharing is significant: everything but the atoms.
_SHARED: frozenset[type] = frozenset(
    {Tuple, TupleGetItem, Function, Call, Let, If, Match, RefCreate, RefRead, RefWrite}
)

# Types with children, memoised so that a type DAG with heavy sharing is walked once per pair.
_COMPOSITE_TYPES: frozenset[type] = frozenset({TupleType, FuncType, RefType, TypeCall})


class _Scope:
    """The type variables bound around a pair: each side maps a name to its binding level.

    Levels count binders from the root, so an inner binder shadows an outer one of the same
    name, and two bound type variables correspond iff they have the same level.
    """

    __slots__ = ("a", "b", "depth")

    def __init__(self, a: dict[str, int], b: dict[str, int], depth: int) -> None:
        self.a = a
        self.b = b
        self.depth = depth

    def bind(self, a_params: Sequence[TypeVar], b_params: Sequence[TypeVar]) -> _Scope:
        """The scope inside binders ``a_params`` and ``b_params`` (of equal length)."""
        if not a_params:
            return self
        a = dict(self.a)
        b = dict(self.b)
        for level, (x, y) in enumerate(zip(a_params, b_params, strict=True), self.depth):
            a[x.name] = level
            b[y.name] = level
        return _Scope(a, b, self.depth + len(a_params))


class _Comparer:
    """One comparison: the worklists, and the bijections built up while they are drained.

    Expression, type and pattern pairs wait on separate stacks, so that each is compared by a
    ``match`` over its own closed union. Types never bind term variables, so type pairs may be
    compared in any order; they are drained after every expression step so they do not pile up.
    Patterns are matched as soon as their ``match`` is popped, before its clauses' right-hand
    sides are pushed.
    """

    def __init__(self, *, alpha: bool) -> None:
        self.alpha = alpha
        self.root = _Scope({}, {}, 0)
        self.exprs: list[tuple[Expr, Expr, _Scope]] = []
        self.types: list[tuple[Type, Type, _Scope]] = []
        # Bound variables: a's binder -> b's binder and back.
        self.vars_a: dict[Var, Var] = {}
        self.vars_b: dict[Var, Var] = {}
        # Non-atomic expression nodes: a's node -> b's node and back (identity hashes).
        self.nodes_a: dict[Expr, Expr] = {}
        self.nodes_b: dict[Expr, Expr] = {}
        # Holes (alpha_equal only).
        self.holes_a: dict[IncompleteType, IncompleteType] = {}
        self.holes_b: dict[IncompleteType, IncompleteType] = {}
        # Composite type pairs already pushed, by (id(a), id(b), id(scope)).
        self.types_seen: set[tuple[int, int, int]] = set()
        # Scopes stay alive for the whole comparison, so their ids in types_seen stay unique.
        self.scopes: list[_Scope] = [self.root]
        # Uses of variables unbound when met: settled once every binder has been seen.
        self.unbound_uses: list[tuple[Var, Var, _Scope]] = []

    # -- binders ---------------------------------------------------------------------------

    def bind_var(self, x: Var, y: Var, scope: _Scope) -> bool:
        """Make binder ``x`` of ``a`` correspond to binder ``y`` of ``b``."""
        if not self.alpha and x.name_hint != y.name_hint:
            return False
        partner = self.vars_a.get(x)
        if partner is not None:
            # The same Var bound twice (ill-formed, but possible): it must face the same partner.
            return partner is y
        if y in self.vars_b:
            return False
        self.vars_a[x] = y
        self.vars_b[y] = x
        return self.push_optional_type(x.type_annotation, y.type_annotation, scope)

    def bind_type_params(
        self, a_params: Sequence[TypeVar], b_params: Sequence[TypeVar], scope: _Scope
    ) -> _Scope | None:
        """The scope inside two lists of type parameters, or ``None`` if they cannot match."""
        if len(a_params) != len(b_params):
            return None
        if not self.alpha and [x.name for x in a_params] != [y.name for y in b_params]:
            return None
        inner = scope.bind(a_params, b_params)
        if inner is not scope:
            self.scopes.append(inner)
        return inner

    def push_optional_type(self, t: Type | None, u: Type | None, scope: _Scope) -> bool:
        """Push two optional types; ``None`` equals only ``None``."""
        if t is None or u is None:
            return t is u
        # Under structural_equal both sides bind the same names at the same levels and holes
        # are equal by identity, so a type is equal to itself.
        if t is not u or self.alpha:
            self.types.append((t, u, scope))
        return True

    def push_types(self, ts: Sequence[Type], us: Sequence[Type], scope: _Scope) -> bool:
        """Push corresponding types (the first on top); unequal lengths are unequal."""
        if len(ts) != len(us):
            return False
        self.types.extend(zip(reversed(ts), reversed(us), repeat(scope)))
        return True

    def push_exprs(self, es: Sequence[Expr], fs: Sequence[Expr], scope: _Scope) -> bool:
        """Push corresponding expressions (the first on top); unequal lengths are unequal."""
        if len(es) != len(fs):
            return False
        self.exprs.extend(zip(reversed(es), reversed(fs), repeat(scope)))
        return True

    def same_hole(self, a: IncompleteType, b: IncompleteType) -> bool:
        """Make holes ``a`` and ``b`` correspond, if neither already faces another hole."""
        partner = self.holes_a.get(a)
        if partner is not None:
            return partner is b
        if b in self.holes_b:
            return False
        self.holes_a[a] = b
        self.holes_b[b] = a
        return True

    # -- the worklists ---------------------------------------------------------------------

    def run(self) -> bool:
        """Drain the worklists, then settle the uses of variables that were unbound when met."""
        if not self.drain_exprs() or not self.drain_types():
            return False
        checked: set[tuple[Var, Var]] = set()
        for u, v, scope in self.unbound_uses:
            partner = self.vars_a.get(u)
            if partner is not None or v in self.vars_b:
                # Bound after all (used outside its scope): the bijection decides.
                if partner is not v:
                    return False
                continue
            if u.name_hint != v.name_hint:
                return False
            if (u, v) not in checked:
                checked.add((u, v))
                if not self.push_optional_type(u.type_annotation, v.type_annotation, scope):
                    return False
        self.unbound_uses.clear()
        return self.drain_types()

    def drain_exprs(self) -> bool:
        """Pop expression pairs until none is left (``True``) or a pair differs (``False``)."""
        stack = self.exprs
        push = stack.append
        types = self.types
        nodes_a = self.nodes_a
        nodes_b = self.nodes_b
        vars_a = self.vars_a
        vars_b = self.vars_b
        while stack:
            a, b, scope = stack.pop()
            if type(a) in _SHARED:
                partner = nodes_a.get(a)
                if partner is not None:
                    if partner is b:
                        continue
                    return False
                if b in nodes_b:
                    return False
                nodes_a[a] = b
                nodes_b[b] = a
            # Class patterns without positional captures: capturing through __match_args__
            # costs several attribute reads, and this loop runs once per node. The cases come
            # roughly in order of frequency.
            match a:
                case Var():
                    if not isinstance(b, Var):
                        return False
                    partner_var = vars_a.get(a)
                    if partner_var is not None:
                        if partner_var is not b:
                            return False
                    elif b in vars_b:
                        return False
                    else:
                        self.unbound_uses.append((a, b, scope))
                case Call():
                    if not isinstance(b, Call):
                        return False
                    if a.attrs is not b.attrs and a.attrs != b.attrs:
                        return False
                    if (a.type_args or b.type_args) and not self.push_types(
                        a.type_args, b.type_args, scope
                    ):
                        return False
                    push((a.op, b.op, scope))
                    if not self.push_exprs(a.args, b.args, scope):
                        return False
                case Constant():
                    if not isinstance(b, Constant):
                        return False
                    x, y = a.data, b.data
                    if x is not y and (
                        x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes()
                    ):
                        return False
                case Let():
                    if not isinstance(b, Let) or not self.bind_var(a.var, b.var, scope):
                        return False
                    push((a.body, b.body, scope))
                    push((a.value, b.value, scope))
                case Op():
                    if not isinstance(b, Op) or a.name != b.name:
                        return False
                case Tuple():
                    if not isinstance(b, Tuple) or not self.push_exprs(a.fields, b.fields, scope):
                        return False
                case TupleGetItem():
                    if not isinstance(b, TupleGetItem) or a.index != b.index:
                        return False
                    push((a.tuple, b.tuple, scope))
                case Function():
                    if not isinstance(b, Function) or len(a.params) != len(b.params):
                        return False
                    if a.attrs != b.attrs and dict(a.attrs) != dict(b.attrs):
                        return False
                    inner = self.bind_type_params(a.type_params, b.type_params, scope)
                    if inner is None:
                        return False
                    for x_param, y_param in zip(a.params, b.params, strict=True):
                        if not self.bind_var(x_param, y_param, inner):
                            return False
                    if not self.push_optional_type(a.ret_type, b.ret_type, inner):
                        return False
                    push((a.body, b.body, inner))
                case If():
                    if not isinstance(b, If):
                        return False
                    push((a.false_branch, b.false_branch, scope))
                    push((a.true_branch, b.true_branch, scope))
                    push((a.cond, b.cond, scope))
                case Match():
                    if not isinstance(b, Match) or a.complete != b.complete:
                        return False
                    if len(a.clauses) != len(b.clauses):
                        return False
                    for clause_a, clause_b in zip(a.clauses, b.clauses, strict=True):
                        if not self.match_patterns(clause_a.lhs, clause_b.lhs, scope):
                            return False
                    stack.extend(
                        (clause_a.rhs, clause_b.rhs, scope)
                        for clause_a, clause_b in zip(
                            reversed(a.clauses), reversed(b.clauses), strict=True
                        )
                    )
                    push((a.data, b.data, scope))
                case GlobalVar():
                    if not isinstance(b, GlobalVar) or a.name != b.name:
                        return False
                case Constructor():
                    if not isinstance(b, Constructor) or not _same_constructor(a, b):
                        return False
                case RefCreate():
                    if not isinstance(b, RefCreate):
                        return False
                    push((a.value, b.value, scope))
                case RefRead():
                    if not isinstance(b, RefRead):
                        return False
                    push((a.ref, b.ref, scope))
                case RefWrite():
                    if not isinstance(b, RefWrite):
                        return False
                    push((a.value, b.value, scope))
                    push((a.ref, b.ref, scope))
                case _:
                    assert_never(a)
            if types and not self.drain_types():
                return False
        return True

    def drain_types(self) -> bool:
        """Pop type pairs until none is left (``True``) or a pair differs (``False``)."""
        stack = self.types
        push = stack.append
        alpha = self.alpha
        types_seen = self.types_seen
        while stack:
            a, b, scope = stack.pop()
            if type(a) in _COMPOSITE_TYPES:
                if a is b and not alpha:
                    continue  # see push_optional_type
                key = (id(a), id(b), id(scope))
                if key in types_seen:
                    continue
                types_seen.add(key)
            match a:
                case TensorType():
                    if a is not b and (
                        not isinstance(b, TensorType) or a.dtype != b.dtype or a.shape != b.shape
                    ):
                        return False
                case TupleType():
                    if not isinstance(b, TupleType) or not self.push_types(
                        a.fields, b.fields, scope
                    ):
                        return False
                case FuncType():
                    if not isinstance(b, FuncType) or len(a.arg_types) != len(b.arg_types):
                        return False
                    if len(a.type_constraints) != len(b.type_constraints):
                        return False
                    inner = self.bind_type_params(a.type_params, b.type_params, scope)
                    if inner is None:
                        return False
                    # A constraint is opaque: its name and its argument types.
                    for x, y in zip(a.type_constraints, b.type_constraints, strict=True):
                        if x.name != y.name or not self.push_types(x.args, y.args, inner):
                            return False
                    push((a.ret_type, b.ret_type, inner))
                    self.push_types(a.arg_types, b.arg_types, inner)
                case TypeVar():
                    if not isinstance(b, TypeVar):
                        return False
                    level = scope.a.get(a.name)
                    if level != scope.b.get(b.name):
                        return False
                    if level is None and a.name != b.name:
                        return False
                case IncompleteType():
                    if not isinstance(b, IncompleteType):
                        return False
                    if not (self.same_hole(a, b) if alpha else a is b):
                        return False
                case TypeCall():
                    if not isinstance(b, TypeCall) or a.func.name != b.func.name:
                        return False
                    if not self.push_types(a.args, b.args, scope):
                        return False
                case RefType():
                    if not isinstance(b, RefType):
                        return False
                    push((a.value, b.value, scope))
                case GlobalTypeVar():
                    if not isinstance(b, GlobalTypeVar) or a.name != b.name:
                        return False
                case _:
                    assert_never(a)
        return True

    def match_patterns(self, p: Pattern, q: Pattern, scope: _Scope) -> bool:
        """Compare two patterns now, binding their variables to each other left to right."""
        stack: list[tuple[Pattern, Pattern]] = [(p, q)]
        while stack:
            a, b = stack.pop()
            match a:
                case PatternVar():
                    if not isinstance(b, PatternVar) or not self.bind_var(a.var, b.var, scope):
                        return False
                case PatternWildcard():
                    if not isinstance(b, PatternWildcard):
                        return False
                case PatternConstructor():
                    if not isinstance(b, PatternConstructor):
                        return False
                    if not _same_constructor(a.constructor, b.constructor):
                        return False
                    if len(a.patterns) != len(b.patterns):
                        return False
                    stack.extend(zip(reversed(a.patterns), reversed(b.patterns), strict=True))
                case PatternTuple():
                    if not isinstance(b, PatternTuple) or len(a.patterns) != len(b.patterns):
                        return False
                    stack.extend(zip(reversed(a.patterns), reversed(b.patterns), strict=True))
                case _:
                    assert_never(a)
        return True

    # -- modules ---------------------------------------------------------------------------

    def push_modules(self, a: IRModule, b: IRModule) -> bool:
        """Push every pair of a module comparison; ``False`` if their outlines already differ."""
        functions_a = {gv.name: fn for gv, fn in a.functions.items()}
        functions_b = {gv.name: fn for gv, fn in b.functions.items()}
        if functions_a.keys() != functions_b.keys():
            return False
        for name, fn in functions_a.items():
            self.exprs.append((fn, functions_b[name], self.root))
        types_a = {header.name: data for header, data in a.type_definitions.items()}
        types_b = {header.name: data for header, data in b.type_definitions.items()}
        if types_a.keys() != types_b.keys():
            return False
        return all(self.push_type_data(data, types_b[name]) for name, data in types_a.items())

    def push_type_data(self, a: TypeData, b: TypeData) -> bool:
        """Compare two type definitions' outlines and push their constructors' field types."""
        if a.header.name != b.header.name or a.extern != b.extern:
            return False
        if len(a.constructors) != len(b.constructors):
            return False
        scope = self.bind_type_params(a.type_vars, b.type_vars, self.root)
        if scope is None:
            return False
        for x, y in zip(a.constructors, b.constructors, strict=True):
            if not _same_constructor(x, y) or not self.push_types(x.inputs, y.inputs, scope):
                return False
        return True


def _same_constructor(a: Constructor, b: Constructor) -> bool:
    """Constructors as atoms: the same name, tag and type."""
    return a.name == b.name and a.tag == b.tag and a.belongs_to.name == b.belongs_to.name


def _equal(a: Term, b: Term, *, alpha: bool) -> bool:
    comparer = _Comparer(alpha=alpha)
    if isinstance(a, IRModule):
        if not isinstance(b, IRModule) or not comparer.push_modules(a, b):
            return False
    elif isinstance(a, Pattern):
        if not isinstance(b, Pattern) or not comparer.match_patterns(a, b, comparer.root):
            return False
    elif isinstance(a, Type):
        if not isinstance(b, Type):
            return False
        comparer.types.append((a, b, comparer.root))
    else:
        if not isinstance(b, Expr):
            return False
        comparer.exprs.append((a, b, comparer.root))
    return comparer.run()


@overload
def structural_equal(a: Expr, b: Expr) -> bool: ...
@overload
def structural_equal(a: Type, b: Type) -> bool: ...
@overload
def structural_equal(a: Pattern, b: Pattern) -> bool: ...
@overload
def structural_equal(a: IRModule, b: IRModule) -> bool: ...
def structural_equal(a: Term, b: Term) -> bool:
    """Whether ``a`` and ``b`` are the same term up to spans and object identity.

    Alpha-equivalence (see ``alpha_equal``) in which corresponding bound variables and type
    parameters also have equal names, and incomplete types are equal only to themselves.
    Sharing is significant. Terms of different kinds are unequal.
    """
    return _equal(a, b, alpha=False)


@overload
def alpha_equal(a: Expr, b: Expr) -> bool: ...
@overload
def alpha_equal(a: Type, b: Type) -> bool: ...
@overload
def alpha_equal(a: Pattern, b: Pattern) -> bool: ...
@overload
def alpha_equal(a: IRModule, b: IRModule) -> bool: ...
def alpha_equal(a: Term, b: Term) -> bool:
    """Whether ``a`` and ``b`` are the same term up to renaming bound variables.

    Binders (parameters, ``let`` and pattern variables, type parameters) correspond by
    position, whatever their names; free variables correspond by name; incomplete types
    correspond by a bijection; the sharing of non-atomic sub-expressions must be isomorphic.
    The module docstring gives the full definition. Terms of different kinds are unequal.
    """
    return _equal(a, b, alpha=True)
