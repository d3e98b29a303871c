"""The ``nn/norm`` operators (``semantics/ops/nn/norm.py``): relations, references, checks."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ops_helpers import FLOATS, T, h, n, of_family, ref, rel
from ops_nn_helpers import (
    ALL,
    RNG_SEED,
    SEED_RANGE,
    SEEDS,
    V3,
    assert_agrees,
    normal,
    random,
    ref_checked,
    run_onnx_node,
    shapes,
)

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import OPS, OpPattern
from relay.semantics.ops.nn.activation import SoftmaxAttrs
from relay.semantics.ops.nn.norm import (
    BatchNormAttrs,
    DropoutAttrs,
    GroupNormAttrs,
    InstanceNormAttrs,
    L2NormalizeAttrs,
    LayerNormAttrs,
    LRNAttrs,
)
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.syntax import ANY, TupleType, Type, dim_symbol

GROUP = {
    "nn.layer_norm": ("LayerNorm", OpPattern.OPAQUE),
    "nn.group_norm": ("GroupNorm", OpPattern.OPAQUE),
    "nn.instance_norm": ("InstanceNorm", OpPattern.OPAQUE),
    "nn.l2_normalize": ("Identity", OpPattern.OPAQUE),
    "nn.lrn": ("Identity", OpPattern.OPAQUE),
    "nn.cross_entropy": ("CrossEntropy", OpPattern.OPAQUE),
    "nn.nll_loss": ("NLLLoss", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.fast_softmax": ("Softmax", OpPattern.OUT_ELEMWISE_FUSABLE),
    "nn.upsampling": ("UpSampling", OpPattern.INJECTIVE),
    "nn.mirror_pad": ("MirrorPad", OpPattern.INJECTIVE),
    "nn.space_to_depth": ("SpaceToDepth", OpPattern.INJECTIVE),
    "nn.depth_to_space": ("DepthToSpace", OpPattern.INJECTIVE),
    "nn.space_to_batch_nd": ("SpaceToBatchND", OpPattern.INJECTIVE),
    "nn.batch_to_space_nd": ("BatchToSpaceND", OpPattern.INJECTIVE),
    "image.resize2d": ("Resize2D", OpPattern.INJECTIVE),
}


REJECTED: list[tuple[str, tuple[Type, ...], Attrs | None, str]] = [
    (
        "nn.batch_norm",
        (T(2, 3, 4, 4), T(4), V3, V3, V3),
        BatchNormAttrs(),
        r"expected Tensor\[\(3,\), float32\] for gamma, found Tensor\[\(4,\), float32\]",
    ),
    (
        "nn.batch_norm",
        (T(2, 3), V3, V3, V3, T(3, dtype="float16")),
        BatchNormAttrs(),
        "for moving_var, found Tensor.*float16",
    ),
    ("nn.batch_norm", (T(2, 3), V3, T(3, 1), V3, V3), BatchNormAttrs(), "for beta, found .*3, 1"),
    ("nn.batch_norm", (T(2, 3), V3, V3, T(2), V3), BatchNormAttrs(), "for moving_mean"),
    ("nn.batch_norm", (T(2, 3, 4), V3, V3, V3, V3), BatchNormAttrs(axis=-2), "axis=-2 is out of"),
    (
        "nn.batch_norm",
        (T(2, 3), V3, V3, V3, V3),
        BatchNormAttrs(axis=2),
        r"axis=2 is out of range .* \(expected -1 <= axis < 2",
    ),
    ("nn.dropout", (TupleType(()),), DropoutAttrs(), "expected a tensor for data"),
    ("nn.layer_norm", (T(2, 3), V3, V3), LayerNormAttrs(axis=2), "axis=2 is out of range"),
    (
        "nn.layer_norm",
        (T(2, 3), T(2), V3),
        LayerNormAttrs(),
        r"Tensor\[\(3,\), float32\] for gamma",
    ),
    ("nn.layer_norm", (T(2, 3), V3, T(3, dtype="float16")), LayerNormAttrs(), "for beta"),
    ("nn.group_norm", (T(2, 3), V3, V3), GroupNormAttrs(), "num_groups=0"),
    (
        "nn.group_norm",
        (T(2, 3), V3, V3),
        GroupNormAttrs(num_groups=2),
        "num_groups=2 does not divide the 3 channels",
    ),
    (
        "nn.instance_norm",
        (T(2, 3), V3, V3),
        InstanceNormAttrs(),
        r"rank at least 3, found rank 2 \(2, 3\)",
    ),
    (
        "nn.l2_normalize",
        (T(2, 3),),
        L2NormalizeAttrs(eps=0.1, axis=(2,)),
        r"axis=\[2\]: 2 is out of range",
    ),
    (
        "nn.l2_normalize",
        (T(2, 3),),
        L2NormalizeAttrs(eps=0.1, axis=(1, -1)),
        r"axis=\[1, -1\] names an axis twice",
    ),
    ("nn.l2_normalize", (T(2, 3),), L2NormalizeAttrs(eps=0.1, axis=()), r"axis=\[\] names no axis"),
    ("nn.lrn", (T(2, 3, 4),), LRNAttrs(), "expected 4-D data, found rank 3"),
    ("nn.lrn", (T(2, 3, 4, 4),), LRNAttrs(axis=2), "axis=2 is not supported"),
    ("nn.lrn", (T(2, 3, 4, 4),), LRNAttrs(size=4), "size=4 must be an odd positive number"),
]


def test_batch_norm_relation() -> None:
    bn = "nn.batch_norm"
    v = T(3)
    assert rel(bn, T(2, 3, 4), v, v, v, v, attrs=BatchNormAttrs()) == TupleType((T(2, 3, 4), v, v))
    last = BatchNormAttrs(axis=-1)
    assert rel(bn, T(n, 4, 4, 3), v, v, v, v, attrs=last) == TupleType((T(n, 4, 4, 3), v, v))
    c = dim_symbol("c")
    vc = T(c)
    assert rel(bn, T(n, c), vc, vc, vc, vc, attrs=BatchNormAttrs()) == TupleType((T(n, c), vc, vc))
    f16 = T(3, dtype="float16")
    data = T(2, 3, dtype="float16")
    expected = TupleType((data, f16, f16))
    assert rel(bn, data, f16, f16, f16, f16, attrs=BatchNormAttrs()) == expected


def test_dropout_relation() -> None:
    t = T(n, 3, dtype="float16")
    assert rel("nn.dropout", t, attrs=DropoutAttrs()) == TupleType((t, t))
    assert rel("nn.dropout", T(), attrs=DropoutAttrs(rate=0.1)) == TupleType((T(), T()))


@pytest.mark.parametrize(("name", "types", "attrs", "message"), of_family(REJECTED, "nn/norm"))
def test_relation_rejects(
    name: str, types: tuple[Type, ...], attrs: Attrs | None, message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        rel(name, *types, attrs=attrs)


def test_batch_norm_matches_onnxruntime() -> None:
    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((2, 3, 4, 5)).astype(np.float32)
    gamma, beta, mean = (rng.standard_normal(3).astype(np.float32) for _ in range(3))
    var = rng.uniform(0.5, 2.0, 3).astype(np.float32)
    out, m, v = ref("nn.batch_norm", x, gamma, beta, mean, var, attrs=BatchNormAttrs(epsilon=1e-3))
    expected = run_onnx_node("BatchNormalization", [x, gamma, beta, mean, var], epsilon=1e-3)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(m, mean)
    np.testing.assert_array_equal(v, var)
    # axis -1, no scale and no centre: (x - mean) / sqrt(var + eps) only
    xl = x.transpose(0, 2, 3, 1)
    out, _, _ = ref(
        "nn.batch_norm",
        xl,
        gamma,
        beta,
        mean,
        var,
        attrs=BatchNormAttrs(axis=-1, center=False, scale=False),
    )
    np.testing.assert_allclose(out, (xl - mean) / np.sqrt(var + 1e-5), rtol=1e-6)
    out, _, _ = ref(
        "nn.batch_norm", xl, gamma, beta, mean, var, attrs=BatchNormAttrs(axis=3, center=False)
    )
    np.testing.assert_allclose(out, (xl - mean) / np.sqrt(var + 1e-5) * gamma, rtol=1e-6)
    ints = np.ones(3, np.int32)
    with pytest.raises(UndefinedBehavior, match="int32 data"):
        ref(
            "nn.batch_norm",
            np.ones((2, 3), np.int32),
            ints,
            ints,
            ints,
            ints,
            attrs=BatchNormAttrs(),
        )


def test_dropout_is_identity_with_a_mask_of_ones() -> None:
    x = np.array([[1.5, -2.0], [np.nan, 0.0]], np.float32)
    out, mask = ref("nn.dropout", x, attrs=DropoutAttrs(rate=0.9))
    np.testing.assert_array_equal(out, x)
    assert mask.dtype == np.float32 and mask.tolist() == [[1, 1], [1, 1]]
    out, mask = ref("nn.dropout", np.array([3, 4], np.int8), attrs=DropoutAttrs())
    assert out.tolist() == [3, 4] and mask.tolist() == [1, 1] and mask.dtype == np.int8


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_dropout_matches_onnxruntime(dtype: str) -> None:
    """ONNX Dropout without training_mode is inference: the output is the data and the mask
    all true; nn.dropout's mask holds ones of the data's dtype."""
    from relay.oracles.onnx_peer import onnx_run as peer_run

    rng = np.random.default_rng(RNG_SEED)
    x = rng.standard_normal((3, 4, 2)).astype(dtype)
    for rate in (0.5, 0.1):
        out, mask = ref("nn.dropout", x, attrs=DropoutAttrs(rate=rate))
        expected = peer_run(
            "Dropout", [x, np.array(rate, dtype)], outputs=2, out_dtype=[dtype, "bool"]
        )
        assert isinstance(expected, tuple)
        expected_out, expected_mask = expected
        assert out.dtype == expected_out.dtype and mask.dtype == x.dtype
        np.testing.assert_array_equal(out, expected_out)
        np.testing.assert_array_equal(mask.astype(bool), expected_mask)
        np.testing.assert_array_equal(mask, np.ones_like(x))


@settings(max_examples=40)
@given(SEEDS, st.sampled_from(ALL), shapes, st.booleans(), st.booleans(), st.data())
def test_batch_norm_reference_agrees_with_relation(
    seed: int, dtype: str, shape: tuple[int, ...], center: bool, scale: bool, data: st.DataObject
) -> None:
    rng = np.random.default_rng(seed)
    axis = data.draw(st.integers(-1, len(shape) - 1))
    x = random(rng, shape, dtype)
    gamma, beta, mean = (random(rng, (shape[axis],), dtype) for _ in range(3))
    var = np.abs(random(rng, (shape[axis],), dtype))
    attrs = BatchNormAttrs(
        axis=axis, center=center, scale=scale, epsilon=data.draw(st.sampled_from([1e-5, 0.1]))
    )
    args = (x, gamma, beta, mean, var)
    assert_agrees("nn.batch_norm", args, attrs, defined=dtype in FLOATS)


def test_records() -> None:
    for name, (relation_name, pattern) in GROUP.items():
        op = OPS[name]
        assert op.relation_name == relation_name and op.pattern is pattern
        assert op.family == "image" if name.startswith("image.") else op.family.startswith("nn/")
        assert op.check.startswith(("onnxruntime:", "independent:"))
        assert op.attrs_type is None or op.attrs_type.type_key.endswith(op.attrs_type.__name__)
    assert OPS["nn.cross_entropy"].inputs == ("x", "y")
    assert OPS["nn.nll_loss"].inputs == ("predictions", "targets", "weights")


def test_normalisation_relations() -> None:
    v3 = T(3)
    assert rel("nn.layer_norm", T(n, 4, 3), v3, v3, attrs=LayerNormAttrs()) == T(n, 4, 3)
    vh = T(h)
    assert rel("nn.layer_norm", T(2, h), vh, vh, attrs=LayerNormAttrs(axis=1)) == T(2, h)
    gn = GroupNormAttrs(num_groups=3)
    assert rel("nn.group_norm", T(n, 3, ANY), v3, v3, attrs=gn) == T(n, 3, ANY)
    six = T(6, dtype="float16")
    data = T(1, 6, 2, 2, dtype="float16")
    assert rel("nn.group_norm", data, six, six, attrs=GroupNormAttrs(num_groups=2)) == data
    inorm = InstanceNormAttrs(axis=-1)
    assert rel("nn.instance_norm", T(2, 5, 3), v3, v3, attrs=inorm) == T(2, 5, 3)
    l2 = L2NormalizeAttrs(eps=1e-6, axis=(1, -1))
    assert rel("nn.l2_normalize", T(n, 3, 4), attrs=l2) == T(n, 3, 4)
    assert rel("nn.lrn", T(n, 4, 4, 3), attrs=LRNAttrs(axis=3, size=3)) == T(n, 4, 4, 3)
    assert rel("nn.fast_softmax", T(2, n), attrs=SoftmaxAttrs(axis=0)) == T(2, n)


def test_layer_norm_by_hand() -> None:
    x = np.array([[1.0, 3.0], [2.0, 2.0]], "float32")
    out = ref_checked(
        "nn.layer_norm",
        x,
        np.array([2.0, 1.0], "float32"),
        np.array([0.0, 10.0], "float32"),
        attrs=LayerNormAttrs(epsilon=0.0),
    )
    # row 0: mean 2, variance 1 -> (-1, 1) * (2, 1) + (0, 10); row 1: 0/0 = NaN
    np.testing.assert_allclose(out[0], [-2.0, 11.0])
    assert np.isnan(out[1]).all()


def test_l2_normalize_and_cross_entropy_by_hand() -> None:
    x = np.array([[3.0, 4.0], [0.0, 0.0]], "float32")
    out = ref_checked("nn.l2_normalize", x, attrs=L2NormalizeAttrs(eps=4.0, axis=(1,)))
    np.testing.assert_allclose(out, [[0.6, 0.8], [0.0, 0.0]])
    p = np.array([[0.5, 0.25], [1.0, 1.0]], "float32")
    y = np.array([[1.0, 2.0], [3.0, 0.0]], "float32")
    # -(log .5 + 2 log .25 + 0) / 2 = (5 log 2) / 2
    np.testing.assert_allclose(ref_checked("nn.cross_entropy", p, y), 2.5 * math.log(2), rtol=1e-6)


def test_float_only_ops_are_undefined_on_integers() -> None:
    i = np.ones((1, 3, 2, 2), "int32")
    v = np.ones(3, "int32")
    with pytest.raises(UndefinedBehavior, match="int32 data"):
        ref_checked("nn.layer_norm", i, v, v, attrs=LayerNormAttrs(axis=1))
    with pytest.raises(UndefinedBehavior):
        ref_checked("nn.lrn", i, attrs=LRNAttrs())
    with pytest.raises(UndefinedBehavior):
        ref_checked("nn.fast_softmax", i, attrs=SoftmaxAttrs())


@pytest.mark.parametrize("seed", SEED_RANGE)
def test_layer_norm_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 2, 3, 4)
    for axis in (0, 1, -1):
        c = x.shape[axis]
        g, b = normal(rng, c), normal(rng, c)
        ours = ref_checked("nn.layer_norm", x, g, b, attrs=LayerNormAttrs(axis=axis, epsilon=1e-3))
        moved = np.ascontiguousarray(np.moveaxis(x, axis, -1))
        theirs = onnx_run("LayerNormalization", [moved, g, b], axis=-1, epsilon=1e-3)
        np.testing.assert_allclose(ours, np.moveaxis(theirs, -1, axis), rtol=1e-5, atol=1e-5)
    g, b = normal(rng, 3), normal(rng, 3)  # ignored without center and scale
    plain = ref_checked(
        "nn.layer_norm", x, g, b, attrs=LayerNormAttrs(axis=1, center=False, scale=False)
    )
    ones, zeros = np.ones(3, "float32"), np.zeros(3, "float32")
    expect = onnx_run("LayerNormalization", [np.moveaxis(x, 1, -1).copy(), ones, zeros], axis=-1)
    np.testing.assert_allclose(plain, np.moveaxis(expect, -1, 1), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("seed", SEED_RANGE)
def test_group_and_instance_norm_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 2, 6, 3, 2)
    g, b = normal(rng, 6), normal(rng, 6)
    for groups in (1, 2, 3, 6):
        ours = ref_checked("nn.group_norm", x, g, b, attrs=GroupNormAttrs(num_groups=groups))
        theirs = onnx_run("GroupNormalization", [x, g, b], opset=21, num_groups=groups)
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)
    ours = ref_checked("nn.instance_norm", x, g, b, attrs=InstanceNormAttrs(epsilon=1e-3))
    theirs = onnx_run("InstanceNormalization", [x, g, b], epsilon=1e-3)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)
    # NHWC: the channel axis last, compared through a transpose
    nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
    ours = ref_checked(
        "nn.instance_norm", nhwc, g, b, attrs=InstanceNormAttrs(axis=3, epsilon=1e-3)
    )
    np.testing.assert_allclose(ours.transpose(0, 3, 1, 2), theirs, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("seed", SEED_RANGE)
def test_l2_normalize_vs_onnxruntime_and_loops(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 3, 4, 2)
    for axis in (0, 1, 2):
        ours = ref_checked("nn.l2_normalize", x, attrs=L2NormalizeAttrs(eps=1e-12, axis=(axis,)))
        theirs = onnx_run("LpNormalization", [x], axis=axis, p=2)
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    # several axes and a large eps: a direct loop over the kept axis
    ours = ref_checked("nn.l2_normalize", x, attrs=L2NormalizeAttrs(eps=5.0, axis=(0, 2)))
    for j in range(4):
        total = sum(float(x[i, j, k]) ** 2 for i in range(3) for k in range(2))
        np.testing.assert_allclose(ours[:, j], x[:, j] / math.sqrt(max(total, 5.0)), rtol=1e-5)


@pytest.mark.parametrize("seed", SEED_RANGE)
def test_lrn_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = normal(rng, 2, 5, 3, 2)
    for size, alpha, beta, bias in ((5, 1e-4, 0.75, 2.0), (3, 0.5, 0.5, 1.0), (1, 2.0, 1.0, 0.5)):
        a = LRNAttrs(size=size, alpha=alpha, beta=beta, bias=bias)
        theirs = onnx_run("LRN", [x], size=size, alpha=alpha, beta=beta, bias=bias)
        np.testing.assert_allclose(ref_checked("nn.lrn", x, attrs=a), theirs, rtol=1e-5, atol=1e-6)
        nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1))
        a3 = LRNAttrs(size=size, axis=3, alpha=alpha, beta=beta, bias=bias)
        out = ref_checked("nn.lrn", nhwc, attrs=a3).transpose(0, 3, 1, 2)
        np.testing.assert_allclose(out, theirs, rtol=1e-5, atol=1e-6)
