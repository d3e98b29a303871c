"""The interpreter's kernels: faster ways to compute what the operators' reference functions do.

The spec's reference functions (``OpDef.reference``) are written to be read: each elementwise
call broadcasts, sets numpy's error state and, for 32- and 64-bit integers, computes exactly
in Python integers to find overflow. On a scalar that costs tens of microseconds, and list and
loop programs are made of scalar operations. ``kernel_for(name, reference)`` gives the kernel
the machine runs for an operator: the reference itself, or one of the kernels below, which
fall back to the reference for every case they do not cover, so their meaning is the
reference's by construction where they defer, and by a test where they do not
(``property_tests/test_fast_paths.py``, ``tests/test_interpreter_kernels.py``).

**Scalar fast paths** (``SCALAR_BINARY``, ``SCALAR_UNARY``): a call whose operands are rank-0
arrays of one of the language's dtypes (both of the same dtype), for ``add subtract multiply
divide floor_divide mod floor_mod maximum minimum``, the comparisons, ``logical_and logical_or
logical_not`` and ``negative``. Integer and bool arithmetic is done in Python integers, then
wrapped (``int8 int16 uint8 uint16 bool``) or bounds-checked (``int32 int64 uint32 uint64``);
float arithmetic runs the reference's own numpy expression on the same rank-0 arrays, so it is
computed in the dtype (never in Python's float64). Comparisons compare the exact Python values
(every float of the language converts exactly to a Python float, and Python compares floats
as IEEE does; ``not_equal`` of floats is ordered, like the reference's). Every case the
reference treats as undefined or erroneous (overflow where it is undefined, an integer divisor
of zero, the smallest signed integer divided by -1) is handed to the reference, which raises
its own ``UndefinedBehavior`` with its own message. The machine runs its loop with numpy's
errors ignored (``np.errstate(all="ignore")``), as the reference does around its arithmetic.

**Tensor kernels** (``TENSOR``): ``nn.conv2d`` as one matrix product per group over an im2col
matrix (the reference builds it through a sliding-window view, a gather that costs far more
than the product): for outputs narrower than ``FLAT_PATCHES_BELOW`` columns (small feature
maps, where numpy's cost is per short row) each window position's row is one long copy out of
the padded input's flattened stride phases, with a few discarded columns; wider ones take
``kh * kw`` strided copies. Depthwise and grouped convolutions are the same batched product.
An ungrouped float convolution with at most half as many output channels as input ones builds
no im2col matrix: it sums one matrix product per window tap, each reading a slice of those flattened
stride phases in place (the matrix is ``kh * kw`` times the input; the products are each the
size of the output). A depthwise one sums, per tap, that tap's slice of every channel (one
contiguous block: the phases flattened channel after channel) times its weight per channel.
``nn.dense`` as one matrix product that reads the weight transposed in place;
``nn.max_pool2d`` as a running maximum over the window's shifted slices (a NaN in a window
shows in the result, and then the reference runs and raises); ``nn.avg_pool2d`` (no
``ceil_mode``) as a running sum (global pooling: one ``np.sum``) divided by the reference's
count; ``nn.batch_norm`` as the reference's formula evaluated in place; ``nn.relu`` of floats
as ``fmax(x, 0) + 0`` (the same bits as ``x > 0 ? x : 0``, including NaN and -0.0), the 0 a
kept array of zeros; ``nn.bias_add`` and float tensor ``add subtract multiply divide`` as the
reference's numpy expression without its broadcast views and copies; ``concatenate`` of
tensors that agree off the axis, and ``reshape`` to positive extents and one ``-1``, without
the reference's run-time type check; ``transpose`` with its axes normalised once. Only float
data is handled (``concatenate``, ``reshape`` and ``transpose``: any dtype; ``nn.conv2d``: also
integer data of at most 16 bits into an int32/int64 ``out_dtype``, summed exactly in float64
when every partial sum is below ``2^53``, so bit for bit the reference's; an overflowing total
goes to the reference, which says it is undefined); other integer data, unusual layouts and
attributes go to the reference. ``nn.conv2d``, ``nn.dense``, ``nn.max_pool2d`` and
``nn.avg_pool2d`` may differ from the reference by rounding (the summation order, the sign of
a zero maximum), within the tolerance policy (``oracles/compare.py``, with the reduction
length of the product or window); so that small programs (the generated ones the oracle
checks) see the reference's own rounding, the product kernels run only from
``CONV2D_MIN_WORK`` and ``DENSE_MIN_WORK`` multiply-adds up.

**The allocator** (``keep_freed_memory``): the first tensor kernel asks glibc's malloc to keep
freed memory, so that a network's layer outputs are not page-faulted afresh on every call.
"""

from __future__ import annotations

import ctypes
import functools
import operator
from collections.abc import Callable
from typing import Any, TypeAlias, cast

import numpy as np
import numpy.typing as npt

from ..semantics.errors import RelayError
from ..semantics.ops.nn.conv import Conv2DAttrs, _is_packed
from ..semantics.ops.nn.dense import BiasAddAttrs, DenseAttrs
from ..semantics.ops.nn.norm import BatchNormAttrs
from ..semantics.ops.nn.pool import AvgPool2DAttrs, MaxPool2DAttrs
from ..semantics.ops.registry import Attrs, Reference, RelationError
from ..semantics.ops.shape import (
    ConcatenateAttrs,
    LayoutTransformAttrs,
    ReshapeAttrs,
    TransposeAttrs,
    _layout_transform_reference,
    _transpose_axes,
)

Array: TypeAlias = npt.NDArray[Any]
Args: TypeAlias = tuple[Array, ...]

_ndarray = np.ndarray

# ---------------------------------------------------------------------------------------------
# Scalar fast paths


class _DtypeInfo:
    """What the scalar paths need to know of a dtype."""

    __slots__ = ("dtype", "hi", "is_bool", "is_float", "lo", "mask", "signed", "wraps")

    def __init__(self, name: str) -> None:
        self.dtype = np.dtype(name)
        self.is_bool = name == "bool"
        self.is_float = name.startswith("float")
        self.signed = name.startswith("int")
        if self.is_float:
            self.lo, self.hi, self.mask, self.wraps = 0, 0, 0, False
        elif self.is_bool:
            self.lo, self.hi, self.mask, self.wraps = 0, 1, 1, True  # i1 arithmetic is mod 2
        else:
            info = np.iinfo(self.dtype)
            self.lo, self.hi = int(info.min), int(info.max)
            self.mask = (1 << (8 * self.dtype.itemsize)) - 1
            # LLVM's nsw/nuw arithmetic (integers of 32 bits and more) makes overflow undefined.
            self.wraps = self.dtype.itemsize < 4


_INFO: dict[np.dtype[Any], _DtypeInfo] = {
    info.dtype: info
    for info in map(
        _DtypeInfo,
        ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float16", "float32", "float64"),
    )
}  # fmt: skip

IntOp: TypeAlias = Callable[[int, int, _DtypeInfo], "int | None"]
"""Integer arithmetic on exact values: the exact result, or ``None`` where the reference
decides (an undefined or erroneous case)."""

FloatOp: TypeAlias = Callable[[Array, Array], Any]
"""Float arithmetic on rank-0 arrays, as the reference's kernel writes it."""


def _fit(x: int, info: _DtypeInfo) -> int | None:
    """An exact integer result stored in the dtype: wrapped, or ``None`` if it overflows."""
    if info.wraps:
        return ((x - info.lo) & info.mask) + info.lo
    return x if info.lo <= x <= info.hi else None


def _int_add(a: int, b: int, info: _DtypeInfo) -> int | None:
    return _fit(a + b, info)


def _int_subtract(a: int, b: int, info: _DtypeInfo) -> int | None:
    return _fit(a - b, info)


def _int_multiply(a: int, b: int, info: _DtypeInfo) -> int | None:
    return _fit(a * b, info)


def _divisible(a: int, b: int, info: _DtypeInfo) -> bool:
    """Not one of the undefined divisions: by zero, or the smallest signed integer by -1."""
    return b != 0 and not (info.signed and b == -1 and a == info.lo)


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return -q if (a < 0) != (b < 0) else q


def _int_divide(a: int, b: int, info: _DtypeInfo) -> int | None:
    return _trunc_div(a, b) if _divisible(a, b, info) else None


def _int_mod(a: int, b: int, info: _DtypeInfo) -> int | None:
    return a - b * _trunc_div(a, b) if _divisible(a, b, info) else None  # the dividend's sign


def _int_floor_divide(a: int, b: int, info: _DtypeInfo) -> int | None:
    return a // b if _divisible(a, b, info) else None


def _int_floor_mod(a: int, b: int, info: _DtypeInfo) -> int | None:
    return a % b if _divisible(a, b, info) else None  # the divisor's sign


def _float_floor_mod(a: Array, b: Array) -> Any:
    return a - np.floor(a / b) * b


SCALAR_ARITHMETIC: dict[str, tuple[IntOp, FloatOp]] = {
    "add": (_int_add, operator.add),
    "subtract": (_int_subtract, operator.sub),
    "multiply": (_int_multiply, operator.mul),
    "divide": (_int_divide, operator.truediv),
    "mod": (_int_mod, np.fmod),
    "floor_divide": (_int_floor_divide, lambda a, b: np.floor(a / b)),
    "floor_mod": (_int_floor_mod, _float_floor_mod),
}
"""The arithmetic operators with a scalar fast path: the integer (and bool) computation, and
the float one (the reference's formula: ``floor_mod`` is ``a - floor(a / b) * b``)."""

TENSOR_ARITHMETIC: dict[str, FloatOp] = {
    "add": np.add,
    "subtract": np.subtract,
    "multiply": np.multiply,
    "divide": np.true_divide,
}
"""Float tensors of one dtype (any ranks): the reference's own numpy ufunc, broadcasting by
itself (the reference broadcasts both operands to views first, and sets the error state)."""

INT32_TENSOR_ARITHMETIC = frozenset({"add", "subtract"})
"""int32 tensors: summed exactly in int64; a result outside int32 (undefined: nsw) goes to the
reference, which reports it."""

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1

Compare: TypeAlias = Callable[[Any, Any], bool]

SCALAR_COMPARISON: dict[str, tuple[Compare, Compare]] = {
    "equal": (operator.eq, operator.eq),
    "not_equal": (operator.ne, lambda x, y: x < y or x > y),  # fcmp one: false on NaN
    "less": (operator.lt, operator.lt),
    "less_equal": (operator.le, operator.le),
    "greater": (operator.gt, operator.gt),
    "greater_equal": (operator.ge, operator.ge),
}
"""The comparisons with a scalar fast path, on exact values: for integers, and for floats."""


def _scalar_arithmetic(name: str, reference: Reference) -> Reference:
    int_op, float_op = SCALAR_ARITHMETIC[name]
    tensor_op = TENSOR_ARITHMETIC.get(name)
    info_of = _INFO.get

    def kernel(args: Args, attrs: Attrs | None) -> Array | Args:
        if len(args) == 2:
            a, b = args
            if type(a) is _ndarray and type(b) is _ndarray and not a.ndim and not b.ndim:
                dtype = a.dtype
                info = info_of(dtype)
                if info is not None and (b.dtype is dtype or b.dtype == dtype):
                    if info.is_float:
                        return np.asarray(float_op(a, b))
                    out = int_op(a.item(), b.item(), info)
                    if out is not None:
                        return np.array(out, dtype)
            elif tensor_op is not None and type(a) is _ndarray and type(b) is _ndarray:
                dtype = a.dtype
                if dtype.kind == "f" and (b.dtype is dtype or b.dtype == dtype):
                    return np.asarray(tensor_op(a, b))
                if name in INT32_TENSOR_ARITHMETIC and dtype == np.int32 and b.dtype == dtype:
                    exact = tensor_op(a.astype(np.int64), b.astype(np.int64))
                    if not exact.size or (exact.min() >= INT32_MIN and exact.max() <= INT32_MAX):
                        return np.asarray(exact.astype(np.int32))
        return reference(args, attrs)

    return cast(Reference, kernel)


def _scalar_comparison(name: str, reference: Reference) -> Reference:
    exact, ordered = SCALAR_COMPARISON[name]
    info_of = _INFO.get

    def kernel(args: Args, attrs: Attrs | None) -> Array | Args:
        if len(args) == 2:
            a, b = args
            if type(a) is _ndarray and type(b) is _ndarray and not a.ndim and not b.ndim:
                dtype = a.dtype
                info = info_of(dtype)
                if info is not None and (b.dtype is dtype or b.dtype == dtype):
                    compare = ordered if info.is_float else exact
                    return np.array(compare(a.item(), b.item()))
        return reference(args, attrs)

    return cast(Reference, kernel)


def _scalar_select(name: str, reference: Reference) -> Reference:
    """``maximum`` (``a > b ? a : b``) and ``minimum`` (``a < b ? a : b``): the chosen operand's
    own bits (a NaN keeps its payload)."""
    pick_a = operator.gt if name == "maximum" else operator.lt
    info_of = _INFO.get

    def kernel(args: Args, attrs: Attrs | None) -> Array | Args:
        if len(args) == 2:
            a, b = args
            if type(a) is _ndarray and type(b) is _ndarray and not a.ndim and not b.ndim:
                dtype = a.dtype
                if info_of(dtype) is not None and (b.dtype is dtype or b.dtype == dtype):
                    return (a if pick_a(a.item(), b.item()) else b).copy()
        return reference(args, attrs)

    return cast(Reference, kernel)


def _scalar_logical(name: str, reference: Reference) -> Reference:
    """``logical_and`` and ``logical_or`` of bool scalars."""
    both = name == "logical_and"
    bool_ = np.dtype(np.bool_)

    def kernel(args: Args, attrs: Attrs | None) -> Array | Args:
        if len(args) == 2:
            a, b = args
            if (
                type(a) is _ndarray
                and type(b) is _ndarray
                and not a.ndim
                and not b.ndim
                and a.dtype == bool_
                and b.dtype == bool_
            ):
                x, y = a.item(), b.item()
                return np.array((x and y) if both else (x or y))
        return reference(args, attrs)

    return cast(Reference, kernel)


def _scalar_logical_not(name: str, reference: Reference) -> Reference:
    bool_ = np.dtype(np.bool_)

    def kernel(args: Args, attrs: Attrs | None) -> Array | Args:
        if len(args) == 1:
            (a,) = args
            if type(a) is _ndarray and not a.ndim and a.dtype == bool_:
                return np.array(not a.item())
        return reference(args, attrs)

    return cast(Reference, kernel)


def _scalar_negative(name: str, reference: Reference) -> Reference:
    """``negative``: ``0 - x`` for integers (wrapping or undefined as ``subtract``), IEEE
    negation for floats."""
    info_of = _INFO.get

    def kernel(args: Args, attrs: Attrs | None) -> Array | Args:
        if len(args) == 1:
            (a,) = args
            if type(a) is _ndarray and not a.ndim:
                info = info_of(a.dtype)
                if info is not None:
                    if info.is_float:
                        return np.asarray(np.negative(a))
                    out = _fit(-a.item(), info)
                    if out is not None:
                        return np.array(out, a.dtype)
        return reference(args, attrs)

    return cast(Reference, kernel)


KernelMaker: TypeAlias = Callable[[str, Reference], Reference]

SCALAR: dict[str, KernelMaker] = {
    **dict.fromkeys(SCALAR_ARITHMETIC, _scalar_arithmetic),
    **dict.fromkeys(SCALAR_COMPARISON, _scalar_comparison),
    "maximum": _scalar_select,
    "minimum": _scalar_select,
    "logical_and": _scalar_logical,
    "logical_or": _scalar_logical,
    "logical_not": _scalar_logical_not,
    "negative": _scalar_negative,
}
"""The operators with a scalar fast path, and how to build it around the reference."""


# ---------------------------------------------------------------------------------------------
# Tensor kernels


CONV2D_MIN_WORK = 1 << 17
"""Multiply-adds from which ``nn.conv2d`` runs the interpreter's kernel (below: the reference)."""


@functools.cache
def _dtype_name(dtype: np.dtype[Any]) -> str:
    """``dtype.name``, remembered per dtype (numpy computes it afresh, in microseconds)."""
    return dtype.name


@functools.cache
def _packed_layouts(data_layout: str, kernel_layout: str, out_layout: str) -> bool:
    """``_is_packed`` of a convolution's three layouts, cached."""
    layouts = Conv2DAttrs(data_layout=data_layout, kernel_layout=kernel_layout,
                          out_layout=out_layout)  # fmt: skip
    return _is_packed(layouts)


def _float_data(x: object) -> bool:
    return type(x) is _ndarray and cast(Array, x).dtype.kind == "f"


def _compute_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """Float16 is computed in float32, as the reference computes it."""
    return np.dtype(np.float32) if dtype == np.float16 else dtype


@functools.cache
def _permutation(layout: str, canonical: str) -> tuple[int, ...] | None:
    """Indices taking ``layout`` to ``canonical`` order, or ``None`` if it is not a permutation
    (cached: a network's convolutions ask it of a few layouts, on every call)."""
    if len(layout) != len(canonical) or sorted(layout) != sorted(canonical):
        return None
    return tuple(layout.index(axis) for axis in canonical)


def _padding4(padding: tuple[int, ...]) -> tuple[int, int, int, int] | None:
    """``(top, left, bottom, right)`` from 1, 2 or 4 non-negative integers, else ``None``."""
    if len(padding) == 1:
        out = (padding[0],) * 4
    elif len(padding) == 2:
        out = (padding[0], padding[1], padding[0], padding[1])
    elif len(padding) == 4:
        out = (padding[0], padding[1], padding[2], padding[3])
    else:
        return None
    return out if min(out) >= 0 else None


def _pair(values: tuple[int, ...]) -> tuple[int, int] | None:
    return (values[0], values[1]) if len(values) == 2 and min(values) >= 1 else None


def _out_extent(n: int, pad: int, k: int, dilation: int, stride: int) -> int:
    return (n + pad - ((k - 1) * dilation + 1)) // stride + 1


def _strided(x: Array, i: int, j: int, out: tuple[int, int], strides: tuple[int, int]) -> Array:
    """The last two axes of ``x`` from ``(i, j)`` on, ``out`` positions at ``strides``."""
    (oh, ow), (sh, sw) = out, strides
    return x[..., i : i + (oh - 1) * sh + 1 : sh, j : j + (ow - 1) * sw + 1 : sw]


def _pad_spatial(x: Array, pads: tuple[int, int, int, int], fill: object) -> Array:
    """``x`` with its last two axes padded by ``(top, left, bottom, right)`` of ``fill``."""
    pt, pl, pb, pr = pads
    if pads == (0, 0, 0, 0):
        return x
    h, wd = x.shape[-2:]
    xp = np.full((*x.shape[:-2], h + pt + pb, wd + pl + pr), fill, x.dtype)
    xp[..., pt : pt + h, pl : pl + wd] = x
    return xp


FLAT_PATCHES_BELOW = 32
"""Output widths below which ``nn.conv2d`` builds its im2col matrix from flat planes
(``_flat_patches``), one long copy per window position; from it on, one strided copy per
window position (rows are long enough, and the flat form's discarded columns cost more)."""


COMPACT_PATCHES_ABOVE = 8
"""Output channels per group above which the flat im2col matrix drops its discarded columns
before the product (a copy of the matrix) rather than after it."""


def _stride_planes(
    x: Array, pads: tuple[int, int, int, int], strides: tuple[int, int], fill: object = 0
) -> tuple[Array, int]:
    """The padded ``x`` (N, C, H, W) (padded with ``fill``: zeros by default) split into its
    ``SH * SW`` stride phases (``xp[.., a::SH, b::SW]``), each flattened to ``HQ * WQ`` with a
    row of slack after it: ``(SH, SW, N, C, (HQ + 1) * WQ)``, and the row pitch ``WQ``.

    Window tap ``(i, j)`` (its offset in input rows and columns, dilation included) of output
    ``(y, z)`` is then element ``(i // SH + y) * WQ + j // SW + z`` of phase ``(i % SH, j %
    SW)``: for every output of one tap, one contiguous slice of a flat plane, of ``OH * WQ``
    elements of which the columns ``z >= OW`` are to be discarded."""
    n, c, h, wd = x.shape
    (sh, sw), (pt, pl, pb, pr) = strides, pads
    hq, wq = -(-(h + pt + pb) // sh), -(-(wd + pl + pr) // sw)  # padded extents, rounded up
    shape = (sh, sw, n, c, (hq + 1) * wq)
    planes = np.zeros(shape, x.dtype) if fill == 0 else np.full(shape, fill, x.dtype)
    _fill_phases(planes[..., : hq * wq].reshape(sh, sw, n, c, hq, wq), x, (pt, pl), strides)
    return planes, wq


def _fill_phases(
    phases: Array, x: Array, before: tuple[int, int], strides: tuple[int, int]
) -> None:
    """Write ``x`` (N, C, H, W) into the padded stride phases ``(SH, SW, N, C, HQ, WQ)`` of its
    padding by ``before = (top, left)``: padded row ``r`` is row ``r // SH`` of phase row ``r %
    SH``, and so for columns; one strided copy per phase, with no padded copy of ``x``."""
    (pt, pl), (sh, sw) = before, strides
    h, wd = x.shape[2:]
    for a in range(sh):
        r0 = pt + (a - pt) % sh  # the first padded row of phase a that holds data
        rows = len(range(r0 - pt, h, sh))
        for b in range(sw):
            c0 = pl + (b - pl) % sw
            cols = len(range(c0 - pl, wd, sw))
            if rows and cols:
                phases[a, b, :, :, r0 // sh : r0 // sh + rows, c0 // sw : c0 // sw + cols] = x[
                    :, :, r0 - pt :: sh, c0 - pl :: sw
                ]


def _tap(
    planes: Array, wq: int, tap: tuple[int, int], strides: tuple[int, int], size: int
) -> Array:
    """The slice of ``_stride_planes`` that window tap ``tap`` (input offsets ``(i, j)``) reads
    for every output: ``(N, C, size)``."""
    (i, j), (sh, sw) = tap, strides
    offset = (i // sh) * wq + j // sw
    return planes[i % sh, j % sw, :, :, offset : offset + size]


def _flat_patches(
    x: Array,
    window: tuple[int, int],
    pads: tuple[int, int, int, int],
    strides: tuple[int, int],
    dilation: tuple[int, int],
    out_extent: tuple[int, int],
) -> tuple[Array, int]:
    """The im2col matrix of ``x`` (N, C, H, W): ``(N, C, KH*KW, OH*WQ)``, K ordered (channel,
    row, column) as the reference orders it, and the row pitch ``WQ >= OW`` of its positions:
    output ``(y, z)`` is column ``y * WQ + z``, and the columns ``z >= OW`` are to be discarded.

    A window position's row of the matrix is one contiguous slice of a flat stride phase of
    the padded input (``_stride_planes``, ``_tap``), so each is one long copy (numpy's cost on
    the short rows of small feature maps is per row)."""
    n, c = x.shape[:2]
    (kh, kw), (oh, _) = window, out_extent
    planes, wq = _stride_planes(x, pads, strides)
    size = oh * wq
    cols = np.empty((n, c, kh * kw, size), x.dtype)
    for r in range(kh):
        for s in range(kw):
            cols[:, :, r * kw + s] = _tap(planes, wq, (r * dilation[0], s * dilation[1]),
                                          strides, size)  # fmt: skip
    return cols, wq


def _tap_products(
    x: Array,
    w: Array,
    pads: tuple[int, int, int, int],
    strides: tuple[int, int],
    dilation: tuple[int, int],
    out_extent: tuple[int, int],
) -> tuple[Array, int]:
    """An ungrouped convolution of ``x`` (N, C, H, W) by ``w`` (O, C, KH, KW) as a sum over
    the window's taps of one matrix product each, ``w[:, :, r, s] @ tap(r, s)``, on the slices
    of ``_stride_planes`` (no im2col matrix): ``(N, O, OH, WQ)`` and the pitch ``WQ``, whose
    columns ``z >= OW`` are to be discarded.

    It moves less memory than im2col when the output has at most half the input's channels
    (the im2col matrix is ``KH * KW`` times the input; here each tap adds a product the size
    of the output; measured on cold caches, with as many output channels as input ones the
    products of few columns are slower than one long product). The sum runs in another order
    than the reference's, which the tolerance policy allows for a float convolution."""
    n = x.shape[0]
    o, _, kh, kw = w.shape
    oh = out_extent[0]
    planes, wq = _stride_planes(x, pads, strides)
    size = oh * wq
    taps = np.ascontiguousarray(np.transpose(w, (2, 3, 0, 1)))  # (KH, KW, O, C)
    out = np.empty((n, o, size), x.dtype)
    product = np.empty((n, o, size), x.dtype)
    for r in range(kh):
        for s in range(kw):
            window = _tap(planes, wq, (r * dilation[0], s * dilation[1]), strides, size)
            target = out if r == s == 0 else product
            for b in range(n):
                np.matmul(taps[r, s], window[b], out=target[b])
            if target is product:
                out += product
    return out.reshape(n, o, oh, wq), wq


def _depthwise_taps(
    x: Array,
    w: Array,
    pads: tuple[int, int, int, int],
    strides: tuple[int, int],
    dilation: tuple[int, int],
) -> Array:
    """A depthwise convolution of ``x`` (N, C, H, W) by ``w`` (C, KH, KW), one output channel
    per input channel, as a sum over the window's taps of the tap's slice of the padded input
    times its weight per channel: ``(N, C, HQ, WQ)``, of which the rows ``y >= OH`` and the
    columns ``z >= OW`` are to be discarded (at stride 1, ``HQ`` and ``WQ`` count the padding
    on one side only).

    The padded input's stride phases are flattened as one plane per phase, each channel's
    ``HQ * WQ`` elements after the previous one's (``_stride_planes`` leaves a row of slack
    between channels instead): a tap's slice for every channel and output is then one
    contiguous block, which numpy runs as one loop rather than a loop per channel (measured:
    about 25% faster on ShuffleNet's layers, for the discarded rows' extra work). The weight
    is broadcast into a buffer and multiplied as a whole array: numpy's multiplication by a
    value per row costs more than the copy and a whole-array product.

    Its working set is the padded input and the output, where an im2col matrix is ``KH * KW``
    times the input: on a network's cold caches it is the faster form (measured on ShuffleNet's
    layers)."""
    n, c, h, wd = x.shape
    kh, kw = w.shape[1:]
    (sh, sw), (pt, pl, pb, pr) = strides, pads
    if sh == sw == 1:
        # Neighbours share their padding: a row's right padding is the next row's left one, a
        # channel's bottom rows the next channel's top ones (a tap reading past a row's end or
        # a channel's last row lands in that zero padding), so less is computed and discarded.
        oh, ow = h + pt + pb - (kh - 1) * dilation[0], wd + pl + pr - (kw - 1) * dilation[1]
        hq, wq = max(h + max(pt, pb), oh), max(wd + max(pl, pr), ow)
    else:
        hq, wq = -(-(h + pt + pb) // sh), -(-(wd + pl + pr) // sw)  # padded, rounded up
    rows, pitch = n * c, hq * wq
    # Past the last channel's last tap:
    slack = ((kh - 1) * dilation[0] // sh + 1) * wq + (kw - 1) * dilation[1] // sw
    planes = np.zeros((sh, sw, rows * pitch + slack), x.dtype)
    _fill_phases(planes[..., : rows * pitch].reshape(sh, sw, n, c, hq, wq), x, (pt, pl), strides)
    weights = np.tile(w.reshape(c, kh * kw).T, (1, n)).reshape(kh * kw, rows, 1)
    out = np.empty((rows, pitch), x.dtype)
    product = np.empty((rows, pitch), x.dtype)
    for r in range(kh):
        for s in range(kw):
            i, j = r * dilation[0], s * dilation[1]
            offset = (i // sh) * wq + j // sw
            window = planes[i % sh, j % sw, offset : offset + rows * pitch].reshape(rows, pitch)
            if r == s == 0:
                np.multiply(window, weights[0], out=out)
            else:
                np.copyto(product, weights[r * kw + s])
                np.multiply(window, product, out=product)
                out += product
    return out.reshape(n, c, hq, wq)


_IDENTITY4 = (0, 1, 2, 3)


def conv2d(args: Args, op_attrs: Attrs | None, min_work: int = CONV2D_MIN_WORK) -> Array | None:
    """``nn.conv2d`` of float data as im2col and a matrix product per group; ``None`` where the
    reference should run (other dtypes, layouts or attributes, or less than ``min_work``
    multiply-adds)."""
    attrs = cast(Conv2DAttrs, op_attrs)
    data, weight = args
    if _packed_layouts(attrs.data_layout, attrs.kernel_layout, attrs.out_layout):
        return _packed_conv2d(args, attrs, min_work)
    integer = _exact_integer_product(data, weight, attrs.out_dtype)
    if not integer and not (
        _float_data(data) and type(weight) is _ndarray and weight.dtype == data.dtype
    ):
        return None
    if not integer and attrs.out_dtype not in ("", _dtype_name(data.dtype)):
        return None
    if data.ndim != 4 or weight.ndim != 4:
        return None
    perm_x = _permutation(attrs.data_layout, "NCHW")
    perm_w = _permutation(attrs.kernel_layout, "OIHW")
    perm_out = _permutation("NCHW", attrs.out_layout or attrs.data_layout)
    pads, strides = _padding4(attrs.padding), _pair(attrs.strides)
    dilation = _pair(attrs.dilation)
    if perm_x is None or perm_w is None or perm_out is None:
        return None
    if pads is None or strides is None or dilation is None:
        return None
    x = data if perm_x == _IDENTITY4 else np.transpose(data, perm_x)
    w = weight if perm_w == _IDENTITY4 else np.transpose(weight, perm_w)
    n, c, h, wd = x.shape
    o, i, kh, kw = w.shape
    g = attrs.groups
    if g < 1 or c % g:
        return None
    if g > 1 and i != c // g:
        # Depthwise with a channel multiplier, as the reference reads it: (C, m, kh, kw) is the
        # grouped weight (C*m, 1, kh, kw).
        o, i = o * i, 1
        w = w.reshape(o, i, kh, kw)
    cg = c // g
    if i != cg or o % g:
        return None
    og = o // g
    pt, pl, pb, pr = pads
    oh = _out_extent(h, pt + pb, kh, dilation[0], strides[0])
    ow = _out_extent(wd, pl + pr, kw, dilation[1], strides[1])
    if oh <= 0 or ow <= 0 or n * o * oh * ow * cg * kh * kw < min_work:
        return None
    k = cg * kh * kw
    if integer and not _exact_in_float64(data, weight, k):
        return None
    cd = np.dtype(np.float64) if integer else _compute_dtype(data.dtype)
    x = x.astype(cd, copy=False)
    wm = w.astype(cd, copy=False)
    if g == 1 and kh * kw > 1 and 2 * o <= c and not integer:
        # At most half as many output channels as input ones: a product per tap, no im2col.
        out, pitch = _tap_products(x, wm, pads, strides, dilation, (oh, ow))
        return _conv2d_result(out[..., :ow], data.dtype, perm_out)
    if g == c == o and kh * kw > 1 and not integer:
        # Depthwise: a weighted sum of the taps' slices, no im2col matrix.
        out = _depthwise_taps(x, wm.reshape(o, kh, kw), pads, strides, dilation)
        return _conv2d_result(out[:, :, :oh, :ow], data.dtype, perm_out)
    if kh == kw == 1 and pads == (0, 0, 0, 0) and strides == (1, 1):
        cols, pitch = x.reshape(n, g, k, h * wd), wd
    elif ow < FLAT_PATCHES_BELOW:
        patches, pitch = _flat_patches(x, (kh, kw), pads, strides, dilation, (oh, ow))
        cols = patches.reshape(n, g, k, oh * pitch)
        if og > COMPACT_PATCHES_ABOVE and pitch > ow:
            # Each discarded column costs og multiply-adds; dropping it first, one copy.
            cols = cols.reshape(n, g, k, oh, pitch)[..., :ow].reshape(n, g, k, oh * ow)
            pitch = ow
    else:
        xp = _pad_spatial(x, pads, 0)
        # The im2col matrix (K, P) per image and group, K ordered (channel, row, column) as
        # the reference orders it: one strided copy per window position.
        wide = np.empty((n, c, kh, kw, oh, ow), cd)
        for r in range(kh):
            for s in range(kw):
                wide[:, :, r, s] = _strided(xp, r * dilation[0], s * dilation[1], (oh, ow),
                                            strides)  # fmt: skip
        cols, pitch = wide.reshape(n, g, k, oh * ow), ow
    wm = wm.reshape(g, og, k)
    if n == 1 and g == 1:
        out = np.matmul(wm[0], cols[0, 0]).reshape(1, o, oh, pitch)
    else:
        out = np.matmul(wm, cols).reshape(n, o, oh, pitch)
    out = out[..., :ow]
    if integer:
        return _integer_result(out, attrs.out_dtype, perm_out)
    return _conv2d_result(out, data.dtype, perm_out)


def _conv2d_result(out: Array, dtype: np.dtype[Any], perm_out: tuple[int, ...]) -> Array:
    """A float convolution's NCHW result in the data's dtype and the output layout, contiguous."""
    out = out.astype(dtype, copy=False)
    return np.ascontiguousarray(out if perm_out == _IDENTITY4 else np.transpose(out, perm_out))


def _packed_conv2d(args: Args, attrs: Conv2DAttrs, min_work: int) -> Array | None:
    """A convolution over packed layouts as the reference defines it: the operands unpacked
    (``layout_transform``'s reference, numpy transposes), this kernel on NCHW/OIHW, the result
    packed into the output layout; ``None`` where the reference should run."""
    data, weight = args
    if type(data) is not _ndarray or type(weight) is not _ndarray or attrs.groups != 1:
        return None
    try:
        x = _repack(data, attrs.data_layout, "NCHW")
        w = _repack(weight, attrs.kernel_layout, "OIHW")
    except RelayError:
        return None
    plain = Conv2DAttrs(
        strides=attrs.strides,
        padding=attrs.padding,
        dilation=attrs.dilation,
        channels=attrs.channels,
        kernel_size=attrs.kernel_size,
        out_dtype=attrs.out_dtype,
    )
    out = conv2d((x, w), plain, min_work)
    if out is None:
        return None
    return np.ascontiguousarray(_repack(out, "NCHW", attrs.out_layout or attrs.data_layout))


def _repack(x: Array, src: str, dst: str) -> Array:
    out = _layout_transform_reference((x,), LayoutTransformAttrs(src_layout=src, dst_layout=dst))
    return cast(Array, out)


def _exact_integer_product(data: object, weight: object, out_dtype: str) -> bool:
    """Integer data and weight of one dtype of at most 16 bits and a 32- or 64-bit integer
    ``out_dtype`` (quantized convolutions): every product fits the output dtype, so only the
    total can overflow, and float64 sums them exactly when ``_exact_in_float64`` holds."""
    if type(data) is not _ndarray or type(weight) is not _ndarray:
        return False
    x, w = cast(Array, data), cast(Array, weight)
    return (
        x.dtype == w.dtype
        and x.dtype.kind in "iu"
        and x.dtype.itemsize <= 2
        and out_dtype in ("int32", "int64")
    )


def _exact_in_float64(data: Array, weight: Array, k: int) -> bool:
    """Every partial sum of ``k`` products is an integer below ``2^53`` in magnitude."""
    if not data.size or not weight.size:
        return False
    bound = max(abs(int(data.max())), abs(int(data.min())))
    bound *= max(abs(int(weight.max())), abs(int(weight.min())))
    return bound * k < 1 << 53


def _integer_result(out: Array, out_dtype: str, perm_out: tuple[int, ...]) -> Array | None:
    """The exact float64 sums as ``out_dtype``; ``None`` (the reference decides: overflow is
    undefined) when one does not fit."""
    info = np.iinfo(out_dtype)
    if out.size and (out.min() < info.min or out.max() > info.max):
        return None
    result = out.astype(out_dtype)
    return np.ascontiguousarray(np.transpose(result, perm_out))


DENSE_MIN_WORK = 1 << 18
"""Multiply-adds from which ``nn.dense`` runs the interpreter's kernel (below: the reference)."""


def dense(args: Args, op_attrs: Attrs | None, min_work: int = DENSE_MIN_WORK) -> Array | None:
    """``nn.dense`` of float data as one matrix product with the weight read transposed in
    place (the reference copies it first); ``None`` where the reference should run."""
    attrs = cast(DenseAttrs, op_attrs)
    data, weight = args
    if not (_float_data(data) and type(weight) is _ndarray and weight.dtype == data.dtype):
        return None
    if attrs.out_dtype not in ("", _dtype_name(data.dtype)) or data.ndim < 1 or weight.ndim != 2:
        return None
    units, k = weight.shape
    if data.shape[-1] != k or data.size * units < min_work:
        return None
    cd = _compute_dtype(data.dtype)
    x = data.astype(cd, copy=False).reshape(-1, k)
    out: Array = np.matmul(x, weight.astype(cd, copy=False).T)
    return out.astype(data.dtype, copy=False).reshape(*data.shape[:-1], units)


def _spatial_axes(layout: str, rank: int) -> tuple[int, int] | None:
    """The H and W positions of a layout of plain axes (``NCHW``, ``NHWC``, ...), else ``None``."""
    if len(layout) != rank or not layout.isalpha() or not layout.isupper():
        return None
    if len(set(layout)) != rank or "H" not in layout or "W" not in layout:
        return None
    return layout.index("H"), layout.index("W")


def max_pool2d(args: Args, op_attrs: Attrs | None) -> Array | None:
    """``nn.max_pool2d`` of float data without NaN as a running maximum over the window's
    taps, each one contiguous slice per channel of the input's flat stride phases
    (``_stride_planes``, padded with the lowest float) whose discarded columns are dropped
    after the maximum; ``None`` where the reference should run."""
    attrs = cast(MaxPool2DAttrs, op_attrs)
    (data,) = args
    if not _float_data(data) or attrs.ceil_mode or data.size == 0:
        return None
    axes = _spatial_axes(attrs.layout, data.ndim)
    if axes is None or attrs.out_layout not in ("", attrs.layout):
        return None
    kernel, strides = _pair(attrs.pool_size), _pair(attrs.strides)
    dilation, pads = _pair(attrs.dilation), _padding4(attrs.padding)
    if kernel is None or strides is None or dilation is None or pads is None:
        return None
    x = np.moveaxis(data, axes, (-2, -1))
    h, wd = x.shape[-2:]
    pt, pl, pb, pr = pads
    oh = _out_extent(h, pt + pb, kernel[0], dilation[0], strides[0])
    ow = _out_extent(wd, pl + pr, kernel[1], dilation[1], strides[1])
    if oh <= 0 or ow <= 0:
        return None
    lowest = data.dtype.type(np.finfo(data.dtype).min)  # te.max starts from it
    lead = x.shape[:-2]
    planes, wq = _stride_planes(x.reshape(1, -1, h, wd), pads, strides, lowest)
    out: Array | None = None
    for r in range(kernel[0]):
        for s in range(kernel[1]):
            window = _tap(planes, wq, (r * dilation[0], s * dilation[1]), strides, oh * wq)
            out = window.copy() if out is None else np.maximum(out, window, out=out)
    assert out is not None
    result = out.reshape(*lead, oh, wq)[..., :ow]  # the discarded columns may hold anything
    if np.isnan(result.max()):
        return None  # a window holds NaN (np.maximum propagates it): the reference raises
    result = np.maximum(result, lowest)
    return np.ascontiguousarray(np.moveaxis(result, (-2, -1), axes))


def avg_pool2d(args: Args, op_attrs: Attrs | None) -> Array | None:
    """``nn.avg_pool2d`` of float data without ``ceil_mode``: the window sums as a running sum
    of the window's taps (slices of the flat stride phases, as ``max_pool2d`` reads them, of
    the zero-padded input), divided by the reference's count
    (with ``count_include_pad`` the window's size; otherwise the window positions inside the
    input, the same running sum over ones, at least 1); ``None`` where the reference should
    run. A window the size of the unpadded input (global pooling) is one ``np.sum`` over the
    spatial axes instead. The sum's order differs from the reference's (within the policy,
    with the window's size as the reduction length)."""
    attrs = cast(AvgPool2DAttrs, op_attrs)
    (data,) = args
    if not _float_data(data) or attrs.ceil_mode or data.size == 0:
        return None
    axes = _spatial_axes(attrs.layout, data.ndim)
    if axes is None or attrs.out_layout not in ("", attrs.layout):
        return None
    kernel, strides = _pair(attrs.pool_size), _pair(attrs.strides)
    dilation, pads = _pair(attrs.dilation), _padding4(attrs.padding)
    if kernel is None or strides is None or dilation is None or pads is None:
        return None
    cd = _compute_dtype(data.dtype)
    x = np.moveaxis(data, axes, (-2, -1)).astype(cd, copy=False)
    h, wd = x.shape[-2:]
    pt, pl, pb, pr = pads
    extent = (
        _out_extent(h, pt + pb, kernel[0], dilation[0], strides[0]),
        _out_extent(wd, pl + pr, kernel[1], dilation[1], strides[1]),
    )
    if min(extent) <= 0:
        return None
    if pads == (0, 0, 0, 0) and dilation == (1, 1) and kernel == (h, wd):
        # Global pooling: one reduction (numpy's pairwise sum) instead of a pass per position.
        window_size = cd.type(kernel[0] * kernel[1])
        mean = np.sum(x, axis=(-2, -1), keepdims=True) / window_size
        return np.ascontiguousarray(np.moveaxis(mean.astype(data.dtype), (-2, -1), axes))
    (oh, ow), lead = extent, x.shape[:-2]
    planes, wq = _stride_planes(x.reshape(1, -1, h, wd), pads, strides)
    ones = None if attrs.count_include_pad else _pad_spatial(np.ones((h, wd), cd), pads, 0)
    sums: Array | None = None
    count: Array | None = None
    for r in range(kernel[0]):
        for s in range(kernel[1]):
            i, j = r * dilation[0], s * dilation[1]
            window = _tap(planes, wq, (i, j), strides, oh * wq)
            sums = window.copy() if sums is None else np.add(sums, window, out=sums)
            if ones is not None:
                inside = _strided(ones, i, j, extent, strides)
                count = inside.copy() if count is None else np.add(count, inside, out=count)
    assert sums is not None
    if count is None:
        divisor: Array = np.asarray(cd.type(kernel[0] * kernel[1]))
    else:
        divisor = np.maximum(count, 1)
    total = sums.reshape(*lead, oh, wq)[..., :ow] / divisor
    return np.ascontiguousarray(np.moveaxis(total.astype(data.dtype, copy=False), (-2, -1), axes))


def bias_add(args: Args, op_attrs: Attrs | None) -> Array | None:
    """``nn.bias_add`` of float data: the reference's sum, without its copy of the result."""
    attrs = cast(BiasAddAttrs, op_attrs)
    data, bias = args
    if not (_float_data(data) and type(bias) is _ndarray and bias.dtype == data.dtype):
        return None
    if data.ndim == 0 or bias.ndim != 1:
        return None
    axis = attrs.axis % data.ndim
    if bias.shape[0] != data.shape[axis]:
        return None
    out: Array = np.add(data, bias.reshape(bias.shape + (1,) * (data.ndim - axis - 1)))
    return out


def concatenate(args: Args, op_attrs: Attrs | None) -> Array | None:
    """``concatenate`` of a tuple of tensors of one dtype and rank that agree off the axis:
    ``np.concatenate``, without the reference's run-time type check (it would pass)."""
    attrs = cast(ConcatenateAttrs, op_attrs)
    arg: object = args[0] if len(args) == 1 else None
    if type(arg) is not tuple or not arg:
        return None
    fields = cast(tuple[object, ...], arg)
    first = fields[0]
    if type(first) is not _ndarray:
        return None
    first = cast(Array, first)
    ndim, dtype = first.ndim, first.dtype
    if ndim == 0 or not -ndim <= attrs.axis < ndim:
        return None
    axis = attrs.axis % ndim
    off_axis = first.shape[:axis] + first.shape[axis + 1 :]
    for field in fields:
        if type(field) is not _ndarray:
            return None
        f = cast(Array, field)
        if f.dtype != dtype or f.ndim != ndim or f.shape[:axis] + f.shape[axis + 1 :] != off_axis:
            return None
    return np.concatenate(cast(tuple[Array, ...], fields), axis=axis)


def batch_norm(args: Args, op_attrs: Attrs | None) -> tuple[Array, Array, Array] | None:
    """``nn.batch_norm`` of float data: the reference's formula, operation for operation, on
    one buffer (the same roundings, without the temporaries)."""
    attrs = cast(BatchNormAttrs, op_attrs)
    data, gamma, beta, mean, var = args
    if not _float_data(data) or data.ndim == 0:
        return None
    if not all(type(v) is _ndarray and v.ndim == 1 for v in (gamma, beta, mean, var)):
        return None
    cd = _compute_dtype(data.dtype)
    axis = attrs.axis % data.ndim
    shape = [1] * data.ndim
    shape[axis] = data.shape[axis]

    def along(v: Array) -> Array:
        return v.astype(cd, copy=False).reshape(shape)  # read, never written

    eps = cd.type(data.dtype.type(attrs.epsilon))
    out = np.subtract(data.astype(cd, copy=False), along(mean))
    out /= np.sqrt(along(var) + eps)
    if attrs.scale:
        out *= along(gamma)
    if attrs.center:
        out += along(beta)
    return out.astype(data.dtype, copy=False), mean.copy(), var.copy()


ZEROS_UP_TO = 1 << 22
"""Elements up to which ``zeros_like`` serves a view of one kept buffer of zeros per dtype."""

_ZEROS: dict[np.dtype[Any], Array] = {}


def zeros_like(x: Array) -> Array:
    """Zeros of ``x``'s shape and dtype, read-only: for at most ``ZEROS_UP_TO`` elements a view
    of a buffer kept per dtype (grown to the largest size asked for), so the zeros cost no pass
    of their own."""
    if x.size > ZEROS_UP_TO:
        return np.zeros(x.shape, x.dtype)
    buffer = _ZEROS.get(x.dtype)
    if buffer is None or buffer.size < x.size:
        buffer = np.zeros(max(x.size, 1 << 16), x.dtype)
        buffer.flags.writeable = False
        _ZEROS[x.dtype] = buffer
    return buffer[: x.size].reshape(x.shape)


def relu(args: Args) -> Array | None:
    """``nn.relu`` of float data: ``fmax(x, 0) + 0`` has the bits of ``x > 0 ? x : 0`` (NaN
    gives 0, and the addition turns -0.0 into 0.0). The zero of ``fmax`` is an array of zeros
    (``zeros_like``): numpy's ``fmax`` against a scalar takes a loop about three times slower
    (measured on ShuffleNet's activations)."""
    (x,) = args
    if not _float_data(x) or x.ndim == 0:
        return None
    zero = x.dtype.type(0)
    out: Array = np.fmax(x, zeros_like(x))
    out += zero
    return out


def reshape(args: Args, op_attrs: Attrs | None) -> Array | None:
    """``reshape`` to a shape of positive extents with at most one ``-1``: the reference's copy
    in the new shape, without its run-time type check; ``None`` for TVM's other special values
    (0, -2, -3, -4), empty data, or element counts that differ (the reference says why)."""
    attrs = cast(ReshapeAttrs, op_attrs)
    (data,) = args
    if type(data) is not _ndarray or data.size == 0:
        return None
    shape = list(attrs.newshape)
    known = 1
    for extent in shape:
        if extent >= 1:
            known *= extent
        elif extent != -1:
            return None
    inferred = shape.count(-1)
    if inferred > 1:
        return None
    if inferred:
        if data.size % known:
            return None
        shape[shape.index(-1)] = data.size // known
    elif known != data.size:
        return None
    out: Array = np.reshape(data, shape).copy()
    return out


@functools.cache
def _transpose_permutation(ndim: int, axes: tuple[int, ...] | None) -> tuple[int, ...] | None:
    """The reference's normalised ``axes`` (``_transpose_axes``), cached; ``None`` where they
    are not a permutation of ``ndim`` axes (the reference says why)."""
    try:
        return _transpose_axes(ndim, axes)
    except RelationError:
        return None


def transpose(args: Args, op_attrs: Attrs | None) -> Array | None:
    """``transpose``: the reference's copy of numpy's ``transpose``, with the axes normalised
    once per rank and attributes (the reference formats its error messages on every call)."""
    attrs = cast(TransposeAttrs, op_attrs)
    (data,) = args
    if type(data) is not _ndarray:
        return None
    perm = _transpose_permutation(data.ndim, attrs.axes)
    if perm is None:
        return None
    out: Array = np.transpose(data, perm).copy()
    return out


def _tensor_kernel(fast: Callable[[Args, Attrs | None], object]) -> KernelMaker:
    def make(name: str, reference: Reference) -> Reference:
        def kernel(args: Args, attrs: Attrs | None) -> object:
            out = fast(args, attrs)
            return reference(args, attrs) if out is None else out

        return cast(Reference, kernel)

    return make


TENSOR: dict[str, KernelMaker] = {
    "nn.conv2d": _tensor_kernel(conv2d),
    "nn.dense": _tensor_kernel(dense),
    "nn.max_pool2d": _tensor_kernel(max_pool2d),
    "nn.avg_pool2d": _tensor_kernel(avg_pool2d),
    "nn.bias_add": _tensor_kernel(bias_add),
    "concatenate": _tensor_kernel(concatenate),
    "reshape": _tensor_kernel(reshape),
    "transpose": _tensor_kernel(transpose),
    "nn.batch_norm": _tensor_kernel(batch_norm),
    "nn.relu": _tensor_kernel(lambda args, attrs: relu(args)),
}
"""The operators with a tensor kernel, and how to build it around the reference."""


_KERNELS: dict[tuple[str, Reference], Reference] = {}

MMAP_THRESHOLD = 32 << 20
"""Allocations glibc's malloc serves from its heap, below: the most it accepts (``HEAP_MAX_SIZE /
2`` on 64-bit)."""

TRIM_THRESHOLD = 256 << 20
"""Free memory at the heap's top that glibc's malloc keeps rather than returning it."""

_allocator_tuned = False


def keep_freed_memory() -> bool:
    """Ask glibc's malloc to serve arrays of up to ``MMAP_THRESHOLD`` bytes from its heap and to
    keep ``TRIM_THRESHOLD`` bytes of freed memory, once per process; ``False`` where the C
    library has no ``mallopt`` (not glibc).

    Why: by default an array of more than 128 KiB is a fresh ``mmap`` and its ``free`` an
    ``munmap``, so every tensor a network's layer produces is page-faulted and zeroed by the
    kernel again (measured: a third of ShuffleNet's run); onnxruntime keeps an arena for the
    same reason. The price: the process keeps its peak heap instead of returning it."""
    global _allocator_tuned
    if _allocator_tuned:
        return True
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    m_trim_threshold, m_mmap_threshold = -1, -3  # <malloc.h>
    _allocator_tuned = bool(mallopt(m_mmap_threshold, MMAP_THRESHOLD)) and bool(
        mallopt(m_trim_threshold, TRIM_THRESHOLD)
    )
    return _allocator_tuned


def kernel_for(name: str, reference: Reference) -> Reference:
    """The kernel the machine runs for the operator ``name``: a fast path around ``reference``
    (``SCALAR``, ``TENSOR``), or ``reference`` itself. Built once per operator and reference.

    Like the reference, a kernel takes the argument arrays and the call's attributes. Call it
    with numpy's floating-point errors ignored (``np.errstate(all="ignore")``), as the machine
    does: the scalar float paths do not set the error state themselves (it costs more than the
    arithmetic)."""
    kernel = _KERNELS.get((name, reference))
    if kernel is None:
        if name in TENSOR:
            keep_freed_memory()
        make = SCALAR.get(name) or TENSOR.get(name)
        kernel = _KERNELS[name, reference] = reference if make is None else make(name, reference)
    return kernel
