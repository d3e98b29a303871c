"""The lexer of Relay's text format.

It reads what TVM 0.7–0.18's tokenizer read, with these departures, each the repair of a
defect (see ``reference/relay-text-format.md`` §1 and §3):

- a number is ``digits [. digits] [e[+-]digits]`` followed by an optional suffix ``i``, ``i16``,
  ``i32``, ``i64``, ``f``, ``f16``, ``f32``, ``f64``, so ``1+2`` is three tokens;
- a ``-`` directly before a digit is a sign only where an operand cannot end (after ``(``,
  ``,``, ``=``, an operator ...); after an operand it is binary minus, so ``%x-1`` subtracts;
- ``inff``, ``nanf`` (with optional width ``16``/``32``/``64``) and ``-inff`` are literals;
- ``/`` belongs to an identifier only when a letter or ``_`` follows it (``base/x``), so
  ``%a/%b`` and ``%a/2`` divide;
- block comments nest and close on ``*/``; an unterminated one is an error;
- strings understand the escapes TVM's printer wrote (``\\" \\\\ \\n \\r \\t \\xHH``);
- after ``%`` or ``@`` any identifier is a name, keywords included;
- a bare identifier may end in ``'N`` (``n'11``): type inference names fresh dimension
  variables so, and an inferred type must print and read back.

``#[metadata]`` ends the token stream: the rest of the file is the metadata JSON.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from enum import Enum
from typing import NamedTuple

from ..errors import ParseError, SourceFile, Span


class T(Enum):
    """Token kinds."""

    INT = "integer"
    FLOAT = "float"
    BOOL = "boolean"
    STRING = "string"
    IDENT = "identifier"
    LOCAL = "local variable"
    GLOBAL = "global variable"
    GRAPH = "graph variable"
    META = "meta reference"
    VERSION = "version header"
    KEYWORD = "keyword"
    PUNCT = "punctuation"
    EOF = "end of file"


KEYWORDS = frozenset(
    {"let", "fn", "def", "if", "else", "type", "match", "extern", "free_var", "ref",
     "ref_read", "ref_write"}
)  # fmt: skip

# Longest first, so that two-character operators win.
PUNCTUATION = (
    "<=", ">=", "==", "!=", "=>", "->",
    ".", ",", "=", ";", ":", "(", ")", "+", "-", "*", "/", "<", ">", "{", "}", "[", "]",
    "!", "?", "_",
)  # fmt: skip

_SPECIAL_FLOAT = re.compile(r"(inff|nanf)(16|32|64)?(?![A-Za-z0-9_])")
_META = re.compile(r"meta\[([^\]]*)\]\[([^\]]*)\]")

# After these tokens an operand has ended, so a following ``-`` is binary minus.
_OPERAND_END = frozenset({T.INT, T.FLOAT, T.BOOL, T.STRING, T.IDENT, T.LOCAL, T.GLOBAL,
                          T.GRAPH, T.META})  # fmt: skip


class LineIndex:
    """The offsets at which the lines of a source start: turns offsets into spans.

    Tokens keep offsets only; a span (line and column) is computed when it is asked for, so
    lexing costs nothing per token for positions that no diagnostic or node ever uses.
    """

    __slots__ = ("last", "source", "starts")

    def __init__(self, source: SourceFile) -> None:
        self.source = source
        text = source.text
        starts = [0]
        find = text.find
        i = find("\n")
        while i >= 0:
            starts.append(i + 1)
            i = find("\n", i + 1)
        self.starts = starts
        self.last = (0, starts[1] if len(starts) > 1 else len(text) + 1, 1)

    def line_of(self, offset: int) -> tuple[int, int, int]:
        """The line holding ``offset``, its start, and where the next line starts (past the
        end of the text for the last line)."""
        low, high, line = self.last
        if not low <= offset < high:
            starts = self.starts
            line = bisect_right(starts, offset)
            low = starts[line - 1]
            high = starts[line] if line < len(starts) else len(self.source.text) + 1
            self.last = (low, high, line)
        return line, low, high

    def span(self, start: int, end: int) -> Span:
        """The span of ``text[start:end]``."""
        starts = self.starts
        # Spans are asked for in nearly increasing order: try the line of the last one first.
        low, high, line = self.last
        if not low <= start < high:
            line = bisect_right(starts, start)
            high = starts[line] if line < len(starts) else len(self.source.text) + 1
            self.last = (starts[line - 1], high, line)
        end_line = line
        if line < len(starts) and starts[line] < end:  # the text crosses a line break
            end_line = bisect_right(starts, end - 1)
        return Span(
            self.source,
            line,
            start - starts[line - 1] + 1,
            end_line,
            end - starts[end_line - 1] + 1,
        )


class Token(NamedTuple):
    """A token: its kind, its source text, its value (for literals and names), its offset.

    Lean on purpose, a tuple built without a Python-level constructor: a file holds about one
    token per four bytes, all alive at once. The text is the source slice, so the token ends
    at ``start + len(text)``; ``span`` is computed from the offsets when asked for.
    """

    kind: T
    text: str
    value: object
    start: int
    lines: LineIndex

    def __repr__(self) -> str:
        return f"Token({self.kind.name}, {self.text!r}, {self.start})"

    @property
    def end(self) -> int:
        """The offset just past the token."""
        return self.start + len(self.text)

    @property
    def span(self) -> Span:
        """Where the token is."""
        return self.lines.span(self.start, self.start + len(self.text))

    def is_punct(self, text: str) -> bool:
        """Whether this is the punctuation token ``text``."""
        return self.kind is T.PUNCT and self.text == text

    def is_keyword(self, text: str) -> bool:
        """Whether this is the keyword ``text``."""
        return self.kind is T.KEYWORD and self.text == text


_new_token = tuple.__new__
"""``_new_token(Token, (kind, text, value, start, lines))``: a Token at C speed."""


class Statement(Token):
    """The first token of a statement in one of the common forms ``STATEMENT`` matches
    (``let %x = op(%a, 2f);``, ``%0 = (%a, %b);`` ...), standing for the whole statement up to
    its ``;``, which the lexer did not split into tokens.

    It is the ``let`` or ``%N`` token it starts with (same kind, text, value and position), so
    any code that reads it as a token sees what it would have seen. The parser builds such a
    statement's nodes from ``STATEMENT.match(text, start)`` directly, or, for anything that is
    not plain (an unbound name, an attribute error ...), replaces it by its tokens
    (``Lexer.lex_range``) and parses those: both give the same tree, spans and errors.
    """

    __slots__ = ()


class Number(NamedTuple):
    """The value of a numeric literal, before it becomes a constant: digits, suffix, sign."""

    text: str
    negative: bool
    suffix: str  # "", "i", "i16", "f", "f64", ...


@dataclass(frozen=True, slots=True)
class Lexed:
    """The result of lexing: the tokens, and the metadata JSON with its position if present."""

    tokens: list[Token]
    metadata: str | None
    metadata_span: Span | None


_IDENT_TEXT = r"[A-Za-z_][A-Za-z0-9_]*(?:/[A-Za-z_][A-Za-z0-9_]*)*"
# A bare identifier may end in primes with numbers (``n'11``): the names type inference gives
# fresh dimension variables, so that an inferred type prints and reads back.
_BARE_IDENT_TEXT = _IDENT_TEXT + r"(?:'[0-9]+)*"


def _statement_pattern(capture: bool) -> str:
    """The common statement forms, as one pattern; with ``capture``, named groups for parts.

    ``let %x [: T] = RHS`` or ``%N = RHS``, where ``T`` is ``Tensor[(sizes), dtype]`` or a
    name, and ``RHS`` is ``op.name(items)``, ``(atom, atom, ..)``, or ``atom[.index]``; an item
    is an atom or ``key=value`` with a number, boolean, plain string or list of numbers; an
    atom is a variable or a number. Only whitespace may separate the tokens, and it must end
    where a ``;`` (or a comment) follows. Anything else is lexed and parsed token by token.
    """

    def g(name: str, body: str) -> str:
        return f"(?P<{name}>{body})" if capture else f"(?:{body})"

    ws = r"[ \t\r\n]*"
    name = _IDENT_TEXT
    number = r"-?[0-9]+(?:\.[0-9]+)?(?:[fi](?:16|32|64)?)?(?![A-Za-z0-9_])"
    atom = rf"(?:%[0-9]+|%{name}|{number})"
    numbers = rf"(?:{number}(?:{ws},{ws}{number})*)?"
    value = rf'(?:{atom}|True|False|"[^"\\\n]*"|\[{ws}{numbers}{ws}\])'
    item = rf"(?:{name}{ws}={ws})?{value}"
    sizes = rf"[0-9]{{1,18}}(?:{ws},{ws}[0-9]{{1,18}})*"
    dims, dtype = g("dims", sizes), g("dtype", name)
    tensor = g("tensor", rf"Tensor{ws}\[{ws}\({ws}{dims}?{ws}\){ws},{ws}{dtype}{ws}\]")
    annotation = rf"(?::{ws}(?:{tensor}|{g('scalar', name)}){ws})?"
    head = rf"(?:let{ws}%{g('var', name)}{ws}{annotation}|%{g('graph', '[0-9]+')}{ws})=(?![=>])"
    op = g("op", rf"{name}(?:{ws}\.{ws}{name})*")
    args = g("args", rf"{item}(?:{ws},{ws}{item})*")
    call = g("call", rf"{op}{ws}\({ws}{args}?{ws}\)")
    fields = g("tuple", rf"\({ws}{g('fields', rf'{atom}(?:{ws},{ws}{atom})+')}{ws}\)")
    project = rf"{g('base', atom)}(?:{ws}\.{ws}{g('index', '[0-9]+')})?"
    return rf"{head}{ws}(?:{call}|{fields}|{project})(?={ws}(?:;|/\*))"


STATEMENT = re.compile(_statement_pattern(capture=True))
"""The common statement forms (see ``Statement``), with named groups for their parts."""
assert tuple(STATEMENT.groupindex) == (
    "var",
    "tensor",
    "dims",
    "dtype",
    "scalar",
    "graph",
    "call",
    "op",
    "args",
    "tuple",
    "fields",
    "base",
    "index",
)  # fmt: skip  (the parser unpacks ``groups()`` in this order)

_WS = r"[ \t\r\n]*"
ITEM = re.compile(
    rf"{_WS}(?:(?P<key>{_IDENT_TEXT}){_WS}={_WS})?(?:%(?P<graph>[0-9]+)|%(?P<local>{_IDENT_TEXT})"
    r"|(?P<number>(?P<minus>-)?(?P<digits>[0-9]+(?:\.[0-9]+)?)(?P<suffix>[fi](?:16|32|64)?)?)"
    rf'|(?P<bool>True|False)|"(?P<string>[^"\\\n]*)"|\[(?P<list>[^\]]*)\]){_WS}(?:,|\Z)'
)
"""One item of a ``STATEMENT``'s arguments, fields or list (match up to the region's end)."""
assert tuple(ITEM.groupindex)[:3] == ("key", "graph", "local")  # the parser reads 1, 2, 3


def is_bare_name(word: str) -> bool:
    """Whether ``word``, which matches the identifier pattern, lexes as an identifier token
    (not a keyword, ``True``, ``False``, ``_`` or a special float such as ``inff``)."""
    if word in _NOT_IDENTIFIERS:
        return False
    return not word.startswith(("inff", "nanf")) or _SPECIAL_FLOAT.fullmatch(word) is None


# One alternation for every token; the scanner dispatches on the name of the group that matched.
_TOKEN = re.compile(
    r"(?P<ws>[ \t\r\n\f\v]+)"
    r"|(?P<line_comment>//[^\n]*)"
    r"|(?P<block_comment>/\*)"
    r"|(?P<string>\")"
    r"|(?P<attribute>\#)"
    r"|(?P<number>[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?)(?P<suffix>[fi][0-9]*)?"
    r"|(?P<dashes>-+)(?=[0-9]|inff|nanf)"
    r"|(?P<special>(?:inff|nanf)(?:16|32|64)?)(?![A-Za-z0-9_])"
    r"|(?P<meta>meta\[)"
    r"|%(?P<graph>[0-9]+)"
    r"|%(?P<local>" + _IDENT_TEXT + r")"
    r"|@(?P<global>" + _IDENT_TEXT + r")"
    r"|(?P<match_partial>match\?)"
    r"|(?P<ident>" + _BARE_IDENT_TEXT + r")"
    r"|(?P<punct><=|>=|==|!=|=>|->|[.,=;:()+\-*/<>{}\[\]!?])"
)
# The same tokens for ``finditer``, which skips whitespace by itself: every other character
# matches some alternative (``bad`` last), so only whitespace is ever skipped.
_PLAIN_SCAN = re.compile(_TOKEN.pattern.split("|", 1)[1] + r"|(?P<bad>[^ \t\r\n\f\v])")
# With one more alternative, tried first: a ``;`` or ``{`` followed by a common statement,
# lexed as that punctuation and a ``Statement``. Only there: a statement after ``;`` or ``{``
# is always read by the parser's statement loop (elsewhere ``let`` or ``%0`` is an error).
_SCAN = re.compile(
    r"(?P<fast>[;{])[ \t\r\n]*(?P<fast_body>"
    + _statement_pattern(capture=False)
    + r")|"
    + _PLAIN_SCAN.pattern
)
_GRAPH_NUMBER = re.compile(r"%([0-9]+)")
_IDENT_FULL = re.compile(_BARE_IDENT_TEXT + r"\Z")
_NOT_IDENTIFIERS = KEYWORDS | {"True", "False", "_"}


def is_identifier(name: str) -> bool:
    """Whether ``name`` lexes as one identifier token (a type, constructor or dimension name).

    After ``%`` or ``@`` the same text is a variable or global name.
    """
    return (
        _IDENT_FULL.match(name) is not None
        and name not in _NOT_IDENTIFIERS
        and _SPECIAL_FLOAT.fullmatch(name) is None
    )


_NAME_TAIL = re.compile(r"[A-Za-z0-9_]")
_DECIMAL = re.compile(r"[0-9]{1,18}")  # a meta index; no table is longer
_NAME_TAIL_RUN = re.compile(r"[A-Za-z0-9_]+")


class Lexer:
    """Turns source text into tokens; ``lex()`` does the whole file."""

    def __init__(self, source: SourceFile, lines: LineIndex | None = None) -> None:
        self.source = source
        self.text = source.text
        self.lines = LineIndex(source) if lines is None else lines
        self.pos = 0
        self.tokens: list[Token] = []

    # -- positions -------------------------------------------------------------------------

    def _span(self, start: int, end: int) -> Span:
        return self.lines.span(start, end)

    def _error(self, message: str, length: int = 1) -> ParseError:
        return ParseError(message, self._span(self.pos, self.pos + length))

    def _emit(self, kind: T, end: int, value: object = None) -> None:
        start = self.pos
        self.tokens.append(Token(kind, self.text[start:end], value, start, self.lines))
        self.pos = end

    def _operand_ended(self) -> bool:
        if not self.tokens:
            return False
        last = self.tokens[-1]
        return last.kind in _OPERAND_END or last.text in (")", "]", "?")

    # -- the scanner -----------------------------------------------------------------------

    def lex(self) -> Lexed:
        """Lex the whole source."""
        metadata = self._scan(0, len(self.text), _SCAN)
        if metadata is not None:
            return metadata
        size = len(self.text)
        self.pos = size
        self.tokens.append(_new_token(Token, (T.EOF, "", None, size, self.lines)))
        return Lexed(self.tokens, None, None)

    def lex_range(self, start: int, end: int) -> list[Token]:
        """The tokens of ``text[start:end]``, which holds whole tokens, with no ``Statement``:
        what the parser reads in place of a ``Statement`` it does not build directly."""
        self.tokens = []
        self.pos = start
        metadata = self._scan(start, end, _PLAIN_SCAN)
        assert metadata is None
        return self.tokens

    def _scan(self, pos: int, endpos: int, pattern: re.Pattern[str]) -> Lexed | None:
        """Lex ``text[pos:endpos]``, appending to ``self.tokens``; the metadata ends the file."""
        text = self.text
        tokens = self.tokens
        lines = self.lines
        append = tokens.append
        new, token = _new_token, Token
        scan = pattern.finditer
        statement, graph_kind, keyword = Statement, T.GRAPH, T.KEYWORD
        graph_number = _GRAPH_NUMBER.match
        name_tail = _NAME_TAIL.match
        size = len(text)
        punct, local, ident_kind, int_kind = T.PUNCT, T.LOCAL, T.IDENT, T.INT
        keywords = KEYWORDS
        names: dict[str, str] = {}
        local_names: dict[str, str] = {}
        # The common tokens are appended here; a rare one is handled by a method that reads
        # and advances ``self.pos``, after which the scan restarts there.
        while True:
            for m in scan(text, pos, endpos):
                group = m.lastgroup
                if group == "fast_body":
                    append(new(token, (punct, m.group("fast"), None, m.start(), lines)))
                    body = m.start("fast_body")
                    if text[body] == "l":
                        append(new(statement, (keyword, "let", None, body, lines)))
                    else:
                        number = graph_number(text, body)
                        assert number is not None
                        word = number.group()
                        index = int(number.group(1))
                        append(new(statement, (graph_kind, word, index, body, lines)))
                elif group == "punct":
                    append(new(token, (punct, m.group(), None, m.start(), lines)))
                elif group == "ident":
                    word = m.group()
                    if word in keywords:
                        append(new(token, (T.KEYWORD, word, None, m.start(), lines)))
                    elif word == "True" or word == "False":
                        append(new(token, (T.BOOL, word, word == "True", m.start(), lines)))
                    elif word == "_":
                        append(new(token, (punct, word, None, m.start(), lines)))
                    else:
                        word = names.setdefault(word, word)  # one string per distinct name
                        append(new(token, (ident_kind, word, word, m.start(), lines)))
                elif group == "local":
                    word = names.setdefault(m.group(), m.group())
                    name = local_names.get(word)
                    if name is None:
                        name = local_names[word] = word[1:]
                    append(new(token, (local, word, name, m.start(), lines)))
                elif group == "line_comment":
                    pass
                elif (group == "number" or group == "suffix") and not (
                    m.end() < size and name_tail(text, m.end())
                ):
                    suffix = m.group("suffix") or ""
                    kind = T.FLOAT if suffix.startswith("f") else int_kind
                    value = Number(m.group("number"), False, suffix)
                    append(new(token, (kind, m.group(), value, m.start(), lines)))
                elif group == "graph":
                    append(
                        new(token, (T.GRAPH, m.group(), int(m.group("graph")), m.start(), lines))
                    )
                elif group == "global":
                    append(new(token, (T.GLOBAL, m.group(), m.group("global"), m.start(), lines)))
                else:
                    self.pos = m.start()
                    metadata = self._rare(m, group)
                    if metadata is not None:
                        return metadata
                    pos = self.pos
                    break
            else:
                break
        return None

    def _rare(self, m: re.Match[str], group: str | None) -> Lexed | None:
        """Lex the token that ``m`` starts, at ``self.pos``; the metadata ends the file."""
        end = m.end()
        if group == "bad":
            raise self._error(f"unexpected character {self.text[self.pos]!r}")
        if group == "number" or group == "suffix":
            self._number(m, negative=False)
        elif group == "dashes":
            if self._operand_ended():
                self._emit(T.PUNCT, self.pos + 1)  # binary minus
            else:
                self._negative_literal(len(m.group("dashes")))
        elif group == "special":
            self._special_float(m.group("special"), self.pos, negative=False)
        elif group == "block_comment":
            self._block_comment()
        elif group == "string":
            self._string()
        elif group == "attribute":
            return self._attribute()
        elif group == "meta":
            self._meta()
        elif group == "match_partial":
            self._emit(T.KEYWORD, end)
        else:
            raise AssertionError(group)
        return None

    def _block_comment(self) -> None:
        start = self.pos
        start_span = self._span(start, start + 2)
        depth = 0
        text = self.text
        i = start
        while True:
            opening = text.find("/*", i)
            closing = text.find("*/", i)
            if closing < 0:
                raise ParseError("unterminated comment: this /* is never closed", start_span)
            if 0 <= opening < closing:
                depth += 1
                i = opening + 2
            else:
                depth -= 1
                i = closing + 2
                if depth == 0:
                    self.pos = i
                    return

    def _string(self) -> None:
        text = self.text
        i = self.pos + 1
        out: list[str] = []
        escapes = {'"': '"', "\\": "\\", "n": "\n", "r": "\r", "t": "\t"}
        while i < len(text):
            ch = text[i]
            if ch == '"':
                self._emit(T.STRING, i + 1, "".join(out))
                return
            if ch == "\\" and i + 1 < len(text):
                nxt = text[i + 1]
                if nxt in escapes:
                    out.append(escapes[nxt])
                    i += 2
                    continue
                if nxt == "x" and re.fullmatch(r"[0-9A-Fa-f]{2}", text[i + 2 : i + 4]):
                    out.append(chr(int(text[i + 2 : i + 4], 16)))
                    i += 4
                    continue
            out.append(ch)
            i += 1
        raise self._error("unterminated string literal")

    def _attribute(self) -> Lexed | None:
        text = self.text
        if not text.startswith("#[", self.pos):
            raise self._error("expected '[' after '#' (attributes are written #[...])")
        end = text.find("]", self.pos)
        if end < 0:
            raise self._error("unterminated attribute: expected ']'")
        body = text[self.pos + 2 : end].strip()
        if body == "metadata":
            span = self._span(self.pos, end + 1)
            header = text[self.pos : end + 1]  # the EOF token covers #[metadata]
            self.tokens.append(Token(T.EOF, header, None, self.pos, self.lines))
            self.pos = end + 1
            return Lexed(self.tokens, text[self.pos :], span)
        if body.startswith("version"):
            if not body[len("version") :].lstrip().startswith("="):
                raise self._error('malformed version header: expected #[version = "0.0.5"]')
            self._emit(T.VERSION, end + 1, body.partition("=")[2].strip())
            return None
        raise self._error(f"unsupported attribute #[{body}] (expected version or metadata)")

    def _negative_literal(self, dashes: int) -> None:
        # TVM reads a run of dashes before a number; an odd count negates it.
        start = self.pos + dashes
        special = _SPECIAL_FLOAT.match(self.text, start)
        if special is not None:
            self._special_float(special.group(), start, negative=dashes % 2 == 1)
            return
        m = _TOKEN.match(self.text, start)
        if m is None or m.lastgroup not in ("number", "suffix"):
            word = _NAME_TAIL_RUN.match(self.text, start)
            found = word.group() if word else self.text[start : start + 1]
            raise self._error(f"invalid number literal '-{found}'", dashes + len(found))
        self._number(m, negative=dashes % 2 == 1)

    def _number(self, m: re.Match[str], *, negative: bool) -> None:
        end = m.end()
        if end < len(self.text) and _NAME_TAIL.match(self.text, end):
            raise self._error(f"invalid number literal {self.text[self.pos : end + 1]!r}")
        suffix = m.group("suffix") or ""
        kind = T.FLOAT if suffix.startswith("f") else T.INT
        self._emit(kind, end, Number(m.group("number"), negative, suffix))

    def _special_float(self, word: str, start: int, *, negative: bool) -> None:
        name, width = word[:4], word[4:]
        self._emit(T.FLOAT, start + len(word), Number(name, negative, "f" + width))

    def _meta(self) -> None:
        m = _META.match(self.text, self.pos)
        if m is None:
            raise self._error("malformed meta reference: expected meta[KEY][INDEX]", 5)
        key, index = m.group(1), m.group(2).strip()
        if _DECIMAL.fullmatch(index) is None:
            raise self._error(f"malformed meta reference: index {index!r} is not an integer")
        self._emit(T.META, m.end(), (key, int(index)))


def lex(source: SourceFile) -> Lexed:
    """Lex ``source`` into tokens (see the module docstring for the token rules)."""
    return Lexer(source).lex()
