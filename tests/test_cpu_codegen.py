"""The CPU code generator on hand-built loop-IR kernels, against numpy (computed independently,
element by element where numpy's own semantics differ from the IR's) and, where it is
available, against the loop IR's reference interpreter (``compiler.lower.evaluate``).

Scalar semantics: every ``BinOp``/``UnOp`` over every dtype it applies to, integer wrap-around
and truncating division, float16 computed through float32 with one rounding per operation, NaN
through comparisons and ``min``/``max``, every cast pair, every intrinsic (within the tolerance
policy). Statements: loops of every kind, stores, local buffers on the stack and on the heap,
``let``, ``if``, strided buffers, reductions, ``cblas_sgemm``.
"""

from __future__ import annotations

import math
import os
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from relay.compiler.lower import ir
from relay.compiler.lower.evaluate import run_kernel
from relay.oracles.compare import compare_arrays
from relay.semantics.errors import UndefinedBehavior
from relay.targets.cpu import codegen, jit
from relay.targets.cpu.codegen import KernelCompileError, compile_kernel

Array = npt.NDArray[np.generic]
B = ir.BinOp
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]
DTYPES = ["bool", *INTS, *FLOATS]


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELAY_CACHE_DIR", str(tmp_path / "cache"))
    # These kernels are fixed and known to compile: skip the crash guard's fork (it doubles
    # this file's time); test_llvm_abort_falls_back_then_fails_cleanly tests the guard.
    monkeypatch.setenv("RELAY_CPU_COMPILE_IN_PROCESS", "1")


def np_dtype(dtype: str) -> np.dtype[np.generic]:
    return np.dtype(np.bool_) if dtype == "bool" else np.dtype(dtype)


def elementwise(
    name: str,
    in_dtypes: Sequence[str],
    out_dtype: str,
    fn: Callable[..., ir.PrimExpr],
    n: int,
    kind: ir.LoopKind = ir.LoopKind.SERIAL,
) -> ir.Kernel:
    """``out[i] = fn(in0[i], in1[i], ...)`` over ``n`` elements, or over a size parameter
    ``n`` when ``n`` is 0."""
    size = ir.SizeVar("n")
    extent: ir.PrimExpr = ir.index(n) if n else ir.Ref(size)
    shape = (extent,)
    inputs = tuple(ir.Buffer(f"in{k}", shape, d) for k, d in enumerate(in_dtypes))
    out = ir.Buffer("out", shape, out_dtype)
    i = ir.LoopVar("i")
    loads = [ir.Load(b, (ir.Ref(i),)) for b in inputs]
    body = ir.For(i, extent, kind, ir.Store(out, (ir.Ref(i),), fn(*loads)))
    return ir.Kernel(name, inputs, (out,), () if n else (size,), body)


def run(
    kernel: ir.Kernel,
    inputs: Sequence[Array],
    *,
    threads: int = 1,
    sizes: dict[str, int] | None = None,
    reduction_length: int = 1,
    reference: bool = True,
) -> list[Array]:
    """Compile and run ``kernel`` (sizes read off the first input's length unless given), and
    check it against the reference interpreter when that exists."""
    compiled = compile_kernel(kernel, threads=threads)
    bound = {s: (sizes or {}).get(s.name, len(inputs[0]) if inputs else 0) for s in kernel.sizes}
    outputs = [
        np.zeros(tuple(_shape(e, bound) for e in b.shape), np_dtype(b.dtype))
        for b in kernel.outputs
    ]
    compiled(list(inputs), outputs, bound)
    if reference:
        _check_reference(kernel, inputs, outputs, bound, reduction_length)
    return outputs


def _shape(e: ir.PrimExpr, sizes: dict[ir.SizeVar, int]) -> int:
    match e:
        case ir.Const(value):
            return int(value)
        case ir.Ref(ir.SizeVar() as v):
            return sizes[v]
    raise AssertionError(e)


def same(actual: Array, expected: Array) -> None:
    """Bit-for-bit equal, NaN matching NaN (any payload)."""
    assert actual.dtype == expected.dtype
    if actual.dtype.kind == "f":
        nan_a, nan_e = np.isnan(actual), np.isnan(expected)
        assert (nan_a == nan_e).all(), (actual[nan_a != nan_e], expected[nan_a != nan_e])
        ok = nan_a | (actual == expected)
        assert ok.all(), (actual[~ok], expected[~ok])
        return
    assert (actual == expected).all(), (actual[actual != expected], expected[actual != expected])


def ints(dtype: str, count: int = 200, seed: int = 0) -> Array:
    """Values spread over the whole range of ``dtype``, extremes included."""
    info = np.iinfo(np_dtype(dtype))
    rng = np.random.default_rng(seed)
    edges = np.array([info.min, info.max, 0, 1, info.max - 1, info.min + 1], dtype=np_dtype(dtype))
    small = rng.integers(-100 if info.min < 0 else 0, 100, count // 2).astype(np_dtype(dtype))
    wide = rng.integers(info.min, info.max, count - count // 2 - len(edges), dtype=np_dtype(dtype))
    return np.concatenate([edges, small, wide])


def floats(dtype: str, count: int = 200, seed: int = 0) -> Array:
    rng = np.random.default_rng(seed)
    special = np.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, np.inf, -np.inf, np.nan, 3.0, 1e-3])
    body = rng.standard_normal(count - len(special)) * rng.choice([1, 10, 1000], count - 11)
    return np.concatenate([special, body]).astype(dtype)


# ---------------------------------------------------------------------------------------------
# Integer arithmetic


def _binary_kernel(op: ir.BinOp, dtype: str) -> ir.Kernel:
    out = "bool" if op in ir.COMPARISONS else dtype
    return elementwise(
        f"bin_{op.name}_{dtype}", [dtype, dtype], out, lambda a, b: ir.Binary(op, a, b), 0
    )


def _exact(x: Array) -> list[int]:
    return [int(v) for v in x]


def _wrap(values: list[int], dtype: str) -> Array:
    bits = np.iinfo(np_dtype(dtype)).bits
    signed = dtype.startswith("int")
    out = []
    for v in values:
        v &= (1 << bits) - 1
        if signed and v >= 1 << (bits - 1):
            v -= 1 << bits
        out.append(v)
    return np.array(out, dtype=np_dtype(dtype))


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("op", [B.ADD, B.SUB, B.MUL])
def test_integer_arithmetic_wraps(op: ir.BinOp, dtype: str) -> None:
    a, b = ints(dtype, seed=1), ints(dtype, seed=2)
    python = {B.ADD: lambda x, y: x + y, B.SUB: lambda x, y: x - y, B.MUL: lambda x, y: x * y}
    expected = _wrap([python[op](x, y) for x, y in zip(_exact(a), _exact(b), strict=True)], dtype)
    (out,) = run(_binary_kernel(op, dtype), [a, b])
    same(out, expected)


def _trunc_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("op", [B.DIV, B.MOD, B.FLOORDIV, B.FLOORMOD])
def test_integer_division(op: ir.BinOp, dtype: str) -> None:
    a, b = ints(dtype, seed=3), ints(dtype, seed=4)
    b[b == 0] = 7
    if dtype.startswith("int"):
        b[(a == np.iinfo(np_dtype(dtype)).min) & (b == -1)] = 3  # undefined: excluded
    a[:4] = np.array([7, -7, 7, -7]).astype(np_dtype(dtype)) if dtype.startswith("int") else 7
    b[:4] = np.array([2, 2, -2, -2]).astype(np_dtype(dtype)) if dtype.startswith("int") else 2
    python = {
        B.DIV: _trunc_div,
        B.MOD: lambda x, y: x - y * _trunc_div(x, y),
        B.FLOORDIV: lambda x, y: x // y,
        B.FLOORMOD: lambda x, y: x % y,
    }
    expected = _wrap([python[op](x, y) for x, y in zip(_exact(a), _exact(b), strict=True)], dtype)
    (out,) = run(_binary_kernel(op, dtype), [a, b])
    same(out, expected)
    if dtype == "int8":
        # C's truncation, not Python's floor: -7 / 2 = -3, -7 % 2 = -1, 7 % -2 = 1
        assert (
            list(out[:4])
            == {
                B.DIV: [3, -3, -3, 3],
                B.MOD: [1, -1, 1, -1],
                B.FLOORDIV: [3, -4, -4, 3],
                B.FLOORMOD: [1, 1, -1, -1],
            }[op]
        )


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64", "uint32"])
@pytest.mark.parametrize("op", [B.DIV, B.MOD, B.FLOORDIV, B.FLOORMOD])
def test_undefined_division_does_not_trap(op: ir.BinOp, dtype: str) -> None:
    """Division by zero and the smallest value by -1 are undefined: any value will do, but the
    process must survive (the hardware's divide instruction would raise SIGFPE)."""
    info = np.iinfo(np_dtype(dtype))
    a = np.array([5, info.min, 7], dtype=np_dtype(dtype))
    b = np.array([0, -1 if info.min < 0 else 0, 2], dtype=np_dtype(dtype))
    (out,) = run(_binary_kernel(op, dtype), [a, b], reference=False)
    python = {B.DIV: 3, B.MOD: 1, B.FLOORDIV: 3, B.FLOORMOD: 1}
    assert out[2] == python[op]  # the defined element is still right


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("op", [B.SHL, B.SHR, B.AND, B.OR, B.XOR, B.MIN, B.MAX])
def test_integer_bitwise_shift_minmax(op: ir.BinOp, dtype: str) -> None:
    a = ints(dtype, seed=5)
    bits = np.iinfo(np_dtype(dtype)).bits
    if op in (B.SHL, B.SHR):
        b = (np.arange(len(a)) % bits).astype(np_dtype(dtype))
    else:
        b = ints(dtype, seed=6)
    numpy_op = {
        B.SHL: np.left_shift,
        B.SHR: np.right_shift,  # arithmetic for signed, logical for unsigned: as the IR
        B.AND: np.bitwise_and,
        B.OR: np.bitwise_or,
        B.XOR: np.bitwise_xor,
        B.MIN: np.minimum,
        B.MAX: np.maximum,
    }[op]
    (out,) = run(_binary_kernel(op, dtype), [a, b])
    same(out, numpy_op(a, b).astype(np_dtype(dtype)))


@pytest.mark.parametrize("dtype", ["bool", *INTS])
@pytest.mark.parametrize("op", sorted(ir.COMPARISONS, key=lambda o: o.name))
def test_integer_comparisons(op: ir.BinOp, dtype: str) -> None:
    if dtype == "bool":
        a = np.array([0, 0, 1, 1] * 5, dtype=bool)
        b = np.array([0, 1, 0, 1] * 5, dtype=bool)
    else:
        a, b = ints(dtype, seed=7), ints(dtype, seed=8)
        b[::3] = a[::3]
    numpy_op = {
        B.EQ: np.equal, B.NE: np.not_equal, B.LT: np.less,
        B.LE: np.less_equal, B.GT: np.greater, B.GE: np.greater_equal,
    }[op]  # fmt: skip
    (out,) = run(_binary_kernel(op, dtype), [a, b])
    same(out, numpy_op(a, b))


@pytest.mark.parametrize("op", [B.AND, B.OR, B.XOR])
def test_bool_logic(op: ir.BinOp) -> None:
    a = np.array([0, 0, 1, 1], dtype=bool)
    b = np.array([0, 1, 0, 1], dtype=bool)
    expected = {B.AND: [0, 0, 0, 1], B.OR: [0, 1, 1, 1], B.XOR: [0, 1, 1, 0]}[op]
    (out,) = run(_binary_kernel(op, "bool"), [a, b])
    same(out, np.array(expected, dtype=bool))


@pytest.mark.parametrize("dtype", ["bool", *INTS, *FLOATS])
def test_unary(dtype: str) -> None:
    x = (
        floats(dtype)
        if dtype in FLOATS
        else np.array([0, 1] * 3, bool)
        if dtype == "bool"
        else ints(dtype)
    )
    (neg,) = run(
        elementwise(f"neg_{dtype}", [dtype], dtype, lambda a: ir.Unary(ir.UnOp.NEG, a), 0), [x]
    )
    if dtype in FLOATS:
        same(neg, -x)
        assert (np.signbit(neg) != np.signbit(x)).all()  # a sign flip, -0.0 and NaN included
        return
    expected = x if dtype == "bool" else _wrap([-v for v in _exact(x)], dtype)
    same(neg, expected)
    (inv,) = run(
        elementwise(f"not_{dtype}", [dtype], dtype, lambda a: ir.Unary(ir.UnOp.NOT, a), 0), [x]
    )
    same(inv, np.logical_not(x) if dtype == "bool" else np.invert(x))


# ---------------------------------------------------------------------------------------------
# Floats


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize(
    "op", [B.ADD, B.SUB, B.MUL, B.DIV, B.MOD, B.FLOORDIV, B.FLOORMOD, B.MIN, B.MAX]
)
def test_float_arithmetic(op: ir.BinOp, dtype: str) -> None:
    """IEEE in the dtype; float16 through float32 with one rounding, which is what numpy does
    for each float16 operation; ``//``/``%%`` are numpy's; ``min``/``max`` propagate NaN."""
    a, b = floats(dtype, seed=9), floats(dtype, seed=10)
    a[:11], b[11:22] = b[11:22], a[:11]  # specials against specials and ordinary values
    numpy_op = {
        B.ADD: np.add, B.SUB: np.subtract, B.MUL: np.multiply, B.DIV: np.divide,
        B.MOD: np.fmod, B.FLOORDIV: np.floor_divide, B.FLOORMOD: np.remainder,
        B.MIN: np.minimum, B.MAX: np.maximum,
    }[op]  # fmt: skip
    with np.errstate(all="ignore"):
        expected = numpy_op(a, b)
    (out,) = run(_binary_kernel(op, dtype), [a, b])
    same(out, expected)


def test_float16_rounds_once_per_operation() -> None:
    """``(a + b) + c`` in float16 rounds after the first addition: 2048 + 1 is 2048 in float16
    (ties to even), so adding 1 twice leaves 2048, while float32 all the way would give 2050."""
    a = np.array([2048.0, 0.1, 1e4], np.float16)
    one = np.ones(3, np.float16)

    def twice(x: ir.PrimExpr, y: ir.PrimExpr) -> ir.PrimExpr:
        return ir.Binary(B.ADD, ir.Binary(B.ADD, x, y), y)

    (out,) = run(elementwise("f16_chain", ["float16", "float16"], "float16", twice, 0), [a, one])
    same(out, (a + one) + one)
    assert out[0] == 2048.0


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("op", sorted(ir.COMPARISONS, key=lambda o: o.name))
def test_float_comparisons_nan(op: ir.BinOp, dtype: str) -> None:
    """Ordered comparisons (false with NaN) except ``!=`` (true with NaN), as numpy's."""
    a, b = floats(dtype, seed=11), floats(dtype, seed=12)
    a[:11], b[11:22] = b[11:22], a[:11]
    b[30:40] = a[30:40]
    numpy_op = {
        B.EQ: np.equal, B.NE: np.not_equal, B.LT: np.less,
        B.LE: np.less_equal, B.GT: np.greater, B.GE: np.greater_equal,
    }[op]  # fmt: skip
    (out,) = run(_binary_kernel(op, dtype), [a, b])
    same(out, numpy_op(a, b))
    nan = np.array([np.nan], dtype)
    (one,) = run(_binary_kernel(op, dtype), [nan, nan])
    assert bool(one[0]) is (op is B.NE)


def test_min_max_propagate_nan_either_side() -> None:
    a = np.array([np.nan, 1.0, np.nan, -0.0], np.float32)
    b = np.array([1.0, np.nan, np.nan, 2.0], np.float32)
    (lo,) = run(_binary_kernel(B.MIN, "float32"), [a, b])
    (hi,) = run(_binary_kernel(B.MAX, "float32"), [a, b])
    assert np.isnan(lo[:3]).all() and np.isnan(hi[:3]).all()
    assert lo[3] == -0.0 and hi[3] == 2.0


# ---------------------------------------------------------------------------------------------
# Casts


def _cast_source(dtype: str) -> Array:
    if dtype == "bool":
        return np.array([0, 1, 1, 0], dtype=bool)
    if dtype in FLOATS:
        return floats(dtype, seed=13)
    return ints(dtype, seed=14)


def _cast_expected(x: Array, source: str, target: str) -> tuple[Array, Array]:
    """numpy's ``astype`` and the mask of the elements whose cast is defined."""
    defined = np.ones(len(x), dtype=bool)
    if target == "bool":
        if source in FLOATS:
            return (x < 0) | (x > 0), defined  # ordered: NaN is false (numpy says true)
        return x != 0, defined
    if source in FLOATS and target not in FLOATS:
        info = np.iinfo(np_dtype(target))
        with np.errstate(all="ignore"):
            t = np.trunc(x.astype(np.float64))
            defined = np.isfinite(t) & (t >= float(info.min)) & (t < float(info.max) + 1)
        with np.errstate(all="ignore"):
            return np.where(defined, t, 0).astype(np_dtype(target)), defined
    with np.errstate(all="ignore"):
        return x.astype(np_dtype(target)), defined


@pytest.mark.parametrize("source", DTYPES)
def test_casts(source: str) -> None:
    """Every pair of dtypes: numpy's conversion (integers wrap, floats round to nearest even),
    floats to integers truncating where defined, to bool ``!= 0`` with NaN false."""
    x = _cast_source(source)
    for target in DTYPES:
        kernel = elementwise(
            f"cast_{source}_{target}", [source], target, lambda a, t=target: ir.Cast(t, a), 0
        )
        expected, defined = _cast_expected(x, source, target)
        (out,) = run(kernel, [x])
        same(out[defined], expected[defined])


def test_cast_float_to_int_truncates() -> None:
    x = np.array([2.7, -2.7, 0.5, -0.5, 127.9], np.float32)
    (out,) = run(
        elementwise("trunc_cast", ["float32"], "int8", lambda a: ir.Cast("int8", a), 0), [x]
    )
    assert list(out) == [2, -2, 0, 0, 127]


# ---------------------------------------------------------------------------------------------
# Intrinsics


_INTRINSIC_RANGE = {
    "acosh": (1.0, 20.0), "asin": (-1.0, 1.0), "acos": (-1.0, 1.0), "atanh": (-0.99, 0.99),
    "log": (1e-3, 1e3), "log2": (1e-3, 1e3), "log10": (1e-3, 1e3), "sqrt": (0.0, 1e4),
    "rsqrt": (1e-3, 1e4), "exp": (-20.0, 10.0), "sinh": (-9.0, 9.0), "cosh": (-9.0, 9.0),
    "pow": (0.1, 4.0),
}  # fmt: skip
"""Arguments where every dtype (float16 included) has finite, representable results."""


def _intrinsic_domain(name: str, dtype: str) -> Array:
    rng = np.random.default_rng(15)
    lo, hi = _INTRINSIC_RANGE.get(name, (-10.0, 10.0))
    x = rng.uniform(lo, hi, 300)
    if name in ("floor", "ceil", "trunc", "round"):
        x = np.concatenate([x, [0.5, 1.5, 2.5, -0.5, -1.5, -2.5]])
    return x.astype(dtype)


_NUMPY_INTRINSICS: dict[str, Callable[..., Array]] = {
    "exp": np.exp, "log": np.log, "log2": np.log2, "log10": np.log10, "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x), "sin": np.sin, "cos": np.cos, "tan": np.tan,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
    "tanh": np.tanh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
    "erf": np.vectorize(math.erf), "fabs": np.abs, "floor": np.floor, "ceil": np.ceil,
    "trunc": np.trunc, "round": np.round, "isnan": np.isnan, "isinf": np.isinf,
    "isfinite": np.isfinite, "pow": np.power, "atan2": np.arctan2, "copysign": np.copysign,
}  # fmt: skip
_EXACT = {
    "sqrt",
    "fabs",
    "floor",
    "ceil",
    "trunc",
    "round",
    "copysign",
    "isnan",
    "isinf",
    "isfinite",
}


def test_every_intrinsic_has_a_numpy_counterpart() -> None:
    assert set(_NUMPY_INTRINSICS) == set(ir.INTRINSICS)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name", sorted(ir.INTRINSICS))
def test_intrinsics(name: str, dtype: str) -> None:
    """Within the tolerance policy of numpy's (float16: numpy's float32 function rounded);
    the correctly rounded ones exactly."""
    arity = ir.INTRINSICS[name]
    out_dtype = "bool" if name.startswith("is") else dtype
    args = [_intrinsic_domain(name, dtype)]
    if arity == 2:
        args.append(np.roll(args[0], 7) * (-1 if name != "pow" else 1))
    if name.startswith("is"):
        args = [floats(dtype, seed=16)]
    kernel = elementwise(
        f"call_{name}_{dtype}",
        [dtype] * arity,
        out_dtype,
        lambda *a: ir.Call(name, tuple(a), out_dtype),
        0,
    )
    (out,) = run(kernel, args)
    wide = [a.astype(np.float32) if dtype == "float16" else a for a in args]
    with np.errstate(all="ignore"):
        expected = np.asarray(_NUMPY_INTRINSICS[name](*wide))
    if name == "rsqrt" and dtype == "float16":  # 1 / sqrt(x): each step rounded to float16
        expected = 1 / np.sqrt(args[0])
    expected = expected.astype(np_dtype(out_dtype))
    if name in _EXACT:
        same(out, expected)
    else:
        assert compare_arrays(out, expected) is None, name


_WIDE_DOMAIN = {
    "exp": (-80.0, 80.0), "sinh": (-80.0, 80.0), "cosh": (-80.0, 80.0), "log": (1e-6, 1e6),
    "log2": (1e-6, 1e6), "log10": (1e-6, 1e6), "sin": (-100.0, 100.0), "cos": (-100.0, 100.0),
    "tan": (-100.0, 100.0), "acosh": (1.0, 50.0), "atanh": (-0.999, 0.999),
}  # fmt: skip


@pytest.mark.parametrize(
    "name", sorted(n for n in ir.INTRINSICS if n not in _EXACT and n not in ("rsqrt", "pow"))
)
def test_float32_intrinsic_error_in_ulps(name: str) -> None:
    """Measured against the exact result (float64, rounded): at most 4 ulps, half the
    tolerance policy's float32 budget (measured: 2.02 ulps at worst, ``tanh``)."""
    arity = ir.INTRINSICS[name]
    lo, hi = _WIDE_DOMAIN.get(name, _INTRINSIC_RANGE.get(name, (-10.0, 10.0)))
    rng = np.random.default_rng(21)
    args = [rng.uniform(lo, hi, 20_000).astype(np.float32) for _ in range(arity)]
    kernel = elementwise(
        f"ulps_{name}", ["float32"] * arity, "float32", lambda *a: ir.Call(name, a, "float32"), 0
    )
    (out,) = run(kernel, args, reference=False)  # 20,000 elements: numpy is the reference
    with np.errstate(all="ignore"):
        exact = np.asarray(_NUMPY_INTRINSICS[name](*(a.astype(np.float64) for a in args)))
    finite = np.isfinite(exact) & (np.abs(exact) < np.finfo(np.float32).max)
    spacing = np.spacing(np.abs(exact[finite]).astype(np.float32)).astype(np.float64)
    error = np.abs(out[finite].astype(np.float64) - exact[finite]) / spacing
    assert error.max() <= 4.0, (name, error.max())


# ---------------------------------------------------------------------------------------------
# Statements


def test_select_let_if_and_bool_memory() -> None:
    """``out[i] = x > 0 ? x : 0`` through a ``let``; ``flag[i] = x > 0`` stored as bool bytes;
    an ``if`` with and without ``else``."""
    n = ir.SizeVar("n")
    x = ir.Buffer("x", (ir.Ref(n),), "float32")
    out = ir.Buffer("out", (ir.Ref(n),), "float32")
    flag = ir.Buffer("flag", (ir.Ref(n),), "bool")
    count = ir.Buffer("count", (ir.Ref(n),), "int32")
    i = ir.LoopVar("i")
    t = ir.ScalarVar("t", "float32")
    xi = ir.Load(x, (ir.Ref(i),))
    positive = ir.Binary(B.GT, ir.Ref(t), ir.Const(0.0, "float32"))
    body = ir.LetStmt(
        t,
        xi,
        ir.Seq(
            (
                ir.Store(
                    out, (ir.Ref(i),), ir.Select(positive, ir.Ref(t), ir.Const(0.0, "float32"))
                ),
                ir.Store(flag, (ir.Ref(i),), positive),
                ir.IfThenElse(
                    ir.Load(flag, (ir.Ref(i),)),
                    ir.Store(count, (ir.Ref(i),), ir.Const(1, "int32")),
                    ir.Store(count, (ir.Ref(i),), ir.Const(-1, "int32")),
                ),
                ir.IfThenElse(
                    ir.Binary(B.EQ, ir.Ref(t), ir.Const(0.0, "float32")),
                    ir.Store(count, (ir.Ref(i),), ir.Const(0, "int32")),
                ),
            )
        ),
    )
    kernel = ir.Kernel(
        "relu_flags", (x,), (out, flag, count), (n,), ir.For(i, ir.Ref(n), ir.LoopKind.SERIAL, body)
    )
    data = np.array([-1.0, 0.0, 2.0, np.nan, 3.5], np.float32)
    o, f, c = run(kernel, [data])
    same(o, np.array([0.0, 0.0, 2.0, 0.0, 3.5], np.float32))
    same(f, np.array([0, 0, 1, 0, 1], bool))
    assert f.view(np.uint8).max() == 1  # bool bytes are 0 or 1
    same(c, np.array([-1, 0, 1, -1, 1], np.int32))
    _check_reference(kernel, [data], [o, f, c], {n: 5})


def _check_reference(
    kernel: ir.Kernel,
    inputs: Sequence[Array],
    outputs: Sequence[Array],
    sizes: dict[ir.SizeVar, int] | None = None,
    reduction_length: int = 1,
) -> None:
    """The compiled outputs agree with the reference interpreter's, within the tolerance
    policy (exactly for integers and bool), unless the inputs reach undefined behaviour."""
    try:
        expected = run_kernel(kernel, list(inputs), sizes)
    except UndefinedBehavior:
        return
    for actual, reference in zip(outputs, expected, strict=True):
        problem = compare_arrays(actual, reference, reduction_length=reduction_length)
        assert problem is None, f"{kernel.name}: {problem}"


def _transpose_kernel(kind: ir.LoopKind, strided: bool) -> ir.Kernel:
    """``out[i, j] = a[j, i] * 2``; with ``strided`` the input is declared column-major."""
    rows, cols = ir.SizeVar("rows"), ir.SizeVar("cols")
    strides = (ir.index(1), ir.Ref(cols)) if strided else None
    a = ir.Buffer("a", (ir.Ref(cols), ir.Ref(rows)), "float64", strides=strides)
    out = ir.Buffer("out", (ir.Ref(rows), ir.Ref(cols)), "float64")
    i, j = ir.LoopVar("i"), ir.LoopVar("j")
    value = ir.Binary(B.MUL, ir.Load(a, (ir.Ref(j), ir.Ref(i))), ir.Const(2.0, "float64"))
    inner = ir.For(j, ir.Ref(cols), kind, ir.Store(out, (ir.Ref(i), ir.Ref(j)), value))
    body = ir.For(i, ir.Ref(rows), ir.LoopKind.SERIAL, inner)
    return ir.Kernel(f"transpose_{kind.value}_{strided}", (a,), (out,), (rows, cols), body)


@pytest.mark.parametrize("kind", list(ir.LoopKind))
@pytest.mark.parametrize("strided", [False, True])
def test_multidimensional_strided(kind: ir.LoopKind, strided: bool) -> None:
    k = _transpose_kernel(kind, strided)
    rows, cols = 5, 7
    v = np.arange(rows * cols, dtype=np.float64).reshape(cols, rows)  # the values a[j, i]
    # row-major: a[j, i] at j * rows + i; declared strides (1, cols): at j + i * cols
    arg = np.ascontiguousarray(v.T).reshape(cols, rows) if strided else v
    out = np.zeros((rows, cols))
    sizes = {s: {"rows": rows, "cols": cols}[s.name] for s in k.sizes}
    compile_kernel(k)([arg], [out], sizes)
    same(out, v.T * 2)
    # The reference interpreter indexes its arrays with numpy (it does not read the declared
    # strides): give it the values themselves.
    _check_reference(k, [v], [out], sizes)
    text = codegen.generate(k).text
    assert "ptrtoint" not in text and "inttoptr" not in text
    assert "getelementptr inbounds double" in text


def test_loop_metadata_and_zero_extent() -> None:
    vec = elementwise("vec", ["float32"], "float32", lambda a: a, 0, kind=ir.LoopKind.VECTORIZED)
    unroll = elementwise("unr", ["float32"], "float32", lambda a: a, 0, kind=ir.LoopKind.UNROLLED)
    unroll8 = elementwise("unr8", ["float32"], "float32", lambda a: a, 8, kind=ir.LoopKind.UNROLLED)
    assert "llvm.loop.vectorize.enable" in codegen.generate(vec).text
    assert "llvm.loop" not in codegen.generate(unroll).text  # a run-time extent: no hint
    assert "llvm.loop.unroll.full" in codegen.generate(unroll8).text
    for k in (vec, unroll):
        (out,) = run(k, [np.zeros(0, np.float32)])
        assert out.shape == (0,)
        (out,) = run(k, [np.arange(37, dtype=np.float32)])
        same(out, np.arange(37, dtype=np.float32))
    (out,) = run(unroll8, [np.arange(8, dtype=np.float32)])
    same(out, np.arange(8, dtype=np.float32))


def _sum_kernel(dtype: str, name: str, kind: ir.LoopKind = ir.LoopKind.SERIAL) -> ir.Kernel:
    """``out[r] = sum_k a[r, k]``: an accumulation into the output."""
    rows, cols = ir.SizeVar("rows"), ir.SizeVar("cols")
    a = ir.Buffer("a", (ir.Ref(rows), ir.Ref(cols)), dtype)
    out = ir.Buffer("out", (ir.Ref(rows),), dtype)
    r, k = ir.LoopVar("r"), ir.LoopVar("k")
    acc = ir.Store(
        out,
        (ir.Ref(r),),
        ir.Binary(B.ADD, ir.Load(out, (ir.Ref(r),)), ir.Load(a, (ir.Ref(r), ir.Ref(k)))),
    )
    body = ir.Seq(
        (
            ir.Store(out, (ir.Ref(r),), ir.const(0, dtype)),
            ir.For(k, ir.Ref(cols), ir.LoopKind.SERIAL, acc),
        )
    )
    return ir.Kernel(name, (a,), (out,), (rows, cols), ir.For(r, ir.Ref(rows), kind, body))


@pytest.mark.parametrize("dtype", ["float32", "float64", "int32", "uint8", "float16"])
def test_reductions(dtype: str) -> None:
    k = _sum_kernel(dtype, f"sum_{dtype}")
    rng = np.random.default_rng(17)
    a = (rng.standard_normal((6, 1000)) * 10).astype(np_dtype(dtype))
    out = np.zeros(6, np_dtype(dtype))
    sizes = {s: {"rows": 6, "cols": 1000}[s.name] for s in k.sizes}
    compile_kernel(k)([a], [out], sizes)
    _check_reference(k, [a], [out], sizes, reduction_length=1000)
    if dtype in FLOATS and dtype != "float16":
        expected = a.astype(np.float64).sum(axis=1).astype(dtype)
        assert compare_arrays(out, expected, reduction_length=1000) is None
    elif dtype == "float16":  # sequential, rounded to float16 after each addition
        acc = np.zeros(6, np.float16)
        for col in range(1000):
            acc = acc + a[:, col]
        same(out, acc)
    else:
        same(out, a.sum(axis=1, dtype=np_dtype(dtype)))


def test_reduction_flags_only_on_accumulations() -> None:
    """``reassoc`` marks the accumulating ``fadd`` and nothing else; the optimised float32
    reduction is vectorised."""
    text = codegen.generate(_sum_kernel("float32", "flags_sum")).text
    reassoc = [line for line in text.splitlines() if "reassoc" in line]
    assert len(reassoc) == 1 and "fadd reassoc contract float" in reassoc[0]
    chain = codegen.generate(
        elementwise(
            "no_flags",
            ["float32", "float32"],
            "float32",
            lambda a, b: ir.Binary(B.ADD, ir.Binary(B.MUL, a, b), b),
            0,
        )
    ).text
    assert "reassoc" not in chain and "contract" not in chain
    llvm_ir = compile_kernel(_sum_kernel("float32", "flags_sum")).artifacts()["llvm"]
    assert isinstance(llvm_ir, str) and "x float>" in llvm_ir


def test_dot_product_contracts_the_product() -> None:
    n = ir.SizeVar("n")
    a, b = ir.Buffer("a", (ir.Ref(n),), "float32"), ir.Buffer("b", (ir.Ref(n),), "float32")
    out = ir.Buffer("out", (ir.index(1),), "float32")
    k = ir.LoopVar("k")
    zero = (ir.index(0),)
    product = ir.Binary(B.MUL, ir.Load(a, (ir.Ref(k),)), ir.Load(b, (ir.Ref(k),)))
    acc = ir.Store(out, zero, ir.Binary(B.ADD, ir.Load(out, zero), product))
    body = ir.Seq(
        (
            ir.Store(out, zero, ir.Const(0.0, "float32")),
            ir.For(k, ir.Ref(n), ir.LoopKind.SERIAL, acc),
        )
    )
    kernel = ir.Kernel("dot", (a, b), (out,), (n,), body)
    assert "fmul contract float" in codegen.generate(kernel).text
    rng = np.random.default_rng(18)
    x, y = (
        rng.standard_normal(4096).astype(np.float32),
        rng.standard_normal(4096).astype(np.float32),
    )
    (result,) = run(kernel, [x, y], reduction_length=4096)
    expected = np.array([np.dot(x.astype(np.float64), y.astype(np.float64))], np.float32)
    assert compare_arrays(result, expected, reduction_length=4096) is None


@pytest.mark.parametrize("length", [16, 10_000])
def test_local_buffers_stack_and_heap(length: int) -> None:
    """A local buffer (on the stack when small, ``malloc``-ed when large) holding ``x * 3``,
    then read back reversed."""
    x = ir.Buffer("x", (ir.index(length),), "int32")
    out = ir.Buffer("out", (ir.index(length),), "int32")
    tmp = ir.Buffer("tmp", (ir.index(length),), "int32", scope="local")
    i, j = ir.LoopVar("i"), ir.LoopVar("j")
    fill = ir.For(
        i,
        ir.index(length),
        ir.LoopKind.SERIAL,
        ir.Store(
            tmp, (ir.Ref(i),), ir.Binary(B.MUL, ir.Load(x, (ir.Ref(i),)), ir.Const(3, "int32"))
        ),
    )
    back = ir.Binary(B.SUB, ir.index(length - 1), ir.Ref(j))
    read = ir.For(
        j, ir.index(length), ir.LoopKind.SERIAL, ir.Store(out, (ir.Ref(j),), ir.Load(tmp, (back,)))
    )
    kernel = ir.Kernel(f"local_{length}", (x,), (out,), (), ir.Allocate(tmp, ir.Seq((fill, read))))
    text = codegen.generate(kernel).text
    assert ("alloca" in text) == (length * 4 <= codegen.STACK_LIMIT)
    assert ('@"malloc"' in text) == (length * 4 > codegen.STACK_LIMIT)
    data = np.arange(length, dtype=np.int32)
    (result,) = run(kernel, [data])
    same(result, (data * 3)[::-1])


def test_parallel_loops_with_two_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    """A serial statement, a parallel loop, then another serial statement that reads what the
    parallel loop wrote: run on two threads, the same result as on one."""
    n = ir.SizeVar("n")
    x = ir.Buffer("x", (ir.Ref(n), ir.index(64)), "float32")
    y = ir.Buffer("y", (ir.Ref(n), ir.index(64)), "float32")
    total = ir.Buffer("total", (ir.index(1),), "float32")
    i, j, k = ir.LoopVar("i"), ir.LoopVar("j"), ir.LoopVar("k")
    zero = (ir.index(0),)
    square = ir.Binary(
        B.MUL, ir.Load(x, (ir.Ref(i), ir.Ref(j))), ir.Load(x, (ir.Ref(i), ir.Ref(j)))
    )
    par = ir.For(
        i,
        ir.Ref(n),
        ir.LoopKind.PARALLEL,
        ir.For(
            j, ir.index(64), ir.LoopKind.VECTORIZED, ir.Store(y, (ir.Ref(i), ir.Ref(j)), square)
        ),
    )
    add = ir.Store(
        total, zero, ir.Binary(B.ADD, ir.Load(total, zero), ir.Load(y, (ir.Ref(k), ir.index(0))))
    )
    body = ir.Seq(
        (
            ir.Store(total, zero, ir.Const(0.0, "float32")),
            par,
            ir.For(k, ir.Ref(n), ir.LoopKind.SERIAL, add),
        )
    )
    kernel = ir.Kernel("par", (x,), (y, total), (n,), body)
    generated = codegen.generate(kernel)
    assert [s.kind for s in generated.segments] == ["serial", "parallel", "serial"]
    data = np.random.default_rng(19).standard_normal((101, 64)).astype(np.float32)
    from relay.targets.cpu import threads as pool

    calls: list[tuple[int, int, set[str]]] = []
    original = pool.run_parallel

    def recording(body: Callable[[int, int], None], extent: int, count: int) -> None:
        names: set[str] = set()

        def traced(lo: int, hi: int) -> None:
            names.add(threading.current_thread().name)
            body(lo, hi)

        original(traced, extent, count)
        calls.append((extent, count, names))

    monkeypatch.setattr(pool, "run_parallel", recording)
    results = []
    for threads in (1, 2):
        outs = [np.zeros((101, 64), np.float32), np.zeros(1, np.float32)]
        compiled = compile_kernel(kernel, threads=threads)
        compiled([data], outs, {n: 101})
        results.append(outs)
        _check_reference(kernel, [data], outs, {n: 101}, reduction_length=101)
    assert len(calls) == 1 and calls[0][:2] == (101, 2)  # the one parallel loop, 2 threads
    assert len(calls[0][2]) == 2  # its chunks ran on two different threads
    same(results[1][0], data * data)
    same(results[0][0], results[1][0])
    same(results[0][1], results[1][1])
    assert (
        compare_arrays(
            results[1][1], np.array([(data[:, 0] ** 2).sum()], np.float32), reduction_length=101
        )
        is None
    )


def test_parallel_loops_share_top_level_scratch() -> None:
    """Two parallel loops inside a top-level ``Allocate``: with threads the local buffer is a
    scratch array the caller allocates and passes to both segments."""
    n = ir.SizeVar("n")
    x = ir.Buffer("x", (ir.Ref(n), ir.index(64)), "int32")
    y = ir.Buffer("y", (ir.Ref(n), ir.index(64)), "int32")
    tmp = ir.Buffer("tmp", (ir.Ref(n), ir.index(64)), "int32", scope="local")
    i, j, i2, j2 = (ir.LoopVar(v) for v in ("i", "j", "i2", "j2"))
    double = ir.Binary(B.MUL, ir.Load(x, (ir.Ref(i), ir.Ref(j))), ir.Const(2, "int32"))
    first = ir.For(
        i,
        ir.Ref(n),
        ir.LoopKind.PARALLEL,
        ir.For(j, ir.index(64), ir.LoopKind.SERIAL, ir.Store(tmp, (ir.Ref(i), ir.Ref(j)), double)),
    )
    mirrored = ir.Load(tmp, (ir.Ref(i2), ir.Binary(B.SUB, ir.index(63), ir.Ref(j2))))
    second = ir.For(
        i2,
        ir.Ref(n),
        ir.LoopKind.PARALLEL,
        ir.For(
            j2,
            ir.index(64),
            ir.LoopKind.SERIAL,
            ir.Store(y, (ir.Ref(i2), ir.Ref(j2)), ir.Binary(B.ADD, mirrored, ir.Const(1, "int32"))),
        ),
    )
    kernel = ir.Kernel("scratch", (x,), (y,), (n,), ir.Allocate(tmp, ir.Seq((first, second))))
    generated = codegen.generate(kernel)
    assert [s.kind for s in generated.segments] == ["parallel", "parallel"]
    assert generated.scratch == (tmp,)
    data = np.arange(33 * 64, dtype=np.int32).reshape(33, 64)
    for threads in (1, 2):
        (out,) = run(kernel, [data], threads=threads)
        same(out, data[:, ::-1] * 2 + 1)


def test_thread_chunks() -> None:
    from relay.targets.cpu.threads import chunks

    assert chunks(10, 3) == [(0, 4), (4, 7), (7, 10)]
    assert chunks(1, 4) == [(0, 1)]
    assert chunks(4, 4) == [(0, 1), (1, 2), (2, 3), (3, 4)]


def test_cblas_sgemm() -> None:
    m, n, k = 7, 5, 9
    a = ir.Buffer("a", (ir.index(m), ir.index(k)), "float32")
    b = ir.Buffer("b", (ir.index(n), ir.index(k)), "float32")  # used transposed
    c = ir.Buffer("c", (ir.index(m), ir.index(n)), "float32")

    def i32(v: int) -> ir.Const:
        return ir.Const(v, "int32")

    call = ir.ExternCall(
        "cblas_sgemm",
        (
            i32(101),
            i32(111),
            i32(112),
            ir.index(m),
            ir.index(n),
            ir.index(k),
            ir.Const(1.0, "float32"),
            a,
            ir.index(k),
            b,
            ir.index(k),
            ir.Const(0.0, "float32"),
            c,
            ir.index(n),
        ),
    )
    kernel = ir.Kernel("sgemm", (a, b), (c,), (), call)
    rng = np.random.default_rng(20)
    x, y = (
        rng.standard_normal((m, k)).astype(np.float32),
        rng.standard_normal((n, k)).astype(np.float32),
    )
    (out,) = run(kernel, [x, y], reduction_length=k)
    assert (
        compare_arrays(
            out,
            (x.astype(np.float64) @ y.T.astype(np.float64)).astype(np.float32),
            reduction_length=k,
        )
        is None
    )


# ---------------------------------------------------------------------------------------------
# Cache, artifacts, errors


def test_cache_memory_then_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELAY_CACHE_DIR", str(tmp_path / "c1"))
    kernel = _sum_kernel("float64", "cached_sum_kernel")
    first = compile_kernel(kernel)
    assert first.origin == "compiled"
    assert len(list((tmp_path / "c1").glob("*.o"))) == 1
    again = compile_kernel(_sum_kernel("float64", "cached_sum_kernel"))  # a new, equal kernel
    assert again.origin == "memory" and again.key == first.key
    codegen.clear_memory_cache()
    from_disk = compile_kernel(kernel)
    assert from_disk.origin == "disk"
    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    out = np.zeros(3)
    from_disk([a], [out], {s: {"rows": 3, "cols": 4}[s.name] for s in kernel.sizes})
    same(out, a.sum(axis=1))
    other = compile_kernel(_sum_kernel("float64", "another_name"))
    assert other.key != first.key


def test_damaged_disk_entry_is_compiled_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RELAY_CACHE_DIR", str(tmp_path / "c2"))
    out = ir.Buffer("out", (ir.index(1),), "int32")
    kernel = ir.Kernel(
        "damaged", (), (out,), (), ir.Store(out, (ir.index(0),), ir.Const(7, "int32"))
    )
    assert compile_kernel(kernel).origin == "compiled"
    codegen.clear_memory_cache()
    (obj,) = (tmp_path / "c2").glob("*.o")
    obj.write_bytes(obj.read_bytes()[:40] + b"not an object")
    again = compile_kernel(kernel)
    assert again.origin == "compiled"
    result = np.zeros(1, np.int32)
    again([], [result])
    assert result[0] == 7
    assert obj.read_bytes()[:4] == b"\x7fELF"  # replaced


def test_artifacts() -> None:
    compiled = compile_kernel(_sum_kernel("float32", "artifact_sum"))
    art = compiled.artifacts()
    assert set(art) == {"loop-ir", "llvm", "asm", "obj"}
    assert isinstance(art["obj"], bytes) and art["obj"][:4] == b"\x7fELF"
    assert isinstance(art["asm"], str) and "relay_artifact_sum" in art["asm"]
    assert isinstance(art["llvm"], str) and "define void @relay_artifact_sum" in art["llvm"]
    assert isinstance(art["loop-ir"], str) and "artifact_sum" in art["loop-ir"]


def test_rejected_kernel_is_a_compile_error_with_the_ir_saved() -> None:
    """Mismatched operand dtypes (an ill-formed kernel): the error names the kernel and the
    IR is in a file."""
    bad = elementwise(
        "bad_kernel", ["int32", "int64"], "int32", lambda a, b: ir.Binary(B.ADD, a, b), 0
    )
    with pytest.raises(KernelCompileError) as info:
        compile_kernel(bad)
    assert info.value.kernel_name == "bad_kernel"
    assert "bad_kernel" in str(info.value)
    assert info.value.path is not None and Path(info.value.path).read_text() == info.value.llvm_ir


def test_llvm_rejection_and_store_of_the_wrong_width() -> None:
    """A ``select`` on an int32 condition reaches LLVM, which rejects it; a store of an int64
    value into an int32 buffer is refused before (LLVM would write 8 bytes)."""
    out = ir.Buffer("out", (ir.index(1),), "int32")
    one, two = ir.Const(1, "int32"), ir.Const(2, "int32")
    select = ir.Kernel(
        "badsel", (), (out,), (), ir.Store(out, (ir.index(0),), ir.Select(one, one, two))
    )
    with pytest.raises(KernelCompileError, match="LLVM rejected") as info:
        compile_kernel(select)
    assert "select" in info.value.llvm_ir and info.value.path is not None
    wide = ir.Kernel(
        "badstore", (), (out,), (), ir.Store(out, (ir.index(0),), ir.Const(1, "int64"))
    )
    with pytest.raises(KernelCompileError, match="stored into int32"):
        compile_kernel(wide)


def test_out_of_scope_variable_and_unknown_extern() -> None:
    i = ir.LoopVar("i")
    out = ir.Buffer("out", (ir.index(1),), "int64")
    k = ir.Kernel("scope", (), (out,), (), ir.Store(out, (ir.index(0),), ir.Ref(i)))
    with pytest.raises(KernelCompileError, match="outside its scope"):
        compile_kernel(k)
    e = ir.Kernel("ext", (), (out,), (), ir.ExternCall("no_such_function", (out,)))
    with pytest.raises(KernelCompileError, match="no_such_function"):
        compile_kernel(e)


def test_argument_checks() -> None:
    kernel = elementwise("args", ["float32"], "float32", lambda a: a, 0)
    compiled = compile_kernel(kernel)
    size = {kernel.sizes[0]: 3}
    with pytest.raises(ValueError, match="float32"):
        compiled([np.zeros(3, np.float64)], [np.zeros(3, np.float32)], size)
    with pytest.raises(ValueError, match="shape"):
        compiled([np.zeros(4, np.float32)], [np.zeros(3, np.float32)], size)
    with pytest.raises(ValueError, match="size n"):
        compiled([np.zeros(3, np.float32)], [np.zeros(3, np.float32)], {})
    with pytest.raises(ValueError, match="contiguous"):
        compiled([np.zeros(6, np.float32)[::2]], [np.zeros(3, np.float32)], size)


def test_kernel_fingerprint_is_structural() -> None:
    """Equal kernels built twice share a fingerprint; any change of a constant (the sign of a
    zero included), a dtype, a loop kind or a name gives another."""
    from relay.targets.cpu.cache import kernel_fingerprint

    def build(
        zero: float = 0.0, dtype: str = "float32", kind: ir.LoopKind = ir.LoopKind.SERIAL
    ) -> ir.Kernel:
        return elementwise(
            "fp", [dtype], dtype, lambda a: ir.Binary(B.MAX, a, ir.Const(zero, dtype)), 0, kind
        )

    base = kernel_fingerprint(build())
    assert kernel_fingerprint(build()) == base
    variants = [build(-0.0), build(dtype="float64"), build(kind=ir.LoopKind.VECTORIZED)]
    renamed = build()
    variants.append(ir.Kernel("fp2", renamed.inputs, renamed.outputs, renamed.sizes, renamed.body))
    assert len({base, *(kernel_fingerprint(k) for k in variants)}) == 5
    assert "kernel fp(" in compile_kernel(build()).artifacts()["loop-ir"]  # loopcore's printer


def test_deep_expressions_and_let_chains() -> None:
    """Emission is iterative: an expression 3,000 operations deep and 3,000 nested ``let``s
    compile (the reference interpreter is not asked: it is the slow path)."""
    x = ir.Buffer("x", (ir.index(4),), "int32")
    out = ir.Buffer("out", (ir.index(4),), "int32")
    i = ir.LoopVar("i")
    e: ir.PrimExpr = ir.Load(x, (ir.Ref(i),))
    for _ in range(3000):
        e = ir.Binary(B.ADD, e, ir.Const(1, "int32"))
    body: ir.Stmt = ir.For(i, ir.index(4), ir.LoopKind.SERIAL, ir.Store(out, (ir.Ref(i),), e))
    (result,) = run(
        ir.Kernel("deep", (x,), (out,), (), body), [np.arange(4, dtype=np.int32)], reference=False
    )
    same(result, np.arange(4, dtype=np.int32) + 3000)
    chain = [ir.ScalarVar(f"t{k}", "int32") for k in range(3000)]
    body = ir.Store(out, (ir.index(0),), ir.Ref(chain[-1]))
    for k in reversed(range(3000)):
        value = (
            ir.Binary(B.ADD, ir.Ref(chain[k - 1]), ir.Const(1, "int32"))
            if k
            else ir.Const(1, "int32")
        )
        body = ir.LetStmt(chain[k], value, body)
    result = np.zeros(4, np.int32)
    compile_kernel(ir.Kernel("lets", (), (out,), (), body))([], [result])
    assert result[0] == 3000


@pytest.mark.skipif(not jit.guarded(), reason="needs os.fork")
def test_llvm_abort_falls_back_then_fails_cleanly(monkeypatch: pytest.MonkeyPatch) -> None:
    """An LLVM abort in the vectoriser (simulated: the compiling child exits as ``abort``
    would) gives a kernel compiled without the vectorisers; an abort either way is a
    ``KernelCompileError``, and this process survives both."""
    monkeypatch.delenv("RELAY_CPU_COMPILE_IN_PROCESS")  # the guard on: a child may exit
    assert jit.guarded()
    original = jit._optimise_and_emit

    def vectoriser_aborts(text: str, vectorize: bool) -> tuple[bytes, str]:
        if vectorize:
            os._exit(134)
        return original(text, vectorize)

    monkeypatch.setattr(jit, "_optimise_and_emit", vectoriser_aborts)
    kernel = elementwise("aborts_once", ["float32"], "float32", lambda a: ir.Binary(B.MUL, a, a), 0)
    (out,) = run(kernel, [np.arange(100, dtype=np.float32)])
    same(out, np.arange(100, dtype=np.float32) ** 2)
    llvm_ir = compile_kernel(kernel).artifacts()["llvm"]
    assert isinstance(llvm_ir, str) and "x float>" not in llvm_ir  # not vectorised
    saved = list((codegen.cache.cache_dir() / "failed").glob("vectoriser-abort-*.ll"))
    assert len(saved) == 1  # the IR kept for a bug report

    monkeypatch.setattr(jit, "_optimise_and_emit", lambda text, vectorize: os._exit(134))
    always = elementwise("aborts_always", ["float32"], "float32", lambda a: a, 0)
    with pytest.raises(KernelCompileError, match="aborted") as info:
        compile_kernel(always)
    assert info.value.path is not None


def test_regression_vectoriser_abort_on_select_divisor(monkeypatch: pytest.MonkeyPatch) -> None:
    """Found by tests/test_cpu_codegen_random.py: with the undefined-division guard written as
    ``select(b == 0, 1, b)`` this uint8 kernel made LLVM's loop vectoriser fail an assertion
    ("VPlan cost model and legacy cost model disagreed") and abort. It must now compile with
    the vectorisers (run under the crash guard, which would otherwise have fallen back)."""
    monkeypatch.delenv("RELAY_CPU_COMPILE_IN_PROCESS")
    b, u8, i16 = (ir.Buffer(f"in_{d}", (ir.index(12),), d) for d in ("bool", "uint8", "int16"))
    out = ir.Buffer("out", (ir.index(12),), "uint8")
    i = ir.LoopVar("i")
    flag, byte, short = (ir.Load(x, (ir.Ref(i),)) for x in (b, u8, i16))
    not_ = ir.UnOp.NOT
    divisor = ir.Binary(B.DIV, byte, ir.Select(flag, byte, ir.Const(255, "uint8")))
    amount = ir.Binary(B.MOD, divisor, ir.Cast("uint8", ir.Unary(not_, short)))
    value = ir.Binary(
        B.SUB,
        ir.Binary(B.SUB, ir.Select(flag, byte, byte), byte),
        ir.Unary(not_, ir.Binary(B.DIV, byte, byte)),
    )
    body = ir.Store(out, (ir.Ref(i),), ir.Binary(B.SHR, value, amount))
    kernel = ir.Kernel(
        "select_divisor",
        (b, u8, i16),
        (out,),
        (),
        ir.For(i, ir.index(12), ir.LoopKind.SERIAL, body),
    )
    rng = np.random.default_rng(22)
    args = [rng.integers(0, 2, 12).astype(bool), rng.integers(1, 256, 12).astype(np.uint8),
            rng.integers(-300, 300, 12).astype(np.int16)]  # fmt: skip
    compile_kernel(kernel)(args, [np.zeros(12, np.uint8)], {})  # (values: UB shifts)
    assert not list((codegen.cache.cache_dir() / "failed").glob("vectoriser-abort-*"))
