"""``dyn`` (``compiler/lower/ops/dyn.py``): every operator is registered unsupported with the
reason (a data-dependent output shape)."""

from __future__ import annotations

import relay.compiler.lower.ops  # noqa: F401  (registers the lowerings)
from relay.compiler.lower import te
from relay.semantics.ops import OPS


def test_every_dyn_operator_is_unsupported_with_its_reason() -> None:
    family = [name for name, op in OPS.items() if op.family == "dyn"]
    assert family
    for name in family:
        assert "output shape depends on the values" in te.UNSUPPORTED[name]
