"""``image`` (``compiler/lower/ops/image.py``): ``image.resize2d`` is registered unsupported with
a reason."""

from __future__ import annotations

import relay.compiler.lower.ops  # noqa: F401  (registers the lowerings)
from relay.compiler.lower import te


def test_resize_is_unsupported_with_a_reason() -> None:
    assert "image.resize2d" not in te.LOWERINGS
    assert te.UNSUPPORTED["image.resize2d"].strip()
