"""Helpers the nn.* operator modules (and image) share: attributes, layouts, exact arithmetic.

Each helper's docstring says what it computes; the conventions it implements (TVM's LLVM
integer arithmetic, float16 computed through float32, TVM's padding lists) are stated in the
docstrings of the ``nn`` modules whose operators rely on them.
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
