"""Z3 encodings of the operators' type relations, one per registered op.

An encoding states, as Z3 formulas over dimension sizes, what TVM 0.18's relation for the op
means: given the argument shapes (lists of Z3 ``Int`` terms; ranks are Python ints) and dtypes,
and the attributes, it returns the output shape(s) as terms and the constraints that must hold
for the call to be well-typed. Anything decidable from the ranks and attributes alone (axis
bounds, attribute lengths, dtype rules) is checked in Python and reported as ``ill_typed``.

These encodings are written from TVM's documented behaviour and its relation sources
(``src/relay/op/type_relations.cc``, ``tensor/transform.cc``, ``tensor/reduce.cc``,
``nn/nn.cc``, ``nn/convolution.h``, ``nn/pooling.cc``, ``nn/pad.cc``), independently of the
relation functions in ``relay.semantics.ops``: ``relay.oracles.validate`` checks one against
the other. Where TVM's code departs from what the op means, the encodings follow what the op
modules document as the spec: their deliberate departures (float-only math and ``power``,
bool-only logical ops; ``take`` rejecting ``axis == ndim`` and a negative ``batch_dims``;
convolution and pooling windows that must fit the padded input; ``zeros`` and ``ones``
needing a dtype) and the TVM quirks they keep (``reshape`` writing an inferred ``-1`` at its
index in ``newshape``; ``stack`` not comparing the sizes at input position ``axis``). Each
encoding's docstring states its rule.

Every output size is additionally constrained to be at least 0 (``well_typed``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeAlias, TypeVar

import z3

from relay.semantics.ops.nn.conv import Conv2DAttrs
from relay.semantics.ops.nn.dense import DenseAttrs
from relay.semantics.ops.registry import Attrs
from relay.semantics.ops.shape import ConcatenateAttrs

Term: TypeAlias = z3.ArithRef
"""A Z3 integer term: one dimension size."""


Cond: TypeAlias = z3.BoolRef
"""A Z3 boolean formula over dimension sizes."""


Shape: TypeAlias = list[Term]


@dataclass(frozen=True)
class TensorArg:
    """A tensor argument: its dimensions as Z3 terms (the rank is ``len(shape)``) and dtype."""

    shape: Shape
    dtype: str


@dataclass(frozen=True)
class TupleArg:
    """A tuple argument (``concatenate``, ``stack``): one ``TensorArg`` per field."""

    fields: list[TensorArg]


Arg: TypeAlias = TensorArg | TupleArg


@dataclass(frozen=True)
class Encoded:
    """What an encoding says about one call.

    ``outputs`` holds one shape per result tensor (one for a tensor result, one per field for
    a tuple result, ``tuple_output`` telling which); ``constraints`` must all hold for the call
    to be well-typed; ``dtypes`` are the result dtypes (``None``: not determined, e.g. a
    ``zeros`` without a dtype); ``ill_typed`` is set, with the reason, when the call is
    ill-typed whatever the sizes are.
    """

    outputs: list[Shape]
    constraints: list[Cond]
    dtypes: list[str] | None
    ill_typed: str | None = None
    tuple_output: bool = False


Encoding: TypeAlias = Callable[[Sequence[Arg], "Attrs | None"], Encoded]
"""An op's encoding: from its arguments and attributes to an ``Encoded``."""


class IllTyped(Exception):
    """Raised inside an encoding for a call that is ill-typed whatever the sizes are."""


def well_typed(
    outputs: list[Shape],
    constraints: Sequence[Cond] = (),
    dtypes: list[str] | None = None,
    *,
    tuple_output: bool = False,
) -> Encoded:
    """An ``Encoded`` for a call that may be well-typed; every output size must be >= 0."""
    simplified = [[z3.simplify(d) for d in shape] for shape in outputs]
    sizes = [d >= 0 for shape in simplified for d in shape]
    return Encoded(simplified, [*constraints, *sizes], dtypes, None, tuple_output)


def ill_typed(reason: str) -> Encoded:
    """An ``Encoded`` for a call that is ill-typed whatever the sizes are."""
    return Encoded([], [], None, reason)


ONE = z3.IntVal(1)


def _int(x: int | Term) -> Term:
    return z3.IntVal(x) if isinstance(x, int) else x


def const_value(t: Term) -> int | None:
    """The value of ``t`` if it simplifies to an integer constant, else ``None``."""
    v = z3.simplify(t)
    return int(v.as_long()) if z3.is_int_value(v) else None


def floordiv(a: int | Term, b: int | Term) -> Term:
    """``floor(a / b)``; Z3's integer division is Euclidean, which is floor for ``b > 0``."""
    a, b = _int(a), _int(b)
    return z3.If(b > 0, a / b, (-a) / (-b))


def product(dims: Sequence[int | Term]) -> Term:
    """The product of ``dims`` (1 for none)."""
    out: Term = ONE
    for d in dims:
        out = out * _int(d)
    return out


def _broadcast(a: Shape, b: Shape) -> tuple[Shape, list[Cond]]:
    """Numpy broadcasting from the right: aligned sizes are equal or one is 1; the result
    takes the size that is not 1."""
    n = max(len(a), len(b))
    pa = [ONE] * (n - len(a)) + a
    pb = [ONE] * (n - len(b)) + b
    out = [z3.If(x == 1, y, x) for x, y in zip(pa, pb, strict=True)]
    cons = [z3.Or(x == y, x == 1, y == 1) for x, y in zip(pa, pb, strict=True)]
    return out, cons


def _axis(axis: int, ndim: int, what: str = "axis") -> int:
    """``axis`` in ``[-ndim, ndim)`` as an index, else ill-typed."""
    if not -ndim <= axis < ndim:
        raise IllTyped(f"{what} {axis} is out of range for rank {ndim}")
    return axis + ndim if axis < 0 else axis


def _tensor(args: Sequence[Arg], i: int, what: str = "") -> TensorArg:
    if i >= len(args):
        raise IllTyped(f"missing argument {i}")
    a = args[i]
    if not isinstance(a, TensorArg):
        raise IllTyped(f"argument {what or i} must be a tensor")
    return a


def _tuple(args: Sequence[Arg], i: int) -> list[TensorArg]:
    a = args[i] if i < len(args) else None
    if not isinstance(a, TupleArg):
        raise IllTyped(f"argument {i} must be a tuple of tensors")
    fields = a.fields
    if not fields:
        raise IllTyped("the tuple must have at least one field")
    return list(fields)


A = TypeVar("A", bound=Attrs)


def _attrs(attrs: Attrs | None, cls: type[A]) -> A:
    if not isinstance(attrs, cls):
        raise IllTyped(f"expected {cls.__name__}")
    return attrs


def _same_dtypes(dtypes: Sequence[str], what: str) -> str:
    if len(set(dtypes)) != 1:
        raise IllTyped(f"{what} dtypes differ: {', '.join(dtypes)}")
    return dtypes[0]


def _identity(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """IdentityRel: out = data, same shape and dtype (any dtype)."""
    data = _tensor(args, 0)
    return well_typed([data.shape], dtypes=[data.dtype])


def _kind(dtype: str, kind: str | None, what: str) -> None:
    """``kind`` "float" or "bool" restricts ``dtype``; ``None`` allows any."""
    if kind == "float" and not dtype.startswith("float"):
        raise IllTyped(f"{what} must be a float, found {dtype}")
    if kind == "bool" and dtype != "bool":
        raise IllTyped(f"{what} must be bool, found {dtype}")


def _concatenate(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """ConcatenateRel: one or more tensors of equal rank and dtype, equal off the axis; the
    axis sizes add up."""
    fields = _tuple(args, 0)
    ndim = len(fields[0].shape)
    if any(len(f.shape) != ndim for f in fields):
        raise IllTyped("concatenate needs tensors of equal rank")
    dtype = _same_dtypes([f.dtype for f in fields], "field")
    axis = _axis(_attrs(attrs, ConcatenateAttrs).axis, ndim)
    first = fields[0].shape
    cons = [f.shape[i] == first[i] for f in fields[1:] for i in range(ndim) if i != axis]
    out = list(first)
    out[axis] = sum((f.shape[axis] for f in fields[1:]), first[axis])
    return well_typed([out], cons, [dtype])


def _shape_attr(shape: tuple[int, ...] | None) -> Shape:
    if shape is None:
        raise IllTyped("the shape attribute is required")
    if any(d < 0 for d in shape):
        raise IllTyped(f"negative size in shape {shape}")
    return [z3.IntVal(d) for d in shape]


def _dense(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """DenseRel: data (..., k), weight (units, k); out (..., units), dtype out_dtype or
    data's."""
    data, weight = _tensor(args, 0), _tensor(args, 1)
    a = _attrs(attrs, DenseAttrs)
    if not data.shape or len(weight.shape) != 2:
        raise IllTyped("dense needs data of rank >= 1 and a rank-2 weight")
    cons = [weight.shape[1] == data.shape[-1]]
    if a.units is not None:
        cons.append(weight.shape[0] == a.units)
    out = [*data.shape[:-1], weight.shape[0]]
    return well_typed([out], cons, [a.out_dtype or data.dtype])


def _layout(layout: str, letters: str) -> list[int]:
    """Where each of ``letters`` sits in ``layout``, a permutation of them."""
    if sorted(layout) != sorted(letters):
        raise IllTyped(f"layout {layout!r} is not a permutation of {letters}")
    return [layout.index(c) for c in letters]


def _pads(padding: tuple[int, ...]) -> tuple[int, int]:
    """Total (height, width) padding from 1, 2 or 4 non-negative values (top, left, bottom,
    right)."""
    if any(p < 0 for p in padding):
        raise IllTyped(f"negative padding {padding}")
    if len(padding) == 1:
        return 2 * padding[0], 2 * padding[0]
    if len(padding) == 2:
        return 2 * padding[0], 2 * padding[1]
    if len(padding) == 4:
        return padding[0] + padding[2], padding[1] + padding[3]
    raise IllTyped(f"padding needs 1, 2 or 4 values, found {len(padding)}")


def _pair(values: tuple[int, ...] | None, what: str, low: int = 1) -> tuple[int, int]:
    if values is None or len(values) != 2 or min(values) < low:
        raise IllTyped(f"{what} needs two values >= {low}, found {values}")
    return values[0], values[1]


def _conv2d(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Conv2DRel: data (N, C, H, W) and weight (O, I, KH, KW) in their layouts; C = I *
    groups, O a multiple of groups, channels = O and kernel_size = (KH, KW) when given;
    the dilated kernel fits the padded input; out (N, O, (H + pad_h - dilated KH) //
    stride_h + 1, same for W) in out_layout, dtype out_dtype or data's. With channels and
    kernel_size both given and groups == C == O > 1 (constants), TVM reads the weight as
    depthwise (C, channels / C, KH, KW) and the output has channels channels."""
    data, weight = _tensor(args, 0), _tensor(args, 1)
    a = _attrs(attrs, Conv2DAttrs)
    if len(data.shape) != 4 or len(weight.shape) != 4:
        raise IllTyped("conv2d needs rank-4 data and weight")
    n, c, h, w = (data.shape[i] for i in _layout(a.data_layout, "NCHW"))
    o, i, kh, kw = (weight.shape[j] for j in _layout(a.kernel_layout, "OIHW"))
    out_at = _layout(a.out_layout or a.data_layout, "NCHW")
    sh, sw = _pair(a.strides, "strides")
    dh, dw = _pair(a.dilation, "dilation")
    pad_h, pad_w = _pads(a.padding)
    if a.groups < 1:
        raise IllTyped(f"groups {a.groups} < 1")
    cons: list[Cond] = [kh >= 1, kw >= 1]
    if a.kernel_size is not None:
        ks = _pair(a.kernel_size, "kernel_size")
        cons += [kh == ks[0], kw == ks[1]]
    depthwise = (
        a.channels is not None
        and a.kernel_size is not None
        and a.groups > 1
        and const_value(c) == a.groups
        and const_value(o) == a.groups
    )
    channels = o
    if depthwise:
        assert a.channels is not None
        if a.channels % a.groups:
            raise IllTyped(f"depthwise channels {a.channels} not a multiple of {a.groups}")
        cons.append(i == a.channels // a.groups)
        channels = z3.IntVal(a.channels)
    else:
        cons += [c == i * a.groups, o % a.groups == 0]
        if a.channels is not None:
            cons.append(o == a.channels)
    window_h, window_w = 1 + (kh - 1) * dh, 1 + (kw - 1) * dw
    cons += [h + pad_h >= window_h, w + pad_w >= window_w]
    oh = floordiv(h + pad_h - window_h, sh) + 1
    ow = floordiv(w + pad_w - window_w, sw) + 1
    nchw = [n, channels, oh, ow]
    out: Shape = [ONE] * 4
    for k, at in enumerate(out_at):
        out[at] = nchw[k]
    return well_typed([out], cons, [a.out_dtype or data.dtype])


# The elementwise dtype rules follow the documented deviation in ``ops.elementwise``: TVM's
# relations typed these ops at any dtype but could only lower float math and bool logic.
_ANY_UNARY = (
    *("negative", "abs", "floor", "ceil", "round", "nn.relu", "zeros_like", "ones_like"),
    *("clip", "nn.leaky_relu"),
)


def _dtype_ok(dtype: str, kind: str) -> bool:
    """``kind``: "any", "float", "bool", "integer" (signed or unsigned, not bool), or
    "signed_or_float"."""
    if kind == "float":
        return dtype.startswith("float")
    if kind == "bool":
        return dtype == "bool"
    if kind == "integer":
        return dtype.startswith(("int", "uint"))
    if kind == "signed_or_float":
        return dtype.startswith(("int", "float"))
    return True


_INTS = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")


def _known(d: z3.ArithRef) -> int | None:
    return const_value(d)


def _exactly(values: tuple[int, ...] | None, count: int, what: str, low: int) -> tuple[int, ...]:
    if values is None or len(values) != count or min(values) < low:
        raise IllTyped(f"{what} needs {count} values >= {low}, found {values}")
    return values


def _pad_totals(padding: tuple[int, ...], count: int) -> list[int]:
    """Total padding per spatial axis from 1, ``count`` (both ends) or ``2 * count`` values
    (befores then afters), none negative."""
    if min(padding, default=0) < 0:
        raise IllTyped(f"negative padding {padding}")
    if len(padding) == 1:
        return [2 * padding[0]] * count
    if len(padding) == count:
        return [2 * p for p in padding]
    if len(padding) == 2 * count:
        return [padding[i] + padding[count + i] for i in range(count)]
    raise IllTyped(f"padding {padding} has the wrong length for {count} spatial axes")


def _hw(layout: str, rank: int) -> tuple[int, int]:
    if layout not in ("NCHW", "NHWC") or rank != 4:
        raise IllTyped(f"layout {layout} with rank {rank}: NCHW or NHWC, rank 4")
    return layout.index("H"), layout.index("W")
