"""Broken axis and layout bookkeeping: transposes composed in the wrong order, reduction axes
not renumbered, negative axes normalised with the wrong rank, split indices off by one, a
concatenation axis not checked, and layout conversions with the wrong weight permutation.

These rules change only where data sits, so an error shows either as a changed type (the
shape comes out different) or, when the shapes happen to agree (square tensors, kernels),
as different values. Each is a plain function ``IRModule -> IRModule`` that rewrites only
the calls its rule matches.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from relay.compiler.ir import map_functions, rewrite_pairs
from relay.semantics.ops.nn.conv import Conv2DAttrs
from relay.semantics.ops.nn.dense import MatmulAttrs
from relay.semantics.ops.reduce import ReduceAttrs
from relay.semantics.ops.shape import (
    ConcatenateAttrs,
    ExpandDimsAttrs,
    SplitAttrs,
    TransposeAttrs,
)
from relay.semantics.syntax import (
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    IRModule,
    Op,
    TensorType,
    Tuple,
    TupleGetItem,
)
from relay.semantics.typing import TypeInfo, infer_types

Rule = Callable[[Call, Call, TypeInfo], Expr | None]


def rewrite_calls(mod: IRModule, rule: Rule) -> IRModule:
    """``rule(original, rebuilt, types)`` applied to every operator call, bottom-up, once."""
    types = infer_types(mod)

    def visit(original: Expr, rebuilt: Expr) -> Expr | None:
        if isinstance(original, Call) and isinstance(rebuilt, Call) and isinstance(rebuilt.op, Op):
            return rule(original, rebuilt, types)
        return None

    def one(_: GlobalVar, fn: Function) -> Function:
        out = rewrite_pairs(fn, visit)
        assert isinstance(out, Function)
        return out

    return map_functions(mod, one)


def _name(e: Expr) -> str | None:
    return e.op.name if isinstance(e, Call) and isinstance(e.op, Op) else None


def _shape(types: TypeInfo, e: Expr) -> tuple[int, ...] | None:
    t = types.expr_types.get(e)
    if not isinstance(t, TensorType) or not all(isinstance(d, int) for d in t.shape):
        return None
    return tuple(int(d) for d in t.shape)  # type: ignore[arg-type]


def _transpose(x: Expr, axes: tuple[int, ...], like: Call) -> Call:
    return Call(Op("transpose"), (x,), TransposeAttrs(axes=axes), span=like.span)


def _perm(attrs: object, rank: int) -> tuple[int, ...]:
    assert isinstance(attrs, TransposeAttrs)
    if attrs.axes is None:
        return tuple(range(rank - 1, -1, -1))
    return tuple(a % rank for a in attrs.axes)


# -- transpose(transpose(x, p), q) -----------------------------------------------------------


def _compose_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.args:
        case "transpose", (Call(Op("transpose"), (x,), inner_attrs),):
            shape = _shape(types, original)
            if shape is None:
                return None
            p, q = _perm(inner_attrs, len(shape)), _perm(e.attrs, len(shape))
            # BUG: the result's axis i is the input's axis p[q[i]]; this is q[p[i]]
            composed = tuple(q[p[i]] for i in range(len(shape)))
            if composed == tuple(range(len(shape))):
                return x
            return _transpose(x, composed, e)
    return None


def transpose_compose_wrong_order(mod: IRModule) -> IRModule:
    """SimplifyTranspose's fusion of two transposes with the permutations composed the wrong
    way round (``q . p`` instead of ``p . q``): equal when the two commute (always at rank 2),
    wrong for ``transpose(transpose(x, (1, 2, 0)), (1, 0, 2))``.

    Bug class: transposes composed in the wrong order.
    """
    return rewrite_calls(mod, _compose_rule)


# -- reduce(reduce(x, A), B) -> reduce(x, A + B) ---------------------------------------------

_REDUCERS = frozenset({"sum", "max", "min", "prod", "all", "any"})


def _reduce_reduce_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.args, e.attrs:
        case str(outer), (Call(Op(inner), (x,), ReduceAttrs(a, False, False)),), ReduceAttrs(
            b, keep, False
        ) if outer == inner and outer in _REDUCERS and a is not None and b is not None:
            shape = _shape(types, original.args[0])
            source = _shape(types, x)
            if shape is None or source is None:
                return None
            first = {i % len(source) for i in a}
            # BUG: the outer axes index the reduced tensor, whose axes after each removed one
            # moved down by one; they are used as axes of x unchanged
            second = {i % len(shape) for i in b}
            axes = tuple(sorted(first | second))
            return Call(e.op, (x,), ReduceAttrs(axis=axes, keepdims=keep), span=e.span)
    return None


def reduce_axes_not_renumbered(mod: IRModule) -> IRModule:
    """Merge two reductions of the same kind (``sum(sum(x, axis=[0]), axis=[0]) ->
    sum(x, axis=[0, 1])``) without renumbering the outer axes: the outer ``axis=[0]`` refers
    to the reduced tensor, whose axis 0 is ``x``'s axis 1, but is taken as ``x``'s axis 0.

    Bug class: axis bookkeeping in reduce (axes not shifted after a reduction removed one).
    """
    return rewrite_calls(mod, _reduce_reduce_rule)


# -- negative axes normalised with the wrong rank --------------------------------------------


def _reduce_axis_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.attrs:
        case str(name), ReduceAttrs(axis, keep, exclude) if name in _REDUCERS | {"mean"}:
            shape = _shape(types, original.args[0])
            if axis is None or shape is None or all(i >= 0 for i in axis):
                return None
            # BUG: a negative axis counts from len(shape), not from the last index
            fixed = tuple(i + len(shape) - 1 if i < 0 else i for i in axis)
            if any(i < 0 for i in fixed) or len(set(fixed)) != len(fixed):
                return None
            attrs = ReduceAttrs(axis=fixed, keepdims=keep, exclude=exclude)
            return Call(e.op, e.args, attrs, span=e.span)
    return None


def reduce_negative_axis(mod: IRModule) -> IRModule:
    """Canonicalize the axes of a reduction to non-negative ones, off by one: ``axis=-1`` on a
    rank-2 tensor becomes 0 instead of 1 (``i + ndim - 1``), so another axis is reduced.

    Bug class: a negative axis normalised wrongly.
    """
    return rewrite_calls(mod, _reduce_axis_rule)


def _expand_dims_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.attrs:
        case "expand_dims", ExpandDimsAttrs(axis, n) if axis < 0:
            shape = _shape(types, original.args[0])
            if shape is None or axis + len(shape) < 0:
                return None
            # BUG: expand_dims counts a negative axis in the *output* rank: axis + ndim + 1
            attrs = ExpandDimsAttrs(axis=axis + len(shape), num_newaxis=n)
            return Call(e.op, e.args, attrs, span=e.span)
    return None


def expand_dims_negative_axis(mod: IRModule) -> IRModule:
    """Canonicalize ``expand_dims``' negative axis with the input's rank: ``axis=-1`` on a
    rank-2 tensor becomes 1 (a new middle axis) where it means 2 (a new last axis).

    Bug class: axis bookkeeping in expand_dims (negative axis normalised wrongly).
    """
    return rewrite_calls(mod, _expand_dims_rule)


# -- concatenate(split(x)) -> x --------------------------------------------------------------


def _parts(e: Expr) -> tuple[Call, int] | None:
    """``(s, n)`` when ``e`` is a split ``s`` or the tuple of all ``n`` of its fields in order."""
    if _name(e) == "split":
        assert isinstance(e, Call)
        sections = e.attrs.indices_or_sections  # type: ignore[union-attr]
        n = sections if isinstance(sections, int) else len(sections) + 1
        return e, n
    if isinstance(e, Tuple) and e.fields:
        first = e.fields[0]
        if not isinstance(first, TupleGetItem) or _name(first.tuple) != "split":
            return None
        s = first.tuple
        assert isinstance(s, Call)
        ok = all(
            isinstance(f, TupleGetItem) and f.tuple is s and f.index == i
            for i, f in enumerate(e.fields)
        )
        found = _parts(s)
        if ok and found is not None and found[1] == len(e.fields):
            return s, len(e.fields)
    return None


def _concat_split_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    if _name(e) != "concatenate" or not isinstance(e.attrs, ConcatenateAttrs):
        return None
    found = _parts(e.args[0])
    if found is None:
        return None
    split, _ = found
    # BUG: concatenating the parts gives x back only along the axis they were split on;
    # split.attrs.axis == e.attrs.axis (both normalised) is never checked
    return split.args[0]


def concat_of_split(mod: IRModule) -> IRModule:
    """``concatenate(split(x, n, axis=a), axis=b) -> x`` without checking ``a == b``.

    Bug class: a concatenation axis not checked (the split and concat axes must agree).
    """
    return rewrite_calls(mod, _concat_split_rule)


# -- split(x, n) -> split(x, indices) --------------------------------------------------------


def _split_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.attrs:
        case "split", SplitAttrs(int(n), axis) if n > 1:
            shape = _shape(types, original.args[0])
            if shape is None:
                return None
            extent = shape[axis % len(shape)]
            if extent % n:
                return None
            step = extent // n
            # BUG: the indices where the sections end, extent included: the sections after the
            # first start at range(step, extent, step)
            indices = tuple(range(step, extent + 1, step))
            attrs = SplitAttrs(indices_or_sections=indices, axis=axis)
            return Call(e.op, e.args, attrs, span=e.span)
    return None


def split_sections_off_by_one(mod: IRModule) -> IRModule:
    """Canonicalize ``split(x, indices_or_sections=n)`` to the index form with the end of every
    section, the extent included, instead of the start of every section but the first: one
    part more, the last one empty (and a tuple type with one more field).

    Bug class: split indices off by one.
    """
    return rewrite_calls(mod, _split_rule)


# -- nn.conv2d NCHW -> NHWC ------------------------------------------------------------------


def _conv_layout_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    if _name(e) != "nn.conv2d" or not isinstance(e.attrs, Conv2DAttrs):
        return None
    a = e.attrs
    if (a.data_layout, a.kernel_layout, a.out_layout, a.groups) != ("NCHW", "OIHW", "", 1):
        return None
    data, weight = e.args
    nhwc = _transpose(data, (0, 2, 3, 1), e)
    # BUG: OIHW -> HWIO is (2, 3, 1, 0); (3, 2, 1, 0) gives WHIO, the kernel transposed
    hwio = _transpose(weight, (3, 2, 1, 0), e)
    attrs = dataclasses.replace(a, data_layout="NHWC", kernel_layout="HWIO")
    conv = Call(e.op, (nhwc, hwio), attrs, span=e.span)
    return _transpose(conv, (0, 3, 1, 2), e)


def conv2d_nhwc_wrong_kernel_permutation(mod: IRModule) -> IRModule:
    """ConvertLayout of ``nn.conv2d`` from NCHW/OIHW to NHWC/HWIO with transposes around it,
    the weight permuted with ``(3, 2, 1, 0)``: the kernel's height and width swap (a wrong
    shape for a non-square kernel, a transposed one for a square kernel).

    Bug class: layout conversion with the wrong weight permutation.
    """
    return rewrite_calls(mod, _conv_layout_rule)


def _dense_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    if _name(e) != "nn.dense":
        return None
    units = getattr(e.attrs, "units", None)
    out_dtype = getattr(e.attrs, "out_dtype", "")
    # BUG: nn.dense's weight is (units, k): matmul needs transpose_b=True
    attrs = MatmulAttrs(units=units, out_dtype=out_dtype, transpose_a=False, transpose_b=False)
    return Call(Op("nn.matmul"), e.args, attrs, span=e.span)


def dense_as_matmul(mod: IRModule) -> IRModule:
    """Legalise ``nn.dense(x, w)`` (``x . w^T``, weight laid out ``(units, k)``) to
    ``nn.matmul(x, w)`` as if the weight were ``(k, units)``: ill-typed for a non-square
    weight, a transposed product for a square one.

    Bug class: a weight layout taken for its transpose.
    """
    return rewrite_calls(mod, _dense_rule)


# -- mean(x, keepdims=True) -> sum(x) / n ----------------------------------------------------


def _mean_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.attrs:
        case "mean", ReduceAttrs(axis, _, False) if axis is not None:
            shape = _shape(types, original.args[0])
            dtype = types.expr_types.get(original)
            if shape is None or not isinstance(dtype, TensorType):
                return None
            if not dtype.dtype.startswith("float"):
                return None
            count = 1
            for i in {a % len(shape) for a in axis}:
                count *= shape[i]
            # BUG: keepdims is not passed on to the sum; a later broadcast (x - mean(x)) then
            # lines the reduced axis up with another one
            total = Call(Op("sum"), e.args, ReduceAttrs(axis=axis), span=e.span)
            n = Constant(np.asarray(count, dtype=dtype.dtype), span=e.span)
            return Call(Op("divide"), (total, n), None, span=e.span)
    return None


def mean_keepdims_lost(mod: IRModule) -> IRModule:
    """Decompose ``mean(x, axis, keepdims=k)`` into ``sum(x, axis) / n`` for floats, dropping
    ``keepdims``: ``mean(x, axis=[1], keepdims=True)`` of a ``(2, 2)`` tensor becomes a
    ``(2,)`` tensor, so ``x - mean(..)`` subtracts row means from columns (same shape, other
    values) and a returned mean changes type.

    Bug class: keepdims lost in reduce bookkeeping (TVM's SimplifyInference decomposes
    normalisations into reductions that must keep their axes).
    """
    return rewrite_calls(mod, _mean_rule)


# -- multiply(dense(x, w), s) -> dense(x, w * s) ---------------------------------------------


def _dense_scale_rule(original: Call, e: Call, types: TypeInfo) -> Expr | None:
    match _name(e), e.args:
        case "multiply", (Call(Op("nn.dense"), (x, w), attrs) as dense, s):
            inner = original.args[0]
            assert isinstance(inner, Call)
            scale, weight = _shape(types, original.args[1]), _shape(types, inner.args[1])
            out = _shape(types, original)
            if scale is None or weight is None or out is None or len(scale) != 1:
                return None
            if out != _shape(types, original.args[0]) or scale[0] != weight[0]:
                return None  # a per-output-channel scale that does not widen the result
            # BUG: the weight is (units, k): the scale must go on its rows, w * s[:, None]
            # (expand_dims(s, axis=1)); w * s scales its columns
            scaled = Call(Op("multiply"), (w, s), None, span=e.span)
            return Call(dense.op, (x, scaled), attrs, span=e.span)
    return None


def fold_scale_into_dense_wrong_axis(mod: IRModule) -> IRModule:
    """FoldScaleAxis backward through ``nn.dense``: ``dense(x, w) * s`` with a per-output
    scale ``s`` of shape ``(units,)`` becomes ``dense(x, w * s)``, which broadcasts ``s``
    along ``w``'s last axis (the input channels) instead of its first (the output channels).
    Right when ``s`` is uniform, wrong otherwise (ill-typed when ``w`` is not square).

    Bug class: wrong broadcasting when folding scales.
    """
    return rewrite_calls(mod, _dense_scale_rule)
