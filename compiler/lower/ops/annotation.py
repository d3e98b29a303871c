"""Lowerings of the ``annotation`` operators (``semantics/ops/annotation.py``): each is the
identity on its data (placement and fusion barriers mean nothing inside a kernel)."""

from __future__ import annotations

from ....semantics.ops.registry import Attrs
from ....semantics.syntax import Type
from .. import te


@te.lowering("annotation.stop_fusion", "on_device", "device_copy")
def _identity(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """The data itself."""
    return inputs[0]
