"""Lowerings of ``dyn`` (``compiler/lower/ops/dyn.py``) against the references: the ``?``
dimensions of each result are size parameters bound from the output shapes (what the host
computes with the op's shape function), on hand-picked calls and sampled ones, through the loop
IR's interpreter and the CPU target."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lowernn_helpers import Array, assert_close, flatten, random_args, static

import relay.compiler.lower.ops  # noqa: F401  (registers the lowerings)
from relay.compiler.lower import ir, te
from relay.compiler.lower.evaluate import run_kernel
from relay.compiler.lower.lower import lower_tensors
from relay.oracles.samplers import SAMPLERS, Sample
from relay.semantics.errors import RelayRuntimeError, UndefinedBehavior
from relay.semantics.ops import OPS
from relay.semantics.ops.create import InitOpAttrs
from relay.semantics.ops.index import OneHotAttrs, StridedSliceAttrs
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.ops.shape import ReshapeAttrs, TileAttrs
from relay.semantics.ops.sort import TopKAttrs
from relay.semantics.syntax import AnyDim, TensorType, Type


class DynContext(te.LowerContext):
    """Integer dimensions as constants, each ``?`` a fresh size parameter."""

    def __init__(self) -> None:
        self.names = itertools.count()

    def dim(self, d: object) -> ir.PrimExpr:
        if isinstance(d, AnyDim):
            return ir.Ref(ir.SizeVar(f"any{next(self.names)}"))
        assert isinstance(d, int)
        return ir.index(d)

    def shape(self, t: Type) -> tuple[ir.PrimExpr, ...]:
        assert isinstance(t, TensorType)
        return tuple(self.dim(d) for d in t.shape)

    def fresh(self, hint: str) -> str:
        return f"{hint}{next(self.names)}"


def check_dyn(op: str, types: list[TensorType], attrs: Attrs | None, args: list[Array]) -> bool:
    """Lower ``op`` on ``types``, bind the result's ``?`` sizes from the reference's result,
    run, compare (False where the reference is undefined or fails)."""
    record = OPS[op]
    assert record.relation is not None and record.reference is not None
    try:
        expected = record.reference(tuple(args), attrs)
    except (UndefinedBehavior, RelayRuntimeError):
        return False
    want = [np.asarray(e) for e in (expected if isinstance(expected, tuple) else (expected,))]
    out_type = record.relation(tuple(types), attrs)
    ctx = DynContext()
    inputs = [
        te.Placeholder(ir.Buffer(f"in{k}", ctx.shape(t), t.dtype)) for k, t in enumerate(types)
    ]
    result = te.LOWERINGS[op].fn(ctx, tuple(inputs), attrs, tuple(types), out_type)
    kernel = lower_tensors(op, inputs, flatten(result))
    sizes: dict[ir.SizeVar, int] = {}
    for buffer, w in zip(kernel.outputs, want, strict=True):
        for d, n in zip(buffer.shape, w.shape, strict=True):
            if isinstance(d, ir.Ref) and isinstance(d.var, ir.SizeVar):
                sizes[d.var] = n
    got = run_kernel(kernel, list(args), sizes)
    for g, w in zip(got, want, strict=True):
        assert_close(g, w)
    return True


def T(*shape: int, dtype: str = "float32") -> TensorType:
    return TensorType(shape, dtype)


def vec(*values: int) -> Array:
    """An int64 shape tensor."""
    return np.array(values, dtype="int64")


def test_dyn_reshape() -> None:
    data = np.arange(24, dtype="float32").reshape(2, 3, 4)
    for shape in [(4, 6), (24,), (2, 2, 2, 3), (6, -1), (0, 12)]:
        args = [data, vec(*shape)]
        types = [T(2, 3, 4), T(len(shape), dtype="int64")]
        assert check_dyn("dyn.reshape", types, ReshapeAttrs(newshape=()), args)


def test_dyn_reshape_and_tile_of_empty_data() -> None:
    data = np.zeros((1, 0), "bool")
    types = [T(1, 0, dtype="bool"), T(2, dtype="int64")]
    assert check_dyn("dyn.reshape", types, ReshapeAttrs(newshape=()), [data, vec(5, 0)])
    assert check_dyn("dyn.tile", types, TileAttrs(reps=()), [data, vec(2, 3)])
    # Through the driver (its inlining guard probes the element functions; a rank-0 result
    # makes the flat index a constant).
    import relay
    from relay.compiler.lower.lower import lower_primitive

    calls = ("dyn.reshape(%x, %s, newshape=[])", "dyn.tile(%x, %s, reps=[])")
    for call, length in itertools.product(calls, (0, 2)):
        mod = relay.parse(
            '#[version = "0.0.5"]\n'
            f"def @main(%x: Tensor[(1, 0), bool], %s: Tensor[({length}), int64]) {{\n"
            f"  {call}\n"
            "}\n"
        )
        lower_primitive(mod["main"], "empty")


def test_dyn_broadcast_zeros_ones_full() -> None:
    data = np.arange(3, dtype="int32").reshape(3, 1)
    types = [T(3, 1, dtype="int32"), T(3, dtype="int64")]
    assert check_dyn("dyn.broadcast_to", types, InitOpAttrs(shape=()), [data, vec(2, 3, 5)])
    for op in ("dyn.zeros", "dyn.ones"):
        attrs = InitOpAttrs(shape=(), dtype="int8")
        assert check_dyn(op, [T(2, dtype="int64")], attrs, [vec(3, 4)])
    full = [np.asarray(2.75, "float32"), vec(2, 0, 3)]
    attrs = InitOpAttrs(shape=(), dtype="int16")
    assert check_dyn("dyn.full", [T(), T(3, dtype="int64")], attrs, full)


def test_dyn_tile() -> None:
    data = np.arange(6, dtype="float32").reshape(2, 3)
    for reps in [(2, 3), (3,), (2, 1, 2), (0, 1)]:
        types = [T(2, 3), T(len(reps), dtype="int64")]
        assert check_dyn("dyn.tile", types, TileAttrs(reps=()), [data, vec(*reps)])


@pytest.mark.parametrize("ret_type", ["both", "values", "indices"])
def test_dyn_topk(ret_type: str) -> None:
    data = np.array([[3, 1, 3, 0, 1, 3, -2], [0, 4, 0, 4, 0, 1, 1]], dtype="int32")
    for k in (1, 4, 0):
        attrs = TopKAttrs(k=None, axis=1, ret_type=ret_type, is_ascend=k == 4, dtype="int32")
        types = [T(2, 7, dtype="int32"), T(1, dtype="int64")]
        assert check_dyn("dyn.topk", types, attrs, [data, vec(k)])


def test_dyn_one_hot() -> None:
    indices = np.array([[0, 2], [3, -1]], dtype="int32")
    for axis, depth in [(-1, 4), (0, 3), (1, 0)]:
        attrs = OneHotAttrs(depth=1, axis=axis, dtype="float32")
        types = [T(2, 2, dtype="int32"), T(), T(), T(dtype="int64")]
        args = [indices, np.asarray(5.0, "float32"), np.asarray(-1.0, "float32")]
        assert check_dyn("dyn.one_hot", types, attrs, [*args, np.asarray(depth, "int64")])


@pytest.mark.parametrize("mode", ["end", "size"])
def test_dyn_strided_slice(mode: str) -> None:
    data = np.arange(60, dtype="float32").reshape(3, 4, 5)
    cases = [
        ((0, 1, 4), (3, 3, 0), (1, 1, -2)),
        ((-2, 0), (3, -1), (1, 2)),
        ((2, 3, 1), (0, 0, 5), (-1, -1, 1)),
        ((5, -9), (-5, 9), (-2, 3)),
        ((1,), (2,), (1,)),
        ((7, 9), (0, -7), (-1, -2)),  # a begin past the end clamped for negative strides
    ]
    checked = 0
    for begin, end, strides in cases:
        types = [T(3, 4, 5)] + [T(len(v), dtype="int64") for v in (begin, end, strides)]
        attrs = StridedSliceAttrs(begin=None, end=None, strides=None, axes=None, slice_mode=mode)
        args = [data, vec(*begin), vec(*end), vec(*strides)]
        checked += check_dyn("dyn.strided_slice", types, attrs, args)
    assert checked >= 3


def test_dyn_compiled() -> None:
    from relay.targets.cpu.codegen import compile_kernel

    data = np.arange(24, dtype="float32").reshape(2, 3, 4)
    attrs = StridedSliceAttrs(begin=None, end=None, strides=None, axes=None, slice_mode="end")
    types = [T(2, 3, 4), T(3, dtype="int64"), T(3, dtype="int64"), T(3, dtype="int64")]
    args = [data, vec(1, -1, 0), vec(2, 0, 4), vec(1, -1, 2)]
    relation = OPS["dyn.strided_slice"].relation
    assert relation is not None
    out_type = relation(tuple(types), attrs)
    ctx = DynContext()
    inputs = [
        te.Placeholder(ir.Buffer(f"in{k}", ctx.shape(t), t.dtype)) for k, t in enumerate(types)
    ]
    result = te.LOWERINGS["dyn.strided_slice"].fn(ctx, tuple(inputs), attrs, tuple(types), out_type)
    kernel = lower_tensors("dyn_slice", inputs, flatten(result))
    reference = OPS["dyn.strided_slice"].reference
    assert reference is not None
    expected = np.asarray(reference(tuple(args), attrs))
    out = np.empty(expected.shape, "float32")
    sizes = {
        d.var: n
        for d, n in zip(kernel.outputs[0].shape, expected.shape, strict=True)
        if isinstance(d, ir.Ref) and isinstance(d.var, ir.SizeVar)
    }
    compile_kernel(kernel)(args, [out], sizes)
    assert_close(out, expected)


_DYN = [name for name, op in OPS.items() if op.family == "dyn"]


@pytest.mark.parametrize("op", _DYN)
def test_sampled(op: str) -> None:
    """Sampled calls (random shape tensors: many are undefined and skipped)."""

    @settings(
        max_examples=15, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
    )
    @given(sample=SAMPLERS[op](), seed=st.integers(0, 2**16))
    def run(sample: Sample, seed: int) -> None:
        if not all(static(t) for t in sample.arg_types):
            return
        record = OPS[op]
        assert record.relation is not None
        try:
            record.relation(sample.arg_types, sample.attrs)
        except RelationError:
            return
        args = random_args(np.random.default_rng(seed), sample.arg_types)
        types = [t for t in sample.arg_types if isinstance(t, TensorType)]
        check_dyn(op, types, sample.attrs, [a for a in args if isinstance(a, np.ndarray)])

    run()


def test_every_dyn_operator_is_lowered() -> None:
    assert _DYN
    assert all(name in te.LOWERINGS for name in _DYN)


def test_dyn_reshape_through_lower_primitive() -> None:
    """``exp(dyn.reshape(x, s))`` through the driver: the result's ``?`` dimensions are the
    kernel's size parameters, bound from the output shape (``size_bindings``), at 2 threads."""
    import relay
    from relay.compiler.lower.check import check_kernel
    from relay.compiler.lower.lower import lower_primitive, size_bindings
    from relay.targets.cpu.codegen import compile_kernel

    mod = relay.parse(
        '#[version = "0.0.5"]\n'
        "def @main(%x: Tensor[(2, 6), float32], %s: Tensor[(3), int64]) {\n"
        "  exp(dyn.reshape(%x, %s, newshape=[]))\n"
        "}\n"
    )
    kernel = lower_primitive(mod["main"], "dyn")
    check_kernel(kernel)
    assert len(kernel.sizes) == 3
    x = np.random.default_rng(0).standard_normal((2, 6)).astype("float32")
    s = vec(3, 2, 2)
    sizes = size_bindings(kernel, [x.shape, s.shape], [(3, 2, 2)])
    expected = np.exp(x.reshape(3, 2, 2))
    np.testing.assert_allclose(run_kernel(kernel, [x, s], sizes)[0], expected, rtol=1e-6)
    out = np.empty((3, 2, 2), "float32")
    compile_kernel(kernel, threads=2)([x, s], [out], sizes)
    np.testing.assert_allclose(out, expected, rtol=1e-6)
