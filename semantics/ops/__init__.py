"""Operators: the registry and one module per op family.

Importing this package registers every built-in operator. The partition, by meaning; a
module is a family (``OpDef.family`` is the module's path below this package, set by
``registry.register``)::

    elementwise    unary elementwise math, rounding, predicates, clip, cast, reinterpret
    broadcast      binary broadcasting arithmetic, comparisons, bitwise ops, shifts, where
    create         tensors from a shape and a value: zeros, ones, full, their *_like, arange
    reduce         reductions and scans: sum, mean, variance, max, argmax, all, cumsum, ...
    shape          reshape, transpose, concatenate, split, squeeze, tile, layout_transform, ...
    index          take, strided_slice, slice_like, gather, scatter, one_hot, unravel_index, ...
    sort           sort, argsort, topk, searchsorted
    linalg         einsum, trilu, matrix_set_diag
    nn/activation  nn.relu, nn.leaky_relu, nn.prelu, nn.softmax, nn.log_softmax, ...
    nn/dense       nn.dense, nn.matmul, nn.batch_matmul, nn.bias_add
    nn/conv        nn.conv1d/2d/3d, nn.conv1d/2d_transpose, nn.contrib_conv2d_NCHWc
    nn/pool        max, average, global and adaptive pools
    nn/norm        batch, layer, group, instance and l2 normalisation, lrn, nn.dropout
    nn/loss        nn.cross_entropy, nn.nll_loss
    nn/shape       nn.pad, nn.mirror_pad, nn.upsampling, nn.batch_flatten, space/depth moves
    image          image.*
    dyn            dyn.*
    qnn            qnn.* and fixed_point_multiply
    annotation     annotation.stop_fusion, on_device, device_copy
    vm             vm.shape_of, vm.reshape_tensor

A prefixed name says its module (``nn.*`` in ``nn/``, ``qnn.*``, ``dyn.*``, ``image.*``);
``nn/common`` holds helpers the ``nn`` modules and ``image`` share, ``registry`` and
``shapes`` the framework. A family's tests are ``tests/test_ops_<family>.py`` with ``/`` written
``_`` (``nn/conv``: ``tests/test_ops_nn_conv.py``); ``tests/test_op_registry.py`` fails on a
family without its test file, a test file without its family, or an ``onnxruntime:<Op>``
check whose ONNX op is not run in the operator's own family's test file.

Conventions every module follows, stated here once:

- A module docstring opens with a table of its operators, one line each:
  ``name(inputs, attribute=default, ...)``, the attributes class, the fusion pattern.
  ``name=`` marks an attribute that must be given (required in TVM, or nullable without a
  default there). Attribute fields, defaults and type keys follow TVM 0.18's
  ``include/tvm/relay/attrs/*.h``, counting only fields declared with ``TVM_ATTR_FIELD``;
  argument names, fusion patterns and relations follow ``src/relay/op/**``, and each relation
  is registered under the name TVM gave it (``OpDef.relation_name``), which prefixes its error
  messages.
- An operator's facts sit on its own functions: its relation's docstring gives its typing rule
  and what its attributes mean, its reference's docstring the computation and every
  undefined case; a departure from TVM is stated on the function that departs.
- The meaning of an operator is what TVM 0.18's TOPI computed for it on CPU, lowered through
  its LLVM code generator (``src/target/llvm/codegen_llvm.cc``; default target, no fast-math).
  Integer ``add``, ``sub`` and ``mul`` are ``nsw`` for int32/int64 and ``nuw`` for
  uint32/uint64, so overflow there is undefined; narrower integers and bool wrap. Integer
  division truncates toward zero (``sdiv``/``udiv``), and the smallest signed integer divided
  by -1 is undefined. A cast (``CreateCast``) from integer to integer truncates or extends
  (by the source's signedness), from integer to float rounds to nearest, from float to
  integer truncates toward zero and is undefined (``fptosi``/``fptoui`` poison) for NaN, an
  infinity or a value out of range, and to bool is ``x != 0`` (ordered: NaN is false).
- Undefined behaviour is a reference raising ``UndefinedBehavior``, only where TVM left the
  case undefined. Where a relation compares dimensions it fails only when sympy proves the
  comparison false (``shapes.dims_equal``): ``?`` and undecidable symbolic dimensions are
  accepted, and a reference re-checks its relation on the run-time shapes, where a
  contradiction is undefined.
"""

from . import (
    annotation,
    broadcast,
    create,
    dyn,
    elementwise,
    image,
    index,
    linalg,
    qnn,
    reduce,
    shape,
    sort,
    vm,
)
from .nn import activation, common, conv, dense, loss, norm, pool  # noqa: F401
from .nn import shape as _nn_shape  # noqa: F401
from .registry import OPS, AttrError, AttrKind, Attrs, OpDef, OpPattern, lookup, register

__all__ = [
    "OPS",
    "AttrError",
    "AttrKind",
    "Attrs",
    "OpDef",
    "OpPattern",
    "annotation",
    "broadcast",
    "create",
    "dyn",
    "elementwise",
    "image",
    "index",
    "linalg",
    "lookup",
    "qnn",
    "reduce",
    "register",
    "shape",
    "sort",
    "vm",
]
