"""The accelerator's instruction encoding: round trips, field widths, the documented layout."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

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
    decode,
    encode,
    listing,
)


def bits(n: int) -> st.SearchStrategy[int]:
    return st.integers(0, (1 << n) - 1)


deps = st.builds(Deps, st.booleans(), st.booleans(), st.booleans(), st.booleans())
mem_insns = st.builds(
    MemInsn, st.booleans(), st.sampled_from(Mem), bits(16), bits(32), bits(16), bits(16),
    bits(16), bits(4), bits(4), bits(4), bits(4), deps,
)  # fmt: skip
loop = (st.booleans(), bits(13), bits(14), bits(14), bits(14), bits(11), bits(11), bits(11),
        bits(11))  # fmt: skip
gemm_insns = st.builds(GemmInsn, *loop, bits(10), bits(10), deps)
alu_insns = st.builds(AluInsn, *loop, st.sampled_from(AluOp), st.booleans(),
                      st.integers(-(1 << 15), (1 << 15) - 1), deps)  # fmt: skip
instructions = st.one_of(mem_insns, gemm_insns, alu_insns, st.builds(FinishInsn, deps))


@given(instructions)
def test_decode_inverts_encode(insn: Instruction) -> None:
    data = encode(insn)
    assert len(data) == 16
    assert decode(data) == insn
    assert listing(insn)


@given(st.binary(min_size=16, max_size=16))
def test_encode_inverts_decode_on_valid_words(data: bytes) -> None:
    try:
        insn = decode(data)
    except ValueError:
        return  # an unknown opcode, memory id or ALU opcode
    again = decode(encode(insn))
    assert again == insn


@given(bits(11), bits(11), bits(10))
def test_uop_round_trip(dst: int, src: int, wgt: int) -> None:
    uop = Uop(dst, src, wgt)
    word = uop.encode()
    assert word < 1 << 32
    assert Uop.decode(word) == uop


def test_header_and_field_positions() -> None:
    # opcode in bits 0-2, the token flags in 3-6, as hw_spec.h lays them out
    word = int.from_bytes(encode(FinishInsn(Deps(pop_next=True, push_next=True))), "little")
    assert word == 3 | 1 << 4 | 1 << 6
    load = MemInsn(False, Mem.INP, 5, 7, 2, 3, 4, 1, 2, 3, 4)
    word = int.from_bytes(encode(load), "little")
    assert word & 7 == 0 and (word >> 7) & 7 == 2
    assert (word >> 10) & 0xFFFF == 5 and (word >> 26) & 0xFFFFFFFF == 7
    assert (word >> 64) & 0xFFFF == 2 and (word >> 80) & 0xFFFF == 3
    assert (word >> 112) & 0xF == 1 and (word >> 124) & 0xF == 4
    alu = AluInsn(False, 0, 1, 1, 1, 0, 0, 0, 0, AluOp.SHR, True, -2)
    word = int.from_bytes(encode(alu), "little")
    assert word & 7 == 4 and (word >> 108) & 7 == 3 and (word >> 111) & 1 == 1
    assert (word >> 112) & 0xFFFF == 0xFFFE  # imm is two's complement in 16 bits
    assert Uop(1, 2, 3).encode() == 1 | 2 << 11 | 3 << 22


def test_fields_that_do_not_fit_are_rejected() -> None:
    with pytest.raises(ValueError, match="sram_base=65536 does not fit 16 bits"):
        encode(MemInsn(False, Mem.INP, 1 << 16, 0, 1, 1, 1))
    with pytest.raises(ValueError, match="imm=32768 does not fit 16 signed bits"):
        encode(AluInsn(False, 0, 1, 1, 1, 0, 0, 0, 0, AluOp.ADD, True, 1 << 15))
    with pytest.raises(ValueError, match="dst index 2048 does not fit 11 bits"):
        Uop(2048, 0).encode()
    with pytest.raises(ValueError, match="unknown opcode 7"):
        decode((7).to_bytes(16, "little"))
    with pytest.raises(ValueError, match="16 bytes"):
        decode(b"\0" * 8)
