"""Frontends: models from other frameworks imported as Relay modules.

``onnx``: ONNX graphs (``relay.frontend.from_onnx``, ``relay import-onnx``). A frontend builds
Relay syntax through ``relay.semantics.syntax`` and the operator records, and leaves shape
inference to the Relay type checker.
"""
