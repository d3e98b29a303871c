"""Neural-network operators: softmax, dense, convolution, pooling, normalisation, padding.

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
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias, TypeVar

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

from ..errors import UndefinedBehavior
from ..syntax import ANY, AnyDim, Dim, TensorType, TupleType, Type
from .registry import (
    AttrKind,
    Attrs,
    OpDef,
    OpPattern,
    RelationError,
    attr_field,
    register,
)
from .shapes import (
    add_dims,
    dims_equal,
    floordiv_dims,
    mul_dims,
    prod_dims,
    sub_dims,
    tensor_arg,
)

_LAYOUT_DOC = "Input layout, e.g. NCHW or NHWC."
_OUT_LAYOUT_DOC = 'Output layout; "" means the input layout.'
_OUT_DTYPE_DOC = 'Output data type; "" means the input dtype.'


@dataclass(frozen=True, slots=True)
class SoftmaxAttrs(Attrs):
    """Attributes of ``nn.softmax`` and ``nn.log_softmax``: the normalised axis."""

    type_key: ClassVar[str] = "relay.attrs.SoftmaxAttrs"
    axis: int = attr_field(AttrKind.INT, -1, doc="The axis to sum over.")


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


@dataclass(frozen=True, slots=True)
class Conv2DAttrs(Attrs):
    """Attributes of ``nn.conv2d``: window geometry, grouping and layouts."""

    type_key: ClassVar[str] = "relay.attrs.Conv2DAttrs"
    strides: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Stride per spatial axis.")
    padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0, 0), doc="Zero padding: 1, 2 or 4 ints (top, left, bottom, right)."
    )
    dilation: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Dilation per spatial axis.")
    groups: int = attr_field(AttrKind.INT, 1, doc="Number of groups the channels split into.")
    channels: int | None = attr_field(
        AttrKind.INT, None, optional=True, doc="Output channels; None infers them from weight."
    )
    kernel_size: tuple[int, ...] | None = attr_field(
        AttrKind.INTS, None, optional=True, doc="Window size; None infers it from weight."
    )
    data_layout: str = attr_field(AttrKind.STR, "NCHW", doc=_LAYOUT_DOC)
    kernel_layout: str = attr_field(AttrKind.STR, "OIHW", doc="Weight layout, e.g. OIHW.")
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)
    out_dtype: str = attr_field(AttrKind.DTYPE, "", doc=_OUT_DTYPE_DOC)


@dataclass(frozen=True, slots=True)
class MaxPool2DAttrs(Attrs):
    """Attributes of ``nn.max_pool2d``: window geometry and layouts."""

    type_key: ClassVar[str] = "relay.attrs.MaxPool2DAttrs"
    pool_size: tuple[int, ...] = attr_field(AttrKind.INTS, doc="Size of the pooling window.")
    strides: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Stride per spatial axis.")
    dilation: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Dilation per spatial axis.")
    padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0, 0), doc="Padding: 1, 2 or 4 ints (top, left, bottom, right)."
    )
    layout: str = attr_field(AttrKind.STR, "NCHW", doc=_LAYOUT_DOC)
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)
    ceil_mode: bool = attr_field(
        AttrKind.BOOL, False, doc="Round the output extent up instead of down."
    )


@dataclass(frozen=True, slots=True)
class AvgPool2DAttrs(Attrs):
    """Attributes of ``nn.avg_pool2d``: window geometry, layouts and padding policy."""

    type_key: ClassVar[str] = "relay.attrs.AvgPool2DAttrs"
    pool_size: tuple[int, ...] = attr_field(AttrKind.INTS, doc="Size of the pooling window.")
    strides: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Stride per spatial axis.")
    dilation: tuple[int, ...] = attr_field(AttrKind.INTS, (1, 1), doc="Dilation per spatial axis.")
    padding: tuple[int, ...] = attr_field(
        AttrKind.INTS, (0, 0), doc="Padding: 1, 2 or 4 ints (top, left, bottom, right)."
    )
    layout: str = attr_field(AttrKind.STR, "NCHW", doc=_LAYOUT_DOC)
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)
    ceil_mode: bool = attr_field(
        AttrKind.BOOL, False, doc="Round the output extent up instead of down."
    )
    count_include_pad: bool = attr_field(
        AttrKind.BOOL, False, doc="Count padded elements in each average's divisor."
    )


@dataclass(frozen=True, slots=True)
class GlobalPool2DAttrs(Attrs):
    """Attributes of ``nn.global_avg_pool2d``: the layouts."""

    type_key: ClassVar[str] = "relay.attrs.GlobalPool2DAttrs"
    layout: str = attr_field(AttrKind.STR, "NCHW", doc=_LAYOUT_DOC)
    out_layout: str = attr_field(AttrKind.STR, "", doc=_OUT_LAYOUT_DOC)


@dataclass(frozen=True, slots=True)
class BatchNormAttrs(Attrs):
    """Attributes of ``nn.batch_norm``: the channel axis, epsilon and which affine terms apply."""

    type_key: ClassVar[str] = "relay.attrs.BatchNormAttrs"
    axis: int = attr_field(AttrKind.INT, 1, doc="The channel axis.")
    epsilon: float = attr_field(
        AttrKind.FLOAT, 1e-5, doc="Added to the variance to avoid dividing by zero."
    )
    center: bool = attr_field(AttrKind.BOOL, True, doc="Add the offset beta.")
    scale: bool = attr_field(AttrKind.BOOL, True, doc="Multiply by the scale gamma.")


@dataclass(frozen=True, slots=True)
class DropoutAttrs(Attrs):
    """Attributes of ``nn.dropout``: the fraction of elements dropped in training."""

    type_key: ClassVar[str] = "relay.attrs.DropoutAttrs"
    rate: float = attr_field(
        AttrKind.FLOAT, 0.5, doc="Fraction of the input dropped during training."
    )


@dataclass(frozen=True, slots=True)
class PadAttrs(Attrs):
    """Attributes of ``nn.pad``: the padding per axis and how it is filled."""

    type_key: ClassVar[str] = "relay.attrs.PadAttrs"
    pad_width: tuple[tuple[int, ...], ...] = attr_field(
        AttrKind.INTS_2D, doc="(before, after) padding for every axis."
    )
    pad_mode: str = attr_field(
        AttrKind.STR, "constant", doc='"constant" (pad_val), "edge" or "reflect".'
    )


# ---------------------------------------------------------------------------------------------
# Shared helpers: attributes, shapes, layouts

_A = TypeVar("_A", bound=Attrs)
_Num: TypeAlias = npt.NDArray[Any]
"""Arrays inside the references, whose element type varies."""


def _attrs(attrs: Attrs | None, cls: type[_A]) -> _A:
    if not isinstance(attrs, cls):
        raise RelationError(f"expected {cls.__name__}, found {type(attrs).__name__}")
    return attrs


def _shape_str(shape: Sequence[Dim]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _show(values: Sequence[int] | Sequence[Sequence[int]]) -> str:
    """An attribute list as the text format writes it: ``[1, 2]``, ``[[1, 1], [0, 2]]``."""
    return "[" + ", ".join(str(v) if isinstance(v, int) else _show(v) for v in values) + "]"


def _axis(axis: int, ndim: int) -> int:
    """The ``axis`` attribute in ``[-ndim, ndim)`` as an index, or a ``RelationError``."""
    if not -ndim <= axis < ndim:
        allowed = f"expected {-ndim} <= axis < {ndim}" if ndim else "it has no axes"
        raise RelationError(f"axis={axis} is out of range for a tensor of rank {ndim} ({allowed})")
    return axis + ndim if axis < 0 else axis


def _check_rank(t: TensorType, rank: int, what: str) -> None:
    if len(t.shape) != rank:
        raise RelationError(
            f"expected a {rank}-D tensor for {what}, found rank {len(t.shape)} "
            f"{_shape_str(t.shape)}"
        )


def _pair(values: Sequence[int], what: str, *, positive: bool = True) -> tuple[int, int]:
    if len(values) != 2:
        raise RelationError(f"expected 2 integers in {what}, found {what}={_show(values)}")
    if positive and min(values) < 1:
        raise RelationError(f"expected positive {what}, found {what}={_show(values)}")
    return values[0], values[1]


def _padding4(padding: Sequence[int]) -> tuple[int, int, int, int]:
    """``(top, left, bottom, right)`` from 1, 2 or 4 integers (``GetPaddingHeightWidth``)."""
    if len(padding) == 1:
        p = padding[0]
        out = (p, p, p, p)
    elif len(padding) == 2:
        out = (padding[0], padding[1], padding[0], padding[1])
    elif len(padding) == 4:
        out = (padding[0], padding[1], padding[2], padding[3])
    else:
        raise RelationError(
            f"expected 1, 2 or 4 integers in padding, found padding={_show(padding)}"
        )
    if min(out) < 0:
        raise RelationError(f"expected non-negative padding, found padding={_show(padding)}")
    return out


def _permutation(layout: str, canonical: str, what: str) -> tuple[int, ...]:
    """Indices taking an array in ``layout`` to ``canonical`` order (``np.transpose``)."""
    if len(layout) != len(canonical) or sorted(layout) != sorted(canonical):
        raise RelationError(
            f'{what}="{layout}" is not supported: expected a permutation of {canonical} '
            f"(packed layouts such as NCHW4c are not supported)"
        )
    return tuple(layout.index(axis) for axis in canonical)


_LAYOUT_AXIS = re.compile(r"[A-Z]|[0-9]*[a-z]")


def _spatial_axes(layout: str, rank: int) -> tuple[int, int]:
    """The H and W positions of a pooling ``layout`` (a TVM layout string of ``rank`` axes)."""
    axes = _LAYOUT_AXIS.findall(layout)
    if "".join(axes) != layout or not axes:
        raise RelationError(f'layout="{layout}" is not a layout string')
    primal = [a for a in axes if a.isupper()]
    if len(set(primal)) != len(primal) or "H" not in primal or "W" not in primal:
        raise RelationError(f'layout="{layout}" is invalid: expected one H and one W axis')
    if any(a[-1] in "hw" for a in axes):
        raise RelationError(f'layout="{layout}" is invalid: H and W cannot be split')
    if len(axes) != rank:
        raise RelationError(f'layout="{layout}" has {len(axes)} axes but the data has rank {rank}')
    return axes.index("H"), axes.index("W")


def _vector(t: Type, length: Dim, dtype: str, what: str) -> None:
    """``t`` must be the 1-D tensor type ``Tensor[(length,), dtype]``."""
    v = tensor_arg(t, what)
    if len(v.shape) != 1 or dims_equal(v.shape[0], length) is False or v.dtype != dtype:
        raise RelationError(
            f"expected Tensor[({length},), {dtype}] for {what}, "
            f"found Tensor[{_shape_str(v.shape)}, {v.dtype}]"
        )


def _window_extent(k: Dim, dilation: int) -> Dim:
    """``(k - 1) * dilation + 1``: the span of a dilated window."""
    return add_dims(mul_dims(sub_dims(k, 1), dilation), 1)


# ---------------------------------------------------------------------------------------------
# Shared helpers: numeric semantics


def _ub(op: str, case: str) -> UndefinedBehavior:
    return UndefinedBehavior(f"{op}: {case}")


def _compute_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """Float16 is computed in float32 (see the module docstring)."""
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def _require_float(x: _Num, op: str) -> None:
    if x.dtype.kind != "f":
        raise _ub(op, f"{x.dtype} data (only float dtypes have a defined meaning)")


def _convert(x: _Num, dtype: np.dtype[Any], op: str) -> _Num:
    """TVM's cast (``CodeGenLLVM::CreateCast``): float to int must be in range."""
    if x.dtype == dtype:
        return x
    if dtype == np.bool_:
        return np.asarray((x != 0) & ~np.isnan(x) if x.dtype.kind == "f" else x != 0)
    if x.dtype.kind == "f" and dtype.kind in "iu":
        info = np.iinfo(dtype)
        t = np.trunc(x.astype(np.float64))
        if np.isnan(t).any() or (t < float(info.min)).any() or (t >= float(info.max) + 1).any():
            raise _ub(op, f"casting NaN or an out-of-range {x.dtype} value to {dtype}")
        return t.astype(dtype)
    with np.errstate(over="ignore"):
        return x.astype(dtype)


def _exact(x: _Num) -> _Num:
    """An integer array as Python integers, so that arithmetic on it cannot overflow."""
    return x.astype(np.int64).astype(object) if x.dtype != np.uint64 else x.astype(object)


def _int_result(exact: _Num, dtype: np.dtype[Any], op: str, what: str) -> _Num:
    """Exact integers as ``dtype``: narrow integers wrap; 32/64-bit overflow is undefined."""
    info = np.iinfo(dtype)
    if exact.size == 0:
        return exact.astype(dtype)
    if dtype.itemsize >= 4:
        if (exact < info.min).any() or (exact > info.max).any():
            raise _ub(
                op, f"{what} overflows {dtype} (nsw/nuw arithmetic in TVM's LLVM code generator)"
            )
        return exact.astype(dtype)
    span = 1 << (8 * dtype.itemsize)
    return np.asarray((exact - info.min) % span + info.min).astype(np.int64).astype(dtype)


def _trunc_div(a: _Num, b: _Num) -> _Num:
    """Integer division truncating toward zero, on exact (object) integers."""
    q = np.abs(a) // np.abs(b)
    return np.asarray(np.where((a < 0) != (b < 0), -q, q))


def _contract(a: _Num, b: _Num, op: str) -> _Num:
    """``a @ b`` (``(.., p, k) @ (.., k, m)``) in their common dtype, as TVM's te.sum of
    products in the output dtype."""
    dtype = a.dtype
    if dtype.kind == "f":
        cd = _compute_dtype(dtype)
        with np.errstate(all="ignore"):
            product: _Num = np.matmul(a.astype(cd), b.astype(cd))
        return product.astype(dtype)
    if dtype == np.bool_:
        raise _ub(op, "a bool output dtype (sums of bool have no defined meaning)")
    ea, eb = _exact(a), _exact(b)
    if dtype.itemsize >= 4 and a.size and b.size:
        info = np.iinfo(dtype)
        bound = max(abs(int(a.max())), abs(int(a.min()))) * max(
            abs(int(b.max())), abs(int(b.min()))
        )
        if bound > info.max:
            products = ea[..., :, :, None] * eb[..., None, :, :]
            _int_result(products, dtype, op, "a product")
    return _int_result(np.matmul(ea, eb), dtype, op, "a sum of products")


def _windows(
    x: _Num,
    kernel: tuple[int, int],
    strides: tuple[int, int],
    dilation: tuple[int, int],
    out: tuple[int, int],
) -> _Num:
    """The dilated, strided windows of the last two axes: ``(.., out_h, out_w, kh, kw)``."""
    (kh, kw), (sh, sw), (dh, dw), (oh, ow) = kernel, strides, dilation, out
    if oh <= 0 or ow <= 0:
        return np.zeros((*x.shape[:-2], max(oh, 0), max(ow, 0), kh, kw), x.dtype)
    span = ((kh - 1) * dh + 1, (kw - 1) * dw + 1)
    v = sliding_window_view(x, span, axis=(-2, -1))
    return np.asarray(v[..., : (oh - 1) * sh + 1 : sh, : (ow - 1) * sw + 1 : sw, ::dh, ::dw])


def _known(d: Dim) -> int:
    assert isinstance(d, int), f"expected a known extent, found {d}"
    return d


def _out_extent(n: int, pad: int, k: int, dilation: int, stride: int) -> int:
    return (n + pad - ((k - 1) * dilation + 1)) // stride + 1


# ---------------------------------------------------------------------------------------------
# nn.softmax, nn.log_softmax


def _softmax_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
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
    with np.errstate(all="ignore"):
        shifted, axis = _softmax_shifted(args, attrs, "nn.softmax")
        e = np.exp(shifted)
        return np.asarray(e / np.sum(e, axis=axis, keepdims=True)).astype(args[0].dtype)


def _log_softmax_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    with np.errstate(all="ignore"):
        shifted, axis = _softmax_shifted(args, attrs, "nn.log_softmax")
        total = np.sum(np.exp(shifted), axis=axis, keepdims=True)
        return np.asarray(shifted - np.log(total)).astype(args[0].dtype)


# ---------------------------------------------------------------------------------------------
# nn.dense, nn.bias_add, nn.batch_flatten


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


def _batch_flatten_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    data = tensor_arg(arg_types[0], "data")
    if not data.shape:
        raise RelationError("expected data of rank at least 1, found rank 0")
    rest = prod_dims(data.shape[1:])  # ? from the first ? on, as BatchFlattenRel
    return TensorType((data.shape[0], rest), data.dtype)


def _batch_flatten_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    data = args[0]
    return data.reshape(data.shape[0], int(np.prod(data.shape[1:], dtype=np.int64)))


# ---------------------------------------------------------------------------------------------
# nn.conv2d


def _conv2d_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, Conv2DAttrs)
    data = tensor_arg(arg_types[0], "data")
    weight = tensor_arg(arg_types[1], "weight")
    data_perm = _permutation(a.data_layout, "NCHW", "data_layout")
    kernel_perm = _permutation(a.kernel_layout, "OIHW", "kernel_layout")
    out_layout = a.out_layout or a.data_layout
    _permutation(out_layout, "NCHW", "out_layout")
    _check_rank(data, 4, f'data in data_layout="{a.data_layout}"')
    _check_rank(weight, 4, f'weight in kernel_layout="{a.kernel_layout}"')
    sh, sw = _pair(a.strides, "strides")
    dh, dw = _pair(a.dilation, "dilation")
    pt, pl, pb, pr = _padding4(a.padding)
    groups = a.groups
    if groups < 1:
        raise RelationError(f"expected groups >= 1, found groups={groups}")
    n, c, h, w = (data.shape[i] for i in data_perm)
    wshape = tuple(weight.shape[i] for i in kernel_perm)
    depthwise = groups > 1 and c == groups and wshape[0] == groups
    kernel_size = None if a.kernel_size is None else _pair(a.kernel_size, "kernel_size")
    channels: Dim
    kh: Dim
    kw: Dim
    if kernel_size is not None and a.channels is not None:
        if depthwise:
            expected = (c, floordiv_dims(a.channels, c), *kernel_size)
        else:
            expected = (a.channels, floordiv_dims(c, groups), *kernel_size)
        if any(dims_equal(f, e) is False for f, e in zip(wshape, expected, strict=True)):
            in_layout = tuple(expected["OIHW".index(axis)] for axis in a.kernel_layout)
            raise RelationError(
                f"weight shape {_shape_str(weight.shape)} does not match "
                f"{_shape_str(in_layout)} implied by channels={a.channels}, "
                f"kernel_size={_show(kernel_size)} and groups={groups}"
            )
        channels, (kh, kw) = a.channels, kernel_size
    else:
        if kernel_size is not None and any(
            dims_equal(f, e) is False for f, e in zip(wshape[2:], kernel_size, strict=True)
        ):
            raise RelationError(
                f"shape of weight {_shape_str(weight.shape)} is inconsistent with "
                f"kernel_size={_show(kernel_size)}"
            )
        if a.channels is not None and dims_equal(wshape[0], a.channels) is False:
            raise RelationError(
                f"weight {_shape_str(weight.shape)} has {wshape[0]} output channels, "
                f"expected channels={a.channels}"
            )
        if dims_equal(floordiv_dims(c, groups), wshape[1]) is False:
            raise RelationError(
                f"the input channels ({c}) divided by groups={groups} must match the input "
                f"channels of the weight ({wshape[1]}), weight shape {_shape_str(weight.shape)}"
            )
        channels, kh, kw = wshape[0], wshape[2], wshape[3]
    if groups > 1 and isinstance(c, int) and c % groups:
        raise RelationError(f"groups={groups} does not divide the input channels ({c})")
    if groups > 1 and not depthwise and isinstance(channels, int) and channels % groups:
        outputs = "" if a.channels is None else f" (channels={a.channels})"
        raise RelationError(
            f"groups={groups} does not divide the output channels ({channels}){outputs}"
        )
    # kernel_size, when set, is positive (_pair) and equals the weight's extents.
    if any(isinstance(k, int) and k < 1 for k in (kh, kw)):
        raise RelationError(
            f"expected a non-empty kernel, found weight shape {_shape_str(weight.shape)}"
        )
    oh = _conv_extent(h, pt + pb, _window_extent(kh, dh), sh)
    ow = _conv_extent(w, pl + pr, _window_extent(kw, dw), sw)
    nchw = (n, channels, oh, ow)
    oshape = tuple(nchw["NCHW".index(axis)] for axis in out_layout)
    return TensorType(oshape, a.out_dtype or data.dtype)


def _conv_extent(x: Dim, pad: int, window: Dim, stride: int) -> Dim:
    if isinstance(x, AnyDim):
        return ANY
    out = add_dims(floordiv_dims(sub_dims(add_dims(x, pad), window), stride), 1)
    if isinstance(out, int) and out < 0:
        raise RelationError(
            f"the kernel window ({window}) is longer than the padded input ({add_dims(x, pad)})"
        )
    return out


def _conv2d_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    a = _attrs(attrs, Conv2DAttrs)
    data, weight = args
    dtype = np.dtype(a.out_dtype or data.dtype)
    x = _convert(
        np.transpose(data, _permutation(a.data_layout, "NCHW", "data_layout")), dtype, "nn.conv2d"
    )
    w = _convert(
        np.transpose(weight, _permutation(a.kernel_layout, "OIHW", "kernel_layout")),
        dtype,
        "nn.conv2d",
    )
    n, c, h, wd = x.shape
    o, i, kh, kw = w.shape
    g = a.groups
    if g > 1 and i != c // g:
        # Depthwise with a channel multiplier: TVM's weight (C, m, kh, kw) is the grouped
        # weight (C*m, 1, kh, kw) (topi depthwise_conv2d_nchw reads W[c, q] for channel c*m+q).
        o, i = o * i, 1
        w = w.reshape(o, i, kh, kw)
    pt, pl, pb, pr = _padding4(a.padding)
    strides, dilation = _pair(a.strides, "strides"), _pair(a.dilation, "dilation")
    oh = _out_extent(h, pt + pb, kh, dilation[0], strides[0])
    ow = _out_extent(wd, pl + pr, kw, dilation[1], strides[1])
    xp = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)))
    cols = _windows(xp, (kh, kw), strides, dilation, (oh, ow))  # (N, C, OH, OW, KH, KW)
    cg, og = c // g, o // g
    cols = cols.reshape(n, g, cg, oh, ow, kh, kw).transpose(0, 1, 3, 4, 2, 5, 6)
    cols = cols.reshape(n, g, oh * ow, cg * kh * kw)
    wm = w.reshape(g, og, cg * kh * kw).transpose(0, 2, 1)
    out = _contract(cols, wm, "nn.conv2d")  # (N, G, OH*OW, O/G)
    out = out.reshape(n, g, oh, ow, og).transpose(0, 1, 4, 2, 3).reshape(n, o, oh, ow)
    out_layout = a.out_layout or a.data_layout
    return np.ascontiguousarray(np.transpose(out, tuple("NCHW".index(ax) for ax in out_layout)))


# ---------------------------------------------------------------------------------------------
# nn.max_pool2d, nn.avg_pool2d, nn.global_avg_pool2d

_Pool2DAttrs = MaxPool2DAttrs | AvgPool2DAttrs


class _PoolGeometry:
    """A pooling call's window, resolved: H/W axes, window, strides, dilation, padding."""

    def __init__(self, a: _Pool2DAttrs, rank: int) -> None:
        self.hidx, self.widx = _spatial_axes(a.layout, rank)
        self.kernel = _pair(a.pool_size, "pool_size")
        self.strides = _pair(a.strides, "strides")
        self.dilation = _pair(a.dilation, "dilation")
        top, left, bottom, right = _padding4(a.padding)
        self.head = (top, left)
        self.tail = (bottom, right)
        # ceil_mode pads stride - 1 more at the end (pool_impl_nd's offset).
        self.offset = (self.strides[0] - 1, self.strides[1] - 1) if a.ceil_mode else (0, 0)

    def extent(self, axis: int, x: Dim) -> Dim:
        """The output extent along spatial ``axis`` (0: H, 1: W) of an input extent ``x``."""
        if isinstance(x, AnyDim):
            return ANY
        pad = self.head[axis] + self.tail[axis] + self.offset[axis]
        window = (self.kernel[axis] - 1) * self.dilation[axis] + 1
        numerator = sub_dims(add_dims(x, pad), window)
        if isinstance(numerator, int) and numerator < 0:
            raise RelationError(
                f"the pooling window ({window}) is longer than the padded input "
                f"({add_dims(x, pad)})"
            )
        return add_dims(floordiv_dims(numerator, self.strides[axis]), 1)


def _pool2d_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    if not isinstance(attrs, MaxPool2DAttrs | AvgPool2DAttrs):
        raise RelationError(f"expected pooling attributes, found {type(attrs).__name__}")
    data = tensor_arg(arg_types[0], "data")
    if len(data.shape) < 2:
        raise RelationError(f"expected data of rank at least 2, found rank {len(data.shape)}")
    geometry = _PoolGeometry(attrs, len(data.shape))
    shape = list(data.shape)
    for axis, index in enumerate((geometry.hidx, geometry.widx)):
        shape[index] = geometry.extent(axis, data.shape[index])
    return TensorType(tuple(shape), data.dtype)


def _pool_windows(
    data: _Num, g: _PoolGeometry, fill: np.number[Any] | np.bool_ | int
) -> tuple[_Num, tuple[int, int]]:
    """Windows ``(.., OH, OW, KH, KW)`` of ``data`` with H and W moved last, padded with
    ``fill`` (the ceil_mode extension included), and the output extents."""
    x = np.moveaxis(data, (g.hidx, g.widx), (-2, -1))
    oh, ow = (_known(g.extent(i, x.shape[-2 + i])) for i in range(2))
    pads = [(0, 0)] * (x.ndim - 2) + [(g.head[i], g.tail[i] + g.offset[i]) for i in range(2)]
    xp = np.pad(x, pads, constant_values=fill)
    return _windows(xp, g.kernel, g.strides, g.dilation, (oh, ow)), (oh, ow)


def _restore_axes(out: _Num, g: _PoolGeometry) -> _Num:
    return np.ascontiguousarray(np.moveaxis(out, (-2, -1), (g.hidx, g.widx)))


def _lowest(dtype: np.dtype[Any]) -> np.number[Any] | np.bool_:
    """``tvm::min_value``: the lowest finite value (float16: -65504), INT_MIN, 0, false."""
    if dtype.kind == "f":
        finite: np.number[Any] = np.finfo(dtype).min
        return finite
    if dtype == np.bool_:
        return np.bool_(False)
    lowest: np.number[Any] = dtype.type(np.iinfo(dtype).min)
    return lowest


def _max_pool2d_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    a = _attrs(attrs, MaxPool2DAttrs)
    data = args[0]
    g = _PoolGeometry(a, data.ndim)
    lowest = _lowest(data.dtype)
    win, _ = _pool_windows(data, g, lowest)
    if data.dtype.kind == "f" and np.isnan(win).any():
        raise _ub("nn.max_pool2d", "a pooling window holds NaN (the result depends on order)")
    # te.max starts its reduction from the lowest finite value.
    out: _Num = win.max(axis=(-2, -1), initial=lowest)
    return _restore_axes(out.astype(data.dtype), g)


def _avg_divisor(
    g: _PoolGeometry, extent: tuple[int, int], out: tuple[int, int], include_pad: bool
) -> _Num:
    """The divisor of every output position, as topi's ``pool_impl_nd`` computes it."""
    factors = []
    for i in range(2):
        k, s, d = g.kernel[i], g.strides[i], g.dilation[i]
        start = np.arange(out[i], dtype=np.int64) * s - g.head[i]
        end = start + (k - 1) * d
        if include_pad:
            last = extent[i] + g.tail[i] - 1  # the ceil_mode extension is not counted
            first = start
        else:
            last = extent[i] - 1
            jumps = np.maximum(_trunc_div(_exact(d - 1 - start), np.asarray(d)), 0)
            first = start + d * jumps.astype(np.int64)
        span = _exact(np.minimum(end, last) - first)
        factors.append(_trunc_div(span, np.asarray(d)).astype(np.int64) + 1)
    count = factors[0][:, None] * factors[1][None, :]
    return count if include_pad else np.maximum(count, 1)


def _avg_pool2d_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    a = _attrs(attrs, AvgPool2DAttrs)
    data = args[0]
    op = "nn.avg_pool2d"
    if data.dtype == np.bool_:
        raise _ub(op, "bool data (sums of bool have no defined meaning)")
    g = _PoolGeometry(a, data.ndim)
    extent = (data.shape[g.hidx], data.shape[g.widx])
    if data.dtype.kind == "f":
        win, out = _pool_windows(data.astype(_compute_dtype(data.dtype)), g, 0)
        divisor = _avg_divisor(g, extent, out, a.count_include_pad)
        with np.errstate(all="ignore"):
            result = win.sum(axis=(-2, -1)) / divisor.astype(win.dtype)
        return _restore_axes(np.asarray(result).astype(data.dtype), g)
    win, out = _pool_windows(data, g, 0)
    total = _int_result(_exact(win).sum(axis=(-2, -1)), data.dtype, op, "a window sum")
    divisor = _avg_divisor(g, extent, out, a.count_include_pad)
    if (divisor == 0).any():
        raise _ub(op, "integer division by a zero element count")
    quotient = _trunc_div(_exact(total), _exact(np.broadcast_to(divisor, total.shape)))
    return _restore_axes(_int_result(quotient, data.dtype, op, "an average"), g)


def _global_pool2d_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, GlobalPool2DAttrs)
    data = tensor_arg(arg_types[0], "data")
    if len(data.shape) < 2:
        raise RelationError(f"expected data of rank at least 2, found rank {len(data.shape)}")
    hidx, widx = _spatial_axes(a.layout, len(data.shape))
    shape = list(data.shape)
    shape[hidx] = shape[widx] = 1
    return TensorType(tuple(shape), data.dtype)


def _global_avg_pool2d_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    a = _attrs(attrs, GlobalPool2DAttrs)
    data = args[0]
    op = "nn.global_avg_pool2d"
    axes = _spatial_axes(a.layout, data.ndim)
    count = data.shape[axes[0]] * data.shape[axes[1]]
    if data.dtype.kind == "f":
        x = data.astype(_compute_dtype(data.dtype))
        with np.errstate(all="ignore"):
            result = x.sum(axis=axes, keepdims=True) / x.dtype.type(count)
        return np.asarray(result).astype(data.dtype)
    if data.dtype == np.bool_:
        raise _ub(op, "bool data (sums of bool have no defined meaning)")
    info = np.iinfo(data.dtype)
    if not 0 < count <= info.max:
        raise _ub(op, f"the element count {count} is 0 or not representable in {data.dtype}")
    total = _int_result(_exact(data).sum(axis=axes, keepdims=True), data.dtype, op, "the sum")
    return _int_result(_trunc_div(_exact(total), np.asarray(count)), data.dtype, op, "a mean")


# ---------------------------------------------------------------------------------------------
# nn.batch_norm, nn.dropout


def _batch_norm_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, BatchNormAttrs)
    data = tensor_arg(arg_types[0], "data")
    rank = len(data.shape)
    if not (-1 <= a.axis < rank) or rank == 0:
        allowed = f"expected -1 <= axis < {rank}" if rank else "it has no axes"
        raise RelationError(
            f"axis={a.axis} is out of range for a tensor of rank {rank} ({allowed}; batch_norm "
            "counts a negative axis only as -1)"
        )
    c = data.shape[a.axis]
    for name, t in zip(("gamma", "beta", "moving_mean", "moving_var"), arg_types[1:], strict=True):
        _vector(t, c, data.dtype, name)
    vector = TensorType((c,), data.dtype)
    return TupleType((TensorType(data.shape, data.dtype), vector, vector))


def _batch_norm_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> tuple[_Num, _Num, _Num]:
    a = _attrs(attrs, BatchNormAttrs)
    data, gamma, beta, mean, var = args
    _require_float(data, "nn.batch_norm")
    cd = _compute_dtype(data.dtype)
    axis = a.axis % data.ndim
    shape = [1] * data.ndim
    shape[axis] = data.shape[axis]

    def along(v: _Num) -> _Num:
        return v.astype(cd).reshape(shape)

    with np.errstate(all="ignore"):
        eps = cd.type(data.dtype.type(a.epsilon))  # topi adds epsilon as a data-dtype constant
        out = (data.astype(cd) - along(mean)) / np.sqrt(along(var) + eps)
        if a.scale:
            out = out * along(gamma)
        if a.center:
            out = out + along(beta)
    return np.asarray(out).astype(data.dtype), mean.copy(), var.copy()


def _dropout_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    data = tensor_arg(arg_types[0], "data")
    t = TensorType(data.shape, data.dtype)
    return TupleType((t, t))


def _dropout_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> tuple[_Num, _Num]:
    data = args[0]
    return data.copy(), np.ones_like(data)


# ---------------------------------------------------------------------------------------------
# nn.pad

_PAD_MODES = ("constant", "edge", "reflect")


def _pad_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, PadAttrs)
    data = tensor_arg(arg_types[0], "data")
    tensor_arg(arg_types[1], "pad_val")
    if len(a.pad_width) != len(data.shape):
        raise RelationError(
            f"expected {len(data.shape)} (before, after) pairs in pad_width, one per axis of "
            f"{_shape_str(data.shape)}, found {len(a.pad_width)}: pad_width={_show(a.pad_width)}"
        )
    if a.pad_mode not in _PAD_MODES:
        raise RelationError(
            f'expected pad_mode "constant", "edge" or "reflect", found pad_mode="{a.pad_mode}"'
        )
    shape: list[Dim] = []
    for axis, (d, pair) in enumerate(zip(data.shape, a.pad_width, strict=True)):
        if len(pair) != 2:
            raise RelationError(
                f"expected a (before, after) pair for axis {axis} in "
                f"pad_width={_show(a.pad_width)}, found {_show(pair)}"
            )
        out = add_dims(d, pair[0] + pair[1])
        if isinstance(out, int) and out < 0:
            raise RelationError(
                f"pad_width={_show(a.pad_width)} pads axis {axis} of extent {d} by "
                f"{_show(pair)}, leaving a negative extent {out}"
            )
        shape.append(out)
    return TensorType(tuple(shape), data.dtype)


def _pad_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    a = _attrs(attrs, PadAttrs)
    data, pad_val = args
    op = "nn.pad"
    if pad_val.size == 0:
        raise _ub(op, "pad_val has no elements")
    value = _convert(pad_val.reshape(-1)[:1], data.dtype, op)[0]
    out_shape = tuple(n + b + e for n, (b, e) in zip(data.shape, a.pad_width, strict=True))
    sources: list[_Num] = []
    inside: list[_Num] = []
    for n, (before, after) in zip(data.shape, a.pad_width, strict=True):
        o = np.arange(n + before + after, dtype=np.int64)
        within = (o >= before) & (o < before + n)
        if a.pad_mode == "edge":
            source = np.where(o < before, 0, np.where(o >= before + n, n - 1, o - before))
        elif a.pad_mode == "reflect":
            source = np.where(
                o < before,
                before - o,
                np.where(o >= before + n, 2 * n - o + before - 2, o - before),
            )
        else:
            source = np.where(within, o - before, 0)
        if a.pad_mode != "constant" and ((source < 0) | (source >= n)).any():
            raise _ub(
                op,
                f"{a.pad_mode} padding of an axis of extent {n} by {(before, after)} "
                "reads outside the input",
            )
        sources.append(source)
        inside.append(within)
    if a.pad_mode == "constant" and any(n == 0 for n in data.shape):
        return np.full(out_shape, value, data.dtype)
    gathered = data[np.ix_(*sources)] if data.ndim else data.copy()
    if a.pad_mode != "constant" or not data.ndim:
        return np.asarray(gathered, data.dtype)
    mask = np.ones(out_shape, bool)
    for axis, within in enumerate(inside):
        mask &= within.reshape((-1,) + (1,) * (data.ndim - axis - 1))
    return np.where(mask, gathered, value).astype(data.dtype)


# ---------------------------------------------------------------------------------------------
# Registration

register(
    OpDef(
        "nn.softmax",
        ("data",),
        SoftmaxAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "Softmax along axis: exp(x) / sum(exp(x)).",
        relation=_softmax_relation,
        reference=_softmax_reference,
        relation_name="Softmax",
        family="nn",
        check="onnxruntime:Softmax",
    )
)
register(
    OpDef(
        "nn.log_softmax",
        ("data",),
        SoftmaxAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "Logarithm of the softmax along axis.",
        relation=_softmax_relation,
        reference=_log_softmax_reference,
        relation_name="Softmax",
        family="nn",
        check="onnxruntime:LogSoftmax",
    )
)
register(
    OpDef(
        "nn.dense",
        ("data", "weight"),
        DenseAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "Fully connected layer: data times the transpose of weight (units, in).",
        relation=_dense_relation,
        reference=_dense_reference,
        relation_name="Dense",
        family="nn",
        check="onnxruntime:Gemm",
    )
)
register(
    OpDef(
        "nn.bias_add",
        ("data", "bias"),
        BiasAddAttrs,
        OpPattern.BROADCAST,
        "Add the 1-D bias to data along axis.",
        relation=_bias_add_relation,
        reference=_bias_add_reference,
        relation_name="BiasAdd",
        family="nn",
        check="independent:element loop data[i] + bias[i[axis]]",
    )
)
register(
    OpDef(
        "nn.batch_flatten",
        ("data",),
        None,
        OpPattern.INJECTIVE,
        "Flatten every axis but the first: (d1, d2, ..., dk) to (d1, d2*...*dk).",
        relation=_batch_flatten_relation,
        reference=_batch_flatten_reference,
        relation_name="BatchFlatten",
        family="nn",
        check="onnxruntime:Flatten",
    )
)
register(
    OpDef(
        "nn.conv2d",
        ("data", "weight"),
        Conv2DAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "2-D convolution (cross-correlation) of data with weight.",
        relation=_conv2d_relation,
        reference=_conv2d_reference,
        relation_name="Conv2D",
        family="nn",
        check="onnxruntime:Conv",
    )
)
register(
    OpDef(
        "nn.max_pool2d",
        ("data",),
        MaxPool2DAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "2-D max pooling.",
        relation=_pool2d_relation,
        reference=_max_pool2d_reference,
        relation_name="MaxPool2D",
        family="nn",
        check="onnxruntime:MaxPool",
    )
)
register(
    OpDef(
        "nn.avg_pool2d",
        ("data",),
        AvgPool2DAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "2-D average pooling.",
        relation=_pool2d_relation,
        reference=_avg_pool2d_reference,
        relation_name="AvgPool2D",
        family="nn",
        check="onnxruntime:AveragePool",
    )
)
register(
    OpDef(
        "nn.global_avg_pool2d",
        ("data",),
        GlobalPool2DAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "Average over the whole of each spatial plane.",
        relation=_global_pool2d_relation,
        reference=_global_avg_pool2d_reference,
        relation_name="GlobalAvgPool2D",
        family="nn",
        check="onnxruntime:GlobalAveragePool",
    )
)
register(
    OpDef(
        "nn.batch_norm",
        ("data", "gamma", "beta", "moving_mean", "moving_var"),
        BatchNormAttrs,
        OpPattern.OUT_ELEMWISE_FUSABLE,
        "Batch normalisation; a 3-tuple (normalised data, moving mean, moving variance).",
        relation=_batch_norm_relation,
        reference=_batch_norm_reference,
        relation_name="BatchNorm",
        family="nn",
        check="onnxruntime:BatchNormalization",
    )
)
register(
    OpDef(
        "nn.dropout",
        ("data",),
        DropoutAttrs,
        OpPattern.OPAQUE,
        "Dropout (training only); a 2-tuple (out, mask).",
        relation=_dropout_relation,
        reference=_dropout_reference,
        relation_name="Dropout",
        family="nn",
        check="onnxruntime:Dropout",
    )
)
register(
    OpDef(
        "nn.pad",
        ("data", "pad_val"),
        PadAttrs,
        OpPattern.INJECTIVE,
        "Pad each axis of data by pad_width, filling with pad_val in constant mode.",
        relation=_pad_relation,
        reference=_pad_reference,
        relation_name="Pad",
        family="nn",
        check="onnxruntime:Pad",
    )
)
