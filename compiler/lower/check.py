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
                if buffer.scope != "local":
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


def check_kernel(k: ir.Kernel) -> None:
    """Raise ``IllFormed`` unless ``k`` is well formed (see the module docstring)."""
    _Checker(k).run()


__all__ = ["IllFormed", "check_kernel"]
