"""Dataflow-generator builders of the operators of
``relay.semantics.ops.nn.dense`` (well-typed calls by construction).

From the former ``builders_nnconv`` module:

Dataflow-generator builders of the ``nnconv`` operator group.

Each builds a well-typed call whose meaning is defined for the generator's default arguments
(``gen_args``: small non-zero values): convolutions take non-empty data, a weight derived from
its channels and groups, windows that fit the padded input and accumulators that hold the
data's values (``gen_dataflow._accumulators``); transposed convolutions crop no more than the
kernel adds, so every output extent is at least 1; average pools never divide by an empty
integer count and adaptive average pools keep cell counts representable in int8; results have
rank 4 or less.

``nn.conv3d``'s data, weight and result have rank 5, beyond the generator's ``MAX_RANK``: its
inputs are always fresh and its result is only a sink (``MAX_RESULT_RANK``).
"""

from __future__ import annotations

from relay.semantics.ops.nn.dense import BatchMatmulAttrs, BiasAddAttrs, DenseAttrs, MatmulAttrs
from relay.semantics.syntax import TensorType

from ..core import NUMERIC, Builder, Built, _accumulators, _dims, _Graph


def _dense(g: _Graph) -> Built:
    """Data ``(.., k)``; weight ``(units, k)`` of the same dtype; ``units`` given or not."""
    data = g.tensor(NUMERIC, min_rank=1)
    dtype = data[1].dtype
    k = _dims(data[1])[-1]
    weight = g.tensor(
        (dtype,),
        min_rank=2,
        max_rank=2,
        fits=lambda t: _dims(t)[1] == k,
        fresh=lambda: TensorType((g.dim(), k), dtype),
    )
    units = _dims(weight[1])[0] if g.flag() else None
    out_dtype = g.dtype(_accumulators(dtype)) if g.flag() else ""
    return (data, weight), DenseAttrs.from_kwargs({"units": units, "out_dtype": out_dtype})


def _bias_add(g: _Graph) -> Built:
    data = g.tensor(NUMERIC, min_rank=1)
    shape = _dims(data[1])
    axis = g.integer(0, len(shape) - 1)
    bias = g.exactly(TensorType((shape[axis],), data[1].dtype))
    return (data, bias), BiasAddAttrs.from_kwargs({"axis": g.axis(axis, len(shape))})


def _matmul(g: _Graph) -> Built:
    """a of rank >= 1 (>= 2 when transposed); b (k, n) or (n, k) of the same dtype; units
    given or not."""
    transpose_a, transpose_b = g.flag(), g.flag()
    a = g.tensor(NUMERIC, min_rank=2 if transpose_a else 1)
    dtype = a[1].dtype
    k = _dims(a[1])[-2 if transpose_a else -1]
    kpos = 1 if transpose_b else 0

    def fresh() -> TensorType:
        n = g.dim()
        return TensorType((n, k) if transpose_b else (k, n), dtype)

    b = g.tensor((dtype,), min_rank=2, max_rank=2, fits=lambda t: _dims(t)[kpos] == k, fresh=fresh)
    n = _dims(b[1])[1 - kpos]
    attrs = MatmulAttrs.from_kwargs(
        {
            "units": n if g.flag() else None,
            "out_dtype": g.dtype(_accumulators(dtype)) if g.flag() else "",
            "transpose_a": transpose_a,
            "transpose_b": transpose_b,
        }
    )
    return (a, b), attrs


def _batch_matmul(g: _Graph) -> Built:
    """Rank-3 a; b of a's dtype whose batch is a's or 1 (any when a's is 1) and whose
    reduction size is a's."""
    transpose_a, transpose_b = g.flag(), g.flag()
    a = g.tensor(NUMERIC, min_rank=3, max_rank=3)
    dtype = a[1].dtype
    shape = _dims(a[1])
    batch, k = shape[0], shape[1 if transpose_a else 2]
    kpos = 2 if transpose_b else 1

    def fits(t: TensorType) -> bool:
        d = _dims(t)
        return d[kpos] == k and (d[0] in (batch, 1) or batch == 1)

    def fresh() -> TensorType:
        b = g.pick([batch, 1])
        n = g.dim()
        return TensorType((b, n, k) if transpose_b else (b, k, n), dtype)

    b = g.tensor((dtype,), min_rank=3, max_rank=3, fits=fits, fresh=fresh)
    attrs = BatchMatmulAttrs.from_kwargs(
        {
            "out_dtype": g.dtype(_accumulators(dtype)) if g.flag() else "",
            "transpose_a": transpose_a,
            "transpose_b": transpose_b,
        }
    )
    return (a, b), attrs


BUILDERS: dict[str, Builder] = {
    "nn.dense": _dense,
    "nn.bias_add": _bias_add,
    "nn.matmul": _matmul,
    "nn.batch_matmul": _batch_matmul,
}
"""This module's entries, by op name."""
