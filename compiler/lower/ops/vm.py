"""Lowerings of the ``vm`` operators (``semantics/ops/vm.py``).

``vm.shape_of`` is ``shape_of``'s lowering: the input buffer's extents (literals or size
parameters) converted to the dtype. ``vm.reshape_tensor`` is not a kernel: its meaning includes
a run-time check of the shape argument's values against ``newshape`` (an error when they
differ), which a kernel cannot raise; the host runtime runs it.
"""

from __future__ import annotations

from ....semantics.ops.registry import Attrs
from ....semantics.syntax import Type
from .. import te
from .shape import shape_of_lowering


@te.lowering("vm.shape_of")
def _shape_of(
    ctx: te.LowerContext,
    inputs: tuple[te.TensorResult, ...],
    attrs: Attrs,
    arg_types: tuple[Type, ...],
    out_type: Type,
) -> te.TensorResult:
    """As ``shape_of``."""
    return shape_of_lowering(ctx, inputs, attrs, arg_types, out_type)


te.unsupported(
    "vm.reshape_tensor",
    "its run-time check of the shape argument against newshape is an error a kernel cannot "
    "raise: run by the host runtime",
)
