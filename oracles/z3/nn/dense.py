"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.nn.dense``.

From the former ``z3_nnconv`` module:

Z3 encodings of the type relations of the ``nnconv`` operator group: 1-D and 3-D and
transposed convolutions, matmul, batch_matmul, prelu, 1-D and 3-D pooling, adaptive 2-D pooling
and global max pooling.

Written from TVM 0.18's relations (``src/relay/op/nn/convolution.cc``, ``nn.cc``, ``nn.h``,
``pooling.cc``) and the departures ``ops.nn_conv`` and ``ops.nn_pool`` document (windows that
fit the padded input, lists of one entry per spatial axis, grouped transposed convolutions
giving groups * O channels, batch_matmul checking what it can), independently of the relation
functions: ``relay.oracles.validate`` checks one against the other.
"""

from __future__ import annotations

from collections.abc import Sequence

import z3

from relay.semantics.ops.nn.dense import BatchMatmulAttrs, BiasAddAttrs, MatmulAttrs
from relay.semantics.ops.registry import Attrs

from ..core import (
    Arg,
    Cond,
    Encoded,
    Encoding,
    IllTyped,
    _attrs,
    _axis,
    _dense,
    _tensor,
    well_typed,
)


def _bias_add(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """BiasAddRel: axis in range; bias is (data[axis],) of data's dtype; out = data."""
    data, bias = _tensor(args, 0), _tensor(args, 1)
    axis = _axis(_attrs(attrs, BiasAddAttrs).axis, len(data.shape))
    if len(bias.shape) != 1 or bias.dtype != data.dtype:
        raise IllTyped(f"bias must be a vector of {data.dtype}")
    return well_typed([data.shape], [bias.shape[0] == data.shape[axis]], [data.dtype])


def _matmul(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """MatmulRel: a (.., k), or (.., k, m) with transpose_a (rank >= 2); b rank 2, (k, n), or
    (n, k) with transpose_b; n = units when given; out (.., n) / (.., m, n), dtype out_dtype
    or a's."""
    a = _attrs(attrs, MatmulAttrs)
    x, y = _tensor(args, 0), _tensor(args, 1)
    if len(x.shape) < (2 if a.transpose_a else 1) or len(y.shape) != 2:
        raise IllTyped("matmul needs a of rank >= 1 (2 with transpose_a) and a rank-2 b")
    if a.transpose_a:
        k, lead = x.shape[-2], [*x.shape[:-2], x.shape[-1]]
    else:
        k, lead = x.shape[-1], list(x.shape[:-1])
    bk, n = (y.shape[1], y.shape[0]) if a.transpose_b else (y.shape[0], y.shape[1])
    cons: list[Cond] = [bk == k]
    if a.units is not None:
        cons.append(n == a.units)
    return well_typed([[*lead, n]], cons, [a.out_dtype or x.dtype])


def _batch_matmul(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """BatchMatmulRel: rank-3 a (B, m, k) / (B, k, m) and b (B', k, n) / (B', n, k); the
    reduction sizes equal; B = B' or one is 1 (the result takes the other); dtype out_dtype
    or a's."""
    a = _attrs(attrs, BatchMatmulAttrs)
    x, y = _tensor(args, 0), _tensor(args, 1)
    if len(x.shape) != 3 or len(y.shape) != 3:
        raise IllTyped("batch_matmul needs rank-3 operands")
    xb, xm, xk = (x.shape[0], x.shape[2], x.shape[1]) if a.transpose_a else tuple(x.shape)
    yb, yk, yn = (y.shape[0], y.shape[2], y.shape[1]) if a.transpose_b else tuple(y.shape)
    cons: list[Cond] = [xk == yk, z3.Or(xb == yb, xb == 1, yb == 1)]
    batch = z3.If(xb == 1, yb, xb)
    return well_typed([[batch, xm, yn]], cons, [a.out_dtype or x.dtype])


RULES: dict[str, Encoding] = {
    "nn.dense": _dense,
    "nn.bias_add": _bias_add,
    "nn.matmul": _matmul,
    "nn.batch_matmul": _batch_matmul,
}
"""This module's entries, by op name."""
