"""Generated programs outside a test: ``relay gen``'s seeded runs of the generators.

Each program is drawn by an ``@given`` function executed once under ``hypothesis.seed(S)``
with only the generate phase, so the same seed gives the same programs
(``strategy.example()`` is not reproducible, and ``find`` looks for one example, not many).
Each program has a run of its own (see ``generate``).
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

    Program ``i`` is drawn by a seeded run of its own (seed ``program_seed(seed, i)``), so it
    does not depend on ``count``, and the programs are independent draws: one long run would
    make many of them near-copies of others (Hypothesis's generate phase runs mutations of
    each new example that copy one part of it over another, and starts with examples that are
    a random first choice followed by the simplest ones), which skews any count over them,
    such as ``relay gen --stats``'s calls per operator. Program 0 is the simplest program the
    strategy makes (the first example of a run, all choices simplest); every other one is the
    second example of its run, the first drawn at random.
    """
    if kind not in KINDS:
        raise ValueError(f"kind={kind!r} must be one of {', '.join(KINDS)}")
    strategies: dict[str, st.SearchStrategy[ModuleCase] | st.SearchStrategy[DataflowProgram]]
    strategies = {"module": modules(), "dataflow": dataflow_programs()}
    out = []
    for index in range(count):
        k = kind_of(kind, index)
        mod, param_types, positive = _draw(strategies[k], program_seed(seed, index), index == 0)
        out.append(Generated(index, k, mod, param_types, positive))
    return out


def program_seed(seed: int, index: int) -> int:
    """The seed of the run that draws program ``index`` of ``relay gen --seed seed``."""
    return seed * 2**20 + index


_Drawn = tuple[IRModule, tuple[Type, ...], tuple[bool, ...] | None]


def _draw(
    strategy: st.SearchStrategy[ModuleCase] | st.SearchStrategy[DataflowProgram],
    seed: int,
    simplest: bool,
) -> _Drawn:
    """One program from a seeded run: its first example (the simplest) or its second."""
    out: list[_Drawn] = []

    @hypothesis_seed(seed)
    @settings(
        max_examples=1 if simplest else 2,
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
    if not out:
        raise RuntimeError("Hypothesis ran no example")
    return out[-1]


__all__ = ["KINDS", "Generated", "generate", "kind_of", "program_seed"]
