"""ConvertLayout: convolutions move to the desired layout, layout-following operators go
along, and transposes restore the original layout wherever anything else reads a value."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relay
from relay.compiler.passes.convert_layout import ConvertLayout
from relay.oracles.fuzz import REDUCTION_LENGTH, Case, cases
from relay.oracles.pass_oracle import check_pass
from relay.semantics.equality import alpha_equal
from relay.semantics.syntax import IRModule, TensorType
from relay.semantics.values import TensorValue

HEADER = '#[version = "0.0.5"]\n'


def random_args(mod: IRModule) -> list[TensorValue]:
    rng = np.random.default_rng(2)
    main = next(f for g, f in mod.functions.items() if g.name == "main")
    out = []
    for p in main.params:
        t = p.type_annotation
        assert isinstance(t, TensorType)
        shape = tuple(int(d) for d in t.shape)  # type: ignore[arg-type]
        if t.dtype == "bool":
            out.append(TensorValue(rng.integers(0, 2, shape).astype(bool)))
        else:
            # Positive values keep batch_norm's variance argument meaningful.
            out.append(TensorValue(rng.uniform(0.5, 2.0, shape).astype(t.dtype)))
    return out


def assert_becomes(p: ConvertLayout, src: str, expected: str) -> None:
    mod = relay.parse(HEADER + src)
    out = p(mod)
    verdict = check_pass(p, mod, random_args(mod))
    assert verdict is None, verdict.report()
    assert alpha_equal(out, relay.parse(HEADER + expected)), relay.astext(out)


SIG = "%x: Tensor[(1, 2, 6, 6), float32], %w: Tensor[(3, 2, 3, 3), float32]"


def test_conv2d_to_nhwc_with_transposes_at_the_boundary() -> None:
    assert_becomes(
        ConvertLayout(),
        f"""def @main({SIG}) {{ nn.conv2d(%x, %w, padding=[1, 1]) }}""",
        f"""def @main({SIG}) {{
          %0 = transpose(%x, axes=[0, 2, 3, 1]);
          %1 = transpose(%w, axes=[2, 3, 1, 0]);
          %2 = nn.conv2d(%0, %1, padding=[1, 1], data_layout="NHWC", kernel_layout="HWIO");
          transpose(%2, axes=[0, 3, 1, 2])
        }}""",
    )


def test_following_operators_take_the_new_layout() -> None:
    assert_becomes(
        ConvertLayout(),
        f"""def @main({SIG}, %b: Tensor[(3), float32], %c: Tensor[(3, 1, 1), float32],
                     %g: Tensor[(3), float32]) {{
          %0 = nn.conv2d(%x, %w, padding=[1, 1]);
          %1 = nn.bias_add(%0, %b);
          %2 = nn.relu(%1);
          %3 = add(%2, %c);
          %4 = nn.batch_norm(%3, %g, %g, %g, %g);
          %5 = nn.max_pool2d(%4.0, pool_size=[2, 2]);
          (nn.global_avg_pool2d(%5), %4.1, multiply(%5, 2f))
        }}""",
        f"""def @main({SIG}, %b: Tensor[(3), float32], %c: Tensor[(3, 1, 1), float32],
                     %g: Tensor[(3), float32]) {{
          %0 = transpose(%x, axes=[0, 2, 3, 1]);
          %1 = transpose(%w, axes=[2, 3, 1, 0]);
          %2 = nn.conv2d(%0, %1, padding=[1, 1], data_layout="NHWC", kernel_layout="HWIO");
          %3 = nn.bias_add(%2, %b, axis=3);
          %4 = nn.relu(%3);
          %5 = expand_dims(%c, axis=0);
          %6 = add(%4, transpose(%5, axes=[0, 2, 3, 1]));
          %7 = nn.batch_norm(%6, %g, %g, %g, %g, axis=3);
          %8 = nn.max_pool2d(%7.0, pool_size=[2, 2], layout="NHWC");
          %9 = nn.global_avg_pool2d(%8, layout="NHWC");
          %10 = multiply(%8, 2f);
          (transpose(%9, axes=[0, 3, 1, 2]), %7.1, transpose(%10, axes=[0, 3, 1, 2]))
        }}""",
    )


def test_other_consumers_read_one_shared_restored_value() -> None:
    assert_becomes(
        ConvertLayout(),
        f"""def @main({SIG}) {{
          %0 = nn.conv2d(%x, %w);
          (sum(%0, axis=[1]), nn.softmax(%0, axis=1), %0)
        }}""",
        f"""def @main({SIG}) {{
          %0 = transpose(%x, axes=[0, 2, 3, 1]);
          %1 = transpose(%w, axes=[2, 3, 1, 0]);
          %2 = nn.conv2d(%0, %1, data_layout="NHWC", kernel_layout="HWIO");
          %3 = transpose(%2, axes=[0, 3, 1, 2]);
          (sum(%3, axis=[1]), nn.softmax(%3, axis=1), %3)
        }}""",
    )


def test_chained_convolutions_stay_in_the_new_layout() -> None:
    assert_becomes(
        ConvertLayout(),
        f"""def @main({SIG}, %v: Tensor[(4, 3, 1, 1), float32]) {{
          %0 = nn.conv2d(%x, %w);
          %1 = nn.relu(%0);
          nn.conv2d(%1, %v)
        }}""",
        f"""def @main({SIG}, %v: Tensor[(4, 3, 1, 1), float32]) {{
          %0 = transpose(%x, axes=[0, 2, 3, 1]);
          %1 = nn.conv2d(%0, transpose(%w, axes=[2, 3, 1, 0]), data_layout="NHWC",
                         kernel_layout="HWIO");
          %2 = nn.relu(%1);
          %3 = transpose(%v, axes=[2, 3, 1, 0]);
          %4 = nn.conv2d(%2, %3, data_layout="NHWC", kernel_layout="HWIO");
          transpose(%4, axes=[0, 3, 1, 2])
        }}""",
    )


def test_back_to_nchw_and_a_conv_already_in_place_is_kept() -> None:
    nchw = ConvertLayout(desired_layouts=(("nn.conv2d", "NCHW", "default"),))
    assert_becomes(
        nchw,
        """def @main(%x: Tensor[(1, 6, 6, 2), float32], %w: Tensor[(3, 3, 2, 4), float32]) {
          nn.conv2d(%x, %w, data_layout="NHWC", kernel_layout="HWIO")
        }""",
        """def @main(%x: Tensor[(1, 6, 6, 2), float32], %w: Tensor[(3, 3, 2, 4), float32]) {
          %0 = transpose(%x, axes=[0, 3, 1, 2]);
          %1 = nn.conv2d(%0, transpose(%w, axes=[3, 2, 0, 1]));
          transpose(%1, axes=[0, 2, 3, 1])
        }""",
    )
    src = f"""def @main({SIG}) {{ nn.conv2d(%x, %w) }}"""
    assert_becomes(nchw, src, src)


def test_let_and_if_see_the_original_layout() -> None:
    assert_becomes(
        ConvertLayout(),
        f"""def @main({SIG}, %p: bool) {{
          let %y = nn.conv2d(%x, %w);
          if (%p) {{ %y }} else {{ negative(%y) }}
        }}""",
        f"""def @main({SIG}, %p: bool) {{
          %0 = transpose(%x, axes=[0, 2, 3, 1]);
          %1 = transpose(%w, axes=[2, 3, 1, 0]);
          %2 = nn.conv2d(%0, %1, data_layout="NHWC", kernel_layout="HWIO");
          let %y = transpose(%2, axes=[0, 3, 1, 2]);
          if (%p) {{ %y }} else {{ negative(%y) }}
        }}""",
    )


def test_unsupported_desired_layouts_are_rejected() -> None:
    with pytest.raises(ValueError, match=r"only 'nn\.conv2d'"):
        ConvertLayout(desired_layouts=(("nn.dense", "NC", "OI"),))
    with pytest.raises(ValueError, match="permutation of NCHW"):
        ConvertLayout(desired_layouts=(("nn.conv2d", "NCHW4c", "default"),))
    with pytest.raises(ValueError, match="permutation of OIHW"):
        ConvertLayout(desired_layouts=(("nn.conv2d", "HWNC", "default"),))


@settings(deadline=None)
@given(cases(focus=sorted(ConvertLayout.focus_ops)))
def test_convert_layout_preserves_meaning(case: Case) -> None:
    verdict = check_pass(ConvertLayout(), case.mod, case.args, reduction_length=REDUCTION_LENGTH)
    assert verdict is None, verdict.report()


@st.composite
def convolution_chains(draw: st.DrawFn) -> tuple[str, ConvertLayout, bool]:
    """A convolution in a drawn layout followed by layout-sensitive and other operators; a
    ConvertLayout to a drawn layout; whether the convolution must change."""
    layouts = ["NCHW", "NHWC", "HWCN", "CNHW"]
    kernels = ["OIHW", "HWIO", "IOHW", "HWOI"]
    data_layout, kernel_layout = draw(st.sampled_from(layouts)), draw(st.sampled_from(kernels))
    out_layout = draw(st.sampled_from(["", *layouts]))
    want = (draw(st.sampled_from(layouts)), draw(st.sampled_from(kernels)))
    dims = {"N": 1, "C": 2, "H": 5, "W": 4}
    o = draw(st.integers(1, 3))
    kdims = {"O": o, "I": 2, "H": 3, "W": 3}

    def shape(d: dict[str, int], layout: str) -> str:
        return "(" + ", ".join(str(d[a]) for a in layout) + ")"

    params = [
        f"%x: Tensor[{shape(dims, data_layout)}, float32]",
        f"%w: Tensor[{shape(kdims, kernel_layout)}, float32]",
    ]
    lines = [
        f'%0 = nn.conv2d(%x, %w, padding=[1, 1], data_layout="{data_layout}", '
        f'kernel_layout="{kernel_layout}", out_layout="{out_layout}");'
    ]
    layout = out_layout or data_layout
    cur = {"N": 1, "C": o, "H": 5, "W": 4}
    steps = draw(
        st.lists(
            st.sampled_from(
                ["relu", "bias", "vector", "full", "bn", "max", "avg", "global", "conv", "tuple"]
            ),
            max_size=5,
        )
    )
    ends = draw(st.sampled_from(["", "sum", "transpose"]))
    for i, step in enumerate(steps):
        c = layout.index("C")
        prev = f"%{len(lines) - 1}"
        if step == "relu":
            expr = f"nn.relu({prev})"
        elif step == "bias":
            params.append(f"%b{i}: Tensor[({cur['C']}), float32]")
            expr = f"nn.bias_add({prev}, %b{i}, axis={c})"
        elif step == "vector":
            trailing = ", ".join(["1"] * (3 - c))
            params.append(f"%v{i}: Tensor[({cur['C']}, {trailing}), float32]".replace(", )", ")"))
            expr = f"add(%v{i}, {prev})"
        elif step == "full":
            params.append(f"%f{i}: Tensor[{shape(cur, layout)}, float32]")
            expr = f"multiply({prev}, %f{i})"
        elif step == "bn":
            params.append(f"%g{i}: Tensor[({cur['C']}), float32]")
            lines.append(
                f"%{len(lines)} = nn.batch_norm({prev}, %g{i}, %g{i}, %g{i}, %g{i}, axis={c});"
            )
            expr = f"%{len(lines) - 1}.0"
        elif step in ("max", "avg") and cur["H"] >= 2 and cur["W"] >= 2:
            expr = f'nn.{step}_pool2d({prev}, pool_size=[2, 2], layout="{layout}")'
            cur = {**cur, "H": cur["H"] - 1, "W": cur["W"] - 1}
        elif step == "global":
            expr = f'nn.global_avg_pool2d({prev}, layout="{layout}")'
            cur = {**cur, "H": 1, "W": 1}
        elif step == "conv":
            params.append(f"%k{i}: Tensor[({cur['C']}, {cur['C']}, 1, 1), float32]")
            expr = f'nn.conv2d({prev}, %k{i}, data_layout="{layout}", kernel_layout="IOHW")'
        elif step == "tuple":
            expr = f"({prev}, {prev}).1"
        else:
            continue
        lines.append(f"%{len(lines)} = {expr};")
    last = f"%{len(lines) - 1}"
    result = {
        "": last,
        "sum": f"sum({last}, axis=[1])",
        "transpose": f"transpose({last}, axes=[2, 0, -1, 1])",
    }[ends]
    src = "def @main(" + ", ".join(params) + ") {\n" + "\n".join(lines) + f"\n{result}\n}}"
    p = ConvertLayout(desired_layouts=(("nn.conv2d", *want),))
    changes = (data_layout, kernel_layout) != want or out_layout not in ("", want[0])
    return src, p, changes


@settings(deadline=None, max_examples=40)
@given(convolution_chains())
def test_convert_layout_on_drawn_chains(drawn: tuple[str, ConvertLayout, bool]) -> None:
    src, p, changes = drawn
    mod = relay.parse(HEADER + src)
    verdict = check_pass(p, mod, random_args(mod), reduction_length=REDUCTION_LENGTH)
    assert verdict is None, verdict.report()
    if changes:
        assert not alpha_equal(p(mod), mod), src


def test_conv_with_desired_kernel_still_takes_the_converted_data() -> None:
    # The second convolution's kernel is already in the desired layout, its data is not.
    want = ConvertLayout(desired_layouts=(("nn.conv2d", "NHWC", "IOHW"),))
    assert_becomes(
        want,
        f"""def @main({SIG}, %k: Tensor[(3, 1, 1, 1), float32]) {{
          %0 = nn.conv2d(%x, %w);
          nn.conv2d(%0, %k, kernel_layout="IOHW")
        }}""",
        f"""def @main({SIG}, %k: Tensor[(3, 1, 1, 1), float32]) {{
          %0 = transpose(%x, axes=[0, 2, 3, 1]);
          %1 = nn.conv2d(%0, transpose(%w, axes=[1, 0, 2, 3]), data_layout="NHWC",
                         kernel_layout="IOHW");
          %2 = nn.conv2d(%1, %k, data_layout="NHWC", kernel_layout="IOHW");
          transpose(%2, axes=[0, 3, 1, 2])
        }}""",
    )
