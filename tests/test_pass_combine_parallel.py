"""CombineParallelConv2D / CombineParallelDense: groups of parallel calls become one call and
slices, and only groups that are alike, large enough and in one scope."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import relay
from relay.compiler.pass_manager import Pass
from relay.compiler.passes.combine_parallel import CombineParallelConv2D, CombineParallelDense
from relay.oracles.fuzz import REDUCTION_LENGTH, Case, cases
from relay.oracles.pass_oracle import check_pass
from relay.semantics.equality import alpha_equal
from relay.semantics.syntax import IRModule, TensorType
from relay.semantics.values import TensorValue

HEADER = '#[version = "0.0.5"]\n'


def random_args(mod: IRModule) -> list[TensorValue]:
    rng = np.random.default_rng(1)
    main = next(f for g, f in mod.functions.items() if g.name == "main")
    out = []
    for p in main.params:
        t = p.type_annotation
        assert isinstance(t, TensorType)
        shape = tuple(int(d) for d in t.shape)  # type: ignore[arg-type]
        if t.dtype == "bool":
            out.append(TensorValue(rng.integers(0, 2, shape).astype(bool)))
        else:
            out.append(TensorValue(rng.standard_normal(shape).astype(t.dtype)))
    return out


def assert_becomes(p: Pass, src: str, expected: str) -> None:
    mod = relay.parse(HEADER + src)
    out = p(mod)
    verdict = check_pass(p, mod, random_args(mod), reduction_length=4)
    assert verdict is None, verdict.report()
    assert alpha_equal(out, relay.parse(HEADER + expected)), relay.astext(out)


def assert_unchanged(p: Pass, src: str) -> None:
    assert_becomes(p, src, src)


SIG = (
    "%x: Tensor[(1, 2, 5, 5), float32], %w1: Tensor[(3, 2, 3, 3), float32], "
    "%w2: Tensor[(4, 2, 3, 3), float32], %w3: Tensor[(1, 2, 3, 3), float32]"
)


def test_three_convolutions_become_one_and_slices() -> None:
    assert_becomes(
        CombineParallelConv2D(),
        f"""def @main({SIG}) {{
          %0 = nn.conv2d(%x, %w1, padding=[1, 1], channels=3);
          %1 = nn.conv2d(%x, %w2, padding=[1, 1], channels=4);
          %2 = nn.conv2d(%x, %w3, padding=[1, 1], channels=1);
          (%0, nn.relu(%1), %2)
        }}""",
        f"""def @main({SIG}) {{
          %0 = concatenate((%w1, %w2, %w3), axis=0);
          %1 = nn.conv2d(%x, %0, padding=[1, 1], channels=8);
          %2 = strided_slice(%1, begin=[3], end=[7], strides=[1], axes=[1]);
          (strided_slice(%1, begin=[0], end=[3], strides=[1], axes=[1]),
           nn.relu(%2),
           strided_slice(%1, begin=[7], end=[8], strides=[1], axes=[1]))
        }}""",
    )


def test_two_branches_need_a_lower_minimum() -> None:
    src = f"""def @main({SIG}) {{
      (nn.conv2d(%x, %w1), nn.conv2d(%x, %w2))
    }}"""
    assert_unchanged(CombineParallelConv2D(), src)
    assert_becomes(
        CombineParallelConv2D(min_num_branches=2),
        src,
        f"""def @main({SIG}) {{
          %0 = nn.conv2d(%x, concatenate((%w1, %w2)));
          (strided_slice(%0, begin=[0], end=[3], strides=[1], axes=[1]),
           strided_slice(%0, begin=[3], end=[7], strides=[1], axes=[1]))
        }}""",
    )


def test_nhwc_convolutions_concatenate_along_the_kernel_o_axis() -> None:
    sig = (
        "%x: Tensor[(1, 4, 4, 2), float32], %a: Tensor[(1, 1, 2, 3), float32], "
        "%b: Tensor[(1, 1, 2, 1), float32], %c: Tensor[(1, 1, 2, 2), float32]"
    )
    layouts = 'data_layout="NHWC", kernel_layout="HWIO"'
    assert_becomes(
        CombineParallelConv2D(),
        f"""def @main({sig}) {{
          (nn.conv2d(%x, %a, {layouts}), nn.conv2d(%x, %b, {layouts}),
           nn.conv2d(%x, %c, {layouts}))
        }}""",
        f"""def @main({sig}) {{
          %0 = nn.conv2d(%x, concatenate((%a, %b, %c), axis=3), {layouts});
          (strided_slice(%0, begin=[0], end=[3], strides=[1], axes=[3]),
           strided_slice(%0, begin=[3], end=[4], strides=[1], axes=[3]),
           strided_slice(%0, begin=[4], end=[6], strides=[1], axes=[3]))
        }}""",
    )


def test_unlike_convolutions_are_not_combined() -> None:
    # Different strides; a different kernel size; grouped convolutions.
    assert_unchanged(
        CombineParallelConv2D(),
        f"""def @main({SIG}) {{
          (nn.conv2d(%x, %w1), nn.conv2d(%x, %w2, strides=[2, 2]), nn.conv2d(%x, %w3))
        }}""",
    )
    assert_unchanged(
        CombineParallelConv2D(),
        """def @main(%x: Tensor[(1, 2, 5, 5), float32], %a: Tensor[(3, 2, 3, 3), float32],
                     %b: Tensor[(3, 2, 1, 1), float32], %c: Tensor[(3, 2, 3, 3), float32]) {
          (nn.conv2d(%x, %a), nn.conv2d(%x, %b), nn.conv2d(%x, %c))
        }""",
    )
    assert_unchanged(
        CombineParallelConv2D(),
        """def @main(%x: Tensor[(1, 2, 5, 5), float32], %a: Tensor[(2, 1, 3, 3), float32],
                     %b: Tensor[(4, 1, 3, 3), float32], %c: Tensor[(2, 1, 3, 3), float32]) {
          (nn.conv2d(%x, %a, groups=2), nn.conv2d(%x, %b, groups=2),
           nn.conv2d(%x, %c, groups=2))
        }""",
    )


def test_branches_in_different_scopes_are_not_combined() -> None:
    assert_unchanged(
        CombineParallelConv2D(),
        f"""def @main({SIG}, %p: bool) {{
          %0 = nn.conv2d(%x, %w1);
          if (%p) {{ (%0, nn.conv2d(%x, %w2), nn.conv2d(%x, %w3)) }}
          else {{ (%0, nn.conv2d(%x, %w2), nn.conv2d(%x, %w3)) }}
        }}""",
    )


def test_weight_computed_by_a_function_call_is_not_moved() -> None:
    assert_unchanged(
        CombineParallelConv2D(),
        f"""def @main({SIG}) {{
          %0 = fn (%v: Tensor[(1, 2, 3, 3), float32]) {{ %v }};
          (nn.conv2d(%x, %w1), nn.conv2d(%x, %w2), nn.conv2d(%x, %0(%w3)))
        }}""",
    )


def test_dense_branches_combine_with_summed_units() -> None:
    sig = (
        "%d: Tensor[(2, 5), float32], %a: Tensor[(3, 5), float32], "
        "%b: Tensor[(1, 5), float32], %c: Tensor[(2, 5), float32]"
    )
    assert_becomes(
        CombineParallelDense(),
        f"""def @main({sig}) {{
          (nn.dense(%d, %a, units=3), nn.dense(%d, %b, units=1), nn.dense(%d, %c, units=2))
        }}""",
        f"""def @main({sig}) {{
          %0 = nn.dense(%d, concatenate((%a, %b, %c)), units=6);
          (strided_slice(%0, begin=[0], end=[3], strides=[1], axes=[1]),
           strided_slice(%0, begin=[3], end=[4], strides=[1], axes=[1]),
           strided_slice(%0, begin=[4], end=[6], strides=[1], axes=[1]))
        }}""",
    )


def test_dense_on_other_data_or_out_dtype_is_not_combined() -> None:
    assert_unchanged(
        CombineParallelDense(),
        """def @main(%d: Tensor[(2, 5), float32], %e: Tensor[(2, 5), float32],
                     %a: Tensor[(3, 5), float32]) {
          (nn.dense(%d, %a, units=None), nn.dense(%e, %a, units=None),
           nn.dense(%d, %a, units=None, out_dtype="float64"))
        }""",
    )


@settings(deadline=None)
@given(cases(focus=["nn.conv2d"]))
def test_combine_parallel_conv2d_preserves_meaning(case: Case) -> None:
    verdict = check_pass(
        CombineParallelConv2D(min_num_branches=2),
        case.mod,
        case.args,
        reduction_length=REDUCTION_LENGTH,
    )
    assert verdict is None, verdict.report()


@settings(deadline=None)
@given(cases(focus=["nn.dense"]))
def test_combine_parallel_dense_preserves_meaning(case: Case) -> None:
    verdict = check_pass(
        CombineParallelDense(min_num_branches=2),
        case.mod,
        case.args,
        reduction_length=REDUCTION_LENGTH,
    )
    assert verdict is None, verdict.report()


@st.composite
def parallel_branches(draw: st.DrawFn) -> tuple[str, bool, int]:
    """Parallel convolutions or dense calls on one input, some perhaps with other strides or
    out_dtype; the program text, whether a group is large enough to combine, and min."""
    dense = draw(st.booleans())
    minimum = draw(st.integers(2, 3))
    n = draw(st.integers(1, 4))
    dtype = draw(st.sampled_from(["float32", "float64", "int32"]))
    odd = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    sizes = draw(st.lists(st.integers(1, 3), min_size=n, max_size=n))
    params = []
    calls = []
    if dense:
        params.append(f"%x: Tensor[(2, 4), {dtype}]")
        for i, (u, other) in enumerate(zip(sizes, odd, strict=True)):
            params.append(f"%w{i}: Tensor[({u}, 4), {dtype}]")
            out = ', out_dtype="float64"' if other else ""
            calls.append(f"nn.dense(%x, %w{i}, units={u}{out})")
    else:
        layout, kernel = draw(st.sampled_from([("NCHW", "OIHW"), ("NHWC", "HWIO")]))
        params.append(f"%x: Tensor[{(1, 2, 4, 4) if layout == 'NCHW' else (1, 4, 4, 2)}, {dtype}]")
        for i, (o, other) in enumerate(zip(sizes, odd, strict=True)):
            dims = {"O": o, "I": 2, "H": 3, "W": 3}
            shape = "(" + ", ".join(str(dims[a]) for a in kernel) + ")"
            params.append(f"%w{i}: Tensor[{shape}, {dtype}]")
            strides = "[2, 2]" if other else "[1, 1]"
            calls.append(
                f"nn.conv2d(%x, %w{i}, strides={strides}, padding=[1, 1], "
                f'data_layout="{layout}", kernel_layout="{kernel}")'
            )
    body = "(" + ", ".join(calls) + ("," if len(calls) == 1 else "") + ")"
    src = "def @main(" + ", ".join(params) + ") {\n" + body + "\n}"
    alike = max(odd.count(True), odd.count(False))
    return src, alike >= minimum, minimum


@settings(deadline=None, max_examples=40)
@given(parallel_branches())
def test_combine_parallel_on_drawn_branches(drawn: tuple[str, bool, int]) -> None:
    src, fires, minimum = drawn
    mod = relay.parse(HEADER + src)
    dense = "nn.dense" in src
    p: Pass = (CombineParallelDense if dense else CombineParallelConv2D)(minimum)
    verdict = check_pass(p, mod, random_args(mod), reduction_length=REDUCTION_LENGTH)
    assert verdict is None, verdict.report()
    assert (not alpha_equal(p(mod), mod)) == fires, src
