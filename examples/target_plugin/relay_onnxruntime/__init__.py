"""A third-party Relay target: dataflow programs as ONNX models run by onnxruntime.

Installing this package registers the target ``onnxruntime`` in the ``relay.targets``
entry-point group (``pyproject.toml``), so ``relay conform --target onnxruntime`` and
``pytest --relay-target onnxruntime`` find it. ``target`` holds the ``Target``;
``convert`` the Relay-to-ONNX conversion.
"""

from .target import OnnxRuntimeExecutable, OnnxRuntimeTarget

__all__ = ["OnnxRuntimeExecutable", "OnnxRuntimeTarget"]
