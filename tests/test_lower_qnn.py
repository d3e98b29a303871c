"""Lowerings of ``qnn`` (``compiler/lower/ops/qnn.py``) against the references, on sampled
calls; the operators not lowered are registered unsupported with a reason."""

from __future__ import annotations

from lowernn_helpers import sampled_cases

from relay.compiler.lower import te
from relay.semantics.ops import OPS


def test_every_operator_is_lowered_or_has_a_reason() -> None:
    family = [name for name, op in OPS.items() if op.family == "qnn"]
    assert family
    for name in family:
        assert name in te.LOWERINGS or te.UNSUPPORTED.get(name, "").strip(), name


for _op in (
    "qnn.quantize",
    "qnn.dequantize",
):

    @sampled_cases(_op, examples=25)
    def _test() -> None:
        """Sampled calls."""

    globals()[f"test_sampled_{_op.replace('.', '_')}"] = _test
