"""The ptxas runner (``targets/gpu/toolkit.py``): the per-kernel report parsed from ``ptxas
-v``, a rejection reported with ptxas's own message, and the search for the toolkit."""

from __future__ import annotations

from pathlib import Path

import pytest
from gpu_helpers import requires_ptxas

from relay.targets.gpu import toolkit

VERBOSE = """ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function 'relay_a__k0' for 'sm_90'
ptxas info    : Function properties for relay_a__k0
    16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 2048 bytes smem
ptxas info    : Compile time = 3.1 ms
ptxas info    : Compiling entry function 'relay_a__k1' for 'sm_90'
ptxas info    : Function properties for relay_a__k1
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 12 registers, used 0 barriers
"""


def test_the_verbose_report_is_parsed_per_entry_function() -> None:
    first, second = toolkit.parse_ptxas_verbose(VERBOSE, "sm_90")
    assert first == toolkit.KernelUsage("relay_a__k0", "sm_90", 40, 2048, 16, 8, 4, 1)
    assert second == toolkit.KernelUsage("relay_a__k1", "sm_90", 12, 0, 0, 0, 0, 0)
    assert first.line() == ("relay_a__k0 sm_90: 40 registers, 2048 B shared, 16 B stack, "
                            "8/4 B spilled (stores/loads), 1 barriers")  # fmt: skip


PTX = """.version 7.8
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .b64 %rd<3>;
    .reg .b32 %r<2>;
    .shared .align 4 .b8 buf[512];
    ld.param.u64 %rd1, [p];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, 7;
    st.shared.u32 [buf], %r1;
    bar.sync 0;
    ld.shared.u32 %r1, [buf];
    st.global.u32 [%rd2], %r1;
    ret;
}
"""


@requires_ptxas
def test_ptxas_reports_a_hand_written_kernel() -> None:
    (usage,) = toolkit.ptxas_report(PTX, "sm_90")
    assert usage.function == "k" and usage.arch == "sm_90"
    assert usage.shared_bytes == 512 and usage.barriers == 1 and usage.registers >= 2


@requires_ptxas
def test_ptxas_rejection_carries_its_message() -> None:
    with pytest.raises(toolkit.PtxasError, match=r"ptxas -arch=sm_90 rejected the PTX: .*"):
        toolkit.ptxas_report(PTX.replace("st.global.u32", "st.glubal.u32"), "sm_90")


def test_the_toolkit_is_found_where_the_environment_points(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = tmp_path / "ptxas"
    fake.write_text("")
    monkeypatch.setenv("RELAY_PTXAS", str(fake))
    monkeypatch.setenv("RELAY_LIBDEVICE", str(tmp_path / "missing.bc"))
    toolkit.find_ptxas.cache_clear()
    toolkit.find_libdevice.cache_clear()
    try:
        assert toolkit.find_ptxas() == str(fake)
        assert toolkit.find_libdevice() is None  # a path that is not there is not found
    finally:
        toolkit.find_ptxas.cache_clear()
        toolkit.find_libdevice.cache_clear()
