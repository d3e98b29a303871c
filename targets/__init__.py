"""Code-generation targets: the ``Target`` interface and the built-in targets.

``Target.compile(mod, opt_level=3) -> Executable``; ``Executable.run(*args) -> Value`` and
``Executable.artifacts()`` (``base``). Built-in: ``cpu`` (LLVM through llvmlite, ``cpu/``);
later ``gpu`` (LLVM's NVPTX backend) and ``accel`` (a VTA-style simulator). Third-party targets
register through the ``relay.targets`` entry-point group. ``get_target(name)`` and
``target_names()`` look them up.
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

__all__ = [
    "ENTRY_POINT_GROUP",
    "FEATURES",
    "AccelTarget",
    "CpuTarget",
    "Executable",
    "KernelRejected",
    "Target",
    "TargetLoadError",
    "get_target",
    "register_target",
    "target_names",
    "unsupported",
]
