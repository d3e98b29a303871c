"""The well-formedness check of loop-IR kernels: ``check_kernel(k)`` raises ``IllFormed``.

A kernel is well formed when:

- its buffer parameters are distinct ``"global"`` buffers, its ``sizes`` distinct, and every
  size variable its shapes and body mention is one of them;
- every loop and scalar variable is bound once (by one ``For`` or ``LetStmt``) and used only
  inside its binder;
- every buffer a statement reads or writes is a parameter or a ``"local"`` buffer of an
  enclosing ``Allocate`` (each allocated once);
- a ``Load`` or ``Store`` has one ``int64`` index per dimension; a stored value has the
  buffer's dtype; extents, shapes and strides are ``int64``;
- operands agree: both sides of a ``Binary`` have one dtype (bitwise operators and shifts on
  integers or bool only), ``Select``'s condition and ``IfThenElse``'s are ``bool`` and its arms
  agree, ``Unary`` ``!`` is not applied to floats, an intrinsic is one of ``ir.INTRINSICS``
  with its arity, float operands of one dtype, and the result dtype it gives; a ``Cast``'s and
  a ``Const``'s dtypes are Relay dtypes, a literal's value fits its dtype; a ``LetStmt``'s value
  has its variable's dtype;
- a ``parallel`` or ``vectorized`` loop has no loop-carried store: every store in its body to a
  buffer not allocated inside the body has an index that mentions the loop variable, so no two
  iterations write one element.

A kernel with ``thread`` loops, barriers or ``"shared"``/``"global"`` allocations is a GPU
kernel (``compiler.lower.gpu``'s contract) and must also have:

- every ``thread`` loop bound to one of ``ir.THREAD_TAGS``, each tag at most once, all of them
  in the launch nest at the top of the body: ``"global"`` (scratch) allocations, the
  ``blockIdx`` loops, ``"shared"`` allocations, the ``threadIdx`` loops, in that order, a
  ``blockIdx`` loop never inside a ``threadIdx`` one; ``threadIdx`` extents constant;
  ``"shared"`` buffers of static shape; ``"global"`` and ``"shared"`` allocations nowhere else;
- every barrier inside the ``threadIdx`` loops and under no divergent control flow: no
  enclosing ``if`` whose condition, and no enclosing loop whose extent, is *thread-variant*
  (mentions a ``threadIdx`` variable, a scalar bound to a thread-variant value, a loop variable
  of a loop with a thread-variant extent, or a load of a ``"local"`` buffer or at a
  thread-variant index).
"""

from __future__ import annotations

from typing import assert_never

from ...semantics.syntax import DTYPES
from . import ir
from .evaluate import int_bounds as _int_bounds


class IllFormed(Exception):
    """A kernel that breaks a well-formedness rule; the message says which and where."""


_BITWISE = frozenset({ir.BinOp.AND, ir.BinOp.OR, ir.BinOp.XOR, ir.BinOp.SHL, ir.BinOp.SHR})
_PREDICATES = frozenset({"isnan", "isinf", "isfinite"})


def _is_float(dtype: str) -> bool:
    return dtype.startswith("float")


def _check_const(c: ir.Const, where: str) -> None:
    if c.dtype not in DTYPES:
        raise IllFormed(f"{where}: literal of unknown dtype {c.dtype}")
    if _is_float(c.dtype):
        if not isinstance(c.value, float):
            raise IllFormed(f"{where}: {c.dtype} literal {c.value!r} is not a float")
        return
    if not isinstance(c.value, int) or isinstance(c.value, bool):
        raise IllFormed(f"{where}: {c.dtype} literal {c.value!r} is not an int")
    lo, hi = (0, 1) if c.dtype == "bool" else _int_bounds(c.dtype)
    if not lo <= c.value <= hi:
        raise IllFormed(f"{where}: literal {c.value} does not fit {c.dtype}")


class _Checker:
    def __init__(self, k: ir.Kernel) -> None:
        self.kernel = k
        self.sizes = set(k.sizes)
        self.bound: set[ir.Variable] = set()  # bound anywhere so far
        self.in_scope: set[ir.Variable] = set()
        self.buffers: set[ir.Buffer] = set(k.params)
        self.allocated: set[ir.Buffer] = set()
        self.gpu = is_gpu_kernel(k)

    def where(self) -> str:
        return f"kernel {self.kernel.name}"

    def expr(self, e: ir.PrimExpr, what: str) -> None:
        """Check ``e`` (every node, iteratively)."""
        for x in ir.walk_expr(e):
            self.node(x, what)

    def node(self, x: ir.PrimExpr, what: str) -> None:
        where = f"{self.where()}, {what}"
        match x:
            case ir.Const():
                _check_const(x, where)
            case ir.Ref(var):
                if isinstance(var, ir.SizeVar):
                    if var not in self.sizes:
                        raise IllFormed(f"{where}: size {var.name} is not a kernel parameter")
                elif var not in self.in_scope:
                    raise IllFormed(f"{where}: variable {var.name} used out of its scope")
            case ir.Binary(op, a, b):
                if a.dtype != b.dtype:
                    raise IllFormed(
                        f"{where}: operands of {op.value} have dtypes {a.dtype} and {b.dtype}"
                    )
                if op in _BITWISE and _is_float(a.dtype):
                    raise IllFormed(f"{where}: {op.value} on {a.dtype}")
            case ir.Unary(op, a):
                if op is ir.UnOp.NOT and _is_float(a.dtype):
                    raise IllFormed(f"{where}: ! on {a.dtype}")
            case ir.Cast(dtype, _):
                if dtype not in DTYPES:
                    raise IllFormed(f"{where}: cast to unknown dtype {dtype}")
            case ir.Select(cond, t, f):
                if cond.dtype != "bool":
                    raise IllFormed(f"{where}: select condition of dtype {cond.dtype}")
                if t.dtype != f.dtype:
                    raise IllFormed(f"{where}: select arms of dtypes {t.dtype} and {f.dtype}")
            case ir.Call(name, args, dtype):
                self.call(name, args, dtype, where)
            case ir.Load(buffer, indices):
                self.access(buffer, indices, where, "load")
            case _:
                assert_never(x)

    def call(self, name: str, args: tuple[ir.PrimExpr, ...], dtype: str, where: str) -> None:
        if name not in ir.INTRINSICS:
            raise IllFormed(f"{where}: unknown intrinsic {name}")
        if len(args) != ir.INTRINSICS[name]:
            raise IllFormed(f"{where}: {name} takes {ir.INTRINSICS[name]} arguments")
        operand = args[0].dtype
        if not _is_float(operand) or any(a.dtype != operand for a in args):
            raise IllFormed(f"{where}: {name} of {[a.dtype for a in args]}")
        expected = "bool" if name in _PREDICATES else operand
        if dtype != expected:
            raise IllFormed(f"{where}: {name} gives {expected}, declared {dtype}")

    def access(
        self, buffer: ir.Buffer, indices: tuple[ir.PrimExpr, ...], where: str, kind: str
    ) -> None:
        if buffer not in self.buffers:
            raise IllFormed(f"{where}: {kind} of buffer {buffer.name}, not allocated here")
        if len(indices) != buffer.ndim:
            raise IllFormed(
                f"{where}: {kind} of {buffer.name} with {len(indices)} indices for "
                f"{buffer.ndim} dimensions"
            )
        for i in indices:
            if i.dtype != ir.INDEX:
                raise IllFormed(f"{where}: {kind} of {buffer.name} with a {i.dtype} index")

    def index_exprs(self, exprs: tuple[ir.PrimExpr, ...], what: str) -> None:
        for d in exprs:
            self.expr(d, what)
            if d.dtype != ir.INDEX:
                raise IllFormed(f"{self.where()}, {what}: extent of dtype {d.dtype}")

    def bind(self, var: ir.Variable) -> None:
        if var in self.bound:
            raise IllFormed(f"{self.where()}: variable {var.name} is bound twice")
        self.bound.add(var)
        self.in_scope.add(var)

    def run(self) -> None:
        k = self.kernel
        if len(set(k.params)) != len(k.params):
            raise IllFormed(f"{self.where()}: a buffer is passed twice")
        if len(self.sizes) != len(k.sizes):
            raise IllFormed(f"{self.where()}: a size parameter is listed twice")
        for b in k.params:
            if b.scope != "global":
                raise IllFormed(f"{self.where()}: parameter {b.name} has scope {b.scope}")
            self.index_exprs(b.shape, f"shape of {b.name}")
            if b.strides is not None:
                self.index_exprs(b.strides, f"strides of {b.name}")
        # An explicit stack; an entry ("exit", x) leaves the scope x opened.
        stack: list[tuple[bool, ir.Stmt]] = [(False, k.body)]
        while stack:
            leaving, s = stack.pop()
            if leaving:
                self.leave(s)
                continue
            self.enter(s)
            stack.append((True, s))
            stack.extend((False, c) for c in reversed(list(ir.sub_statements(s))))

    def enter(self, s: ir.Stmt) -> None:
        match s:
            case ir.For(var, extent, kind, body):
                self.index_exprs((extent,), f"extent of loop {var.name}")
                self.bind(var)
                if kind in (ir.LoopKind.PARALLEL, ir.LoopKind.VECTORIZED):
                    self.no_carried_stores(var, kind, body)
            case ir.Store(buffer, indices, value):
                where = f"{self.where()}, store to {buffer.name}"
                for i in indices:
                    self.expr(i, f"index of {buffer.name}")
                self.expr(value, f"value stored to {buffer.name}")
                self.access(buffer, indices, where, "store")
                if value.dtype != buffer.dtype:
                    raise IllFormed(f"{where}: value of dtype {value.dtype} into {buffer.dtype}")
            case ir.Allocate(buffer, _):
                if buffer.scope != "local" and not (self.gpu and buffer.scope in _GPU_SCOPES):
                    raise IllFormed(f"{self.where()}: allocated buffer {buffer.name} not local")
                if buffer in self.allocated or buffer in self.kernel.params:
                    raise IllFormed(f"{self.where()}: buffer {buffer.name} allocated twice")
                self.index_exprs(buffer.shape, f"shape of {buffer.name}")
                self.allocated.add(buffer)
                self.buffers.add(buffer)
            case ir.LetStmt(var, value, _):
                self.expr(value, f"value of {var.name}")
                if value.dtype != var.dtype:
                    raise IllFormed(
                        f"{self.where()}: let {var.name}: {var.dtype} = a {value.dtype} value"
                    )
                self.bind(var)
            case ir.IfThenElse(cond, _, _):
                self.expr(cond, "if condition")
                if cond.dtype != "bool":
                    raise IllFormed(f"{self.where()}: if condition of dtype {cond.dtype}")
            case ir.Seq():
                pass
            case ir.ExternCall(name, args):
                for a in args:
                    if isinstance(a, ir.Buffer):
                        if a not in self.buffers:
                            raise IllFormed(f"{self.where()}: {name} of unallocated {a.name}")
                    else:
                        self.expr(a, f"argument of {name}")
            case ir.Barrier():
                pass
            case _:
                assert_never(s)

    def leave(self, s: ir.Stmt) -> None:
        match s:
            case ir.For(var=var) | ir.LetStmt(var=var):
                self.in_scope.discard(var)
            case ir.Allocate(buffer=buffer):
                self.buffers.discard(buffer)
            case ir.Store() | ir.IfThenElse() | ir.Seq() | ir.ExternCall() | ir.Barrier():
                pass
            case _:
                assert_never(s)

    def no_carried_stores(self, var: ir.LoopVar, kind: ir.LoopKind, body: ir.Stmt) -> None:
        inner = {s.buffer for s in ir.walk_stmt(body) if isinstance(s, ir.Allocate)}
        for s in ir.walk_stmt(body):
            if not isinstance(s, ir.Store) or s.buffer in inner:
                continue
            mentions = any(
                isinstance(x, ir.Ref) and x.var is var for i in s.indices for x in ir.walk_expr(i)
            )
            if not mentions:
                raise IllFormed(
                    f"{self.where()}: {kind.value} loop {var.name} stores to {s.buffer.name} "
                    "at an index that does not depend on it (a loop-carried store)"
                )


_GPU_SCOPES = frozenset({"shared", "global"})


def is_gpu_kernel(k: ir.Kernel) -> bool:
    """Whether ``k`` has thread loops, barriers or shared/global allocations."""
    for s in ir.walk_stmt(k.body):
        match s:
            case ir.For(kind=ir.LoopKind.THREAD) | ir.Barrier():
                return True
            case ir.Allocate(buffer) if buffer.scope in _GPU_SCOPES:
                return True
    return False


def _launch_nest(k: ir.Kernel) -> ir.Stmt:
    """Check the launch nest of a GPU kernel; the thread body inside it."""
    where = f"kernel {k.name}"
    order = ("global", "blockIdx", "shared", "threadIdx")
    level = 0
    tags: set[str] = set()
    s = k.body
    while True:
        match s:
            case ir.Allocate(buffer, body) if buffer.scope in _GPU_SCOPES:
                at = order.index(buffer.scope)
                if at < level:
                    raise IllFormed(f"{where}: {buffer.scope} buffer {buffer.name} allocated "
                                    f"inside the {order[level]} loops")  # fmt: skip
                if buffer.scope == "shared" and level < 1:
                    raise IllFormed(f"{where}: shared buffer {buffer.name} allocated outside "
                                    "the block loops")  # fmt: skip
                if buffer.scope == "shared" and any(
                    not isinstance(d, ir.Const) for d in buffer.shape
                ):
                    raise IllFormed(f"{where}: shared buffer {buffer.name} has a symbolic shape")
                level, s = at, body
            case ir.For(var, extent, ir.LoopKind.THREAD, body, tag):
                if tag not in ir.THREAD_TAGS:
                    raise IllFormed(f"{where}: thread loop {var.name} bound to {tag!r}")
                if tag in tags:
                    raise IllFormed(f"{where}: {tag} is bound twice (loop {var.name})")
                kind = tag.split(".")[0]
                at = order.index(kind)
                if at < level:
                    raise IllFormed(f"{where}: {tag} loop {var.name} is nested inside a "
                                    "threadIdx loop or a shared allocation")  # fmt: skip
                if kind == "threadIdx" and not isinstance(extent, ir.Const):
                    raise IllFormed(f"{where}: {tag} loop {var.name} has a non-constant extent")
                tags.add(tag)
                level, s = at, body
            case _:
                return s


def _thread_variant(e: ir.PrimExpr, variant: set[ir.Variable]) -> bool:
    for x in ir.walk_expr(e):
        match x:
            case ir.Ref(var) if var in variant:
                return True
            case ir.Load(buffer) if buffer.scope == "local":
                return True
    return False


def _check_divergence(k: ir.Kernel, thread_body: ir.Stmt, thread_vars: set[ir.Variable]) -> None:
    """Barriers and thread loops inside the thread body (see the module docstring)."""
    where = f"kernel {k.name}"
    variant = set(thread_vars)
    # (statement, the divergent construct it is under, if any); an explicit stack
    stack: list[tuple[ir.Stmt, str | None]] = [(thread_body, None)]
    while stack:
        s, divergent = stack.pop()
        under = divergent
        match s:
            case ir.For(var, extent, kind, _, _):
                if kind is ir.LoopKind.THREAD:
                    raise IllFormed(f"{where}: thread loop {var.name} outside the launch nest")
                if _thread_variant(extent, variant):
                    variant.add(var)
                    under = under or f"loop {var.name} whose extent depends on the thread"
            case ir.IfThenElse(cond, _, _) if _thread_variant(cond, variant):
                under = under or "an if whose condition depends on the thread"
            case ir.LetStmt(var, value, _) if _thread_variant(value, variant):
                variant.add(var)
            case ir.Allocate(buffer) if buffer.scope in _GPU_SCOPES:
                raise IllFormed(f"{where}: {buffer.scope} buffer {buffer.name} allocated "
                                "inside the threadIdx loops")  # fmt: skip
            case ir.Barrier() if divergent is not None:
                raise IllFormed(f"{where}: barrier under divergent control flow ({divergent})")
        stack.extend((c, under) for c in reversed(list(ir.sub_statements(s))))


def _check_gpu(k: ir.Kernel) -> None:
    body = _launch_nest(k)
    thread_vars: set[ir.Variable] = set()
    s = k.body
    while s is not body:
        if isinstance(s, ir.For) and s.thread.startswith("threadIdx"):
            thread_vars.add(s.var)
        s = next(ir.sub_statements(s))
    if not thread_vars and any(isinstance(x, ir.Barrier) for x in ir.walk_stmt(body)):
        raise IllFormed(f"kernel {k.name}: barrier outside the threadIdx loops")
    _check_divergence(k, body, thread_vars)


def check_kernel(k: ir.Kernel) -> None:
    """Raise ``IllFormed`` unless ``k`` is well formed (see the module docstring)."""
    _Checker(k).run()
    if is_gpu_kernel(k):
        _check_gpu(k)


__all__ = ["IllFormed", "check_kernel", "is_gpu_kernel"]
