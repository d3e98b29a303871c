"""Shape arithmetic shared by the type relations.

A dimension is an ``int``, ``ANY`` (``?``, known only at run time) or a sympy expression over
integer symbols (``n``, ``2*n + 1``). Relations compare dimensions with ``dims_equal``, which
answers ``True``, ``False`` or ``None`` (cannot tell: an ``?`` is involved, or symbols whose
difference is not a known constant), and build new dimensions with ``add_dims`` and friends,
which propagate ``?`` and keep integers as ``int``.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TypeGuard

import sympy

from ..syntax import ANY, AnyDim, Dim, TensorType, TupleType, Type, normalize_dim
from ..text.printer import format_dim
from .registry import RelationError


def is_known(d: Dim) -> TypeGuard[int]:
    """Whether ``d`` is a concrete integer."""
    return isinstance(d, int)


def dims_equal(a: Dim, b: Dim) -> bool | None:
    """``True`` or ``False`` when decidable, ``None`` when an ``?`` or symbols make it unknown.

    The answer is the one ``sympy.simplify(a - b)`` gives (zero: equal; another number:
    different; anything else: unknown), reached cheaply where that is sound: equal expressions
    are equal; two integers compare directly; otherwise ``a - b`` is expanded, and a number
    decides. An expanded difference that is a polynomial in the symbols and not a number is
    not constant, so no rewriting can make it one: unknown. Only a difference with other terms
    (``floordiv``, ``floormod``, a division by a symbol) goes to ``simplify``, which can
    cancel inside them (``floordiv(n * n + n, n + 1) - n`` is 0).
    """
    if isinstance(a, AnyDim) or isinstance(b, AnyDim):
        return None
    if a == b:
        return True
    if isinstance(a, int) and isinstance(b, int):
        return False
    diff = sympy.expand(_sym(a) - _sym(b))
    if diff.is_number:
        return bool(diff == 0)
    if _is_polynomial(diff):
        return None
    return _simplified_equal(diff)


def _is_polynomial(e: sympy.Expr) -> bool:
    """Whether ``e`` is built from symbols and numbers by ``+``, ``*`` and natural powers."""
    stack = [e]
    while stack:
        node = stack.pop()
        if isinstance(node, sympy.Symbol | sympy.Number):
            continue
        if isinstance(node, sympy.Pow):
            exponent = node.exp
            if not (isinstance(exponent, sympy.Integer) and exponent >= 0):
                return False
            stack.append(node.base)
        elif isinstance(node, sympy.Add | sympy.Mul):
            stack.extend(node.args)
        else:
            return False
    return True


@functools.lru_cache(maxsize=4096)
def _simplified_equal(diff: sympy.Expr) -> bool | None:
    """``dims_equal``'s last resort on an expanded difference: what ``simplify`` makes of it."""
    diff = sympy.simplify(diff)
    if diff == 0:
        return True
    if diff.is_number:
        return False
    return None


def _sym(d: Dim) -> sympy.Expr:
    assert not isinstance(d, AnyDim)
    return sympy.Integer(d) if isinstance(d, int) else d


def add_dims(a: Dim, b: Dim) -> Dim:
    """``a + b``; ``?`` if either is ``?``."""
    if isinstance(a, AnyDim) or isinstance(b, AnyDim):
        return ANY
    return normalize_dim(sympy.expand(_sym(a) + _sym(b)))


def sub_dims(a: Dim, b: Dim) -> Dim:
    """``a - b``; ``?`` if either is ``?``."""
    if isinstance(a, AnyDim) or isinstance(b, AnyDim):
        return ANY
    return normalize_dim(sympy.expand(_sym(a) - _sym(b)))


def mul_dims(a: Dim, b: Dim) -> Dim:
    """``a * b``; ``?`` if either is ``?``."""
    if isinstance(a, AnyDim) or isinstance(b, AnyDim):
        return ANY
    return normalize_dim(sympy.expand(_sym(a) * _sym(b)))


def floordiv_dims(a: Dim, b: Dim) -> Dim:
    """``a // b`` (floor division); ``?`` if either is ``?``."""
    if isinstance(a, AnyDim) or isinstance(b, AnyDim):
        return ANY
    if isinstance(a, int) and isinstance(b, int):
        return a // b
    return normalize_dim(sympy.floor(_sym(a) / _sym(b)))


def prod_dims(dims: Sequence[Dim]) -> Dim:
    """The product of ``dims`` (1 for none)."""
    out: Dim = 1
    for d in dims:
        out = mul_dims(out, d)
    return out


def tensor_arg(t: Type, what: str) -> TensorType:
    """``t`` as a tensor type, or a ``RelationError`` naming the argument ``what``."""
    if not isinstance(t, TensorType):
        raise RelationError(f"expected a tensor for {what}, found a {_kind(t)}")
    return t


def tuple_arg(t: Type, what: str) -> tuple[TensorType, ...]:
    """``t`` as a tuple of tensor types, or a ``RelationError`` naming ``what``."""
    if not isinstance(t, TupleType):
        raise RelationError(f"expected a tuple of tensors for {what}, found a {_kind(t)}")
    return tuple(tensor_arg(f, f"field {i} of {what}") for i, f in enumerate(t.fields))


def _kind(t: Type) -> str:
    return {"TensorType": "tensor", "TupleType": "tuple", "FuncType": "function"}.get(
        type(t).__name__, type(t).__name__
    )


def normalize_axis(axis: int, ndim: int, what: str = "axis") -> int:
    """A possibly negative axis as an index in ``[0, ndim)``, or a ``RelationError``."""
    if not -ndim <= axis < ndim:
        raise RelationError(
            f"{what}={axis} is out of range for a tensor of rank {ndim} "
            f"(expected {-ndim} <= {what} < {ndim})"
        )
    return axis + ndim if axis < 0 else axis


def broadcast_shapes(a: Sequence[Dim], b: Sequence[Dim]) -> tuple[Dim, ...]:
    """Numpy-style broadcasting from the right, as TVM's ``BroadcastRel`` computes it.

    Equal dimensions stay; a 1 takes the other's size; ``?`` takes the other's size; any other
    pair (two different sizes, or symbolic sizes not provably equal) is an error.
    """
    out: list[Dim] = []
    for i in range(1, max(len(a), len(b)) + 1):
        x = a[-i] if i <= len(a) else 1
        y = b[-i] if i <= len(b) else 1
        same = dims_equal(x, y)
        if same:
            out.append(x)
        elif x == 1:
            out.append(y)
        elif y == 1:
            out.append(x)
        elif isinstance(x, AnyDim):
            out.append(y)
        elif isinstance(y, AnyDim):
            out.append(x)
        else:
            # Known and different, or symbolic and not provably equal: TVM's BroadcastRel
            # rejects both ("Incompatible broadcast type").
            raise RelationError(f"dimensions {format_dim(x)} and {format_dim(y)} are incompatible")
    return tuple(reversed(out))
