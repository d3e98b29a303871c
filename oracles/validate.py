"""Z3 validation of the type relations against their independent encodings.

``validate(op_name, arg_types, attrs)`` runs the op's relation (from the registry) on the
argument types and checks it against ``Z3_ENCODINGS[op_name]``:

(a) accepted: the encoding's constraints together with "outputs = the relation's outputs"
    are satisfiable (and the result's structure, ranks and dtypes match);
(b) rejected (``RelationError``): the encoding says ill-typed, or its constraints are
    unsatisfiable; with symbolic dimensions, it suffices that the call is ill-typed for some
    value of them
    (TVM's relations rejected what they could not prove, e.g. ``n`` against ``3``);
(c) accepted with a known output dimension: it is the only value the constraints allow
    (``constraints and out != value`` is unsatisfiable). ``?`` outputs are not checked.

Input dimensions are fixed to their values; a symbolic (sympy) dimension becomes a Z3
``Int`` named after its symbol, an ``?`` a fresh ``Int``, each >= 0. So (a) asks whether
*some* valuation is well-typed with the relation's result, and (c) whether that result is
right for *every* well-typed valuation. A query that times out is reported as inconclusive,
not as a disagreement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import sympy
import z3

from relay.semantics.ops import OPS
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.syntax import AnyDim, Dim, TensorType, TupleType, Type

from .z3 import Z3_ENCODINGS, Arg, Cond, Encoded, TensorArg, Term, TupleArg, floordiv

TIMEOUT_MS = 2000
"""The Z3 timeout of one query, in milliseconds."""


@dataclass(frozen=True)
class Report:
    """The outcome of validating one call.

    ``skipped`` says why nothing was checked (the op has no relation yet); ``accepted`` is
    whether the relation accepted the call; ``disagreements`` lists every way relation and
    encoding differ (empty: they agree); ``inconclusive`` lists queries Z3 could not decide.
    """

    op_name: str
    skipped: str | None = None
    accepted: bool = False
    disagreements: list[str] = field(default_factory=list)
    inconclusive: list[str] = field(default_factory=list)


class Untranslatable(Exception):
    """A dimension expression outside the fragment the validator translates to Z3."""


class _Dims:
    """Translates dimensions to Z3: input dims (creating symbols), then output dims."""

    def __init__(self) -> None:
        self.symbols: dict[str, Term] = {}
        self.fresh: list[Term] = []
        self.facts: list[Cond] = []

    def input(self, d: Dim) -> Term:
        if isinstance(d, AnyDim):
            var = z3.Int(f"?{len(self.fresh)}")
            self.fresh.append(var)
            self.facts.append(var >= 0)
            return var
        term = self.sympy(d, create=True)
        self.facts.append(term >= 0)
        return term

    def output(self, d: Dim) -> Term | None:
        """``None`` for ``?`` (nothing to check)."""
        if isinstance(d, AnyDim):
            return None
        return self.sympy(d, create=False)

    def arg(self, t: Type) -> Arg:
        if isinstance(t, TensorType):
            return TensorArg([self.input(d) for d in t.shape], t.dtype)
        if isinstance(t, TupleType) and all(isinstance(f, TensorType) for f in t.fields):
            fields = [self.arg(f) for f in t.fields]
            return TupleArg([f for f in fields if isinstance(f, TensorArg)])
        raise Untranslatable(f"argument type {_show(t)}")

    def sympy(self, e: object, *, create: bool) -> Term:
        """An integer dimension expression: integers, symbols, +, *, non-negative integer
        powers, floor, ceiling, Mod, Max, Min."""
        if isinstance(e, bool):
            raise Untranslatable(f"the bool {e}")
        if isinstance(e, int):
            return z3.IntVal(e)
        if not isinstance(e, sympy.Basic):
            raise Untranslatable(repr(e))
        if isinstance(e, sympy.Integer):
            return z3.IntVal(int(e))
        if isinstance(e, sympy.Symbol):
            name = str(e)
            if name not in self.symbols:
                if not create:
                    raise Untranslatable(f"symbol {name} not in the inputs")
                self.symbols[name] = z3.Int(name)
                self.facts.append(self.symbols[name] >= 0)
            return self.symbols[name]
        args = [a for a in e.args if isinstance(a, sympy.Basic)]
        if isinstance(e, sympy.Add):
            return sum(
                (self.sympy(a, create=create) for a in args[1:]), self.sympy(args[0], create=create)
            )
        if isinstance(e, sympy.Mul):
            if any(isinstance(a, sympy.Rational) and not a.is_Integer for a in args):
                raise Untranslatable(f"non-integer expression {e}")
            out = self.sympy(args[0], create=create)
            for a in args[1:]:
                out = out * self.sympy(a, create=create)
            return out
        if isinstance(e, sympy.Pow) and isinstance(args[1], sympy.Integer) and int(args[1]) >= 0:
            base = self.sympy(args[0], create=create)
            out = z3.IntVal(1)
            for _ in range(int(args[1])):
                out = out * base
            return out
        if isinstance(e, sympy.floor | sympy.ceiling):
            num, den = sympy.fraction(sympy.together(args[0]))
            n, d = self.sympy(num, create=create), self.sympy(den, create=create)
            return floordiv(n, d) if isinstance(e, sympy.floor) else -floordiv(-n, d)
        if isinstance(e, sympy.Mod):
            n, d = self.sympy(args[0], create=create), self.sympy(args[1], create=create)
            return n - d * floordiv(n, d)
        if isinstance(e, sympy.Max | sympy.Min):
            terms = [self.sympy(a, create=create) for a in args]
            out = terms[0]
            for t in terms[1:]:
                out = z3.If(t > out, t, out) if isinstance(e, sympy.Max) else z3.If(t < out, t, out)
            return out
        raise Untranslatable(f"dimension expression {e}")


def _show(t: Type) -> str:
    if isinstance(t, TensorType):
        return f"Tensor[({', '.join(str(d) for d in t.shape)}), {t.dtype}]"
    if isinstance(t, TupleType):
        return f"({', '.join(_show(f) for f in t.fields)})"
    return type(t).__name__


def _show_call(op_name: str, arg_types: Sequence[Type], attrs: Attrs | None) -> str:
    shown = ", ".join(_show(t) for t in arg_types)
    items = ", ".join(f"{k}={v!r}" for k, v in attrs.items()) if attrs is not None else ""
    return f"{op_name}({shown}{'; ' + items if items else ''})"


class _Solver:
    """One solver over the facts and constraints, with a timeout per query."""

    def __init__(self, base: Sequence[Cond], dims: _Dims, timeout_ms: int) -> None:
        self.solver = z3.Solver()
        self.solver.set("timeout", timeout_ms)
        self.solver.add(*base)
        self.dims = dims

    def check(self, *extra: Cond) -> tuple[str, z3.ModelRef | None]:
        """``"sat"`` (with a model), ``"unsat"`` or ``"unknown"``."""
        self.solver.push()
        self.solver.add(*extra)
        result = self.solver.check()
        model = self.solver.model() if result == z3.sat else None
        self.solver.pop()
        return str(result), model

    def describe(self, model: z3.ModelRef, encoded: Encoded) -> str:
        """The inputs' variables and the encoding's outputs under ``model``."""
        values = [
            f"{v}={model.eval(v, model_completion=True)}"
            for v in [*self.dims.symbols.values(), *self.dims.fresh]
        ]
        outs = [
            "(" + ", ".join(str(model.eval(d, model_completion=True)) for d in shape) + ")"
            for shape in encoded.outputs
        ]
        where = f" with {', '.join(values)}" if values else ""
        return f"outputs {', '.join(outs)}{where}"


def _result_fields(t: Type) -> tuple[list[TensorType], bool] | None:
    if isinstance(t, TensorType):
        return [t], False
    if isinstance(t, TupleType) and all(isinstance(f, TensorType) for f in t.fields):
        return [f for f in t.fields if isinstance(f, TensorType)], True
    return None


def validate(
    op_name: str,
    arg_types: Sequence[Type],
    attrs: Attrs | None,
    *,
    timeout_ms: int = TIMEOUT_MS,
) -> Report:
    """Check the relation of ``op_name`` on one call against its Z3 encoding."""
    op = OPS.get(op_name)
    if op is None:
        return Report(op_name, disagreements=[f"unknown operator {op_name}"])
    if op.relation is None:
        return Report(op_name, skipped=f"{op_name} has no relation yet")
    rule = Z3_ENCODINGS.get(op_name)
    if rule is None:
        return Report(op_name, disagreements=[f"{op_name} has no Z3 encoding"])
    call = _show_call(op_name, arg_types, attrs)
    dims = _Dims()
    try:
        args = [dims.arg(t) for t in arg_types]
    except Untranslatable as e:
        return Report(op_name, skipped=f"{call}: cannot translate {e}")
    encoded = rule(args, attrs)
    try:
        result = op.relation(tuple(arg_types), attrs)
    except RelationError as e:
        return _check_rejection(op_name, call, str(e), encoded, dims, timeout_ms)
    except Exception as e:  # a relation must reject with RelationError, never crash
        return Report(op_name, disagreements=[f"{call}: relation raised {type(e).__name__}: {e}"])
    return _check_acceptance(op_name, call, result, encoded, dims, timeout_ms)


def _check_rejection(
    op_name: str, call: str, message: str, encoded: Encoded, dims: _Dims, timeout_ms: int
) -> Report:
    """(b): the relation rejects. Without symbols Z3 must find no well-typed assignment (a
    ``?`` may take any value). With symbols the relation may reject conservatively, as TVM's
    did (``n`` against ``3`` in a broadcast), but not a call that is well-typed for every
    value of the symbols."""
    if encoded.ill_typed is not None:
        return Report(op_name)
    solver = _Solver([*dims.facts, *encoded.constraints], dims, timeout_ms)
    status, model = solver.check()
    if status == "unsat":
        return Report(op_name)
    if status == "unknown":
        return Report(op_name, inconclusive=[f"{call}: rejection not decided"])
    assert model is not None
    example = solver.describe(model, encoded)
    if not dims.symbols:
        return Report(
            op_name,
            disagreements=[
                f"{call}: relation rejects ({message}) but Z3 finds it well-typed: {example}"
            ],
        )
    symbol_facts = [f for f in dims.facts if not _mentions(f, dims.fresh)]
    any_facts = [f for f in dims.facts if _mentions(f, dims.fresh)]
    well_typed = z3.And(*any_facts, *encoded.constraints)
    if dims.fresh:
        well_typed = z3.Exists(dims.fresh, well_typed)
    symbols = list(dims.symbols.values())
    always = z3.ForAll(symbols, z3.Implies(z3.And(*symbol_facts), well_typed))
    counter = z3.Solver()
    counter.set("timeout", timeout_ms)
    counter.add(z3.Not(always))
    result = counter.check()
    if result == z3.sat:
        return Report(op_name)
    if result == z3.unknown:
        return Report(op_name, inconclusive=[f"{call}: conservative rejection not decided"])
    names = ", ".join(dims.symbols)
    return Report(
        op_name,
        disagreements=[
            f"{call}: relation rejects ({message}) but the call is well-typed for every "
            f"value of {names}, e.g. {example}"
        ],
    )


def _mentions(formula: Cond, variables: Sequence[Term]) -> bool:
    """Whether ``formula`` mentions any of ``variables``."""
    names = {str(v) for v in variables}
    todo = [formula]
    while todo:
        e = todo.pop()
        if z3.is_const(e) and str(e) in names:
            return True
        todo.extend(e.children())
    return False


def _check_acceptance(
    op_name: str, call: str, result: Type, encoded: Encoded, dims: _Dims, timeout_ms: int
) -> Report:
    """(a) and (c): the relation accepts; its result must be the encoding's, and unique."""
    shown = _show(result)
    if encoded.ill_typed is not None:
        return Report(
            op_name,
            accepted=True,
            disagreements=[
                f"{call}: relation returns {shown} but it is ill-typed: {encoded.ill_typed}"
            ],
        )
    fields = _result_fields(result)
    problems: list[str] = []
    if fields is None:
        return Report(
            op_name, accepted=True, disagreements=[f"{call}: returns {shown}, not tensors"]
        )
    tensors, is_tuple = fields
    if is_tuple != encoded.tuple_output or len(tensors) != len(encoded.outputs):
        want = f"{'a tuple of ' if encoded.tuple_output else ''}{len(encoded.outputs)} tensor(s)"
        problems.append(f"{call}: relation returns {shown}, expected {want}")
        return Report(op_name, accepted=True, disagreements=problems)
    ranks = [len(t.shape) for t in tensors]
    want_ranks = [len(s) for s in encoded.outputs]
    if ranks != want_ranks:
        problems.append(f"{call}: relation returns {shown}, expected ranks {want_ranks}")
        return Report(op_name, accepted=True, disagreements=problems)
    if encoded.dtypes is not None and [t.dtype for t in tensors] != encoded.dtypes:
        problems.append(f"{call}: relation returns {shown}, dtypes {encoded.dtypes}")
    pairs: list[tuple[int, int, Term, Term]] = []
    for j, (t, shape) in enumerate(zip(tensors, encoded.outputs, strict=True)):
        for k, (d, want) in enumerate(zip(t.shape, shape, strict=True)):
            try:
                got = dims.output(d)
            except Untranslatable as e:
                problems.append(f"{call}: relation returns {shown}: cannot translate {e}")
                continue
            if got is not None:
                pairs.append((j, k, got, want))
    solver = _Solver([*dims.facts, *encoded.constraints], dims, timeout_ms)
    inconclusive: list[str] = []
    status, model = solver.check(*[got == want for _, _, got, want in pairs])
    if status == "unsat":
        alone, _ = solver.check()
        if alone == "unsat":
            problems.append(f"{call}: relation returns {shown} but Z3 finds the call ill-typed")
        else:
            problems.append(f"{call}: relation returns {shown}, which the constraints exclude")
        return Report(op_name, accepted=True, disagreements=problems, inconclusive=inconclusive)
    if status == "unknown":
        inconclusive.append(f"{call}: consistency of {shown} not decided")
    if pairs:
        status, model = solver.check(z3.Or([got != want for _, _, got, want in pairs]))
        if status == "sat":
            assert model is not None
            for j, k, got, want in pairs:
                if z3.is_true(model.eval(got != want, model_completion=True)):
                    where = f"field {j} " if is_tuple else ""
                    problems.append(
                        f"{call}: relation returns {shown}, but {where}dimension {k} is not "
                        f"determined to be {got}: {solver.describe(model, encoded)}"
                    )
                    break
        elif status == "unknown":
            inconclusive.append(f"{call}: uniqueness of {shown} not decided")
    return Report(op_name, accepted=True, disagreements=problems, inconclusive=inconclusive)


def validate_call(op_name: str, arg_types: Sequence[Type], attrs: Attrs | None) -> list[str]:
    """The disagreements between the relation of ``op_name`` and its encoding on one call
    (empty: they agree). An op without a relation yet gives one line saying so."""
    report = validate(op_name, arg_types, attrs)
    if report.skipped is not None:
        return [report.skipped]
    return report.disagreements


__all__ = ["TIMEOUT_MS", "Report", "Untranslatable", "validate", "validate_call"]
