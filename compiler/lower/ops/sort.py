"""Lowerings of ``semantics/ops/sort.py``: ``searchsorted`` (a reduction counting the sequence
elements ``< value``, ``<=`` with ``right``: the reference's binary search on a sorted
sequence, which is its only defined input); ``sort``, ``argsort`` and ``topk`` through the
stable sorting permutation, computed by ranks.

The rank of element ``i`` of a row is the number of ``j`` that come before it in the stable
order: ``x[j] < x[i]`` (``>`` descending) or ``x[j] == x[i]`` and ``j < i``. Ranks are a
permutation of the row (the order is total where the reference is defined: NaN is undefined
behaviour), so a loop nest that stores ``i`` at ``perm[rank(i)]`` fills the permutation: for
each row, ``O(n^2)`` comparisons with no data-dependent control flow. ``sort`` and ``topk``
then gather ``data`` through it. Bool data compares as ``int8`` (false before true).
"""

from __future__ import annotations

from ....semantics.ops.registry import Attrs
from ....semantics.ops.sort import ArgsortAttrs, SearchSortedAttrs, TopKAttrs
from ....semantics.syntax import Type
from .. import ir, te
from .. import schedules as sch
from .nn.common import cast, tensor


@te.lowering("searchsorted")
def lower_searchsorted(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``out[.., v] = count of seq[.., r] < values[.., v]`` (``<=`` with ``right``)."""
    assert isinstance(attrs, SearchSortedAttrs)
    seq, values = tensor(args, 0, "searchsorted"), tensor(args, 1, "searchsorted")
    op = ir.BinOp.LE if attrs.right else ir.BinOp.LT

    def below(ix: te.Indices, r: te.Indices) -> ir.PrimExpr:
        row = ix[:-1] if seq.ndim > 1 else ()
        return cast(ir.Binary(op, seq(*row, r[0]), values(*ix)), "int64")

    return te.reduce(
        values.shape,
        attrs.dtype,
        (seq.shape[-1],),
        "sum",
        below,
        ctx.fresh("searchsorted"),
        acc_dtype="int64",
    )


def sort_axis(op: str, data: te.Tensor, axis: int) -> int:
    """``axis`` normalised for ``data`` (a lowering error out of range or for rank 0)."""
    if data.ndim == 0 or not -data.ndim <= axis < data.ndim:
        raise te.LoweringError(op, f"axis {axis} is out of range for rank {data.ndim}")
    return axis % data.ndim


def permutation(name: str, data: te.Tensor, axis: int, ascend: bool, dtype: str) -> te.Scheduled:
    """The stable sorting permutation of ``data`` along ``axis`` (``dtype`` indices):
    ``perm[.., p, ..]`` is the index of the element of rank ``p`` (see the module docstring).
    The rows (the other axes) are the outer loops, the first of them parallel."""
    n = data.shape[axis]
    outer = data.shape[:axis] + data.shape[axis + 1 :]

    def key(e: ir.PrimExpr) -> ir.PrimExpr:
        return cast(e, "int8") if data.dtype == "bool" else e

    def at(row: te.Indices, k: ir.PrimExpr) -> tuple[ir.PrimExpr, ...]:
        return (*row[:axis], k, *row[axis:])

    def schedule(out: ir.Buffer, epilogue: te.Epilogue | None) -> ir.Stmt:
        def per_row(row: te.Indices) -> ir.Stmt:
            def per_element(i: ir.PrimExpr) -> ir.Stmt:
                acc = sch.local("rank", (1,), "int64")
                zero = (ir.index(0),)
                xi = key(data(*at(row, i)))

                def count(j: ir.PrimExpr) -> ir.Stmt:
                    xj = key(data(*at(row, j)))
                    strictly = ir.Binary(ir.BinOp.LT if ascend else ir.BinOp.GT, xj, xi)
                    tie = ir.Binary(
                        ir.BinOp.AND,
                        ir.Binary(ir.BinOp.EQ, xj, xi),
                        ir.Binary(ir.BinOp.LT, j, i),
                    )
                    before = cast(ir.Binary(ir.BinOp.OR, strictly, tie), "int64")
                    return ir.Store(acc, zero, ir.Binary(ir.BinOp.ADD, ir.Load(acc, zero), before))

                rank = ir.Load(acc, zero)
                ix = at(row, rank)
                value = cast(i, out.dtype if epilogue is None else dtype)
                stored = ir.Store(out, ix, value if epilogue is None else epilogue(value, ix))
                return ir.Allocate(
                    acc,
                    sch.seq(ir.Store(acc, zero, ir.index(0)), sch.loop("j", n, count), stored),
                )

            return sch.loop("i", n, per_element)

        kinds = [ir.LoopKind.PARALLEL] + [ir.LoopKind.SERIAL] * (len(outer) - 1)
        return sch.nest("row", outer, per_row, kinds[: len(outer)])

    return te.Scheduled(name, data.shape, dtype, schedule=schedule)


def gather(
    name: str, data: te.Tensor, perm: te.Tensor, axis: int, shape: tuple[ir.PrimExpr, ...]
) -> te.Tensor:
    """``data`` read along ``axis`` at the indices ``perm`` holds (``shape``: ``data``'s, or
    a prefix of the axis)."""

    def element(ix: te.Indices) -> ir.PrimExpr:
        k = cast(perm(*ix), "int64")
        return data(*ix[:axis], k, *ix[axis + 1 :])

    return te.compute(shape, data.dtype, element, name)


@te.lowering("argsort")
def lower_argsort(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The stable sorting permutation (see ``permutation``)."""
    assert isinstance(attrs, ArgsortAttrs)
    data = tensor(args, 0, "argsort")
    axis = sort_axis("argsort", data, attrs.axis)
    return permutation(ctx.fresh("argsort"), data, axis, attrs.is_ascend, attrs.dtype)


@te.lowering("sort")
def lower_sort(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """``data`` gathered through its stable sorting permutation."""
    assert isinstance(attrs, ArgsortAttrs)
    data = tensor(args, 0, "sort")
    axis = sort_axis("sort", data, attrs.axis)
    perm = permutation(ctx.fresh("sort_perm"), data, axis, attrs.is_ascend, "int64")
    return gather(ctx.fresh("sort"), data, perm, axis, data.shape)


@te.lowering("topk")
def lower_topk(
    ctx: te.LowerContext,
    args: tuple[te.TensorResult, ...],
    attrs: Attrs | None,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The first ``k`` entries of the stable permutation (``k < 1``: all), and the values
    gathered through them, as ``ret_type`` asks (``k`` past the extent is undefined)."""
    assert isinstance(attrs, TopKAttrs)
    assert attrs.k is not None
    data = tensor(args, 0, "topk")
    axis = sort_axis("topk", data, attrs.axis)
    n = sch.static(data.shape[axis])
    if attrs.k >= 1 and n is not None and attrs.k > n:
        raise te.LoweringError("topk", f"k={attrs.k} beyond the axis extent {data.shape[axis]}")
    shape = list(data.shape)
    if attrs.k >= 1:
        shape[axis] = ir.index(attrs.k)
    perm = permutation(ctx.fresh("topk_perm"), data, axis, attrs.is_ascend, "int64")
    values = gather(ctx.fresh("topk_values"), data, perm, axis, tuple(shape))
    indices = te.compute(
        tuple(shape), attrs.dtype, lambda ix: cast(perm(*ix), attrs.dtype), ctx.fresh("topk_idx")
    )
    match attrs.ret_type:
        case "both":
            return (values, indices)
        case "values":
            return values
        case _:
            return indices
