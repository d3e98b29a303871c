"""The CPU target's kernel cache: a module's second compile is free.

The lowering draws loop-variable and buffer names from a process-wide counter, so the same
function lowered twice gives kernels that differ only in those names; the cache's fingerprint
and the generated LLVM IR leave names out (values are numbered by first appearance), so the
second compile of a module hits the in-memory cache for every kernel, and a compile in another
process hits the disk cache. ResNet-18 (``benchmarks/resnet.py``) is the real-sized case.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import relay
from relay.compiler.lower.lower import lower_primitive
from relay.compiler.lower.printer import kernel_text
from relay.semantics.values import TensorValue
from relay.targets.cpu import CpuTarget, LlvmPrimitive, codegen
from relay.targets.cpu.cache import kernel_fingerprint
from relay.targets.cpu.runtime import CpuExecutable

ROOT = Path(__file__).resolve().parent.parent

CONV = """
def @main(%x: Tensor[(1, 8, 10, 10), float32], %w: Tensor[(16, 8, 3, 3), float32]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=16, kernel_size=[3, 3]);
  %1 = nn.relu(%0);
  nn.max_pool2d(%1, pool_size=[2, 2], strides=[2, 2])
}
"""


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELAY_CACHE_DIR", str(tmp_path / "cache"))
    codegen.clear_memory_cache()


def origins(exe: CpuExecutable) -> dict[str, int]:
    """How many kernels of ``exe`` came from a fresh compile, memory or disk."""
    counts: dict[str, int] = {}
    for call in exe.kernels.values():
        primitive = call.compiled
        assert isinstance(primitive, LlvmPrimitive)
        origin = primitive.compiled.origin
        counts[origin] = counts.get(origin, 0) + 1
    return counts


def test_lowering_twice_gives_the_same_key() -> None:
    mod = relay.parse(CONV)
    fn = mod.functions[mod.get_global_var("main")]
    first, second = lower_primitive(fn, "conv"), lower_primitive(fn, "conv")
    # The names differ (else this test would show nothing) ...
    assert kernel_text(first) != kernel_text(second)
    # ... but neither the fingerprint nor the LLVM IR depends on them.
    assert kernel_fingerprint(first) == kernel_fingerprint(second)
    assert codegen.generate(first).text == codegen.generate(second).text
    a, b = codegen.compile_kernel(first), codegen.compile_kernel(second)
    assert (a.origin, b.origin) == ("compiled", "memory") and a.key == b.key


def test_fingerprint_still_sees_structure() -> None:
    mod = relay.parse(CONV)
    fn = mod.functions[mod.get_global_var("main")]
    other = relay.parse(CONV.replace("nn.relu", "sigmoid"))
    other_fn = other.functions[other.get_global_var("main")]
    assert kernel_fingerprint(lower_primitive(fn, "k")) != kernel_fingerprint(
        lower_primitive(other_fn, "k")
    )


def test_second_compile_of_a_module_is_a_cache_hit() -> None:
    mod = relay.parse(CONV)
    target = CpuTarget()
    cold = target.compile(mod)
    assert origins(cold) == {"compiled": len(cold.kernels)}
    warm = target.compile(mod)
    assert origins(warm) == {"memory": len(warm.kernels)}
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 8, 10, 10)).astype(np.float32)
    w = rng.standard_normal((16, 8, 3, 3)).astype(np.float32)
    a, b = cold.run(TensorValue(x), TensorValue(w)), warm.run(TensorValue(x), TensorValue(w))
    assert isinstance(a, TensorValue) and isinstance(b, TensorValue)
    assert np.array_equal(a.data, b.data)


_CHILD = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
from resnet import build
from relay.targets.cpu import CpuTarget
mod, _ = build(18)
start = time.perf_counter()
exe = CpuTarget().compile(mod)
seconds = time.perf_counter() - start
counts = {}
for call in exe.kernels.values():
    origin = call.compiled.compiled.origin
    counts[origin] = counts.get(origin, 0) + 1
print(json.dumps({"seconds": seconds, "origins": counts}))
"""


@pytest.mark.slow
def test_resnet18_second_compile_free_in_process_and_across_processes() -> None:
    pytest.importorskip("onnx")
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        from resnet import build
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    mod, _ = build(18)
    target = CpuTarget()
    start = time.perf_counter()
    cold = target.compile(mod)
    cold_seconds = time.perf_counter() - start
    start = time.perf_counter()
    warm = target.compile(mod)
    warm_seconds = time.perf_counter() - start
    n = len(cold.kernels)
    assert n > 10
    assert origins(cold) == {"compiled": n}
    assert origins(warm) == {"memory": n}
    # A new process: nothing in memory, everything on disk.
    child = subprocess.run(
        [sys.executable, "-c", _CHILD, str(ROOT / "benchmarks")],
        capture_output=True,
        text=True,
        env=dict(os.environ),
        timeout=300,
        check=True,
    )
    report = json.loads(child.stdout.strip().splitlines()[-1])
    assert report["origins"] == {"disk": n}
    print(
        f"ResNet-18 compile: cold {cold_seconds:.2f}s, warm {warm_seconds:.2f}s, "
        f"other process {report['seconds']:.2f}s ({n} kernels)"
    )
