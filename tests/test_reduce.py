"""The report reducer (``oracles/reduce.py``): a padded failing case of a mutant is reduced to
a small one that fails the same way; what it returns is well typed; a case that does not fail
is refused; the deadline holds."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from relay import evaluate
from relay.compiler.ir import well_formed
from relay.compiler.pass_manager import Pass
from relay.oracles.fuzz import Case, check_case, fuzz_pass, load_pass, read_case, replay
from relay.oracles.reduce import NotFailing, candidates, reduce_case, size
from relay.semantics.syntax import Call, Constant, Function, GlobalVar, IRModule, Op, post_order
from relay.semantics.text.printer import astext
from relay.semantics.typing import infer_types
from relay.semantics.values import value_to_json

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


def _reduced_report(p: Pass, text: str, kind: str) -> Case:
    """The report ``text`` (continued lines joined), which ``p`` fails with ``kind``, reduced
    within 30 s; it still fails so."""
    case = read_case(text.replace("\\\n", ""), "report")
    assert _kind(p, case) == kind
    reduced, _ = reduce_case(p, case, kind, deadline=time.monotonic() + 30)
    assert _kind(p, reduced) == kind
    return reduced


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
    assert size(case.mod)[0] <= 11  # the version line and 10 of program
    assert "type " not in astext(case.mod)  # the one-constructor type became a tuple
    assert list(tmp_path.glob("*.relay")) == [path]


def _candidate(case: Case, what: str) -> Case:
    """The one candidate of ``case`` described as ``what``, well formed and well typed."""
    found = [c for c in candidates(case.mod, case.args) if c.what == what]
    assert len(found) == 1, [c.what for c in candidates(case.mod, case.args)]
    assert not well_formed(found[0].mod)
    infer_types(found[0].mod)
    return Case(found[0].mod, found[0].args, (found[0].args,))


CALLS = """\
// ARG-JSON: {"kind": "tensor", "dtype": "int32", "shape": [], "data": 5}
#[version = "0.0.5"]
def @g(%a: int32, %b: int32, %unused: float32) -> int32 { subtract(%a, %b) }
def @main(%x: int32) { add(@g(%x, add(%x, 1), 2f), 1) }
"""
"""A global called with a computed argument and an argument it does not use."""


def _value(case: Case) -> object:
    return value_to_json(evaluate(case.mod, *case.args))


def _calls(case: Case, name: str) -> int:
    return sum(
        isinstance(e, Call) and isinstance(e.op, GlobalVar) and e.op.name == name
        for fn in case.mod.functions.values()
        for e in post_order(fn)
    )


def test_a_call_of_a_global_is_inlined() -> None:
    """``@g(%x, add(%x, 1), 2f)`` becomes ``@g``'s body with ``%a := %x`` substituted and
    ``%b`` bound by a let: the same value, no call left."""
    case = read_case(CALLS, "calls")
    inlined = _candidate(case, "inline a call of @g")
    assert _calls(inlined, "g") == 0
    assert "let %b" in astext(inlined.mod)
    assert _value(inlined) == _value(case)


def test_a_global_parameter_it_does_not_use_is_dropped_with_its_arguments() -> None:
    case = read_case(CALLS, "calls")
    dropped = _candidate(case, "drop parameter %unused of @g")
    assert len(dropped.mod["g"].params) == 2
    assert "2f" not in astext(dropped.mod)
    assert _value(dropped) == _value(case)


UNCALLED_REPORT = """\
// NAMES-JSON: {"f1": {"p1": "p", "p2": "p"}}
#[version = "0.0.5"]
type Tree[A] {
  Node(Tree[A], A, Tree[A]),
}

def @f1[T1](%p: T1, %p1: ref(Tree[float32]), %p2: fn (Tree[int32]) -> Tree[float32]) -> T1 {
  %p
}

def @main() {
  @f1
}
"""
"""A report of ``remove_uncalled_functions`` as a campaign wrote it (seed 2, shortened): a
global used as a value, with type parameters, parameters and a type definition it does not
need."""


def test_a_global_used_as_a_value_is_reduced_to_a_constant_body() -> None:
    p = _mutant("inlining.py", "remove_uncalled_functions")
    reduced = _reduced_report(p, UNCALLED_REPORT, "ill-formed")
    text = astext(reduced.mod)
    assert "type " not in text and "%p" not in text and "->" not in text, text
    assert size(reduced.mod)[0] <= 7  # def @f1() { .. } and def @main() { @f1 }


ONE_CONSTRUCTOR = """\
// ARG-JSON: {"kind": "tensor", "dtype": "float32", "shape": [], "data": -1.0}
// ARG-JSON: {"kind": "tensor", "dtype": "float32", "shape": [], "data": -1.25}
#[version = "0.0.5"]
type Box[A] {
  B(A),
}

def @main(%p0: float32, %q: float32) {
  %0 = B(%p0);
  match (%0) {
    B(%v: float32) => {
      %v
    },
    _ => {
      %q
    },
  }
}
"""
"""The report of ``match_default_first`` the footprint motif gives (14 lines of program)."""


def test_a_type_of_one_constructor_becomes_a_tuple() -> None:
    case = read_case(ONE_CONSTRUCTOR, "box")
    tupled = _candidate(case, "type Box as a tuple")
    assert not tupled.mod.type_definitions
    assert "(%v: float32) =>" in astext(tupled.mod)
    assert _value(tupled) == _value(case)


def test_a_match_on_a_one_constructor_type_is_reduced_to_ten_lines() -> None:
    """The type becomes a tuple, and the tuple a parameter of ``@main``."""
    p = _mutant("control.py", "match_default_first")
    case = read_case(ONE_CONSTRUCTOR, "box")
    reduced, _ = reduce_case(p, case, "mismatch", deadline=time.monotonic() + 30)
    assert size(reduced.mod)[0] <= 11  # the version line and 10 of program
    assert "%r: (float32,)" in astext(reduced.mod)
    assert _kind(p, reduced) == "mismatch"


def test_a_shared_constant_is_bound_so_that_the_report_keeps_the_sharing() -> None:
    """``divide(c, c)`` with one constant node ``c``: ``fast_math`` rewrites ``x / x`` (by
    identity) to ``1``, wrong for 0; the text ``divide(0f, 0f)`` holds two constants, which it
    leaves alone, so the reducer binds the constant (``let %c0 = 0f; divide(%c0, %c0)``)
    rather than refuse the case."""
    p = _mutant("rewrites.py", "fast_math")
    zero = Constant(np.zeros((), dtype="float32"))
    mod = IRModule({GlobalVar("main"): Function((), Call(Op("divide"), (zero, zero)))}, {})
    case = Case(mod, (), ((),))
    assert _kind(p, case) == "mismatch"
    assert _kind(p, read_case(astext(mod), "text")) is None  # the sharing is lost in text
    reduced, verdict = reduce_case(p, case, "mismatch", deadline=time.monotonic() + 10)
    assert verdict.kind == "mismatch"
    assert "divide(%c0, %c0)" in astext(reduced.mod)
    assert _kind(p, read_case(astext(reduced.mod), "reduced")) == "mismatch"


def test_a_structural_failure_is_reduced_without_evaluating_candidates(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An ill-formed output is found before anything is evaluated: once the case is seen to
    fail so without values, each candidate is checked on no argument tuple."""
    import relay.oracles.fuzz as fuzz

    sets: list[int] = []

    def counting(p: Pass, mod: object, arg_sets: tuple[object, ...], **kw: float) -> object:
        sets.append(len(arg_sets))
        return check_case(p, mod, arg_sets, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(fuzz, "check_case", counting)
    p = _mutant("inlining.py", "remove_uncalled_functions")
    case = read_case(UNCALLED_REPORT, "uncalled")
    reduce_case(p, case, "ill-formed", deadline=time.monotonic() + 30)
    assert sets[0] == 1 and len(sets) > 3
    assert set(sets[1:]) == {0}


CLOSURE_REPORT = """\
#[version = "0.0.5"]
type List[A] {
  Nil,
}

type Nat {
  Z,
}

def @main(%p: Tensor[(1, 4, 4, 2), float32], %p1: float32, %r: Tensor[(2, 1, 1), float32], \
%r1: Tensor[(2, 1, 1), float32], %r2: Tensor[(3, 4, 6), float32]) {
  let %y = %r1;
  %3 = (
    let %g: fn [T4](T4, fn () -> int32) -> Tensor[(2, 1, 1), float32] = fn [T4](%p2: T4, \
%p3: fn () -> int32) {
      %0 = fn (%p4: Tensor[(2, 2, 3), int16], %p5: T4) -> T4 {
        %p5
      };
      %1 = fn (%p6: Nat) -> Nat {
        Z
      };
      %2 = fn [T1](%p7: T1, %p8: fn (Nat) -> Nat) -> List[T1] {
        Nil
      };
      let %y1: List[fn (Tensor[(2, 2, 3), int16], T4) -> T4] = %2(%0, %1);
      %y
    };
    -2
  );
  (%3, %r2, %p, %p1, %r, %r2, %p)
}
"""
"""A report of ``dce_misses_closure_uses`` (seed 2 of ``benchmarks/fuzz.py``) as the reducer
left it at 27 lines: ``%y``'s only use is in a closure kept alive by a call inside it; to go
further the reducer must drop local annotations and a closure's unused parameters, put an
effect in place of the call, and return less of @main's tuple."""


def test_a_closure_kept_alive_by_a_call_is_reduced_to_a_few_lines() -> None:
    p = _mutant("control.py", "dce_misses_closure_uses")
    reduced = _reduced_report(p, CLOSURE_REPORT, "ill-formed")
    text = astext(reduced.mod)
    assert "type " not in text and "T4" not in text, text
    assert size(reduced.mod)[0] <= 9, text  # the version line and 8 of program


LOCALS = """\
// ARG-JSON: {"kind": "tensor", "dtype": "int32", "shape": [], "data": 5}
#[version = "0.0.5"]
def @main(%x: int32) {
  let %f: fn (int32, float32) -> int32 = fn (%a: int32, %unused: float32) -> int32 { add(%a, 1) };
  let %dead = %f(%x, 2f);
  (%f(%x, 3f), %x)
}
"""
"""A let-bound closure with an annotation, a result type and a parameter it does not use,
called twice; an unused let of a call; @main ending in a tuple."""


def test_local_annotations_closure_parameters_and_result_fields_are_candidates() -> None:
    case = read_case(LOCALS, "locals")
    bare = _candidate(case, "%f's annotation")
    assert "fn (int32, float32)" not in astext(bare.mod)
    assert _value(bare) == _value(case)
    dropped = _candidate(bare, "drop the closure parameter %unused")
    text = astext(dropped.mod)
    assert "2f" not in text and "3f" not in text and "%unused" not in text, text
    assert _value(dropped) == _value(case)
    assert "-> int32 {" not in astext(_candidate(case, "a closure's result type").mod)
    assert "ref(0)" in astext(_candidate(case, "%dead bound to ref(0)").mod)
    less = [c for c in candidates(case.mod, case.args) if c.what == "@main returns less"]
    assert len(less) == 4  # each field alone, the tuple less each field


TYPED_BY_A_REMOVED_USE = """\
#[version = "0.0.5"]
type List[A] {
  Nil,
}

def @f0(%p: int32, %p1: fn () -> List[int32]) {
  Nil
}

def @f1() -> fn (int32, fn () -> List[int32]) -> List[fn (int32) -> int32] {
  @f0
}

def @main() {
  %0 = fn () {
    Nil
  };
  @f0(0, %0)
}
"""
"""A type-changed report of ``remove_uncalled_functions`` (seed 1 of ``benchmarks/fuzz.py``):
only ``@f1``'s result annotation fixed what ``@f0`` returns, and the mutant drops ``@f1``."""


def test_a_parameter_is_dropped_from_the_annotation_that_names_it_too() -> None:
    p = _mutant("inlining.py", "remove_uncalled_functions")
    reduced = _reduced_report(p, TYPED_BY_A_REMOVED_USE, "type-changed")
    text = astext(reduced.mod)
    assert "%p" not in text and "fn ()" in text, text
