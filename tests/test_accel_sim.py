"""The accelerator simulator's semantics, on hand-written programs: int32 wrap-around, the
ALU's shift rule, 8-bit stores, zero padding, token queues and deadlock detection."""

from __future__ import annotations

import numpy as np
import pytest

from relay.targets.accel.isa import (
    AluInsn,
    AluOp,
    Deps,
    FinishInsn,
    GemmInsn,
    Instruction,
    Mem,
    MemInsn,
    Uop,
)
from relay.targets.accel.sim import AccelError, Deadlock, Dram, Simulator, alu

FINISH = FinishInsn()


def dram_with(*arrays: np.ndarray) -> tuple[Dram, list[int]]:
    """A DRAM holding ``arrays`` (byte addresses returned), and 4 KiB to spare."""
    dram = Dram()
    addrs = []
    for a in arrays:
        addr = dram.alloc(a.nbytes)
        dram.write(addr, a)
        addrs.append(addr)
    dram.alloc(4096)
    return dram, addrs


def uops_at(dram: Dram, uops: list[Uop]) -> int:
    """Store micro-ops in DRAM; their address in 4-byte elements."""
    addr = dram.alloc(4 * len(uops))
    dram.write(addr, np.array([u.encode() for u in uops], dtype=np.uint32))
    return addr // 4


def load_uops(dram: Dram, uops: list[Uop], sram: int = 0) -> MemInsn:
    return MemInsn(False, Mem.UOP, sram, uops_at(dram, uops), 1, len(uops), len(uops))


def test_gemm_accumulates_with_int32_wraparound() -> None:
    sim = Simulator()
    inp = np.full((1, 16), 127, dtype=np.int8)
    wgt = np.full((1, 16, 16), 127, dtype=np.int8)
    dram, (a_inp, a_wgt) = dram_with(inp, wgt)
    reps = 9000  # 9000 * 16 * 127 * 127 = 2322576000 > 2**31 - 1
    program: list[Instruction] = [
        MemInsn(False, Mem.INP, 0, a_inp // 16, 1, 1, 1),
        MemInsn(False, Mem.WGT, 0, a_wgt // 256, 1, 1, 1, deps=Deps(push_next=True)),
        load_uops(dram, [Uop(0, 0, 0)]),
        GemmInsn(True, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0),
        GemmInsn(False, 0, 1, reps, 1, 0, 0, 0, 0, 0, 0, deps=Deps(pop_prev=True)),
        FINISH,
    ]
    counters = sim.run(program, dram)
    exact = reps * 16 * 127 * 127
    wrapped = (exact + (1 << 31)) % (1 << 32) - (1 << 31)
    assert wrapped < 0
    assert (sim.acc[0] == wrapped).all()
    assert counters.gemm_uops == reps + 1
    assert counters.load_bytes["INP"] == 16 and counters.load_bytes["WGT"] == 256


def test_gemm_multiplies_input_by_weight_rows() -> None:
    rng = np.random.default_rng(0)
    inp = rng.integers(-128, 128, (4, 16)).astype(np.int8)
    wgt = rng.integers(-128, 128, (2, 16, 16)).astype(np.int8)
    dram, (a_inp, a_wgt) = dram_with(inp, wgt)
    sim = Simulator()
    # acc[i] = inp[i] . wgt[0]^T + inp[i] . wgt[1]^T over a 2x2 loop, two micro-ops (in two
    # instructions: in one they would break the write hazard)
    program: list[Instruction] = [
        MemInsn(False, Mem.INP, 0, a_inp // 16, 1, 4, 4),
        MemInsn(False, Mem.WGT, 0, a_wgt // 256, 1, 2, 2, deps=Deps(push_next=True)),
        load_uops(dram, [Uop(0, 0, 0), Uop(0, 0, 1)]),
        GemmInsn(True, 0, 1, 2, 2, 2, 1, 0, 0, 0, 0),
        GemmInsn(False, 0, 1, 2, 2, 2, 1, 2, 1, 0, 0, deps=Deps(pop_prev=True)),
        GemmInsn(False, 1, 2, 2, 2, 2, 1, 2, 1, 0, 0),
        FINISH,
    ]
    sim.run(program, dram)
    w = wgt.astype(np.int64)
    expect = inp.astype(np.int64) @ w[0].T + inp.astype(np.int64) @ w[1].T
    assert (sim.acc[:4] == expect).all()


def alu_program(dram: Dram, acc_values: np.ndarray, op: AluOp, imm: int) -> list[Instruction]:
    addr = dram.alloc(acc_values.nbytes)
    dram.write(addr, acc_values)
    return [
        MemInsn(False, Mem.ACC, 0, addr // 64, 1, len(acc_values), len(acc_values)),
        load_uops(dram, [Uop(0, 0)]),
        AluInsn(False, 0, 1, 1, len(acc_values), 0, 1, 0, 1, op, True, imm),
        FINISH,
    ]


@pytest.mark.parametrize(("imm", "expect"), [(3, [-2, 12, -1]), (-3, [-128, 800, -8])])
def test_alu_shift_sign_rule(imm: int, expect: list[int]) -> None:
    """SHR shifts right by a non-negative amount and left by a negative one."""
    values = np.zeros((1, 16), dtype=np.int32)
    values[0, :3] = [-16, 100, -1]
    dram = Dram()
    sim = Simulator()
    sim.run(alu_program(dram, values, AluOp.SHR, imm), dram)
    assert sim.acc[0, :3].tolist() == expect


def test_alu_operations_wrap_in_int32() -> None:
    x = np.array([2**31 - 1, -(2**31), 5, -7], dtype=np.int32)
    assert alu(AluOp.ADD, x, np.int32(1)).tolist() == [-(2**31), -(2**31) + 1, 6, -6]
    assert alu(AluOp.MUL, x, np.int32(2)).tolist() == [-2, 0, 10, -14]
    assert alu(AluOp.MIN, x, np.int32(0)).tolist() == [0, -(2**31), 0, -7]
    assert alu(AluOp.MAX, x, np.int32(0)).tolist() == [2**31 - 1, 0, 5, 0]
    assert alu(AluOp.SHR, x, np.int32(-1)).tolist() == [-2, 0, 10, -14]


def test_store_keeps_low_8_bits() -> None:
    values = np.zeros((1, 16), dtype=np.int32)
    values[0, :4] = [300, -129, 127, 0x12345680]
    dram = Dram()
    out = dram.alloc(16)
    program = alu_program(dram, values, AluOp.ADD, 0)[:2]
    program += [
        # the store waits for compute (g2s), and FINISH for the store (s2g, on a no-op)
        AluInsn(False, 0, 1, 1, 1, 0, 1, 0, 1, AluOp.ADD, True, 0, Deps(push_next=True)),
        MemInsn(True, Mem.OUT, 0, out // 16, 1, 1, 1, deps=Deps(pop_prev=True, push_prev=True)),
        MemInsn(False, Mem.UOP, 0, 0, 0, 0, 0, deps=Deps(pop_next=True)),
        FINISH,
    ]
    counters = Simulator().run(program, dram)
    assert dram.read(out, 4).view(np.int8).tolist() == [44, 127, 127, -128]
    assert counters.store_bytes == 16


def test_load_pads_with_zeros() -> None:
    data = np.arange(1, 2 * 3 * 16 + 1, dtype=np.int16).astype(np.int8).reshape(6, 16)
    dram, (addr,) = dram_with(data)
    sim = Simulator()
    sim.inp[:] = 99  # stale data must be overwritten by the padding
    program: list[Instruction] = [
        MemInsn(False, Mem.INP, 0, addr // 16, 2, 3, 3, 1, 2, 1, 1),
        FINISH,
    ]
    sim.run(program, dram)
    tile = sim.inp[: 5 * 5].reshape(5, 5, 16)
    assert (tile[0] == 0).all() and (tile[3:] == 0).all()
    assert (tile[:, 0] == 0).all() and (tile[:, 4] == 0).all()
    assert (tile[1:3, 1:4].reshape(6, 16) == data).all()


def test_deadlock_is_detected() -> None:
    """Compute waits for a load token that the load never pushes."""
    dram = Dram(4096)
    program: list[Instruction] = [
        MemInsn(False, Mem.INP, 0, 0, 1, 1, 1),
        MemInsn(False, Mem.UOP, 0, 0, 0, 0, 0, deps=Deps(pop_prev=True)),
        FINISH,
    ]
    with pytest.raises(Deadlock, match=r"deadlock: no module can make progress .*compute: LOAD"):
        Simulator().run(program, dram)


def test_cyclic_wait_is_a_deadlock() -> None:
    dram = Dram(4096)
    program: list[Instruction] = [
        MemInsn(False, Mem.INP, 0, 0, 1, 1, 1, deps=Deps(pop_next=True, push_next=True)),
        MemInsn(False, Mem.UOP, 0, 0, 0, 0, 0, deps=Deps(pop_prev=True, push_prev=True)),
        FINISH,
    ]
    with pytest.raises(Deadlock, match="load: LOAD   INP"):
        Simulator().run(program, dram)


def test_leftover_tokens_and_instructions_are_errors() -> None:
    dram = Dram(4096)
    spare = [MemInsn(False, Mem.INP, 0, 0, 1, 1, 1, deps=Deps(push_next=True)), FINISH]
    with pytest.raises(AccelError, match=r"tokens left after FINISH: \{'l2g': 1\}"):
        Simulator().run(spare, dram, seed=None)
    early: list[Instruction] = [FINISH, MemInsn(True, Mem.OUT, 0, 0, 1, 1, 1)]
    with pytest.raises(AccelError, match="instructions left after FINISH"):
        Simulator().run(early, dram)


def test_invalid_token_flags_and_indices_are_errors() -> None:
    dram = Dram(4096)
    with pytest.raises(AccelError, match="load instruction sets pop_prev"):
        Simulator().run([MemInsn(False, Mem.INP, 0, 0, 1, 1, 1, deps=Deps(pop_prev=True)),
                         FINISH], dram)  # fmt: skip
    with pytest.raises(AccelError, match=r"INP index range \[2047, 2049\) outside"):
        Simulator().run([MemInsn(False, Mem.INP, 2047, 0, 1, 2, 2), FINISH], dram)
    with pytest.raises(AccelError, match="DRAM access"):
        Simulator().run([MemInsn(False, Mem.INP, 0, 10**6, 1, 1, 1), FINISH], dram)
    with pytest.raises(AccelError, match="FINISH cannot pop"):
        Simulator().run([FinishInsn(Deps(pop_prev=True))], dram)


def test_tokens_order_modules_and_hide_latency() -> None:
    """Two loads overlapped with compute through tokens take less time than in series."""
    dram = Dram(1 << 16)

    def program(overlap: bool) -> list[Instruction]:
        out: list[Instruction] = [load_uops(dram, [Uop(0, 0, 0)])]
        for k in range(4):
            out.append(MemInsn(False, Mem.INP, 0, 0, 32, 64, 64, deps=Deps(
                pop_next=k >= (2 if overlap else 1), push_next=True)))  # fmt: skip
            last = k + (2 if overlap else 1) < 4
            out.append(GemmInsn(False, 0, 1, 64, 8, 0, 0, 0, 0, 0, 0,
                                Deps(pop_prev=True, push_prev=last)))  # fmt: skip
        return [*out, FINISH]

    serial = Simulator().run(program(False), dram)
    overlapped = Simulator().run(program(True), dram, seed=3)
    assert overlapped.cycles < serial.cycles
    assert overlapped.busy == serial.busy


@pytest.mark.parametrize(
    ("kernel", "back"),
    [
        ([Uop(0, 0, 0), Uop(0, 1, 1)], 1),  # the same accumulator twice in a row
        ([Uop(0, 0, 0), Uop(1, 1, 1), Uop(0, 2, 2)], 2),  # the same one two apart
        ([Uop(0, 0, 0), Uop(1, 0, 0), Uop(2, 0, 0), Uop(3, 0, 0), Uop(3, 1, 1)], 1),
    ],
)
def test_gemm_and_alu_reject_the_accumulator_write_hazard(kernel: list[Uop], back: int) -> None:
    dram = Dram(4096)
    gemm = GemmInsn(False, 0, len(kernel), 1, 1, 0, 0, 0, 0, 0, 0)
    alu_insn = AluInsn(False, 0, len(kernel), 1, 1, 0, 0, 0, 0, AluOp.ADD, True, 1)
    for insn, name in ((gemm, "GEMM"), (alu_insn, "ALU")):
        with pytest.raises(AccelError, match=rf"write hazard.*{back} before it.*: {name} "):
            Simulator().run([load_uops(dram, kernel), insn, FINISH], dram)


def test_hazard_is_checked_on_the_instructions_range_only() -> None:
    # uops 0 and 1 both write acc[0], but each instruction runs only one of them; and
    # three distinct destinations in a cycle (0, 1, 2, 0, 1, 2) are allowed.
    dram = Dram(4096)
    kernel = [Uop(0, 0, 0), Uop(0, 1, 1), Uop(1, 0, 0), Uop(2, 0, 0), Uop(0, 0, 0)]
    kernel += [Uop(1, 0, 0), Uop(2, 0, 0)]
    program: list[Instruction] = [
        load_uops(dram, kernel),
        GemmInsn(False, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0),
        GemmInsn(False, 1, 7, 2, 3, 3, 0, 0, 0, 0, 0),
        FINISH,
    ]
    counters = Simulator().run(program, dram)
    assert counters.gemm_uops == 1 + 6 * 6
