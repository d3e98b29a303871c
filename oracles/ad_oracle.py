"""The AD oracle: a gradient pass checked against central finite differences, in float64.

AD has no "same value" law, so a gradient pass (``Gradient``, or any pass that, like it,
replaces ``@main(x1..xn) -> t`` by ``fn (x1..xn) -> (t, (dx1..dxn))``) is held to these
checks on a program and arguments, after the program is converted to float64
(``to_float64``: every float type, constant and dtype attribute):

1. **Cotangent.** The program is differentiated as ``@main(x) * v`` for a cotangent ``v``
   drawn from the arguments' seed (the pass seeds with ones, so this is the vector-Jacobian
   product with ``v``, and a rule that is wrong only off the all-ones direction is seen).
2. **Forward value unchanged** (exact): the first field of the gradient's result equals the
   value of ``@main(x) * v`` bit for bit (NaN equal to NaN): the pass runs the same forward
   computation.
3. **Linearity in the cotangent** (float64 rounding only): for cotangents ``v1``, ``v2`` and
   scalars ``a``, ``b``, ``grad(a v1 + b v2) = a grad(v1) + b grad(v2)`` within
   ``LINEAR_RTOL`` of the terms' magnitude.
4. **Finite differences.** For ``DIRECTIONS`` random directions ``d`` over all parameters
   and for up to ``ELEMENTS`` single elements of each parameter: the directional derivative
   ``<grad, d>`` against the five-point central difference
   ``(8 (F(x + h d) - F(x - h d)) - (F(x + 2h d) - F(x - 2h d))) / 12h`` of
   ``F(x) = sum(@main(x) * v)``, with ``h = STEP``.

**Tolerance.** ``|ad - fd| <= ATOL + RTOL * max(|ad|, |fd|, scale) + noise``, where ``scale``
is the sum of the magnitudes of the terms of ``<grad, d>`` (the size of what is being
cancelled) and ``noise = NOISE * eps * size / h``, with ``size`` the largest
``sum(|@main(x + t h d) * v|)`` over the points evaluated: the rounding error of one
evaluation of ``F`` is a few ``eps`` times the size of the values summed, and a difference
quotient divides it by ``h``. Both errors of a difference quotient grow with the function,
so neither is covered by an absolute constant:

- *Truncation.* The plain central difference ``(F(x+h) - F(x-h)) / 2h`` is off by
  ``h^2 F''' / 6``, and the generator's programs have large third derivatives (a
  ``prod(tanh(a) + 2)`` multiplies by up to 27, and steps chain such factors): at a point
  where the gradient is 0, ``F ~ a t^2 + c t^3`` with ``c ~ 3e4`` gave a central difference
  of ``-2.6e-6`` against AD's exact 0, a false alarm (a first-order campaign, seed 1; the
  regression test ``test_no_false_alarm_where_the_third_derivative_is_large``). The
  five-point difference cancels the ``h^2`` term (its error is ``h^4 F^(5) / 30``), from the
  same points the kink rule below needs anyway.
- *Rounding.* ``eps |F| / h`` is ``2e-11 |F|``: below ``ATOL`` only while ``|F| < 1e4``; a
  program whose values reach ``1e6`` (a sum times a tensor, twice) has a rounding error of
  about ``1e-5`` in every difference quotient (``(x + y) - x`` with ``y ~ 1e6``: AD 0.63587,
  finite differences 0.63588; ``test_no_false_alarm_where_the_values_are_large``).
  ``NOISE = 100`` allows for intermediate values larger than the output and for the
  one-sided formulas' larger coefficients.

Real rule errors (a sign, a factor, a transposition) are of the order of the gradient itself,
far above both terms.

**Non-differentiable points** (ties in ``max``, ``relu`` or ``abs`` at 0, an ``if`` whose
condition flips, a ``clip`` at its bound): the rule is *detect and skip*. Along each
direction the second-order one-sided differences ``(-3F(0) + 4F(h) - F(2h)) / 2h`` and
``(3F(0) - 4F(-h) + F(-2h)) / 2h`` are computed; where ``F`` is smooth both equal the
derivative up to ``O(h^2)`` times the third derivative (about 1e-10), and where it has a kink
(or a jump) within ``2h`` of ``x`` they differ by the jump in the derivative. A direction
whose one-sided differences differ by more than the tolerance is skipped and counted
(``Outcome.skipped``). A kink this misses has a jump below the tolerance and moves the
central difference by half of it at most, so it cannot raise a false alarm. Where only a
higher derivative jumps at ``x`` (an ``if`` between branches of equal slope), the central
differences are off by ``O(h)``; AD passes if it matches the five-point difference, the
plain central difference or the mean of the one-sided ones. A *tie at x itself* is not a
kink along ``d``: in ``where(a > b, a * b, a - b)`` with ``a == b`` the program takes at
``x`` a piece that holds at ``x`` only, ``F`` can be smooth (even constant) along ``d``, and
AD differentiates the piece taken (a higher-order campaign, seed 1: AD -1.19, finite
differences 0, at ``x = 0``; ``test_no_false_alarm_at_a_tie``). So before a mismatch is
reported AD is also evaluated at ``x + h d`` and ``x - h d``: where AD is continuous at
``x`` the mean of its two directional derivatives there is its value at ``x`` up to
``O(h^2)``; if it is not (within the tolerance), AD jumps at ``x``, ``x`` is a tie and the
direction is skipped. A wrong rule is as continuous as a right one off a tie (the rules are
continuous expressions), so its mismatch is reported. A program that is not finite on the
arguments, or that runs out of fuel or reaches undefined behaviour, is skipped as a whole.

``check_gradient(p, mod, args, seed)`` returns a ``Verdict`` (the pass oracle's: the same
reports) or ``None``; ``run_gradient_campaign`` draws programs from ``gen_differentiable``
and shrinks the first failure (``relay fuzz --check gradient``).
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed

from relay.compiler.ir import rename_binders, rewrite
from relay.compiler.pass_manager import Pass
from relay.interpreter import evaluate
from relay.semantics.errors import Exhaustion, RelayError, UndefinedBehavior
from relay.semantics.syntax import (
    Call,
    Clause,
    Constant,
    Constructor,
    Expr,
    Function,
    FuncType,
    IRModule,
    Let,
    Match,
    Op,
    Pattern,
    PatternConstructor,
    PatternTuple,
    RefType,
    TensorType,
    TupleType,
    Type,
    TypeCall,
    Var,
)
from relay.semantics.text.printer import astext
from relay.semantics.typing import infer_types
from relay.semantics.values import TensorValue, TupleValue, Value, format_value

from .pass_oracle import Verdict, stop_at, time_limit

STEP = 1e-5
RTOL = 1e-5
ATOL = 1e-6
NOISE = 100.0
LINEAR_RTOL = 1e-9
DIRECTIONS = 2
ELEMENTS = 3
FUEL = 2_000_000
EXAMPLE_TIMEOUT = 20.0


# ---------------------------------------------------------------------------------------------
# float64


def _f64(dtype: str) -> str:
    return "float64" if dtype.startswith("float") else dtype


def f64_type(t: Type) -> Type:
    """``t`` with every float tensor type made float64."""
    match t:
        case TensorType(shape, dtype):
            return TensorType(shape, _f64(dtype))
        case TupleType(fields):
            return TupleType(tuple(f64_type(f) for f in fields))
        case FuncType(args, ret, params, constraints):
            return FuncType(tuple(f64_type(a) for a in args), f64_type(ret), params, constraints)
        case RefType(value):
            return RefType(f64_type(value))
        case TypeCall(func, args):
            return TypeCall(func, tuple(f64_type(a) for a in args))
    return t


def to_float64(mod: IRModule) -> IRModule:
    """``mod`` computing in float64 wherever it computed in a float type: annotations,
    constants, constructor fields and the ``dtype``/``out_dtype`` attributes of calls."""
    ctors: dict[Constructor, Constructor] = {}
    types = {}
    for h, data in mod.type_definitions.items():
        new = []
        for c in data.constructors:
            ctors[c] = replace(c, inputs=tuple(f64_type(t) for t in c.inputs))
            new.append(ctors[c])
        types[h] = replace(data, constructors=tuple(new))

    def pattern(p: Pattern) -> Pattern:
        match p:
            case PatternConstructor(c, ps):
                return replace(p, constructor=ctors.get(c, c), patterns=tuple(map(pattern, ps)))
            case PatternTuple(ps):
                return replace(p, patterns=tuple(map(pattern, ps)))
        return p

    def visit(e: Expr) -> Expr | None:
        match e:
            case Constant(data) if data.dtype.kind == "f":
                return Constant(data.astype(np.float64), span=e.span)
            case Constructor():
                return ctors.get(e)
            case Call(Op(), _, attrs) if attrs is not None:
                changes = {
                    key: _f64(value)
                    for key in ("dtype", "out_dtype")
                    if isinstance(value := getattr(attrs, key, None), str)
                }
                new = dataclasses.replace(attrs, **changes)  # type: ignore[type-var]
                return replace(e, attrs=new) if changes else None
            case Call():
                return replace(e, type_args=tuple(f64_type(t) for t in e.type_args))
            case Function(_, _, ret):
                return replace(e, ret_type=None if ret is None else f64_type(ret))
            case Match():
                clauses = tuple(Clause(pattern(c.lhs), c.rhs, span=c.span) for c in e.clauses)
                return replace(e, clauses=clauses)
        return None

    def retype(v: Var) -> Var | None:
        t = v.type_annotation
        return None if t is None else Var(v.name_hint, f64_type(t), span=v.span)

    functions = {}
    for gv, fn in mod.functions.items():
        out = rewrite(rename_binders(fn, retype), visit)
        assert isinstance(out, Function)
        params = tuple(p for p in out.params)
        functions[gv] = replace(out, params=params)
    return IRModule(functions, types)


def as_float64(v: Value) -> Value:
    if isinstance(v, TensorValue) and v.data.dtype.kind == "f":
        return TensorValue(np.asarray(v.data, dtype=np.float64))
    return v


# ---------------------------------------------------------------------------------------------
# The check


def with_cotangent(mod: IRModule, v: np.ndarray) -> IRModule:
    """``mod`` whose ``@main`` returns ``@main(..) * v``."""
    gv = mod.get_global_var("main")
    fn = mod.functions[gv]
    result = Var("value")
    body = Let(result, fn.body, Call(Op("multiply"), (result, Constant(v))))
    return mod.with_function(gv, replace(fn, body=body))


@dataclass
class Outcome:
    """What one check saw: directions compared and skipped (non-differentiable points)."""

    compared: int = 0
    skipped: int = 0
    inconclusive: str = ""


class _Skip(Exception):
    pass


def _run(mod: IRModule, args: Sequence[Value]) -> Value:
    try:
        return evaluate(mod, list(args), fuel=FUEL).value
    except (Exhaustion, UndefinedBehavior) as err:
        raise _Skip(f"{type(err).__name__}: {err.message}") from None


def _scalar(mod: IRModule, args: Sequence[Value]) -> tuple[float, float]:
    """``sum(@main(args))`` and the size of what it sums, ``sum(|@main(args)|)``."""
    v = _run(mod, args)
    assert isinstance(v, TensorValue)
    return float(np.sum(v.data)), float(np.sum(np.abs(v.data)))


def _grads(value: Value, n: int) -> tuple[np.ndarray, list[np.ndarray]]:
    if not (isinstance(value, TupleValue) and len(value.fields) == 2):
        raise TypeError("the gradient's result is not a pair (value, gradients)")
    out, grads = value.fields
    if not (isinstance(out, TensorValue) and isinstance(grads, TupleValue)):
        raise TypeError("the gradient's result is not (tensor, (tensors..))")
    if len(grads.fields) != n:
        raise TypeError(f"{len(grads.fields)} gradients for {n} parameters")
    arrays = []
    for g in grads.fields:
        if not isinstance(g, TensorValue):
            raise TypeError("a gradient is not a tensor")
        arrays.append(np.asarray(g.data, dtype=np.float64))
    return np.asarray(out.data), arrays


def check_gradient(
    p: Pass, mod: IRModule, args: Sequence[Value], seed: int = 0
) -> tuple[Verdict | None, Outcome]:
    """Hold the gradient pass ``p`` to the AD oracle on ``mod`` and ``args`` (see the module
    docstring); ``seed`` draws the cotangents and directions."""
    name = p.name
    outcome = Outcome()
    mod = to_float64(mod)
    infer_types(mod)  # an ill-typed input is the caller's error, not the pass's
    args = [as_float64(a) for a in args]
    inputs = tuple(format_value(a) for a in args)
    xs = [np.asarray(a.data, dtype=np.float64) for a in args if isinstance(a, TensorValue)]
    if len(xs) != len(args):
        raise ValueError("the AD oracle needs tensor arguments")

    def verdict(kind: str, message: str, **kw: str) -> Verdict:
        return Verdict(name, kind, message, inputs=inputs, **kw)

    try:
        out = _run(mod, args)
    except _Skip as why:
        outcome.inconclusive = str(why)
        return None, outcome
    if not isinstance(out, TensorValue) or not np.all(np.isfinite(out.data)):
        outcome.inconclusive = "the program's value is not finite"
        return None, outcome
    rng = np.random.default_rng(seed)
    shape = np.shape(out.data)
    v1, v2 = rng.uniform(0.5, 1.5, shape) * rng.choice([-1, 1], shape), rng.normal(size=shape)
    a, b = 0.75, -1.25

    def grad_of(v: np.ndarray) -> tuple[IRModule, IRModule, np.ndarray, list[np.ndarray]]:
        src = with_cotangent(mod, v)
        try:
            with time_limit(EXAMPLE_TIMEOUT):
                transformed = p.transform(src)
        except Exception as err:
            raise _Fail(verdict("crash", f"{type(err).__name__}: {err}",
                                detail=traceback.format_exc(limit=6))) from None  # fmt: skip
        try:
            infer_types(transformed)
        except RelayError as err:
            raise _Fail(verdict("ill-typed", err.message, detail=astext(transformed))) from None
        try:
            value = _run(transformed, args)
            forward, grads = _grads(value, len(args))
        except _Skip:
            raise
        except (RelayError, TypeError) as err:
            raise _Fail(verdict("crash", f"the gradient program failed: {err}")) from None
        return src, transformed, forward, grads

    try:
        src1, grad1, forward, g1 = grad_of(v1)
        expected = _run(src1, args)
        assert isinstance(expected, TensorValue)
        if forward.shape != expected.data.shape or not np.array_equal(
            forward, expected.data, equal_nan=True
        ):
            return verdict("forward-changed", "the gradient program's value differs",
                           expected=str(expected.data), actual=str(forward)), outcome  # fmt: skip
        _, _, _, g2 = grad_of(v2)
        _, _, _, g12 = grad_of(a * v1 + b * v2)
        for i, (x1, x2, x12) in enumerate(zip(g1, g2, g12, strict=True)):
            if x1.shape != xs[i].shape or x12.shape != xs[i].shape:
                return verdict("gradient-mismatch", f"the gradient of %{i} has shape "
                               f"{x1.shape}, not {xs[i].shape}"), outcome  # fmt: skip
            combo = a * x1 + b * x2
            size = np.abs(a * x1) + np.abs(b * x2)
            if not np.all(np.abs(combo - x12) <= LINEAR_RTOL * (size + 1e-300) + 1e-12):
                message = f"the gradient of %{i} is not linear in the cotangent"
                return verdict("not-linear", message, expected=str(combo),
                               actual=str(x12)), outcome  # fmt: skip

        def ad_at(t: float, d: list[np.ndarray]) -> float | None:
            """AD's directional derivative at ``x + t d`` (``None`` if it cannot be had)."""
            try:
                shifted = [TensorValue(x + t * dx) for x, dx in zip(xs, d, strict=True)]
                _, grads = _grads(_run(grad1, shifted), len(args))
            except (_Skip, RelayError, TypeError):
                return None
            return float(sum(np.sum(g * dx) for g, dx in zip(grads, d, strict=True)))

        fd = _finite_differences(src1, xs, g1, rng, outcome, ad_at)
    except _Fail as fail:
        return fail.verdict, outcome
    except _Skip as why:
        outcome.inconclusive = str(why)
        return None, outcome
    if fd is not None:
        what, ad, numeric = fd
        message = f"{what}: AD gives {ad!r}, finite differences {numeric!r}"
        return verdict("gradient-mismatch", message, expected=repr(numeric),
                       actual=repr(ad)), outcome  # fmt: skip
    return None, outcome


class _Fail(Exception):
    def __init__(self, verdict: Verdict) -> None:
        self.verdict = verdict


def _finite_differences(
    src: IRModule,
    xs: list[np.ndarray],
    grads: list[np.ndarray],
    rng: np.random.Generator,
    outcome: Outcome,
    ad_at: Callable[[float, list[np.ndarray]], float | None],
) -> tuple[str, float, float] | None:
    """The first direction where AD and finite differences disagree, or ``None``; ``ad_at``
    gives AD's directional derivative near ``x``, to tell a tie at ``x`` from a wrong rule."""
    directions: list[tuple[str, list[np.ndarray]]] = []
    for k in range(DIRECTIONS):
        directions.append((f"direction {k}", [rng.normal(size=x.shape) for x in xs]))
    for i, x in enumerate(xs):
        picks = rng.permutation(x.size)[:ELEMENTS]
        for flat in picks:
            d = [np.zeros_like(y) for y in xs]
            index = np.unravel_index(int(flat), x.shape)
            d[i][index] = 1.0
            directions.append((f"d/d%{i}{list(map(int, index))}", d))

    def at(t: float, d: list[np.ndarray]) -> tuple[float, float]:
        return _scalar(src, [TensorValue(x + t * dx) for x, dx in zip(xs, d, strict=True)])

    f0, size0 = at(0.0, directions[0][1])
    for what, d in directions:
        terms = [g * dx for g, dx in zip(grads, d, strict=True)]
        ad = float(sum(np.sum(t) for t in terms))
        scale = float(sum(np.sum(np.abs(t)) for t in terms))
        h = STEP
        points = [at(t * h, d) for t in (1, -1, 2, -2)]
        fp, fm, fp2, fm2 = (f for f, _ in points)
        size = max(size0, *(s for _, s in points))
        if not all(math.isfinite(v) for v in (fp, fm, fp2, fm2, size)):
            outcome.skipped += 1
            continue
        noise = NOISE * float(np.finfo(np.float64).eps) * size / h
        central = (fp - fm) / (2 * h)
        five_point = (8 * (fp - fm) - (fp2 - fm2)) / (12 * h)
        right = (-3 * f0 + 4 * fp - fp2) / (2 * h)
        left = (3 * f0 - 4 * fm + fm2) / (2 * h)

        def close(u: float, w: float, scale: float = scale, noise: float = noise) -> bool:
            return abs(u - w) <= ATOL + RTOL * max(abs(u), abs(w), scale) + noise

        if not close(right, left):  # a kink or a jump within 2h: not differentiable here
            outcome.skipped += 1
            continue
        outcome.compared += 1
        # Where a higher derivative jumps at x (an if flipping between two branches of equal
        # slope), the central differences are off by O(h) but the one-sided ones are not.
        if any(close(ad, fd) for fd in (five_point, central, (right + left) / 2)):
            continue
        # A tie at x itself (where(a > b, ..) with a == b): the program takes at x a piece
        # that holds at x only, F can be smooth along d, and AD differentiates that piece:
        # AD is discontinuous at x. Where it is continuous (every rule, right or wrong, off
        # a tie), the mean of its values at x + h d and x - h d is its value at x + O(h^2).
        near = [ad_at(t * h, d) for t in (1, -1)]
        if None not in near and not close(sum(n for n in near if n is not None) / 2, ad):
            outcome.skipped += 1
            outcome.compared -= 1
            continue
        return what, ad, five_point
    return None


# ---------------------------------------------------------------------------------------------
# The campaign


@dataclass
class GradientResult:
    """How a gradient campaign went: examples, directions compared and skipped, the failure."""

    label: str
    examples: int = 0
    compared: int = 0
    skipped: int = 0
    inconclusive: int = 0
    seconds: float = 0.0
    verdict: Verdict | None = None
    path: str | None = None
    found_after: int = 0
    found_at: float = 0.0


class _Stop(BaseException):
    pass


def run_gradient_campaign(
    p: Pass,
    *,
    label: str,
    spec: str,
    time_budget: float,
    seed: int,
    out_dir: Path | None,
    max_examples: int | None = None,
    progress: Callable[[str], None] | None = None,
    max_steps: int = 5,
) -> GradientResult:
    """Draw differentiable programs (``gen_differentiable``), hold ``p`` to the AD oracle on
    each, and stop at the first failure, shrunk by Hypothesis within the same time budget;
    the failure is written as a report to ``out_dir`` (``reports.write_report``)."""
    from .fuzz import Case
    from .gen_differentiable import CONSTRUCTS, DATAFLOW, DiffCase, differentiable_programs
    from .reports import REPORT_PATH, failure_key, report_text, write_report

    start = time.monotonic()
    deadline = start + time_budget
    result = GradientResult(label)
    best: list[tuple[DiffCase, Verdict]] = []
    last_note = [start]

    def body(case: DiffCase) -> None:
        now = time.monotonic()
        if now > deadline or (max_examples is not None and result.examples >= max_examples):
            raise _Stop()
        result.examples += 1
        if progress is not None and now - last_note[0] > 2.0:
            last_note[0] = now
            progress(f"[{label}] {result.examples} examples, {result.compared} directions "
                     f"compared, {result.skipped} skipped, {len(best)} failures")  # fmt: skip
        verdict, outcome = check_gradient(p, case.mod, case.args, seed=result.examples)
        result.compared += outcome.compared
        result.skipped += outcome.skipped
        result.inconclusive += bool(outcome.inconclusive)
        if verdict is not None:
            if not best:
                result.found_after = result.examples
                result.found_at = time.monotonic() - start
            if not best or len(case.text) <= len(best[0][0].text):
                best[:] = [(case, verdict)]
            raise AssertionError(verdict.report())

    constructs = DATAFLOW if getattr(p, "mode", "") == "first_order" else CONSTRUCTS
    programs = differentiable_programs(max_steps=max_steps, constructs=constructs)
    test = settings(
        max_examples=10**9 if max_examples is None else max_examples,
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
        phases=[Phase.generate, Phase.shrink],
        print_blob=False,
        report_multiple_bugs=False,
    )(hypothesis_seed(seed)(given(programs)(body)))
    with contextlib.suppress(_Stop, AssertionError), stop_at(deadline, _Stop):
        test()  # stopped at the deadline even where Hypothesis's shrinker runs no test
    result.seconds = time.monotonic() - start
    if best:
        case, verdict = best[0]
        result.verdict = verdict
        if out_dir is not None:
            fuzz_case = Case(case.mod, case.args)
            text = report_text(verdict, fuzz_case, spec, REPORT_PATH, examples=result.found_after)
            text = text.replace(f"relay fuzz --pass {spec} --replay",
                                f"relay fuzz --check gradient --pass {spec} --replay")  # fmt: skip
            result.path = str(write_report(out_dir, label, text, failure_key(fuzz_case, verdict)))
    return result
