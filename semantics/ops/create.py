"""Operators that create tensors from a shape and a value: zeros, ones, full, arange, *_like.

Elementwise operators: unary math, binary broadcasting arithmetic and comparison, and fills.

::

    unary      negative abs floor ceil round nn.relu zeros_like ones_like   (data)
                   any dtype                                  Identity        elemwise
               exp log sqrt rsqrt tanh sigmoid                float  Identity elemwise
               logical_not                                    bool   Identity elemwise
    binary     add subtract multiply divide floor_divide mod floor_mod maximum minimum
                   any dtype, lhs and rhs alike   (lhs, rhs)  Broadcast       broadcast
               power                                          float  Broadcast
               logical_and logical_or                         bool   Broadcast
               equal not_equal less less_equal greater greater_equal
                   any dtype, result bool                     BroadcastComp   broadcast
    clip(data, a_min=, a_max=)                 ClipAttrs      Identity        elemwise
    cast(data, dtype=)                         CastAttrs      Cast            elemwise
    nn.leaky_relu(data, alpha=0.25)            LeakyReluAttrs Identity        elemwise
    where(condition, x, y)                                    Where           broadcast
    full_like(data, fill_value)                               FullLike        elemwise

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

- Integers: ``divide`` and ``mod`` truncate (``sdiv``/``srem``; the remainder has the sign of
  the dividend); ``floor_divide`` and ``floor_mod`` floor (the remainder has the sign of the
  divisor). ``int8``, ``int16``, ``uint8``, ``uint16`` and ``bool`` (LLVM's ``i1``) arithmetic
  wraps: ``add`` of two ``True`` is ``False``. ``abs`` of an unsigned or bool value, and
  ``floor``/``ceil``/``round`` of any integer, is the value itself (``tir::abs``,
  ``tir::floor``... return integers unchanged).
- Floats are computed in their own dtype, one rounding per TIR operation; for ``float16`` numpy
  computes each operation in float32 and rounds, as LLVM's promotion of ``half`` does.
  ``floor_divide`` is ``floor(a / b)`` and ``floor_mod`` is ``a - floor(a / b) * b`` (TOPI's
  formulas, not numpy's); ``mod`` is C's ``fmod`` (``frem``); ``round`` rounds halves away from
  zero (``llvm.round``); ``rsqrt`` is ``1 / sqrt(x)``; ``sigmoid`` is ``1 / (1 + exp(-x))``.
  ``tanh`` is the mathematical function (TVM's LLVM legalisation ``(1 - e^-2x) / (1 + e^-2x)``
  loses relative accuracy near 0: the comparison tolerance, not this reference, absorbs that).
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
- ``cast`` is LLVM's conversion: integer to integer truncates or sign/zero-extends (by the
  source's signedness); integer to float rounds to nearest; float to integer truncates toward
  zero; anything to bool is ``!= 0`` (ordered for floats). ``full_like`` casts its fill value
  that way.

Undefined behaviour (``UndefinedBehavior``), each where TVM left the case undefined:

- integer ``divide``, ``floor_divide``, ``mod``, ``floor_mod`` by zero (a ``False`` divisor for
  bool): LLVM ``sdiv``/``udiv``/``srem``/``urem`` by zero is UB (``codegen_llvm.cc``
  ``DivNode``/``ModNode``; ``floordiv``/``floormod`` lower to them);
- the smallest signed integer divided by -1, in the same four ops, at every signed width: the
  quotient overflows and LLVM makes ``sdiv``/``srem`` overflow UB;
- ``int32``/``int64`` overflow in ``add``, ``subtract``, ``multiply``, ``negative``, ``abs`` and
  ``nn.leaky_relu``'s ``x * alpha``, and ``uint32``/``uint64`` wrap-around in ``add``,
  ``subtract``, ``multiply`` and ``negative`` (``-x`` is ``0 - x``): TVM's LLVM code generator
  emits ``nsw``/``nuw`` arithmetic for integers of 32 bits and more
  (``DEFINE_CODEGEN_BINARY_OP`` in ``src/target/llvm/codegen_llvm.cc``), whose overflow is
  poison;
- ``cast`` (and ``full_like``'s fill value) from a float to an integer type of NaN, of an
  infinity, or of a value whose truncation does not fit the target: ``fptosi``/``fptoui``
  return poison;
- a ``clip`` bound or ``nn.leaky_relu`` ``alpha`` that the data dtype cannot represent (NaN or
  out of range for an integer dtype, a negative value for an unsigned one, a finite value beyond
  a float dtype's range): TVM's ``make_const`` refused it (``IntImm``/``FloatImm`` range checks)
  or converted it with C++ undefined behaviour, so TVM gave such a program no meaning.

Where TVM's own constant folder disagreed with its generated code (``round`` of a constant used
``std::nearbyint``; folded float comparisons used C++'s unordered ``!=``), this follows the
generated code.

Deliberate deviations from TVM's relations, both rejecting programs TVM typed but could not
compile: ``exp log sqrt rsqrt tanh sigmoid power`` require a float dtype (TVM's relations
accepted integers, then lowering failed: ``tir::pow`` checks "power only applies to float", the
other intrinsics have no integer lowering), and ``logical_and logical_or logical_not`` require
bool (TIR's ``&&``, ``||``, ``!`` check for boolean operands).

Transforms: operators that move, copy, select or create elements without arithmetic.

::

    reshape(data, newshape=, allowzero=False)                       ReshapeAttrs      injective
    transpose(data, axes=)                                          TransposeAttrs    injective
    concatenate(data, axis=0)            data is a tuple            ConcatenateAttrs  injective
    stack(data, axis=0)                  data is a tuple            StackAttrs        injective
    split(data, indices_or_sections=, axis=0)                       SplitAttrs        injective
    expand_dims(data, axis=, num_newaxis=1)                         ExpandDimsAttrs   broadcast
    squeeze(data, axis=None)                                        SqueezeAttrs      injective
    take(data, indices, batch_dims=0, axis=None, mode="clip")       TakeAttrs         injective
    strided_slice(data, begin=, end=, strides=, slice_mode="end", axes=)
                                                                    StridedSliceAttrs injective
    broadcast_to(data, shape=, dtype="")                            InitOpAttrs       broadcast
    zeros | ones(shape=, dtype="")       no inputs                  InitOpAttrs       elemwise
    full(fill_value, shape=, dtype="")                              InitOpAttrs       elemwise

``name=`` marks a required attribute. Several of TVM's optional (nullable) fields have no
default and so are required all the same, written ``None`` when absent: ``transpose``'s
``axes``, ``strided_slice``'s ``begin``, ``end``, ``strides`` and ``axes``, and
``InitOpAttrs.shape``. Attribute fields follow TVM 0.18's
``include/tvm/relay/attrs/transform.h``; patterns follow ``src/relay/op/tensor/transform.cc``
and, for ``zeros`` and ``ones``, ``python/tvm/relay/op/_tensor.py``.

Type relations (named as TVM registered them; the name prefixes their error messages)::

    Reshape       TVM's InferNewShape: 0 copies, -1 infers, -2 copies the rest, -3 merges two,
                  -4 splits one in two; the element counts must agree when every dimension is
                  a known integer (TVM skips the check otherwise)
    Transpose     axes None reverses; otherwise a permutation of the axes (negative allowed)
    Concatenate   equal rank and dtype; the axis extents add (? if any is ?); other extents
                  agree where known, and are ? only if unknown everywhere or the axis is known
    Stack         equal rank and dtype; axis in [-(ndim + 1), ndim]; a new axis of extent n
    Split         a tuple: equal sections (which must divide the extent) or the pieces between
                  strictly increasing indices, the last below the extent
    ExpandDims    axis in [-ndim - 1, ndim], num_newaxis >= 0
    Squeeze       axis None drops every extent-1 axis (all extents must be known); else the
                  listed axes, whose known extents must be 1
    Take          indices of an integer (or bool) dtype; axis None gives indices' shape, else
                  data.shape[:axis] + indices.shape[batch_dims:] + data.shape[axis + 1:]
    StridedSlice  topi's StridedSliceOutputShape: begin and end wrapped once, then clamped;
                  the extent of an axis that is not a known integer becomes ?
    BroadCastTo   data must broadcast to the shape attribute; the dtype attribute is ignored
    InitOp        zeros and ones: the shape and dtype attributes
    Full          a rank-0 fill_value; dtype "" means fill_value's dtype

Where TVM's relation asserts something about dimensions it fails only when the assertion folds
to false on constants. Here sympy decides (``ops.shapes.dims_equal``), so a condition that is
provably false on symbols (``n`` against ``n + 1``) is rejected too, and one that cannot be
decided is accepted, as in TVM. A dimension that is ``?`` or symbolic in a type is an integer
at run time; every reference first re-checks its relation on the run-time shapes.

Undefined behaviour (``UndefinedBehavior``), with where TVM 0.18 left each case undefined:

- Run-time shapes that contradict what a relation accepted because a dimension was ``?`` or
  symbolic: a reshape whose element counts differ, squeezing an extent other than 1, unequal
  non-axis extents in concatenate or stack, split sections that do not divide the extent or
  indices beyond it, take's batch extents differing, a strided slice whose clamped bounds run
  backwards or whose stride is 0, broadcast_to from an incompatible shape. TVM's computes
  (``topi::reshape``, ``squeeze``, ``concatenate``, ``stack``, ``split``, ``take``,
  ``strided_slice_with_axes``, ``broadcast_to`` in ``include/tvm/topi/transform.h`` and
  ``broadcast.h``) index the input without checking, so they read out of bounds or pick
  arbitrary elements.
- ``stack`` of tensors whose extents differ on the input axis numbered ``axis``: TVM's
  StackRel skips that axis when comparing shapes (it confuses input and output axes), so the
  relation accepts it, and ``topi::stack`` then reads out of bounds or a part of a tensor.
- ``take`` with mode "fast" and an index outside ``[0, extent)`` (``topi::take`` reads
  ``a[idx]`` unchecked: "Fast mode segfaults when there are out-of-bounds indices"); any mode
  when the indexed extent is 0 and the result is not empty (clip reads ``a[-1]``, wrap takes
  ``truncmod`` by 0).
- ``full`` whose fill_value is a float that is NaN, infinite or out of range for an integer
  output dtype: ``topi::full`` casts with ``tvm::cast``, which LLVM lowers to ``fptosi`` /
  ``fptoui``, whose result is poison then.

Deliberate departures from TVM (each a case where TVM crashed, or did something no program can
rely on):

- take: a negative ``batch_dims`` is rejected (TakeRel adds ``ndim(indices)`` to ``axis``
  instead of to ``batch_dims`` and then indexes the shape at a negative position); an ``axis``
  equal to ``ndim(data)``, which TakeRel lets through and ``topi::take`` rejects, is rejected;
  batch extents that provably differ are rejected here rather than by ``topi::take``; a mode
  other than clip, wrap or fast is rejected (``topi::take`` treats it as wrap); and modes
  wrap and fast with ``batch_dims > 0``, whose topi computes ignore ``batch_dims`` and fail to
  build, get the evident meaning (clip's batch indexing with their own index rule).
- strided_slice: a slice_mode other than "end" or "size" is rejected; ``size`` mode computes
  ``begin + size`` without the int64 overflow of TVM's ``ConvertToVec``.
- reshape: the two sizes after ``-4`` must each be positive, 0 or -1 (TVM copies any other
  negative value into the shape); inferring ``-1`` next to a 0-sized output dimension
  (allowzero) is rejected (TVM divides by zero).
- zeros, ones, broadcast_to and full need a shape (TVM dereferences the empty Optional) with
  no negative entries; zeros and ones need a dtype (TVM would make a tensor of type void).

TVM quirks kept: reshape stores the inferred ``-1`` at its position in ``newshape``, not in the
output, so ``newshape=(-2, -1)`` fails and ``(-4, 1, 2, -1)`` is out of range; split's indices
must be strictly increasing, start above 0 and end below the extent; strided_slice pads a
missing ``end`` with 0 when the stride is negative (so ``strides=[-1]`` alone stops before
index 0), rejects a slice whose canonical bounds run backwards instead of making it empty, and
fails on a slice of no axes (a rank-0 tensor, or ``axes=[]``); ``size`` mode ignores strides.

The argument of ``concatenate`` and ``stack`` arrives at a reference as ``args[0]``, a tuple of
arrays; ``split`` returns a tuple of arrays.

Indexing: operators that read or write elements at computed positions, sort, or make grids.

::

    gather(data, indices, axis=)                          GatherAttrs          injective
    gather_nd(data, indices, batch_dims=0, index_rank=None)
                                                          GatherNDAttrs        injective
    scatter_elements(data, indices, updates, axis=0, reduction="update")
                                                          ScatterElementsAttrs opaque
    scatter_nd(data, indices, updates, mode="update")     ScatterNDAttrs       opaque
    one_hot(indices, on_value, off_value, depth=1, axis=-1, dtype=)
                                                          OneHotAttrs          out-elemwise-fusable
    sort(data, axis=-1, is_ascend=True, dtype="")         ArgsortAttrs         opaque
    argsort(data, axis=-1, is_ascend=True, dtype=)        ArgsortAttrs         opaque
    topk(data, k=, axis=-1, ret_type="both", is_ascend=False, dtype=)
                                                          TopkAttrs            opaque
    searchsorted(sorted_sequence, values, right=False, dtype="int32")
                                                          SearchSortedAttrs    opaque
    unravel_index(data, shape)                            (none)               injective
    sparse_to_dense(sparse_indices, sparse_values, default_value, output_shape=)
                                                          SparseToDenseAttrs   opaque
    sequence_mask(data, valid_length, mask_value=0.0, axis=0)
                                                          SequenceMaskAttrs    injective
    invert_permutation(data)                              (none)               injective
    arange(start, stop, step, dtype=)                     ArangeAttrs          opaque
    meshgrid(data, indexing="ij")        data is a tuple  MeshgridAttrs        injective

``name=`` marks a field that must be given: required in TVM, or a TVM field whose default (a
null ``Integer`` or ``DataType``) every relation rejects: ``gather``'s ``axis``, ``topk``'s
``k``, and the ``dtype`` of ``one_hot``, ``argsort`` and ``topk`` (TVM's Python wrappers
always passed ``"int32"`` or a dtype; a null dtype would type the result as ``void``). Fields,
defaults and type keys follow TVM 0.18's ``include/tvm/relay/attrs/transform.h`` and
``algorithm.h`` (note the key ``relay.attrs.TopkAttrs``); relations follow
``src/relay/op/tensor/transform.cc`` and ``src/relay/op/algorithm/*.cc``. ``sort``, ``argsort``,
``topk`` and ``searchsorted`` registered no pattern, so they are opaque.

Type relations (named as TVM registered them; the name prefixes their error messages)::

    Gather          signed-integer indices of data's rank; axis in [-ndim, ndim); indices'
                    extent on axis >= 1 where known, the other extents equal data's; result
                    indices' shape, data's dtype
    GatherND        indices (M, Y_0..Y_{K-1}) with M a known integer, integer dtype;
                    0 <= batch_dims <= K, M + batch_dims <= ndim(data), Y_i = X_i for
                    i < batch_dims; result (Y_0..Y_{K-1}, X_{M+batch_dims}..), data's dtype
    ScatterElements integer indices; data, indices, updates of one rank; updates of data's
                    dtype and indices' shape; axis in range; reduction update, add, mul, min
                    or max; indices' other extents at most data's where known; data's type
    ScatterND       integer indices (M, Y_0..Y_{K-1}) with M a known integer <= ndim(data);
                    updates (Y_0..Y_{K-1}, X_M..X_{N-1}) of data's dtype; mode update, add,
                    mul, min or max; data's type
    OneHot          integer indices; rank-0 on_value and off_value; depth >= 1; axis in
                    [-1, ndim(indices)] (-1 is last); depth inserted at axis; dtype attribute
    Sort            axis in range; data's type
    Argsort         axis in range; data's shape, dtype attribute
    TopK            axis in range; ret_type both, values or indices; the axis extent becomes
                    k (the whole axis when k < 1); values of data's dtype, indices of dtype;
                    "both" gives the tuple (values, indices)
    SearchSorted    values of rank >= 1 and sorted_sequence of rank >= 1, of one dtype; a
                    sequence of rank > 1 has values' rank and agrees on the outer extents
                    where known; result values' shape, dtype attribute (an integer dtype)
    UnRavelIndexRel integer data of rank 0 or 1, an integer shape vector (S,): result (S,)
                    or (S, n), data's dtype
    SparseToDense   integer sparse_indices of rank 0, 1 or 2 ((N, ndim(output)) when rank
                    2; rank 0 and 1 need a rank-1 output), sparse_values of rank 0 or (N,),
                    a rank-0 default_value of the values' dtype; output_shape non-negative;
                    result output_shape, values' dtype
    SequenceMask    data of rank >= 2; axis 0 or 1; valid_length an integer vector of
                    data's extent at 1 - axis; data's type
    Identity        invert_permutation: an integer vector; its type
    Arange          rank-0 start, stop and step of dtype; result (?), dtype
    Meshgrid        a non-empty tuple of scalars and vectors of one dtype; one grid per field,
                    of extents (n_0, n_1, ...) (a scalar counts 1), the first two swapped when
                    indexing is "xy"

Meaning (what TVM's TOPI computes, on CPU):

- gather: ``out[i] = data[i with i[axis] replaced by indices[i]]``. gather_nd: each index
  tuple ``indices[:, y]`` selects a slice of data (after the batch dimensions, which are
  matched one-to-one). Neither wraps negative indices (the frontends normalise them first).
- scatter_elements copies data, then for each position ``i`` of indices, in row-major order,
  combines ``updates[i]`` into ``out[i with i[axis] replaced by indices[i]]`` (a negative
  index counts from the end once): ``update`` replaces, ``add``/``mul`` accumulate,
  ``min``/``max`` keep the extreme. scatter_nd does the same for each index tuple
  ``indices[:, y]``, which selects the slice of out that ``updates[y]`` covers (no negative
  wrap). Integer ``add``/``mul`` follow the arithmetic rules of ``elementwise`` (wrapping below
  32 bits, undefined overflow at 32 and 64).
- one_hot: ``out[..., j, ...] = on_value if indices[...] == j else off_value``, both cast to
  dtype as ``cast`` does; an index outside ``[0, depth)`` (negative too) matches nothing.
- sort, argsort, topk: a stable sort along axis; ascending keeps equal keys in index order,
  descending too (ties keep the smaller index first). topk's values and indices are the first
  k of that order. Index outputs are cast to dtype.
- searchsorted: for each value, the number of sequence elements ``< value`` (``<=`` with
  right), along the innermost axis of the matching row of the sequence.
- unravel_index: the coordinates of each flat index in a row-major tensor of the given shape.
- sparse_to_dense: default_value everywhere, then ``sparse_values[n]`` (or the scalar) at
  each index tuple ``sparse_indices[n]``.
- sequence_mask: elements whose position along axis is at least ``valid_length[b]`` (b the
  position along the other of axes 0 and 1) become mask_value, converted to data's dtype
  (truncated for integers, as ``make_const`` did); the rest are kept.
- invert_permutation: ``out[data[i]] = i``.
- arange: ``n = ceil((stop - start) / step)`` evaluated in double precision;
  ``out[i] = start + step * i`` computed in dtype (start, stop, step are of dtype). The
  relation only sees types, so the result is ``(?)`` (TVM's ArangeRel gave a known extent
  when the three arguments were constants, which it read from copies kept in the attributes;
  those copies are Relay expressions, not attribute values, and are omitted here). The shape
  function gives ``(n,)``.
- meshgrid: grid k holds ``data[k][i_k]`` at every position ``(i_0, i_1, ...)`` ("ij"); with
  "xy" the first two grid axes are swapped.

Undefined behaviour (``UndefinedBehavior``), with where TVM 0.18 left each case undefined:

- An index outside ``[0, extent)`` in gather, gather_nd, scatter_nd, sparse_to_dense and
  invert_permutation, or outside ``[-extent, extent)`` in scatter_elements: their computes
  (``topi::gather``, ``topi::gather_nd``, ``topi.scatter_nd``, ``topi::sparse_to_dense``,
  ``topi.invert_permutation``, ``topi.scatter_elements``) index buffers without checks.
  invert_permutation of a vector that is not a permutation (a repeated value leaves part of
  the output unwritten).
- Two writes to one position with reduction/mode "update" (scatter_elements, scatter_nd) or
  in sparse_to_dense: the GPU schedules write in parallel, so which one wins is unspecified.
- unravel_index of a negative flat index, one beyond the shape's size, or a shape with an
  entry <= 0 (TOPI divides by the entries and trusts the bound).
- sort, argsort, topk of float data containing NaN (the comparator is then not a strict
  weak order, which ``std::stable_sort`` requires); searchsorted on a sequence that is not
  sorted ascending, or with NaN (its binary search assumes order).
- topk with k larger than the axis extent (TVM's relation allows it; the sort kernel then
  reads past the end of the sorted row).
- arange with a step of 0, a non-finite n, a negative n (the shape function allocates a
  negative extent), or an element that the integer dtype cannot hold.
- one_hot's on/off value and sequence_mask's mask_value when the conversion is undefined
  (float to integer out of range or NaN, as ``cast``).
- Run-time shapes that contradict what a relation accepted because a dimension was ``?`` or
  symbolic (every reference re-checks its relation on the run-time shapes).

Deliberate departures from TVM (each a case where TVM crashed, gave no meaning, or typed a
program its compute could not build): gather's ``axis`` None is rejected (the relation
dereferences it); gather_nd, one_hot, sequence_mask, invert_permutation and unravel_index
require integer indices (TVM cast float indices or did not check); scatter_elements checks
the ranks, the updates' shape and dtype, and rejects the "mean" reduction, whose TOPI
meaning this spec does not define; scatter_nd checks the updates' dtype; one_hot rejects an
axis below -1 or above the rank, and non-scalar on/off values; sort checks its axis;
searchsorted requires equal dtypes and a sequence of rank >= 1; unravel_index requires a
rank-1 shape and indices of rank <= 1 (TVM's relation ignores the rest of the indices' shape);
sparse_to_dense requires indices of rank <= 2 (TVM allowed 3), values of rank <= 1, matching
extents and dtypes; arange requires its inputs to be rank-0 tensors of the dtype (TVM's
relation assigned those types).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeVar

import numpy as np

from ..errors import UndefinedBehavior
from ..syntax import ANY, Dim, TensorType, Type, is_dtype
from ..text.printer import format_type
from .elementwise import Accepts, Array, UnaryKernel, _cast, _identity_relation, _tensors, _unary
from .registry import (
    AttrKind,
    Attrs,
    OpDef,
    OpPattern,
    Reference,
    Relation,
    RelationError,
    ShapeFunc,
    Tensor,
    attr_field,
    register,
    tensor_reference,
)
from .shapes import (
    tensor_arg,
)


def _full_like_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    """``FullLike``: the type of ``data``; ``fill_value`` must be rank 0 (of any dtype)."""
    data, fill_value = _tensors(arg_types, ("data", "fill_value"))
    if fill_value.shape:
        raise RelationError(
            f"expected a rank-0 fill_value, found {format_type(fill_value)} "
            f"of rank {len(fill_value.shape)}"
        )
    return TensorType(data.shape, data.dtype)


def _full_like(args: tuple[Array, ...], attrs: Attrs | None) -> Array:
    data, fill_value = args
    with np.errstate(all="ignore"):
        value = _cast(fill_value, data.dtype.name, "full_like")
    return np.full(data.shape, value, dtype=data.dtype)


def _zeros_like(x: Array) -> Array:
    return np.zeros_like(x)


def _ones_like(x: Array) -> Array:
    return np.ones_like(x)


_UNARY: tuple[tuple[str, Accepts, UnaryKernel, str, str], ...] = (
    (
        "zeros_like",
        "any",
        _zeros_like,
        "Zeros with the shape and dtype of the input.",
        "onnxruntime:ConstantOfShape",
    ),
    (
        "ones_like",
        "any",
        _ones_like,
        "Ones with the shape and dtype of the input.",
        "onnxruntime:ConstantOfShape",
    ),
)
"""Fills of data's type without attributes: name, dtypes, kernel, doc, check."""


def _op(
    name: str,
    doc: str,
    *,
    relation: Relation,
    reference: Reference,
    check: str,
    relation_name: str = "InitOp",
    inputs: tuple[str, ...] = (),
    attrs_type: type[Attrs] | None = None,
    pattern: OpPattern = OpPattern.ELEMWISE,
    shape_func: ShapeFunc | None = None,
) -> None:
    """Register one operator of this module, with its independent ``check``; unless told
    otherwise: no attributes, inputs , pattern elemwise, relation "InitOp"."""
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
        inputs=("data",),
    )


_op(
    "full_like",
    "The scalar fill_value, cast to the dtype of data, with the shape of data.",
    relation=_full_like_relation,
    reference=tensor_reference(_full_like),
    check="independent:Python scalar conversion (math.trunc, modular wrap-around)",
    relation_name="FullLike",
    inputs=("data", "fill_value"),
)


@dataclass(frozen=True, slots=True)
class InitOpAttrs(Attrs):
    """Attributes of the tensor creators and ``broadcast_to``: a target shape and dtype."""

    type_key: ClassVar[str] = "relay.attrs.InitOpAttrs"
    shape: tuple[int, ...] | None = attr_field(AttrKind.INTS, optional=True, doc="Target shape.")
    dtype: str = attr_field(
        AttrKind.DTYPE, "", doc='Target data type; "" means the input\'s (or unset).'
    )


_A = TypeVar("_A", bound=Attrs)


def _attrs(attrs: Attrs | None, cls: type[_A]) -> _A:
    if not isinstance(attrs, cls):
        found = "no attributes" if attrs is None else type(attrs).__name__
        raise RelationError(f"expected {cls.__name__}, found {found}")
    return attrs


def _arity(arg_types: tuple[Type, ...], n: int) -> None:
    if len(arg_types) != n:
        raise RelationError(f"expected {n} argument(s), found {len(arg_types)}")


def _fmt(shape: Sequence[Dim]) -> str:
    """A shape as Relay prints it: ``(2, 3)``, ``(n, ?)``, ``(2)``, ``()``."""
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _show(values: Sequence[int] | None) -> str:
    """An attribute list as the text format writes it: ``[2, -1]`` (or ``None``)."""
    return "None" if values is None else "[" + ", ".join(str(v) for v in values) + "]"


def _known(shape: Sequence[Dim]) -> tuple[int, ...] | None:
    """``shape`` as integers, or ``None`` when a dimension is ``?`` or symbolic."""
    if all(isinstance(d, int) for d in shape):
        return tuple(int(d) for d in shape)  # type: ignore[arg-type]
    return None


def _target_shape(shape: tuple[int, ...] | None) -> tuple[int, ...]:
    """The ``shape`` attribute of InitOpAttrs, which must be present and non-negative."""
    if shape is None:
        raise RelationError("expected a shape, found shape=None")
    for d in shape:
        if d < 0:
            raise RelationError(f"expected non-negative dimensions, found shape={_show(shape)}")
    return shape


def _type_of(value: Tensor) -> TensorType:
    return TensorType(tuple(int(d) for d in value.shape), value.dtype.name)


def _out_shape(t: Type) -> tuple[int, ...]:
    assert isinstance(t, TensorType)
    shape = _known(t.shape)
    assert shape is not None, "a relation over known shapes gives a known shape"
    return shape


def _init_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, InitOpAttrs)
    _arity(arg_types, 0)
    shape = _target_shape(a.shape)
    if not is_dtype(a.dtype):
        raise RelationError(f'expected a dtype, found dtype="{a.dtype}"')
    return TensorType(shape, a.dtype)


def _init_reference(value: int) -> Callable[[tuple[Tensor, ...], Attrs | None], Tensor]:
    def reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
        assert not args, "zeros and ones take no arguments"
        t = _init_relation((), attrs)
        assert isinstance(t, TensorType)
        return np.full(_out_shape(t), value, dtype=t.dtype)

    return reference


def _full_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, InitOpAttrs)
    _arity(arg_types, 1)
    fill = tensor_arg(arg_types[0], "fill_value")
    if fill.shape:
        raise RelationError(
            f"expected a scalar fill_value (rank 0), found rank {len(fill.shape)} "
            f"{_fmt(fill.shape)}"
        )
    return TensorType(_target_shape(a.shape), a.dtype or fill.dtype)


def _cast_scalar(value: Tensor, dtype: str) -> Tensor:
    """``tvm::cast`` of a rank-0 value, as LLVM lowers it; float to int out of range is UB."""
    target = np.dtype(dtype)
    if value.dtype.kind == "f" and target.kind in "iu":
        v = float(value)
        info = np.iinfo(target)
        if not math.isfinite(v) or not info.min <= math.trunc(v) <= info.max:
            raise UndefinedBehavior(
                f"full: cast of fill_value {v} to {dtype} is out of range (fptosi/fptoui "
                "give poison)"
            )
        return np.asarray(math.trunc(v), dtype=target)
    if value.dtype.kind == "f" and target.kind == "b":
        v = float(value)
        return np.asarray(v == v and v != 0)  # an ordered compare: NaN is false
    with np.errstate(all="ignore"):
        return np.asarray(value).astype(target)


def _full_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    (fill,) = args
    t = _full_relation((_type_of(fill),), attrs)
    assert isinstance(t, TensorType)
    return np.full(_out_shape(t), _cast_scalar(fill, t.dtype), dtype=t.dtype)


_op(
    "zeros",
    "A tensor of the given shape and dtype filled with zeros.",
    relation=_init_relation,
    reference=tensor_reference(_init_reference(0)),
    check="onnxruntime:ConstantOfShape",
    attrs_type=InitOpAttrs,
)


_op(
    "ones",
    "A tensor of the given shape and dtype filled with ones.",
    relation=_init_relation,
    reference=tensor_reference(_init_reference(1)),
    check="onnxruntime:ConstantOfShape",
    attrs_type=InitOpAttrs,
)


_op(
    "full",
    "A tensor of the given shape filled with the scalar fill_value.",
    relation=_full_relation,
    reference=tensor_reference(_full_reference),
    check="independent:Python scalar conversion (math.trunc, modular wrap-around)",
    relation_name="Full",
    inputs=("fill_value",),
    attrs_type=InitOpAttrs,
)


@dataclass(frozen=True, slots=True)
class ArangeAttrs(Attrs):
    """Attributes of ``arange``: the result dtype (TVM's copies of the inputs are omitted)."""

    type_key: ClassVar[str] = "relay.attrs.ArangeAttrs"
    dtype: str = attr_field(AttrKind.DTYPE, doc="Target data type.")


def _tensor_list(arg_types: tuple[Type, ...], names: Sequence[str]) -> list[TensorType]:
    _arity(arg_types, len(names))
    return [tensor_arg(t, name) for t, name in zip(arg_types, names, strict=True)]


def _dtype(dtype: str, what: str = "dtype") -> str:
    if not is_dtype(dtype):
        raise RelationError(f'expected a {what} attribute, found "{dtype}"')
    return dtype


def _fmt_shape(shape: Sequence[Dim]) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ")"


def _arange_relation(arg_types: tuple[Type, ...], attrs: Attrs | None) -> Type:
    a = _attrs(attrs, ArangeAttrs)
    dtype = _dtype(a.dtype)
    for t in _tensor_list(arg_types, ("start", "stop", "step")):
        if t.shape or t.dtype != dtype:
            raise RelationError(
                f"expected start, stop and step of type Tensor[(), {dtype}], found "
                f"Tensor[{_fmt_shape(t.shape)}, {t.dtype}]"
            )
    return TensorType((ANY,), dtype)


def _arange_count(start: Tensor, stop: Tensor, step: Tensor) -> int:
    """``ceil((stop - start) / step)`` in double precision, or ``UndefinedBehavior``."""
    s0, s1, s2 = float(start), float(stop), float(step)
    if s2 == 0:
        raise UndefinedBehavior("arange with step 0")
    n = (s1 - s0) / s2
    if not math.isfinite(n):
        raise UndefinedBehavior(f"arange with a non-finite count ({s1} - {s0}) / {s2}")
    count = math.ceil(n)
    if count < 0:
        raise UndefinedBehavior(f"arange with a negative count {count}")
    return count


def _arange_shape(args: tuple[Tensor, ...], attrs: Attrs | None) -> tuple[int, ...]:
    start, stop, step = args
    return (_arange_count(start, stop, step),)


def _arange_reference(args: tuple[Tensor, ...], attrs: Attrs | None) -> Tensor:
    start, stop, step = args
    t = _arange_relation((_type_of(start), _type_of(stop), _type_of(step)), attrs)
    assert isinstance(t, TensorType)
    n = _arange_count(start, stop, step)
    if np.dtype(t.dtype).kind in "iub":
        exact = [int(start) + int(step) * i for i in range(n)]
        if t.dtype != "bool":
            info = np.iinfo(np.dtype(t.dtype))
            if any(not info.min <= v <= info.max for v in exact):
                raise UndefinedBehavior(f"arange: an element overflows {t.dtype}")
        return np.asarray(exact, dtype=t.dtype).reshape((n,))
    i = np.arange(n).astype(t.dtype)
    with np.errstate(all="ignore"):
        return np.asarray(start + step * i, dtype=t.dtype).reshape((n,))


_op(
    "arange",
    "Evenly spaced values from start towards stop by step.",
    relation=_arange_relation,
    reference=tensor_reference(_arange_reference),
    check="onnxruntime:Range",
    relation_name="Arange",
    inputs=("start", "stop", "step"),
    attrs_type=ArangeAttrs,
    pattern=OpPattern.OPAQUE,
    shape_func=_arange_shape,
)
