"""Samplers of the ``arith`` operator group: ``ops.arith``, ``ops.scan``, ``ops.annotation``.

As in ``samplers``: most samples are well-typed, about one in five is broken in one way (a
wrong dtype, a clashing size, an out-of-range axis, a width-changing ``reinterpret``, an
invalid or missing device); every choice is a Hypothesis draw, so samples shrink towards small
shapes, default attributes and the valid variant.
"""

from __future__ import annotations

from hypothesis import strategies as st

from relay.semantics.ops.annotation import DeviceCopyAttrs, OnDeviceAttrs
from relay.semantics.ops.elementwise import CastAttrs
from relay.semantics.ops.reduce import ReduceAttrs, ScanopAttrs, VarianceAttrs
from relay.semantics.syntax import DTYPES, Dim, TupleType, Type

from .samplers import (
    FLOATS,
    INTEGERS,
    NUMERIC,
    SIGNED,
    UNSIGNED,
    Sample,
    Sampler,
    _axis_form,
    _bad_axis,
    _bad_size,
    _binary,
    _other,
    _shape,
    _tensor,
    _unary,
    _valid,
)

_WIDTH = {"bool": 1, **{d: int("".join(c for c in d if c.isdigit())) for d in NUMERIC}}


@st.composite
def _reinterpret(draw: st.DrawFn) -> Sample:
    """A target dtype of the data's width (bool only to bool); broken: another width, or no
    dtype."""
    valid = _valid(draw)
    source = draw(st.sampled_from(DTYPES))
    same = [d for d in DTYPES if _WIDTH[d] == _WIDTH[source]]
    if valid:
        target = draw(st.sampled_from(same))
    else:
        target = draw(st.sampled_from(["", *(d for d in DTYPES if d not in same)]))
    data = _tensor(_shape(draw, symbolic=True, any_=True), source)
    return Sample((data,), CastAttrs.from_kwargs({"dtype": target}), valid)


def _axes(draw: st.DrawFn, ndim: int) -> tuple[int, ...] | None:
    """``None``, ``()`` or some distinct axes (each perhaps negative)."""
    form = draw(st.sampled_from(["none", "empty", "some"] if ndim else ["none", "empty"]))
    if form == "none":
        return None
    if form == "empty":
        return ()
    chosen = draw(st.lists(st.integers(0, ndim - 1), min_size=1, unique=True))
    return tuple(_axis_form(draw, a, ndim) for a in chosen)


@st.composite
def _variance(draw: st.DrawFn) -> Sample:
    """Float data of rank >= 1 and a mean of its dtype, each size the data's or 1; broken: a
    clashing mean size, a mean of another dtype or rank, integer data, a bad axis."""
    valid = _valid(draw)
    shape = _shape(draw, 1, symbolic=True, any_=True)
    ndim = len(shape)
    mean: list[Dim] = [d if draw(st.booleans()) else 1 for d in shape]
    dtype = draw(st.sampled_from(FLOATS))
    mean_dtype = dtype
    axis = _axes(draw, ndim)
    if not valid:
        fault = draw(st.sampled_from(["size", "dtype", "rank", "integer", "axis"]))
        if fault == "size":
            i = draw(st.integers(0, ndim - 1))
            shape = (*shape[:i], draw(st.integers(2, 6)), *shape[i + 1 :])
            mean[i] = _bad_size(draw, shape[i])
        elif fault == "dtype":
            mean_dtype = _other(draw, dtype, NUMERIC)
        elif fault == "rank":
            mean = mean[1:]
        elif fault == "integer":
            dtype = mean_dtype = draw(st.sampled_from(INTEGERS))
        else:
            axis = (*(axis or ()), _bad_axis(draw, ndim))
    attrs = VarianceAttrs.from_kwargs(
        {
            "axis": axis,
            "keepdims": draw(st.booleans()),
            "exclude": draw(st.booleans()),
            "unbiased": draw(st.booleans()),
        }
    )
    return Sample((_tensor(shape, dtype), _tensor(mean, mean_dtype)), attrs, valid)


@st.composite
def _bool_reduction(draw: st.DrawFn) -> Sample:
    """Bool data of any rank; broken: numeric data or a bad axis."""
    valid = _valid(draw)
    shape = _shape(draw, symbolic=True, any_=True)
    ndim = len(shape)
    axis = _axes(draw, ndim)
    dtype = "bool"
    if not valid and draw(st.booleans()):
        axis = (*(axis or ()), _bad_axis(draw, ndim))
    elif not valid:
        dtype = draw(st.sampled_from(NUMERIC))
    attrs = ReduceAttrs.from_kwargs(
        {"axis": axis, "keepdims": draw(st.booleans()), "exclude": draw(st.booleans())}
    )
    return Sample((_tensor(shape, dtype),), attrs, valid)


@st.composite
def _scan(draw: st.DrawFn) -> Sample:
    """Data of rank >= 1, an axis in range or none, a dtype or none; broken: rank 0 or an
    out-of-range axis."""
    valid = _valid(draw)
    rank0 = not valid and draw(st.booleans())
    shape = _shape(draw, 0 if rank0 else 1, 0 if rank0 else 4, symbolic=True, any_=True)
    ndim = len(shape)
    axis: int | None = None
    if ndim and draw(st.booleans()):
        axis = _axis_form(draw, draw(st.integers(0, ndim - 1)), ndim)
    if not valid and not rank0:
        axis = _bad_axis(draw, ndim)
    attrs = ScanopAttrs.from_kwargs(
        {
            "axis": axis,
            "dtype": draw(st.sampled_from(["", *DTYPES])),
            "exclusive": draw(st.sampled_from([False, True, None])),
        }
    )
    return Sample((_tensor(shape, draw(st.sampled_from(DTYPES))),), attrs, valid)


def _annotated(draw: st.DrawFn) -> Type:
    """A tensor, or sometimes a tuple of one to three tensors."""
    if draw(st.integers(0, 3)) == 3:
        count = draw(st.integers(1, 3))
        return TupleType(
            tuple(
                _tensor(_shape(draw, symbolic=True, any_=True), draw(st.sampled_from(DTYPES)))
                for _ in range(count)
            )
        )
    return _tensor(_shape(draw, symbolic=True, any_=True), draw(st.sampled_from(DTYPES)))


_DEVICES = (1, 2, -1, 3, 4, 7, 8, 10, 12, 16)
_BAD_DEVICES = (0, 5, 6, 17, -2)


@st.composite
def _stop_fusion(draw: st.DrawFn) -> Sample:
    return Sample((_annotated(draw),), None)


@st.composite
def _on_device(draw: st.DrawFn) -> Sample:
    """A device type and id, constraint flags; a constrained call names some device. Broken:
    an unknown device type, an id below -1, or a constraint on no device."""
    valid = _valid(draw)
    device_type = draw(st.sampled_from(_DEVICES))
    device_id = draw(st.integers(-1, 2))
    scope = draw(st.sampled_from(["", "global"]))
    constrain_result, constrain_body = draw(st.booleans()), not draw(st.booleans())
    if (constrain_result or constrain_body) and device_type == -1 and device_id == -1:
        device_type = 1  # keep the valid variant valid: a constraint needs a device
    if not valid:
        fault = draw(st.sampled_from(["type", "id", "unconstrained"]))
        if fault == "type":
            device_type = draw(st.sampled_from(_BAD_DEVICES))
        elif fault == "id":
            device_id = draw(st.integers(-5, -2))
        else:
            device_type, device_id, scope, constrain_body = -1, -1, "", True
    attrs = OnDeviceAttrs.from_kwargs(
        {
            "device_type": device_type,
            "virtual_device_id": device_id,
            "memory_scope": scope,
            "constrain_result": constrain_result,
            "constrain_body": constrain_body,
        }
    )
    return Sample((_annotated(draw),), attrs, valid)


@st.composite
def _device_copy(draw: st.DrawFn) -> Sample:
    """Two constrained devices; broken: one unknown, unset or with an id below -1."""
    valid = _valid(draw)
    kwargs: dict[str, object] = {}
    for side in ("src", "dst"):
        kwargs[f"{side}_dev_type"] = draw(st.sampled_from([d for d in _DEVICES if d != -1]))
        kwargs[f"{side}_virtual_device_id"] = draw(st.integers(-1, 2))
        kwargs[f"{side}_memory_scope"] = draw(st.sampled_from(["", "global"]))
    if not valid:
        side = draw(st.sampled_from(["src", "dst"]))
        fault = draw(st.sampled_from(["type", "id", "unset"]))
        if fault == "type":
            kwargs[f"{side}_dev_type"] = draw(st.sampled_from(_BAD_DEVICES))
        elif fault == "id":
            kwargs[f"{side}_virtual_device_id"] = draw(st.integers(-5, -2))
        else:
            kwargs.update(
                {
                    f"{side}_dev_type": -1,
                    f"{side}_virtual_device_id": -1,
                    f"{side}_memory_scope": "",
                }
            )
    return Sample((_annotated(draw),), DeviceCopyAttrs.from_kwargs(kwargs), valid)


_FLOAT_UNARY = (
    *("sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh"),
    *("atanh", "erf", "log2", "log10", "fast_exp", "fast_tanh", "fast_erf"),
)
_NOT_INTEGER = (*FLOATS, "bool")

SAMPLERS: dict[str, Sampler] = {
    **{name: _unary(FLOATS, wrong=INTEGERS) for name in _FLOAT_UNARY},
    "trunc": _unary(DTYPES),
    "copy": _unary(DTYPES),
    "sign": _unary(SIGNED + FLOATS, wrong=(*UNSIGNED, "bool")),
    "bitwise_not": _unary(INTEGERS, wrong=_NOT_INTEGER),
    **{name: _unary(DTYPES) for name in ("isnan", "isinf", "isfinite")},
    **{
        name: _binary(INTEGERS, wrong=_NOT_INTEGER)
        for name in ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")
    },
    "logical_xor": _binary(("bool",)),
    "trunc_divide": _binary(NUMERIC),
    "trunc_mod": _binary(NUMERIC),
    "reinterpret": _reinterpret,
    "variance": _variance,
    "all": _bool_reduction,
    "any": _bool_reduction,
    "cumsum": _scan,
    "cumprod": _scan,
    "annotation.stop_fusion": _stop_fusion,
    "on_device": _on_device,
    "device_copy": _device_copy,
}
"""The samplers of this group's operators, by name (merged into ``samplers.SAMPLERS``)."""

__all__ = ["SAMPLERS"]
