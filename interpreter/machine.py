"""The machine: runs compiled code with an explicit stack, and ``evaluate``, its entry point.

State: the current code and program counter, the current frame (``regs``) and the environment
it was created in (``up``: the captured frame of the enclosing function), a stack of return
points, the store σ, the counter that numbers scope activations and locations (shared, as in the
spec, so references get the spec's locations), and the fuel and allocation budgets.

A call pushes a return point, unless it is in tail position: the spec has no tail calls, but no
rule can observe them, and without them a loop written as tail recursion would hold a frame per
iteration. The loop below is one branch per instruction (see ``instructions.py`` for the rule
each implements); values are built by setting their slots directly, because the frozen
dataclasses' ``__init__`` costs a few times more and the loop builds one value per step.

Where this departs from the spec, only in which failure an ill-typed program reports first:
the spec checks that an operator's argument is a tensor right after evaluating it, the machine
after evaluating all of the call's arguments. A well-typed program never fails that check.
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np
import numpy.typing as npt

from ..semantics.errors import Exhaustion, RelayError, RelayRuntimeError, Span, Stuck
from ..semantics.evaluation import Result, op_failure_message
from ..semantics.ops.registry import OpInput
from ..semantics.syntax import Constructor, IRModule
from ..semantics.values import (
    ClosureValue,
    ConstructorFnValue,
    ConstructorValue,
    RefValue,
    TensorValue,
    TupleValue,
    Value,
)
from .compiler import Program, compile_module, few_full_collections
from .instructions import (
    CTOR,
    STEP_BIND,
    STEP_CTOR,
    UNSET,
    Branch,
    CallGlobal,
    CallValue,
    Enter,
    Env,
    Frame,
    Instr,
    Jump,
    LoadOuter,
    MakeClosure,
    MakeCtor,
    MakeTuple,
    MatchClauses,
    OpCall,
    PatternStep,
    Project,
    RaiseStuck,
    RefGet,
    RefNew,
    RefSet,
    Return,
    ReturnShared,
    UseShared,
)

DEFAULT_FUEL = 10_000_000
"""Rule firings allowed by default (the spec's fuel, counted the same way)."""

UNLIMITED_FUEL = sys.maxsize
"""The fuel ``fuel=None`` stands for: more rule firings than any run can reach (2**63 - 1)."""

DEFAULT_MAX_ALLOCATION_BYTES = 2 << 30
"""Bytes of tensors that operators may produce in one run, by default (2 GiB)."""

DEFAULT_MAX_DEPTH = 1_000_000
"""Nested (non-tail) calls allowed by default."""

_BOOL = np.dtype(np.bool_)
_new = object.__new__
_set_data = cast(
    Callable[[TensorValue, npt.NDArray[np.generic]], None], vars(TensorValue)["data"].__set__
)
_set_fields = cast(
    Callable[[TupleValue, tuple[Value, ...]], None], vars(TupleValue)["fields"].__set__
)
_set_ctor = cast(
    Callable[[ConstructorValue, Constructor], None], vars(ConstructorValue)["constructor"].__set__
)
_set_ctor_fields = cast(
    Callable[[ConstructorValue, tuple[Value, ...]], None],
    vars(ConstructorValue)["fields"].__set__,
)

_Return = tuple[list[Instr], int, Frame, "Env | None", int]
"""A return point: code, program counter, frame, environment, and the register to fill."""


def _tensor(data: npt.NDArray[np.generic]) -> TensorValue:
    v: TensorValue = _new(TensorValue)
    _set_data(v, data)
    return v


def _tuple(fields: tuple[Value, ...]) -> TupleValue:
    v: TupleValue = _new(TupleValue)
    _set_fields(v, fields)
    return v


def _constructed(ctor: Constructor, fields: tuple[Value, ...]) -> ConstructorValue:
    v: ConstructorValue = _new(ConstructorValue)
    _set_ctor(v, ctor)
    _set_ctor_fields(v, fields)
    return v


# ---------------------------------------------------------------------------------------------
# Running a module


_CACHE: dict[int, tuple[IRModule, Program]] = {}
_CACHE_SIZE = 16


def program_for(mod: IRModule) -> Program:
    """The compiled form of ``mod``, compiled once and kept for the last few modules used."""
    entry = _CACHE.get(id(mod))
    if entry is not None and entry[0] is mod:
        return entry[1]
    program = compile_module(mod)
    if len(_CACHE) >= _CACHE_SIZE:
        del _CACHE[next(iter(_CACHE))]
    _CACHE[id(mod)] = (mod, program)
    return program


def evaluate(
    mod: IRModule,
    args: Sequence[Value],
    *,
    entry: str = "main",
    fuel: int | None = DEFAULT_FUEL,
    max_allocation_bytes: int = DEFAULT_MAX_ALLOCATION_BYTES,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> Result:
    """Apply the global ``entry`` to ``args``: the spec's ``evaluate``, run by the machine.

    The value, the final store (with the spec's locations) and the failures are the spec's:
    ``Stuck``, ``RelayRuntimeError``, ``UndefinedBehavior`` (from an operator, prefixed with
    ``E-Call-Op: <op>:`` and carrying the call's span), and ``Exhaustion`` when ``fuel`` rule
    firings (counted as the spec counts them; ``None``: no limit) do not suffice, when
    operators produce more than ``max_allocation_bytes`` bytes of tensors in all, or when calls
    nest deeper than ``max_depth``. ``derivation`` is ``None`` and ``rules_fired`` empty: run
    the spec to see them.
    """
    if entry not in mod:
        raise RelayRuntimeError(f"the module has no function @{entry}")
    fn = mod[entry]
    if len(args) != len(fn.params):
        raise Stuck(f"a function of {len(fn.params)} parameters called with {len(args)} "
                    "arguments", fn.span, rule="E-Call-Closure")  # fmt: skip
    with few_full_collections():
        program = program_for(mod)
        value, store = run(
            program,
            program.globals[entry].code,
            [*args, *program.globals[entry].rest],
            fuel=UNLIMITED_FUEL if fuel is None else fuel,
            max_allocation_bytes=max_allocation_bytes,
            max_depth=max_depth,
        )
    return Result(value, store, None, Counter())


def run(
    program: Program,
    code: list[Instr],
    regs: Frame,
    *,
    fuel: int,
    max_allocation_bytes: int,
    max_depth: int,
) -> tuple[Value, dict[int, Value]]:
    """Run ``code`` in the frame ``regs`` to its ``Return``; the value and the store."""
    store: dict[int, Value] = {}
    up: Env | None = None
    pc = 0
    activation = 1  # the entry call is activation 0, as in the spec
    allocated = 0
    stack: list[_Return] = []
    unit = TupleValue(())
    v: Value
    # Locals are the fastest names in CPython's loop; this one runs a step per instruction.
    new, set_data = _new, _set_data
    set_constructor, set_constructor_fields = _set_ctor, _set_ctor_fields
    ndarray = np.ndarray
    BOOL = _BOOL
    codes = program.codes
    with np.errstate(all="ignore"):
        while True:
            ins = code[pc]
            pc += 1
            fuel -= ins.cost
            if fuel < 0:
                raise Exhaustion("out of fuel: evaluation took more steps than allowed",
                                 ins.spans[fuel + ins.cost])  # fmt: skip

            if type(ins) is OpCall:
                # E-Call-Op
                operands = ins.args(regs)
                if len(operands) == 2:
                    a, b = operands
                    arrays: tuple[OpInput, ...] = (
                        a.data if type(a) is TensorValue else _op_input(a, ins.span),
                        b.data if type(b) is TensorValue else _op_input(b, ins.span),
                    )
                else:
                    arrays = tuple([_op_input(v, ins.span) for v in operands])
                try:
                    out = ins.kernel(arrays, ins.attrs)
                except RelayError as err:
                    if err.span is None:
                        err.span = ins.span
                    err.message = op_failure_message(ins.name, err.message)
                    raise
                except MemoryError:
                    raise Exhaustion(f"out of memory: {ins.name} could not allocate its result",
                                     ins.span) from None  # fmt: skip
                if type(out) is ndarray:
                    allocated += out.nbytes
                    v = new(TensorValue)
                    set_data(v, out)
                else:
                    v, nbytes = _op_output(out)
                    allocated += nbytes
                if allocated > max_allocation_bytes:
                    raise Exhaustion(
                        f"out of memory budget: operators produced more than "
                        f"{max_allocation_bytes} bytes of tensors (max_allocation_bytes)",
                        ins.span,
                    )
                if not ins.ret:
                    regs[ins.dst] = v
                elif stack:
                    code, pc, regs, up, dst = stack.pop()
                    regs[dst] = v
                else:
                    return v, store

            elif type(ins) is CallGlobal:
                # E-Call-Closure, the callee a global (no environment, no self-reference)
                callee = ins.callee
                frame = [*ins.args(regs), *callee.rest]
                activation += 1
                if not ins.tail:
                    stack.append((code, pc, regs, up, ins.dst))
                    if len(stack) > max_depth:
                        raise _too_deep(max_depth, callee.fn.span)
                code, pc, regs, up = callee.code, 0, frame, None

            elif type(ins) is MatchClauses:
                # E-Match: the first clause whose pattern matches; E-Match-Fail if none does
                v = regs[ins.data]
                for clause in ins.clauses:
                    kind = clause.kind
                    if kind == CTOR:
                        if type(v) is ConstructorValue and v.constructor.name == clause.name:
                            fields = v.fields
                            for index, slot in clause.binds:
                                regs[slot] = fields[index]
                            break
                    elif kind == 0:  # ANY
                        if clause.slot >= 0:
                            regs[clause.slot] = v
                        break
                    elif _match_general(clause.program, v, regs):
                        break
                else:
                    if ins.complete:
                        raise Stuck("no clause of a complete match matches", ins.span,
                                    rule="E-Match")  # fmt: skip
                    raise RelayRuntimeError(
                        "E-Match-Fail: no clause of this match? matches the value", ins.span
                    )
                activation += 1
                pc = clause.target

            elif type(ins) is MakeCtor:
                # E-Call-Constructor
                v = new(ConstructorValue)
                set_constructor(v, ins.constructor)
                set_constructor_fields(v, tuple(ins.args(regs)))
                if not ins.ret:
                    regs[ins.dst] = v
                elif stack:
                    code, pc, regs, up, dst = stack.pop()
                    regs[dst] = v
                else:
                    return v, store

            elif type(ins) is Return:
                v = regs[ins.src]
                if not stack:
                    return v, store
                code, pc, regs, up, dst = stack.pop()
                regs[dst] = v

            elif type(ins) is Branch:
                # E-If-True / E-If-False
                c = regs[ins.cond]
                if type(c) is not TensorValue:
                    raise _not_a_condition(ins.span)
                data = c.data
                if data.shape != () or (data.dtype is not BOOL and data.dtype != BOOL):
                    raise _not_a_condition(ins.span)
                if not data:
                    pc = ins.else_pc
                if ins.enter:
                    activation += 1

            elif type(ins) is UseShared:
                # E-Shared: the memo of this scope activation, or the node's own rule
                if ins.depth == 0:
                    home, home_up = regs, up
                else:
                    home, home_up = _ancestor(up, ins.depth)
                v = home[ins.memo]
                if v is not UNSET:
                    regs[ins.dst] = v
                else:
                    stack.append((code, pc, regs, up, ins.dst))
                    if len(stack) > max_depth:
                        raise _too_deep(max_depth, None)
                    code, pc, regs, up = ins.code, 0, home, home_up

            elif type(ins) is ReturnShared:
                v = regs[ins.src]
                regs[ins.memo] = v
                code, pc, regs, up, dst = stack.pop()
                regs[dst] = v

            elif type(ins) is Jump:
                regs[ins.dst] = regs[ins.src]
                pc = ins.target

            elif type(ins) is Project:
                # E-Proj
                t = regs[ins.src]
                if type(t) is not TupleValue or not 0 <= ins.index < len(t.fields):
                    raise Stuck(f"projection .{ins.index} of a non-tuple or short tuple",
                                ins.span, rule="E-Proj")  # fmt: skip
                regs[ins.dst] = t.fields[ins.index]

            elif type(ins) is MakeTuple:
                # E-Tuple
                v = _tuple(tuple(ins.args(regs)))
                if not ins.ret:
                    regs[ins.dst] = v
                elif stack:
                    code, pc, regs, up, dst = stack.pop()
                    regs[dst] = v
                else:
                    return v, store

            elif type(ins) is CallValue:
                # E-Call-Closure / E-Call-Constructor, the callee a computed value
                f = regs[ins.callee]
                n = ins.arity
                if type(f) is ClosureValue:
                    if n != len(f.fn.params):
                        raise Stuck(f"a function of {len(f.fn.params)} parameters called with "
                                    f"{n} arguments", ins.span, rule="E-Call-Closure")  # fmt: skip
                    callee = codes.get(id(f.fn)) or program.function_code(f.fn)
                    frame = [*ins.args(regs), *callee.rest]
                    if f.rec_var is not None and callee.rec_slot >= 0:
                        frame[callee.rec_slot] = f
                    activation += 1
                    if not ins.tail:
                        stack.append((code, pc, regs, up, ins.dst))
                        if len(stack) > max_depth:
                            raise _too_deep(max_depth, ins.span)
                    env = f.env
                    code, pc, regs = callee.code, 0, frame
                    up = cast(Env, env) if type(env) is tuple else None
                elif type(f) is ConstructorFnValue:
                    ctor = f.constructor
                    if n != len(ctor.inputs):
                        raise Stuck(f"constructor {ctor.name} applied to {n} values", ins.span,
                                    rule="E-Call-Constructor")  # fmt: skip
                    v = _constructed(ctor, tuple(ins.args(regs)))
                    if not ins.tail:
                        regs[ins.dst] = v
                    elif not stack:
                        return v, store
                    else:
                        code, pc, regs, up, dst = stack.pop()
                        regs[dst] = v
                else:
                    raise Stuck("calling a value that is not a function", ins.span,
                                rule="E-Call")  # fmt: skip

            elif type(ins) is MakeClosure:
                # E-Fn / E-Let-Rec: the closure captures this frame and its environment
                regs[ins.dst] = ClosureValue(ins.fn, (regs, up), ins.rec_var)

            elif type(ins) is LoadOuter:
                # E-Var, for a variable of an enclosing function
                regs[ins.dst] = _ancestor(up, ins.depth)[0][ins.slot]

            elif type(ins) is Enter:
                activation += 1

            elif type(ins) is RefNew:
                # E-RefCreate
                store[activation] = regs[ins.src]
                regs[ins.dst] = RefValue(activation)
                activation += 1

            elif type(ins) is RefGet:
                # E-RefRead
                r = regs[ins.src]
                if type(r) is not RefValue or r.location not in store:
                    raise Stuck("ref_read of a value that is not a reference", ins.span,
                                rule="E-RefRead")  # fmt: skip
                regs[ins.dst] = store[r.location]

            elif type(ins) is RefSet:
                # E-RefWrite
                r = regs[ins.ref]
                if type(r) is not RefValue:
                    raise Stuck("ref_write to a value that is not a reference", ins.span,
                                rule="E-RefWrite")  # fmt: skip
                store[r.location] = regs[ins.src]
                regs[ins.dst] = unit

            elif type(ins) is RaiseStuck:
                raise Stuck(ins.message, ins.span, rule=ins.rule)

            else:
                raise AssertionError(f"unknown instruction {type(ins).__name__}")


def _not_a_condition(span: Span | None) -> Stuck:
    return Stuck("the condition of an if is not a scalar bool", span, rule="E-If")


def _ancestor(up: Env | None, depth: int) -> Env:
    """The environment ``depth`` functions out (1: the one the running closure captured)."""
    env = up
    for _ in range(depth - 1):
        if env is None:
            break
        env = env[1]
    if env is None:
        raise Stuck("a closure's environment is missing a variable", None, rule="E-Var")
    return env


def _too_deep(max_depth: int, span: Span | None) -> Exhaustion:
    return Exhaustion(f"out of depth: more than {max_depth} nested calls (max_depth)", span)


def _op_input(v: Value, span: Span | None) -> OpInput:
    if isinstance(v, TensorValue):
        return v.data
    if isinstance(v, TupleValue) and all(isinstance(f, TensorValue) for f in v.fields):
        return tuple(f.data for f in v.fields if isinstance(f, TensorValue))
    raise Stuck("an operator argument is not a tensor or a tuple of tensors", span,
                rule="E-Call-Op")  # fmt: skip


def _op_output(out: object) -> tuple[Value, int]:
    """An operator's result as a value, and the bytes of tensors in it."""
    if isinstance(out, tuple):
        fields = [_op_output(o) for o in out]
        return _tuple(tuple(f for f, _ in fields)), sum(n for _, n in fields)
    assert isinstance(out, np.ndarray)
    return _tensor(out), out.nbytes


def _match_general(program: tuple[PatternStep, ...], v: Value, regs: Frame) -> bool:
    """M-*: run a pattern's steps over ``v`` (see ``PatternStep``), binding as they go."""
    values = [v]
    for kind, index, name, n in program:
        w = values[index]
        if kind == STEP_BIND:
            regs[n] = w
        elif kind == STEP_CTOR:
            if type(w) is not ConstructorValue or w.constructor.name != name:
                return False
            if len(w.fields) != n:
                return False
            values.extend(w.fields)
        else:
            if type(w) is not TupleValue or len(w.fields) != n:
                return False
            values.extend(w.fields)
    return True
