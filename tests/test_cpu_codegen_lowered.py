"""The CPU code generator on the kernels the lowerings make: for every operator with a
lowering (``compiler/lower/ops``), generated calls are lowered with ``lower_primitive``,
compiled with ``compile_kernel`` and run; the outputs must agree with the loop IR's reference
interpreter (``run_kernel``) under the tolerance policy, and with the operator's reference
semantics (``OPS[op].reference``). A sample that is ill-typed, declined by the lowering, or
undefined for the reference is skipped (as in ``lower_helpers``).

This is the code generator's test on real kernels (broadcast index arithmetic, reductions,
inlined chains, size parameters); the lowerings' own correctness is the ``test_lower_*``
files' business.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from lower_helpers import _concrete, _draw, _flat

import relay.compiler.lower.ops  # noqa: F401  (registers the lowerings)
from relay.compiler.lower import te
from relay.compiler.lower.evaluate import run_kernel
from relay.compiler.lower.lower import lower_primitive, size_bindings
from relay.compiler.lower.printer import kernel_text
from relay.oracles.compare import compare_arrays
from relay.oracles.samplers import SAMPLERS
from relay.semantics.errors import RelayError
from relay.semantics.ops import OPS
from relay.semantics.syntax import Call, Function, Op, Var
from relay.targets.cpu.codegen import compile_kernel

LOWERED = sorted(n for n in te.LOWERINGS if n in OPS)


@pytest.fixture(autouse=True, scope="module")
def _cache_dir(tmp_path_factory: pytest.TempPathFactory) -> None:
    mp = pytest.MonkeyPatch()
    mp.setenv("RELAY_CACHE_DIR", str(tmp_path_factory.mktemp("cpu_cache")))
    mp.setenv("RELAY_CPU_COMPILE_IN_PROCESS", "1")  # no crash-guard fork: kept fast
    yield  # type: ignore[misc]
    mp.undo()


def _reduction_length(op: str, inputs: list[np.ndarray], outputs: list[np.ndarray]) -> int:
    """How many terms an output element may combine (a reduction reassociates)."""
    if OPS[op].family != "reduce":
        return 1
    size_in = max((a.size for a in inputs), default=1)
    size_out = max(min((a.size for a in outputs), default=1), 1)
    return max(1, size_in // size_out)


@pytest.mark.parametrize("op", LOWERED)
@settings(
    max_examples=3,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(data=st.data())
def test_compiled_lowering_matches_reference(op: str, data: st.DataObject) -> None:
    sample = data.draw(SAMPLERS[op]())
    params = tuple(Var(f"p{k}", t) for k, t in enumerate(sample.arg_types))
    fn = Function(params, Call(Op(op), params, sample.attrs))
    try:
        kernel = lower_primitive(fn, op.replace(".", "_"))
    except (RelayError, te.LoweringError):
        event("skipped: ill-typed or declined")
        return
    args = [_draw(data, _concrete(t)) for t in sample.arg_types]
    reference = OPS[op].reference
    assert reference is not None
    try:
        with np.errstate(all="ignore"):
            expected = _flat(reference(tuple(args), sample.attrs))  # type: ignore[arg-type]
    except RelayError:
        event("skipped: undefined for the reference")
        return
    inputs = [np.array(a, order="C") for v in args for a in _flat(v)]  # 0-d stays 0-d
    sizes = size_bindings(kernel, [a.shape for a in inputs], [a.shape for a in expected])
    try:
        interpreted = run_kernel(kernel, inputs, sizes)
    except RelayError:
        event("skipped: undefined on an intermediate")
        return  # any result is acceptable
    outputs = [np.zeros(e.shape, e.dtype) for e in expected]
    compile_kernel(kernel)(inputs, outputs, sizes)
    event("compared")
    length = _reduction_length(op, inputs, outputs)
    for k, (actual, ref, spec) in enumerate(zip(outputs, interpreted, expected, strict=True)):
        for what, want in (("run_kernel", ref), ("reference", spec)):
            mismatch = compare_arrays(actual, want, reduction_length=length)
            assert mismatch is None, (
                f"{op} output {k} vs {what}: {mismatch}\nattrs={sample.attrs}\nargs={args}\n"
                f"compiled={actual}\n{what}={want}\n{kernel_text(kernel)}"
            )
