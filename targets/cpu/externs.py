"""External C functions a CPU kernel may call (``ir.ExternCall``), and where their code is.

``cblas_sgemm`` and ``cblas_sgemv``: CBLAS's own argument lists (Order, TransA, TransB, M, N,
K, alpha, A, lda, B, ldb, beta, C, ldc; and Order, TransA, M, N, alpha, A, lda, X, incX, beta,
Y, incY), resolved to the functions of the OpenBLAS that numpy itself uses, so that the target
needs no BLAS of its own and computes what ``numpy.matmul`` computes:

1. the shared object: the OpenBLAS that numpy's extension module has already loaded, found in
   ``/proc/self/maps`` (numpy's wheels bundle it as ``numpy.libs/libscipy_openblas64_-*.so``;
   a numpy built against a system OpenBLAS maps that one instead), else a file matching
   ``*openblas*`` in ``numpy.libs`` beside the numpy package;
2. the symbol, the first that the library defines of ``scipy_cblas_sgemm64_`` (numpy's ILP64
   build, 64-bit integer arguments: ``USE64BITINT`` in ``numpy.show_config()``),
   ``scipy_cblas_sgemm`` (``scipy-openblas32``, 32-bit) and ``cblas_sgemm`` (a system build,
   32-bit); the same three forms for ``sgemv``. Opening it again with ``ctypes.CDLL`` returns
   the handle numpy already holds.

The enumeration arguments (Order, TransA, TransB) are C ``enum`` values (``i32``) in every
variant; the integer arguments are ``blasint``, whose width depends on the variant found:
``Extern.int_bits`` says which, and the code generator declares the function accordingly.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Extern:
    """A resolved external function: the name the kernel's LLVM IR calls, the library file,
    the symbol found in it, its address, and the width of its ``blasint`` arguments."""

    llvm_name: str
    library: str
    symbol: str
    address: int
    int_bits: int


class ExternNotFound(Exception):
    """No library defines the external function."""


def _openblas_candidates() -> list[str]:
    found: list[str] = []
    try:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split(maxsplit=5)[-1].strip() if line.count(" ") >= 5 else ""
                if "openblas" in os.path.basename(path).lower() and path not in found:
                    found.append(path)
    except OSError:
        pass
    libs = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    if libs.is_dir():
        found.extend(str(p) for p in sorted(libs.glob("*openblas*")) if str(p) not in found)
    return found


def _symbols(name: str) -> tuple[tuple[str, int], ...]:
    """The symbols that may hold the CBLAS function ``name`` (``cblas_sgemm``), with the width
    of their ``blasint`` (see the module docstring)."""
    base = name.removeprefix("cblas_")
    return ((f"scipy_cblas_{base}64_", 64), (f"scipy_cblas_{base}", 32), (name, 32))


@functools.cache
def blas(name: str) -> Extern:
    """The CBLAS function ``name`` (``cblas_sgemm`` or ``cblas_sgemv``) of numpy's OpenBLAS
    (see the module docstring); ``ExternNotFound`` if absent."""
    for path in _openblas_candidates():
        try:
            library = ctypes.CDLL(path)
        except OSError:
            continue
        for symbol, bits in _symbols(name):
            try:
                function = getattr(library, symbol)
            except AttributeError:
                continue
            address = ctypes.cast(function, ctypes.c_void_p).value
            if address:
                return Extern(f"relay_{name}", path, symbol, address, bits)
    raise ExternNotFound(f"{name}: no OpenBLAS {name.removeprefix('cblas_')} found beside numpy")


def sgemm() -> Extern:
    """numpy's OpenBLAS ``cblas_sgemm``."""
    return blas("cblas_sgemm")


_THREAD_FUNCTIONS = (
    ("scipy_openblas_get_num_threads64_", "scipy_openblas_set_num_threads64_"),
    ("scipy_openblas_get_num_threads", "scipy_openblas_set_num_threads"),
    ("openblas_get_num_threads", "openblas_set_num_threads"),
)


@functools.cache
def _thread_functions() -> tuple[Callable[[], int], Callable[[int], None]] | None:
    """OpenBLAS's ``get_num_threads`` and ``set_num_threads`` in ``sgemm``'s library, or
    ``None`` (no OpenBLAS, or one without them)."""
    try:
        library = ctypes.CDLL(sgemm().library)
    except (ExternNotFound, OSError):
        return None
    for get_name, set_name in _THREAD_FUNCTIONS:
        if hasattr(library, get_name) and hasattr(library, set_name):
            getter, setter = getattr(library, get_name), getattr(library, set_name)
            getter.restype, getter.argtypes = ctypes.c_int, []
            setter.restype, setter.argtypes = None, [ctypes.c_int]
            return getter, setter
    return None


_blas_lock = threading.Lock()


@contextlib.contextmanager
def single_threaded_blas() -> Iterator[None]:
    """OpenBLAS runs on the calling thread only while this is entered (then its thread count
    is restored): a parallel loop whose tasks each call ``sgemm`` gets its parallelism from the
    CPU target's thread pool, and OpenBLAS's own threads would only contend with it (the
    calls from the pool's threads queue on OpenBLAS's server). A no-op without OpenBLAS."""
    functions = _thread_functions()
    if functions is None:
        yield
        return
    getter, setter = functions
    with _blas_lock:
        before = getter()
        if before > 1:
            setter(1)
        try:
            yield
        finally:
            if before > 1:
                setter(before)


__all__ = ["Extern", "ExternNotFound", "blas", "sgemm", "single_threaded_blas"]
