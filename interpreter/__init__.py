"""The definitional interpreter: Relay's dynamic semantics engineered for scale.

The same meaning as ``relay.semantics.evaluation`` (the big-step rules), rule for rule: the same
evaluation order, the same sharing plan (``relay.semantics.sharing``), the same values, store
locations and failures, the same fuel count. What differs is how it runs:

- ``compiler``: each function is compiled once per module into a flat list of instructions over
  a frame of registers (``instructions``), by a worklist, not a recursion; an operator call whose
  operands are constants (or results of such calls) keeps its first result, so a model's weight
  fills compute once per compiled module (each run is still charged its fuel and allocation);
- ``machine``: a loop with an explicit stack of return points runs them, so a 100,000-deep
  recursion, let-chain or call nest evaluates; tail calls keep no return point;
- ``kernels``: each operator runs its reference function (vectorised numpy), or a faster
  kernel held equal to it by tests: scalar fast paths for arithmetic, comparisons and logical
  operators (the same bits and the same ``UndefinedBehavior``), and whole-array kernels for
  convolution, dense, max pooling, batch norm and relu (equal under the tolerance policy);
- fuel, an allocation budget (bytes of tensors produced) and a depth budget stop runaway
  programs with ``Exhaustion``.

``evaluate(mod, args, entry="main", fuel=..., max_allocation_bytes=...)`` returns the spec's
``Result`` (without a derivation); ``fuel=None`` sets no limit on rule firings. A module is
compiled on its first evaluation and the compiled form kept for the last few modules
(``program_for``); ``compile_module`` compiles one afresh.
"""

from .compiler import Program, compile_module
from .machine import (
    DEFAULT_FUEL,
    DEFAULT_MAX_ALLOCATION_BYTES,
    DEFAULT_MAX_DEPTH,
    UNLIMITED_FUEL,
    evaluate,
    program_for,
)

__all__ = [
    "DEFAULT_FUEL",
    "DEFAULT_MAX_ALLOCATION_BYTES",
    "DEFAULT_MAX_DEPTH",
    "UNLIMITED_FUEL",
    "Program",
    "compile_module",
    "evaluate",
    "program_for",
]
