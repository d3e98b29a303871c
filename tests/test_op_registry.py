"""The core operator set: every op is registered, and its attributes match TVM 0.18's."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

import relay.semantics.ops
from relay.semantics.ops import OPS, AttrError, AttrKind, Attrs, OpPattern, lookup
from relay.semantics.ops.elementwise import CastAttrs, ClipAttrs
from relay.semantics.ops.index import StridedSliceAttrs, TakeAttrs
from relay.semantics.ops.nn.conv import Conv2DAttrs
from relay.semantics.ops.nn.pool import MaxPool2DAttrs
from relay.semantics.ops.reduce import ArgReduceAttrs, ReduceAttrs
from relay.semantics.ops.shape import ReshapeAttrs

CORE_OPS = (
    # elementwise
    "add",
    "subtract",
    "multiply",
    "divide",
    "floor_divide",
    "mod",
    "floor_mod",
    "power",
    "maximum",
    "minimum",
    "equal",
    "not_equal",
    "less",
    "less_equal",
    "greater",
    "greater_equal",
    "logical_and",
    "logical_or",
    "logical_not",
    "negative",
    "abs",
    "exp",
    "log",
    "sqrt",
    "rsqrt",
    "tanh",
    "sigmoid",
    "floor",
    "ceil",
    "round",
    "clip",
    "cast",
    "where",
    "nn.relu",
    "nn.leaky_relu",
    "zeros_like",
    "ones_like",
    "full_like",
    # reduce
    "sum",
    "mean",
    "max",
    "min",
    "prod",
    "argmax",
    "argmin",
    # transform
    "reshape",
    "transpose",
    "concatenate",
    "stack",
    "split",
    "expand_dims",
    "squeeze",
    "take",
    "strided_slice",
    "broadcast_to",
    "zeros",
    "ones",
    "full",
    # nn
    "nn.softmax",
    "nn.log_softmax",
    "nn.dense",
    "nn.bias_add",
    "nn.batch_flatten",
    "nn.conv2d",
    "nn.max_pool2d",
    "nn.avg_pool2d",
    "nn.global_avg_pool2d",
    "nn.batch_norm",
    "nn.dropout",
    "nn.pad",
)


OPS_DIR = Path(relay.semantics.ops.__file__).parent


def _family_modules() -> set[str]:
    """Every operator module below ``semantics/ops`` as a family name (``nn/conv``)."""
    framework = {"__init__", "registry", "shapes", "nn/__init__", "nn/common"}
    found = {str(p.relative_to(OPS_DIR).with_suffix("")) for p in OPS_DIR.rglob("*.py")}
    return found - framework


def test_the_registry_holds_the_whole_library() -> None:
    """The operator-library issue's bar: at least 180 operators, each in a family module."""
    assert len(OPS) >= 180
    assert {op.family for op in OPS.values()} == _family_modules()
    assert set(CORE_OPS) <= set(OPS)


PREFIXES = {
    "nn.": "nn/",
    "qnn.": "qnn",
    "dyn.": "dyn",
    "image.": "image",
    "annotation.": "annotation",
    "vm.": "vm",
}
"""The name prefixes that say an operator's family (or, for ``nn.``, the family's folder)."""


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_name_predicts_its_family(name: str) -> None:
    op = OPS[name]
    prefix = name.split(".", 1)[0] + "." if "." in name else ""
    if prefix:
        assert op.family.startswith(PREFIXES[prefix]), f"{name} is in {op.family}"
    else:
        assert not op.family.startswith(("nn/", "dyn", "image")), f"{name} is in {op.family}"


TESTS_DIR = Path(__file__).parent

NOT_AN_OP_FAMILY = {"test_ops_cli.py"}
"""``tests/test_ops_*.py`` files that test no family (``relay ops``, the command)."""


def op_test_file(family: str) -> Path:
    """The test file an op family's name predicts: ``nn/conv`` is ``tests/test_ops_nn_conv.py``."""
    return TESTS_DIR / f"test_ops_{family.replace('/', '_')}.py"


def test_every_family_has_its_test_file() -> None:
    missing = sorted(f for f in _family_modules() if not op_test_file(f).is_file())
    assert not missing, f"families without a tests/test_ops_<family>.py: {missing}"


def test_every_op_test_file_has_its_family() -> None:
    predicted = {op_test_file(f).name for f in _family_modules()}
    found = {p.name for p in TESTS_DIR.glob("test_ops_*.py")} - NOT_AN_OP_FAMILY
    assert not found - predicted, f"op test files of no family: {sorted(found - predicted)}"


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_has_an_independent_check(name: str) -> None:
    """An ``onnxruntime:<Op>`` check runs ``<Op>`` in the op's own family's test file."""
    op = OPS[name]
    kind, _, what = op.check.partition(":")
    assert kind in ("onnxruntime", "independent") and what.strip(), f"{name}: {op.check!r}"
    if kind == "onnxruntime":
        path = op_test_file(op.family)
        tests = path.read_text() if path.is_file() else ""
        assert f'"{what}"' in tests, f"{name}: no onnxruntime run of {what} in {path.name}"


def defaults(attrs_type: type[Attrs]) -> dict[str, object]:
    """The default of every optional field; required fields are absent."""
    return {s.name: s.default for s in attrs_type.field_specs() if not s.required}


def required(attrs_type: type[Attrs]) -> list[str]:
    """The names of the required fields, in declaration order."""
    return [s.name for s in attrs_type.field_specs() if s.required]


def names(attrs_type: type[Attrs]) -> list[str]:
    """Every field name, in declaration order."""
    return [s.name for s in attrs_type.field_specs()]


@pytest.mark.parametrize("name", CORE_OPS)
def test_core_op_is_registered(name: str) -> None:
    op = lookup(name)
    assert op is not None, f"{name} is not registered"
    assert op.name == name
    assert op.doc and "\n" not in op.doc


def test_core_set_lists_each_op_once() -> None:
    assert len(set(CORE_OPS)) == len(CORE_OPS)
    assert set(CORE_OPS) <= set(OPS)


@pytest.mark.parametrize("name", CORE_OPS)
def test_attrs_class_is_a_frozen_dataclass_with_a_tvm_type_key(name: str) -> None:
    attrs_type = OPS[name].attrs_type
    if attrs_type is None:
        return
    assert dataclasses.is_dataclass(attrs_type)
    assert attrs_type.__dataclass_params__.frozen
    assert attrs_type.type_key == f"relay.attrs.{attrs_type.__name__}"
    assert attrs_type.__doc__ and "\n" not in attrs_type.__doc__.strip()
    for spec in attrs_type.field_specs():
        assert isinstance(spec.kind, AttrKind)
        assert spec.doc, f"{attrs_type.__name__}.{spec.name} has no doc"


def test_conv2d_attrs_match_tvm() -> None:
    op = OPS["nn.conv2d"]
    assert op.inputs == ("data", "weight")
    assert op.attrs_type is Conv2DAttrs
    assert op.pattern is OpPattern.OUT_ELEMWISE_FUSABLE
    assert names(Conv2DAttrs) == [
        "strides",
        "padding",
        "dilation",
        "groups",
        "channels",
        "kernel_size",
        "data_layout",
        "kernel_layout",
        "out_layout",
        "out_dtype",
    ]
    assert required(Conv2DAttrs) == []
    assert defaults(Conv2DAttrs) == {
        "strides": (1, 1),
        "padding": (0, 0),
        "dilation": (1, 1),
        "groups": 1,
        "channels": None,
        "kernel_size": None,
        "data_layout": "NCHW",
        "kernel_layout": "OIHW",
        "out_layout": "",
        "out_dtype": "",
    }
    assert Conv2DAttrs.from_kwargs({}) == Conv2DAttrs()


def test_max_pool2d_attrs_match_tvm() -> None:
    assert OPS["nn.max_pool2d"].attrs_type is MaxPool2DAttrs
    assert names(MaxPool2DAttrs) == [
        "pool_size",
        "strides",
        "dilation",
        "padding",
        "layout",
        "out_layout",
        "ceil_mode",
    ]
    assert required(MaxPool2DAttrs) == ["pool_size"]
    assert defaults(MaxPool2DAttrs) == {
        "strides": (1, 1),
        "dilation": (1, 1),
        "padding": (0, 0),
        "layout": "NCHW",
        "out_layout": "",
        "ceil_mode": False,
    }
    avg_pool2d = OPS["nn.avg_pool2d"].attrs_type
    assert avg_pool2d is not None
    assert names(avg_pool2d) == [*names(MaxPool2DAttrs), "count_include_pad"]
    assert defaults(avg_pool2d)["count_include_pad"] is False


def test_sum_attrs_match_tvm_and_are_shared_by_the_reductions() -> None:
    assert names(ReduceAttrs) == ["axis", "keepdims", "exclude"]
    assert defaults(ReduceAttrs) == {"axis": None, "keepdims": False, "exclude": False}
    for name in ("sum", "mean", "max", "min", "prod"):
        assert OPS[name].attrs_type is ReduceAttrs
        assert OPS[name].pattern is OpPattern.COMM_REDUCE
    assert names(ArgReduceAttrs) == ["axis", "keepdims", "select_last_index", "exclude"]
    assert OPS["argmax"].attrs_type is OPS["argmin"].attrs_type is ArgReduceAttrs


def test_reshape_attrs_match_tvm() -> None:
    assert names(ReshapeAttrs) == ["newshape", "allowzero"]
    assert required(ReshapeAttrs) == ["newshape"]
    assert defaults(ReshapeAttrs) == {"allowzero": False}
    assert ReshapeAttrs.from_kwargs({"newshape": (2, -1)}) == ReshapeAttrs(newshape=(2, -1))


def test_take_attrs_match_tvm() -> None:
    assert OPS["take"].inputs == ("data", "indices")
    assert names(TakeAttrs) == ["batch_dims", "axis", "mode"]
    assert defaults(TakeAttrs) == {"batch_dims": 0, "axis": None, "mode": "clip"}


def test_strided_slice_attrs_match_tvm() -> None:
    # TVM gives begin, end, strides and axes no default: nullable, yet required.
    assert names(StridedSliceAttrs) == ["begin", "end", "strides", "slice_mode", "axes"]
    assert required(StridedSliceAttrs) == ["begin", "end", "strides", "axes"]
    assert defaults(StridedSliceAttrs) == {"slice_mode": "end"}
    attrs = StridedSliceAttrs.from_kwargs(
        {"begin": (0,), "end": (2,), "strides": None, "axes": None}
    )
    assert attrs == StridedSliceAttrs(begin=(0,), end=(2,), strides=None, axes=None)


def test_cast_and_clip_attrs_match_tvm() -> None:
    assert names(CastAttrs) == ["dtype"]
    assert required(CastAttrs) == ["dtype"]
    assert CastAttrs.field_specs()[0].kind is AttrKind.DTYPE
    assert names(ClipAttrs) == ["a_min", "a_max"]
    assert required(ClipAttrs) == ["a_min", "a_max"]
    assert ClipAttrs.from_kwargs({"a_min": 0, "a_max": 6.0}) == ClipAttrs(a_min=0.0, a_max=6.0)


def test_from_kwargs_rejects_an_unknown_key() -> None:
    with pytest.raises(AttrError) as info:
        Conv2DAttrs.from_kwargs({"stride": (2, 2)})
    assert info.value.key == "stride"
    assert "'stride'" in info.value.message


@pytest.mark.parametrize(
    ("attrs_type", "valid", "key", "value"),
    [
        (Conv2DAttrs, {}, "groups", "two"),
        (Conv2DAttrs, {}, "strides", 2),
        (Conv2DAttrs, {}, "channels", True),
        (ReduceAttrs, {}, "keepdims", 2),
        (CastAttrs, {}, "dtype", "float31"),
        (ClipAttrs, {"a_max": 6.0}, "a_min", "zero"),
        (ReshapeAttrs, {}, "newshape", None),
        (TakeAttrs, {}, "mode", 1),
    ],
)
def test_from_kwargs_rejects_a_value_of_the_wrong_kind(
    attrs_type: type[Attrs], valid: dict[str, object], key: str, value: object
) -> None:
    with pytest.raises(AttrError) as info:
        attrs_type.from_kwargs({key: value, **valid})
    assert info.value.key == key
    assert f"'{key}'" in info.value.message


@pytest.mark.parametrize(
    ("attrs_type", "kwargs", "missing"),
    [
        (MaxPool2DAttrs, {"strides": (2, 2)}, "pool_size"),
        (ReshapeAttrs, {"allowzero": True}, "newshape"),
        (CastAttrs, {}, "dtype"),
        (ClipAttrs, {"a_min": 0.0}, "a_max"),
        (StridedSliceAttrs, {"begin": (0,), "end": (1,), "strides": (1,)}, "axes"),
    ],
)
def test_from_kwargs_rejects_a_missing_required_field(
    attrs_type: type[Attrs], kwargs: dict[str, object], missing: str
) -> None:
    with pytest.raises(AttrError) as info:
        attrs_type.from_kwargs(kwargs)
    assert info.value.key == missing
    assert f"'{missing}'" in info.value.message


def test_non_default_items_yields_changed_fields_in_declaration_order() -> None:
    # Given out of order, and with groups set to its default: that one is not yielded.
    attrs = Conv2DAttrs.from_kwargs(
        {"out_dtype": "float16", "groups": 1, "channels": 8, "strides": (2, 2)}
    )
    assert list(attrs.non_default_items()) == [
        ("strides", (2, 2)),
        ("channels", 8),
        ("out_dtype", "float16"),
    ]
    assert list(Conv2DAttrs().non_default_items()) == []


def test_non_default_items_always_yields_required_fields() -> None:
    attrs = MaxPool2DAttrs.from_kwargs({"ceil_mode": True, "pool_size": (3, 3)})
    assert list(attrs.non_default_items()) == [("pool_size", (3, 3)), ("ceil_mode", True)]
    sliced = StridedSliceAttrs(begin=(0,), end=(1,), strides=(1,), axes=None)
    assert [key for key, _ in sliced.non_default_items()] == ["begin", "end", "strides", "axes"]


def test_non_default_items_tells_true_from_one() -> None:
    attrs = ReduceAttrs.from_kwargs({"keepdims": True, "exclude": False})
    assert list(attrs.non_default_items()) == [("keepdims", True)]
