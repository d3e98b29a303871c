"""Lowerings of the ``reduce`` operators (``compiler/lower/ops/reduce.py``) against their
reference semantics on generated calls (``lower_helpers.check_lowered_op``)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lower_helpers import check_lowered_op, lowered_ops


@pytest.mark.parametrize("op", lowered_ops("reduce"))
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_lowering_matches_reference(op: str, data: st.DataObject) -> None:
    check_lowered_op(op, data)


def test_argmax_ties_and_the_identity_index() -> None:
    # First-index ties; a row of only the lowest float32 value keeps the identity index -1.
    import numpy as np

    import relay
    from relay.compiler.lower.check import check_kernel
    from relay.compiler.lower.evaluate import run_kernel
    from relay.compiler.lower.lower import lower_primitive

    mod = relay.parse(
        '#[version = "0.0.5"]\n'
        "def @main(%x: Tensor[(3, 4), float32]) {\n"
        "  (argmax(%x, axis=[1]), argmax(%x, axis=[1], select_last_index=True),"
        " add(cumsum(%x, axis=1, exclusive=True), 1f))\n"
        "}\n"
    )
    kernel = lower_primitive(mod["main"], "argmax_cumsum")
    check_kernel(kernel)
    low = np.finfo(np.float32).min
    x = np.array([[1, 5, 5, 2], [low, low, low, low], [-np.inf, 0, 7, 7]], dtype=np.float32)
    first, last, scan = run_kernel(kernel, [x])
    np.testing.assert_array_equal(first, np.array([1, -1, 2], dtype=np.int32))
    np.testing.assert_array_equal(last, np.array([2, 3, 3], dtype=np.int32))
    with np.errstate(over="ignore"):
        running = np.cumsum(x, axis=1)
    exclusive = np.concatenate([np.zeros((3, 1), np.float32), running[:, :-1]], 1)
    np.testing.assert_array_equal(scan, exclusive + np.float32(1))
