"""The Z3 tables: every op has an encoding and a sampler; hand-checked encodings; and the
validator catches relations that are wrong in each of the ways it checks."""

from __future__ import annotations

import dataclasses

import pytest
import z3

from relay.oracles.samplers import SAMPLERS, missing_samplers
from relay.oracles.validate import validate, validate_call
from relay.oracles.z3 import (
    Z3_ENCODINGS,
    Encoded,
    TensorArg,
    TupleArg,
    const_value,
    missing_encodings,
)
from relay.semantics.ops import OPS
from relay.semantics.ops.index import TakeAttrs
from relay.semantics.ops.nn.conv import Conv2DAttrs
from relay.semantics.ops.registry import Attrs, Relation, RelationError
from relay.semantics.ops.shape import ReshapeAttrs, StackAttrs
from relay.semantics.syntax import ANY, Dim, TensorType, Type, dim_symbol


def tensor(*shape: int, dtype: str = "float32") -> TensorArg:
    return TensorArg([z3.IntVal(d) for d in shape], dtype)


def encode(op: str, *args: TensorArg | TupleArg, attrs: Attrs | None = None) -> Encoded:
    return Z3_ENCODINGS[op](list(args), attrs)


def satisfiable(enc: Encoded) -> bool:
    """Whether some sizes make the call well-typed (never, if it is ill-typed outright)."""
    if enc.ill_typed is not None:
        return False
    solver = z3.Solver()
    solver.add(*enc.constraints)
    return bool(solver.check() == z3.sat)


def shapes(enc: Encoded) -> list[tuple[int | None, ...]]:
    assert enc.ill_typed is None, enc.ill_typed
    assert satisfiable(enc)
    return [tuple(const_value(d) for d in shape) for shape in enc.outputs]


# ---------------------------------------------------------------------------------------------
# Every op is in both tables


def test_every_registered_op_has_a_z3_encoding() -> None:
    assert missing_encodings() == []
    assert sorted(set(Z3_ENCODINGS) - set(OPS)) == []


def test_every_registered_op_has_a_sampler() -> None:
    assert missing_samplers() == []
    assert sorted(set(SAMPLERS) - set(OPS)) == []


# ---------------------------------------------------------------------------------------------
# Hand-checked encodings


def test_broadcast_from_the_right() -> None:
    assert shapes(encode("add", tensor(2, 3), tensor(3))) == [(2, 3)]
    assert shapes(encode("add", tensor(4, 1), tensor(1, 5))) == [(4, 5)]
    assert encode("less", tensor(2, 3), tensor(3)).dtypes == ["bool"]


def test_broadcast_rejects_clashing_sizes_and_dtypes() -> None:
    assert not satisfiable(encode("add", tensor(2, 3), tensor(4)))
    assert encode("add", tensor(3), tensor(3, dtype="int32")).ill_typed is not None


def test_conv2d_output_size_formula() -> None:
    attrs = Conv2DAttrs.from_kwargs({"strides": (2, 2), "padding": (1, 1)})
    # (7 + 2 - 3) // 2 + 1 = 4
    assert shapes(encode("nn.conv2d", tensor(1, 3, 7, 7), tensor(8, 3, 3, 3), attrs=attrs)) == [
        (1, 8, 4, 4)
    ]
    nhwc = Conv2DAttrs.from_kwargs(
        {
            "padding": (0, 1, 2, 1),
            "dilation": (2, 1),
            "data_layout": "NHWC",
            "kernel_layout": "HWIO",
        }
    )
    # H: (9 + 2 - 5) // 1 + 1 = 7; W: (6 + 2 - 3) // 1 + 1 = 6
    enc = encode("nn.conv2d", tensor(1, 9, 6, 4), tensor(3, 3, 4, 5), attrs=nhwc)
    assert shapes(enc) == [(1, 7, 6, 5)]


def test_conv2d_symbolic_height_floors() -> None:
    h = z3.Int("h")
    attrs = Conv2DAttrs.from_kwargs({"strides": (2, 2), "padding": (1, 1)})
    enc = encode("nn.conv2d", TensorArg([z3.IntVal(1), z3.IntVal(3), h, z3.IntVal(7)], "float32"),
                 tensor(8, 3, 3, 3), attrs=attrs)  # fmt: skip
    out_h = enc.outputs[0][2]
    assert const_value(z3.substitute(out_h, (h, z3.IntVal(10)))) == 5  # (10 + 2 - 3) // 2 + 1


def test_conv2d_checks_input_channels_against_groups() -> None:
    grouped = Conv2DAttrs.from_kwargs({"groups": 2})
    assert satisfiable(encode("nn.conv2d", tensor(1, 4, 5, 5), tensor(6, 2, 3, 3), attrs=grouped))
    assert not satisfiable(
        encode("nn.conv2d", tensor(1, 4, 5, 5), tensor(6, 4, 3, 3), attrs=grouped)
    )


def test_conv2d_depthwise_weight_with_a_multiplier() -> None:
    # TVM reads a (C, m, kh, kw) weight as depthwise when channels and kernel_size are given.
    attrs = Conv2DAttrs.from_kwargs({"groups": 3, "channels": 6, "kernel_size": (3, 3)})
    enc = encode("nn.conv2d", tensor(1, 3, 5, 5), tensor(3, 2, 3, 3), attrs=attrs)
    assert shapes(enc) == [(1, 6, 3, 3)]
    plain = Conv2DAttrs.from_kwargs({"groups": 3})
    assert not satisfiable(encode("nn.conv2d", tensor(1, 3, 5, 5), tensor(3, 2, 3, 3), attrs=plain))


def test_windows_must_fit_the_padded_input() -> None:
    plain = Conv2DAttrs.from_kwargs({})
    assert not satisfiable(encode("nn.conv2d", tensor(1, 3, 2, 5), tensor(4, 3, 3, 3), attrs=plain))
    padded = Conv2DAttrs.from_kwargs({"padding": (1, 0)})
    assert shapes(encode("nn.conv2d", tensor(1, 3, 2, 5), tensor(4, 3, 3, 3), attrs=padded)) == [
        (1, 4, 2, 3)
    ]


@pytest.mark.parametrize(
    ("newshape", "expected"),
    [
        # The examples of TVM's reshape documentation, on data of shape (2, 3, 4).
        ((4, 0, 2), (4, 3, 2)),
        ((2, 0, 0), (2, 3, 4)),
        ((6, 1, -1), (6, 1, 4)),
        ((3, -1, 8), (3, 1, 8)),
        ((-1,), (24,)),
        ((-2,), (2, 3, 4)),
        ((2, -2), (2, 3, 4)),
        ((-2, 1, 1), (2, 3, 4, 1, 1)),
        ((-3, 4), (6, 4)),
        ((0, -3), (2, 12)),
        ((-3, -2), (6, 4)),
        ((-4, 1, 2, -2), (1, 2, 3, 4)),
        ((2, -4, -1, 3, -2), (2, 1, 3, 4)),
    ],
)
def test_reshape_special_values(newshape: tuple[int, ...], expected: tuple[int, ...]) -> None:
    attrs = ReshapeAttrs.from_kwargs({"newshape": newshape})
    assert shapes(encode("reshape", tensor(2, 3, 4), attrs=attrs)) == [expected]


def test_reshape_rejects_bad_newshapes() -> None:
    def enc(newshape: tuple[int, ...]) -> Encoded:
        return encode(
            "reshape", tensor(2, 3, 4), attrs=ReshapeAttrs.from_kwargs({"newshape": newshape})
        )

    assert not satisfiable(enc((5, -1)))  # 24 is not a multiple of 5
    assert not satisfiable(enc((4, 5)))
    assert enc((-1, -1)).ill_typed is not None
    # TVM's quirk, kept: the -1 is filled in at its index in newshape (1), not its output
    # position (3), giving (2, 1, 4, 1).
    assert not satisfiable(enc((-2, -1)))


def test_stack_compares_sizes_except_at_the_stacking_position() -> None:
    attrs = StackAttrs.from_kwargs({"axis": 1})
    same = encode("stack", TupleArg([tensor(2, 3), tensor(2, 3)]), attrs=attrs)
    assert shapes(same) == [(2, 2, 3)]
    assert not satisfiable(encode("stack", TupleArg([tensor(2, 3), tensor(4, 3)]), attrs=attrs))
    # TVM's quirk, kept (the run-time result is undefined): input axis 1 is not compared.
    quirk = encode("stack", TupleArg([tensor(2, 3), tensor(2, 4)]), attrs=attrs)
    assert shapes(quirk) == [(2, 2, 3)]


def test_take_axis_bounds() -> None:
    take = TakeAttrs.from_kwargs({"axis": 1})
    assert shapes(encode("take", tensor(2, 3, 4), tensor(5, dtype="int32"), attrs=take)) == [
        (2, 5, 4)
    ]
    beyond = TakeAttrs.from_kwargs({"axis": 3})  # TVM accepts axis == ndim
    assert encode("take", tensor(2, 3, 4), tensor(5, dtype="int32"), attrs=beyond).ill_typed


# ---------------------------------------------------------------------------------------------
# The validator against deliberately wrong relations


def with_relation(
    monkeypatch: pytest.MonkeyPatch,
    op: str,
    relation: Relation | None,
) -> None:
    monkeypatch.setitem(OPS, op, dataclasses.replace(OPS[op], relation=relation))


def f32(*shape: Dim) -> TensorType:
    return TensorType(tuple(shape), "float32")


def test_validator_says_when_an_op_has_no_relation(monkeypatch: pytest.MonkeyPatch) -> None:
    with_relation(monkeypatch, "add", None)
    report = validate("add", [f32(2), f32(2)], None)
    assert report.skipped is not None and "no relation" in report.skipped
    assert validate_call("add", [f32(2), f32(2)], None) == [report.skipped]


def test_validator_accepts_a_correct_relation(monkeypatch: pytest.MonkeyPatch) -> None:
    def lhs_shape(args: tuple[Type, ...], attrs: Attrs | None) -> Type:
        return args[0]

    with_relation(monkeypatch, "add", lhs_shape)
    n = dim_symbol("n")
    assert validate_call("add", [f32(2, 3), f32(3)], None) == []
    assert validate_call("add", [f32(n, 3), f32(1, 3)], None) == []


def test_validator_catches_a_wrong_output(monkeypatch: pytest.MonkeyPatch) -> None:
    def lhs_shape(args: tuple[Type, ...], attrs: Attrs | None) -> Type:
        return args[0]

    with_relation(monkeypatch, "add", lhs_shape)
    problems = validate_call("add", [f32(1, 3), f32(2, 3)], None)
    assert problems and "constraints exclude" in problems[0]


def test_validator_catches_a_wrong_rejection(monkeypatch: pytest.MonkeyPatch) -> None:
    def reject(args: tuple[Type, ...], attrs: Attrs | None) -> Type:
        raise RelationError("no")

    with_relation(monkeypatch, "add", reject)
    problems = validate_call("add", [f32(2, 3), f32(3)], None)
    assert problems and "well-typed" in problems[0]
    assert validate_call("add", [f32(2, 3), f32(4)], None) == []


def test_validator_catches_a_wrong_acceptance(monkeypatch: pytest.MonkeyPatch) -> None:
    def anything(args: tuple[Type, ...], attrs: Attrs | None) -> Type:
        return f32(2, 3)

    with_relation(monkeypatch, "add", anything)
    problems = validate_call("add", [f32(2, 3), f32(4)], None)
    assert problems and "ill-typed" in problems[0]


def test_validator_catches_a_wrong_symbolic_output(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    n = dim_symbol("n")

    def keep_height(args: tuple[Type, ...], attrs: Attrs | None) -> Type:
        data = args[0]
        assert isinstance(data, TensorType)
        return f32(data.shape[0], 8, data.shape[2], 5)

    with_relation(monkeypatch, "nn.conv2d", keep_height)
    attrs = Conv2DAttrs.from_kwargs({})
    # (n - 3) // 1 + 1 = n - 2, which equals n for no n: the output is excluded outright.
    problems = validate_call("nn.conv2d", [f32(1, 3, n, 7), f32(8, 3, 3, 3)], attrs)
    assert problems


def test_validator_catches_a_crashing_relation(monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(args: tuple[Type, ...], attrs: Attrs | None) -> Type:
        raise IndexError("oops")

    with_relation(monkeypatch, "add", crash)
    problems = validate_call("add", [f32(2), f32(2)], None)
    assert problems and "IndexError" in problems[0]


def test_validator_checks_uniqueness(monkeypatch: pytest.MonkeyPatch) -> None:
    n = dim_symbol("n")

    def claim_three(args: tuple[Type, ...], attrs: Attrs | None) -> Type:
        return f32(3)

    # For (n) + (3) the output is 3 whenever the call is well-typed (n is 1 or 3); for
    # (n) + (1) it is n, so claiming 3 is right for n = 3 only.
    with_relation(monkeypatch, "add", claim_three)
    assert validate_call("add", [f32(n), f32(3)], None) == []
    problems = validate_call("add", [f32(n), f32(1)], None)
    assert problems and "not determined" in problems[0]


def test_validator_allows_conservative_symbolic_rejection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    n = dim_symbol("n")

    def reject(args: tuple[Type, ...], attrs: Attrs | None) -> Type:
        raise RelationError("cannot prove it")

    with_relation(monkeypatch, "add", reject)
    # (n) + (3) is well-typed only for n in {1, 3}: rejecting it is conservative, as TVM was.
    assert validate_call("add", [f32(n), f32(3)], None) == []
    # (n, 3) + (n, 3) is well-typed for every n: rejecting it is wrong.
    problems = validate_call("add", [f32(n, 3), f32(n, 3)], None)
    assert problems and "every value of n" in problems[0]
    # So is (n, ?) + (n, 3): whatever n is, some ? (3 or 1) makes it well-typed.
    problems = validate_call("add", [f32(n, ANY), f32(n, 3)], None)
    assert problems and "every value of n" in problems[0]
