"""Activations: nn.relu, nn.leaky_relu, nn.prelu and the softmax family.

::

    nn.relu(data)                                     Identity           elemwise
    nn.leaky_relu(data, alpha=0.25)   LeakyReluAttrs  Identity           elemwise
    nn.prelu(data, alpha, axis=1)     PReluAttrs      PRelu              broadcast
    nn.softmax(data, axis=-1)         SoftmaxAttrs    Softmax            out-fusable
    nn.log_softmax(data, axis=-1)     SoftmaxAttrs    Softmax            out-fusable
    nn.fast_softmax(data, axis=-1)    SoftmaxAttrs    Softmax            out-fusable

out-fusable is out_elemwise_fusable. ``nn.relu`` and ``nn.leaky_relu`` are unary elementwise
operators typed by ``elementwise``'s ``Identity`` (the result has the argument's type, any
dtype) and computed with its conventions: NaN follows TVM's ``select``-based definitions and
LLVM's ordered comparisons, and an attribute is converted to the data dtype as TVM's
``make_const`` did. The softmax family is defined on floats only and computes float16 in
float32, rounded once at the end (``common``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...syntax import TensorType, Type
from ..elementwise import (
    Accepts,
    Array,
    UnaryKernel,
    _attr_constant,
    _exact,
    _fit,
    _identity_relation,
    _is_float,
    _maximum,
    _unary,
)
from ..registry import (
    AttrKind,
    Attrs,
    OpPattern,
    OpRegistrar,
    RelationError,
    attr_field,
    tensor_reference,
)
from ..shapes import (
    dims_equal,
    tensor_arg,
)
from .common import (
    _attrs,
    _axis,
    _compute_dtype,
    _int_result,
    _Num,
    _require_float,
    _shape_str,
)


@dataclass(frozen=True, slots=True)
class LeakyReluAttrs(Attrs):
    """Attributes of ``nn.leaky_relu``: the slope on the negative half axis."""

    type_key: ClassVar[str] = "relay.attrs.LeakyReluAttrs"
    alpha: float = attr_field(
        AttrKind.FLOAT, 0.25, doc="Slope coefficient for the negative half axis."
    )


def _leaky_relu(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
    """``nn.leaky_relu``: ``x > 0 ? x : x * alpha`` (an ordered compare: NaN takes
    ``x * alpha``), ``alpha`` converted to the data dtype as TVM's ``make_const`` did (truncated
    toward zero for integers, rounded for floats).

    Undefined: int32/int64 overflow of a selected ``x * alpha`` (nsw); an ``alpha`` the data
    dtype cannot represent (NaN or out of range for an integer dtype, negative for an unsigned
    one, finite beyond a float dtype's range): TVM's ``make_const`` refused it or converted it
    with C++ undefined behaviour."""
    (x,) = args
    assert isinstance(attrs, LeakyReluAttrs)
    dtype = x.dtype.name
    alpha = _attr_constant(attrs.alpha, dtype, "nn.leaky_relu alpha")
    positive = x > 0
    if _is_float(dtype):
        scaled = np.asarray(x * alpha)
    else:
        # Only the selected products count: select's other arm may overflow harmlessly.
        kept = np.where(positive, np.zeros_like(x), x)
        scaled = _fit(_exact(kept) * _exact(alpha), dtype, "nn.leaky_relu")
    return np.asarray(np.where(positive, x, scaled)).astype(dtype, copy=False)


_UNARY: tuple[tuple[str, Accepts, UnaryKernel, str, str], ...] = (
    # nn.relu is maximum(x, 0) with elementwise's maximum (a > b ? a : b, an ordered
    # compare), so relu(NaN) = 0; it is defined on every dtype (bool and unsigned: itself).
    (
        "nn.relu",
        "any",
        lambda x: _maximum(x, np.zeros_like(x)),
        "Rectified linear unit.",
        "onnxruntime:Relu",
    ),
)
"""Unary operators without attributes (relation ``Identity``): name, dtypes, kernel, doc, check."""


_op = OpRegistrar(
    __name__, relation_name="Softmax", inputs=("data",), pattern=OpPattern.OUT_ELEMWISE_FUSABLE
)


for _name, _accepts, _kernel, _doc, _check in _UNARY:
    _op(
        _name,
        _doc,
        relation=_identity_relation(_accepts),
        reference=tensor_reference(_unary(_kernel)),
        check=_check,
        relation_name="Identity",
        pattern=OpPattern.ELEMWISE,
    )


_op(
    "nn.leaky_relu",
    "Leaky rectified linear unit, x if x > 0 else alpha * x.",
    relation=_identity_relation("any"),
    reference=tensor_reference(_leaky_relu),
    check="onnxruntime:LeakyRelu",
    relation_name="Identity",
    attrs_type=LeakyReluAttrs,
    pattern=OpPattern.ELEMWISE,
)


@dataclass(frozen=True, slots=True)
class SoftmaxAttrs(Attrs):
    """Attributes of ``nn.softmax`` and ``nn.log_softmax``: the normalised axis."""

    type_key: ClassVar[str] = "relay.attrs.SoftmaxAttrs"
    axis: int = attr_field(AttrKind.INT, -1, doc="The axis to sum over.")


def _softmax_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Softmax`` (nn.softmax, nn.log_softmax, nn.fast_softmax): data's type, with
    ``-ndim <= axis < ndim`` naming the axis normalised over."""
    a = _attrs(attrs, SoftmaxAttrs)
    data = tensor_arg(arg_types[0], "data")
    _axis(a.axis, len(data.shape))
    return TensorType(data.shape, data.dtype)


def _softmax_shifted(args: tuple[_Num, ...], attrs: Attrs | None, op: str) -> tuple[_Num, int]:
    """``x - max(x)`` along the axis, in the compute dtype, and the axis."""
    a = _attrs(attrs, SoftmaxAttrs)
    data = args[0]
    _require_float(data, op)
    axis = a.axis % data.ndim
    x = data.astype(_compute_dtype(data.dtype))
    return (x - np.max(x, axis=axis, keepdims=True) if x.size else x), axis


def _softmax_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.softmax``: ``e = exp(x - max(x)); e / sum(e)`` along the axis
    (``topi/nn/softmax.py``, any axis).

    Undefined: non-float data (``exp`` is a float intrinsic; TVM's relation accepts other
    dtypes, but nothing defines the result)."""
    with np.errstate(all="ignore"):
        shifted, axis = _softmax_shifted(args, attrs, "nn.softmax")
        e = np.exp(shifted)
        return np.asarray(e / np.sum(e, axis=axis, keepdims=True)).astype(args[0].dtype)


def _log_softmax_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.log_softmax``: ``x - max(x) - log(sum(exp(x - max(x))))`` along the axis (the
    relay strategy passes the axis to topi).

    Undefined: non-float data (as for ``nn.softmax``)."""
    with np.errstate(all="ignore"):
        shifted, axis = _softmax_shifted(args, attrs, "nn.log_softmax")
        total = np.sum(np.exp(shifted), axis=axis, keepdims=True)
        return np.asarray(shifted - np.log(total)).astype(args[0].dtype)


_op(
    "nn.softmax",
    "Softmax along axis: exp(x) / sum(exp(x)).",
    relation=_softmax_relation,
    reference=tensor_reference(_softmax_reference),
    check="onnxruntime:Softmax",
    attrs_type=SoftmaxAttrs,
)


_op(
    "nn.log_softmax",
    "Logarithm of the softmax along axis.",
    relation=_softmax_relation,
    reference=tensor_reference(_log_softmax_reference),
    check="onnxruntime:LogSoftmax",
    attrs_type=SoftmaxAttrs,
)


@dataclass(frozen=True, slots=True)
class PReluAttrs(Attrs):
    """Attributes of ``nn.prelu``: the axis the slopes run along."""

    type_key: ClassVar[str] = "relay.attrs.PReluAttrs"
    axis: int = attr_field(AttrKind.INT, 1, doc="The channel axis alpha runs along.")


def _prelu_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``PRelu``: ``alpha`` is ``(data.shape[axis],)`` of data's dtype, ``0 <= axis < rank``;
    the result has data's type.

    A negative axis is rejected, as TVM's relation did (it indexed the shape with it)."""
    a = _attrs(attrs, PReluAttrs)
    data = tensor_arg(arg_types[0], "data")
    alpha = tensor_arg(arg_types[1], "alpha")
    rank = len(data.shape)
    if not 0 <= a.axis < rank:
        raise RelationError(
            f"axis={a.axis} is out of range for a tensor of rank {rank} (prelu takes 0 to rank - 1)"
        )
    c = data.shape[a.axis]
    if len(alpha.shape) != 1 or dims_equal(alpha.shape[0], c) is False or alpha.dtype != data.dtype:
        raise RelationError(
            f"expected Tensor[({c},), {data.dtype}] for alpha, "
            f"found Tensor[{_shape_str(alpha.shape)}, {alpha.dtype}]"
        )
    return TensorType(data.shape, data.dtype)


def _prelu_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.prelu``: ``x > 0 ? x : x * alpha[index along axis]`` (topi's prelu, a Select);
    bool data is itself.

    Undefined: 32/64-bit integer overflow of ``x * alpha`` where it is selected (``x <= 0``;
    the unselected products do not count)."""
    a = _attrs(attrs, PReluAttrs)
    data, alpha = args
    slope = alpha.reshape(alpha.shape + (1,) * (data.ndim - a.axis - 1))
    positive = data > 0
    if data.dtype.kind == "f":
        cd = _compute_dtype(data.dtype)
        with np.errstate(all="ignore"):
            scaled = data.astype(cd) * slope.astype(cd)
        return np.where(positive, data, scaled.astype(data.dtype)).astype(data.dtype)
    if data.dtype == np.bool_:
        # false * alpha is false (i1 multiplication): the data itself.
        return data.copy()
    product: Any = _exact(data) * _exact(slope)
    # Only the selected products matter: a Select's unchosen operand may be poison.
    chosen = np.where(positive, _exact(data), product)
    return _int_result(np.asarray(chosen), data.dtype, "nn.prelu", "x * alpha")


_op(
    "nn.prelu",
    "Parametric ReLU: x where x > 0, else x times the slope of its channel.",
    relation=_prelu_relation,
    reference=tensor_reference(_prelu_reference),
    check="onnxruntime:PRelu",
    relation_name="PRelu",
    inputs=("data", "alpha"),
    attrs_type=PReluAttrs,
    pattern=OpPattern.BROADCAST,
)


def _float_data(x: _Num, op: str) -> _Num:
    """``x`` in its compute dtype, after checking it is a float."""
    _require_float(x, op)
    return x.astype(_compute_dtype(x.dtype))


_F32 = np.float32


_FAST_EXP_POLY = tuple(
    _F32(c)
    for c in (
        *(1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3),
        *(4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1),
    )
)


def fast_exp_float32(x: _Num) -> _Num:
    """TOPI's ``fast_exp_float32``, operation by operation in float32 (min and max are TVM's
    ordered selects)."""
    with np.errstate(all="ignore"):
        hi, lo = _F32(88.3762626647950), _F32(-88.3762626647949)
        clamped = np.where(x < hi, x, hi)
        clamped = np.where(clamped > lo, clamped, lo)
        n = np.floor(clamped * _F32(1.44269504088896341) + _F32(0.5))
        f = clamped - n * _F32(0.6931471805599453)
        y = _FAST_EXP_POLY[0]
        for c in _FAST_EXP_POLY[1:]:
            y = y * f + c
        y = y * f * f + f + _F32(1.0)
        exponent = np.nan_to_num(n + _F32(127.0)).astype(np.int32)
        scale = (exponent << 23).view(np.float32)
        value = scale * y
        return np.asarray(np.where(value > x, value, x), np.float32)


def _fast_softmax_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.fast_softmax``: softmax with TVM's ``fast_exp`` for float32 (``fast_exp_float32``:
    the input clamped to +-88.376, ``2^n`` by exponent bits times a degree-7 polynomial in
    ``f = x - n ln 2``, ``n = floor(x log2 e + 1/2)``, the result at least ``x``); other float
    dtypes use ``exp``.

    Undefined: non-float data (as for ``nn.softmax``)."""
    a = _attrs(attrs, SoftmaxAttrs)
    data = args[0]
    x = _float_data(data, "nn.fast_softmax")
    axis = a.axis % data.ndim
    if not x.size:
        return data.copy()
    with np.errstate(all="ignore"):
        delta = x - np.max(x, axis=axis, keepdims=True)
        e = fast_exp_float32(delta) if data.dtype == np.float32 else np.exp(delta)
        out = e / np.sum(e, axis=axis, keepdims=True)
    return np.asarray(out).astype(data.dtype)


_op(
    "nn.fast_softmax",
    "Softmax along axis with TVM's fast approximate exp for float32.",
    relation=_softmax_relation,
    reference=tensor_reference(_fast_softmax_reference),
    check="onnxruntime:Softmax",
    attrs_type=SoftmaxAttrs,
)
