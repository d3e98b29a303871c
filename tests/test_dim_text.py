"""Symbolic dimensions in the text format: every dimension prints and reads back exactly.

Dimensions are drawn from the dimension grammar (``+ - *``, ``floordiv``, ``floormod``,
integers, names, parentheses, nested), and combined the way type inference combines them
(``semantics/ops/shapes.py`` expands sums and products, so powers and negative coefficients
appear). Each must print, and the printed text must parse to the same sympy expression
(structural equality, not just mathematical).
"""

import pytest
import sympy
from hypothesis import given
from hypothesis import strategies as st

import relay
from relay.semantics.ops.shapes import add_dims, floordiv_dims, mul_dims, sub_dims
from relay.semantics.syntax import Dim, TensorType, dim_symbol
from relay.semantics.text.printer import format_dim, format_type
from relay.semantics.typing import infer_types


def parse_dim(text: str) -> Dim:
    """The one dimension of ``def @main(%x: Tensor[(TEXT), int32]) { %x }``."""
    mod = relay.parse(f"def @main(%x: Tensor[({text}), int32]) {{ %x }}")
    (fn,) = mod.functions.values()
    annotation = fn.params[0].type_annotation
    assert isinstance(annotation, TensorType)
    (dim,) = annotation.shape
    return dim


def roundtrips(d: Dim, *, exactly: bool = True) -> None:
    """``d`` prints, reads back (structurally equal, or with ``exactly=False`` equal once both
    are expanded), and the reprint is the same text."""
    text = format_dim(d)
    again = parse_dim(text)
    if exactly:
        assert again == d, (text, d, again)
    else:
        assert sympy.expand(sympy.Integer(0) + again - d) == 0, (text, d, again)
    assert format_dim(again) == text


dim_atom = st.one_of(
    st.integers(0, 7).map(str),
    st.sampled_from(["n", "m", "k", "batch_size"]),
)


def _binary(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.one_of(
        st.tuples(children, st.sampled_from([" + ", " - ", "*"]), children).map(
            lambda t: f"({t[0]}{t[1]}{t[2]})"
        ),
        st.tuples(st.sampled_from(["floordiv", "floormod"]), children, children).map(
            lambda t: f"{t[0]}({t[1]}, {t[2]})"
        ),
    )


dim_text = st.recursive(dim_atom, _binary, max_leaves=12)


@given(dim_text)
def test_every_dimension_of_the_grammar_prints_and_reads_back(text: str) -> None:
    try:
        d = parse_dim(text)
    except relay.ParseError as err:
        # Only two reasons a grammatical dimension is rejected.
        assert "by zero" in err.message or "negative" in err.message, err.message
        return
    roundtrips(d)


@given(st.lists(st.tuples(st.sampled_from(["+", "-", "*", "//"]), dim_text), max_size=4),
       dim_text)  # fmt: skip
def test_dimensions_built_by_inference_print_and_read_back(
    steps: list[tuple[str, str]], first: str
) -> None:
    try:
        d = parse_dim(first)
        for op, text in steps:
            other = parse_dim(text)
            if op == "//" and (other == 0 or (isinstance(other, sympy.Expr) and other.is_zero)):
                continue
            d = {"+": add_dims, "-": sub_dims, "*": mul_dims, "//": floordiv_dims}[op](d, other)
    except relay.ParseError:
        return
    if isinstance(d, int) and d < 0:
        return
    if isinstance(d, sympy.Expr) and d.is_Integer and d < 0:
        return
    # Inference expands sums inside floors (floor(n/m + 1/m)); the parser keeps the quotient
    # it read (floor((n + 1)/m)): the same dimension, and the same text once printed.
    roundtrips(d, exactly=False)


@pytest.mark.parametrize(
    ("dim", "text"),
    [
        (dim_symbol("n") ** 2, "n*n"),
        (dim_symbol("n") ** 2 * 3, "3*n*n"),
        (-dim_symbol("n") + 4, "4 - n"),
        (-2 * dim_symbol("n"), "(-2)*n"),
        ((dim_symbol("n") + 1) ** 2, "(n + 1)*(n + 1)"),
        (sympy.floor(dim_symbol("n") / 2), "floordiv(n, 2)"),
        (sympy.floor(-dim_symbol("n") / 2), "floordiv((-1)*n, 2)"),
        (sympy.Mod(dim_symbol("n"), dim_symbol("m") + 1), "floormod(n, m + 1)"),
    ],
)
def test_products_powers_and_signs_print(dim: Dim, text: str) -> None:
    assert format_dim(dim) == text
    roundtrips(dim)


@pytest.mark.parametrize(
    ("program", "result"),
    [
        (
            "def @main(%p0: Tensor[(?, 1, n + 1, n), int64]) { nn.batch_flatten(%p0) }",
            "Tensor[(?, n + n*n), int64]",
        ),
        ("def @main(%p0: Tensor[(m*m, 2), int64]) { %p0 }", "Tensor[(m*m, 2), int64]"),
        (
            "def @main(%x: Tensor[(n, n), float32]) { reshape(%x, newshape=[-1]) }",
            "Tensor[(n*n), float32]",
        ),
    ],
)
def test_inferred_products_of_symbols_print(program: str, result: str) -> None:
    mod = relay.parse(program)
    info = infer_types(mod)
    (t,) = info.globals.values()
    assert format_type(t).endswith("-> " + result)
    printed = relay.astext(mod, types=True)
    assert relay.astext(relay.parse(printed)) == relay.astext(mod)


@pytest.mark.parametrize(
    "dim",
    [
        "floormod(k, n * floordiv(0, 2))",
        "floordiv(n, 0)",
        "floormod(n, 0)",
        "floordiv(n, n - n)",
        "floordiv(n, floormod(m, 1))",
    ],
)
def test_division_by_zero_in_a_dimension_is_a_parse_error_at_its_span(dim: str) -> None:
    source = f"def @main(%x: Tensor[({dim}), int32]) {{ %x }}"
    with pytest.raises(relay.ParseError, match="by zero in a dimension") as info:
        relay.parse(source)
    span = info.value.span
    assert span is not None
    assert source[span.column - 1 :].startswith(("floordiv(", "floormod("))
