"""The ``gpu-sim`` target: Relay compiled for a GPU and run on the host's SIMT emulator.

``GpuSimTarget(seed=0, races=False, max_threads=256)`` compiles a module the way the CPU
target does (``targets.cpu.runtime.compile_module``: the ``opt-level`` pipeline, FuseOps, the
host runtime for control flow, closures, ADTs, references), but each primitive function's
kernel is lowered with the ``"gpu"`` matrix-product strategy (no external BLAS call on a
GPU), scheduled for a GPU launch (``compiler.lower.gpu.schedule_for_gpu``), checked
(``compiler.lower.check.check_kernel``, which rejects barriers under divergent control flow),
and run by the emulator (``targets.gpusim.emulator``) over every thread of its launch, the
threads of each phase in an order drawn from ``seed``. With ``races``, every launch is also
checked for data races (``RaceDetected``, an internal error: the kernel, not the program,
is wrong).

The environment variables ``RELAY_GPUSIM_SEED`` and ``RELAY_GPUSIM_RACES`` (``1``) set the
defaults, so that ``relay conform --target gpu-sim`` and ``relay fuzz --target gpu-sim`` can
run either mode; the target ``gpu-sim-races`` is ``gpu-sim`` with the race detector on.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

from ...compiler.lower import gpu, ir, schedules
from ...compiler.lower.check import IllFormed, check_kernel
from ...compiler.lower.lower import lower_primitive, size_bindings
from ...compiler.lower.printer import kernel_text
from ...compiler.lower.te import LOWERINGS, LoweringError
from ...semantics.syntax import Function
from ..base import KernelRejected, register_target, unsupported
from ..cpu import CpuTarget, _op_span
from ..cpu.runtime import HOST_OPS, Array, CompiledPrimitive
from .emulator import CompiledLaunch, RaceDetected, launch, prepare


class SimPrimitive:
    """A primitive function's scheduled kernel, run by the emulator: appends the kernel's
    constants to the inputs, binds its size parameters from the buffers' shapes, launches."""

    def __init__(self, kernel: ir.Kernel, scheduled: ir.Kernel, seed: int, races: bool) -> None:
        self.kernel = kernel
        self.scheduled = scheduled
        self.launch: CompiledLaunch = prepare(scheduled)
        self.seed = seed
        self.races = races
        self.calls = 0
        constants = kernel.attrs.get("constants", ())
        assert isinstance(constants, tuple)
        self.constants: tuple[Array, ...] = constants

    def __call__(self, inputs: Sequence[Array], outputs: Sequence[Array]) -> None:
        sizes: Mapping[ir.SizeVar, int] = {}
        if self.kernel.sizes:
            sizes = size_bindings(self.kernel, [a.shape for a in inputs],
                                  [o.shape for o in outputs])  # fmt: skip
        if self.constants:
            inputs = [*inputs, *self.constants]
        # a different order on every call, reproducible from the seed
        self.calls += 1
        launch(self.launch, inputs, outputs, sizes, seed=self.seed + self.calls - 1,
               races=self.races)  # fmt: skip

    def artifacts(self) -> dict[str, str | bytes]:
        """The kernel's loop IR, before and after thread binding."""
        grid, block = gpu.launch_dims(self.scheduled)
        from ...compiler.lower.printer import expr_text

        dims = f"grid ({', '.join(expr_text(g) for g in grid)}), block {block}"
        return {
            "loop-ir": kernel_text(self.kernel),
            "gpu-loop-ir": f"# {dims}\n{kernel_text(self.scheduled)}",
        }


class SimBackend:
    """Lowering, thread binding, the well-formedness check: the ``KernelBackend`` of
    ``gpu-sim``."""

    def __init__(self, target: str, seed: int, races: bool, max_threads: int) -> None:
        self.target = target
        self.seed = seed
        self.races = races
        self.max_threads = max_threads
        self.host_ops = frozenset(op for op in HOST_OPS if op not in LOWERINGS)

    def compile_primitive(self, fn: Function, name: str) -> CompiledPrimitive:
        """Lower, schedule and check ``fn``'s kernel; ``BackendError`` naming an operator
        without a lowering, ``KernelRejected`` for a kernel the schedule or check rejects."""
        try:
            with schedules.gemm_strategy("gpu"):
                kernel = lower_primitive(fn, name)
        except LoweringError as err:
            raise unsupported(self.target, err.op, err.reason, _op_span(fn, err.op)) from None
        try:
            scheduled = gpu.schedule_for_gpu(kernel, max_threads=self.max_threads)
            check_kernel(scheduled)
        except (gpu.ScheduleError, IllFormed) as err:
            raise KernelRejected(self.target, name, str(err), kernel_text(kernel)) from None
        return SimPrimitive(kernel, scheduled, self.seed, self.races)


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


class GpuSimTarget(CpuTarget):
    """The ``gpu-sim`` target (see the module docstring)."""

    name = "gpu-sim"
    description = "GPU kernels (thread-bound loop IR) run on the host's SIMT emulator"

    def __init__(
        self,
        seed: int | None = None,
        races: bool | None = None,
        max_threads: int = 256,
    ) -> None:
        seed = int(os.environ.get("RELAY_GPUSIM_SEED", "0")) if seed is None else seed
        races = _env_flag("RELAY_GPUSIM_RACES") if races is None else races
        super().__init__(backend=SimBackend(self.name, seed, races, max_threads))
        self.seed = seed
        self.races = races


class GpuSimRacesTarget(GpuSimTarget):
    """``gpu-sim`` with the race detector on."""

    name = "gpu-sim-races"
    description = "gpu-sim with the race detector on every launch"

    def __init__(self, seed: int | None = None, max_threads: int = 256) -> None:
        super().__init__(seed=seed, races=True, max_threads=max_threads)


register_target("gpu-sim", GpuSimTarget)
register_target("gpu-sim-races", GpuSimRacesTarget)

__all__ = ["GpuSimRacesTarget", "GpuSimTarget", "RaceDetected", "SimBackend", "SimPrimitive"]
