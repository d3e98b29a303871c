"""Lowerings of the ``index`` operators (``compiler/lower/ops/index.py``) against their
reference semantics on generated calls (``lower_helpers.check_lowered_op``).

Drawn index arguments are mostly out of range, which the reference leaves undefined (the
case would be skipped): for the operators with such preconditions, ``FIXES`` maps the drawn
values into range (and makes the targets of an ``update`` scatter distinct) first, from the
drawn values themselves, so that the cases are compared."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lower_helpers import ArgFix, check_lowered_op, lowered_ops


def _into(values: np.ndarray, extent: int) -> np.ndarray:
    """``values`` taken modulo ``extent`` (>= 1), in their own dtype."""
    return np.array(np.mod(values.astype(np.int64), max(extent, 1)), dtype=values.dtype)


def _distinct(values: np.ndarray, count: int, total: int) -> np.ndarray | None:
    """``count`` distinct flat positions below ``total``, shifted by the first drawn value
    (``None`` when there are not enough positions)."""
    if count > total:
        return None
    shift = int(values.reshape(-1)[0]) if values.size else 0
    return np.mod(np.arange(count, dtype=np.int64) + shift, max(total, 1))


def _gather(args: list[Any], attrs: Any) -> list[Any]:
    data, indices = args
    axis = attrs.axis % data.ndim
    return [data, _into(indices, data.shape[axis])]


def _gather_nd(args: list[Any], attrs: Any) -> list[Any]:
    data, indices = args
    b = attrs.batch_dims
    fixed = np.stack([_into(indices[j], data.shape[b + j]) for j in range(indices.shape[0])])
    return [data, fixed.reshape(indices.shape).astype(indices.dtype)]


def _take(args: list[Any], attrs: Any) -> list[Any]:
    data, indices = args
    if attrs.mode != "fast":
        return args
    extent = data.size if attrs.axis is None else data.shape[attrs.axis % data.ndim]
    return [data, _into(indices, extent)]


def _scatter_elements(args: list[Any], attrs: Any) -> list[Any]:
    data, indices, updates = args
    axis = attrs.axis % data.ndim
    extent = data.shape[axis]
    if attrs.reduction != "update" or indices.size == 0:
        return [data, _into(indices, extent), updates]
    # Distinct positions along each line of the axis: (position + the line's first value).
    shift = np.take(indices, [0], axis=axis).astype(np.int64)
    line = np.arange(indices.shape[axis]).reshape(
        [-1 if k == axis else 1 for k in range(indices.ndim)]
    )
    return [data, np.mod(line + shift, max(extent, 1)).astype(indices.dtype), updates]


def _scatter_nd(args: list[Any], attrs: Any) -> list[Any]:
    data, indices, updates = args
    m = indices.shape[0]
    if attrs.mode != "update":
        fixed = np.stack([_into(indices[j], data.shape[j]) for j in range(m)]) if m else indices
        return [data, fixed.reshape(indices.shape).astype(indices.dtype), updates]
    count = math.prod(indices.shape[1:])
    flat = _distinct(indices, count, math.prod(data.shape[:m]))
    if flat is None or m == 0:
        return args
    coords = np.stack(np.unravel_index(flat, data.shape[:m])).reshape(indices.shape)
    return [data, coords.astype(indices.dtype), updates]


def _sparse_to_dense(args: list[Any], attrs: Any) -> list[Any]:
    indices, values, default = args
    shape = attrs.output_shape
    count = indices.shape[0] if indices.ndim else 1
    flat = _distinct(indices, count, math.prod(shape))
    if flat is None:
        return args
    coords = np.stack(np.unravel_index(flat, shape), axis=-1)  # (count, rank)
    return [coords.reshape(indices.shape).astype(indices.dtype), values, default]


def _invert_permutation(args: list[Any], attrs: Any) -> list[Any]:
    (data,) = args
    return [np.argsort(data, kind="stable").astype(data.dtype)]


def _unravel_index(args: list[Any], attrs: Any) -> list[Any]:
    data, shape = args
    dims = np.mod(shape.astype(np.int64), 4) + 1
    return [_into(data, int(np.prod(dims))), dims.astype(shape.dtype)]


FIXES: dict[str, ArgFix] = {
    "gather": _gather,
    "gather_nd": _gather_nd,
    "take": _take,
    "scatter_elements": _scatter_elements,
    "scatter_nd": _scatter_nd,
    "sparse_to_dense": _sparse_to_dense,
    "invert_permutation": _invert_permutation,
    "unravel_index": _unravel_index,
}


@pytest.mark.parametrize("op", lowered_ops("index"))
@settings(max_examples=12, deadline=None)
@given(data=st.data())
def test_lowering_matches_reference(op: str, data: st.DataObject) -> None:
    check_lowered_op(op, data, FIXES.get(op))


def test_a_fused_consumer_of_a_scatter_applies_once_per_element() -> None:
    # add(scatter_elements(..., reduction="add"), 1f): the consumer is fused after the scatter,
    # not at its stores (position 0 is written twice).
    import relay
    from relay.compiler.lower.check import check_kernel
    from relay.compiler.lower.evaluate import run_kernel
    from relay.compiler.lower.lower import lower_primitive

    mod = relay.parse(
        '#[version = "0.0.5"]\n'
        "def @main(%d: Tensor[(4), float32], %i: Tensor[(3), int32], %u: Tensor[(3), float32]) {\n"
        '  multiply(scatter_elements(%d, %i, %u, axis=0, reduction="add"), 2f)\n'
        "}\n"
    )
    kernel = lower_primitive(mod["main"], "scatter_then_double")
    check_kernel(kernel)
    d = np.array([1, 2, 3, 4], dtype=np.float32)
    i = np.array([0, 3, 0], dtype=np.int32)
    u = np.array([10, 20, 30], dtype=np.float32)
    (out,) = run_kernel(kernel, [d, i, u])
    np.testing.assert_array_equal(out, np.array([82, 4, 6, 48], dtype=np.float32))


def test_strided_slice_keeps_a_padded_symbolic_axis_whole() -> None:
    import relay
    from relay.compiler.lower.check import check_kernel
    from relay.compiler.lower.evaluate import run_kernel
    from relay.compiler.lower.lower import lower_primitive, size_bindings

    mod = relay.parse(
        '#[version = "0.0.5"]\n'
        "def @main(%x: Tensor[(5, n), int32]) {\n"
        "  strided_slice(%x, begin=[4], end=[0], strides=[-2], axes=None)\n"
        "}\n"
    )
    kernel = lower_primitive(mod["main"], "slice")
    check_kernel(kernel)
    x = np.arange(15, dtype=np.int32).reshape(5, 3)
    sizes = size_bindings(kernel, [x.shape], [(2, 3)])
    (out,) = run_kernel(kernel, [x], sizes)
    np.testing.assert_array_equal(out, x[4:0:-2])
