"""The CPU target's host runtime: compiled kernels inside the interpreter's machine.

``compile_module(mod, backend, opt_level)`` makes a ``CpuExecutable`` in four steps:

1. the module is optimised by the ``opt-level-N`` pipeline, which ends in FuseOps, so every
   operator call sits in a ``Primitive`` function;
2. each primitive function becomes one kernel: ``backend.compile_primitive(fn, name)`` (for the
   CPU, ``compiler.lower.lower.lower_primitive`` then ``targets.cpu.codegen.compile_kernel``),
   wrapped as a ``PrimitiveCall``: it flattens tuple arguments into buffers, checks them
   against the static types, allocates the outputs (their shapes from the types; a ``?`` or
   symbolic dimension is resolved at run time by the operators' relations applied to the
   concrete input types, or for a value-dependent shape such as ``arange``'s by the operator's
   shape function, ``concrete_outputs``), and calls the kernel;
3. everything else (control flow, closures, ADTs, references, recursion, calls between
   globals, tuples) runs in the interpreter's machine, compiled with the ``primitive_kernel``
   hook (``interpreter.compiler.compile_module``) so that each primitive function runs its
   kernel instead of its body: every well-typed program compiles and runs;
4. a global whose body is a dataflow region (calls of primitive functions, tuples,
   projections, variables, constants and ``let``, static shapes) gets a ``DataflowPlan``: its
   kernel calls in evaluation order, with each intermediate buffer assigned by a best-fit
   free-list at compile time, so that values whose lifetimes do not overlap share one
   allocation, reused by every run. Results are fresh arrays (never arena buffers). The
   machine calls a planned global through its plan as well (``PlanCall``).

Nothing falls back to the reference kernels: an operator call left outside a primitive
function is a ``BackendError``, as is an operator the backend cannot lower. The one exception
is by design, as in TVM's VM: *host operators* (those of ``HOST_OPS`` the backend does not
compile itself, ``KernelBackend.host_ops``: for the CPU, ``vm.reshape_tensor``, whose run-time
check a kernel cannot raise) read only an array's shape or give it a new one; each call of one
gets a primitive function of its own (``fence_host_ops``), run on the host (``HostCall``).
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeAlias, cast

import numpy as np
import numpy.typing as npt

from ...compiler.ir import rewrite_module
from ...compiler.pass_manager import PassContext
from ...compiler.passes import pipeline
from ...compiler.passes.fuse_ops import is_primitive
from ...interpreter.compiler import Program
from ...interpreter.compiler import compile_module as compile_program
from ...interpreter.machine import (
    DEFAULT_MAX_ALLOCATION_BYTES,
    DEFAULT_MAX_DEPTH,
    UNLIMITED_FUEL,
    run,
)
from ...semantics.errors import RelayRuntimeError, Stuck
from ...semantics.evaluation import Result
from ...semantics.ops.annotation import PLACEMENTS
from ...semantics.ops.registry import Attrs, OpInput
from ...semantics.syntax import (
    AnyDim,
    Call,
    Constant,
    Expr,
    Function,
    IRModule,
    Let,
    Op,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    Var,
    children,
)
from ...semantics.typing import infer_types
from ...semantics.values import TensorValue, TupleValue, Value
from ..base import Executable, unsupported

Array: TypeAlias = npt.NDArray[np.generic]


class CompiledPrimitive(Protocol):
    """One primitive function compiled: writes its outputs from its inputs (flattened,
    C-contiguous arrays of the buffers' dtypes)."""

    def __call__(self, inputs: Sequence[Array], outputs: Sequence[Array]) -> None: ...

    # It may also have ``unchecked() -> Callable[[inputs, outputs], None] | None``: a faster
    # call for a caller that guarantees C-contiguous arrays of exactly the buffers' static
    # shapes and dtypes, and fresh outputs (``PrimitiveCall`` checks that itself).

    def artifacts(self) -> dict[str, str | bytes]:
        """What was made for it (``"loop-ir"``, ``"llvm"``, ``"asm"``, ``"obj"``)."""
        ...


class KernelBackend(Protocol):
    """How a target compiles one primitive function (``name`` is its kernel's name). Raises
    ``BackendError`` for an operator it cannot compile."""

    def compile_primitive(self, fn: Function, name: str) -> CompiledPrimitive: ...

    # A backend may also say which of ``HOST_OPS`` it leaves to the host, as ``host_ops``
    # (a frozenset); without it, all of them (``backend_host_ops``).


# ---------------------------------------------------------------------------------------------
# Types of kernel inputs and outputs

Shape: TypeAlias = tuple[int, ...]
Signature: TypeAlias = tuple[tuple[Shape, str], ...]


def flat_tensor_types(t: Type) -> list[TensorType] | None:
    """The tensor types of ``t`` flattened (a tuple's fields in order, nested tuples too);
    ``None`` if part of it is not a tensor."""
    out: list[TensorType] = []
    stack = [t]
    while stack:
        u = stack.pop()
        if isinstance(u, TensorType):
            out.append(u)
        elif isinstance(u, TupleType):
            stack.extend(reversed(u.fields))
        else:
            return None
    return out


def static_shape(t: TensorType) -> Shape | None:
    """The shape of ``t`` if every dimension is an integer."""
    dims: list[int] = []
    for d in t.shape:
        if isinstance(d, int):
            dims.append(d)
        elif not isinstance(d, AnyDim) and d.is_Integer:  # a sympy integer
            dims.append(int(d))
        else:
            return None
    return tuple(dims)


def _build(t: Type, flat: Sequence[Array]) -> Array | tuple[object, ...]:
    """The arrays ``flat`` put back into the tuple structure of ``t``."""
    it = iter(flat)

    def one(u: Type) -> Array | tuple[object, ...]:
        if isinstance(u, TupleType):
            return tuple(one(f) for f in u.fields)
        return next(it)

    # Return types of primitive functions nest a level or two: recursion on the type is fine.
    return one(t)


@dataclass(eq=False, repr=False)
class PrimitiveCall:
    """A primitive function's kernel as the machine calls it (an ``OpCall``'s kernel)."""

    name: str
    fn: Function
    param_types: tuple[Type, ...]
    ret_type: Type
    compiled: CompiledPrimitive
    out_types: list[TensorType]
    static_outputs: list[tuple[Shape, str]] | None
    static_inputs: list[tuple[Shape, str]] | None = None
    _dynamic: dict[Signature, list[tuple[Shape, str]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        expected = self.static_inputs or []
        self._shapes = [shape for shape, _ in expected]
        self._dtypes = [np.dtype(dtype) for _, dtype in expected]
        # The fast path of a kernel whose inputs and outputs are tensors of static shapes:
        # checked here, then the backend's unchecked call (see ``CompiledPrimitive``).
        self._fast: Callable[[Sequence[Array], Sequence[Array]], None] | None = None
        self._outs = [(s, np.dtype(d)) for s, d in self.static_outputs or []]
        self._single = isinstance(self.ret_type, TensorType) and len(self._outs) == 1
        self._expected = list(zip(self._shapes, self._dtypes, strict=True))
        unchecked = getattr(self.compiled, "unchecked", None)
        if (
            unchecked is not None
            and self.static_inputs is not None
            and self.static_outputs is not None
            and all(isinstance(t, TensorType) for t in self.param_types)
        ):
            self._fast = unchecked()

    @property
    def __name__(self) -> str:
        return self.name

    def flatten(self, args: Sequence[OpInput]) -> list[Array]:
        """The arguments as the kernel's input buffers (a tuple argument gives its fields)."""
        flat: list[Array] = []
        for a in args:
            if isinstance(a, tuple):
                flat.extend(a)
            else:
                flat.append(a)
        return [a if a.flags.c_contiguous else a.copy(order="C") for a in flat]

    def output_shapes(self, inputs: Sequence[Array]) -> list[tuple[Shape, str]]:
        """The outputs' shapes and dtypes: from the types, or for ``?`` and symbolic
        dimensions from the type checker run on the concrete input types (cached)."""
        if self.static_outputs is not None:
            return self.static_outputs
        key = tuple((a.shape, a.dtype.name) for a in inputs)
        found = self._dynamic.get(key)
        if found is None:
            found, by_values = concrete_outputs(self.fn, self.param_types, inputs)
            if not by_values:  # shapes that depend on values are computed every time
                self._dynamic[key] = found
        return found

    def __call__(self, args: tuple[OpInput, ...], attrs: Attrs | None) -> object:
        fast = self._fast
        if fast is not None and len(args) == len(self._expected):
            for a, (shape, dtype) in zip(args, self._expected, strict=False):
                if (
                    type(a) is not np.ndarray
                    or a.shape != shape
                    or (a.dtype is not dtype and a.dtype != dtype)
                    or not a.flags.c_contiguous
                ):
                    break
            else:
                if self._single:
                    out = np.empty(self._outs[0][0], self._outs[0][1])
                    fast(args, (out,))  # type: ignore[arg-type]
                    return out
                outputs = [np.empty(shape, dtype) for shape, dtype in self._outs]
                fast(args, outputs)  # type: ignore[arg-type]
                return _build(self.ret_type, outputs)
        inputs = self.flatten(args)
        if self.static_inputs is not None and (
            [a.shape for a in inputs] != self._shapes or [a.dtype for a in inputs] != self._dtypes
        ):
            # Compiled code trusts its buffers' shapes: a misfit (a bug upstream, since the
            # types guarantee them) must stop here, not write out of bounds.
            found = [(a.shape, a.dtype.name) for a in inputs]
            raise Stuck(f"kernel {self.name} was given arrays {found} for buffers "
                        f"{self.static_inputs}", self.fn.span, rule="E-Call-Op")  # fmt: skip
        outputs = [np.empty(shape, dtype) for shape, dtype in self.output_shapes(inputs)]
        self.compiled(inputs, outputs)
        return _build(self.ret_type, outputs)


def concrete_outputs(
    fn: Function, param_types: Sequence[Type], inputs: Sequence[Array]
) -> tuple[list[tuple[Shape, str]], bool]:
    """The output shapes of ``fn`` applied to these arrays: the body's types computed
    bottom-up from the concrete input types by the operators' relations (the shape functions);
    where a relation can only say ``?`` (an output shape that depends on values, as
    ``arange``'s), the operator's ``shape_func`` on the values of its arguments, which must be
    parameters or constants. Iterative over the body (``post_order``). Also says whether a
    shape came from values (then it holds for these inputs only, not for their shapes)."""
    from ...semantics.ops import OPS
    from ...semantics.syntax import post_order

    it = iter(inputs)
    types: dict[Expr, Type] = {}
    values: dict[Expr, Array] = {}

    def concrete(t: Type) -> Type:
        if isinstance(t, TupleType):
            return TupleType(tuple(concrete(f) for f in t.fields))
        a = next(it)
        return TensorType(tuple(int(d) for d in a.shape), a.dtype.name)

    for p, t in zip(fn.params, param_types, strict=True):
        types[p] = concrete(t)
    flat = list(inputs)
    for p in fn.params:
        if isinstance(types[p], TensorType):
            values[p] = flat.pop(0)
        else:
            fields = types[p]
            assert isinstance(fields, TupleType)
            del flat[: len(fields.fields)]
    bound = {e.var: e.value for e in post_order(fn.body) if isinstance(e, Let)}
    by_values = False
    for e in post_order(fn.body):
        match e:
            case Var():
                if e not in types:  # a let's variable: its value came first in post-order
                    value = bound[e]
                    types[e] = types[value]
                    if value in values:
                        values[e] = values[value]
            case Constant(data):
                types[e] = TensorType(tuple(data.shape), data.dtype.name)
                values[e] = data
            case Tuple(items):
                types[e] = TupleType(tuple(types[f] for f in items))
            case TupleGetItem(tup, index):
                tt = types[tup]
                assert isinstance(tt, TupleType)
                types[e] = tt.fields[index]
            case Let(_, _, body):
                types[e] = types[body]
            case Call(Op(name), args) if name in OPS:
                opdef = OPS[name]
                assert opdef.relation is not None
                t = opdef.relation(tuple(types[a] for a in args), e.attrs)
                known = flat_tensor_types(t) or []
                if any(static_shape(u) is None for u in known):
                    t = _by_shape_function(name, e, args, t, values, fn)
                    by_values = True
                types[e] = t
            case Op():
                pass  # a callee
            case _:
                raise RelayRuntimeError(f"a kernel's body holds {type(e).__name__}", fn.span)
    out: list[tuple[Shape, str]] = []
    for t in flat_tensor_types(types[fn.body]) or []:
        shape = static_shape(t)
        if shape is None:
            raise RelayRuntimeError(f"a kernel's output shape is not known from its input "
                                    f"shapes: {t}", fn.span)  # fmt: skip
        out.append((shape, t.dtype))
    return out, by_values


def _by_shape_function(
    name: str, e: Call, args: Sequence[Expr], t: Type, values: Mapping[Expr, Array],
    fn: Function,
) -> Type:  # fmt: skip
    """``t`` with the shape ``OPS[name].shape_func`` computes from the arguments' values."""
    from ...semantics.ops import OPS

    shape_func = OPS[name].shape_func
    if shape_func is None or not all(a in values for a in args):
        raise RelayRuntimeError(f"{name}: its output shape depends on values the host does not "
                                "have (computed inside the kernel)", e.span or fn.span)  # fmt: skip
    shape = shape_func(tuple(values[a] for a in args), e.attrs)
    if isinstance(t, TensorType):
        return TensorType(_ints(shape), t.dtype)
    assert isinstance(t, TupleType)
    shapes = cast(tuple[tuple[int, ...], ...], shape)
    fields = [f for f in t.fields if isinstance(f, TensorType)]
    return TupleType(tuple(TensorType(_ints(s), f.dtype)
                           for s, f in zip(shapes, fields, strict=True)))  # fmt: skip


def _ints(shape: object) -> tuple[int, ...]:
    assert isinstance(shape, tuple)
    return tuple(int(d) for d in shape)


HOST_OPS = frozenset({"shape_of", "ndarray_size", "vm.shape_of", "vm.reshape_tensor"})
"""Operators the host runtime can compute, for a backend that does not compile them: metadata
(a shape, an element count) or a reshape to a shape computed at run time; no arithmetic on
tensor elements."""


def backend_host_ops(backend: object) -> frozenset[str]:
    """The host operators ``backend`` leaves to the host: its ``host_ops`` if it says, else
    all of ``HOST_OPS``."""
    ops = getattr(backend, "host_ops", HOST_OPS)
    assert isinstance(ops, frozenset)
    return ops & HOST_OPS


@dataclass(eq=False, repr=False)
class HostCall:
    """A primitive function that is one call of a host operator on its parameters and
    constants: the operator's own definition (``OPS[op].reference``), which reads only shapes
    (or, for ``vm.reshape_tensor``, copies the data into the shape its second argument gives).
    ``sources`` gives each argument: a parameter's position, or a constant's array."""

    name: str
    op: str
    attrs: Attrs | None
    sources: tuple[int | Array, ...]

    @property
    def __name__(self) -> str:
        return self.name

    def __call__(self, args: tuple[OpInput, ...], attrs: Attrs | None) -> object:
        from ...semantics.ops import OPS

        reference = OPS[self.op].reference
        assert reference is not None
        operands = tuple(args[s] if isinstance(s, int) else s for s in self.sources)
        return reference(operands, self.attrs)


def fence_host_ops(mod: IRModule, host_ops: frozenset[str] = HOST_OPS) -> IRModule:
    """``mod`` with every host-operator call, and each of its non-atomic arguments, wrapped in
    ``annotation.stop_fusion``, so that FuseOps gives each host call a primitive function of
    its own (``HostCall``) instead of fusing it into a kernel that cannot compute it. (FuseOps
    removes the annotations.) A module without host operators is returned as it is."""
    if not any(isinstance(e, Call) and isinstance(e.op, Op) and e.op.name in host_ops
               for fn in mod.functions.values() for e in _walk_outside_primitives(fn)):  # fmt: skip
        return mod
    stop = Op("annotation.stop_fusion")

    def fence(e: Expr) -> Expr:
        return e if isinstance(e, Var | Constant) else Call(stop, (e,), span=e.span)

    def visit(e: Expr) -> Expr | None:
        if isinstance(e, Call) and isinstance(e.op, Op) and e.op.name in host_ops:
            inner = Call(e.op, tuple(fence(a) for a in e.args), e.attrs, e.type_args,
                         span=e.span)  # fmt: skip
            return Call(stop, (inner,), span=e.span)
        return None

    return rewrite_module(mod, visit)


def host_call(fn: Function, name: str, host_ops: frozenset[str] = HOST_OPS) -> HostCall | None:
    """The ``HostCall`` of ``fn`` if its body is one call of a host operator on parameters
    and constants."""
    body = fn.body
    if not (isinstance(body, Call) and isinstance(body.op, Op) and body.op.name in host_ops):
        return None
    sources: list[int | Array] = []
    for a in body.args:
        if isinstance(a, Var) and a in fn.params:
            sources.append(fn.params.index(a))
        elif isinstance(a, Constant):
            sources.append(a.data)
        else:
            return None
    return HostCall(name, body.op.name, body.attrs, tuple(sources))


# ---------------------------------------------------------------------------------------------
# Finding and naming the primitive functions


def _walk_outside_primitives(root: Expr) -> list[Expr]:
    """Every distinct node of ``root``, not entering the bodies of primitive functions
    (an explicit stack: programs are deep)."""
    seen: set[Expr] = set()
    out: list[Expr] = []
    stack = [root]
    while stack:
        e = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        out.append(e)
        if isinstance(e, Function) and is_primitive(e):
            continue
        stack.extend(children(e))
    return out


def _op_names(fn: Function) -> list[str]:
    names: list[str] = []
    seen: set[Expr] = set()
    stack: list[Expr] = [fn.body]
    while stack:
        e = stack.pop()
        if e in seen:
            continue
        seen.add(e)
        if isinstance(e, Call) and isinstance(e.op, Op):
            names.append(e.op.name)
        stack.extend(children(e))
    names.reverse()
    return names


def only_placements(fn: Function) -> bool:
    """Whether every operator ``fn`` calls is a placement (``on_device``, ``device_copy``):
    the identity on any value, so the machine runs ``fn`` itself (no kernel computes)."""
    return all(name in PLACEMENTS for name in _op_names(fn))


def kernel_name(fn: Function, taken: set[str]) -> str:
    """``fused_<op>_<op>..`` (TVM's naming, dots as underscores), unique among ``taken``."""
    ops = _op_names(fn)
    parts = "_".join(dict.fromkeys(ops)) if ops else "copy"
    base = "fused_" + re.sub(r"[^A-Za-z0-9_]", "_", parts)[:80]
    name, n = base, 1
    while name in taken:
        name, n = f"{base}_{n}", n + 1
    taken.add(name)
    return name


# ---------------------------------------------------------------------------------------------
# Memory planning of dataflow regions

Ref: TypeAlias = "int | tuple[Ref, ...]"
"""A value of a plan: a slot holding a tensor, or a tuple of values."""


@dataclass(frozen=True, slots=True)
class PlanStep:
    """One kernel call of a plan: the input slots (flattened), the output slots."""

    kernel: PrimitiveCall
    inputs: tuple[int, ...]
    outputs: tuple[int, ...]


@dataclass(eq=False, repr=False)
class DataflowPlan:
    """A dataflow global as straight-line kernel calls over slots (see the module docstring).

    Slots ``0 .. len(params)-1`` hold the flattened arguments; ``constants`` preloads others;
    ``buffer_of[slot]`` is the arena buffer of an intermediate (``-1``: a fresh array, for the
    slots the result holds). ``buffer_sizes`` are the arena's buffers, in bytes.
    """

    param_types: tuple[Type, ...]
    slots: int
    constants: dict[int, Array]
    steps: list[PlanStep]
    shapes: dict[int, tuple[Shape, str]]
    result: Ref
    buffer_of: dict[int, int]
    buffer_sizes: list[int]
    _views: list[list[Array]] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def intermediates(self) -> int:
        """How many intermediate tensors the plan's buffers hold."""
        return sum(1 for b in self.buffer_of.values() if b >= 0)

    def _arena_views(self) -> list[list[Array]]:
        if self._views is None:
            arena = [np.empty(max(n, 1), np.uint8) for n in self.buffer_sizes]
            views: list[list[Array]] = []
            for step in self.steps:
                row: list[Array] = []
                for slot in step.outputs:
                    shape, dtype = self.shapes[slot]
                    b = self.buffer_of[slot]
                    if b < 0:
                        row.append(np.empty(0, np.uint8))  # replaced by a fresh array per run
                        continue
                    nbytes = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
                    row.append(arena[b][:nbytes].view(dtype).reshape(shape))  # offset 0: aligned
                views.append(row)
            self._views = views
        return self._views

    def run(self, args: Sequence[Value]) -> Value:
        """Run the plan on ``args`` (already checked against the parameter types)."""
        flat = [arr for a in args for arr in _flat_arrays(a)]
        return _value_of(self.result, self.run_flat(flat))

    def run_flat(self, flat: Sequence[Array]) -> list[Array | None]:
        """Run the plan on the flattened arguments; every slot's array."""
        values: list[Array | None] = [None] * self.slots
        for i, arr in enumerate(flat):
            values[i] = arr if arr.flags.c_contiguous else arr.copy(order="C")
        for slot, arr in self.constants.items():
            values[slot] = arr
        with self._lock:
            views = self._arena_views()
            for step, row in zip(self.steps, views, strict=True):
                outputs: list[Array] = []
                for slot, view in zip(step.outputs, row, strict=True):
                    if self.buffer_of[slot] < 0:
                        shape, dtype = self.shapes[slot]
                        view = np.empty(shape, dtype)
                    values[slot] = view
                    outputs.append(view)
                inputs = [values[s] for s in step.inputs]
                step.kernel.compiled(inputs, outputs)  # type: ignore[arg-type]
        return values


@dataclass(eq=False, repr=False)
class PlanCall:
    """A planned global as the machine calls it (the hook's kernel for the global's function,
    so that calls of it from code the machine runs use the plan too)."""

    name: str
    plan: DataflowPlan

    @property
    def __name__(self) -> str:
        return self.name

    def __call__(self, args: tuple[OpInput, ...], attrs: Attrs | None) -> object:
        flat = [a for arg in args for a in (arg if isinstance(arg, tuple) else (arg,))]
        expected = [self.plan.shapes[i] for i in range(len(flat))]
        if [(a.shape, a.dtype.name) for a in flat] != expected:  # as PrimitiveCall checks
            raise Stuck(f"{self.name} was given arrays "
                        f"{[(a.shape, a.dtype.name) for a in flat]} for {expected}", None,
                        rule="E-Call-Closure")  # fmt: skip
        values = self.plan.run_flat(flat)

        def arrays(ref: Ref) -> object:
            if isinstance(ref, int):
                return values[ref]
            return tuple(arrays(r) for r in ref)

        return arrays(self.plan.result)


def _flat_arrays(v: Value) -> list[Array]:
    if isinstance(v, TensorValue):
        return [v.data]
    if isinstance(v, TupleValue):
        return [a for f in v.fields for a in _flat_arrays(f)]
    raise Stuck("a dataflow region was given a value that is not a tensor or tuple", None,
                rule="E-Call-Closure")  # fmt: skip


def _value_of(ref: Ref, values: Sequence[Array | None]) -> Value:
    if isinstance(ref, int):
        arr = values[ref]
        assert arr is not None
        return TensorValue(arr)
    return TupleValue(tuple(_value_of(r, values) for r in ref))


def plan_dataflow(fn: Function, kernels: Mapping[Function, PrimitiveCall]) -> DataflowPlan | None:
    """The ``DataflowPlan`` of ``fn``, or ``None`` if its body is not a dataflow region of
    static shapes (then the machine runs it)."""
    refs: dict[Expr, Ref] = {}
    shapes: dict[int, tuple[Shape, str]] = {}
    constants: dict[int, Array] = {}
    steps: list[PlanStep] = []
    let_kernels: dict[Var, PrimitiveCall] = {}
    count = 0

    def new_slot(shape: Shape, dtype: str) -> int:
        nonlocal count
        shapes[count] = (shape, dtype)
        count += 1
        return count - 1

    def param_ref(t: Type) -> Ref | None:
        if isinstance(t, TupleType):
            fields = [param_ref(f) for f in t.fields]
            return None if None in fields else tuple(f for f in fields if f is not None)
        if not isinstance(t, TensorType) or (shape := static_shape(t)) is None:
            return None
        return new_slot(shape, t.dtype)

    param_types: list[Type] = []
    for p in fn.params:
        if p.type_annotation is None:
            return None
        ref = param_ref(p.type_annotation)
        if ref is None:
            return None
        refs[p] = ref
        param_types.append(p.type_annotation)

    # Post-order in evaluation order, not entering primitive functions. Phases: 0 expand a
    # node, 1 finish it, 2 bind a let's variable (between its value and its body).
    stack: list[tuple[Expr, int]] = [(fn.body, 0)]
    while stack:
        e, phase = stack.pop()
        if e in refs:
            continue
        if phase == 2:
            assert isinstance(e, Let)
            refs[e.var] = refs[e.value]
            continue
        if phase == 0:
            match e:
                case Let(var, value, body) if isinstance(value, Function):
                    kernel = kernels.get(value)
                    if kernel is None:
                        return None
                    let_kernels[var] = kernel
                    stack.extend([(e, 1), (body, 0)])
                case Let(_, value, body):
                    stack.extend([(e, 1), (body, 0), (e, 2), (value, 0)])
                case Call(_, args) | Tuple(args):
                    stack.append((e, 1))
                    stack.extend((a, 0) for a in reversed(args))
                case TupleGetItem(tup, _):
                    stack.extend([(e, 1), (tup, 0)])
                case _:
                    stack.append((e, 1))
            continue
        match e:
            case Let(_, _, body):
                refs[e] = refs[body]
            case Constant(data):
                slot = new_slot(tuple(data.shape), data.dtype.name)
                constants[slot] = data if data.flags.c_contiguous else data.copy(order="C")
                refs[e] = slot
            case Tuple(fields):
                refs[e] = tuple(refs[f] for f in fields)
            case TupleGetItem(tup, index):
                ref = refs[tup]
                if isinstance(ref, int):
                    return None
                refs[e] = ref[index]
            case Call(callee, args):
                kernel = (let_kernels.get(callee) if isinstance(callee, Var)
                          else kernels.get(callee) if isinstance(callee, Function)
                          else None)  # fmt: skip
                if kernel is None or kernel.static_outputs is None:
                    return None
                inputs: list[int] = []
                for a in args:
                    inputs.extend(_slots(refs[a]))
                outs = tuple(new_slot(s, d) for s, d in kernel.static_outputs)
                steps.append(PlanStep(kernel, tuple(inputs), outs))
                refs[e] = _build_ref(kernel.ret_type, outs)
            case _:
                return None  # control flow, closures, references, ADTs: the machine runs it
    result = refs[fn.body]
    escaping = set(_slots(result))
    buffer_of, sizes = _assign_buffers(steps, shapes, escaping)
    return DataflowPlan(tuple(param_types), count, constants, steps, shapes, result, buffer_of,
                        sizes)  # fmt: skip


def _slots(ref: Ref) -> list[int]:
    if isinstance(ref, int):
        return [ref]
    return [s for r in ref for s in _slots(r)]


def _build_ref(t: Type, outs: Sequence[int]) -> Ref:
    it = iter(outs)

    def one(u: Type) -> Ref:
        if isinstance(u, TupleType):
            return tuple(one(f) for f in u.fields)
        return next(it)

    return one(t)


def _assign_buffers(
    steps: Sequence[PlanStep], shapes: Mapping[int, tuple[Shape, str]], escaping: set[int]
) -> tuple[dict[int, int], list[int]]:
    """Each kernel output's arena buffer (``-1`` for the result's), by a best-fit free-list:
    a buffer is free after the step of its value's last use; a later output takes the smallest
    free buffer that holds it, else the largest free one, grown to fit, else a new one.
    Buffers are bytes, viewed as each value's dtype and shape, so dtypes may share them."""
    last_use: dict[int, int] = {}
    for i, step in enumerate(steps):
        for s in step.inputs:
            last_use[s] = i
    buffer_of: dict[int, int] = {}
    sizes: list[int] = []
    free: list[int] = []
    for i, step in enumerate(steps):
        for s in step.outputs:
            if s in escaping:
                buffer_of[s] = -1
                continue
            shape, dtype = shapes[s]
            need = int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
            fits = [b for b in free if sizes[b] >= need]
            if fits:
                b = min(fits, key=lambda b: sizes[b])
            elif free:
                b = max(free, key=lambda b: sizes[b])
                sizes[b] = need
            else:
                b = len(sizes)
                sizes.append(need)
            if b in free:
                free.remove(b)
            buffer_of[s] = b
        dead = [s for s in step.inputs if last_use.get(s) == i]
        dead += [s for s in step.outputs if s not in last_use]
        for s in dict.fromkeys(dead):
            b = buffer_of.get(s, -1)
            if b >= 0:
                free.append(b)
    return buffer_of, sizes


# ---------------------------------------------------------------------------------------------
# The executable


@dataclass(eq=False, repr=False)
class CpuExecutable(Executable):
    """A module compiled by the CPU target (see the module docstring)."""

    source: IRModule
    optimized: IRModule
    kernels: dict[str, PrimitiveCall]
    program: Program
    plans: dict[str, DataflowPlan]

    def evaluate(
        self, args: Sequence[Value], *, entry: str = "main", fuel: int | None = None
    ) -> Result:
        """Apply ``@entry`` to ``args`` (see ``Executable.evaluate``); a planned dataflow
        global runs its plan (which always terminates: ``fuel`` does not apply), anything else
        runs in the machine."""
        if entry not in self.program.globals:
            raise RelayRuntimeError(f"the module has no function @{entry}")
        code = self.program.globals[entry]
        if len(args) != len(code.fn.params):
            raise Stuck(f"a function of {len(code.fn.params)} parameters called with "
                        f"{len(args)} arguments", code.fn.span, rule="E-Call-Closure")  # fmt: skip
        check_arguments(code.fn, args)
        plan = self.plans.get(entry)
        if plan is not None:
            return Result(plan.run(args), {}, None, Counter())
        value, store = run(
            self.program,
            code.code,
            [*args, *code.rest],
            fuel=UNLIMITED_FUEL if fuel is None else fuel,
            max_allocation_bytes=DEFAULT_MAX_ALLOCATION_BYTES,
            max_depth=DEFAULT_MAX_DEPTH,
        )
        return Result(value, store, None, Counter())

    def artifacts(self) -> dict[str, dict[str, str | bytes]]:
        """Each kernel's artifacts, by kernel name."""
        return {name: k.compiled.artifacts() for name, k in self.kernels.items()}


def check_arguments(fn: Function, args: Sequence[Value]) -> None:
    """A last guard before compiled code reads the arguments: each tensor (in tuples too) has
    its parameter's dtype and static dimensions. The API and command line check arguments
    with the type checker first (``relay.api.check_call``) and report misfits there."""
    for i, (p, a) in enumerate(zip(fn.params, args, strict=True), start=1):
        t = p.type_annotation
        stack: list[tuple[Type | None, Value]] = [(t, a)]
        while stack:
            u, v = stack.pop()
            if isinstance(u, TupleType) and isinstance(v, TupleValue):
                if len(u.fields) != len(v.fields):
                    raise TypeError(f"argument {i} does not fit %{p.name_hint}: a tuple of "
                                    f"{len(v.fields)} fields for {len(u.fields)}")  # fmt: skip
                stack.extend(zip(u.fields, v.fields, strict=True))
            elif isinstance(u, TensorType) and isinstance(v, TensorValue):
                shape = v.data.shape
                ok = v.data.dtype.name == u.dtype and len(shape) == len(u.shape)
                ok = ok and all(not isinstance(d, int) or d == n
                                for d, n in zip(u.shape, shape, strict=False))  # fmt: skip
                if not ok:
                    raise TypeError(f"argument {i} does not fit %{p.name_hint}: "
                                    f"{v.data.dtype.name} array of shape {shape}")  # fmt: skip


def compile_module(mod: IRModule, backend: KernelBackend, *, target: str = "cpu",
                   opt_level: int = 3) -> CpuExecutable:  # fmt: skip
    """``mod`` optimised, its primitive functions compiled by ``backend``, the rest compiled
    for the machine (see the module docstring)."""
    host_ops = backend_host_ops(backend)
    outer = PassContext.current()
    # Every global stays (any may be an entry point); the caller's context may disable more.
    disabled = outer.disabled | {"remove-unused-functions"}
    with PassContext(opt_level, disabled, outer.required, outer.instruments):
        optimized = pipeline(opt_level)(fence_host_ops(mod, host_ops))
    info = infer_types(optimized)
    kernels_by_fn: dict[Function, PrimitiveCall] = {}
    host: dict[Function, HostCall] = {}
    taken: set[str] = set()
    for fn in optimized.functions.values():
        for e in reversed(_walk_outside_primitives(fn)):
            if isinstance(e, Call) and isinstance(e.op, Op) and e.op.name not in PLACEMENTS:
                raise unsupported(target, e.op.name, "a call outside a fused primitive "
                                  "function", e.span)  # fmt: skip
            if not isinstance(e, Function) or not is_primitive(e) or e in kernels_by_fn:
                continue
            if only_placements(e) or e in host:
                continue
            found = host_call(e, "", host_ops)
            if found is not None:
                found.name = "host_" + kernel_name(e, taken).removeprefix("fused_")
                host[e] = found
            else:
                kernels_by_fn[e] = _primitive_call(e, info.expr_types.get(e), backend,
                                                   kernel_name(e, taken), target)  # fmt: skip
    kernels = {k.name: k for k in kernels_by_fn.values()}

    plans: dict[str, DataflowPlan] = {}
    planned: dict[Function, PlanCall] = {}
    for gv, fn in optimized.functions.items():
        plan = plan_dataflow(fn, kernels_by_fn)
        if plan is not None:
            plans[gv.name] = plan
            # The machine passes a tuple argument as a flat tuple of arrays: no nesting.
            if all(_flat_tuple_or_tensor(t) for t in plan.param_types):
                planned[fn] = PlanCall(f"plan_{gv.name}", plan)

    def hook(fn: Function) -> Callable[[tuple[OpInput, ...], Attrs | None], object] | None:
        return kernels_by_fn.get(fn) or host.get(fn) or planned.get(fn)

    program = compile_program(optimized, primitive_kernel=hook)  # type: ignore[arg-type]
    return CpuExecutable(mod, optimized, kernels, program, plans)


def _flat_tuple_or_tensor(t: Type) -> bool:
    if isinstance(t, TupleType):
        return all(isinstance(f, TensorType) for f in t.fields)
    return isinstance(t, TensorType)


def _primitive_call(
    fn: Function, fn_type: Type | None, backend: KernelBackend, name: str, target: str
) -> PrimitiveCall:
    from ...semantics.syntax import FuncType

    param_types: list[Type] = []
    for p in fn.params:
        t = p.type_annotation
        if t is None and isinstance(fn_type, FuncType):
            t = fn_type.arg_types[len(param_types)]
        if t is None or flat_tensor_types(t) is None:
            raise unsupported(target, "primitive functions over values other than tensors "
                              "and tuples of tensors", "", fn.span)  # fmt: skip
        if isinstance(t, TupleType) and not all(isinstance(f, TensorType) for f in t.fields):
            raise unsupported(target, "nested tuple parameters of a primitive function", "",
                              fn.span)  # fmt: skip
        param_types.append(t)
    ret = fn.ret_type
    if ret is None and isinstance(fn_type, FuncType):
        ret = fn_type.ret_type
    out_types = None if ret is None else flat_tensor_types(ret)
    if ret is None or out_types is None:
        raise unsupported(target, "primitive functions whose result is not tensors", "",
                          fn.span)  # fmt: skip
    shapes = [static_shape(t) for t in out_types]
    static_in = all(static_shape(t) is not None for pt in param_types
                    for t in flat_tensor_types(pt) or [])  # fmt: skip
    static = None
    if static_in and all(s is not None for s in shapes):
        static = [(s, t.dtype) for s, t in zip(shapes, out_types, strict=True) if s is not None]
    inputs = None
    if static_in:
        flat = [t for pt in param_types for t in flat_tensor_types(pt) or []]
        inputs = [(shape, t.dtype) for t in flat if (shape := static_shape(t)) is not None]
    compiled = backend.compile_primitive(fn, name)
    return PrimitiveCall(name, fn, tuple(param_types), ret, compiled, out_types, static, inputs)


__all__ = [
    "HOST_OPS",
    "CompiledPrimitive",
    "CpuExecutable",
    "DataflowPlan",
    "HostCall",
    "KernelBackend",
    "PlanCall",
    "PlanStep",
    "PrimitiveCall",
    "backend_host_ops",
    "check_arguments",
    "compile_module",
    "concrete_outputs",
    "fence_host_ops",
    "host_call",
    "kernel_name",
    "plan_dataflow",
]
