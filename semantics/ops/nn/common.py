"""Helpers the nn.* operator modules (and image) share: attributes, layouts, exact arithmetic.

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
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias, TypeVar

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view

from ...errors import UndefinedBehavior
from ...syntax import Dim, TensorType, Type
from ..elementwise import _exact
from ..registry import Attrs, RelationError
from ..shapes import dims_equal, tensor_arg

_LAYOUT_DOC = "Input layout, e.g. NCHW or NHWC."


_OUT_LAYOUT_DOC = 'Output layout; "" means the input layout.'


_OUT_DTYPE_DOC = 'Output data type; "" means the input dtype.'


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


def _vector(t: Type, length: Dim, dtype: str, what: str) -> None:
    """``t`` must be the 1-D tensor type ``Tensor[(length,), dtype]``."""
    v = tensor_arg(t, what)
    if len(v.shape) != 1 or dims_equal(v.shape[0], length) is False or v.dtype != dtype:
        raise RelationError(
            f"expected Tensor[({length},), {dtype}] for {what}, "
            f"found Tensor[{_shape_str(v.shape)}, {v.dtype}]"
        )


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
    kernel: tuple[int, ...],
    strides: tuple[int, ...],
    dilation: tuple[int, ...],
    out: tuple[int, ...],
) -> _Num:
    """The dilated, strided windows of the last ``len(kernel)`` axes: ``(.., *out, *kernel)``."""
    nd = len(kernel)
    if any(e <= 0 for e in out):
        return np.zeros((*x.shape[: x.ndim - nd], *(max(e, 0) for e in out), *kernel), x.dtype)
    spans = tuple((k - 1) * d + 1 for k, d in zip(kernel, dilation, strict=True))
    view = sliding_window_view(x, spans, axis=tuple(range(x.ndim - nd, x.ndim)))
    index: tuple[Any, ...] = (
        Ellipsis,
        *(slice(0, (e - 1) * s + 1, s) for e, s in zip(out, strides, strict=True)),
        *(slice(None, None, d) for d in dilation),
    )
    return np.asarray(view[index])
