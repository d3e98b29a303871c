"""Dataflow-generator builders of the operators of ``relay.semantics.ops.vm`` (well-typed
calls by construction).

``vm.shape_of`` takes any pool tensor and an int64 or int32 dtype. ``vm.reshape_tensor``
reshapes a pool tensor to a factorisation of its element count (an empty tensor keeps its
shape), its shape argument an int64 constant holding exactly newshape, so the call is
defined.
"""

from __future__ import annotations

import numpy as np

from relay.semantics.ops.shape import ShapeOfAttrs
from relay.semantics.ops.vm import ReshapeTensorAttrs
from relay.semantics.syntax import Constant, TensorType

from .core import ALL, Builder, Built, _dims, _factorise, _Graph


def _shape_of(g: _Graph) -> Built:
    """Any tensor; dtype int64 (TVM's builder's) or int32."""
    data = g.tensor(ALL)
    return (data,), ShapeOfAttrs(dtype=g.pick(["int64", "int32"]))


def _reshape_tensor(g: _Graph) -> Built:
    """Any tensor, reshaped to a factorisation of its element count; the shape argument an
    int64 constant of newshape."""
    data = g.tensor(ALL)
    shape = _dims(data[1])
    total = int(np.prod(shape))
    newshape = _factorise(g, total) if total else list(shape)
    t = TensorType((len(newshape),), "int64")
    constant = Constant(np.asarray(newshape, dtype=np.int64).reshape(-1))
    vector = g.use(g.add(constant, t, (False,)))
    return (data, vector), ReshapeTensorAttrs(newshape=tuple(newshape))


BUILDERS: dict[str, Builder] = {
    "vm.shape_of": _shape_of,
    "vm.reshape_tensor": _reshape_tensor,
}
"""This module's entries, by op name."""
