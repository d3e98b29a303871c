"""The ``cpu`` target: Relay compiled to native code through LLVM (llvmlite's ORC JIT).

``CpuTarget(threads=1)`` compiles a module: FuseOps' primitive functions are lowered to loop
IR (``compiler.lower.lower.lower_primitive``) and compiled to machine code
(``targets.cpu.codegen.compile_kernel``, cached by the kernel's structural hash in memory and
under ``$RELAY_CACHE_DIR``, default ``~/.cache/relay/cpu``); the rest of the program runs in the
host runtime (``targets.cpu.runtime``). An operator without a native lowering is a
``BackendError`` (``target cpu does not support OP``), never run by its reference kernel.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ...compiler.lower import ir
from ...compiler.lower import ops as _lowerings  # noqa: F401  (fills te.LOWERINGS)
from ...compiler.lower.lower import lower_primitive, size_bindings
from ...compiler.lower.te import LOWERINGS, UNSUPPORTED, LoweringError
from ...semantics.errors import BackendError, Span
from ...semantics.syntax import Call, Expr, Function, IRModule, Op, children
from ..base import KernelRejected, Target, locate, register_target, unsupported
from .codegen import CompiledKernel, KernelCompileError, compile_kernel
from .runtime import HOST_OPS, Array, CompiledPrimitive, CpuExecutable, compile_module


class LlvmPrimitive:
    """A primitive function's kernel compiled by LLVM: appends the kernel's constants to the
    inputs, binds its size parameters from the buffers' shapes, then calls the machine code."""

    def __init__(self, kernel: ir.Kernel, compiled: CompiledKernel) -> None:
        self.kernel = kernel
        self.compiled = compiled
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
        self.compiled(inputs, outputs, sizes)

    def unchecked(self) -> Callable[[Sequence[Array], Sequence[Array]], None] | None:
        """The kernel's call without checks (``CompiledKernel.unchecked``), for a caller that
        guarantees the buffers' static shapes and dtypes; ``None`` if it has sizes."""
        if self.kernel.sizes:
            return None
        return self.compiled.unchecked(self.constants)

    def artifacts(self) -> dict[str, str | bytes]:
        """The kernel's loop IR, LLVM IR, assembly and object code."""
        return self.compiled.artifacts()


class LlvmBackend:
    """Lowering to loop IR, then LLVM: the CPU target's ``KernelBackend``."""

    def __init__(self, threads: int = 1) -> None:
        self.threads = threads
        # The host computes only the host operators that have no lowering of their own.
        self.host_ops = frozenset(op for op in HOST_OPS if op not in LOWERINGS)

    def compile_primitive(self, fn: Function, name: str) -> CompiledPrimitive:
        """Lower ``fn`` and compile it; ``BackendError`` naming an operator that has no
        lowering, ``KernelRejected`` if LLVM rejects the kernel (an internal error)."""
        try:
            kernel = lower_primitive(fn, name)
        except LoweringError as err:
            raise unsupported("cpu", err.op, err.reason, _op_span(fn, err.op)) from None
        try:
            compiled = compile_kernel(kernel, threads=self.threads)
        except KernelCompileError as err:
            raise KernelRejected("cpu", err.kernel_name, err.reason, err.llvm_ir) from None
        return LlvmPrimitive(kernel, compiled)


def _op_span(fn: Function, op: str) -> Span | None:
    stack: list[Expr] = [fn.body]
    while stack:
        e = stack.pop()
        if isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == op:
            return e.span
        stack.extend(children(e))
    return fn.span


def native_ops() -> dict[str, str | None]:
    """Every registered operator: ``None`` if it is lowered natively, else why not."""
    from ...semantics.ops import OPS

    out: dict[str, str | None] = {}
    for name in OPS:
        if name in LOWERINGS:
            out[name] = None
        else:
            out[name] = UNSUPPORTED.get(name, "no lowering to loop IR")
    return out


class CpuTarget(Target):
    """The ``cpu`` target (see the module docstring); ``threads`` for parallel loops."""

    name = "cpu"
    description = "native code for this machine through LLVM (llvmlite), host runtime"

    def __init__(self, threads: int = 1, backend: object | None = None) -> None:
        self.threads = threads
        self.backend = LlvmBackend(threads) if backend is None else backend
        self._native: dict[str, str | None] | None = None

    def supports(self, op: str) -> str | None:
        """``None`` if ``op`` has a native lowering, else the reason recorded for it."""
        if self._native is None:
            self._native = native_ops()
        from ...semantics.ops.annotation import PLACEMENTS

        if op in PLACEMENTS or op in HOST_OPS:
            return None
        return self._native.get(op, f"unknown operator {op}")

    def compile(self, mod: IRModule, opt_level: int = 3) -> CpuExecutable:
        """``mod`` compiled for this machine; ``BackendError`` at the first unsupported op."""
        try:
            return compile_module(mod, self.backend, target=self.name,  # type: ignore[arg-type]
                                  opt_level=opt_level)  # fmt: skip
        except BackendError as err:
            raise locate(err, mod) from None


register_target("cpu", CpuTarget)

__all__ = [
    "BackendError",
    "CpuTarget",
    "LlvmBackend",
    "LlvmPrimitive",
    "native_ops",
]
