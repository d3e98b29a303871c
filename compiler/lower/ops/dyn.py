"""Lowerings of ``semantics/ops/dyn.py``: every ``dyn.*`` operator takes its output shape (or
its slice bounds, tile counts, k) from a tensor's values at run time, so its result shape is
data-dependent; the CPU target needs static or ``?``-resolved shapes before the kernel runs.
``DynamicToStatic`` rewrites them to their static forms where those values are constants."""

from __future__ import annotations

from .. import te

_REASON = (
    "the output shape depends on the values of a tensor argument (run DynamicToStatic to "
    "make it static)"
)
for _name in (
    "dyn.reshape",
    "dyn.broadcast_to",
    "dyn.zeros",
    "dyn.ones",
    "dyn.full",
    "dyn.strided_slice",
    "dyn.tile",
    "dyn.topk",
    "dyn.one_hot",
):
    te.unsupported(_name, _REASON)
