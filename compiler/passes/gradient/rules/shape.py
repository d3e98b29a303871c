"""Gradient rules of ``semantics/ops/shape.py`` (and the shape-only ``nn.batch_flatten``).

Shape operators move elements without changing them, so each cotangent is moved back::

    reshape, expand_dims, squeeze, reshape_like, nn.batch_flatten: reshape_like(g, x)
    transpose(axes): transpose(g, inverse of axes)
    concatenate((x1..xn), axis): split(g, at the offsets of the xi, axis)
    stack((x1..xn), axis): squeeze each field of split(g, n, axis)
    split(x, ..., axis): concatenate(g, axis)       reverse(x, axis): reverse(g, axis)
    broadcast_to, broadcast_to_like: collapse_sum_like(g, x)
    collapse_sum_like: broadcast_to_like(g, x)
    layout_transform(src, dst): layout_transform(g, dst, src)

``ZERO``: ``shape_of`` and ``ndarray_size`` (integer results).
"""

from __future__ import annotations

import itertools

from .....semantics.syntax import Expr, TensorType, Tuple, TupleGetItem, TupleType
from .common import GradCall, GradRule, collapse_to, op


def _reshape_back(c: GradCall) -> list[Expr | None]:
    out: list[Expr | None] = [None] * len(c.call.args)
    out[0] = op("reshape_like", c.grad, c.arg(0))
    return out


def _transpose(c: GradCall) -> tuple[Expr | None]:
    rank = c.rank(0)
    axes = c.attr("axes")
    if axes is None or axes == ():
        return (op("transpose", c.grad, axes=None),)
    assert isinstance(axes, tuple)
    inverse = [0] * rank
    for i, a in enumerate(axes):
        inverse[int(a) % rank] = i  # type: ignore[arg-type]
    return (op("transpose", c.grad, axes=tuple(inverse)),)


def _fields(c: GradCall) -> tuple[TensorType, ...]:
    t = c.arg_types[0]
    if not isinstance(t, TupleType) or not all(isinstance(f, TensorType) for f in t.fields):
        raise c.fail("expected a tuple of tensors")
    return tuple(f for f in t.fields if isinstance(f, TensorType))


def _concatenate(c: GradCall) -> tuple[Expr | None]:
    fields = _fields(c)
    rank = len(fields[0].shape)
    axis = int(c.attr("axis")) % rank  # type: ignore[arg-type]
    sizes = []
    for f in fields:
        d = f.shape[axis]
        if not isinstance(d, int):
            raise c.fail("its gradient rule needs static sizes along the axis")
        sizes.append(d)
    offsets = tuple(itertools.accumulate(sizes[:-1]))
    if len(fields) == 1:
        return (Tuple((c.grad,)),)
    return (op("split", c.grad, indices_or_sections=offsets, axis=axis),)


def _stack(c: GradCall) -> tuple[Expr | None]:
    n = len(_fields(c))
    axis = int(c.attr("axis")) % c.rank()  # type: ignore[arg-type]
    parts = op("split", c.grad, indices_or_sections=n, axis=axis)
    return (Tuple(tuple(op("squeeze", TupleGetItem(parts, i), axis=(axis,)) for i in range(n))),)


def _split(c: GradCall) -> tuple[Expr | None]:
    t = c.out_type
    assert isinstance(t, TupleType)
    fields = tuple(TupleGetItem(c.grad, i) for i in range(len(t.fields)))
    return (op("concatenate", Tuple(fields), axis=c.attr("axis")),)


def _reverse(c: GradCall) -> tuple[Expr | None]:
    return (op("reverse", c.grad, axis=c.attr("axis")),)


def _broadcast(c: GradCall) -> list[Expr | None]:
    out: list[Expr | None] = [None] * len(c.call.args)
    out[0] = collapse_to(c.grad, c.arg(0))
    return out


def _collapse(c: GradCall) -> tuple[Expr | None, None]:
    return (op("broadcast_to_like", c.grad, c.arg(0)), None)


def _layout(c: GradCall) -> tuple[Expr | None]:
    src, dst = c.attr("src_layout"), c.attr("dst_layout")
    return (op("layout_transform", c.grad, src_layout=dst, dst_layout=src),)


RULES: dict[str, GradRule] = {
    "reshape": _reshape_back,
    "expand_dims": _reshape_back,
    "squeeze": _reshape_back,
    "reshape_like": _reshape_back,
    "nn.batch_flatten": _reshape_back,
    "transpose": _transpose,
    "concatenate": _concatenate,
    "stack": _stack,
    "split": _split,
    "reverse": _reverse,
    "broadcast_to": _broadcast,
    "broadcast_to_like": _broadcast,
    "collapse_sum_like": _collapse,
    "layout_transform": _layout,
}

ZERO: frozenset[str] = frozenset({"shape_of", "ndarray_size", "vm.shape_of"})
