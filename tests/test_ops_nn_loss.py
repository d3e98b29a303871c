"""The ``nn/loss`` operators (``semantics/ops/nn/loss.py``): relations, references, checks."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from ops_helpers import Array, T, n, of_family, rel
from ops_nn_helpers import normal

from relay.oracles.onnx_peer import onnx_run
from relay.semantics.errors import UndefinedBehavior
from relay.semantics.ops import lookup
from relay.semantics.ops.nn.loss import NLLLossAttrs
from relay.semantics.ops.registry import Attrs, RelationError
from relay.semantics.syntax import ANY, Type


def ref(name: str, *args: Array, attrs: Attrs | None = None) -> Array:
    op = lookup(name)
    assert op is not None and op.reference is not None
    out = op.reference(args, attrs)
    assert isinstance(out, np.ndarray)
    # The reference's type is the one the relation predicts.
    predicted = rel(name, *(T(*a.shape, dtype=str(a.dtype)) for a in args), attrs=attrs)
    assert predicted == T(*out.shape, dtype=str(out.dtype)), (predicted, out.shape, out.dtype)
    return out


REJECTED: list[tuple[str, tuple[Type, ...], Attrs | None, str]] = [
    ("nn.cross_entropy", (T(2, 3), T(2, 4)), None, "shapes of x and y are inconsistent"),
    ("nn.cross_entropy", (T(2, 3, 1), T(2, 3, 1)), None, "expected 2-D x and y"),
    ("nn.cross_entropy", (T(2, 3), T(2, 3, dtype="float64")), None, "one dtype"),
    (
        "nn.nll_loss",
        (T(2, 5), T(2, 1, dtype="int32"), T(5)),
        NLLLossAttrs(ignore_index=-1),
        "one dimension larger",
    ),
    (
        "nn.nll_loss",
        (T(2, 5), T(3, dtype="int32"), T(5)),
        NLLLossAttrs(ignore_index=-1),
        r"targets \(3,\) do not match",
    ),
    (
        "nn.nll_loss",
        (T(2, 5), T(2, dtype="int32"), T(4)),
        NLLLossAttrs(ignore_index=-1),
        "length of weights",
    ),
    (
        "nn.nll_loss",
        (T(2, 5), T(2, dtype="int32"), T(5, 1)),
        NLLLossAttrs(ignore_index=-1),
        "1-D tensor",
    ),
    (
        "nn.nll_loss",
        (T(2, 5), T(2, dtype="int32"), T(5, dtype="float64")),
        NLLLossAttrs(ignore_index=-1),
        "same float dtype",
    ),
    (
        "nn.nll_loss",
        (T(2, 5, dtype="int32"), T(2, dtype="int32"), T(5, dtype="int32")),
        NLLLossAttrs(ignore_index=-1),
        "same float dtype",
    ),
    (
        "nn.nll_loss",
        (T(2, 5), T(2, dtype="uint8"), T(5)),
        NLLLossAttrs(ignore_index=-1),
        "signed integer dtype, found uint8",
    ),
    (
        "nn.nll_loss",
        (T(2, 5), T(2, dtype="int32"), T(5)),
        NLLLossAttrs(reduction="avg", ignore_index=-1),
        'found "avg"',
    ),
]


SEEDS = range(3)


def test_loss_relations() -> None:
    assert rel("nn.cross_entropy", T(n, 5), T(n, 5)) == T()
    assert rel("nn.cross_entropy", T(2, 5, dtype="float64"), T(ANY, 5, dtype="float64")) == T(
        dtype="float64"
    )
    w = T(5)
    i64 = {"dtype": "int64"}
    for reduction in ("mean", "sum"):
        attrs = NLLLossAttrs(reduction=reduction, ignore_index=-100)
        assert rel("nn.nll_loss", T(n, 5, 3), T(n, 3, **i64), w, attrs=attrs) == T()
    none = NLLLossAttrs(reduction="none", ignore_index=0)
    assert rel("nn.nll_loss", T(n, 5, 3), T(n, 3, dtype="int8"), w, attrs=none) == T(n, 3)
    assert rel("nn.nll_loss", T(5), T(dtype="int32"), w, attrs=none) == T()


@pytest.mark.parametrize(("name", "types", "attrs", "message"), of_family(REJECTED, "nn/loss"))
def test_relation_rejects(
    name: str, types: tuple[Type, ...], attrs: Attrs | None, message: str
) -> None:
    with pytest.raises(RelationError, match=message):
        rel(name, *types, attrs=attrs)


def test_nll_loss_by_hand_and_undefined_targets() -> None:
    p = np.array([[-1.0, -2.0, -3.0], [-4.0, -5.0, -6.0]], "float32")
    w = np.array([1.0, 2.0, 3.0], "float32")
    t = np.array([2, 1], "int32")
    mean = NLLLossAttrs(ignore_index=-100)
    np.testing.assert_allclose(ref("nn.nll_loss", p, t, w, attrs=mean), (9 + 10) / 5)
    ignore = NLLLossAttrs(reduction="none", ignore_index=1)
    np.testing.assert_allclose(ref("nn.nll_loss", p, t, w, attrs=ignore), [9.0, 0.0])
    all_ignored = NLLLossAttrs(ignore_index=1)
    assert np.isnan(ref("nn.nll_loss", p, np.array([1, 1], "int32"), w, attrs=all_ignored))
    with pytest.raises(UndefinedBehavior, match="outside"):
        ref("nn.nll_loss", p, np.array([3, 0], "int32"), w, attrs=mean)


@pytest.mark.parametrize("seed", SEEDS)
def test_cross_entropy_vs_loops(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for dtype in ("float32", "float64"):
        p = rng.uniform(0.05, 1.0, (3, 4)).astype(dtype)
        y = normal(rng, 3, 4, dtype=dtype)
        total = 0.0
        for i, j in itertools.product(range(3), range(4)):
            total -= math.log(float(p[i, j])) * float(y[i, j])
        np.testing.assert_allclose(ref("nn.cross_entropy", p, y), total / 3, rtol=1e-5)


@pytest.mark.parametrize("seed", SEEDS)
def test_nll_loss_vs_onnxruntime(seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = normal(rng, 3, 4, 2)
    w = rng.uniform(0.5, 2.0, 4).astype("float32")
    t = rng.integers(0, 4, (3, 2)).astype("int64")
    for reduction, ignore in itertools.product(("none", "mean", "sum"), (-100, 1)):
        ours = ref(
            "nn.nll_loss", p, t, w, attrs=NLLLossAttrs(reduction=reduction, ignore_index=ignore)
        )
        theirs = onnx_run(
            "NegativeLogLikelihoodLoss", [p, t, w], reduction=reduction, ignore_index=ignore
        )
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
    # the rank-1 form TOPI special-cases: one sample without a batch axis
    vec = p[:, 0, 0]
    for target in range(3):
        out = ref(
            "nn.nll_loss",
            vec,
            np.array(target, "int32"),
            w[:3],
            attrs=NLLLossAttrs(reduction="sum", ignore_index=-1),
        )
        np.testing.assert_allclose(out, -vec[target] * w[target], rtol=1e-6)
