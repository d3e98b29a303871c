"""Z3 encodings of the type relations of the operators of ``relay.semantics.ops.vm``.

Written from TVM 0.18's ``src/relay/op/vm/vm.cc`` (ShapeOfRel, ReshapeTensorRel) and the
checks ``ops.vm`` adds (a dtype for shape_of; for reshape_tensor an int64 shape vector of
newshape's length, non-negative extents and an equal element count), independently of the
relation functions: ``relay.oracles.validate`` checks one against the other.
"""

from __future__ import annotations

from collections.abc import Sequence

import z3

from relay.semantics.ops.registry import Attrs
from relay.semantics.ops.shape import ShapeOfAttrs
from relay.semantics.ops.vm import ReshapeTensorAttrs
from relay.semantics.syntax import DTYPES

from .core import Arg as Arg
from .core import Encoded, Encoding, IllTyped, _attrs, _tensor, product, well_typed


def _shape_of(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """ShapeOf: a rank-r tensor gives (r,) in the dtype attribute, which must be a dtype."""
    a = _attrs(attrs, ShapeOfAttrs)
    data = _tensor(args, 0)
    if a.dtype not in DTYPES:
        raise IllTyped(f"shape_of needs a dtype, found {a.dtype!r}")
    return well_typed([[z3.IntVal(len(data.shape))]], [], [a.dtype])


def _reshape_tensor(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """ReshapeTensor: result newshape in data's dtype; shape an int64 vector of newshape's
    length; newshape non-negative with data's element count."""
    a = _attrs(attrs, ReshapeTensorAttrs)
    data, shape = _tensor(args, 0), _tensor(args, 1)
    if len(shape.shape) != 1 or shape.dtype != "int64":
        raise IllTyped("reshape_tensor needs an int64 vector shape")
    if min(a.newshape, default=0) < 0:
        raise IllTyped(f"negative newshape {a.newshape}")
    cons = [shape.shape[0] == len(a.newshape), product(data.shape) == product(list(a.newshape))]
    return well_typed([[z3.IntVal(d) for d in a.newshape]], cons, [data.dtype])


RULES: dict[str, Encoding] = {
    "vm.shape_of": _shape_of,
    "vm.reshape_tensor": _reshape_tensor,
}
"""This module's entries, by op name."""
