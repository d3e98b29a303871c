"""The accelerator's instruction set: 128-bit instructions and 32-bit micro-ops.

Every instruction is two little-endian 64-bit words; bit 0 is the lowest bit of word 0. The
header is common: ``opcode`` bits 0–2 (``LOAD 0, STORE 1, GEMM 2, FINISH 3, ALU 4``), then the
four dependency-token flags ``pop_prev`` 3, ``pop_next`` 4, ``push_prev`` 5, ``push_next`` 6.

==========  =========================================================================
LOAD/STORE  memory_type 7–9, sram_base 10–25, dram_base 26–57 (in elements of that memory),
            y_size 64–79, x_size 80–95 (0: a no-op that only moves tokens), x_stride 96–111,
            y_pad_0 112–115, y_pad_1 116–119, x_pad_0 120–123, x_pad_1 124–127
GEMM        reset_reg 7, uop_bgn 8–20, uop_end 21–34, iter_out 35–48, iter_in 49–62,
            dst_factor_out 64–74, dst_factor_in 75–85, src_factor_out 86–96,
            src_factor_in 97–107, wgt_factor_out 108–117, wgt_factor_in 118–127
ALU         bits 0–107 as GEMM (no weight factors), alu_opcode 108–110
            (``MIN 0, MAX 1, ADD 2, SHR 3, MUL 4``), use_imm 111, imm 112–127 (signed)
FINISH      opcode 3; the rest is ignored
micro-op    dst_idx 0–10, src_idx 11–21, wgt_idx 22–31
==========  =========================================================================

Memory ids: ``UOP 0, WGT 1, INP 2, ACC 3, OUT 4, ACC_8BIT 5``. Instructions are frozen
dataclasses; ``encode(insn) -> bytes`` (16 bytes) and ``decode(bytes) -> Instruction`` are
exact inverses on instructions whose fields fit their widths (``encode`` raises
``ValueError`` on a field that does not). ``listing(insn)`` is one readable line.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields
from typing import ClassVar, TypeAlias


class Opcode(enum.IntEnum):
    """The 3-bit instruction opcode."""

    LOAD = 0
    STORE = 1
    GEMM = 2
    FINISH = 3
    ALU = 4


class Mem(enum.IntEnum):
    """The 3-bit memory id of a LOAD or STORE."""

    UOP = 0
    WGT = 1
    INP = 2
    ACC = 3
    OUT = 4
    ACC_8BIT = 5


class AluOp(enum.IntEnum):
    """The 3-bit ALU opcode."""

    MIN = 0
    MAX = 1
    ADD = 2
    SHR = 3
    MUL = 4


@dataclass(frozen=True)
class Deps:
    """The dependency-token flags of an instruction (see ``sim`` for their meaning)."""

    pop_prev: bool = False
    pop_next: bool = False
    push_prev: bool = False
    push_next: bool = False

    def text(self) -> str:
        """``pop_prev push_next`` and so on; empty if none is set."""
        return " ".join(f.name for f in fields(self) if getattr(self, f.name))


NO_DEPS = Deps()

# A field: (name, low bit, width). Signed fields are named in SIGNED.
Layout: TypeAlias = tuple[tuple[str, int, int], ...]

_HEADER: Layout = (("pop_prev", 3, 1), ("pop_next", 4, 1), ("push_prev", 5, 1),
                   ("push_next", 6, 1))  # fmt: skip
_MEM: Layout = (("memory_type", 7, 3), ("sram_base", 10, 16), ("dram_base", 26, 32),
                ("y_size", 64, 16), ("x_size", 80, 16), ("x_stride", 96, 16),
                ("y_pad_0", 112, 4), ("y_pad_1", 116, 4), ("x_pad_0", 120, 4),
                ("x_pad_1", 124, 4))  # fmt: skip
_LOOP: Layout = (("reset_reg", 7, 1), ("uop_bgn", 8, 13), ("uop_end", 21, 14),
                 ("iter_out", 35, 14), ("iter_in", 49, 14), ("dst_factor_out", 64, 11),
                 ("dst_factor_in", 75, 11), ("src_factor_out", 86, 11),
                 ("src_factor_in", 97, 11))  # fmt: skip
_GEMM: Layout = (*_LOOP, ("wgt_factor_out", 108, 10), ("wgt_factor_in", 118, 10))
_ALU: Layout = (*_LOOP, ("alu_opcode", 108, 3), ("use_imm", 111, 1), ("imm", 112, 16))
SIGNED = frozenset({"imm"})


@dataclass(frozen=True)
class MemInsn:
    """LOAD (``store=False``) or STORE: a 2-D strided copy between DRAM and an on-chip memory,
    ``y_size`` rows of ``x_size`` elements ``x_stride`` apart in DRAM, packed densely in SRAM
    with ``y_pad_0/1`` zero rows above/below and ``x_pad_0/1`` zero elements left/right (loads
    only). ``x_size == 0`` is a no-op that carries dependency tokens."""

    store: bool
    memory_type: Mem
    sram_base: int
    dram_base: int
    y_size: int
    x_size: int
    x_stride: int
    y_pad_0: int = 0
    y_pad_1: int = 0
    x_pad_0: int = 0
    x_pad_1: int = 0
    deps: Deps = NO_DEPS

    layout: ClassVar[Layout] = _MEM

    @property
    def opcode(self) -> Opcode:
        """STORE or LOAD."""
        return Opcode.STORE if self.store else Opcode.LOAD


@dataclass(frozen=True)
class GemmInsn:
    """GEMM over micro-ops ``[uop_bgn, uop_end)`` in a two-level loop (``iter_out`` ×
    ``iter_in``); each index of a micro-op is offset by ``i * factor_out + j * factor_in``.
    ``reset_reg`` zeroes the addressed accumulators instead of accumulating."""

    reset_reg: bool
    uop_bgn: int
    uop_end: int
    iter_out: int
    iter_in: int
    dst_factor_out: int
    dst_factor_in: int
    src_factor_out: int
    src_factor_in: int
    wgt_factor_out: int
    wgt_factor_in: int
    deps: Deps = NO_DEPS

    layout: ClassVar[Layout] = _GEMM
    opcode: ClassVar[Opcode] = Opcode.GEMM


@dataclass(frozen=True)
class AluInsn:
    """ALU over micro-ops as GEMM: ``acc[dst] = op(acc[dst], imm if use_imm else acc[src])``,
    lane by lane, in int32. ``reset_reg`` zeroes ``acc[dst]`` instead."""

    reset_reg: bool
    uop_bgn: int
    uop_end: int
    iter_out: int
    iter_in: int
    dst_factor_out: int
    dst_factor_in: int
    src_factor_out: int
    src_factor_in: int
    alu_opcode: AluOp
    use_imm: bool
    imm: int
    deps: Deps = NO_DEPS

    layout: ClassVar[Layout] = _ALU
    opcode: ClassVar[Opcode] = Opcode.ALU


@dataclass(frozen=True)
class FinishInsn:
    """FINISH: the end of the program (it executes in the compute module)."""

    deps: Deps = NO_DEPS

    layout: ClassVar[Layout] = ()
    opcode: ClassVar[Opcode] = Opcode.FINISH


Instruction: TypeAlias = MemInsn | GemmInsn | AluInsn | FinishInsn


@dataclass(frozen=True)
class Uop:
    """A micro-op: the accumulator (``dst``), input or ALU source (``src``) and weight
    (``wgt``) indices, each offset by the instruction's loop."""

    dst: int
    src: int
    wgt: int = 0

    def encode(self) -> int:
        """The 32-bit word; ``ValueError`` if an index does not fit its field."""
        for name, width, value in (("dst", 11, self.dst), ("src", 11, self.src),
                                   ("wgt", 10, self.wgt)):  # fmt: skip
            if not 0 <= value < 1 << width:
                raise ValueError(f"micro-op {name} index {value} does not fit {width} bits")
        return self.dst | self.src << 11 | self.wgt << 22

    @staticmethod
    def decode(word: int) -> Uop:
        """The micro-op of a 32-bit word."""
        return Uop(word & 0x7FF, (word >> 11) & 0x7FF, (word >> 22) & 0x3FF)


def _put(word: int, name: str, low: int, width: int, value: int) -> int:
    if name in SIGNED:
        if not -(1 << (width - 1)) <= value < 1 << (width - 1):
            raise ValueError(f"field {name}={value} does not fit {width} signed bits")
        value &= (1 << width) - 1
    elif not 0 <= value < 1 << width:
        raise ValueError(f"field {name}={value} does not fit {width} bits")
    return word | value << low


def _get(word: int, name: str, low: int, width: int) -> int:
    value = (word >> low) & ((1 << width) - 1)
    if name in SIGNED and value >> (width - 1):
        value -= 1 << width
    return value


def encode(insn: Instruction) -> bytes:
    """The 16 bytes of ``insn``; ``ValueError`` if a field does not fit its width."""
    word = int(insn.opcode)
    for name, low, width in _HEADER:
        word = _put(word, name, low, width, int(getattr(insn.deps, name)))
    for name, low, width in insn.layout:
        word = _put(word, name, low, width, int(getattr(insn, name)))
    return word.to_bytes(16, "little")


def decode(data: bytes) -> Instruction:
    """The instruction of 16 bytes; ``ValueError`` for an unknown opcode or memory id."""
    if len(data) != 16:
        raise ValueError(f"an instruction is 16 bytes, not {len(data)}")
    word = int.from_bytes(data, "little")
    deps = Deps(*(bool(_get(word, *f)) for f in _HEADER))
    op = word & 7
    if op == Opcode.FINISH:
        return FinishInsn(deps)
    if op in (Opcode.LOAD, Opcode.STORE):
        v = [_get(word, *f) for f in _MEM]
        if v[0] not in Mem._value2member_map_:
            raise ValueError(f"unknown memory id {v[0]}")
        mem, sram, dram, ys, xs, stride, yp0, yp1, xp0, xp1 = v
        return MemInsn(op == Opcode.STORE, Mem(mem), sram, dram, ys, xs, stride, yp0, yp1, xp0,
                       xp1, deps)  # fmt: skip
    if op == Opcode.GEMM:
        g = [_get(word, *f) for f in _GEMM]
        reset, bgn, end, io, ii, dfo, dfi, sfo, sfi, wfo, wfi = g
        return GemmInsn(bool(reset), bgn, end, io, ii, dfo, dfi, sfo, sfi, wfo, wfi, deps)
    if op == Opcode.ALU:
        a = [_get(word, *f) for f in _ALU]
        if a[9] not in AluOp._value2member_map_:
            raise ValueError(f"unknown ALU opcode {a[9]}")
        reset, bgn, end, io, ii, dfo, dfi, sfo, sfi, alu_op, use_imm, imm = a
        return AluInsn(bool(reset), bgn, end, io, ii, dfo, dfi, sfo, sfi, AluOp(alu_op),
                       bool(use_imm), imm, deps)  # fmt: skip
    raise ValueError(f"unknown opcode {op}")


def _loop_text(i: GemmInsn | AluInsn) -> str:
    return (f"uop[{i.uop_bgn}:{i.uop_end}] loop {i.iter_out}x{i.iter_in} "
            f"dst+={i.dst_factor_out},{i.dst_factor_in} "
            f"src+={i.src_factor_out},{i.src_factor_in}")  # fmt: skip


def listing(insn: Instruction) -> str:
    """One readable line for ``insn``: its opcode, operands and dependency flags."""
    deps = insn.deps.text()
    match insn:
        case MemInsn():
            pads = (insn.y_pad_0, insn.y_pad_1, insn.x_pad_0, insn.x_pad_1)
            pad = f" pad {pads}" if any(pads) else ""
            if insn.x_size == 0:
                text = f"{insn.opcode.name:<6} NOP"
            else:
                text = (f"{insn.opcode.name:<6} {insn.memory_type.name:<4} "
                        f"sram[{insn.sram_base}] dram[{insn.dram_base}] "
                        f"{insn.y_size}x{insn.x_size} stride {insn.x_stride}{pad}")  # fmt: skip
        case GemmInsn():
            reset = "reset " if insn.reset_reg else ""
            text = (
                f"GEMM   {reset}{_loop_text(insn)} wgt+={insn.wgt_factor_out},{insn.wgt_factor_in}"
            )
        case AluInsn():
            operand = f"imm {insn.imm}" if insn.use_imm else "acc[src]"
            if insn.reset_reg:
                operand = "reset"
            text = f"ALU    {insn.alu_opcode.name:<3} {operand} {_loop_text(insn)}"
        case FinishInsn():
            text = "FINISH"
    return f"{text}  ; {deps}" if deps else text


__all__ = [
    "NO_DEPS",
    "AluInsn",
    "AluOp",
    "Deps",
    "FinishInsn",
    "GemmInsn",
    "Instruction",
    "Mem",
    "MemInsn",
    "Opcode",
    "Uop",
    "decode",
    "encode",
    "listing",
]
