"""Properties of the language, checked on whole modules from ``relay.oracles.gen_modules``.

- **Type soundness.** Every generated module type-checks (progress of the checker), and its
  ``@main`` has the parameter types and (up to unsolved holes) the result type the generator
  built it at. Evaluated by the spec on arguments drawn by ``case.arguments`` (special values
  one time in five) with a small fuel budget it never gets ``Stuck`` (progress);
  ``RelayRuntimeError`` (a ``match?`` that falls through), ``UndefinedBehavior`` and
  ``Exhaustion`` are allowed and counted as Hypothesis events. The value has the inferred type
  (preservation): tensors by dtype and shape, tuples by arity, constructor values by their type
  definition, closures by arity, references through the store.
- **Round trip.** Printing then parsing gives an alpha-equal module, and printing that gives
  the same text.
- **Inference.** Type inference is deterministic, and alpha-renaming every variable (all to
  one name, which the printer must then tell apart) and every type parameter leaves the global
  types unchanged up to alpha-equivalence.
- **Coverage.** Over a few hundred modules, every feature TVM's feature detector names occurs,
  and so does each feature of ``EXTRA_FEATURES`` (polymorphism, partial matches, aliasing
  references, both kinds of recursion, ...).

The default run takes about 25 s on two cores. The ``slow`` variants draw 1,000 larger modules
(``pytest -m slow property_tests/test_gen_modules.py``).
"""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

from relay.oracles.gen_modules import (
    EXTRA_FEATURES,
    FEATURES,
    ModuleCase,
    extra_features,
    features,
    modules,
)
from relay.semantics.equality import alpha_equal
from relay.semantics.errors import Exhaustion, RelayRuntimeError, Stuck, UndefinedBehavior
from relay.semantics.evaluation import evaluate
from relay.semantics.syntax import (
    ANY,
    Call,
    Clause,
    Constant,
    Constructor,
    Expr,
    Function,
    FuncType,
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
    TypeVar,
    Var,
    children,
)
from relay.semantics.text.parser import parse
from relay.semantics.text.printer import astext, format_type
from relay.semantics.typing import infer_types, substitute
from relay.semantics.values import (
    ClosureValue,
    ConstructorFnValue,
    ConstructorValue,
    RefValue,
    Store,
    TensorValue,
    TupleValue,
    Value,
)

FUEL = 20_000
COVERAGE_EXAMPLES = 300
LONG_EXAMPLES = 1_000
LARGE = {"max_globals": 4, "max_depth": 6, "max_nodes": 100, "max_adts": 2}
"""Sizes for the ``slow`` variants (``pytest -m slow property_tests/test_gen_modules.py``)."""


# ---------------------------------------------------------------------------------------------
# Arguments and the typing of values


def with_arguments(
    cases: st.SearchStrategy[ModuleCase],
) -> st.SearchStrategy[tuple[ModuleCase, list[Value]]]:
    """Each case with arguments drawn for its ``@main``."""

    @st.composite
    def build(draw: st.DrawFn) -> tuple[ModuleCase, list[Value]]:
        case = draw(cases)
        return case, list(draw(case.arguments(special=None)))

    return build()


def type_errors(mod: IRModule, v: Value, t: Type, store: Store) -> list[str]:
    """Why ``v`` does not have type ``t`` (empty if it does)."""
    problems: list[str] = []
    seen: set[int] = set()
    stack: list[tuple[Value, Type, str]] = [(v, t, "the result")]
    while stack:
        v, t, where = stack.pop()
        match t:
            case IncompleteType() | TypeVar():
                pass  # a hole inference left open, or a type parameter: any value
            case TensorType(shape, dtype):
                if not isinstance(v, TensorValue):
                    problems.append(f"{where}: expected a tensor, found {type(v).__name__}")
                elif v.data.dtype.name != dtype or not (
                    len(v.data.shape) == len(shape)
                    and all(d is ANY or d == n for d, n in zip(shape, v.data.shape, strict=True))
                ):  # a dynamic operator's ``?`` dimension holds any size
                    problems.append(f"{where}: expected {format_type(t)}, found a "
                                    f"{v.data.dtype.name} tensor of shape "
                                    f"{v.data.shape}")  # fmt: skip
            case TupleType(fields):
                if not isinstance(v, TupleValue) or len(v.fields) != len(fields):
                    problems.append(f"{where}: expected a tuple of {len(fields)} fields")
                else:
                    stack.extend(
                        (fv, ft, f"{where}.{i}")
                        for i, (fv, ft) in enumerate(zip(v.fields, fields, strict=True))
                    )
            case FuncType(args):
                if isinstance(v, ClosureValue):
                    if len(v.fn.params) != len(args):
                        problems.append(f"{where}: a closure of {len(v.fn.params)} parameters")
                elif isinstance(v, ConstructorFnValue):
                    if len(v.constructor.inputs) != len(args):
                        problems.append(f"{where}: a constructor of the wrong arity")
                else:
                    problems.append(f"{where}: expected a function, found {type(v).__name__}")
            case RefType(value):
                if not isinstance(v, RefValue) or v.location not in store:
                    problems.append(f"{where}: expected a reference")
                elif v.location not in seen:
                    seen.add(v.location)
                    stack.append((store[v.location], value, f"ref_read({where})"))
            case TypeCall(func, targs):
                data = mod.get_type_data(func.name)
                if not isinstance(v, ConstructorValue) or v.constructor.belongs_to.name != (
                    func.name
                ):
                    problems.append(f"{where}: expected a value of {format_type(t)}")
                    continue
                ctor = next((c for c in data.constructors if c.name == v.constructor.name), None)
                if ctor is None or len(ctor.inputs) != len(v.fields):
                    problems.append(f"{where}: {v.constructor.name} is not a constructor of "
                                    f"{func.name} with {len(v.fields)} fields")  # fmt: skip
                    continue
                mapping = dict(zip(data.type_vars, targs, strict=True))
                stack.extend(
                    (fv, substitute(ft, mapping), f"{where}.{ctor.name}[{i}]")
                    for i, (fv, ft) in enumerate(zip(v.fields, ctor.inputs, strict=True))
                )
            case _:
                problems.append(f"{where}: unexpected type {format_type(t)}")
    return problems


def agrees(inferred: Type, built: Type) -> bool:
    """``inferred`` is ``built`` except where inference left a hole (an unconstrained type
    argument, such as the element type of ``Nil`` when nothing else says it)."""
    stack = [(inferred, built)]
    while stack:
        a, b = stack.pop()
        if isinstance(a, IncompleteType):
            continue
        match a, b:
            case TupleType(fs), TupleType(gs) if len(fs) == len(gs):
                stack.extend(zip(fs, gs, strict=True))
            case FuncType(fa, fr, ()), FuncType(ga, gr, ()) if len(fa) == len(ga):
                stack.extend(zip(fa, ga, strict=True))
                stack.append((fr, gr))
            case RefType(f), RefType(g):
                stack.append((f, g))
            case TypeCall(ff, fs), TypeCall(gf, gs) if ff.name == gf.name:
                stack.extend(zip(fs, gs, strict=True))
            case _:
                if a != b:
                    return False
    return True


# ---------------------------------------------------------------------------------------------
# (a) Type soundness


def check_soundness(case: ModuleCase, args: list[Value]) -> None:
    """Progress and preservation for one module (see the module docstring)."""
    mod = case.mod
    info = infer_types(mod)  # progress of the checker: a RelayTypeError fails the test
    main_type = info.global_type("main")
    assert isinstance(main_type, FuncType)
    assert main_type.arg_types == case.param_types
    assert agrees(main_type.ret_type, case.ret_type), (
        f"@main was built at {format_type(case.ret_type)}, inferred "
        f"{format_type(main_type.ret_type)}"
    )
    for gv, fn in mod.functions.items():
        inferred = info.global_type(gv.name)
        assert isinstance(inferred, FuncType)
        declared = FuncType(
            tuple(p.type_annotation for p in fn.params if p.type_annotation is not None),
            fn.ret_type if fn.ret_type is not None else inferred.ret_type,
            fn.type_params,
        )
        assert alpha_equal(inferred, declared), f"@{gv.name}: {format_type(inferred)}"
    try:
        result = evaluate(mod, args, fuel=FUEL)
    except Stuck as err:
        raise AssertionError(f"a well-typed module got stuck: {err}") from err
    except (RelayRuntimeError, UndefinedBehavior, Exhaustion) as err:
        event(f"evaluation: {type(err).__name__}")
        return
    event("evaluation: value")
    problems = type_errors(mod, result.value, main_type.ret_type, result.store)
    assert not problems, "\n".join(problems)


@given(with_arguments(modules()))
def test_generated_modules_are_well_typed_and_sound(
    case_and_args: tuple[ModuleCase, list[Value]],
) -> None:
    check_soundness(*case_and_args)


@pytest.mark.slow
@settings(max_examples=LONG_EXAMPLES)
@given(with_arguments(modules(**LARGE)))
def test_large_generated_modules_are_well_typed_and_sound(
    case_and_args: tuple[ModuleCase, list[Value]],
) -> None:
    check_soundness(*case_and_args)


# ---------------------------------------------------------------------------------------------
# (b) Print, parse, print


def check_round_trip(case: ModuleCase) -> None:
    text = astext(case.mod)
    parsed = parse(text)
    assert alpha_equal(case.mod, parsed), text
    assert astext(parsed) == text


@given(modules())
def test_print_parse_round_trip(case: ModuleCase) -> None:
    check_round_trip(case)


@pytest.mark.slow
@settings(max_examples=LONG_EXAMPLES)
@given(modules(**LARGE))
def test_large_modules_round_trip(case: ModuleCase) -> None:
    check_round_trip(case)


# ---------------------------------------------------------------------------------------------
# (c) Inference is deterministic and invariant under alpha-renaming


class _Renamer:
    """A copy of a module with every variable called ``x`` (the printer must tell them apart)
    and every type parameter renamed afresh; shared nodes stay shared."""

    def __init__(self, mod: IRModule) -> None:
        self.mod = mod
        self.exprs: dict[int, Expr] = {}
        self.vars: dict[int, Var] = {}
        self.type_vars: dict[TypeVar, Type] = {}
        for fn in mod.functions.values():
            stack: list[Expr] = [fn]
            seen: set[int] = set()
            while stack:
                e = stack.pop()
                if id(e) in seen:
                    continue
                seen.add(id(e))
                if isinstance(e, Function):
                    for tv in e.type_params:
                        self.type_vars[tv] = TypeVar(f"R{len(self.type_vars)}")
                stack.extend(children(e))

    def module(self) -> IRModule:
        functions = {gv: self.function(fn) for gv, fn in self.mod.functions.items()}
        return IRModule(functions, self.mod.type_definitions)

    def type(self, t: Type | None) -> Type | None:
        return None if t is None else substitute(t, self.type_vars)

    def var(self, v: Var) -> Var:
        if id(v) not in self.vars:
            self.vars[id(v)] = Var("x", self.type(v.type_annotation))
        return self.vars[id(v)]

    def type_params(self, tps: tuple[TypeVar, ...]) -> tuple[TypeVar, ...]:
        out = []
        for tv in tps:
            new = self.type_vars[tv]
            assert isinstance(new, TypeVar)
            out.append(new)
        return tuple(out)

    def function(self, fn: Function) -> Function:
        renamed = self.expr(fn)
        assert isinstance(renamed, Function)
        return renamed

    def pattern(self, p: Pattern) -> Pattern:
        match p:
            case PatternWildcard():
                return PatternWildcard()
            case PatternVar(v):
                return PatternVar(self.var(v))
            case PatternConstructor(ctor, ps):
                return PatternConstructor(ctor, tuple(self.pattern(q) for q in ps))
            case PatternTuple(ps):
                return PatternTuple(tuple(self.pattern(q) for q in ps))
        raise AssertionError(p)

    def expr(self, e: Expr) -> Expr:
        if id(e) in self.exprs:
            return self.exprs[id(e)]
        out: Expr
        match e:
            case Var():
                out = self.var(e)
            case GlobalVar() | Constant() | Op() | Constructor():
                out = e
            case Tuple(fields):
                out = Tuple(tuple(self.expr(f) for f in fields))
            case TupleGetItem(tup, index):
                out = TupleGetItem(self.expr(tup), index)
            case Function(params, body, ret, tps, attrs):
                new_params = tuple(self.var(p) for p in params)
                out = Function(new_params, self.expr(body), self.type(ret),
                               self.type_params(tps), attrs)  # fmt: skip
            case Call(op, args, attrs, type_args):
                new_args = tuple(self.expr(a) for a in args)
                out = Call(self.expr(op), new_args, attrs,
                           tuple(substitute(t, self.type_vars) for t in type_args))  # fmt: skip
            case Let(var, value, body):
                new_var = self.var(var)
                out = Let(new_var, self.expr(value), self.expr(body))
            case If(cond, then, otherwise):
                out = If(self.expr(cond), self.expr(then), self.expr(otherwise))
            case Match(data, clauses, complete):
                new_data = self.expr(data)
                new_clauses = tuple(Clause(self.pattern(c.lhs), self.expr(c.rhs)) for c in clauses)
                out = Match(new_data, new_clauses, complete)
            case RefCreate(value):
                out = RefCreate(self.expr(value))
            case RefRead(ref):
                out = RefRead(self.expr(ref))
            case RefWrite(ref, value):
                out = RefWrite(self.expr(ref), self.expr(value))
            case _:
                raise AssertionError(e)
        self.exprs[id(e)] = out
        return out


@settings(max_examples=60)
@given(modules())
def test_inference_is_deterministic_and_invariant_under_renaming(case: ModuleCase) -> None:
    first = infer_types(case.mod)
    second = infer_types(case.mod)
    assert first.globals.keys() == second.globals.keys()
    for name, t in first.globals.items():
        assert alpha_equal(t, second.globals[name]), name
    assert first.expr_types.keys() == second.expr_types.keys()
    for key, t in first.expr_types.items():
        assert alpha_equal(t, second.expr_types[key])

    renamed = _Renamer(case.mod).module()
    assert alpha_equal(renamed, case.mod)
    renamed_types = infer_types(renamed)
    for name, t in first.globals.items():
        assert alpha_equal(t, renamed_types.globals[name]), (
            f"@{name}: {format_type(t)} became {format_type(renamed_types.globals[name])}"
        )
    # Everything is called ``x`` now: the printer must still keep the variables apart.
    parsed = parse(astext(renamed))
    assert alpha_equal(parsed, case.mod)


# ---------------------------------------------------------------------------------------------
# (d) Coverage


@pytest.mark.slow
def test_every_feature_occurs() -> None:
    seen: Counter[str] = Counter()

    @settings(max_examples=COVERAGE_EXAMPLES, database=None)
    @given(modules())
    def collect(case: ModuleCase) -> None:
        seen.update(features(case.mod))
        seen.update(extra_features(case.mod))

    collect()
    missing = [f for f in (*FEATURES, *EXTRA_FEATURES) if not seen[f]]
    assert not missing, f"never generated: {missing}; counts: {dict(seen)}"
    assert len(FEATURES) == 17
