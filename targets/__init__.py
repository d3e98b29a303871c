"""Code-generation targets: the ``Target`` interface and the built-in targets.

What belongs here: ``Target.compile(mod) -> Executable``; the ``cpu`` target (LLVM through
llvmlite), the ``gpu`` target (LLVM's NVPTX backend; a host SIMT emulator without a GPU), and
the ``accel`` target (a VTA-style accelerator simulator). Third-party targets register through
the ``relay.targets`` entry-point group. It arrives with the backend issues.
"""
