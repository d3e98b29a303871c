"""What every gradient rule shares: the call it differentiates and the builders it writes with."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .....semantics.errors import PassError
from .....semantics.ops.registry import OPS, Attrs
from .....semantics.syntax import (
    AttrValue,
    Call,
    Constant,
    Expr,
    Op,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
)


class NoGradient(PassError):
    """An operator call the gradient passes cannot differentiate (no rule, or a case its rule
    does not cover, such as an unknown dimension its rule needs)."""


@dataclass(frozen=True)
class GradCall:
    """One differentiated call ``out = op(args..)`` with the cotangent ``grad`` of ``out``."""

    call: Call
    out: Expr
    grad: Expr
    arg_types: tuple[Type, ...]
    out_type: Type

    @property
    def name(self) -> str:
        assert isinstance(self.call.op, Op)
        return self.call.op.name

    def arg(self, i: int) -> Expr:
        """The ``i``-th argument (an atom: evaluating it again has no effect)."""
        return self.call.args[i]

    def attr(self, key: str) -> AttrValue:
        """The value of the call's attribute ``key``."""
        assert self.call.attrs is not None, f"{self.name} has no attributes"
        value: AttrValue = getattr(self.call.attrs, key)
        return value

    def tensor_type(self, i: int) -> TensorType:
        """The tensor type of argument ``i`` (``-1``: the result)."""
        t = self.out_type if i < 0 else self.arg_types[i]
        if not isinstance(t, TensorType):
            raise self.fail(f"expected a tensor, found {type(t).__name__}")
        return t

    def dtype(self, i: int = -1) -> str:
        """The dtype of argument ``i`` (``-1``: the result)."""
        return self.tensor_type(i).dtype

    def rank(self, i: int = -1) -> int:
        return len(self.tensor_type(i).shape)

    def shape(self, i: int = -1) -> tuple[int, ...]:
        """The static shape of argument ``i`` (``-1``: the result); an error if a dimension
        is not a known integer."""
        dims = self.tensor_type(i).shape
        if not all(isinstance(d, int) for d in dims):
            raise self.fail("its gradient rule needs static shapes")
        return tuple(int(d) for d in dims)  # type: ignore[arg-type]

    def fail(self, why: str) -> NoGradient:
        return NoGradient(f"Gradient: cannot differentiate {self.name}: {why}",
                          self.call.span, pass_name="Gradient")  # fmt: skip

    def collapse(self, g: Expr, i: int) -> Expr:
        """``g``, at the result's shape, summed back to argument ``i``'s (unless they are the
        same static shape, where there is nothing to sum)."""
        if self.arg_types[i] == self.out_type and all(
            isinstance(d, int) for d in self.tensor_type(i).shape
        ):
            return g
        return collapse_to(g, self.arg(i))

    def differentiable(self, i: int) -> bool:
        """Whether argument ``i`` carries a gradient (it holds floats)."""
        return carries_gradient(self.arg_types[i])


GradRule = Callable[[GradCall], Sequence[Expr | None]]
"""A rule: the contribution to each argument's gradient (``None``: none)."""


def carries_gradient(t: Type) -> bool:
    """Whether a value of type ``t`` carries a gradient: a float tensor, or a tuple holding one."""
    if isinstance(t, TensorType):
        return t.dtype.startswith("float")
    if isinstance(t, TupleType):
        return any(carries_gradient(f) for f in t.fields)
    return False


def op(name: str, *args: Expr, **attrs: AttrValue) -> Call:
    """The call ``name(args.., attrs..)``, with the operator's defaults for attributes not
    given."""
    attrs_type = OPS[name].attrs_type
    value: Attrs | None = None
    if attrs_type is not None:
        value = attrs_type(**attrs)
    elif attrs:
        raise TypeError(f"{name} takes no attributes")
    return Call(Op(name), tuple(args), value)


def const(value: float, dtype: str) -> Constant:
    """The scalar constant ``value`` of ``dtype``."""
    return Constant(np.array(value, dtype=dtype))


def add(a: Expr, b: Expr) -> Call:
    return op("add", a, b)


def sub(a: Expr, b: Expr) -> Call:
    return op("subtract", a, b)


def mul(a: Expr, b: Expr) -> Call:
    return op("multiply", a, b)


def div(a: Expr, b: Expr) -> Call:
    return op("divide", a, b)


def neg(a: Expr) -> Call:
    return op("negative", a)


def zeros_like(a: Expr) -> Call:
    return op("zeros_like", a)


def ones_like(a: Expr) -> Call:
    return op("ones_like", a)


def where(c: Expr, a: Expr, b: Expr) -> Call:
    return op("where", c, a, b)


def collapse_to(g: Expr, like: Expr) -> Call:
    """``g`` summed down to the shape of ``like`` (the reverse of broadcasting)."""
    return op("collapse_sum_like", g, like)


def tuple_field(e: Expr, i: int) -> Expr:
    if isinstance(e, Tuple):
        return e.fields[i]
    return TupleGetItem(e, i)


def reduced_axes(axis: AttrValue, exclude: AttrValue, rank: int) -> tuple[int, ...]:
    """The axes a reduction with ``axis`` and ``exclude`` reduces over, ascending."""
    if axis is None:
        axes = tuple(range(rank))
    else:
        given = axis if isinstance(axis, tuple) else (axis,)
        ints = [a for a in given if isinstance(a, int)]
        axes = tuple(sorted({a % rank if rank else 0 for a in ints}))
    if exclude:
        axes = tuple(a for a in range(rank) if a not in axes)
    return axes


def restore_reduced(g: Expr, axes: Sequence[int], keepdims: AttrValue) -> Expr:
    """``g``, the cotangent of a reduction over ``axes``, with the reduced axes put back as
    axes of length 1 (unless the reduction kept them)."""
    if keepdims:
        return g
    for a in axes:  # ascending, so each index is already right in the growing rank
        g = op("expand_dims", g, axis=a, num_newaxis=1)
    return g


def count(shape: Sequence[int], axes: Sequence[int]) -> int:
    """How many elements a reduction over ``axes`` combines."""
    return math.prod(shape[a] for a in axes)
