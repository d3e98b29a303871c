"""DynamicToStatic: dyn.* calls with literal constant shapes become static operators.

The pass makes types more precise (``?`` becomes a size), which the oracle instrument accepts
(``pass_oracle.fill_unknown_dims``): nothing else about a global's type may change.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings

import relay
from relay.compiler.ir import substitute
from relay.compiler.passes.dynamic_to_static import DynamicToStatic
from relay.oracles.fuzz import REDUCTION_LENGTH, Case, cases
from relay.oracles.pass_oracle import check_pass, fill_unknown_dims
from relay.semantics.equality import alpha_equal
from relay.semantics.syntax import ANY, Constant, IRModule, TensorType, TupleType, Type
from relay.semantics.values import TensorValue

HEADER = '#[version = "0.0.5"]\n'


def with_constants(src: str, **consts: np.ndarray) -> IRModule:
    """``src`` parsed, with ``@main``'s parameters named in ``consts`` replaced by them."""
    mod = relay.parse(HEADER + src)
    gv = mod.get_global_var("main")
    fn = mod.functions[gv]
    mapping = {
        p: Constant(np.asarray(consts[p.name_hint])) for p in fn.params if p.name_hint in consts
    }
    fn = replace(
        fn,
        params=tuple(p for p in fn.params if p not in mapping),
        body=substitute(fn.body, mapping),
    )
    return IRModule({gv: fn}, mod.type_definitions)


def run(mod: IRModule, *args: np.ndarray) -> IRModule:
    verdict = check_pass(DynamicToStatic(), mod, [TensorValue(a) for a in args])
    assert verdict is None, verdict.report()
    return DynamicToStatic()(mod)


def assert_becomes(mod: IRModule, expected: str, *args: np.ndarray, **consts: np.ndarray) -> None:
    out = run(mod, *args)
    want = with_constants(expected, **consts)
    assert alpha_equal(out, want), relay.astext(out)


X = np.arange(6, dtype=np.float32).reshape(2, 3)


def test_reshape_zeros_ones_full_broadcast_to() -> None:
    mod = with_constants(
        """def @main(%x: Tensor[(2, 3), float32], %s: Tensor[(2), int64],
                   %z: Tensor[(1), int32], %t: Tensor[(3), int64]) {
          (dyn.reshape(%x, %s, newshape=[]), dyn.zeros(%z, shape=None, dtype="int8"),
           dyn.ones(%z, shape=None, dtype="float16"), dyn.full(2i16, %z, shape=None, dtype=""),
           dyn.broadcast_to(%x, %t, shape=None))
        }""",
        s=np.array([-1, 0]),
        z=np.array([4], "int32"),
        t=np.array([4, 2, 3]),
    )
    assert_becomes(
        mod,
        """def @main(%x: Tensor[(2, 3), float32]) {
          (reshape(%x, newshape=[-1, 0]), zeros(shape=[4], dtype="int8"),
           ones(shape=[4], dtype="float16"), full(2i16, shape=[4], dtype=""),
           broadcast_to(%x, shape=[4, 2, 3]))
        }""",
        X,
    )
    t = relay.infer_types(DynamicToStatic()(mod)).globals["main"]
    assert isinstance(t, relay.semantics.syntax.FuncType)
    assert isinstance(t.ret_type, TupleType)
    assert t.ret_type.fields[0] == TensorType((2, 3), "float32")


def test_reshape_with_minus_three_and_unknown_input() -> None:
    mod = with_constants(
        """def @main(%x: Tensor[(?, 3, 2), float32], %s: Tensor[(2), int32]) {
          dyn.reshape(%x, %s, newshape=[])
        }""",
        s=np.array([0, -3], "int32"),
    )
    assert_becomes(
        mod,
        """def @main(%x: Tensor[(?, 3, 2), float32]) { reshape(%x, newshape=[0, -3]) }""",
        np.zeros((4, 3, 2), np.float32),
    )


@pytest.mark.parametrize(
    "shape",
    [
        [-2],  # the dynamic shape function rejects -2; the static one copies the rest
        [-4, 2, 3],  # likewise -4
        [-1, -1],
        [4, 2],  # element counts differ: the static relation refuses it
    ],
)
def test_reshape_kept_where_static_differs(shape: list[int]) -> None:
    src = """def @main(%x: Tensor[(2, 3), float32], %s: Tensor[(?), int64]) {
      dyn.reshape(%x, %s, newshape=[])
    }"""
    mod = with_constants(src.replace("(?)", f"({len(shape)})"), s=np.array(shape))
    out = DynamicToStatic()(mod)
    assert "dyn.reshape" in relay.astext(out)


def slice_module(begin: list[int], end: list[int], strides: list[int], mode: str) -> IRModule:
    n = len(begin)
    return with_constants(
        f"""def @main(%x: Tensor[(4, 3), float32], %b: Tensor[({n}), int64],
                    %e: Tensor[({n}), int64], %s: Tensor[({n}), int64]) {{
          dyn.strided_slice(%x, %b, %e, %s, begin=None, end=None, strides=None,
                            slice_mode="{mode}", axes=None)
        }}""",
        b=np.array(begin, "int64"),
        e=np.array(end, "int64"),
        s=np.array(strides, "int64"),
    )


@pytest.mark.parametrize(
    ("begin", "end", "strides", "mode"),
    [
        ([1], [9], [2], "end"),
        ([-1, 0], [-5, 3], [-1, 1], "end"),
        ([1, 1], [2, -1], [5, 5], "size"),
        ([3], [1], [-2], "end"),
    ],
)
def test_strided_slice_becomes_static_where_both_agree(
    begin: list[int], end: list[int], strides: list[int], mode: str
) -> None:
    out = run(
        slice_module(begin, end, strides, mode), np.arange(12, dtype=np.float32).reshape(4, 3)
    )
    text = relay.astext(out)
    assert "dyn." not in text and "strided_slice(%x" in text


def test_strided_slice_kept_where_static_would_differ() -> None:
    # begin 1 > end 0 with stride 2: the dynamic slice is empty, the static one is refused.
    out = DynamicToStatic()(slice_module([1], [0], [2], "end"))
    assert "dyn.strided_slice" in relay.astext(out)


def test_strided_slice_kept_on_unknown_extent() -> None:
    mod = with_constants(
        """def @main(%x: Tensor[(?), float32], %b: Tensor[(1), int64]) {
          dyn.strided_slice(%x, %b, %b, %b, begin=None, end=None, strides=None, axes=None)
        }""",
        b=np.array([1]),
    )
    assert "dyn.strided_slice" in relay.astext(DynamicToStatic()(mod))


def test_tile_topk_one_hot() -> None:
    mod = with_constants(
        """def @main(%x: Tensor[(2, 3), float32], %i: Tensor[(2), int32],
                   %r: Tensor[(3), int64], %r0: Tensor[(1), int64]) {
          (dyn.tile(%x, %r, reps=[]), dyn.tile(%x, %r0, reps=[]),
           dyn.topk(%x, 2, k=None, dtype="int32"),
           dyn.one_hot(%i, 1f, 0f, 4, depth=1, axis=0, dtype="float32"),
           dyn.one_hot(%i, 1f, 0f, 0, depth=1, dtype="float32"))
        }""",
        r=np.array([2, 1, 2]),
        r0=np.array([0]),
    )
    assert_becomes(
        mod,
        """def @main(%x: Tensor[(2, 3), float32], %i: Tensor[(2), int32],
                   %r0: Tensor[(1), int64]) {
          (tile(%x, reps=[2, 1, 2]), dyn.tile(%x, %r0, reps=[]),
           topk(%x, k=2, dtype="int32"),
           one_hot(%i, 1f, 0f, depth=4, axis=0, dtype="float32"),
           dyn.one_hot(%i, 1f, 0f, 0, depth=1, dtype="float32"))
        }""",
        X,
        np.array([1, 3], np.int32),
        r0=np.array([0]),
    )


def test_the_oracle_accepts_a_more_precise_type_only() -> None:
    def refines(new: Type, old: Type) -> bool:
        return alpha_equal(fill_unknown_dims(old, new), new)

    assert refines(TensorType((2, 3), "float32"), TensorType((ANY, 3), "float32"))
    assert not refines(TensorType((ANY, 3), "float32"), TensorType((2, 3), "float32"))
    assert not refines(TensorType((2, 3), "float32"), TensorType((ANY, 4), "float32"))
    assert not refines(TensorType((2,), "float32"), TensorType((ANY,), "float64"))


@settings(deadline=None, max_examples=40)
@given(cases(focus=sorted(DynamicToStatic.focus_ops)))
def test_dynamic_to_static_preserves_meaning(case: Case) -> None:
    verdict = check_pass(DynamicToStatic(), case.mod, case.args, reduction_length=REDUCTION_LENGTH)
    assert verdict is None, verdict.report()
