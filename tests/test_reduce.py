"""The report reducer (``oracles/reduce.py``): a padded failing case of a mutant is reduced to
a small one that fails the same way; what it returns is well typed; a case that does not fail
is refused; the deadline holds."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from relay.compiler.ir import well_formed
from relay.compiler.pass_manager import Pass
from relay.oracles.fuzz import Case, check_case, fuzz_pass, load_pass, read_case, replay
from relay.oracles.reduce import NotFailing, candidates, reduce_case, size
from relay.semantics.text.printer import astext
from relay.semantics.typing import infer_types

ROOT = Path(__file__).resolve().parent.parent
WITNESSES = ROOT / "tests" / "mutants" / "witnesses"

PADDED_MATCH = """\
// ARG-JSON: {"kind": "tensor", "dtype": "float32", "shape": [2], "data": [1.0, -2.0]}
// ARG-JSON: {"kind": "tensor", "dtype": "float32", "shape": [2], "data": [3.0, 4.0]}
#[version = "0.0.5"]
type List[A] { Cons(A, List[A]), Nil, }
type Opt[A] { Some(A), None, }
def @helper(%a: Tensor[(2), float32]) -> Tensor[(2), float32] { add(%a, %a) }
def @main(%x: Tensor[(2), float32], %unused: Tensor[(2), float32]) {
  let %d = multiply(%x, 2f);
  let %e = @helper(%x);
  let %t = (%x, %d);
  match (Cons(%t.0, Nil)) { Cons(_, _) => add(%x, 0f), _ => negative(%x) }
}
"""
"""The witness of ``match_default_first`` padded with an unused type, a dead helper global,
an unused parameter, dead lets and a tuple of which one field is used."""


def _mutant(file: str, attr: str) -> Pass:
    return load_pass(f"{ROOT / 'tests' / 'mutants' / file}:{attr}").pass_


def _kind(p: Pass, case: Case) -> str | None:
    checked = check_case(p, case.mod, (case.args,), timeout=20.0)
    return None if checked.verdict is None else checked.verdict.kind


def test_padded_case_is_reduced_and_still_fails() -> None:
    p = _mutant("control.py", "match_default_first")
    case = read_case(PADDED_MATCH, "padded")
    assert _kind(p, case) == "mismatch"
    reduced, verdict = reduce_case(p, case, "mismatch", deadline=time.monotonic() + 30)
    assert verdict.kind == "mismatch"
    assert _kind(p, reduced) == "mismatch"
    text = astext(reduced.mod)
    for gone in ("@helper", "Opt", "%unused", "multiply", "%t"):
        assert gone not in text, text
    assert len(reduced.mod.functions) == 1
    assert len(reduced.mod["main"].params) == len(reduced.args)
    assert size(reduced.mod) < size(case.mod)


@pytest.mark.parametrize(
    ("file", "attr"),
    [
        ("control.py", "unroll_without_binding"),
        ("control.py", "if_constant_wrong_branch"),
        ("inlining.py", "inline_by_name"),
        ("folding.py", "fold_cast_rounding"),
    ],
)
def test_reduced_case_is_well_typed_and_fails_the_same_way(file: str, attr: str) -> None:
    p = _mutant(file, attr)
    case = read_case((WITNESSES / f"{attr}.relay").read_text(encoding="utf-8"), attr)
    kind = _kind(p, case)
    assert kind is not None
    reduced, verdict = reduce_case(p, case, kind, deadline=time.monotonic() + 10)
    assert verdict.kind == kind
    assert not well_formed(reduced.mod)
    infer_types(reduced.mod)  # raises if ill-typed
    assert _kind(p, reduced) == kind
    assert size(reduced.mod) <= size(case.mod)


def test_candidates_that_are_kept_are_checked_for_types() -> None:
    """Some candidates are ill typed (a part of another type is never offered, but a dropped
    type definition still in use is): the reducer skips them, it does not return them."""
    case = read_case(PADDED_MATCH, "padded")
    ill = 0
    for candidate in candidates(case.mod, case.args):
        try:
            if well_formed(candidate.mod):
                raise ValueError
            infer_types(candidate.mod)
        except Exception:
            ill += 1
    assert ill > 0


def test_a_passing_case_is_refused() -> None:
    p = load_pass("dead-code-elimination").pass_
    case = read_case(PADDED_MATCH, "padded")
    with pytest.raises(NotFailing):
        reduce_case(p, case, "mismatch", deadline=time.monotonic() + 10)


def test_a_case_failing_another_way_is_refused() -> None:
    p = _mutant("control.py", "match_default_first")
    case = read_case(PADDED_MATCH, "padded")
    with pytest.raises(NotFailing):
        reduce_case(p, case, "crash", deadline=time.monotonic() + 10)


def test_the_deadline_is_respected() -> None:
    p = _mutant("control.py", "match_default_first")
    case = read_case(PADDED_MATCH, "padded")
    start = time.monotonic()
    reduced, verdict = reduce_case(p, case, "mismatch", deadline=start)
    assert time.monotonic() - start < 5.0  # the precondition's check only
    assert verdict.kind == "mismatch"
    assert astext(reduced.mod) == astext(case.mod)  # nothing tried
    start = time.monotonic()
    reduce_case(p, case, "mismatch", deadline=start + 0.3)
    assert time.monotonic() - start < 5.0


UNROLL_REPORT = """\
// ARG-JSON: {"kind": "tensor", "dtype": "int32", "shape": [], "data": 3}
#[version = "0.0.5"]
def @countdown(%n: int32) -> int32 {
  %0 = less_equal(%n, 0);
  if (%0) { 0 } else { %1 = @countdown(subtract(%n, 1)); add(%n, %1) }
}
def @main(%m: int32) {
  let %unused = add(%m, 1);
  @countdown(%m)
}
"""
"""A report of ``unroll_without_binding`` as a campaign wrote it (12 lines printed): a
recursive global that ``@main`` only calls."""


def test_main_is_collapsed_into_the_global_it_calls() -> None:
    p = _mutant("control.py", "unroll_without_binding")
    case = read_case(UNROLL_REPORT, "unroll")
    kind = _kind(p, case)
    assert kind is not None
    reduced, _ = reduce_case(p, case, kind, deadline=time.monotonic() + 30)
    assert list(reduced.mod.functions) == [reduced.mod.get_global_var("main")]
    assert "@main(" in astext(reduced.mod).split("def @main", 1)[1]  # it calls itself
    assert size(reduced.mod)[0] <= 10


def test_a_campaign_writes_the_reduced_case_and_it_replays(tmp_path: Path) -> None:
    """``match_default_first`` is found by a motif (not shrunk): its report is the reduced
    motif, with no helper left (16 lines before the reducer), and ``replay`` reproduces it."""
    loaded = load_pass(f"{ROOT / 'tests' / 'mutants' / 'control.py'}:match_default_first")
    result = fuzz_pass(
        loaded, max_examples=50, time_budget=30.0, seed=0, out_dir=tmp_path, database=None
    )
    assert result.verdict is not None and result.path is not None
    assert result.verdict.kind == "mismatch"
    path = Path(result.path)
    case, verdict = replay(loaded, path)
    assert verdict is not None and verdict.kind == "mismatch"
    assert len(case.mod.functions) == 1
    assert size(case.mod)[0] <= 15  # the version line and 14 of program
    assert list(tmp_path.glob("*.relay")) == [path]
