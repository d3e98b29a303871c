"""The NVPTX code generator on the kernels the lowerings make: for operators of every family,
generated calls are lowered with ``lower_primitive`` (matrix products with the ``"gpu"``
strategy) and scheduled by ``compiler.lower.gpu.schedule_for_gpu``, as the GPU targets do,
then compiled to PTX (sm_90 by default, sm_80 too under ``-m slow``) and assembled by
``ptxas -arch=sm_90`` (skipped with a message where ptxas is missing). A sample of families
runs by default; every lowered operator under ``-m slow``. Running the code is the ``gpu``/
``gpu-sim`` targets' business.
"""

from __future__ import annotations

import numpy as np
import pytest
from gpu_helpers import assemble, requires_ptxas, run_on_host
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from lower_helpers import _concrete, _draw, _flat

import relay
import relay.compiler.lower.ops
from relay.compiler.lower import ir, te
from relay.compiler.lower.check import check_kernel
from relay.compiler.lower.evaluate import run_kernel
from relay.compiler.lower.gpu import schedule_for_gpu
from relay.compiler.lower.lower import lower_primitive, size_bindings
from relay.compiler.lower.schedules import gemm_strategy
from relay.oracles.compare import compare_arrays
from relay.oracles.samplers import SAMPLERS
from relay.semantics.errors import RelayError
from relay.semantics.ops import OPS
from relay.semantics.syntax import Call, Function, Op, Var
from relay.targets.gpu import codegen
from relay.targets.gpu.codegen import generate

LOWERED = sorted(n for n in te.LOWERINGS if n in OPS)
FAMILIES = sorted({OPS[n].family for n in LOWERED})
SAMPLE = sorted({next(n for n in LOWERED if OPS[n].family == f) for f in FAMILIES} | {
    "exp", "tanh", "erf", "floor_mod", "nn.softmax", "nn.conv2d", "nn.dense", "sum",
} & set(LOWERED))  # fmt: skip
"""The default run's operators: the first of each family, and the ones whose kernels hold the
transcendental functions, float remainders, reductions and matrix products."""


@pytest.fixture(autouse=True, scope="module")
def _compile_in_process() -> None:
    mp = pytest.MonkeyPatch()
    mp.setenv("RELAY_CPU_COMPILE_IN_PROCESS", "1")  # the host runs: no crash-guard fork
    yield  # type: ignore[misc]
    mp.undo()


def _check_op(op: str, data: st.DataObject, archs: tuple[str, ...], both: bool) -> None:
    """A drawn call of ``op`` lowered and scheduled for the GPU (with ``both``, also left
    unscheduled: one thread runs it), compiled for ``archs`` and assembled by ptxas for
    sm_90."""
    sample = data.draw(SAMPLERS[op]())
    params = tuple(Var(f"p{k}", t) for k, t in enumerate(sample.arg_types))
    fn = Function(params, Call(Op(op), params, sample.attrs))
    try:
        with gemm_strategy("gpu"):
            kernel = lower_primitive(fn, op.replace(".", "_"))
    except (RelayError, te.LoweringError):
        return
    scheduled = schedule_for_gpu(kernel)
    check_kernel(scheduled)
    for bound in (scheduled, kernel) if both else (scheduled,):
        module = generate(bound, archs)
        assert set(module.ptx) == set(archs)
        assert module.launches
        usage = assemble(module.ptx["sm_90"], "sm_90")
        assert {u.function for u in usage} == {launch.symbol for launch in module.launches}


_SETTINGS = settings(
    max_examples=1,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)


@requires_ptxas
@pytest.mark.parametrize("op", SAMPLE)
@_SETTINGS
@given(data=st.data())
def test_sampled_lowered_kernels_pass_ptxas(op: str, data: st.DataObject) -> None:
    _check_op(op, data, ("sm_90",), both=False)


@pytest.mark.slow
@requires_ptxas
@pytest.mark.parametrize("op", LOWERED)
@settings(_SETTINGS, max_examples=4)
@given(data=st.data())
def test_every_lowered_kernel_passes_ptxas(op: str, data: st.DataObject) -> None:
    _check_op(op, data, ("sm_80", "sm_90"), both=True)


def test_sample_covers_every_family() -> None:
    assert {OPS[n].family for n in SAMPLE} == set(FAMILIES)
    assert ir.LoopKind.THREAD  # the loop IR has thread binding (the tests rely on it)


RUN_SAMPLE = ["add", "exp", "floor_mod", "take", "concatenate", "argmax", "nn.softmax",
              "nn.dense"]  # fmt: skip
"""Operators whose scheduled kernels the default run executes on the host."""


def _run_op(op: str, data: st.DataObject) -> None:
    """A drawn call of ``op``, lowered and scheduled; the NVPTX IR made for it is run on the
    host, one OS thread per GPU thread (``gpu_helpers.run_on_host``), and must agree with the
    loop IR's reference interpreter under the tolerance policy."""
    sample = data.draw(SAMPLERS[op]())
    params = tuple(Var(f"p{k}", t) for k, t in enumerate(sample.arg_types))
    fn = Function(params, Call(Op(op), params, sample.attrs))
    try:
        with gemm_strategy("gpu"):
            kernel = lower_primitive(fn, op.replace(".", "_"))
    except (RelayError, te.LoweringError):
        return
    scheduled = schedule_for_gpu(kernel)
    if any(isinstance(s, ir.Barrier) for s in ir.walk_stmt(scheduled.body)):
        event("with barriers")
    args = [_draw(data, _concrete(t)) for t in sample.arg_types]
    inputs = [np.array(a, order="C") for v in args for a in _flat(v)]
    inputs += list(kernel.attrs.get("constants", ()))  # type: ignore[call-overload]
    reference = OPS[op].reference
    assert reference is not None
    try:
        with np.errstate(all="ignore"):  # the reference gives the output shapes (arange ...)
            shapes = [a.shape for a in _flat(reference(tuple(args), sample.attrs))]  # type: ignore[arg-type]
            sizes = size_bindings(kernel, [a.shape for a in inputs], shapes)
            expected = run_kernel(kernel, inputs, sizes)
    except RelayError:
        return
    outputs = [np.zeros(e.shape, e.dtype) for e in expected]
    run_on_host(codegen.generate(scheduled, ("sm_90",)), [*inputs, *outputs], dict(sizes))
    event("compared")
    for k, (actual, want) in enumerate(zip(outputs, expected, strict=True)):
        mismatch = compare_arrays(want, actual)
        assert mismatch is None, f"{op} output {k}: {mismatch}\nargs={args}"


@pytest.mark.parametrize("op", [o for o in RUN_SAMPLE if o in LOWERED])
@_SETTINGS
@given(data=st.data())
def test_scheduled_kernels_run_on_the_host_as_the_reference(op: str, data: st.DataObject) -> None:
    _run_op(op, data)


@pytest.mark.slow
@pytest.mark.parametrize("op", LOWERED)
@settings(_SETTINGS, max_examples=4)
@given(data=st.data())
def test_every_scheduled_kernel_runs_on_the_host_as_the_reference(
    op: str, data: st.DataObject
) -> None:
    _run_op(op, data)


CASES = {
    "exp_tanh": ("(3, 1000)", "tanh(exp(%x))"),
    "exp_tanh_any": ("(5, ?)", "tanh(exp(%x))"),
    # two blocks of 256 OS threads (gpu_helpers.run_on_host), each folding a strided slice
    "sum": ("(2, 1000)", "sum(%x, axis=[1])"),
    "softmax": ("(2, 300)", "nn.softmax(%x, axis=-1)"),
}
"""Deterministic kernels: many blocks (a static and a run-time grid), a block tree reduction
in shared memory, a single-block schedule with barriers between its nests."""


@pytest.mark.parametrize("case", sorted(CASES))
def test_scheduled_kernels_of_many_threads_run_on_the_host(case: str) -> None:
    shape, body = CASES[case]
    text = f'#[version = "0.0.5"]\ndef @main(%x: Tensor[{shape}, float32]) {{ {body} }}'
    kernel = lower_primitive(relay.parse(text)["main"], case)
    scheduled = schedule_for_gpu(kernel)
    concrete = tuple(int(d) for d in shape.strip("()").replace("?", "613").split(","))
    data = np.linspace(-3, 3, int(np.prod(concrete)), dtype=np.float32).reshape(concrete)
    (expected,) = run_kernel(kernel, [data])
    sizes = size_bindings(kernel, [data.shape], [expected.shape])
    out = np.zeros_like(expected)
    module = codegen.generate(scheduled, ("sm_90",))
    run_on_host(module, [data, out], dict(sizes))
    length = 1000 if case == "sum" else 300 if case == "softmax" else 1
    assert compare_arrays(expected, out, reduction_length=length) is None
