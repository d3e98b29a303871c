"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.annotation``.

From the former ``samplers_arith`` module:

Samplers of the ``arith`` operator group: ``ops.arith``, ``ops.scan``, ``ops.annotation``.

As in ``samplers``: most samples are well-typed, about one in five is broken in one way (a
wrong dtype, a clashing size, an out-of-range axis, a width-changing ``reinterpret``, an
invalid or missing device); every choice is a Hypothesis draw, so samples shrink towards small
shapes, default attributes and the valid variant.
"""

from __future__ import annotations

from hypothesis import strategies as st

from relay.semantics.ops.annotation import DeviceCopyAttrs, OnDeviceAttrs
from relay.semantics.syntax import DTYPES, TupleType, Type

from .core import Sample, Sampler, _shape, _tensor, _valid


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


SAMPLERS: dict[str, Sampler] = {
    "annotation.stop_fusion": _stop_fusion,
    "on_device": _on_device,
    "device_copy": _device_copy,
}
"""This module's entries, by op name."""
