"""The LLVM side of the CPU target: the host target machine, the O3 pipeline, object and
assembly emission, and the ORC JIT (LLJIT) that loads the objects.

One target machine for the host (its CPU name and features, so that the vectoriser uses the
widest registers the machine has) and one LLJIT serve the whole process. A compiled kernel is
an object file: it is what the cache stores (``targets.cpu.cache``) and what the JIT loads, so
a kernel loaded from the disk cache runs exactly the code a fresh compile would. Each object
is linked into its own JIT library, whose ``ResourceTracker`` the ``Library`` keeps alive (the
code is freed when the tracker is).

Everything here holds one process-wide lock: LLVM's contexts and the JIT are not thread-safe.

**Crash guard.** llvmlite's LLVM is built with assertions, and a rare loop makes the loop
vectoriser fail one (``computeBestVF``: "VPlan cost model and legacy cost model disagreed",
found by ``tests/test_cpu_codegen_random.py``), which aborts the whole process. So
``compile_object`` optimises and emits in a forked child process (where ``os.fork`` exists and
``$RELAY_CPU_COMPILE_IN_PROCESS`` is not set) that sends the object back through a pipe; if the
child dies, the kernel is compiled again without the loop and SLP vectorisers, and if that
dies too the caller gets ``CompilerCrash``. The module is parsed and verified in the parent
first, so an LLVM rejection is still an ordinary ``RuntimeError`` with LLVM's message.
"""

from __future__ import annotations

import ctypes
import functools
import itertools
import os
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import llvmlite
import llvmlite.binding as llvm

LOCK = threading.RLock()
"""Held around every use of LLVM (parsing, optimisation, emission, linking)."""

_library_numbers = itertools.count()


@functools.cache
def _initialised() -> bool:
    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    return True


@functools.cache
def host_cpu() -> tuple[str, str]:
    """The host CPU's name and its feature string (``+avx2,+fma,...``)."""
    _initialised()
    return llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten()


@functools.cache
def target_machine() -> llvm.TargetMachine:
    """The target machine for the host: its CPU name and features, optimisation level 3."""
    _initialised()
    cpu, features = host_cpu()
    target = llvm.Target.from_default_triple()
    return target.create_target_machine(cpu=cpu, features=features, opt=3, jit=True)


def host_description() -> str:
    """Everything about the code generator's environment that changes the object code: the
    triple, CPU, features and the LLVM and llvmlite versions (part of every cache key)."""
    cpu, features = host_cpu()
    version = ".".join(map(str, llvm.llvm_version_info))
    return f"{llvm.get_process_triple()}|{cpu}|{features}|llvm {version}|{llvmlite.__version__}"


def triple_and_layout() -> tuple[str, str]:
    """The triple and data layout a module for the host must carry."""
    return llvm.get_process_triple(), str(target_machine().target_data)


def parse(text: str) -> llvm.ModuleRef:
    """Parse and verify ``text``; ``RuntimeError`` with LLVM's message when it is rejected."""
    with LOCK:
        module = llvm.parse_assembly(text)
        module.verify()
        return module


def optimise(text: str, *, vectorize: bool = True) -> llvm.ModuleRef:
    """Parse and verify ``text`` (``RuntimeError`` when LLVM rejects it), then run the O3
    pipeline of the new pass manager, with the loop and SLP vectorisers unless ``vectorize``
    is false. Runs in this process: see ``compile_object`` for the guarded form."""
    with LOCK:
        tm = target_machine()
        module = parse(text)
        tuning = llvm.create_pipeline_tuning_options(speed_level=3)
        tuning.loop_vectorization = vectorize
        tuning.slp_vectorization = vectorize
        tuning.loop_unrolling = True
        tuning.loop_interleaving = vectorize
        builder = llvm.create_pass_builder(tm, tuning)
        builder.getModulePassManager().run(module, builder)
        return module


class CompilerCrash(Exception):
    """LLVM aborted while optimising or emitting a module (in the guard's child process)."""


def _optimise_and_emit(text: str, vectorize: bool) -> tuple[bytes, str]:
    module = optimise(text, vectorize=vectorize)
    optimised = str(module)  # before emission, which prepares the module in place
    return emit_object(module), optimised


def _in_child(text: str, vectorize: bool) -> tuple[bytes, str] | None:
    """``_optimise_and_emit`` in a forked child; ``None`` if the child did not finish."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: compile, send, leave without running any cleanup
        status = 1
        try:
            os.close(read_end)
            obj, optimised = _optimise_and_emit(text, vectorize)
            ll = optimised.encode()
            payload = len(ll).to_bytes(8, "little") + ll + obj
            with os.fdopen(write_end, "wb") as pipe:
                pipe.write(payload)
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        payload = pipe.read()
    _, status = os.waitpid(pid, 0)
    if status != 0 or len(payload) < 8:
        return None
    size = int.from_bytes(payload[:8], "little")
    return payload[8 + size :], payload[8 : 8 + size].decode()


def guarded() -> bool:
    """Whether ``compile_object`` compiles in a child process."""
    return hasattr(os, "fork") and not os.environ.get("RELAY_CPU_COMPILE_IN_PROCESS")


def compile_object(text: str) -> tuple[bytes, str, bool]:
    """The object code and optimised IR of the module ``text``, and whether it was vectorised
    (see the module docstring): ``RuntimeError`` if LLVM rejects the IR, ``CompilerCrash`` if
    LLVM aborts even without the vectorisers."""
    with LOCK:
        parse(text)  # rejections are reported here, in this process
        if not guarded():
            obj, optimised = _optimise_and_emit(text, True)
            return obj, optimised, True
        for vectorize in (True, False):
            result = _in_child(text, vectorize)
            if result is not None:
                return result[0], result[1], vectorize
        raise CompilerCrash(
            "LLVM aborted while optimising the module, with and without the vectorisers"
        )


def emit_object(module: llvm.ModuleRef) -> bytes:
    """The host object code of an optimised module."""
    with LOCK:
        return bytes(target_machine().emit_object(module))


def emit_assembly(text: str) -> str:
    """The host assembly of the (optimised) module ``text``."""
    with LOCK:
        module = llvm.parse_assembly(text)
        return str(target_machine().emit_assembly(module))


@functools.cache
def _lljit() -> llvm.LLJIT:
    with LOCK:
        return llvm.create_lljit_compiler(target_machine())


@dataclass(eq=False)
class Library:
    """Object code loaded into the JIT: the function addresses by symbol name, and the resource
    tracker that keeps the code alive (closing it frees the code)."""

    tracker: llvm.ResourceTracker
    addresses: dict[str, int]


_RUNTIME_HELPERS = (
    "__truncdfhf2",
    "__truncsfhf2",
    "__extendhfsf2",
    "__gnu_h2f_ieee",
    "__gnu_f2h_ieee",
)
"""Conversions to and from ``half`` that LLVM lowers to library calls on x86 without F16C
(``fptrunc double to half`` becomes ``__truncdfhf2``)."""


@functools.cache
def runtime_helpers() -> dict[str, int]:
    """The addresses of ``_RUNTIME_HELPERS`` in GCC's runtime library ``libgcc_s`` (GCC 12 and
    later define them), for the JIT to resolve whether or not the process has loaded it."""
    try:
        library = ctypes.CDLL("libgcc_s.so.1")
    except OSError:
        return {}
    found: dict[str, int] = {}
    for name in _RUNTIME_HELPERS:
        function = getattr(library, name, None)
        address = None if function is None else ctypes.cast(function, ctypes.c_void_p).value
        if address:
            found[name] = address
    return found


def load_object(obj: bytes, exports: Sequence[str], imports: Mapping[str, int]) -> Library:
    """Link ``obj`` into a fresh JIT library that resolves the process's symbols (libm), GCC's
    half-precision conversions (``runtime_helpers``) and ``imports`` (name to address: external
    functions such as a BLAS ``sgemm``), and return the addresses of ``exports``."""
    with LOCK:
        builder = llvm.JITLibraryBuilder().add_object_img(obj).add_current_process()
        for name, address in {**runtime_helpers(), **imports}.items():
            builder.import_symbol(name, address)
        for name in exports:
            builder.export_symbol(name)
        tracker = builder.link(_lljit(), f"relay_kernel_{next(_library_numbers)}")
        return Library(tracker, {name: tracker[name] for name in exports})


__all__ = [
    "LOCK",
    "CompilerCrash",
    "Library",
    "compile_object",
    "emit_assembly",
    "emit_object",
    "guarded",
    "host_cpu",
    "host_description",
    "load_object",
    "optimise",
    "parse",
    "target_machine",
    "triple_and_layout",
]
