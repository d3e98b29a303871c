"""The CPU target's host runtime end to end: whole programs compiled and run, against the
interpreter. Kernels come from a stand-in backend that runs each primitive function in the
interpreter (so these tests need neither lowering nor LLVM, and count the kernel calls);
``tests/test_cpu_runtime_llvm.py`` runs the real path."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

import relay
from relay.interpreter import evaluate
from relay.oracles.conformance import run_case
from relay.oracles.corpus import corpus, load_case
from relay.oracles.engines import target_engine
from relay.semantics.errors import BackendError
from relay.semantics.syntax import Function, GlobalVar, IRModule, TupleType
from relay.semantics.values import TensorValue, TupleValue, Value
from relay.targets.base import unsupported
from relay.targets.cpu import CpuTarget
from relay.targets.cpu.runtime import CompiledPrimitive, CpuExecutable

Array = npt.NDArray[np.generic]
CORPUS = Path(__file__).parent / "conformance"


class InterpretedKernel:
    """A primitive function "compiled" into a call of the interpreter on its body."""

    def __init__(self, fn: Function, name: str, calls: list[str]) -> None:
        self.fn = fn
        self.name = name
        self.calls = calls
        self.mod = IRModule({GlobalVar("main"): Function(fn.params, fn.body, fn.ret_type)})

    def __call__(self, inputs: Sequence[Array], outputs: Sequence[Array]) -> None:
        self.calls.append(self.name)
        it = iter(inputs)
        args: list[Value] = []
        for p in self.fn.params:
            if isinstance(p.type_annotation, TupleType):
                fields = p.type_annotation.fields
                args.append(TupleValue(tuple(TensorValue(next(it)) for _ in fields)))
            else:
                args.append(TensorValue(next(it)))
        value = evaluate(self.mod, args).value
        flat = [value] if isinstance(value, TensorValue) else list(_leaves(value))
        assert len(flat) == len(outputs)
        for out, v in zip(outputs, flat, strict=True):
            assert isinstance(v, TensorValue)
            assert out.shape == v.data.shape and out.dtype == v.data.dtype
            out[...] = v.data

    def artifacts(self) -> dict[str, str | bytes]:
        return {"loop-ir": f"kernel {self.name}"}


def _leaves(v: Value) -> list[Value]:
    if isinstance(v, TupleValue):
        return [leaf for f in v.fields for leaf in _leaves(f)]
    return [v]


class InterpretedBackend:
    """The stand-in ``KernelBackend``; ``refuse`` names operators it reports unsupported."""

    def __init__(self, refuse: frozenset[str] = frozenset()) -> None:
        self.calls: list[str] = []
        self.compiled: list[str] = []
        self.refuse = refuse

    def compile_primitive(self, fn: Function, name: str) -> CompiledPrimitive:
        from relay.targets.cpu.runtime import _op_names

        for op in _op_names(fn):
            if op in self.refuse:
                raise unsupported("cpu", op, "refused by the test backend", None)
        self.compiled.append(name)
        return InterpretedKernel(fn, name, self.calls)


def build(text: str, backend: InterpretedBackend, opt_level: int = 3) -> CpuExecutable:
    return CpuTarget(backend=backend).compile(relay.parse(text, "prog.relay"), opt_level)


def f32(*shape: int, seed: int = 0) -> TensorValue:
    return TensorValue(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def same(a: Value, b: Value) -> bool:
    if isinstance(a, TensorValue) and isinstance(b, TensorValue):
        return a.data.shape == b.data.shape and np.allclose(a.data, b.data, rtol=1e-5)
    if isinstance(a, TupleValue) and isinstance(b, TupleValue):
        return len(a.fields) == len(b.fields) and all(map(same, a.fields, b.fields))
    return False


DATAFLOW = """
def @main(%x: Tensor[(4, 8), float32], %w: Tensor[(16, 8), float32],
          %v: Tensor[(4, 16), float32]) {
  %0 = nn.dense(%x, %w, units=16);
  %1 = nn.relu(%0);
  %2 = add(%1, 1f);
  %3 = nn.dense(%2, %v, units=4);
  (%3, tanh(%3))
}
"""


def test_conformance_corpus_runs_on_the_runtime() -> None:
    backend = InterpretedBackend()
    engine = target_engine(CpuTarget(backend=backend))
    failed = []
    for path in corpus(CORPUS):
        outcome = run_case(load_case(path), engine)
        if not outcome.ok:
            failed.append(f"{path.name}: {outcome.message}")
    assert failed == []
    assert len(backend.calls) > 50  # the kernels did the work, not the reference kernels


def test_dataflow_program_is_planned_and_matches_the_interpreter() -> None:
    backend = InterpretedBackend()
    exe = build(DATAFLOW, backend)
    assert "main" in exe.plans
    args = (f32(4, 8), f32(16, 8, seed=1), f32(4, 16, seed=2))
    assert same(exe.run(*args), relay.evaluate(relay.parse(DATAFLOW), *args))
    # dense+relu+add fuse into one kernel; the second dense; tanh.
    assert backend.calls == list(exe.kernels) and len(exe.kernels) == 3
    assert sorted(exe.artifacts()) == sorted(exe.kernels)


def test_plan_reuses_buffers_of_dead_intermediates() -> None:
    chain = "def @main(%x: Tensor[(8, 8), float32]) { exp(tanh(exp(tanh(exp(tanh(%x)))))) }"
    exe = build(chain, InterpretedBackend(), opt_level=0)  # no fusion: six kernels
    plan = exe.plans["main"]
    assert len(plan.steps) == 6
    assert plan.intermediates == 5
    assert len(plan.buffer_sizes) == 2  # each buffer is free again two steps later
    x = f32(8, 8)
    first = exe.run(x)
    second = exe.run(x)
    assert same(first, relay.evaluate(relay.parse(chain), x))
    assert same(first, second)
    assert isinstance(first, TensorValue) and isinstance(second, TensorValue)
    assert first.data is not second.data  # results are fresh arrays, never arena buffers


def test_control_flow_runs_in_the_machine_with_compiled_kernels() -> None:
    text = """
type List[A] { Cons(A, List[A]), Nil }
def @sum(%l: List[Tensor[(3), float32]], %acc: Tensor[(3), float32]) -> Tensor[(3), float32] {
  match (%l) {
    Cons(%h, %t) => @sum(%t, add(%acc, multiply(%h, 2f))),
    Nil => %acc
  }
}
def @main(%x: Tensor[(3), float32]) {
  let %r = ref(%x);
  let %f = fn (%y: Tensor[(3), float32]) { exp(%y) };
  let %l = Cons(%x, Cons(%f(%x), Nil));
  ref_write(%r, @sum(%l, zeros_like(%x)));
  if (less(sum(ref_read(%r)), 0f)) { negative(ref_read(%r)) } else { ref_read(%r) }
}
"""
    backend = InterpretedBackend()
    exe = build(text, backend)
    assert "main" not in exe.plans
    x = f32(3)
    assert same(exe.run(x), relay.evaluate(relay.parse(text), x))
    assert len(backend.calls) >= 4


def test_any_dimension_output_shapes_come_from_the_input_shapes() -> None:
    text = "def @main(%x: Tensor[(?, 3), float32]) { sum(add(%x, %x), axis=[0]) }"
    backend = InterpretedBackend()
    exe = build(text, backend)
    mod = relay.parse(text)
    for rows in (2, 5, 2):
        x = f32(rows, 3, seed=rows)
        assert same(exe.run(x), relay.evaluate(mod, x))
    kernel = next(iter(exe.kernels.values()))
    assert len(kernel._dynamic) == 2  # one type-check per distinct input shape


def test_a_primitive_function_passed_as_a_value_runs_its_kernel() -> None:
    text = """
def @apply(%f: fn (float32) -> float32, %x: float32) -> float32 { %f(%f(%x)) }
def @main(%x: float32) {
  let %g = fn (%p0: float32, Primitive=1) -> float32 { add(%p0, 1f) };
  @apply(%g, %x)
}
"""
    backend = InterpretedBackend()
    exe = build(text, backend)
    out = exe.run(TensorValue(np.array(2, np.float32)))
    assert isinstance(out, TensorValue) and out.data == np.float32(4)
    assert backend.calls.count("fused_add") == 2


def test_an_operator_the_backend_refuses_is_a_located_error() -> None:
    with pytest.raises(BackendError) as info:
        build(DATAFLOW, InterpretedBackend(refuse=frozenset({"tanh"})))
    assert info.value.render().startswith("prog.relay:8:8: error: target cpu does not support tanh")


def test_arguments_of_the_wrong_shape_never_reach_a_kernel() -> None:
    exe = build(DATAFLOW, InterpretedBackend())
    with pytest.raises(TypeError, match="argument 2 does not fit %w"):
        exe.run(f32(4, 8), f32(8, 8), f32(4, 16))


def test_plan_shares_buffers_across_sizes_and_dtypes() -> None:
    text = """
def @main(%x: Tensor[(8, 8), float32]) {
  %0 = exp(%x);
  %1 = sum(%0, axis=[1]);
  %2 = cast(tanh(%1), dtype="float64");
  %3 = exp(%2);
  %4 = tanh(%3);
  %5 = exp(%4);
  multiply(%5, 2f64)
}
"""
    exe = build(text, InterpretedBackend(), opt_level=0)
    plan = exe.plans["main"]
    assert plan.intermediates == 7
    # exp(x) (256 B) dies at sum; the 32 B and 64 B values after it fit in freed buffers.
    assert len(plan.buffer_sizes) == 2 and max(plan.buffer_sizes) == 256
    x = f32(8, 8)
    assert same(exe.run(x), relay.evaluate(relay.parse(text), x))


def test_a_planned_global_called_from_control_flow_runs_its_plan() -> None:
    text = """
def @block(%x: Tensor[(4), float32]) -> Tensor[(4), float32] {
  tanh(exp(negative(%x)))
}
def @main(%x: Tensor[(4), float32], %n: int32) -> Tensor[(4), float32] {
  if (less(%n, 1)) { %x } else { @main(@block(%x), subtract(%n, 1)) }
}
"""
    backend = InterpretedBackend()
    exe = build(text, backend, opt_level=0)
    assert "block" in exe.plans and "main" not in exe.plans
    block = exe.plans["block"]
    calls: list[int] = []
    original = block.run_flat

    def counting(flat: Sequence[Array]) -> list[Array | None]:
        calls.append(1)
        return original(flat)

    block.run_flat = counting  # type: ignore[method-assign]
    x = f32(4)
    args = (x, TensorValue(np.array(3, np.int32)))
    assert same(exe.run(*args), relay.evaluate(relay.parse(text), *args))
    assert len(calls) == 3


def test_a_kernel_refuses_buffers_its_types_do_not_allow() -> None:
    from relay.semantics.errors import Stuck

    exe = build(DATAFLOW, InterpretedBackend())
    kernel = exe.kernels["fused_tanh"]
    ok = kernel((np.zeros((4, 4), np.float32),), None)
    assert isinstance(ok, np.ndarray) and ok.shape == (4, 4)
    for bad in (np.zeros((4, 5), np.float32), np.zeros((4, 4), np.float64)):
        with pytest.raises(Stuck, match="kernel fused_tanh was given arrays"):
            kernel((bad,), None)
