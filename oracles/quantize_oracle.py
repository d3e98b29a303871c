"""The accuracy bound of ``quantize`` (``relay.compiler.passes.quantize``), as numbers.

A quantized layer computes ``sum_k w'_k x'_k`` where the float program computes
``sum_k w_k x_k``. With per-element input error bounds ``E`` (``|x_k - x'_k| <= E_k``) and
the weight rounded to ``2^ew`` (``|w_k - w'_k| <= 2^ew / 2``, no clipping), from
``w x - w' x' = w (x - x') + (w - w') x'`` and ``|x'| <= |x| + E``::

    |y - y'| <= sum_k |w_k| E_k + (|x_k| + E_k) 2^ew / 2   (+ 2^(ex+ew) / 2 for the bias)

which is a convolution (or dense) of ``E`` with ``|w|`` plus one of ``|x| + E`` with the
constant ``2^ew / 2``; padding contributes nothing (zeros are exact). The first layer's input
error is the rounding of its data, ``2^ex / 2``; a requantization to int8 at ``2^e`` adds
``2^e / 2`` (``UPWARD``) or ``2^e`` (``DOWNWARD``) to its input's bound; ``nn.relu`` keeps the
bound (it is 1-Lipschitz). The float program rounds too: ``float_slack`` is the float32 error
of a sum of ``K`` products, ``K * 2^-23 * sum |w x|``. The derivation assumes no value is
clipped, which ``max`` calibration guarantees for the data it calibrated on.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from ..semantics.ops import lookup
from ..semantics.ops.registry import Attrs

Array = npt.NDArray[Any]


def _apply(op: str, x: Array, w: Array, attrs: Attrs | None) -> Array:
    """The reference of ``op`` (``nn.conv2d`` or ``nn.dense``) in float64."""
    opdef = lookup(op)
    assert opdef is not None and opdef.reference is not None
    out = opdef.reference((x.astype(np.float64), w.astype(np.float64)), attrs)
    assert isinstance(out, np.ndarray)
    return out


def layer_error(
    op: str, x: Array, error_in: Array, w: Array, ew: int, attrs: Attrs | None
) -> Array:
    """The bound on ``|y - y'|`` of one quantized ``op`` layer (module docstring), without the
    bias term: ``op(E, |w|) + op(|x| + E, 2^ew / 2)``."""
    e = np.broadcast_to(error_in, x.shape).astype(np.float64)
    half = np.full(w.shape, 2.0**ew / 2)
    return _apply(op, e, np.abs(w), attrs) + _apply(op, np.abs(x) + e, half, attrs)


def float_slack(op: str, x: Array, w: Array, attrs: Attrs | None) -> Array:
    """The float32 rounding of the float layer: ``K * 2^-23 * op(|x|, |w|)``."""
    magnitude = _apply(op, np.abs(x), np.abs(w), attrs)
    k = int(np.prod(w.shape[1:]))
    return magnitude * (k * 2.0**-23) + 2.0**-126


def requantize_error(rounding: str, exponent: int) -> float:
    """What a requantization to int8 at ``2^exponent`` adds to a bound."""
    return 2.0**exponent / 2 if rounding == "UPWARD" else 2.0**exponent
