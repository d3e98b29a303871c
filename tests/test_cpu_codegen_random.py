"""Differential test of the CPU code generator: random well-typed scalar expressions over
every dtype, compiled and run elementwise, against the loop IR's reference interpreter
(``compiler.lower.evaluate.run_kernel``).

The expressions use every ``BinOp``, ``UnOp``, ``Cast``, ``Select`` and the correctly rounded
intrinsics (``sqrt fabs floor ceil trunc round copysign isnan isinf isfinite``), so both sides
compute exactly the same IEEE results: the outputs must be equal bit for bit (NaN matching
NaN). The inputs hold the dtypes' extremes, zeros of both signs, infinities and NaN. A case
the reference finds undefined (division by zero, a shift out of range, a float-to-integer
cast out of range) is skipped: the compiled kernel must still run to completion on it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from relay.compiler.lower import ir
from relay.compiler.lower.evaluate import run_kernel
from relay.compiler.lower.printer import kernel_text
from relay.semantics.errors import UndefinedBehavior
from relay.targets.cpu.codegen import compile_kernel

Array = npt.NDArray[np.generic]
B = ir.BinOp
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
FLOATS = ["float16", "float32", "float64"]
DTYPES = ["bool", *INTS, *FLOATS]
N = 12
EXACT_UNARY = ["sqrt", "fabs", "floor", "ceil", "trunc", "round"]
PREDICATES = ["isnan", "isinf", "isfinite"]
ARITHMETIC = [B.ADD, B.SUB, B.MUL, B.DIV, B.MOD, B.FLOORDIV, B.FLOORMOD, B.MIN, B.MAX]
BITWISE = [B.AND, B.OR, B.XOR, B.SHL, B.SHR]


@pytest.fixture(autouse=True, scope="module")
def _cache_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    mp = pytest.MonkeyPatch()
    mp.setenv("RELAY_CACHE_DIR", str(tmp_path_factory.mktemp("cpu_cache")))
    yield  # type: ignore[misc]
    mp.undo()


def np_dtype(dtype: str) -> np.dtype[np.generic]:
    return np.dtype(np.bool_) if dtype == "bool" else np.dtype(dtype)


BUFFERS = {d: ir.Buffer(f"in_{d}", (ir.index(N),), d) for d in DTYPES}
LOOP = ir.LoopVar("i")


def _constant(dtype: str) -> st.SearchStrategy[ir.PrimExpr]:
    if dtype == "bool":
        return st.sampled_from([ir.const(0, "bool"), ir.const(1, "bool")])
    if dtype in FLOATS:
        values = st.sampled_from([0.0, -0.0, 1.0, -1.5, 2.0, 0.5, 1e3, float("inf"), float("nan")])
        return values.map(lambda v: ir.const(v, dtype))
    info = np.iinfo(np_dtype(dtype))
    return st.sampled_from([0, 1, 2, 3, 7, -1, info.min, info.max]).map(
        lambda v: ir.const(v if info.min <= v <= info.max else info.max, dtype)
    )


@st.composite
def exprs(draw: st.DrawFn, dtype: str, depth: int) -> ir.PrimExpr:
    """A random expression of ``dtype`` at most ``depth`` operations deep."""
    if depth == 0 or draw(st.integers(0, 4)) == 0:
        if draw(st.booleans()):
            return ir.Load(BUFFERS[dtype], (ir.Ref(LOOP),))
        return draw(_constant(dtype))
    kinds = ["cast", "select", "binary"]
    if dtype == "bool":
        kinds += ["compare", "predicate", "not"]
    elif dtype in FLOATS:
        kinds += ["negate", "call", "copysign"]
    else:
        kinds += ["negate", "not"]
    kind = draw(st.sampled_from(kinds))
    sub = depth - 1
    match kind:
        case "cast":
            source = draw(st.sampled_from(DTYPES))
            return ir.Cast(dtype, draw(exprs(source, sub)))
        case "select":
            cond = draw(exprs("bool", sub))
            return ir.Select(cond, draw(exprs(dtype, sub)), draw(exprs(dtype, sub)))
        case "binary":
            if dtype == "bool":
                ops = [B.AND, B.OR, B.XOR]
            elif dtype in FLOATS:
                ops = ARITHMETIC
            else:
                ops = ARITHMETIC + BITWISE
            op = draw(st.sampled_from(ops))
            return ir.Binary(op, draw(exprs(dtype, sub)), draw(exprs(dtype, sub)))
        case "compare":
            source = draw(st.sampled_from(DTYPES))
            op = draw(st.sampled_from(sorted(ir.COMPARISONS, key=lambda o: o.name)))
            return ir.Binary(op, draw(exprs(source, sub)), draw(exprs(source, sub)))
        case "predicate":
            source = draw(st.sampled_from(FLOATS))
            return ir.Call(draw(st.sampled_from(PREDICATES)), (draw(exprs(source, sub)),), "bool")
        case "not":
            return ir.Unary(ir.UnOp.NOT, draw(exprs(dtype, sub)))
        case "negate":
            return ir.Unary(ir.UnOp.NEG, draw(exprs(dtype, sub)))
        case "call":
            name = draw(st.sampled_from(EXACT_UNARY))
            return ir.Call(name, (draw(exprs(dtype, sub)),), dtype)
        case "copysign":
            args = (draw(exprs(dtype, sub)), draw(exprs(dtype, sub)))
            return ir.Call("copysign", args, dtype)
    raise AssertionError(kind)


def _inputs(seed: int) -> list[Array]:
    rng = np.random.default_rng(seed)
    arrays: list[Array] = []
    for d in DTYPES:
        if d == "bool":
            arrays.append(rng.integers(0, 2, N).astype(bool))
        elif d in FLOATS:
            special = [0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -2.5, 0.5]
            pool = np.concatenate([special, rng.standard_normal(8) * 100, [65504.0, 1e-6]])
            arrays.append(rng.choice(pool, N).astype(d))
        else:
            info = np.iinfo(np_dtype(d))
            pool = np.array([info.min, info.max, 0, 1, 2, 3, info.max - 1], dtype=object)
            picks = [int(v) for v in rng.choice(pool, N // 2)]
            small = [int(v) for v in rng.integers(-50 if info.min else 0, 50, N - N // 2)]
            arrays.append(np.array(picks + small, dtype=np_dtype(d)))
    return arrays


def _same(actual: Array, expected: Array) -> bool:
    if actual.dtype.kind == "f":
        nan = np.isnan(expected)
        return bool(((np.isnan(actual) == nan) & (nan | (actual == expected))).all())
    return bool((actual == expected).all())


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_random_expressions_match_reference(data: st.DataObject, tmp_path: Path) -> None:
    dtype = data.draw(st.sampled_from(DTYPES), label="dtype")
    e = data.draw(exprs(dtype, 4), label="expression")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    out = ir.Buffer("out", (ir.index(N),), dtype)
    body = ir.For(LOOP, ir.index(N), ir.LoopKind.SERIAL, ir.Store(out, (ir.Ref(LOOP),), e))
    kernel = ir.Kernel("random", tuple(BUFFERS.values()), (out,), (), body)
    inputs = _inputs(seed)
    compiled = np.zeros(N, np_dtype(dtype))
    with np.errstate(all="ignore"):
        compile_kernel(kernel)(inputs, [compiled], {})  # must not crash, whatever happens
        try:
            (expected,) = run_kernel(kernel, inputs, {})
        except UndefinedBehavior:
            event("undefined: skipped")
            return
    event("compared")
    assert _same(compiled, expected), (
        f"compiled {compiled}\nreference {expected}\n{kernel_text(kernel)}"
    )
