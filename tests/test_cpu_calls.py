"""The CPU target's kernel calls: the fast path of a static kernel (precomputed checks, data
pointers read from the array header) gives the same results and refuses the same arrays as
the checked path, and a scalar-heavy recursive program takes it."""

from __future__ import annotations

import numpy as np
import pytest

import relay
from relay.compiler.lower import ir
from relay.semantics.errors import Stuck
from relay.semantics.values import TensorValue
from relay.targets.cpu import CpuTarget, codegen
from relay.targets.cpu.codegen import compile_kernel, data_address

FIB = """
def @fib(%n: int32) -> int32 {
  if (less(%n, 2)) { %n } else { add(@fib(subtract(%n, 1)), @fib(subtract(%n, 2))) }
}
def @main(%n: int32) -> int32 { @fib(%n) }
"""


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: object, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELAY_CACHE_DIR", str(tmp_path))


@pytest.mark.parametrize(
    "array",
    [
        np.zeros(5),
        np.array(3, np.int8),
        np.arange(12, dtype=np.int64).reshape(3, 4)[1:],
        np.ones((0, 4), np.float32),
        np.arange(10, dtype=np.uint16)[::2],
    ],
)
def test_data_address_is_the_first_element(array: np.ndarray) -> None:
    assert data_address(array) == array.ctypes.data


def _add_kernel() -> ir.Kernel:
    a = ir.Buffer("a", (ir.index(3),), "int32")
    b = ir.Buffer("b", (ir.index(3),), "int32")
    out = ir.Buffer("out", (ir.index(3),), "int32")
    i = ir.LoopVar("i")
    value = ir.Binary(ir.BinOp.ADD, ir.Load(a, (ir.Ref(i),)), ir.Load(b, (ir.Ref(i),)))
    body = ir.For(i, ir.index(3), ir.LoopKind.SERIAL, ir.Store(out, (ir.Ref(i),), value))
    return ir.Kernel("calls_add", (a, b), (out,), (), body)


def test_fast_path_checks_like_the_checked_path() -> None:
    k = compile_kernel(_add_kernel())
    x, y = np.arange(3, dtype=np.int32), np.array([10, 20, 30], np.int32)
    out = np.zeros(3, np.int32)
    k([x, y], [out])
    assert out.tolist() == (x + y).tolist()
    with pytest.raises(ValueError, match="buffer a is int32, got int64"):
        k([x.astype(np.int64), y], [out])
    with pytest.raises(ValueError, match="has shape"):
        k([np.arange(4, dtype=np.int32), y], [out])
    with pytest.raises(ValueError, match="not C-contiguous"):
        k([np.arange(6, dtype=np.int32)[::2], y], [out])
    with pytest.raises(ValueError, match="read-only"):
        frozen = np.zeros(3, np.int32)
        frozen.flags.writeable = False
        k([x, y], [frozen])
    with pytest.raises(ValueError, match="expected 2 inputs"):
        k([x], [out])
    unchecked = k.unchecked()
    assert unchecked is not None
    fresh = np.zeros(3, np.int32)
    unchecked([y, y], [fresh])
    assert fresh.tolist() == [20, 40, 60]


def test_kernel_with_sizes_has_no_unchecked_call() -> None:
    n = ir.SizeVar("n")
    a = ir.Buffer("a", (ir.Ref(n),), "float32")
    out = ir.Buffer("out", (ir.Ref(n),), "float32")
    i = ir.LoopVar("i")
    body = ir.For(
        i, ir.Ref(n), ir.LoopKind.SERIAL, ir.Store(out, (ir.Ref(i),), ir.Load(a, (ir.Ref(i),)))
    )
    k = compile_kernel(ir.Kernel("calls_copy", (a,), (out,), (n,), body))
    assert k.unchecked() is None
    x, got = np.arange(4, dtype=np.float32), np.zeros(4, np.float32)
    k([x], [got], {n: 4})
    assert got.tolist() == x.tolist()


def test_scalar_recursion_takes_the_fast_path() -> None:
    mod = relay.parse(FIB)
    exe = CpuTarget().compile(mod)
    assert exe.kernels and all(call._fast is not None for call in exe.kernels.values())
    for n in (0, 1, 2, 10, 15):
        got = exe.run(TensorValue(np.array(n, np.int32)))
        expected = relay.evaluate(mod, np.array(n, np.int32))
        assert isinstance(got, TensorValue) and isinstance(expected, TensorValue)
        assert got.data.dtype == np.int32 and int(got.data) == int(expected.data)


def test_runtime_fast_path_still_refuses_misfits() -> None:
    mod = relay.parse("def @main(%x: Tensor[(3), int32]) { add(%x, %x) }")
    exe = CpuTarget().compile(mod)
    (call,) = exe.kernels.values()
    assert call._fast is not None
    assert call((np.arange(3, dtype=np.int32),), None).tolist() == [0, 2, 4]  # type: ignore[union-attr]
    with pytest.raises(Stuck, match="was given arrays"):
        call((np.arange(4, dtype=np.int32),), None)
    with pytest.raises(Stuck, match="was given arrays"):
        call((np.arange(3, dtype=np.int64),), None)
    # A non-contiguous argument is copied (the checked path), not refused.
    strided = np.arange(6, dtype=np.int32)[::2]
    assert call((strided,), None).tolist() == [0, 4, 8]  # type: ignore[union-attr]
    codegen.clear_memory_cache()
