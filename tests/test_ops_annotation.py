"""The ``annotation`` operators (``semantics/ops/annotation.py``): relations and references."""

from __future__ import annotations

import numpy as np
import pytest

import relay
from relay.semantics.ops import OPS
from relay.semantics.ops.annotation import DeviceCopyAttrs, OnDeviceAttrs
from relay.semantics.ops.registry import RelationError
from relay.semantics.syntax import TupleType
from relay.semantics.values import TensorValue, TupleValue

pytest.importorskip("onnxruntime")
from ops_helpers import Array, check_text_round_trip, n, of_family, raises, relate, run, same, t

_CALLS = [
    ("annotation.stop_fusion", "float32", ""),
    (
        "on_device",
        "float32",
        ', device_type=2, virtual_device_id=1, memory_scope="global", '
        "constrain_result=True, constrain_body=False",
    ),
    (
        "device_copy",
        "int8",
        ", src_dev_type=1, src_virtual_device_id=0, dst_dev_type=2, "
        'dst_virtual_device_id=3, dst_memory_scope="global"',
    ),
]


RNG = np.random.default_rng(20241129)


def _random(shape: tuple[int, ...], dtype: str, low: float = -4, high: float = 4) -> Array:
    if dtype == "bool":
        return RNG.integers(0, 2, shape).astype(bool)
    if dtype.startswith(("int", "uint")):
        return RNG.integers(int(low), int(high), shape, endpoint=True).astype(dtype)
    return RNG.uniform(low, high, shape).astype(dtype)


def test_annotation_relations() -> None:
    tensor, pair = t((2, n), "int8"), TupleType((t((2,)), t((), "bool")))
    device = OnDeviceAttrs(device_type=2, virtual_device_id=0)
    for value in (tensor, pair):
        assert relate("annotation.stop_fusion", value) == value
        assert relate("on_device", value, attrs=device) == value
        copy = DeviceCopyAttrs(src_dev_type=1, dst_dev_type=2)
        assert relate("device_copy", value, attrs=copy) == value
    unconstrained = OnDeviceAttrs(constrain_body=False)
    assert relate("on_device", tensor, attrs=unconstrained) == tensor
    assert relate("on_device", tensor, attrs=OnDeviceAttrs(memory_scope="global")) == tensor
    with raises(RelationError, "on_device: constrain_body=True needs a device"):
        relate("on_device", tensor, attrs=OnDeviceAttrs())
    with raises(RelationError, "on_device: constrain_result=True needs a device"):
        relate("on_device", tensor, attrs=OnDeviceAttrs(constrain_result=True))
    with raises(RelationError, "device_type=5 is not a device type (expected one of -1, 1, 2"):
        relate("on_device", tensor, attrs=OnDeviceAttrs(device_type=5))
    with raises(RelationError, "virtual_device_id=-2 is not a virtual device id"):
        relate("on_device", tensor, attrs=OnDeviceAttrs(device_type=1, virtual_device_id=-2))
    with raises(RelationError, "device_copy: the src device is fully unconstrained"):
        relate("device_copy", tensor, attrs=DeviceCopyAttrs(dst_dev_type=1))
    with raises(RelationError, "dst_dev_type=0 is not a device type"):
        relate("device_copy", tensor, attrs=DeviceCopyAttrs(src_dev_type=1, dst_dev_type=0))


def test_annotations_are_the_identity() -> None:
    x = _random((2, 3), "float32")
    for name, attrs in [
        ("annotation.stop_fusion", None),
        ("on_device", OnDeviceAttrs(device_type=1)),
        ("device_copy", DeviceCopyAttrs(src_dev_type=1, dst_dev_type=2)),
    ]:
        same(run(name, x, attrs=attrs), x)
        reference = OPS[name].reference
        assert reference is not None
        # A tuple argument arrives as a tuple of arrays (as the evaluator passes it).
        fields = reference(((x, np.array(True)),), attrs)  # type: ignore[arg-type]
        assert isinstance(fields, tuple)
        same(fields[0], x)
        same(fields[1], np.array(True))


@pytest.mark.parametrize(("name", "dtype", "attrs"), of_family(_CALLS, "annotation"))
def test_calls_round_trip_through_the_text_format(name: str, dtype: str, attrs: str) -> None:
    check_text_round_trip(name, dtype, attrs)


@pytest.mark.parametrize("engine", ["spec", "interpreter"])
def test_annotations_evaluate_to_their_argument(engine: str) -> None:
    text = """#[version = "0.0.5"]
def @main(%x: Tensor[(2), float32], %y: Tensor[(), int8]) {
  %0 = annotation.stop_fusion(%x);
  %1 = (%0, %y);
  %2 = device_copy(%1, src_dev_type=1, dst_dev_type=2, dst_virtual_device_id=0);
  on_device(%2, device_type=2, constrain_result=True)
}
"""
    x, y = np.array([1.5, -2.0], "float32"), np.array(7, "int8")
    value = relay.evaluate(relay.parse(text), x, y, engine=engine)
    assert isinstance(value, TupleValue)
    fields = [f.data for f in value.fields if isinstance(f, TensorValue)]
    same(fields[0], x)
    same(fields[1], y)


def test_placements_take_any_type_and_stop_fusion_only_tensors() -> None:
    """TVM's IdentityRel: on_device and device_copy place closures, references and ADTs."""
    import relay
    from relay.semantics.text.printer import format_type

    ok = relay.parse(
        "def @main(%x: float32) { on_device(ref(%x), device_type=1, constrain_result=True) }"
    )
    assert format_type(relay.infer_types(ok).global_type("main")) == "fn (float32) -> ref(float32)"
    bad = relay.parse("def @main(%x: float32) { annotation.stop_fusion(ref(%x)) }")
    with pytest.raises(relay.RelayTypeError, match="Identity"):
        relay.infer_types(bad)
