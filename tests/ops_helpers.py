"""Helpers shared by the operator tests (``tests/test_ops_*.py``)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, TypeVar

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import relay
from relay.semantics.equality import alpha_equal
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS, Attrs, lookup
from relay.semantics.ops.elementwise import CastAttrs, ClipAttrs
from relay.semantics.ops.nn.activation import LeakyReluAttrs
from relay.semantics.ops.registry import RelationError, Tensor
from relay.semantics.syntax import DTYPES, Dim, TensorType, TupleType, Type, dim_symbol

C = TypeVar("C")

Array = npt.NDArray[Any]
"""An array of any element type."""

FLOATS = ("float16", "float32", "float64")
SIGNED = ("int8", "int16", "int32", "int64")
UNSIGNED = ("uint8", "uint16", "uint32", "uint64")
INTEGERS = SIGNED + UNSIGNED
INTS = INTEGERS
NUMERIC = FLOATS + INTS
"""Dtype groups: float, signed, unsigned, every integer (``INTS`` is ``INTEGERS``), numeric."""

n = dim_symbol("n")
m = dim_symbol("m")
h = dim_symbol("h")
w = dim_symbol("w")
"""Symbolic dimensions."""


def _op_name(case: object) -> str | None:
    """The operator a parametrization case names: the case itself or its first op name."""
    values = getattr(case, "values", None)  # a pytest.param
    if values is not None:
        case = values
    items = case if isinstance(case, tuple) else (case,)
    for item in items:
        if isinstance(item, str) and item in OPS:
            return item
    return None


def of_family(cases: Iterable[C] | Mapping[Any, Any], family: str) -> list[C]:
    """The cases of ``cases`` whose operator is of ``family`` (``OpDef.family``).

    A case is an operator name, or a tuple (or ``pytest.param``) whose first operator name
    says its operator; a mapping's keys are its cases.
    """
    out = []
    for case in cases:
        name = _op_name(case)
        if name is not None and OPS[name].family == family:
            out.append(case)
    return out


def t(shape: tuple[Dim, ...], dtype: str = "float32") -> TensorType:
    return TensorType(shape, dtype)


def relate(name: str, *types: Type, attrs: Attrs | None = None) -> Type:
    relation = OPS[name].relation
    assert relation is not None
    return relation(types, attrs)


def a(values: object, dtype: str = "int64") -> Tensor:
    return np.asarray(values, dtype=dtype)


def run(name: str, *args: npt.ArrayLike, attrs: Attrs | None = None) -> Array:
    reference = OPS[name].reference
    assert reference is not None
    with np.errstate(all="ignore"):
        out = reference(tuple(np.asarray(a) for a in args), attrs)
    assert isinstance(out, np.ndarray)
    return out


def raises(error: type[Exception], text: str) -> pytest.RaisesExc[Exception]:
    """``pytest.raises`` matching ``text`` literally."""
    return pytest.raises(error, match=re.escape(text))


def same(actual: Array, expected: Array) -> None:
    """Equal dtype, shape and values (NaN equal to NaN; the sign of zero compared)."""
    assert actual.dtype == expected.dtype
    assert actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected, strict=True)
    if actual.dtype.kind == "f":
        numbers = ~np.isnan(expected)
        assert np.array_equal(np.signbit(actual[numbers]), np.signbit(expected[numbers]))


BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift")


NAMES: tuple[str, ...] = (
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
    "logical_not",
    "nn.relu",
    "zeros_like",
    "ones_like",
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
    "clip",
    "cast",
    "nn.leaky_relu",
    "where",
    "full_like",
)


UNARY_FLOAT = ("exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid")


ARITHMETIC = (
    "add",
    "subtract",
    "multiply",
    "divide",
    "floor_divide",
    "mod",
    "floor_mod",
    "maximum",
    "minimum",
)


COMPARISONS = ("equal", "not_equal", "less", "less_equal", "greater", "greater_equal")


DIVISIONS = ("divide", "floor_divide", "mod", "floor_mod")


_ONNX_TYPES = {
    "bool": 9,
    "int8": 3,
    "int16": 5,
    "int32": 6,
    "int64": 7,
    "uint8": 2,
    "float16": 10,
    "float32": 1,
    "float64": 11,
}


_FLOAT_WIDTHS: dict[str, Literal[16, 32, 64]] = {"float16": 16, "float32": 32, "float64": 64}


def run_onnx_node_typed(
    op_type: str, inputs: list[Array], out_dtype: str, **attributes: Any
) -> Array:
    """Run one ONNX node on ``inputs`` with onnxruntime (the test is skipped where onnx or
    onnxruntime is not installed)."""
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    helper = onnx.helper
    names = [f"x{i}" for i in range(len(inputs))]
    node = helper.make_node(op_type, names, ["y"], **attributes)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info(name, _ONNX_TYPES[a.dtype.name], a.shape)
            for name, a in zip(names, inputs, strict=True)
        ],
        [helper.make_tensor_value_info("y", _ONNX_TYPES[out_dtype], None)],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (out,) = session.run(None, dict(zip(names, inputs, strict=True)))
    return np.asarray(out)


def _element_range(
    dtype: str, *, nonzero: bool = False, nonnegative: bool = False
) -> st.SearchStrategy[Any]:
    """Small values of ``dtype`` that keep every op of the family clear of overflow."""
    if dtype == "bool":
        return st.just(True) if nonzero else st.booleans()
    if dtype.startswith(("int", "uint")):
        low = 0 if dtype.startswith("uint") or nonnegative else -3
        values = st.integers(low, 3)
        return values.filter(bool) if nonzero else values
    return st.floats(0 if nonnegative else -3, 3, width=_FLOAT_WIDTHS[dtype])


@st.composite
def _broadcastable(draw: st.DrawFn, base: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts to ``base``: a suffix of it, some dimensions replaced by 1."""
    rank = draw(st.integers(0, len(base)))
    return tuple(draw(st.sampled_from((d, 1))) for d in base[len(base) - rank :])


def _array(draw: st.DrawFn, dtype: str, shape: tuple[int, ...], **kinds: bool) -> Array:
    return draw(hnp.arrays(np.dtype(dtype), shape, elements=_element_range(dtype, **kinds)))


def _is_float(dtype: str) -> bool:
    return dtype.startswith("float")


def _attrs_for(draw: st.DrawFn, name: str, dtype: str) -> Attrs | None:
    if name == "cast":
        return CastAttrs(draw(st.sampled_from(DTYPES)))
    bound = _element_range("float64" if _is_float(dtype) else dtype, nonnegative=True)
    if name == "clip":
        low, high = sorted([float(draw(bound)), float(draw(bound))])
        return ClipAttrs(low, high)
    if name == "nn.leaky_relu":
        return LeakyReluAttrs(float(draw(bound)))
    return None


def accepted_dtypes(name: str) -> tuple[str, ...]:
    """The dtypes an op's operands may have."""
    if name in UNARY_FLOAT or name == "power":
        return FLOATS
    if name in ("logical_and", "logical_or", "logical_not"):
        return ("bool",)
    return DTYPES


@st.composite
def _valid_call(draw: st.DrawFn, name: str) -> tuple[tuple[Array, ...], Attrs | None]:
    """Arguments and attributes that the relation of ``name`` accepts and that stay defined."""
    op = OPS[name]
    dtype = draw(st.sampled_from(accepted_dtypes(name)))
    base = tuple(draw(st.lists(st.integers(0, 3), max_size=3)))
    attrs = _attrs_for(draw, name, dtype)
    target = attrs.dtype if isinstance(attrs, CastAttrs) else dtype
    # Values that keep clear of the undefined cases: no zero divisors, no negative unsigned
    # results, no negative floats cast to unsigned.
    unsigned_target = target.startswith("uint") or target == "bool"
    args: list[Array]
    if op.inputs == ("lhs", "rhs"):
        lhs = _array(draw, dtype, draw(_broadcastable(base)), nonnegative=name == "subtract")
        rhs_kinds = {"nonzero": name in DIVISIONS, "nonnegative": name == "subtract"}
        rhs = _array(draw, dtype, draw(_broadcastable(base)), **rhs_kinds)
        if name == "subtract" and dtype.startswith("uint"):
            lhs, rhs = np.maximum(lhs, rhs), np.minimum(lhs, rhs)
        args = [lhs, rhs]
    elif name == "where":
        condition_dtype = draw(st.sampled_from(DTYPES))
        args = [
            _array(draw, condition_dtype, draw(_broadcastable(base))),
            _array(draw, dtype, draw(_broadcastable(base))),
            _array(draw, dtype, draw(_broadcastable(base))),
        ]
    elif name == "full_like":
        fill_dtype = draw(st.sampled_from(DTYPES))
        args = [
            _array(draw, dtype, base),
            _array(draw, fill_dtype, (), nonnegative=dtype.startswith("uint")),
        ]
    else:
        nonnegative = (name == "negative" and dtype in ("uint32", "uint64")) or (
            unsigned_target and name == "cast"
        )
        data = _array(draw, dtype, base, nonnegative=nonnegative)
        if name == "negative" and dtype in ("uint32", "uint64"):
            data = np.zeros_like(data)
        args = [data]
    return tuple(args), attrs


UNARY_ANY = ("negative", "abs", "floor", "ceil", "round", "nn.relu", "zeros_like", "ones_like")


def Tup(*fields: Type) -> TupleType:
    return TupleType(tuple(fields))


def assert_same(actual: Tensor, expected: object) -> None:
    expected = np.asarray(expected, dtype=actual.dtype)
    assert actual.shape == expected.shape
    np.testing.assert_array_equal(actual, expected)


def ints(*values: int) -> Tensor:
    return np.array(values, dtype=np.int64)


dtypes = st.sampled_from(DTYPES)


def array(shape: Sequence[int], dtype: str, seed: int, low: int = 0, high: int = 5) -> Tensor:
    values = np.random.default_rng(seed).integers(low, high, size=tuple(shape))
    return values.astype(dtype)


def T(*shape: Dim, dtype: str = "float32") -> TensorType:
    return TensorType(tuple(shape), dtype)


FAST = settings(max_examples=15, deadline=None)


def same_values(actual: Tensor, expected: object) -> None:
    e = np.asarray(expected, dtype=actual.dtype)
    assert actual.shape == e.shape
    np.testing.assert_array_equal(actual, e)


def arange(*shape: int, dtype: str = "float32") -> Tensor:
    return np.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)


small_shapes = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)


seeds = st.integers(0, 2**16)


def rand(shape: Sequence[int], seed: int, dtype: str = "float32") -> Tensor:
    return np.random.default_rng(seed).integers(-5, 6, size=tuple(shape)).astype(dtype)


seeds32 = st.integers(0, 2**32 - 1)


def rel(name: str, *types: Type, attrs: Attrs | None = None) -> Type:
    op = lookup(name)
    assert op is not None and op.relation is not None
    return op.relation(types, attrs)


def ref(name: str, *args: Array, attrs: Attrs | None = None) -> Any:
    op = lookup(name)
    assert op is not None and op.reference is not None
    return op.reference(args, attrs)


def tensor_t(shape: Sequence[Dim], dtype: str = "float32") -> TensorType:
    return TensorType(tuple(shape), dtype)


def op_rel(op: str, attrs: Attrs | None, *args: Type) -> Type:
    relation = OPS[op].relation
    assert relation is not None
    return relation(tuple(args), attrs)


def op_ref(op: str, attrs: Attrs | None, *args: object) -> Tensor | tuple[Tensor, ...]:
    reference = OPS[op].reference
    assert reference is not None
    return reference(tuple(args), attrs)  # type: ignore[arg-type]


def tref(op: str, attrs: Attrs | None, *args: object) -> Tensor:
    out = op_ref(op, attrs, *args)
    assert not isinstance(out, tuple)
    return out


def bad(op: str, attrs: Attrs | None, message: str, *args: Type) -> None:
    with pytest.raises(RelationError, match=message):
        op_rel(op, attrs, *args)


def tensor_ref(op: str, attrs: Attrs | None, *args: object) -> Tensor:
    out = op_ref(op, attrs, *args)
    assert isinstance(out, np.ndarray)
    return out


def run_onnx(
    op_type: str,
    inputs: Sequence[Tensor],
    outputs: int = 1,
    opset: int = 17,
    **attributes: Any,
) -> list[Tensor]:
    onnx = pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    from onnx import helper

    names = [f"x{i}" for i in range(len(inputs))]
    out_names = [f"y{i}" for i in range(outputs)]
    graph = helper.make_graph(
        [helper.make_node(op_type, names, out_names, **attributes)],
        "g",
        [
            helper.make_tensor_value_info(
                name, helper.np_dtype_to_tensor_dtype(a.dtype), list(a.shape)
            )
            for name, a in zip(names, inputs, strict=True)
        ],
        [helper.make_empty_tensor_value_info(name) for name in out_names],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    session = ort.InferenceSession(
        onnx._serialize(model) if hasattr(onnx, "_serialize") else model.SerializeToString(),
        providers=["CPUExecutionProvider"],
    )
    result: list[Tensor] = session.run(out_names, dict(zip(names, inputs, strict=True)))
    return result


def check_agreement(op: str, attrs: Attrs | None, *args: Tensor | tuple[Tensor, ...]) -> None:
    """The reference's dtype and shape are the relation's, on the argument arrays' types."""

    def type_of(a: Tensor | tuple[Tensor, ...]) -> Type:
        if isinstance(a, tuple):
            return TupleType(tuple(type_of(f) for f in a))
        return TensorType(tuple(int(d) for d in a.shape), a.dtype.name)

    predicted = op_rel(op, attrs, *(type_of(a) for a in args))
    out = op_ref(op, attrs, *args)
    assert type_of(out) == predicted


def typ(a: object) -> Type:
    if isinstance(a, tuple):
        return TupleType(tuple(typ(f) for f in a))
    assert isinstance(a, np.ndarray)
    return tensor_t(a.shape, a.dtype.name)


def shape_of(op: str, attrs: Attrs | None, *args: Type) -> tuple[Dim, ...]:
    t = op_rel(op, attrs, *args)
    assert isinstance(t, TensorType)
    return t.shape


def check_text_round_trip(name: str, dtype: str, attrs: str) -> None:
    """The call of ``name`` on a ``dtype`` tensor with ``attrs`` (text) parses, prints, parses
    again to an alpha-equal module printed alike, and type-checks."""
    args = "%x, %x" if name in ("variance", "bitwise_xor") else "%x"
    text = (
        '#[version = "0.0.5"]\n'
        f"def @main(%x: Tensor[(2, 3), {dtype}]) {{\n  {name}({args}{attrs})\n}}\n"
    )
    mod = relay.parse(text)
    printed = relay.astext(mod)
    again = relay.parse(printed)
    assert alpha_equal(mod, again)
    assert relay.astext(again) == printed
    relay.infer_types(mod)


def check_reference_agrees_with_relation(name: str, data: st.DataObject) -> None:
    """On a drawn valid call of ``name``, the reference's dtype and shape are the relation's."""
    op = OPS[name]
    assert op.relation is not None and op.reference is not None
    args, attrs = data.draw(_valid_call(name))
    types = tuple(TensorType(a.shape, a.dtype.name) for a in args)
    predicted = op.relation(types, attrs)
    assert isinstance(predicted, TensorType)
    out = op.reference(args, attrs)
    assert isinstance(out, np.ndarray)
    assert (out.shape, out.dtype.name) == (predicted.shape, predicted.dtype)


def assert_agrees_tensor(
    name: str, args: tuple[Array, ...], attrs: Attrs | None, *, defined: bool = True
) -> Array | None:
    """The reference's dtype and shape are what the relation predicts (or, for a case the
    spec leaves undefined, the relation accepts it and the reference says so)."""
    predicted = rel(name, *(TensorType(a.shape, str(a.dtype)) for a in args), attrs=attrs)
    if not defined:
        with pytest.raises(UndefinedBehavior):
            ref(name, *args, attrs=attrs)
        return None
    result = ref(name, *args, attrs=attrs)
    assert isinstance(predicted, TensorType) and isinstance(result, np.ndarray)
    assert result.shape == predicted.shape, (name, attrs, result.shape, predicted.shape)
    assert str(result.dtype) == predicted.dtype, (name, attrs, result.dtype, predicted.dtype)
    return result
