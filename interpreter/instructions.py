"""The machine's instruction set: what a compiled function body is made of.

A global or local function compiles to a ``FunctionCode``: a flat list of instructions over a
frame of registers (a Python list), plus the frame's template (constants and globals already in
place). Each computed value gets a register of its own, written once per activation; a variable
names the register of its value, resolved at compile time (a variable of an enclosing function
is read from the captured frame ``depth`` levels up).
A shared node (``%N``) is compiled once, as a subroutine that runs in the frame of the function
owning its scope and leaves its value in a memo register there; each use is a ``UseShared``.

::

    OpCall       dst := op(args; attrs)                 E-Call-Op
    CallGlobal   call @f(args), result into dst          E-Call-Closure (callee a global)
    CallValue    call the value in callee(args)          E-Call-Closure / E-Call-Constructor
    Return       return src to the caller
    Branch       if not cond: jump to else_pc            E-If-True / E-If-False
    MatchClauses the first matching clause: bind, jump   E-Match / E-Match-Fail
    UseShared    dst := memo, or run the node's code     E-Shared
    ReturnShared memo := src, then return it
    Jump         dst := src; jump to target              (joins the arms of an if or match)
    Enter        a new scope activation                  (the branch of an if with hoisting)
    MakeTuple    dst := (args)                           E-Tuple
    Project      dst := src.index                        E-Proj
    MakeCtor     dst := C(args)                          E-Call-Constructor (callee a constructor)
    MakeClosure  dst := closure(frame, fn, rec_var)      E-Fn / E-Let-Rec
    LoadOuter    dst := the frame depth levels up[slot]  E-Var (a captured variable)
    RefNew       dst := ref(src)                         E-RefCreate
    RefGet       dst := !src                             E-RefRead
    RefSet       ref := src; dst := ()                   E-RefWrite
    RaiseStuck   no rule applies                         (an unbound variable, an op as a value)

``OpCall``, ``MakeTuple`` and ``MakeCtor`` with ``ret`` set return their value instead of
storing it (a function whose body ends in one needs no ``Return``).

Every instruction carries ``cost``: the rule firings (the spec's fuel spends) that happen in
evaluation order after the previous instruction and before this one, and ``spans``, the node of
each, so that running out of fuel stops at exactly the node the spec stops at.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import TypeAlias

import numpy as np

from ..semantics.errors import Span
from ..semantics.ops.registry import Attrs, Reference
from ..semantics.syntax import Constructor, Function, Var
from ..semantics.values import TensorValue, Value

Frame: TypeAlias = list[Value]
"""The registers of one function activation."""

Env: TypeAlias = "tuple[Frame, Env | None]"
"""A frame and the environment of the function it belongs to: what a closure captures."""

UNSET: Value = TensorValue(np.empty((0,), dtype=np.int8))
"""The content of a register not yet written (a memo not yet filled). Compared by identity."""

Fetch: TypeAlias = Callable[[Frame], Sequence[Value]]
"""Reads an instruction's operand registers in one C call (an ``itemgetter``)."""


def fetcher(regs: tuple[int, ...]) -> Fetch:
    """The ``Fetch`` of the registers ``regs``: a tuple of them, or a list of one or none."""
    if len(regs) >= 2:
        return itemgetter(*regs)
    if len(regs) == 1:
        return itemgetter(slice(regs[0], regs[0] + 1))
    return itemgetter(slice(0, 0))


@dataclass(slots=True, eq=False)
class Instr:
    """The base: ``cost`` rule firings (at ``spans``) precede the instruction."""

    cost: int = field(default=0, kw_only=True)
    spans: tuple[Span | None, ...] = field(default=(), kw_only=True)


@dataclass(slots=True, eq=False)
class OpCall(Instr):
    """``kernel`` is the operator's reference function or a faster equivalent
    (``kernels.kernel_for``)."""

    name: str
    kernel: Reference
    attrs: Attrs | None
    args: Fetch
    dst: int
    span: Span | None
    ret: bool = False


@dataclass(slots=True, eq=False)
class CallGlobal(Instr):
    callee: FunctionCode
    args: Fetch
    dst: int
    tail: bool


@dataclass(slots=True, eq=False)
class CallValue(Instr):
    callee: int
    args: Fetch
    arity: int
    dst: int
    tail: bool
    span: Span | None


@dataclass(slots=True, eq=False)
class Return(Instr):
    src: int


@dataclass(slots=True, eq=False)
class Branch(Instr):
    cond: int
    else_pc: int
    enter: bool
    span: Span | None


@dataclass(slots=True, eq=False)
class ClauseCode:
    """One clause of a match: how to test and bind its pattern, and where its body starts.

    ``kind`` is ``ANY`` (a wildcard, or a variable bound to ``slot``), ``CTOR`` (a constructor
    whose sub-patterns are variables or wildcards: ``binds`` pairs a field with a register) or
    ``GENERAL`` (``program``, run by ``match_general``).
    """

    kind: int
    target: int
    name: str = ""
    slot: int = -1
    binds: tuple[tuple[int, int], ...] = ()
    program: tuple[PatternStep, ...] = ()


ANY, CTOR, GENERAL = 0, 1, 2

PatternStep: TypeAlias = tuple[int, int, str, int]
"""``(kind, index, name, n)``: test (or bind) the value at ``index`` of the matched values.

``STEP_CTOR`` checks a constructor called ``name`` and appends its fields, ``STEP_TUPLE`` checks
a tuple of ``n`` fields and appends them, ``STEP_BIND`` stores the value in register ``n``."""

STEP_CTOR, STEP_TUPLE, STEP_BIND = 0, 1, 2


@dataclass(slots=True, eq=False)
class MatchClauses(Instr):
    data: int
    clauses: tuple[ClauseCode, ...]
    complete: bool
    span: Span | None


@dataclass(slots=True, eq=False)
class UseShared(Instr):
    depth: int
    memo: int
    code: list[Instr]
    dst: int


@dataclass(slots=True, eq=False)
class ReturnShared(Instr):
    src: int
    memo: int


@dataclass(slots=True, eq=False)
class Jump(Instr):
    target: int
    src: int
    dst: int


@dataclass(slots=True, eq=False)
class Enter(Instr):
    pass


@dataclass(slots=True, eq=False)
class MakeTuple(Instr):
    args: Fetch
    dst: int
    ret: bool = False


@dataclass(slots=True, eq=False)
class Project(Instr):
    src: int
    index: int
    dst: int
    span: Span | None


@dataclass(slots=True, eq=False)
class MakeCtor(Instr):
    constructor: Constructor
    args: Fetch
    dst: int
    ret: bool = False


@dataclass(slots=True, eq=False)
class MakeClosure(Instr):
    fn: Function
    rec_var: Var | None
    dst: int


@dataclass(slots=True, eq=False)
class LoadOuter(Instr):
    depth: int
    slot: int
    dst: int


@dataclass(slots=True, eq=False)
class RefNew(Instr):
    src: int
    dst: int


@dataclass(slots=True, eq=False)
class RefGet(Instr):
    src: int
    dst: int
    span: Span | None


@dataclass(slots=True, eq=False)
class RefSet(Instr):
    ref: int
    src: int
    dst: int
    span: Span | None


@dataclass(slots=True, eq=False)
class RaiseStuck(Instr):
    message: str
    rule: str
    span: Span | None


@dataclass(slots=True, eq=False)
class FunctionCode:
    """A compiled function: its code, its frame template, and where the self-reference goes.

    Parameters occupy registers ``0 .. n-1``; ``rec_slot`` (if not -1) receives the closure
    itself when a recursive closure (``let %f = fn ..``) is applied. A call's frame is the
    arguments followed by ``rest``, the template after the parameters.
    """

    fn: Function
    name: str
    code: list[Instr] = field(default_factory=list)
    template: Frame = field(default_factory=list)
    rest: Frame = field(default_factory=list)
    rec_slot: int = -1
