"""The LLVM side of the CPU target: the host target machine, the O3 pipeline, object and
assembly emission, and the ORC JIT (LLJIT) that loads the objects.

One target machine for the host (its CPU name and features, so that the vectoriser uses the
widest registers the machine has) and one LLJIT serve the whole process. A compiled kernel is
an object file: it is what the cache stores (``targets.cpu.cache``) and what the JIT loads, so
a kernel loaded from the disk cache runs exactly the code a fresh compile would. Each object
is linked into its own JIT library, whose ``ResourceTracker`` the ``Library`` keeps alive (the
code is freed when the tracker is).

Everything here holds one process-wide lock: LLVM's contexts and the JIT are not thread-safe.
"""

from __future__ import annotations

import functools
import itertools
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


def optimise(text: str) -> llvm.ModuleRef:
    """Parse and verify ``text`` (``RuntimeError`` with LLVM's message when it is rejected),
    then run the O3 pipeline of the new pass manager with the loop and SLP vectorisers."""
    with LOCK:
        tm = target_machine()
        module = llvm.parse_assembly(text)
        module.verify()
        tuning = llvm.create_pipeline_tuning_options(speed_level=3)
        tuning.loop_vectorization = True
        tuning.slp_vectorization = True
        tuning.loop_unrolling = True
        tuning.loop_interleaving = True
        builder = llvm.create_pass_builder(tm, tuning)
        builder.getModulePassManager().run(module, builder)
        return module


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


def load_object(obj: bytes, exports: Sequence[str], imports: Mapping[str, int]) -> Library:
    """Link ``obj`` into a fresh JIT library that resolves the process's symbols (libm) and
    ``imports`` (name to address: external functions such as a BLAS ``sgemm``), and return the
    addresses of ``exports``."""
    with LOCK:
        builder = llvm.JITLibraryBuilder().add_object_img(obj).add_current_process()
        for name, address in imports.items():
            builder.import_symbol(name, address)
        for name in exports:
            builder.export_symbol(name)
        tracker = builder.link(_lljit(), f"relay_kernel_{next(_library_numbers)}")
        return Library(tracker, {name: tracker[name] for name in exports})


__all__ = [
    "LOCK",
    "Library",
    "emit_assembly",
    "emit_object",
    "host_cpu",
    "host_description",
    "load_object",
    "optimise",
    "target_machine",
    "triple_and_layout",
]
