"""The pass manager: Sequential, PassContext (opt level, disabled and required passes,
instruments), command-line names, and the rule that a pass never changes its input."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from relay import astext, parse
from relay.compiler import passes
from relay.compiler.pass_manager import (
    BUILTIN_PASSES,
    FunctionPass,
    Pass,
    PassContext,
    Sequential,
    cli_name,
    run_pass,
)
from relay.semantics.errors import PassError
from relay.semantics.syntax import IRModule

PROGRAM = """
def @main(%x: Tensor[(2, 3), float32]) {
  let %unused = multiply(%x, 2f);
  %0 = add(%x, %x);
  %1 = add(%x, %x);
  divide(subtract(%0, %1), 4f)
}
"""


@dataclass(frozen=True)
class Recorder(Pass):
    """A pass that only records that it ran."""

    tag: str = "r"
    log: list[str] | None = None

    @property
    def name(self) -> str:
        return f"Recorder{self.tag}"

    def transform(self, mod: IRModule) -> IRModule:
        assert self.log is not None
        self.log.append(self.tag)
        return mod


class Level2Recorder(Recorder):
    opt_level = 2


class Watch:
    def __init__(self) -> None:
        self.events: list[str] = []

    def before_pass(self, p: Pass, mod: IRModule) -> None:
        self.events.append(f"before {p.name}")

    def after_pass(self, p: Pass, before: IRModule, after: IRModule) -> None:
        self.events.append(f"after {p.name}")


@pytest.mark.parametrize(
    ("class_name", "expected"),
    [
        ("FoldConstant", "fold-constant"),
        ("ToANormalForm", "to-a-normal-form"),
        ("CombineParallelConv2D", "combine-parallel-conv2d"),
        ("DivToMul", "div-to-mul"),
        ("EliminateCommonSubexpr", "eliminate-common-subexpr"),
    ],
)
def test_cli_names(class_name: str, expected: str) -> None:
    assert cli_name(class_name) == expected


def test_sequential_runs_passes_by_opt_level() -> None:
    log: list[str] = []
    seq = Sequential((Recorder("a", log), Level2Recorder("b", log), Recorder("c", log)))
    mod = parse(PROGRAM)
    with PassContext(opt_level=1):
        seq(mod)
    assert log == ["a", "c"]
    log.clear()
    with PassContext(opt_level=2):
        seq(mod)
    assert log == ["a", "b", "c"]


def test_disabled_and_required_passes() -> None:
    log: list[str] = []
    seq = Sequential((Recorder("a", log), Level2Recorder("b", log)))
    mod = parse(PROGRAM)
    with PassContext(opt_level=3, disabled=frozenset({"Recordera"})):
        seq(mod)
    assert log == ["b"]
    log.clear()
    with PassContext(opt_level=0, required=frozenset({"Recorderb"})):
        seq(mod)
    assert log == ["a", "b"]


def test_a_pipeline_level_overrides_the_context() -> None:
    log: list[str] = []
    seq = Sequential((Recorder("a", log), Level2Recorder("b", log)), level=3)
    with PassContext(opt_level=0):
        seq(parse(PROGRAM))
    assert log == ["a", "b"]


def test_instruments_see_every_pass_that_runs() -> None:
    log: list[str] = []
    watch = Watch()
    seq = Sequential((Recorder("a", log), Level2Recorder("b", log)))
    with PassContext(opt_level=1, instruments=(watch,)):
        seq(parse(PROGRAM))
    assert watch.events == ["before Recordera", "after Recordera"]


def test_a_pass_that_returns_something_else_is_an_error() -> None:
    bad = FunctionPass(lambda mod: None, "returns_none")  # type: ignore[arg-type,return-value]
    with pytest.raises(PassError, match="returns_none returned NoneType"):
        run_pass(bad, parse(PROGRAM), PassContext())


def test_contexts_nest() -> None:
    assert PassContext.current().opt_level == 2
    with PassContext(opt_level=0):
        assert PassContext.current().opt_level == 0
        with PassContext(opt_level=3):
            assert PassContext.current().opt_level == 3
        assert PassContext.current().opt_level == 0
    assert PassContext.current().opt_level == 2


def test_the_default_pipelines_grow_with_the_level() -> None:
    mod = parse(PROGRAM)
    for level in range(4):
        out = passes.pipeline(level)(mod)
        assert isinstance(out, IRModule)
    names3 = [p.cli_name for p in passes.pipeline(3).passes]
    assert names3 and all(n in BUILTIN_PASSES for n in names3)


MODULES = [
    PROGRAM,
    """
type List[A] { Cons(A, List[A]), Nil }
def @len[A](%l: List[A]) -> int32 {
  match (%l) { Cons(_, %t) => add(1, @len(%t)), Nil => 0 }
}
def @main(%x: int32) {
  let %r = ref(%x);
  let %f = fn (%y: int32) { add(%y, ref_read(%r)) };
  ref_write(%r, 3);
  (%f(1), @len(Cons(%x, Nil)), if (less(%x, 0)) { 1 } else { 2 })
}
""",
]


@pytest.mark.parametrize("name", sorted(BUILTIN_PASSES))
@pytest.mark.parametrize("source", MODULES)
def test_no_pass_changes_its_input(name: str, source: str) -> None:
    mod = parse(source)
    text = astext(mod)
    functions = dict(mod.functions)
    p = BUILTIN_PASSES[name]()
    try:
        out = p(mod)
    except PassError as err:  # Gradient refuses an @main that is not differentiable
        assert getattr(p, "oracle", "") == "gradient", err
        out = mod
    assert isinstance(out, IRModule)
    assert astext(mod) == text
    assert dict(mod.functions) == functions
