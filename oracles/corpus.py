"""The conformance corpus file format: Relay programs that state their own expected result.

Every ``tests/conformance/*.relay`` file is one case: a Relay program whose leading comment
lines (the *header*: every line before the first one that is neither blank nor a ``//``
comment, so before ``#[version = ...]``) hold directives. Any engine — the big-step spec, the
interpreter, a compiled target — can run the corpus through ``load_case`` (here) and
``relay.oracles.conformance.run_case``.

Directive grammar (one per line, in the header)::

    directive  = "//" [" "] NAME ":" text
    NAME       = ARGS | ENTRY | FUEL | REDUCTION-LENGTH | EXPECT | EXPECT-JSON | EXPECT-ERROR

    // ARGS: e1, .., en           the arguments: value literals (below), comma-separated;
                                  may be repeated, the lines joined (split after a comma)
    // ENTRY: name                the global to call (``@`` optional); default ``main``
    // FUEL: N                    the fuel to run with; default 1,000,000
    // REDUCTION-LENGTH: N        float tolerance for long reductions (``compare_arrays``)
    // EXPECT: e                  the expected value, a value literal; may be repeated
    // EXPECT-JSON: j             the expected value in ``value_to_json`` form; may be repeated
    // EXPECT-ERROR: KIND: text   evaluation must raise KIND, whose message contains ``text``

Exactly one of ``EXPECT``, ``EXPECT-JSON`` and ``EXPECT-ERROR`` is given. ``KIND`` is
``RelayRuntimeError``, ``UndefinedBehavior`` or ``Exhaustion`` (``Stuck`` is never expected: it
is always a bug). ``text`` is checked as a substring, not a prefix, so that an engine may put
the rule's name or the op's name before the message's own prefix. A header comment line that
looks like a directive (``// WORD:`` with ``WORD`` in capitals and dashes) but names none of
the above is an error, so a misspelt directive cannot silently drop a check; prose comments
must not start that way. Comments after the header are the program's own.

A *value literal* is a Relay expression built only from constants (``1``, ``-2.5f``, ``True``,
``nanf``), tuples, constructor applications and bare constructors of the case's own module
(``Cons(1, Nil)``), ``ref(e)``, ``let %x = e1; e2`` (to say that two references alias:
``let %r = ref(1); (%r, %r)``) and ``fn`` (a closure). It is read without any engine, so an
expected value never depends on the semantics under test. Tensors other than scalars have no
literal: build them inside the program, or expect them with ``EXPECT-JSON``::

    // EXPECT-JSON: {"kind": "tensor", "dtype": "float32", "shape": [2], "data": [1, "nan"]}

where non-finite floats are the strings ``"nan"``, ``"inf"`` and ``"-inf"`` and the other
kinds are ``{"kind": "tuple", "fields": [..]}``, ``{"kind": "constructor", "name": "Cons",
"fields": [..]}``, ``{"kind": "ref", "value": ..}`` and ``{"kind": "closure"}``.
``ARGS`` cannot create references (``ref``): the engines start from an empty store. A ``fn``
in ``ARGS`` should be closed: the engines do not yet run a closure whose environment they did
not build themselves.

Expected values compare through ``relay.oracles.compare.compare_values``; engines come from
``relay.oracles.engines``; ``relay.oracles.conformance`` runs cases on them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeAlias

from ..semantics.errors import (
    Exhaustion,
    ParseError,
    RelayError,
    RelayRuntimeError,
    SourceFile,
    Span,
    UndefinedBehavior,
)
from ..semantics.syntax import (
    Call,
    Constant,
    Constructor,
    Expr,
    Function,
    GlobalVar,
    IRModule,
    Let,
    RefCreate,
    Tuple,
    Var,
)
from ..semantics.text.lexer import T, lex
from ..semantics.text.parser import Parser, parse
from ..semantics.values import (
    JSON,
    ClosureValue,
    ConstructorFnValue,
    ConstructorValue,
    RefValue,
    Store,
    TensorValue,
    TupleValue,
    Value,
)
from .compare import value_from_json

DEFAULT_FUEL = 1_000_000
"""The fuel a case runs with unless it says ``// FUEL: N``."""

DIRECTIVES = ("ARGS", "ENTRY", "FUEL", "REDUCTION-LENGTH", "EXPECT", "EXPECT-JSON",
              "EXPECT-ERROR")  # fmt: skip
"""Every directive name; see the module docstring."""

_REPEATABLE = frozenset({"ARGS", "EXPECT", "EXPECT-JSON"})

ERROR_KINDS: dict[str, type[RelayError]] = {
    "RelayRuntimeError": RelayRuntimeError,
    "UndefinedBehavior": UndefinedBehavior,
    "Exhaustion": Exhaustion,
}
"""The error classes ``EXPECT-ERROR`` may name."""

_DIRECTIVE = re.compile(r"//\s?([A-Z][A-Z-]*):(.*)$")


@dataclass(frozen=True, slots=True)
class ExpectValue:
    """The case must evaluate to ``value`` (its references' contents in ``store``); whether
    references alias is checked only if ``aliasing`` (JSON cannot say it)."""

    value: Value
    store: Store = field(default_factory=dict)
    aliasing: bool = True


@dataclass(frozen=True, slots=True)
class ExpectError:
    """The case must raise ``kind`` with ``text`` in its message."""

    kind: str
    text: str


Expectation: TypeAlias = ExpectValue | ExpectError


@dataclass(frozen=True, slots=True)
class Case:
    """One corpus program with its directives read."""

    path: str
    name: str
    module: IRModule
    entry: str
    arg_exprs: tuple[Expr, ...]
    args: tuple[Value, ...]
    expect: Expectation
    fuel: int = DEFAULT_FUEL
    reduction_length: int = 1

    def applied(self) -> IRModule:
        """The module plus a global applying the entry to the arguments (for type-checking)."""
        return apply_entry(self.module, self.entry, self.arg_exprs)


@dataclass(frozen=True, slots=True)
class _Directive:
    name: str
    text: str
    line: int
    column: int  # 1-based column of the first character of text


def corpus(folder: str | Path) -> list[Path]:
    """The ``.relay`` files of ``folder``, sorted by name."""
    return sorted(Path(folder).glob("*.relay"))


def load_case(path: str | Path) -> Case:
    """Read and parse a case file; ``ParseError`` for a malformed program or directive."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    source = SourceFile(str(path), text)
    directives = _read_header(source)
    module = parse(text, source_name=str(path))

    def single(name: str) -> _Directive | None:
        found = [d for d in directives if d.name == name]
        if len(found) > 1:
            raise _error(source, found[1], f"directive {name} is given more than once")
        return found[0] if found else None

    entry = "main"
    if (d := single("ENTRY")) is not None:
        entry = d.text.removeprefix("@")
    if entry not in module:
        where = d or (directives[0] if directives else None)
        raise _error(source, where, f"the entry @{entry} is not defined in the module")
    fuel = _positive_int(source, single("FUEL"), DEFAULT_FUEL)
    reduction_length = _positive_int(source, single("REDUCTION-LENGTH"), 1)

    arg_lines = [d for d in directives if d.name == "ARGS"]
    arg_exprs = _parse_exprs(module, source, arg_lines) if arg_lines else []
    args = tuple(_literal(e, module, {}, {}, allow_refs=False) for e in arg_exprs)

    kinds = {d.name for d in directives} & {"EXPECT", "EXPECT-JSON", "EXPECT-ERROR"}
    if len(kinds) != 1:
        found = ", ".join(sorted(kinds)) or "none"
        raise ParseError(
            "a conformance case needs exactly one of EXPECT, EXPECT-JSON and EXPECT-ERROR in "
            f"its header comments, found {found}",
            Span(source, 1, 1, 1, 2),
        )
    expect: Expectation
    if "EXPECT" in kinds:
        lines = [d for d in directives if d.name == "EXPECT"]
        exprs = _parse_exprs(module, source, lines)
        if len(exprs) != 1:
            raise _error(source, lines[0], f"EXPECT needs one value, found {len(exprs)}")
        store: dict[int, Value] = {}
        expect = ExpectValue(_literal(exprs[0], module, {}, store, allow_refs=True), store)
    elif "EXPECT-JSON" in kinds:
        lines = [d for d in directives if d.name == "EXPECT-JSON"]
        expect = _expect_json(module, source, lines)
    else:
        d = single("EXPECT-ERROR")
        assert d is not None
        kind, sep, message = d.text.partition(":")
        kind = kind.strip()
        if not sep or kind not in ERROR_KINDS or not message.strip():
            raise _error(source, d, "expected 'EXPECT-ERROR: KIND: text' with KIND one of "
                         f"{', '.join(ERROR_KINDS)}, found {d.text!r}")  # fmt: skip
        expect = ExpectError(kind, message.strip())
    return Case(str(path), path.stem, module, entry, tuple(arg_exprs), args, expect, fuel,
                reduction_length)  # fmt: skip


def _read_header(source: SourceFile) -> list[_Directive]:
    out: list[_Directive] = []
    for number, line in enumerate(source.text.split("\n"), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith("//"):
            break
        indent = len(line) - len(line.lstrip())
        match = _DIRECTIVE.match(line, indent)
        if match is None:
            continue
        name, rest = match.group(1), match.group(2)
        text = rest.strip()
        column = match.start(2) + (len(rest) - len(rest.lstrip())) + 1
        directive = _Directive(name, text.rstrip("\r"), number, column)
        if name not in DIRECTIVES:
            raise _error(source, directive, f"unknown directive {name}: expected one of "
                         f"{', '.join(DIRECTIVES)} (prose comments must not start "
                         "with a capitalised word and a colon)")  # fmt: skip
        if not directive.text:
            raise _error(source, directive, f"directive {name} has no text")
        if name not in _REPEATABLE and any(d.name == name for d in out):
            raise _error(source, directive, f"directive {name} is given more than once")
        out.append(directive)
    return out


def _error(source: SourceFile, d: _Directive | None, message: str) -> ParseError:
    if d is None:
        return ParseError(message, Span(source, 1, 1, 1, 2))
    start = max(d.column - 1, 1)
    return ParseError(message, Span(source, d.line, start, d.line, start + 1))


def _positive_int(source: SourceFile, d: _Directive | None, default: int) -> int:
    if d is None:
        return default
    try:
        value = int(d.text.replace("_", "").replace(",", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise _error(source, d, f"directive {d.name} needs a positive integer, found {d.text!r}")
    return value


def _padded(source: SourceFile, lines: Sequence[_Directive]) -> SourceFile:
    """A text holding only the directives' texts, each at its own line and column."""
    rows = [""] * max(d.line for d in lines)
    for d in lines:
        rows[d.line - 1] = " " * (d.column - 1) + d.text
    return SourceFile(source.name, "\n".join(rows))


def _relocated(err: ParseError, source: SourceFile) -> ParseError:
    """``err`` with its span moved onto the real file (whose line shows the directive)."""
    s = err.span
    if s is None:
        return ParseError(err.message)
    return ParseError(err.message, Span(source, s.line, s.column, s.end_line, s.end_column))


def _parse_exprs(module: IRModule, source: SourceFile, lines: Sequence[_Directive]) -> list[Expr]:
    try:
        return parse_expressions(module, _padded(source, lines))
    except ParseError as err:
        raise _relocated(err, source) from None


def parse_expressions(module: IRModule, source: SourceFile) -> list[Expr]:
    """The comma-separated, closed expressions of ``source``, read with the globals, types and
    constructors of ``module`` in scope; ``ParseError`` if they are not."""
    lexed = lex(source)
    if lexed.metadata is not None:
        raise ParseError("a metadata section cannot appear here", lexed.metadata_span)
    parser = Parser(lexed.tokens, {})
    parser.globals = {gv.name: gv for gv in module.functions}
    parser.type_headers = {h.name: h for h in module.type_definitions}
    parser.constructors = module.constructors()
    parser.push_scope()
    exprs: list[Expr] = []
    at_end = parser.tok.kind is T.EOF
    while not at_end:
        exprs.append(parser.parse_expr())
        at_end = parser.tok.kind is T.EOF
        if not at_end:
            parser.expect(",")
    return exprs


def apply_entry(module: IRModule, entry: str, args: Sequence[Expr]) -> IRModule:
    """``module`` plus a fresh global ``fn () { @entry(args..) }``: type-checking it checks
    that the arguments fit the entry's parameters."""
    name = "conformance_call"
    while name in module:
        name += "_"
    call = Call(module.get_global_var(entry), tuple(args))
    return module.with_function(GlobalVar(name), Function((), call))


def _literal(
    e: Expr,
    module: IRModule,
    env: dict[Var, Value],
    store: dict[int, Value],
    *,
    allow_refs: bool,
) -> Value:
    """The value a value literal denotes (see the module docstring); no engine is involved."""
    env = dict(env)
    while isinstance(e, Let):
        env[e.var] = _literal(e.value, module, env, store, allow_refs=allow_refs)
        e = e.body
    match e:
        case Constant(data):
            return TensorValue(data)
        case Var():
            return env[e]  # the parser only accepts bound variables here
        case Tuple(fields):
            return TupleValue(
                tuple(_literal(f, module, env, store, allow_refs=allow_refs) for f in fields)
            )
        case Call(Constructor() as ctor, args, None):
            if len(args) != len(ctor.inputs):
                raise ParseError(f"constructor {ctor.name} takes {len(ctor.inputs)} "
                                 f"fields, found {len(args)}", e.span)  # fmt: skip
            values = tuple(_literal(a, module, env, store, allow_refs=allow_refs) for a in args)
            return ConstructorValue(ctor, values)
        case Constructor():
            return ConstructorFnValue(e)
        case RefCreate(value):
            if not allow_refs:
                raise ParseError("arguments cannot create references (the engines start from "
                                 "an empty store)", e.span)  # fmt: skip
            inner = _literal(value, module, env, store, allow_refs=allow_refs)
            location = len(store)
            store[location] = inner
            return RefValue(location)
        case Function():
            return ClosureValue(e, env)
    raise ParseError(
        "not a value literal: expected constants, tuples, constructors, ref(..), let or fn, "
        f"found {_describe(e)}",
        e.span,
    )


def _describe(e: Expr) -> str:
    if isinstance(e, Call):
        callee = e.op
        name = getattr(callee, "name", None) or getattr(callee, "name_hint", None)
        return f"a call of {name}" if isinstance(name, str) else "a call"
    return f"a {type(e).__name__} expression"


def _expect_json(module: IRModule, source: SourceFile, lines: Sequence[_Directive]) -> ExpectValue:
    text = "\n".join(d.text for d in lines)
    try:
        data: JSON = json.loads(text)
    except json.JSONDecodeError as err:
        d = lines[min(err.lineno, len(lines)) - 1]
        column = d.column + err.colno - 1
        raise ParseError(f"EXPECT-JSON is not JSON: {err.msg}",
                         Span(source, d.line, column, d.line, column + 1)) from None  # fmt: skip
    store: dict[int, Value] = {}
    try:
        value = value_from_json(data, module, store)
    except ValueError as err:
        raise _error(source, lines[0], f"EXPECT-JSON: {err}") from None
    return ExpectValue(value, store, aliasing=False)


__all__ = [
    "DEFAULT_FUEL",
    "DIRECTIVES",
    "ERROR_KINDS",
    "Case",
    "ExpectError",
    "ExpectValue",
    "Expectation",
    "apply_entry",
    "corpus",
    "load_case",
    "parse_expressions",
]
