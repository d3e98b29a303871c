"""Lowerings of the ``shape`` operators (``semantics/ops/shape.py``): index remappings, each a
``Compute`` that reads its input at the source index of every output index.

``reshape``, ``reshape_like`` and the shape of ``squeeze``/``expand_dims`` come from the result
type; a reshape reads the row-major linear index of the output position unravelled over the
input's shape. ``concatenate`` selects the input by comparing the index along the axis with the
running offsets. Operators not lowered are registered unsupported with the reason.
"""

from __future__ import annotations

from ....semantics.ops.registry import Attrs
from ....semantics.ops.shape import ConcatenateAttrs, TransposeAttrs
from ....semantics.syntax import TensorType, Type
from .. import ir, te
from .broadcast import broadcast_read
from .elementwise import tensor_input

B = ir.BinOp


def linear(idx: te.Indices, shape: tuple[ir.PrimExpr, ...]) -> ir.PrimExpr:
    """The row-major linear index of ``idx`` in ``shape``."""
    out: ir.PrimExpr = ir.index(0)
    for i, d in zip(idx, shape, strict=True):
        out = i if out == ir.index(0) else ir.Binary(B.ADD, ir.Binary(B.MUL, out, d), i)
    return out


def unravel(flat: ir.PrimExpr, shape: tuple[ir.PrimExpr, ...]) -> list[ir.PrimExpr]:
    """The index of the row-major position ``flat`` in ``shape``."""
    out: list[ir.PrimExpr] = []
    for k in reversed(range(len(shape))):
        d = shape[k]
        out.append(flat if k == 0 else ir.Binary(B.MOD, flat, d))
        flat = ir.Binary(B.DIV, flat, d)
    return list(reversed(out))


def _reshaped(x: te.Tensor, shape: tuple[ir.PrimExpr, ...], name: str) -> te.Tensor:
    return te.compute(shape, x.dtype, lambda idx: x(*unravel(linear(idx, shape), x.shape)), name)


def _to_result(name: str) -> te.LoweringFn:
    def lower(
        ctx: te.LowerContext,
        inputs: tuple[te.TensorResult, ...],
        attrs: Attrs,
        arg_types: tuple[Type, ...],
        out_type: Type,
    ) -> te.TensorResult:
        """The data's elements in row-major order, in the result type's shape."""
        assert isinstance(out_type, TensorType)
        return _reshaped(tensor_input(inputs, 0), ctx.shape(out_type), name)

    return lower


for _op in ("reshape", "reshape_like", "squeeze", "expand_dims"):
    te.lowering(_op)(_to_result(_op))


@te.lowering("broadcast_to", "broadcast_to_like")
def _broadcast_to(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The data broadcast (numpy's rules) to the result type's shape."""
    assert isinstance(out_type, TensorType)
    x = tensor_input(inputs, 0)
    shape = ctx.shape(out_type)
    return te.compute(shape, x.dtype, lambda idx: broadcast_read(x, idx), "broadcast_to")


@te.lowering("transpose")
def _transpose(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[i_0, ..., i_n] = x[...]`` with ``x``'s axis ``axes[k]`` at ``i_k`` (``axes``
    reversed by default; negative axes count from the end)."""
    assert isinstance(attrs, TransposeAttrs)
    x = tensor_input(inputs, 0)
    n = x.ndim
    axes = [a % n if n else a for a in attrs.axes] if attrs.axes else list(reversed(range(n)))
    shape = tuple(x.shape[a] for a in axes)

    def element(idx: te.Indices) -> ir.PrimExpr:
        src: list[ir.PrimExpr] = [ir.index(0)] * n
        for k, a in enumerate(axes):
            src[a] = idx[k]
        return x(*src)

    return te.compute(shape, x.dtype, element, "transpose")


@te.lowering("concatenate")
def _concatenate(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The fields of the tuple ``data`` one after another along ``axis``."""
    assert isinstance(attrs, ConcatenateAttrs) and isinstance(out_type, TensorType)
    fields = inputs[0]
    assert isinstance(fields, tuple)
    parts = [f for f in fields if isinstance(f, te.Tensor)]
    n = parts[0].ndim
    axis = attrs.axis % n
    # A part that is statically empty along the axis contributes nothing (and must not be
    # loaded from at all: a select evaluates both arms).
    nonempty = [p for p in parts if p.shape[axis] != ir.index(0)]
    parts = nonempty or parts[:1]
    offsets: list[ir.PrimExpr] = [ir.index(0)]
    for p in parts:
        last = offsets[-1]
        d = p.shape[axis]
        offsets.append(d if last == ir.index(0) else ir.Binary(B.ADD, last, d))
    shape = tuple(offsets[-1] if k == axis else parts[0].shape[k] for k in range(n))

    def element(idx: te.Indices) -> ir.PrimExpr:
        # Loads of a part are only evaluated where its index is in range: the select chain is
        # built so that each arm's index is clamped to 0 when it is not chosen.
        out = _clamped(parts[-1], idx, axis, offsets[-2], len(parts) - 1)
        for k in reversed(range(len(parts) - 1)):
            below = ir.Binary(B.LT, idx[axis], offsets[k + 1])
            out = ir.Select(below, _clamped(parts[k], idx, axis, offsets[k], k), out)
        return out

    return te.compute(shape, parts[0].dtype, element, "concatenate")


def _clamped(
    part: te.Tensor, idx: te.Indices, axis: int, offset: ir.PrimExpr, k: int
) -> ir.PrimExpr:
    """``part`` read at ``idx`` shifted by ``offset`` along ``axis``, the shifted index
    clamped into ``[0, extent)`` (both arms of a select are evaluated, so a load must stay in
    bounds even where its value is not chosen)."""
    src = list(idx)
    shifted = ir.Binary(B.SUB, idx[axis], offset) if k else idx[axis]
    last = ir.Binary(B.SUB, part.shape[axis], ir.index(1))
    src[axis] = ir.Binary(B.MAX, ir.index(0), ir.Binary(B.MIN, shifted, last))
    return part(*src)


for _op, _why in (
    ("stack", "not lowered yet"),
    ("split", "not lowered yet"),
    ("reverse", "not lowered yet"),
    ("tile", "not lowered yet"),
    ("repeat", "not lowered yet"),
    ("layout_transform", "not lowered yet"),
    ("collapse_sum_like", "not lowered yet"),
    ("shape_of", "its result is the input's shape: computed by the host runtime"),
    ("ndarray_size", "its result is the input's size: computed by the host runtime"),
    ("sliding_window", "not lowered yet"),
    ("reverse_sequence", "not lowered yet: data-dependent lengths"),
    ("meshgrid", "not lowered yet"),
):
    te.unsupported(_op, _why)
