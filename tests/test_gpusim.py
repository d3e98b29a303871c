"""The ``gpu-sim`` target and its SIMT emulator (``targets/gpusim``).

Planted bugs in scheduled kernels (a removed barrier, an off-by-one in a thread test) must
show as wrong values under the seeded thread orders and as a race named by the detector; the
emulator's arithmetic must equal the loop IR's reference interpreter on random expressions;
the target runs programs, a sample of the conformance corpus and a short fuzz campaign from
the command line.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_cpu_codegen_random import BUFFERS, LOOP, N, _inputs, _same, exprs, np_dtype
from test_gpu_schedule import emulate, lowered, random_inputs

import relay
from relay.cli import main
from relay.compiler.lower import gpu, ir
from relay.compiler.lower.check import check_kernel
from relay.compiler.lower.evaluate import run_kernel
from relay.compiler.lower.printer import kernel_text
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.values import TensorValue, TupleValue
from relay.targets import get_target
from relay.targets.gpusim import GpuSimTarget
from relay.targets.gpusim.emulator import RaceDetected

ROOT = Path(__file__).resolve().parent.parent


def rewrite(s: ir.Stmt, fn: Callable[[ir.Stmt], ir.Stmt | None]) -> ir.Stmt:
    """``s`` with every statement for which ``fn`` gives a replacement replaced (pre-order;
    a ``Seq`` entry replaced by an empty ``Seq`` disappears)."""
    new = fn(s)
    if new is not None:
        return new
    match s:
        case ir.For() | ir.Allocate() | ir.LetStmt():
            return dataclasses.replace(s, body=rewrite(s.body, fn))
        case ir.IfThenElse(cond, then, orelse):
            return ir.IfThenElse(
                cond, rewrite(then, fn), None if orelse is None else rewrite(orelse, fn)
            )
        case ir.Seq(stmts):
            kept = [rewrite(x, fn) for x in stmts]
            return ir.Seq(tuple(x for x in kept if x != ir.Seq(())))
    return s


def without_barrier(kernel: ir.Kernel, which: int) -> ir.Kernel:
    """``kernel`` with its ``which``-th barrier (in pre-order) removed."""
    seen = [0]

    def drop(s: ir.Stmt) -> ir.Stmt | None:
        if isinstance(s, ir.Barrier):
            seen[0] += 1
            if seen[0] == which + 1:
                return ir.Seq(())
        return None

    return dataclasses.replace(kernel, body=rewrite(kernel.body, drop))


SUM = ("%x: Tensor[(3, 500), float32]", "sum(%x, axis=[1])")


def _outcomes(kernel: ir.Kernel, inputs: list[np.ndarray], seeds: int = 6) -> list[np.ndarray]:
    return [emulate(kernel, inputs, seed=s)[0] for s in range(seeds)]


def test_a_removed_barrier_shows_under_random_orders_and_as_a_race() -> None:
    kernel = lowered(*SUM)
    good = gpu.schedule_for_gpu(kernel, max_threads=64)
    inputs = random_inputs(kernel, 1)
    want = run_kernel(kernel, inputs)[0]
    bad = without_barrier(good, 0)  # the one after the partial sums are stored
    check_kernel(bad)  # still well formed: only the emulator can tell
    outcomes = _outcomes(bad, inputs)
    assert any(not np.allclose(o, want, rtol=1e-5) for o in outcomes)
    # the order comes from the seed: a rerun repeats it
    np.testing.assert_array_equal(emulate(bad, inputs, seed=3)[0], outcomes[3])
    with pytest.raises(RaceDetected) as info:
        emulate(bad, inputs, races=True)
    message = str(info.value)
    assert message.startswith(
        "race in kernel k: read/write conflict on shared buffer sum_acc_shared["
    )
    assert "in one phase" in message
    assert "between block (" in message and ") thread (" in message
    for o in _outcomes(good, inputs):
        np.testing.assert_allclose(o, want, rtol=1e-5)
    emulate(good, inputs, races=True)  # no race


def test_an_off_by_one_thread_test_shows_as_a_wrong_value_and_a_race() -> None:
    # the tree reduction's "if tx < half" written "if tx <= half": thread `half` adds its
    # neighbour's partial sum in while thread 0 reads its own
    kernel = lowered(*SUM)
    good = gpu.schedule_for_gpu(kernel, max_threads=64)

    def off_by_one(s: ir.Stmt) -> ir.Stmt | None:
        match s:
            case ir.IfThenElse(ir.Binary(ir.BinOp.LT, ir.Ref(v), ir.Const(h)), then, None) if (
                v.name.startswith("thread_x") and isinstance(h, int) and 1 < h <= 16
            ):
                cond = ir.Binary(ir.BinOp.LE, ir.Ref(v), ir.index(h))
                return ir.IfThenElse(cond, then)
        return None

    bad = dataclasses.replace(good, body=rewrite(good.body, off_by_one))
    assert kernel_text(bad) != kernel_text(good)
    inputs = random_inputs(kernel, 1)
    want = run_kernel(kernel, inputs)[0]
    assert any(not np.allclose(o, want, rtol=1e-5) for o in _outcomes(bad, inputs))
    with pytest.raises(RaceDetected, match="conflict on shared buffer sum_acc_shared"):
        emulate(bad, inputs, races=True)


def test_a_missing_barrier_in_the_tiled_product_is_caught() -> None:
    signature = "%x: Tensor[(6, 20), float32], %w: Tensor[(10, 20), float32]"
    kernel = lowered(signature, "nn.dense(%x, %w, units=10)")
    good = gpu.schedule_for_gpu(kernel, max_threads=64)
    assert good.attrs["gpu_schedule"] == "tiled"
    inputs = random_inputs(kernel, 2)
    want = run_kernel(kernel, inputs)[0]
    for which in (0, 1):  # after staging the tiles; before overwriting them
        bad = without_barrier(good, which)
        with pytest.raises(RaceDetected, match="shared buffer acc"):
            emulate(bad, inputs, races=True)
    assert any(not np.allclose(o, want) for o in _outcomes(without_barrier(good, 0), inputs))


def test_write_write_races_on_global_memory_between_blocks() -> None:
    # every thread of two blocks stores its index to out[0]
    out = ir.Buffer("out", (ir.index(1),), "int64")
    bx, tx = ir.LoopVar("bx"), ir.LoopVar("tx")
    store = ir.Store(out, (ir.index(0),), ir.Ref(tx))
    threads = ir.For(tx, ir.index(4), ir.LoopKind.THREAD, store, "threadIdx.x")
    body = ir.For(bx, ir.index(2), ir.LoopKind.THREAD, threads, "blockIdx.x")
    kernel = ir.Kernel("clash", (), (out,), (), body)
    check_kernel(kernel)
    winners = {int(emulate(kernel, [], seed=s)[0][0]) for s in range(12)}
    assert len(winners) > 1  # the last writer depends on the order
    with pytest.raises(
        RaceDetected, match=r"race in kernel clash: write/write conflict on buffer out\[0\]"
    ):
        emulate(kernel, [], races=True)


def test_out_of_bounds_access_names_the_thread() -> None:
    x = ir.Buffer("x", (ir.index(4),), "float32")
    out = ir.Buffer("out", (ir.index(8),), "float32")
    tx = ir.LoopVar("tx")
    store = ir.Store(out, (ir.Ref(tx),), ir.Load(x, (ir.Ref(tx),)))
    body = ir.For(tx, ir.index(8), ir.LoopKind.THREAD, store, "threadIdx.x")
    with pytest.raises(
        IndexError,
        match=r"load of x at index 4 out of bounds 0\.\.3 by block \(0, 0, 0\) thread \(4, 0, 0\)",
    ):
        emulate(ir.Kernel("oob", (x,), (out,), (), body), [np.zeros(4, np.float32)])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_emulator_arithmetic_matches_the_reference(data: st.DataObject) -> None:
    dtype = data.draw(st.sampled_from(sorted(BUFFERS)), label="dtype")
    e = data.draw(exprs(dtype, 4), label="expression")
    seed = data.draw(st.integers(0, 2**32 - 1), label="seed")
    out = ir.Buffer("out", (ir.index(N),), dtype)
    body = ir.For(LOOP, ir.index(N), ir.LoopKind.SERIAL, ir.Store(out, (ir.Ref(LOOP),), e))
    kernel = ir.Kernel("random", tuple(BUFFERS.values()), (out,), (), body)
    scheduled = gpu.schedule_for_gpu(kernel, max_threads=8)
    inputs = _inputs(seed)
    with np.errstate(all="ignore"):
        got = emulate(scheduled, inputs)[0]  # must run whatever the values
        try:
            (want,) = run_kernel(kernel, inputs, {})
        except UndefinedBehavior:
            event("undefined: skipped")
            return
    event("compared")
    assert got.dtype == np_dtype(dtype)
    assert _same(got, want), f"emulated {got}\nreference {want}\n{kernel_text(scheduled)}"


# ---------------------------------------------------------------------------------------------
# The target


PROGRAM = """#[version = "0.0.5"]
def @main(%x: Tensor[(4, 300), float32], %w: Tensor[(8, 300), float32]) {
  let %y = nn.dense(%x, %w, units=8);
  let %s = sum(%y, axis=[1]);
  if (greater(sum(%s), 0f)) { nn.softmax(%y) } else { negative(%y) }
}
"""


def test_the_target_runs_a_program_with_control_flow() -> None:
    mod = relay.parse(PROGRAM)
    rng = np.random.default_rng(1)
    x = TensorValue(rng.standard_normal((4, 300)).astype(np.float32))
    w = TensorValue(rng.standard_normal((8, 300)).astype(np.float32))
    want = relay.evaluate(mod, x, w)
    for target in (GpuSimTarget(seed=5), get_target("gpu-sim-races")):
        exe = target.compile(mod)
        got = exe.run(x, w)
        assert isinstance(got, TensorValue) and isinstance(want, TensorValue)
        np.testing.assert_allclose(got.data, want.data, rtol=1e-4, atol=1e-4)
        art = exe.artifacts()
        assert any("blockIdx.x" in str(a.get("gpu-loop-ir", "")) for a in art.values())


TRANSPOSED = """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 1, 2), float32], %w: Tensor[(1, 1, 3), float32],
          %a: Tensor[(1, 2, 2, 1), float16], %v: Tensor[(1, 1, 1, 1), float16]) {
  (nn.conv1d_transpose(%x, %w, strides=[2], padding=[1]),
   nn.conv2d_transpose(%a, %v, channels=1, kernel_size=[1, 1], strides=[1, 2],
                       data_layout="NHWC", kernel_layout="HWOI"))
}
"""


def test_transposed_convolutions_with_an_infinite_weight() -> None:
    # relay fuzz --target gpu-sim (seed 14): the reference added 0 * inf = NaN where the
    # stride-dilated input's zeros and its padding met an infinite weight; only x * w terms count
    mod = relay.parse(TRANSPOSED)
    x = TensorValue(np.ones((1, 1, 2), np.float32))
    w = TensorValue(np.array([np.inf, 1, 1], np.float32).reshape(1, 1, 3))
    a = TensorValue(np.array([1, 2, 3, 4], np.float16).reshape(1, 2, 2, 1))
    v = TensorValue(np.full((1, 1, 1, 1), -np.inf, np.float16))
    want = relay.evaluate(mod, x, w, a, v)
    assert isinstance(want, TupleValue)
    first, second = (f.data for f in want.fields if isinstance(f, TensorValue))
    # y = 2i - 1 + j: only (i, j) = (0, 2) and (1, 0) reach y = 1; nothing reaches odd columns
    np.testing.assert_array_equal(first, [[[1, np.inf, 1]]])
    np.testing.assert_array_equal(second[..., 0], [[[-np.inf, 0, -np.inf]] * 2])
    for target in ("cpu", "gpu-sim", "gpu-sim-races"):
        got = get_target(target).compile(mod).run(x, w, a, v)
        assert isinstance(got, TupleValue)
        for g, e in zip(got.fields, want.fields, strict=True):
            assert isinstance(g, TensorValue) and isinstance(e, TensorValue)
            np.testing.assert_array_equal(g.data, e.data)


def test_unsupported_operators_are_named() -> None:
    target = get_target("gpu-sim")
    from relay.semantics.ops import OPS

    unsupported = [op for op in OPS if target.supports(op) is not None]
    assert unsupported == [op for op in OPS if get_target("cpu").supports(op) is not None]


CORPUS_SAMPLE = [
    "batch_norm",
    "broadcast",
    "closures",
    "int_wraparound",
    "clip_cast_where",
    "concatenate_stack",
]


def test_conform_on_a_sample_of_the_corpus(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus = ROOT / "tests" / "conformance"
    for name in CORPUS_SAMPLE:
        shutil.copy(corpus / f"{name}.relay", tmp_path)
    # one generated program: test_a_short_fuzz_campaign draws more, the slow test 20
    code = main(["conform", "--target", "gpu-sim", "--corpus", str(tmp_path), "--programs", "1"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert f"{len(CORPUS_SAMPLE) + 1} cases" in out and " 0 failed" in out


@pytest.mark.slow
def test_conform_on_the_whole_corpus(capsys: pytest.CaptureFixture[str]) -> None:
    for target in ("gpu-sim", "gpu-sim-races"):
        assert main(["conform", "--target", target, "--programs", "20"]) == 0
        assert " 0 failed" in capsys.readouterr().out


def test_a_short_fuzz_campaign(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # bounded by examples, not seconds (the time is only a backstop)
    code = main(["fuzz", "--target", "gpu-sim", "--max-examples", "10", "--time", "120",
                 "--seed", "3", "--out", str(tmp_path)])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.out + captured.err
    assert "relay fuzz --target gpu-sim:" in captured.out + captured.err
    assert not list(tmp_path.glob("*.relay"))


SYMBOLIC = """#[version = "0.0.5"]
def @main(%x: Tensor[(n, 20), float32], %w: Tensor[(7, 20), float32],
          %y: Tensor[(?, 300), float32]) {
  (nn.relu(nn.dense(%x, %w, units=7)), sum(%y, axis=[1]), nn.softmax(%y), sum(%x))
}
"""


def test_symbolic_and_unknown_dimensions() -> None:
    # the grids depend on n and ?; the tiled product's guards and block-stride loops are
    # masked per lane while its barriers stay uniform
    mod = relay.parse(SYMBOLIC)
    rng = np.random.default_rng(0)
    shapes = [(5, 20), (7, 20), (3, 300)]
    args = [TensorValue(rng.standard_normal(s).astype(np.float32)) for s in shapes]
    want = relay.evaluate(mod, *args)
    got = get_target("gpu-sim-races").compile(mod).run(*args)
    for g, w in zip(got.fields, want.fields, strict=True):  # type: ignore[union-attr]
        np.testing.assert_allclose(g.data, w.data, rtol=1e-5, atol=1e-5)


def test_a_barrier_in_a_loop_whose_extent_depends_on_the_block() -> None:
    # block b runs b + 1 rounds of: tile[tx] = 10 * round + tx; barrier; out[b, tx] =
    # tile[(tx + 1) % 4]; barrier. Uniform within a block, different between blocks.
    tile = ir.Buffer("tile", (ir.index(4),), "int64", scope="shared")
    out = ir.Buffer("out", (ir.index(2), ir.index(4)), "int64")
    bx, tx, r = ir.LoopVar("bx"), ir.LoopVar("tx"), ir.LoopVar("r")
    add, mul = ir.BinOp.ADD, ir.BinOp.MUL
    value = ir.Binary(add, ir.Binary(mul, ir.Ref(r), ir.index(10)), ir.Ref(tx))
    neighbour = ir.Binary(ir.BinOp.FLOORMOD, ir.Binary(add, ir.Ref(tx), ir.index(1)), ir.index(4))
    round_ = ir.Seq((
        ir.Store(tile, (ir.Ref(tx),), value),
        ir.Barrier(),
        ir.Store(out, (ir.Ref(bx), ir.Ref(tx)), ir.Load(tile, (neighbour,))),
        ir.Barrier(),
    ))  # fmt: skip
    rounds = ir.For(r, ir.Binary(add, ir.Ref(bx), ir.index(1)), ir.LoopKind.SERIAL, round_)
    threads = ir.For(tx, ir.index(4), ir.LoopKind.THREAD, rounds, "threadIdx.x")
    body = ir.For(bx, ir.index(2), ir.LoopKind.THREAD, ir.Allocate(tile, threads), "blockIdx.x")
    kernel = ir.Kernel("rounds", (), (out,), (), body)
    check_kernel(kernel)
    want = np.array([[(t + 1) % 4 + 10 * b for t in range(4)] for b in range(2)])
    for seed in range(4):
        np.testing.assert_array_equal(emulate(kernel, [], seed=seed, races=True)[0], want)
