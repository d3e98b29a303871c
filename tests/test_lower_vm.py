"""Lowerings of the ``vm`` operators (``compiler/lower/ops/vm.py``) against their reference
semantics on generated calls (``lower_helpers.check_lowered_op``)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lower_helpers import check_lowered_op, lowered_ops


@pytest.mark.parametrize("op", lowered_ops("vm"))
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_lowering_matches_reference(op: str, data: st.DataObject) -> None:
    check_lowered_op(op, data)
