"""FoldScaleAxis: per-channel scales move into weights where that is exact up to rounding,
and stay put where it is not (negative scales under relu, shared values, integers, scales
that are not per-channel)."""

from __future__ import annotations

import dataclasses

import numpy as np
import numpy.typing as npt
from hypothesis import given, settings
from hypothesis import strategies as st

import relay
from relay.compiler.ir import substitute
from relay.compiler.passes.fold_scale_axis import FoldScaleAxis
from relay.oracles.fuzz import REDUCTION_LENGTH, Case, cases
from relay.oracles.pass_oracle import check_pass
from relay.semantics.equality import alpha_equal
from relay.semantics.syntax import Constant, IRModule, TensorType
from relay.semantics.values import TensorValue

HEADER = '#[version = "0.0.5"]\n'


def bind(mod: IRModule, consts: dict[str, npt.NDArray[np.generic]]) -> IRModule:
    """``@main`` of ``mod`` with the parameters named in ``consts`` replaced by constants."""
    gv = next(g for g in mod.functions if g.name == "main")
    fn = mod.functions[gv]
    table = {
        p: Constant(np.asarray(consts[p.name_hint])) for p in fn.params if p.name_hint in consts
    }
    assert len(table) == len(consts)
    params = tuple(p for p in fn.params if p.name_hint not in consts)
    new = dataclasses.replace(fn, params=params, body=substitute(fn.body, table))
    return IRModule({**mod.functions, gv: new}, mod.type_definitions)


def program(src: str, consts: dict[str, npt.NDArray[np.generic]]) -> IRModule:
    return bind(relay.parse(HEADER + src), consts)


def random_args(mod: IRModule, seed: int = 0) -> list[TensorValue]:
    rng = np.random.default_rng(seed)
    main = next(f for g, f in mod.functions.items() if g.name == "main")
    out = []
    for p in main.params:
        t = p.type_annotation
        assert isinstance(t, TensorType)
        shape = tuple(int(d) for d in t.shape)  # type: ignore[arg-type]
        if t.dtype.startswith("float"):
            data = rng.standard_normal(shape).astype(t.dtype)
        else:
            data = rng.integers(-3, 4, shape).astype(t.dtype)
        out.append(TensorValue(data))
    return out


def folded(mod: IRModule) -> IRModule:
    out = FoldScaleAxis()(mod)
    verdict = check_pass(FoldScaleAxis(), mod, random_args(mod), reduction_length=4)
    assert verdict is None, verdict.report()
    return out


def assert_becomes(mod: IRModule, want: IRModule) -> None:
    out = folded(mod)
    assert alpha_equal(out, want), relay.astext(out)


def assert_unchanged(mod: IRModule) -> None:
    out = folded(mod)
    assert alpha_equal(out, mod), relay.astext(out)


def f32(*values: float) -> npt.NDArray[np.float32]:
    return np.array(values, dtype="float32")


CONV_SIG = "%x: Tensor[(1, 2, 5, 5), float32], %w: Tensor[(3, 2, 3, 3), float32]"


def test_forward_through_relu_into_input_channels() -> None:
    s = f32(2, 0.5).reshape(2, 1, 1)
    mod = program(
        f"""def @main({CONV_SIG}, %s: Tensor[(2, 1, 1), float32]) {{
          %0 = multiply(%x, %s);
          %1 = nn.relu(%0);
          nn.conv2d(%1, %w, padding=[1, 1])
        }}""",
        {"s": s},
    )
    want = program(
        f"""def @main({CONV_SIG}, %f: Tensor[(1, 2, 1, 1), float32]) {{
          %0 = nn.relu(%x);
          %1 = multiply(%w, %f);
          nn.conv2d(%0, %1, padding=[1, 1])
        }}""",
        {"f": f32(2, 0.5).reshape(1, 2, 1, 1)},
    )
    assert_becomes(mod, want)


def test_forward_negative_scale_folds_without_relu_but_not_through_it() -> None:
    s = f32(-2, 0.5).reshape(1, 2, 1, 1)
    plain = f"""def @main({CONV_SIG}, %s: Tensor[(1, 2, 1, 1), float32]) {{
      %0 = multiply(%s, %x);
      nn.conv2d(%0, %w)
    }}"""
    want = program(
        f"""def @main({CONV_SIG}, %f: Tensor[(1, 2, 1, 1), float32]) {{
          %0 = multiply(%w, %f);
          nn.conv2d(%x, %0)
        }}""",
        {"f": s},
    )
    assert_becomes(program(plain, {"s": s}), want)
    through_relu = f"""def @main({CONV_SIG}, %s: Tensor[(1, 2, 1, 1), float32]) {{
      %0 = multiply(%x, %s);
      %1 = nn.relu(%0);
      nn.conv2d(%1, %w)
    }}"""
    assert_unchanged(program(through_relu, {"s": s}))


def test_backward_through_relu_and_bias_add_into_output_channels() -> None:
    t = f32(1, 3, 0.25).reshape(3, 1, 1)
    mod = program(
        f"""def @main({CONV_SIG}, %b: Tensor[(3), float32], %t: Tensor[(3, 1, 1), float32]) {{
          %0 = nn.conv2d(%x, %w);
          %1 = nn.bias_add(%0, %b);
          %2 = nn.relu(%1);
          multiply(%2, %t)
        }}""",
        {"t": t},
    )
    want = program(
        f"""def @main({CONV_SIG}, %b: Tensor[(3), float32],
                     %f: Tensor[(3, 1, 1, 1), float32], %v: Tensor[(3), float32]) {{
          %0 = multiply(%w, %f);
          %1 = nn.conv2d(%x, %0);
          %2 = multiply(%b, %v);
          %3 = nn.bias_add(%1, %2);
          nn.relu(%3)
        }}""",
        {"f": f32(1, 3, 0.25).reshape(3, 1, 1, 1), "v": f32(1, 3, 0.25)},
    )
    assert_becomes(mod, want)


def test_backward_through_add_scales_the_other_operand() -> None:
    t = f32(2, -1, 4).reshape(3, 1, 1)
    mod = program(
        f"""def @main({CONV_SIG}, %y: Tensor[(1, 3, 3, 3), float32],
                     %t: Tensor[(3, 1, 1), float32]) {{
          %0 = nn.conv2d(%x, %w);
          %1 = subtract(%y, %0);
          multiply(%1, %t)
        }}""",
        {"t": t},
    )
    want = program(
        f"""def @main({CONV_SIG}, %y: Tensor[(1, 3, 3, 3), float32],
                     %t: Tensor[(3, 1, 1), float32], %f: Tensor[(3, 1, 1, 1), float32]) {{
          %0 = multiply(%y, %t);
          %1 = multiply(%w, %f);
          %2 = nn.conv2d(%x, %1);
          subtract(%0, %2)
        }}""",
        {"t": t, "f": t.reshape(3, 1, 1, 1)},
    )
    assert_becomes(mod, want)


def test_backward_stops_at_shared_convolution_and_negative_scale_under_relu() -> None:
    t = f32(1, 2, 3).reshape(3, 1, 1)
    shared = f"""def @main({CONV_SIG}, %t: Tensor[(3, 1, 1), float32]) {{
      %0 = nn.conv2d(%x, %w);
      (multiply(%0, %t), %0)
    }}"""
    assert_unchanged(program(shared, {"t": t}))
    negative = f"""def @main({CONV_SIG}, %t: Tensor[(3, 1, 1), float32]) {{
      %0 = nn.conv2d(%x, %w);
      %1 = nn.relu(%0);
      multiply(%1, %t)
    }}"""
    assert_unchanged(program(negative, {"t": f32(1, -2, 3).reshape(3, 1, 1)}))


def test_scales_that_are_not_per_channel_or_not_safe_stay() -> None:
    body = f"""def @main({CONV_SIG}, %s: Tensor[SHAPE, DTYPE]) {{
      %0 = multiply(%x, %s);
      nn.conv2d(%0, %w)
    }}"""
    along_width = body.replace("SHAPE", "(5)").replace("DTYPE", "float32")
    assert_unchanged(program(along_width, {"s": f32(1, 2, 3, 4, 5)}))
    with_zero = body.replace("SHAPE", "(2, 1, 1)").replace("DTYPE", "float32")
    assert_unchanged(program(with_zero, {"s": f32(0, 2).reshape(2, 1, 1)}))
    infinite = body.replace("SHAPE", "(2, 1, 1)").replace("DTYPE", "float32")
    assert_unchanged(program(infinite, {"s": f32(np.inf, 2).reshape(2, 1, 1)}))


def test_integer_convolution_is_not_folded() -> None:
    mod = program(
        """def @main(%x: Tensor[(1, 2, 3, 3), int32], %w: Tensor[(2, 2, 1, 1), int32],
                     %s: Tensor[(2, 1, 1), int32]) {
          %0 = multiply(%x, %s);
          nn.conv2d(%0, %w)
        }""",
        {"s": np.array([2, 3], "int32").reshape(2, 1, 1)},
    )
    assert_unchanged(mod)


def test_nhwc_convolution_folds_along_the_kernel_layout() -> None:
    s = f32(2, 3)
    mod = program(
        """def @main(%x: Tensor[(1, 4, 4, 2), float32], %w: Tensor[(3, 3, 2, 5), float32],
                     %s: Tensor[(2), float32], %t: Tensor[(5), float32]) {
          %0 = multiply(%x, %s);
          %1 = nn.conv2d(%0, %w, data_layout="NHWC", kernel_layout="HWIO");
          multiply(%1, %t)
        }""",
        {"s": s, "t": f32(1, 2, 3, 4, 5)},
    )
    want = program(
        """def @main(%x: Tensor[(1, 4, 4, 2), float32], %w: Tensor[(3, 3, 2, 5), float32],
                     %f: Tensor[(1, 1, 2, 1), float32], %g: Tensor[(1, 1, 1, 5), float32]) {
          %0 = multiply(%w, %f);
          %1 = multiply(%0, %g);
          nn.conv2d(%x, %1, data_layout="NHWC", kernel_layout="HWIO")
        }""",
        {"f": s.reshape(1, 1, 2, 1), "g": f32(1, 2, 3, 4, 5).reshape(1, 1, 1, 5)},
    )
    assert_becomes(mod, want)


def test_depthwise_with_multiplier_scales_each_weight_row() -> None:
    # Weight (C=2, m=2): output channel c*2+q comes from w[c, q] and reads input channel c.
    s = f32(2, 5).reshape(2, 1, 1)
    t = f32(1, 2, 3, 4).reshape(4, 1, 1)
    mod = program(
        """def @main(%x: Tensor[(1, 2, 3, 3), float32], %w: Tensor[(2, 2, 1, 1), float32],
                     %s: Tensor[(2, 1, 1), float32], %t: Tensor[(4, 1, 1), float32]) {
          %0 = multiply(%x, %s);
          %1 = nn.conv2d(%0, %w, groups=2, channels=4, kernel_size=[1, 1]);
          multiply(%1, %t)
        }""",
        {"s": s, "t": t},
    )
    want = program(
        """def @main(%x: Tensor[(1, 2, 3, 3), float32], %w: Tensor[(2, 2, 1, 1), float32],
                     %f: Tensor[(2, 1, 1, 1), float32], %g: Tensor[(2, 2, 1, 1), float32]) {
          %0 = multiply(%w, %f);
          %1 = multiply(%0, %g);
          nn.conv2d(%x, %1, groups=2, channels=4, kernel_size=[1, 1])
        }""",
        {"f": f32(2, 5).reshape(2, 1, 1, 1), "g": f32(1, 2, 3, 4).reshape(2, 2, 1, 1)},
    )
    assert_becomes(mod, want)


def test_dense_forward_and_backward() -> None:
    mod = program(
        """def @main(%x: Tensor[(4, 3), float32], %w: Tensor[(2, 3), float32],
                     %s: Tensor[(3), float32], %t: Tensor[(1, 2), float32]) {
          %0 = multiply(%x, %s);
          %1 = nn.dense(%0, %w, units=None);
          multiply(%1, %t)
        }""",
        {"s": f32(1, 2, 3), "t": f32(-1, 0.5).reshape(1, 2)},
    )
    want = program(
        """def @main(%x: Tensor[(4, 3), float32], %w: Tensor[(2, 3), float32],
                     %f: Tensor[(1, 3), float32], %g: Tensor[(2, 1), float32]) {
          %0 = multiply(%w, %f);
          %1 = multiply(%0, %g);
          nn.dense(%x, %1, units=None)
        }""",
        {"f": f32(1, 2, 3).reshape(1, 3), "g": f32(-1, 0.5).reshape(2, 1)},
    )
    assert_becomes(mod, want)


def test_dense_with_widening_out_dtype_is_not_folded() -> None:
    mod = program(
        """def @main(%x: Tensor[(4, 3), float16], %w: Tensor[(2, 3), float16],
                     %s: Tensor[(3), float16]) {
          %0 = multiply(%x, %s);
          nn.dense(%0, %w, units=None, out_dtype="float32")
        }""",
        {"s": np.array([1, 2, 3], "float16")},
    )
    assert_unchanged(mod)


@settings(deadline=None)
@given(cases(focus=sorted(FoldScaleAxis.focus_ops)))
def test_fold_scale_axis_preserves_meaning(case: Case) -> None:
    verdict = check_pass(FoldScaleAxis(), case.mod, case.args, reduction_length=REDUCTION_LENGTH)
    assert verdict is None, verdict.report()


@st.composite
def scaled_convolutions(draw: st.DrawFn) -> tuple[IRModule, bool, int]:
    """A convolution with a drawn per-channel scale before it and one after it, through relu,
    bias_add and add/subtract; whether every fold's side condition holds; an argument seed."""
    data_layout, kernel_layout = draw(
        st.sampled_from([("NCHW", "OIHW"), ("NHWC", "HWIO"), ("NCHW", "HWIO"), ("NHWC", "OIHW")])
    )
    dtype = draw(st.sampled_from(["float32", "float64", "float16"]))
    c = draw(st.integers(1, 3))
    depthwise = c > 1 and draw(st.booleans())
    m = draw(st.integers(1, 2))
    o = c * m if depthwise else draw(st.integers(1, 3))
    k = draw(st.sampled_from([1, 3]))
    canonical = {"O": c if depthwise else o, "I": m if depthwise else c, "H": k, "W": k}
    x_shape = {"N": 1, "C": c, "H": 4, "W": 4}
    y_shape = {"N": 1, "C": o, "H": 4 - k + 1 + (k - 1), "W": 4}
    y_shape["W"] = y_shape["H"]

    def shape(dims: dict[str, int], layout: str) -> str:
        return "(" + ", ".join(str(dims[a]) for a in layout) + ")"

    def scale_shape(channels: int) -> tuple[int, ...]:
        return (channels, 1, 1) if data_layout == "NCHW" else (channels,)

    values = st.sampled_from([0.5, 2.0, 3.0, -1.5, 0.25])
    forward, relu_before = draw(st.booleans()), draw(st.booleans())
    steps = draw(st.lists(st.sampled_from(["relu", "bias", "add", "sub"]), max_size=3))
    backward = draw(st.booleans())
    s = np.array(draw(st.lists(values, min_size=c, max_size=c)), dtype).reshape(scale_shape(c))
    t = np.array(draw(st.lists(values, min_size=o, max_size=o)), dtype).reshape(scale_shape(o))
    extra = f", channels={o}, kernel_size=[{k}, {k}], groups={c}" if depthwise else ""
    lines = []
    params = [f"%x: Tensor[{shape(x_shape, data_layout)}, {dtype}]"]
    params.append(f"%w: Tensor[{shape(canonical, kernel_layout)}, {dtype}]")
    params += [f"%b: Tensor[({o}), {dtype}]", f"%y: Tensor[{shape(y_shape, data_layout)}, {dtype}]"]
    consts: dict[str, npt.NDArray[np.generic]] = {}
    cur = "%x"
    if forward:
        params.append(f"%s: Tensor[{s.shape}, {dtype}]".replace(",)", ")"))
        consts["s"] = s
        lines.append(f"%f0 = multiply({cur}, %s);")
        cur = "%f0"
        if relu_before:
            lines.append(f"%f1 = nn.relu({cur});")
            cur = "%f1"
    lines.append(
        f"%c0 = nn.conv2d({cur}, %w, padding=[{(k - 1) // 2}, {(k - 1) // 2}], "
        f'data_layout="{data_layout}", kernel_layout="{kernel_layout}"{extra});'
    )
    cur = "%c0"
    for i, step in enumerate(steps):
        expr = {
            "relu": f"nn.relu({cur})",
            "bias": f"nn.bias_add({cur}, %b, axis={data_layout.index('C')})",
            "add": f"add({cur}, %y)",
            "sub": f"subtract(%y, {cur})",
        }[step]
        lines.append(f"%b{i} = {expr};")
        cur = f"%b{i}"
    if backward:
        params.append(f"%t: Tensor[{t.shape}, {dtype}]".replace(",)", ")"))
        consts["t"] = t
        lines.append(f"%r = multiply({cur}, %t);")
        cur = "%r"
    # The lets keep the text simple; the pass works on dataflow, so inline them.
    src = "def @main(" + ", ".join(params) + ") {\n" + "\n".join(lines) + f"\n{cur}\n}}"
    src = inline_lets(src)
    mod = bind(relay.parse(HEADER + src), consts)
    fires = (forward and (not relu_before or bool(np.all(s > 0)))) or (
        backward and ("relu" not in steps or bool(np.all(t > 0)))
    )
    return mod, fires, draw(st.integers(0, 2**16))


def inline_lets(src: str) -> str:
    """Replace each ``%name = e;`` line by substituting ``e`` into later lines (a tiny macro
    expander for the generator above: every name is used once)."""
    out: list[str] = []
    table: dict[str, str] = {}
    for line in src.splitlines():
        for name in sorted(table, key=len, reverse=True):
            line = line.replace(name, table[name])
        if line.startswith("%") and " = " in line and line.endswith(";"):
            name, expr = line[:-1].split(" = ", 1)
            table[name] = expr
        else:
            out.append(line)
    return "\n".join(out)


@settings(deadline=None, max_examples=60)
@given(scaled_convolutions())
def test_fold_scale_axis_on_scaled_convolutions(drawn: tuple[IRModule, bool, int]) -> None:
    mod, fires, seed = drawn
    verdict = check_pass(
        FoldScaleAxis(), mod, random_args(mod, seed), reduction_length=REDUCTION_LENGTH
    )
    assert verdict is None, verdict.report()
    changed = not alpha_equal(FoldScaleAxis()(mod), mod)
    assert changed == fires, relay.astext(mod)
