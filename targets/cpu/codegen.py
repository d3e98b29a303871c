"""CPU code generation: a loop-IR kernel (``compiler.lower.ir``) becomes native code via LLVM.

``compile_kernel(kernel, threads=N)`` prints the kernel as LLVM IR (``llvmlite.ir``), looks the
IR's structural hash up in the cache (``targets.cpu.cache``), and otherwise optimises it (the
host CPU's name and features, O3, the loop vectoriser; ``targets.cpu.jit``), emits an object
and loads it into the ORC JIT. The result, a ``CompiledKernel``, is called with numpy arrays.

**Functions.** A kernel becomes ``void @relay_<name>(ptr noalias %buf..., i64 %size...)``: one
pointer per buffer parameter (inputs, then outputs; the buffers must not overlap) and one
``i64`` per size parameter. Multi-dimensional loads and stores are flattened through the
buffer's strides (row-major when ``None``) into one ``getelementptr``: addresses are never
integers (``ptrtoint``/``inttoptr``). A kernel whose body is a sequence holding ``parallel``
loops also gets one function per top-level segment: ``@relay_<name>__s<k>`` for a run of other
statements, ``@relay_<name>__p<k>(..., i64 %lo, i64 %hi)`` for the iterations ``lo .. hi-1``
of a parallel loop, and ``@relay_<name>__n<k>(...) -> i64`` for its extent; with ``threads``
above 1 the segments run in order and each parallel one is split across a thread pool
(``targets.cpu.threads``), with OpenBLAS single-threaded while the tasks of one that calls
``sgemm`` run (``externs.single_threaded_blas``). Parallel loops anywhere else run serially.

**Scalars**, exactly as ``compiler.lower.ir`` defines them (and ``compiler.lower.evaluate``
computes them):

- registers hold ``i1`` for bool, ``iN`` for (un)signed integers, ``half``/``float``/``double``
  for floats; memory holds bool as ``i8`` (``zext`` on store, ``!= 0`` on load);
- integer ``+ - *`` wrap (no ``nsw``/``nuw``); ``/`` and ``%`` are ``sdiv``/``srem`` on signed,
  ``udiv``/``urem`` on unsigned and bool, with the divisor replaced by 1 where the division is
  undefined (by zero, the smallest signed value by -1), so that a program that reaches
  undefined behaviour gets some value instead of a trap that would kill the process; ``//``
  and ``%%`` are the truncating results moved one step toward negative infinity when the
  remainder is non-zero and has the divisor's opposite sign; shifts are ``shl``, ``ashr``
  (signed) and ``lshr`` (unsigned); comparisons of signed integers are signed, of unsigned and
  bool unsigned;
- floats: ``fadd``/``fsub``/``fmul``/``fdiv``/``frem`` with no fast-math flags; ``//`` and
  ``%%`` follow numpy's ``floor_divide``/``remainder`` (``fmod``, then the sign correction and
  the snap of the quotient to the nearest integer that numpy's ``npy_divmod`` makes); ``min``
  and ``max`` propagate NaN as numpy's ``minimum``/``maximum`` (``llvm.minimum``/``maximum``);
  comparisons are ordered except ``!=``, which is unordered (``une``: true when either side is
  NaN), as numpy's;
- float16 is computed in float32 and rounded back after every operation (``fpext``, the
  operation, ``fptrunc``), which is the one rounding per operation the reference makes;
- casts: float to integer ``fptosi``/``fptoui`` (out of range stays undefined), integer to
  float ``sitofp``/``uitofp`` (bool is unsigned), integer to integer ``trunc``/``sext``/``zext``
  by the source's signedness, float to float ``fpext``/``fptrunc``, to bool ``!= 0`` (for
  floats ordered: NaN is false, as the spec's ``cast``);
- intrinsics: LLVM's intrinsics where LLVM has one (``sqrt fabs floor ceil trunc copysign``,
  ``round`` as ``roundeven``, ``exp log log2 log10 pow sin cos tan asin acos atan atan2 sinh
  cosh tanh``; the non-exact ones become calls of the C library's functions, whose results are
  within the tolerance policy of numpy's: see the tests), the C library's ``asinhf`` ...
  ``atanh`` where LLVM has none, ``erf`` in double precision rounded once (as the reference),
  ``rsqrt`` as ``1 / sqrt(x)`` (two roundings, as the reference), ``isnan`` ``isinf``
  ``isfinite`` as comparisons.

**Reductions.** A ``Store`` whose value is ``buffer[indices] + x`` or ``buffer[indices] * x``
for the very element it stores (an accumulation) computes that ``+``/``*`` with ``reassoc
contract`` (and a product ``x`` of floats with ``contract``), which lets LLVM vectorise the
reduction and fuse multiply-adds: the tolerance policy's reduction budget covers the
reordering. Every other float operation is exact IEEE.

**Loops** are counted ``0 .. extent-1``; ``vectorized`` loops carry ``llvm.loop.vectorize.enable``
and ``unrolled`` ones of constant extent ``llvm.loop.unroll.full`` (with a run-time extent LLVM's
own unroller decides).

**Local buffers** (``Allocate``) of a constant size up to ``STACK_LIMIT`` bytes are ``alloca``s
in the function's entry block (one slot reused by every execution of the ``Allocate``: its
contents are undefined until stored); larger ones are ``malloc``-ed where the ``Allocate``
runs and freed after its body.

**External calls**: ``cblas_sgemm`` and ``cblas_sgemv`` (``targets.cpu.externs``).

A kernel LLVM rejects, or one the code generator cannot translate, raises
``KernelCompileError`` with the kernel's name and its LLVM IR, saved to a file under the cache
directory's ``failed/`` folder.
"""

from __future__ import annotations

import ctypes
import functools
import hashlib
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeAlias, assert_never, cast

import llvmlite.ir as lir
import numpy as np
import numpy.typing as npt

from ...compiler.lower import ir
from ...compiler.lower.printer import kernel_text
from ...semantics.errors import BackendError
from . import cache, externs, jit, threads

STACK_LIMIT = 32 * 1024
"""The largest constant-size local buffer (in bytes) placed on the stack."""

I1 = lir.IntType(1)
I8 = lir.IntType(8)
I32 = lir.IntType(32)
I64 = lir.IntType(64)
F16 = lir.HalfType()
F32 = lir.FloatType()
F64 = lir.DoubleType()
PTR = lir.PointerType()
VOID = lir.VoidType()

_FLOATS = {"float16": F16, "float32": F32, "float64": F64}
_LIBM = {"asinh": "asinh", "acosh": "acosh", "atanh": "atanh"}
_SAME_NAME_INTRINSICS = (
    *("exp", "log", "log2", "log10", "sqrt", "sin", "cos", "tan", "asin", "acos", "atan"),
    *("sinh", "cosh", "tanh", "floor", "ceil", "trunc", "pow", "atan2", "copysign"),
)
_LLVM_INTRINSICS = {
    **{name: name for name in _SAME_NAME_INTRINSICS},
    "fabs": "fabs",
    "round": "roundeven",
}

Array: TypeAlias = npt.NDArray[np.generic]


class KernelCompileError(BackendError):
    """LLVM rejected the code generated for a kernel (an internal error: exit 3 at the command
    line). ``llvm_ir`` is the generated IR; ``path`` the file it was saved to, if any."""

    def __init__(
        self, kernel_name: str, message: str, llvm_ir: str, *, path: str | None = None
    ) -> None:
        saved = f" (LLVM IR saved to {path})" if path else ""
        super().__init__(f"kernel {kernel_name}: {message}{saved}", target="cpu")
        self.kernel_name = kernel_name
        self.reason = message
        self.llvm_ir = llvm_ir
        self.path = path


class _Unsupported(Exception):
    """The kernel uses something this code generator cannot translate."""


# ---------------------------------------------------------------------------------------------
# Types


def is_float(dtype: str) -> bool:
    """Whether ``dtype`` is a float dtype."""
    return dtype in _FLOATS


def _is_signed(dtype: str) -> bool:
    return dtype.startswith("int")


def _bits(dtype: str) -> int:
    return 1 if dtype == "bool" else np.dtype(dtype).itemsize * 8


def register_type(dtype: str) -> lir.Type:
    """The LLVM type of a ``dtype`` value in a register (bool is ``i1``)."""
    if dtype in _FLOATS:
        return _FLOATS[dtype]
    if dtype == "bool" or dtype.startswith(("int", "uint")):
        return lir.IntType(_bits(dtype))
    raise _Unsupported(f"unknown dtype {dtype!r}")


def memory_type(dtype: str) -> lir.Type:
    """The LLVM type of a ``dtype`` element in memory (bool is ``i8``)."""
    return I8 if dtype == "bool" else register_type(dtype)


def _item_size(dtype: str) -> int:
    return 1 if dtype == "bool" else np.dtype(dtype).itemsize


def _constant(value: int | float, dtype: str) -> lir.Constant:
    typ = register_type(dtype)
    if is_float(dtype):
        with np.errstate(over="ignore"):  # a literal beyond the dtype's range is infinite
            rounded = float(np.dtype(dtype).type(value))  # rounded to its own dtype
        return lir.Constant(typ, rounded)
    bits = _bits(dtype)
    v = int(value) & ((1 << bits) - 1)
    if bits > 1 and v >= 1 << (bits - 1):
        v -= 1 << bits  # two's complement: LLVM prints and reads signed literals
    return lir.Constant(typ, v)


def _hint(name: str) -> str:
    """A variable's or buffer's name without its digits, for naming LLVM values: the lowering
    numbers names from a process-wide counter, and the LLVM IR (the cache key) must not depend
    on it; the code generator numbers values by order of first appearance instead."""
    return re.sub(r"[^A-Za-z_]", "", name) or "v"


def symbol_base(kernel_name: str) -> str:
    """The LLVM symbol of a kernel: ``relay_`` and its name with other characters as ``_``."""
    return "relay_" + re.sub(r"[^A-Za-z0-9_]", "_", kernel_name)


# ---------------------------------------------------------------------------------------------
# Segments: the top-level statements, with the parallel loops picked out


@dataclass(frozen=True)
class _Segment:
    kind: Literal["serial", "parallel"]
    stmt: ir.Stmt
    symbol: str
    extent_symbol: str = ""


def _is_size_expression(e: ir.PrimExpr) -> bool:
    """Whether ``e`` is integer arithmetic over literals and size parameters only."""
    work = [e]
    while work:
        match work.pop():
            case ir.Const() | ir.Ref(ir.SizeVar()):
                pass
            case ir.Binary(ir.BinOp.ADD | ir.BinOp.SUB | ir.BinOp.MUL, a, b):
                work += [a, b]
            case _:
                return False
    return True


def _top_level(body: ir.Stmt) -> tuple[list[ir.Stmt], list[ir.Buffer]]:
    """The statements of the top-level sequence, looking through ``Allocate``s whose size the
    caller can compute from the sizes (those buffers are returned as the scratch buffers)."""
    out: list[ir.Stmt] = []
    scratch: list[ir.Buffer] = []
    work = [body]
    while work:
        s = work.pop()
        if isinstance(s, ir.Seq):
            work.extend(reversed(s.stmts))
        elif (
            isinstance(s, ir.Allocate)
            and s.buffer.strides is None
            and all(_is_size_expression(e) for e in s.buffer.shape)
        ):
            scratch.append(s.buffer)
            work.append(s.body)
        else:
            out.append(s)
    return out, scratch


def _segments(kernel: ir.Kernel, base: str) -> tuple[list[_Segment], list[ir.Buffer]]:
    """The kernel's top-level segments and the scratch buffers they share, or ``[], []``
    when it has no top-level parallel loop."""
    stmts, scratch = _top_level(kernel.body)
    if not any(isinstance(s, ir.For) and s.kind is ir.LoopKind.PARALLEL for s in stmts):
        return [], []
    segments: list[_Segment] = []
    run: list[ir.Stmt] = []

    def flush() -> None:
        if run:
            k = len(segments)
            segments.append(_Segment("serial", ir.Seq(tuple(run)), f"{base}__s{k}"))
            run.clear()

    for s in stmts:
        if isinstance(s, ir.For) and s.kind is ir.LoopKind.PARALLEL:
            flush()
            k = len(segments)
            segments.append(_Segment("parallel", s, f"{base}__p{k}", f"{base}__n{k}"))
        else:
            run.append(s)
    flush()
    return segments, scratch


# ---------------------------------------------------------------------------------------------
# Emitting one LLVM function


def _children(e: ir.PrimExpr) -> tuple[ir.PrimExpr, ...]:
    match e:
        case ir.Const() | ir.Ref():
            return ()
        case ir.Binary(_, a, b):
            return (a, b)
        case ir.Unary(_, a) | ir.Cast(_, a):
            return (a,)
        case ir.Select(c, t, f):
            return (c, t, f)
        case ir.Call(_, args, _):
            return args
        case ir.Load(_, indices):
            return indices
        case _:
            assert_never(e)


def _node_dtype(e: ir.PrimExpr, operand_dtypes: list[str]) -> str:
    """The dtype of ``e`` from its operands' (``e.dtype`` recomputes them recursively)."""
    match e:
        case ir.Const(_, dtype) | ir.Cast(dtype) | ir.Call(_, _, dtype):
            return dtype
        case ir.Ref(var):
            return var.dtype
        case ir.Load(buffer):
            return buffer.dtype
        case ir.Binary(op):
            return "bool" if op in ir.COMPARISONS else operand_dtypes[0]
        case ir.Unary() | ir.Select():
            return operand_dtypes[-1]
        case _:
            assert_never(e)


def _accumulation(s: ir.Store) -> ir.Binary | None:
    """The ``+``/``*`` of a float accumulation ``b[i] = b[i] op x`` (or ``x op b[i]``)."""
    v = s.value
    if not (isinstance(v, ir.Binary) and v.op in (ir.BinOp.ADD, ir.BinOp.MUL)):
        return None
    if not is_float(s.buffer.dtype) or s.buffer.dtype == "float16":
        return None  # float16 accumulates exactly: each step rounds, as the reference
    for operand in (v.a, v.b):
        if (
            isinstance(operand, ir.Load)
            and operand.buffer is s.buffer
            and operand.indices == s.indices
        ):
            return v
    return None


Flags: TypeAlias = tuple[str, ...]
_REDUCTION_FLAGS: Flags = ("reassoc", "contract")


class _Module:
    """The LLVM module being built: declarations shared by its functions, the loop metadata
    counter and the external symbols it imports."""

    def __init__(self, name: str, triple_and_layout: tuple[str, str] | None = None) -> None:
        self.module = lir.Module(name=name)
        triple, layout = triple_and_layout or jit.triple_and_layout()
        self.module.triple, self.module.data_layout = triple, layout
        self.imports: dict[str, int] = {}
        self._loops = 0

    def function(self, name: str, ret: lir.Type, args: Sequence[lir.Type]) -> lir.Function:
        """The declaration of ``name`` (created on first use)."""
        existing = self.module.globals.get(name)
        if isinstance(existing, lir.Function):
            return existing
        fn = lir.Function(self.module, lir.FunctionType(ret, list(args)), name=name)
        return fn

    def loop_metadata(self, options: list[tuple[str, bool | int]]) -> lir.MDValue:
        """A distinct loop ID node carrying ``options`` (name, value)."""
        self._loops += 1
        nodes: list[lir.Value] = [
            self.module.add_metadata(
                [lir.MetaDataString(self.module, "relay.loop.id"), lir.Constant(I32, self._loops)]
            )
        ]
        for name, value in options:
            typ = I1 if isinstance(value, bool) else I32
            operand = lir.Constant(typ, value)
            nodes.append(self.module.add_metadata([lir.MetaDataString(self.module, name), operand]))
        loop = self.module.add_metadata([None, *nodes])
        loop.operands = (loop, *loop.operands[1:])
        return loop


class _FunctionEmitter:
    """Emits one LLVM function whose arguments are the kernel's buffers, then the ``scratch``
    buffers (a segment's share of the top-level local buffers), then the sizes (and ``extra``
    trailing ``i64`` arguments)."""

    def __init__(
        self,
        m: _Module,
        kernel: ir.Kernel,
        symbol: str,
        ret: lir.Type,
        extra: int = 0,
        scratch: Sequence[ir.Buffer] = (),
    ) -> None:
        self.m = m
        self.kernel = kernel
        params = (*kernel.params, *scratch)
        types: list[lir.Type] = [PTR] * len(params) + [I64] * (len(kernel.sizes) + extra)
        self.fn = m.function(symbol, ret, types)
        self.fn.attributes.add("nounwind")
        args = list(self.fn.args)
        self.buffers: dict[ir.Buffer, lir.Value] = {}
        for k, (buffer, arg) in enumerate(zip(params, args, strict=False)):
            arg.add_attribute("noalias")
            arg.name = f"buf{k}.{_hint(buffer.name)}"
            self.buffers[buffer] = arg
        self.scalars: dict[ir.Variable, lir.Value] = {}
        for k, (size, arg) in enumerate(zip(kernel.sizes, args[len(params) :], strict=False)):
            arg.name = f"size{k}.{_hint(size.name)}"
            self.scalars[size] = arg
        self.loops = 0  # loops opened so far: their number names their blocks
        self.extra = args[len(params) + len(kernel.sizes) :]
        entry = self.fn.append_basic_block("entry")
        self.entry = lir.IRBuilder(entry)
        self.b = lir.IRBuilder(self.fn.append_basic_block("body"))

    def finish(self, value: lir.Value | None = None) -> None:
        """Terminate the function (returning ``value``) and close the entry block."""
        if value is None:
            self.b.ret_void()
        else:
            self.b.ret(value)
        self.entry.branch(self.fn.blocks[1])

    # -- expressions ---------------------------------------------------------------------------

    def expr(self, root: ir.PrimExpr) -> lir.Value:
        """The value of ``root``, emitted at the builder's position (iterative post-order; a
        sub-expression shared inside ``root`` is emitted once)."""
        memo: dict[int, tuple[lir.Value, str]] = {}  # a node's value and dtype
        stack: list[tuple[ir.PrimExpr, bool]] = [(root, False)]
        while stack:
            node, ready = stack.pop()
            if id(node) in memo:
                continue
            kids = _children(node)
            if not ready and kids:
                stack.append((node, True))
                stack.extend((k, False) for k in kids if id(k) not in memo)
                continue
            values = [memo[id(k)][0] for k in kids]
            dtypes = [memo[id(k)][1] for k in kids]
            memo[id(node)] = self._node(node, values, dtypes), _node_dtype(node, dtypes)
        return memo[id(root)][0]

    def _node(self, e: ir.PrimExpr, kids: list[lir.Value], dtypes: list[str]) -> lir.Value:
        """One node, given its operands' values and dtypes (never ``e.dtype``, which recurses
        on the depth of the expression)."""
        match e:
            case ir.Const(value, dtype):
                return _constant(value, dtype)
            case ir.Ref(var):
                if var not in self.scalars:
                    raise _Unsupported(f"variable {var.name} is used outside its scope")
                return self.scalars[var]
            case ir.Binary(op):
                return self.binary(op, kids[0], kids[1], dtypes[0])
            case ir.Unary(op):
                return self.unary(op, kids[0], dtypes[0])
            case ir.Cast(dtype):
                return self.cast(kids[0], dtypes[0], dtype)
            case ir.Select():
                return self.b.select(kids[0], kids[1], kids[2])
            case ir.Call(name, args, _):
                return self.call(name, kids, dtypes[0] if args else "float32")
            case ir.Load(buffer, _):
                value = self.b.load(self.address(buffer, kids), typ=memory_type(buffer.dtype))
                if buffer.dtype == "bool":
                    return self.b.icmp_unsigned("!=", value, lir.Constant(I8, 0))
                return value
            case _:
                assert_never(e)

    def _wide(self, v: lir.Value, dtype: str) -> lir.Value:
        return self.b.fpext(v, F32) if dtype == "float16" else v

    def _narrow(self, v: lir.Value, dtype: str) -> lir.Value:
        return self.b.fptrunc(v, F16) if dtype == "float16" else v

    def _intrinsic(self, name: str, args: Sequence[lir.Value]) -> lir.Value:
        typ = args[0].type
        suffix = {F16: "f16", F32: "f32", F64: "f64"}.get(typ)
        if suffix is None:
            suffix = f"i{typ.width}"
        fn = self.m.function(f"llvm.{name}.{suffix}", typ, [a.type for a in args])
        return self.b.call(fn, list(args))

    def binary(
        self, op: ir.BinOp, a: lir.Value, b: lir.Value, dtype: str, flags: Flags = ()
    ) -> lir.Value:
        """``a op b`` for operands of ``dtype``."""
        if is_float(dtype):
            wa, wb = self._wide(a, dtype), self._wide(b, dtype)
            if op in ir.COMPARISONS:
                return self._float_compare(op, wa, wb)
            return self._narrow(self._float_binary(op, wa, wb, flags), dtype)
        return self._int_binary(op, a, b, dtype)

    def _float_compare(self, op: ir.BinOp, a: lir.Value, b: lir.Value) -> lir.Value:
        if op is ir.BinOp.NE:
            return self.b.fcmp_unordered("!=", a, b)
        return self.b.fcmp_ordered(op.value, a, b)

    def _float_binary(self, op: ir.BinOp, a: lir.Value, b: lir.Value, flags: Flags) -> lir.Value:
        B = self.b
        match op:
            case ir.BinOp.ADD:
                return B.fadd(a, b, flags=flags)
            case ir.BinOp.SUB:
                return B.fsub(a, b, flags=flags)
            case ir.BinOp.MUL:
                return B.fmul(a, b, flags=flags)
            case ir.BinOp.DIV:
                return B.fdiv(a, b)
            case ir.BinOp.MOD:
                return self.fmod(a, b)
            case ir.BinOp.FLOORDIV:
                return self._float_divmod(a, b)[0]
            case ir.BinOp.FLOORMOD:
                return self._float_divmod(a, b)[1]
            case ir.BinOp.MIN:
                return self._intrinsic("minimum", [a, b])
            case ir.BinOp.MAX:
                return self._intrinsic("maximum", [a, b])
            case _:
                raise _Unsupported(f"operator {op.value} on floats")

    def _float_divmod(self, a: lir.Value, b: lir.Value) -> tuple[lir.Value, lir.Value]:
        """numpy's ``npy_divmod`` (floor quotient, remainder with the divisor's sign)."""
        B = self.b
        typ = a.type
        zero, one, half = (lir.Constant(typ, v) for v in (0.0, 1.0, 0.5))
        mod = self.fmod(a, b)
        quotient = B.fdiv(a, b)
        div = B.fdiv(B.fsub(a, mod), b)
        mod_nonzero = B.fcmp_unordered("!=", mod, zero)  # C's `if (mod)`: NaN is true
        signs_differ = B.xor(B.fcmp_ordered("<", b, zero), B.fcmp_ordered("<", mod, zero))
        adjust = B.and_(mod_nonzero, signs_differ)
        mod = B.select(adjust, B.fadd(mod, b), mod)
        div = B.select(adjust, B.fsub(div, one), div)
        mod = B.select(mod_nonzero, mod, self._intrinsic("copysign", [zero, b]))
        floor = self._intrinsic("floor", [div])
        floor = B.select(B.fcmp_ordered(">", B.fsub(div, floor), half), B.fadd(floor, one), floor)
        div_nonzero = B.fcmp_unordered("!=", div, zero)
        floor = B.select(div_nonzero, floor, self._intrinsic("copysign", [zero, quotient]))
        b_zero = B.fcmp_ordered("==", b, zero)
        return B.select(b_zero, quotient, floor), mod

    def fmod(self, a: lir.Value, b: lir.Value) -> lir.Value:
        """C's ``fmod`` of two floats (LLVM's ``frem``; another target may override it)."""
        return self.b.frem(a, b)

    def _safe_divisor(self, a: lir.Value, b: lir.Value, signed: bool) -> lir.Value:
        """``b``, except 1 where the division is undefined (by zero; the smallest signed value
        by -1): any result is allowed there, and the hardware would trap (SIGFPE).

        Written as arithmetic, ``b | (b == 0)`` (plus 2 where ``a`` is the smallest value and
        ``b`` is -1), not as a ``select``: LLVM 22's loop vectoriser fails an assertion (and
        aborts the process) on some loops that divide by a ``select``
        (``test_regression_vectoriser_abort_on_select_divisor``)."""
        B = self.b
        typ = b.type
        safe = B.or_(b, B.zext(B.icmp_unsigned("==", b, lir.Constant(typ, 0)), typ))
        if signed:
            smallest = lir.Constant(typ, -(1 << (typ.width - 1)))
            overflow = B.and_(
                B.icmp_signed("==", a, smallest), B.icmp_signed("==", b, lir.Constant(typ, -1))
            )
            safe = B.add(safe, B.shl(B.zext(overflow, typ), lir.Constant(typ, 1)))
        return safe

    def _int_binary(self, op: ir.BinOp, a: lir.Value, b: lir.Value, dtype: str) -> lir.Value:
        B = self.b
        signed = _is_signed(dtype)
        if op in ir.COMPARISONS:
            compare = B.icmp_signed if signed else B.icmp_unsigned
            return compare(op.value, a, b)
        if op in (ir.BinOp.DIV, ir.BinOp.MOD, ir.BinOp.FLOORDIV, ir.BinOp.FLOORMOD):
            b = self._safe_divisor(a, b, signed)
        match op:
            case ir.BinOp.ADD:
                return B.add(a, b)
            case ir.BinOp.SUB:
                return B.sub(a, b)
            case ir.BinOp.MUL:
                return B.mul(a, b)
            case ir.BinOp.DIV:
                return B.sdiv(a, b) if signed else B.udiv(a, b)
            case ir.BinOp.MOD:
                return B.srem(a, b) if signed else B.urem(a, b)
            case ir.BinOp.FLOORDIV | ir.BinOp.FLOORMOD if signed:
                zero = lir.Constant(a.type, 0)
                rem = B.srem(a, b)
                adjust = B.and_(
                    B.icmp_signed("!=", rem, zero), B.icmp_signed("<", B.xor(rem, b), zero)
                )
                if op is ir.BinOp.FLOORDIV:
                    return B.sub(B.sdiv(a, b), B.zext(adjust, a.type))
                return B.select(adjust, B.add(rem, b), rem)
            case ir.BinOp.FLOORDIV:
                return B.udiv(a, b)
            case ir.BinOp.FLOORMOD:
                return B.urem(a, b)
            case ir.BinOp.MIN:
                return self._intrinsic("smin" if signed else "umin", [a, b])
            case ir.BinOp.MAX:
                return self._intrinsic("smax" if signed else "umax", [a, b])
            case ir.BinOp.AND:
                return B.and_(a, b)
            case ir.BinOp.OR:
                return B.or_(a, b)
            case ir.BinOp.XOR:
                return B.xor(a, b)
            case ir.BinOp.SHL:
                return B.shl(a, b)
            case ir.BinOp.SHR:
                return B.ashr(a, b) if signed else B.lshr(a, b)
            case _:
                raise _Unsupported(f"operator {op.value} on {dtype}")

    def unary(self, op: ir.UnOp, a: lir.Value, dtype: str) -> lir.Value:
        """``op a`` for an operand of ``dtype``."""
        match op:
            case ir.UnOp.NEG:
                if is_float(dtype):
                    return self.b.fneg(a)  # a sign flip: exact in every width
                return self.b.sub(lir.Constant(a.type, 0), a)
            case ir.UnOp.NOT:
                if is_float(dtype):
                    raise _Unsupported(f"operator ! on {dtype}")
                return self.b.xor(a, lir.Constant(a.type, -1 if dtype != "bool" else 1))
            case _:
                assert_never(op)

    def cast(self, v: lir.Value, source: str, target: str) -> lir.Value:
        """``v`` of dtype ``source`` converted to ``target``."""
        B = self.b
        if source == target:
            return v
        typ = register_type(target)
        if target == "bool":
            if is_float(source):
                return B.fcmp_ordered("!=", v, lir.Constant(v.type, 0.0))  # NaN is false
            return B.icmp_unsigned("!=", v, lir.Constant(v.type, 0))
        if is_float(source) and is_float(target):
            if _item_size(source) < _item_size(target):
                return B.fpext(v, typ)
            return B.fptrunc(v, typ)
        if is_float(source):
            return B.fptosi(v, typ) if _is_signed(target) else B.fptoui(v, typ)
        if is_float(target):
            return B.sitofp(v, typ) if _is_signed(source) else B.uitofp(v, typ)
        source_bits, target_bits = _bits(source), _bits(target)
        if source_bits > target_bits:
            return B.trunc(v, typ)
        if source_bits < target_bits:
            return B.sext(v, typ) if _is_signed(source) else B.zext(v, typ)
        return v  # same width, other signedness: the same bits

    def call(self, name: str, args: list[lir.Value], dtype: str) -> lir.Value:
        """The intrinsic ``name`` on float ``args`` of ``dtype``."""
        if name not in ir.INTRINSICS:
            raise _Unsupported(f"unknown intrinsic {name!r}")
        if not is_float(dtype):
            raise _Unsupported(f"intrinsic {name} of {dtype}")
        B = self.b
        wide = [self._wide(a, dtype) for a in args]
        if name in ("isnan", "isinf", "isfinite"):
            x = wide[0]
            if name == "isnan":
                return B.fcmp_unordered("uno", x, x)
            magnitude = self._intrinsic("fabs", [x])
            inf = lir.Constant(x.type, float("inf"))
            return B.fcmp_ordered("==" if name == "isinf" else "<", magnitude, inf)
        if name == "rsqrt":
            root = self._narrow(self._intrinsic("sqrt", wide), dtype)
            one = lir.Constant(wide[0].type, 1.0)
            return self._narrow(B.fdiv(one, self._wide(root, dtype)), dtype)
        if name == "erf":
            x = B.fpext(args[0], F64) if dtype != "float64" else args[0]
            result = B.call(self.m.function("erf", F64, [F64]), [x])
            return B.fptrunc(result, register_type(dtype)) if dtype != "float64" else result
        if name in _LIBM:
            typ = wide[0].type
            symbol = _LIBM[name] + ("" if typ == F64 else "f")
            result = B.call(self.m.function(symbol, typ, [typ] * len(wide)), wide)
            return self._narrow(result, dtype)
        return self._narrow(self._intrinsic(_LLVM_INTRINSICS[name], wide), dtype)

    # -- addresses -----------------------------------------------------------------------------

    def _index_mul(self, a: lir.Value, b: lir.Value) -> lir.Value:
        if isinstance(a, lir.Constant) and isinstance(b, lir.Constant):
            return lir.Constant(I64, int(a.constant) * int(b.constant))
        if isinstance(b, lir.Constant) and int(b.constant) == 1:
            return a
        if isinstance(a, lir.Constant) and int(a.constant) == 1:
            return b
        return self.b.mul(a, b, flags=("nsw",))

    def _index_add(self, a: lir.Value, b: lir.Value) -> lir.Value:
        if isinstance(a, lir.Constant) and isinstance(b, lir.Constant):
            return lir.Constant(I64, int(a.constant) + int(b.constant))
        if isinstance(a, lir.Constant) and int(a.constant) == 0:
            return b
        if isinstance(b, lir.Constant) and int(b.constant) == 0:
            return a
        return self.b.add(a, b, flags=("nsw",))

    def strides(self, buffer: ir.Buffer) -> list[lir.Value]:
        """The buffer's strides in elements (row-major when it declares none)."""
        if buffer.strides is not None:
            return [self.expr(s) for s in buffer.strides]
        strides: list[lir.Value] = []
        step: lir.Value = lir.Constant(I64, 1)
        for extent in reversed(buffer.shape):
            strides.append(step)
            step = self._index_mul(step, self.expr(extent))
        return strides[::-1]

    def address(self, buffer: ir.Buffer, indices: Sequence[lir.Value]) -> lir.Value:
        """A pointer to ``buffer[indices]`` (one ``getelementptr`` of the flat offset)."""
        base = self.buffers.get(buffer)
        if base is None:
            raise _Unsupported(f"buffer {buffer.name} is used outside its scope")
        if len(indices) != buffer.ndim:
            raise _Unsupported(f"buffer {buffer.name} indexed with {len(indices)} indices")
        offset: lir.Value = lir.Constant(I64, 0)
        for i, stride in zip(indices, self.strides(buffer), strict=True):
            offset = self._index_add(offset, self._index_mul(i, stride))
        return self.b.gep(base, [offset], inbounds=True, source_etype=memory_type(buffer.dtype))

    # -- statements ----------------------------------------------------------------------------

    def stmt(
        self, root: ir.Stmt, *, parallel_range: tuple[lir.Value, lir.Value] | None = None
    ) -> None:
        """Emit ``root`` (iteratively: a work list of statements and continuations). With
        ``parallel_range``, ``root`` is a loop that runs only the iterations ``lo .. hi-1``."""
        work: list[ir.Stmt | Callable[[], None]] = [root]
        first_loop_range = parallel_range
        while work:
            item = work.pop()
            if callable(item):
                item()
                continue
            match item:
                case ir.For(var, extent, kind, body):
                    if first_loop_range is not None:
                        start, end = first_loop_range
                        first_loop_range = None
                    else:
                        start, end = lir.Constant(I64, 0), self.expr(extent)
                    work.append(self._open_loop(var, start, end, kind, extent))
                    work.append(body)
                case ir.Store(buffer, indices, value):
                    self._store(item, buffer, indices, value)
                case ir.Allocate(buffer, body):
                    work.append(self._allocate(buffer))
                    work.append(body)
                case ir.LetStmt(var, value, body):
                    self.scalars[var] = self.expr(value)
                    work.append(functools.partial(self._unbind, var))
                    work.append(body)
                case ir.IfThenElse(cond, then, orelse):
                    work.extend(reversed(self._if(cond, then, orelse)))
                case ir.Seq(stmts):
                    work.extend(reversed(stmts))
                case ir.ExternCall(name, args):
                    self._extern(name, args)
                case ir.Barrier():
                    self.barrier()
                case _:
                    assert_never(item)

    def barrier(self) -> None:
        """A block-wide barrier: the CPU has none (the GPU code generator overrides this)."""
        raise _Unsupported("a GPU barrier in a CPU kernel")

    def _unbind(self, var: ir.Variable) -> None:
        del self.scalars[var]

    def _open_loop(
        self,
        var: ir.LoopVar,
        start: lir.Value,
        end: lir.Value,
        kind: ir.LoopKind,
        extent: ir.PrimExpr,
    ) -> Callable[[], None]:
        B = self.b
        preheader = B.block
        label = f"{_hint(var.name)}{self.loops}"
        self.loops += 1
        header = self.fn.append_basic_block(f"for.{label}")
        body = self.fn.append_basic_block(f"for.{label}.body")
        exit_block = self.fn.append_basic_block(f"for.{label}.end")
        B.branch(header)
        B.position_at_end(header)
        i = B.phi(I64, name=label)
        i.add_incoming(start, preheader)
        B.cbranch(B.icmp_signed("<", i, end), body, exit_block)
        B.position_at_end(body)
        self.scalars[var] = i

        def close() -> None:
            nxt = B.add(i, lir.Constant(I64, 1), flags=("nuw", "nsw"))
            i.add_incoming(nxt, B.block)
            branch = B.branch(header)
            options: list[tuple[str, bool | int]] = []
            if kind is ir.LoopKind.VECTORIZED:
                options.append(("llvm.loop.vectorize.enable", True))
            elif kind is ir.LoopKind.UNROLLED and isinstance(extent, ir.Const):
                # (a runtime trip count gets no hint: LLVM would only warn that it cannot)
                options.append(("llvm.loop.unroll.full", True))
            if options:
                branch.set_metadata("llvm.loop", self.m.loop_metadata(options))
            B.position_at_end(exit_block)
            del self.scalars[var]

        return close

    def _store(
        self, s: ir.Store, buffer: ir.Buffer, indices: tuple[ir.PrimExpr, ...], value: ir.PrimExpr
    ) -> None:
        accumulation = _accumulation(s)
        if accumulation is None:
            v = self.expr(value)
        else:
            operands = []
            for operand in (accumulation.a, accumulation.b):
                if (
                    isinstance(operand, ir.Binary)
                    and operand.op is ir.BinOp.MUL
                    and accumulation.op is ir.BinOp.ADD
                ):  # a float product: the accumulation's operands have the buffer's dtype
                    x, y = self.expr(operand.a), self.expr(operand.b)
                    operands.append(self.binary(ir.BinOp.MUL, x, y, buffer.dtype, ("contract",)))
                else:
                    operands.append(self.expr(operand))
            v = self.binary(
                accumulation.op, operands[0], operands[1], buffer.dtype, _REDUCTION_FLAGS
            )
        if v.type != register_type(buffer.dtype):
            # opaque pointers: LLVM would store the value's own width, past the element
            raise _Unsupported(f"a {v.type} value stored into {buffer.dtype} buffer {buffer.name}")
        if buffer.dtype == "bool":
            v = self.b.zext(v, I8)
        index_values = [self.expr(i) for i in indices]
        self.b.store(v, self.address(buffer, index_values))

    def _constant_size(self, buffer: ir.Buffer) -> int | None:
        n = 1
        for extent in buffer.shape:
            if not isinstance(extent, ir.Const):
                return None
            n *= int(extent.value)
        return n

    def _allocate(self, buffer: ir.Buffer) -> Callable[[], None]:
        count = self._constant_size(buffer)
        etype = memory_type(buffer.dtype)
        if count is not None and count * _item_size(buffer.dtype) <= STACK_LIMIT:
            slot = self.entry.alloca(etype, size=lir.Constant(I64, max(count, 1)))
            slot.align = 64
            self.buffers[buffer] = slot
            return lambda: self._release(buffer, None)
        elements: lir.Value = lir.Constant(I64, 1)
        for extent in buffer.shape:
            elements = self._index_mul(elements, self.expr(extent))
        nbytes = self._index_mul(elements, lir.Constant(I64, _item_size(buffer.dtype)))
        pointer = self.b.call(self.m.function("malloc", PTR, [I64]), [nbytes])
        self.buffers[buffer] = pointer
        return lambda: self._release(buffer, pointer)

    def _release(self, buffer: ir.Buffer, pointer: lir.Value | None) -> None:
        if pointer is not None:
            self.b.call(self.m.function("free", VOID, [PTR]), [pointer])
        del self.buffers[buffer]

    def _if(
        self, cond: ir.PrimExpr, then: ir.Stmt, orelse: ir.Stmt | None
    ) -> list[ir.Stmt | Callable[[], None]]:
        B = self.b
        c = self.expr(cond)
        then_block = self.fn.append_basic_block("if.then")
        else_block = self.fn.append_basic_block("if.else") if orelse is not None else None
        merge = self.fn.append_basic_block("if.end")
        B.cbranch(c, then_block, else_block or merge)
        B.position_at_end(then_block)

        def to_merge() -> None:
            B.branch(merge)
            B.position_at_end(merge)

        if orelse is None or else_block is None:
            return [then, to_merge]

        def to_else() -> None:
            B.branch(merge)
            B.position_at_end(else_block)

        return [then, to_else, orelse, to_merge]

    def _extern(self, name: str, args: tuple[ir.PrimExpr | ir.Buffer, ...]) -> None:
        kinds = _EXTERN_KINDS.get(name)
        if kinds is None:
            raise _Unsupported(f"unknown external function {name!r}")
        try:
            extern = externs.blas(name)
        except externs.ExternNotFound as e:
            raise _Unsupported(str(e)) from e
        blasint = lir.IntType(extern.int_bits)
        if len(args) != len(kinds):
            raise _Unsupported(f"{name} takes {len(kinds)} arguments, not {len(args)}")
        types = {"e": I32, "i": blasint, "f": F32, "p": PTR}
        values: list[lir.Value] = []
        for kind, arg in zip(kinds, args, strict=True):
            if kind == "p":
                if not isinstance(arg, ir.Buffer):
                    raise _Unsupported(f"{name}: a matrix or vector argument must be a buffer")
                values.append(self.address(arg, [lir.Constant(I64, 0)] * arg.ndim))
                continue
            if isinstance(arg, ir.Buffer):
                raise _Unsupported(f"{name}: buffer {arg.name} passed as a scalar")
            v = self.expr(arg)
            target = "float32" if kind == "f" else f"int{types[kind].width}"
            values.append(self.cast(v, arg.dtype, target))
        fn = self.m.function(extern.llvm_name, VOID, [types[k] for k in kinds])
        self.m.imports[extern.llvm_name] = extern.address
        self.b.call(fn, values)


_EXTERN_KINDS = {"cblas_sgemm": "eeeiiifpipifpi", "cblas_sgemv": "eeiifpipifpi"}
"""The external functions a kernel may call, with their arguments' kinds: ``e`` a C enum,
``i`` a ``blasint``, ``f`` a float, ``p`` a buffer's address."""


# ---------------------------------------------------------------------------------------------
# The module of a kernel


@dataclass(frozen=True)
class GeneratedModule:
    """A kernel printed as LLVM IR: the text, the entry symbol, the segment functions (empty
    without top-level parallel loops), the scratch buffers the segments share (allocated by
    the caller: ``size_vars`` are the size parameters their shapes mention) and the external
    symbols it needs."""

    text: str
    symbol: str
    segments: tuple[_Segment, ...]
    scratch: tuple[ir.Buffer, ...] = ()
    size_vars: tuple[ir.SizeVar, ...] = ()
    imports: dict[str, int] = field(default_factory=dict)

    def scratch_arrays(self, sizes: Sequence[int]) -> list[Array]:
        """Fresh arrays for the scratch buffers, given the size parameters' values in order."""
        bound = dict(zip(self.size_vars, sizes, strict=True))
        arrays: list[Array] = []
        for buffer in self.scratch:
            count = 1
            for extent in buffer.shape:
                value = _static_value(extent, bound)
                assert value is not None  # _top_level took only computable shapes
                count *= value
            arrays.append(np.empty(max(count, 1), _numpy_dtype(buffer.dtype)))
        return arrays

    @property
    def exports(self) -> list[str]:
        """Every function symbol the JIT must expose."""
        names = [self.symbol]
        for s in self.segments:
            names.append(s.symbol)
            if s.extent_symbol:
                names.append(s.extent_symbol)
        return names


def _partial_text(m: _Module) -> str:
    try:
        return str(m.module)
    except Exception:  # an unfinished function may not print; the error says what failed
        return ""


def generate(kernel: ir.Kernel) -> GeneratedModule:
    """The LLVM IR of ``kernel`` (unoptimised); ``KernelCompileError`` if it cannot be made."""
    base = symbol_base(kernel.name)
    m = _Module(base)
    segments, scratch = _segments(kernel, base)
    try:
        main = _FunctionEmitter(m, kernel, base, VOID)
        main.stmt(kernel.body)
        main.finish()
        for segment in segments:
            if segment.kind == "serial":
                f = _FunctionEmitter(m, kernel, segment.symbol, VOID, scratch=scratch)
                f.stmt(segment.stmt)
                f.finish()
                continue
            loop = segment.stmt
            assert isinstance(loop, ir.For)
            f = _FunctionEmitter(m, kernel, segment.symbol, VOID, extra=2, scratch=scratch)
            f.extra[0].name, f.extra[1].name = "lo", "hi"
            f.stmt(loop, parallel_range=(f.extra[0], f.extra[1]))
            f.finish()
            n = _FunctionEmitter(m, kernel, segment.extent_symbol, I64, scratch=scratch)
            n.finish(n.expr(loop.extent))
    except (_Unsupported, KeyError, TypeError, ValueError, AttributeError) as e:
        text = _partial_text(m)
        raise _compile_error(kernel, f"cannot generate LLVM IR: {e}", text) from e
    return GeneratedModule(
        str(m.module), base, tuple(segments), tuple(scratch), kernel.sizes, dict(m.imports)
    )


def _save_failed(kernel: ir.Kernel, text: str, prefix: str = "") -> str | None:
    """Save ``text`` under the cache directory's ``failed/``; the path, or ``None``."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    path = cache.cache_dir() / "failed" / f"{prefix}{symbol_base(kernel.name)}-{digest}.ll"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    except OSError:
        return None
    return str(path)


def _compile_error(kernel: ir.Kernel, message: str, text: str) -> KernelCompileError:
    """The error for ``kernel``, with ``text`` saved under the cache directory's ``failed/``."""
    return KernelCompileError(kernel.name, message, text, path=_save_failed(kernel, text))


# ---------------------------------------------------------------------------------------------
# Compiled kernels


@dataclass(eq=False)
class _Loaded:
    """A kernel's object code, loaded: the library and the optimised IR it came from."""

    library: jit.Library
    obj: bytes
    llvm_ir: str
    asm: str | None = None


_MEMORY: cache.MemoryCache[_Loaded] = cache.MemoryCache()
_GENERATED: cache.MemoryCache[tuple[GeneratedModule, str]] = cache.MemoryCache()
"""A kernel's fingerprint to its LLVM IR and cache key: a second compile skips printing."""


def _ctypes_function(
    address: int, nargs: int, nsizes: int, ret: type | None
) -> Callable[..., object]:
    types = [ctypes.c_void_p] * nargs + [ctypes.c_int64] * nsizes
    prototype = ctypes.CFUNCTYPE(ret, *types)
    return cast(Callable[..., object], prototype(address))


def _data_offset() -> int | None:
    """Where an ndarray object keeps its data pointer, as an offset from the object's address
    (``PyArrayObject.data``, right after the object header), or ``None`` if this interpreter's
    arrays do not agree (then addresses come from ``ndarray.ctypes.data``).

    Why: ``ndarray.ctypes.data`` builds a ctypes helper object per call (about a microsecond,
    most of a small kernel's call), while reading the field costs a tenth of that. The layout
    is numpy's public C ABI; it is checked here, once, on arrays of several kinds."""
    offset = object.__basicsize__
    samples: list[Array] = [np.zeros(3), np.zeros((2, 3), np.int8)[1:], np.array(1, np.int32)]
    samples.append(np.ones(0))
    try:
        for a in samples:
            if ctypes.c_void_p.from_address(id(a) + offset).value != a.ctypes.data:
                return None
    except (OSError, ValueError):
        return None
    return offset


_DATA_OFFSET = _data_offset()
_FIELD = ctypes.c_void_p.from_address


def data_address(array: Array) -> int:
    """The address of ``array``'s first element (what a kernel's pointer argument gets)."""
    if _DATA_OFFSET is None:
        return int(array.ctypes.data)
    return _FIELD(id(array) + _DATA_OFFSET).value or 0


def _numpy_dtype(dtype: str) -> np.dtype[np.generic]:
    return np.dtype(np.bool_) if dtype == "bool" else np.dtype(dtype)


def _static_value(e: ir.PrimExpr, sizes: Mapping[ir.SizeVar, int]) -> int | None:
    """An integer shape expression evaluated over the sizes (``None`` if it is anything else)."""
    match e:
        case ir.Const(value):
            return int(value)
        case ir.Ref(ir.SizeVar() as var):
            return sizes.get(var)
        case ir.Binary(ir.BinOp.ADD | ir.BinOp.SUB | ir.BinOp.MUL as op, a, b):
            x, y = _static_value(a, sizes), _static_value(b, sizes)
            if x is None or y is None:
                return None
            return x + y if op is ir.BinOp.ADD else x - y if op is ir.BinOp.SUB else x * y
        case _:
            return None


def _run_chunk(fn: Callable[..., object], args: list[int], lo: int, hi: int) -> None:
    fn(*args, lo, hi)


_Extent: TypeAlias = int | tuple[int] | None
"""How a call checks one dimension: a literal, ``(k,)`` for the ``k``-th size parameter, or
``None`` (an expression: not checked)."""


def _extent_check(e: ir.PrimExpr, positions: Mapping[ir.SizeVar, int]) -> _Extent:
    match e:
        case ir.Const(value):
            return int(value)
        case ir.Ref(ir.SizeVar() as var) if var in positions:
            return (positions[var],)
        case _:
            return None


class CompiledKernel:
    """A kernel compiled for the host. Call it with the input and output arrays (C-contiguous,
    of the buffers' dtypes and shapes) and the values of its size parameters; it writes the
    outputs. ``origin`` says where the code came from: ``"compiled"``, ``"disk"`` (the disk
    cache) or ``"memory"``; ``compile_seconds`` how long getting it took."""

    def __init__(
        self,
        kernel: ir.Kernel,
        generated: GeneratedModule,
        loaded: _Loaded,
        *,
        threads: int,
        key: str,
        origin: str,
        compile_seconds: float,
    ) -> None:
        self.kernel = kernel
        self.threads = threads
        self.key = key
        self.origin = origin
        self.compile_seconds = compile_seconds
        self._generated = generated
        self._loaded = loaded
        nbuf, nsize = len(kernel.params), len(kernel.sizes)
        positions = {v: i for i, v in enumerate(kernel.sizes)}
        self._checks: list[tuple[ir.Buffer, np.dtype[np.generic], tuple[_Extent, ...]]] = [
            (b, _numpy_dtype(b.dtype), tuple(_extent_check(e, positions) for e in b.shape))
            for b in kernel.params
        ]
        # A kernel without size parameters whose shapes are all literals (most of them) is
        # checked against precomputed (dtype, shape) pairs: the fast path of ``__call__``.
        static = [
            (dtype, shape)
            for _, dtype, shape in self._checks
            if all(isinstance(d, int) for d in shape)
        ]
        self._static: list[tuple[np.dtype[np.generic], tuple[_Extent, ...]]] | None = (
            static if not kernel.sizes and len(static) == nbuf else None
        )
        self._ninputs = len(kernel.inputs)
        addresses = loaded.library.addresses
        self._main = _ctypes_function(addresses[generated.symbol], nbuf, nsize, None)
        # Each segment, its function, its extent function (parallel ones) and whether its
        # tasks call an external BLAS function (they run with OpenBLAS single-threaded).
        self._segments: list[
            tuple[_Segment, Callable[..., object], Callable[..., object] | None, bool]
        ] = []
        if threads > 1:
            nbuf += len(generated.scratch)
            for s in generated.segments:
                extra = 2 if s.kind == "parallel" else 0
                fn = _ctypes_function(addresses[s.symbol], nbuf, nsize + extra, None)
                extent = (
                    _ctypes_function(addresses[s.extent_symbol], nbuf, nsize, ctypes.c_int64)
                    if s.kind == "parallel"
                    else None
                )
                blas = s.kind == "parallel" and any(
                    isinstance(x, ir.ExternCall) for x in ir.walk_stmt(s.stmt)
                )
                self._segments.append((s, fn, extent, blas))

    @property
    def name(self) -> str:
        """The kernel's name."""
        return self.kernel.name

    def _arguments(
        self,
        inputs: Sequence[Array],
        outputs: Sequence[Array],
        sizes: Mapping[ir.SizeVar, int],
    ) -> tuple[list[int], list[int]]:
        k = self.kernel
        if len(inputs) != len(k.inputs) or len(outputs) != len(k.outputs):
            raise ValueError(
                f"kernel {k.name}: expected {len(k.inputs)} inputs and {len(k.outputs)} outputs, "
                f"got {len(inputs)} and {len(outputs)}"
            )
        try:
            values = [int(sizes[size]) for size in k.sizes]
        except KeyError as e:
            name = e.args[0].name if isinstance(e.args[0], ir.SizeVar) else e.args[0]
            raise ValueError(f"kernel {k.name}: no value for size {name}") from None
        pointers: list[int] = []
        arrays = [*inputs, *outputs]
        for (buffer, dtype, shape), array in zip(self._checks, arrays, strict=True):
            expected = (
                tuple(
                    d
                    if isinstance(d, int)
                    else values[d[0]]
                    if isinstance(d, tuple)
                    else array.shape[i]
                    for i, d in enumerate(shape)
                )
                if len(shape) == array.ndim
                else shape
            )
            if array.dtype != dtype or array.shape != expected or not array.flags.c_contiguous:
                self._refuse(buffer, array, sizes)
            pointers.append(data_address(array))
        for array in outputs:
            if not array.flags.writeable:
                raise ValueError(f"kernel {k.name}: an output array is read-only")
        return pointers, values

    def _refuse(self, buffer: ir.Buffer, array: Array, sizes: Mapping[ir.SizeVar, int]) -> None:
        name = self.kernel.name
        if array.dtype != _numpy_dtype(buffer.dtype):
            raise ValueError(
                f"kernel {name}: buffer {buffer.name} is {buffer.dtype}, got {array.dtype}"
            )
        if not array.flags.c_contiguous:
            raise ValueError(f"kernel {name}: buffer {buffer.name} is not C-contiguous")
        shape = tuple(_static_value(e, sizes) for e in buffer.shape)
        raise ValueError(
            f"kernel {name}: buffer {buffer.name} has shape {shape}, got {array.shape}"
        )

    def __call__(
        self,
        inputs: Sequence[Array],
        outputs: Sequence[Array],
        sizes: Mapping[ir.SizeVar, int] | None = None,
    ) -> None:
        """Run the kernel: read ``inputs``, write ``outputs``."""
        static = self._static
        if static is not None and not self._segments:
            # The fast path (a kernel call costs a few hundred nanoseconds more than the
            # native code): the same checks as ``_arguments``, against precomputed values.
            arrays = [*inputs, *outputs]
            if len(arrays) == len(static) and len(inputs) == self._ninputs:
                pointers: list[int] = []
                for (dtype, shape), a in zip(static, arrays, strict=True):
                    if a.dtype != dtype or a.shape != shape or not a.flags.c_contiguous:
                        break
                    pointers.append(data_address(a))
                else:
                    if all(o.flags.writeable for o in outputs):
                        self._main(*pointers)
                        return
        pointers, values = self._arguments(inputs, outputs, sizes or {})
        if not self._segments:
            self._main(*pointers, *values)
            return
        scratch = self._generated.scratch_arrays(values)  # alive until the segments finish
        args = [*pointers, *(data_address(a) for a in scratch), *values]
        for _segment, fn, extent_fn, blas in self._segments:
            if extent_fn is None:
                fn(*args)
                continue
            extent = int(cast(int, extent_fn(*args)))
            body = functools.partial(_run_chunk, fn, args)
            if extent > 1 and blas:
                with externs.single_threaded_blas():
                    threads.run_parallel(body, extent, self.threads)
            else:
                threads.run_parallel(body, extent, self.threads)

    def unchecked(
        self, constants: Sequence[Array] = ()
    ) -> Callable[[Sequence[Array], Sequence[Array]], None] | None:
        """A call without ``__call__``'s checks, for a caller that guarantees C-contiguous
        arrays of the buffers' exact (static) shapes and dtypes, and writeable outputs:
        ``call(inputs, outputs)``, where ``constants`` (checked here once, and kept alive by
        the caller) are the last inputs and not passed. ``None`` when the kernel has size
        parameters or runs parallel segments (those take ``__call__``)."""
        static = self._static
        if static is None or self._segments:
            return None
        first = self._ninputs - len(constants)
        constant_checks = static[first : self._ninputs]
        for (dtype, shape), c in zip(constant_checks, constants, strict=True):
            if c.dtype != dtype or c.shape != shape or not c.flags.c_contiguous:
                return None
        fixed = [data_address(c) for c in constants]
        main, address = self._main, data_address
        arity = (first, len(fixed), len(self.kernel.outputs))
        offset = _DATA_OFFSET
        if offset is not None and arity in ((1, 0, 1), (2, 0, 1)):
            # The commonest arities get a call without list building or a helper call per
            # array (half of what is left of a scalar kernel's call).
            field = _FIELD

            def unary(inputs: Sequence[Array], outputs: Sequence[Array]) -> None:
                main(field(id(inputs[0]) + offset).value, field(id(outputs[0]) + offset).value)

            def binary(inputs: Sequence[Array], outputs: Sequence[Array]) -> None:
                main(
                    field(id(inputs[0]) + offset).value,
                    field(id(inputs[1]) + offset).value,
                    field(id(outputs[0]) + offset).value,
                )

            return unary if arity[0] == 1 else binary

        def call(inputs: Sequence[Array], outputs: Sequence[Array]) -> None:
            main(*[address(a) for a in inputs], *fixed, *[address(o) for o in outputs])

        return call

    def artifacts(self) -> dict[str, str | bytes]:
        """The kernel's loop IR (text), optimised LLVM IR, host assembly and object code."""
        loaded = self._loaded
        if loaded.asm is None:
            loaded.asm = jit.emit_assembly(loaded.llvm_ir)
        return {
            "loop-ir": kernel_text(self.kernel),
            "llvm": loaded.llvm_ir,
            "asm": loaded.asm,
            "obj": loaded.obj,
        }


def _compile_object(kernel: ir.Kernel, generated: GeneratedModule) -> cache.Entry:
    try:
        obj, optimised, vectorized = jit.compile_object(generated.text)
    except RuntimeError as e:
        raise _compile_error(kernel, f"LLVM rejected the kernel: {e}", generated.text) from e
    except jit.CompilerCrash as e:
        raise _compile_error(kernel, str(e), generated.text) from e
    if not vectorized:  # LLVM aborted in the vectorisers: keep the IR for a bug report
        _save_failed(kernel, generated.text, "vectoriser-abort-")
    return cache.Entry(obj, optimised)


def _load(kernel: ir.Kernel, generated: GeneratedModule, key: str) -> tuple[_Loaded, str]:
    loaded = _MEMORY.get(key)
    if loaded is not None:
        return loaded, "memory"
    entry = cache.disk_load(key)
    if entry is not None:
        try:
            library = jit.load_object(entry.obj, generated.exports, generated.imports)
            return _MEMORY.put(key, _Loaded(library, entry.obj, entry.llvm_ir)), "disk"
        except RuntimeError:
            pass  # an unreadable entry (damaged on disk): compile again and replace it
    entry = _compile_object(kernel, generated)
    cache.disk_store(key, entry)
    library = jit.load_object(entry.obj, generated.exports, generated.imports)
    return _MEMORY.put(key, _Loaded(library, entry.obj, entry.llvm_ir)), "compiled"


def compile_kernel(kernel: ir.Kernel, *, threads: int = 1) -> CompiledKernel:
    """``kernel`` compiled for the host CPU (through the cache); ``threads`` is how many
    threads run its top-level parallel loops. ``KernelCompileError`` if LLVM rejects it."""
    if threads < 1:
        raise ValueError(f"threads must be at least 1, got {threads}")
    start = time.perf_counter()
    fingerprint = cache.kernel_fingerprint(kernel)
    known = _GENERATED.get(fingerprint)
    if known is None:
        generated = generate(kernel)
        key = cache.structural_key(generated.text, jit.host_description())
        known = _GENERATED.put(fingerprint, (generated, key))
    generated, key = known
    loaded, origin = _load(kernel, generated, key)
    return CompiledKernel(
        kernel,
        generated,
        loaded,
        threads=threads,
        key=key,
        origin=origin,
        compile_seconds=time.perf_counter() - start,
    )


def clear_memory_cache() -> None:
    """Forget the in-memory cache (the next compile of a kernel reads the disk cache)."""
    _MEMORY.clear()
    _GENERATED.clear()


__all__ = [
    "STACK_LIMIT",
    "CompiledKernel",
    "GeneratedModule",
    "KernelCompileError",
    "clear_memory_cache",
    "compile_kernel",
    "data_address",
    "generate",
    "memory_type",
    "register_type",
    "symbol_base",
]
