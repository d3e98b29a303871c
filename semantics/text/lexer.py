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
- after ``%`` or ``@`` any identifier is a name, keywords included.

``#[metadata]`` ends the token stream: the rest of the file is the metadata JSON.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

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

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:/[A-Za-z_][A-Za-z0-9_]*)*")
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?")
_SUFFIX = re.compile(r"[fi][0-9]*")
_DIGITS = re.compile(r"[0-9]+")
_SPECIAL_FLOAT = re.compile(r"(inff|nanf)(16|32|64)?(?![A-Za-z0-9_])")
_META = re.compile(r"meta\[([^\]]*)\]\[([^\]]*)\]")

# After these tokens an operand has ended, so a following ``-`` is binary minus.
_OPERAND_END = frozenset({T.INT, T.FLOAT, T.BOOL, T.STRING, T.IDENT, T.LOCAL, T.GLOBAL,
                          T.GRAPH, T.META})  # fmt: skip


@dataclass(frozen=True, slots=True)
class Token:
    """A token: its kind, its source text, its value (for literals and names), its span."""

    kind: T
    text: str
    value: object
    span: Span

    def is_punct(self, text: str) -> bool:
        """Whether this is the punctuation token ``text``."""
        return self.kind is T.PUNCT and self.text == text

    def is_keyword(self, text: str) -> bool:
        """Whether this is the keyword ``text``."""
        return self.kind is T.KEYWORD and self.text == text


@dataclass(frozen=True, slots=True)
class Number:
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


class Lexer:
    """Turns source text into tokens; ``lex()`` does the whole file."""

    def __init__(self, source: SourceFile) -> None:
        self.source = source
        self.text = source.text
        self.pos = 0
        self.line = 1
        self.col = 1
        self.tokens: list[Token] = []

    # -- positions -------------------------------------------------------------------------

    def _advance(self, n: int) -> None:
        chunk = self.text[self.pos : self.pos + n]
        newlines = chunk.count("\n")
        if newlines:
            self.line += newlines
            self.col = n - chunk.rfind("\n")
        else:
            self.col += n
        self.pos += n

    def _span_from(self, line: int, col: int) -> Span:
        return Span(self.source, line, col, self.line, self.col)

    def _error(self, message: str, length: int = 1) -> ParseError:
        span = Span(self.source, self.line, self.col, self.line, self.col + length)
        return ParseError(message, span)

    def _emit(self, kind: T, length: int, value: object = None) -> None:
        line, col = self.line, self.col
        text = self.text[self.pos : self.pos + length]
        self._advance(length)
        self.tokens.append(Token(kind, text, value, self._span_from(line, col)))

    def _operand_ended(self) -> bool:
        if not self.tokens:
            return False
        last = self.tokens[-1]
        return last.kind in _OPERAND_END or last.text in (")", "]", "?")

    # -- the scanner -----------------------------------------------------------------------

    def lex(self) -> Lexed:
        """Lex the whole source."""
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch in " \t\r\n\f\v":
                self._advance(1)
            elif text.startswith("//", self.pos):
                end = text.find("\n", self.pos)
                self._advance((len(text) if end < 0 else end) - self.pos)
            elif text.startswith("/*", self.pos):
                self._block_comment()
            elif ch == '"':
                self._string()
            elif ch == "#":
                metadata = self._attribute()
                if metadata is not None:
                    return metadata
            elif ch.isdigit():
                self._number(negative=False)
            elif ch == "-" and self._starts_negative_literal():
                self._negative_literal()
            elif _SPECIAL_FLOAT.match(text, self.pos):
                self._special_float(negative=False)
            elif text.startswith("meta[", self.pos):
                self._meta()
            elif ch in "%@":
                self._sigil(ch)
            elif ch.isalpha() or ch == "_":
                self._identifier()
            else:
                for p in PUNCTUATION:
                    if text.startswith(p, self.pos):
                        self._emit(T.PUNCT, len(p))
                        break
                else:
                    raise self._error(f"unexpected character {ch!r}")
        self.tokens.append(Token(T.EOF, "", None, self._span_from(self.line, self.col)))
        return Lexed(self.tokens, None, None)

    def _block_comment(self) -> None:
        start_line, start_col = self.line, self.col
        depth = 0
        text = self.text
        i = self.pos
        while i < len(text):
            if text.startswith("/*", i):
                depth += 1
                i += 2
            elif text.startswith("*/", i):
                depth -= 1
                i += 2
                if depth == 0:
                    self._advance(i - self.pos)
                    return
            else:
                i += 1
        span = Span(self.source, start_line, start_col, start_line, start_col + 2)
        raise ParseError("unterminated comment: this /* is never closed", span)

    def _string(self) -> None:
        text = self.text
        i = self.pos + 1
        out: list[str] = []
        escapes = {'"': '"', "\\": "\\", "n": "\n", "r": "\r", "t": "\t"}
        while i < len(text):
            ch = text[i]
            if ch == '"':
                self._emit(T.STRING, i + 1 - self.pos, "".join(out))
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
        length = end + 1 - self.pos
        if body == "metadata":
            line, col = self.line, self.col
            self._advance(length)
            span = self._span_from(line, col)
            self.tokens.append(Token(T.EOF, "", None, span))
            return Lexed(self.tokens, text[self.pos :], span)
        if body.startswith("version"):
            value = body.partition("=")[2].strip()
            if not body[len("version") :].lstrip().startswith("="):
                raise self._error('malformed version header: expected #[version = "0.0.5"]')
            self._emit(T.VERSION, length, value)
            return None
        raise self._error(f"unsupported attribute #[{body}] (expected version or metadata)")

    def _starts_negative_literal(self) -> bool:
        if self._operand_ended():
            return False
        rest = self.text[self.pos :].lstrip("-")
        return bool(rest) and (rest[0].isdigit() or _SPECIAL_FLOAT.match(rest) is not None)

    def _negative_literal(self) -> None:
        # TVM reads a run of dashes before a number; an odd count negates it.
        text = self.text
        i = self.pos
        while text[i] == "-":
            i += 1
        dashes = i - self.pos
        if _SPECIAL_FLOAT.match(text, i):
            self._special_float(negative=dashes % 2 == 1, prefix=dashes)
        else:
            self._number(negative=dashes % 2 == 1, prefix=dashes)

    def _number(self, *, negative: bool, prefix: int = 0) -> None:
        start = self.pos + prefix
        m = _NUMBER.match(self.text, start)
        assert m is not None
        end = m.end()
        suffix = ""
        s = _SUFFIX.match(self.text, end)
        if s is not None:
            suffix = s.group()
            end = s.end()
        tail = self.text[end : end + 1]
        if tail and (tail.isalnum() or tail == "_"):
            raise self._error(f"invalid number literal {self.text[self.pos : end + 1]!r}")
        body = m.group()
        kind = T.FLOAT if suffix.startswith("f") else T.INT
        self._emit(kind, end - self.pos, Number(body, negative, suffix))

    def _special_float(self, *, negative: bool, prefix: int = 0) -> None:
        m = _SPECIAL_FLOAT.match(self.text, self.pos + prefix)
        assert m is not None
        name, width = m.group(1), m.group(2) or ""
        value = Number(name, negative, "f" + width)
        self._emit(T.FLOAT, m.end() - self.pos, value)

    def _meta(self) -> None:
        m = _META.match(self.text, self.pos)
        if m is None:
            raise self._error("malformed meta reference: expected meta[KEY][INDEX]", 5)
        key, index = m.group(1), m.group(2).strip()
        if not index.isdigit():
            raise self._error(f"malformed meta reference: index {index!r} is not an integer")
        self._emit(T.META, m.end() - self.pos, (key, int(index)))

    def _sigil(self, sigil: str) -> None:
        nxt = self.pos + 1
        if sigil == "%":
            d = _DIGITS.match(self.text, nxt)
            if d is not None:
                self._emit(T.GRAPH, d.end() - self.pos, int(d.group()))
                return
        m = _IDENT.match(self.text, nxt)
        if m is None:
            what = "local" if sigil == "%" else "global"
            raise self._error(f"expected a {what} variable name after '{sigil}'")
        kind = T.LOCAL if sigil == "%" else T.GLOBAL
        self._emit(kind, m.end() - self.pos, m.group())

    def _identifier(self) -> None:
        m = _IDENT.match(self.text, self.pos)
        assert m is not None
        word = m.group()
        if word == "match" and self.text.startswith("?", m.end()):
            self._emit(T.KEYWORD, len(word) + 1)
        elif word in KEYWORDS:
            self._emit(T.KEYWORD, len(word))
        elif word in ("True", "False"):
            self._emit(T.BOOL, len(word), word == "True")
        elif word == "_":
            self._emit(T.PUNCT, 1)
        else:
            self._emit(T.IDENT, len(word), word)


def lex(source: SourceFile) -> Lexed:
    """Lex ``source`` into tokens (see the module docstring for the token rules)."""
    return Lexer(source).lex()
