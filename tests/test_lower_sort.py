"""Lowerings of ``sort`` (``compiler/lower/ops/sort.py``) against the references, on sampled
calls and on hand-picked ties (stable order, both directions, bool and float16 keys, every
``ret_type`` of topk), and compiled by the CPU target at 1 and 2 threads."""

from __future__ import annotations

import numpy as np
import pytest
from lowernn_helpers import assert_close, check_call, lower_call, sampled_cases

from relay.compiler.lower import te
from relay.semantics.ops import OPS
from relay.semantics.ops.sort import ArgsortAttrs, TopKAttrs
from relay.semantics.syntax import TensorType


def test_every_operator_is_lowered_or_has_a_reason() -> None:
    family = [name for name, op in OPS.items() if op.family == "sort"]
    assert family
    for name in family:
        assert name in te.LOWERINGS or te.UNSUPPORTED.get(name, "").strip(), name


for _op in ("searchsorted", "sort", "argsort", "topk"):

    @sampled_cases(_op, examples=25)
    def _test() -> None:
        """Sampled calls."""

    globals()[f"test_sampled_{_op.replace('.', '_')}"] = _test


def T(*shape: int, dtype: str = "float32") -> TensorType:
    return TensorType(shape, dtype)


_TIES = np.array([[3, 1, 3, 0, 1, 3, -2], [0, 0, 0, 0, 0, 0, 0]], dtype="int32")


@pytest.mark.parametrize("ascend", [True, False])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_argsort_and_sort_keep_ties_in_index_order(ascend: bool, axis: int) -> None:
    attrs = ArgsortAttrs(axis=axis, is_ascend=ascend, dtype="int64")
    assert check_call("argsort", [T(2, 7, dtype="int32")], attrs, [_TIES])
    assert check_call("sort", [T(2, 7, dtype="int32")], attrs, [_TIES])


def test_sort_bool_and_float16() -> None:
    flags = np.array([True, False, True, False, False])
    for ascend in (True, False):
        attrs = ArgsortAttrs(axis=0, is_ascend=ascend, dtype="int32")
        assert check_call("argsort", [T(5, dtype="bool")], attrs, [flags])
        assert check_call("sort", [T(5, dtype="bool")], attrs, [flags])
    halves = np.array([[0.5, -0.0, 0.0, 2.0], [1.0, 1.0, -1.0, 0.5]], dtype="float16")
    attrs = ArgsortAttrs(axis=-1, is_ascend=False, dtype="int32")
    assert check_call("argsort", [T(2, 4, dtype="float16")], attrs, [halves])


@pytest.mark.parametrize("ret_type", ["both", "values", "indices"])
@pytest.mark.parametrize("k", [0, 1, 3, 7])
def test_topk_ret_types(ret_type: str, k: int) -> None:
    attrs = TopKAttrs(k=k, axis=1, ret_type=ret_type, is_ascend=k == 3, dtype="int32")
    assert check_call("topk", [T(2, 7, dtype="int32")], attrs, [_TIES])


def test_topk_past_the_extent_is_a_lowering_error() -> None:
    with pytest.raises(te.LoweringError):
        lower_call("topk", [T(2, 3)], TopKAttrs(k=4, axis=1, dtype="int32"))


@pytest.mark.parametrize("threads", [1, 2])
def test_sort_compiled(threads: int) -> None:
    from relay.targets.cpu.codegen import compile_kernel

    data = np.random.default_rng(1).integers(-4, 5, (6, 19)).astype("float32")
    attrs = TopKAttrs(k=5, axis=1, ret_type="both", is_ascend=False, dtype="int64")
    kernel = lower_call("topk", [T(6, 19)], attrs)
    outs = [np.empty((6, 5), "float32"), np.empty((6, 5), "int64")]
    compile_kernel(kernel, threads=threads)([data], outs, {})
    reference = OPS["topk"].reference
    assert reference is not None
    values, indices = reference((data,), attrs)  # type: ignore[misc]
    assert_close(outs[0], np.asarray(values))
    assert_close(outs[1], np.asarray(indices))


def test_topk_and_sort_through_lower_primitive() -> None:
    """A Relay function with a tuple-valued topk, a consumer of its values and a sort: one
    kernel through the driver (``lower_primitive``), well formed, against numpy."""
    import relay
    from relay.compiler.lower.check import check_kernel
    from relay.compiler.lower.evaluate import run_kernel
    from relay.compiler.lower.lower import lower_primitive

    mod = relay.parse(
        '#[version = "0.0.5"]\n'
        "def @main(%x: Tensor[(4, 9), float32]) {\n"
        '  let %t = topk(%x, k=3, axis=1, ret_type="both", dtype="int32");\n'
        "  (add(%t.0, 1f), %t.1, sort(%x, axis=0, is_ascend=False))\n"
        "}\n"
    )
    kernel = lower_primitive(mod["main"], "topk")
    check_kernel(kernel)
    x = np.random.default_rng(0).standard_normal((4, 9)).astype("float32")
    values, indices, ordered = run_kernel(kernel, [x])
    order = np.argsort(-x, axis=1, kind="stable")[:, :3]
    np.testing.assert_array_equal(indices, order)
    np.testing.assert_array_equal(values, np.take_along_axis(x, order, 1) + 1)
    np.testing.assert_array_equal(ordered, -np.sort(-x, axis=0))
