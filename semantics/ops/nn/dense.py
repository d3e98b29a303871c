"""Dense layers and matrix products: nn.dense, nn.matmul, nn.batch_matmul, nn.bias_add.

Neural-network operators: softmax, dense, convolution, pooling, normalisation, padding.

::

    nn.dense(data, weight, units=, out_dtype="")                DenseAttrs         out-fusable
    nn.bias_add(data, bias, axis=1)                             BiasAddAttrs       broadcast

``name=`` marks a required attribute; out-fusable is out_elemwise_fusable. ``nn.dense``'s
``units`` is nullable but has no default in TVM, so it is required and written ``units=None``
when absent. Attribute fields follow TVM 0.18's ``include/tvm/relay/attrs/nn.h``, counting
only fields declared with ``TVM_ATTR_FIELD`` (``Conv2DAttrs`` and ``DenseAttrs`` also carry
``auto_scheduler_rewritten_layout`` and ``meta_schedule_original_shape`` as plain members,
which are not attributes). Argument names and patterns follow ``src/relay/op/nn/*.cc``; TVM
names ``nn.pad``'s second argument ``pad_val``.

Types (relation names as registered in TVM 0.18)::

    Dense            (d1.., k), (u, k) -> (d1.., u) in out_dtype or data's dtype; with units=u
                     the weight must be exactly (u, k); weight's dtype is not checked
    BiasAdd          (d.., c @axis, ..), (c,) same dtype -> the data type

Meaning (what TVM 0.18's topi computes)::

    dense          sum_k cast(x[.., k]) * cast(w[j, k]) in the output dtype

Integers follow TVM's LLVM code generator (``src/target/llvm/codegen_llvm.cc``,
``DEFINE_CODEGEN_BINARY_OP``): add, sub and mul are ``nsw`` for int32/int64 and ``nuw`` for
uint32/uint64, so overflow there is undefined; narrower integers wrap. Integer division
truncates toward zero (``CreateSDiv``/``CreateUDiv``). Casts follow ``CreateCast``: float to
int is ``fptosi``/``fptoui`` (poison when NaN or out of range), to bool is ``x != 0`` (a NaN
gives false), int to int truncates or extends.

Float16 is computed in float32 and rounded once at the end (conv2d, dense, softmax,
log_softmax, avg_pool2d, global_avg_pool2d, batch_norm); TVM computed and accumulated in
float16, so results may differ by float16 rounding.

Undefined behaviour (``UndefinedBehavior``; where TVM leaves it undefined)::

    conv2d, dense       32/64-bit integer overflow of a product or of the total (nsw/nuw in
                        codegen_llvm.cc; partial sums are not checked: the total is exact);
                        an operand cast to the output dtype from NaN or an out-of-range
                        float (fptosi/fptoui poison); a bool output dtype (topi sums in the
                        output dtype, for which TVM defines no arithmetic meaning)
    bias_add            32/64-bit integer overflow (nsw/nuw); bool data (as above)

Deliberate departures from TVM 0.18:

- pad rejects pad_mode other than constant, edge and reflect.
- dense batches data of any rank >= 1 over its leading axes, as DenseRel's type says (some
  topi versions asserted 2-D data).
- float16 is computed in float32 (above).

More convolutions and products: 1-D and 3-D convolution, transposed convolution, matmul,
batch_matmul and prelu.

::

    nn.matmul(tensor_a, tensor_b, units=, out_dtype="", transpose_a=False, transpose_b=False)
                                                              MatmulAttrs           out-fusable
    nn.batch_matmul(tensor_a, tensor_b, out_dtype="", transpose_a=False, transpose_b=False)
                                                              BatchMatmulAttrs      out-fusable

``name=`` marks a required attribute (``units`` is nullable without a default, as in
``nn.dense``). Fields follow TVM 0.18's ``include/tvm/relay/attrs/nn.h``, counting only fields
declared with ``TVM_ATTR_FIELD``: ``Conv1DAttrs`` has an ``out_layout`` member but never
declared it, so conv1d has no ``out_layout`` attribute and its output is in ``data_layout``.
``BatchMatmulAttrs.transpose_b`` defaults to False, as the attributes class declares it;
TVM's Python builder ``relay.nn.batch_matmul`` passed ``transpose_b=True`` explicitly, and the
printer then wrote it, so a printed call says ``transpose_b=True`` (the NT form) in full.

Types (relation names as registered in TVM 0.18)::

    Matmul            a (.., k) (transpose_a: (.., k, m), rank >= 2), b (k, n) (transpose_b:
                      (n, k)); result (.., n) or (.., m, n), dtype out_dtype or a's; with
                      units=u, b must be exactly (k, u) / (u, k); b's dtype is not checked
    BatchMatmul       a (B, m, k) (transpose_a: (B, k, m)), b (B', k, n) (transpose_b:
                      (B', n, k)); B and B' equal or one of them 1 (? skips the check);
                      result (batch, m, n), batch the one not 1 (? if either is ?), dtype
                      out_dtype or a's

Padding of the convolutions holds, per spatial axis count ``d``: 1 integer (every side), ``d``
integers (each axis padded at both ends) or ``2d`` (all the befores, then all the afters):
``GetPaddingWidth``, ``GetPaddingHeightWidth`` and ``GetPaddingDepthHeightWidth`` in
``src/relay/op/op_common.h``. output_padding holds exactly ``d`` integers.

Meaning (what TVM 0.18's topi computes)::

    matmul             sum_k cast(a[.., i, k]) * cast(b[k, j]) in the output dtype (batches
                       over a's leading axes, as nn.dense)
    batch_matmul       the same per batch, a batch of 1 broadcast

Integers, float16 and out_dtype follow ``ops.nn`` exactly: 32/64-bit integer overflow of a
product or of the total is undefined, narrower integers wrap, float16 is computed in float32
and rounded once, operands are converted to the output dtype as TVM's cast does.

Undefined behaviour (``UndefinedBehavior``)::

    every convolution, matmul, batch_matmul
                       32/64-bit integer overflow of a product or of the total (nsw/nuw);
                       an operand cast to the output dtype from NaN or an out-of-range float
                       (fptosi/fptoui poison); a bool output dtype (sums of bool)

Deliberate departures from TVM 0.18:

- Layouts must permute the canonical ones (no packed layouts such as NCW4c, no GOIHW).
  Strides and dilation must hold one positive integer per spatial axis, kernel_size one
  integer per axis, padding (forward convolution) non-negative, groups >= 1; C and (forward)
  O, or (transposed) channels, divisible by groups. TVM's relations checked few of these.
- A grouped transposed convolution without both channels and kernel_size: TVM's relation
  gave the weight's O (per group) output channels, while topi's group_conv2d_transpose
  computes groups * O of them; the relation here says groups * O, what is computed.
- Transposed convolutions accept dilation and groups for 1-D as for 2-D (TVM's strategy
  refused dilation other than 1, and groups other than 1 for 1-D); the meaning above is the
  standard one (onnxruntime's ConvTranspose agrees). output_padding must be below the
  stride (topi asserted it).
- batch_matmul checks the sizes it can compare even when another dimension is ``?`` (TVM
  skipped every check then), and broadcasts a batch of 1 against a batch of 0 to 0 (TVM's
  relation took max(B, B') = 1)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ...syntax import ANY, AnyDim, Dim, TensorType, Type
from ..elementwise import _exact
from ..registry import (
    AttrKind,
    Attrs,
    OpDef,
    OpPattern,
    Reference,
    Relation,
    RelationError,
    ShapeFunc,
    attr_field,
    register,
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
    a = _attrs(attrs, DenseAttrs)
    data, weight = args
    dtype = np.dtype(a.out_dtype or data.dtype)
    x = _convert(data, dtype, "nn.dense")
    w = _convert(weight, dtype, "nn.dense")
    rows = int(np.prod(data.shape[:-1], dtype=np.int64))
    out = _contract(x.reshape(rows, data.shape[-1]), w.T, "nn.dense")
    return out.reshape(*data.shape[:-1], weight.shape[0])


def _bias_add_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, BiasAddAttrs)
    data = tensor_arg(arg_types[0], "data")
    axis = _axis(a.axis, len(data.shape))
    _vector(arg_types[1], data.shape[axis], data.dtype, "bias")
    return TensorType(data.shape, data.dtype)


def _bias_add_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    a = _attrs(attrs, BiasAddAttrs)
    data, bias = args
    axis = a.axis % data.ndim
    b = bias.reshape(bias.shape + (1,) * (data.ndim - axis - 1))
    if data.dtype.kind == "f":
        return np.asarray(data + b).astype(data.dtype)
    if data.dtype == np.bool_:
        raise _ub("nn.bias_add", "bool data (sums of bool have no defined meaning)")
    return _int_result(_exact(data) + _exact(b), data.dtype, "nn.bias_add", "a sum")


def _op(
    name: str,
    doc: str,
    *,
    relation: Relation,
    reference: Reference,
    check: str,
    relation_name: str,
    inputs: tuple[str, ...] = ("tensor_a", "tensor_b"),
    attrs_type: type[Attrs] | None = None,
    pattern: OpPattern = OpPattern.OUT_ELEMWISE_FUSABLE,
    shape_func: ShapeFunc | None = None,
) -> None:
    """Register one operator of this module, with its independent ``check``; unless told
    otherwise: no attributes, inputs tensor_a, tensor_b, pattern out_elemwise_fusable."""
    register(
        OpDef(
            name,
            inputs,
            attrs_type,
            pattern,
            doc,
            relation=relation,
            reference=reference,
            relation_name=relation_name,
            check=check,
            shape_func=shape_func,
        )
    )


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
