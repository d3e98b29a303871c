"""Generated programs outside a test: ``relay gen``'s seeded runs of the generators.

A run is an ``@given`` function executed once under ``hypothesis.seed(S)`` with only the
generate phase, so the same seed gives the same programs (``strategy.example()`` is not
reproducible, and ``find`` looks for one example, not many).
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st

from relay.semantics.syntax import IRModule, Type

from .gen_dataflow import DataflowProgram, dataflow_programs
from .gen_modules import ModuleCase, modules

KINDS = ("modules", "dataflow", "mixed")
"""The values of ``relay gen --kind``."""


@dataclass(frozen=True, slots=True)
class Generated:
    """One generated program: its index, kind (``module`` or ``dataflow``), module, the
    parameter types of ``@main``, and per parameter whether it must be positive (dataflow)."""

    index: int
    kind: str
    mod: IRModule
    param_types: tuple[Type, ...]
    positive: tuple[bool, ...] | None = None


def kind_of(kind: str, index: int) -> str:
    """The kind of program ``index`` for ``--kind kind``: mixed alternates, a module first."""
    if kind == "modules":
        return "module"
    if kind == "dataflow":
        return "dataflow"
    return "module" if index % 2 == 0 else "dataflow"


def generate(count: int, seed: int, kind: str) -> list[Generated]:
    """``count`` programs of ``kind`` (one of ``KINDS``), the same ones for the same ``seed``.

    Each kind is one seeded run of its own (``mixed`` makes ``ceil(count / 2)`` modules and
    ``floor(count / 2)`` dataflow programs, then interleaves them): which strategy a call draws
    from must not depend on anything outside the draws, or Hypothesis rejects the run as flaky.
    """
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r} must be one of {', '.join(KINDS)}")
    wanted = {k: sum(kind_of(kind, i) == k for i in range(count)) for k in ("module", "dataflow")}
    made = {k: _generate_kind(k, n, seed) if n else [] for k, n in wanted.items()}
    out: list[Generated] = []
    taken = {"module": 0, "dataflow": 0}
    for index in range(count):
        k = kind_of(kind, index)
        mod, param_types, positive = made[k][taken[k]]
        taken[k] += 1
        out.append(Generated(index, k, mod, param_types, positive))
    return out


_Drawn = tuple[IRModule, tuple[Type, ...], tuple[bool, ...] | None]


def _generate_kind(kind: str, count: int, seed: int) -> list[_Drawn]:
    """``count`` programs of one kind (``module`` or ``dataflow``) from a seeded run."""

    strategy: st.SearchStrategy[ModuleCase] | st.SearchStrategy[DataflowProgram]
    strategy = modules() if kind == "module" else dataflow_programs()
    out: list[_Drawn] = []

    @hypothesis_seed(seed)
    @settings(
        max_examples=count,
        phases=[Phase.generate],
        database=None,
        deadline=None,
        derandomize=False,  # the seed decides (it overrides derandomize anyway)
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )
    @given(program=strategy)
    def draw_one(program: ModuleCase | DataflowProgram) -> None:
        if isinstance(program, DataflowProgram):
            out.append((program.mod, program.param_types, program.positive))
        else:
            out.append((program.mod, program.param_types, None))

    draw_one()
    if len(out) < count:
        raise RuntimeError(f"Hypothesis ran {len(out)} examples of the {count} asked for")
    return out[:count]


__all__ = ["KINDS", "Generated", "generate", "kind_of"]
