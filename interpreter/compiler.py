"""Compiling a module to the machine's instructions, once, without recursion on its depth.

The walk follows the spec's evaluation order exactly (a call's arguments left to right, then its
callee; a tuple's fields left to right; the shared nodes hoisted before an ``if``, ``match`` or
``fn`` where ``sharing_plan`` says), so that:

- instructions run in the order the spec's rules fire, and every rule firing (a fuel spend) is
  charged to the next instruction after it, with its node's span;
- variables become registers, resolved here once; a captured variable is read from the frame
  of the enclosing function (``LoadOuter``), because closures capture the frame itself;
- a shared node is compiled once, as a subroutine of the function owning its scope (the
  innermost function around the scope ``sharing_plan`` gives it), with a memo register in that
  function's frame. Each activation of a scope is one frame, or a branch inside one, and a
  branch runs at most once per frame, so "one memo register per frame" is exactly the spec's
  "one memo entry per scope activation".

The walk is a worklist of thunks and a stack of result registers, so a 100,000-deep let-chain
or call nest compiles without Python recursion.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import TypeVar, assert_never

from ..semantics.errors import Span
from ..semantics.ops import OPS
from ..semantics.ops.annotation import PLACEMENTS
from ..semantics.ops.registry import Attrs, OpInput, Reference, Tensor
from ..semantics.sharing import SharingPlan, sharing_plan
from ..semantics.syntax import (
    ATOMS,
    Call,
    Constant,
    Constructor,
    Expr,
    Function,
    GlobalVar,
    If,
    IRModule,
    Let,
    Match,
    Op,
    Pattern,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    TupleGetItem,
    Var,
    children,
)
from ..semantics.values import ClosureValue, ConstructorFnValue, TensorValue, Value
from .instructions import (
    ANY,
    CTOR,
    GENERAL,
    STEP_BIND,
    STEP_CTOR,
    STEP_TUPLE,
    UNSET,
    Branch,
    CallGlobal,
    CallValue,
    ClauseCode,
    Enter,
    FunctionCode,
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
    fetcher,
)
from .kernels import kernel_for

Task = Callable[[], None]
PrimitiveKernel = Callable[[Function], "Reference | None"]
"""A target's hook (``compile_module(mod, primitive_kernel=...)``): the compiled kernel that
replaces a function (one FuseOps made ``Primitive``), or ``None`` to interpret the function."""
InstrT = TypeVar("InstrT", bound=Instr)


class _Context:
    """The frame layout of one function being compiled, and the variables in scope in it."""

    __slots__ = ("code", "consts", "fixed", "parent", "registers", "scope")

    def __init__(self, code: FunctionCode, parent: _Context | None) -> None:
        self.code = code
        self.parent = parent
        self.registers = 0
        self.consts: dict[object, tuple[int, Value]] = {}
        self.scope: dict[Var, int] = {}
        # Registers whose value is the same in every frame: the constant tensors, and the
        # results of operator calls on such registers only (``_MemoKernel``).
        self.fixed: set[int] = set()

    def register(self) -> int:
        self.registers += 1
        return self.registers - 1

    def const(self, key: object, value: Value) -> int:
        """A register holding ``value`` from the start (part of the frame template)."""
        entry = self.consts.get(key)
        if entry is None:
            entry = self.consts[key] = (self.register(), value)
            if isinstance(value, TensorValue):
                self.fixed.add(entry[0])
        return entry[0]

    def finish(self) -> None:
        template = [UNSET] * self.registers
        for slot, value in self.consts.values():
            template[slot] = value
        self.code.template = template
        self.code.rest = template[len(self.code.fn.params) :]


class _Stream:
    """Instructions being emitted, and the rule firings not yet charged to one."""

    __slots__ = ("ctx", "instrs", "label", "pending")

    def __init__(self, ctx: _Context, instrs: list[Instr]) -> None:
        self.ctx = ctx
        self.instrs = instrs
        self.pending: list[Span | None] = []
        self.label = 0  # the last position a jump was aimed at

    def spend(self, e: Expr) -> None:
        self.pending.append(e.span)

    def emit(self, ins: InstrT) -> InstrT:
        if self.pending:
            ins.cost = len(self.pending)
            ins.spans = tuple(self.pending)
            self.pending.clear()
        self.instrs.append(ins)
        return ins

    def here(self) -> int:
        """The position of the next instruction, as a jump target."""
        self.label = len(self.instrs)
        return self.label

    def ret(self, reg: int) -> None:
        """Return ``reg``: by marking the instruction that computes it, if it is the last one
        (and not a jump target) and no rule firing waits to be charged; else by a ``Return``."""
        last = self.instrs[-1] if self.instrs else None
        if (
            isinstance(last, OpCall | MakeCtor | MakeTuple)
            and last.dst == reg
            and not self.pending
            and self.label != len(self.instrs)
        ):
            last.ret = True
        else:
            self.emit(Return(reg))


@dataclass(eq=False)
class Program:
    """A compiled module: the code of every global, and of every function met so far."""

    mod: IRModule
    globals: dict[str, FunctionCode] = field(default_factory=dict)
    codes: dict[int, FunctionCode] = field(default_factory=dict)
    compiler: Compiler | None = None

    def function_code(self, fn: Function) -> FunctionCode:
        """The code of ``fn``; a function from outside the module is compiled on first use."""
        code = self.codes.get(id(fn))
        if code is None:
            assert self.compiler is not None
            code = self.compiler.compile_root(fn)
        return code

    def instructions(self) -> Iterator[Instr]:
        """Every instruction compiled so far: of each function, and of each shared node's code
        (for tools that inspect or instrument the compiled form, such as the benchmarks)."""
        yield from (ins for code in self.codes.values() for ins in code.code)
        if self.compiler is not None:
            for _, _, instrs in self.compiler.subroutines.values():
                yield from instrs


class Compiler:
    """Turns the functions of one module into ``FunctionCode`` (see the module docstring)."""

    def __init__(
        self, mod: IRModule, program: Program, primitive_kernel: PrimitiveKernel | None = None
    ) -> None:
        self.mod = mod
        self.program = program
        self.primitive_kernel = primitive_kernel
        self.kernel_vars: dict[Var, Function] = {}  # let-bound functions the hook may replace
        # The same plans as the spec's evaluator: built per global, a node's last one wins.
        self.plans: dict[int, SharingPlan] = {}
        self.global_values: dict[str, ClosureValue] = {}
        for gv, fn in mod.functions.items():
            tree = _tree_nodes(fn)
            if tree is not None:
                # Nothing is shared, so the plan is empty: no node is shared or hoisted.
                for node_id in tree:
                    self.plans.pop(node_id, None)
            else:
                plan = sharing_plan(fn)
                for node in plan.scope:
                    self.plans[id(node)] = plan
            self.global_values.setdefault(gv.name, ClosureValue(fn))
        self.subroutines: dict[int, tuple[_Context, int, list[Instr]]] = {}
        self.compiled: set[int] = set()
        self.contexts: list[_Context] = []
        self.tasks: list[Task] = []
        self.results: list[int] = []

    # -----------------------------------------------------------------------------------------
    # Driver

    def compile_module(self) -> None:
        for name, closure in self.global_values.items():
            # Every global's code exists before any is compiled: calls refer to it directly.
            code = self.program.codes.setdefault(id(closure.fn), FunctionCode(closure.fn, name))
            self.program.globals[name] = code
        for closure in self.global_values.values():
            self.compile_root(closure.fn)

    def compile_root(self, fn: Function) -> FunctionCode:
        """Compile a function with no enclosing function (a global), and what it contains."""
        start = len(self.contexts)
        code = self._function(fn, None, None)
        tasks = self.tasks
        while tasks:
            tasks.pop()()
        assert not self.results, "unbalanced result stack"
        for ctx in self.contexts[start:]:
            ctx.finish()
        return code

    def _seq(self, *steps: Task) -> None:
        """Run ``steps`` in order, after the task running now (and before anything queued)."""
        self.tasks.extend(reversed(steps))

    def _then(self, steps: list[Task], finish: Task) -> None:
        """Run ``steps`` then ``finish``; with no steps, ``finish`` right away."""
        if steps:
            self._seq(*steps, finish)
        else:
            finish()

    def _done(self, s: _Stream, reg: int, tail: bool) -> None:
        """The value is in ``reg``: return it (tail position) or hand it to the parent."""
        if tail:
            s.ret(reg)
        else:
            self.results.append(reg)

    def _pop(self, n: int) -> tuple[int, ...]:
        if n == 0:
            return ()
        regs = tuple(self.results[-n:])
        del self.results[-n:]
        return regs

    def _stuck(self, s: _Stream, message: str, span: Span | None, rule: str) -> int:
        s.emit(RaiseStuck(message, rule, span))
        return s.ctx.register()

    # -----------------------------------------------------------------------------------------
    # Functions and sharing

    def _function(self, fn: Function, parent: _Context | None, rec_var: Var | None) -> FunctionCode:
        code = self.program.codes.get(id(fn))
        if code is None:
            code = self.program.codes[id(fn)] = FunctionCode(fn, "fn")
        if id(fn) in self.compiled:
            return code
        self.compiled.add(id(fn))
        ctx = _Context(code, parent)
        self.contexts.append(ctx)
        for _ in fn.params:
            ctx.register()
        if rec_var is not None:
            code.rec_slot = ctx.register()
            ctx.scope[rec_var] = code.rec_slot
        for i, param in enumerate(fn.params):
            ctx.scope[param] = i
        s = _Stream(ctx, code.code)
        kernel = self._kernel_of(fn)
        if kernel is not None:  # the body is the target's kernel, over the parameters
            regs = fetcher(tuple(range(len(fn.params))))
            name = getattr(kernel, "__name__", "primitive")
            s.emit(OpCall(name, kernel, None, regs, ctx.register(), fn.span, ret=True))
            return code
        self.tasks.append(lambda: self._expr(fn.body, s, True))
        return code

    def _kernel_of(self, callee: Expr) -> Reference | None:
        """The hook's kernel for a function literal, or a variable let-bound to one."""
        fn = self.kernel_vars.get(callee) if isinstance(callee, Var) else callee
        if self.primitive_kernel is None or not isinstance(fn, Function):
            return None
        return self.primitive_kernel(fn)

    def _shared(self, e: Expr) -> bool:
        if not self.plans:  # a module of trees: nothing is shared
            return False
        plan = self.plans.get(id(e))
        return plan is not None and e in plan.shared

    def _hoist_steps(self, opener: Expr, s: _Stream) -> list[Task]:
        """Evaluate (for effect) the shared nodes hoisted before ``opener``."""
        plan = self.plans.get(id(opener))
        steps: list[Task] = []
        for node in () if plan is None else plan.hoisted.get(opener, ()):
            steps += [partial(self._expr, node, s, False), self._discard]
        return steps

    def _discard(self) -> None:
        self.results.pop()

    def _home(self, e: Expr, ctx: _Context) -> tuple[_Context, int] | None:
        """The context owning the scope of the shared node ``e``, and how many levels up."""
        plan = self.plans[id(e)]
        key = plan.scope.get(e)
        # A function opens the scope of position 0 (its body); an if or a match those of its
        # branches and clauses (positions 1 and up), each inside the scope the opener is in.
        while key is not None and key[1] != 0:
            key = plan.scope.get(key[0])
        if key is None:
            return None
        depth = 0
        c: _Context | None = ctx
        while c is not None and c.code.fn is not key[0]:
            c = c.parent
            depth += 1
        return None if c is None else (c, depth)

    def _use_shared(self, e: Expr, s: _Stream) -> int:
        """E-Shared: the memo of ``e`` in its scope's frame, computed by its code if empty."""
        found = self._home(e, s.ctx)
        if found is None:
            return self._stuck(s, "a shared sub-expression is used outside its scope", e.span,
                               "E-Shared")  # fmt: skip
        home, depth = found
        entry = self.subroutines.get(id(e))
        if entry is None:
            sub = _Stream(home, [])
            memo = home.register()
            entry = self.subroutines[id(e)] = (home, memo, sub.instrs)
            # The node's own rule, in the scope it is first met in (its spend is at the use).

            def finish() -> None:
                sub.emit(ReturnShared(self.results.pop(), memo))

            self._seq(lambda: self._unshared(e, sub, False), finish)
        _, memo, code = entry
        dst = memo if depth == 0 else s.ctx.register()
        s.emit(UseShared(depth, memo, code, dst))
        return dst

    # -----------------------------------------------------------------------------------------
    # Expressions, one case per rule family (as ``evaluate_expr``)

    def _expr(self, e: Expr, s: _Stream, tail: bool) -> None:
        """Compile ``e``: its value ends up on ``self.results`` (or is returned, if ``tail``)."""
        s.spend(e)
        if self._shared(e):
            self._done(s, self._use_shared(e, s), tail)
        else:
            self._unshared(e, s, tail)

    def _unshared(self, e: Expr, s: _Stream, tail: bool) -> None:
        ctx = s.ctx
        match e:
            case Call():
                self._call(e, s, tail)
            case Var():
                self._done(s, self._var(e, s), tail)
            case GlobalVar(name):
                closure = self.global_values.get(name)
                if closure is None:
                    reg = self._stuck(s, f"undefined global @{name}", e.span, "E-Global")
                else:
                    reg = ctx.const(("global", name), closure)
                self._done(s, reg, tail)
            case Constant(data):
                self._done(s, ctx.const(id(e), TensorValue(data)), tail)
            case Constructor():
                self._done(s, ctx.const(id(e), ConstructorFnValue(e)), tail)
            case Op(name):
                message = f"operator {name} used as a value: only its calls evaluate"
                self._done(s, self._stuck(s, message, e.span, "E-Op"), tail)
            case Tuple(fields):

                def make_tuple() -> None:
                    dst = ctx.register()
                    s.emit(MakeTuple(fetcher(self._pop(len(fields))), dst))
                    self._done(s, dst, tail)

                self._then(self._operands(fields, s), make_tuple)
            case TupleGetItem(tup, index):

                def project() -> None:
                    dst = ctx.register()
                    s.emit(Project(self.results.pop(), index, dst, e.span))
                    self._done(s, dst, tail)

                self._seq(lambda: self._expr(tup, s, False), project)
            case Let():
                self._let(e, s, tail)
            case If():
                self._if(e, s, tail)
            case Function():

                def make_closure() -> None:
                    dst = ctx.register()
                    s.emit(MakeClosure(e, None, dst))
                    self._done(s, dst, tail)
                    self._function(e, ctx, None)

                self._seq(*self._hoist_steps(e, s), make_closure)
            case Match():
                self._match(e, s, tail)
            case RefCreate(value):

                def ref_new() -> None:
                    dst = ctx.register()
                    s.emit(RefNew(self.results.pop(), dst))
                    self._done(s, dst, tail)

                self._seq(lambda: self._expr(value, s, False), ref_new)
            case RefRead(ref):

                def ref_get() -> None:
                    dst = ctx.register()
                    s.emit(RefGet(self.results.pop(), dst, e.span))
                    self._done(s, dst, tail)

                self._seq(lambda: self._expr(ref, s, False), ref_get)
            case RefWrite(ref, value):

                def ref_set() -> None:
                    dst = ctx.register()
                    src = self.results.pop()
                    s.emit(RefSet(self.results.pop(), src, dst, e.span))
                    self._done(s, dst, tail)

                self._then(self._operands((ref, value), s), ref_set)
            case _:
                assert_never(e)

    def _operands(self, es: Sequence[Expr], s: _Stream) -> list[Task]:
        """Compile operands in order: the leading simple ones now, the rest by tasks."""
        steps: list[Task] = []
        for e in es:
            if not steps and self._simple(e):
                self._expr(e, s, False)
            else:
                steps.append(partial(self._expr, e, s, False))
        return steps

    def _simple(self, e: Expr) -> bool:
        """An atom, or an operator applied to atoms: compiled at once, it queues no task (and
        binds nothing), so it can be compiled before the tasks queued now have run."""
        atoms = _ATOM_TYPES
        if self._shared(e):
            return False
        if type(e) in atoms:
            return True
        if type(e) is not Call or type(e.op) is not Op:
            return False
        return all(type(a) in atoms and not self._shared(a) for a in e.args)

    def _var(self, e: Var, s: _Stream) -> int:
        """E-Var: a register of this frame, or one loaded from an enclosing function's."""
        c: _Context | None = s.ctx
        depth = 0
        while c is not None:
            slot = c.scope.get(e)
            if slot is not None:
                if depth == 0:
                    return slot
                dst = s.ctx.register()
                s.emit(LoadOuter(depth, slot, dst))
                return dst
            c = c.parent
            depth += 1
        return self._stuck(s, f"unbound variable %{e.name_hint}", e.span, "E-Var")

    def _bind(self, ctx: _Context, var: Var, reg: int) -> Task:
        """Bind ``var`` to ``reg``; the task returned undoes it."""
        old = ctx.scope.get(var)
        ctx.scope[var] = reg

        def unbind() -> None:
            if old is None:
                del ctx.scope[var]
            else:
                ctx.scope[var] = old

        return unbind

    def _let(self, e: Let, s: _Stream, tail: bool) -> None:
        """E-Let and E-Let-Rec; a let-chain becomes a loop or one task per binding, not a
        recursion."""
        ctx = s.ctx

        def body(reg: int) -> None:
            self._seq(lambda: self._expr(e.body, s, tail), self._bind(ctx, e.var, reg))

        value = e.value
        if isinstance(value, Function) and self.primitive_kernel is not None:
            self.kernel_vars[e.var] = value
        if isinstance(value, Function) and not self._shared(value):

            def make_rec_closure() -> None:
                s.spend(value)
                dst = ctx.register()
                s.emit(MakeClosure(value, e.var, dst))
                body(dst)
                self._function(value, ctx, e.var)

            self._seq(*self._hoist_steps(value, s), make_rec_closure)
        elif self._simple(value):
            # A run of bindings of simple values (A-normal form's let-chains) compiles in this
            # loop, with no task per binding; each variable is unbound once the body is done.
            unbinds: list[Task] = []
            link: Let = e
            while True:
                self._expr(link.value, s, False)
                unbinds.append(self._bind(ctx, link.var, self.results.pop()))
                rest = link.body
                if not isinstance(rest, Let) or self._shared(rest):
                    break
                if isinstance(rest.value, Function) or not self._simple(rest.value):
                    break
                s.spend(rest)
                link = rest
            unbinds.reverse()
            self._seq(lambda: self._expr(rest, s, tail), *unbinds)
        else:
            self._seq(lambda: self._expr(value, s, False), lambda: body(self.results.pop()))

    def _arms(self, s: _Stream, arms: list[tuple[Task, Expr, Task]], tail: bool) -> list[Task]:
        """The steps compiling each arm: ``start``, the expression, ``end``, then a join."""
        dst = -1 if tail else s.ctx.register()
        jumps: list[Jump] = []
        steps: list[Task] = []

        def finish_arm(end: Task) -> None:
            if not tail:
                jumps.append(s.emit(Jump(-1, self.results.pop(), dst)))
            end()

        for start, rhs, end in arms:
            steps += [start, partial(self._expr, rhs, s, tail), partial(finish_arm, end)]

        def join() -> None:
            for jump in jumps:
                jump.target = s.here()
            if not tail:
                self.results.append(dst)

        steps.append(join)
        return steps

    def _if(self, e: If, s: _Stream, tail: bool) -> None:
        """E-If-True / E-If-False: the condition, the hoisted nodes, then one branch."""
        hoists = self._hoist_steps(e, s)

        def branch() -> None:
            ins = s.emit(Branch(self.results.pop(), -1, not hoists, e.span))

            def start(is_else: bool) -> None:
                if is_else:
                    ins.else_pc = s.here()
                if hoists:
                    # The hoisted nodes run after the condition's check and before the branch's
                    # scope is entered, in whichever branch is taken.
                    self._seq(*self._hoist_steps(e, s), enter)

            def enter() -> None:
                s.emit(Enter())

            arms = [
                (lambda: start(False), e.true_branch, lambda: None),
                (lambda: start(True), e.false_branch, lambda: None),
            ]
            self._seq(*self._arms(s, arms, tail))

        self._seq(lambda: self._expr(e.cond, s, False), branch)

    def _match(self, e: Match, s: _Stream, tail: bool) -> None:
        """E-Match / E-Match-Fail: the scrutinee, the hoisted nodes, then the first clause."""
        ctx = s.ctx

        def clauses() -> None:
            data = self.results.pop()
            ins = s.emit(MatchClauses(data, (), e.complete, e.span))
            codes: list[ClauseCode] = []
            arms: list[tuple[Task, Expr, Task]] = []

            def start(p: Pattern, unbinds: list[Task]) -> None:
                codes.append(self._pattern(p, ctx, s.here(), unbinds))

            def end(unbinds: list[Task]) -> None:
                for undo in reversed(unbinds):
                    undo()

            for clause in e.clauses:
                unbinds: list[Task] = []
                arms.append(
                    (partial(start, clause.lhs, unbinds), clause.rhs, partial(end, unbinds))
                )
            steps = self._arms(s, arms, tail)

            def seal() -> None:
                ins.clauses = tuple(codes)

            self._seq(*steps, seal)

        self._seq(lambda: self._expr(e.data, s, False), *self._hoist_steps(e, s), clauses)

    def _pattern(self, p: Pattern, ctx: _Context, target: int, unbinds: list[Task]) -> ClauseCode:
        """``p ⊨ v ⇒ ρ'`` compiled: registers for its variables, bound in scope for the clause."""

        def bind(var: Var) -> int:
            reg = ctx.register()
            unbinds.append(self._bind(ctx, var, reg))
            return reg

        match p:
            case PatternWildcard():
                return ClauseCode(ANY, target)
            case PatternVar(var):
                return ClauseCode(ANY, target, slot=bind(var))
            case PatternConstructor(ctor, patterns) if all(
                isinstance(q, PatternVar | PatternWildcard) for q in patterns
            ):
                binds = tuple(
                    (i, bind(q.var)) for i, q in enumerate(patterns) if isinstance(q, PatternVar)
                )
                return ClauseCode(CTOR, target, name=ctor.name, binds=binds)
        program: list[PatternStep] = []
        count = 1
        stack: list[tuple[Pattern, int]] = [(p, 0)]
        while stack:
            q, index = stack.pop()
            match q:
                case PatternWildcard():
                    pass
                case PatternVar(var):
                    program.append((STEP_BIND, index, "", bind(var)))
                case PatternConstructor(Constructor(name), patterns):
                    program.append((STEP_CTOR, index, name, len(patterns)))
                    stack.extend((patterns[j], count + j) for j in reversed(range(len(patterns))))
                    count += len(patterns)
                case PatternTuple(patterns):
                    program.append((STEP_TUPLE, index, "", len(patterns)))
                    stack.extend((patterns[j], count + j) for j in reversed(range(len(patterns))))
                    count += len(patterns)
                case _:
                    assert_never(q)
        return ClauseCode(GENERAL, target, program=tuple(program))

    def _call(self, e: Call, s: _Stream, tail: bool) -> None:
        """E-Call-Op, E-Call-Placement, E-Call-Closure, E-Call-Constructor: arguments, then the
        callee."""
        ctx = s.ctx
        callee, n = e.op, len(e.args)
        if isinstance(callee, Op) and callee.name in PLACEMENTS and n == 1:
            # E-Call-Placement: the identity on any value; the result is the argument's.
            self._then(self._operands(e.args, s), lambda: self._done(s, self._pop(1)[0], tail))
            return
        if isinstance(callee, Op):
            opdef = OPS.get(callee.name)

            def op_call() -> None:
                args = self._pop(n)
                if opdef is None or opdef.reference is None:
                    message = f"operator {callee.name} has no reference semantics"
                    reg = self._stuck(s, message, e.span, "E-Call-Op")
                else:
                    reg = ctx.register()
                    kernel = kernel_for(callee.name, opdef.reference)
                    if all(a in ctx.fixed for a in args):
                        kernel = _MemoKernel(kernel)
                        ctx.fixed.add(reg)
                    s.emit(OpCall(callee.name, kernel, e.attrs, fetcher(args), reg, e.span))
                self._done(s, reg, tail)

            self._then(self._operands(e.args, s), op_call)
            return
        kernel = self._kernel_of(callee)
        if kernel is not None:  # the target's kernel for a primitive function: one OpCall

            def kernel_call() -> None:
                s.spend(callee)
                reg = ctx.register()
                name = getattr(kernel, "__name__", "primitive")
                s.emit(OpCall(name, kernel, None, fetcher(self._pop(n)), reg, e.span))
                self._done(s, reg, tail)

            self._then(self._operands(e.args, s), kernel_call)
            return
        direct_global = (
            isinstance(callee, GlobalVar)
            and callee.name in self.global_values
            and len(self.global_values[callee.name].fn.params) == n
        )
        direct_ctor = isinstance(callee, Constructor) and len(callee.inputs) == n

        def call() -> None:
            if direct_global:
                assert isinstance(callee, GlobalVar)
                s.spend(callee)
                code = self.program.globals[callee.name]
                dst = -1 if tail else ctx.register()
                s.emit(CallGlobal(code, fetcher(self._pop(n)), dst, tail))
                if not tail:
                    self.results.append(dst)
            elif direct_ctor:
                assert isinstance(callee, Constructor)
                s.spend(callee)
                dst = ctx.register()
                s.emit(MakeCtor(callee, fetcher(self._pop(n)), dst))
                self._done(s, dst, tail)
            else:
                f = self.results.pop()
                dst = -1 if tail else ctx.register()
                s.emit(CallValue(f, fetcher(self._pop(n)), n, dst, tail, e.span))
                if not tail:
                    self.results.append(dst)

        steps = self._operands(e.args, s)
        if not (direct_global or direct_ctor):
            steps.append(lambda: self._expr(callee, s, False))
        self._then(steps, call)


class _MemoKernel:
    """An operator's kernel for a call whose operands are constants, or results of such calls:
    its first successful result is kept and returned by every later run of the call.

    Operators are functions of their operands and attributes, so the kept result is the value
    the call would compute again; a kernel that fails keeps nothing (it fails again, with its
    own error, in the run that reaches it). The machine still charges the call's fuel and
    counts the result's bytes against the allocation budget on every run, as the spec's rules
    do: only the computation is saved. This is what makes a model's weight fills (ONNX's
    ``ConstantOfShape``, imported as ``full``) cost once per compiled module, not per run."""

    __slots__ = ("kernel", "result")

    def __init__(self, kernel: Reference) -> None:
        self.kernel = kernel
        self.result: Tensor | tuple[Tensor, ...] | None = None

    def __call__(
        self, arrays: tuple[OpInput, ...], attrs: Attrs | None
    ) -> Tensor | tuple[Tensor, ...]:
        result = self.result
        if result is None:
            result = self.kernel(arrays, attrs)
            for array in result if isinstance(result, tuple) else (result,):
                array.flags.writeable = False  # shared by every run: nothing may write it
            self.result = result
        return result


_ATOM_TYPES = frozenset(ATOMS)


def _tree_nodes(root: Function) -> set[int] | None:
    """The nodes ``sharing_plan(root)`` would cover, if no node is used twice (else ``None``).

    A shortcut, not a second definition: ``sharing_plan`` is linear but slow on the 100,000-node
    let-chains of A-normal form, and when no non-atomic node has two uses its plan is empty.
    The nodes are returned so that they drop any plan an earlier global gave them, as
    ``sharing_plan``'s empty plan would override it.
    """
    seen: set[int] = set()
    stack: list[Expr] = [root]
    atoms = _ATOM_TYPES
    while stack:
        e = stack.pop()
        for child in (e.value, e.body) if type(e) is Let else children(e):
            if type(child) in atoms:
                continue
            key = id(child)
            if key in seen:
                return None
            seen.add(key)
            stack.append(child)
    seen.add(id(root))
    seen.add(id(root.body))
    return seen


FEW_FULL_COLLECTIONS = (5_000, 1_000)
"""The least first- and last-generation thresholds ``few_full_collections`` runs with."""


@contextmanager
def few_full_collections() -> Iterator[None]:
    """Run with Python's full garbage collections rare (young ones as usual).

    A deep run keeps a growing heap of frames and values alive (compiling a large module, of
    instructions and tasks), and each full collection walks all of it and everything else in
    the process: measured (CPU time, this module's compile of a 100,000-binding let-chain and a
    100,000-element list built and summed), removing this costs 35-50% more time. The garbage
    the machine makes in cycles (a closure and the frame it captured) mostly dies young, where
    the young collections still find it.

    The thresholds are process-wide: they are raised only for the length of the call (nested
    calls keep the outer one's), never switched on where the caller turned automatic
    collection off (a first threshold of 0), and restored on the way out, by exception too,
    unless something else changed them meanwhile.
    """
    old = gc.get_threshold()
    young, oldest = FEW_FULL_COLLECTIONS
    new = old if old[0] == 0 else (max(old[0], young), old[1], max(old[2], oldest))
    if new == old:
        yield
        return
    gc.set_threshold(*new)
    try:
        yield
    finally:
        if gc.get_threshold() == new:
            gc.set_threshold(*old)


def compile_module(mod: IRModule, *, primitive_kernel: PrimitiveKernel | None = None) -> Program:
    """Compile every global function of ``mod``; with ``primitive_kernel``, each function the
    hook gives a kernel for runs that kernel instead of its body (a target's compiled code)."""
    program = Program(mod)
    compiler = Compiler(mod, program, primitive_kernel)
    program.compiler = compiler
    with few_full_collections():
        compiler.compile_module()
    return program
