"""Frontends: models from other frameworks as Relay modules.

- ``from_onnx(model, *, source=...) -> IRModule``: an ONNX ``ModelProto`` (or the path of an
  ``.onnx`` file) as a module whose ``@main`` computes the graph's outputs, weights as
  constants (printed in the metadata section). Raises ``OnnxImportError``.
- ``relay.frontend.onnx_backend``: ``RelayBackend``, an ``onnx.backend.base.Backend`` that
  runs models on the interpreter, and the runner of ONNX's node conformance cases.

``onnx`` is needed only when a model is imported (it is in the ``dev`` extra).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy.typing as npt

from ..compiler.frontend.onnx.importer import OnnxImportError
from ..compiler.frontend.onnx.importer import from_onnx as _from_onnx
from ..semantics.syntax import IRModule

if TYPE_CHECKING:
    import onnx


def load_onnx(path: str | os.PathLike[str]) -> onnx.ModelProto:
    """Read an ONNX model file; ``OnnxImportError`` if onnx is missing or the file is not a
    model."""
    try:
        import onnx
    except ImportError:
        raise OnnxImportError(
            "the onnx package is not installed (pip install onnx, or the relay-ref[dev] extra)",
            str(path),
        ) from None
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as err:
        raise OnnxImportError(f"cannot read the file: {err.strerror}", str(path)) from None
    model = onnx.ModelProto()
    try:
        model.ParseFromString(data)
    except Exception as err:  # protobuf's DecodeError and friends
        raise OnnxImportError(f"not an ONNX model: {err}", str(path)) from None
    if not model.HasField("graph"):
        raise OnnxImportError("not an ONNX model: it has no graph", str(path))
    return model


def from_onnx(
    model: onnx.ModelProto | str | os.PathLike[str],
    *,
    source: str | None = None,
    bind: Mapping[str, npt.NDArray[Any]] | None = None,
) -> IRModule:
    """The Relay module of ``model`` (a ``ModelProto`` or a file path); ``source`` names it
    in errors (default: the path, or ``<model>``). Graph inputs named in ``bind`` become
    constants of the given values (the model specialised to them)."""
    if isinstance(model, str | os.PathLike):
        name = source or str(model)
        return _from_onnx(load_onnx(model), source=name, bind=bind)
    return _from_onnx(model, source=source or "<model>", bind=bind)


__all__ = ["OnnxImportError", "from_onnx", "load_onnx"]
