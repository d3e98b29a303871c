"""The ``vm`` operators (``semantics/ops/vm.py``): relations, references, checks."""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_helpers import T, rel

import relay
from relay.semantics.errors import RelayRuntimeError
from relay.semantics.ops import OPS, OpPattern, lookup
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.ops.shape import ShapeOfAttrs
from relay.semantics.ops.vm import ReshapeTensorAttrs
from relay.semantics.syntax import ANY, TensorType, dim_symbol
from relay.semantics.values import TensorValue

n = dim_symbol("n")


def ref(name: str, *args: Any, attrs: Attrs | None = None) -> Any:
    op = lookup(name)
    assert op is not None and op.reference is not None
    return op.reference(args, attrs)


def test_records() -> None:
    shape_of, reshape = OPS["vm.shape_of"], OPS["vm.reshape_tensor"]
    assert (shape_of.family, shape_of.inputs, shape_of.relation_name) == (
        "vm",
        ("tensor",),
        "ShapeOf",
    )
    assert (reshape.family, reshape.inputs, reshape.relation_name) == (
        "vm",
        ("data", "shape"),
        "ReshapeTensor",
    )
    assert shape_of.pattern is OpPattern.OPAQUE and reshape.pattern is OpPattern.OPAQUE
    assert shape_of.attrs_type is ShapeOfAttrs
    assert ReshapeTensorAttrs.type_key == "relay.attrs.ReshapeTensorAttrs"
    assert [s.name for s in ReshapeTensorAttrs.field_specs()] == ["newshape"]


def test_shape_of_relation() -> None:
    attrs = ShapeOfAttrs(dtype="int64")
    assert rel("vm.shape_of", T(ANY, ANY), attrs=attrs) == T(2, dtype="int64")
    assert rel("vm.shape_of", T(), attrs=attrs) == T(0, dtype="int64")
    assert rel("vm.shape_of", T(n, 3, 1), attrs=ShapeOfAttrs(dtype="int32")) == T(3, dtype="int32")
    with pytest.raises(RelationError, match="expected a dtype"):
        rel("vm.shape_of", T(2), attrs=ShapeOfAttrs())


@pytest.mark.parametrize(
    ("data", "shape", "newshape", "message"),
    [
        (T(2, 8), T(3, dtype="int32"), (2, 4, 2), "Tensor[(3,), int64]"),
        (T(2, 8), T(2, dtype="int64"), (2, 4, 2), "Tensor[(3,), int64]"),
        (T(2, 8), T(1, 3, dtype="int64"), (2, 4, 2), "found Tensor[(1, 3), int64]"),
        (T(2, 8), T(3, dtype="int64"), (2, 4, 3), "of 16 elements to newshape=[2, 4, 3]"),
        (T(2, 8), T(3, dtype="int64"), (-1, 4, 2), "must be non-negative"),
    ],
)
def test_reshape_tensor_relation_rejects(
    data: TensorType, shape: TensorType, newshape: tuple[int, ...], message: str
) -> None:
    with pytest.raises(RelationError, match=re.escape(message)):
        rel("vm.reshape_tensor", data, shape, attrs=ReshapeTensorAttrs(newshape=newshape))


def test_reshape_tensor_relation() -> None:
    attrs = ReshapeTensorAttrs(newshape=(2, 4, 2))
    s = T(3, dtype="int64")
    assert rel("vm.reshape_tensor", T(2, 8), s, attrs=attrs) == T(2, 4, 2)
    # Extents the type leaves open are checked at run time.
    assert rel("vm.reshape_tensor", T(ANY, 8, dtype="int8"), s, attrs=attrs) == T(
        2, 4, 2, dtype="int8"
    )
    assert rel("vm.reshape_tensor", T(n, 4), T(ANY, dtype="int64"), attrs=attrs) == T(2, 4, 2)
    empty = ReshapeTensorAttrs(newshape=(0, 5))
    assert rel("vm.reshape_tensor", T(3, 0), T(2, dtype="int64"), attrs=empty) == T(0, 5)


SHAPES = st.lists(st.integers(0, 4), min_size=0, max_size=4).map(tuple)


@settings(max_examples=40)
@given(SHAPES, st.sampled_from(["int64", "int32", "uint8"]))
def test_shape_of_is_the_extents_in_the_type(shape: tuple[int, ...], dtype: str) -> None:
    x = np.zeros(shape, np.float16)
    got = ref("vm.shape_of", x, attrs=ShapeOfAttrs(dtype=dtype))
    # Independent: the extents as written in the argument's type.
    t = rel("vm.shape_of", T(*shape, dtype="float16"), attrs=ShapeOfAttrs(dtype=dtype))
    assert t == T(len(shape), dtype=dtype)
    assert str(got.dtype) == dtype and got.shape == (len(shape),)
    assert [int(v) for v in got] == list(shape)


@settings(max_examples=40)
@given(SHAPES, st.integers(0, 2**32 - 1), st.data())
def test_reshape_tensor_is_a_row_major_copy(
    shape: tuple[int, ...], seed: int, data: st.DataObject
) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(-100, 100, shape).astype(np.int32)
    total = int(np.prod(shape))
    newshape = data.draw(st.sampled_from([(total,), (*shape[::-1],), (1, *shape)]))
    attrs = ReshapeTensorAttrs(newshape=newshape)
    got = ref("vm.reshape_tensor", x, np.array(newshape, np.int64), attrs=attrs)
    assert got.shape == newshape and got.dtype == x.dtype
    # Independent: element by element, the k-th element in row-major order stays the k-th.
    flat_in = [x[idx] for idx in np.ndindex(*shape)] if total else []
    flat_out = [got[idx] for idx in np.ndindex(*newshape)] if total else []
    assert flat_in == flat_out


def test_reshape_tensor_run_time_failures() -> None:
    x = np.arange(16, dtype=np.float32).reshape(2, 8)
    attrs = ReshapeTensorAttrs(newshape=(2, 4, 2))
    with pytest.raises(RelayRuntimeError, match=re.escape("holds [4, 2, 2]")):
        ref("vm.reshape_tensor", x, np.array([4, 2, 2], np.int64), attrs=attrs)
    # A tensor of type Tensor[(?, 8), float32] holding 3 rows cannot become (2, 4, 2).
    y = np.zeros((3, 8), np.float32)
    with pytest.raises(RelayRuntimeError, match="cannot reshape 24 elements"):
        ref("vm.reshape_tensor", y, np.array([2, 4, 2], np.int64), attrs=attrs)


def test_tvm_programs_check_print_and_run() -> None:
    # From TVM 0.18's tests/python/relay/test_pass_plan_devices.py (shape_of, reshape_tensor),
    # the metadata constant as a parameter.
    shape_of = relay.parse(
        '#[version = "0.0.5"]\n'
        "def @main(%x: Tensor[(?, ?), float32]) {\n"
        '  vm.shape_of(%x, dtype="int64")\n'
        "}\n"
    )
    text = relay.astext(shape_of)
    assert relay.astext(relay.parse(text)) == text and 'dtype="int64"' in text
    assert "/* ty=Tensor[(2), int64] */" in relay.astext(shape_of, types=True)
    value = relay.evaluate(shape_of, np.zeros((5, 7), np.float32))
    assert isinstance(value, TensorValue)
    assert np.asarray(value.data).tolist() == [5, 7]
    reshape = relay.parse(
        '#[version = "0.0.5"]\n'
        "def @main(%x: Tensor[(2, 8), float32], %s: Tensor[(3), int64]) {\n"
        "  vm.reshape_tensor(%x, %s, newshape=[2, 4, 2])\n"
        "}\n"
    )
    text = relay.astext(reshape)
    assert relay.astext(relay.parse(text)) == text and "newshape=[2, 4, 2]" in text
    x = np.arange(16, dtype=np.float32).reshape(2, 8)
    value = relay.evaluate(reshape, x, np.array([2, 4, 2], np.int64))
    assert isinstance(value, TensorValue)
    np.testing.assert_array_equal(value.data, x.reshape(2, 4, 2))
