"""Dense layers and matrix products: nn.dense, nn.matmul, nn.batch_matmul, nn.bias_add.

::

    nn.dense(data, weight, units=, out_dtype="")                DenseAttrs         out-fusable
    nn.matmul(tensor_a, tensor_b, units=, out_dtype="", transpose_a=False, transpose_b=False)
                                                                MatmulAttrs        out-fusable
    nn.batch_matmul(tensor_a, tensor_b, out_dtype="", transpose_a=False, transpose_b=False)
                                                                BatchMatmulAttrs   out-fusable
    nn.bias_add(data, bias, axis=1)                             BiasAddAttrs       broadcast

out-fusable is out_elemwise_fusable. ``units`` is nullable but has no default in TVM, so it is
required and written ``units=None`` when absent. ``DenseAttrs`` also carries
``auto_scheduler_rewritten_layout`` and ``meta_schedule_original_shape`` in TVM as plain
members, which are not attributes. The products share one computation (``common._contract``):
``sum_k cast(a[.., i, k]) * cast(b[k, j])`` in the output dtype, operands converted to it by
TVM's cast, float16 computed in float32 and rounded once; their undefined cases are the same:
32/64-bit integer overflow of a product or of the total (partial sums are not checked: the
total is exact), an operand cast to the output dtype from NaN or an out-of-range float, and a
bool output dtype.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ...syntax import ANY, AnyDim, Dim, TensorType, Type
from ..elementwise import _exact
from ..registry import (
    AttrKind,
    Attrs,
    OpPattern,
    OpRegistrar,
    RelationError,
    attr_field,
    tensor_reference,
)
from ..shapes import dims_equal, tensor_arg
from .common import (
    _OUT_DTYPE_DOC,
    _attrs,
    _axis,
    _check_rank,
    _contract,
    _convert,
    _int_result,
    _Num,
    _shape_str,
    _ub,
    _vector,
)


@dataclass(frozen=True, slots=True)
class DenseAttrs(Attrs):
    """Attributes of ``nn.dense``: the number of output units and the output dtype."""

    type_key: ClassVar[str] = "relay.attrs.DenseAttrs"
    units: int | None = attr_field(
        AttrKind.INT, optional=True, doc="Number of output units; None infers it from weight."
    )
    out_dtype: str = attr_field(AttrKind.DTYPE, "", doc=_OUT_DTYPE_DOC)


@dataclass(frozen=True, slots=True)
class BiasAddAttrs(Attrs):
    """Attributes of ``nn.bias_add``: the axis the bias runs along."""

    type_key: ClassVar[str] = "relay.attrs.BiasAddAttrs"
    axis: int = attr_field(AttrKind.INT, 1, doc="The axis to add the bias along.")


def _dense_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Dense``: data ``(d1.., k)`` of rank >= 1 and weight ``(u, k)`` give ``(d1.., u)`` in
    ``out_dtype``, or data's dtype when it is ``""``; with ``units=u`` the weight must be exactly
    ``(u, k)``. Weight's dtype is not checked.

    Departure from TVM: data of any rank >= 1 is batched over its leading axes, as DenseRel's
    type says (some topi versions asserted 2-D data)."""
    a = _attrs(attrs, DenseAttrs)
    data = tensor_arg(arg_types[0], "data")
    weight = tensor_arg(arg_types[1], "weight")
    if not data.shape:
        raise RelationError("expected data of rank at least 1, found rank 0")
    k = data.shape[-1]
    if a.units is not None:
        if len(weight.shape) != 2 or any(
            dims_equal(w, e) is False for w, e in zip(weight.shape, (a.units, k), strict=True)
        ):
            raise RelationError(
                f"weight shape {_shape_str(weight.shape)} does not match ({a.units}, {k}) "
                f"implied by units={a.units} and the data's last dimension"
            )
        units: Dim = a.units
    else:
        _check_rank(weight, 2, "weight")
        if not isinstance(k, AnyDim) and dims_equal(k, weight.shape[1]) is False:
            raise RelationError(
                f"input dimension mismatch: data {_shape_str(data.shape)} has last dimension "
                f"{k}, weight {_shape_str(weight.shape)} has {weight.shape[1]}"
            )
        units = weight.shape[0]
    return TensorType((*data.shape[:-1], units), a.out_dtype or data.dtype)


def _dense_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.dense``: ``sum_k cast(x[.., k]) * cast(w[j, k])`` in the output dtype.

    Undefined: the products' cases (the module docstring)."""
    a = _attrs(attrs, DenseAttrs)
    data, weight = args
    dtype = np.dtype(a.out_dtype or data.dtype)
    x = _convert(data, dtype, "nn.dense")
    w = _convert(weight, dtype, "nn.dense")
    rows = int(np.prod(data.shape[:-1], dtype=np.int64))
    out = _contract(x.reshape(rows, data.shape[-1]), w.T, "nn.dense")
    return out.reshape(*data.shape[:-1], weight.shape[0])


def _bias_add_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``BiasAdd``: data ``(d.., c @axis, ..)`` and a bias ``(c,)`` of data's dtype give data's
    type; ``axis`` (negative counts from the end) names the axis the bias runs along."""
    a = _attrs(attrs, BiasAddAttrs)
    data = tensor_arg(arg_types[0], "data")
    axis = _axis(a.axis, len(data.shape))
    _vector(arg_types[1], data.shape[axis], data.dtype, "bias")
    return TensorType(data.shape, data.dtype)


def _bias_add_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.bias_add``: ``data[i] + bias[i[axis]]``.

    Undefined: 32/64-bit integer overflow of a sum (nsw/nuw); bool data (TVM defines no
    arithmetic on sums of bool)."""
    a = _attrs(attrs, BiasAddAttrs)
    data, bias = args
    axis = a.axis % data.ndim
    b = bias.reshape(bias.shape + (1,) * (data.ndim - axis - 1))
    if data.dtype.kind == "f":
        return np.asarray(data + b).astype(data.dtype)
    if data.dtype == np.bool_:
        raise _ub("nn.bias_add", "bool data (sums of bool have no defined meaning)")
    return _int_result(_exact(data) + _exact(b), data.dtype, "nn.bias_add", "a sum")


_op = OpRegistrar(__name__, inputs=("tensor_a", "tensor_b"), pattern=OpPattern.OUT_ELEMWISE_FUSABLE)


_op(
    "nn.dense",
    "Fully connected layer: data times the transpose of weight (units, in).",
    relation=_dense_relation,
    reference=tensor_reference(_dense_reference),
    check="onnxruntime:Gemm",
    relation_name="Dense",
    inputs=("data", "weight"),
    attrs_type=DenseAttrs,
)


_op(
    "nn.bias_add",
    "Add the 1-D bias to data along axis.",
    relation=_bias_add_relation,
    reference=tensor_reference(_bias_add_reference),
    check="independent:element loop data[i] + bias[i[axis]]",
    relation_name="BiasAdd",
    inputs=("data", "bias"),
    attrs_type=BiasAddAttrs,
    pattern=OpPattern.BROADCAST,
)


@dataclass(frozen=True, slots=True)
class MatmulAttrs(Attrs):
    """Attributes of ``nn.matmul``: output units, output dtype and operand transposition."""

    type_key: ClassVar[str] = "relay.attrs.MatmulAttrs"
    units: int | None = attr_field(
        AttrKind.INT, optional=True, doc="Number of output units; None infers it from b."
    )
    out_dtype: str = attr_field(AttrKind.DTYPE, "", doc=_OUT_DTYPE_DOC)
    transpose_a: bool = attr_field(AttrKind.BOOL, False, doc="a is given transposed (.., k, m).")
    transpose_b: bool = attr_field(AttrKind.BOOL, False, doc="b is given transposed (n, k).")


@dataclass(frozen=True, slots=True)
class BatchMatmulAttrs(Attrs):
    """Attributes of ``nn.batch_matmul``: output dtype and operand transposition."""

    type_key: ClassVar[str] = "relay.attrs.BatchMatmulAttrs"
    out_dtype: str = attr_field(AttrKind.DTYPE, "", doc=_OUT_DTYPE_DOC)
    transpose_a: bool = attr_field(AttrKind.BOOL, False, doc="a is given as (B, k, m).")
    transpose_b: bool = attr_field(AttrKind.BOOL, False, doc="b is given as (B, n, k).")


def _matmul_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``Matmul``: ``tensor_a`` ``(.., k)`` (with ``transpose_a``: ``(.., k, m)``, rank >= 2) and
    ``tensor_b`` ``(k, n)`` (with ``transpose_b``: ``(n, k)``) give ``(.., n)`` (``(.., m, n)``)
    in ``out_dtype``, or a's dtype when it is ``""``; with ``units=u`` b must be exactly
    ``(k, u)`` (``(u, k)``). b's dtype is not checked."""
    a = _attrs(attrs, MatmulAttrs)
    tensor_a = tensor_arg(arg_types[0], "tensor_a")
    tensor_b = tensor_arg(arg_types[1], "tensor_b")
    ashape = tensor_a.shape
    if len(ashape) < (2 if a.transpose_a else 1):
        raise RelationError(
            f"expected tensor_a of rank at least {2 if a.transpose_a else 1}"
            f"{' (transpose_a=True)' if a.transpose_a else ''}, found rank {len(ashape)}"
        )
    if a.transpose_a:
        k, lead = ashape[-2], (*ashape[:-2], ashape[-1])
    else:
        k, lead = ashape[-1], ashape[:-1]
    if a.units is not None:
        expected: tuple[Dim, ...] = (a.units, k) if a.transpose_b else (k, a.units)
        if len(tensor_b.shape) != 2 or any(
            dims_equal(w, e) is False for w, e in zip(tensor_b.shape, expected, strict=True)
        ):
            raise RelationError(
                f"tensor_b shape {_shape_str(tensor_b.shape)} does not match "
                f"{_shape_str(expected)} implied by units={a.units}, "
                f"transpose_b={a.transpose_b} and tensor_a's reduction dimension"
            )
        units: Dim = a.units
    else:
        _check_rank(tensor_b, 2, "tensor_b")
        bk, units = (
            (tensor_b.shape[1], tensor_b.shape[0])
            if a.transpose_b
            else (tensor_b.shape[0], tensor_b.shape[1])
        )
        if dims_equal(k, bk) is False:
            raise RelationError(
                f"reduction dimension mismatch: tensor_a {_shape_str(ashape)} has {k}, "
                f"tensor_b {_shape_str(tensor_b.shape)} has {bk} "
                f"(transpose_a={a.transpose_a}, transpose_b={a.transpose_b})"
            )
    return TensorType((*lead, units), a.out_dtype or tensor_a.dtype)


def _matmul_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.matmul``: ``sum_k cast(a[.., i, k]) * cast(b[k, j])`` in the output dtype, batched
    over a's leading axes as ``nn.dense``.

    Undefined: the products' cases (the module docstring)."""
    a = _attrs(attrs, MatmulAttrs)
    tensor_a, tensor_b = args
    dtype = np.dtype(a.out_dtype or tensor_a.dtype)
    x = _convert(tensor_a, dtype, "nn.matmul")
    w = _convert(tensor_b, dtype, "nn.matmul")
    if a.transpose_a:
        x = np.swapaxes(x, -1, -2)
    if a.transpose_b:
        w = w.T
    lead = x.shape[:-1]
    rows = int(np.prod(lead, dtype=np.int64))
    out = _contract(np.ascontiguousarray(x).reshape(rows, x.shape[-1]), w, "nn.matmul")
    return out.reshape(*lead, w.shape[1])


def _batch_matmul_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``BatchMatmul``: ``tensor_a`` ``(B, m, k)`` (``transpose_a``: ``(B, k, m)``) and
    ``tensor_b`` ``(B', k, n)`` (``transpose_b``: ``(B', n, k)``) with B and B' equal or one of
    them 1 give ``(batch, m, n)`` in ``out_dtype`` or a's dtype, batch the one that is not 1
    (``?`` if either is ``?``).

    ``transpose_b`` defaults to False, as ``BatchMatmulAttrs`` declares it; TVM's Python builder
    ``relay.nn.batch_matmul`` passed ``transpose_b=True`` explicitly and its printer then wrote
    it, so a printed call says ``transpose_b=True`` (the NT form) in full.

    Departures from TVM: the sizes that can be compared are checked even when another dimension
    is ``?`` (TVM skipped every check then), and a batch of 1 against a batch of 0 broadcasts
    to 0 (TVM's relation took ``max(B, B') = 1``)."""
    a = _attrs(attrs, BatchMatmulAttrs)
    x = tensor_arg(arg_types[0], "tensor_a")
    y = tensor_arg(arg_types[1], "tensor_b")
    _check_rank(x, 3, "tensor_a")
    _check_rank(y, 3, "tensor_b")
    xb, xi, xk = (x.shape[0], x.shape[2], x.shape[1]) if a.transpose_a else x.shape
    yb, yj, yk = (
        (y.shape[0], y.shape[1], y.shape[2])
        if a.transpose_b
        else (
            y.shape[0],
            y.shape[2],
            y.shape[1],
        )
    )
    if dims_equal(xk, yk) is False:
        raise RelationError(
            f"reduction dimension mismatch: tensor_a {_shape_str(x.shape)} has {xk}, "
            f"tensor_b {_shape_str(y.shape)} has {yk} "
            f"(transpose_a={a.transpose_a}, transpose_b={a.transpose_b})"
        )
    batch: Dim
    if isinstance(xb, AnyDim) or isinstance(yb, AnyDim):
        batch = ANY
    elif dims_equal(xb, yb):
        batch = xb
    elif xb == 1:
        batch = yb
    elif yb == 1:
        batch = xb
    else:
        raise RelationError(
            f"batch dimensions {xb} and {yb} do not match (nor is either 1): tensor_a "
            f"{_shape_str(x.shape)}, tensor_b {_shape_str(y.shape)}"
        )
    return TensorType((batch, xi, yj), a.out_dtype or x.dtype)


def _batch_matmul_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    """``nn.batch_matmul``: ``nn.matmul`` per batch, a batch of 1 broadcast.

    Undefined: the products' cases (the module docstring)."""
    a = _attrs(attrs, BatchMatmulAttrs)
    tensor_a, tensor_b = args
    dtype = np.dtype(a.out_dtype or tensor_a.dtype)
    x = _convert(tensor_a, dtype, "nn.batch_matmul")
    y = _convert(tensor_b, dtype, "nn.batch_matmul")
    if a.transpose_a:
        x = np.swapaxes(x, 1, 2)
    if not a.transpose_b:
        y = np.swapaxes(y, 1, 2)  # y as (B, n, k)
    out = _contract(x, np.swapaxes(y, 1, 2), "nn.batch_matmul")
    return np.ascontiguousarray(out)


_op(
    "nn.matmul",
    "Matrix product of a and b, either given transposed.",
    relation=_matmul_relation,
    reference=tensor_reference(_matmul_reference),
    check="onnxruntime:MatMul",
    relation_name="Matmul",
    attrs_type=MatmulAttrs,
)


_op(
    "nn.batch_matmul",
    "Batched matrix product of two 3-D tensors, either given transposed.",
    relation=_batch_matmul_relation,
    reference=tensor_reference(_batch_matmul_reference),
    check="onnxruntime:MatMul",
    relation_name="BatchMatmul",
    attrs_type=BatchMatmulAttrs,
)
