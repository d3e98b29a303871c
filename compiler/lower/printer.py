"""The loop IR as readable text (what ``relay compile --emit loop-ir`` writes and what a report
shows when a compiled kernel is wrong)::

    kernel add_exp(a: float32[n, 4], b: float32[n, 4]) -> (out: float32[n, 4]) sizes(n):
      for i0 in 0..n (parallel):
        for i1 in 0..4:
          out[i0, i1] = exp(a[i0, i1] + b[i0, i1])

Statements: ``for v in 0..extent (kind):`` (the kind omitted when serial), ``alloc b:
dtype[shape] (local):`` with its body indented, ``let x: dtype = e:``, ``if c:`` / ``else:``,
``buf[i, j] = e``, ``extern name(args)``. Expressions are infix with C-like precedence and
parentheses only where needed; ``min``/``max``, intrinsics, ``select(c, t, f)`` and
``cast<dtype>(e)`` are calls; literals print bare for ``int64`` and ``float32``/``bool`` values,
and with a dtype suffix otherwise (``1i8``, ``0.5f16``). Two different variables or buffers
with the same name are told apart by a numeric suffix (``i0``, ``i0_1``).
"""

from __future__ import annotations

from typing import assert_never

from . import ir

# Binding strength of infix operators (higher binds tighter).
_PRECEDENCE: dict[ir.BinOp, int] = {
    ir.BinOp.OR: 1,
    ir.BinOp.XOR: 2,
    ir.BinOp.AND: 3,
    ir.BinOp.EQ: 4,
    ir.BinOp.NE: 4,
    ir.BinOp.LT: 5,
    ir.BinOp.LE: 5,
    ir.BinOp.GT: 5,
    ir.BinOp.GE: 5,
    ir.BinOp.SHL: 6,
    ir.BinOp.SHR: 6,
    ir.BinOp.ADD: 7,
    ir.BinOp.SUB: 7,
    ir.BinOp.MUL: 8,
    ir.BinOp.DIV: 8,
    ir.BinOp.MOD: 8,
    ir.BinOp.FLOORDIV: 8,
    ir.BinOp.FLOORMOD: 8,
}
_ATOM = 100
_UNARY = 9


def _literal(c: ir.Const) -> str:
    if c.dtype == "bool":
        return "true" if c.value else "false"
    if c.dtype.startswith(("int", "uint")):
        suffix = {"int64": ""}.get(c.dtype, c.dtype.replace("uint", "u").replace("int", "i"))
        return f"{int(c.value)}{suffix}"
    text = repr(float(c.value))
    return text if c.dtype == "float32" else f"{text}f{c.dtype.removeprefix('float')}"


class _Names:
    """Readable, unique names for variables and buffers (identity objects)."""

    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.used: set[str] = set()
        self.keep: list[object] = []  # the named objects stay alive while ids name them

    def __call__(self, obj: ir.Variable | ir.Buffer) -> str:
        if id(obj) in self.names:
            return self.names[id(obj)]
        name, k = obj.name, 0
        while name in self.used:
            k += 1
            name = f"{obj.name}_{k}"
        self.used.add(name)
        self.names[id(obj)] = name
        self.keep.append(obj)
        return name


def _expr(e: ir.PrimExpr, names: _Names) -> str:
    def node(x: ir.PrimExpr, subs: list[tuple[str, int]]) -> tuple[str, int]:
        def wrap(part: tuple[str, int], strength: int) -> str:
            return part[0] if part[1] >= strength else f"({part[0]})"

        match x:
            case ir.Const():
                return _literal(x), _ATOM
            case ir.Ref(var):
                return names(var), _ATOM
            case ir.Binary(op, _, _):
                if op in (ir.BinOp.MIN, ir.BinOp.MAX):
                    return f"{op.value}({subs[0][0]}, {subs[1][0]})", _ATOM
                p = _PRECEDENCE[op]
                # Left-associative: the right operand needs parentheses at equal strength.
                return f"{wrap(subs[0], p)} {op.value} {wrap(subs[1], p + 1)}", p
            case ir.Unary(op, _):
                return f"{op.value}{wrap(subs[0], _UNARY)}", _UNARY
            case ir.Cast(dtype, _):
                return f"cast<{dtype}>({subs[0][0]})", _ATOM
            case ir.Select():
                return f"select({', '.join(s for s, _ in subs)})", _ATOM
            case ir.Call(name, _, _):
                return f"{name}({', '.join(s for s, _ in subs)})", _ATOM
            case ir.Load(buffer, _):
                return f"{names(buffer)}[{', '.join(s for s, _ in subs)}]", _ATOM
            case _:
                assert_never(x)

    return ir.fold_expr(e, node)[0]


def _buffer_decl(b: ir.Buffer, names: _Names) -> str:
    dims = ", ".join(_expr(d, names) for d in b.shape)
    text = f"{names(b)}: {b.dtype}[{dims}]"
    if b.strides is not None:
        text += f" strides({', '.join(_expr(s, names) for s in b.strides)})"
    return text


def stmt_text(s: ir.Stmt, indent: int = 0, names: _Names | None = None) -> str:
    """Statement ``s`` as text, each line indented by ``indent`` levels (two spaces each)."""
    names = names or _Names()
    lines: list[str] = []
    # An explicit stack of (statement or literal line, depth) keeps deep bodies iterative.
    stack: list[tuple[ir.Stmt | str, int]] = [(s, indent)]
    while stack:
        item, depth = stack.pop()
        pad = "  " * depth
        if isinstance(item, str):
            lines.append(pad + item)
            continue
        match item:
            case ir.For(var, extent, kind, body, thread):
                suffix = "" if kind is ir.LoopKind.SERIAL else f" ({thread or kind.value})"
                lines.append(f"{pad}for {names(var)} in 0..{_expr(extent, names)}{suffix}:")
                stack.append((body, depth + 1))
            case ir.Store(buffer, indices, value):
                idx = ", ".join(_expr(i, names) for i in indices)
                lines.append(f"{pad}{names(buffer)}[{idx}] = {_expr(value, names)}")
            case ir.Allocate(buffer, body):
                lines.append(f"{pad}alloc {_buffer_decl(buffer, names)} ({buffer.scope}):")
                stack.append((body, depth + 1))
            case ir.LetStmt(var, value, body):
                lines.append(f"{pad}let {names(var)}: {var.dtype} = {_expr(value, names)}:")
                stack.append((body, depth + 1))
            case ir.IfThenElse(cond, then, orelse):
                lines.append(f"{pad}if {_expr(cond, names)}:")
                if orelse is not None:
                    stack.append((orelse, depth + 1))
                    stack.append(("else:", depth))
                stack.append((then, depth + 1))
            case ir.Seq(stmts):
                if not stmts:
                    lines.append(f"{pad}pass")
                stack.extend((x, depth) for x in reversed(stmts))
            case ir.ExternCall(name, args):
                parts = [names(a) if isinstance(a, ir.Buffer) else _expr(a, names) for a in args]
                lines.append(f"{pad}extern {name}({', '.join(parts)})")
            case ir.Barrier():
                lines.append(f"{pad}barrier")
            case _:
                assert_never(item)
    return "\n".join(lines)


def expr_text(e: ir.PrimExpr) -> str:
    """A scalar expression as text."""
    return _expr(e, _Names())


def kernel_text(k: ir.Kernel) -> str:
    """Kernel ``k`` as text: its signature line, then its body indented (module docstring)."""
    names = _Names()
    for v in k.sizes:
        names(v)
    inputs = ", ".join(_buffer_decl(b, names) for b in k.inputs)
    outputs = ", ".join(_buffer_decl(b, names) for b in k.outputs)
    sizes = f" sizes({', '.join(names(v) for v in k.sizes)})" if k.sizes else ""
    header = f"kernel {k.name}({inputs}) -> ({outputs}){sizes}:"
    if k.source:
        header = f"# lowered from {k.source}\n{header}"
    return header + "\n" + stmt_text(k.body, 1, names) + "\n"


__all__ = ["expr_text", "kernel_text", "stmt_text"]
