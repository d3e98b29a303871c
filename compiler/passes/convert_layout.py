"""ConvertLayout: run convolutions in a desired data and kernel layout (NCHW <-> NHWC).

TVM 0.18's ``ConvertLayout`` (``src/relay/transforms/convert_layout.cc``, opt level 3, not in
the default pipeline) rewrites each ``nn.conv2d`` to the layouts the user asks for, lets the
operators that can work in any layout follow the new one, and converts back where an operator
needs the original layout, so that the function's signature and result are unchanged::

    nn.conv2d(x, w, data_layout=Ld0, kernel_layout=Lk0)
      -> nn.conv2d(transpose(x, Ld0 -> Ld), transpose(w, Lk0 -> Lk), data_layout=Ld,
                   kernel_layout=Lk)                           (its result is in layout Ld)

The pass keeps, for each rewritten node, the permutation ``P`` with ``new = transpose(old,
axes=P)``. Layout-following rules, for a node whose data operand carries ``P``:

    unary elementwise op(x)                 -> op(x'), carries P
    broadcast op(a, b[, c]) of rank-4 result -> op(a', b', ..) where an operand without P is
                                               transpose(expand_dims(b, 0, 4 - rank), P);
                                               carries P (scalars stay as they are)
    nn.bias_add(x, b, axis=k)               -> nn.bias_add(x', b, axis=P.index(k))
    nn.batch_norm(x, .., axis=k)            -> nn.batch_norm(x', .., axis=P.index(k));
                                               field 0 of the result carries P
    nn.max_pool2d | nn.avg_pool2d | nn.global_avg_pool2d(x, layout=L)
                                            -> the same with layout (and a non-empty
                                               out_layout) permuted by P; carries P
    nn.conv2d(x, ..)                        -> transposes x from its current layout

Every other consumer of a node that carries ``P`` (any other operator, a tuple, a function's
result, a ``let``, an ``if``, a call of a function, ...) gets ``transpose(new, axes=P^-1)``,
made once per node and shared, so it sees exactly the original value. The rewrite is exact:
transposes move elements, and the converted operators compute the same sums in another
memory order.

``desired_layouts`` lists ``(op, data_layout, kernel_layout)``; only ``nn.conv2d`` is supported,
with any permutation of NCHW and OIHW; a kernel layout ``"default"`` means HWIO for NHWC and
OIHW for NCHW, as in TVM. Deliberate differences from TVM: boundaries are ``transpose`` calls
rather than ``layout_transform`` (the same permutation, and always available), and packed
layouts (NCHW4c) are not produced. Convolutions already in the desired layouts, whose data
arrives in the original layout, are left alone.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...semantics.ops import OPS
from ...semantics.ops.nn.conv import Conv2DAttrs
from ...semantics.ops.nn.dense import BiasAddAttrs
from ...semantics.ops.nn.norm import BatchNormAttrs
from ...semantics.ops.nn.pool import AvgPool2DAttrs, GlobalPool2DAttrs, MaxPool2DAttrs
from ...semantics.ops.shape import ExpandDimsAttrs, TransposeAttrs
from ...semantics.syntax import (
    Call,
    Expr,
    Function,
    GlobalVar,
    IRModule,
    Op,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    children,
)
from ...semantics.typing import TypeInfo, infer_types
from ..ir import map_functions, rewrite_pairs, with_children
from ..pass_manager import Pass, register_pass

Perm = tuple[int, ...]

UNARY_ELEMENTWISE = frozenset(
    name
    for name, op in OPS.items()
    if op.num_inputs == 1 and op.relation_name in ("Identity", "IdentityCompRel", "Cast")
)
"""Operators applied element by element to one tensor: any layout will do."""

BROADCASTING = frozenset(
    name
    for name, op in OPS.items()
    if (op.num_inputs == 2 and op.relation_name in ("Broadcast", "BroadcastComp"))
    or name == "where"
)
"""Operators that broadcast their tensor operands element by element."""

POOLS = frozenset({"nn.max_pool2d", "nn.avg_pool2d", "nn.global_avg_pool2d"})

DEFAULT_KERNEL = {"NHWC": "HWIO", "NCHW": "OIHW"}
"""TVM's kernel layout for ``"default"``."""


def permutation(src: str, dst: str) -> Perm:
    """The axes ``transpose`` takes to turn a tensor in layout ``src`` into layout ``dst``."""
    return tuple(src.index(axis) for axis in dst)


def inverse(p: Perm) -> Perm:
    """The permutation undoing ``p``."""
    out = [0] * len(p)
    for i, axis in enumerate(p):
        out[axis] = i
    return tuple(out)


def is_identity(p: Perm) -> bool:
    return all(i == axis for i, axis in enumerate(p))


def transpose(e: Expr, axes: Perm) -> Expr:
    """``transpose(e, axes)``; a transpose of a transpose is composed into one, or vanishes
    when the two cancel (both are pure, so the inner one may stay for its other users)."""
    if (
        isinstance(e, Call)
        and isinstance(e.op, Op)
        and e.op.name == "transpose"
        and isinstance(e.attrs, TransposeAttrs)
        and e.attrs.axes is not None
        and len(e.attrs.axes) == len(axes)
        and all(a >= 0 for a in e.attrs.axes)
    ):
        inner = e.attrs.axes
        composed = tuple(inner[a] for a in axes)
        if is_identity(composed):
            return e.args[0]
        return Call(Op("transpose"), (e.args[0],), TransposeAttrs(axes=composed), span=e.span)
    return Call(Op("transpose"), (e,), TransposeAttrs(axes=axes), span=e.span)


def is_layout(layout: str, canonical: str) -> bool:
    return len(layout) == len(canonical) and sorted(layout) == sorted(canonical)


@dataclass
class Converter:
    """The rewrite of one global function: the permutation each rewritten node carries."""

    info: TypeInfo
    data_layout: str
    kernel_layout: str
    carries: dict[int, Perm]
    fields: dict[int, dict[int, Perm]]
    restored: dict[int, Expr]

    def restore(self, original: Expr, new: Expr) -> Expr:
        """``new`` (the rewrite of ``original``) in ``original``'s layout (made once)."""
        perm = self.carries.get(id(original))
        field_perms = self.fields.get(id(original))
        if perm is None and field_perms is None:
            return new
        done = self.restored.get(id(original))
        if done is not None:
            return done
        if perm is not None:
            out = transpose(new, inverse(perm))
        else:
            assert field_perms is not None
            t = self.info.expr_types[original]
            assert isinstance(t, TupleType)
            projections = [TupleGetItem(new, i) for i in range(len(t.fields))]
            out = Tuple(
                tuple(
                    transpose(p, inverse(field_perms[i])) if i in field_perms else p
                    for i, p in enumerate(projections)
                )
            )
        self.restored[id(original)] = out
        return out

    def generic(self, original: Expr, rebuilt: Expr) -> Expr:
        """``rebuilt`` with every operand that carries a permutation restored."""
        kids = tuple(
            self.restore(o, n) for o, n in zip(children(original), children(rebuilt), strict=True)
        )
        return with_children(rebuilt, kids)

    def visit(self, original: Expr, rebuilt: Expr) -> Expr | None:
        if isinstance(original, TupleGetItem) and id(original.tuple) in self.fields:
            perm = self.fields[id(original.tuple)].get(original.index)
            if perm is not None:
                self.carries[id(original)] = perm
            return None
        if isinstance(original, Call) and isinstance(rebuilt, Call):
            out = self.call(original, rebuilt)
            if out is not None:
                return out
        return self.generic(original, rebuilt)

    def call(self, original: Call, rebuilt: Call) -> Expr | None:
        """A layout rule for an operator call, or ``None`` for the generic treatment."""
        if not isinstance(original.op, Op):
            return None
        name = original.op.name
        if name == "nn.conv2d":
            return self.conv2d(original, rebuilt)
        perm = self.carries.get(id(original.args[0])) if original.args else None
        if name in BROADCASTING:
            return self.broadcast(original, rebuilt)
        if perm is None:
            return None
        attrs = rebuilt.attrs
        if name == "transpose" and isinstance(attrs, TransposeAttrs):
            # transpose(x, axes) of x = transpose(x', P^-1): one transpose of x', or none.
            rank = len(perm)
            axes = tuple(reversed(range(rank))) if attrs.axes is None else attrs.axes
            if len(axes) != rank:
                return None
            restored = self.restore(original.args[0], rebuilt.args[0])
            return transpose(restored, tuple(a % rank for a in axes))
        if name in UNARY_ELEMENTWISE:
            self.carries[id(original)] = perm
            return rebuilt
        if isinstance(attrs, BiasAddAttrs | BatchNormAttrs):
            axis = attrs.axis % len(perm)
            new = self.generic_rest(
                original, replace(rebuilt, attrs=replace(attrs, axis=perm.index(axis)))
            )
            if isinstance(attrs, BatchNormAttrs):
                self.fields[id(original)] = {0: perm}
            else:
                self.carries[id(original)] = perm
            return new
        if name in POOLS and isinstance(attrs, MaxPool2DAttrs | AvgPool2DAttrs | GlobalPool2DAttrs):
            if len(attrs.layout) != len(perm) or not attrs.layout.isalpha():
                return None
            layout = "".join(attrs.layout[p] for p in perm)
            out_layout = attrs.out_layout
            if out_layout:
                if len(out_layout) != len(perm) or not out_layout.isalpha():
                    return None
                out_layout = "".join(out_layout[p] for p in perm)
            new_attrs = replace(attrs, layout=layout, out_layout=out_layout)
            self.carries[id(original)] = perm
            return replace(rebuilt, attrs=new_attrs)
        return None

    def generic_rest(self, original: Call, rebuilt: Call) -> Call:
        """``rebuilt`` with its operands after the first restored."""
        rest = zip(original.args[1:], rebuilt.args[1:], strict=True)
        args = (rebuilt.args[0], *(self.restore(o, n) for o, n in rest))
        return replace(rebuilt, args=args)

    def broadcast(self, original: Call, rebuilt: Call) -> Expr | None:
        """A broadcasting operator with an operand that carries a permutation."""
        perm = next((self.carries[id(a)] for a in original.args if id(a) in self.carries), None)
        out_t = self.info.expr_types.get(original)
        if perm is None or not isinstance(out_t, TensorType) or len(out_t.shape) != len(perm):
            return None
        args: list[Expr] = []
        for o, n in zip(original.args, rebuilt.args, strict=True):
            if self.carries.get(id(o)) == perm:
                args.append(n)
                continue
            n = self.restore(o, n)
            t = self.info.expr_types.get(o)
            assert isinstance(t, TensorType)
            rank = len(t.shape)
            if rank == 0:
                args.append(n)
                continue
            if rank < len(perm):
                missing = len(perm) - rank
                n = Call(Op("expand_dims"), (n,), ExpandDimsAttrs(axis=0, num_newaxis=missing))
            args.append(transpose(n, perm))
        self.carries[id(original)] = perm
        return replace(rebuilt, args=tuple(args))

    def conv2d(self, original: Call, rebuilt: Call) -> Expr:
        """Rewrite a convolution to the desired layouts (see the module docstring)."""
        attrs = rebuilt.attrs
        assert isinstance(attrs, Conv2DAttrs)
        data, weight = original.args
        perm = self.carries.get(id(data))
        current = attrs.data_layout if perm is None else "".join(attrs.data_layout[p] for p in perm)
        new_weight = self.restore(weight, rebuilt.args[1])
        if (
            perm is None
            and attrs.data_layout == self.data_layout
            and attrs.kernel_layout == self.kernel_layout
            and (attrs.out_layout in ("", self.data_layout))
        ):
            return replace(rebuilt, args=(rebuilt.args[0], new_weight))
        new_data = rebuilt.args[0]
        if current != self.data_layout:
            new_data = transpose(new_data, permutation(current, self.data_layout))
        if attrs.kernel_layout != self.kernel_layout:
            new_weight = transpose(new_weight, permutation(attrs.kernel_layout, self.kernel_layout))
        new_attrs = replace(
            attrs, data_layout=self.data_layout, kernel_layout=self.kernel_layout, out_layout=""
        )
        out_layout = attrs.out_layout or attrs.data_layout
        out_perm = permutation(out_layout, self.data_layout)
        if not is_identity(out_perm):
            self.carries[id(original)] = out_perm
        return replace(rebuilt, args=(new_data, new_weight), attrs=new_attrs)


@register_pass
@dataclass(frozen=True)
class ConvertLayout(Pass):
    """Convert ``nn.conv2d`` calls to the desired data and kernel layouts; the operators after
    them that can follow the new layout do, and ``transpose`` restores the original layout
    where anything else reads the value.

    Pre: well-typed. Post: same types and values; every ``nn.conv2d`` is in the desired
    layouts, and each global function's signature and result are unchanged.
    """

    desired_layouts: tuple[tuple[str, str, str], ...] = (("nn.conv2d", "NHWC", "HWIO"),)
    opt_level = 3
    focus_ops = frozenset(
        {"nn.conv2d", "nn.bias_add", "nn.relu", "nn.max_pool2d", "nn.batch_norm", "add"}
    )

    def __post_init__(self) -> None:
        for entry in self.desired_layouts:
            op, data_layout, kernel_layout = entry
            if op != "nn.conv2d":
                raise ValueError(f"desired_layouts: op={op!r} is not supported (only 'nn.conv2d')")
            if not is_layout(data_layout, "NCHW"):
                raise ValueError(
                    f"desired_layouts: data_layout={data_layout!r} is not a permutation of NCHW"
                )
            kernel = self.kernel_for(data_layout, kernel_layout)
            if not is_layout(kernel, "OIHW"):
                raise ValueError(
                    f"desired_layouts: kernel_layout={kernel_layout!r} is not a permutation "
                    f"of OIHW (or 'default' with NHWC or NCHW data)"
                )

    @staticmethod
    def kernel_for(data_layout: str, kernel_layout: str) -> str:
        if kernel_layout == "default":
            return DEFAULT_KERNEL.get(data_layout, "")
        return kernel_layout

    def transform(self, mod: IRModule) -> IRModule:
        wanted = [e for e in self.desired_layouts if e[0] == "nn.conv2d"]
        if not wanted:
            return mod
        _, data_layout, kernel_layout = wanted[-1]
        kernel_layout = self.kernel_for(data_layout, kernel_layout)
        info = infer_types(mod)

        def one(_: GlobalVar, fn: Function) -> Function:
            converter = Converter(info, data_layout, kernel_layout, {}, {}, {})
            out = rewrite_pairs(fn, converter.visit)
            assert isinstance(out, Function)
            return out

        return map_functions(mod, one)
