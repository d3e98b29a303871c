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
matrix built by ``kh * kw`` strided copies (the reference builds it through a sliding-window
view, a gather that costs far more than the product); ``nn.dense`` as one matrix product that
reads the weight transposed in place; ``nn.max_pool2d`` as a running maximum over the window's
shifted slices; ``nn.batch_norm`` as the reference's formula evaluated in place; ``nn.relu`` of
floats as ``fmax(x, 0) + 0`` (the same bits as ``x > 0 ? x : 0``, including NaN and -0.0).
Only float data is handled; integer data, unusual layouts and attributes go to the reference.
``nn.conv2d``, ``nn.dense`` and ``nn.max_pool2d`` may differ from the reference by rounding
(the products' summation order, the sign of a zero maximum), within the tolerance policy
(``oracles/compare.py``, with the reduction length of the product); so that small programs
(the generated ones the oracle checks) see the reference's own rounding, the product kernels
run only from ``CONV2D_MIN_WORK`` and ``DENSE_MIN_WORK`` multiply-adds up.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any, TypeAlias, cast

import numpy as np
import numpy.typing as npt

from ..semantics.ops.nn.conv import Conv2DAttrs
from ..semantics.ops.nn.dense import DenseAttrs
from ..semantics.ops.nn.norm import BatchNormAttrs
from ..semantics.ops.nn.pool import MaxPool2DAttrs
from ..semantics.ops.registry import Attrs, Reference

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


CONV2D_MIN_WORK = 1 << 18
"""Multiply-adds from which ``nn.conv2d`` runs the interpreter's kernel (below: the reference)."""


def _float_data(x: object) -> bool:
    return type(x) is _ndarray and cast(Array, x).dtype.kind == "f"


def _compute_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """Float16 is computed in float32, as the reference computes it."""
    return np.dtype(np.float32) if dtype == np.float16 else dtype


def _permutation(layout: str, canonical: str) -> tuple[int, ...] | None:
    """Indices taking ``layout`` to ``canonical`` order, or ``None`` if it is not a permutation."""
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


def conv2d(args: Args, op_attrs: Attrs | None, min_work: int = CONV2D_MIN_WORK) -> Array | None:
    """``nn.conv2d`` of float data as im2col and a matrix product per group; ``None`` where the
    reference should run (other dtypes, layouts or attributes, or less than ``min_work``
    multiply-adds)."""
    attrs = cast(Conv2DAttrs, op_attrs)
    data, weight = args
    if not (_float_data(data) and type(weight) is _ndarray and weight.dtype == data.dtype):
        return None
    if attrs.out_dtype not in ("", data.dtype.name) or data.ndim != 4 or weight.ndim != 4:
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
    x = np.transpose(data, perm_x)
    w = np.transpose(weight, perm_w)
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
    cd = _compute_dtype(data.dtype)
    x = x.astype(cd, copy=False)
    k = cg * kh * kw
    if kh == kw == 1 and pads == (0, 0, 0, 0) and strides == (1, 1):
        cols = x.reshape(n, g, k, h * wd)
    else:
        if pads != (0, 0, 0, 0):
            xp = np.zeros((n, c, h + pt + pb, wd + pl + pr), cd)
            xp[:, :, pt : pt + h, pl : pl + wd] = x
        else:
            xp = x
        # The im2col matrix (K, P) per image and group, K ordered (channel, row, column) as
        # the reference orders it: one strided copy per window position.
        patches = np.empty((n, c, kh, kw, oh, ow), cd)
        for r in range(kh):
            for s in range(kw):
                patches[:, :, r, s] = _strided(xp, r * dilation[0], s * dilation[1],
                                               (oh, ow), strides)  # fmt: skip
        cols = patches.reshape(n, g, k, oh * ow)
    wm = w.astype(cd, copy=False).reshape(g, og, k)
    if n == 1 and g == 1:
        out = np.matmul(wm[0], cols[0, 0]).reshape(1, o, oh, ow)
    else:
        out = np.matmul(wm, cols).reshape(n, o, oh, ow)
    out = out.astype(data.dtype, copy=False)
    return np.ascontiguousarray(np.transpose(out, perm_out))


DENSE_MIN_WORK = 1 << 18
"""Multiply-adds from which ``nn.dense`` runs the interpreter's kernel (below: the reference)."""


def dense(args: Args, op_attrs: Attrs | None, min_work: int = DENSE_MIN_WORK) -> Array | None:
    """``nn.dense`` of float data as one matrix product with the weight read transposed in
    place (the reference copies it first); ``None`` where the reference should run."""
    attrs = cast(DenseAttrs, op_attrs)
    data, weight = args
    if not (_float_data(data) and type(weight) is _ndarray and weight.dtype == data.dtype):
        return None
    if attrs.out_dtype not in ("", data.dtype.name) or data.ndim < 1 or weight.ndim != 2:
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
    shifted slices; ``None`` where the reference should run."""
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
    if np.isnan(data.max()):
        return None  # the reference says whether a window holds the NaN
    x = np.moveaxis(data, axes, (-2, -1))
    h, wd = x.shape[-2:]
    pt, pl, pb, pr = pads
    oh = _out_extent(h, pt + pb, kernel[0], dilation[0], strides[0])
    ow = _out_extent(wd, pl + pr, kernel[1], dilation[1], strides[1])
    if oh <= 0 or ow <= 0:
        return None
    lowest = data.dtype.type(np.finfo(data.dtype).min)  # te.max starts from it
    if pads != (0, 0, 0, 0):
        xp = np.full((*x.shape[:-2], h + pt + pb, wd + pl + pr), lowest, data.dtype)
        xp[..., pt : pt + h, pl : pl + wd] = x
    else:
        xp = x
    out: Array | None = None
    for r in range(kernel[0]):
        for s in range(kernel[1]):
            window = _strided(xp, r * dilation[0], s * dilation[1], (oh, ow), strides)
            out = window.copy() if out is None else np.maximum(out, window, out=out)
    assert out is not None
    np.maximum(out, lowest, out=out)
    return np.ascontiguousarray(np.moveaxis(out, (-2, -1), axes))


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
        return v.astype(cd).reshape(shape)

    eps = cd.type(data.dtype.type(attrs.epsilon))
    out = np.subtract(data.astype(cd, copy=False), along(mean))
    out /= np.sqrt(along(var) + eps)
    if attrs.scale:
        out *= along(gamma)
    if attrs.center:
        out += along(beta)
    return out.astype(data.dtype, copy=False), mean.copy(), var.copy()


def relu(args: Args) -> Array | None:
    """``nn.relu`` of float data: ``fmax(x, 0) + 0`` has the bits of ``x > 0 ? x : 0`` (NaN
    gives 0, and the addition turns -0.0 into 0.0)."""
    (x,) = args
    if not _float_data(x) or x.ndim == 0:
        return None
    zero = x.dtype.type(0)
    out: Array = np.fmax(x, zero)
    out += zero
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
    "nn.batch_norm": _tensor_kernel(batch_norm),
    "nn.relu": _tensor_kernel(lambda args, attrs: relu(args)),
}
"""The operators with a tensor kernel, and how to build it around the reference."""


_KERNELS: dict[tuple[str, Reference], Reference] = {}


def kernel_for(name: str, reference: Reference) -> Reference:
    """The kernel the machine runs for the operator ``name``: a fast path around ``reference``
    (``SCALAR``, ``TENSOR``), or ``reference`` itself. Built once per operator and reference.

    Like the reference, a kernel takes the argument arrays and the call's attributes. Call it
    with numpy's floating-point errors ignored (``np.errstate(all="ignore")``), as the machine
    does: the scalar float paths do not set the error state themselves (it costs more than the
    arithmetic)."""
    kernel = _KERNELS.get((name, reference))
    if kernel is None:
        make = SCALAR.get(name) or TENSOR.get(name)
        kernel = _KERNELS[name, reference] = reference if make is None else make(name, reference)
    return kernel
