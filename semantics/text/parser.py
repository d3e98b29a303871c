"""The parser of Relay's text format.

Grammar (after TVM's ``parser.cc``; see ``reference/relay-text-format.md`` §2)::

    file      = [ "#[version = \\"0.0.5\\"]" ] ( module | expr ) [ "#[metadata]" JSON ]
    module    = { "def" GLOBAL fn-rest | ["extern"] "type" IDENT ["[" ids "]"] ["{" ctors "}"] }
    fn-rest   = [ "[" ids "]" ] "(" params [kwargs] ")" [ "->" type ] "{" expr "}"
    param     = LOCAL [ "{" kwargs "}" ] [ ":" type ]
    kwarg     = IDENT { "." IDENT } "=" ( literal | "[" values "]" | "(" value ")" | None | META )
    expr      = { binding | "free_var" LOCAL [":" type] ";" | stmt ";" } stmt
    binding   = "let" LOCAL [":" type] "=" rhs ";"  |  GRAPH "=" rhs ";"
    stmt      = "{" expr "}" | match | binexpr
    rhs       = match | binexpr
    match     = ("match" | "match?") atom "{" { pattern "=>" expr "," } "}"
    binexpr   = postfix { ("*" | "/" | "+" | "-" | "<" | ">" | "<=" | ">=" | "==" | "!=") postfix }
    postfix   = primary { "(" args ")" | "." INT }
    primary   = literal | LOCAL | GLOBAL | GRAPH | META | name | "fn" fn-rest
              | "if" "(" expr ")" "{" expr "}" "else" "{" expr "}"
              | "ref" "(" expr ")" | "ref_read" "(" expr ")" | "ref_write" "(" expr "," expr ")"
              | "(" ")" | "(" expr ")" | "(" expr "," [ exprs ] ")"
    pattern   = "_" | LOCAL [":" type] | CTOR ["(" patterns ")"] | "(" patterns ")"
    type      = "Tensor" "[" "(" dims ")" "," DTYPE "]" | DTYPE | "(" types ")"
              | "fn" ["[" ids "]"] "(" types ")" "->" type | "ref" "(" type ")" | "_"
              | IDENT [ "[" types "]" ]
    dim       = INT | "?" | META | dimexpr over names with + - * floordiv() floormod()
    DTYPE     = bool | int8 .. int64 | uint8 .. uint64 | float16 .. float64 | int (= int32)

Departures from TVM, each the repair of a defect its parser had (the text format sheet's §3):
``extern type`` does not end the module; a duplicate ``def``, type or constructor is an error;
constructors and globals may be used before their definition; graph variables ``%N`` are
scoped to one definition; ``let`` always opens a new scope, and its variable is visible in its
own value only when that value is a ``fn`` (a recursive closure), so ``let %x = %x + 1``
refers to the outer ``%x``; a dotted keyword may come first;
binding right-hand sides may be ``match``; unknown type names are errors; the scalar shorthand
is an exact dtype name (and ``int``, TVM's ``int32``); a dimension that divides by zero is an
error. It also reads what TVM printed but could not read back: ``ref(T)``,
``fn [A](A) -> A``, symbolic dimensions as bare names, ``nanf``, ``inff64``.

Placements, which TVM printed once devices were planned, read given the ``#[metadata]``
section that holds their ``VirtualDevice`` entries: ``PREFIXvirtual_device=meta[..][i]`` in a
call becomes that operator's device attributes (``on_device``'s ``device_type``,
``virtual_device_id``, ``memory_scope``; ``device_copy``'s ``src_``/``dst_`` ones). On a
parameter (``%x {virtual_device=...}``) or a function (a final ``virtual_device=`` attribute)
the placement is read and dropped: it does not change what the program computes, and nothing
here places code on devices; the printed text then reads back to the same module.

``call_lowered(f, (a1, .., an))``, which TVM's LowerTE wrote for a call of a lowered
primitive function, reads as the call ``f(a1, .., an)``: it means exactly that (its
``metadata`` attribute only names the lowered function for TVM's own backends), and this
implementation has no lowered functions to tell apart. The arguments must be a tuple written
out (or a graph variable bound to one), as TVM printed them.

A bare expression (no ``def`` or ``type``) becomes ``@main`` over its free variables: those
declared with ``free_var`` and, since no module scope exists, any undeclared ``%x``.

Let-chains and sequences are parsed with loops, so they may be any length; other nesting is
recursive and limited to ``MAX_NESTING`` levels, past which the parser reports a clean error.
"""

from __future__ import annotations

import dataclasses
import gc
import re
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeAlias
from typing import TypeVar as TypeVar_

import numpy as np
import numpy.typing as npt
import sympy

from .. import ops as _ops  # noqa: F401  (registers the operators)
from ..errors import ParseError, SourceFile, Span
from ..ops.registry import AttrError, OpDef, lookup
from ..syntax import (
    ANY,
    DTYPES,
    AttrValue,
    Call,
    Clause,
    Constant,
    Constructor,
    Dim,
    Expr,
    Function,
    FuncType,
    GlobalTypeVar,
    GlobalVar,
    If,
    IncompleteType,
    IRModule,
    Let,
    Match,
    Op,
    Pattern,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
    RefCreate,
    RefRead,
    RefType,
    RefWrite,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    TypeCall,
    TypeData,
    TypeVar,
    Var,
    dim_symbol,
    normalize_dim,
)
from .lexer import ITEM, STATEMENT, Lexer, LineIndex, Number, Statement, T, Token, is_bare_name, lex
from .metadata import MetadataError, OpaqueMetaNode, VirtualDeviceMeta, parse_metadata

VERSION = '"0.0.5"'
MAX_NESTING = 1024
"""Deepest nesting (of parentheses, calls, functions, blocks ...) the parser accepts."""

_BINARY_OPS = {
    "*": (12, "multiply"),
    "/": (12, "divide"),
    "+": (10, "add"),
    "-": (10, "subtract"),
    "<": (8, "less"),
    ">": (8, "greater"),
    "<=": (8, "less_equal"),
    ">=": (8, "greater_equal"),
    "==": (7, "equal"),
    "!=": (7, "not_equal"),
}

_INT_DTYPES = {"i": "int32", "i16": "int16", "i32": "int32", "i64": "int64"}
_INT_RANGES = {d: (int(np.iinfo(d).min), int(np.iinfo(d).max)) for d in ("int16", "int32", "int64")}
_ATOM_KINDS = frozenset({T.LOCAL, T.GLOBAL, T.INT, T.FLOAT, T.BOOL, T.GRAPH})
_FLOAT_DTYPES = {"f": "float32", "f16": "float16", "f32": "float32", "f64": "float64"}
_FLOAT_MAX = {d: float(np.finfo(d).max) for d in ("float16", "float32", "float64")}


_X = TypeVar_("_X")

KwargValue: TypeAlias = "AttrValue | VirtualDeviceMeta"
"""A keyword argument as written: a literal, or a virtual device read from the metadata."""


class Parser:
    """A recursive-descent parser over the token list (see the module docstring)."""

    def __init__(self, tokens: list[Token], meta: dict[str, list[object]]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.meta = meta
        self.meta_constants: dict[int, Constant] = {}
        # The names bound at each nesting level, and for each name its bindings, innermost
        # last: lookup is one dictionary access however deep the let-chain.
        self.scopes: list[dict[str, Var]] = []
        self.env: dict[str, list[Var]] = {}
        self.type_scopes: list[dict[str, TypeVar]] = []
        self.graph: dict[int, Expr] = {}
        self.free_vars: dict[str, Var] = {}
        self.implicit_free_vars = False
        self.globals: dict[str, GlobalVar] = {}
        self.type_headers: dict[str, GlobalTypeVar] = {}
        self.constructors: dict[str, Constructor] = {}
        self.depth = 0
        # Tokens added by replacing a Statement with its tokens, which moves later indices.
        self.spliced = 0
        # The operator of each callee name read in a Statement, or None where the name must be
        # read token by token (a constructor, call_lowered, no such operator).
        self.fast_ops: dict[str, tuple[str, OpDef] | None] = {}

    # -- token access ----------------------------------------------------------------------

    @property
    def tok(self) -> Token:
        return self.tokens[self.pos]

    def peek(self, k: int = 1) -> Token:
        return self.tokens[min(self.pos + k, len(self.tokens) - 1)]

    def next(self) -> Token:
        t = self.tokens[self.pos]
        if t.kind is not T.EOF:
            self.pos += 1
        return t

    def error(self, message: str, span: Span | None = None) -> ParseError:
        return ParseError(message, span or self.tok.span)

    def duplicate(self, message: str, span: Span, previous: Span | None) -> ParseError:
        """A duplicate-definition error, with a note pointing at the previous definition."""
        err = ParseError(message, span)
        if previous is not None:
            err.notes.append(("previous definition here", previous))
        return err

    def _found(self) -> str:
        t = self.tok
        if t.kind is T.EOF:
            return "end of file"
        return f"'{t.text}'"

    def expect(self, text: str) -> Token:
        t = self.tokens[self.pos]
        if t.text == text and t.kind is T.PUNCT:  # a PUNCT token is never the last (EOF)
            self.pos += 1
            return t
        raise self.error(f"expected '{text}', found {self._found()}")

    def expect_keyword(self, word: str) -> Token:
        if self.tokens[self.pos].text == word:
            return self.next()
        raise self.error(f"expected '{word}', found {self._found()}")

    def accept(self, text: str) -> Token | None:
        t = self.tokens[self.pos]
        if t.text == text and t.kind is T.PUNCT:
            self.pos += 1
            return t
        return None

    def span_from(self, start: Span | Token) -> Span:
        """From ``start`` (a span, or a token: cheaper) to the end of the last token read."""
        prev = self.tokens[self.pos - 1] if self.pos > 0 else self.tokens[self.pos]
        if isinstance(start, Token):
            if prev.start >= start.start:
                return start.lines.span(start.start, prev.start + len(prev.text))
            start = start.span
        end = prev.span
        if (end.end_line, end.end_column) < (start.end_line, start.end_column):
            return start.merge(end)
        return Span(start.source, start.line, start.column, end.end_line, end.end_column)

    def span_between(self, first: int, last: int) -> Span:
        """From the start of token ``first`` to the end of token ``last`` (indices)."""
        tokens = self.tokens
        return tokens[first].lines.span(tokens[first].start, tokens[max(first, last)].end)

    def nested(self) -> Parser:
        """A context for one more level of nesting (an error past ``MAX_NESTING``).

        The parser is its own context manager: a generator-based one costs a microsecond per
        use, and this one is entered for every call and parenthesis.
        """
        return self

    def __enter__(self) -> None:
        self.depth += 1
        if self.depth > MAX_NESTING:
            self.depth -= 1
            raise self.error(f"nesting too deep: more than {MAX_NESTING} levels")

    def __exit__(self, *exc: object) -> None:
        self.depth -= 1

    def comma_list(self, close: str, item: Callable[[], _X]) -> list[_X]:
        """``item {"," item} [","] close``, or just ``close``; consumes ``close``."""
        out: list[_X] = []
        while self.tokens[self.pos].text != close:
            out.append(item())
            if not self.accept(","):
                break
        self.expect(close)
        return out

    # -- scopes ----------------------------------------------------------------------------

    def push_scope(self) -> None:
        self.scopes.append({})

    def pop_scope(self) -> None:
        for name in self.scopes.pop():
            stack = self.env[name]
            stack.pop()
            if not stack:
                del self.env[name]

    def bind(self, var: Var) -> None:
        scope = self.scopes[-1]
        name = var.name_hint
        if name in scope:
            self.env[name][-1] = var
        else:
            self.env.setdefault(name, []).append(var)
        scope[name] = var

    def lookup_local(self, tok: Token) -> Var:
        name = tok.value
        assert isinstance(name, str)
        stack = self.env.get(name)
        if stack:
            return stack[-1]
        if name in self.free_vars:
            return self.free_vars[name]
        if self.implicit_free_vars:
            var = Var(name, None, span=tok.span)
            self.free_vars[name] = var
            return var
        raise self.error(f"unbound variable %{name}", tok.span)

    # -- files -----------------------------------------------------------------------------

    def parse_file(self) -> IRModule:
        if self.tok.kind is T.VERSION:
            tok = self.next()
            if tok.value != VERSION:
                raise self.error(
                    f"unsupported version {tok.value}: expected #[version = {VERSION}]", tok.span
                )
        first = self.tok
        if first.is_keyword("def") or first.is_keyword("type") or first.is_keyword("extern"):
            return self.parse_module()
        if first.kind is T.EOF:
            return IRModule({}, {})
        return self.parse_bare_expression()

    def parse_bare_expression(self) -> IRModule:
        self.implicit_free_vars = True
        start = self.tok.span
        self.push_scope()
        body = self.parse_expr()
        self.pop_scope()
        if self.tok.kind is not T.EOF:
            raise self.error(f"expected end of file, found {self._found()}")
        fn = Function(tuple(self.free_vars.values()), body, span=self.span_from(start))
        return IRModule({GlobalVar("main", span=start): fn}, {})

    def parse_module(self) -> IRModule:
        # Pass 1: type definitions, and the names of all globals (forward references work).
        type_defs: list[TypeData] = []
        def_starts: list[int] = []
        self.scan_type_headers()
        while self.tok.kind is not T.EOF:
            if self.tokens[self.pos].text == "def":
                def_starts.append(self.pos)
                self.next()
                name_tok = self.tok
                if name_tok.kind is not T.GLOBAL:
                    raise self.error(f"expected a global name after 'def', found {self._found()}")
                name = str(name_tok.value)
                if name in self.globals:
                    raise self.duplicate(
                        f"duplicate definition of @{name}", name_tok.span, self.globals[name].span
                    )
                self.globals[name] = GlobalVar(name, span=name_tok.span)
                self.skip_definition()
            elif self.tokens[self.pos].text == "type" or self.tokens[self.pos].text == "extern":
                type_defs.append(self.parse_type_definition())
            else:
                raise self.error(f"expected 'def', 'type' or end of file, found {self._found()}")
        end = self.pos
        # Pass 2: the function definitions.
        functions: dict[GlobalVar, Function] = {}
        for start in def_starts:
            self.pos = start + self.spliced
            start_span = self.next().span
            gv = self.globals[str(self.next().value)]
            self.graph = {}
            self.depth = -1  # a definition's own parameter list and body are level 0
            functions[gv] = self.parse_fn_rest(start_span)
        self.pos = end + self.spliced
        types = {d.header: d for d in type_defs}
        return IRModule(functions, types)

    def scan_type_headers(self) -> None:
        """Record every type name first, so that types may refer to later definitions."""
        for i, tok in enumerate(self.tokens):
            if tok.text == "type" and tok.kind is T.KEYWORD and self.tokens[i + 1].kind is T.IDENT:
                name_tok = self.tokens[i + 1]
                name = str(name_tok.value)
                if name in self.type_headers:
                    raise self.duplicate(
                        f"duplicate definition of type {name}",
                        name_tok.span,
                        self.type_headers[name].span,
                    )
                self.type_headers[name] = GlobalTypeVar(name, span=name_tok.span)

    def skip_definition(self) -> None:
        """Skip a ``def`` up to and including the brace that closes its body."""
        # The body is the first brace outside the parameter list's parentheses (a parameter
        # may carry braces of its own, ``%x {virtual_device=...}``).
        depth = 0
        parens = 0
        tokens = self.tokens
        punct = T.PUNCT
        last = len(tokens) - 1  # the EOF token
        i = self.pos
        while i < last:
            t = tokens[i]
            i += 1
            if t.kind is not punct:
                continue
            text = t.text
            if text == "(" and depth == 0:
                parens += 1
            elif text == ")" and depth == 0:
                parens -= 1
            elif text == "{" and (depth > 0 or parens <= 0):
                depth += 1
            elif text == "}" and depth > 0:
                depth -= 1
                if depth == 0:
                    self.pos = i
                    return
        self.pos = last
        raise self.error("unexpected end of file in a definition: a '}' is missing")

    def parse_type_definition(self) -> TypeData:
        start = self.tok.span
        extern = self.accept_keyword("extern")
        self.expect_keyword("type")
        name_tok = self.tok
        if name_tok.kind is not T.IDENT:
            raise self.error(f"expected a type name, found {self._found()}")
        self.next()
        header = self.type_headers[str(name_tok.value)]
        type_vars: list[TypeVar] = []
        if self.accept("["):
            type_vars = self.comma_list("]", self.parse_type_param)
        self.type_scopes.append({tv.name: tv for tv in type_vars})
        constructors: list[Constructor] = []
        if self.tokens[self.pos].text == "{":
            brace = self.next()
            if extern:
                raise self.error("an extern type cannot have constructors", brace.span)
            while self.tokens[self.pos].text != "}":
                constructors.append(self.parse_constructor_def(header, len(constructors)))
                if not self.accept(","):
                    break
            self.expect("}")
        self.type_scopes.pop()
        return TypeData(header, tuple(type_vars), tuple(constructors), extern,
                        span=self.span_from(start))  # fmt: skip

    def accept_keyword(self, word: str) -> bool:
        if self.tokens[self.pos].text == word:
            self.next()
            return True
        return False

    def parse_type_param(self) -> TypeVar:
        tok = self.tok
        if tok.kind is not T.IDENT:
            raise self.error(f"expected a type parameter name, found {self._found()}")
        self.next()
        return TypeVar(str(tok.value), span=tok.span)

    def parse_constructor_def(self, header: GlobalTypeVar, tag: int) -> Constructor:
        tok = self.tok
        if tok.kind is not T.IDENT:
            raise self.error(f"expected a constructor name, found {self._found()}")
        self.next()
        name = str(tok.value)
        if name in self.constructors:
            raise self.duplicate(
                f"duplicate constructor {name}", tok.span, self.constructors[name].span
            )
        if lookup(name) is not None:
            raise self.error(f"constructor {name} has the name of an operator", tok.span)
        inputs: list[Type] = []
        if self.accept("("):
            inputs = self.comma_list(")", self.parse_type)
        ctor = Constructor(name, tuple(inputs), header, tag, span=self.span_from(tok))
        self.constructors[name] = ctor
        return ctor

    # -- functions -------------------------------------------------------------------------

    def parse_fn_rest(self, start: Span) -> Function:
        """``[ "[" ids "]" ] "(" params ")" [ "->" type ] "{" expr "}"`` after fn or def @f."""
        with self.nested():
            type_params: list[TypeVar] = []
            if self.accept("["):
                type_params = self.comma_list("]", self.parse_type_param)
            self.type_scopes.append({tv.name: tv for tv in type_params})
            self.expect("(")
            params: list[Var] = []
            attrs: list[tuple[str, KwargValue]] = []
            self.push_scope()
            while self.tokens[self.pos].text != ")":
                if self.at_keyword_argument():
                    attrs = self.parse_kwargs(")")
                    break
                var = self.parse_binder(braces=True)
                if var.name_hint in self.scopes[-1]:
                    raise self.duplicate(
                        f"duplicate parameter %{var.name_hint}",
                        var.span or self.tok.span,
                        self.scopes[-1][var.name_hint].span,
                    )
                self.bind(var)
                params.append(var)
                if not self.accept(","):
                    break
            self.expect(")")
            ret_type: Type | None = None
            if self.accept("->"):
                ret_type = self.parse_type()
            self.expect("{")
            body = self.parse_expr()
            self.expect("}")
            self.pop_scope()
            self.type_scopes.pop()
            return Function(tuple(params), body, ret_type, tuple(type_params),
                            self.function_attrs(attrs), span=self.span_from(start))  # fmt: skip

    def function_attrs(
        self, attrs: list[tuple[str, KwargValue]]
    ) -> tuple[tuple[str, AttrValue], ...]:
        """A function's attributes; ``virtual_device=`` is its placement, which is dropped
        (as TVM moved it out of the attributes; placement does not change the meaning)."""
        out: list[tuple[str, AttrValue]] = []
        for key, value in attrs:
            if isinstance(value, VirtualDeviceMeta):
                if key != "virtual_device":
                    raise self.error(f"a virtual device cannot be the value of attribute '{key}'")
                continue
            out.append((key, value))
        return tuple(out)

    def parse_binder(self, *, braces: bool = False) -> Var:
        """``%x [: type]``; with ``braces`` (a parameter) also ``%x {virtual_device=...}``.

        The braces are TVM's device placement of a parameter, which does not change what the
        program computes: they are read (so their metadata must exist) and dropped.
        """
        tok = self.tok
        if tok.kind is not T.LOCAL:
            raise self.error(f"expected a variable such as %x, found {self._found()}")
        self.next()
        if braces and self.tokens[self.pos].text == "{":
            self.next()
            self.parse_kwargs("}")
            self.expect("}")
        annotation: Type | None = None
        if self.accept(":"):
            annotation = self.parse_type()
        return Var(str(tok.value), annotation, span=self.span_from(tok))

    # -- keyword arguments -----------------------------------------------------------------

    def at_keyword_argument(self) -> bool:
        if self.tok.kind is not T.IDENT:
            return False
        k = 1
        while self.peek(k).is_punct(".") and self.peek(k + 1).kind is T.IDENT:
            k += 2
        return self.peek(k).is_punct("=")

    def parse_kwargs(self, close: str) -> list[tuple[str, KwargValue]]:
        """``key=value {[","] key=value} [","]`` up to (not including) ``close``."""
        out: list[tuple[str, KwargValue]] = []
        seen: set[str] = set()
        while self.tokens[self.pos].text != close:
            key_tok = self.tok
            if not self.at_keyword_argument():
                raise self.error(f"expected a keyword argument key=value, found {self._found()}")
            parts = [str(self.next().value)]
            while self.accept("."):
                parts.append(str(self.next().value))
            key = ".".join(parts)
            if key in seen:
                raise self.error(f"duplicate attribute '{key}'", key_tok.span)
            seen.add(key)
            self.expect("=")
            out.append((key, self.parse_attr_value()))
            self.accept(",")
        return out

    def parse_attr_value(self) -> KwargValue:
        tok = self.tok
        if tok.kind is T.META:
            # TVM printed a placement as a metadata reference: virtual_device=meta[..][i].
            self.next()
            entry = self.meta_entry(tok)
            if not isinstance(entry, VirtualDeviceMeta):
                raise self.error(f"{tok.text} cannot be an attribute value", tok.span)
            return entry
        with self.nested():
            if tok.kind is T.INT or tok.kind is T.FLOAT:
                self.next()
                return self.attr_number(tok)
            if tok.kind is T.BOOL:
                self.next()
                return bool(tok.value)
            if tok.kind is T.STRING:
                self.next()
                return str(tok.value)
            if tok.kind is T.IDENT and tok.value in ("None", "nullptr"):
                self.next()
                return None
            if tok.is_punct("["):
                self.next()
                return tuple(self.comma_list("]", self.parse_plain_attr_value))
            if tok.is_punct("("):
                self.next()
                items = self.comma_list(")", self.parse_plain_attr_value)
                return items[0] if len(items) == 1 else tuple(items)
            if tok.kind is T.IDENT:
                raise self.error(
                    f'attribute values must be literals: write the string "{tok.value}"'
                )
            raise self.error(f"expected an attribute value, found {self._found()}")

    def parse_plain_attr_value(self) -> AttrValue:
        """An attribute value inside a list: a literal, never a virtual device."""
        tok = self.tok
        value = self.parse_attr_value()
        if isinstance(value, VirtualDeviceMeta):
            raise self.error("a virtual device cannot be inside a list", tok.span)
        return value

    # -- expressions -----------------------------------------------------------------------

    def parse_expr(self) -> Expr:
        """``{ binding | free_var | stmt ";" } stmt``, iteratively, so chains may be long."""
        # Each pending item wraps the rest: (var, value, span) is a let (var None: a sequence).
        pending: list[tuple[Var | None, Expr, Span]] = []
        opened = 0
        try:
            while True:
                tok = self.tok
                if type(tok) is Statement:
                    built = self.parse_statement(tok)
                    if built is not None:
                        var, value, first = built
                        if var is not None:  # push_scope() and bind(var), inline
                            name = var.name_hint
                            self.scopes.append({name: var})
                            self.env.setdefault(name, []).append(var)
                            opened += 1
                            pending.append((var, value, first))
                        self.pos += 1  # its ';'
                        continue
                    tok = self.tok  # it was replaced by its tokens
                if tok.is_keyword("let"):
                    self.next()
                    var = self.parse_binder()
                    self.push_scope()
                    opened += 1
                    self.expect("=")
                    # A function may call itself through its let variable (a recursive
                    # closure); any other value sees the enclosing binding of the name.
                    recursive = self.tokens[self.pos].text == "fn"
                    if recursive:
                        self.bind(var)
                    value = self.parse_rhs()
                    self.bind(var)
                    self.expect(";")
                    pending.append((var, value, tok.span))
                    continue
                if tok.kind is T.GRAPH and self.peek().is_punct("="):
                    self.next()
                    self.next()
                    value = self.parse_rhs()
                    self.expect(";")
                    number = int(str(tok.value))
                    if number in self.graph:
                        raise self.error(f"graph variable %{number} is bound twice", tok.span)
                    self.graph[number] = value
                    continue
                if tok.is_keyword("free_var"):
                    self.next()
                    var = self.parse_binder()
                    self.free_vars.setdefault(var.name_hint, var)
                    if self.tokens[self.pos].text != ";":
                        raise self.error("a free_var declaration must be followed by ';'")
                    self.next()
                    continue
                stmt = self.parse_stmt()
                if self.tokens[self.pos].text == ";":
                    self.next()
                    pending.append((None, stmt, stmt.span or tok.span))
                    continue
                break
        finally:
            # pop_scope() for each, inline: a let-chain opens one scope per binding.
            scopes, env = self.scopes, self.env
            for _ in range(opened):
                for name in scopes.pop():
                    stack = env[name]
                    stack.pop()
                    if not stack:
                        del env[name]
        result = stmt
        for maybe_var, value, span in reversed(pending):
            var = Var("_", None, span=span) if maybe_var is None else maybe_var
            end = result.span
            if end is not None and end.source is span.source:
                # The body follows the binding: the let runs from one to the end of the other.
                span = Span(span.source, span.line, span.column, end.end_line, end.end_column)
            result = Let(var, value, result, span=span)
        return result

    def parse_statement(self, tok: Token) -> tuple[Var | None, Expr, Span] | None:
        """A ``Statement`` (``let %x = op(%a, 2f)`` ...) built from its text: the let's
        variable (None for ``%N = ...``, which this registers), the value and the span of its
        first token (a let's span starts as that), or None when it is not plain, after which
        its tokens stand in its place and the caller reads those.

        The nodes, spans and checks are those the token-by-token path makes; any doubt (an
        unbound name, a constructor, an attribute or literal error ...) takes that path, which
        then reports the error itself, so the two cannot differ.
        """
        lines = tok.lines
        text = lines.source.text
        m = STATEMENT.match(text, tok.start)
        assert m is not None
        after = self.tokens[self.pos + 1]
        built = None
        if after.kind is T.PUNCT and after.text == ";" and self.depth + 3 <= MAX_NESTING:
            try:
                built = self.build_statement(tok, m, lines, text)
            except ParseError:
                built = None
        if built is None:
            plain = Lexer(lines.source, lines).lex_range(m.start(), m.end())
            self.tokens[self.pos : self.pos + 1] = plain
            self.spliced += len(plain) - 1
            return None
        self.pos += 1
        return built

    def build_statement(
        self, tok: Token, m: re.Match[str], lines: LineIndex, text: str
    ) -> tuple[Var | None, Expr, Span] | None:
        """The nodes of the statement ``m`` matched (see ``parse_statement``) and the span of
        its first token, or None."""
        source = lines.source
        start = tok.start
        line, base, limit = lines.line_of(start)
        if m.end() > limit:  # a statement is nearly always on one line: columns by subtraction
            return None
        base -= 1
        first = Span(source, line, start - base, line, start + len(tok.text) - base)
        var_name, tensor, dims, dtype, scalar, _, call, _, _, fields, _, _, index = m.groups()
        value: Expr | None
        if call is not None:
            value = self.build_call(m, text, lines, line, base)
        elif fields is not None:
            items = self.build_items(text, m.start("fields"), m.end("fields"), lines)
            if items is None:
                return None
            span = Span(source, line, m.start("tuple") - base, line, m.end("tuple") - base)
            value = Tuple(tuple(items), span=span)
        else:
            items = self.build_items(text, m.start("base"), m.end("base"), lines)
            if items is None:
                return None
            value = items[0]
            if index is not None:
                span = Span(source, line, m.start("base") - base, line, m.end("index") - base)
                value = TupleGetItem(value, int(index), span=span)
        if value is None:
            return None
        if var_name is None:
            number = tok.value
            assert isinstance(number, int)
            if number in self.graph:
                return None
            self.graph[number] = value
            return None, value, first
        annotation: Type | None = None
        end = m.end("var")
        if tensor is not None:
            if dtype not in DTYPES and dtype != "int":
                return None
            shape: tuple[Dim, ...] = () if dims is None else tuple(map(int, dims.split(",")))
            end = m.end("tensor")
            span = Span(source, line, m.start("tensor") - base, line, end - base)
            annotation = TensorType(shape, _dtype_name(dtype), span=span)
        elif scalar is not None:
            if scalar not in DTYPES and scalar != "int":
                return None
            end = m.end("scalar")
            span = Span(source, line, m.start("scalar") - base, line, end - base)
            annotation = TensorType((), _dtype_name(scalar), span=span)
        span = Span(source, line, m.start("var") - 1 - base, line, end - base)
        return Var(var_name, annotation, span=span), value, first

    def build_call(
        self, m: re.Match[str], text: str, lines: LineIndex, line: int, base: int
    ) -> Expr | None:
        """``op(items)`` of a ``Statement``, as ``make_op_call`` builds it, or None."""
        written = m.group("op")
        if written in self.fast_ops:
            known = self.fast_ops[written]
        else:
            known = self.fast_ops[written] = self.fast_op(written)
        if known is None:
            return None
        name, opdef = known
        args: list[Expr] = []
        kwargs: list[tuple[str, KwargValue]] = []
        start, end = m.span("args")
        item = ITEM.match
        env = self.env
        while start < end:
            im = item(text, start, end)
            if im is None:
                return None
            start = im.end()
            key, _, local = im.group(1, 2, 3)
            if key is None:
                if kwargs:
                    return None
                arg: Expr | None
                if local is not None:  # the common case, inline
                    stack = env.get(local)
                    arg = stack[-1] if stack else self.free_vars.get(local)
                else:
                    arg = self.build_atom(im, lines)
                if arg is None:
                    return None
                args.append(arg)
                continue
            if not is_bare_name(key) or any(k == key for k, _ in kwargs):
                return None
            attr = self.build_attr_value(im, text, lines)
            if attr is None:
                return None
            kwargs.append((key, attr[0]))
        source = lines.source
        call_span = Span(source, line, m.start("call") - base, line, m.end("call") - base)
        op = Op(name, span=Span(source, line, m.start("op") - base, line, m.end("op") - base))
        if not kwargs and opdef.attrs_type is None and len(args) == opdef.num_inputs:
            return Call(op, tuple(args), None, span=call_span)  # make_op_call's common case
        return self.make_op_call(op, args, kwargs, call_span, call_span)

    def fast_op(self, written: str) -> tuple[str, OpDef] | None:
        """The operator ``written`` names (``nn . softmax`` is ``nn.softmax``), or None where
        ``parse_name`` would not read it as an operator."""
        name = "".join(written.split())
        parts = name.split(".")
        if not all(is_bare_name(part) for part in parts) or parts[0] in self.constructors:
            return None
        opdef = lookup(name)
        if name == CALL_LOWERED or opdef is None:
            return None
        return name, opdef

    def build_items(self, text: str, start: int, end: int, lines: LineIndex) -> list[Expr] | None:
        """The atoms of ``text[start:end]`` (a ``Statement``'s fields or value), or None."""
        out: list[Expr] = []
        item = ITEM.match
        env = self.env
        while start < end:
            im = item(text, start, end)
            if im is None:
                return None
            start = im.end()
            key, _, local = im.group(1, 2, 3)
            if key is not None:
                return None
            atom: Expr | None
            if local is not None:  # the common case, inline
                stack = env.get(local)
                atom = stack[-1] if stack else self.free_vars.get(local)
            else:
                atom = self.build_atom(im, lines)
            if atom is None:
                return None
            out.append(atom)
        return out

    def build_atom(self, im: re.Match[str], lines: LineIndex) -> Expr | None:
        """The expression of an atom ``ITEM`` matched, as ``parse_primary`` reads it, or None."""
        name = im.group("local")
        if name is not None:
            stack = self.env.get(name)
            if stack:
                return stack[-1]
            return self.free_vars.get(name)
        graph = im.group("graph")
        if graph is not None:
            return self.graph.get(int(graph))
        number = self.number_token(im, lines)
        if number is not None:
            return Constant(self.number_value(number), span=number.span)
        if im.group("bool") is not None:
            start, end = im.span("bool")
            return Constant(np.array(im.group("bool") == "True"), span=lines.span(start, end))
        return None

    def number_token(self, im: re.Match[str], lines: LineIndex) -> Token | None:
        """The token of the number ``ITEM`` matched, as the lexer makes it, or None."""
        written = im.group("number")
        if written is None:
            return None
        suffix = im.group("suffix") or ""
        kind = T.FLOAT if suffix.startswith("f") else T.INT
        number = Number(im.group("digits"), im.group("minus") is not None, suffix)
        return Token(kind, written, number, im.start("number"), lines)

    def build_attr_value(
        self, im: re.Match[str], text: str, lines: LineIndex
    ) -> tuple[AttrValue] | None:
        """The attribute value ``ITEM`` matched, as ``parse_attr_value`` reads it, or None."""
        digits = im.group("digits")
        plain = digits is not None and len(digits) <= 9 and "." not in digits
        if plain and im.group("suffix") is None:  # an int32: what attr_number gives, no numpy
            assert digits is not None
            return (-int(digits) if im.group("minus") else int(digits),)
        number = self.number_token(im, lines)
        if number is not None:
            return (self.attr_number(number),)
        written = im.group("bool")
        if written is not None:
            return (written == "True",)
        written = im.group("string")
        if written is not None:
            return (written,)
        if im.group("list") is None:
            return None
        values: list[AttrValue] = []
        start, end = im.span("list")
        while start < end:
            item = ITEM.match(text, start, end)
            if item is None:
                return None
            start = item.end()
            number = self.number_token(item, lines)
            if number is None or item.group("key") is not None:
                return None
            values.append(self.attr_number(number))
        return (tuple(values),)

    def parse_arg(self) -> Expr:
        """An argument or tuple field: ``parse_expr``, shortcut for an atom before , or )."""
        tok = self.tokens[self.pos]
        if tok.kind in _ATOM_KINDS:
            after = self.tokens[self.pos + 1]  # tok is not EOF, so a token follows
            if after.kind is T.PUNCT and (after.text == "," or after.text == ")"):
                return self.parse_primary()
        return self.parse_expr()

    def parse_rhs(self) -> Expr:
        if self.tokens[self.pos].text == "match" or self.tokens[self.pos].text == "match?":
            return self.parse_match()
        return self.parse_binexpr()

    def parse_stmt(self) -> Expr:
        tok = self.tok
        if tok.is_punct("{"):
            with self.nested():
                self.next()
                self.push_scope()
                body = self.parse_expr()
                self.pop_scope()
                self.expect("}")
                return body
        if tok.is_keyword("match") or tok.is_keyword("match?"):
            return self.parse_match()
        if tok.kind is T.EOF:
            raise self.error("expected an expression, found end of file")
        return self.parse_binexpr()

    def parse_binexpr(self) -> Expr:
        """Operator-precedence parsing, with a stack: all operators are left-associative."""
        # Each operand keeps the span of its own text: a variable's node carries the span of
        # its binder, which is not where this use is written.
        first = self.pos
        e = self.parse_postfix()
        tok = self.tokens[self.pos]
        if tok.kind is not T.PUNCT or tok.text not in _BINARY_OPS:
            return e  # no operator: the operand's span is not needed
        operands: list[tuple[Expr, Span]] = [(e, self.span_between(first, self.pos - 1))]
        operators: list[tuple[int, str, Span]] = []

        def reduce() -> None:
            _, name, op_span = operators.pop()
            rhs, rhs_span = operands.pop()
            lhs, lhs_span = operands.pop()
            span = lhs_span.merge(rhs_span)
            operands.append((Call(Op(name, span=op_span), (lhs, rhs), None, span=span), span))

        while self.tok.kind is T.PUNCT and self.tok.text in _BINARY_OPS:
            op_tok = self.next()
            prec, name = _BINARY_OPS[op_tok.text]
            while operators and operators[-1][0] >= prec:
                reduce()
            operators.append((prec, name, op_tok.span))
            operands.append(self.parse_operand())
        while operators:
            reduce()
        return operands[0][0]

    def parse_operand(self) -> tuple[Expr, Span]:
        start = self.tok.span
        e = self.parse_postfix()
        return e, self.span_from(start)

    def parse_postfix(self) -> Expr:
        first = self.tokens[self.pos]
        e = self.parse_primary()
        while True:
            text = self.tokens[self.pos].text
            if text == "(" and self.tokens[self.pos].kind is T.PUNCT:
                e = self.parse_call(e, first)
            elif (
                text == "." and self.tokens[self.pos].kind is T.PUNCT and self.peek().kind is T.INT
            ):
                start = first.span
                self.next()
                index_tok = self.next()
                assert isinstance(index_tok.value, Number)
                if index_tok.value.suffix or "e" in index_tok.text.lower():
                    raise self.error("a tuple index must be a plain integer", index_tok.span)
                for part in index_tok.text.strip(".").split("."):
                    e = TupleGetItem(e, int(part), span=self.span_from(start))
            else:
                return e

    def parse_call(self, callee: Expr, start: Token) -> Expr:
        with self.nested():
            self.expect("(")
            args: list[Expr] = []
            kwargs: list[tuple[str, KwargValue]] = []
            kwargs_span = self.tok.span
            while self.tokens[self.pos].text != ")":
                if self.at_keyword_argument():
                    kwargs_span = self.tok.span
                    kwargs = self.parse_kwargs(")")
                    break
                args.append(self.parse_arg())
                if not self.accept(","):
                    break
            self.expect(")")
        span = self.span_from(start)
        if isinstance(callee, Op) and callee.name == CALL_LOWERED and lookup(CALL_LOWERED) is None:
            return self.make_lowered_call(args, kwargs, span, kwargs_span)
        if isinstance(callee, Op):
            return self.make_op_call(callee, args, kwargs, span, kwargs_span)
        if kwargs:
            raise self.error("keyword attributes are only allowed in operator calls", kwargs_span)
        return Call(callee, tuple(args), None, span=span)

    def make_lowered_call(
        self,
        args: list[Expr],
        kwargs: list[tuple[str, KwargValue]],
        span: Span,
        kwargs_span: Span,
    ) -> Call:
        """``call_lowered(f, (a1, .., an))`` is the call ``f(a1, .., an)`` (see the module
        docstring); a ``metadata`` attribute, TVM's name for the lowered function, is dropped."""
        if len(args) != 2:
            raise self.error(
                f"{CALL_LOWERED} expects 2 arguments (a function and a tuple of its arguments), "
                f"found {len(args)}",
                span,
            )
        for key, _ in kwargs:
            if key != "metadata":
                where = self.find_kwarg_span(key, kwargs_span, span)
                raise self.error(f"{CALL_LOWERED}: unknown attribute '{key}'", where)
        callee, arguments = args
        if not isinstance(arguments, Tuple):
            raise self.error(
                f"{CALL_LOWERED}: the arguments must be a tuple written out, such as (%x, %y)",
                span,
            )
        return Call(callee, arguments.fields, None, span=span)

    def make_op_call(
        self,
        op: Op,
        args: list[Expr],
        raw_kwargs: list[tuple[str, KwargValue]],
        span: Span,
        kwargs_span: Span,
    ) -> Call:
        opdef = lookup(op.name)
        assert opdef is not None
        if len(args) != opdef.num_inputs:
            inputs = ", ".join(opdef.inputs)
            raise self.error(
                f"operator {op.name} expects {opdef.num_inputs} argument"
                f"{'' if opdef.num_inputs == 1 else 's'} ({inputs}), found {len(args)}",
                span,
            )
        if opdef.attrs_type is None:
            if raw_kwargs:
                raise self.error(f"operator {op.name} takes no attributes", kwargs_span)
            return Call(op, tuple(args), None, span=span)
        kwargs: list[tuple[str, AttrValue]] = []
        for key, value in raw_kwargs:
            if isinstance(value, VirtualDeviceMeta):
                kwargs = self.expand_virtual_devices(
                    op.name, opdef.attrs_type, raw_kwargs, kwargs_span
                )
                break
            kwargs.append((key, value))
        try:
            attrs = opdef.attrs_type.from_kwargs(dict(kwargs))
        except AttrError as err:
            where = self.find_kwarg_span(err.key, kwargs_span, span)
            raise self.error(f"{op.name}: {err.message}", where) from None
        return Call(op, tuple(args), attrs, span=span)

    def expand_virtual_devices(
        self,
        op_name: str,
        attrs_type: type,
        kwargs: list[tuple[str, KwargValue]],
        kwargs_span: Span,
    ) -> list[tuple[str, AttrValue]]:
        """``PREFIXvirtual_device=meta[VirtualDevice][i]`` becomes the attributes that hold a
        virtual device here: ``PREFIX{device_type|dev_type}``, ``PREFIXvirtual_device_id`` and
        ``PREFIXmemory_scope`` (``on_device``: no prefix; ``device_copy``: ``src_``, ``dst_``).
        """
        names = {f.name for f in dataclasses.fields(attrs_type)}
        out: list[tuple[str, AttrValue]] = []
        for key, value in kwargs:
            if not isinstance(value, VirtualDeviceMeta):
                out.append((key, value))
                continue
            prefix = key.removesuffix("virtual_device")
            kinds = [f"{prefix}{n}" for n in ("device_type", "dev_type") if f"{prefix}{n}" in names]
            fields = [*kinds[:1], f"{prefix}virtual_device_id", f"{prefix}memory_scope"]
            if not key.endswith("virtual_device") or not kinds or not set(fields) <= names:
                where = self.find_kwarg_span(key, kwargs_span, kwargs_span)
                raise self.error(f"{op_name}: '{key}' is not a virtual device attribute", where)
            values = (value.device_type, value.virtual_device_id, value.memory_scope)
            out.extend(zip(fields, values, strict=True))
        seen: set[str] = set()
        for key, _ in out:
            if key in seen:
                where = self.find_kwarg_span(key, kwargs_span, kwargs_span)
                raise self.error(
                    f"duplicate attribute '{key}' (also set by a virtual device)", where
                )
            seen.add(key)
        return out

    def find_kwarg_span(self, key: str, kwargs_span: Span, call_span: Span) -> Span:
        """The span of ``key=`` inside the just-parsed call, for the error caret."""
        i = self.pos - 1
        while i >= 0 and self.tokens[i].span != kwargs_span:
            if self.tokens[i].kind is T.IDENT and self.tokens[i].value == key:
                return self.tokens[i].span
            i -= 1
        if self.tokens[max(i, 0)].kind is T.IDENT and self.tokens[max(i, 0)].value == key:
            return kwargs_span
        return call_span

    def parse_primary(self) -> Expr:
        tok = self.tok
        kind = tok.kind
        if kind is T.INT or kind is T.FLOAT:
            self.next()
            return Constant(self.number_value(tok), span=tok.span)
        if kind is T.BOOL:
            self.next()
            return Constant(np.array(bool(tok.value)), span=tok.span)
        if kind is T.LOCAL:
            self.next()
            return self.lookup_local(tok)
        if kind is T.GLOBAL:
            self.next()
            name = str(tok.value)
            if name not in self.globals:
                raise self.error(f"undefined global @{name}", tok.span)
            return self.globals[name]
        if kind is T.GRAPH:
            self.next()
            number = int(str(tok.value))
            if number not in self.graph:
                raise self.error(f"graph variable %{number} is used before it is bound", tok.span)
            return self.graph[number]
        if kind is T.META:
            self.next()
            return self.meta_constant(tok)
        if kind is T.IDENT:
            return self.parse_name()
        if kind is T.KEYWORD:
            if tok.text == "fn":
                self.next()
                return self.parse_fn_rest(tok.span)
            if tok.text == "if":
                return self.parse_if()
            if tok.text in ("ref", "ref_read"):
                with self.nested():
                    self.next()
                    self.expect("(")
                    inner = self.parse_expr()
                    self.expect(")")
                span = self.span_from(tok)
                if tok.text == "ref":
                    return RefCreate(inner, span=span)
                return RefRead(inner, span=span)
            if tok.text == "ref_write":
                with self.nested():
                    self.next()
                    self.expect("(")
                    ref = self.parse_expr()
                    self.expect(",")
                    value = self.parse_expr()
                    self.expect(")")
                return RefWrite(ref, value, span=self.span_from(tok))
            if tok.text in ("match", "match?"):
                return self.parse_match()
        if tok.is_punct("("):
            return self.parse_paren()
        if tok.is_punct("{"):
            return self.parse_stmt()
        if kind is T.VERSION:
            raise self.error("a version header may only appear at the start of the file")
        raise self.error(f"expected an expression, found {self._found()}")

    def parse_paren(self) -> Expr:
        start = self.tok.span
        with self.nested():
            self.next()
            if self.accept(")"):
                return Tuple((), span=self.span_from(start))
            first = self.parse_arg()
            if self.accept(")"):
                return first
            self.expect(",")
            fields = [first]
            while self.tokens[self.pos].text != ")":
                fields.append(self.parse_arg())
                if not self.accept(","):
                    break
            self.expect(")")
        return Tuple(tuple(fields), span=self.span_from(start))

    def parse_name(self) -> Expr:
        tok = self.next()
        name = str(tok.value)
        if name in self.constructors:
            ctor = self.constructors[name]
            if not ctor.inputs and not self.tok.is_punct("("):
                # A nullary constructor written bare is its (empty) application, as in TVM.
                return Call(ctor, (), None, span=tok.span)
            return ctor
        while self.tokens[self.pos].text == "." and self.peek().kind is T.IDENT:
            self.next()
            name += "." + str(self.next().value)
        span = self.span_from(tok)
        if name == CALL_LOWERED and lookup(name) is None and self.tok.is_punct("("):
            return Op(name, span=span)  # parse_call reads it as a plain call
        if lookup(name) is None:
            raise self.error(f"unknown operator or constructor '{name}'", span)
        return Op(name, span=span)

    def parse_if(self) -> Expr:
        start = self.next().span
        with self.nested():
            self.expect("(")
            cond = self.parse_expr()
            self.expect(")")
            then = self.parse_block()
            self.expect_keyword("else")
            otherwise = self.parse_block()
        return If(cond, then, otherwise, span=self.span_from(start))

    def parse_block(self) -> Expr:
        self.expect("{")
        self.push_scope()
        body = self.parse_expr()
        self.pop_scope()
        self.expect("}")
        return body

    def parse_match(self) -> Expr:
        tok = self.next()
        complete = tok.text == "match"
        with self.nested():
            data = self.parse_postfix()
            self.expect("{")
            clauses: list[Clause] = []
            while self.tokens[self.pos].text != "}":
                start = self.tok.span
                self.push_scope()
                pattern = self.parse_pattern()
                self.expect("=>")
                rhs = self.parse_block() if self.tokens[self.pos].text == "{" else self.parse_expr()
                self.pop_scope()
                clauses.append(Clause(pattern, rhs, span=self.span_from(start)))
                if not self.accept(","):
                    break
            self.expect("}")
        return Match(data, tuple(clauses), complete, span=self.span_from(tok))

    def parse_pattern(self) -> Pattern:
        tok = self.tok
        with self.nested():
            if tok.is_punct("_"):
                self.next()
                return PatternWildcard(span=tok.span)
            if tok.kind is T.LOCAL:
                var = self.parse_binder()
                if var.name_hint in self.scopes[-1]:
                    raise self.error(f"%{var.name_hint} is bound twice in one pattern", tok.span)
                self.bind(var)
                return PatternVar(var, span=var.span)
            if tok.kind is T.IDENT:
                self.next()
                name = str(tok.value)
                if name not in self.constructors:
                    raise self.error(f"unknown constructor {name}", tok.span)
                ctor = self.constructors[name]
                patterns: list[Pattern] = []
                if self.accept("("):
                    patterns = self.comma_list(")", self.parse_pattern)
                if len(patterns) != len(ctor.inputs):
                    raise self.error(
                        f"constructor {name} has {len(ctor.inputs)} field"
                        f"{'' if len(ctor.inputs) == 1 else 's'}, but the pattern has "
                        f"{len(patterns)}",
                        self.span_from(tok),
                    )
                return PatternConstructor(ctor, tuple(patterns), span=self.span_from(tok))
            if tok.is_punct("("):
                self.next()
                patterns = self.comma_list(")", self.parse_pattern)
                return PatternTuple(tuple(patterns), span=self.span_from(tok))
            raise self.error(f"expected a pattern, found {self._found()}")

    # -- literals --------------------------------------------------------------------------

    def number_value(self, tok: Token) -> npt.NDArray[np.generic]:
        """The rank-0 array a numeric literal denotes, with TVM's dtype and range rules."""
        num = tok.value
        assert isinstance(num, Number)
        text = num.text
        if tok.kind is T.INT:
            if "." in text or "e" in text.lower():
                raise self.error(
                    f"invalid literal {tok.text}: a float literal needs its f suffix ({tok.text}f)",
                    tok.span,
                )
            if num.suffix and num.suffix not in _INT_DTYPES:
                raise self.error(
                    f"invalid literal {tok.text}: integer widths are i16, i32 and i64", tok.span
                )
            if len(text) > 20:  # beyond every width; int() of huge text is slow
                raise self.error(f"integer literal {tok.text} does not fit int64", tok.span)
            value = -int(text) if num.negative else int(text)
            dtype = _INT_DTYPES.get(num.suffix, "int32")
            low, high = _INT_RANGES[dtype]
            if not num.suffix and not low <= value <= high:
                dtype = "int64"
                low, high = _INT_RANGES[dtype]
            if not low <= value <= high:
                raise self.error(f"integer literal {tok.text} does not fit {dtype}", tok.span)
            return np.array(value, dtype=dtype)
        if num.suffix not in _FLOAT_DTYPES:
            raise self.error(
                f"invalid literal {tok.text}: float widths are f16, f32 and f64", tok.span
            )
        dtype = _FLOAT_DTYPES[num.suffix]
        if text == "inff":
            fvalue = float("inf")
        elif text == "nanf":
            fvalue = float("nan")
        else:
            fvalue = float(text)
        if num.negative:
            fvalue = -fvalue
        if -_FLOAT_MAX[dtype] <= fvalue <= _FLOAT_MAX[dtype]:
            return np.array(fvalue, dtype=dtype)  # cannot overflow: no errstate (microseconds)
        with np.errstate(over="ignore"):
            array = np.array(fvalue, dtype=dtype)
        if np.isfinite(fvalue) and not np.isfinite(array):
            raise self.error(f"float literal {tok.text} does not fit {dtype}", tok.span)
        return array

    def attr_number(self, tok: Token) -> int | float:
        """A numeric attribute value: an ``int``, or a ``float`` read at double precision."""
        num = tok.value
        assert isinstance(num, Number)
        if tok.kind is T.INT:
            return int(self.number_value(tok))
        if num.suffix not in _FLOAT_DTYPES:
            raise self.error(
                f"invalid literal {tok.text}: float widths are f16, f32 and f64", tok.span
            )
        magnitude = {"inff": "inf", "nanf": "nan"}.get(num.text, num.text)
        return -float(magnitude) if num.negative else float(magnitude)

    def meta_entry(self, tok: Token) -> object:
        key, index = _meta_ref(tok)
        table = self.meta.get(key)
        if table is None:
            if not self.meta:
                raise self.error(
                    f"meta[{key}][{index}] refers to a #[metadata] section, and there is none",
                    tok.span,
                )
            raise self.error(f"the metadata section has no entries of kind {key}", tok.span)
        if not 0 <= index < len(table):
            raise self.error(
                f"meta[{key}][{index}] is out of range: the metadata has {len(table)} "
                f"entr{'y' if len(table) == 1 else 'ies'} of kind {key}",
                tok.span,
            )
        entry = table[index]
        if isinstance(entry, OpaqueMetaNode):
            raise self.error(f"metadata of kind {entry.type_key} is not supported", tok.span)
        return entry

    def meta_constant(self, tok: Token) -> Constant:
        key, index = _meta_ref(tok)
        entry = self.meta_entry(tok)
        if not isinstance(entry, np.ndarray):
            raise self.error(f"meta[{key}][{index}] is not a constant", tok.span)
        if key == "relay.Constant":
            # Every reference to one entry is the same constant node, as in TVM.
            if index not in self.meta_constants:
                self.meta_constants[index] = Constant(entry, span=tok.span)
            return self.meta_constants[index]
        return Constant(entry, span=tok.span)

    # -- types -----------------------------------------------------------------------------

    def lookup_type_var(self, name: str) -> TypeVar | None:
        for scope in reversed(self.type_scopes):
            if name in scope:
                return scope[name]
        return None

    def parse_type(self) -> Type:
        tok = self.tok
        with self.nested():
            if tok.is_punct("("):
                self.next()
                fields: list[Type] = self.comma_list(")", self.parse_type)
                return TupleType(tuple(fields), span=self.span_from(tok))
            if tok.is_punct("_"):
                self.next()
                return IncompleteType(span=tok.span)
            if tok.is_keyword("fn"):
                return self.parse_func_type()
            if tok.is_keyword("ref"):
                self.next()
                self.expect("(")
                inner = self.parse_type()
                self.expect(")")
                return RefType(inner, span=self.span_from(tok))
            if tok.kind is T.IDENT:
                self.next()
                name = str(tok.value)
                if name == "Tensor" and self.tokens[self.pos].text == "[":
                    return self.parse_tensor_type(tok.span)
                if name in DTYPES or name == "int":
                    return TensorType((), _dtype_name(name), span=tok.span)
                type_var = self.lookup_type_var(name)
                if type_var is not None:
                    return type_var
                if name not in self.type_headers:
                    raise self.error(f"unknown type {name}", tok.span)
                args: list[Type] = []
                if self.accept("["):
                    args = self.comma_list("]", self.parse_type)
                header = self.type_headers[name]
                return TypeCall(header, tuple(args), span=self.span_from(tok))
            raise self.error(f"expected a type, found {self._found()}")

    def parse_func_type(self) -> FuncType:
        start = self.next().span
        type_params: list[TypeVar] = []
        if self.accept("["):
            type_params = self.comma_list("]", self.parse_type_param)
        self.type_scopes.append({tv.name: tv for tv in type_params})
        self.expect("(")
        args: list[Type] = self.comma_list(")", self.parse_type)
        self.expect("->")
        ret = self.parse_type()
        self.type_scopes.pop()
        return FuncType(tuple(args), ret, tuple(type_params), span=self.span_from(start))

    def parse_tensor_type(self, start: Span) -> TensorType:
        self.expect("[")
        shape: list[Dim] = []
        if self.tok.is_punct("("):
            self.next()
            shape = self.comma_list(")", self.parse_dim)
        else:
            raise self.error(f"expected '(' to start the shape, found {self._found()}")
        self.expect(",")
        dtype_tok = self.tok
        if dtype_tok.kind is not T.IDENT or (
            dtype_tok.value not in DTYPES and dtype_tok.value != "int"
        ):
            raise self.error(
                f"unknown dtype {self._found()} (known: {', '.join(DTYPES)})", dtype_tok.span
            )
        self.next()
        self.expect("]")
        dtype = _dtype_name(str(dtype_tok.value))
        return TensorType(tuple(shape), dtype, span=self.span_from(start))

    def parse_dim(self) -> Dim:
        tok = self.tokens[self.pos]
        if tok.kind is T.INT:
            after = self.tokens[self.pos + 1]
            if after.kind is T.PUNCT and (after.text == "," or after.text == ")"):
                # A plain size, the common case: no sympy.
                self.next()
                size = int(self.number_value(tok))
                if size < 0:
                    raise self.error("a dimension cannot be negative", tok.span)
                return size
        if tok.text == "?" and tok.kind is T.PUNCT:
            self.next()
            return ANY
        start = self.tok.span
        value = normalize_dim(self.parse_dim_sum())
        if isinstance(value, int) and value < 0:
            raise self.error("a dimension cannot be negative", self.span_from(start))
        if not isinstance(value, int):
            value = normalize_dim(_canonical_dim(value))
        return value

    def parse_dim_sum(self) -> sympy.Expr:
        value = self.parse_dim_product()
        while self.tokens[self.pos].text == "+" or self.tokens[self.pos].text == "-":
            sign = self.next().text
            rhs = self.parse_dim_product()
            value = value + rhs if sign == "+" else value - rhs
        return value

    def parse_dim_product(self) -> sympy.Expr:
        value = self.parse_dim_atom()
        while self.tokens[self.pos].text == "*":
            self.next()
            value = value * self.parse_dim_atom()
        return value

    def parse_dim_atom(self) -> sympy.Expr:
        tok = self.tok
        with self.nested():
            if tok.kind is T.INT:
                self.next()
                return int(self.number_value(tok))  # an int: sympy only for symbolic dims
            if tok.kind is T.IDENT:
                self.next()
                name = str(tok.value)
                if name in ("floordiv", "floormod") and self.tok.is_punct("("):
                    self.next()
                    a = self.parse_dim_sum()
                    self.expect(",")
                    b = self.parse_dim_sum()
                    self.expect(")")
                    return self.dim_division(name, a, b, self.span_from(tok))
                return dim_symbol(name)
            if tok.kind is T.META:
                self.next()
                entry = self.meta_entry(tok)
                if not isinstance(entry, sympy.Expr):
                    raise self.error(f"{tok.text} is not a dimension", tok.span)
                return entry
            if tok.is_punct("("):
                self.next()
                value = self.parse_dim_sum()
                self.expect(")")
                return value
            raise self.error(f"expected a dimension, found {self._found()}")

    def dim_division(self, name: str, a: sympy.Expr, b: sympy.Expr, span: Span) -> sympy.Expr:
        """``floordiv(a, b)`` or ``floormod(a, b)``; a divisor that is zero is an error."""
        # Integer literals are ints (sympy only for symbolic dims): floordiv(4, 2) is sympy's
        # floor(4/2), not Python's 4/2.
        a, b = sympy.sympify(a), sympy.sympify(b)
        if b.is_zero:
            raise self.error(f"{name} by zero in a dimension", span)
        try:
            value = sympy.floor(a / b) if name == "floordiv" else sympy.Mod(a, b)
        except ZeroDivisionError:  # sympy found a zero divisor that is_zero could not
            raise self.error(f"{name} by zero in a dimension", span) from None
        if value.has(sympy.zoo, sympy.oo, -sympy.oo, sympy.nan):
            raise self.error(f"{name} by zero in a dimension", span)
        return value


def _canonical_dim(value: sympy.Expr) -> sympy.Expr:
    """``value`` rebuilt bottom-up until rebuilding changes nothing.

    sympy's automatic simplification depends on the order in which an expression is built
    (``floor(-1 - floor(1/n))`` keeps a ``floor(-floor(1/n))`` that the same term built
    directly simplifies away), so a dimension read back from its printed text could differ
    from the one first read. Rebuilding reaches the form that printing preserves.
    """
    for _ in range(8):
        rebuilt = _rebuild(value)
        if rebuilt == value:
            break
        value = rebuilt
    return value


def _rebuild(e: sympy.Expr) -> sympy.Expr:
    # Dimensions are small expressions (their nesting is bounded by MAX_NESTING).
    if e.is_Atom:
        return e
    result: sympy.Expr = e.func(*(_rebuild(a) for a in e.args))
    return result


def _dtype_name(name: str) -> str:
    """A dtype as written: ``int`` is TVM's name for ``int32`` (its DataType parser's default
    width), which TVM's own tests use; every other name is itself."""
    return "int32" if name == "int" else name


CALL_LOWERED = "call_lowered"
"""TVM's operator for a call of a lowered function, read as a plain call."""


def _meta_ref(tok: Token) -> tuple[str, int]:
    value = tok.value
    assert isinstance(value, tuple)
    key, index = value
    assert isinstance(key, str) and isinstance(index, int)
    return key, index


def parse(text: str, source_name: str = "<string>", *, scope: IRModule | None = None) -> IRModule:
    """Parse a module, or a bare expression (which becomes ``@main`` over its free variables).

    ``scope``'s globals, types and constructors are in scope (a prelude); the result holds
    only the definitions of ``text``, and redefining a name of ``scope`` is an error.
    Raises ``ParseError`` (with a span) for anything that is not a Relay program. While it
    runs, the recursion limit is raised for deep nesting (``recursion_headroom``) and the
    cyclic garbage collector is paused (``collector_paused``); both are as the caller had them
    when it returns or raises.
    """
    source = SourceFile(source_name, text)
    # Nesting is bounded by MAX_NESTING; each level takes a handful of Python frames.
    with recursion_headroom(MAX_NESTING * 12 + 1000), collector_paused():
        lexed = lex(source)
        meta: dict[str, list[object]] = {}
        if lexed.metadata is not None:
            meta = _read_metadata(lexed.metadata, lexed.metadata_span, source)
        parser = Parser(lexed.tokens, meta)
        if scope is not None:
            parser.globals = {gv.name: gv for gv in scope.functions}
            parser.type_headers = {h.name: h for h in scope.type_definitions}
            parser.constructors = scope.constructors()
        try:
            return parser.parse_file()
        except RecursionError:  # the caller's own stack was already deep
            raise parser.error(f"nesting too deep: more than {MAX_NESTING} levels") from None


class _Shared:
    """A process-wide setting changed while any holder needs it, restored by the last one.

    The first of any number of nested or concurrent holders saves the caller's value and
    applies the change; the last one out restores the saved value, whatever the order in
    which they finish. Nothing outlives the calls.
    """

    def __init__(self, read: Callable[[], object], write: Callable[[object], None]) -> None:
        self.read = read
        self.write = write
        self.lock = threading.Lock()
        self.holders = 0
        self.saved: object = None

    @contextmanager
    def hold(self, change: Callable[[], None]) -> Iterator[None]:
        with self.lock:
            if self.holders == 0:
                self.saved = self.read()
            self.holders += 1
            change()
        try:
            yield
        finally:
            with self.lock:
                self.holders -= 1
                if self.holders == 0:
                    self.write(self.saved)


def _set_gc(enabled: object) -> None:
    if enabled:
        gc.enable()
    else:
        gc.disable()


def _set_recursion_limit(limit: object) -> None:
    assert isinstance(limit, int)
    sys.setrecursionlimit(limit)


_recursion_limit = _Shared(sys.getrecursionlimit, _set_recursion_limit)
_collector = _Shared(gc.isenabled, _set_gc)


@contextmanager
def recursion_headroom(frames: int) -> Iterator[None]:
    """Run the body with a recursion limit of at least ``frames``, then restore the caller's
    (shared safely between nested and concurrent callers)."""

    def raise_limit() -> None:
        if sys.getrecursionlimit() < frames:
            sys.setrecursionlimit(frames)

    with _recursion_limit.hold(raise_limit):
        yield


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the body with the cyclic garbage collector paused, then restore the caller's state.

    Parsing allocates hundreds of thousands of small objects and no garbage cycles; with the
    collector running, 40% of the time went to rescanning the growing tree.
    """
    with _collector.hold(gc.disable):
        yield


def _read_metadata(text: str, span: Span | None, source: SourceFile) -> dict[str, list[object]]:
    try:
        return parse_metadata(text)
    except MetadataError as err:
        where = span
        if span is not None and err.line is not None:
            line = span.end_line + err.line - 1
            column = err.column or 1
            if err.line == 1:
                column += span.end_column - 1
            where = Span(source, line, column, line, column + 1)
        raise ParseError(f"malformed metadata section: {err.message}", where) from None
