"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.nn.loss``.

From the former ``z3_nnnorm`` module:

Z3 encodings of the type relations of the ``nnnorm`` operator group.

Normalisations and losses (``ops.nn_norm``), resampling (``ops.nn_resample``) and
``image.resize2d`` (``ops.image``), written from TVM 0.18's relations (``src/relay/op/nn/nn.cc``,
``nn/pad.cc``, ``nn/upsampling.cc``, ``image/resize.cc``) and the departures those modules
document (``group_norm``'s groups, ``lrn``'s rank/axis/size, NCHW/NHWC layouts only, TOPI's
divisibility checks for the ``*_nd`` ops). Each encoding's docstring states its rule.
"""

from __future__ import annotations

from collections.abc import Sequence

from relay.semantics.ops.nn.loss import NLLLossAttrs
from relay.semantics.ops.registry import Attrs

from ..core import Arg, Encoded, Encoding, IllTyped, Shape, _attrs, _tensor, well_typed

FLOAT_DTYPES = ("float16", "float32", "float64")


SIGNED_DTYPES = ("int8", "int16", "int32", "int64")


def _cross_entropy(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """CrossEntropyRel: x and y 2-D of one shape and dtype; out a scalar of x's dtype."""
    x, y = _tensor(args, 0, "x"), _tensor(args, 1, "y")
    if len(x.shape) != 2 or len(y.shape) != 2 or x.dtype != y.dtype:
        raise IllTyped("cross_entropy needs 2-D x and y of one dtype")
    return well_typed([[]], [p == q for p, q in zip(x.shape, y.shape, strict=True)], [x.dtype])


def _nll_loss(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """NLLLossRel: predictions (N, C, d..) float, targets (N, d..) signed int, weights (C,) of
    predictions' dtype (or predictions (C,), targets ()); out targets' shape for reduction
    "none", else a scalar."""
    a = _attrs(attrs, NLLLossAttrs)
    p, t, w = _tensor(args, 0), _tensor(args, 1), _tensor(args, 2)
    if a.reduction not in ("none", "mean", "sum"):
        raise IllTyped(f"unknown reduction {a.reduction}")
    if len(p.shape) != len(t.shape) + 1 or len(w.shape) != 1:
        raise IllTyped("predictions must be one rank above targets; weights 1-D")
    if p.dtype not in FLOAT_DTYPES or w.dtype != p.dtype or t.dtype not in SIGNED_DTYPES:
        raise IllTyped("float predictions and weights of one dtype, signed integer targets")
    if len(p.shape) == 1:
        cons = [w.shape[0] == p.shape[0]]
    else:
        expected = [p.shape[0], *p.shape[2:]]
        cons = [w.shape[0] == p.shape[1]]
        cons += [x == e for x, e in zip(t.shape, expected, strict=True)]
    out: Shape = list(t.shape) if a.reduction == "none" else []
    return well_typed([out], cons, [p.dtype])


RULES: dict[str, Encoding] = {
    "nn.cross_entropy": _cross_entropy,
    "nn.nll_loss": _nll_loss,
}
"""This module's entries, by op name."""
