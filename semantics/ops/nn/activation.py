"""Activations: nn.relu, nn.leaky_relu, nn.prelu and the softmax family.

Elementwise operators: unary math, binary broadcasting arithmetic and comparison, and fills.

::

    unary      negative abs floor ceil round nn.relu zeros_like ones_like   (data)
                   any dtype                                  Identity        elemwise
               exp log sqrt rsqrt tanh sigmoid                float  Identity elemwise
               logical_not                                    bool   Identity elemwise
    nn.leaky_relu(data, alpha=0.25)            LeakyReluAttrs Identity        elemwise

Argument names, attribute fields, relation names and fusion patterns follow TVM 0.18
(``RELAY_REGISTER_UNARY_OP`` and ``RELAY_REGISTER_BINARY_OP`` name their arguments ``data`` and
``lhs, rhs``).

Typing. ``Identity``: the result has the argument's type. ``Broadcast``: ``lhs`` and ``rhs`` have
one dtype, the result has that dtype and the broadcast shape; ``BroadcastComp`` is the same with
a bool result. Broadcasting is TVM's ``ConcreteBroadcast``: shapes are aligned from the right
(the shorter one padded with 1s) and, dimension by dimension, a 1 takes the other size, a ``?``
takes the other size, two equal sizes (provably equal, for symbolic sizes) stay; anything else,
including two different symbols or a symbol against a constant other than 1, is an error.
``Where`` broadcasts ``x`` with ``y`` (same dtype), then ``condition`` (any dtype) with that.
``Cast`` gives ``dtype`` with the data's shape. ``FullLike`` gives the data's type and needs a
rank-0 ``fill_value`` of any dtype.

Meaning: what TVM's TOPI compute lowered through its LLVM code generator (default target, no
``-fast-math`` flags) computed.

- NaN follows TVM's ``select``-based definitions and LLVM's *ordered* float comparisons:
  ``maximum(a, b)`` is ``a > b ? a : b`` and ``minimum(a, b)`` is ``a < b ? a : b`` (so
  ``maximum(NaN, 1) = 1`` but ``maximum(1, NaN) = NaN``); ``nn.relu`` is ``maximum(x, 0)``
  (``relu(NaN) = 0``); ``clip`` is ``maximum(minimum(x, a_max), a_min)``, where TVM drops the
  ``minimum`` when ``a_max`` is +inf and the ``maximum`` when ``a_min`` is -inf;
  ``nn.leaky_relu`` is ``x > 0 ? x : x * alpha``; ``not_equal`` is ``fcmp one``, false when
  either side is NaN, like every other comparison; a float is true (a ``where`` condition, a
  ``cast`` to bool) when it is ordered and non-zero, so NaN is false.
- ``clip``'s bounds and ``nn.leaky_relu``'s ``alpha`` are converted to the data dtype as TVM's
  ``make_const`` did: truncated toward zero for integers, rounded for floats.

Undefined behaviour (``UndefinedBehavior``), each where TVM left the case undefined:

- the smallest signed integer divided by -1, in the same four ops, at every signed width: the
  quotient overflows and LLVM makes ``sdiv``/``srem`` overflow UB;
- ``int32``/``int64`` overflow in ``add``, ``subtract``, ``multiply``, ``negative``, ``abs`` and
  ``nn.leaky_relu``'s ``x * alpha``, and ``uint32``/``uint64`` wrap-around in ``add``,
  ``subtract``, ``multiply`` and ``negative`` (``-x`` is ``0 - x``): TVM's LLVM code generator
  emits ``nsw``/``nuw`` arithmetic for integers of 32 bits and more
  (``DEFINE_CODEGEN_BINARY_OP`` in ``src/target/llvm/codegen_llvm.cc``), whose overflow is
  poison;
- a ``clip`` bound or ``nn.leaky_relu`` ``alpha`` that the data dtype cannot represent (NaN or
  out of range for an integer dtype, a negative value for an unsigned one, a finite value beyond
  a float dtype's range): TVM's ``make_const`` refused it (``IntImm``/``FloatImm`` range checks)
  or converted it with C++ undefined behaviour, so TVM gave such a program no meaning.

Neural-network operators: softmax, dense, convolution, pooling, normalisation, padding.

::

    nn.softmax | nn.log_softmax(data, axis=-1)                  SoftmaxAttrs       out-fusable

Types (relation names as registered in TVM 0.18)::

    Softmax          nn.softmax, nn.log_softmax: the input type; -ndim <= axis < ndim

Meaning (what TVM 0.18's topi computes)::

    softmax        e = exp(x - max(x)); e / sum(e)          (topi/nn/softmax.py, any axis)
    log_softmax    x - max(x) - log(sum(exp(x - max(x))))   (the relay strategy passes axis)

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

    softmax, log_softmax, batch_norm
                        non-float data (exp, log and sqrt are float intrinsics; TVM's relation
                        accepts other dtypes but nothing defines the result)

Deliberate departures from TVM 0.18:

- pad rejects pad_mode other than constant, edge and reflect.
- float16 is computed in float32 (above).

More convolutions and products: 1-D and 3-D convolution, transposed convolution, matmul,
batch_matmul and prelu.

::

    nn.prelu(data, alpha, axis=1)                             PReluAttrs            broadcast

Types (relation names as registered in TVM 0.18)::

    PRelu             alpha is (data.shape[axis],) of data's dtype, 0 <= axis < rank; result
                      data's type

Padding of the convolutions holds, per spatial axis count ``d``: 1 integer (every side), ``d``
integers (each axis padded at both ends) or ``2d`` (all the befores, then all the afters):
``GetPaddingWidth``, ``GetPaddingHeightWidth`` and ``GetPaddingDepthHeightWidth`` in
``src/relay/op/op_common.h``. output_padding holds exactly ``d`` integers.

Meaning (what TVM 0.18's topi computes)::

    prelu              x > 0 ? x : x * alpha[index along axis] (topi prelu: a Select)

Integers, float16 and out_dtype follow ``ops.nn`` exactly: 32/64-bit integer overflow of a
product or of the total is undefined, narrower integers wrap, float16 is computed in float32
and rounded once, operands are converted to the output dtype as TVM's cast does.

Undefined behaviour (``UndefinedBehavior``)::

    prelu              32/64-bit integer overflow of x * alpha where x <= 0 is selected

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
- prelu rejects a negative axis, as TVM's relation did (it indexed the shape with it).

Neural-network normalisation and loss operators.

::

    nn.fast_softmax(data, axis=-1)                    SoftmaxAttrs       Softmax       out-fusable

Types::

    Identity       nn.l2_normalize: each axis in [-ndim, ndim), no repeats, at least one;
                   nn.lrn: rank 4, axis 1 or 3, size odd and positive; the result is data's
                   type
    Softmax        as nn.softmax: data's type, -ndim <= axis < ndim

Meaning (TVM 0.18: ``SimplifyInference`` in ``src/relay/transforms/simplify_inference.cc`` for
the first four, TOPI for the others)::

    fast_softmax   softmax with TVM's fast_exp for float32 (topi fast_exp_float32: the
                   input clamped to +-88.376, 2^n by exponent bits times a degree-7
                   polynomial in f = x - n ln 2, n = floor(x log2 e + 1/2), the result at
                   least x); other float dtypes use exp

The normalisations compute epsilon, bias, alpha and beta as constants of the data's dtype.
Float16 is computed in float32 and rounded once at the end, as in ``ops.nn``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from ...syntax import TensorType, Type
from ..elementwise import (
    Accepts,
    Array,
    UnaryKernel,
    _attr_constant,
    _exact,
    _fit,
    _identity_relation,
    _is_float,
    _maximum,
    _unary,
)
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
from ..shapes import (
    dims_equal,
    tensor_arg,
)
from .common import (
    _attrs,
    _axis,
    _compute_dtype,
    _int_result,
    _Num,
    _require_float,
    _shape_str,
)


@dataclass(frozen=True, slots=True)
class LeakyReluAttrs(Attrs):
    """Attributes of ``nn.leaky_relu``: the slope on the negative half axis."""

    type_key: ClassVar[str] = "relay.attrs.LeakyReluAttrs"
    alpha: float = attr_field(
        AttrKind.FLOAT, 0.25, doc="Slope coefficient for the negative half axis."
    )


def _leaky_relu(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
    (x,) = args
    assert isinstance(attrs, LeakyReluAttrs)
    dtype = x.dtype.name
    alpha = _attr_constant(attrs.alpha, dtype, "nn.leaky_relu alpha")
    positive = x > 0
    if _is_float(dtype):
        scaled = np.asarray(x * alpha)
    else:
        # Only the selected products count: select's other arm may overflow harmlessly.
        kept = np.where(positive, np.zeros_like(x), x)
        scaled = _fit(_exact(kept) * _exact(alpha), dtype, "nn.leaky_relu")
    return np.asarray(np.where(positive, x, scaled)).astype(dtype, copy=False)


_UNARY: tuple[tuple[str, Accepts, UnaryKernel, str, str], ...] = (
    (
        "nn.relu",
        "any",
        lambda x: _maximum(x, np.zeros_like(x)),
        "Rectified linear unit.",
        "onnxruntime:Relu",
    ),
)
"""Unary operators without attributes (relation ``Identity``): name, dtypes, kernel, doc, check."""


def _op(
    name: str,
    doc: str,
    *,
    relation: Relation,
    reference: Reference,
    check: str,
    relation_name: str = "Softmax",
    inputs: tuple[str, ...] = ("data",),
    attrs_type: type[Attrs] | None = None,
    pattern: OpPattern = OpPattern.OUT_ELEMWISE_FUSABLE,
    shape_func: ShapeFunc | None = None,
) -> None:
    """Register one operator of this module, with its independent ``check``; unless told
    otherwise: no attributes, inputs data, pattern out_elemwise_fusable, relation "Softmax"."""
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


for _name, _accepts, _kernel, _doc, _check in _UNARY:
    _op(
        _name,
        _doc,
        relation=_identity_relation(_accepts),
        reference=tensor_reference(_unary(_kernel)),
        check=_check,
        relation_name="Identity",
        pattern=OpPattern.ELEMWISE,
    )


_op(
    "nn.leaky_relu",
    "Leaky rectified linear unit, x if x > 0 else alpha * x.",
    relation=_identity_relation("any"),
    reference=tensor_reference(_leaky_relu),
    check="onnxruntime:LeakyRelu",
    relation_name="Identity",
    attrs_type=LeakyReluAttrs,
    pattern=OpPattern.ELEMWISE,
)


@dataclass(frozen=True, slots=True)
class SoftmaxAttrs(Attrs):
    """Attributes of ``nn.softmax`` and ``nn.log_softmax``: the normalised axis."""

    type_key: ClassVar[str] = "relay.attrs.SoftmaxAttrs"
    axis: int = attr_field(AttrKind.INT, -1, doc="The axis to sum over.")


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


_op(
    "nn.softmax",
    "Softmax along axis: exp(x) / sum(exp(x)).",
    relation=_softmax_relation,
    reference=tensor_reference(_softmax_reference),
    check="onnxruntime:Softmax",
    attrs_type=SoftmaxAttrs,
)


_op(
    "nn.log_softmax",
    "Logarithm of the softmax along axis.",
    relation=_softmax_relation,
    reference=tensor_reference(_log_softmax_reference),
    check="onnxruntime:LogSoftmax",
    attrs_type=SoftmaxAttrs,
)


@dataclass(frozen=True, slots=True)
class PReluAttrs(Attrs):
    """Attributes of ``nn.prelu``: the axis the slopes run along."""

    type_key: ClassVar[str] = "relay.attrs.PReluAttrs"
    axis: int = attr_field(AttrKind.INT, 1, doc="The channel axis alpha runs along.")


def _prelu_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, PReluAttrs)
    data = tensor_arg(arg_types[0], "data")
    alpha = tensor_arg(arg_types[1], "alpha")
    rank = len(data.shape)
    if not 0 <= a.axis < rank:
        raise RelationError(
            f"axis={a.axis} is out of range for a tensor of rank {rank} (prelu takes 0 to rank - 1)"
        )
    c = data.shape[a.axis]
    if len(alpha.shape) != 1 or dims_equal(alpha.shape[0], c) is False or alpha.dtype != data.dtype:
        raise RelationError(
            f"expected Tensor[({c},), {data.dtype}] for alpha, "
            f"found Tensor[{_shape_str(alpha.shape)}, {alpha.dtype}]"
        )
    return TensorType(data.shape, data.dtype)


def _prelu_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    a = _attrs(attrs, PReluAttrs)
    data, alpha = args
    slope = alpha.reshape(alpha.shape + (1,) * (data.ndim - a.axis - 1))
    positive = data > 0
    if data.dtype.kind == "f":
        cd = _compute_dtype(data.dtype)
        with np.errstate(all="ignore"):
            scaled = data.astype(cd) * slope.astype(cd)
        return np.where(positive, data, scaled.astype(data.dtype)).astype(data.dtype)
    if data.dtype == np.bool_:
        # false * alpha is false (i1 multiplication): the data itself.
        return data.copy()
    product: Any = _exact(data) * _exact(slope)
    # Only the selected products matter: a Select's unchosen operand may be poison.
    chosen = np.where(positive, _exact(data), product)
    return _int_result(np.asarray(chosen), data.dtype, "nn.prelu", "x * alpha")


_op(
    "nn.prelu",
    "Parametric ReLU: x where x > 0, else x times the slope of its channel.",
    relation=_prelu_relation,
    reference=tensor_reference(_prelu_reference),
    check="onnxruntime:PRelu",
    relation_name="PRelu",
    inputs=("data", "alpha"),
    attrs_type=PReluAttrs,
    pattern=OpPattern.BROADCAST,
)


def _float_data(x: _Num, op: str) -> _Num:
    """``x`` in its compute dtype, after checking it is a float."""
    _require_float(x, op)
    return x.astype(_compute_dtype(x.dtype))


_F32 = np.float32


_FAST_EXP_POLY = tuple(
    _F32(c)
    for c in (
        *(1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3),
        *(4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1),
    )
)


def fast_exp_float32(x: _Num) -> _Num:
    """TOPI's ``fast_exp_float32``, operation by operation in float32 (min and max are TVM's
    ordered selects)."""
    with np.errstate(all="ignore"):
        hi, lo = _F32(88.3762626647950), _F32(-88.3762626647949)
        clamped = np.where(x < hi, x, hi)
        clamped = np.where(clamped > lo, clamped, lo)
        n = np.floor(clamped * _F32(1.44269504088896341) + _F32(0.5))
        f = clamped - n * _F32(0.6931471805599453)
        y = _FAST_EXP_POLY[0]
        for c in _FAST_EXP_POLY[1:]:
            y = y * f + c
        y = y * f * f + f + _F32(1.0)
        exponent = np.nan_to_num(n + _F32(127.0)).astype(np.int32)
        scale = (exponent << 23).view(np.float32)
        value = scale * y
        return np.asarray(np.where(value > x, value, x), np.float32)


def _fast_softmax_reference(args: tuple[_Num, ...], attrs: Attrs | None) -> _Num:
    a = _attrs(attrs, SoftmaxAttrs)
    data = args[0]
    x = _float_data(data, "nn.fast_softmax")
    axis = a.axis % data.ndim
    if not x.size:
        return data.copy()
    with np.errstate(all="ignore"):
        delta = x - np.max(x, axis=axis, keepdims=True)
        e = fast_exp_float32(delta) if data.dtype == np.float32 else np.exp(delta)
        out = e / np.sum(e, axis=axis, keepdims=True)
    return np.asarray(out).astype(data.dtype)


_op(
    "nn.fast_softmax",
    "Softmax along axis with TVM's fast approximate exp for float32.",
    relation=_softmax_relation,
    reference=tensor_reference(_fast_softmax_reference),
    check="onnxruntime:Softmax",
    attrs_type=SoftmaxAttrs,
)
