"""NVPTX code generation: a loop-IR kernel becomes PTX through LLVM's NVPTX back end.

``generate(kernel, archs=("sm_80", "sm_90"))`` gives a ``GpuModule``: the LLVM IR (for triple
``nvptx64-nvidia-cuda``), the PTX for each architecture and the launches that run the kernel.
Everything the CPU code generator (``targets.cpu.codegen``) defines for scalars, addresses,
loops and local buffers holds here too: the GPU emitter is the CPU one with these changes.

**Launches.** The kernel's top-level statements (looking through ``Allocate``s of a size the
host can compute: those become *scratch* buffers in global memory, allocated by the host and
passed after the kernel's own buffers) are cut into segments: each statement that contains a
thread-bound loop (``LoopKind.THREAD``) is one segment, and each run of others is one. Every
segment is an entry function ``@relay_<name>__k<i>`` with the ``ptx_kernel`` calling
convention (PTX ``.entry``), parameters ``(ptr buffers..., ptr scratch..., i64 sizes...)``;
the host launches them in order on one stream, which is what orders one segment's global
writes before the next one's reads (there is no grid-wide barrier inside a launch). A
segment's grid and block sizes are, per launch index (``blockIdx.x`` ... ``threadIdx.z``), the
extent of the loops bound to it (their maximum if they differ; 1 if none is): a segment
without thread-bound loops runs on one thread.

**Thread-bound loops.** ``for v in 0..extent [threadIdx.x]`` reads ``v`` from
``llvm.nvvm.read.ptx.sreg.tid.x`` (``ctaid`` for blocks), widened to ``i64``; where the loop's
extent is not the launch dimension itself (another loop bound to the same index is larger)
the body is guarded by ``v < extent``. A ``Store`` outside the loops of some launch index whose
dimension is not 1 runs once, not once per thread: it is guarded by that index being 0 (the
loop IR's meaning: it is not inside that loop). ``Barrier`` is ``llvm.nvvm.barrier0``
(``bar.sync 0``); ``shared`` buffers are ``internal addrspace(3)`` globals of constant size
(``.shared``); ``local`` buffers are allocas (per-thread local memory) when of a constant
size up to ``STACK_LIMIT`` bytes, else device ``malloc``/``free`` (PTX's built-in ones, from
the driver's device heap: 8 MiB unless the host raises it).
``ExternCall``s (``cblas_sgemm``) have no GPU version: the GPU targets lower matrix products
with the ``packed`` schedule.

**Math.** The float32 ``exp log log2 log10 tanh sinh cosh`` are the formulas of
``targets.gpu.math`` (over ``ex2.approx``/``lg2.approx``); every other transcendental
function, every float64 one and C's ``fmod`` (LLVM's ``frem`` lowers to ``a - b*trunc(a/b)``
on NVPTX, which is not exact) call libdevice's ``__nv_*``, linked into the module and
internalised before optimisation. Without libdevice they are ``NeedsLibdevice``. LLVM's fatal
errors end the process and cannot be caught, so before any LLVM call the module's
declarations are checked against ``ALLOWED_DECLARATIONS``: an intrinsic known to abort the
NVPTX back end (``llvm.exp.f32``, ``llvm.log.f32``, ``llvm.tanh.f32``, ``llvm.sin.*``,
``llvm.pow.*``, ...) never reaches it.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import llvmlite.binding as llvm
import llvmlite.ir as lir

from ...compiler.lower import ir
from ...compiler.lower.printer import kernel_text
from ..cpu import jit
from ..cpu.codegen import (
    F16,
    F32,
    F64,
    I1,
    I32,
    I64,
    VOID,
    KernelCompileError,
    _FunctionEmitter,
    _is_size_expression,
    _Module,
    _Unsupported,
    is_float,
    memory_type,
    register_type,
    symbol_base,
)
from . import math as gpu_math
from .toolkit import find_libdevice

TRIPLE = "nvptx64-nvidia-cuda"
DEFAULT_ARCHS = ("sm_80", "sm_90")
"""The architectures PTX is made for by default (A100, H100/H200)."""

SREG = {"threadIdx": "tid", "blockIdx": "ctaid"}

_LIBDEVICE_FUNCTIONS = (
    *("exp", "log", "log2", "log10", "sin", "cos", "tan", "asin", "acos", "atan", "sinh"),
    *("cosh", "tanh", "asinh", "acosh", "atanh", "erf", "pow", "atan2", "fmod"),
)

ALLOWED_DECLARATIONS = re.compile(
    r"llvm\.nvvm\.(read\.ptx\.sreg\.(tid|ctaid|ntid|nctaid)\.[xyz]|barrier0"
    r"|ex2\.approx\.f|lg2\.approx\.f)"
    r"|llvm\.(sqrt|fabs|floor|ceil|trunc|roundeven|copysign|minimum|maximum|minnum|maxnum"
    r"|fma|exp2)\.f(32|64)"
    r"|llvm\.[su](min|max)\.i(8|16|32|64)"
    r"|__nv_[a-z0-9]+|malloc|free"
)
"""The functions a GPU module may declare: what the NVPTX back end is known to lower (checked
with ptxas by the tests) and libdevice's functions. Anything else is refused before LLVM sees
it (``llvm.exp.f32`` and friends abort the process)."""


class NeedsLibdevice(_Unsupported):
    """A function that only libdevice provides, where libdevice was not found."""


@dataclass(frozen=True)
class Launch:
    """One entry function of a kernel and the grid and block it is launched with (extents
    over the kernel's size parameters, ``x y z``)."""

    symbol: str
    grid: tuple[ir.PrimExpr, ir.PrimExpr, ir.PrimExpr]
    block: tuple[ir.PrimExpr, ir.PrimExpr, ir.PrimExpr]


@dataclass(frozen=True)
class GpuModule:
    """A kernel compiled to PTX: the unoptimised and optimised LLVM IR, the PTX per
    architecture, the launches in order and the scratch buffers (global memory the host
    allocates for the launches to share)."""

    kernel: ir.Kernel
    llvm_ir: str
    optimised: str
    ptx: dict[str, str]
    launches: tuple[Launch, ...]
    scratch: tuple[ir.Buffer, ...]
    uses_libdevice: bool = False
    artifacts_extra: dict[str, str] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# LLVM's NVPTX target


@functools.cache
def target_machine(arch: str) -> llvm.TargetMachine:
    """The NVPTX target machine for ``arch`` (``sm_80``, ``sm_90``, ...), at O3."""
    if not re.fullmatch(r"sm_\d+[a-z]?", arch):
        raise ValueError(f"arch={arch!r} is not an NVIDIA architecture such as 'sm_90'")
    with jit.LOCK:
        jit.target_machine()  # the host target first: it initialises LLVM
        llvm.initialize_all_targets()
        llvm.initialize_all_asmprinters()
        target = llvm.Target.from_triple(TRIPLE)
        return target.create_target_machine(cpu=arch, features="", opt=3)


@functools.cache
def data_layout() -> str:
    """The NVPTX data layout (the same for every architecture)."""
    return str(target_machine(DEFAULT_ARCHS[-1]).target_data)


@functools.cache
def _libdevice_bitcode() -> bytes | None:
    path = find_libdevice()
    return path.read_bytes() if path is not None else None


def libdevice_available() -> bool:
    """Whether libdevice was found (``toolkit.find_libdevice``)."""
    return _libdevice_bitcode() is not None


# ---------------------------------------------------------------------------------------------
# Segments and launch dimensions


def _top_level(body: ir.Stmt) -> tuple[list[ir.Stmt], list[ir.Buffer]]:
    """The top-level statements, looking through non-shared ``Allocate``s of a size the host
    can compute (returned as the scratch buffers)."""
    out: list[ir.Stmt] = []
    scratch: list[ir.Buffer] = []
    work = [body]
    while work:
        s = work.pop()
        if isinstance(s, ir.Seq):
            work.extend(reversed(s.stmts))
        elif (
            isinstance(s, ir.Allocate)
            and s.buffer.scope != "shared"
            and s.buffer.strides is None
            and all(_is_size_expression(e) for e in s.buffer.shape)
        ):
            scratch.append(s.buffer)
            work.append(s.body)
        else:
            out.append(s)
    return out, scratch


def _thread_loops(s: ir.Stmt) -> Iterator[ir.For]:
    for x in ir.walk_stmt(s):
        if isinstance(x, ir.For) and x.kind is ir.LoopKind.THREAD:
            yield x


def launch_extents(s: ir.Stmt) -> dict[str, ir.PrimExpr]:
    """Per launch index (``ir.THREAD_TAGS``), its extent in statement ``s``: the extent of the
    loops bound to it, their maximum where they differ, ``1`` where none is."""
    found: dict[str, list[ir.PrimExpr]] = {tag: [] for tag in ir.THREAD_TAGS}
    for loop in _thread_loops(s):
        if loop.thread not in found:
            raise _Unsupported(f"loop {loop.var.name} is bound to {loop.thread!r}, which is not "
                               f"a launch index ({', '.join(ir.THREAD_TAGS)})")  # fmt: skip
        if loop.extent not in found[loop.thread]:
            found[loop.thread].append(loop.extent)
    out: dict[str, ir.PrimExpr] = {}
    for tag, extents in found.items():
        if not extents:
            out[tag] = ir.index(1)
            continue
        if all(isinstance(e, ir.Const) for e in extents):
            out[tag] = ir.index(max(int(e.value) for e in extents if isinstance(e, ir.Const)))
            continue
        total = extents[0]
        for e in extents[1:]:
            total = ir.Binary(ir.BinOp.MAX, total, e)
        out[tag] = total
    return out


def evaluate_extent(e: ir.PrimExpr, sizes: Mapping[ir.SizeVar, int]) -> int:
    """A launch extent's value given the size parameters' (integer arithmetic over literals
    and sizes: ``+ - * // % min max``)."""
    match e:
        case ir.Const(value):
            return int(value)
        case ir.Ref(ir.SizeVar() as var):
            return int(sizes[var])
        case ir.Binary(op, a, b):
            x, y = evaluate_extent(a, sizes), evaluate_extent(b, sizes)
            match op:
                case ir.BinOp.ADD:
                    return x + y
                case ir.BinOp.SUB:
                    return x - y
                case ir.BinOp.MUL:
                    return x * y
                case ir.BinOp.FLOORDIV | ir.BinOp.DIV if y != 0:
                    return x // y if op is ir.BinOp.FLOORDIV else int(x / y)
                case ir.BinOp.FLOORMOD if y != 0:
                    return x % y
                case ir.BinOp.MIN:
                    return min(x, y)
                case ir.BinOp.MAX:
                    return max(x, y)
    raise ValueError(f"a launch extent the host cannot compute: {e}")


def _check_extent(e: ir.PrimExpr, where: str) -> None:
    for x in ir.walk_expr(e):
        if isinstance(x, ir.Ref) and not isinstance(x.var, ir.SizeVar):
            raise _Unsupported(f"{where}: a thread-bound loop's extent depends on "
                               f"{x.var.name}, not only on the kernel's sizes")  # fmt: skip
        if isinstance(x, ir.Load | ir.Call):
            raise _Unsupported(f"{where}: a thread-bound loop's extent reads memory")


# ---------------------------------------------------------------------------------------------
# The emitter


class _GpuModule(_Module):
    def __init__(self, name: str) -> None:
        super().__init__(name, (TRIPLE, data_layout()))
        self.libdevice = libdevice_available()
        self.uses_libdevice = False
        self.shared = 0


class _GpuEmitter(_FunctionEmitter):
    """One entry function (see the module docstring)."""

    m: _GpuModule

    def __init__(
        self,
        m: _GpuModule,
        kernel: ir.Kernel,
        symbol: str,
        scratch: Sequence[ir.Buffer],
        launch: Mapping[str, ir.PrimExpr],
        tags: Mapping[ir.LoopVar, str],
    ) -> None:
        super().__init__(m, kernel, symbol, VOID, scratch=scratch)
        self.fn.calling_convention = "ptx_kernel"
        self.launch = launch
        self.tags = tags
        self.spread = [t for t, e in launch.items() if e != ir.index(1)]
        self.bound: list[str] = []

    # -- launch indices ------------------------------------------------------------------------

    def sreg(self, tag: str, builder: lir.IRBuilder | None = None) -> lir.Value:
        """The launch index ``tag`` (``threadIdx.x`` ...) as an ``i64``."""
        b = builder or self.b
        kind, axis = tag.split(".")
        fn = self.m.function(f"llvm.nvvm.read.ptx.sreg.{SREG[kind]}.{axis}", I32, [])
        return b.zext(b.call(fn, []), I64)

    def _open_loop(
        self,
        var: ir.LoopVar,
        start: lir.Value,
        end: lir.Value,
        kind: ir.LoopKind,
        extent: ir.PrimExpr,
    ) -> Callable[[], None]:
        if kind is ir.LoopKind.VECTORIZED:  # no vectoriser here: its forced hint only warns
            kind = ir.LoopKind.SERIAL
        if kind is not ir.LoopKind.THREAD:
            return super()._open_loop(var, start, end, kind, extent)
        tag = self.tags[var]
        if tag in self.bound:
            raise _Unsupported(f"loop {var.name} is bound to {tag} inside another loop bound "
                               "to it")  # fmt: skip
        B = self.b
        index = self.sreg(tag)
        self.scalars[var] = index
        self.bound.append(tag)
        exit_block: lir.Block | None = None
        if extent != self.launch[tag]:
            label = f"{tag.replace('.', '_')}{self.loops}"
            self.loops += 1
            body = self.fn.append_basic_block(f"bound.{label}")
            exit_block = self.fn.append_basic_block(f"bound.{label}.end")
            B.cbranch(B.icmp_signed("<", index, end), body, exit_block)
            B.position_at_end(body)

        def close() -> None:
            if exit_block is not None:
                B.branch(exit_block)
                B.position_at_end(exit_block)
            self.bound.remove(tag)
            del self.scalars[var]

        return close

    def barrier(self) -> None:
        """``bar.sync 0`` for the block."""
        self.b.call(self.m.function("llvm.nvvm.barrier0", VOID, []), [])

    def _store(
        self, s: ir.Store, buffer: ir.Buffer, indices: tuple[ir.PrimExpr, ...], value: ir.PrimExpr
    ) -> None:
        missing = [t for t in self.spread if t not in self.bound]
        if not missing:
            super()._store(s, buffer, indices, value)
            return
        B = self.b
        first: lir.Value = lir.Constant(I1, 1)
        for tag in missing:
            first = B.and_(first, B.icmp_unsigned("==", self.sreg(tag), lir.Constant(I64, 0)))
        then = self.fn.append_basic_block("once")
        merge = self.fn.append_basic_block("once.end")
        B.cbranch(first, then, merge)
        B.position_at_end(then)
        super()._store(s, buffer, indices, value)
        B.branch(merge)
        B.position_at_end(merge)

    # -- buffers -------------------------------------------------------------------------------

    def _allocate(self, buffer: ir.Buffer) -> Callable[[], None]:
        count = self._constant_size(buffer)
        if buffer.scope == "shared":
            if count is None:
                raise _Unsupported(f"shared buffer {buffer.name} has a size known only at run "
                                   "time")  # fmt: skip
            etype = memory_type(buffer.dtype)
            self.m.shared += 1
            name = f"{self.fn.name}.shared{self.m.shared}"
            slot = lir.GlobalVariable(self.m.module, lir.ArrayType(etype, max(count, 1)), name,
                                      addrspace=3)  # fmt: skip
            slot.linkage = "internal"
            slot.initializer = lir.Constant(slot.value_type, lir.Undefined)
            slot.align = 16
            self.buffers[buffer] = slot.bitcast(etype.as_pointer(3))
            return lambda: self._release(buffer, None)
        return super()._allocate(buffer)

    def _extern(self, name: str, args: tuple[ir.PrimExpr | ir.Buffer, ...]) -> None:
        raise _Unsupported(f"external function {name!r} in a GPU kernel")

    # -- math ----------------------------------------------------------------------------------

    def _libdevice(self, name: str, args: Sequence[lir.Value]) -> lir.Value:
        typ = args[0].type
        if not self.m.libdevice:
            dtype = "float64" if typ == F64 else "float32"
            raise NeedsLibdevice(f"{name} of {dtype} without libdevice (pip install "
                                 "nvidia-cuda-nvcc, or set RELAY_LIBDEVICE)")  # fmt: skip
        self.m.uses_libdevice = True
        symbol = f"__nv_{name}" + ("" if typ == F64 else "f")
        return self.b.call(self.m.function(symbol, typ, [a.type for a in args]), list(args))

    def fmod(self, a: lir.Value, b: lir.Value) -> lir.Value:
        """C's ``fmod`` (libdevice's exact one: NVPTX's ``frem`` is not)."""
        if a.type == F16:
            wide = self._libdevice("fmod", [self.b.fpext(a, F32), self.b.fpext(b, F32)])
            return self.b.fptrunc(wide, F16)
        return self._libdevice("fmod", [a, b])

    def call(self, name: str, args: list[lir.Value], dtype: str) -> lir.Value:
        """The intrinsic ``name``: formulas (float32), libdevice, or the CPU's way for the
        exact ones (``sqrt fabs floor ...``, comparisons) that NVPTX lowers itself."""
        if name not in _LIBDEVICE_FUNCTIONS or not is_float(dtype):
            return super().call(name, args, dtype)
        B = self.b
        if name == "erf":  # in double precision, rounded once (as the reference)
            x = args[0] if dtype == "float64" else B.fpext(args[0], F64)
            result = self._libdevice("erf", [x])
            return result if dtype == "float64" else B.fptrunc(result, register_type(dtype))
        wide = [self._wide(a, dtype) for a in args]
        if dtype != "float64" and name in gpu_math.FORMULAS:
            formulas = gpu_math.Formulas(B, self.m.function)
            return self._narrow(formulas.emit(name, wide[0]), dtype)
        return self._narrow(self._libdevice(name, wide), dtype)


# ---------------------------------------------------------------------------------------------
# The module of a kernel


def _segments(kernel: ir.Kernel) -> tuple[list[ir.Stmt], list[ir.Buffer]]:
    stmts, scratch = _top_level(kernel.body)
    if not any(True for s in stmts for _ in _thread_loops(s)):
        return [kernel.body], []  # one thread runs it all: the buffers stay local
    segments: list[ir.Stmt] = []
    run: list[ir.Stmt] = []
    for s in stmts:
        if isinstance(s, ir.Barrier):
            continue  # between launches: the end of a launch is a barrier for the whole grid
        if any(True for _ in _thread_loops(s)):
            if run:
                segments.append(ir.Seq(tuple(run)))
                run = []
            segments.append(s)
        else:
            run.append(s)
    if run:
        segments.append(ir.Seq(tuple(run)))
    return segments, scratch


def check_declarations(module: lir.Module) -> None:
    """Refuse a module that declares a function outside ``ALLOWED_DECLARATIONS``."""
    for g in module.globals.values():
        declared = isinstance(g, lir.Function) and g.is_declaration
        if declared and not ALLOWED_DECLARATIONS.fullmatch(g.name):
            raise _Unsupported(f"{g.name} has no NVPTX lowering (it would abort LLVM)")


def _optimise(text: str, arch: str, entries: Sequence[str] | None) -> llvm.ModuleRef:
    """``text`` parsed and optimised for ``arch``; with ``entries``, libdevice linked in first
    and every definition but the entry functions made internal (dropped when unused)."""
    tm = target_machine(arch)
    with jit.LOCK:
        mod = llvm.parse_assembly(text)
        mod.verify()
        if entries is not None:
            bitcode = _libdevice_bitcode()
            assert bitcode is not None
            lib = llvm.parse_bitcode(bitcode)
            lib.triple, lib.data_layout = mod.triple, mod.data_layout
            mod.link_in(lib)
            for f in mod.functions:
                if not f.is_declaration and f.name not in entries:
                    f.linkage = "internal"
            for g in mod.global_variables:
                if not g.is_declaration:
                    g.linkage = "internal"
            # Drop the hundreds of library functions the kernel does not call before the O3
            # pipeline spends time on them.
            dce = llvm.create_new_module_pass_manager()
            dce.add_global_dead_code_eliminate_pass()
            dce.add_strip_dead_prototype_pass()
            dce.run(mod, llvm.create_pass_builder(tm, llvm.create_pipeline_tuning_options()))
        options = llvm.create_pipeline_tuning_options(speed_level=3)
        options.loop_vectorization = False
        options.slp_vectorization = False
        builder = llvm.create_pass_builder(tm, options)
        builder.getModulePassManager().run(mod, builder)
        return mod


def _emit_ptx(mod: llvm.ModuleRef, arch: str) -> str:
    with jit.LOCK:
        return str(target_machine(arch).emit_assembly(mod))


def generate_ir(kernel: ir.Kernel) -> tuple[str, list[Launch], list[ir.Buffer], bool]:
    """The unoptimised LLVM IR of ``kernel`` for NVPTX, its launches, scratch buffers and
    whether it calls libdevice. ``KernelCompileError`` if it cannot be made (``NeedsLibdevice``
    as its ``__cause__`` when that is why)."""
    base = symbol_base(kernel.name)
    m = _GpuModule(base)
    segments, scratch = _segments(kernel)
    tags = {loop.var: loop.thread for loop in _thread_loops(kernel.body)}
    launches: list[Launch] = []
    try:
        for k, segment in enumerate(segments):
            extents = launch_extents(segment)
            for tag, e in extents.items():
                _check_extent(e, f"{tag} of kernel {kernel.name}")
            symbol = f"{base}__k{k}"
            emitter = _GpuEmitter(m, kernel, symbol, scratch, extents, tags)
            emitter.stmt(segment)
            emitter.finish()
            grid = (extents["blockIdx.x"], extents["blockIdx.y"], extents["blockIdx.z"])
            block = (extents["threadIdx.x"], extents["threadIdx.y"], extents["threadIdx.z"])
            launches.append(Launch(symbol, grid, block))
        check_declarations(m.module)
    except (_Unsupported, KeyError, TypeError, ValueError, AttributeError) as e:
        raise KernelCompileError(kernel.name, f"cannot generate NVPTX IR: {e}",
                                 _text(m)) from e  # fmt: skip
    return str(m.module), launches, scratch, m.uses_libdevice


def _text(m: _Module) -> str:
    try:
        return str(m.module)
    except Exception:
        return ""


def generate(kernel: ir.Kernel, archs: Sequence[str] = DEFAULT_ARCHS) -> GpuModule:
    """``kernel`` compiled to PTX for each of ``archs`` (see the module docstring)."""
    text, launches, scratch, uses_libdevice = generate_ir(kernel)
    ptx: dict[str, str] = {}
    optimised = ""
    for arch in archs:
        try:
            entries = [launch.symbol for launch in launches] if uses_libdevice else None
            mod = _optimise(text, arch, entries)
            optimised = optimised or str(mod)
            ptx[arch] = _emit_ptx(mod, arch)
        except RuntimeError as e:
            raise KernelCompileError(kernel.name, f"LLVM rejected the NVPTX IR: {e}",
                                     text) from e  # fmt: skip
    return GpuModule(kernel, text, optimised, ptx, tuple(launches), tuple(scratch),
                     uses_libdevice, {"loop-ir": kernel_text(kernel)})  # fmt: skip


__all__ = [
    "ALLOWED_DECLARATIONS",
    "DEFAULT_ARCHS",
    "TRIPLE",
    "GpuModule",
    "Launch",
    "NeedsLibdevice",
    "check_declarations",
    "data_layout",
    "evaluate_extent",
    "generate",
    "generate_ir",
    "launch_extents",
    "libdevice_available",
    "target_machine",
]
