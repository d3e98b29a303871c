"""The ``accel`` target: instruction generation against an int64 numpy model, bit-exact
agreement with the interpreter on generated quantized programs, what is offloaded, the
conformance corpus and the command line."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relay
from relay.oracles.conform_kit import conform
from relay.oracles.fuzz import Case
from relay.oracles.gen_quantized import quantized_cases
from relay.oracles.target_oracle import check_target_outcome
from relay.targets import get_target
from relay.targets.accel import AccelPrimitive, CpuFallback
from relay.targets.accel.codegen import (
    AluStep,
    Layer,
    generate,
    hazards,
    pack_data,
    pack_weight,
    unpack_output,
)
from relay.targets.accel.config import DEFAULT, Config
from relay.targets.accel.isa import AluOp, decode, listing
from relay.targets.accel.sim import Dram, Simulator

CORPUS = Path(__file__).parent / "conformance" / "accel"


def model(layer: Layer, x: np.ndarray, w: np.ndarray, operands: list[np.ndarray]) -> np.ndarray:
    """The layer in int64 numpy: a sum over taps, then the tail, then the low 8 bits."""
    pt, pl, pb, pr = layer.padding
    n, c, h, wd = x.shape
    xp = np.zeros((n, c, h + pt + pb, wd + pl + pr), dtype=np.int64)
    xp[:, :, pt : pt + h, pl : pl + wd] = x
    out = np.zeros((n, layer.o, layer.oh, layer.ow), dtype=np.int64)
    (sh, sw), (dh, dw) = layer.stride, layer.dilation
    for i in range(layer.kh):
        for j in range(layer.kw):
            patch = xp[:, :, i * dh : i * dh + sh * (layer.oh - 1) + 1 : sh,
                       j * dw : j * dw + sw * (layer.ow - 1) + 1 : sw]  # fmt: skip
            out += np.einsum("nchw,oc->nohw", patch, w[:, :, i, j].astype(np.int64))

    def wrap32(v: np.ndarray) -> np.ndarray:
        return (v + (1 << 31)) % (1 << 32) - (1 << 31)

    out = wrap32(out)
    for step in layer.tail:
        y = np.int64(step.imm) if step.operand is None else operands[step.operand]
        match step.op:
            case AluOp.ADD:
                out = wrap32(out + y)
            case AluOp.MUL:
                out = wrap32(out * y)
            case AluOp.MIN:
                out = np.minimum(out, y)
            case AluOp.MAX:
                out = np.maximum(out, y)
            case AluOp.SHR:
                out = out >> y if y >= 0 else wrap32(out << -y)
    return ((out + 128) % 256 - 128).astype(np.int8)


def simulate(layer: Layer, x: np.ndarray, w: np.ndarray, operands: list[np.ndarray],
             seed: int | None = None, config: Config = DEFAULT) -> np.ndarray:  # fmt: skip
    prog = generate(layer, config)
    bufs = prog.buffers
    dram = Dram(bufs.size)
    dram.write(bufs.data, pack_data(x))
    dram.write(bufs.weight, pack_weight(w))
    ot = -(-layer.o // 16)
    for step in layer.tail:
        if step.operand is None:
            continue
        full = np.broadcast_to(operands[step.operand], (layer.n, layer.o, layer.oh, layer.ow))
        if step.per == "channel":
            lanes = np.zeros(ot * 16, dtype=np.int32)
            lanes[: layer.o] = full[0, :, 0, 0]
            dram.write(bufs.operands[step.operand], lanes)
        else:
            dram.write(bufs.operands[step.operand], pack_data(full.astype(np.int32)))
    dram.write(bufs.uops, np.array([u.encode() for u in prog.uops], dtype=np.uint32))
    Simulator(config).run(prog.instructions, dram, seed=seed)
    raw = dram.read(bufs.output, layer.n * ot * layer.oh * layer.ow * 16)
    return unpack_output(raw.view(np.int8).reshape(layer.n, ot, layer.oh, layer.ow, 16),
                         layer.o)  # fmt: skip


LAYERS = [
    # (n, c, h, w, o, k, stride, padding, dilation)
    (1, 3, 8, 8, 20, 3, 1, (1, 1, 1, 1), 1),
    (2, 40, 9, 7, 33, 3, 2, (1, 2, 0, 1), 1),
    (1, 20, 10, 10, 17, 3, 1, (2, 2, 2, 2), 2),
    (1, 32, 24, 24, 40, 3, 1, (1, 1, 1, 1), 1),  # several tiles: double buffering
    (1, 16, 3, 3, 16, 1, 2, (2, 2, 2, 2), 1),  # tiles made only of padding
    (1, 300, 1, 3, 5, 1, 1, (0, 0, 0, 0), 1),  # several input-channel steps
    # fewer than three output blocks: the write hazard wants other destinations
    (1, 40, 1, 1, 20, 1, 1, (0, 0, 0, 0), 1),  # two destinations: one GEMM per term
    (1, 20, 7, 1, 5, 1, 1, (0, 0, 0, 0), 1),  # one column: rows in the kernel, 3 + 4
    (1, 8, 3, 7, 12, 3, 1, (1, 1, 1, 1), 1),  # columns in the kernel, 3 + 4
]


@pytest.mark.parametrize("shape", LAYERS, ids=lambda s: "x".join(map(str, s[:6])))
def test_generated_program_matches_the_model(shape: tuple) -> None:  # type: ignore[type-arg]
    n, c, h, wd, o, k, s, pad, d = shape
    rng = np.random.default_rng(sum(shape[:6]))
    x = rng.integers(-128, 128, (n, c, h, wd)).astype(np.int8)
    w = rng.integers(-128, 128, (o, c, k, k)).astype(np.int8)
    layer = Layer(n, c, h, wd, o, k, k, (s, s), pad, (d, d))
    bias = rng.integers(-4000, 4000, (o, 1, 1)).astype(np.int64)
    full = rng.integers(-4000, 4000, (n, o, layer.oh, layer.ow)).astype(np.int64)
    tail = (AluStep(AluOp.ADD, operand=0, per="channel"), AluStep(AluOp.SHR, imm=5),
            AluStep(AluOp.ADD, operand=1, per="element"), AluStep(AluOp.MUL, imm=-3),
            AluStep(AluOp.MIN, imm=300), AluStep(AluOp.MAX, imm=-300),
            AluStep(AluOp.SHR, imm=-2))  # fmt: skip
    layer = Layer(n, c, h, wd, o, k, k, (s, s), pad, (d, d), tail)
    expect = model(layer, x, w, [bias, full])
    assert (simulate(layer, x, w, [bias, full]) == expect).all()
    # the dependency tokens alone order the modules: any interleaving gives the same result
    assert (simulate(layer, x, w, [bias, full], seed=7) == expect).all()
    # a design with a quarter of the buffers tiles smaller and computes the same
    small = Config(log_inp_buff_size=13, log_wgt_buff_size=16, log_acc_buff_size=15)
    assert (simulate(layer, x, w, [bias, full], config=small) == expect).all()


@settings(max_examples=8, deadline=None)
@given(quantized_cases())
def test_accel_agrees_with_the_interpreter_bit_for_bit(case: Case) -> None:
    skipped, verdict = check_target_outcome(get_target("accel"), case.mod, case.args,
                                            isolate=False)  # fmt: skip
    assert verdict is None, verdict.report()
    assert not skipped


@st.composite
def layers(draw: st.DrawFn) -> Layer:
    """A convolution (or dense layer) geometry with a non-empty output."""
    k = draw(st.integers(1, 4))
    d = draw(st.integers(1, 2))
    pad = tuple(draw(st.lists(st.integers(0, 3), min_size=4, max_size=4)))
    low = max(1, (k - 1) * d + 1 - pad[0] - pad[2], (k - 1) * d + 1 - pad[1] - pad[3])
    h, w = draw(st.integers(low, low + 12)), draw(st.integers(low, low + 12))
    return Layer(draw(st.integers(1, 2)), draw(st.integers(1, 70)), h, w,
                 draw(st.integers(1, 70)), k, k, (draw(st.integers(1, 3)),) * 2, pad,
                 (d, d))  # fmt: skip


SMALL = Config(log_inp_buff_size=13, log_wgt_buff_size=16, log_acc_buff_size=15)


@settings(max_examples=40, deadline=None)
@given(layers(), st.sampled_from([DEFAULT, SMALL]))
def test_every_generated_kernel_obeys_the_write_hazard(layer: Layer, config: Config) -> None:
    assert hazards(generate(layer, config)) == []


def test_hazards_finds_a_kernel_that_breaks_the_rule() -> None:
    prog = generate(Layer(1, 40, 4, 4, 64, 3, 3, padding=(1, 1, 1, 1)))
    assert hazards(prog) == []
    # every micro-op on one accumulator: each GEMM kernel of several breaks the rule
    prog.uops[:] = [replace(u, dst=0) for u in prog.uops]
    assert hazards(prog) and "GEMM" in hazards(prog)[0]


@settings(max_examples=6, deadline=None)
@given(quantized_cases())
def test_kernels_of_generated_programs_obey_the_write_hazard(case: Case) -> None:
    exe = get_target("accel").compile(case.mod)
    for k in exe.kernels.values():  # type: ignore[attr-defined]
        if isinstance(k.compiled, AccelPrimitive):
            assert hazards(k.compiled.program) == [], k.compiled.program.listing()


def kernels(text: str) -> list[object]:
    exe = get_target("accel").compile(relay.parse(text))
    return [k.compiled for k in exe.kernels.values()]  # type: ignore[attr-defined]


CONV = """#[version = "0.0.5"]
def @main(%x: Tensor[(1, 3, 8, 8), int8], %w: Tensor[(20, 3, 3, 3), int8]) {
  %0 = nn.conv2d(%x, %w, padding=[1, 1, 1, 1], channels=20, kernel_size=[3, 3],
                 out_dtype="int32");
  %1 = right_shift(%0, 4);
  %2 = clip(%1, a_min=-127f, a_max=127f);
  cast(%2, dtype="int8")
}
"""


def test_what_is_offloaded() -> None:
    (k,) = kernels(CONV)
    assert isinstance(k, AccelPrimitive)
    assert [s.text() for s in k.region.layer.tail] == ["SHR 4", "MIN 127", "MAX -127"]
    # an int32 result cannot be stored in 8 bits; a float conv is not quantized
    (k,) = kernels(CONV.replace('  cast(%2, dtype="int8")', "  multiply(%2, 1000)"))
    assert isinstance(k, CpuFallback) and "may not fit the 8 bits" in k.reason
    grouped = CONV.replace("%w: Tensor[(20, 3, 3, 3)", "%w: Tensor[(21, 1, 3, 3)").replace(
        "channels=20,", "channels=21, groups=3,"
    )
    (k,) = kernels(grouped.replace("(1, 3, 8, 8)", "(1, 3, 8, 8)"))
    assert isinstance(k, CpuFallback) and "grouped convolution" in k.reason
    listing = k.artifacts()["insn"]
    assert isinstance(listing, str) and listing.startswith("; runs on the CPU: ")


def test_conformance_corpus_on_accel() -> None:
    report = conform(get_target("accel"), corpus_dir=CORPUS)
    bad = [o for o in report.outcomes if o.status != "pass"]
    assert not bad, bad
    assert len(report.outcomes) == len(list(CORPUS.glob("*.relay"))) >= 8


def test_corpus_kernels_are_offloaded() -> None:
    """Every corpus case but the int32 one runs its layers on the accelerator, in kernels that
    obey the write hazard."""
    from relay.oracles.corpus import load_case

    for path in sorted(CORPUS.glob("*.relay")):
        case = load_case(path)
        from relay.compiler.pass_manager import PassContext
        from relay.oracles.engines import NO_COMPILE_TIME_FOLDING

        with PassContext(disabled=NO_COMPILE_TIME_FOLDING):
            exe = get_target("accel").compile(case.module)
        kinds = {type(k.compiled).__name__ for k in exe.kernels.values()  # type: ignore[attr-defined]
                 if k.fn.body.op.name != "stack"}  # fmt: skip
        for k in exe.kernels.values():  # type: ignore[attr-defined]
            if isinstance(k.compiled, AccelPrimitive):
                assert hazards(k.compiled.program) == [], path.stem
        if path.stem == "dense_int32_result":
            assert "AccelPrimitive" not in kinds
        else:
            assert "AccelPrimitive" in kinds, path.stem


def relay_cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Run the command line in this process: exit code, stdout, stderr."""
    from relay.cli import main

    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_run_and_compile_insn(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                  monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.relay").write_text(CONV, encoding="utf-8")
    rng = np.random.default_rng(0)
    np.save(tmp_path / "x.npy", rng.integers(-128, 128, (1, 3, 8, 8)).astype(np.int8))
    np.save(tmp_path / "w.npy", rng.integers(-128, 128, (20, 3, 3, 3)).astype(np.int8))
    runs = [relay_cli(capsys, "run", *t, "q.relay", "x.npy", "w.npy", "--json")
            for t in ([], ["--target", "accel"])]  # fmt: skip
    assert runs[0][0] == 0 and runs[1][0] == 0, runs[1][2]
    assert json.loads(runs[0][1]) == json.loads(runs[1][1])
    code, _, err = relay_cli(capsys, "compile", "q.relay", "--target", "accel", "--emit", "insn",
                             "-o", "out")  # fmt: skip
    assert code == 0, err
    (insn,) = (tmp_path / "out").glob("*.insn")
    text = insn.read_text()
    assert text.startswith("; accelerator program (1x16_i8w8a32_15_15_18_17): conv 1x3x8x8")
    assert "; tail: SHR 4, MIN 127, MAX -127; store low 8 bits" in text
    for mnemonic in ("LOAD   INP", "LOAD   WGT", "GEMM   reset", "ALU    SHR imm 4", "STORE  OUT",
                     "FINISH"):  # fmt: skip
        assert mnemonic in text
    assert "pad (1, 1, 1, 1)" in text and "push_next" in text and "pop_prev" in text
    # --emit obj: the encoded stream, 16 bytes an instruction, decoding to the listing's lines
    code, _, err = relay_cli(capsys, "compile", "q.relay", "--target", "accel", "--emit", "obj",
                             "-o", "bin")  # fmt: skip
    assert code == 0, err
    (obj,) = (tmp_path / "bin").glob("*.o")
    data = obj.read_bytes()
    insns = [decode(data[i : i + 16]) for i in range(0, len(data), 16)]
    body = [line.split("  ", 1)[1].strip() for line in text.splitlines()[3:]]
    assert [listing(i) for i in insns] == body


def test_cli_conform_accel(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = relay_cli(capsys, "conform", "--target", "accel", "--corpus", str(CORPUS),
                               "--programs", "2")  # fmt: skip
    assert code == 0, out + err
    assert f"{len(list(CORPUS.glob('*.relay'))) + 2} cases" in out and "0 failed" in out


def test_wide_layers_are_tiled_by_columns() -> None:
    rng = np.random.default_rng(5)
    x = rng.integers(-128, 128, (1, 3, 9, 230)).astype(np.int8)
    w = rng.integers(-128, 128, (20, 3, 7, 7)).astype(np.int8)
    layer = Layer(
        1,
        3,
        9,
        230,
        20,
        7,
        7,
        (2, 2),
        (3, 3, 3, 3),
        (1, 1),
        (AluStep(AluOp.SHR, imm=9), AluStep(AluOp.ADD, operand=0, per="element")),
    )
    full = rng.integers(-100, 100, (1, 20, layer.oh, layer.ow)).astype(np.int64)
    prog = generate(layer)
    assert prog.tiling.tw < layer.ow
    assert (simulate(layer, x, w, [full]) == model(layer, x, w, [full])).all()


def test_graph_packed_convolutions_are_offloaded() -> None:
    """``graph_pack``'s NCHW1n16c / OIHW16o16i convolutions run on the accelerator, exactly."""
    from relay.compiler.ir import substitute
    from relay.compiler.passes.graph_pack import graph_pack
    from relay.semantics.syntax import Constant, Function, GlobalVar, IRModule
    from relay.semantics.values import TensorValue

    main = relay.parse(CONV)["main"]
    rng = np.random.default_rng(3)
    weight = Constant(rng.integers(-128, 128, (20, 3, 3, 3)).astype(np.int8))
    body = substitute(main.body, {main.params[1]: weight})
    mod = IRModule({GlobalVar("main"): Function((main.params[0],), body)})
    packed = graph_pack(mod)
    exe = get_target("accel").compile(packed)
    regions = [k.compiled.region for k in exe.kernels.values()  # type: ignore[attr-defined]
               if isinstance(k.compiled, AccelPrimitive)]  # fmt: skip
    assert [r.kind for r in regions] == ["conv2d-packed"]
    x = TensorValue(rng.integers(-128, 128, (1, 3, 8, 8)).astype(np.int8))
    got, expect = exe.run(x), relay.evaluate(mod, x)
    assert isinstance(got, TensorValue) and isinstance(expect, TensorValue)
    assert np.array_equal(got.data, expect.data)
