"""The oracle instrument: each kind of broken pass output is caught and named, and what the
oracle must accept (undefined input, more precise types) is accepted."""

from __future__ import annotations

import sys
import time
import weakref
from collections.abc import Callable
from dataclasses import replace

import numpy as np
import pytest

from relay import parse
from relay.compiler.ir import rewrite_module
from relay.compiler.pass_manager import FunctionPass, Sequential
from relay.oracles import pass_oracle
from relay.oracles.pass_oracle import (
    PassTimeout,
    check_pass,
    check_pass_many,
    fill_unknown_dims,
    reset_time_limit,
    time_limit,
)
from relay.semantics.syntax import (
    ANY,
    Call,
    Constant,
    Expr,
    IRModule,
    Op,
    TensorType,
)
from relay.semantics.typing import infer_types
from relay.semantics.values import TensorValue

SUB = "def @main(%a: float32, %b: float32) { subtract(%a, %b) }"
ARGS = (TensorValue(np.array(5, "float32")), TensorValue(np.array(2, "float32")))


def swap_subtract(mod: IRModule) -> IRModule:
    def visit(e: Expr) -> Expr | None:
        if isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == "subtract":
            return Call(e.op, (e.args[1], e.args[0]))
        return None

    return rewrite_module(mod, visit)


def test_a_value_mismatch_names_the_pass_inputs_and_values() -> None:
    verdict = check_pass(FunctionPass(swap_subtract, "swap"), parse(SUB), ARGS)
    assert verdict is not None and verdict.kind == "mismatch" and verdict.pass_name == "swap"
    assert verdict.inputs == ("5f", "2f")
    assert verdict.expected == "3f" and verdict.actual == "-3f"
    report = verdict.report()
    assert "pass: swap" in report and "expected (input program): 3f" in report


def test_a_correct_rewrite_passes() -> None:
    def identity(mod: IRModule) -> IRModule:
        return rewrite_module(mod, lambda e: None)

    assert check_pass(FunctionPass(identity, "id"), parse(SUB), ARGS) is None


def test_ill_typed_output() -> None:
    def int_constant(mod: IRModule) -> IRModule:
        def visit(e: Expr) -> Expr | None:
            if isinstance(e, Call) and isinstance(e.op, Op):
                return Call(e.op, (e.args[0], Constant(np.array(1, "int32"))))
            return None

        return rewrite_module(mod, visit)

    verdict = check_pass(FunctionPass(int_constant, "ints"), parse(SUB), ARGS)
    assert verdict is not None and verdict.kind == "ill-typed"


def test_ill_formed_output() -> None:
    other = parse("def @main(%z: float32) { %z }")["main"].params[0]

    def escape(mod: IRModule) -> IRModule:
        fn = mod["main"]
        return IRModule({mod.get_global_var("main"): replace(fn, body=other)})

    verdict = check_pass(FunctionPass(escape, "escape"), parse(SUB), ARGS)
    assert verdict is not None and verdict.kind == "ill-formed"
    assert "%z is used outside the scope of its binder" in verdict.message


def test_a_pass_that_mutates_its_input() -> None:
    def mutate(mod: IRModule) -> IRModule:
        gv = mod.get_global_var("main")
        mod.functions[gv] = swap_subtract(mod).functions[gv]  # type: ignore[index]
        return mod

    verdict = check_pass(FunctionPass(mutate, "mutate"), parse(SUB), ARGS)
    assert verdict is not None and verdict.kind == "mutated-input"


def test_crash_not_a_module_and_timeout_are_reported() -> None:
    def crash(mod: IRModule) -> IRModule:
        raise KeyError("oops")

    def loop(mod: IRModule) -> IRModule:
        while True:
            time.sleep(0.01)

    mod = parse(SUB)
    v1 = check_pass(FunctionPass(crash, "crash"), mod, ARGS)
    assert v1 is not None and v1.kind == "crash" and "KeyError" in v1.message
    v2 = check_pass(FunctionPass(lambda m: None, "none"), mod, ARGS)  # type: ignore[arg-type,return-value]
    assert v2 is not None and v2.kind == "not-a-module"
    v3 = check_pass(FunctionPass(loop, "loop"), mod, ARGS, timeout=0.5)
    assert v3 is not None and v3.kind == "timeout"


def test_any_output_is_accepted_for_undefined_input() -> None:
    prog = "def @main(%a: int32, %b: int32) { divide(%a, %b) }"
    zero = (TensorValue(np.array(1, "int32")), TensorValue(np.array(0, "int32")))

    def to_zero(mod: IRModule) -> IRModule:
        def visit(e: Expr) -> Expr | None:
            if isinstance(e, Call) and isinstance(e.op, Op):
                return Constant(np.array(0, "int32"))
            return None

        return rewrite_module(mod, visit)

    assert check_pass(FunctionPass(to_zero, "z"), parse(prog), zero) is None
    ones = (TensorValue(np.array(6, "int32")), TensorValue(np.array(3, "int32")))
    verdict = check_pass(FunctionPass(to_zero, "z"), parse(prog), ones)
    assert verdict is not None and verdict.kind == "mismatch"


def test_removing_main_or_changing_a_global_type_is_caught() -> None:
    def drop_main(mod: IRModule) -> IRModule:
        return IRModule({}, mod.type_definitions)

    verdict = check_pass(FunctionPass(drop_main, "drop"), parse(SUB), ARGS)
    assert verdict is not None and verdict.kind == "type-changed"


def test_a_type_may_become_more_precise() -> None:
    old = TensorType((ANY, 3), "float32")
    new = TensorType((2, 3), "float32")
    assert fill_unknown_dims(old, new) == new
    assert fill_unknown_dims(TensorType((4, 3), "float32"), new) != new


ABS = "def @main(%a: float32) { abs(%a) }"


def f32(x: float) -> tuple[TensorValue]:
    return (TensorValue(np.array(x, "float32")),)


def drop_abs(mod: IRModule) -> IRModule:
    """abs(x) -> x: right on non-negative x only."""

    def visit(e: Expr) -> Expr | None:
        if isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == "abs":
            return e.args[0]
        return None

    return rewrite_module(mod, visit)


def count_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Count the interpreter runs of the oracle (the number of ``run_main`` calls)."""
    calls: list[int] = []
    real = pass_oracle.run_main

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(pass_oracle, "run_main", counting)
    return calls


def test_check_pass_many_gives_the_first_set_that_fails() -> None:
    runs: list[int] = []

    def counted(mod: IRModule) -> IRModule:
        runs.append(1)
        return drop_abs(mod)

    sets = [f32(1.0), f32(2.0), f32(-3.0), f32(-4.0)]
    verdict = check_pass_many(FunctionPass(counted, "drop-abs"), parse(ABS), sets)
    assert verdict is not None and verdict.kind == "mismatch"
    assert verdict.inputs == ("-3f",) and verdict.expected == "3f" and verdict.actual == "-3f"
    assert len(runs) == 1  # the pass ran once for all four sets
    assert check_pass_many(FunctionPass(drop_abs, "drop-abs"), parse(ABS), sets[:2]) is None
    assert check_pass(FunctionPass(drop_abs, "drop-abs"), parse(ABS), f32(-1.0)) is not None


def test_check_pass_many_type_checks_once(monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list[int] = []

    def counting(mod: IRModule) -> object:
        checked.append(1)
        return infer_types(mod)

    monkeypatch.setattr(pass_oracle, "infer_types", counting)
    sets = [f32(float(x)) for x in range(1, 9)]
    assert check_pass_many(FunctionPass(drop_abs, "drop-abs"), parse(ABS), sets) is None
    assert len(checked) == 2  # the input and the output, not once per set


def test_an_unchanged_program_is_not_evaluated(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = count_runs(monkeypatch)

    def same_again(mod: IRModule) -> IRModule:
        return rewrite_module(mod, lambda e: None)

    def rebuilt(mod: IRModule) -> IRModule:  # a new module, alpha-equal to the old one
        return parse(SUB)

    for fn in (same_again, rebuilt):
        assert check_pass(FunctionPass(fn, "same"), parse(SUB), ARGS) is None
    assert runs == []
    assert check_pass(FunctionPass(swap_subtract, "swap"), parse(SUB), ARGS) is not None
    assert len(runs) == 2


def test_a_pipeline_evaluates_each_module_once(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = count_runs(monkeypatch)

    def twice(mod: IRModule) -> IRModule:
        return swap_subtract(swap_subtract(mod))  # alpha-equal to its input, a new module

    pipeline = Sequential(
        (FunctionPass(swap_subtract, "swap"), FunctionPass(twice, "twice"),
         FunctionPass(swap_subtract, "swap-back")),
    )  # fmt: skip
    assert check_pass(pipeline, parse(SUB), ARGS) is not None  # the first swap is wrong
    assert len(runs) == 2
    runs.clear()

    def plus_zero(mod: IRModule) -> IRModule:
        gv = mod.get_global_var("main")
        fn = mod["main"]
        zero = Constant(np.array(0, "float32"))
        return IRModule({gv: replace(fn, body=Call(Op("add"), (fn.body, zero)))})

    correct = Sequential((FunctionPass(plus_zero, "a"), FunctionPass(plus_zero, "b")))
    assert check_pass_many(correct, parse(SUB), [ARGS, ARGS[::-1]]) is None
    assert len(runs) == 2 * 3  # input, after a, after b, on each of the two sets


def test_a_pass_that_writes_into_a_constant_mutates_its_input() -> None:
    prog = parse("def @main(%a: float32) { add(%a, 1f) }")

    def poke(mod: IRModule) -> IRModule:
        def visit(e: Expr) -> Expr | None:
            if isinstance(e, Constant):
                e.data.setflags(write=True)
                e.data[...] = 2
            return None

        return rewrite_module(mod, visit)

    verdict = check_pass(FunctionPass(poke, "poke"), prog, f32(1.0))
    assert verdict is not None and verdict.kind == "mutated-input"


def test_a_timeout_python_discards_is_raised_again_without_a_message(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A ``PassTimeout`` that lands in a weak-reference callback is discarded by Python: the
    alarm repeats until the block is left, the discarded one reaches no unraisable hook, and
    any other discarded exception still does."""
    seen: list[BaseException | None] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda info: seen.append(info.exc_value))

    class Node:
        pass

    def raising(error: BaseException) -> Callable[[object], None]:
        def callback(_: object) -> None:
            raise error

        return callback

    with pytest.raises(PassTimeout), time_limit(0.3):
        for error in (PassTimeout(), ValueError("kept")):  # as the alarm does in a callback
            node = Node()
            ref = weakref.ref(node, raising(error))
            del node  # the callback runs here and its exception is discarded
            assert ref() is None
        while True:
            sum(range(1000))
    assert [type(e) for e in seen] == [ValueError]


class Outer(BaseException):
    pass


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        sum(range(1000))


def test_time_limits_nest() -> None:
    """An inner limit that comes first fires with its error and the outer one runs on with the
    time it had left; an inner limit that would come later adds nothing; ``reset_time_limit``
    moves the limit in force."""
    start = time.monotonic()
    with pytest.raises(Outer), time_limit(0.6, Outer):
        with pytest.raises(PassTimeout), time_limit(0.2):
            _spin(5)
        assert time.monotonic() - start < 0.5
        _spin(5)
    assert 0.5 < time.monotonic() - start < 1.5
    start = time.monotonic()
    with pytest.raises(Outer), time_limit(0.3, Outer), time_limit(5):
        _spin(5)
    assert time.monotonic() - start < 1.5
    start = time.monotonic()
    with pytest.raises(Outer), time_limit(5, Outer):
        reset_time_limit(0.2)
        _spin(5)
    assert time.monotonic() - start < 1.5
    reset_time_limit(0.01)  # no limit in force: nothing happens
    _spin(0.1)
