"""One partition of the operators: an op's semantics module predicts its oracle modules.

For every registered op, its family (the path of the ``relay.semantics.ops`` module that
registers it, e.g. ``nn/conv``) must be the module path of its Z3 encoding, its sampler and its
builder: the part of ``relay.oracles.z3``, ``relay.oracles.samplers`` and
``relay.oracles.builders`` whose table holds the entry. The defining module is read from the
part modules themselves (the ``<package>.<family with dots>`` module whose table holds the op),
not from the ``*_BY_FAMILY`` tables the packages assemble, so a stray entry fails here.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import pytest

import relay.oracles.builders as builders
import relay.oracles.samplers as samplers
import relay.oracles.z3 as z3_oracles
import relay.semantics.ops as semantics_ops
from relay.semantics.ops import OPS

# The framework modules of relay.semantics.ops: they register no operator.
_FRAMEWORK = {"registry", "shapes", "nn/common"}

# (package, the name of each part's table)
_ORACLES: list[tuple[ModuleType, str]] = [
    (z3_oracles, "RULES"),
    (samplers, "SAMPLERS"),
    (builders, "BUILDERS"),
]


def _module_paths(package: ModuleType) -> set[str]:
    """Every module below ``package`` as a path (``nn/conv``), packages excluded."""
    prefix = package.__name__ + "."
    paths = set()
    for info in pkgutil.walk_packages(package.__path__, prefix=prefix):
        if not info.ispkg:
            paths.add(info.name.removeprefix(prefix).replace(".", "/"))
    return paths


def _defining_modules(package: ModuleType, table: str) -> dict[str, list[str]]:
    """For each op name, the part modules of ``package`` whose ``table`` holds an entry."""
    found: dict[str, list[str]] = {}
    for path in sorted(_module_paths(package) - {"core"}):
        part = importlib.import_module(f"{package.__name__}.{path.replace('/', '.')}")
        entries = getattr(part, table, None)
        assert isinstance(entries, dict), f"{part.__name__} has no {table} table"
        for name in entries:
            found.setdefault(name, []).append(path)
    return found


def test_families_are_the_semantics_modules() -> None:
    semantics = _module_paths(semantics_ops) - _FRAMEWORK
    assert {op.family for op in OPS.values()} == semantics


@pytest.mark.parametrize(("package", "table"), _ORACLES, ids=[p.__name__ for p, _ in _ORACLES])
def test_oracle_modules_mirror_the_semantics_modules(package: ModuleType, table: str) -> None:
    assert _module_paths(package) - {"core"} == _module_paths(semantics_ops) - _FRAMEWORK


@pytest.mark.parametrize(("package", "table"), _ORACLES, ids=[p.__name__ for p, _ in _ORACLES])
def test_every_entry_lives_in_its_ops_module(package: ModuleType, table: str) -> None:
    found = _defining_modules(package, table)
    stray = {
        name: (OPS[name].family if name in OPS else None, where)
        for name, where in found.items()
        if name not in OPS or where != [OPS[name].family]
    }
    assert stray == {}, "op: (family, modules holding its entry)"
    assert sorted(found) == sorted(OPS)


@pytest.mark.parametrize(("package", "table"), _ORACLES, ids=[p.__name__ for p, _ in _ORACLES])
def test_assembled_tables_are_the_parts(package: ModuleType, table: str) -> None:
    by_family = {
        z3_oracles: z3_oracles.ENCODINGS_BY_FAMILY,
        samplers: samplers.SAMPLERS_BY_FAMILY,
        builders: builders.BUILDERS_BY_FAMILY,
    }[package]
    for family, entries in by_family.items():
        part = importlib.import_module(f"{package.__name__}.{family.replace('/', '.')}")
        assert entries is getattr(part, table), family
