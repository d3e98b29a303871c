"""The definitional interpreter: Relay's dynamic semantics engineered for scale.

The same meaning as ``relay.semantics.evaluation`` (the big-step rules), rule for rule: the same
evaluation order, the same sharing plan (``relay.semantics.sharing``), the same values, store
locations and failures, the same fuel count. What differs is how it runs:

- ``compiler``: each function is compiled once per module into a flat list of instructions over
  a frame of registers (``instructions``), by a worklist, not a recursion;
- ``machine``: a loop with an explicit stack of return points runs them, so a 100,000-deep
  recursion, let-chain or call nest evaluates; tail calls keep no return point;
- the operators' reference functions (vectorised numpy) are the kernels;
- fuel, an allocation budget (bytes of tensors produced) and a depth budget stop runaway
  programs with ``Exhaustion``.

``evaluate(mod, args, entry="main", fuel=..., max_allocation_bytes=...)`` returns the spec's
``Result`` (without a derivation). A module is compiled on its first evaluation and the
compiled form kept for the last few modules (``program_for``); ``compile_module`` compiles one
afresh.
"""

from .compiler import Program, compile_module
from .machine import (
    DEFAULT_FUEL,
    DEFAULT_MAX_ALLOCATION_BYTES,
    DEFAULT_MAX_DEPTH,
    evaluate,
    program_for,
)

__all__ = [
    "DEFAULT_FUEL",
    "DEFAULT_MAX_ALLOCATION_BYTES",
    "DEFAULT_MAX_DEPTH",
    "Program",
    "compile_module",
    "evaluate",
    "program_for",
]
