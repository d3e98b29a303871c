"""The ``accel`` target: a VTA-style int8 GEMM accelerator, simulated, beside the CPU.

``AccelTarget`` compiles a module as the ``cpu`` target does (the optimisation pipeline, then
FuseOps), except that every primitive function the accelerator can compute
(``offload.match_region``: a quantized ``nn.conv2d`` or ``nn.dense`` and an ALU tail) becomes
an accelerator program (``codegen.generate``) run on the simulator (``sim.Simulator``); the
rest is compiled by LLVM for the CPU. Results agree bit for bit with the interpreter.

At run time an offloaded kernel is what VTA's runtime does on the host: it packs the inputs
into the DRAM layout (channel blocks of 16, zero-padded), runs the instruction stream, and
unpacks the result (the low 8 bits of each accumulator, sign-extended to the result dtype).
Each kernel keeps the simulator's ``Counters`` of its runs (``AccelPrimitive.counters``).

``artifacts()`` gives each kernel an ``"insn"`` entry: the instruction listing, or for a
kernel left on the CPU a line saying why (``relay compile --target accel --emit insn``); an
offloaded kernel's ``"obj"`` is its encoded instruction stream (``--emit obj``).
Parts: ``config`` (the configuration), ``isa`` (instructions), ``sim`` (the simulator),
``codegen`` (instruction generation), ``offload`` (what is offloaded).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import numpy as np

from ...semantics.errors import BackendError
from ...semantics.syntax import Function, IRModule
from ..base import KernelRejected, locate, register_target
from ..cpu import CpuTarget, LlvmBackend
from ..cpu.runtime import Array, CompiledPrimitive, CpuExecutable, compile_module
from .codegen import AccelProgram, CodegenError, generate, pack_data, pack_weight, unpack_output
from .config import DEFAULT, Config
from .isa import encode
from .offload import (
    NoMatch,
    Region,
    data_nchw,
    match_region,
    nchw_out,
    out_nchw,
    resolve,
    weight_oihw,
)
from .sim import Counters, Dram, Simulator


class AccelPrimitive:
    """A primitive function run on the accelerator: its region and generated program."""

    def __init__(self, region: Region, program: AccelProgram) -> None:
        self.region = region
        self.program = program
        self.counters = Counters()
        self.runs = 0
        self.seconds = 0.0
        """Host seconds spent in the simulator over all runs."""
        self.cpu_seconds = 0.0
        """Process CPU seconds spent in the simulator (all threads) over all runs."""
        self._lock = threading.Lock()
        self._uops = np.array([u.encode() for u in program.uops], dtype=np.uint32)
        self.binary = b"".join(encode(insn) for insn in program.instructions)
        """The instruction stream as the accelerator reads it (16 bytes each)."""

    def __call__(self, inputs: Sequence[Array], outputs: Sequence[Array]) -> None:
        region, prog = self.region, self.program
        layer, bufs = region.layer, prog.buffers
        block = prog.config.block
        dram = Dram(bufs.size)
        dram.write(
            bufs.data,
            pack_data(
                data_nchw(region, resolve(region.data, inputs).reshape(_shape(region, True))), block
            ),
        )
        weight = resolve(region.weight, inputs).reshape(_shape(region, False))
        dram.write(bufs.weight, pack_weight(weight_oihw(region, weight), block))
        ot = -(-layer.o // block)
        for operand, addr in zip(region.operands, bufs.operands, strict=True):
            value = resolve(operand.source, inputs).reshape(operand.shape).astype(np.int32)
            full = out_nchw(region, np.broadcast_to(value, region.out_shape))
            if operand.per == "channel":
                lanes = np.zeros(ot * block, dtype=np.int32)
                lanes[: layer.o] = full[0, :, 0, 0]
                dram.write(addr, lanes)
            else:
                dram.write(addr, pack_data(np.ascontiguousarray(full), block))
        dram.write(bufs.uops, self._uops)
        start, cpu = time.perf_counter(), time.process_time()
        counters = Simulator(prog.config).run(prog.instructions, dram)
        elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
        raw = dram.read(bufs.output, layer.n * ot * layer.oh * layer.ow * block)
        packed = raw.view(np.int8).reshape(layer.n, ot, layer.oh, layer.ow, block)
        result = nchw_out(region, unpack_output(packed, layer.o))
        out = outputs[0]
        out.reshape(region.out_shape)[...] = result.astype(out.dtype)  # int8 sign-extends
        with self._lock:
            self.counters.add(counters)
            self.runs += 1
            self.seconds += elapsed
            self.cpu_seconds += cpu

    def artifacts(self) -> dict[str, str | bytes]:
        """The instruction listing (``insn``) and the encoded instructions (``obj``)."""
        return {"insn": self.program.listing(), "obj": self.binary}


def _shape(region: Region, data: bool) -> tuple[int, ...]:
    """The Relay shape of the anchor's data (``data``) or weights."""
    lay = region.layer
    match region.kind:
        case "conv2d":
            return (lay.n, lay.c, lay.h, lay.w) if data else (lay.o, lay.c, lay.kh, lay.kw)
        case "dense":
            return (lay.w, lay.c) if data else (lay.o, lay.c)
        case "conv2d-packed":
            if data:
                return (lay.n, lay.c // 16, lay.h, lay.w, 1, 16)
            return (lay.o // 16, lay.c // 16, lay.kh, lay.kw, 16, 16)


class CpuFallback:
    """A primitive function left on the CPU: LLVM's kernel, with a note why for ``insn``."""

    def __init__(self, inner: CompiledPrimitive, reason: str) -> None:
        self.inner = inner
        self.reason = reason
        unchecked = getattr(inner, "unchecked", None)
        if unchecked is not None:
            self.unchecked = unchecked

    def __call__(self, inputs: Sequence[Array], outputs: Sequence[Array]) -> None:
        self.inner(inputs, outputs)

    def artifacts(self) -> dict[str, str | bytes]:
        """The CPU kernel's artifacts and an ``insn`` note."""
        return {**self.inner.artifacts(), "insn": f"; runs on the CPU: {self.reason}\n"}


class AccelBackend:
    """The ``KernelBackend`` of ``accel``: offloaded regions to the accelerator, the rest to
    LLVM."""

    def __init__(self, config: Config = DEFAULT, threads: int = 1) -> None:
        self.config = config
        self.cpu = LlvmBackend(threads)
        self.host_ops = self.cpu.host_ops

    def compile_primitive(self, fn: Function, name: str) -> CompiledPrimitive:
        """The accelerator's program if ``fn`` is offloadable, else the CPU's kernel."""
        try:
            region = match_region(fn)
            program = generate(region.layer, self.config)
        except (NoMatch, CodegenError) as err:
            return CpuFallback(self.cpu.compile_primitive(fn, name), str(err))
        try:
            return AccelPrimitive(region, program)
        except ValueError as err:  # a field that does not fit: a bug in the generator
            raise KernelRejected("accel", name, str(err), program.listing()) from None


class AccelTarget(CpuTarget):
    """The ``accel`` target (see the module docstring)."""

    name = "accel"
    description = "a simulated VTA-style int8 accelerator (1x16x16 GEMM) beside the CPU"
    fuzz_programs = "quantized"
    """``relay fuzz``/``relay conform`` draw quantized conv/dense graphs for this target
    (``oracles.gen_quantized``)."""

    def __init__(self, config: Config = DEFAULT, threads: int = 1) -> None:
        super().__init__(threads, backend=AccelBackend(config, threads))
        self.config = config

    def compile(self, mod: IRModule, opt_level: int = 3) -> CpuExecutable:
        """``mod`` compiled: offloaded kernels on the accelerator, the rest on the CPU."""
        try:
            return compile_module(mod, self.backend, target=self.name,  # type: ignore[arg-type]
                                  opt_level=opt_level)  # fmt: skip
        except BackendError as err:
            raise locate(err, mod) from None


register_target("accel", AccelTarget)

__all__ = ["AccelBackend", "AccelPrimitive", "AccelTarget", "CpuFallback"]
