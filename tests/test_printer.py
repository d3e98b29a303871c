"""The printer's canonical text, checked character for character."""

import numpy as np
import pytest

import relay
from relay.semantics import syntax as s
from relay.semantics.text.metadata import decode_ndarray
from relay.semantics.text.printer import format_float, scalar_literal

HEADER = '#[version = "0.0.5"]\n'


def fmt(text: str) -> str:
    return relay.astext(relay.parse(text))


def test_dataflow_gets_numbered_lines_and_atoms_stay_inline() -> None:
    text = "def @main(%x: float32) { %0 = add(%x, 1f); multiply(%0, exp(%0)) }"
    assert fmt(text) == HEADER + (
        "def @main(%x: float32) {\n  %0 = add(%x, 1f);\n  %1 = exp(%0);\n  multiply(%0, %1)\n}\n"
    )


def test_arguments_are_numbered_before_the_callee() -> None:
    text = "def @main() { (fn (%x: int32) { %x })((fn (%y: int32) { %y })(1)) }"
    assert fmt(text) == HEADER + (
        "def @main() {\n"
        "  %0 = fn (%y: int32) {\n"
        "    %y\n"
        "  };\n"
        "  %1 = %0(1);\n"
        "  %2 = fn (%x: int32) {\n"
        "    %x\n"
        "  };\n"
        "  %2(%1)\n"
        "}\n"
    )


def test_shared_node_is_placed_in_the_innermost_block_of_all_its_uses() -> None:
    text = (
        "def @main(%x: float32, %c: bool) {\n"
        "  %0 = add(%x, 1f); %1 = exp(%x);\n"
        "  if (%c) { multiply(%0, %1) } else { %0 }\n"
        "}"
    )
    assert fmt(text) == HEADER + (
        "def @main(%x: float32, %c: bool) {\n"
        "  %0 = add(%x, 1f);\n"
        "  if (%c) {\n"
        "    %1 = exp(%x);\n"
        "    multiply(%0, %1)\n"
        "  } else {\n"
        "    %0\n"
        "  }\n"
        "}\n"
    )


def test_numbering_restarts_in_each_definition() -> None:
    text = "def @f(%x: int32) { negative(abs(%x)) } def @g(%y: int32) { abs(abs(%y)) }"
    assert fmt(text) == HEADER + (
        "def @f(%x: int32) {\n  %0 = abs(%x);\n  negative(%0)\n}\n\n"
        "def @g(%y: int32) {\n  %0 = abs(%y);\n  abs(%0)\n}\n"
    )


def test_lets_keep_names_and_get_a_suffix_only_when_shadowing() -> None:
    text = "def @f(%x: int32) { let %x = %x + 1; let %y: int32 = %x; (%y, fn (%y) { %y }) }"
    assert fmt(text) == HEADER + (
        "def @f(%x: int32) {\n"
        "  let %x1 = add(%x, 1);\n"
        "  let %y: int32 = %x1;\n"
        "  %0 = fn (%y1) {\n"
        "    %y1\n"
        "  };\n"
        "  (%y, %0)\n"
        "}\n"
    )
    # Sibling scopes reuse a name freely.
    text = "def @f(%c: bool) { if (%c) { let %t = 1; %t } else { let %t = 2; %t } }"
    assert "let %t1" not in fmt(text)


def test_sequences_print_without_a_let() -> None:
    text = "def @f(%r: ref(int32)) { ref_write(%r, 1); ref_read(%r) }"
    assert fmt(text) == HEADER + (
        "def @f(%r: ref(int32)) {\n  ref_write(%r, 1);\n  ref_read(%r)\n}\n"
    )


def test_match_adt_and_attributes_layout() -> None:
    text = (
        "type List[A] { Cons(A, List[A]), Nil }\n"
        "def @f(%l: List[Tensor[(2, 3), float32]]) {\n"
        "  match? (%l) { Cons(%h, _) => sum(%h, axis=[1], exclude=False), }\n"
        "}"
    )
    assert fmt(text) == HEADER + (
        "type List[A] {\n  Cons(A, List[A]),\n  Nil,\n}\n\n"
        "def @f(%l: List[Tensor[(2, 3), float32]]) {\n"
        "  match? (%l) {\n"
        "    Cons(%h, _) => {\n"
        "      sum(%h, axis=[1])\n"
        "    },\n"
        "  }\n"
        "}\n"
    )


def test_attributes_print_non_defaults_in_declaration_order() -> None:
    text = "def @f(%x: Tensor[(1, 1, 4, 4), float32], %w: Tensor[(1, 1, 3, 3), float32]) {\n"
    text += '  nn.conv2d(%x, %w, kernel_size=[3, 3], padding=[1, 1], data_layout="NCHW")\n}'
    assert "nn.conv2d(%x, %w, padding=[1, 1], kernel_size=[3, 3])" in fmt(text)
    text = "def @f(%x: float32) { nn.leaky_relu(%x, alpha=0.1f) }"
    assert "nn.leaky_relu(%x, alpha=0.1f)" in fmt(text)
    assert "nn.leaky_relu(%x)" in fmt("def @f(%x: float32) { nn.leaky_relu(%x, alpha=0.25f) }")


@pytest.mark.parametrize(
    ("data", "text"),
    [
        (np.array(1.0, "float32"), "1f"),
        (np.array(0.1, "float32"), "0.1f"),
        (np.array(1.0000001, "float32"), "1.0000001f"),
        (np.array(1e10, "float32"), "1e+10f"),
        (np.array(1.5e-7, "float32"), "1.5e-07f"),
        (np.array(-0.0, "float32"), "-0f"),
        (np.array(np.inf, "float32"), "inff"),
        (np.array(-np.inf, "float64"), "-inff64"),
        (np.array(np.nan, "float16"), "nanf16"),
        (np.array(0.1, "float64"), "0.1f64"),
        (np.array(0.1, "float16"), "0.1f16"),
        (np.array(3, "int16"), "3i16"),
        (np.array(-3, "int32"), "-3"),
        (np.array(3, "int64"), "3i64"),
        (np.array(True), "True"),
    ],
)
def test_scalar_literals(data: np.ndarray, text: str) -> None:
    assert scalar_literal(data) == text
    back = relay.parse(text)["main"].body
    assert isinstance(back, s.Constant)
    assert back.data.dtype == data.dtype and back.data.tobytes() == data.tobytes()


def test_float_digits_are_the_shortest_that_read_back() -> None:
    rng = np.random.default_rng(0)
    for dtype, suffix in (("float16", "f16"), ("float32", "f"), ("float64", "f64")):
        scale = 10.0 ** rng.integers(-30, 30, size=200)
        with np.errstate(over="ignore"):  # large values overflow float16 to inf, which is fine
            values = (rng.standard_normal(200) * scale).astype(dtype)
        for value in values:
            text = format_float(value, suffix)
            parsed = relay.parse(text)["main"].body
            assert isinstance(parsed, s.Constant) and parsed.data.tobytes() == value.tobytes()


def test_other_constants_go_to_the_metadata_section() -> None:
    weights = np.arange(6, dtype="float32").reshape(2, 3)
    odd_nan = np.array(np.frombuffer(b"\x01\x00\xc0\xff", dtype="float32")[0])
    mod = s.IRModule(
        {
            s.GlobalVar("main"): s.Function(
                (),
                s.Tuple(
                    (
                        s.Constant(weights),
                        s.Constant(np.array(-3, "int8")),
                        s.Constant(np.array(7, "uint32")),
                        s.Constant(odd_nan),
                    )
                ),
            )
        }
    )
    text = relay.astext(mod)
    assert "(meta[relay.Constant][0], meta[relay.Constant][1], meta[relay.Constant][2], " in text
    assert "\n\n#[metadata]\n{\n" in text
    # The int8 scalar is the worked example of TVM's metadata format.
    assert '"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAAAAAAAIAQABAAAAAAAAAP0="' in text
    blobs = [
        line.strip().strip(",").strip().strip('"')
        for line in text.splitlines()
        if line.strip().startswith('"P6G0')
    ]
    assert [decode_ndarray(b).tobytes() for b in blobs] == [
        weights.tobytes(),
        b"\xfd",
        np.array(7, "uint32").tobytes(),
        odd_nan.tobytes(),
    ]
    again = relay.parse(text)["main"].body
    assert isinstance(again, s.Tuple)
    assert [f.data.tobytes() for f in again.fields if isinstance(f, s.Constant)] == [
        weights.tobytes(),
        b"\xfd",
        np.array(7, "uint32").tobytes(),
        odd_nan.tobytes(),
    ]


def test_types_and_definitions() -> None:
    text = (
        "type Box[A] { MkBox(A) }\nextern type Handle\ntype Unit\n"
        "def @f[A](%a: (A,), %b: fn [B](B) -> Box[B], %c: ref(Tensor[(n, ?, 2*n), int8]),"
        " %d: Tensor[(5,), bool], %h: Handle) -> () { () }"
    )
    assert fmt(text) == HEADER + (
        "type Box[A] {\n  MkBox(A),\n}\n\nextern type Handle\n\ntype Unit\n\n"
        "def @f[A](%a: (A,), %b: fn [B](B) -> Box[B], %c: ref(Tensor[(n, ?, 2*n), int8]), "
        "%d: Tensor[(5), bool], %h: Handle) -> () {\n  ()\n}\n"
    )


def test_str_of_a_module_is_its_text() -> None:
    mod = relay.parse("def @main() { 1 }")
    assert str(mod) == relay.astext(mod)


def test_printer_handles_names_it_must_sanitise() -> None:
    x = s.Var("1 bad-name")
    y = s.Var("")
    mod = s.IRModule({s.GlobalVar("main"): s.Function((x, y), s.Tuple((x, y)))})
    text = relay.astext(mod)
    assert "def @main(%v1_bad_name, %v) {" in text
    assert relay.astext(relay.parse(text)) == text
