"""Every registered operator is lowered natively (``te.LOWERINGS``) or explicitly unsupported
with a reason (``te.UNSUPPORTED``), by the lowering module that mirrors its semantics module.

The families whose lowering module is another helper's (``nn/*``, ``linalg``, ``sort``,
``image``, ``dyn``, ``qnn``) are checked once their module exists."""

from __future__ import annotations

import importlib.util

import pytest

import relay.compiler.lower.ops  # noqa: F401  (registers the lowerings)
from relay.compiler.lower import te
from relay.semantics.ops import OPS

_PACKAGE = "relay.compiler.lower.ops"


def _module_of(family: str) -> str:
    return f"{_PACKAGE}.{family.replace('/', '.')}"


def _present(family: str) -> bool:
    try:
        return importlib.util.find_spec(_module_of(family)) is not None
    except ModuleNotFoundError:
        return False


def test_every_operator_is_lowered_or_unsupported_with_a_reason() -> None:
    missing = sorted(
        name
        for name, op in OPS.items()
        if _present(op.family) and name not in te.LOWERINGS and name not in te.UNSUPPORTED
    )
    assert not missing, f"operators without a lowering or an unsupported entry: {missing}"
    assert all(reason.strip() for reason in te.UNSUPPORTED.values())
    assert not set(te.LOWERINGS) & set(te.UNSUPPORTED)
    assert set(te.LOWERINGS) | set(te.UNSUPPORTED) <= set(OPS)


@pytest.mark.parametrize("name", sorted(te.LOWERINGS))
def test_lowering_lives_in_the_module_mirroring_its_semantics(name: str) -> None:
    assert te.LOWERINGS[name].module == _module_of(OPS[name].family)


def test_native_count(capsys: pytest.CaptureFixture[str]) -> None:
    native = len(te.LOWERINGS)
    with capsys.disabled():
        print(f"\nlowered natively: {native} of {len(OPS)}; unsupported: {len(te.UNSUPPORTED)}")
    assert native > 0
