"""What the lowering tests of ``compiler/lower/ops`` (nn, linalg, sort, image, dyn, qnn) share:
a lowering context for static shapes, one op call lowered to a kernel, and the check of a kernel
against the op's reference semantics (``OPS[op].reference``) through the loop IR's reference
interpreter (``compiler.lower.evaluate.run_kernel``) on random arguments."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import relay.compiler.lower.ops  # noqa: F401  (registers the lowerings)
from relay.compiler.lower import ir, te
from relay.compiler.lower.evaluate import run_kernel
from relay.compiler.lower.lower import lower_tensors, schedule_outputs
from relay.oracles.samplers import SAMPLERS, Sample
from relay.semantics.errors import RelayRuntimeError, UndefinedBehavior
from relay.semantics.ops import OPS
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.syntax import TensorType, TupleType, Type

Array = npt.NDArray[Any]


class StaticContext(te.LowerContext):
    """A lowering context for calls whose shapes are all integers."""

    def __init__(self) -> None:
        self.names = itertools.count()

    def dim(self, d: object) -> ir.PrimExpr:
        assert isinstance(d, int), f"static dimension expected, found {d}"
        return ir.index(d)

    def shape(self, t: Type) -> tuple[ir.PrimExpr, ...]:
        assert isinstance(t, TensorType)
        return tuple(self.dim(d) for d in t.shape)

    def fresh(self, hint: str) -> str:
        return f"{hint}{next(self.names)}"


def static(t: Type) -> bool:
    """Whether ``t`` is a tensor type (or tuple of them) with integer dimensions only."""
    if isinstance(t, TupleType):
        return all(static(f) for f in t.fields)
    return isinstance(t, TensorType) and all(isinstance(d, int) for d in t.shape)


def flatten(result: te.TensorResult) -> list[te.Tensor]:
    """The tensors of a (nested) result, in order."""
    if isinstance(result, te.Tensor):
        return [result]
    return [t for r in result for t in flatten(r)]


def lower_call(
    op: str,
    arg_types: Sequence[Type],
    attrs: Attrs | None,
    epilogue: te.Epilogue | None = None,
) -> ir.Kernel:
    """The kernel of one call of ``op`` on arguments of ``arg_types`` (static tensor types, or
    tuples of them: one kernel input per field),
    with the default schedule (``epilogue``: applied to a Materialized result's store)."""
    record = OPS[op]
    assert record.relation is not None
    out_type = record.relation(tuple(arg_types), attrs)
    ctx = StaticContext()
    inputs: list[te.Placeholder] = []

    def placeholder(t: Type) -> te.TensorResult:
        if isinstance(t, TupleType):
            return tuple(placeholder(f) for f in t.fields)
        assert isinstance(t, TensorType)
        p = te.Placeholder(ir.Buffer(f"in{len(inputs)}", ctx.shape(t), t.dtype))
        inputs.append(p)
        return p

    args = tuple(placeholder(t) for t in arg_types)
    result = te.LOWERINGS[op].fn(ctx, args, attrs, tuple(arg_types), out_type)
    outputs = flatten(result)
    if epilogue is None:
        return lower_tensors(op, inputs, outputs)
    (t,) = outputs
    assert isinstance(t, te.Materialized)
    out = ir.Buffer("out", t.shape, t.dtype)
    body = schedule_outputs([(out, t, epilogue)])
    return ir.Kernel(op, tuple(p.buffer for p in inputs), (out,), (), body)


Arg: TypeAlias = Array | tuple["Arg", ...]
"""An argument value: an array, or a tuple of them for a tuple type."""


def random_args(rng: np.random.Generator, arg_types: Sequence[Type]) -> list[Arg]:
    """Random arrays of ``arg_types``: normal floats, small integers (a tuple type: a tuple
    of them)."""
    out: list[Arg] = []
    for t in arg_types:
        if isinstance(t, TupleType):
            out.append(tuple(random_args(rng, t.fields)))
            continue
        assert isinstance(t, TensorType)
        shape = tuple(int(d) for d in t.shape)  # type: ignore[call-overload]
        if t.dtype == "bool":
            out.append(rng.integers(0, 2, shape).astype(bool))
        elif t.dtype.startswith("uint"):
            out.append(rng.integers(0, 4, shape).astype(t.dtype))
        elif t.dtype.startswith("int"):
            out.append(rng.integers(-3, 4, shape).astype(t.dtype))
        else:
            out.append(rng.standard_normal(shape).astype(t.dtype))
    return out


def tolerance(dtype: str) -> tuple[float, float]:
    """(rtol, atol) for results of ``dtype`` (float sums may be reassociated)."""
    return {"float16": (2e-3, 2e-3), "float32": (2e-5, 2e-5), "float64": (1e-12, 1e-12)}.get(
        dtype, (0.0, 0.0)
    )


def assert_close(got: Array, expected: Array) -> None:
    """``got`` equals ``expected`` (floats: within ``tolerance``, NaN where it is NaN)."""
    assert got.dtype == expected.dtype and got.shape == expected.shape, (got, expected)
    rtol, atol = tolerance(str(expected.dtype))
    if expected.dtype.kind == "f":
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)


def check_call(
    op: str,
    arg_types: Sequence[Type],
    attrs: Attrs | None,
    args: Sequence[Array] | None = None,
    *,
    seed: int = 0,
    epilogue: tuple[te.Epilogue, Callable[[Array], Array]] | None = None,
) -> bool:
    """Lower one call of ``op``, run it on ``args`` (default: random), compare with the
    reference. ``epilogue``: the fused epilogue and its numpy meaning. Returns False (and checks
    nothing) where the reference says the call is undefined or fails at run time."""
    record = OPS[op]
    assert record.reference is not None
    values = list(args) if args is not None else random_args(np.random.default_rng(seed), arg_types)
    try:
        expected = record.reference(tuple(values), attrs)
    except (UndefinedBehavior, RelayRuntimeError):
        # Undefined, or a run-time error of the reference (qnn's output scale of 0, qnn.mul's
        # unsupported axes): nothing to compare.
        return False
    except ValueError:
        # nn.lrn's reference cannot window a zero-size channel axis (sliding_window_view):
        # reported; such calls are skipped, never others.
        if any(v.size == 0 for v in values):
            return False
        raise
    kernel = lower_call(op, arg_types, attrs, epilogue[0] if epilogue else None)
    flat = [a for v in values for a in (v if isinstance(v, tuple) else (v,))]
    got = run_kernel(kernel, flat)
    want: list[Array] = list(expected) if isinstance(expected, tuple) else [expected]  # type: ignore[arg-type]
    if epilogue is not None:
        want = [epilogue[1](want[0])]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert_close(g, np.asarray(w))
    return True


def sampled_cases(
    op: str, examples: int = 12
) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """A Hypothesis test over calls of ``op`` drawn from its sampler (``oracles.samplers``):
    each well-typed call with static shapes is lowered and checked with ``check_call``."""

    def wrap(test: Callable[..., None]) -> Callable[..., None]:
        @settings(
            max_examples=examples,
            deadline=None,
            derandomize=True,
            suppress_health_check=list(HealthCheck),
        )
        @given(sample=SAMPLERS[op](), seed=st.integers(0, 2**16))
        def run(sample: Sample, seed: int) -> None:
            record = OPS[op]
            assert record.relation is not None
            if not all(static(t) for t in sample.arg_types):
                return
            try:
                record.relation(sample.arg_types, sample.attrs)
            except RelationError:
                return
            check_call(op, sample.arg_types, sample.attrs, seed=seed)

        run.__name__ = test.__name__
        run.__doc__ = test.__doc__
        return run

    return wrap
