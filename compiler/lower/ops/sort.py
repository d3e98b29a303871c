"""Lowerings of ``semantics/ops/sort.py``: ``searchsorted`` (a reduction counting the sequence
elements ``< value``, ``<=`` with ``right``: the reference's binary search on a sorted
sequence, which is its only defined input); ``sort``, ``argsort`` and ``topk`` are unsupported
(reasons below)."""

from __future__ import annotations

from ....semantics.ops.registry import Attrs
from ....semantics.ops.sort import SearchSortedAttrs
from ....semantics.syntax import Type
from .. import ir, te
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


_SORT = (
    "not lowered: a data-dependent permutation (a sorting network over static extents is the "
    "planned lowering)"
)
for _name in ("sort", "argsort", "topk"):
    te.unsupported(_name, _SORT)
