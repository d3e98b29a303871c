"""The NVPTX code generator on the kernels the lowerings make: for operators of every family,
generated calls are lowered with ``lower_primitive`` (matrix products with the ``"gpu"``
strategy) and scheduled by ``compiler.lower.gpu.schedule_for_gpu``, as the GPU targets do,
then compiled to PTX (sm_90 by default, sm_80 too under ``-m slow``) and assembled by
``ptxas -arch=sm_90`` (skipped with a message where ptxas is missing). A sample of families
runs by default; every lowered operator under ``-m slow``. Running the code is the ``gpu``/
``gpu-sim`` targets' business.
"""

from __future__ import annotations

import pytest
from gpu_helpers import assemble, requires_ptxas
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import relay.compiler.lower.ops  # noqa: F401  (registers the lowerings)
from relay.compiler.lower import ir, te
from relay.compiler.lower.check import check_kernel
from relay.compiler.lower.gpu import schedule_for_gpu
from relay.compiler.lower.lower import lower_primitive
from relay.compiler.lower.schedules import gemm_strategy
from relay.oracles.samplers import SAMPLERS
from relay.semantics.errors import RelayError
from relay.semantics.ops import OPS
from relay.semantics.syntax import Call, Function, Op, Var
from relay.targets.gpu.codegen import generate

LOWERED = sorted(n for n in te.LOWERINGS if n in OPS)
FAMILIES = sorted({OPS[n].family for n in LOWERED})
SAMPLE = sorted({next(n for n in LOWERED if OPS[n].family == f) for f in FAMILIES} | {
    "exp", "tanh", "erf", "floor_mod", "nn.softmax", "nn.conv2d", "nn.dense", "sum",
} & set(LOWERED))  # fmt: skip
"""The default run's operators: the first of each family, and the ones whose kernels hold the
transcendental functions, float remainders, reductions and matrix products."""


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
