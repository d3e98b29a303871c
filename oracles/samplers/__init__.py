"""Per-op Hypothesis samplers, one module per ``relay.semantics.ops`` module.

``core`` holds the framework (``Sample``, ``Sampler``, the dtype lists, shared drawing
helpers; its docstring describes what a sample is and how it shrinks); each part module is named
as the semantics module whose operators it samples and holds their ``SAMPLERS``. This package
assembles the parts' tables.
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
from .core import N, Sample, Sampler
from .nn import activation as nn_activation
from .nn import conv as nn_conv
from .nn import dense as nn_dense
from .nn import loss as nn_loss
from .nn import norm as nn_norm
from .nn import pool as nn_pool
from .nn import shape as nn_shape

SAMPLERS_BY_FAMILY: dict[str, dict[str, Sampler]] = {
    "annotation": annotation.SAMPLERS,
    "broadcast": broadcast.SAMPLERS,
    "create": create.SAMPLERS,
    "dyn": dyn.SAMPLERS,
    "elementwise": elementwise.SAMPLERS,
    "image": image.SAMPLERS,
    "index": index.SAMPLERS,
    "linalg": linalg.SAMPLERS,
    "nn/activation": nn_activation.SAMPLERS,
    "nn/conv": nn_conv.SAMPLERS,
    "nn/dense": nn_dense.SAMPLERS,
    "nn/loss": nn_loss.SAMPLERS,
    "nn/norm": nn_norm.SAMPLERS,
    "nn/pool": nn_pool.SAMPLERS,
    "nn/shape": nn_shape.SAMPLERS,
    "qnn": qnn.SAMPLERS,
    "reduce": reduce.SAMPLERS,
    "shape": shape.SAMPLERS,
    "sort": sort.SAMPLERS,
    "vm": vm.SAMPLERS,
}
"""Each ``relay.semantics.ops`` module's entries, by family (``Op.family``: the module's path
below ``relay.semantics.ops``)."""

SAMPLERS: dict[str, Sampler] = {
    name: sampler for part in SAMPLERS_BY_FAMILY.values() for name, sampler in part.items()
}
"""A strategy of calls for every registered op, by op name."""


def missing_samplers() -> list[str]:
    """Registered ops without an entry in ``SAMPLERS``."""
    return sorted(set(OPS) - set(SAMPLERS))


__all__ = ["SAMPLERS", "SAMPLERS_BY_FAMILY", "N", "Sample", "Sampler", "missing_samplers"]
