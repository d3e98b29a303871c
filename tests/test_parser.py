"""The parser builds the right syntax tree for each form of the text format."""

import numpy as np
import pytest
import sympy

import relay
from relay.semantics import syntax as s
from relay.semantics.ops.elementwise import ClipAttrs
from relay.semantics.ops.reduce import ReduceAttrs


def body(text: str) -> s.Expr:
    """The body of ``@main`` of the parsed text."""
    return relay.parse(text)["main"].body


def call_tree(e: s.Expr) -> object:
    """A call tree as nested tuples of op names and literal values, for compact assertions."""
    match e:
        case s.Call(s.Op(name), args):
            return (name, *(call_tree(a) for a in args))
        case s.Constant(data):
            return data.item()
        case s.Var(name):
            return "%" + name
    raise AssertionError(e)


def test_header_is_optional_and_checked() -> None:
    assert call_tree(body('#[version = "0.0.5"]\nadd(1, 2)')) == ("add", 1, 2)
    assert call_tree(body("add(1, 2)")) == ("add", 1, 2)
    with pytest.raises(relay.ParseError, match="unsupported version"):
        relay.parse('#[version = "0.0.4"]\n1')


def test_comments_before_header_and_nested_block_comments() -> None:
    text = '// licence\n/* a /* nested */ comment */\n#[version = "0.0.5"]\n1 /* x */ // y'
    assert call_tree(body(text)) == 1


@pytest.mark.parametrize(
    ("text", "tree"),
    [
        ("1 * 1 + 1 < 1 == 1", ("equal", ("less", ("add", ("multiply", 1, 1), 1), 1), 1)),
        ("1 - 2 - 3", ("subtract", ("subtract", 1, 2), 3)),
        ("1 + 2 * 3", ("add", 1, ("multiply", 2, 3))),
        ("(1 + 2) * 3", ("multiply", ("add", 1, 2), 3)),
        ("8 / 4 / 2", ("divide", ("divide", 8, 4), 2)),
        ("1 <= 2 != 3 >= 4", ("not_equal", ("less_equal", 1, 2), ("greater_equal", 3, 4))),
        ("1+2", ("add", 1, 2)),
        ("%x-1", ("subtract", "%x", 1)),
        ("%x - -1", ("subtract", "%x", -1)),
    ],
)
def test_infix_precedence_and_associativity(text: str, tree: object) -> None:
    assert call_tree(body(text)) == tree


@pytest.mark.parametrize(
    ("text", "dtype", "value"),
    [
        ("1", "int32", 1),
        ("-05", "int32", -5),
        ("2147483648", "int64", 2147483648),
        ("5i64", "int64", 5),
        ("-3i16", "int16", -3),
        ("7i", "int32", 7),
        ("1f", "float32", 1.0),
        ("1.5f", "float32", 1.5),
        ("2f16", "float16", 2.0),
        ("1f64", "float64", 1.0),
        ("1e-1f", "float32", np.float32(0.1)),
        ("1E+1f", "float32", 10.0),
        ("-inff", "float32", -np.inf),
        ("inff64", "float64", np.inf),
        ("True", "bool", True),
        ("False", "bool", False),
        ("--10", "int32", 10),
    ],
)
def test_literals(text: str, dtype: str, value: object) -> None:
    e = body(text)
    assert isinstance(e, s.Constant)
    assert e.data.dtype == dtype
    assert e.data.shape == ()
    assert e.data.item() == value


def test_nan_literal() -> None:
    e = body("nanf")
    assert isinstance(e, s.Constant) and np.isnan(e.data) and e.data.dtype == "float32"


def test_let_sequence_scope_and_graph_bindings() -> None:
    e = body("let %x = 1; %0 = add(%x, %x); %1 = multiply(%0, %0); ref(%1); %1")
    assert isinstance(e, s.Let) and e.var.name_hint == "x"
    seq = e.body
    assert isinstance(seq, s.Let) and seq.var.name_hint == "_"
    assert isinstance(seq.value, s.RefCreate)
    # %1 is the very same node in both places, and %0 is shared by the multiply.
    assert seq.value.value is seq.body
    mul = seq.body
    assert isinstance(mul, s.Call) and mul.args[0] is mul.args[1]
    assert isinstance(mul.args[0], s.Call) and mul.args[0].args[0] is e.var


def test_let_shadowing_and_braced_scopes() -> None:
    e = relay.parse("def @f(%x: int32) { let %x = %x + 1; { let %y = %x; %y } }")["f"]
    let = e.body
    assert isinstance(let, s.Let)
    param = e.params[0]
    value = let.value
    assert isinstance(value, s.Call) and value.args[0] is param
    inner = let.body
    assert isinstance(inner, s.Let) and inner.value is let.var


def test_recursive_let_sees_its_own_variable() -> None:
    e = body("let %f = fn (%n: int32) { %f(%n) }; %f")
    assert isinstance(e, s.Let) and isinstance(e.value, s.Function)
    call = e.value.body
    assert isinstance(call, s.Call) and call.op is e.var


def test_function_forms() -> None:
    mod = relay.parse(
        "def @id[A](%x: A) -> A { %x }\n"
        'def @g() { fn (%p: float32, Primitive=1, Compiler="c", Ratio=0.5f) -> float32 { %p } }'
    )
    ident = mod["id"]
    assert ident.type_params == (s.TypeVar("A"),)
    assert ident.params[0].type_annotation == s.TypeVar("A")
    assert ident.ret_type == s.TypeVar("A")
    inner = mod["g"].body
    assert isinstance(inner, s.Function)
    assert inner.attrs == (("Primitive", 1), ("Compiler", "c"), ("Ratio", 0.5))
    assert inner.ret_type == s.scalar_type("float32")


def test_calls_attributes_and_dotted_names() -> None:
    e = body("sum(%x, axis=[1, -1], keepdims=True)")
    assert isinstance(e, s.Call) and isinstance(e.op, s.Op) and e.op.name == "sum"
    assert e.attrs == ReduceAttrs(axis=(1, -1), keepdims=True, exclude=False)
    e = body("clip(%x, a_max=1, a_min=-1f)")  # an integer is accepted for a float field
    assert isinstance(e, s.Call) and e.attrs == ClipAttrs(a_min=-1.0, a_max=1.0)
    e = body("nn . relu(%x)")
    assert isinstance(e, s.Call) and isinstance(e.op, s.Op) and e.op.name == "nn.relu"
    e = body("%f(1)(2)")
    assert isinstance(e, s.Call) and isinstance(e.op, s.Call)


def test_attribute_value_forms() -> None:
    e = body('nn.pad(%x, 0f, pad_width=[[1, 1], (2, 2)], pad_mode="edge")')
    assert isinstance(e, s.Call) and e.attrs is not None
    assert dict(e.attrs.items())["pad_width"] == ((1, 1), (2, 2))
    e = body("strided_slice(%x, begin=[0], end=[2], strides=None, axes=None)")
    assert isinstance(e, s.Call) and e.attrs is not None
    assert dict(e.attrs.items())["strides"] is None
    f = body('fn (%x, A=1, B=1.5f, C=True, D="s", E=[1, [2]], F=None, G=5i64) { %x }')
    assert isinstance(f, s.Function)
    assert f.attrs == (
        ("A", 1),
        ("B", 1.5),
        ("C", True),
        ("D", "s"),
        ("E", (1, (2,))),
        ("F", None),
        ("G", 5),
    )


def test_tuples_and_projection() -> None:
    e = body("((1,), (), (1, 2,), (3))")
    assert isinstance(e, s.Tuple) and len(e.fields) == 4
    one, empty, two, paren = e.fields
    assert isinstance(one, s.Tuple) and len(one.fields) == 1
    assert isinstance(empty, s.Tuple) and not empty.fields
    assert isinstance(two, s.Tuple) and len(two.fields) == 2
    assert isinstance(paren, s.Constant)
    e = body("%t.1")
    assert isinstance(e, s.TupleGetItem) and e.index == 1
    e = body("%t.0.1")
    assert isinstance(e, s.TupleGetItem) and e.index == 1
    assert isinstance(e.tuple, s.TupleGetItem) and e.tuple.index == 0


def test_if_and_references() -> None:
    e = body("if (%c) { ref_write(%r, 1) } else { ref_read(ref(2)) }")
    assert isinstance(e, s.If)
    assert isinstance(e.true_branch, s.RefWrite)
    assert isinstance(e.false_branch, s.RefRead)
    assert isinstance(e.false_branch.ref, s.RefCreate)


ADT = "type List[A] { Cons(A, List[A]), Nil, }\n"


def test_adt_definitions_and_constructors() -> None:
    mod = relay.parse(ADT + "extern type Handle\ntype Empty {}\ndef @main() { Cons(1, Nil) }")
    data = mod.get_type_data("List")
    assert [c.name for c in data.constructors] == ["Cons", "Nil"]
    assert [c.tag for c in data.constructors] == [0, 1]
    cons = data.constructors[0]
    assert cons.inputs == (s.TypeVar("A"), s.TypeCall(s.GlobalTypeVar("List"), (s.TypeVar("A"),)))
    assert mod.get_type_data("Handle").extern
    assert mod.get_type_data("Empty").constructors == ()
    e = mod["main"].body
    assert isinstance(e, s.Call) and e.op is cons
    nil = e.args[1]
    assert isinstance(nil, s.Call) and nil.op is data.constructors[1] and nil.args == ()
    assert mod.lookup_constructor("Nil") is data.constructors[1]


def test_constructors_and_globals_may_be_used_before_definition() -> None:
    mod = relay.parse("def @main() { @f(Z) }\ndef @f(%n: Nat) { %n }\ntype Nat { Z, S(Nat) }")
    call = mod["main"].body
    assert isinstance(call, s.Call) and call.op is mod.get_global_var("f")


def test_match_with_every_pattern_form() -> None:
    mod = relay.parse(
        ADT + "def @main(%l: List[(int32, int32)]) {\n"
        "  match? (%l) { Cons((%a, _), Nil) => %a, Cons(%p: (int32, int32), %rest) => 0 }\n}"
    )
    m = mod["main"].body
    assert isinstance(m, s.Match) and not m.complete
    first, second = m.clauses
    assert isinstance(first.lhs, s.PatternConstructor)
    tup, nil = first.lhs.patterns
    assert isinstance(tup, s.PatternTuple)
    a, wild = tup.patterns
    assert isinstance(a, s.PatternVar) and isinstance(wild, s.PatternWildcard)
    assert isinstance(nil, s.PatternConstructor) and nil.patterns == ()
    assert first.rhs is a.var
    assert isinstance(second.lhs, s.PatternConstructor)
    p = second.lhs.patterns[0]
    assert isinstance(p, s.PatternVar)
    assert p.var.type_annotation == s.TupleType((s.scalar_type("int32"),) * 2)
    complete = relay.parse(ADT + "def @main(%l: List[int32]) { match (%l) { _ => 0 } }")
    m = complete["main"].body
    assert isinstance(m, s.Match) and m.complete


def test_every_type_form() -> None:
    mod = relay.parse(
        ADT + "def @main(%a: Tensor[(1, ?), float32], %b: (int32, bool), %c: (int8,), "
        "%d: fn (int32) -> int32, %e: fn [T](T) -> T, %f: ref(uint8), %g: List[float16], "
        "%h: Tensor[(n, 3), float32], %i: _, %j: Tensor[(5), bool], %k: ()) { 0 }"
    )
    types = [p.type_annotation for p in mod["main"].params]
    n = s.dim_symbol("n")
    T = s.TypeVar("T")
    assert types[:8] == [
        s.TensorType((1, s.ANY), "float32"),
        s.TupleType((s.scalar_type("int32"), s.scalar_type("bool"))),
        s.TupleType((s.scalar_type("int8"),)),
        s.FuncType((s.scalar_type("int32"),), s.scalar_type("int32")),
        s.FuncType((T,), T, (T,)),
        s.RefType(s.scalar_type("uint8")),
        s.TypeCall(s.GlobalTypeVar("List"), (s.scalar_type("float16"),)),
        s.TensorType((n, 3), "float32"),
    ]
    assert isinstance(types[8], s.IncompleteType)
    assert types[9] == s.TensorType((5,), "bool")
    assert types[10] == s.TupleType(())


def test_symbolic_dimension_expressions() -> None:
    t = (
        relay.parse(
            "def @f(%x: Tensor[(n + 1, 2*m - 1, floordiv(n, 2), floormod(n, 4)), int8]) { %x }"
        )["f"]
        .params[0]
        .type_annotation
    )
    n, m = s.dim_symbol("n"), s.dim_symbol("m")
    assert isinstance(t, s.TensorType)
    assert t.shape == (n + 1, 2 * m - 1, sympy.floor(n / 2), sympy.Mod(n, 4))


def test_free_vars_and_bare_expressions_become_main() -> None:
    mod = relay.parse("free_var %x: float32; free_var %y; add(%x, %y)")
    main = mod["main"]
    assert [p.name_hint for p in main.params] == ["x", "y"]
    assert main.params[0].type_annotation == s.scalar_type("float32")
    # Undeclared variables of a bare expression are free too, in order of first use.
    assert [p.name_hint for p in relay.parse("add(%b, %a)")["main"].params] == ["b", "a"]


def test_metadata_constants_are_shared_per_entry() -> None:
    from relay.semantics.text.metadata import write_metadata

    data = np.arange(6, dtype="int8").reshape(2, 3)
    text = "add(meta[relay.Constant][0], meta[relay.Constant][0])\n#[metadata]\n"
    e = body(text + write_metadata([data]))
    assert isinstance(e, s.Call)
    c = e.args[0]
    assert c is e.args[1]
    assert isinstance(c, s.Constant) and c.data.dtype == "int8"
    assert np.array_equal(c.data, data)


def test_strings_read_printer_escapes() -> None:
    f = body('fn (%x, S="a\\"b\\\\c\\n\\x01") { %x }')
    assert isinstance(f, s.Function)
    assert f.attrs == (("S", 'a"b\\c\n\x01'),)


def test_spans_point_at_the_source() -> None:
    mod = relay.parse("def @main(%x: float32) {\n  add(%x, 1f)\n}", source_name="m.relay")
    call = mod["main"].body
    assert call.span is not None
    assert (call.span.source.name, call.span.line, call.span.column) == ("m.relay", 2, 3)
    assert isinstance(call, s.Call)
    assert call.args[1].span is not None and call.args[1].span.column == 11


def test_parse_leaves_the_recursion_limit_as_it_found_it() -> None:
    import sys
    import threading

    before = sys.getrecursionlimit()
    relay.parse("def @main() { ((((1)))) }")
    with pytest.raises(relay.ParseError):
        relay.parse("def @main() { ((((1 }")
    errors: list[BaseException] = []

    def work() -> None:
        try:
            for _ in range(20):
                relay.parse("def @main() { " + "(" * 200 + "1" + ")" * 200 + " }")
        except BaseException as err:
            errors.append(err)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sys.getrecursionlimit() == before


@pytest.mark.parametrize(
    ("text", "error_at", "note_at"),
    [
        ("def @f() { 1 }\n\ndef @f() { 2 }", (3, 5), (1, 5)),
        ("type T { A }\ntype T { B }\ndef @main() { 1 }", (2, 6), (1, 6)),
        ("type T { A, A }\ndef @main() { 1 }", (1, 13), (1, 10)),
        ("def @main(%x: int32,\n          %x: int32) { %x }", (2, 11), (1, 11)),
    ],
)
def test_a_duplicate_definition_notes_the_previous_one(
    text: str, error_at: tuple[int, int], note_at: tuple[int, int]
) -> None:
    with pytest.raises(relay.ParseError, match="duplicate") as info:
        relay.parse(text, source_name="dup.relay")
    lines = info.value.render().split("\n")
    assert lines[0].startswith(f"dup.relay:{error_at[0]}:{error_at[1]}: error: duplicate")
    note = lines.index(f"dup.relay:{note_at[0]}:{note_at[1]}: note: previous definition here")
    assert lines[note + 1] == text.split("\n")[note_at[0] - 1]
    assert lines[note + 2] == " " * (note_at[1] - 1) + lines[note + 2].strip()
    assert lines[note + 2].strip().startswith("^")


def _virtual_device_metadata() -> str:
    """A #[metadata] section holding VirtualDevice [CPU 0, GPU 0 with scope "global"]."""
    import json

    return json.dumps(
        {
            "root": 1,
            "nodes": [
                {"type_key": ""},
                {"type_key": "Map", "keys": ["VirtualDevice"], "data": [2]},
                {"type_key": "Array", "data": [3, 5]},
                {
                    "type_key": "VirtualDevice",
                    "attrs": {
                        "device_type_int": "1",
                        "virtual_device_id": "0",
                        "target": "0",
                        "memory_scope": "4",
                    },
                },
                {"type_key": "runtime.String"},
                {
                    "type_key": "VirtualDevice",
                    "attrs": {
                        "device_type_int": "2",
                        "virtual_device_id": "0",
                        "target": "0",
                        "memory_scope": "6",
                    },
                },
                {"type_key": "runtime.String", "repr_str": "global"},
            ],
            "b64ndarrays": [],
        }
    )


DEVICE_PROGRAM = """
def @main(%a {virtual_device=meta[VirtualDevice][0]}: Tensor[(5, 7), float32],
          %b {virtual_device= meta[VirtualDevice][1]}: Tensor[(5, 7), float32],
          virtual_device=meta[VirtualDevice][1]) {
  %0 = add(%a, %b);
  %1 = on_device(%0, virtual_device=meta[VirtualDevice][0], constrain_result=True);
  device_copy(%1, src_virtual_device=meta[VirtualDevice][0],
              dst_virtual_device=meta[VirtualDevice][1])
}
"""


def test_tvm_placements_read_from_metadata() -> None:
    mod = relay.parse(DEVICE_PROGRAM + "#[metadata]\n" + _virtual_device_metadata())
    printed = relay.astext(mod)
    assert "def @main(%a: Tensor[(5, 7), float32], %b: Tensor[(5, 7), float32]) {" in printed
    assert "on_device(%0, device_type=1, virtual_device_id=0, constrain_result=True)" in printed
    assert (
        "device_copy(%1, src_dev_type=1, src_virtual_device_id=0, dst_dev_type=2, "
        'dst_virtual_device_id=0, dst_memory_scope="global")'
    ) in printed
    again = relay.parse(printed)
    assert relay.astext(again) == printed
    relay.infer_types(again)


def test_a_placement_needs_its_metadata() -> None:
    with pytest.raises(relay.ParseError, match="there is none"):
        relay.parse(DEVICE_PROGRAM)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("add(%a, %a, virtual_device=meta[VirtualDevice][0])", "takes no attributes"),
        ("nn.relu(%a, virtual_device=meta[VirtualDevice][0])", "takes no attributes"),
        ("sum(%a, axis=meta[VirtualDevice][0])", "'axis' is not a virtual device attribute"),
        (
            "on_device(%a, device_type=1, virtual_device=meta[VirtualDevice][0])",
            "duplicate attribute 'device_type'",
        ),
        ("on_device(%a, virtual_device=[meta[VirtualDevice][0]])", "cannot be inside a list"),
    ],
)
def test_misplaced_placements_are_parse_errors(call: str, message: str) -> None:
    text = f"def @main(%a: Tensor[(5, 7), float32]) {{ {call} }}"
    with pytest.raises(relay.ParseError, match=message):
        relay.parse(text + "\n#[metadata]\n" + _virtual_device_metadata())


def test_int_is_tvms_name_for_int32() -> None:
    mod = relay.parse("def @main(%z: int, %t: Tensor[(2), int]) -> int { %z }")
    assert "def @main(%z: int32, %t: Tensor[(2), int32]) -> int32 {" in relay.astext(mod)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('def @main() {\n  nn.relu(1f, x="a\nb", y=) }', "3:7"),
        ("def @main() {\n  /* one\n two */ add(1, 2,, 3) }", "3:18"),
        ("def @main() {\r\n  add(1, )) }", "2:3"),
        ("\n\n\n\ndef @main() { % }", "5:15"),
    ],
)
def test_error_positions_after_multiline_tokens(text: str, where: str) -> None:
    with pytest.raises(relay.ParseError) as info:
        relay.parse(text, source_name="f.relay")
    assert str(info.value).startswith(f"f.relay:{where}: "), str(info.value)


def test_call_lowered_reads_as_a_plain_call() -> None:
    """TVM's LowerTE form ``call_lowered(f, (args))`` is the call ``f(args)``."""
    e = body(
        "def @f(%x: int32, %y: int32) -> int32 { add(%x, %y) }\n"
        "def @main(%a: int32) { %0 = (%a, 1); call_lowered(@f, %0) }"
    )
    assert isinstance(e, s.Call) and isinstance(e.op, s.GlobalVar) and len(e.args) == 2


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("def @main(%a: int32) { call_lowered(@f, %a) } def @f(%x: int32) { %x }",
         "call_lowered: the arguments must be a tuple written out"),
        ("def @main(%a: int32) { call_lowered(@f) } def @f(%x: int32) { %x }",
         "call_lowered expects 2 arguments"),
        ("def @main(%a: int32) { call_lowered(@f, (%a,), bogus=1) } def @f(%x: int32) { %x }",
         "call_lowered: unknown attribute 'bogus'"),
    ],
)  # fmt: skip
def test_call_lowered_errors(text: str, message: str) -> None:
    with pytest.raises(relay.ParseError, match=message):
        relay.parse(text)
