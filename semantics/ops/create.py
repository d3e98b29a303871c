"""Operators that create tensors from a shape and a value: zeros, ones, full, arange, *_like.

::

    zeros | ones(shape=, dtype="")          no inputs           InitOpAttrs    InitOp    elemwise
    full(fill_value, shape=, dtype="")                          InitOpAttrs    Full      elemwise
    zeros_like | ones_like(data)            any dtype                          Identity  elemwise
    full_like(data, fill_value)                                                FullLike  elemwise
    arange(start, stop, step, dtype=)                           ArangeAttrs    Arange    opaque

``InitOpAttrs.shape`` is nullable without a default in TVM, so it is required all the same,
written ``None`` when absent. Attribute fields follow TVM 0.18's
``include/tvm/relay/attrs/transform.h``; patterns follow ``src/relay/op/tensor/transform.cc``
and, for ``zeros`` and ``ones``, ``python/tvm/relay/op/_tensor.py``. A fill value is converted
to the output dtype by TVM's cast (the package docstring), so a float fill value that is NaN,
infinite or out of range for an integer output dtype is undefined.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeVar

import numpy as np

from ..errors import UndefinedBehavior
from ..syntax import ANY, Dim, TensorType, Type, is_dtype
from ..text.printer import format_type
from .elementwise import Accepts, Array, UnaryKernel, _cast, _identity_relation, _tensors, _unary
from .registry import (
    AttrKind,
    Attrs,
    OpPattern,
    OpRegistrar,
    RelationError,
    Tensor,
    attr_field,
    tensor_reference,
)
from .shapes import (
    tensor_arg,
)


def _full_like_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``FullLike``: the type of ``data``; ``fill_value`` must be rank 0 (of any dtype)."""
    data, fill_value = _tensors(arg_types, ("data", "fill_value"))
    if fill_value.shape:
        raise RelationError(
            f"expected a rank-0 fill_value, found {format_type(fill_value)} "
            f"of rank {len(fill_value.shape)}"
        )
    return TensorType(data.shape, data.dtype)


def _full_like(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
    """``full_like``: data's shape filled with ``fill_value`` cast to data's dtype.

    Undefined: a float fill value that is NaN, infinite, or whose truncation does not fit an
    integer data dtype (``fptosi``/``fptoui`` poison)."""
    data, fill_value = args
    with np.errstate(all="ignore"):
        value = _cast(fill_value, data.dtype.name, "full_like")
    return np.full(data.shape, value, dtype=data.dtype)


def _zeros_like(x: Array) -> Array:
    """``zeros_like``: zeros of x's shape and dtype."""
    return np.zeros_like(x)


def _ones_like(x: Array) -> Array:
    """``ones_like``: ones of x's shape and dtype."""
    return np.ones_like(x)


_UNARY: tuple[tuple[str, Accepts, UnaryKernel, str, str], ...] = (
    (
        "zeros_like",
        "any",
        _zeros_like,
        "Zeros with the shape and dtype of the input.",
        "onnxruntime:ConstantOfShape",
    ),
    (
        "ones_like",
        "any",
        _ones_like,
        "Ones with the shape and dtype of the input.",
        "onnxruntime:ConstantOfShape",
    ),
)
"""Fills of data's type without attributes: name, dtypes, kernel, doc, check."""


_op = OpRegistrar(__name__, relation_name="InitOp", inputs=(), pattern=OpPattern.ELEMWISE)


for _name, _accepts, _kernel, _doc, _check in _UNARY:
    _op(
        _name,
        _doc,
        relation=_identity_relation(_accepts),
        reference=tensor_reference(_unary(_kernel)),
        check=_check,
        relation_name="Identity",
        inputs=("data",),
    )


_op(
    "full_like",
    "The scalar fill_value, cast to the dtype of data, with the shape of data.",
    relation=_full_like_relation,
    reference=tensor_reference(_full_like),
    check="independent:Python scalar conversion (math.trunc, modular wrap-around)",
    relation_name="FullLike",
    inputs=("data", "fill_value"),
)


@dataclass(frozen=True, slots=True)
class InitOpAttrs(Attrs):
    """Attributes of the tensor creators and ``broadcast_to``: a target shape and dtype."""

    type_key: ClassVar[str] = "relay.attrs.InitOpAttrs"
    shape: tuple[int, ...] | None = attr_field(AttrKind.INTS, optional=True, doc="Target shape.")
    dtype: str = attr_field(
        AttrKind.DTYPE, "", doc='Target data type; "" means the input\'s (or unset).'
    )


_A = TypeVar("_A", bound=Attrs)


def _attrs(attrs: Attrs | None, cls: type[_A]) -> _A:
    if not isinstance(attrs, cls):
        found = "no attributes" if attrs is None else type(attrs).__name__
        raise RelationError(f"expected {cls.__name__}, found {found}")
    return attrs


def _arity(arg_types: tuple[Type, ...], n: int) -> None:
    if len(arg_types) != n:
        raise RelationError(f"expected {n} argument(s), found {len(arg_types)}")


def _fmt(shape: Sequence[Dim]) -> str:
    """A shape as Relay prints it: ``(2, 3)``, ``(n, ?)``, ``(2)``, ``()``."""
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _show(values: Sequence[int] | None) -> str:
    """An attribute list as the text format writes it: ``[2, -1]`` (or ``None``)."""
    return "None" if values is None else "[" + ", ".join(str(v) for v in values) + "]"


def _known(shape: Sequence[Dim]) -> tuple[int, ...] | None:
    """``shape`` as integers, or ``None`` when a dimension is ``?`` or symbolic."""
    if all(isinstance(d, int) for d in shape):
        return tuple(int(d) for d in shape)  # type: ignore[arg-type]
    return None


def _target_shape(shape: tuple[int, ...] | None) -> tuple[int, ...]:
    """The ``shape`` attribute of InitOpAttrs, which must be present and non-negative."""
    if shape is None:
        raise RelationError("expected a shape, found shape=None")
    for d in shape:
        if d < 0:
            raise RelationError(f"expected non-negative dimensions, found shape={_show(shape)}")
    return shape


def _type_of(value: Tensor) -> TensorType:
    return TensorType(tuple(int(d) for d in value.shape), value.dtype.name)


def _out_shape(t: Type) -> tuple[int, ...]:
    assert isinstance(t, TensorType)
    shape = _known(t.shape)
    assert shape is not None, "a relation over known shapes gives a known shape"
    return shape


def _init_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``InitOp`` (zeros, ones): no arguments; the ``shape`` attribute (present, non-negative)
    and the ``dtype`` attribute."""
    a = _attrs(attrs, InitOpAttrs)
    _arity(arg_types, 0)
    shape = _target_shape(a.shape)
    if not is_dtype(a.dtype):
        raise RelationError(f'expected a dtype, found dtype="{a.dtype}"')
    return TensorType(shape, a.dtype)


def _init_reference(value: int) -> Callable[[tuple[Tensor, ...], Attrs | None], Tensor]:
    """The reference of ``zeros`` (``value`` 0) or ``ones`` (1): the shape filled with it."""

    def reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
        assert not args, "zeros and ones take no arguments"
        t = _init_relation((), attrs)
        assert isinstance(t, TensorType)
        return np.full(_out_shape(t), value, dtype=t.dtype)

    return reference


def _full_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Full``: a rank-0 ``fill_value``; the ``shape`` attribute, and the ``dtype`` attribute
    (``""`` means fill_value's dtype)."""
    a = _attrs(attrs, InitOpAttrs)
    _arity(arg_types, 1)
    fill = tensor_arg(arg_types[0], "fill_value")
    if fill.shape:
        raise RelationError(
            f"expected a scalar fill_value (rank 0), found rank {len(fill.shape)} "
            f"{_fmt(fill.shape)}"
        )
    return TensorType(_target_shape(a.shape), a.dtype or fill.dtype)


def _cast_scalar(value: Tensor, dtype: str) -> Tensor:
    """``tvm::cast`` of a rank-0 value, as LLVM lowers it; float to int out of range is UB."""
    target = np.dtype(dtype)
    if value.dtype.kind == "f" and target.kind in "iu":
        v = float(value)
        info = np.iinfo(target)
        if not math.isfinite(v) or not info.min <= math.trunc(v) <= info.max:
            raise UndefinedBehavior(
                f"full: cast of fill_value {v} to {dtype} is out of range (fptosi/fptoui "
                "give poison)"
            )
        return np.asarray(math.trunc(v), dtype=target)
    if value.dtype.kind == "f" and target.kind == "b":
        v = float(value)
        return np.asarray(v == v and v != 0)  # an ordered compare: NaN is false
    with np.errstate(all="ignore"):
        return np.asarray(value).astype(target)


def _full_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``full`` (``topi::full``): the shape filled with ``fill_value`` cast to the dtype with
    ``tvm::cast``.

    Undefined: a float fill value that is NaN, infinite or out of range for an integer output
    dtype (LLVM lowers the cast to ``fptosi``/``fptoui``, whose result is poison then)."""
    (fill,) = args
    t = _full_relation((_type_of(fill),), attrs)
    assert isinstance(t, TensorType)
    return np.full(_out_shape(t), _cast_scalar(fill, t.dtype), dtype=t.dtype)


_op(
    "zeros",
    "A tensor of the given shape and dtype filled with zeros.",
    relation=_init_relation,
    reference=tensor_reference(_init_reference(0)),
    check="onnxruntime:ConstantOfShape",
    attrs_type=InitOpAttrs,
)


_op(
    "ones",
    "A tensor of the given shape and dtype filled with ones.",
    relation=_init_relation,
    reference=tensor_reference(_init_reference(1)),
    check="onnxruntime:ConstantOfShape",
    attrs_type=InitOpAttrs,
)


_op(
    "full",
    "A tensor of the given shape filled with the scalar fill_value.",
    relation=_full_relation,
    reference=tensor_reference(_full_reference),
    check="independent:Python scalar conversion (math.trunc, modular wrap-around)",
    relation_name="Full",
    inputs=("fill_value",),
    attrs_type=InitOpAttrs,
)


@dataclass(frozen=True, slots=True)
class ArangeAttrs(Attrs):
    """Attributes of ``arange``: the result dtype (TVM's copies of the inputs are omitted)."""

    type_key: ClassVar[str] = "relay.attrs.ArangeAttrs"
    dtype: str = attr_field(AttrKind.DTYPE, doc="Target data type.")


def _tensor_list(arg_types: tuple[Type, ...], names: Sequence[str]) -> list[TensorType]:
    _arity(arg_types, len(names))
    return [tensor_arg(t, name) for t, name in zip(arg_types, names, strict=True)]


def _dtype(dtype: str, what: str = "dtype") -> str:
    if not is_dtype(dtype):
        raise RelationError(f'expected a {what} attribute, found "{dtype}"')
    return dtype


def _fmt_shape(shape: Sequence[Dim]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _arange_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Arange``: rank-0 ``start``, ``stop`` and ``step`` of the ``dtype`` attribute; the result
    is ``(?)`` of that dtype: the relation only sees types (TVM's ArangeRel gave a known extent
    when the three arguments were constants, which it read from copies kept in the attributes;
    those copies are Relay expressions, not attribute values, and are omitted here). The shape
    function gives ``(n,)``.

    Departure from TVM: the inputs must be rank-0 tensors of the dtype (TVM's relation assigned
    those types)."""
    a = _attrs(attrs, ArangeAttrs)
    dtype = _dtype(a.dtype)
    for t in _tensor_list(arg_types, ("start", "stop", "step")):
        if t.shape or t.dtype != dtype:
            raise RelationError(
                f"expected start, stop and step of type Tensor[(), {dtype}], found "
                f"Tensor[{_fmt_shape(t.shape)}, {t.dtype}]"
            )
    return TensorType((ANY,), dtype)


def _arange_count(start: Tensor, stop: Tensor, step: Tensor) -> int:
    """``ceil((stop - start) / step)`` in double precision, or ``UndefinedBehavior``."""
    s0, s1, s2 = float(start), float(stop), float(step)
    if s2 == 0:
        raise UndefinedBehavior("arange with step 0")
    n = (s1 - s0) / s2
    if not math.isfinite(n):
        raise UndefinedBehavior(f"arange with a non-finite count ({s1} - {s0}) / {s2}")
    count = math.ceil(n)
    if count < 0:
        raise UndefinedBehavior(f"arange with a negative count {count}")
    return count


def _arange_shape(args: tuple[Tensor, ...], attrs: Attrs | None) -> tuple[int, ...]:
    start, stop, step = args
    return (_arange_count(start, stop, step),)


def _arange_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    """``arange``: ``n = ceil((stop - start) / step)`` evaluated in double precision;
    ``out[i] = start + step * i`` computed in the dtype.

    Undefined: a step of 0, a non-finite ``n``, a negative ``n`` (the shape function allocates a
    negative extent), an element that the integer dtype cannot hold."""
    start, stop, step = args
    t = _arange_relation((_type_of(start), _type_of(stop), _type_of(step)), attrs)
    assert isinstance(t, TensorType)
    n = _arange_count(start, stop, step)
    if np.dtype(t.dtype).kind in "iub":
        exact = [int(start) + int(step) * i for i in range(n)]
        if t.dtype != "bool":
            info = np.iinfo(np.dtype(t.dtype))
            if any(not info.min <= v <= info.max for v in exact):
                raise UndefinedBehavior(f"arange: an element overflows {t.dtype}")
        return np.asarray(exact, dtype=t.dtype).reshape((n,))
    i = np.arange(n).astype(t.dtype)
    with np.errstate(all="ignore"):
        return np.asarray(start + step * i, dtype=t.dtype).reshape((n,))


_op(
    "arange",
    "Evenly spaced values from start towards stop by step.",
    relation=_arange_relation,
    reference=tensor_reference(_arange_reference),
    check="onnxruntime:Range",
    relation_name="Arange",
    inputs=("start", "stop", "step"),
    attrs_type=ArangeAttrs,
    pattern=OpPattern.OPAQUE,
    shape_func=_arange_shape,
)
