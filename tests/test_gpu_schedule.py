"""Thread binding (``compiler.lower.gpu``) and the GPU rules of the well-formedness check.

Every schedule is held to the unscheduled kernel: both are run (the scheduled one on the SIMT
emulator, under several thread orders, and with the race detector) and their outputs must
agree; the scheduled kernel must pass ``check_kernel`` and have the launch nest the contract
describes. Planted mistakes in hand-built GPU kernels must be rejected by the check with a
message naming the rule.
"""

from __future__ import annotations

import numpy as np
import pytest

import relay
from relay.compiler.lower import gpu, ir, schedules
from relay.compiler.lower.check import IllFormed, check_kernel
from relay.compiler.lower.evaluate import run_kernel
from relay.compiler.lower.lower import lower_primitive
from relay.compiler.lower.printer import kernel_text
from relay.semantics.syntax import Function
from relay.targets.gpusim.emulator import launch, prepare


def lowered(signature: str, body: str) -> ir.Kernel:
    """The kernel of ``fn (signature) { body }`` lowered as a GPU target lowers it."""
    mod = relay.parse(f'#[version = "0.0.5"]\ndef @main({signature}) {{ {body} }}')
    fn = next(iter(mod.functions.values()))
    assert isinstance(fn, Function)
    with schedules.gemm_strategy("gpu"):
        return lower_primitive(fn, "k")


def emulate(kernel: ir.Kernel, inputs: list[np.ndarray], *, seed: int = 0, races: bool = False
            ) -> list[np.ndarray]:  # fmt: skip
    """``kernel`` (scheduled, static shapes) run on the emulator."""
    outputs = [np.zeros([int(d.value) for d in b.shape], b.dtype) for b in kernel.outputs]  # type: ignore[union-attr]
    constants = kernel.attrs.get("constants", ())
    assert isinstance(constants, tuple)
    launch(prepare(kernel), [*inputs, *constants], outputs, {}, seed=seed, races=races)
    return outputs


def random_inputs(kernel: ir.Kernel, n_params: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for b in kernel.inputs[:n_params]:
        shape = [int(d.value) for d in b.shape]  # type: ignore[union-attr]
        if b.dtype.startswith("float"):
            out.append(rng.standard_normal(shape).astype(b.dtype))
        else:
            out.append(rng.integers(-50, 50, shape).astype(b.dtype))
    return out


CASES = [
    # (signature, body, the schedule expected)
    ("%x: Tensor[(3, 5), float32], %y: Tensor[(5,), float32]", "add(%x, %y)", "injective"),
    ("%x: Tensor[(700,), int8]", "multiply(%x, %x)", "injective"),
    ("%x: Tensor[(3, 500), float32]", "sum(%x, axis=[1])", "reduce"),
    ("%x: Tensor[(20, 30), int32]", "max(%x)", "reduce"),
    ("%x: Tensor[(6, 7), float32]", "mean(%x, axis=[0])", "injective"),
    ("%x: Tensor[(4, 5), float32]", "nn.softmax(%x)", "block"),
    (
        "%x: Tensor[(6, 20), float32], %w: Tensor[(10, 20), float32]",
        "nn.relu(nn.dense(%x, %w, units=10))",
        "tiled",
    ),
    (
        "%x: Tensor[(3, 7, 9), float32], %w: Tensor[(3, 9, 5), float32]",
        "nn.batch_matmul(%x, %w)",
        "tiled",
    ),
    (
        "%x: Tensor[(1, 4, 6, 6), float32], %w: Tensor[(4, 2, 3, 3), float32]",
        "nn.conv2d(%x, %w, strides=[2, 2], padding=[1, 1, 1, 1], groups=2)",
        "tiled",
    ),
    ("%x: Tensor[(1, 3, 8, 8), float32]", "nn.max_pool2d(%x, pool_size=[3, 3])", "injective"),
]


@pytest.mark.parametrize(("signature", "body", "expected"), CASES)
def test_schedules_keep_the_meaning(signature: str, body: str, expected: str) -> None:
    kernel = lowered(signature, body)
    scheduled = gpu.schedule_for_gpu(kernel, max_threads=64)
    check_kernel(scheduled)
    assert scheduled.attrs["gpu_schedule"] == expected, kernel_text(scheduled)
    n_params = signature.count("%")
    inputs = random_inputs(kernel, n_params)
    want = run_kernel(kernel, inputs)
    for seed in range(3):
        got = emulate(scheduled, inputs, seed=seed, races=seed == 0)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)
    _, block = gpu.launch_dims(scheduled)
    assert 1 <= block[0] * block[1] * block[2] <= 64


def test_barrier_free_schedules_also_run_serially() -> None:
    # A scheduled kernel without barriers means the same with its thread loops run in order.
    kernel = lowered("%x: Tensor[(3, 5), float32], %y: Tensor[(5,), float32]", "add(%x, %y)")
    scheduled = gpu.schedule_for_gpu(kernel)
    inputs = random_inputs(kernel, 2)
    np.testing.assert_array_equal(run_kernel(scheduled, inputs)[0], run_kernel(kernel, inputs)[0])


def test_launch_dims_of_the_injective_schedule() -> None:
    kernel = lowered("%x: Tensor[(1000,), float32]", "exp(%x)")
    scheduled = gpu.schedule_for_gpu(kernel, max_threads=256)
    grid, block = gpu.launch_dims(scheduled)
    assert block == (256, 1, 1)
    assert [schedules.static(g) for g in grid] == [4, 1, 1]
    small = gpu.schedule_for_gpu(lowered("%x: Tensor[(5,), float32]", "exp(%x)"))
    assert gpu.launch_dims(small)[1] == (32, 1, 1)  # one warp for five elements


def test_symbolic_grid_depends_on_the_size() -> None:
    kernel = lowered("%x: Tensor[(n, 3), float32]", "negative(%x)")
    scheduled = gpu.schedule_for_gpu(kernel, max_threads=128)
    check_kernel(scheduled)
    grid, _ = gpu.launch_dims(scheduled)
    (n,) = kernel.sizes
    from relay.compiler.lower.evaluate import compile_expr

    assert int(compile_expr(grid[0])({n: 1000})) == -(-3000 // 128)  # type: ignore[call-overload]
    assert int(compile_expr(grid[0])({n: 0})) == 1  # type: ignore[call-overload]
    x = np.arange(30, dtype=np.float32).reshape(10, 3)
    out = np.zeros((10, 3), np.float32)
    launch(prepare(scheduled), [x], [out], {n: 10}, races=True)
    np.testing.assert_array_equal(out, -x)


def test_the_contract_of_the_launch_nest() -> None:
    kernel = gpu.schedule_for_gpu(lowered("%x: Tensor[(3, 500), float32]", "sum(%x, axis=[1])"))
    s = kernel.body
    tags: list[str] = []
    while "threadIdx.x" not in tags:
        if isinstance(s, ir.For):
            assert s.kind is ir.LoopKind.THREAD
            tags.append(s.thread)
        else:
            assert isinstance(s, ir.Allocate) and s.buffer.scope == "shared"
        s = s.body
    assert tags == ["blockIdx.x", "threadIdx.x"]
    assert s is gpu.thread_body(kernel)
    barriers = [x for x in ir.walk_stmt(s) if isinstance(x, ir.Barrier)]
    assert len(barriers) >= 8  # after staging, one per tree level (256 threads: 8), at the end
    again = gpu.schedule_for_gpu(kernel)
    assert again is kernel  # already scheduled: unchanged


def test_a_kernel_with_intermediates_gets_scratch_buffers() -> None:
    kernel = gpu.schedule_for_gpu(lowered("%x: Tensor[(4, 5), float32]", "nn.softmax(%x)"))
    assert isinstance(kernel.body, ir.Allocate) and kernel.body.buffer.scope == "global"
    grid, _ = gpu.launch_dims(kernel)
    assert [schedules.static(g) for g in grid] == [1, 1, 1]


def test_extern_calls_have_no_gpu_schedule() -> None:
    with schedules.gemm_strategy("blas"):
        mod = relay.parse(
            '#[version = "0.0.5"]\ndef @main(%x: Tensor[(8, 8), float32], '
            "%w: Tensor[(8, 8), float32]) { nn.dense(%x, %w, units=8) }"
        )
        fn = next(iter(mod.functions.values()))
        assert isinstance(fn, Function)
        kernel = lower_primitive(fn, "k")
    with pytest.raises(gpu.ScheduleError, match="cblas_sgemm"):
        gpu.schedule_for_gpu(kernel)


# ---------------------------------------------------------------------------------------------
# Distributable loops


def test_a_loop_that_writes_one_element_twice_is_not_distributed() -> None:
    # out[i // 2] = x[i] for i in 0..7: iterations 2k and 2k+1 write one element, so the
    # loop must not be split between threads (the last write, x[2k+1], wins serially).
    x = ir.Buffer("x", (ir.index(8),), "float32")
    out = ir.Buffer("out", (ir.index(4),), "float32")
    i = ir.LoopVar("i")
    half = ir.Binary(ir.BinOp.FLOORDIV, ir.Ref(i), ir.index(2))
    body = ir.For(
        i, ir.index(8), ir.LoopKind.SERIAL, ir.Store(out, (half,), ir.Load(x, (ir.Ref(i),)))
    )
    kernel = ir.Kernel("halve", (x,), (out,), (), body)
    assert not gpu.distributable([body], body.body)
    scheduled = gpu.schedule_for_gpu(kernel)
    check_kernel(scheduled)
    data = np.arange(8, dtype=np.float32)
    for seed in range(4):
        np.testing.assert_array_equal(emulate(scheduled, [data], seed=seed)[0], data[1::2])


def test_an_accumulating_nest_is_distributed_over_its_outer_loop_only() -> None:
    # out[i] += x[i, j]: the i loop is distributable, the j loop is not.
    x = ir.Buffer("x", (ir.index(3), ir.index(4)), "int32")
    out = ir.Buffer("out", (ir.index(3),), "int32")
    i, j = ir.LoopVar("i"), ir.LoopVar("j")
    acc = ir.Store(out, (ir.Ref(i),), ir.Binary(ir.BinOp.ADD, ir.Load(out, (ir.Ref(i),)),
                                                 ir.Load(x, (ir.Ref(i), ir.Ref(j)))))  # fmt: skip
    inner = ir.For(j, ir.index(4), ir.LoopKind.SERIAL, acc)
    outer = ir.For(
        i,
        ir.index(3),
        ir.LoopKind.SERIAL,
        ir.Seq((ir.Store(out, (ir.Ref(i),), ir.const(0, "int32")), inner)),
    )
    assert gpu.distributable([outer], outer.body)
    nested = ir.For(i, ir.index(3), ir.LoopKind.SERIAL, inner)
    assert not gpu.distributable([nested, inner], inner.body)
    kernel = ir.Kernel("rows", (x,), (out,), (), outer)
    scheduled = gpu.schedule_for_gpu(kernel)
    assert scheduled.attrs["gpu_schedule"] == "injective"
    data = np.arange(12, dtype=np.int32).reshape(3, 4)
    np.testing.assert_array_equal(emulate(scheduled, [data], races=True)[0], data.sum(axis=1))


# ---------------------------------------------------------------------------------------------
# The check's GPU rules


def _gpu_kernel(body: ir.Stmt, *extra: ir.Buffer) -> ir.Kernel:
    return ir.Kernel("bad", (), (OUT, *extra), (), body)


OUT = ir.Buffer("out", (ir.index(64),), "float32")


def _thread(tag: str, extent: int | ir.PrimExpr, body: ir.Stmt, var: ir.LoopVar | None = None
            ) -> ir.For:  # fmt: skip
    v = var or ir.LoopVar(tag.replace(".", "_"))
    e = ir.index(extent) if isinstance(extent, int) else extent
    return ir.For(v, e, ir.LoopKind.THREAD, body, tag)


def test_barrier_under_a_thread_dependent_if_is_rejected() -> None:
    tx = ir.LoopVar("tx")
    cond = ir.Binary(ir.BinOp.LT, ir.Ref(tx), ir.index(5))
    body = _thread("threadIdx.x", 64, ir.IfThenElse(cond, ir.Barrier()), tx)
    with pytest.raises(IllFormed, match="barrier under divergent control flow"):
        check_kernel(_gpu_kernel(_thread("blockIdx.x", 1, body)))


def test_barrier_under_a_block_dependent_if_is_accepted() -> None:
    bx, tx = ir.LoopVar("bx"), ir.LoopVar("tx")
    cond = ir.Binary(ir.BinOp.LT, ir.Ref(bx), ir.index(1))
    store = ir.Store(OUT, (ir.Ref(tx),), ir.const(1.0, "float32"))
    body = _thread("threadIdx.x", 64, ir.IfThenElse(cond, ir.Seq((ir.Barrier(), store))), tx)
    check_kernel(_gpu_kernel(_thread("blockIdx.x", 2, body, bx)))


def test_barrier_in_a_loop_of_thread_dependent_extent_is_rejected() -> None:
    tx, i = ir.LoopVar("tx"), ir.LoopVar("i")
    loop = ir.For(i, ir.Ref(tx), ir.LoopKind.SERIAL, ir.Barrier())
    with pytest.raises(IllFormed, match="loop i whose extent depends on the thread"):
        check_kernel(_gpu_kernel(_thread("threadIdx.x", 64, loop, tx)))


def test_barrier_after_a_thread_dependent_let_is_rejected() -> None:
    tx = ir.LoopVar("tx")
    v = ir.ScalarVar("v", "int64")
    cond = ir.Binary(ir.BinOp.EQ, ir.Ref(v), ir.index(0))
    let = ir.LetStmt(
        v, ir.Binary(ir.BinOp.MUL, ir.Ref(tx), ir.index(2)), ir.IfThenElse(cond, ir.Barrier())
    )
    with pytest.raises(IllFormed, match="divergent"):
        check_kernel(_gpu_kernel(_thread("threadIdx.x", 64, let, tx)))


def test_misnested_thread_loops_are_rejected() -> None:
    inner = _thread("blockIdx.x", 2, ir.Store(OUT, (ir.index(0),), ir.const(0.0, "float32")))
    with pytest.raises(IllFormed, match="nested inside a threadIdx loop"):
        check_kernel(_gpu_kernel(_thread("threadIdx.x", 32, inner)))
    twice = _thread("threadIdx.x", 2, _thread("threadIdx.x", 2, ir.Barrier()))
    with pytest.raises(IllFormed, match=r"threadIdx\.x is bound twice"):
        check_kernel(_gpu_kernel(twice))
    i = ir.LoopVar("i")
    buried = ir.For(i, ir.index(2), ir.LoopKind.SERIAL, _thread("threadIdx.y", 2, ir.Barrier()))
    with pytest.raises(IllFormed, match="outside the launch nest"):
        check_kernel(_gpu_kernel(_thread("threadIdx.x", 2, buried)))


def test_block_extents_must_be_constant_and_shared_memory_in_place() -> None:
    n = ir.SizeVar("n")
    out = ir.Buffer("out", (ir.Ref(n),), "float32")
    k = ir.Kernel("bad", (), (out,), (n,), _thread("threadIdx.x", ir.Ref(n), ir.Barrier()))
    with pytest.raises(IllFormed, match="non-constant extent"):
        check_kernel(k)
    shared = ir.Buffer("tile", (ir.index(8),), "float32", scope="shared")
    inside = _thread("blockIdx.x", 1, _thread("threadIdx.x", 8, ir.Allocate(shared, ir.Barrier())))
    with pytest.raises(IllFormed, match="shared buffer tile allocated inside the threadIdx loops"):
        check_kernel(_gpu_kernel(inside))
    outside = ir.Allocate(shared, _thread("blockIdx.x", 1, _thread("threadIdx.x", 8, ir.Barrier())))
    with pytest.raises(IllFormed, match="outside the block loops"):
        check_kernel(_gpu_kernel(outside))


def test_a_barrier_outside_the_thread_loops_is_rejected() -> None:
    with pytest.raises(IllFormed, match="barrier outside the threadIdx loops"):
        check_kernel(_gpu_kernel(_thread("blockIdx.x", 2, ir.Barrier())))


def test_cpu_kernels_still_may_not_allocate_shared_memory() -> None:
    shared = ir.Buffer("tile", (ir.index(8),), "float32", scope="shared")
    store = ir.Store(shared, (ir.index(0),), ir.const(0.0, "float32"))
    k = ir.Kernel("cpu", (), (OUT,), (), ir.Allocate(shared, store))
    with pytest.raises(IllFormed, match="allocated outside the block loops"):
        check_kernel(k)
