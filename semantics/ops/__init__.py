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
