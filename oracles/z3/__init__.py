"""Z3 encodings of the operators' type relations, one module per ``relay.semantics.ops`` module.

``core`` holds the framework (terms, ``Encoded``, ``well_typed``/``ill_typed``, shared helpers);
each part module (``elementwise``, ``nn.conv``, ...) is named as the semantics module whose
operators it encodes and holds their ``RULES``. This package assembles the parts' tables.
"""

from __future__ import annotations

from collections.abc import Sequence

from relay.semantics.ops import OPS
from relay.semantics.ops.registry import Attrs

from . import (
    annotation,
    broadcast,
    create,
    dyn,
    elementwise,
    image,
    index,
    linalg,
    qnn,
    reduce,
    shape,
    sort,
    vm,
)
from .core import (
    Arg,
    Cond,
    Encoded,
    Encoding,
    IllTyped,
    TensorArg,
    Term,
    TupleArg,
    const_value,
    floordiv,
    ill_typed,
    product,
    well_typed,
)
from .nn import activation as nn_activation
from .nn import conv as nn_conv
from .nn import dense as nn_dense
from .nn import loss as nn_loss
from .nn import norm as nn_norm
from .nn import pool as nn_pool
from .nn import shape as nn_shape

ENCODINGS_BY_FAMILY: dict[str, dict[str, Encoding]] = {
    "annotation": annotation.RULES,
    "broadcast": broadcast.RULES,
    "create": create.RULES,
    "dyn": dyn.RULES,
    "elementwise": elementwise.RULES,
    "image": image.RULES,
    "index": index.RULES,
    "linalg": linalg.RULES,
    "nn/activation": nn_activation.RULES,
    "nn/conv": nn_conv.RULES,
    "nn/dense": nn_dense.RULES,
    "nn/loss": nn_loss.RULES,
    "nn/norm": nn_norm.RULES,
    "nn/pool": nn_pool.RULES,
    "nn/shape": nn_shape.RULES,
    "qnn": qnn.RULES,
    "reduce": reduce.RULES,
    "shape": shape.RULES,
    "sort": sort.RULES,
    "vm": vm.RULES,
}
"""Each ``relay.semantics.ops`` module's entries, by family (``Op.family``: the module's path
below ``relay.semantics.ops``)."""


def _checked(rule: Encoding) -> Encoding:
    """``rule`` with ``IllTyped`` turned into an ``ill_typed`` result."""

    def encode(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
        try:
            return rule(args, attrs)
        except IllTyped as e:
            return ill_typed(str(e))

    encode.__doc__ = rule.__doc__
    return encode


Z3_ENCODINGS: dict[str, Encoding] = {
    name: _checked(rule) for part in ENCODINGS_BY_FAMILY.values() for name, rule in part.items()
}
"""The Z3 encoding of every registered op's type relation, by op name."""


def missing_encodings() -> list[str]:
    """Registered ops without an entry in ``Z3_ENCODINGS``."""
    return sorted(set(OPS) - set(Z3_ENCODINGS))


__all__ = [
    "ENCODINGS_BY_FAMILY",
    "Z3_ENCODINGS",
    "Arg",
    "Cond",
    "Encoded",
    "Encoding",
    "IllTyped",
    "TensorArg",
    "Term",
    "TupleArg",
    "const_value",
    "floordiv",
    "ill_typed",
    "missing_encodings",
    "product",
    "well_typed",
]
