"""DynamicToStatic: turn dynamic operators whose shape argument is a constant into static ones.

TVM 0.18's ``DynamicToStatic`` (``src/relay/transforms/dynamic_to_static.cc``) replaced a
``dyn.*`` call by the static operator when its shape-like argument was (after its own constant
folding) a constant, moving the value into the static operator's attributes::

    dyn.reshape(x, c, allowzero=z)         ->  reshape(x, newshape=c, allowzero=z)
    dyn.broadcast_to(x, c)                 ->  broadcast_to(x, shape=c)
    dyn.zeros(c, dtype=d) | dyn.ones(..)   ->  zeros(shape=c, dtype=d) | ones(..)
    dyn.full(v, c, dtype=d)                ->  full(v, shape=c, dtype=d)
    dyn.strided_slice(x, b, e, s, slice_mode=m)
                                           ->  strided_slice(x, begin=b, end=e, strides=s,
                                                             slice_mode=m, axes=None)
    dyn.tile(x, c)                         ->  tile(x, reps=c)
    dyn.topk(x, k, ..)                     ->  topk(x, k=k, ..)
    dyn.one_hot(i, on, off, depth)         ->  one_hot(i, on, off, depth=depth, ..)

Here only literal constants count (no folding first: run ``FoldConstant`` before this pass
for that). The result's type becomes more precise: a ``?`` becomes the size the constant
determines. That is the point of the pass, and it is a refinement, not a change of meaning.

Where the dynamic and the static operator differ, the rewrite is made only where they agree.
For each rewrite the static operator's type relation must accept the call (so the output
type-checks), and:

- ``dyn.reshape``: the constant holds only sizes, 0 and single -1 or -3 entries (the dynamic
  shape function fails on -2, -4 and a second -1, where the static operator means something);
  where both are defined they compute the same shape (the dynamic one infers -1 as the
  element count over the other sizes, the static one as the unused input extents over the
  sizes not copied, which agree whenever the element counts match; when they do not match,
  the dynamic operator is undefined).
- ``dyn.strided_slice``: the two canonicalise bounds differently (the dynamic shape function
  wraps a negative index once and clamps only ends; topi's static one clamps both and refuses
  bounds that run backwards). The extents of the sliced axes must be known integers, and the
  pass computes both slices' positions per sliced axis and rewrites only if they are the same
  on every axis, or if the dynamic slice is undefined there (reads outside the axis or has a
  negative extent). Unsliced axes are taken whole by both.
- ``dyn.tile``: every repetition positive (the static relation refuses 0, which the dynamic
  operator reads as an empty axis).
- ``dyn.one_hot``: depth at least 1 (the static relation refuses 0; the dynamic operator
  gives an empty axis). ``dyn.topk`` calls the static reference with the constant ``k``.

Not done here, as in TVM it was: ``dyn.image.resize2d``, ``dyn.nn.pad``, ``dyn.nn.upsampling``,
``dyn.squeeze``, ``dyn.expand_dims``, ``dyn.sparse_to_dense`` (not registered).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np

from ...semantics.errors import RelayError
from ...semantics.ops import OPS
from ...semantics.ops.create import InitOpAttrs
from ...semantics.ops.dyn import _slice_plan
from ...semantics.ops.index import OneHotAttrs, StridedSliceAttrs, _strided_slice_plan
from ...semantics.ops.registry import Attrs, RelationError
from ...semantics.ops.shape import ReshapeAttrs, TileAttrs
from ...semantics.ops.sort import TopKAttrs
from ...semantics.syntax import (
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    IRModule,
    Op,
    TensorType,
    Type,
)
from ...semantics.typing import infer_types
from ..ir import map_functions, rewrite_pairs
from ..pass_manager import Pass, register_pass

Static: TypeAlias = "tuple[str, tuple[Expr, ...], Attrs] | None"
"""The static operator, its arguments and attributes that replace a dynamic call."""


def values(e: Expr, *, scalar_ok: bool = False) -> tuple[int, ...] | None:
    """The integers a literal constant of an integer dtype holds: rank 1 (or rank 0 when
    ``scalar_ok``); ``None`` for anything else."""
    if not isinstance(e, Constant) or e.data.dtype.kind not in "iu":
        return None
    if e.data.ndim != 1 and not (scalar_ok and e.data.ndim == 0):
        return None
    return tuple(int(v) for v in np.asarray(e.data).reshape(-1))


def reshape(e: Call, types: list[TensorType]) -> Static:
    """``dyn.reshape(x, c)`` -> ``reshape(x, newshape=c)``: sizes, 0, one -1, -3 only."""
    shape, a = values(e.args[1]), e.attrs
    if shape is None or not isinstance(a, ReshapeAttrs):
        return None
    if any(v < -1 and v != -3 for v in shape) or shape.count(-1) > 1:
        return None
    return "reshape", e.args[:1], ReshapeAttrs(shape, a.allowzero)


def broadcast_to(e: Call, types: list[TensorType]) -> Static:
    """``dyn.broadcast_to(x, c)`` -> ``broadcast_to(x, shape=c)``."""
    shape, a = values(e.args[1]), e.attrs
    if shape is None or not isinstance(a, InitOpAttrs):
        return None
    return "broadcast_to", e.args[:1], InitOpAttrs(shape, a.dtype)


def init(name: str) -> Callable[[Call, list[TensorType]], Static]:
    """``dyn.zeros(c)`` -> ``zeros(shape=c)``, and ``dyn.ones`` alike."""

    def rewrite(e: Call, types: list[TensorType]) -> Static:
        shape, a = values(e.args[0]), e.attrs
        if shape is None or not isinstance(a, InitOpAttrs):
            return None
        return name, (), InitOpAttrs(shape, a.dtype)

    return rewrite


def full(e: Call, types: list[TensorType]) -> Static:
    """``dyn.full(v, c)`` -> ``full(v, shape=c)``."""
    shape, a = values(e.args[1]), e.attrs
    if shape is None or not isinstance(a, InitOpAttrs):
        return None
    return "full", e.args[:1], InitOpAttrs(shape, a.dtype)


def _positions(b: int, stride: int, n: int) -> list[int]:
    return [b + stride * i for i in range(n)]


def strided_slice(e: Call, types: list[TensorType]) -> Static:
    """``dyn.strided_slice(x, b, e, s)`` -> ``strided_slice(x, begin=b, end=e, strides=s)``
    where both select the same positions (see the module docstring)."""
    a = e.attrs
    begin, end, strides = (values(arg) for arg in e.args[1:])
    if begin is None or end is None or strides is None or not isinstance(a, StridedSliceAttrs):
        return None
    data = types[0]
    k = len(begin)
    sliced = data.shape[:k]
    extents = [d for d in sliced if isinstance(d, int)]
    if len(extents) != len(sliced):
        return None
    static = StridedSliceAttrs(
        begin=begin, end=end, strides=strides, slice_mode=a.slice_mode, axes=None
    )
    try:
        _, plan = _strided_slice_plan(data.shape, static)
    except RelationError:
        return None
    fake = np.empty(tuple(extents), dtype=np.int8)
    try:
        dynamic = _slice_plan((fake, np.asarray(begin), np.asarray(end), np.asarray(strides)), a)
    except RelayError:
        return None  # the dynamic slice fails: keep it failing the same way
    for axis, (b, stride, n) in enumerate(dynamic):
        extent = int(fake.shape[axis])
        want = _positions(b, stride, n) if n > 0 else []
        if n < 0 or any(not 0 <= p < extent for p in want):
            continue  # undefined in the input: any result is acceptable
        if axis in plan:
            sb, ss, sn = plan[axis]
            got = _positions(sb, ss, sn)
        else:
            got = list(range(extent))
        if got != want:
            return None
    return "strided_slice", e.args[:1], static


def tile(e: Call, types: list[TensorType]) -> Static:
    """``dyn.tile(x, c)`` -> ``tile(x, reps=c)`` for positive repetitions."""
    reps = values(e.args[1])
    if reps is None or any(r < 1 for r in reps):
        return None
    return "tile", e.args[:1], TileAttrs(reps)


def topk(e: Call, types: list[TensorType]) -> Static:
    """``dyn.topk(x, k)`` -> ``topk(x, k=k)``."""
    k, a = values(e.args[1], scalar_ok=True), e.attrs
    if k is None or len(k) != 1 or not isinstance(a, TopKAttrs):
        return None
    return "topk", e.args[:1], dataclasses.replace(a, k=k[0])


def one_hot(e: Call, types: list[TensorType]) -> Static:
    """``dyn.one_hot(i, on, off, depth)`` -> ``one_hot(i, on, off, depth=depth)``, depth >= 1."""
    depth, a = values(e.args[3], scalar_ok=True), e.attrs
    if depth is None or len(depth) != 1 or depth[0] < 1 or not isinstance(a, OneHotAttrs):
        return None
    return "one_hot", e.args[:3], dataclasses.replace(a, depth=depth[0])


REWRITES: dict[str, Callable[[Call, list[TensorType]], Static]] = {
    "dyn.reshape": reshape,
    "dyn.broadcast_to": broadcast_to,
    "dyn.zeros": init("zeros"),
    "dyn.ones": init("ones"),
    "dyn.full": full,
    "dyn.strided_slice": strided_slice,
    "dyn.tile": tile,
    "dyn.topk": topk,
    "dyn.one_hot": one_hot,
}


def to_static(types: dict[Expr, Type], original: Call, rebuilt: Call) -> Expr | None:
    """The static call replacing ``rebuilt`` (argument types from ``original``), or ``None``."""
    assert isinstance(rebuilt.op, Op)
    rewrite = REWRITES.get(rebuilt.op.name)
    arg_types = [types.get(a) for a in original.args]
    tensors = [t for t in arg_types if isinstance(t, TensorType)]
    if rewrite is None or len(tensors) != len(arg_types):
        return None
    found = rewrite(rebuilt, tensors)
    if found is None:
        return None
    name, args, attrs = found
    relation = OPS[name].relation
    kept = tuple(types[a] for a in original.args[: len(args)])
    if relation is None:
        return None
    try:
        relation(kept, attrs)
    except RelationError:
        return None  # the static operator would not type: keep the dynamic one
    return Call(Op(name, span=rebuilt.op.span), args, attrs, span=rebuilt.span)


@register_pass
@dataclass(frozen=True)
class DynamicToStatic(Pass):
    """Replace ``dyn.*`` calls whose shape-like argument is a literal constant by the static
    operator.

    Pre: well-typed. Post: the same meaning; each expression's type is the same or more
    precise (``?`` dimensions become sizes); no rewritable ``dyn.*`` call remains.
    """

    opt_level = 3
    focus_ops = frozenset(REWRITES)

    def transform(self, mod: IRModule) -> IRModule:
        types = infer_types(mod).expr_types

        def visit(original: Expr, rebuilt: Expr) -> Expr | None:
            if isinstance(rebuilt, Call) and isinstance(rebuilt.op, Op):
                assert isinstance(original, Call)
                return to_static(types, original, rebuilt)
            return None

        def one(_: GlobalVar, fn: Function) -> Function:
            out = rewrite_pairs(fn, visit)
            assert isinstance(out, Function)
            return out

        return map_functions(mod, one)
