"""Dataflow-generator builders of the operators of
``relay.semantics.ops.reduce`` (well-typed calls by construction).

From the former ``builders_arith`` module:

Dataflow-generator builders of the ``arith`` group: ``ops.arith``, ``ops.scan``,
``ops.annotation``.

Each builder draws a call that is well-typed by construction and defined for the default
arguments of ``gen_args`` (see ``gen_dataflow``'s docstring):

- ``log2``/``log10`` get surely positive data; shift amounts are fresh positive leaves (1 to 3,
  below every bit width); ``trunc_divide``/``trunc_mod`` divide by parameters, constants or
  surely positive values, as ``divide`` does;
- the inverse functions ``asin``, ``acos``, ``atanh`` and ``acosh`` take any float data: out of
  their domain (most default values lie outside [-1, 1]) the result is NaN, which is defined;
- ``variance`` reduces at least one non-empty axis (never the forms TVM's compute rejects) and
  is ``unbiased`` only over two or more elements, so it never divides by zero;
- ``cumsum``/``cumprod`` convert only to dtypes every ordinary value converts to (no float to
  unsigned), and ``cumprod`` accumulating a 32- or 64-bit integer always names an axis (whose
  extent is at most 12, so products of default values fit);
- ``on_device`` and ``device_copy`` name valid, constrained devices.
"""

from __future__ import annotations

from collections.abc import Sequence

from relay.semantics.ops.reduce import ArgReduceAttrs, ReduceAttrs, ScanopAttrs, VarianceAttrs
from relay.semantics.syntax import TensorType

from .core import (
    _WIDTH,
    ALL,
    BOOL,
    FLOATS,
    INTEGERS,
    NUMERIC,
    Builder,
    Built,
    _dims,
    _Graph,
    _targets,
)


def _reduction(arg: bool, dtypes: Sequence[str] = ALL) -> Builder:
    """A value (``arg=False``) or index reduction. Avoids the attribute forms whose compute TVM
    rejects (``exclude`` with ``axis=None``, ``axis=[]`` without ``exclude``) and index
    reductions of no axis."""

    def build(g: _Graph) -> Built:
        data = g.tensor(dtypes, min_rank=1 if arg else 0)
        ndim = len(data[1].shape)
        kind = g.integer(0, 2) if ndim else 0
        axis: tuple[int, ...] | None = None
        if kind == 1:
            axis = tuple(g.subset(ndim, min_size=1))
        elif kind == 2:
            axis = tuple(g.subset(ndim, max_size=ndim - 1 if arg else ndim))
        if axis and g.flag():
            axis = tuple(a - ndim for a in axis)
        kwargs: dict[str, object] = {"axis": axis, "keepdims": g.flag(), "exclude": kind == 2}
        if arg:
            kwargs["select_last_index"] = g.flag()
            return (data,), ArgReduceAttrs.from_kwargs(kwargs)
        return (data,), ReduceAttrs.from_kwargs(kwargs)

    return build


def _variance(g: _Graph) -> Built:
    """Float data without empty axes; a mean of its dtype and rank whose sizes are the data's
    or 1; one or more axes reduced (listed, all, or all but the excluded)."""
    data = g.tensor(FLOATS, min_rank=1, fits=lambda t: 0 not in _dims(t))
    shape, dtype = _dims(data[1]), data[1].dtype
    ndim = len(shape)

    def fits(t: TensorType) -> bool:
        d = _dims(t)
        return len(d) == ndim and all(m in (1, s) for m, s in zip(d, shape, strict=True))

    def fresh() -> TensorType:
        return TensorType(tuple(s if g.flag() else 1 for s in shape), dtype)

    mean = g.tensor((dtype,), min_rank=ndim, max_rank=ndim, fits=fits, fresh=fresh)
    kind = g.integer(0, 2)
    axis: tuple[int, ...] | None = None
    if kind == 1:
        axis = tuple(g.subset(ndim, min_size=1))
    elif kind == 2:
        axis = tuple(g.subset(ndim, max_size=ndim - 1))
    if axis and g.flag():
        axis = tuple(a - ndim for a in axis)
    if axis is None or kind == 1:
        reduced = [i for i in range(ndim) if axis is None or i in axis or i - ndim in axis]
    else:
        reduced = [i for i in range(ndim) if i not in axis and i - ndim not in axis]
    count = 1
    for i in reduced:
        count *= shape[i]
    unbiased = g.flag() and count >= 2
    attrs = VarianceAttrs.from_kwargs(
        {"axis": axis, "keepdims": g.flag(), "exclude": kind == 2, "unbiased": unbiased}
    )
    return (data, mean), attrs


def _scan(op: str) -> Builder:
    """Data of rank >= 1; an axis or none; a result dtype the data converts to (or none);
    exclusive or not. A ``cumprod`` with a 32- or 64-bit integer result names an axis."""

    def build(g: _Graph) -> Built:
        data = g.tensor(ALL, min_rank=1)
        source = data[1].dtype
        ndim = len(data[1].shape)
        dtype = g.dtype(_targets(source)) if g.flag() else ""
        wide = (dtype or source) in INTEGERS and _WIDTH[dtype or source] >= 32
        axis: int | None = None
        if g.flag() or (op == "cumprod" and wide):
            axis = g.axis(g.integer(0, ndim - 1), ndim)
        exclusive = g.flag()
        attrs = ScanopAttrs.from_kwargs({"axis": axis, "dtype": dtype, "exclusive": exclusive})
        return (data,), attrs

    return build


BUILDERS: dict[str, Builder] = {
    **{name: _reduction(arg=False) for name in ("sum", "max", "min", "prod")},
    # The mean of bool divides by a count cast to bool: undefined beyond one element.
    "mean": _reduction(arg=False, dtypes=NUMERIC),
    "argmax": _reduction(arg=True),
    "argmin": _reduction(arg=True),
    "variance": _variance,
    "all": _reduction(arg=False, dtypes=BOOL),
    "any": _reduction(arg=False, dtypes=BOOL),
    "cumsum": _scan("cumsum"),
    "cumprod": _scan("cumprod"),
}
"""This module's entries, by op name."""
