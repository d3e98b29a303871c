"""Instruction generation: a quantized convolution (or dense layer) and its ALU tail as one
accelerator program.

**The computation** (``Layer``): ``out[n, o, y, x] = tail(sum_{c, i, j} data[n, c, y*sh + i*dh
- pt, x*sw + j*dw - pl] * weight[o, c, i, j])``, int8 × int8 summed in int32, where ``tail`` is a
sequence of ALU steps (``AluStep``: an operation with an immediate, or with an int32 operand
tensor that varies per output channel or per output element), and the result is stored as its
low 8 bits. A dense layer is the 1×1 convolution of a ``1 × K × 1 × B`` image.

**DRAM layout** (all packed to blocks of 16 channels, zero-padded): data ``(N, C/16, H, W, 16)``
int8, weights ``(O/16, C/16, KH, KW, 16o, 16i)`` int8, output ``(N, O/16, OH, OW, 16)`` int8,
a per-element operand like the output in int32, a per-channel operand ``(O/16, 16)`` int32.

**Tiling.** The output is cut into tiles of ``G`` output-channel blocks × ``TH`` output rows ×
``TW`` columns (all of them when a row fits) of one image; each tile's input is read in steps
of ``CS`` input-channel blocks, the slab of ``(TH-1)*sh + (KH-1)*dh + 1`` by
``(TW-1)*sw + (KW-1)*dw + 1`` input elements each step needs (padding made by the loads).
``plan`` picks the largest tile, then the largest ``G``, then ``CS``, for which two copies of a
step's input and weights (INP, WGT) and of a tile's accumulators (ACC) fit the buffers: the
halves of each buffer are the two *virtual threads* of double buffering.

**The program.** For tile ``t`` (accumulator half ``t % 2``) and its steps ``k`` (global step
index; input/weight half ``k % 2``):

- load: LOAD INP (one 2-D load per input-channel block, the zero padding made on the fly),
  LOAD WGT (skipped when that half already holds the same weights: consecutive tiles of one
  output-channel group whose input channels fit one step reuse them); the first pops ``g2l``
  if ``k >= 2`` (compute has finished with that half), the last pushes ``l2g``;
- compute: on a tile's first step, a GEMM reset of its accumulators, popping ``s2g`` if
  ``t >= 2`` (the store of tile ``t - 2`` has read that half); the step's GEMMs (one or two,
  or one per reduction term, see the hazard below), the first popping ``l2g``, the last
  pushing ``g2l`` if a later step will wait for that half (``k + 2 < K``); micro-op kernels
  are loaded (LOAD UOP) only when not resident in the micro-op cache (``UopCache``);
- then the tail: one ALU instruction per step (an operand loaded into the accumulator's
  operand area by LOAD ACC first), the last pushing ``g2s``;
- store: one STORE per tile, popping ``g2s`` and pushing ``s2g`` if tile ``t + 2`` exists or
  ``t`` is the last;
- the end: a compute no-op popping the last ``s2g``, then FINISH.

Every token pushed is popped: a run ends with empty queues, which the simulator checks.

**The accumulator write hazard.** No micro-op may write the accumulator either of the two
micro-ops before it writes (``sim``). Every kernel generated obeys it: a GEMM kernel's
micro-ops cycle through at least three destinations within each reduction term (output-channel
blocks innermost, then output columns or rows taken into the kernel when the blocks are
fewer than three), and a tile with fewer than three destinations in all gets one GEMM per
reduction term (``_gemm_kernels``). The reset and ALU kernels write a distinct accumulator
with each micro-op.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

import numpy as np
import numpy.typing as npt

from .config import DEFAULT, Config
from .isa import (
    AluInsn,
    AluOp,
    Deps,
    FinishInsn,
    GemmInsn,
    Instruction,
    Mem,
    MemInsn,
    Uop,
    listing,
)


class CodegenError(Exception):
    """A layer the generator cannot map to the accelerator (too wide for the buffers, padding
    beyond the 4-bit pad fields, ...): the reason. The target runs such a layer on the CPU."""


@dataclass(frozen=True)
class AluStep:
    """One ALU step of the tail: ``acc = op(acc, imm)``, or ``op(acc, operand)`` for operand
    tensor number ``operand`` (``per`` says whether it varies per output ``channel`` or per
    output ``element``)."""

    op: AluOp
    imm: int = 0
    operand: int | None = None
    per: Literal["channel", "element"] = "element"

    def text(self) -> str:
        """``SHR 3``, ``ADD operand0[channel]``."""
        if self.operand is None:
            return f"{self.op.name} {self.imm}"
        return f"{self.op.name} operand{self.operand}[{self.per}]"


@dataclass(frozen=True)
class Layer:
    """A convolution's geometry (see the module docstring) and its tail."""

    n: int
    c: int
    h: int
    w: int
    o: int
    kh: int
    kw: int
    stride: tuple[int, int] = (1, 1)
    padding: tuple[int, int, int, int] = (0, 0, 0, 0)
    """Top, left, bottom, right."""
    dilation: tuple[int, int] = (1, 1)
    tail: tuple[AluStep, ...] = ()

    @property
    def oh(self) -> int:
        """Output rows."""
        pt, _, pb, _ = self.padding
        return (self.h + pt + pb - (self.kh - 1) * self.dilation[0] - 1) // self.stride[0] + 1

    @property
    def ow(self) -> int:
        """Output columns."""
        _, pl, _, pr = self.padding
        return (self.w + pl + pr - (self.kw - 1) * self.dilation[1] - 1) // self.stride[1] + 1

    def rows_in(self, th: int) -> int:
        """Input rows (padding included) that ``th`` output rows read."""
        return (th - 1) * self.stride[0] + (self.kh - 1) * self.dilation[0] + 1

    def cols_in(self, tw: int) -> int:
        """Input columns (padding included) that ``tw`` output columns read."""
        return (tw - 1) * self.stride[1] + (self.kw - 1) * self.dilation[1] + 1

    @property
    def macs(self) -> int:
        """Useful multiply-accumulates (without channel padding)."""
        return self.n * self.o * self.oh * self.ow * self.c * self.kh * self.kw

    def blocks(self, block: int) -> tuple[int, int]:
        """Input and output channel blocks."""
        return -(-self.c // block), -(-self.o // block)


@dataclass(frozen=True)
class Tiling:
    """The tile sizes ``plan`` chose: ``g`` output-channel blocks, ``th`` output rows by ``tw``
    columns, ``cs`` input-channel blocks per load step."""

    g: int
    th: int
    cs: int
    tw: int = 0
    """Output columns per tile (0: all of them)."""


@dataclass
class Buffers:
    """Where each packed array lives in DRAM (byte addresses) and the total size."""

    data: int = 0
    weight: int = 0
    output: int = 0
    uops: int = 0
    zeros: int = 0
    operands: list[int] = field(default_factory=list)
    size: int = 0


@dataclass
class AccelProgram:
    """A generated program: the instructions, the micro-ops (placed in DRAM at
    ``buffers.uops``), the DRAM layout, the tiling and the layer."""

    layer: Layer
    tiling: Tiling
    instructions: list[Instruction]
    uops: list[Uop]
    buffers: Buffers
    config: Config

    def listing(self) -> str:
        """The readable instruction listing: a header, then one numbered line each."""
        lay, t = self.layer, self.tiling
        head = [
            f"; accelerator program ({self.config.name}): conv {lay.n}x{lay.c}x{lay.h}x{lay.w}"
            f" * {lay.o}x{lay.c}x{lay.kh}x{lay.kw} stride {lay.stride} pad {lay.padding}"
            f" dilation {lay.dilation} -> {lay.n}x{lay.o}x{lay.oh}x{lay.ow}",
            f"; tail: {', '.join(s.text() for s in lay.tail) or 'none'}; store low 8 bits",
            f"; tiles: {t.g} output-channel blocks x {t.th} rows, {t.cs} input-channel "
            f"blocks per load step; {len(self.instructions)} instructions, "
            f"{len(self.uops)} micro-ops in DRAM",
        ]
        width = len(str(len(self.instructions)))
        body = [f"{i:>{width}}  {listing(insn)}" for i, insn in enumerate(self.instructions)]
        return "\n".join(head + body) + "\n"


class UopCache:
    """The micro-op cache of the runtime: kernels (lists of micro-ops, by key) resident in the
    micro-op buffer; a kernel not resident is appended after the last one, the buffer wrapping
    to 0 (evicting the kernels it overlaps) when it does not fit."""

    def __init__(self, depth: int) -> None:
        self.depth = depth
        self.resident: dict[object, tuple[int, int]] = {}
        self.end = 0
        self.dram: list[Uop] = []
        self.dram_of: dict[object, int] = {}

    def place(self, key: object, uops: list[Uop]) -> tuple[int, int, MemInsn | None]:
        """The buffer range of kernel ``key`` and the LOAD UOP that brings it in (``None`` if
        it is resident)."""
        if not 0 < len(uops) <= self.depth:
            raise CodegenError(f"a micro-op kernel of {len(uops)} micro-ops does not fit the "
                               f"{self.depth}-entry micro-op buffer")  # fmt: skip
        if key in self.resident:
            bgn, end = self.resident[key]
            return bgn, end, None
        if key not in self.dram_of:
            self.dram_of[key] = len(self.dram)
            self.dram.extend(uops)
        if self.end + len(uops) > self.depth:
            self.end = 0
        bgn, end = self.end, self.end + len(uops)
        self.resident = {k: r for k, r in self.resident.items() if r[1] <= bgn or r[0] >= end}
        self.resident[key] = (bgn, end)
        self.end = end
        load = MemInsn(False, Mem.UOP, bgn, self.dram_of[key], 1, len(uops), len(uops))
        return bgn, end, load


def usable_depths(config: Config) -> tuple[int, int, int]:
    """The input, weight and accumulator entries a program can address: the buffers' depths,
    at most what the micro-op fields reach (11, 10 and 11 bits)."""
    return (min(config.inp_depth, 1 << 11), min(config.wgt_depth, 1 << 10),
            min(config.acc_depth, 1 << 11))  # fmt: skip


def plan(layer: Layer, config: Config = DEFAULT) -> Tiling:
    """The largest tiling whose two halves fit the buffers (see the module docstring): whole
    rows if one fits, else the widest run of columns; ``CodegenError`` if not even one output
    element of one block fits."""
    ct, ot = layer.blocks(config.block)
    kk = layer.kh * layer.kw
    inp_depth, wgt_depth, acc_depth = usable_depths(config)
    operand_elems = any(s.operand is not None and s.per == "element" for s in layer.tail)

    def fits(g: int, th: int, tw: int, cs: int) -> bool:
        acc = g * th * tw
        operand = acc if operand_elems else g
        return (2 * cs * layer.rows_in(th) * layer.cols_in(tw) <= inp_depth
                and 2 * g * cs * kk <= wgt_depth and 2 * acc + operand <= acc_depth)  # fmt: skip

    widths = [w for w in range(layer.ow, 0, -1) if fits(1, 1, w, 1)]
    if not widths:
        raise CodegenError(f"one output element ({layer.kh}x{layer.kw} taps, dilation "
                           f"{layer.dilation}) does not fit the buffers")  # fmt: skip
    tw = widths[0]
    best: tuple[int, int, int] | None = None
    for g in range(1, ot + 1):
        if not fits(g, 1, tw, 1):
            break
        th = max(t for t in range(1, layer.oh + 1) if fits(g, t, tw, 1))
        cs = max(c for c in range(1, ct + 1) if fits(g, th, tw, c))
        # Prefer tiles that cover the most output work per tile, then fewer load steps.
        if best is None or (g * th, cs) > (best[0] * best[1], best[2]):
            best = (g, th, cs)
    assert best is not None
    return Tiling(*best, tw=tw)


@dataclass
class _Emitter:
    """Collects the instruction stream; attaches token flags."""

    insns: list[Instruction] = field(default_factory=list)

    def add(self, insn: Instruction) -> int:
        self.insns.append(insn)
        return len(self.insns) - 1

    def flag(self, index: int, **flags: bool) -> None:
        insn = self.insns[index]
        deps = replace(insn.deps, **{k: v or getattr(insn.deps, k) for k, v in flags.items()})
        self.insns[index] = replace(insn, deps=deps)


def generate(layer: Layer, config: Config = DEFAULT, tiling: Tiling | None = None
             ) -> AccelProgram:  # fmt: skip
    """The accelerator program computing ``layer`` (see the module docstring)."""
    for name, pad in zip(("top", "left", "bottom", "right"), layer.padding, strict=True):
        if not 0 <= pad < 16:
            raise CodegenError(f"padding {name}={pad} does not fit the 4-bit pad fields")
    if layer.oh < 1 or layer.ow < 1:
        raise CodegenError("the convolution has an empty output")
    t = tiling or plan(layer, config)
    b = config.block
    ct, ot = layer.blocks(b)
    kk = layer.kh * layer.kw
    pt, pl, _, _ = layer.padding
    sh, sw = layer.stride
    oh, ow = layer.oh, layer.ow

    # DRAM: element addresses (byte address // element size) of each packed array.
    bufs = Buffers()
    offset = 0

    def region(nbytes: int) -> int:
        nonlocal offset
        addr = offset
        offset += -(-max(nbytes, 1) // 256) * 256
        return addr

    bufs.data = region(layer.n * ct * layer.h * layer.w * b)
    bufs.weight = region(ot * ct * kk * b * b)
    bufs.output = region(layer.n * ot * oh * ow * b)
    n_operands = 1 + max((s.operand for s in layer.tail if s.operand is not None), default=-1)
    for i in range(n_operands):
        per = next(s.per for s in layer.tail if s.operand == i)
        elems = layer.n * ot * oh * ow if per == "element" else ot
        bufs.operands.append(region(elems * 4 * b))

    t = replace(t, tw=t.tw or ow)
    bufs.zeros = region(layer.rows_in(t.th) * layer.cols_in(t.tw) * b)
    if oh * ow >= 1 << 16 or layer.w >= 1 << 16:
        raise CodegenError(f"an output of {oh}x{ow} is too large for the 16-bit DMA strides")
    inp_depth, wgt_depth, _ = usable_depths(config)
    inp_half = inp_depth // 2
    wgt_half = wgt_depth // 2
    acc_half = t.g * t.th * t.tw
    operand_base = 2 * acc_half
    cache = UopCache(config.uop_depth)
    em = _Emitter()

    tiles = [(n, r0, min(t.th, oh - r0), q0, min(t.tw, ow - q0), o0, min(t.g, ot - o0))
             for n in range(layer.n) for o0 in range(0, ot, t.g)
             for r0 in range(0, oh, t.th) for q0 in range(0, ow, t.tw)]  # fmt: skip
    steps_per_tile = -(-ct // t.cs)
    total_steps = len(tiles) * steps_per_tile
    resident: dict[int, tuple[int, int, int, int]] = {}  # the weights in each half
    k = 0
    for ti, (n, r0, th, q0, tw, o0, g) in enumerate(tiles):
        abase = (ti % 2) * acc_half
        area = th * tw  # accumulators per output-channel block: [g][th][tw]
        rows, cols = layer.rows_in(th), layer.cols_in(tw)
        first_row, first_col = r0 * sh - pt, q0 * sw - pl  # the slab's corner, padding in
        lo, hi = max(first_row, 0), min(first_row + rows, layer.h)
        left, right = max(first_col, 0), min(first_col + cols, layer.w)
        pads = (lo - first_row, first_row + rows - hi, left - first_col,
                first_col + cols - right)  # fmt: skip
        for si, c0 in enumerate(range(0, ct, t.cs)):
            cs = min(t.cs, ct - c0)
            ibase = (k % 2) * inp_half
            wbase = (k % 2) * wgt_half
            # load: the input slab, one block of input channels at a time, then the weights
            first_load = None
            for c in range(cs):
                sram = ibase + c * rows * cols
                if hi > lo and right > left:
                    dram = bufs.data // b + ((n * ct + c0 + c) * layer.h + lo) * layer.w + left
                    insn = MemInsn(False, Mem.INP, sram, dram, hi - lo, right - left, layer.w,
                                   *pads)  # fmt: skip
                else:  # a slab of padding only: zeros from the zero region
                    insn = MemInsn(False, Mem.INP, sram, bufs.zeros // b, rows, cols, cols)
                index = em.add(insn)
                first_load = index if first_load is None else first_load
            if resident.get(k % 2) != (o0, g, c0, cs):  # else still in this half: reused
                resident[k % 2] = (o0, g, c0, cs)
                for g_ in range(g):  # weights of output block o0+g_, input blocks c0..c0+cs
                    dram = bufs.weight // (b * b) + ((o0 + g_) * ct + c0) * kk
                    em.add(MemInsn(False, Mem.WGT, wbase + g_ * cs * kk, dram, 1, cs * kk,
                                   cs * kk))  # fmt: skip
            assert first_load is not None
            if k >= 2:
                em.flag(first_load, pop_next=True)
            em.flag(len(em.insns) - 1, push_next=True)
            # compute: reset on a tile's first step, then the step's GEMM
            if si == 0:
                bgn, end, load = cache.place(("reset", abase), [Uop(abase, 0, 0)])
                if load is not None:
                    em.add(load)
                # The reset covers the whole half (a short tile resets more than it uses).
                reset = em.add(GemmInsn(True, bgn, end, 1, acc_half, 0, 1, 0, 0, 0, 0))
                if ti >= 2:
                    em.flag(reset, pop_next=True)
            gemms = []
            for key, uops, gemm_insns in _gemm_kernels(layer, g, th, tw, cs, abase, ibase, wbase):
                bgn, _, load = cache.place(("gemm", ti % 2, k % 2, g, th, tw, cs, key), uops)
                if load is not None:
                    em.add(load)
                gemms += [em.add(replace(insn, uop_bgn=bgn + insn.uop_bgn,
                                         uop_end=bgn + insn.uop_end))
                          for insn in gemm_insns]  # fmt: skip
            em.flag(gemms[0], pop_prev=True)
            em.flag(gemms[-1], push_prev=k + 2 < total_steps)
            k += 1

        # the element offset of the tile of output block o0 + g_ in a packed output array
        at = ((n * ot + o0) * oh + r0) * ow + q0

        # the tail, on the tile's accumulators
        last_alu = None
        for step in layer.tail:
            if step.operand is None:
                bgn, end, load = cache.place(("alu-imm", abase), [Uop(abase, 0)])
                if load is not None:
                    em.add(load)
                last_alu = em.add(AluInsn(False, bgn, end, 1, g * area, 0, 1, 0, 0, step.op,
                                          True, step.imm))  # fmt: skip
                continue
            addr = bufs.operands[step.operand] // (4 * b)
            if step.per == "channel":
                em.add(MemInsn(False, Mem.ACC, operand_base, addr + o0, 1, g, g))
                kernel = [Uop(abase + g_ * area, operand_base + g_) for g_ in range(g)]
                bgn, end, load = cache.place(("alu-ch", abase, g, area), kernel)
                if load is not None:
                    em.add(load)
                last_alu = em.add(AluInsn(False, bgn, end, 1, area, 0, 1, 0, 0, step.op,
                                          False, 0))  # fmt: skip
            else:
                if tw == ow:  # whole rows: the g blocks' tiles in one 2-D load
                    em.add(MemInsn(False, Mem.ACC, operand_base, addr + at, g, area,
                                   oh * ow))  # fmt: skip
                else:
                    for g_ in range(g):
                        em.add(MemInsn(False, Mem.ACC, operand_base + g_ * area,
                                       addr + at + g_ * oh * ow, th, tw, ow))  # fmt: skip
                bgn, end, load = cache.place(("alu-el", abase), [Uop(abase, operand_base)])
                if load is not None:
                    em.add(load)
                last_alu = em.add(AluInsn(False, bgn, end, 1, g * area, 0, 1, 0, 1, step.op,
                                          False, 0))  # fmt: skip
        if last_alu is None:  # no tail: the last GEMM hands the tile to the store
            last_alu = len(em.insns) - 1
        em.flag(last_alu, push_next=True)
        out = bufs.output // b
        if tw == ow:
            stores = [em.add(MemInsn(True, Mem.OUT, abase, out + at, g, area, oh * ow))]
        else:
            stores = [em.add(MemInsn(True, Mem.OUT, abase + g_ * area,
                                     out + at + g_ * oh * ow, th, tw, ow))
                      for g_ in range(g)]  # fmt: skip
        em.flag(stores[0], pop_prev=True)
        em.flag(stores[-1], push_prev=ti + 2 < len(tiles) or ti == len(tiles) - 1)
    em.add(MemInsn(False, Mem.UOP, 0, 0, 0, 0, 0, deps=Deps(pop_next=True)))
    em.add(FinishInsn())
    bufs.uops = region(4 * len(cache.dram))
    bufs.size = offset
    # The micro-ops' region comes last, once their number is known: relocate the LOAD UOPs.
    insns = [replace(i, dram_base=i.dram_base + bufs.uops // 4)
             if isinstance(i, MemInsn) and i.memory_type == Mem.UOP and i.x_size else i
             for i in em.insns]  # fmt: skip
    return AccelProgram(layer, t, insns, cache.dram, bufs, config)


HAZARD_DISTANCE = 3
"""A micro-op may not write the accumulator that either of the two before it writes (the
accumulator write hazard, see ``sim``): a kernel needs this many destinations per reduction
term for its micro-ops to cycle through them."""


def _chunks(n: int, least: int) -> list[tuple[int, int, int]]:
    """``n`` positions cut into chunks of at least ``least``, as ``(first, size, count)``
    segments: one segment of equal chunks if a size in ``[least, 2 * least)`` divides ``n``,
    else ``count - 1`` chunks of ``least`` and a last, larger one."""
    for size in range(least, 2 * least):
        if n % size == 0:
            return [(0, size, n // size)]
    whole = n // least
    return [(0, least, whole - 1), ((whole - 1) * least, least + n % least, 1)]


def _gemm_kernels(layer: Layer, g: int, th: int, tw: int, cs: int, abase: int, ibase: int,
                  wbase: int) -> list[tuple[object, list[Uop], list[GemmInsn]]]:  # fmt: skip
    """The micro-op kernels of one load step's GEMM over a ``g × th × tw`` tile, each with
    its instructions (micro-op ranges relative to the kernel): ``(key, uops, insns)``.

    The accumulator write hazard wants a destination that changes from one micro-op to the
    next and differs from the one two before. A kernel's micro-ops run over the reduction
    terms (input-channel block, tap row, tap column) and, within a term, over
    ``HAZARD_DISTANCE`` or more destinations: the ``g`` output-channel blocks, then, when
    ``g`` is fewer, output columns (a chunk of ``u`` of them, the instruction's inner loop
    stepping over chunks) or, when the tile's columns are still too few, output rows likewise
    (the outer loop). A tile with fewer destinations than that (a dense layer of one or two
    output blocks, say) splits the reduction instead: one instruction per reduction term,
    each over the tile's destinations; an instruction's pipeline drains before the next
    starts, so the terms may write the same accumulators."""
    kk = layer.kh * layer.kw
    sh, sw = layer.stride
    dh, dw = layer.dilation
    rows, cols = layer.rows_in(th), layer.cols_in(tw)
    area = th * tw
    columns, lines = [(0, 1, tw)], [(0, 1, th)]
    split = g * th * tw < HAZARD_DISTANCE
    if split:
        columns, lines = [(0, tw, 1)], [(0, th, 1)]
    elif g * tw >= HAZARD_DISTANCE:
        columns = _chunks(tw, -(-HAZARD_DISTANCE // g)) if g < HAZARD_DISTANCE else columns
    else:
        columns, lines = [(0, tw, 1)], _chunks(th, -(-HAZARD_DISTANCE // (g * tw)))
    out: list[tuple[object, list[Uop], list[GemmInsn]]] = []
    for y0, v, ny in lines:
        for x0, u, nx in columns:
            uops = [Uop(abase + g_ * area + (y0 + y) * tw + x0 + x,
                        ibase + c * rows * cols + ((y0 + y) * sh + i * dh) * cols
                        + (x0 + x) * sw + j * dw,
                        wbase + g_ * cs * kk + c * kk + i * layer.kw + j)
                    for c in range(cs) for i in range(layer.kh) for j in range(layer.kw)
                    for g_ in range(g) for y in range(v) for x in range(u)]  # fmt: skip
            if split:
                per = g * v * u
                insns = [GemmInsn(False, t, t + per, 1, 1, 0, 0, 0, 0, 0, 0)
                         for t in range(0, len(uops), per)]  # fmt: skip
            else:
                insns = [GemmInsn(False, 0, len(uops), ny, nx, v * tw, u, v * sh * cols,
                                  u * sw, 0, 0)]  # fmt: skip
            out.append(((split, y0, v, ny, x0, u, nx), uops, insns))
    return out


def hazards(program: AccelProgram) -> list[str]:
    """The GEMM and ALU instructions of ``program`` that break the accumulator write hazard
    (a micro-op of the instruction's range writing the accumulator of one of the
    ``HAZARD_DISTANCE - 1`` before it, the check ``sim`` makes when it runs them), as
    ``"<index>: <listing>"``; ``[]`` for every program ``generate`` makes. Static: it follows
    the LOAD UOPs to know what the micro-op buffer holds."""
    buffer: dict[int, int] = {}  # micro-op buffer entry -> its dst
    first = program.buffers.uops // 4
    bad = []
    for n, insn in enumerate(program.instructions):
        if isinstance(insn, MemInsn) and insn.memory_type == Mem.UOP and not insn.store:
            for r in range(insn.y_size if insn.x_size else 0):
                for x in range(insn.x_size):
                    uop = program.uops[insn.dram_base - first + r * insn.x_stride + x]
                    buffer[insn.sram_base + r * insn.x_size + x] = uop.dst
        elif isinstance(insn, GemmInsn | AluInsn):
            dst = [buffer.get(k) for k in range(insn.uop_bgn, insn.uop_end)]
            if any(d == dst[k - back] for k, d in enumerate(dst)
                   for back in range(1, HAZARD_DISTANCE)
                   if k >= back):  # fmt: skip
                bad.append(f"{n}: {listing(insn)}")
    return bad


def pack_data(x: npt.NDArray[np.generic], block: int = 16) -> npt.NDArray[np.generic]:
    """``(N, C, H, W)`` → ``(N, C/16, H, W, 16)``, the channels zero-padded."""
    n, c, h, w = x.shape
    ct = -(-c // block)
    padded = np.zeros((n, ct * block, h, w), dtype=x.dtype)
    padded[:, :c] = x
    return np.ascontiguousarray(padded.reshape(n, ct, block, h, w).transpose(0, 1, 3, 4, 2))


def pack_weight(w: npt.NDArray[np.generic], block: int = 16) -> npt.NDArray[np.generic]:
    """``(O, C, KH, KW)`` int8 → ``(O/16, C/16, KH, KW, 16o, 16i)``, zero-padded."""
    o, c, kh, kw = w.shape
    ot, ct = -(-o // block), -(-c // block)
    padded = np.zeros((ot * block, ct * block, kh, kw), dtype=np.int8)
    padded[:o, :c] = w
    tiles = padded.reshape(ot, block, ct, block, kh, kw).transpose(0, 2, 4, 5, 1, 3)
    return np.ascontiguousarray(tiles)


def unpack_output(y: npt.NDArray[np.generic], o: int) -> npt.NDArray[np.generic]:
    """``(N, O/16, OH, OW, 16)`` → ``(N, O, OH, OW)``."""
    n, ot, oh, ow, b = y.shape
    return np.ascontiguousarray(y.transpose(0, 1, 4, 2, 3).reshape(n, ot * b, oh, ow)[:, :o])


__all__ = [
    "HAZARD_DISTANCE",
    "AccelProgram",
    "AluStep",
    "CodegenError",
    "Layer",
    "Tiling",
    "UopCache",
    "generate",
    "hazards",
    "pack_data",
    "pack_weight",
    "plan",
    "unpack_output",
]
