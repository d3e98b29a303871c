"""Dataflow-generator builders of the operators of
``relay.semantics.ops.annotation`` (well-typed calls by construction).

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

from relay.semantics.ops.annotation import DeviceCopyAttrs, OnDeviceAttrs

from .core import ALL, Builder, Built, _Graph


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


BUILDERS: dict[str, Builder] = {
    "annotation.stop_fusion": _annotated,
    "on_device": _on_device,
    "device_copy": _device_copy,
}
"""This module's entries, by op name."""
