"""The parts of NVIDIA's toolkit the GPU targets use, found on this machine: ``ptxas`` (to check
and measure generated PTX) and libdevice (the math library, as LLVM bitcode).

Where they are looked for, in order:

- ``ptxas``: ``$RELAY_PTXAS``; ``ptxas`` on ``PATH``; the ``nvidia-cuda-nvcc`` wheel
  (``site-packages/nvidia/cu*/bin/ptxas`` or ``nvidia/cuda_nvcc/bin/ptxas``);
  ``$CUDA_HOME``/``$CUDA_PATH``/``/usr/local/cuda`` ``/bin/ptxas``.
- libdevice: ``$RELAY_LIBDEVICE``; the wheel's ``nvvm/libdevice/libdevice.10.bc``; the same
  under the CUDA installation folders.

``ptxas_report(ptx, arch)`` assembles PTX with ``ptxas -v`` and parses, per entry function,
the registers, shared memory, stack frame, spills and barriers it reports (``PtxasError`` with
ptxas's own message if it rejects the PTX).
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

PTXAS_TIMEOUT = 120.0
"""Seconds one ptxas run may take."""


def _install_roots() -> list[Path]:
    roots: list[Path] = []
    for prefix in {sys.prefix, sys.base_prefix}:
        for lib in Path(prefix).glob("lib*/python3*/site-packages/nvidia"):
            roots.extend(sorted(lib.glob("cu*")))
            roots.append(lib / "cuda_nvcc")
    for var in ("CUDA_HOME", "CUDA_PATH"):
        value = os.environ.get(var)
        if value:
            roots.append(Path(value))
    roots.append(Path("/usr/local/cuda"))
    return roots


@functools.cache
def find_ptxas() -> str | None:
    """The path of ``ptxas``, or ``None`` if there is none (see the module docstring)."""
    explicit = os.environ.get("RELAY_PTXAS")
    if explicit:
        return explicit if Path(explicit).is_file() else None
    found = shutil.which("ptxas")
    if found:
        return found
    for root in _install_roots():
        candidate = root / "bin" / "ptxas"
        if candidate.is_file():
            return str(candidate)
    return None


@functools.cache
def find_libdevice() -> Path | None:
    """The path of ``libdevice.10.bc``, or ``None`` if there is none."""
    explicit = os.environ.get("RELAY_LIBDEVICE")
    if explicit:
        return Path(explicit) if Path(explicit).is_file() else None
    for root in _install_roots():
        candidate = root / "nvvm" / "libdevice" / "libdevice.10.bc"
        if candidate.is_file():
            return candidate
    return None


NO_PTXAS = ("ptxas is not installed (not on PATH, no RELAY_PTXAS, no nvidia-cuda-nvcc wheel, "
            "no CUDA toolkit): pip install nvidia-cuda-nvcc to check PTX")  # fmt: skip
"""Why the PTX checks are skipped where ptxas is missing."""


class PtxasError(Exception):
    """ptxas rejected a PTX module: ``message`` is what it said."""

    def __init__(self, arch: str, message: str) -> None:
        super().__init__(f"ptxas -arch={arch} rejected the PTX: {message}")
        self.arch = arch
        self.message = message


@dataclass(frozen=True)
class KernelUsage:
    """What ptxas reports for one entry function on one architecture."""

    function: str
    arch: str
    registers: int
    shared_bytes: int
    stack_bytes: int
    spill_stores: int
    spill_loads: int
    barriers: int

    def line(self) -> str:
        """One line for reports: ``FN sm_90: 24 registers, 1024 B shared, ...``."""
        return (f"{self.function} {self.arch}: {self.registers} registers, "
                f"{self.shared_bytes} B shared, {self.stack_bytes} B stack, "
                f"{self.spill_stores}/{self.spill_loads} B spilled (stores/loads), "
                f"{self.barriers} barriers")  # fmt: skip


_FUNCTION = re.compile(r"Compiling entry function '([^']+)' for '(\w+)'")
_STACK = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED = re.compile(r"Used (\d+) registers")
_SMEM = re.compile(r"(\d+) bytes smem")
_BARRIERS = re.compile(r"used (\d+) barriers")


def parse_ptxas_verbose(text: str, arch: str) -> list[KernelUsage]:
    """The per-entry-function usage in the output of ``ptxas -v``."""
    usages: list[KernelUsage] = []
    current: dict[str, int | str] | None = None

    def flush() -> None:
        if current is not None:
            usages.append(KernelUsage(str(current["function"]), arch,
                                      int(current.get("registers", 0)),
                                      int(current.get("shared", 0)),
                                      int(current.get("stack", 0)),
                                      int(current.get("spill_stores", 0)),
                                      int(current.get("spill_loads", 0)),
                                      int(current.get("barriers", 0))))  # fmt: skip

    for line in text.splitlines():
        if m := _FUNCTION.search(line):
            flush()
            current = {"function": m.group(1)}
            continue
        if current is None:
            continue
        if m := _STACK.search(line):
            current["stack"], current["spill_stores"], current["spill_loads"] = (
                int(m.group(1)), int(m.group(2)), int(m.group(3)))  # fmt: skip
        if m := _USED.search(line):
            current["registers"] = int(m.group(1))
        if m := _SMEM.search(line):
            current["shared"] = int(m.group(1))
        if m := _BARRIERS.search(line):
            current["barriers"] = int(m.group(1))
    flush()
    return usages


def ptxas_report(ptx: str, arch: str) -> list[KernelUsage]:
    """Assemble ``ptx`` for ``arch`` with ``ptxas -v``; each entry function's usage.
    ``PtxasError`` if ptxas rejects it; ``FileNotFoundError`` if there is no ptxas."""
    ptxas = find_ptxas()
    if ptxas is None:
        raise FileNotFoundError(NO_PTXAS)
    with tempfile.TemporaryDirectory(prefix="relay-ptxas-") as tmp:
        source = Path(tmp) / "kernel.ptx"
        source.write_text(ptx, encoding="utf-8")
        done = subprocess.run(
            [ptxas, f"-arch={arch}", "-v", str(source), "-o", str(Path(tmp) / "kernel.cubin")],
            capture_output=True,
            text=True,
            timeout=PTXAS_TIMEOUT,
            check=False,
        )
    output = done.stdout + done.stderr
    if done.returncode != 0:
        lines = [ln for ln in output.splitlines() if "error" in ln.lower()] or [output.strip()]
        raise PtxasError(arch, "; ".join(lines[:5]))
    return parse_ptxas_verbose(output, arch)


__all__ = [
    "NO_PTXAS",
    "KernelUsage",
    "PtxasError",
    "find_libdevice",
    "find_ptxas",
    "parse_ptxas_verbose",
    "ptxas_report",
]
