"""The NVIDIA GPU targets: ``gpu`` (PTX run through the CUDA driver) and ``nvptx``
(compile only: PTX and the ptxas report of every kernel).

Both compile a module as the CPU target does (``targets.cpu.runtime``: the same passes, the
same host runtime for control flow, closures and ADTs); each primitive function is lowered to
loop IR (matrix products with the ``"gpu"`` strategy: the GPU has no BLAS call), given the
GPU schedule (``compiler.lower.gpu.schedule_for_gpu``: thread binding, shared memory,
``MAX_THREADS`` threads per block) exactly as the ``gpu-sim`` target does, checked
(``compiler.lower.check.check_kernel``: no barrier under divergent control flow) and compiled
to PTX by ``targets.gpu.codegen``. Where ptxas is found (``targets.gpu.toolkit``) every
kernel's PTX is assembled with it for each architecture, so a kernel ptxas rejects is an
internal error (``KernelRejected``) at compile time, and its registers, shared memory, stack
and spills are in ``Executable.artifacts()`` (``"ptxas"``) and in ``relay compile --emit
ptx``'s report.

- ``gpu``: for the machine's GPU (its compute capability, e.g. ``sm_90`` on an H200). A call
  of a kernel copies its inputs to the device, launches its segments in order on the default
  stream, and copies the outputs back. Compiling for ``gpu`` where no CUDA driver loads is a
  ``BackendError`` saying so (use ``gpu-sim`` to emulate the GPU on the host, or ``nvptx``).
- ``nvptx``: PTX for ``sm_80`` and ``sm_90`` (``NvptxTarget(archs=...)``); running it is a
  ``BackendError`` pointing to ``gpu`` and ``gpu-sim``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...compiler.lower import ir
from ...compiler.lower.check import IllFormed, check_kernel
from ...compiler.lower.gpu import ScheduleError, schedule_for_gpu
from ...compiler.lower.lower import lower_primitive, size_bindings
from ...compiler.lower.printer import kernel_text
from ...compiler.lower.schedules import gemm_strategy
from ...compiler.lower.te import LOWERINGS, LoweringError
from ...semantics.errors import BackendError
from ...semantics.syntax import Function, IRModule
from ...semantics.values import Value
from ..base import KernelRejected, Target, locate, register_target, unsupported
from ..cpu import _op_span, native_ops
from ..cpu.codegen import KernelCompileError
from ..cpu.runtime import HOST_OPS, Array, CpuExecutable, compile_module
from . import codegen, toolkit
from .codegen import DEFAULT_ARCHS, GpuModule, NeedsLibdevice, evaluate_extent
from .toolkit import KernelUsage, PtxasError

if TYPE_CHECKING:
    from ...semantics.evaluation import Result
    from .driver import Device, Module

MAX_THREADS_PER_BLOCK = 1024
"""The most threads a CUDA block may have."""

MAX_THREADS = 256
"""The block size the GPU schedule is asked for (``schedule_for_gpu(max_threads=...)``)."""


def compile_kernel_ptx(kernel: ir.Kernel, archs: Sequence[str], target: str
                       ) -> tuple[GpuModule, list[KernelUsage]]:  # fmt: skip
    """``kernel`` to PTX for ``archs`` and, where ptxas is found, assembled by it for each
    (their usage reports). ``KernelRejected`` if LLVM or ptxas rejects the code; the
    ``NeedsLibdevice`` ``BackendError`` (unsupported) where libdevice is missing."""
    try:
        module = codegen.generate(kernel, archs)
    except KernelCompileError as err:
        if isinstance(err.__cause__, NeedsLibdevice):
            raise BackendError(f"target {target} does not support {err.__cause__}",
                               target=target) from None  # fmt: skip
        raise KernelRejected(target, err.kernel_name, err.reason, err.llvm_ir) from None
    usage: list[KernelUsage] = []
    if toolkit.find_ptxas() is not None:
        for arch, ptx in module.ptx.items():
            try:
                usage.extend(toolkit.ptxas_report(ptx, arch))
            except PtxasError as err:
                raise KernelRejected(target, kernel.name, str(err), ptx) from None
    return module, usage


class GpuPrimitive:
    """A primitive function's kernel compiled to PTX; with ``runnable`` it runs on the GPU
    (see the package docstring), else calling it is the ``nvptx`` target's error. The PTX is
    loaded into the driver on the first call in each process (CUDA state does not survive a
    fork: the checks run compiled programs in forked children)."""

    def __init__(self, kernel: ir.Kernel, module: GpuModule, usage: list[KernelUsage],
                 target: str, runnable: bool = False) -> None:  # fmt: skip
        self.kernel = kernel
        self.module = module
        self.usage = usage
        self.target = target
        self.runnable = runnable
        constants = kernel.attrs.get("constants", ())
        assert isinstance(constants, tuple)
        self.constants: tuple[Array, ...] = constants
        self._loaded: dict[int, tuple[Device, Module]] = {}

    def loaded(self) -> tuple[Device, Module]:
        """The device and this kernel's module loaded into it, in this process."""
        import os

        from .driver import CudaError, NoDriver, device

        found = self._loaded.get(os.getpid())
        if found is None:
            try:
                dev = device()
            except (NoDriver, CudaError) as err:
                raise BackendError(f"target {self.target}: {err}", target=self.target) from None
            found = self._loaded[os.getpid()] = (dev, dev.load_ptx(self.module.ptx[dev.arch]))
        return found

    def __call__(self, inputs: Sequence[Array], outputs: Sequence[Array]) -> None:
        if not self.runnable:
            raise BackendError(not_runnable(self.target), target=self.target)
        sizes: Mapping[ir.SizeVar, int] = {}
        if self.kernel.sizes:
            sizes = size_bindings(self.kernel, [a.shape for a in inputs],
                                  [o.shape for o in outputs])  # fmt: skip
        dev, loaded = self.loaded()
        run_on_device(dev, loaded, self.module, [*inputs, *self.constants], outputs, sizes)

    def artifacts(self) -> dict[str, str | bytes]:
        """Loop IR, optimised NVPTX LLVM IR, PTX (``"ptx"`` for the last architecture,
        ``"ptx-sm_XX"`` for each) and the ptxas report (one line per entry function and
        architecture; empty without ptxas)."""
        out: dict[str, str | bytes] = dict(self.module.artifacts_extra)
        out["llvm"] = self.module.optimised
        for arch, ptx in self.module.ptx.items():
            out[f"ptx-{arch}"] = ptx
        out["ptx"] = self.module.ptx[device_arch(self.module)]
        if toolkit.find_ptxas() is None:
            out["ptxas"] = f"not checked: {toolkit.NO_PTXAS}\n"
        else:
            out["ptxas"] = "".join(u.line() + "\n" for u in self.usage)
        out["launches"] = "".join(
            f"{launch.symbol}: grid {_dims(launch.grid)}, block {_dims(launch.block)}\n"
            for launch in self.module.launches
        )
        return out


def _dims(dims: Sequence[ir.PrimExpr]) -> str:
    from ...compiler.lower.printer import expr_text

    return " x ".join(expr_text(d) for d in dims)


def device_arch(module: GpuModule) -> str:
    """The architecture whose PTX a module is run or shown with: the last one made."""
    return list(module.ptx)[-1]


def not_runnable(target: str) -> str:
    """The error for running the compile-only target."""
    return (f"target {target} compiles only (PTX and the ptxas report: relay compile "
            f"--target {target} --emit ptx); to run, use --target gpu (a CUDA GPU) or "
            "--target gpu-sim (the host emulator)")  # fmt: skip


def run_on_device(device: Device, loaded: Module, module: GpuModule, inputs: Sequence[Array],
                  outputs: Sequence[Array], sizes: Mapping[ir.SizeVar, int]) -> None:  # fmt: skip
    """Copy ``inputs`` in, launch the kernel's segments, copy ``outputs`` back."""
    import numpy as np

    values = [int(sizes[s]) for s in module.kernel.sizes]
    with device.lock:
        device.make_current()
        buffers = [device.allocate(a.nbytes) for a in (*inputs, *outputs)]
        for buffer, array in zip(buffers, inputs, strict=False):
            buffer.upload(np.ascontiguousarray(array))
        for s in module.scratch:
            count = 1
            for e in s.shape:
                count *= evaluate_extent(e, sizes)
            item = 1 if s.dtype == "bool" else np.dtype(s.dtype).itemsize
            buffers.append(device.allocate(count * item))
        pointers = [b.pointer for b in buffers]
        for launch in module.launches:
            grid = [evaluate_extent(e, sizes) for e in launch.grid]
            block = [evaluate_extent(e, sizes) for e in launch.block]
            if 0 in grid or 0 in block:
                continue
            if block[0] * block[1] * block[2] > MAX_THREADS_PER_BLOCK:
                raise BackendError(f"kernel {module.kernel.name}: a block of {block} threads "
                                   f"is more than the GPU's {MAX_THREADS_PER_BLOCK}",
                                   target="gpu")  # fmt: skip
            device.launch(loaded.function(launch.symbol), grid, block, pointers, values)
        device.synchronize()
        for buffer, array in zip(buffers[len(inputs) :], outputs, strict=False):
            if array.flags.c_contiguous:
                buffer.download(array)
            else:
                staging = np.empty_like(array, order="C")
                buffer.download(staging)
                array[...] = staging


class GpuBackend:
    """Lowering, the GPU schedule and NVPTX code generation: the GPU targets'
    ``KernelBackend`` (``runnable`` false for compile only)."""

    def __init__(self, target: str, archs: Sequence[str], runnable: bool) -> None:
        self.target = target
        self.archs = tuple(archs)
        self.runnable = runnable
        self.host_ops = frozenset(op for op in HOST_OPS if op not in LOWERINGS)
        self.max_threads = MAX_THREADS

    def compile_primitive(self, fn: Function, name: str) -> GpuPrimitive:
        """Lower ``fn``, schedule it for the GPU and compile it to PTX (see the package
        docstring)."""
        try:
            with gemm_strategy("gpu"):
                kernel = lower_primitive(fn, name)
        except LoweringError as err:
            raise unsupported(self.target, err.op, err.reason, _op_span(fn, err.op)) from None
        try:
            kernel = schedule_for_gpu(kernel, max_threads=self.max_threads)
            check_kernel(kernel)
        except (ScheduleError, IllFormed) as err:
            raise KernelRejected(self.target, name, str(err), kernel_text(kernel)) from None
        module, usage = compile_kernel_ptx(kernel, self.archs, self.target)
        return GpuPrimitive(kernel, module, usage, self.target, self.runnable)


@dataclass(eq=False, repr=False)
class NvptxExecutable(CpuExecutable):
    """A module compiled by the ``nvptx`` target: its artifacts, and no way to run it."""

    def evaluate(self, args: Sequence[Value], *, entry: str = "main", fuel: int | None = None
                 ) -> Result:  # fmt: skip
        """Always a ``BackendError``: the ``nvptx`` target compiles only."""
        raise BackendError(not_runnable("nvptx"), target="nvptx")


class _GpuTargetBase(Target):
    """What both GPU targets share: the operators (those with a lowering) and compiling."""

    def __init__(self) -> None:
        self._native: dict[str, str | None] | None = None

    def supports(self, op: str) -> str | None:
        """``None`` if ``op`` has a lowering to loop IR (or runs in the host runtime)."""
        if self._native is None:
            self._native = native_ops()
        from ...semantics.ops.annotation import PLACEMENTS

        if op in PLACEMENTS or op in HOST_OPS:
            return None
        return self._native.get(op, f"unknown operator {op}")

    def _compile(self, mod: IRModule, opt_level: int, backend: GpuBackend) -> CpuExecutable:
        try:
            return compile_module(mod, backend, target=self.name,
                                  opt_level=opt_level)  # fmt: skip
        except BackendError as err:
            raise locate(err, mod) from None


class NvptxTarget(_GpuTargetBase):
    """The compile-only ``nvptx`` target (see the package docstring)."""

    name = "nvptx"
    description = "NVIDIA PTX through LLVM's NVPTX back end, checked by ptxas (compile only)"

    def __init__(self, archs: Sequence[str] = DEFAULT_ARCHS) -> None:
        super().__init__()
        for arch in archs:
            codegen.target_machine(arch)  # a bad architecture name is refused here
        self.archs = tuple(archs)

    def compile(self, mod: IRModule, opt_level: int = 3) -> NvptxExecutable:
        """Every kernel of ``mod`` compiled to PTX (and checked by ptxas where it is found)."""
        exe = self._compile(mod, opt_level, GpuBackend(self.name, self.archs, False))
        return NvptxExecutable(exe.source, exe.optimized, exe.kernels, exe.program, exe.plans)


class GpuTarget(_GpuTargetBase):
    """The ``gpu`` target: PTX for this machine's GPU, run through the CUDA driver."""

    name = "gpu"
    description = "an NVIDIA GPU through the CUDA driver (PTX from LLVM's NVPTX back end)"

    def arch(self) -> str:
        """The GPU's architecture (``driver.probe``); ``BackendError`` without a driver."""
        from .driver import NoDriver, probe

        try:
            return probe()[0]
        except NoDriver as err:
            raise BackendError(f"target gpu: {err}; use --target gpu-sim to emulate the GPU "
                               "on the host, or --target nvptx to compile only",
                               target="gpu") from None  # fmt: skip

    def compile(self, mod: IRModule, opt_level: int = 3) -> CpuExecutable:
        """``mod`` compiled for the GPU of this machine; ``BackendError`` without a driver."""
        return self._compile(mod, opt_level, GpuBackend(self.name, (self.arch(),), True))


register_target("gpu", GpuTarget)
register_target("nvptx", NvptxTarget)

__all__ = [
    "GpuBackend",
    "GpuPrimitive",
    "GpuTarget",
    "NvptxExecutable",
    "NvptxTarget",
    "compile_kernel_ptx",
    "not_runnable",
    "run_on_device",
]
