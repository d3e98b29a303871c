"""Dataflow-generator builders, one module per ``relay.semantics.ops`` module.

``core`` holds the framework the builders draw with (the pool ``_Graph``, ``Builder``, the
dtype lists, shared helpers, the result types); each part module is named as the semantics
module whose operators it builds and holds their ``BUILDERS``. This package assembles the
parts' tables; ``relay.oracles.gen_dataflow`` is the generator that uses them.
"""

from __future__ import annotations

from relay.semantics.ops import OPS

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
from .core import MAX_DIM, MAX_RANK, Builder, Built, DataflowProgram, OpCall
from .nn import activation as nn_activation
from .nn import conv as nn_conv
from .nn import dense as nn_dense
from .nn import loss as nn_loss
from .nn import norm as nn_norm
from .nn import pool as nn_pool
from .nn import shape as nn_shape

BUILDERS_BY_FAMILY: dict[str, dict[str, Builder]] = {
    "annotation": annotation.BUILDERS,
    "broadcast": broadcast.BUILDERS,
    "create": create.BUILDERS,
    "dyn": dyn.BUILDERS,
    "elementwise": elementwise.BUILDERS,
    "image": image.BUILDERS,
    "index": index.BUILDERS,
    "linalg": linalg.BUILDERS,
    "nn/activation": nn_activation.BUILDERS,
    "nn/conv": nn_conv.BUILDERS,
    "nn/dense": nn_dense.BUILDERS,
    "nn/loss": nn_loss.BUILDERS,
    "nn/norm": nn_norm.BUILDERS,
    "nn/pool": nn_pool.BUILDERS,
    "nn/shape": nn_shape.BUILDERS,
    "qnn": qnn.BUILDERS,
    "reduce": reduce.BUILDERS,
    "shape": shape.BUILDERS,
    "sort": sort.BUILDERS,
    "vm": vm.BUILDERS,
}
"""Each ``relay.semantics.ops`` module's entries, by family (``Op.family``: the module's path
below ``relay.semantics.ops``)."""

BUILDERS: dict[str, Builder] = {
    name: builder for part in BUILDERS_BY_FAMILY.values() for name, builder in part.items()
}
"""How to build a well-typed call of every registered operator, by name."""


def missing_builders() -> list[str]:
    """Registered operators without an entry in ``BUILDERS``."""
    return sorted(set(OPS) - set(BUILDERS))


__all__ = [
    "BUILDERS",
    "BUILDERS_BY_FAMILY",
    "MAX_DIM",
    "MAX_RANK",
    "Builder",
    "Built",
    "DataflowProgram",
    "OpCall",
    "missing_builders",
]
