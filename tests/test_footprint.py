"""Footprint learning (``oracles.footprint``): the motifs a pass changes are found, and the
campaign catches broken passes whose pattern the default generators almost never draw."""

from __future__ import annotations

import itertools
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from relay.cli import main
from relay.compiler.ir import rewrite_module
from relay.compiler.pass_manager import Pass, as_pass
from relay.oracles.footprint import (
    _EFFECTS,
    AXIS_SHAPE,
    NARROW_DTYPES,
    NARROW_FORMS,
    Motif,
    axis_constant_motif,
    diff,
    extra_pairs,
    learn,
    motif_corpus,
    narrow_motif,
    tuple_pair_motif,
)
from relay.oracles.gen_modules import CONSTRUCTS
from relay.semantics.syntax import (
    Call,
    Constant,
    Expr,
    IRModule,
    Match,
    Op,
    PatternConstructor,
    TensorType,
    Tuple,
    TupleType,
)
from relay.semantics.text.parser import parse
from relay.semantics.text.printer import astext
from relay.semantics.values import TensorValue

BROKEN = '''
from relay.compiler.ir import rewrite_module
from relay.semantics.ops.nn.activation import LeakyReluAttrs
from relay.semantics.syntax import Call, Constant, Op, RefWrite, Tuple


def _relu_relu(e):
    match e:
        case Call(Op(name="nn.relu"), (Call(Op(name="nn.relu"), (x,)),)):
            return Call(Op("nn.relu"), (Call(Op("negative"), (x,)),))
    return None


def relu_relu(mod):
    """nn.relu(nn.relu(x)) -> nn.relu(negative(x)): wrong; touches nothing else."""
    return rewrite_module(mod, _relu_relu)


def _leaky(e):
    match e:
        case Call(Op(name="nn.relu"), args):
            return Call(Op("nn.leaky_relu"), args, LeakyReluAttrs(alpha=0.01))
    return None


def relu_to_leaky(mod):
    """nn.relu(x) -> nn.leaky_relu(x, alpha=0.01): wrong for negative x."""
    return rewrite_module(mod, _leaky)


def _drop(e):
    return Tuple(()) if isinstance(e, RefWrite) else None


def drop_ref_write(mod):
    """ref_write(r, v) -> (): the write is lost."""
    return rewrite_module(mod, _drop)


def _swap_transposes(e):
    match e:
        case Call(Op(name="transpose"), (Call(Op(name="transpose"), (x,), inner),), outer):
            return Call(Op("transpose"), (Call(Op("transpose"), (x,), outer),), inner)
    return None


def _widen(e):
    match e:
        case Call(Op(name="cast"), (Call(Op(name="subtract"), (a, b)),), attrs):
            wide_a, wide_b = Call(Op("cast"), (a,), attrs), Call(Op("cast"), (b,), attrs)
            return Call(Op("subtract"), (wide_a, wide_b))
    return None


def widen_subtract(mod):
    """cast(subtract(a, b), t) -> subtract(cast(a, t), cast(b, t)): wrong where the narrow
    difference wraps (and for a narrowing cast)."""
    return rewrite_module(mod, _widen)


def _bias(e):
    match e:
        case Call(Op(name="add"), (x, Constant() as c)) if c.data.ndim >= 1 and c.data.size > 1:
            return Call(Op("add"), (x, Constant(c.data[::-1].copy())))
    return None


def reversed_bias(mod):
    """add(x, c) with a non-scalar constant c -> add(x, reversed c): wrong unless c reads
    the same reversed (a uniform constant does)."""
    return rewrite_module(mod, _bias)


def swap_transposes(mod):
    """transpose(transpose(x, a), b) -> transpose(transpose(x, b), a): a pair beyond the core
    operators (transpose is not among the first PAIR_CORE)."""
    return rewrite_module(mod, _swap_transposes)
'''


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("broken") / "broken.py"
    path.write_text(BROKEN)
    return path


def _load(path: Path, name: str) -> object:
    namespace: dict[str, object] = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    return namespace[name]


def test_the_corpus_is_well_typed_and_covers_every_kind() -> None:
    from relay.semantics.typing import infer_types

    corpus = motif_corpus()
    kinds = {m.kind for m in corpus.motifs}
    assert kinds == {
        "single", "pair", "shared", "twin", "attrs-twin", "constant", "construct", "narrow",
        "axis-constant", "tuple-pair",
    }  # fmt: skip
    constructs = {m.construct for m in corpus.motifs}
    assert constructs >= {"let", "if", "match", "ref", "closure", "global-call", "recursion"}
    assert constructs - {""} <= set(CONSTRUCTS)  # the module generator's names
    effects = {m.name.split("(")[0] for m in corpus.motifs if m.name.startswith("ref-")}
    assert len(effects) == len(_EFFECTS), effects
    for m in corpus.motifs[::50]:
        infer_types(m.mod)
    for m in corpus.motifs:
        if m.kind in ("shared", "twin", "attrs-twin") or m.construct in ("ref", "if", "recursion"):
            infer_types(m.mod)


def test_attribute_twins_call_one_operator_twice_on_the_same_inputs() -> None:
    twins = [m for m in motif_corpus().motifs if m.kind == "attrs-twin"]
    assert {"sum/sum", "cast/cast", "transpose/transpose"} <= {m.name for m in twins}
    for m in twins:
        assert isinstance(m.body, Tuple) and len(m.body.fields) == 2
        first, second = m.body.fields
        assert isinstance(first, Call) and isinstance(second, Call)
        assert isinstance(first.op, Op) and isinstance(second.op, Op)
        assert first.op.name == second.op.name and first.attrs != second.attrs
        assert all(a is b for a, b in zip(first.args, second.args, strict=True))


def test_every_operator_beyond_the_core_is_applied_to_its_own_result() -> None:
    corpus = motif_corpus()
    names = {m.name for m in corpus.motifs if m.kind == "pair"}
    for op in ("transpose", "reshape", "squeeze", "reverse", "nn.batch_flatten"):
        assert op in corpus.singles and f"{op}({op})" in names, op


def test_a_motif_redraws_with_other_shapes_and_attributes() -> None:
    from relay.semantics.typing import infer_types

    corpus = motif_corpus()
    redrawn = 0
    for m in corpus.motifs[::40]:
        if m.redraw is None:
            assert m.kind in ("twin", "construct"), m.name
            continue
        others = [v for v in (m.redraw(seed) for seed in range(4)) if v is not None]
        for v in others:
            assert (v.kind, v.ops) == (m.kind, m.ops)
            infer_types(v.mod)
        redrawn += any(astext(v.mod) != astext(m.mod) for v in others)
    assert redrawn >= 50


@pytest.mark.parametrize(
    ("spec", "kinds"),
    [
        ("shapes.py:transpose_compose_wrong_order", ("mismatch", "type-changed")),
        ("cse.py:cse_ignores_attrs", ("mismatch", "type-changed", "ill-typed")),
    ],
)
def test_motif_variants_catch_a_rewrite_wrong_for_some_draws(
    spec: str, kinds: tuple[str, ...], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A composition of transposes wrong only at rank 3 and a CSE blind to attributes: the
    corpus's own draw of the motif does not show either; a variant or an attribute twin
    does, before any generated program (``--max-examples`` bounds the examples, motif
    checks included)."""
    mutant = Path(__file__).parent / "mutants" / spec
    code = main(["fuzz", "--pass", str(mutant), "--seed", "0", "--max-examples", "60",
                 "--time", "120", "--out", str(tmp_path)])  # fmt: skip
    out, _ = capsys.readouterr()
    assert code == 1, out
    (report,) = tmp_path.iterdir()
    verdict = next(x for x in report.read_text().splitlines() if x.startswith("// verdict: "))
    assert verdict[len("// verdict: ") :].split(":", 1)[0] in kinds, verdict


@pytest.mark.slow
def test_extra_pairs_reach_every_operator_and_are_well_typed() -> None:
    from relay.semantics.typing import infer_types

    names = list(motif_corpus().singles)
    seen: set[str] = set()
    for i, m in enumerate(extra_pairs(names)):
        if i % 40 == 0:
            infer_types(m.mod)
        seen.update(m.ops)
        if i >= 12_000:
            break
    assert len(seen) >= 0.9 * len(names)
    kinds = {m.kind for m in itertools.islice(extra_pairs(names), 4000)}
    assert "constant-pair" in kinds


@pytest.mark.slow
def test_learning_reaches_a_pair_beyond_the_core(broken: Path) -> None:
    found: list[str] = []

    def record(motifs: list[Motif]) -> bool:
        found.extend(m.name for m in motifs)
        return False

    pass_ = as_pass(_load(broken, "swap_transposes"), "swap")  # type: ignore[arg-type]
    fp = learn(pass_, budget=30.0, found=record)
    assert "transpose(transpose)" in {m.name for m in fp.triggers}
    assert sorted(found) == sorted(m.name for m in fp.crashes + fp.triggers)  # each once


DRAWS = """
import hashlib, sys
if sys.argv[1] == "cli":
    import relay.cli  # noqa: F401
from relay.oracles.footprint import draws, motif_corpus
from relay.oracles.fuzz import cases
from relay.oracles.stable import stable_draws
from relay.semantics.text.printer import astext
h = hashlib.sha256()
with stable_draws():
    for m in motif_corpus().motifs[::20]:
        h.update(astext(m.mod).encode())
    for i in range(12):
        data, context = draws(i)
        with context:
            c = data.draw(cases(8))
        h.update(astext(c.mod).encode())
print(h.hexdigest())
"""


@pytest.mark.slow
def test_a_seed_draws_the_same_programs_whatever_was_imported() -> None:
    """Hypothesis mixes the constants of loaded modules into its draws; ``stable_draws``
    keeps them out, so ``relay fuzz`` and a script calling ``fuzz_pass`` draw alike."""
    digests = {
        subprocess.run(
            [sys.executable, "-c", DRAWS, which], capture_output=True, text=True, check=True
        ).stdout
        for which in ("cli", "bare")
    }
    assert len(digests) == 1, digests


def test_learning_finds_exactly_the_relu_relu_trigger(broken: Path) -> None:
    relu_relu = as_pass(_load(broken, "relu_relu"), "relu_relu")  # type: ignore[arg-type]
    fp = learn(relu_relu, budget=4.0)  # the corpus in the first second or two; then pairs
    assert fp.triggers, "no motif triggered the pass"
    for m in fp.triggers:
        text = str(m.mod)
        assert text.count("nn.relu") >= 2, text
    assert "nn.relu(nn.relu)" in {m.name for m in fp.triggers}
    assert fp.focus(1) == ["nn.relu"]
    assert fp.op_weights()["nn.relu"] > fp.op_weights()["add"] == 1.0


def test_learning_a_pass_that_changes_nothing_finds_nothing() -> None:
    fp = learn(as_pass(lambda mod: mod, "identity"), budget=3.0)
    assert fp.triggers == [] and fp.tested >= len(motif_corpus().motifs)
    assert fp.runs <= fp.tested / 40  # group testing: one run per batch


def test_learning_a_construct_pass_scores_the_construct(broken: Path) -> None:
    fp = learn(as_pass(_load(broken, "drop_ref_write"), "drop"), budget=4.0)  # type: ignore[arg-type]
    assert fp.constructs.most_common(1)[0][0] == "ref"
    assert all(m.construct == "ref" for m in fp.triggers)


def test_diff_names_what_appeared_and_disappeared() -> None:
    before = parse("fn (%x: float32) { nn.relu(nn.relu(%x)) }")
    after = parse("fn (%x: float32) { nn.relu(negative(%x)) }")
    d = diff(before, after)
    assert d.removed["nn.relu"] == 1 and d.added["negative"] == 1
    assert d.removed["nn.relu<nn.relu"] == 1 and d.added["nn.relu<negative"] == 1
    assert {"nn.relu", "negative"} <= d.touched()


@pytest.mark.parametrize("name", ["relu_relu", "relu_to_leaky", "drop_ref_write"])
def test_the_campaign_catches_the_broken_pass_fast(
    name: str, broken: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["fuzz", "--pass", f"{broken}:{name}", "--time", "120", "--max-examples", "100",
                 "--out", str(tmp_path)])  # fmt: skip
    out, err = capsys.readouterr()
    assert code == 1, out
    assert "footprint:" in err
    (report,) = tmp_path.iterdir()
    assert "verdict: mismatch" in report.read_text()


def test_no_footprint_turns_learning_off(broken: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["fuzz", "--pass", f"{broken}:relu_relu", "--no-footprint", "--time", "2"])
    _, err = capsys.readouterr()
    assert "footprint:" not in err
    assert code in (0, 1)


def test_narrow_motifs_compute_in_narrow_dtypes_under_casts() -> None:
    from relay.semantics.typing import infer_types

    narrow = [m for m in motif_corpus().motifs if m.kind == "narrow"]
    forms = {m.name.split(":")[0] for m in narrow}
    assert forms == {*NARROW_FORMS, "from-float", "from-float-constant"}
    for dtype in NARROW_DTYPES:
        assert any(f"[{dtype}->" in m.name for m in narrow), dtype
        assert any(f"->{dtype}]" in m.name for m in narrow), dtype
    for m in narrow:
        infer_types(m.mod)
        assert "cast" in m.ops
    one = narrow_motif("add", "int8", "int32", "widened")
    assert one is not None and str(one.mod).count("int8") == 2
    assert narrow_motif("negative", "uint8", "int16", "widened") is None
    assert narrow_motif("add", "int8", "float32", "truncated") is None
    assert one.redraw is not None
    redrawn = one.redraw(3)
    assert redrawn is not None and redrawn.name == one.name
    infer_types(redrawn.mod)
    casts = [m for m in narrow if m.name.startswith("from-float-constant:")]
    assert {m.name.split("->")[1] for m in casts} == {"int8]", "int16]", "uint8]", "int32]"}
    for m in casts:  # values between integers, none negative for an unsigned dtype
        assert isinstance(m.body, Call) and isinstance(m.body.args[0], Constant)
        data = m.body.args[0].data.astype("float64")
        assert (data != data.round()).all() and ("uint" not in m.name or (data >= 0).all())


def test_a_narrow_motifs_special_arguments_overflow_its_dtype() -> None:
    """The checks' special draws hold the extremes of int8, whose sum wraps."""
    from relay.oracles.footprint import draws

    m = narrow_motif("add", "int8", "int32", "widened")
    assert m is not None
    wrapped = False
    for seed in range(3):
        data, context = draws(seed)
        with context:
            a, b = data.draw(m.arguments(special=True))
        assert isinstance(a, TensorValue) and isinstance(b, TensorValue)
        wide = a.data.astype("int64") + b.data.astype("int64")
        wrapped |= bool(((wide < -128) | (wide > 127)).any())
    assert wrapped


def test_axis_constants_vary_along_one_axis_in_every_broadcast_shape() -> None:
    from relay.semantics.typing import infer_types

    motifs = [m for m in motif_corpus().motifs if m.kind == "axis-constant"]
    shapes: set[tuple[int, ...]] = set()
    producers: set[str] = set()
    for m in motifs:
        infer_types(m.mod)
        assert isinstance(m.body, Call)
        (c,) = [a for a in m.body.args if isinstance(a, Constant)]
        values = c.data.reshape(-1)
        assert len(set(values.tolist())) == values.size >= 2, m.name  # distinct values
        assert sum(d > 1 for d in c.data.shape) == 1, m.name  # along one axis
        shapes.add(c.data.shape)
        if len(m.ops) == 2:
            producers.add(m.ops[0])
    c_ = AXIS_SHAPE
    assert {(c_[0], 1, 1), (1, c_[1], 1), (c_[2],), (1, 1, c_[2])} <= shapes  # (C,1,1), (1,C)..
    assert {"nn.dense", "nn.conv2d", "nn.batch_matmul", "nn.bias_add"} <= producers
    names = {m.name for m in motifs}
    assert {"multiply(x, c[1])", "multiply(c[1], x)", "multiply(nn.dense, c[1])"} <= names
    other = axis_constant_motif("nn.dense", "multiply", 1, 1, False, 5)
    assert other is None or isinstance(other.body, Call)
    assert axis_constant_motif(None, "add", 1, 7, False) is None  # no such axis


def test_tuple_pairs_pass_tuples_of_two_fields_or_more() -> None:
    from relay.semantics.typing import infer_types

    pairs = [m for m in motif_corpus().motifs if m.kind == "tuple-pair"]
    assert {"concatenate(split)", "stack(split)", "concatenate(topk)"} <= {m.name for m in pairs}
    for m in pairs:
        info = infer_types(m.mod)
        assert isinstance(m.body, Call)
        t = info.expr_types[m.body.args[0]]
        assert isinstance(t, TupleType) and len(t.fields) >= 2, m.name
    texts = {str(m.mod) for m in pairs if m.name == "concatenate(split)"}
    assert len(texts) >= 2  # drawn apart: other axes and sections
    assert tuple_pair_motif("split", "concatenate", 11) is not None


@pytest.mark.parametrize(
    ("name", "kind"), [("widen_subtract", "narrow"), ("reversed_bias", "axis-constant")]
)
def test_learning_finds_the_new_motif_kinds(name: str, kind: str, broken: Path) -> None:
    pass_ = as_pass(_load(broken, name), name)
    fp = learn(pass_, budget=4.0)
    assert kind in {m.kind for m in fp.triggers}, fp.summary()


@pytest.mark.parametrize(
    "spec",
    [
        "folding.py:widen_before_cast",
        "shapes.py:fold_scale_into_dense_wrong_axis",
        "shapes.py:concat_of_split",
        "folding.py:fold_cast_rounding",
    ],
)
def test_a_motif_of_the_new_kinds_catches_the_mutant(
    spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The four mutants the corpus missed (an 8-bit add widened, a per-channel scale folded
    on the wrong axis, a concatenation of a split on another axis, a float constant cast to
    an integer by rounding) are caught by a motif, before any generated program."""
    mutant = Path(__file__).parent / "mutants" / spec
    code = main(["fuzz", "--pass", str(mutant), "--seed", "0", "--max-examples", "40",
                 "--time", "60", "--out", str(tmp_path)])  # fmt: skip
    out, _ = capsys.readouterr()
    assert code == 1, out


def test_redraws_of_the_new_motif_kinds_are_well_typed() -> None:
    """A redraw draws other shapes and dtypes; one an operator does not take (``power`` of
    integers) is dropped, not checked."""
    from relay.semantics.typing import infer_types

    kinds = ("narrow", "axis-constant", "tuple-pair")
    motifs = [m for m in motif_corpus().motifs if m.kind in kinds]
    for m in motifs[::7]:
        assert m.redraw is not None, m.name
        for seed in range(2):
            v = m.redraw(seed)
            if v is not None:
                infer_types(v.mod)
    for seed in range(30):
        v = axis_constant_motif(None, "power", 1, 0, False, seed)
        if v is not None:
            infer_types(v.mod)
            (t,) = v.param_types
            assert isinstance(t, TensorType) and t.dtype.startswith("float")


def _corpus_mutant(file: str, name: str) -> Pass:
    """The mutant ``name`` of ``tests/mutants/FILE``, as a pass."""
    return as_pass(_load(Path(__file__).parent / "mutants" / file, name), name)


def test_learning_finds_a_fold_of_if_on_a_constant_condition() -> None:
    """``if (True) { a } else { b }`` and its ``False`` twin are motifs: a pass that folds
    constant conditions (here one taking the wrong branch) is seen to change them."""
    pass_ = _corpus_mutant("control.py", "if_constant_wrong_branch")
    fp = learn(pass_, budget=8.0)
    assert {"if(true)", "if(false)"} <= {m.name for m in fp.triggers}, fp.summary()


def test_learning_finds_a_use_count_that_misses_closures() -> None:
    """``let %x = e; let %f = fn () { %x }; %f()`` is a motif: dead-code elimination that
    counts no use inside a closure drops ``%x``, and learning sees it."""
    pass_ = _corpus_mutant("control.py", "dce_misses_closure_uses")
    fp = learn(pass_, budget=8.0)
    assert any(m.name.startswith("closure-capture") for m in fp.triggers), fp.summary()


def _drop_same_head_clauses(mod: IRModule) -> IRModule:
    """A clause whose head constructor an earlier clause has is dropped, sub-patterns not
    compared (``Cons(_, Nil) => a, Cons(_, _) => b`` loses ``b``): a coverage check one level
    deep. Written by a helper as a held-out mutant, missed in 60 s before the motif."""

    def visit(e: Expr) -> Expr | None:
        if not isinstance(e, Match):
            return None
        heads: set[str] = set()
        kept = []
        for c in e.clauses:
            if isinstance(c.lhs, PatternConstructor):
                if c.lhs.constructor.name in heads:
                    continue
                heads.add(c.lhs.constructor.name)
            kept.append(c)
        return None if len(kept) == len(e.clauses) else replace(e, clauses=tuple(kept))

    return rewrite_module(mod, visit)


@pytest.mark.parametrize(
    ("make", "shape"),
    [
        (lambda: as_pass(_drop_same_head_clauses, "drop_same_head"), "match-same-head"),
        (
            lambda: _corpus_mutant("effects.py", "hoist_read_above_call"),
            "ref-closure-writes-let-read",
        ),
        (lambda: _corpus_mutant("effects.py", "sink_into_closure"), "ref-closure-state"),
    ],
)
def test_learning_finds_held_out_bugs(make: Callable[[], Pass], shape: str) -> None:
    """Three broken passes written by a helper that had not seen the corpus, each missed in a
    60 s campaign (0 of 8,105, 1,122 and 550 changed programs wrong): a read hoisted above a
    call that writes its cell, a ``ref(..)`` sunk into the closure that keeps state in it, a
    clause dropped for its head constructor. Each motif shape is seen to change."""
    fp = learn(make(), budget=8.0)
    assert any(m.name.startswith(shape) for m in fp.triggers), fp.summary()
