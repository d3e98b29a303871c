"""The loop-level IR: what a fused primitive function becomes before code generation.

A ``Kernel`` is a function over ``Buffer`` parameters (inputs first, then outputs) and
``SizeVar`` parameters (the extents that are not known when the kernel is compiled), whose body
is a statement tree. The IR is target-independent: the CPU target turns it into LLVM IR, the
GPU target binds some of its loops to threads, and ``compiler.lower.evaluate`` interprets it
directly over numpy arrays (the slow reference that the code generators are tested against).

**Scalars** (``PrimExpr``) are typed by a Relay dtype string (``"float32"``, ``"int8"``,
``"bool"``, ...); index arithmetic is ``int64``. Arithmetic means exactly what the reference
semantics of the Relay operators means (``semantics/ops``): integer ``div`` and ``mod``
truncate toward zero (``floordiv``/``floormod`` round toward negative infinity), integer
arithmetic wraps at the dtype's width, float16 is computed in float32 and rounded once per
operation, comparisons give ``bool``. What the spec leaves undefined (integer division by zero,
float-to-int casts out of range, ...) stays undefined here: no pass over this IR may rely on it.

**Buffers** are multi-dimensional: ``Load`` and ``Store`` take one index per dimension and the
code generator flattens them through the buffer's ``strides`` (row-major when ``None``).
A buffer's ``scope`` is ``"global"`` (a kernel parameter or a planned intermediate) or
``"local"`` (an ``Allocate`` inside the kernel: an accumulator, a packed panel).

**Loops** run a ``LoopVar`` from 0 to ``extent - 1``; the ``kind`` is a scheduling decision
(``serial``, ``parallel`` across threads, ``vectorized``, ``unrolled``) that never changes the
meaning: a well-formed kernel gives the same result whatever its loops' kinds. (The GPU target
adds thread-bound kinds.) Reductions are written as an accumulator (a local buffer or a
``Store`` into the output) updated inside loops; ``Reduce`` nodes exist only in the
tensor-expression layer above (``compiler.lower.te``).

Nodes are immutable and compare structurally (dataclass equality), except variables and
buffers, which compare by identity: two loops over ``i`` are two different variables.
"""

from __future__ import annotations

import enum
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TypeAlias, TypeVar

R = TypeVar("R")

# ---------------------------------------------------------------------------------------------
# Variables and buffers (identity semantics)

INDEX = "int64"
"""The dtype of loop variables, sizes and index arithmetic."""


@dataclass(frozen=True, eq=False)
class LoopVar:
    """A loop's induction variable (``int64``), bound by exactly one ``For``."""

    name: str
    dtype: str = INDEX


@dataclass(frozen=True, eq=False)
class SizeVar:
    """An extent the kernel takes as a parameter (a symbolic ``n`` or a ``?`` dimension of
    the Relay types; ``int64``, non-negative)."""

    name: str
    dtype: str = INDEX


@dataclass(frozen=True, eq=False)
class ScalarVar:
    """A scalar bound by ``LetStmt`` (any dtype)."""

    name: str
    dtype: str


Variable: TypeAlias = LoopVar | SizeVar | ScalarVar


@dataclass(frozen=True, eq=False)
class Buffer:
    """A multi-dimensional array: name, shape (one ``PrimExpr`` per dimension), dtype, strides
    in elements (``None``: contiguous row-major) and scope (``"global"`` or ``"local"``)."""

    name: str
    shape: tuple[PrimExpr, ...]
    dtype: str
    strides: tuple[PrimExpr, ...] | None = None
    scope: str = "global"

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)


# ---------------------------------------------------------------------------------------------
# Scalar expressions


@dataclass(frozen=True)
class Const:
    """A literal of ``dtype``: ``int`` for integer and bool dtypes, ``float`` for floats
    (``nan`` and infinities allowed)."""

    value: int | float
    dtype: str


@dataclass(frozen=True)
class Ref:
    """The value of a variable."""

    var: Variable

    @property
    def dtype(self) -> str:
        return self.var.dtype


class BinOp(enum.Enum):
    """Binary operators. Both operands have the same dtype; comparisons give ``bool``."""

    ADD = "+"
    SUB = "-"
    MUL = "*"
    DIV = "/"  # floats: IEEE division; integers: truncating
    MOD = "%"  # floats: fmod (sign of the dividend); integers: truncating remainder
    FLOORDIV = "//"
    FLOORMOD = "%%"
    MIN = "min"
    MAX = "max"
    AND = "&"  # bitwise on integers, logical on bool
    OR = "|"
    XOR = "^"
    SHL = "<<"
    SHR = ">>"  # arithmetic on signed, logical on unsigned
    EQ = "=="
    NE = "!="
    LT = "<"
    LE = "<="
    GT = ">"
    GE = ">="


COMPARISONS = frozenset({BinOp.EQ, BinOp.NE, BinOp.LT, BinOp.LE, BinOp.GT, BinOp.GE})


@dataclass(frozen=True)
class Binary:
    """``a op b``."""

    op: BinOp
    a: PrimExpr
    b: PrimExpr

    @functools.cached_property
    def dtype(self) -> str:
        return "bool" if self.op in COMPARISONS else _operand_dtype(self.a)


class UnOp(enum.Enum):
    """Unary operators."""

    NEG = "-"
    NOT = "!"  # logical not on bool, bitwise not on integers


@dataclass(frozen=True)
class Unary:
    """``op a``."""

    op: UnOp
    a: PrimExpr

    @functools.cached_property
    def dtype(self) -> str:
        return _operand_dtype(self.a)


@dataclass(frozen=True)
class Cast:
    """``a`` converted to ``dtype`` as the spec's ``cast`` does: float to int truncates (out of
    range or NaN is undefined), int to int wraps, to bool is ``!= 0``, float to float rounds to
    nearest even."""

    dtype: str
    a: PrimExpr


@dataclass(frozen=True)
class Select:
    """``cond ? t : f`` (both arms evaluated; neither may have an effect)."""

    cond: PrimExpr
    t: PrimExpr
    f: PrimExpr

    @functools.cached_property
    def dtype(self) -> str:
        return _operand_dtype(self.t)


def _operand_dtype(e: PrimExpr) -> str:
    """The dtype of ``e``, found by a loop down the operands whose dtype it takes (no
    recursion on the depth of an inlined expression; a dtype computed before is reused)."""
    while True:
        known = getattr(e, "__dict__", {}).get("dtype")
        if known is not None:
            return str(known)
        match e:
            case Binary(op, a, _) if op not in COMPARISONS:
                e = a
            case Unary(_, a):
                e = a
            case Select(_, t, _):
                e = t
            case _:
                return e.dtype


INTRINSICS: dict[str, int] = {
    "exp": 1,
    "log": 1,
    "log2": 1,
    "log10": 1,
    "sqrt": 1,
    "rsqrt": 1,
    "sin": 1,
    "cos": 1,
    "tan": 1,
    "asin": 1,
    "acos": 1,
    "atan": 1,
    "sinh": 1,
    "cosh": 1,
    "tanh": 1,
    "asinh": 1,
    "acosh": 1,
    "atanh": 1,
    "erf": 1,
    "fabs": 1,
    "floor": 1,
    "ceil": 1,
    "trunc": 1,
    "round": 1,  # half to even (numpy's round, Relay's round)
    "isnan": 1,  # gives bool
    "isinf": 1,
    "isfinite": 1,
    "pow": 2,
    "atan2": 2,
    "copysign": 2,
}
"""The intrinsic functions ``Call`` may name, with their arity. Float operands of one dtype;
the result has the operands' dtype except ``isnan``/``isinf``/``isfinite`` (``bool``)."""


@dataclass(frozen=True)
class Call:
    """An intrinsic (one of ``INTRINSICS``) applied to scalars."""

    name: str
    args: tuple[PrimExpr, ...]
    dtype: str


@dataclass(frozen=True)
class Load:
    """``buffer[indices]``, one ``int64`` index per dimension."""

    buffer: Buffer
    indices: tuple[PrimExpr, ...]

    @property
    def dtype(self) -> str:
        return self.buffer.dtype


PrimExpr: TypeAlias = Const | Ref | Binary | Unary | Cast | Select | Call | Load


# ---------------------------------------------------------------------------------------------
# Statements


class LoopKind(enum.Enum):
    """How a loop's iterations may run; never changes the meaning of a well-formed kernel."""

    SERIAL = "serial"
    PARALLEL = "parallel"
    VECTORIZED = "vectorized"
    UNROLLED = "unrolled"
    THREAD = "thread"
    """Bound to a GPU launch index (``For.thread`` names it): every iteration runs at once, one
    per block or thread; ``extent`` is the launch dimension."""


THREAD_TAGS = (
    "blockIdx.x",
    "blockIdx.y",
    "blockIdx.z",
    "threadIdx.x",
    "threadIdx.y",
    "threadIdx.z",
)
"""The launch indices a ``LoopKind.THREAD`` loop may be bound to."""


@dataclass(frozen=True)
class For:
    """``for var in 0 .. extent-1: body``; with ``kind`` ``THREAD``, ``thread`` is the launch
    index (one of ``THREAD_TAGS``) that ``var`` is bound to."""

    var: LoopVar
    extent: PrimExpr
    kind: LoopKind
    body: Stmt
    thread: str = ""


@dataclass(frozen=True)
class Store:
    """``buffer[indices] = value`` (``value`` has the buffer's dtype)."""

    buffer: Buffer
    indices: tuple[PrimExpr, ...]
    value: PrimExpr


@dataclass(frozen=True)
class Allocate:
    """A buffer live in ``body`` (contents undefined until stored): ``"local"`` scope is
    private to one thread, ``"shared"`` is one per GPU block, seen by all its threads."""

    buffer: Buffer
    body: Stmt


@dataclass(frozen=True)
class LetStmt:
    """``let var = value in body`` for a scalar."""

    var: ScalarVar
    value: PrimExpr
    body: Stmt


@dataclass(frozen=True)
class IfThenElse:
    """``if cond: then else: orelse`` (``orelse`` may be ``None``)."""

    cond: PrimExpr
    then: Stmt
    orelse: Stmt | None = None


@dataclass(frozen=True)
class Seq:
    """Statements in order."""

    stmts: tuple[Stmt, ...]


@dataclass(frozen=True)
class ExternCall:
    """A call of an external C function that writes buffers (e.g. a BLAS ``sgemm``): the name,
    and arguments that are scalars or whole buffers (passed as pointers to their first
    element). Which names a target accepts is the target's business."""

    name: str
    args: tuple[PrimExpr | Buffer, ...]


@dataclass(frozen=True)
class Barrier:
    """A block-wide barrier (CUDA's ``__syncthreads()``): no thread of the block goes on until
    all have reached it, and what any wrote to ``"shared"`` memory before it is seen by all
    after it. Only well-formed where every thread of the block reaches it (never under
    control flow that depends on the thread index)."""


Stmt: TypeAlias = For | Store | Allocate | LetStmt | IfThenElse | Seq | ExternCall | Barrier


# ---------------------------------------------------------------------------------------------
# Kernels


@dataclass(frozen=True, eq=False)
class Kernel:
    """One compiled unit: ``name``, buffer parameters (``inputs`` then ``outputs``), the size
    parameters its buffers' shapes mention, and the body. ``source`` names the Relay function
    it was lowered from (for error messages and reports)."""

    name: str
    inputs: tuple[Buffer, ...]
    outputs: tuple[Buffer, ...]
    sizes: tuple[SizeVar, ...]
    body: Stmt
    source: str = ""
    attrs: dict[str, object] = field(default_factory=dict)

    @property
    def params(self) -> tuple[Buffer, ...]:
        """Every buffer parameter, inputs first."""
        return self.inputs + self.outputs


# ---------------------------------------------------------------------------------------------
# Small helpers every lowering uses


def const(value: int | float | bool, dtype: str) -> Const:
    """A literal, normalised: ``bool`` values as ``0``/``1``, integers as ``int``."""
    if dtype == "bool":
        return Const(int(bool(value)), dtype)
    if dtype.startswith(("int", "uint")):
        return Const(int(value), dtype)
    return Const(float(value), dtype)


def index(value: int) -> Const:
    """An ``int64`` index literal."""
    return Const(value, INDEX)


def sub_statements(s: Stmt) -> Iterator[Stmt]:
    """The statements directly inside ``s``."""
    match s:
        case For(body=body) | Allocate(body=body) | LetStmt(body=body):
            yield body
        case IfThenElse(then=then, orelse=orelse):
            yield then
            if orelse is not None:
                yield orelse
        case Seq(stmts=stmts):
            yield from stmts
        case Store() | ExternCall() | Barrier():
            pass


def sub_expressions(e: PrimExpr) -> Iterator[PrimExpr]:
    """The scalar expressions directly inside ``e``."""
    match e:
        case Const() | Ref():
            pass
        case Binary(a=a, b=b):
            yield a
            yield b
        case Unary(a=a) | Cast(a=a):
            yield a
        case Select(cond=cond, t=t, f=f):
            yield cond
            yield t
            yield f
        case Call(args=args):
            yield from args
        case Load(indices=indices):
            yield from indices


def stmt_expressions(s: Stmt) -> Iterator[PrimExpr]:
    """The scalar expressions directly inside statement ``s`` (not inside its sub-statements)."""
    match s:
        case For(extent=extent):
            yield extent
        case Store(indices=indices, value=value):
            yield from indices
            yield value
        case Allocate(buffer=buffer):
            yield from buffer.shape
        case LetStmt(value=value):
            yield value
        case IfThenElse(cond=cond):
            yield cond
        case Seq() | Barrier():
            pass
        case ExternCall(args=args):
            for a in args:
                if not isinstance(a, Buffer):
                    yield a


def walk_expr(e: PrimExpr) -> Iterator[PrimExpr]:
    """Every scalar expression object in ``e`` once, ``e`` first (an explicit stack: no
    recursion; shared node objects are visited once)."""
    seen: set[int] = set()
    stack = [e]
    while stack:
        x = stack.pop()
        if id(x) in seen:
            continue
        seen.add(id(x))
        yield x
        stack.extend(sub_expressions(x))


def fold_expr(e: PrimExpr, f: Callable[[PrimExpr, list[R]], R]) -> R:
    """``f(node, results of its sub-expressions)`` computed bottom-up over ``e``, with an
    explicit stack (inlined element functions make deep expressions: no recursion on their
    depth). A node object met twice is folded once (memo by identity: the nodes are alive in
    ``e`` while this runs, and their structural hash would walk them)."""
    done: dict[int, R] = {}
    stack: list[tuple[PrimExpr, bool]] = [(e, False)]
    while stack:
        x, expanded = stack.pop()
        if id(x) in done:
            continue
        children = list(sub_expressions(x))
        if expanded:
            done[id(x)] = f(x, [done[id(c)] for c in children])
            continue
        stack.append((x, True))
        stack.extend((c, False) for c in reversed(children) if id(c) not in done)
    return done[id(e)]


def walk_stmt(s: Stmt) -> Iterator[Stmt]:
    """Every statement in ``s``, ``s`` first, in pre-order (an explicit stack)."""
    stack = [s]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(reversed(list(sub_statements(x))))


__all__ = [
    "COMPARISONS",
    "INDEX",
    "INTRINSICS",
    "Allocate",
    "BinOp",
    "Binary",
    "Buffer",
    "Call",
    "Cast",
    "Const",
    "ExternCall",
    "For",
    "IfThenElse",
    "Kernel",
    "LetStmt",
    "Load",
    "LoopKind",
    "LoopVar",
    "PrimExpr",
    "Ref",
    "ScalarVar",
    "Select",
    "Seq",
    "SizeVar",
    "Stmt",
    "Store",
    "UnOp",
    "Unary",
    "Variable",
    "const",
    "fold_expr",
    "index",
    "stmt_expressions",
    "sub_expressions",
    "sub_statements",
    "walk_expr",
    "walk_stmt",
]
