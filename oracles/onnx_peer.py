"""onnxruntime as a peer: run one ONNX node on numpy inputs.

The op tests compare an operator's reference semantics with onnxruntime where ONNX has the
same operation (the op record's ``check`` then says ``onnxruntime:<ONNX op>``). ``onnx`` and
``onnxruntime`` are development dependencies; this module imports them when first used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[Any]


def onnx_run(
    op_type: str,
    inputs: Sequence[Array | None],
    *,
    opset: int = 17,
    outputs: int = 1,
    out_dtype: str | Sequence[str] | None = None,
    domain: str = "",
    **attributes: Any,
) -> Array | tuple[Array, ...]:
    """Run one ONNX node ``op_type`` on ``inputs`` with onnxruntime's CPU provider.

    A ``None`` input is an omitted optional input (the empty name). ``out_dtype`` is the
    element type of the outputs, one for all or one per output (default: the first input's).
    With ``outputs=1`` the one output is returned, otherwise a tuple of ``outputs`` arrays.
    """
    import onnxruntime as ort
    from onnx import helper

    names = [f"x{i}" if a is not None else "" for i, a in enumerate(inputs)]
    out_names = [f"y{i}" for i in range(outputs)]
    node = helper.make_node(op_type, names, out_names, domain=domain or None, **attributes)
    present = [(n, a) for n, a in zip(names, inputs, strict=True) if a is not None]
    first = present[0][1].dtype if present else np.dtype("float32")
    if out_dtype is None or isinstance(out_dtype, str):
        out_dtypes = [np.dtype(out_dtype) if out_dtype else first] * outputs
    else:
        out_dtypes = [np.dtype(d) for d in out_dtype]
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
            for n, a in present
        ],
        [
            helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(d), None)
            for n, d in zip(out_names, out_dtypes, strict=True)
        ],
    )
    opsets = [helper.make_opsetid("", opset)]
    if domain:
        opsets.append(helper.make_opsetid(domain, 1))
    model = helper.make_model(graph, opset_imports=opsets)
    model.ir_version = 8
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    results = [np.asarray(r) for r in session.run(None, dict(present))]
    return results[0] if outputs == 1 else tuple(results)


__all__ = ["onnx_run"]
