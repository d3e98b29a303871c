"""The reference interpreter of the loop IR: a kernel run element by element over numpy arrays.

``run_kernel(kernel, inputs, sizes)`` allocates the outputs from their shapes, binds the size
parameters it can read off the inputs' shapes (a ``SizeVar`` that is a whole dimension of an
input), runs the body and returns the outputs. It is slow on purpose: it is the meaning of the
IR (``compiler.lower.ir``'s docstring) that the code generators are tested against, so every
scalar operation is carried out exactly as the reference semantics of the operators does it:

- integers are Python ints wrapped to their dtype's width after every operation; ``div`` and
  ``mod`` truncate toward zero, ``floordiv``/``floormod`` round toward negative infinity;
  division by zero, the smallest signed value divided by -1 and shifts by a negative amount or
  at least the width are undefined (``UndefinedBehavior``);
- floats are numpy scalars of their dtype; ``float16`` is computed in ``float32`` and rounded
  once per operation; ``min``/``max`` propagate NaN (numpy's ``minimum``/``maximum``);
- casts go through numpy's ``astype`` (one rounding), except that a float to integer cast of
  NaN, an infinity or an out-of-range value is undefined and a float to bool cast is ordered
  (NaN is false);
- a load or store out of its buffer's bounds is an ``IndexError`` (a bug in the kernel).

Loop kinds are ignored (every loop runs serially): a well-formed kernel means the same whatever
its loops' kinds. Expressions are compiled once into tapes of Python closures (one step per node,
evaluated in a loop: no recursion on an expression's depth) over an environment that maps
variables to values, then the statement closures run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import TypeAlias, assert_never

import numpy as np
import numpy.typing as npt

from ...semantics.errors import UndefinedBehavior
from . import ir

Array: TypeAlias = npt.NDArray[np.generic]
Scalar: TypeAlias = int | np.floating
"""An integer or bool value is a Python ``int``; a float is a numpy scalar of its dtype."""

Env: TypeAlias = dict[object, object]
"""Variables (and local buffers) to their values (and arrays) while a kernel runs."""

ExprFn: TypeAlias = Callable[[Env], Scalar]
StmtFn: TypeAlias = Callable[[Env], None]


def is_float(dtype: str) -> bool:
    """Whether ``dtype`` is a float dtype."""
    return dtype.startswith("float")


def int_bounds(dtype: str) -> tuple[int, int]:
    """The smallest and largest value of an integer or bool dtype."""
    if dtype == "bool":
        return 0, 1
    info = np.iinfo(np.dtype(dtype))
    return int(info.min), int(info.max)


def wrap(value: int, dtype: str) -> int:
    """``value`` wrapped to the width of the integer or bool ``dtype``."""
    if dtype == "bool":
        return value & 1
    bits = np.dtype(dtype).itemsize * 8
    value &= (1 << bits) - 1
    if dtype.startswith("int") and value >= 1 << (bits - 1):
        value -= 1 << bits
    return value


def to_scalar(value: object, dtype: str) -> Scalar:
    """A numpy or Python value as the interpreter's representation of a ``dtype`` scalar."""
    if is_float(dtype):
        return np.dtype(dtype).type(value)  # type: ignore[no-any-return]
    return int(value)  # type: ignore[call-overload, no-any-return]


# ---------------------------------------------------------------------------------------------
# Scalar arithmetic


def _float_apply(dtype: str, fn: Callable[..., object], *args: Scalar) -> Scalar:
    """``fn`` on float scalars of ``dtype``, float16 through float32 with one rounding."""
    wide = np.float32 if dtype == "float16" else np.dtype(dtype).type
    with np.errstate(all="ignore"):
        result = fn(*(wide(a) for a in args))
    return np.dtype(dtype).type(result)  # type: ignore[no-any-return]


def _trunc_div(a: int, b: int, dtype: str) -> int:
    if b == 0:
        raise UndefinedBehavior(f"integer division by zero ({dtype})")
    lo, _ = int_bounds(dtype)
    if dtype.startswith("int") and a == lo and b == -1:
        raise UndefinedBehavior(f"{a} / -1 overflows {dtype}")
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _trunc_mod(a: int, b: int, dtype: str) -> int:
    return a - b * _trunc_div(a, b, dtype)


def _floor_div(a: int, b: int, dtype: str) -> int:
    _trunc_div(a, b, dtype)  # the same undefined cases
    return a // b


def _floor_mod(a: int, b: int, dtype: str) -> int:
    _trunc_div(a, b, dtype)
    return a % b


def _shift(a: int, b: int, dtype: str, left: bool) -> int:
    bits = 1 if dtype == "bool" else np.dtype(dtype).itemsize * 8
    if b < 0 or b >= bits:
        raise UndefinedBehavior(f"shift of {dtype} by {b}")
    return a << b if left else a >> b


_INT_BINARY: dict[ir.BinOp, Callable[[int, int, str], int]] = {
    ir.BinOp.ADD: lambda a, b, d: a + b,
    ir.BinOp.SUB: lambda a, b, d: a - b,
    ir.BinOp.MUL: lambda a, b, d: a * b,
    ir.BinOp.DIV: _trunc_div,
    ir.BinOp.MOD: _trunc_mod,
    ir.BinOp.FLOORDIV: _floor_div,
    ir.BinOp.FLOORMOD: _floor_mod,
    ir.BinOp.MIN: lambda a, b, d: min(a, b),
    ir.BinOp.MAX: lambda a, b, d: max(a, b),
    ir.BinOp.AND: lambda a, b, d: a & b,
    ir.BinOp.OR: lambda a, b, d: a | b,
    ir.BinOp.XOR: lambda a, b, d: a ^ b,
    ir.BinOp.SHL: lambda a, b, d: _shift(a, b, d, True),
    ir.BinOp.SHR: lambda a, b, d: _shift(a, b, d, False),
    ir.BinOp.EQ: lambda a, b, d: int(a == b),
    ir.BinOp.NE: lambda a, b, d: int(a != b),
    ir.BinOp.LT: lambda a, b, d: int(a < b),
    ir.BinOp.LE: lambda a, b, d: int(a <= b),
    ir.BinOp.GT: lambda a, b, d: int(a > b),
    ir.BinOp.GE: lambda a, b, d: int(a >= b),
}

FLOAT_BINARY: dict[ir.BinOp, Callable[..., object]] = {
    # numpy functions, so that they serve scalars here and lane vectors in targets/gpusim
    ir.BinOp.ADD: np.add,
    ir.BinOp.SUB: np.subtract,
    ir.BinOp.MUL: np.multiply,
    ir.BinOp.DIV: np.divide,
    ir.BinOp.MOD: np.fmod,
    ir.BinOp.FLOORDIV: np.floor_divide,
    ir.BinOp.FLOORMOD: np.mod,
    ir.BinOp.MIN: np.minimum,
    ir.BinOp.MAX: np.maximum,
}

_FLOAT_COMPARE: dict[ir.BinOp, Callable[[Scalar, Scalar], bool]] = {
    ir.BinOp.EQ: lambda a, b: bool(a == b),
    ir.BinOp.NE: lambda a, b: bool(a != b),
    ir.BinOp.LT: lambda a, b: bool(a < b),
    ir.BinOp.LE: lambda a, b: bool(a <= b),
    ir.BinOp.GT: lambda a, b: bool(a > b),
    ir.BinOp.GE: lambda a, b: bool(a >= b),
}


def binary(op: ir.BinOp, a: Scalar, b: Scalar, dtype: str) -> Scalar:
    """``a op b`` for operands of ``dtype`` (comparisons give 0 or 1)."""
    if is_float(dtype):
        if op in _FLOAT_COMPARE:
            return int(_FLOAT_COMPARE[op](a, b))
        if op not in FLOAT_BINARY:
            raise TypeError(f"operator {op.value} is not defined on {dtype}")
        return _float_apply(dtype, FLOAT_BINARY[op], a, b)
    assert isinstance(a, int) and isinstance(b, int)
    result = _INT_BINARY[op](a, b, dtype)
    return result if op in ir.COMPARISONS else wrap(result, dtype)


def unary(op: ir.UnOp, a: Scalar, dtype: str) -> Scalar:
    """``op a`` for an operand of ``dtype``."""
    match op:
        case ir.UnOp.NEG:
            if is_float(dtype):
                return _float_apply(dtype, np.negative, a)
            assert isinstance(a, int)
            return wrap(-a, dtype)
        case ir.UnOp.NOT:
            if is_float(dtype):
                raise TypeError(f"operator ! is not defined on {dtype}")
            assert isinstance(a, int)
            return 1 - a if dtype == "bool" else wrap(~a, dtype)
        case _:
            assert_never(op)


def cast(value: Scalar, source: str, target: str) -> Scalar:
    """``value`` of dtype ``source`` converted to ``target`` (see the module docstring)."""
    if target == "bool":
        if is_float(source):
            return int(not math.isnan(float(value)) and float(value) != 0.0)
        return int(value != 0)
    if is_float(source) and not is_float(target):
        f = float(value)
        lo, hi = int_bounds(target)
        if not math.isfinite(f) or not lo <= math.trunc(f) <= hi:
            raise UndefinedBehavior(f"cast of {source} {f!r} to {target} is out of range")
        return math.trunc(f)
    if not is_float(source) and not is_float(target):
        assert isinstance(value, int)
        return wrap(value, target)
    src = np.array([value], dtype=np.dtype(source))
    return to_scalar(src.astype(np.dtype(target))[0], target)


def _erf(x: object) -> float:
    return math.erf(float(x))  # type: ignore[arg-type]


FLOAT_INTRINSICS: dict[str, Callable[..., object]] = {
    # the intrinsics that are one numpy function (shared with targets/gpusim, like FLOAT_BINARY)
    "exp": np.exp,
    "log": np.log,
    "log2": np.log2,
    "log10": np.log10,
    "sqrt": np.sqrt,
    "sin": np.sin,
    "cos": np.cos,
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "tanh": np.tanh,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "fabs": np.abs,
    "floor": np.floor,
    "ceil": np.ceil,
    "trunc": np.trunc,
    "round": np.round,
    "pow": np.power,
    "atan2": np.arctan2,
    "copysign": np.copysign,
}


def intrinsic(name: str, args: Sequence[Scalar], dtype: str) -> Scalar:
    """The intrinsic ``name`` applied to float ``args`` (``dtype`` is the operands' dtype).

    ``erf`` is ``math.erf`` in float64 rounded to the dtype (numpy has none; the reference does
    the same); ``rsqrt`` is ``1 / sqrt(x)``, two roundings, as the reference computes it.
    """
    if name in ("isnan", "isinf", "isfinite"):
        f = float(args[0])
        return int({"isnan": math.isnan, "isinf": math.isinf, "isfinite": math.isfinite}[name](f))
    if name == "erf":
        return np.dtype(dtype).type(_erf(args[0]))  # type: ignore[no-any-return]
    if name == "rsqrt":
        root = _float_apply(dtype, np.sqrt, args[0])
        return _float_apply(dtype, np.divide, np.dtype(dtype).type(1), root)
    return _float_apply(dtype, FLOAT_INTRINSICS[name], *args)


# ---------------------------------------------------------------------------------------------
# Compilation to closures


def _bounds_checked(
    buffer: ir.Buffer, idx: Sequence[int], env: Env
) -> tuple[Array, tuple[int, ...]]:
    array = env.get(buffer)
    if array is None:
        raise KeyError(f"buffer {buffer.name} is not allocated here")
    assert isinstance(array, np.ndarray)
    if len(idx) != array.ndim:
        raise IndexError(f"{buffer.name}: {len(idx)} indices for {array.ndim} dimensions")
    for i, n in zip(idx, array.shape, strict=True):
        if not 0 <= i < n:
            raise IndexError(f"{buffer.name}{list(idx)} is out of bounds for shape {array.shape}")
    return array, tuple(idx)


def _compile_node(e: ir.PrimExpr, subs: list[ExprFn]) -> ExprFn:
    """The closure of node ``e`` given the closures of its sub-expressions."""
    match e:
        case ir.Const(value, dtype):
            v = to_scalar(value, dtype)
            return lambda env: v
        case ir.Ref(var):

            def ref(env: Env) -> Scalar:
                value = env.get(var)
                if value is None:
                    raise KeyError(f"variable {var.name} is not bound here")
                return value  # type: ignore[return-value]

            return ref
        case ir.Binary(bop, a, _):
            fa, fb = subs
            dtype = a.dtype
            return lambda env: binary(bop, fa(env), fb(env), dtype)
        case ir.Unary(uop, a):
            (fa,) = subs
            dtype = a.dtype
            return lambda env: unary(uop, fa(env), dtype)
        case ir.Cast(dtype, a):
            (fa,) = subs
            source = a.dtype
            return lambda env: cast(fa(env), source, dtype)
        case ir.Select():
            fc, ft, ff = subs

            def select(env: Env) -> Scalar:
                c, vt, vf = fc(env), ft(env), ff(env)
                return vt if c else vf

            return select
        case ir.Call(name, args, _):
            operand = args[0].dtype if args else "float32"
            return lambda env: intrinsic(name, [f(env) for f in subs], operand)
        case ir.Load(buffer, _):
            dtype = buffer.dtype

            def load(env: Env) -> Scalar:
                array, idx = _bounds_checked(buffer, [int(f(env)) for f in subs], env)
                return to_scalar(array[idx], dtype)

            return load
        case _:
            assert_never(e)


def compile_expr(e: ir.PrimExpr) -> ExprFn:
    """``e`` as a closure from an environment to its value.

    The expression is compiled into a tape: one step per distinct node object, in post-order
    (built with ``ir.fold_expr``, no recursion), each step reading its operands' values from
    the slots of the steps before it. Evaluation is a loop over the tape, so an expression of
    any depth runs without Python recursion, and a node shared by several parents (the
    ``a`` of ``select(a > b, a, b)``) is computed once per evaluation."""
    slots: list[Scalar] = []
    steps: list[ExprFn] = []

    def node(x: ir.PrimExpr, operands: list[int]) -> int:
        steps.append(_compile_node(x, [_slot(slots, k) for k in operands]))
        return len(steps) - 1

    root = ir.fold_expr(e, node)
    if root == 0 and len(steps) == 1:
        return steps[0]  # a leaf: no tape needed
    last = len(steps) - 1
    assert root == last

    def run(env: Env) -> Scalar:
        slots.clear()
        append = slots.append
        for step in steps:
            append(step(env))
        return slots[last]

    return run


def _slot(slots: list[Scalar], k: int) -> ExprFn:
    """A reader of the value of tape step ``k``."""
    return lambda env: slots[k]


def _shape(buffer: ir.Buffer, env: Env) -> tuple[int, ...]:
    return tuple(int(compile_expr(d)(env)) for d in buffer.shape)


def _poison(shape: tuple[int, ...], dtype: str) -> Array:
    """A fresh local buffer: NaN for floats, the largest value for integers, so that a read
    before the first store shows in the result."""
    if is_float(dtype):
        return np.full(shape, np.nan, dtype=np.dtype(dtype))
    return np.full(shape, int_bounds(dtype)[1], dtype=np.dtype(dtype))


def _extern(name: str, args: Sequence[ir.PrimExpr | ir.Buffer]) -> StmtFn:
    """The external functions the interpreter knows: ``cblas_sgemm`` and ``cblas_sgemv``
    (row-major only)."""
    if name not in ("cblas_sgemm", "cblas_sgemv"):
        raise NotImplementedError(f"extern call {name} is not known to the interpreter")
    scalars = [compile_expr(a) if not isinstance(a, ir.Buffer) else None for a in args]

    def scalar(env: Env, i: int) -> Scalar:
        fn = scalars[i]
        assert fn is not None, f"{name} argument {i} must be a scalar"
        return fn(env)

    def flat(env: Env, i: int) -> Array:
        buffer = args[i]
        assert isinstance(buffer, ir.Buffer), f"{name} argument {i} must be a buffer"
        array = env[buffer]
        assert isinstance(array, np.ndarray)
        return array.reshape(-1)

    def sgemv(env: Env) -> None:
        order, trans = int(scalar(env, 0)), int(scalar(env, 1))
        m, n = int(scalar(env, 2)), int(scalar(env, 3))
        alpha, beta = float(scalar(env, 4)), float(scalar(env, 9))
        a, lda = flat(env, 5), int(scalar(env, 6))
        x, incx = flat(env, 7), int(scalar(env, 8))
        y, incy = flat(env, 10), int(scalar(env, 11))
        assert order == 101, "cblas_sgemv: only row-major (101) is supported"
        assert incx > 0 and incy > 0, "cblas_sgemv: only positive increments are supported"
        ma = np.lib.stride_tricks.as_strided(a, (m, n), (lda * 4, 4))
        ma = ma.T if trans == 112 else ma
        vx = x[: (ma.shape[1] - 1) * incx + 1 : incx]
        vy = y[: (ma.shape[0] - 1) * incy + 1 : incy]
        product = np.multiply(ma.astype(np.float32) @ vx.astype(np.float32), np.float32(alpha))
        if beta == 0.0:
            vy[...] = product
        else:
            vy[...] = product + np.multiply(vy, np.float32(beta))

    if name == "cblas_sgemv":
        return sgemv

    def sgemm(env: Env) -> None:
        order, trans_a, trans_b = (int(scalar(env, i)) for i in range(3))
        m, n, k = (int(scalar(env, i)) for i in range(3, 6))
        alpha, beta = float(scalar(env, 6)), float(scalar(env, 11))
        a, lda, b, ldb = flat(env, 7), int(scalar(env, 8)), flat(env, 9), int(scalar(env, 10))
        c, ldc = flat(env, 12), int(scalar(env, 13))
        assert order == 101, "cblas_sgemm: only row-major (101) is supported"
        rows_a, cols_a = (k, m) if trans_a == 112 else (m, k)
        rows_b, cols_b = (n, k) if trans_b == 112 else (k, n)
        ma = np.lib.stride_tricks.as_strided(a, (rows_a, cols_a), (lda * 4, 4))
        mb = np.lib.stride_tricks.as_strided(b, (rows_b, cols_b), (ldb * 4, 4))
        mc = np.lib.stride_tricks.as_strided(c, (m, n), (ldc * 4, 4))
        ma = ma.T if trans_a == 112 else ma
        mb = mb.T if trans_b == 112 else mb
        product = np.multiply(ma.astype(np.float32) @ mb.astype(np.float32), np.float32(alpha))
        if beta == 0.0:
            mc[...] = product
        else:
            mc[...] = product + np.multiply(mc, np.float32(beta))

    return sgemm


def compile_stmt(s: ir.Stmt) -> StmtFn:
    """``s`` as a closure that runs it in an environment. (The statement tree of a kernel is
    as deep as its loop nests, a few levels per tensor: recursion here is on that depth, not
    on the depth of a Relay program.)"""
    match s:
        case ir.For(var, extent, _, body):
            fext, fbody = compile_expr(extent), compile_stmt(body)

            def loop(env: Env) -> None:
                for i in range(int(fext(env))):
                    env[var] = i
                    fbody(env)
                env.pop(var, None)

            return loop
        case ir.Store(buffer, indices, value):
            fidx = [compile_expr(i) for i in indices]
            fvalue = compile_expr(value)
            dtype = buffer.dtype

            def store(env: Env) -> None:
                v = fvalue(env)
                array, idx = _bounds_checked(buffer, [int(f(env)) for f in fidx], env)
                if is_float(dtype):
                    array[idx] = v
                else:
                    assert isinstance(v, int)
                    array[idx] = wrap(v, dtype)

            return store
        case ir.Allocate(buffer, body):
            fbody = compile_stmt(body)

            def allocate(env: Env) -> None:
                env[buffer] = _poison(_shape(buffer, env), buffer.dtype)
                fbody(env)
                env.pop(buffer, None)

            return allocate
        case ir.LetStmt(var, value, body):
            fvalue, fbody = compile_expr(value), compile_stmt(body)

            def let(env: Env) -> None:
                env[var] = fvalue(env)
                fbody(env)
                env.pop(var, None)

            return let
        case ir.IfThenElse(cond, then, orelse):
            fc, ft = compile_expr(cond), compile_stmt(then)
            fe = compile_stmt(orelse) if orelse is not None else None

            def if_then_else(env: Env) -> None:
                if fc(env):
                    ft(env)
                elif fe is not None:
                    fe(env)

            return if_then_else
        case ir.Seq(stmts):
            fns = [compile_stmt(x) for x in stmts]

            def seq(env: Env) -> None:
                for fn in fns:
                    fn(env)

            return seq
        case ir.ExternCall(name, args):
            return _extern(name, args)
        case ir.Barrier():
            raise NotImplementedError("a barrier is evaluated only by a GPU emulation")
        case _:
            assert_never(s)


def bind_sizes(
    kernel: ir.Kernel,
    shapes: Sequence[tuple[int, ...]],
    sizes: Mapping[ir.SizeVar, int] | None = None,
) -> dict[ir.SizeVar, int]:
    """The kernel's size parameters: ``sizes``, plus those that are a whole dimension of an
    input buffer, read off ``shapes`` (the inputs' shapes). Raises ``ValueError`` for a size
    that cannot be bound or an input whose shape contradicts the binding."""
    bound: dict[ir.SizeVar, int] = dict(sizes or {})
    for buffer, shape in zip(kernel.inputs, shapes, strict=True):
        if len(shape) != buffer.ndim:
            raise ValueError(f"input {buffer.name}: rank {len(shape)}, expected {buffer.ndim}")
        for d, n in zip(buffer.shape, shape, strict=True):
            var = d.var if isinstance(d, ir.Ref) else None
            if isinstance(var, ir.SizeVar) and bound.setdefault(var, n) != n:
                raise ValueError(f"size {var.name} is both {bound[var]} and {n}")
    missing = [v.name for v in kernel.sizes if v not in bound]
    if missing:
        raise ValueError(f"kernel {kernel.name}: sizes {missing} are not bound")
    return bound


def run_kernel(
    kernel: ir.Kernel,
    inputs: Sequence[np.ndarray],
    sizes: Mapping[ir.SizeVar, int] | None = None,
) -> list[np.ndarray]:
    """Run ``kernel`` on ``inputs`` (arrays of the input buffers' dtypes and shapes) and return
    its outputs, allocated from their shapes (see the module docstring). A kernel with
    constants (``kernel.attrs["constants"]``, the arrays of its last inputs) may be given only
    the other inputs: the constants are appended."""
    constants = kernel.attrs.get("constants", ())
    assert isinstance(constants, tuple)
    if constants and len(inputs) == len(kernel.inputs) - len(constants):
        inputs = [*inputs, *constants]
    if len(inputs) != len(kernel.inputs):
        raise ValueError(
            f"kernel {kernel.name} takes {len(kernel.inputs)} inputs, given {len(inputs)}"
        )
    bound = bind_sizes(kernel, [tuple(np.shape(a)) for a in inputs], sizes)
    env: Env = {v: n for v, n in bound.items()}
    for buffer, array in zip(kernel.inputs, inputs, strict=True):
        expected = _shape(buffer, env)
        if tuple(array.shape) != expected:
            raise ValueError(f"input {buffer.name}: shape {array.shape}, expected {expected}")
        env[buffer] = np.array(array, dtype=np.dtype(buffer.dtype), order="C")
    outputs = [_poison(_shape(b, env), b.dtype) for b in kernel.outputs]
    for buffer, array in zip(kernel.outputs, outputs, strict=True):
        env[buffer] = array
    compile_stmt(kernel.body)(env)
    return outputs


__all__ = [
    "binary",
    "bind_sizes",
    "cast",
    "compile_expr",
    "compile_stmt",
    "intrinsic",
    "run_kernel",
    "unary",
    "wrap",
]
