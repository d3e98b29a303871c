"""The accelerator's functional simulator: three in-order modules and four token queues.

**Memories.** DRAM is one flat byte array (``Dram``); a LOAD or STORE addresses it in
*elements of its memory's size* (16 B for INP and OUT, 256 B for WGT, 64 B for ACC, 4 B for
UOP, 16 B for ACC_8BIT), as VTA's runtime does. On chip: the micro-op buffer (32-bit words),
the input buffer (int8 1×16 vectors), the weight buffer (int8 16×16 tiles, stored ``[out][in]``)
and the accumulator (int32 1×16 vectors); the output buffer is the low 8 bits of the
accumulator, as the hardware writes it in the same step. Every on-chip index is bounds-checked.

**Modules and routing.** The fetch stage routes each instruction, in program order, to one of
three in-order modules: *load* (LOAD INP, LOAD WGT), *compute* (LOAD UOP, LOAD ACC,
LOAD ACC_8BIT, GEMM, ALU, FINISH) and *store* (STORE).

**Dependency tokens.** Four FIFOs: ``l2g`` (load → compute), ``g2l`` (compute → load), ``g2s``
(compute → store), ``s2g`` (store → compute). For a module, *prev* is the module before it in
load → compute → store and *next* the one after:

=======  ==============  ==============  ===============  ===============
module   pop_prev        pop_next        push_prev        push_next
=======  ==============  ==============  ===============  ===============
load     (invalid)       pops g2l        (invalid)        pushes l2g
compute  pops l2g        pops s2g        pushes g2l       pushes g2s
store    pops g2s        (invalid)       pushes s2g       (invalid)
=======  ==============  ==============  ===============  ===============

An instruction waits until every token it pops is there, pops them, executes, then pushes. The
simulator runs one module until its head instruction is blocked, then the next (round robin;
with ``seed`` the module and the number of instructions are drawn at random, which shakes out
a missing token as fsim's random start does), until FINISH has executed. A state in which no
module can move and FINISH has not run is a ``Deadlock`` (reported, with each module's blocked
instruction, never a hang); instructions or tokens left over after FINISH are an
``AccelError``, as are an invalid token flag, an on-chip index out of range and a DRAM address
outside the memory.

**The accumulator write hazard.** The GEMM and ALU pipelines read an accumulator and write it
back a few cycles later, so no micro-op may write the accumulator index that either of the
two micro-ops before it writes (VTA's runtime checks this as ``VerifyDep`` when a kernel is
built). The simulator checks it on the static micro-op list of every GEMM and ALU
instruction's range, micro-op ``k`` against ``k - 1`` and ``k - 2``, as the runtime does, and
rejects a breaking instruction with an ``AccelError`` naming it. Consecutive instructions do
not interfere: an instruction's pipeline drains before the next one starts.

**Integer semantics.** GEMM: ``acc[dst][o] += sum_c inp[src][c] * wgt[w][o][c]`` in int32,
wrapping around (the products of up to 64 micro-ops are summed in one float32 matrix product,
which is exact for them, then added in int64 and wrapped). ALU, lane by lane in int32 with
wrap-around: MIN, MAX, ADD, MUL, and SHR: ``x >> y`` for ``y >= 0``, ``x << -y`` for
``y < 0`` (a right shift by 32 or more is one by 31: all sign bits; a left shift by 32 or more
gives 0). ``imm`` is 16-bit signed, sign-extended. STORE keeps the low 8 bits of each
accumulator lane (truncation, not saturation). LOAD fills its padding with zeros; LOAD
ACC_8BIT sign-extends int8 DRAM data.

**Counters and the cycle estimate** (``Counters``). Bytes loaded per memory and stored; GEMM
micro-ops (each 256 MACs) and ALU micro-ops (``iter_out × iter_in × uops``, as fsim counts);
instructions per opcode. The first-order cycle model times each instruction on its module:

- LOAD / STORE: ``DMA_SETUP`` (16) cycles plus one cycle per 8 bytes written to or read from
  SRAM (a 64-bit memory bus; padding is written, so it counts);
- GEMM: one cycle per micro-op executed (the HLS core is pipelined at II = 1) plus
  ``PIPELINE_DEPTH`` (8);
- ALU: two cycles per micro-op (II = 2) plus ``PIPELINE_DEPTH``;
- a no-op LOAD/STORE and FINISH: one cycle.

An instruction starts when its module is free and every token it pops has been pushed, and it
pushes its tokens when it ends; ``Counters.cycles`` is the time the last instruction ends. So
the estimate shows what double buffering hides: with tokens that let load, compute and store
overlap it approaches the busiest module's time; with a serial schedule it is their sum.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from .config import DEFAULT, Config
from .isa import AluInsn, AluOp, FinishInsn, GemmInsn, Instruction, Mem, MemInsn, listing

DMA_SETUP = 16
"""Cycles a LOAD or STORE spends before its first byte (the cycle model)."""
BUS_BYTES = 8
"""Bytes a LOAD or STORE moves per cycle (the cycle model)."""
PIPELINE_DEPTH = 8
"""Cycles a GEMM or ALU instruction adds to its micro-ops (the cycle model)."""

Array = npt.NDArray[np.generic]
IntArray = npt.NDArray[np.int64]


class AccelError(Exception):
    """A program the accelerator cannot run: an invalid instruction, an index out of range,
    instructions or tokens left when it finishes."""


class Deadlock(AccelError):
    """No module can make progress and FINISH has not executed."""


class Dram:
    """The accelerator's view of host memory: a flat byte array with a bump allocator.
    ``alloc`` aligns every buffer to 256 bytes, so that its address is a whole number of
    elements of every memory."""

    ALIGN = 256

    def __init__(self, nbytes: int = 0) -> None:
        self.data = np.zeros(max(nbytes, self.ALIGN), dtype=np.uint8)
        self.top = 0

    def alloc(self, nbytes: int) -> int:
        """A fresh, zeroed region of ``nbytes``: its byte address."""
        addr = self.top
        self.top += -(-max(nbytes, 1) // self.ALIGN) * self.ALIGN
        if self.top > self.data.size:
            grown = np.zeros(max(self.top, 2 * self.data.size), dtype=np.uint8)
            grown[: self.data.size] = self.data
            self.data = grown
        return addr

    def write(self, addr: int, array: Array) -> None:
        """Copy ``array``'s bytes (C order) to byte address ``addr``."""
        raw = np.ascontiguousarray(array).view(np.uint8).reshape(-1)
        self.data[addr : addr + raw.size] = raw

    def read(self, addr: int, nbytes: int) -> npt.NDArray[np.uint8]:
        """A copy of ``nbytes`` bytes at ``addr``."""
        return self.data[addr : addr + nbytes].copy()


@dataclass
class Counters:
    """What a run did: bytes moved per memory, micro-ops executed, instructions per opcode,
    and the cycle estimate (see the module docstring)."""

    load_bytes: Counter[str] = field(default_factory=Counter)
    """Bytes loaded from DRAM, per memory (``INP``, ``WGT``, ``ACC``, ``UOP``, ...)."""
    store_bytes: int = 0
    """Bytes stored to DRAM (from OUT)."""
    gemm_uops: int = 0
    """GEMM micro-ops executed, resets included (each is ``config.macs_per_uop`` MACs)."""
    gemm_reset_uops: int = 0
    """Of ``gemm_uops``, those that only zeroed an accumulator."""
    alu_uops: int = 0
    """ALU micro-ops executed (each over ``block`` lanes)."""
    instructions: Counter[str] = field(default_factory=Counter)
    """Instructions executed, per opcode name."""
    busy: Counter[str] = field(default_factory=Counter)
    """Cycles each module (``load``, ``compute``, ``store``) spent executing."""
    cycles: int = 0
    """The estimated run time in cycles: when the last instruction ends."""

    def add(self, other: Counters) -> None:
        """Add ``other``'s counts to these (cycles too: runs one after another)."""
        self.load_bytes.update(other.load_bytes)
        self.store_bytes += other.store_bytes
        self.gemm_uops += other.gemm_uops
        self.gemm_reset_uops += other.gemm_reset_uops
        self.alu_uops += other.alu_uops
        self.instructions.update(other.instructions)
        self.busy.update(other.busy)
        self.cycles += other.cycles

    def summary(self) -> dict[str, object]:
        """The counters as plain data (``relay run --target accel`` prints it)."""
        return {"load_bytes": dict(self.load_bytes), "store_bytes": self.store_bytes,
                "gemm_uops": self.gemm_uops, "alu_uops": self.alu_uops,
                "instructions": dict(self.instructions), "busy": dict(self.busy),
                "cycles": self.cycles}  # fmt: skip


MODULES = ("load", "compute", "store")

_TOKENS = {  # (module, flag) -> token queue
    ("load", "pop_next"): "g2l",
    ("load", "push_next"): "l2g",
    ("compute", "pop_prev"): "l2g",
    ("compute", "pop_next"): "s2g",
    ("compute", "push_prev"): "g2l",
    ("compute", "push_next"): "g2s",
    ("store", "pop_prev"): "g2s",
    ("store", "push_prev"): "s2g",
}


def module_of(insn: Instruction) -> str:
    """The module an instruction is routed to (see the module docstring)."""
    match insn:
        case MemInsn(store=True):
            return "store"
        case MemInsn(memory_type=Mem.INP | Mem.WGT):
            return "load"
        case _:
            return "compute"


def _flags(module: str, insn: Instruction, kind: str) -> list[str]:
    out = []
    for flag in (f"{kind}_prev", f"{kind}_next"):
        if getattr(insn.deps, flag):
            queue = _TOKENS.get((module, flag))
            if queue is None:
                raise AccelError(f"{module} instruction sets {flag}, which that module has "
                                 f"not: {listing(insn)}")  # fmt: skip
            out.append(queue)
    return out


class Simulator:
    """The on-chip state of one accelerator, and ``run(program, dram)``."""

    def __init__(self, config: Config = DEFAULT) -> None:
        if (
            config.batch != 1
            or config.log_inp_width != 3
            or config.log_wgt_width != 3
            or (config.log_acc_width != 5)
        ):
            raise AccelError(f"the simulator models batch 1 with int8/int8/int32 "
                             f"(a {config.name} design is not supported)")  # fmt: skip
        self.config = config
        b = config.block
        self.uop = np.zeros((config.uop_depth, 3), dtype=np.int64)  # dst, src, wgt
        self.inp = np.zeros((config.inp_depth, b), dtype=np.int8)
        self.wgt = np.zeros((config.wgt_depth, b, b), dtype=np.int8)
        self.acc = np.zeros((config.acc_depth, b), dtype=np.int32)

    # --- running a program ---------------------------------------------------------------

    def run(self, program: list[Instruction], dram: Dram, *, seed: int | None = None
            ) -> Counters:  # fmt: skip
        """Execute ``program`` (see the module docstring); the counters of the run."""
        queues: dict[str, deque[Instruction]] = {m: deque() for m in MODULES}
        for insn in program:
            queues[module_of(insn)].append(insn)
        tokens: dict[str, deque[int]] = {q: deque() for q in ("l2g", "g2l", "g2s", "s2g")}
        clock = dict.fromkeys(MODULES, 0)
        counters = Counters()
        rng = random.Random(seed) if seed is not None else None
        finished = False

        def step(module: str) -> bool:
            """Run the head instruction of ``module`` if its tokens are there."""
            nonlocal finished
            queue = queues[module]
            if not queue:
                return False
            insn = queue[0]
            pops = _flags(module, insn, "pop")
            if isinstance(insn, FinishInsn) and pops:
                raise AccelError("FINISH cannot pop a token")
            if any(not tokens[q] for q in pops):
                return False
            pushes = _flags(module, insn, "push")
            queue.popleft()
            start = max([clock[module], *(tokens[q].popleft() for q in pops)])
            cost = self._execute(insn, dram, counters)
            clock[module] = start + cost
            counters.busy[module] += cost
            for q in pushes:
                tokens[q].append(clock[module])
            counters.instructions[type(insn).__name__.removesuffix("Insn").upper()
                                  if not isinstance(insn, MemInsn)
                                  else insn.opcode.name] += 1  # fmt: skip
            if isinstance(insn, FinishInsn):
                finished = True
            return True

        while not finished:
            moved = False
            order = list(MODULES)
            if rng is not None:
                rng.shuffle(order)
            for module in order:
                budget = rng.randint(1, 8) if rng is not None else -1
                while budget != 0 and not finished and step(module):
                    moved = True
                    budget -= 1
                if finished:
                    break
            if not moved:
                if not any(queues.values()):
                    raise AccelError("the program ended without FINISH")
                heads = "; ".join(f"{m}: {listing(queues[m][0])}" for m in MODULES
                                  if queues[m])  # fmt: skip
                waiting = ", ".join(f"{q}={len(t)}" for q, t in tokens.items())
                raise Deadlock(f"deadlock: no module can make progress (tokens {waiting}); "
                               f"blocked at {heads}")  # fmt: skip
        left = {m: len(q) for m, q in queues.items() if q}
        if left:
            raise AccelError(f"instructions left after FINISH: {left}")
        spare = {q: len(t) for q, t in tokens.items() if t}
        if spare:
            raise AccelError(f"dependency tokens left after FINISH: {spare}")
        counters.cycles = max(clock.values())
        return counters

    def _execute(self, insn: Instruction, dram: Dram, counters: Counters) -> int:
        """Execute one instruction; its cost in cycles."""
        match insn:
            case MemInsn():
                if insn.x_size == 0:
                    return 1
                nbytes = self._store(insn, dram) if insn.store else self._load(insn, dram)
                if insn.store:
                    counters.store_bytes += nbytes
                else:
                    counters.load_bytes[insn.memory_type.name] += nbytes
                written = nbytes
                if not insn.store:
                    rows = insn.y_pad_0 + insn.y_size + insn.y_pad_1
                    cols = insn.x_pad_0 + insn.x_size + insn.x_pad_1
                    written = rows * cols * nbytes // (insn.y_size * insn.x_size)
                return DMA_SETUP + -(-written // BUS_BYTES)
            case GemmInsn():
                n = self._gemm(insn)
                counters.gemm_uops += n
                if insn.reset_reg:
                    counters.gemm_reset_uops += n
                return n + PIPELINE_DEPTH
            case AluInsn():
                n = self._alu(insn)
                counters.alu_uops += n
                return 2 * n + PIPELINE_DEPTH
            case FinishInsn():
                return 1

    # --- memories ------------------------------------------------------------------------

    def _sram(self, mem: Mem) -> tuple[Array, int, np.dtype[np.generic]]:
        """The SRAM a memory id addresses, its DRAM element size, and the DRAM dtype."""
        c = self.config
        match mem:
            case Mem.INP:
                return self.inp, c.inp_elem_bytes, np.dtype(np.int8)
            case Mem.WGT:
                return self.wgt, c.wgt_elem_bytes, np.dtype(np.int8)
            case Mem.ACC:
                return self.acc, c.acc_elem_bytes, np.dtype(np.int32)
            case Mem.ACC_8BIT:
                return self.acc, c.out_elem_bytes, np.dtype(np.int8)
            case Mem.UOP:
                return self.uop, 4, np.dtype(np.uint32)
            case Mem.OUT:
                return self.acc, c.out_elem_bytes, np.dtype(np.int8)

    def _dram_rows(self, insn: MemInsn, elem: int, dram: Dram) -> IntArray:
        """The byte offsets of the elements a LOAD/STORE touches: shape (y_size, x_size)."""
        if insn.x_stride < insn.x_size:
            raise AccelError(f"x_stride {insn.x_stride} < x_size {insn.x_size}: "
                             f"{listing(insn)}")  # fmt: skip
        first = insn.dram_base * elem
        last = first + ((insn.y_size - 1) * insn.x_stride + insn.x_size) * elem
        if insn.y_size == 0 or last > dram.data.size:
            raise AccelError(f"DRAM access [{first}, {last}) outside the {dram.data.size}-byte "
                             f"memory: {listing(insn)}")  # fmt: skip
        rows = np.arange(insn.y_size, dtype=np.int64)[:, None] * insn.x_stride
        return (rows + np.arange(insn.x_size, dtype=np.int64)[None, :]) * elem + first

    def _load(self, insn: MemInsn, dram: Dram) -> int:
        sram, elem, dtype = self._sram(insn.memory_type)
        if insn.memory_type == Mem.OUT:
            raise AccelError(f"OUT cannot be loaded: {listing(insn)}")
        offsets = self._dram_rows(insn, elem, dram)
        raw = dram.data[offsets[..., None] + np.arange(elem)]  # (y, x, elem) bytes
        values = raw.view(dtype)
        rows = insn.y_pad_0 + insn.y_size + insn.y_pad_1
        cols = insn.x_pad_0 + insn.x_size + insn.x_pad_1
        self._check(insn.memory_type, insn.sram_base, rows * cols, sram.shape[0], insn)
        tile = np.zeros((rows, cols, *sram.shape[1:]), dtype=sram.dtype)
        if insn.memory_type == Mem.UOP:
            words = values.reshape(insn.y_size, insn.x_size).astype(np.int64)
            values = np.stack([words & 0x7FF, (words >> 11) & 0x7FF, (words >> 22) & 0x3FF],
                              axis=-1)  # fmt: skip
        else:
            values = values.reshape(insn.y_size, insn.x_size, *sram.shape[1:])
        tile[insn.y_pad_0 : insn.y_pad_0 + insn.y_size,
             insn.x_pad_0 : insn.x_pad_0 + insn.x_size] = values  # fmt: skip
        sram[insn.sram_base : insn.sram_base + rows * cols] = tile.reshape(-1, *sram.shape[1:])
        return insn.y_size * insn.x_size * elem

    def _store(self, insn: MemInsn, dram: Dram) -> int:
        if insn.memory_type != Mem.OUT:
            raise AccelError(f"STORE writes from OUT only: {listing(insn)}")
        if insn.y_pad_0 or insn.y_pad_1 or insn.x_pad_0 or insn.x_pad_1:
            raise AccelError(f"STORE cannot pad: {listing(insn)}")
        sram, elem, _ = self._sram(Mem.OUT)
        count = insn.y_size * insn.x_size
        self._check(Mem.OUT, insn.sram_base, count, self.config.out_depth, insn)
        low = sram[insn.sram_base : insn.sram_base + count].astype(np.int8)  # the low 8 bits
        offsets = self._dram_rows(insn, elem, dram)
        dram.data[offsets[..., None] + np.arange(elem)] = low.view(np.uint8).reshape(
            insn.y_size, insn.x_size, elem
        )
        return count * elem

    def _check(self, mem: Mem, base: int, count: int, depth: int, insn: Instruction) -> None:
        if base < 0 or base + count > depth:
            raise AccelError(f"{mem.name} index range [{base}, {base + count}) outside the "
                             f"buffer's {depth} entries: {listing(insn)}")  # fmt: skip

    # --- GEMM and ALU --------------------------------------------------------------------

    def _indices(self, insn: GemmInsn | AluInsn) -> tuple[IntArray, IntArray, IntArray]:
        """Accumulator, source and weight indices of every micro-op the instruction runs:
        each of shape (uops, iter_out × iter_in), in loop order within a row."""
        if not 0 <= insn.uop_bgn <= insn.uop_end <= self.config.uop_depth:
            raise AccelError(f"micro-op range outside the buffer: {listing(insn)}")
        uops = self.uop[insn.uop_bgn : insn.uop_end]
        i = np.arange(insn.iter_out, dtype=np.int64)[:, None]
        j = np.arange(insn.iter_in, dtype=np.int64)[None, :]
        dst = (i * insn.dst_factor_out + j * insn.dst_factor_in).reshape(-1)
        src = (i * insn.src_factor_out + j * insn.src_factor_in).reshape(-1)
        wgt = np.zeros_like(dst)
        if isinstance(insn, GemmInsn):
            wgt = (i * insn.wgt_factor_out + j * insn.wgt_factor_in).reshape(-1)
        return (uops[:, 0:1] + dst[None, :], uops[:, 1:2] + src[None, :],
                uops[:, 2:3] + wgt[None, :])  # fmt: skip

    def _bounds(self, what: str, idx: IntArray, depth: int, insn: Instruction) -> None:
        if idx.size and (idx.min() < 0 or idx.max() >= depth):
            raise AccelError(f"{what} index {int(idx.max())} outside the buffer's {depth} "
                             f"entries: {listing(insn)}")  # fmt: skip

    def _hazard(self, insn: GemmInsn | AluInsn) -> None:
        """The accumulator write hazard (the runtime's ``VerifyDep``): no micro-op of the
        instruction's range may write the accumulator index that either of the two micro-ops
        before it writes. Checked on the static micro-op list, as the runtime does; the loop
        offsets are not applied."""
        dst = self.uop[insn.uop_bgn : insn.uop_end, 0]
        for back in (1, 2):
            if dst.size <= back:
                break
            same = np.flatnonzero(dst[back:] == dst[:-back])
            if same.size:
                k = int(same[0]) + back
                raise AccelError(f"accumulator write hazard: micro-op {insn.uop_bgn + k} "
                                 f"writes acc[{int(dst[k])}] as micro-op "
                                 f"{insn.uop_bgn + k - back} did {back} before it (no micro-op "
                                 f"may write the index of either of the two before it): "
                                 f"{listing(insn)}")  # fmt: skip

    def _gemm(self, insn: GemmInsn) -> int:
        dst, src, wgt = self._indices(insn)
        self._hazard(insn)
        c = self.config
        self._bounds("ACC", dst, c.acc_depth, insn)
        if insn.reset_reg:
            self.acc[dst.reshape(-1)] = 0
            return dst.size
        self._bounds("INP", src, c.inp_depth, insn)
        self._bounds("WGT", wgt, c.wgt_depth, insn)
        # Order does not matter: int32 addition wraps, so it is associative and commutative.
        # Micro-ops with the same destinations and fixed weights are summed in one matrix
        # product over their concatenated inputs, in float32: exact for up to 64 micro-ops
        # (1024 products of int8 values, each at most 2**14 in magnitude, sum below 2**24);
        # then added to the accumulators in int64 and wrapped to int32.
        inp = self.inp.astype(np.float32)
        fixed_wgt = (wgt == wgt[:, :1]).all(axis=1) if wgt.size else np.ones(0, dtype=bool)
        groups: dict[bytes, list[int]] = {}
        for k in range(dst.shape[0]):
            key = dst[k].tobytes() if fixed_wgt[k] else b"%d" % k
            group = groups.setdefault(key, [])
            if len(group) == 64:  # full: start another under a fresh key
                groups[b"%d" % k + key] = groups.pop(key)
                group = groups.setdefault(key, [])
            group.append(k)
        for ks in groups.values():
            d = dst[ks[0]]
            if fixed_wgt[ks[0]]:
                x = inp[src[ks].T].reshape(d.size, len(ks) * self.config.block)
                w = self.wgt[wgt[ks, 0]].astype(np.float32)  # (K, out, in)
                prod = x @ w.transpose(0, 2, 1).reshape(len(ks) * self.config.block, -1)
            else:
                prod = np.einsum("lc,loc->lo", inp[src[ks[0]]],
                                 self.wgt[wgt[ks[0]]].astype(np.float64))  # fmt: skip
            exact = prod.astype(np.int64)
            if np.unique(d).size == d.size:
                self.acc[d] = (self.acc[d] + exact).astype(np.int32)
            else:
                total = self.acc.astype(np.int64)
                np.add.at(total, d, exact)
                self.acc[:] = total.astype(np.int32)
        return dst.size

    def _alu(self, insn: AluInsn) -> int:
        dst, src, _ = self._indices(insn)
        self._hazard(insn)
        c = self.config
        self._bounds("ACC", dst, c.acc_depth, insn)
        d, s = dst.reshape(-1), src.reshape(-1)
        if insn.reset_reg:
            self.acc[d] = 0
            return d.size
        if not insn.use_imm:
            self._bounds("ACC", src, c.acc_depth, insn)
        # Sequential semantics: vectorise only when no micro-op reads or writes what another
        # one wrote (distinct destinations, each source its own destination or untouched).
        distinct = np.unique(d).size == d.size
        if distinct and (insn.use_imm or (s == d).all() or not np.isin(s, d).any()):
            y = np.int32(insn.imm) if insn.use_imm else self.acc[s]
            self.acc[d] = alu(insn.alu_opcode, self.acc[d], y)
            return d.size
        for t in range(d.size):  # the general case, one micro-op at a time
            y = np.int32(insn.imm) if insn.use_imm else self.acc[s[t]]
            self.acc[d[t]] = alu(insn.alu_opcode, self.acc[d[t]], y)
        return d.size


def alu(op: AluOp, x: Array, y: Array | np.int32) -> Array:
    """The ALU's lane-wise int32 operation (see the module docstring)."""
    x = np.asarray(x, dtype=np.int32)
    yy = np.broadcast_to(np.asarray(y, dtype=np.int32), x.shape)
    with np.errstate(over="ignore"):
        match op:
            case AluOp.MIN:
                return np.minimum(x, yy)
            case AluOp.MAX:
                return np.maximum(x, yy)
            case AluOp.ADD:
                return (x.astype(np.int64) + yy).astype(np.int32)
            case AluOp.MUL:
                return (x.astype(np.int64) * yy).astype(np.int32)
            case AluOp.SHR:
                right = np.right_shift(x, np.minimum(yy, 31).clip(0))
                amount = (-yy.astype(np.int64)).clip(0)
                left = np.where(
                    amount >= 32, 0, np.left_shift(x.astype(np.int64), amount.clip(0, 31))
                )
                return np.where(yy >= 0, right, left.astype(np.int32)).astype(np.int32)  # fmt: skip


__all__ = [
    "BUS_BYTES",
    "DMA_SETUP",
    "MODULES",
    "PIPELINE_DEPTH",
    "AccelError",
    "Counters",
    "Deadlock",
    "Dram",
    "Simulator",
    "alu",
    "module_of",
]
