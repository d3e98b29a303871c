"""The ONNX importer: ``from_onnx(model) -> IRModule``.

``importer`` walks the graph; ``table`` is the one place mapping ONNX ops (and the opsets
each translation starts at) to Relay, filled by ``ops_math``, ``ops_nn`` and ``ops_tensor``.
``onnx`` itself is imported only when a model is imported.
"""

from . import converters  # noqa: F401  (fills the table)
from .importer import OnnxImportError, from_onnx
from .table import CONVERTERS, NOT_YET, UNSUPPORTED

__all__ = ["CONVERTERS", "NOT_YET", "UNSUPPORTED", "OnnxImportError", "from_onnx"]
