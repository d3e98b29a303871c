"""Dense layers and matrix products: nn.dense, nn.matmul, nn.batch_matmul, nn.bias_add.

Neural-network operators: softmax, dense, convolution, pooling, normalisation, padding.

::

    nn.softmax | nn.log_softmax(data, axis=-1)                  SoftmaxAttrs       out-fusable
    nn.dense(data, weight, units=, out_dtype="")                DenseAttrs         out-fusable
    nn.bias_add(data, bias, axis=1)                             BiasAddAttrs       broadcast
    nn.batch_flatten(data)                                                         injective
    nn.conv2d(data, weight, strides=(1, 1), ...)                Conv2DAttrs        out-fusable
    nn.max_pool2d(data, pool_size=, ...)                        MaxPool2DAttrs     out-fusable
    nn.avg_pool2d(data, pool_size=, ...)                        AvgPool2DAttrs     out-fusable
    nn.global_avg_pool2d(data, layout="NCHW", out_layout="")    GlobalPool2DAttrs  out-fusable
    nn.batch_norm(data, gamma, beta, moving_mean, moving_var, axis=1, ...)
                                                                BatchNormAttrs     out-fusable
    nn.dropout(data, rate=0.5)                                  DropoutAttrs       opaque
    nn.pad(data, pad_val, pad_width=, pad_mode="constant")      PadAttrs           injective

``name=`` marks a required attribute; out-fusable is out_elemwise_fusable. ``nn.dense``'s
``units`` is nullable but has no default in TVM, so it is required and written ``units=None``
when absent. Attribute fields follow TVM 0.18's ``include/tvm/relay/attrs/nn.h``, counting
only fields declared with ``TVM_ATTR_FIELD`` (``Conv2DAttrs`` and ``DenseAttrs`` also carry
``auto_scheduler_rewritten_layout`` and ``meta_schedule_original_shape`` as plain members,
which are not attributes). Argument names and patterns follow ``src/relay/op/nn/*.cc``; TVM
names ``nn.pad``'s second argument ``pad_val``.

Types (relation names as registered in TVM 0.18)::

    Softmax          nn.softmax, nn.log_softmax: the input type; -ndim <= axis < ndim
    Dense            (d1.., k), (u, k) -> (d1.., u) in out_dtype or data's dtype; with units=u
                     the weight must be exactly (u, k); weight's dtype is not checked
    BiasAdd          (d.., c @axis, ..), (c,) same dtype -> the data type
    BatchFlatten     (d0, d1, .., dk) -> (d0, d1*..*dk); ? from the first ? on; rank >= 1
    Conv2D           data in a permutation of NCHW, weight of OIHW, output of NCHW (out_layout
                     "" = data_layout); out extent floor((x + pad - ((k-1)*dil+1)) / stride) + 1
                     (>= 0), ? stays ?; channels/kernel_size, when set, must agree with the weight
                     (both set: the weight must be (channels, C/groups, kh, kw), or
                     (C, channels/C, kh, kw) for a depthwise call, groups == C == weight's O)
    MaxPool2D        H, W of `layout` become floor((x + pad - ((k-1)*dil+1) [+ stride-1 when
    AvgPool2D        ceil_mode]) / stride) + 1; other axes and dtype kept; out_layout ignored
    GlobalAvgPool2D  H, W of `layout` become 1
    BatchNorm        data, then four (C,) vectors of data's dtype, C = data.shape[axis],
                     -1 <= axis < ndim -> (data, (C,), (C,))
    Dropout          t -> (t, t)
    Pad              one (before, after) pair per axis; x -> x + before + after (? stays ?);
                     pad_val is any tensor (TVM's relation leaves it unconstrained)

Padding lists of conv2d and the pools hold 1, 2 or 4 integers: ``p`` pads every side,
``(t, l)`` pads top and bottom by ``t`` and left and right by ``l``, ``(t, l, b, r)`` is
explicit (``GetPaddingHeightWidth`` in ``src/relay/op/op_common.h``).

Meaning (what TVM 0.18's topi computes)::

    softmax        e = exp(x - max(x)); e / sum(e)          (topi/nn/softmax.py, any axis)
    log_softmax    x - max(x) - log(sum(exp(x - max(x))))   (the relay strategy passes axis)
    dense          sum_k cast(x[.., k]) * cast(w[j, k]) in the output dtype
    conv2d         cross-correlation on the zero-padded input, per group, both operands cast to
                   the output dtype first; a depthwise weight (C, m, kh, kw) is the grouped
                   weight (C*m, 1, kh, kw) (topi depthwise_conv2d_nchw)
    max_pool2d     max over the dilated window of the input padded with the dtype's lowest
                   finite value (``tvm::min_value``, not -inf); the reduction starts from that
                   value too, so an all -inf window gives the lowest finite value; ceil_mode
                   pads stride-1 more at the end (``pool_impl_nd`` in topi/nn/pooling.h) and
                   keeps a last window starting in that padding (onnxruntime drops it)
    avg_pool2d     window sum of the zero-padded input divided by: count_include_pad, the
                   number of window positions up to the end of the user padding (the ceil_mode
                   extension excluded); otherwise max(1, number of positions inside the input).
                   Both counts use TVM's formulas, truncating division included; a ceil_mode
                   window wholly in the extension counts 0 with count_include_pad (float: NaN)
    global_avg     mean over H and W: sum / (H*W)
    batch_norm     inference: (x - mean) / sqrt(var + eps) [* gamma] [+ beta] along axis, and
                   the moving mean and variance passed through (topi/nn/batch_norm.py,
                   training=False returns moving_mean * 1, moving_var * 1). SimplifyInference
                   rewrites field 0 as x * s + (-mean * s) [+ beta] with s = 1/sqrt(var + eps)
                   [* gamma]: equal in exact arithmetic, not bit for bit
    dropout        (data, ones): TVM has no compute for nn.dropout; SimplifyInference replaces
                   field 0 by the data, and the mask (1 where kept, by DropoutRel's comment)
                   is all ones in inference
    pad            topi::pad: constant fills pad_val cast to data's dtype (its element at index
                   0..0); edge repeats the border; reflect mirrors without repeating it
                   (index before - i, and 2n - i + before - 2 after the end); a negative width
                   crops

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
    max_pool2d          a window holding NaN: Max is select(a > b, a, b) with an ordered
                        compare (codegen_llvm.cc), so the result depends on reduction order
    avg_pool2d          integers: 32/64-bit overflow of a window sum, a zero divisor (the
                        count_include_pad count is 0 for a window lying wholly in the
                        ceil_mode extension; division by zero); bool data
    global_avg_pool2d   integers: 32/64-bit overflow of the sum, H*W not representable in
                        the dtype (``cast(dtype, extent)`` in topi adaptive_pool_impl) or 0;
                        bool data
    softmax, log_softmax, batch_norm
                        non-float data (exp, log and sqrt are float intrinsics; TVM's relation
                        accepts other dtypes but nothing defines the result)
    pad                 edge or reflect reading outside the input (reflect width >= the
                        axis extent, either mode on an empty axis): topi::pad indexes the
                        input out of bounds; a pad_val with no elements; casting a NaN or
                        out-of-range float pad_val to an integer dtype

Deliberate departures from TVM 0.18:

- conv2d accepts only layouts that permute NCHW (data, output) and OIHW (kernel); TVM also
  took packed layouts (NCHW4c) and GOIHW. Strides and dilation must be 2 positive integers,
  kernel_size 2 integers, groups >= 1, padding non-negative, the kernel non-empty; grouped
  calls need C and (depthwise aside) the output channels divisible by groups. TVM's relation
  did not check these; topi asserted some at compile time.
- max_pool2d and avg_pool2d reject a window longer than the padded input (TVM's relation
  divided with truncation there, topi with floor, so the two disagreed), negative padding,
  non-positive pool_size, strides or dilation, and lists not of length 2. A pooling layout is
  a TVM layout string (``NCHW``, ``NHWC``, ``NCHW16c``) with one axis per data axis.
- pad rejects pad_mode other than constant, edge and reflect.
- dense batches data of any rank >= 1 over its leading axes, as DenseRel's type says (some
  topi versions asserted 2-D data).
- float16 is computed in float32 (above).

More convolutions and products: 1-D and 3-D convolution, transposed convolution, matmul,
batch_matmul and prelu.

::

    nn.conv1d(data, weight, strides=(1,), padding=(0, 0), dilation=(1,), groups=1,
              channels=None, kernel_size=None, data_layout="NCW", kernel_layout="OIW",
              out_dtype="")                                   Conv1DAttrs           out-fusable
    nn.conv3d(data, weight, strides=(1, 1, 1), padding=(0, 0, 0), ..., data_layout="NCDHW",
              kernel_layout="OIDHW", out_layout="", out_dtype="")
                                                              Conv3DAttrs           out-fusable
    nn.conv1d_transpose(data, weight, channels=None, kernel_size=None, strides=(1,),
              output_padding=(0,), padding=(0,), dilation=(1,), groups=1, data_layout="NCW",
              kernel_layout="IOW", out_layout="", out_dtype="")
                                                              Conv1DTransposeAttrs  out-fusable
    nn.conv2d_transpose(data, weight, ..., strides=(1, 1), output_padding=(0, 0),
              padding=(0, 0), dilation=(1, 1), groups=1, data_layout="NCHW",
              kernel_layout="IOHW", out_layout="", out_dtype="")
                                                              Conv2DTransposeAttrs  out-fusable
    nn.matmul(tensor_a, tensor_b, units=, out_dtype="", transpose_a=False, transpose_b=False)
                                                              MatmulAttrs           out-fusable
    nn.batch_matmul(tensor_a, tensor_b, out_dtype="", transpose_a=False, transpose_b=False)
                                                              BatchMatmulAttrs      out-fusable
    nn.prelu(data, alpha, axis=1)                             PReluAttrs            broadcast

``name=`` marks a required attribute (``units`` is nullable without a default, as in
``nn.dense``). Fields follow TVM 0.18's ``include/tvm/relay/attrs/nn.h``, counting only fields
declared with ``TVM_ATTR_FIELD``: ``Conv1DAttrs`` has an ``out_layout`` member but never
declared it, so conv1d has no ``out_layout`` attribute and its output is in ``data_layout``.
``BatchMatmulAttrs.transpose_b`` defaults to False, as the attributes class declares it;
TVM's Python builder ``relay.nn.batch_matmul`` passed ``transpose_b=True`` explicitly, and the
printer then wrote it, so a printed call says ``transpose_b=True`` (the NT form) in full.

Types (relation names as registered in TVM 0.18)::

    Conv1D, Conv3D    data in a permutation of NCW / NCDHW, weight of OIW / OIDHW (O, C/groups,
                      k..), output in data_layout (conv1d) or out_layout ("" = data_layout);
                      extent floor((x + pad - ((k-1)*dil+1)) / stride) + 1 per spatial axis,
                      ? stays ?; channels and kernel_size, when set, must match the weight;
                      C and O divisible by groups; dtype out_dtype or data's
    Conv1DTranspose   data NCW / NCHW permutations, weight IOW / IOHW (C, O/groups, k..); C must
    Conv2DTranspose   equal the weight's I; output channels O = groups * weight's O (or
                      channels when set), extent stride*(x-1) + (k-1)*dil + 1 - pad + out_pad
                      (? stays ?), which must be >= 0; 0 <= output_padding < stride
    Matmul            a (.., k) (transpose_a: (.., k, m), rank >= 2), b (k, n) (transpose_b:
                      (n, k)); result (.., n) or (.., m, n), dtype out_dtype or a's; with
                      units=u, b must be exactly (k, u) / (u, k); b's dtype is not checked
    BatchMatmul       a (B, m, k) (transpose_a: (B, k, m)), b (B', k, n) (transpose_b:
                      (B', n, k)); B and B' equal or one of them 1 (? skips the check);
                      result (batch, m, n), batch the one not 1 (? if either is ?), dtype
                      out_dtype or a's
    PRelu             alpha is (data.shape[axis],) of data's dtype, 0 <= axis < rank; result
                      data's type

Padding of the convolutions holds, per spatial axis count ``d``: 1 integer (every side), ``d``
integers (each axis padded at both ends) or ``2d`` (all the befores, then all the afters):
``GetPaddingWidth``, ``GetPaddingHeightWidth`` and ``GetPaddingDepthHeightWidth`` in
``src/relay/op/op_common.h``. output_padding holds exactly ``d`` integers.

Meaning (what TVM 0.18's topi computes)::

    conv1d, conv3d     cross-correlation of the zero-padded input with the weight, per group,
                       both operands cast to the output dtype first (as nn.conv2d)
    conv1d_transpose,  the adjoint of that correlation: out[n, g*O/G + o, y..] = sum over c in
    conv2d_transpose   group g and window offsets j of x[n, c, i..] * w[c, o, j..] where
                       y = i*stride - pad_before + j*dil; equivalently (topi) a correlation of
                       the stride-dilated input, padded (k-1)*dil - pad_before before and
                       (k-1)*dil - pad_after + output_padding after (negative crops), with
                       the kernel flipped; output positions nothing reaches are 0
    matmul             sum_k cast(a[.., i, k]) * cast(b[k, j]) in the output dtype (batches
                       over a's leading axes, as nn.dense)
    batch_matmul       the same per batch, a batch of 1 broadcast
    prelu              x > 0 ? x : x * alpha[index along axis] (topi prelu: a Select)

Integers, float16 and out_dtype follow ``ops.nn`` exactly: 32/64-bit integer overflow of a
product or of the total is undefined, narrower integers wrap, float16 is computed in float32
and rounded once, operands are converted to the output dtype as TVM's cast does.

Undefined behaviour (``UndefinedBehavior``)::

    every convolution, matmul, batch_matmul
                       32/64-bit integer overflow of a product or of the total (nsw/nuw);
                       an operand cast to the output dtype from NaN or an out-of-range float
                       (fptosi/fptoui poison); a bool output dtype (sums of bool)
    prelu              32/64-bit integer overflow of x * alpha where x <= 0 is selected

Deliberate departures from TVM 0.18:

- Layouts must permute the canonical ones (no packed layouts such as NCW4c, no GOIHW).
  Strides and dilation must hold one positive integer per spatial axis, kernel_size one
  integer per axis, padding (forward convolution) non-negative, groups >= 1; C and (forward)
  O, or (transposed) channels, divisible by groups. TVM's relations checked few of these.
- Conv1DRel and Conv3DRel have no depthwise weight form (TVM's conv2d reads (C, m, kh, kw)
  specially; its 1-D and 3-D relations do not either).
- A grouped transposed convolution without both channels and kernel_size: TVM's relation
  gave the weight's O (per group) output channels, while topi's group_conv2d_transpose
  computes groups * O of them; the relation here says groups * O, what is computed.
- Transposed convolutions accept dilation and groups for 1-D as for 2-D (TVM's strategy
  refused dilation other than 1, and groups other than 1 for 1-D); the meaning above is the
  standard one (onnxruntime's ConvTranspose agrees). output_padding must be below the
  stride (topi asserted it).
- batch_matmul checks the sizes it can compare even when another dimension is ``?`` (TVM
  skipped every check then), and broadcasts a batch of 1 against a batch of 0 to 0 (TVM's
  relation took max(B, B') = 1).
- prelu rejects a negative axis, as TVM's relation did (it indexed the shape with it).
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
