"""Helpers the ``nn`` lowerings (and ``image``, ``qnn``) share: dtypes, casts, layouts,
padding, buffers for BLAS calls, the store of a scheduled output.

Conventions follow ``semantics/ops/nn/common.py``: operands are cast to the output dtype first
(TVM's cast, ``ir.Cast``), float16 is computed in float32 and rounded once at the end
(``compute_dtype``), sums of products accumulate in the output dtype.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ... import ir, te
from ...schedules import add, less, static, sub


def compute_dtype(dtype: str) -> str:
    """The dtype arithmetic on ``dtype`` values is done in (float16 in float32)."""
    return "float32" if dtype == "float16" else dtype


def cast(e: ir.PrimExpr, dtype: str) -> ir.PrimExpr:
    """``e`` as ``dtype`` (no node when it already is)."""
    return e if e.dtype == dtype else ir.Cast(dtype, e)


def binary(op: ir.BinOp, a: ir.PrimExpr, b: ir.PrimExpr) -> ir.PrimExpr:
    """``a op b``."""
    return ir.Binary(op, a, b)


def tensor(args: tuple[te.TensorResult, ...], i: int, op: str) -> te.Tensor:
    """Argument ``i`` as a tensor (a tuple there is a lowering error)."""
    t = args[i]
    if not isinstance(t, te.Tensor):
        raise te.LoweringError(op, f"argument {i} is a tuple, expected a tensor")
    return t


def out_shape(ctx: te.LowerContext, out_type: object, op: str) -> tuple[ir.PrimExpr, ...]:
    """The result type's shape (a tensor type)."""
    from .....semantics.syntax import TensorType

    if not isinstance(out_type, TensorType):
        raise te.LoweringError(op, f"expected a tensor result, found {out_type}")
    return ctx.shape(out_type)


def permuted(t: te.Tensor, layout: str, canonical: str) -> Callable[..., ir.PrimExpr]:
    """``t`` (in ``layout``) read with indices in ``canonical`` order."""
    order = tuple(canonical.index(axis) for axis in layout)

    def read(*canon: ir.PrimExpr) -> ir.PrimExpr:
        return t(*(canon[p] for p in order))

    return read


def canonical_dims(dims: Sequence[ir.PrimExpr], layout: str, canonical: str) -> list[ir.PrimExpr]:
    """Dimensions in ``layout`` rearranged to ``canonical`` order."""
    return [dims[layout.index(axis)] for axis in canonical]


def padded_read(
    read: Callable[..., ir.PrimExpr],
    lead: tuple[ir.PrimExpr, ...],
    spatial: Sequence[ir.PrimExpr],
    extents: Sequence[ir.PrimExpr],
    fill: ir.PrimExpr,
) -> ir.PrimExpr:
    """``read(*lead, *spatial)`` where every spatial index is inside ``[0, extent)``, else
    ``fill``; the read itself uses clamped indices, so it never leaves the tensor (``Select``
    evaluates both arms)."""
    if any(static(e) == 0 for e in extents):
        return fill  # an empty axis: every position is padding
    conds: list[ir.PrimExpr] = []
    clamped: list[ir.PrimExpr] = []
    for x, e in zip(spatial, extents, strict=True):
        conds.append(binary(ir.BinOp.GE, x, ir.index(0)))
        upper = less(x, e)
        if upper is not None:
            conds.append(upper)
        clamped.append(binary(ir.BinOp.MAX, binary(ir.BinOp.MIN, x, sub(e, 1)), ir.index(0)))
    cond: ir.PrimExpr | None = None
    for c in conds:
        cond = c if cond is None else binary(ir.BinOp.AND, cond, c)
    if cond is None:
        return read(*lead, *spatial)
    return ir.Select(cond, read(*lead, *clamped), fill)


def buffer_of(t: te.Tensor) -> ir.Buffer | None:
    """The row-major input buffer that holds ``t``, or ``None``. (Only kernel inputs: the
    driver finds the materialised tensors a nest reads through its loads, and an
    ``ExternCall``'s buffer arguments are not loads.)"""
    if isinstance(t, te.Placeholder) and t.buffer.strides is None:
        return t.buffer
    return None


def store(
    out: ir.Buffer,
    indices: tuple[ir.PrimExpr, ...],
    value: ir.PrimExpr,
    dtype: str,
    epilogue: te.Epilogue | None,
) -> ir.Stmt:
    """``out[indices] = epilogue(value as dtype)`` (no epilogue: the value as ``dtype``)."""
    v = cast(value, dtype)
    return ir.Store(out, indices, v if epilogue is None else epilogue(v, indices))


def offset(base: ir.PrimExpr, by: int) -> ir.PrimExpr:
    """``base + by`` on indices."""
    return add(base, by)
