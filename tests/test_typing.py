"""The typing rules, on programs whose types are known by hand, and their error messages."""

import gc
import sys

import pytest

import relay
from relay.semantics import syntax as s
from relay.semantics.text.printer import format_type
from relay.semantics.typing import infer_types, missing_case

LIST = "type List[A] { Cons(A, List[A]), Nil }\n"


def types_of(text: str) -> dict[str, str]:
    info = infer_types(relay.parse(text))
    return {name: format_type(t) for name, t in info.globals.items()}


def type_error(text: str) -> relay.RelayTypeError:
    mod = relay.parse(text, source_name="t.relay")
    with pytest.raises(relay.RelayTypeError) as info:
        infer_types(mod)
    return info.value


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("def @f(%x: int32) { %x }", "fn (int32) -> int32"),
        ("def @f() { (1, 2f, True) }", "fn () -> (int32, float32, bool)"),
        ("def @f(%t: (int32, float32)) { %t.1 }", "fn ((int32, float32)) -> float32"),
        ("def @f() { fn (%x: int32) { %x } }", "fn () -> fn (int32) -> int32"),
        ("def @f(%x: int32) { let %y = %x; %y }", "fn (int32) -> int32"),
        ("def @f(%c: bool) { if (%c) { 1 } else { 2 } }", "fn (bool) -> int32"),
        ("def @f() { ref(1) }", "fn () -> ref(int32)"),
        ("def @f(%r: ref(float32)) { ref_read(%r) }", "fn (ref(float32)) -> float32"),
        ("def @f(%r: ref(float32)) { ref_write(%r, 1f) }", "fn (ref(float32)) -> ()"),
        ("def @f[A](%x: A) -> A { %x }", "fn [A](A) -> A"),
        # An unannotated parameter is inferred from its use.
        ("def @f(%g) { %g(1) }", "fn (fn (int32) -> _) -> _"),
        (
            "def @f(%g, %x: float32) { %g(%x); %g }",
            "fn (fn (float32) -> _, float32) -> fn (float32) -> _",
        ),
    ],
)
def test_rules(text: str, expected: str) -> None:
    assert types_of(text)["f"] == expected


def test_polymorphic_globals_are_instantiated_at_each_use() -> None:
    got = types_of("def @id[A](%x: A) -> A { %x }\ndef @main() { (@id(1), @id(True), @id(@id)) }")
    assert got["main"] == "fn () -> (int32, bool, fn (_) -> _)" or got["main"].startswith(
        "fn () -> (int32, bool, fn ("
    )


def test_recursive_and_mutually_recursive_globals() -> None:
    got = types_of(
        "def @even(%n: int32) -> bool { if (%n == 0) { True } else { @odd(%n - 1) } }\n"
        "def @odd(%n: int32) -> bool { if (%n == 0) { False } else { @even(%n - 1) } }\n"
        "def @count(%n: int32) { if (%n == 0) { 0 } else { @count(%n - 1) + 1 } }"
    )
    assert got == {
        "even": "fn (int32) -> bool",
        "odd": "fn (int32) -> bool",
        "count": "fn (int32) -> int32",
    }


def test_adts_constructors_and_patterns() -> None:
    got = types_of(
        LIST + "def @len[A](%l: List[A]) -> int32 {\n"
        "  match (%l) { Cons(_, %t) => 1 + @len(%t), Nil => 0 }\n}\n"
        "def @main() { (@len(Cons(1f, Nil)), Cons, Nil) }"
    )
    assert got["len"] == "fn [A](List[A]) -> int32"
    assert got["main"].startswith("fn () -> (int32, fn (")


def test_pattern_variables_get_the_field_types() -> None:
    mod = relay.parse(LIST + "def @f(%l: List[(int32, bool)]) {\n"
                      "  match? (%l) { Cons((%a, %b), _) => %b }\n}")  # fmt: skip
    info = infer_types(mod)
    assert format_type(info.global_type("f")) == "fn (List[(int32, bool)]) -> bool"
    m = mod["f"].body
    assert isinstance(m, s.Match)
    assert format_type(info.type_of(m.data)) == "List[(int32, bool)]"


def test_recursive_closure_and_captured_variables() -> None:
    got = types_of(
        "def @f(%n: int32, %k: float32) {\n"
        "  let %loop = fn (%i: int32) -> float32 { if (%i > 0) { %loop(%i - 1) } else { %k } };\n"
        "  %loop(%n)\n}"
    )
    assert got["f"] == "fn (int32, float32) -> float32"


def test_local_polymorphic_function_needs_type_parameters() -> None:
    assert types_of("def @f() { let %id = fn [A](%x: A) { %x }; (%id(1), %id(True)) }")["f"] == (
        "fn () -> (int32, bool)"
    )
    # Without type parameters there is no generalisation: the two uses clash.
    err = type_error("def @f() { let %id = fn (%x) { %x }; (%id(1), %id(True)) }")
    assert err.rule == "T-Call"


APPLY = "def @apply(%f: fn (int32) -> int32, %x: int32) -> int32 { %f(%x) }\n"


def test_a_polymorphic_function_is_instantiated_where_a_monomorphic_one_is_expected() -> None:
    # As TVM's unifier did: A becomes a fresh hole, solved to int32 by the expected type.
    got = types_of(APPLY + "def @main() { @apply(fn [A](%y: A) -> A { %y }, 1) }")
    assert got["main"] == "fn () -> int32"
    # A let-bound polymorphic function stays polymorphic after such a use.
    got = types_of(
        APPLY + "def @main() { let %id = fn [A](%y: A) { %y }; (@apply(%id, 1), %id(True)) }"
    )
    assert got["main"] == "fn () -> (int32, bool)"
    # The same through a let annotation, and through a function's declared return type.
    got = types_of("def @main() { let %f: fn (float32) -> float32 = fn [A](%y: A) { %y }; %f }")
    assert got["main"] == "fn () -> fn (float32) -> float32"
    got = types_of("def @main() -> fn (bool) -> bool { fn [T](%y: T) -> T { %y } }")
    assert got["main"] == "fn () -> fn (bool) -> bool"


def test_the_instantiation_must_fit_the_expected_type() -> None:
    # A := int32 from the argument, then the result A = int32 clashes with float32.
    err = type_error(
        "def @apply(%f: fn (int32) -> float32) -> float32 { %f(1) }\n"
        "def @main() { @apply(fn [A](%y: A) -> A { %y }) }"
    )
    assert err.rule == "T-Call"
    assert "argument 0: expected fn (int32) -> float32, found fn [A](A) -> A" in err.message
    # A function of A that uses its argument as a tensor of a fixed dtype is not polymorphic
    # enough to be anything else: the body decides A.
    err = type_error(APPLY + "def @main() { @apply(fn [A](%y: A) -> A { add(%y, 1f) }, 1) }")
    assert err.rule in ("T-Fn", "Broadcast")


def test_extra_type_parameters_are_instantiated_and_the_others_renamed() -> None:
    # fn [A, B](A, B) -> A where fn [C](C, int32) -> C is expected: A is renamed C, B := int32.
    got = types_of(
        "def @g(%f: fn [C](C, int32) -> C) { (%f(True, 1), %f(1f, 2)) }\n"
        "def @main() { @g(fn [A, B](%x: A, %y: B) -> A { %x }) }"
    )
    assert got["g"] == "fn (fn [C](C, int32) -> C) -> (bool, float32)"
    assert got["main"] == "fn () -> (bool, float32)"
    # B cannot be both int32 (expected) and the type of a float32 use inside.
    err = type_error(
        "def @g(%f: fn [C](C, int32) -> C) { %f(True, 1) }\n"
        "def @main() { @g(fn [A, B](%x: A, %y: B) -> A { let %z: float32 = %y; %x }) }"
    )
    assert err.rule in ("T-Let", "T-Call")


def test_a_monomorphic_function_is_not_accepted_where_a_polymorphic_one_is_expected() -> None:
    # @g uses %f at bool and at float32; a function of bool alone would be applied to 1f.
    err = type_error(
        "def @g(%f: fn [C](C) -> C) { (%f(True), %f(1f)) }\n"
        "def @main() { @g(fn (%x: bool) -> bool { %x }) }"
    )
    assert err.rule == "T-Call"
    assert "type parameters" in err.message
    # In argument position the roles swap: a function expecting a polymorphic argument cannot
    # be used where one that is given a monomorphic argument is expected...
    err = type_error(
        "def @h(%k: fn (fn (int32) -> int32) -> int32) { %k(fn (%x: int32) { %x }) }\n"
        "def @main() { @h(fn (%f: fn [A](A) -> A) -> int32 { %f(1) }) }"
    )
    assert err.rule == "T-Call"
    # ...but the converse is fine: it is given a polymorphic one, and uses it at int32.
    got = types_of(
        "def @h(%k: fn (fn [A](A) -> A) -> int32) { %k(fn [B](%x: B) { %x }) }\n"
        "def @main() { @h(fn (%f: fn (int32) -> int32) -> int32 { %f(1) }) }"
    )
    assert got["main"] == "fn () -> int32"


def test_symbolic_dimensions_flow_through_relations() -> None:
    got = types_of(
        "def @f(%x: Tensor[(n, 3), float32], %w: Tensor[(4, 3), float32]) {\n"
        "  %0 = add(%x, 1f);\n"
        "  %1 = nn.dense(%0, %w, units=None);\n"
        "  %2 = concatenate((%1, %1), axis=0);\n"
        "  reshape(%2, newshape=[-1])\n}"
    )
    assert got["f"] == (
        "fn (Tensor[(n, 3), float32], Tensor[(4, 3), float32]) -> Tensor[(8*n), float32]"
    )


def test_symbolic_dimensions_of_a_global_are_instantiated_at_each_call() -> None:
    got = types_of(
        "def @f(%x: Tensor[(n, 3), float32]) -> Tensor[(n, 3), float32] { %x }\n"
        "def @main(%a: Tensor[(5, 3), float32], %b: Tensor[(7, 3), float32]) {\n"
        "  (@f(%a), @f(%b))\n}"
    )
    assert got["f"] == "fn (Tensor[(n, 3), float32]) -> Tensor[(n, 3), float32]"
    assert got["main"].endswith("-> (Tensor[(5, 3), float32], Tensor[(7, 3), float32])")


def test_any_dimension_is_compatible() -> None:
    got = types_of(
        "def @f(%x: Tensor[(?, 3), float32]) -> Tensor[(?, 3), float32] { %x }\n"
        "def @main(%a: Tensor[(5, 3), float32]) { @f(%a) }"
    )
    assert got["main"] == "fn (Tensor[(5, 3), float32]) -> Tensor[(?, 3), float32]"


ERRORS = [
    (
        "def @f(%x: int32) { if (%x) { 1 } else { 2 } }",
        "T-If",
        "T-If: the condition: expected bool, found int32",
    ),
    (
        "def @f(%c: bool) { if (%c) { 1 } else { 2f } }",
        "T-If",
        "T-If: the else branch: expected int32, found float32",
    ),
    (
        "def @f(%x: Tensor[(2, 3), float32], %y: Tensor[(2, 4), float32]) { add(%x, %y) }",
        "Broadcast",
        "Broadcast: dimensions 3 and 4 are incompatible in add(%x, %y): "
        "Tensor[(2, 3), float32] vs Tensor[(2, 4), float32]",
    ),
    (
        "def @f(%x: int32, %y: float32) { add(%x, %y) }",
        "Broadcast",
        "Broadcast: ",
    ),
    ("def @f(%t: (int32,)) { %t.1 }", "T-Proj", "T-Proj: index 1 is out of range"),
    ("def @f(%x: int32) { %x(1) }", "T-Call", "T-Call: expected a function to call, found"),
    (
        "def @g(%x: int32) { %x }\ndef @f() { @g(1, 2) }",
        "T-Call",
        "T-Call: expected 1 argument, found 2",
    ),
    (
        "def @f(%x: int32) -> float32 { %x }",
        "T-Fn",
        "T-Fn: the function body: expected float32, found int32",
    ),
    ("def @f() { let %x: bool = 1; %x }", "T-Let", "T-Let: the value bound to %x"),
    (
        "def @f(%r: ref(int32)) { ref_write(%r, 1f) }",
        "T-RefWrite",
        "T-RefWrite: the value written: expected int32, found float32",
    ),
    (
        LIST + "def @f(%l: List[int32]) { match (%l) { Nil => 0 } }",
        "T-Match",
        "T-Match: match is not exhaustive: Cons(_, _) is not covered",
    ),
    (
        LIST + "def @f(%l: List[int32]) { match (%l) { Cons(_, Nil) => 0, Nil => 1 } }",
        "T-Match",
        "T-Match: match is not exhaustive: Cons(_, Cons(_, _)) is not covered",
    ),
    (
        LIST + "def @f(%l: List[int32]) { match (%l) { Cons(%x, _) => %x, Nil => 1f } }",
        "T-Match",
        "T-Match: this clause: expected int32, found float32",
    ),
    (
        LIST + "def @f(%l: List[int32]) { match (%l) { (%a, %b) => 0 } }",
        "P-Tuple",
        "P-Tuple: the tuple pattern",
    ),
    ("def @f(%x) { add(%x, %x) }", "Broadcast", "Broadcast: cannot infer the argument types"),
    (LIST + "def @f(%l: List) { %l }", "T-Type", "T-Type: List takes 1 type argument, found 0"),
]


@pytest.mark.parametrize(("text", "rule", "message"), ERRORS, ids=[e[2][:40] for e in ERRORS])
def test_type_errors_name_the_rule(text: str, rule: str, message: str) -> None:
    err = type_error(text)
    assert err.rule == rule
    assert err.message.startswith(message), err.message
    assert err.span is not None
    assert err.render().startswith("t.relay:")


def test_partial_match_need_not_be_exhaustive() -> None:
    assert types_of(LIST + "def @f(%l: List[int32]) { match? (%l) { Nil => 0 } }")["f"] == (
        "fn (List[int32]) -> int32"
    )


def test_exhaustiveness_of_tuples_and_nested_constructors() -> None:
    mod = relay.parse(LIST + "type B { T, F }\ndef @main() { 0 }")
    t = mod.lookup_constructor("T")
    f = mod.lookup_constructor("F")
    pt = s.PatternConstructor(t, ())
    pf = s.PatternConstructor(f, ())
    wild = s.PatternWildcard()
    assert missing_case(mod, [s.PatternTuple((pt, wild)), s.PatternTuple((pf, pt))]) == "(F, F)"
    assert missing_case(mod, [s.PatternTuple((pt, wild)), s.PatternTuple((pf, wild))]) is None
    assert missing_case(mod, [s.PatternVar(s.Var("x"))]) is None


def test_side_table_holds_every_sub_expression() -> None:
    mod = relay.parse("def @f(%x: float32) { %0 = add(%x, 1f); multiply(%0, %0) }")
    info = infer_types(mod)
    for node in s.post_order(mod["f"]):
        if not isinstance(node, s.Op):
            assert format_type(info.type_of(node)) in ("float32", "fn (float32) -> float32")


def test_inference_is_deterministic_and_invariant_under_renaming() -> None:
    text = LIST + "def @f[A](%xs: List[A], %g: fn (A) -> int32) { match (%xs) {\n" \
        "  Cons(%y, _) => %g(%y), Nil => 0 } }"  # fmt: skip
    head, definition = text.split("\n", 1)
    definition = definition.replace("%xs", "%q").replace("%y", "%z").replace("[A]", "[B]")
    renamed = head + "\n" + definition.replace("fn (A)", "fn (B)")
    first = types_of(text)
    assert types_of(text) == first
    assert types_of(renamed)["f"] == first["f"].replace("A", "B")


def test_long_let_chain_type_checks_without_recursion() -> None:
    n = 20_000
    x = s.Var("x", s.TensorType((2,), "float32"))
    lets = [s.Var(f"v{i}") for i in range(n)]
    body: s.Expr = lets[-1]
    for i in reversed(range(n)):
        prev = lets[i - 1] if i else x
        body = s.Let(lets[i], s.Call(s.Op("add"), (prev, x)), body)
    mod = s.IRModule({s.GlobalVar("main"): s.Function((x,), body)})
    assert format_type(infer_types(mod).global_type("main")) == (
        "fn (Tensor[(2), float32]) -> Tensor[(2), float32]"
    )


def test_side_table_is_keyed_by_the_nodes_themselves() -> None:
    mod = relay.parse("def @f(%x: int32) { let %y = add(%x, 1); (%y, %y) }")
    info = infer_types(mod)
    body = mod["f"].body
    assert isinstance(body, s.Let)
    assert body in info.expr_types and format_type(info.expr_types[body]) == "(int32, int32)"
    assert format_type(info.type_of(body.value)) == "int32"
    assert all(not isinstance(k, int) for k in info.expr_types)


def test_infer_types_leaves_the_process_state_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse() -> None:
        raise AssertionError("infer_types must not pause the garbage collector")

    monkeypatch.setattr(gc, "disable", refuse)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(limit + 7)  # an unusual value, to see it restored exactly
    try:
        infer_types(relay.parse("def @f(%x: int32) { %x }"))
        assert sys.getrecursionlimit() == limit + 7
        with pytest.raises(relay.RelayTypeError):
            infer_types(relay.parse("def @f(%x: int32) -> bool { %x }"))
        assert sys.getrecursionlimit() == limit + 7
        assert gc.isenabled()
    finally:
        sys.setrecursionlimit(limit)


def test_check_command_prints_globals_in_definition_order() -> None:
    import subprocess
    import sys

    text = "def @z(%x: Tensor[(2, 3), float32]) { nn.relu(%x) }\ndef @a() { @z }"
    result = subprocess.run([sys.executable, "-m", "relay", "check", "-"], input=text,
                            capture_output=True, text=True, check=False)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout == (
        "@z: fn (Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32]\n"
        "@a: fn () -> fn (Tensor[(2, 3), float32]) -> Tensor[(2, 3), float32]\n"
    )
    bad = subprocess.run([sys.executable, "-m", "relay", "check", "-"],
                         input="def @f(%x: int32) { if (%x) { 1 } else { 2 } }",
                         capture_output=True, text=True, check=False)  # fmt: skip
    assert bad.returncode == 1
    assert bad.stderr.startswith("<stdin>:1:21: error: T-If: the condition: expected bool")


def test_fmt_types_annotates_like_tvm() -> None:
    mod = relay.parse("def @f(%x: float32) { let %y = %x; %0 = add(%x, %y); multiply(%0, %0) }")
    text = relay.astext(mod, types=True)
    assert "let %y /* ty=float32 */ = %x;" in text
    assert "%0 = add(%x, %y) /* ty=float32 */;" in text
    assert "multiply(%0, %0) /* ty=float32 */" in text
    assert relay.astext(relay.parse(text)) == relay.astext(mod)


def test_every_operator_has_a_relation_a_reference_and_a_relation_name() -> None:
    from relay.semantics.ops import OPS

    incomplete = [
        name
        for name, op in OPS.items()
        if op.relation is None or op.reference is None or not op.relation_name
    ]
    assert not incomplete
