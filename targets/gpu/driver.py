"""The CUDA driver API through ctypes on ``libcuda.so.1``: no Python CUDA package is needed.

``Device()`` initialises the driver, takes device 0's *primary* context (the one the CUDA
runtime shares: no context-creation API, whose signature changed in CUDA 13) and makes it
current. It loads PTX with ``cuModuleLoadDataEx``, asking for the JIT's error log, so that PTX
the driver rejects is reported with the driver's reason; allocates and copies device memory;
launches kernels (``cuLaunchKernel``, parameters passed as an array of pointers to their
values) and waits for them.

CUDA cannot be used in a process forked from one that has initialised it, and the checks fork
(``relay fuzz`` runs each compiled program in a forked child): so what the compiler needs to
know, whether there is a GPU and its architecture, comes from ``probe()``, which asks a short
child process (plain ctypes, no import of this package) and remembers the answer; the driver
is initialised in a process only when it first runs a kernel (``device()``).

``NoDriver`` is raised where there is no driver (no ``libcuda.so.1``, or ``cuInit`` fails:
no GPU, or a driver that does not work); ``CudaError`` for a failed call, with the driver's
name and description of the error.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.generic]

LIBRARY = "libcuda.so.1"

_JIT_ERROR_LOG_BUFFER = 5
_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
_JIT_INFO_LOG_BUFFER = 3
_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4
_ATTRIBUTE_CC_MAJOR = 75
_ATTRIBUTE_CC_MINOR = 76
_LOG_SIZE = 16 * 1024


class NoDriver(Exception):
    """There is no usable CUDA driver on this machine."""


class CudaError(Exception):
    """A driver call failed: ``call`` is its name, ``code`` the ``CUresult``."""

    def __init__(self, call: str, code: int, detail: str) -> None:
        super().__init__(f"{call} failed: CUDA error {code} ({detail})")
        self.call = call
        self.code = code


@functools.cache
def _library() -> ctypes.CDLL:
    try:
        return ctypes.CDLL(LIBRARY)
    except OSError as e:
        raise NoDriver(f"no CUDA driver: {LIBRARY} cannot be loaded ({e})") from None


def _error_text(lib: ctypes.CDLL, code: int) -> str:
    name, text = ctypes.c_char_p(), ctypes.c_char_p()
    lib.cuGetErrorName(code, ctypes.byref(name))
    lib.cuGetErrorString(code, ctypes.byref(text))
    parts = [p.decode() for p in (name.value, text.value) if p]
    return ": ".join(parts) or "unknown error"


@dataclass(eq=False)
class Function:
    """A kernel of a loaded module."""

    handle: ctypes.c_void_p
    name: str


class Module:
    """A PTX module loaded into the context (JIT-compiled by the driver)."""

    def __init__(self, device: Device, handle: ctypes.c_void_p, log: str) -> None:
        self.device = device
        self.handle = handle
        self.log = log
        self._functions: dict[str, Function] = {}

    def function(self, name: str) -> Function:
        """The entry function ``name``."""
        found = self._functions.get(name)
        if found is None:
            handle = ctypes.c_void_p()
            self.device.check("cuModuleGetFunction", ctypes.byref(handle), self.handle,
                              name.encode())  # fmt: skip
            found = self._functions[name] = Function(handle, name)
        return found


class DeviceBuffer:
    """Device memory (``cuMemAlloc``), freed when dropped."""

    def __init__(self, device: Device, nbytes: int) -> None:
        self.device = device
        self.nbytes = nbytes
        pointer = ctypes.c_uint64()
        device.check("cuMemAlloc_v2", ctypes.byref(pointer), ctypes.c_size_t(max(nbytes, 1)))
        self.pointer = pointer.value

    def upload(self, array: Array) -> None:
        """Copy the C-contiguous ``array`` (``nbytes`` of it) to the device."""
        if array.nbytes:
            self.device.check("cuMemcpyHtoD_v2", ctypes.c_uint64(self.pointer),
                              ctypes.c_void_p(array.ctypes.data),
                              ctypes.c_size_t(array.nbytes))  # fmt: skip

    def download(self, array: Array) -> None:
        """Copy the device memory into the C-contiguous ``array``."""
        if array.nbytes:
            self.device.check("cuMemcpyDtoH_v2", ctypes.c_void_p(array.ctypes.data),
                              ctypes.c_uint64(self.pointer),
                              ctypes.c_size_t(array.nbytes))  # fmt: skip

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # at interpreter shutdown the driver may be gone
            self.device.lib.cuMemFree_v2(ctypes.c_uint64(self.pointer))


class Device:
    """Device ``ordinal``'s primary context, made current (see the module docstring)."""

    def __init__(self, ordinal: int = 0) -> None:
        self.lib = _library()
        self.check("cuInit", 0, missing=True)
        handle = ctypes.c_int()
        self.check("cuDeviceGet", ctypes.byref(handle), ordinal, missing=True)
        self.handle = handle.value
        context = ctypes.c_void_p()
        self.check("cuDevicePrimaryCtxRetain", ctypes.byref(context), self.handle)
        self.context = context
        self.lock = threading.Lock()
        self.make_current()
        major, minor = ctypes.c_int(), ctypes.c_int()
        self.check("cuDeviceGetAttribute", ctypes.byref(major), _ATTRIBUTE_CC_MAJOR, self.handle)
        self.check("cuDeviceGetAttribute", ctypes.byref(minor), _ATTRIBUTE_CC_MINOR, self.handle)
        self.arch = f"sm_{major.value}{minor.value}"
        name = ctypes.create_string_buffer(256)
        self.check("cuDeviceGetName", name, 256, self.handle)
        self.name = name.value.decode(errors="replace")
        version = ctypes.c_int()
        self.check("cuDriverGetVersion", ctypes.byref(version))
        self.driver_version = version.value

    def check(self, call: str, *args: object, missing: bool = False) -> None:
        """Call the driver's ``call``; ``CudaError`` (``NoDriver`` with ``missing``) if it
        fails."""
        code = int(getattr(self.lib, call)(*args))
        if code != 0:
            detail = _error_text(self.lib, code)
            if missing:
                raise NoDriver(f"no CUDA driver: {call} failed with CUDA error {code} ({detail})")
            raise CudaError(call, code, detail)

    def make_current(self) -> None:
        """Make the primary context current in the calling thread."""
        self.check("cuCtxSetCurrent", self.context)

    def load_ptx(self, ptx: str) -> Module:
        """``ptx`` JIT-compiled for this device; ``CudaError`` with the JIT's log if the
        driver rejects it."""
        error_log = ctypes.create_string_buffer(_LOG_SIZE)
        info_log = ctypes.create_string_buffer(_LOG_SIZE)
        keys = (_JIT_ERROR_LOG_BUFFER, _JIT_ERROR_LOG_BUFFER_SIZE_BYTES, _JIT_INFO_LOG_BUFFER,
                _JIT_INFO_LOG_BUFFER_SIZE_BYTES)  # fmt: skip
        options = (ctypes.c_int * 4)(*keys)
        error_at = ctypes.cast(error_log, ctypes.c_void_p).value
        info_at = ctypes.cast(info_log, ctypes.c_void_p).value
        values = (ctypes.c_void_p * 4)(error_at, _LOG_SIZE, info_at, _LOG_SIZE)
        handle = ctypes.c_void_p()
        source = ctypes.create_string_buffer(ptx.encode())
        with self.lock:
            self.make_current()
            code = int(self.lib.cuModuleLoadDataEx(ctypes.byref(handle), source, 4, options,
                                                   values))  # fmt: skip
        if code != 0:
            log = error_log.value.decode(errors="replace").strip()
            detail = f"{_error_text(self.lib, code)}; JIT log: {log or '(empty)'}"
            raise CudaError("cuModuleLoadDataEx", code, detail)
        return Module(self, handle, info_log.value.decode(errors="replace"))

    def allocate(self, nbytes: int) -> DeviceBuffer:
        """``nbytes`` of device memory."""
        return DeviceBuffer(self, nbytes)

    def launch(
        self,
        function: Function,
        grid: Sequence[int],
        block: Sequence[int],
        pointers: Sequence[int],
        sizes: Sequence[int],
    ) -> None:
        """Launch ``function`` on ``grid`` x ``block`` with the device pointers, then the
        ``int64`` sizes, as its parameters (asynchronous: ``synchronize`` waits)."""
        values: list[ctypes.c_uint64 | ctypes.c_int64] = [ctypes.c_uint64(p) for p in pointers]
        values += [ctypes.c_int64(s) for s in sizes]
        params = (ctypes.c_void_p * max(len(values), 1))(
            *[ctypes.cast(ctypes.pointer(v), ctypes.c_void_p).value for v in values]
        )
        gx, gy, gz = (ctypes.c_uint(int(d)) for d in grid)
        bx, by, bz = (ctypes.c_uint(int(d)) for d in block)
        self.check("cuLaunchKernel", function.handle, gx, gy, gz, bx, by, bz, ctypes.c_uint(0),
                   None, params, None)  # fmt: skip

    def synchronize(self) -> None:
        """Wait for every launch so far; a kernel's failure is reported here."""
        self.check("cuCtxSynchronize")


_PROBE = r"""
import ctypes, sys
try:
    lib = ctypes.CDLL("libcuda.so.1")
except OSError as e:
    print("error", f"{LIBRARY} cannot be loaded ({e})"); sys.exit()
def check(code, call):
    if code:
        text = ctypes.c_char_p(); lib.cuGetErrorString(code, ctypes.byref(text))
        print("error", f"{call} failed with CUDA error {code} ({(text.value or b'').decode()})")
        sys.exit()
check(lib.cuInit(0), "cuInit")
dev, major, minor = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
check(lib.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
check(lib.cuDeviceGetAttribute(ctypes.byref(major), 75, dev.value), "cuDeviceGetAttribute")
check(lib.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev.value), "cuDeviceGetAttribute")
name = ctypes.create_string_buffer(256)
check(lib.cuDeviceGetName(name, 256, dev.value), "cuDeviceGetName")
print("ok", f"sm_{major.value}{minor.value}", name.value.decode(errors="replace"))
""".replace("LIBRARY", repr(LIBRARY))


@functools.cache
def probe() -> tuple[str, str]:
    """Device 0's architecture (``sm_90``) and name, asked of a child process so that this
    one does not initialise CUDA; ``NoDriver`` where there is no usable driver."""
    import subprocess
    import sys

    try:
        done = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                              timeout=60, check=False)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired) as e:
        raise NoDriver(f"no CUDA driver: the probe did not run ({e})") from None
    words = done.stdout.strip().split(" ", 2)
    if len(words) == 3 and words[0] == "ok":
        return words[1], words[2]
    reason = words[1] if len(words) > 1 and words[0] == "error" else done.stderr.strip()
    if len(words) > 2 and words[0] == "error":
        reason = f"{words[1]} {words[2]}"
    raise NoDriver(f"no CUDA driver: {reason or 'the probe failed'}")


def driver_present() -> bool:
    """Whether a CUDA driver loads and initialises (asked of a child process: ``probe``)."""
    try:
        probe()
    except NoDriver:
        return False
    return True


@functools.cache
def device() -> Device:
    """Device 0 (initialised once); ``NoDriver`` where there is no usable driver."""
    return Device(0)


__all__ = [
    "CudaError",
    "Device",
    "DeviceBuffer",
    "Function",
    "Module",
    "NoDriver",
    "device",
    "driver_present",
    "probe",
]
