"""Printing never writes text whose parse differs from the module: names are checked.

Variable names are only hints (binders compare by position), so the printer rewrites a hint
that is not an identifier; every other name it writes (globals, types, type parameters,
constructors, symbolic dimensions, attribute keys) means itself, so the printer refuses
(``ValueError``) one that would not read back as itself. Names read from a ``#[metadata]``
section are checked by the reader, so ``relay fmt`` of any parsed program prints.
"""

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import relay
from relay.semantics import syntax as s
from relay.semantics.equality import alpha_equal
from relay.semantics.syntax import dim_symbol

EVIL = "1), float32]) { %x }\ndef @evil(%x: Tensor[(1"


def _metadata_with_var(name: str) -> str:
    return json.dumps(
        {
            "root": 1,
            "nodes": [
                {"type_key": ""},
                {"type_key": "Map", "keys": ["tir.Var"], "data": [2]},
                {"type_key": "Array", "data": [3]},
                {"type_key": "tir.Var", "attrs": {"dtype": "int64", "name_hint": "4"}},
                {"type_key": "runtime.String", "repr_str": name},
            ],
            "b64ndarrays": [],
        }
    )


def test_a_metadata_name_cannot_inject_a_definition() -> None:
    text = (
        "def @main(%x: Tensor[(meta[tir.Var][0]), float32]) { %x }\n#[metadata]\n"
        + _metadata_with_var(EVIL)
    )
    with pytest.raises(relay.ParseError, match="is not an identifier"):
        relay.parse(text)


def test_a_metadata_shape_variable_with_an_ordinary_name_prints_as_its_name() -> None:
    text = (
        "def @main(%x: Tensor[(meta[tir.Var][0], 2), float32]) { %x }\n#[metadata]\n"
        + _metadata_with_var("batch")
    )
    printed = relay.astext(relay.parse(text))
    assert "def @main(%x: Tensor[(batch, 2), float32])" in printed
    assert alpha_equal(relay.parse(printed), relay.parse(text))


def _tensor(dim: s.Dim = 2) -> s.TensorType:
    return s.TensorType((dim,), "float32")


def _reprints(mod: s.IRModule) -> str:
    """The module's text, which must parse to an alpha-equal module and print the same."""
    printed = relay.astext(mod)
    again = relay.parse(printed)
    assert alpha_equal(mod, again), printed
    assert relay.astext(again) == printed
    assert [gv.name for gv in again.functions] == [gv.name for gv in mod.functions]
    return printed


names = st.text(max_size=12)


@given(st.lists(names, min_size=1, max_size=4), names)
def test_any_variable_names_print_and_read_back(params: list[str], let_name: str) -> None:
    xs = [s.Var(name, _tensor()) for name in params]
    y = s.Var(let_name, None)
    body: s.Expr = s.Let(y, s.Tuple(tuple(xs)), s.TupleGetItem(y, 0))
    mod = s.IRModule({s.GlobalVar("main"): s.Function(tuple(xs), body)}, {})
    _reprints(mod)


def _either_refused_or_reprinted(mod: s.IRModule) -> None:
    try:
        relay.astext(mod)
    except ValueError as err:
        assert "cannot print" in str(err)
        return
    _reprints(mod)


@given(names)
def test_any_global_name_is_refused_or_reads_back(name: str) -> None:
    x = s.Var("x", _tensor())
    _either_refused_or_reprinted(s.IRModule({s.GlobalVar(name): s.Function((x,), x)}, {}))


@given(names)
def test_any_dimension_name_is_refused_or_reads_back(name: str) -> None:
    x = s.Var("x", _tensor(dim_symbol(name)))
    _either_refused_or_reprinted(s.IRModule({s.GlobalVar("main"): s.Function((x,), x)}, {}))


@given(names, names, names)
def test_any_type_names_are_refused_or_read_back(type_: str, ctor: str, param: str) -> None:
    header = s.GlobalTypeVar(type_)
    a = s.TypeVar(param)
    constructor = s.Constructor(ctor, (a,), header, 0)
    data = s.TypeData(header, (a,), (constructor,))
    x = s.Var("x", s.TypeCall(header, (_tensor(),)))
    fn = s.Function((x,), s.Call(constructor, (s.Constant(np.array(1.0, "float32")),), None))
    _either_refused_or_reprinted(s.IRModule({s.GlobalVar("main"): fn}, {header: data}))


@given(names, st.text(max_size=20))
def test_any_attribute_key_is_refused_and_any_string_value_reads_back(key: str, value: str) -> None:
    x = s.Var("x", _tensor())
    fn = s.Function((x,), x, None, (), ((key, value),))
    _either_refused_or_reprinted(s.IRModule({s.GlobalVar("main"): fn}, {}))
    ok = s.Function((x,), x, None, (), (("Composite", value),))
    _reprints(s.IRModule({s.GlobalVar("main"): ok}, {}))


@pytest.mark.parametrize("name", ["main", "f/g", "let", "True", "int32"])
def test_global_names_after_at_may_be_keywords(name: str) -> None:
    x = s.Var("x", _tensor())
    assert f"def @{name}(" in _reprints(s.IRModule({s.GlobalVar(name): s.Function((x,), x)}, {}))


@pytest.mark.parametrize("name", [EVIL, "", "a b", "1x", "x/"])
def test_a_global_name_that_is_not_an_identifier_is_refused(name: str) -> None:
    x = s.Var("x", _tensor())
    with pytest.raises(ValueError, match="cannot print the global name"):
        relay.astext(s.IRModule({s.GlobalVar(name): s.Function((x,), x)}, {}))
