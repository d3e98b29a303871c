"""Helpers shared by the ``nn`` and ``image`` operator tests (``tests/test_ops_nn_*.py``,
``tests/test_ops_image.py``): the ONNX runner, random inputs, seeds, reference and record
checks.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnxruntime as ort
import pytest
from hypothesis import strategies as st
from onnx import helper
from ops_helpers import NUMERIC, Array, T, ref, rel

from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS, Attrs, OpPattern, lookup
from relay.semantics.syntax import TensorType, TupleType


def normal(rng: np.random.Generator, *shape: int, dtype: str = "float32") -> Array:
    return rng.standard_normal(shape).astype(dtype)


V3 = T(3)


ALL = ("bool", *NUMERIC)


def random(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> Array:
    """Floats from a normal distribution; integers small enough that no sum here overflows."""
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype.startswith("uint"):
        return rng.integers(0, 3, shape).astype(dtype)
    if dtype.startswith("int"):
        return rng.integers(-2, 3, shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def run_onnx_node(op_type: str, inputs: list[Array], opset: int = 17, **attrs: Any) -> Array:
    """Run one ONNX node on ``inputs`` with onnxruntime and return its first output."""
    names = [f"x{i}" for i in range(len(inputs))]
    node = helper.make_node(op_type, names, ["y"], **attrs)
    elem = helper.np_dtype_to_tensor_dtype(inputs[0].dtype)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
            for name, a in zip(names, inputs, strict=True)
        ],
        [helper.make_tensor_value_info("y", elem, None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    out: Array = session.run(None, dict(zip(names, inputs, strict=True)))[0]
    return out


X = T(1, 3, 8, 8)


RNG_SEED = 20240607


SEEDS = st.integers(0, 2**32 - 1)


shapes = st.lists(st.integers(0, 3), min_size=1, max_size=4).map(tuple)


RNG_SEED_2 = 20240611


SEED_RANGE = range(3)


def pick(draw: st.DrawFn, values: tuple[str, ...]) -> str:
    return draw(st.sampled_from(values))


def ref_checked(name: str, *args: Array, attrs: Attrs | None = None) -> Array:
    op = lookup(name)
    assert op is not None and op.reference is not None
    out = op.reference(args, attrs)
    assert isinstance(out, np.ndarray)
    # The reference's type is the one the relation predicts.
    predicted = rel(name, *(T(*a.shape, dtype=str(a.dtype)) for a in args), attrs=attrs)
    assert predicted == T(*out.shape, dtype=str(out.dtype)), (predicted, out.shape, out.dtype)
    return out


def assert_agrees(
    name: str, args: tuple[Array, ...], attrs: Attrs | None, *, defined: bool = True
) -> None:
    """The reference's dtype and shape are those the relation predicts (or, for a case the
    spec leaves undefined, the relation accepts it and the reference says so)."""
    types = tuple(TensorType(a.shape, str(a.dtype)) for a in args)
    predicted = rel(name, *types, attrs=attrs)
    if not defined:
        with pytest.raises(UndefinedBehavior):
            ref(name, *args, attrs=attrs)
        return
    result = ref(name, *args, attrs=attrs)
    if isinstance(predicted, TupleType):
        assert isinstance(result, tuple) and len(result) == len(predicted.fields)
        pairs = list(zip(predicted.fields, result, strict=True))
    else:
        pairs = [(predicted, result)]
    for t, value in pairs:
        assert isinstance(t, TensorType) and isinstance(value, np.ndarray)
        assert value.shape == t.shape, (name, attrs, value.shape, t.shape)
        assert str(value.dtype) == t.dtype, (name, attrs, value.dtype, t.dtype)


def check_record(name: str, record: tuple[str, str, OpPattern]) -> None:
    """``name``'s registry record has ``record``'s relation name, check and pattern, an ``nn/``
    family, a relation, a reference, and an attributes class with TVM's type key."""
    op = OPS[name]
    relation_name, check, pattern = record
    assert op.relation_name == relation_name and op.check == check and op.pattern is pattern
    assert op.family.startswith("nn/") and op.relation is not None and op.reference is not None
    assert op.attrs_type is not None
    assert op.attrs_type.type_key == f"relay.attrs.{op.attrs_type.__name__}"
