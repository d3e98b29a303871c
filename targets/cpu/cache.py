"""The CPU target's compilation cache: object code keyed by the kernel's structural hash.

The key is the SHA-256 of the LLVM IR the code generator printed for the kernel (which is a
function of the kernel's structure alone: its name, dtypes, shapes, the statement tree; the
names of its variables and buffers are not in it, the code generator names LLVM values by
order of first appearance), of the code generator's version and of the host description
(triple, CPU, features, LLVM version; ``jit.host_description``). Two kernels with the same key
compile to the same object code, so a module's second compile costs only printing the IR and
hashing it (in another process; in the same one, ``kernel_fingerprint`` spares even that).

Two levels:

- in memory: the key to the loaded library (``jit.Library``), for the life of the process;
- on disk: ``<key>.o`` (the object code) and ``<key>.ll`` (the optimised LLVM IR, for
  ``artifacts()``) in the cache directory: ``$RELAY_CACHE_DIR`` when it is set, otherwise
  ``~/.cache/relay/cpu``. Files are written to a temporary name and renamed, so concurrent
  processes never read a half-written entry. A directory that cannot be written is not an
  error: the cache is only an optimisation. Deleting the directory empties the cache.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from ...compiler.lower import ir

CODEGEN_VERSION = "cpugen-2"
"""Bumped whenever the code generator changes what it emits for the same IR text."""

T = TypeVar("T")


def cache_dir() -> Path:
    """The on-disk cache directory: ``$RELAY_CACHE_DIR``, default ``~/.cache/relay/cpu``."""
    configured = os.environ.get("RELAY_CACHE_DIR")
    if configured:
        return Path(configured).expanduser()
    return Path.home() / ".cache" / "relay" / "cpu"


def structural_key(llvm_ir: str, host: str) -> str:
    """The cache key of a kernel whose generated (unoptimised) LLVM IR is ``llvm_ir``."""
    digest = hashlib.sha256()
    for part in (CODEGEN_VERSION, host, llvm_ir):
        digest.update(part.encode())
        digest.update(b"\0")
    return digest.hexdigest()


_IDENTITY = (ir.LoopVar, ir.SizeVar, ir.ScalarVar, ir.Buffer)


def kernel_fingerprint(kernel: ir.Kernel) -> str:
    """A digest of the kernel's whole structure (every field of every node, variables and
    buffers numbered by first occurrence and their names left out, so that equal kernels built
    twice agree whatever names the lowering drew), cheap to compute: the in-memory key that
    spares a second compile the printing of the LLVM IR.

    The walk is generic over the nodes' dataclass fields (a field added to the IR later is
    covered) and iterative; a node object met twice is written as a back-reference. The
    kernel's ``attrs`` and ``source`` are not part of it: the code generator reads neither."""
    tokens: list[str] = [kernel.name]
    numbers: dict[int, int] = {}
    keep: list[object] = []  # the nodes numbered, alive until the walk ends (ids stay unique)
    work: list[object] = [kernel.inputs, kernel.outputs, kernel.sizes, kernel.body]
    while work:
        item = work.pop()
        if item is None or isinstance(item, bool | int | str):
            tokens.append(repr(item))
        elif isinstance(item, float):
            tokens.append(item.hex())
        elif isinstance(item, enum.Enum):
            tokens.append(item.name)
        elif isinstance(item, tuple):
            tokens.append(f"({len(item)}")
            work.extend(reversed(item))
        elif dataclasses.is_dataclass(item) and not isinstance(item, type):
            seen = numbers.get(id(item))
            if seen is not None:
                tokens.append(f"@{seen}")
                continue
            numbers[id(item)] = len(numbers)
            keep.append(item)
            tokens.append(type(item).__name__)
            # A variable's or buffer's name is not part of its meaning: the lowering draws
            # names from a process-wide counter, so the same function lowered twice differs
            # only there. Such a node is identified by its number (first occurrence).
            skip = "name" if isinstance(item, _IDENTITY) else None
            fields = [getattr(item, f.name) for f in dataclasses.fields(item) if f.name != skip]
            work.extend(reversed(fields))
        else:
            raise TypeError(f"kernel_fingerprint: unexpected {type(item).__name__} in a kernel")
    return hashlib.sha256("\x1f".join(tokens).encode()).hexdigest()


@dataclass(frozen=True)
class Entry:
    """What the disk cache holds for one key: the object code and the optimised LLVM IR."""

    obj: bytes
    llvm_ir: str


def _write_atomically(path: Path, data: bytes) -> None:
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=path.name, suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def disk_load(key: str) -> Entry | None:
    """The disk entry for ``key``, or ``None`` when there is none (or it cannot be read)."""
    directory = cache_dir()
    try:
        obj = (directory / f"{key}.o").read_bytes()
        text = (directory / f"{key}.ll").read_text()
    except (OSError, UnicodeDecodeError):
        return None
    return Entry(obj, text) if obj else None


def disk_store(key: str, entry: Entry) -> bool:
    """Write ``entry`` under ``key``; ``False`` when the directory cannot be written."""
    directory = cache_dir()
    try:
        directory.mkdir(parents=True, exist_ok=True)
        _write_atomically(directory / f"{key}.ll", entry.llvm_ir.encode())
        _write_atomically(directory / f"{key}.o", entry.obj)  # last: its presence commits
    except OSError:
        return False
    return True


class MemoryCache(Generic[T]):
    """A thread-safe map from cache keys to loaded kernels, kept for the process's life."""

    def __init__(self) -> None:
        self._entries: dict[str, T] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> T | None:
        """The value stored under ``key``, if any."""
        with self._lock:
            return self._entries.get(key)

    def put(self, key: str, value: T) -> T:
        """Store ``value`` under ``key`` unless a value is there already; return the stored
        one (so that two threads compiling the same kernel share one library)."""
        with self._lock:
            return self._entries.setdefault(key, value)

    def clear(self) -> None:
        """Forget every entry (the libraries stay loaded while something uses them)."""
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)


__all__ = [
    "CODEGEN_VERSION",
    "Entry",
    "MemoryCache",
    "cache_dir",
    "disk_load",
    "disk_store",
    "kernel_fingerprint",
    "structural_key",
]
