"""The ``vm`` operators (``semantics/ops/vm.py``) are not kernels: the host runtime runs them
(they read or relabel a tensor's shape, which a kernel's buffers fix)."""

from __future__ import annotations

from .. import te

te.unsupported("vm.shape_of", "a VM instruction run by the host runtime, not a kernel")
te.unsupported("vm.reshape_tensor", "a VM instruction run by the host runtime, not a kernel")
