"""The interpreter's kernels (``relay.interpreter.kernels``) against the operators' references.

- Scalar fast paths: on every pair of edge values (overflow boundaries, zero divisors, NaN,
  infinities, -0.0, the extremes) of every dtype, the fast path's outcome is the reference's:
  the same bits, dtype and shape, or the same failure with the same message. Random values
  are in ``property_tests/test_fast_paths.py``.
- Tensor kernels: on random shapes and attributes (strides, padding, dilation, groups,
  layouts, dtypes), ``nn.conv2d``, ``nn.dense``, ``nn.max_pool2d`` and ``nn.avg_pool2d`` equal
  the reference under the tolerance policy (the products and window sums with their reduction
  length), ``nn.batch_norm``, ``nn.relu``, ``nn.bias_add``, ``concatenate``, ``transpose``
  and float tensor ``add subtract multiply divide`` bit for bit; cases a kernel does not cover
  go to the reference.
- The machine runs the kernels: a program's scalar arithmetic does not reach the reference.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

import relay
from relay.interpreter import evaluate, kernels
from relay.oracles.compare import compare_arrays
from relay.semantics import syntax as s
from relay.semantics.errors import RelayError
from relay.semantics.evaluation import evaluate as spec_evaluate
from relay.semantics.ops import lookup
from relay.semantics.ops.registry import Attrs, Reference, RelationError
from relay.semantics.values import TensorValue

Array = npt.NDArray[Any]

DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64")  # fmt: skip


def reference(name: str) -> Reference:
    op = lookup(name)
    assert op is not None and op.reference is not None, name
    return op.reference


def attrs(name: str, **fields: object) -> Attrs:
    op = lookup(name)
    assert op is not None and op.attrs_type is not None, name
    return op.attrs_type.from_kwargs(fields)


def edge_values(dtype: str) -> list[Array]:
    """The values where an operator's meaning changes: bounds, zeros, signs, NaN, infinities."""
    dt = np.dtype(dtype)
    if dtype == "bool":
        values: Sequence[object] = [False, True]
    elif dt.kind in "iu":
        info = np.iinfo(dt)
        lo, hi = int(info.min), int(info.max)
        values = sorted({lo, lo + 1, hi - 1, hi, 0, 1, 2, 3, hi // 2, hi // 2 + 1}
                        | ({-1, -2, -3, lo // 2} if lo < 0 else set()))  # fmt: skip
    else:
        f = np.finfo(dt)
        values = [0.0, -0.0, 1.0, -1.0, 1.5, -2.5, 3.0, float(f.max), float(-f.max),
                  float(f.tiny), float(f.smallest_subnormal), np.nan, np.inf, -np.inf, 1e-3,
                  7.0]  # fmt: skip
    return [np.asarray(v, dtype=dt) for v in values]


def outcome(kernel: Reference, args: tuple[Array, ...], op_attrs: Attrs | None = None) -> object:
    """What a kernel gives: ``(dtype, shape, bytes)`` of its result, or its failure."""
    try:
        with np.errstate(all="ignore"):  # as the machine runs its kernels
            out = kernel(args, op_attrs)
    except RelayError as err:
        return (type(err).__name__, err.message)
    assert isinstance(out, np.ndarray)
    return (out.dtype, out.shape, out.tobytes())


def bits(out: object) -> object:
    """``outcome``'s form of a kernel's result."""
    assert isinstance(out, np.ndarray)
    return (out.dtype, out.shape, out.tobytes())


UNARY = ("negative", "logical_not")
BINARY = tuple(name for name in kernels.SCALAR if name not in UNARY)


def test_every_scalar_op_has_a_fast_path_here() -> None:
    assert set(kernels.SCALAR) == {*UNARY, *BINARY}
    assert {"add", "subtract", "multiply", "divide", "mod", "equal", "less"} <= set(BINARY)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", BINARY)
def test_scalar_binary_edges(name: str, dtype: str) -> None:
    ref = reference(name)
    fast = kernels.kernel_for(name, ref)
    assert fast is not ref
    values = edge_values(dtype)
    for a, b in itertools.product(values, values):
        assert outcome(fast, (a, b)) == outcome(ref, (a, b)), (name, dtype, a, b)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", UNARY)
def test_scalar_unary_edges(name: str, dtype: str) -> None:
    ref = reference(name)
    fast = kernels.kernel_for(name, ref)
    for a in edge_values(dtype):
        assert outcome(fast, (a,)) == outcome(ref, (a,)), (name, dtype, a)


def counting(ref: Reference, calls: list[int]) -> Reference:
    def run(args: tuple[Array, ...], op_attrs: Attrs | None) -> object:
        calls.append(1)
        return ref(args, op_attrs)

    return run  # type: ignore[return-value]


def test_scalar_fast_paths_defer_only_where_the_reference_decides() -> None:
    calls: list[int] = []
    add = kernels.kernel_for("add", counting(reference("add"), calls))
    i64 = np.dtype("int64")
    assert add((np.asarray(2, i64), np.asarray(3, i64)), None).tolist() == 5  # type: ignore[union-attr]
    assert not calls
    with pytest.raises(RelayError, match="add overflows int64"):
        add((np.asarray(2**62, i64), np.asarray(2**62, i64)), None)
    assert len(calls) == 1
    add((np.ones(3, i64), np.ones(3, i64)), None)  # not scalars: the reference
    add((np.asarray(1, "int32"), np.asarray(1, i64)), None)  # mixed dtypes: the reference
    assert len(calls) == 3
    divide = kernels.kernel_for("divide", counting(reference("divide"), calls))
    with pytest.raises(RelayError, match="division by zero"):
        divide((np.asarray(1, "int8"), np.asarray(0, "int8")), None)
    with pytest.raises(RelayError, match="-128 / -1 overflows int8"):
        divide((np.asarray(-128, "int8"), np.asarray(-1, "int8")), None)
    assert len(calls) == 5


def test_the_machine_runs_the_fast_paths() -> None:
    mod = relay.parse(
        '#[version = "0.0.5"]\n'
        "def @main(%n: int64) -> int64 { if (%n < 10i64) { %n * 3i64 - 1i64 } else { %n } }"
    )
    result = evaluate(mod, [TensorValue(np.asarray(4, "int64"))])
    assert isinstance(result.value, TensorValue) and result.value.data.tolist() == 11
    assert result.value.data.dtype == np.dtype("int64") and result.value.data.shape == ()
    with pytest.raises(RelayError, match="multiply overflows int64"):
        evaluate(mod, [TensorValue(np.asarray(-(2**62), "int64"))])


# ---------------------------------------------------------------------------------------------
# Tensor kernels


def random_array(rng: np.random.Generator, shape: tuple[int, ...], dtype: str) -> Array:
    return rng.standard_normal(shape).astype(dtype)


LAYOUTS = {
    "NCHW": ("OIHW", "OHWI", "HWIO"),
    "NHWC": ("HWIO", "OHWI", "OIHW"),
}


def in_layout(canonical: Array, canonical_layout: str, layout: str) -> Array:
    return np.ascontiguousarray(
        np.transpose(canonical, tuple(canonical_layout.index(ax) for ax in layout))
    )


def conv_case(rng: np.random.Generator) -> tuple[tuple[Array, Array], Attrs, int]:
    """Random conv2d arguments and attributes, and the reduction length of one output."""
    dtype = str(rng.choice(["float32", "float32", "float64", "float16"]))
    kind = str(rng.choice(["plain", "grouped", "depthwise", "multiplier"]))
    g = 1 if kind == "plain" else int(rng.integers(2, 4))
    c = g * int(rng.integers(1, 4)) if kind in ("plain", "grouped") else g
    o = g * int(rng.integers(1, 4))
    i = c // g
    if kind == "multiplier":  # TVM's depthwise weight (C, m, kh, kw)
        o, i = c, int(rng.integers(2, 4))
    kh, kw = (int(v) for v in rng.integers(1, 4, size=2))
    n = int(rng.integers(1, 3))
    h, w = (int(v) for v in rng.integers(kh + 2, kh + 9, size=2))
    strides = tuple(int(v) for v in rng.integers(1, 4, size=2))
    dilation = tuple(int(v) for v in rng.integers(1, 3, size=2))
    padding = [tuple(int(v) for v in rng.integers(0, 3, size=count)) for count in (1, 2, 4)]
    data_layout = str(rng.choice(list(LAYOUTS)))
    kernel_layout = str(rng.choice(LAYOUTS[data_layout]))
    out_layout = str(rng.choice(["", "NCHW", "NHWC"]))
    x = in_layout(random_array(rng, (n, c, h, w), dtype), "NCHW", data_layout)
    weight = in_layout(random_array(rng, (o, i, kh, kw), dtype), "OIHW", kernel_layout)
    a = attrs(
        "nn.conv2d",
        strides=strides,
        padding=padding[int(rng.integers(0, 3))],
        dilation=dilation,
        groups=g,
        data_layout=data_layout,
        kernel_layout=kernel_layout,
        out_layout=out_layout,
    )
    return (x, weight), a, (1 if kind == "multiplier" else i) * kh * kw


def check_close(expected: object, actual: object, reduction_length: int = 1) -> None:
    assert isinstance(expected, np.ndarray) and isinstance(actual, np.ndarray)
    mismatch = compare_arrays(expected, actual, reduction_length=reduction_length)
    assert mismatch is None, mismatch
    assert actual.flags.c_contiguous


def test_conv2d_equals_the_reference_on_random_attributes() -> None:
    rng = np.random.default_rng(11)
    ref = reference("nn.conv2d")
    covered = 0
    for _ in range(150):
        args, a, length = conv_case(rng)
        expected = ref(args, a)
        actual = kernels.conv2d(args, a, min_work=0)
        if actual is None:
            continue
        covered += 1
        check_close(expected, actual, length)
    assert covered >= 120  # only windows longer than the padded input defer


def test_conv2d_defers_what_it_does_not_cover() -> None:
    rng = np.random.default_rng(3)
    x, w = rng.integers(-3, 3, (1, 2, 5, 5)).astype("int32"), np.ones((2, 2, 3, 3), "int32")
    a = attrs("nn.conv2d")
    assert kernels.conv2d((x, w), a, min_work=0) is None
    xf, wf = x.astype("float32"), w.astype("float32")
    assert kernels.conv2d((xf, wf), attrs("nn.conv2d", out_dtype="float64"), min_work=0) is None
    assert kernels.conv2d((xf, wf), a) is None  # small: the reference
    big = rng.standard_normal((1, 16, 32, 32)).astype("float32")
    wbig = rng.standard_normal((32, 16, 3, 3)).astype("float32")
    assert kernels.conv2d((big, wbig), a) is not None
    fast = kernels.kernel_for("nn.conv2d", reference("nn.conv2d"))
    check_close(reference("nn.conv2d")((big, wbig), a), fast((big, wbig), a), 16 * 9)


def test_dense_equals_the_reference_on_random_shapes() -> None:
    rng = np.random.default_rng(13)
    ref = reference("nn.dense")
    for _ in range(60):
        dtype = str(rng.choice(["float16", "float32", "float64"]))
        lead = tuple(int(v) for v in rng.integers(1, 5, size=int(rng.integers(0, 3))))
        k, units = (int(v) for v in rng.integers(1, 40, size=2))
        x = random_array(rng, (*lead, k), dtype)
        w = random_array(rng, (units, k), dtype)
        if rng.integers(0, 2):
            w = np.asfortranarray(w)  # any strides
        a = attrs("nn.dense", units=units)
        actual = kernels.dense((x, w), a, min_work=0)
        assert actual is not None
        check_close(ref((x, w), a), actual, k)
    ints = np.ones((2, 3), "int32")
    assert kernels.dense((ints, ints), attrs("nn.dense", units=3), min_work=0) is None
    small = np.ones((2, 3), "float32")
    assert kernels.dense((small, small), attrs("nn.dense", units=2)) is None  # small: the reference


def pool_case(rng: np.random.Generator) -> tuple[Array, Attrs]:
    dtype = str(rng.choice(["float32", "float64", "float16"]))
    layout = str(rng.choice(["NCHW", "NHWC", "HWNC", "NCWH"]))
    kh, kw = (int(v) for v in rng.integers(1, 4, size=2))
    shape = {
        "N": int(rng.integers(1, 3)),
        "C": int(rng.integers(1, 4)),
        "H": int(rng.integers(kh + 2, kh + 9)),
        "W": int(rng.integers(kw + 2, kw + 9)),
    }
    x = random_array(rng, tuple(shape[ax] for ax in layout), dtype)
    x[rng.random(x.shape) < 0.1] = -np.inf
    x[rng.random(x.shape) < 0.1] = 0.0
    x[rng.random(x.shape) < 0.1] = -0.0
    count = int(rng.choice([1, 2, 4]))
    a = attrs(
        "nn.max_pool2d",
        pool_size=(kh, kw),
        strides=tuple(int(v) for v in rng.integers(1, 4, size=2)),
        dilation=tuple(int(v) for v in rng.integers(1, 3, size=2)),
        padding=tuple(int(v) for v in rng.integers(0, min(kh, kw), size=count)),
        layout=layout,
    )
    return x, a


def test_max_pool2d_equals_the_reference_on_random_attributes() -> None:
    rng = np.random.default_rng(5)
    ref = reference("nn.max_pool2d")
    covered = 0
    for _ in range(150):
        x, a = pool_case(rng)
        try:
            expected = ref((x,), a)
        except RelayError:
            continue
        actual = kernels.max_pool2d((x,), a)
        if actual is None:
            continue
        covered += 1
        check_close(expected, actual)
    assert covered >= 120


def test_max_pool2d_defers_nan_and_ceil_mode() -> None:
    ref = reference("nn.max_pool2d")
    x = np.arange(16, dtype="float32").reshape(1, 1, 4, 4)
    a = attrs("nn.max_pool2d", pool_size=(2, 2), strides=(2, 2))
    assert (
        kernels.max_pool2d((x,), attrs("nn.max_pool2d", pool_size=(2, 2), ceil_mode=True)) is None
    )
    x[0, 0, 1, 1] = np.nan
    assert kernels.max_pool2d((x,), a) is None
    fast = kernels.kernel_for("nn.max_pool2d", ref)
    assert outcome(fast, (x,), a) == outcome(ref, (x,), a)  # both raise, with one message
    all_inf = np.full((1, 1, 2, 2), -np.inf, "float32")
    out = fast((all_inf,), a)
    assert isinstance(out, np.ndarray) and out.item() == np.finfo("float32").min


def test_batch_norm_is_the_reference_bit_for_bit() -> None:
    rng = np.random.default_rng(7)
    ref = reference("nn.batch_norm")
    for dtype, axis, shape, center, scale in itertools.product(
        ("float16", "float32", "float64"), (1, -1, 0), ((2, 3, 4, 5), (3, 4)), (True, False),
        (True, False),
    ):  # fmt: skip
        x = random_array(rng, shape, dtype)
        x.flat[0], x.flat[1] = np.nan, -np.inf
        c = shape[axis]
        vectors = [random_array(rng, (c,), dtype) for _ in range(3)]
        var = np.abs(random_array(rng, (c,), dtype))
        var[0] = 0.0
        args = (x, *vectors, var)
        a = attrs("nn.batch_norm", axis=axis, epsilon=1e-3, center=center, scale=scale)
        expected = ref(args, a)
        actual = kernels.batch_norm(args, a)
        assert isinstance(expected, tuple) and actual is not None
        for e, got in zip(expected, actual, strict=True):
            assert (e.dtype, e.shape, e.tobytes()) == (got.dtype, got.shape, got.tobytes())


def test_relu_is_the_reference_bit_for_bit() -> None:
    rng = np.random.default_rng(9)
    ref = reference("nn.relu")
    for dtype in ("float16", "float32", "float64"):
        x = random_array(rng, (4, 50), dtype)
        x.flat[:6] = [np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf]
        expected, actual = ref((x,), None), kernels.relu((x,))
        assert isinstance(expected, np.ndarray) and actual is not None
        assert (expected.dtype, expected.tobytes()) == (actual.dtype, actual.tobytes())
    assert kernels.relu((np.arange(-3, 3),)) is None  # integers: the reference


def test_conv2d_on_wide_outputs_equals_the_reference() -> None:
    """Outputs of ``FLAT_PATCHES_BELOW`` columns and more build im2col by strided copies."""
    rng = np.random.default_rng(19)
    ref = reference("nn.conv2d")
    for _ in range(12):
        (x, _), a, _ = conv_case(rng)
        layout = a.data_layout
        wide = rng.standard_normal((1, 2, 5, kernels.FLAT_PATCHES_BELOW * 3 + 4)).astype(x.dtype)
        x = in_layout(wide, "NCHW", layout)
        weight = in_layout(rng.standard_normal((4, 2, 2, 3)).astype(x.dtype), "OIHW",
                           a.kernel_layout)  # fmt: skip
        b = attrs(
            "nn.conv2d",
            strides=a.strides,
            padding=a.padding,
            dilation=a.dilation,
            data_layout=layout,
            kernel_layout=a.kernel_layout,
            out_layout=a.out_layout,
        )
        actual = kernels.conv2d((x, weight), b, min_work=0)
        assert actual is not None
        check_close(ref((x, weight), b), actual, 2 * 2 * 3)


def test_conv2d_with_fewer_output_channels_sums_a_product_per_tap(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ungrouped float convolutions with at most half as many output channels as input ones are
    a sum of one matrix product per window tap over the stride phases of the padded input."""
    rng = np.random.default_rng(47)
    ref = reference("nn.conv2d")
    taken = []
    products = kernels._tap_products

    def counted(*args: Any) -> Any:
        taken.append(1)
        return products(*args)

    monkeypatch.setattr(kernels, "_tap_products", counted)
    for case in range(30):
        n, c = int(rng.integers(1, 3)), int(rng.integers(2, 7))
        o = int(rng.integers(1, c // 2 + 1))
        kh, kw = (int(v) for v in rng.integers(1, 4, size=2))
        if kh * kw == 1:
            kw = 2
        x = rng.standard_normal((n, c, kh + int(rng.integers(3, 9)), kw + 40 * (case % 2) + 5))
        weight = rng.standard_normal((o, c, kh, kw))
        dtype = str(rng.choice(["float32", "float64"]))
        a = attrs(
            "nn.conv2d",
            strides=tuple(int(v) for v in rng.integers(1, 4, size=2)),
            padding=tuple(int(v) for v in rng.integers(0, 3, size=4)),
            dilation=tuple(int(v) for v in rng.integers(1, 3, size=2)),
        )
        args = (x.astype(dtype), weight.astype(dtype))
        actual = kernels.conv2d(args, a, min_work=0)
        if actual is None:  # a window wider than the padded input: the reference's error
            continue
        check_close(ref(args, a), actual, c * kh * kw)
    assert len(taken) >= 25


def test_depthwise_conv2d_sums_the_taps_weighted_per_channel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Float depthwise convolutions (as many groups as channels, one output per channel) are a
    sum over the window's taps of the tap's slice times its weight per channel."""
    rng = np.random.default_rng(53)
    ref = reference("nn.conv2d")
    taken = []
    taps = kernels._depthwise_taps

    def counted(*args: Any) -> Any:
        taken.append(1)
        return taps(*args)

    monkeypatch.setattr(kernels, "_depthwise_taps", counted)
    for case in range(30):
        n, c = int(rng.integers(1, 3)), int(rng.integers(2, 7))
        kh, kw = (int(v) for v in rng.integers(1, 4, size=2))
        if kh * kw == 1:
            kh = 3
        x = rng.standard_normal((n, c, kh + int(rng.integers(3, 9)), kw + 40 * (case % 2) + 5))
        weight = rng.standard_normal((c, 1, kh, kw))
        dtype = str(rng.choice(["float32", "float64"]))
        a = attrs(
            "nn.conv2d",
            strides=tuple(int(v) for v in rng.integers(1, 4, size=2)),
            padding=tuple(int(v) for v in rng.integers(0, 3, size=4)),
            dilation=tuple(int(v) for v in rng.integers(1, 3, size=2)),
            groups=c,
        )
        args = (x.astype(dtype), weight.astype(dtype))
        actual = kernels.conv2d(args, a, min_work=0)
        if actual is None:  # a window wider than the padded input: the reference's error
            continue
        check_close(ref(args, a), actual, kh * kw)
    assert len(taken) >= 25


def test_depthwise_conv2d_at_stride_1_shares_the_padding_of_neighbours() -> None:
    """At stride 1 rows and channels share their padding in the flat planes: taps that read
    past a row's end or a channel's last row must land in zeros. Asymmetric and wide padding
    (more than the window), dilation, narrow inputs, several images."""
    rng = np.random.default_rng(59)
    ref = reference("nn.conv2d")
    checked = 0
    for _ in range(60):
        n, c = int(rng.integers(1, 3)), int(rng.integers(2, 6))
        kh, kw = (int(v) for v in rng.integers(1, 5, size=2))
        if kh * kw == 1:
            kw = 3
        x = rng.standard_normal((n, c, int(rng.integers(1, 9)), int(rng.integers(1, 9))))
        weight = rng.standard_normal((c, 1, kh, kw))
        a = attrs(
            "nn.conv2d",
            padding=tuple(int(v) for v in rng.integers(0, 5, size=4)),
            dilation=tuple(int(v) for v in rng.integers(1, 3, size=2)),
            groups=c,
        )
        pt, pl, pb, pr = a.padding
        if (
            x.shape[2] + pt + pb <= (kh - 1) * a.dilation[0]
            or x.shape[3] + pl + pr <= (kw - 1) * a.dilation[1]
        ):
            continue  # a window larger than the padded input: no outputs
        args = (x.astype("float32"), weight.astype("float32"))
        actual = kernels.conv2d(args, a, min_work=0)
        assert actual is not None
        check_close(ref(args, a), actual, kh * kw)
        checked += 1
    assert checked >= 40


def test_conv2d_with_many_output_channels_per_group_equals_the_reference() -> None:
    """More than ``COMPACT_PATCHES_ABOVE`` output channels per group: the flat im2col matrix
    drops its discarded columns before the product."""
    rng = np.random.default_rng(43)
    ref = reference("nn.conv2d")
    og = kernels.COMPACT_PATCHES_ABOVE + 3
    for _ in range(12):
        g = int(rng.integers(1, 3))
        kh, kw = (int(v) for v in rng.integers(1, 4, size=2))
        x = rng.standard_normal((1, 2 * g, kh + 6, kw + 7)).astype("float32")
        weight = rng.standard_normal((og * g, 2, kh, kw)).astype("float32")
        a = attrs(
            "nn.conv2d",
            strides=tuple(int(v) for v in rng.integers(1, 3, size=2)),
            padding=tuple(int(v) for v in rng.integers(0, 3, size=4)),
            dilation=tuple(int(v) for v in rng.integers(1, 3, size=2)),
            groups=g,
        )
        actual = kernels.conv2d((x, weight), a, min_work=0)
        assert actual is not None
        check_close(ref((x, weight), a), actual, 2 * kh * kw)


def avg_pool_case(rng: np.random.Generator) -> tuple[Array, Attrs, int]:
    x, a = pool_case(rng)
    x[rng.random(x.shape) < 0.05] = np.inf
    b = attrs(
        "nn.avg_pool2d",
        pool_size=a.pool_size,
        strides=a.strides,
        dilation=a.dilation,
        padding=a.padding,
        layout=a.layout,
        count_include_pad=bool(rng.integers(0, 2)),
    )
    return x, b, a.pool_size[0] * a.pool_size[1]


def test_avg_pool2d_equals_the_reference_on_random_attributes() -> None:
    rng = np.random.default_rng(23)
    ref = reference("nn.avg_pool2d")
    covered = 0
    for _ in range(150):
        x, a, length = avg_pool_case(rng)
        with np.errstate(all="ignore"):  # inf - inf in a window, as in the reference
            actual = kernels.avg_pool2d((x,), a)
        if actual is None:
            continue
        covered += 1
        with np.errstate(all="ignore"):
            expected = ref((x,), a)
        check_close(expected, actual, length)
    assert covered >= 120
    ints = np.arange(16, dtype="int32").reshape(1, 1, 4, 4)
    assert kernels.avg_pool2d((ints,), attrs("nn.avg_pool2d", pool_size=(2, 2))) is None
    ceil = attrs("nn.avg_pool2d", pool_size=(2, 2), ceil_mode=True)
    assert kernels.avg_pool2d((ints.astype("float32"),), ceil) is None


def test_max_pool2d_takes_nan_outside_every_window() -> None:
    """A NaN that no window reads (stride 2 skips the last row) does not make it defer."""
    ref = reference("nn.max_pool2d")
    x = np.arange(25, dtype="float32").reshape(1, 1, 5, 5)
    x[0, 0, 4, :] = np.nan
    a = attrs("nn.max_pool2d", pool_size=(2, 2), strides=(2, 2))
    actual = kernels.max_pool2d((x,), a)
    assert actual is not None
    assert bits(actual) == outcome(ref, (x,), a)


def test_max_pool2d_takes_nan_in_a_column_no_window_reads() -> None:
    """The flat stride phases read discarded columns past a row's end; a NaN there (stride 2
    skips the last column) does not make the kernel defer or show in the result."""
    ref = reference("nn.max_pool2d")
    x = np.arange(50, dtype="float32").reshape(1, 2, 5, 5)
    x[:, :, :, 4] = np.nan
    a = attrs("nn.max_pool2d", pool_size=(2, 2), strides=(2, 2))
    actual = kernels.max_pool2d((x,), a)
    assert actual is not None
    assert bits(actual) == outcome(ref, (x,), a)


def test_global_avg_pool2d_equals_the_reference() -> None:
    """A window the size of the unpadded input (ShuffleNet's last pool) is one reduction."""
    rng = np.random.default_rng(37)
    ref = reference("nn.avg_pool2d")
    for dtype, layout, include in itertools.product(
        ("float16", "float32", "float64"), ("NCHW", "NHWC"), (True, False)
    ):
        shape = (2, 5, 7, 6) if layout == "NCHW" else (2, 7, 6, 5)
        x = random_array(rng, shape, dtype)
        a = attrs("nn.avg_pool2d", pool_size=(7, 6), layout=layout, count_include_pad=include)
        actual = kernels.avg_pool2d((x,), a)
        assert actual is not None and actual.shape == ref((x,), a).shape
        check_close(ref((x,), a), actual, 42)
        x[0, 0] = np.inf  # a window's sum is infinite: so is its mean
        with np.errstate(all="ignore"):
            check_close(ref((x,), a), kernels.avg_pool2d((x,), a), 42)


def test_relu_zeros_are_a_kept_read_only_buffer(monkeypatch: pytest.MonkeyPatch) -> None:
    """``zeros_like`` serves views of one read-only buffer per dtype (grown on demand), and
    fresh zeros above ``ZEROS_UP_TO``; relu gives the reference's bits either way."""
    rng = np.random.default_rng(41)
    ref = reference("nn.relu")
    small = kernels.zeros_like(np.ones((3, 4), "float32"))
    assert small.shape == (3, 4) and not small.flags.writeable and not small.any()
    big = np.ones(kernels.ZEROS_UP_TO + 1, "float64")
    assert kernels.zeros_like(big).flags.writeable  # fresh, not kept
    monkeypatch.setattr(kernels, "ZEROS_UP_TO", 1000)
    for shape in ((10, 30), (40, 30), (7, 3, 5)):  # below, above the limit, another rank
        x = random_array(rng, shape, "float32")
        x.flat[:6] = [np.nan, -np.nan, -0.0, 0.0, np.inf, -np.inf]
        assert bits(kernels.relu((x,))) == outcome(ref, (x,), None)
        strided = x[..., ::2]
        assert bits(kernels.relu((strided,))) == outcome(ref, (strided,), None)


def test_bias_add_is_the_reference_bit_for_bit() -> None:
    rng = np.random.default_rng(29)
    ref = reference("nn.bias_add")
    for dtype, shape, axis in itertools.product(
        ("float16", "float32", "float64"), ((2, 3, 4, 5), (6,), (3, 7)), (0, -1, 1)
    ):
        if not -len(shape) <= axis < len(shape):
            continue
        x = random_array(rng, shape, dtype)
        x.flat[:3] = [np.nan, -np.inf, -0.0]
        bias = random_array(rng, (shape[axis],), dtype)
        a = attrs("nn.bias_add", axis=axis)
        actual = kernels.bias_add((x, bias), a)
        assert actual is not None
        assert bits(actual) == outcome(ref, (x, bias), a)
    ints = np.ones((2, 3), "int32")
    assert kernels.bias_add((ints, np.ones(3, "int32")), attrs("nn.bias_add")) is None


def test_concatenate_is_the_reference_bit_for_bit() -> None:
    rng = np.random.default_rng(31)
    ref = reference("concatenate")
    for _ in range(40):
        ndim = int(rng.integers(1, 4))
        axis = int(rng.integers(-ndim, ndim))
        base = [int(v) for v in rng.integers(1, 4, size=ndim)]
        dtype = str(rng.choice(DTYPES))
        fields = []
        for _ in range(int(rng.integers(1, 4))):
            shape = list(base)
            shape[axis] = int(rng.integers(0, 4))
            fields.append(rng.standard_normal(shape).astype(dtype))
        a = attrs("concatenate", axis=axis)
        args = (tuple(fields),)
        actual = kernels.concatenate(args, a)
        assert actual is not None
        assert bits(actual) == outcome(ref, args, a)
    mixed = (np.ones((2, 2), "float32"), np.ones((2, 2), "float64"))
    assert kernels.concatenate((mixed,), attrs("concatenate")) is None
    unequal = (np.ones((2, 2), "float32"), np.ones((2, 3), "float32"))
    assert kernels.concatenate((unequal,), attrs("concatenate")) is None


def test_reshape_is_the_reference_bit_for_bit() -> None:
    rng = np.random.default_rng(41)
    ref = reference("reshape")
    covered = 0
    for _ in range(80):
        shape = tuple(int(v) for v in rng.integers(1, 4, size=int(rng.integers(0, 4))))
        x = rng.standard_normal(shape).astype(str(rng.choice(DTYPES)))
        extents = [int(v) for v in rng.integers(1, 4, size=int(rng.integers(0, 4)))]
        if rng.integers(0, 2):
            extents.insert(int(rng.integers(0, len(extents) + 1)), -1)
        if rng.integers(0, 4) == 0:
            extents.append(int(rng.choice([0, -2, -3])))
        a = attrs("reshape", newshape=tuple(extents))
        actual = kernels.reshape((x,), a)
        if actual is None:
            continue
        covered += 1
        assert bits(actual) == outcome(ref, (x,), a)
    assert covered >= 10
    x = np.ones((2, 3), "float32")
    assert kernels.reshape((x,), attrs("reshape", newshape=(4, -1))) is None  # 6 % 4
    assert kernels.reshape((x,), attrs("reshape", newshape=(5,))) is None
    assert kernels.reshape((x,), attrs("reshape", newshape=(0, 3))) is None  # TVM's copy code
    assert bits(kernels.reshape((x,), attrs("reshape", newshape=(-1,)))) == outcome(
        ref, (x,), attrs("reshape", newshape=(-1,))
    )


def test_transpose_is_the_reference_bit_for_bit() -> None:
    """Random permutations (negative axes, ``None``) of every dtype: the reference's bits;
    axes that are no permutation go to the reference, which says why."""
    rng = np.random.default_rng(43)
    ref = reference("transpose")
    for _ in range(60):
        ndim = int(rng.integers(0, 5))
        x = rng.standard_normal(tuple(int(v) for v in rng.integers(1, 4, size=ndim)))
        x = x.astype(str(rng.choice(DTYPES)))
        perm = [int(v) for v in rng.permutation(ndim)]
        negative = [p - ndim if rng.integers(0, 2) else p for p in perm]
        for axes in (tuple(negative), None):
            a = attrs("transpose", axes=axes)
            assert bits(kernels.transpose((x,), a)) == outcome(ref, (x,), a)
    x = np.ones((2, 3, 4), "float32")
    for wrong in ((0, 1), (0, 0, 1), (0, 1, 3)):
        a = attrs("transpose", axes=wrong)
        assert kernels.transpose((x,), a) is None
        fast = kernels.kernel_for("transpose", ref)
        messages = []
        for kernel in (ref, fast):
            with pytest.raises(RelationError) as raised:
                kernel((x,), a)
            messages.append(str(raised.value))
        assert messages[0] == messages[1]


@pytest.mark.parametrize("name", sorted(kernels.TENSOR_ARITHMETIC))
def test_float_tensor_arithmetic_is_the_reference_bit_for_bit(name: str) -> None:
    rng = np.random.default_rng(37)
    ref = reference(name)
    fast = kernels.kernel_for(name, ref)
    specials = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e-40, 65504.0, 7.0]
    for dtype in ("float16", "float32", "float64"):
        for shapes in (((3, 4), (3, 4)), ((2, 1, 4), (3, 1)), ((), (5,)), ((4,), ())):
            a, b = (random_array(rng, shape, dtype) for shape in shapes)
            a.flat[: min(a.size, 8)] = specials[: min(a.size, 8)]
            b.flat[: min(b.size, 8)] = specials[::-1][: min(b.size, 8)]
            assert outcome(fast, (a, b)) == outcome(ref, (a, b)), (dtype, shapes)
    ints = (np.arange(4, dtype="int32"), np.arange(4, dtype="int32"))
    assert outcome(fast, ints) == outcome(ref, ints)


def test_keep_freed_memory_is_idempotent() -> None:
    import platform

    first = kernels.keep_freed_memory()
    assert kernels.keep_freed_memory() is first
    if platform.system() == "Linux" and platform.libc_ver()[0] == "glibc":
        assert first


def test_a_network_layer_agrees_with_the_spec() -> None:
    """conv2d (large enough for the kernel), batch_norm, relu, max_pool2d and dense in one
    program: the interpreter's value equals the spec's (the references) under the policy."""
    rng = np.random.default_rng(17)
    data = s.Var("data", s.TensorType((1, 8, 32, 32), "float32"))
    weight = s.Constant(rng.standard_normal((32, 8, 3, 3)).astype("float32"))
    vectors = [s.Constant(rng.standard_normal(32).astype("float32")) for _ in range(3)]
    var = s.Constant(np.abs(rng.standard_normal(32)).astype("float32") + 0.5)
    conv = s.Call(s.Op("nn.conv2d"), (data, weight), attrs("nn.conv2d", padding=(1, 1)))
    bn = s.TupleGetItem(s.Call(s.Op("nn.batch_norm"), (conv, *vectors, var),
                               attrs("nn.batch_norm")), 0)  # fmt: skip
    relu = s.Call(s.Op("nn.relu"), (bn,))
    pool = s.Call(s.Op("nn.max_pool2d"), (relu,),
                  attrs("nn.max_pool2d", pool_size=(2, 2), strides=(2, 2)))  # fmt: skip
    flat = s.Call(s.Op("nn.batch_flatten"), (pool,))
    dense_weight = s.Constant(rng.standard_normal((10, 32 * 16 * 16)).astype("float32"))
    out = s.Call(s.Op("nn.dense"), (flat, dense_weight), attrs("nn.dense", units=10))
    mod = s.IRModule({s.GlobalVar("main"): s.Function((data,), out)})
    image = TensorValue(rng.standard_normal((1, 8, 32, 32)).astype("float32"))
    expected = spec_evaluate(mod, [image]).value
    actual = evaluate(mod, [image]).value
    assert isinstance(expected, TensorValue) and isinstance(actual, TensorValue)
    # dense sums 8192 terms of a convolution's outputs (each a sum of 72)
    check_close(expected.data, actual.data, 72 * 32 * 16 * 16)
    assert kernels.conv2d((image.data, weight.data), conv.attrs) is not None  # the fast path ran


def test_kernels_are_chosen_by_op_name() -> None:
    for name in (*kernels.TENSOR, *kernels.SCALAR):
        assert kernels.kernel_for(name, reference(name)) is not reference(name)
    assert kernels.kernel_for("exp", reference("exp")) is reference("exp")
    mark: Callable[..., object] = kernels.kernel_for
    assert mark("add", reference("add")) is kernels.kernel_for("add", reference("add"))


def test_conv2d_of_int8_into_int32_is_the_reference_bit_for_bit() -> None:
    rng = np.random.default_rng(5)
    ref = reference("nn.conv2d")
    covered = 0
    for _ in range(60):
        (x, w), a, _ = conv_case(rng)
        x8 = rng.integers(-128, 128, x.shape).astype("int8")
        w8 = rng.integers(-128, 128, w.shape).astype("int8")
        a32 = dataclasses.replace(a, out_dtype="int32")
        actual = kernels.conv2d((x8, w8), a32, min_work=0)
        if actual is None:
            continue
        covered += 1
        expected = ref((x8, w8), a32)
        assert isinstance(expected, np.ndarray)
        assert actual.dtype == expected.dtype == np.int32
        np.testing.assert_array_equal(actual, expected)
    assert covered >= 45
    # An int32 total that overflows is the reference's to call undefined.
    big = np.full((1, 3, 1, 1), 32767, "int16")
    widened = attrs("nn.conv2d", out_dtype="int32")
    assert kernels.conv2d((big[:, :2], big[:, :2]), widened, min_work=0) is not None
    assert kernels.conv2d((big, big), widened, min_work=0) is None  # 3 * 32767^2 > 2^31


def test_int32_tensor_add_is_the_reference_and_leaves_overflow_to_it() -> None:
    rng = np.random.default_rng(8)
    for name in ("add", "subtract"):
        fast = kernels.kernel_for(name, reference(name))
        a = rng.integers(-(1 << 30), 1 << 30, (3, 4)).astype("int32")
        b = rng.integers(-(1 << 30), 1 << 30, (4,)).astype("int32")
        np.testing.assert_array_equal(fast((a, b), None), reference(name)((a, b), None))
        edge = np.array([(1 << 31) - 1], "int32")
        with pytest.raises(relay.UndefinedBehavior):
            fast((edge, -edge if name == "subtract" else edge), None)


def test_conv2d_over_packed_layouts_is_the_reference() -> None:
    rng = np.random.default_rng(6)
    ref = reference("nn.conv2d")
    for dtype, out_dtype in (("int8", "int32"), ("float32", "")):
        x = rng.integers(-128, 128, (1, 2, 5, 5, 1, 4)).astype(dtype)
        w = rng.integers(-128, 128, (3, 2, 3, 3, 4, 4)).astype(dtype)
        a = attrs(
            "nn.conv2d",
            padding=(1, 1, 1, 1),
            data_layout="NCHW1n4c",
            kernel_layout="OIHW4o4i",
            out_dtype=out_dtype,
        )
        actual = kernels.conv2d((x, w), a, min_work=0)
        expected = ref((x, w), a)
        assert isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray)
        assert actual.shape == expected.shape == (1, 3, 5, 5, 1, 4)
        check_close(expected, actual, 2 * 4 * 9)
