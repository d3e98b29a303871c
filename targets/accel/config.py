"""The accelerator's configuration: VTA's default ``1x16_i8w8a32_15_15_18_17``.

Every sample configuration of VTA (pynq, ultra96, de10nano, sim, tsim) has the same shape:

=================  =====================================================================
batch, block       1 × 16: a GEMM micro-op multiplies a 1×16 int8 input vector by a 16×16
                   int8 weight tile into a 1×16 int32 accumulator vector (256 MACs)
element types      input int8, weight int8, accumulator int32, output int8
micro-op buffer    32 KiB of 32-bit micro-ops: 8192 entries
input buffer       32 KiB of 16-byte vectors: 2048 entries
weight buffer      256 KiB of 256-byte tiles: 1024 entries
accumulator        128 KiB of 64-byte vectors: 2048 entries
output buffer      32 KiB of 16-byte vectors: 2048 entries (the low 8 bits of the
                   accumulator, written in the same step)
=================  =====================================================================

``Config`` holds the log2 sizes (the names of ``vta_config.json``) and derives the rest as
``hw_spec_const.h`` does; ``DEFAULT`` is the configuration above. Another configuration (a
bigger weight buffer, say) is ``Config(log_wgt_buff_size=19)``: the simulator and the
instruction generator read every size from it, so a user's accelerator design can be tried
against the oracle by changing numbers here.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Config:
    """An accelerator configuration, in ``vta_config.json``'s log2 terms."""

    log_inp_width: int = 3
    log_wgt_width: int = 3
    log_acc_width: int = 5
    log_batch: int = 0
    log_block: int = 4
    log_uop_buff_size: int = 15
    log_inp_buff_size: int = 15
    log_wgt_buff_size: int = 18
    log_acc_buff_size: int = 17
    clock_mhz: float = 100.0
    """The clock the cycle estimate is converted to time with (pynq: 100 MHz)."""

    @property
    def batch(self) -> int:
        """Rows of a GEMM micro-op's input (1)."""
        return 1 << self.log_batch

    @property
    def block(self) -> int:
        """Columns of an input vector and both sides of a weight tile (16)."""
        return 1 << self.log_block

    @property
    def macs_per_uop(self) -> int:
        """Multiply-accumulates of one GEMM micro-op: batch × block × block (256)."""
        return self.batch * self.block * self.block

    @property
    def inp_elem_bytes(self) -> int:
        """Bytes of one input-buffer entry (batch × block int8: 16)."""
        return self.batch * self.block * (1 << self.log_inp_width) // 8

    @property
    def wgt_elem_bytes(self) -> int:
        """Bytes of one weight-buffer entry (block × block int8: 256)."""
        return self.block * self.block * (1 << self.log_wgt_width) // 8

    @property
    def acc_elem_bytes(self) -> int:
        """Bytes of one accumulator entry (batch × block int32: 64)."""
        return self.batch * self.block * (1 << self.log_acc_width) // 8

    @property
    def out_elem_bytes(self) -> int:
        """Bytes of one output entry (batch × block int8: 16)."""
        return self.batch * self.block * (1 << self.log_inp_width) // 8

    @property
    def uop_depth(self) -> int:
        """Micro-ops the micro-op buffer holds (8192)."""
        return (1 << self.log_uop_buff_size) // 4

    @property
    def inp_depth(self) -> int:
        """Entries of the input buffer (2048)."""
        return (1 << self.log_inp_buff_size) // self.inp_elem_bytes

    @property
    def wgt_depth(self) -> int:
        """Entries of the weight buffer (1024)."""
        return (1 << self.log_wgt_buff_size) // self.wgt_elem_bytes

    @property
    def acc_depth(self) -> int:
        """Entries of the accumulator (2048)."""
        return (1 << self.log_acc_buff_size) // self.acc_elem_bytes

    @property
    def out_depth(self) -> int:
        """Entries of the output buffer: as many as the accumulator's (2048)."""
        return self.acc_depth

    @property
    def name(self) -> str:
        """The bitstream name: ``1x16_i8w8a32_15_15_18_17``."""
        return (f"{self.batch}x{self.block}_i{1 << self.log_inp_width}"
                f"w{1 << self.log_wgt_width}a{1 << self.log_acc_width}_"
                f"{self.log_uop_buff_size}_{self.log_inp_buff_size}_"
                f"{self.log_wgt_buff_size}_{self.log_acc_buff_size}")  # fmt: skip


DEFAULT = Config()
"""VTA's default configuration (every sample ``vta_config.json``)."""

__all__ = ["DEFAULT", "Config"]
