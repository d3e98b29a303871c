"""Dataflow-generator builders of the ``arith`` group: ``ops.arith``, ``ops.scan``,
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

from relay.semantics.ops.annotation import DeviceCopyAttrs, OnDeviceAttrs
from relay.semantics.ops.elementwise import CastAttrs
from relay.semantics.ops.reduce import ScanopAttrs, VarianceAttrs
from relay.semantics.syntax import TensorType

from .gen_dataflow import (
    ALL,
    BOOL,
    FLOATS,
    INTEGERS,
    SIGNED,
    Builder,
    Built,
    _binary,
    _broadcast,
    _dims,
    _division,
    _Graph,
    _reduction,
    _targets,
    _unary,
)

_WIDTH = {"bool": 1, **{d: int("".join(c for c in d if c.isdigit())) for d in ALL if d != "bool"}}


def _shift(g: _Graph) -> Built:
    """Integer ``lhs``; ``rhs`` of its dtype, broadcasting with it, a fresh positive leaf (its
    default values 1 to 3 are below every bit width)."""
    lhs = g.tensor(INTEGERS)
    shape, dtype = _dims(lhs[1]), lhs[1].dtype

    def fresh() -> TensorType:
        return TensorType(() if g.flag() else shape, dtype)

    rhs = g.tensor(
        (dtype,),
        fits=lambda t: _broadcast(shape, _dims(t)) is not None,
        fresh=fresh,
        positive=True,  # integer pool values are never flagged positive: always a fresh leaf
    )
    return (lhs, rhs), None


def _reinterpret(g: _Graph) -> Built:
    """Any data; a target dtype of the same bit width (bool only as bool)."""
    data = g.tensor(ALL)
    width = _WIDTH[data[1].dtype]
    same = [data[1].dtype, *(d for d in ALL if _WIDTH[d] == width and d != data[1].dtype)]
    return (data,), CastAttrs.from_kwargs({"dtype": g.pick(same)})


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


def _annotated(g: _Graph) -> Built:
    """Any tensor. (Annotations accept tuples too, but ``gen_dataflow``'s positivity rules
    give an operator outside their table one flag, so a tuple result is not drawn here.)"""
    return (g.tensor(ALL),), None


_DEVICES = (1, 2, 3, 4, 7, 8, 10, 16)


def _on_device(g: _Graph) -> Built:
    """A constrained device (a device type, an id, perhaps a memory scope) and the flags."""
    (data,), _ = _annotated(g)
    attrs = OnDeviceAttrs.from_kwargs(
        {
            "device_type": g.pick(_DEVICES),
            "virtual_device_id": g.integer(-1, 2),
            "memory_scope": g.pick(["", "global"]),
            "constrain_result": g.flag(),
            "constrain_body": not g.flag(),
        }
    )
    return (data,), attrs


def _device_copy(g: _Graph) -> Built:
    """Two constrained devices."""
    (data,), _ = _annotated(g)
    kwargs: dict[str, object] = {}
    for side in ("src", "dst"):
        kwargs[f"{side}_dev_type"] = g.pick(_DEVICES)
        kwargs[f"{side}_virtual_device_id"] = g.integer(-1, 2)
        kwargs[f"{side}_memory_scope"] = g.pick(["", "global"])
    return (data,), DeviceCopyAttrs.from_kwargs(kwargs)


_FLOAT_UNARY = (
    *("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh"),
    *("atanh", "erf", "fast_exp", "fast_tanh", "fast_erf"),
)

BUILDERS: dict[str, Builder] = {
    **{name: _unary(FLOATS) for name in _FLOAT_UNARY},
    # NaN or infinite for non-positive data: the data is surely positive.
    "log2": _unary(FLOATS, positive=True),
    "log10": _unary(FLOATS, positive=True),
    "trunc": _unary(ALL),
    "copy": _unary(ALL),
    "sign": _unary(SIGNED + FLOATS),
    "bitwise_not": _unary(INTEGERS),
    **{name: _unary(ALL) for name in ("isnan", "isinf", "isfinite")},
    **{name: _binary(INTEGERS) for name in ("bitwise_and", "bitwise_or", "bitwise_xor")},
    "left_shift": _shift,
    "right_shift": _shift,
    "logical_xor": _binary(BOOL),
    "trunc_divide": _division,
    "trunc_mod": _division,
    "reinterpret": _reinterpret,
    "variance": _variance,
    "all": _reduction(arg=False, dtypes=BOOL),
    "any": _reduction(arg=False, dtypes=BOOL),
    "cumsum": _scan("cumsum"),
    "cumprod": _scan("cumprod"),
    "annotation.stop_fusion": _annotated,
    "on_device": _on_device,
    "device_copy": _device_copy,
}
"""How to build a call of each of this group's operators (merged into ``gen_dataflow.BUILDERS``)."""

__all__ = ["BUILDERS"]
