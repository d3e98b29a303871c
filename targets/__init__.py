"""Code-generation targets: the ``Target`` interface and the built-in targets.

``Target.compile(mod, opt_level=3) -> Executable``; ``Executable.run(*args) -> Value`` and
``Executable.artifacts()`` (``base``). Built-in: ``cpu`` (LLVM through llvmlite, ``cpu/``),
``gpu`` and ``nvptx`` (LLVM's NVPTX back end, ``gpu/``); later ``accel`` (a VTA-style
simulator). Third-party targets register through the ``relay.targets`` entry-point group.
``get_target(name)`` and ``target_names()`` look them up.
"""

from .accel import AccelTarget
from .base import (
    ENTRY_POINT_GROUP,
    FEATURES,
    Executable,
    KernelRejected,
    Target,
    TargetLoadError,
    get_target,
    register_target,
    target_names,
    unsupported,
)
from .cpu import CpuTarget
from .gpu import GpuTarget, NvptxTarget
from .gpusim import GpuSimTarget  # registers gpu-sim and gpu-sim-races

__all__ = [
    "ENTRY_POINT_GROUP",
    "FEATURES",
    "AccelTarget",
    "CpuTarget",
    "Executable",
    "GpuSimTarget",
    "GpuTarget",
    "KernelRejected",
    "NvptxTarget",
    "Target",
    "TargetLoadError",
    "get_target",
    "register_target",
    "target_names",
    "unsupported",
]
