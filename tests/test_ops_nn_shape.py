"""The ``nn/shape`` operators (``semantics/ops/nn/shape.py``): relations, references, checks."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_helpers import INTS, Array, T, h, n, of_family, ref, rel, w
from ops_nn_helpers import (
    ALL,
    RNG_SEED,
    SEED_RANGE,
    SEEDS,
    assert_agrees,
    normal,
    pick,
    random,
    ref_checked,
    run_onnx_node,
    shapes,
)

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops.image import Resize2DAttrs
from relay.semantics.ops.nn.norm import (
    DropoutAttrs,
)
from relay.semantics.ops.nn.shape import (
    BatchToSpaceNDAttrs,
    MirrorPadAttrs,
    PadAttrs,
    SpaceToBatchNDAttrs,
    SubPixelAttrs,
    UpSamplingAttrs,
)
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.syntax import ANY, TensorType, TupleType, Type

ONE_PAD = PadAttrs(pad_width=((1, 1),))


@st.composite
def pad_cases(draw: st.DrawFn) -> tuple[tuple[Array, ...], Attrs]:
    rng = np.random.default_rng(draw(SEEDS))
    dtype = pick(draw, ALL)
    mode = draw(st.sampled_from(["constant", "edge", "reflect"]))
    shape = draw(
        st.lists(st.integers(2 if mode == "reflect" else 1 if mode == "edge" else 0, 3), max_size=3)
    )
    widths = []
    for extent in shape:
        if mode == "constant":
            before = draw(st.integers(-extent, 2))
            after = draw(st.integers(-(extent + before), 2))
        else:
            limit = extent - 1 if mode == "reflect" else 2
            before, after = draw(st.integers(0, limit)), draw(st.integers(0, limit))
        widths.append((before, after))
    value = random(
        rng, draw(st.sampled_from([(), (1,), (2, 2)])), draw(st.sampled_from([dtype, "float32"]))
    )
    if dtype in INTS and value.dtype.kind == "f":
        value = np.abs(np.round(value))  # a cast in range
    data = random(rng, tuple(shape), dtype)
    return (data, value), PadAttrs(pad_width=tuple(widths), pad_mode=mode)


REJECTED: list[tuple[str, tuple[Type, ...], Attrs | None, str]] = [
    (
        "nn.pad",
        (T(2, 3), T()),
        ONE_PAD,
        r"expected 2 \(before, after\) pairs .* found 1: pad_width=\[\[1, 1\]\]",
    ),
    (
        "nn.pad",
        (T(2, 3), T()),
        PadAttrs(pad_width=((1, 1), (1, 2, 3))),
        r"pair for axis 1 in pad_width=\[\[1, 1\], \[1, 2, 3\]\], found \[1, 2, 3\]",
    ),
    (
        "nn.pad",
        (T(2), T()),
        PadAttrs(pad_width=((-2, -1),)),
        r"pad_width=\[\[-2, -1\]\] pads axis 0 of extent 2 .* negative extent -1",
    ),
    (
        "nn.pad",
        (T(2), T()),
        PadAttrs(pad_width=((1, 1),), pad_mode="wrap"),
        'found pad_mode="wrap"',
    ),
    ("nn.pad", (T(2), TupleType(())), ONE_PAD, "expected a tensor for pad_val"),
    ("nn.batch_flatten", (T(),), None, "rank at least 1, found rank 0"),
    (
        "nn.upsampling",
        (T(1, 3, 4, 4),),
        UpSamplingAttrs(scale_h=-1.0, scale_w=1.0),
        "scale_h=-1.0 makes extent 4 negative",
    ),
    (
        "nn.upsampling",
        (T(1, 3, 4, 4),),
        UpSamplingAttrs(scale_h=1.0, scale_w=1.0, method="linear"),
        'method="linear" is not supported',
    ),
    (
        "nn.upsampling",
        (T(1, 3, 4, 4),),
        UpSamplingAttrs(scale_h=1.0, scale_w=1.0, layout="NCHW4c"),
        'layout "NCHW4c" is not supported',
    ),
    (
        "nn.upsampling",
        (T(3, 4, 4),),
        UpSamplingAttrs(scale_h=1.0, scale_w=1.0),
        "expected 4-D data in layout NCHW, found rank 3",
    ),
    (
        "nn.mirror_pad",
        (T(2, 3),),
        MirrorPadAttrs(pad_width=((1, 1),)),
        "expected 2 .before, after. pairs in pad_width",
    ),
    (
        "nn.mirror_pad",
        (T(2, 3),),
        MirrorPadAttrs(pad_width=((1, 1), (0, -1))),
        r"pad_width entry 1 must be non-negative, found \[0, -1\]",
    ),
    ("nn.mirror_pad", (T(2, 3),), MirrorPadAttrs(pad_width=((1, 1), (0, 1, 2))), "must be a pair"),
    (
        "nn.mirror_pad",
        (T(2, 3),),
        MirrorPadAttrs(mode="EDGE", pad_width=((1, 1), (0, 1))),
        'mode="EDGE"',
    ),
    ("nn.space_to_depth", (T(1, 3, 4, 4),), SubPixelAttrs(block_size=0), "block_size=0"),
    (
        "nn.space_to_depth",
        (T(1, 3, 4, 4),),
        SubPixelAttrs(layout="HWCN"),
        'layout "HWCN" is not supported',
    ),
    ("nn.depth_to_space", (T(1, 8, 4, 4),), SubPixelAttrs(block_size=2, mode="CDR"), 'mode="CDR"'),
    ("nn.depth_to_space", (T(8, 4, 4),), SubPixelAttrs(block_size=2), "expected 4-D data"),
    (
        "nn.space_to_batch_nd",
        (T(1, 3),),
        SpaceToBatchNDAttrs(paddings=((0, 0), (0, 0))),
        "must name 1 to 1 spatial axes",
    ),
    (
        "nn.space_to_batch_nd",
        (T(1, 3, 4),),
        SpaceToBatchNDAttrs(block_shape=(2,), paddings=((0, 0),)),
        "padded extent 3 of axis 1 is not divisible by its block 2",
    ),
    (
        "nn.space_to_batch_nd",
        (T(1, 4, 4),),
        SpaceToBatchNDAttrs(block_shape=(2,), paddings=()),
        "expected 1 .before, after. pairs in paddings",
    ),
    (
        "nn.space_to_batch_nd",
        (T(1, 4, 4),),
        SpaceToBatchNDAttrs(block_shape=(0,), paddings=((0, 0),)),
        r"block_shape must be positive, found block_shape=\[0\]",
    ),
    (
        "nn.space_to_batch_nd",
        (T(4),),
        SpaceToBatchNDAttrs(block_shape=(2,), paddings=((0, 0),)),
        "rank at least 2",
    ),
    (
        "nn.batch_to_space_nd",
        (T(3, 4, 4),),
        BatchToSpaceNDAttrs(block_shape=(2,), crops=((0, 0),)),
        r"batch 3 is not divisible by the product of block_shape \(2\)",
    ),
    (
        "nn.batch_to_space_nd",
        (T(2, 2, 4),),
        BatchToSpaceNDAttrs(block_shape=(2,), crops=((3, 2),)),
        r"crops entry 0 \[3, 2\] removes more",
    ),
    (
        "nn.batch_to_space_nd",
        (T(2, 2, 4),),
        BatchToSpaceNDAttrs(block_shape=(2,), crops=((-1, 0),)),
        "must be non-negative",
    ),
]


def _ort_resize(x: Array, size: tuple[int, int], method: str, mode: str, **kw: Any) -> Array:
    roi = kw.pop("roi", None)
    if roi is not None:
        roi = np.array([0, 0, roi[0], roi[1], 1, 1, roi[2], roi[3]], "float32")
    onnx_mode = {"nearest_neighbor": "nearest", "linear": "linear", "cubic": "cubic"}[method]
    sizes = np.array([*x.shape[:2], *size], "int64")
    out: Array = onnx_run(
        "Resize",
        [x, roi, None, sizes],
        opset=19,
        mode=onnx_mode,
        coordinate_transformation_mode=mode,
        **kw,
    )
    return out


def test_pad_relation() -> None:
    def pad(data: TensorType, widths: tuple[tuple[int, ...], ...], mode: str = "constant") -> Type:
        return rel("nn.pad", data, T(), attrs=PadAttrs(pad_width=widths, pad_mode=mode))

    assert pad(T(2, 3), ((1, 1), (0, 2))) == T(4, 5)
    assert pad(T(n, 3), ((1, 1), (0, 2)), "edge") == T(n + 2, 5)
    assert pad(T(ANY, 3), ((1, 1), (-1, 0)), "reflect") == T(ANY, 2)
    assert pad(T(2, 3, dtype="int8"), ((0, 0), (-3, 0))) == T(2, 0, dtype="int8")
    assert pad(T(), ()) == T()
    # pad_val is not constrained by TVM's relation
    one = PadAttrs(pad_width=((1, 0),))
    assert rel("nn.pad", T(2), T(1, dtype="int32"), attrs=one) == T(3)


def test_batch_flatten_relation() -> None:
    bf = "nn.batch_flatten"
    assert rel(bf, T(n, 3, 4)) == T(n, 12)
    assert rel(bf, T(2, h, w, 3)) == T(2, 3 * h * w)
    assert rel(bf, T(2, 3, ANY, 4)) == T(2, ANY)
    assert rel(bf, T(5, dtype="bool")) == T(5, 1, dtype="bool")
    assert rel(bf, T(0, 3, 0)) == T(0, 0)


@pytest.mark.parametrize(("name", "types", "attrs", "message"), of_family(REJECTED, "nn/shape"))
def test_relation_rejects(
    name: str, types: tuple[Type, ...], attrs: Attrs | None, message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        rel(name, *types, attrs=attrs)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
def test_pad_matches_onnxruntime(mode: str) -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    widths = ((1, 0), (2, 1), (0, 3))
    got = ref(
        "nn.pad", x, np.array(2.5, np.float32), attrs=PadAttrs(pad_width=widths, pad_mode=mode)
    )
    pads = np.array([b for b, _ in widths] + [e for _, e in widths], np.int64)
    expected = run_onnx_node("Pad", [x, pads, np.array(2.5, np.float32)], mode=mode)
    np.testing.assert_array_equal(got, expected)
    np.testing.assert_array_equal(
        got,
        np.pad(x, widths, mode=mode, **({"constant_values": 2.5} if mode == "constant" else {})),
    )


def test_pad_negative_widths_crop_and_undefined_reads() -> None:
    x = np.arange(12, dtype=np.int32).reshape(3, 4)
    got = ref("nn.pad", x, np.array(9.7, np.float32), attrs=PadAttrs(pad_width=((-1, 1), (2, -3))))
    expected = np.pad(x[1:, :1], ((0, 1), (2, 0)), constant_values=9)  # 9.7 cast truncates
    np.testing.assert_array_equal(got, expected)
    assert got.dtype == np.int32
    got = ref(
        "nn.pad",
        x,
        np.array(0, np.int32),
        attrs=PadAttrs(pad_width=((0, 0), (-1, 2)), pad_mode="edge"),
    )
    np.testing.assert_array_equal(got, np.pad(x[:, 1:], ((0, 0), (0, 2)), mode="edge"))
    scalar = ref("nn.pad", np.array(5.0), np.array(0.0), attrs=PadAttrs(pad_width=()))
    assert scalar.shape == () and scalar == 5.0
    empty = ref(
        "nn.pad",
        np.zeros((0, 2), np.float32),
        np.array(1.0, np.float32),
        attrs=PadAttrs(pad_width=((1, 1), (0, 0))),
    )
    np.testing.assert_array_equal(empty, np.ones((2, 2)))
    # pad_val of any rank: its first element is used (cast to data's dtype)
    got = ref(
        "nn.pad",
        np.zeros(1, np.uint8),
        np.array([[300, 7]], np.int32),
        attrs=PadAttrs(pad_width=((1, 0),)),
    )
    assert got.tolist() == [44, 0]  # 300 wraps to 44 in uint8
    with pytest.raises(UndefinedBehavior, match="reads outside the input"):
        ref(
            "nn.pad",
            x,
            np.array(0, np.int32),
            attrs=PadAttrs(pad_width=((3, 0), (0, 0)), pad_mode="reflect"),
        )
    with pytest.raises(UndefinedBehavior, match="reads outside the input"):
        ref(
            "nn.pad",
            np.zeros((0,), np.int32),
            np.array(0, np.int32),
            attrs=PadAttrs(pad_width=((1, 0),), pad_mode="edge"),
        )
    with pytest.raises(UndefinedBehavior, match="no elements"):
        ref("nn.pad", x, np.zeros((0,), np.int32), attrs=PadAttrs(pad_width=((1, 0), (0, 0))))
    with pytest.raises(UndefinedBehavior, match="NaN"):
        ref("nn.pad", x, np.array(np.nan, np.float32), attrs=PadAttrs(pad_width=((1, 0), (0, 0))))


def test_batch_flatten_matches_onnxruntime() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    np.testing.assert_array_equal(ref("nn.batch_flatten", x), run_onnx_node("Flatten", [x], axis=1))
    assert ref("nn.batch_flatten", np.zeros((0, 3), np.int8)).shape == (0, 3)
    assert ref("nn.batch_flatten", np.arange(3)).tolist() == [[0], [1], [2]]


@settings(max_examples=30)
@given(SEEDS, st.sampled_from(ALL), shapes)
def test_batch_flatten_and_dropout_agree_with_relation(
    seed: int, dtype: str, shape: tuple[int, ...]
) -> None:
    x = random(np.random.default_rng(seed), shape, dtype)
    assert_agrees("nn.batch_flatten", (x,), None)
    assert_agrees("nn.dropout", (x,), DropoutAttrs())


@settings(max_examples=60)
@given(pad_cases())
def test_pad_reference_agrees_with_relation(case: tuple[tuple[Array, ...], Attrs]) -> None:
    assert_agrees("nn.pad", *case)


def test_resample_relations() -> None:
    up = UpSamplingAttrs(scale_h=2.0, scale_w=1.5)
    assert rel("nn.upsampling", T(1, 3, 4, 5), attrs=up) == T(1, 3, 8, 8)  # 7.5 rounds to 8
    assert rel("nn.upsampling", T(1, 3, 4, 3), attrs=up) == T(1, 3, 8, 4)  # 4.5 rounds to 4
    assert rel("nn.upsampling", T(n, 3, h, h), attrs=up) == T(n, 3, 2 * h, ANY)
    nhwc = UpSamplingAttrs(scale_h=0.5, scale_w=3.0, layout="NHWC", method="bilinear")
    assert rel("nn.upsampling", T(1, 5, ANY, 2, dtype="int8"), attrs=nhwc) == T(
        1, 2, ANY, 2, dtype="int8"
    )
    pad = MirrorPadAttrs(pad_width=((0, 0), (1, 2), (2, 0)))
    assert rel("nn.mirror_pad", T(n, 3, ANY), attrs=pad) == T(n, 6, ANY)
    s2d = SubPixelAttrs(block_size=2)
    assert rel("nn.space_to_depth", T(n, 3, 5, 4), attrs=s2d) == T(n, 12, 2, 2)
    assert rel("nn.depth_to_space", T(n, 9, 2, h), attrs=s2d) == T(n, 2, 4, 2 * h)
    nhwc2 = SubPixelAttrs(block_size=2, layout="NHWC", mode="CRD")
    assert rel("nn.depth_to_space", T(1, 2, 3, 8), attrs=nhwc2) == T(1, 4, 6, 2)
    s2b = SpaceToBatchNDAttrs(block_shape=(2, 3), paddings=((1, 1), (0, 2)))
    assert rel("nn.space_to_batch_nd", T(2, 4, 4, 7), attrs=s2b) == T(12, 3, 2, 7)
    assert rel("nn.space_to_batch_nd", T(n, 4, 4), attrs=s2b) == T(6 * n, 3, 2)
    b2s = BatchToSpaceNDAttrs(block_shape=(2, 3), crops=((1, 0), (0, 2)))
    assert rel("nn.batch_to_space_nd", T(12, 3, 2, 7), attrs=b2s) == T(2, 5, 4, 7)
    resize = Resize2DAttrs(size=(7, 0), roi=(0.0,) * 4, layout="NHWC", out_dtype="uint8")
    assert rel("image.resize2d", T(n, 3, 4, 2), attrs=resize) == T(n, 7, 0, 2, dtype="uint8")


def test_mirror_pad_by_hand_and_too_wide() -> None:
    x = np.array([1, 2, 3], "int8")
    sym = ref_checked("nn.mirror_pad", x, attrs=MirrorPadAttrs(pad_width=((2, 3),)))
    assert sym.tolist() == [2, 1, 1, 2, 3, 3, 2, 1]
    refl = ref_checked(
        "nn.mirror_pad", x, attrs=MirrorPadAttrs(mode="REFLECT", pad_width=((2, 1),))
    )
    assert refl.tolist() == [3, 2, 1, 2, 3, 2]
    with pytest.raises(UndefinedBehavior, match="outside the input"):
        ref_checked("nn.mirror_pad", x, attrs=MirrorPadAttrs(mode="REFLECT", pad_width=((3, 0),)))
    with pytest.raises(UndefinedBehavior):
        ref_checked("nn.mirror_pad", x, attrs=MirrorPadAttrs(pad_width=((0, 4),)))


def test_space_to_batch_by_hand() -> None:
    x = np.arange(1, 5, dtype="int16").reshape(1, 2, 2, 1)
    s2b = SpaceToBatchNDAttrs(block_shape=(2, 2), paddings=((0, 0), (0, 0)))
    assert ref_checked("nn.space_to_batch_nd", x, attrs=s2b).reshape(-1).tolist() == [1, 2, 3, 4]
    back = BatchToSpaceNDAttrs(block_shape=(2, 2), crops=((0, 0), (0, 0)))
    np.testing.assert_array_equal(
        ref_checked("nn.batch_to_space_nd", x.reshape(4, 1, 1, 1), attrs=back), x
    )
    padded = SpaceToBatchNDAttrs(block_shape=(2,), paddings=((1, 1),), pad_value=-7.9)
    out = ref_checked("nn.space_to_batch_nd", np.array([[5, 6]], "int8"), attrs=padded)
    assert out.tolist() == [[-7, 6], [5, -7]]  # -7.9 truncates to -7
    with pytest.raises(UndefinedBehavior, match="does not fit uint8"):
        ref_checked("nn.space_to_batch_nd", np.array([[5, 6]], "uint8"), attrs=padded)


def test_upsampling_nearest_by_hand() -> None:
    x = np.array([[1, 2], [3, 4]], "int32").reshape(1, 1, 2, 2)
    out = ref_checked("nn.upsampling", x, attrs=UpSamplingAttrs(scale_h=1.5, scale_w=2.0))
    # H: round(3.0) = 3 rows, floor(y * 2/3 + 1e-5) = 0, 0, 1
    assert out.reshape(3, 4).tolist() == [[1, 1, 2, 2], [1, 1, 2, 2], [3, 3, 4, 4]]


@pytest.mark.parametrize("seed", SEED_RANGE)
def test_mirror_pad_vs_onnxruntime_and_loops(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 3, 4)
    widths = ((int(rng.integers(0, 3)), int(rng.integers(0, 3))), (3, int(rng.integers(0, 4))))
    ours = ref_checked("nn.mirror_pad", x, attrs=MirrorPadAttrs(mode="REFLECT", pad_width=widths))
    pads = np.array([widths[0][0], widths[1][0], widths[0][1], widths[1][1]], "int64")
    np.testing.assert_array_equal(ours, onnx_run("Pad", [x, pads], mode="reflect"))
    sym = ref_checked("nn.mirror_pad", x, attrs=MirrorPadAttrs(pad_width=((3, 2), (4, 4))))

    def mirror(i: int, extent: int) -> int:  # fold an index back by repeated reflection
        while not 0 <= i < extent:
            i = -i - 1 if i < 0 else 2 * extent - i - 1
        return i

    for i, j in np.ndindex(*sym.shape):
        assert sym[i, j] == x[mirror(i - 3, 3), mirror(j - 4, 4)]


@pytest.mark.parametrize("seed", SEED_RANGE)
def test_space_depth_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 2, 3, 4, 6)
    a = SubPixelAttrs(block_size=2)
    np.testing.assert_array_equal(
        ref_checked("nn.space_to_depth", x, attrs=a), onnx_run("SpaceToDepth", [x], blocksize=2)
    )
    nhwc = ref_checked(
        "nn.space_to_depth",
        x.transpose(0, 2, 3, 1).copy(),
        attrs=SubPixelAttrs(block_size=2, layout="NHWC"),
    )
    np.testing.assert_array_equal(
        nhwc.transpose(0, 3, 1, 2), onnx_run("SpaceToDepth", [x], blocksize=2)
    )
    deep = normal(rng, 2, 18, 2, 3)
    for mode in ("DCR", "CRD"):
        ours = ref_checked("nn.depth_to_space", deep, attrs=SubPixelAttrs(block_size=3, mode=mode))
        np.testing.assert_array_equal(
            ours, onnx_run("DepthToSpace", [deep], blocksize=3, mode=mode)
        )
    # TVM floors the extents that do not divide: the trailing rows and channels are dropped
    odd = normal(rng, 1, 5, 5, 3)
    ours = ref_checked("nn.depth_to_space", odd, attrs=SubPixelAttrs(block_size=2))
    np.testing.assert_array_equal(ours, onnx_run("DepthToSpace", [odd[:, :4]], blocksize=2))
    ours = ref_checked("nn.space_to_depth", odd, attrs=SubPixelAttrs(block_size=2))
    np.testing.assert_array_equal(ours, onnx_run("SpaceToDepth", [odd[:, :, :4, :2]], blocksize=2))


@pytest.mark.parametrize("seed", SEED_RANGE)
def test_space_batch_vs_loops(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(-50, 50, (2, 3, 4, 2)).astype("int32")
    blocks = (int(rng.integers(1, 3)), int(rng.integers(1, 4)))
    pads = []
    for extent, block in zip((3, 4), blocks, strict=True):
        before = int(rng.integers(0, 3))
        after = (-(extent + before)) % block + block * int(rng.integers(0, 2))
        pads.append((before, after))
    a = SpaceToBatchNDAttrs(block_shape=blocks, paddings=tuple(pads), pad_value=99.0)
    out = ref_checked("nn.space_to_batch_nd", x, attrs=a)
    for ob, i, j, c in np.ndindex(*out.shape):
        k, b = divmod(ob, 2)
        ki, kj = divmod(k, blocks[1])
        si, sj = i * blocks[0] + ki - pads[0][0], j * blocks[1] + kj - pads[1][0]
        inside = 0 <= si < 3 and 0 <= sj < 4
        assert out[ob, i, j, c] == (x[b, si, sj, c] if inside else 99)
    crops = tuple((p[0], p[1] - (p[1] > 0)) for p in pads)
    back = ref_checked(
        "nn.batch_to_space_nd", out, attrs=BatchToSpaceNDAttrs(block_shape=blocks, crops=crops)
    )
    for b, i, j, c in np.ndindex(*back.shape):
        pi, pj = i + crops[0][0], j + crops[1][0]
        (qi, ki), (qj, kj) = divmod(pi, blocks[0]), divmod(pj, blocks[1])
        assert back[b, i, j, c] == out[(ki * blocks[1] + kj) * 2 + b, qi, qj, c]


@pytest.mark.parametrize("seed", SEED_RANGE)
def test_upsampling_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 1, 2, 3, 4)
    for (sh, sw), (method, onnx_method), align in itertools.product(
        ((2.0, 3.0), (1.5, 0.5), (2.5, 1.75)),
        (("nearest_neighbor", "nearest_neighbor"), ("bilinear", "linear"), ("bicubic", "cubic")),
        (False, True),
    ):
        if align and method == "nearest_neighbor":
            continue  # TVM's nearest align_corners rounds half to even: no ONNX mode does
        a = UpSamplingAttrs(scale_h=sh, scale_w=sw, method=method, align_corners=align)
        ours = ref_checked("nn.upsampling", x, attrs=a)
        size = (round(3 * sh), round(4 * sw))
        mode = "align_corners" if align else "asymmetric"
        theirs = _ort_resize(x, size, onnx_method, mode, nearest_mode="floor", cubic_coeff_a=-0.5)
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-5, err_msg=str(a))
    ints = rng.integers(0, 100, (1, 3, 2, 2)).astype("uint8")
    out = ref_checked(
        "nn.upsampling", ints, attrs=UpSamplingAttrs(scale_h=2.0, scale_w=2.0, layout="NHWC")
    )
    assert out.dtype == np.uint8 and out.shape == (1, 6, 4, 2)
    np.testing.assert_array_equal(out, ints.repeat(2, axis=1).repeat(2, axis=2))
