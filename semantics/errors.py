"""Source locations and the error hierarchy.

Every node carries a ``Span``; every error renders as::

    FILE:LINE:COL: error: message
    <the source line>
    <a caret under the column>

The hierarchy (message prefixes are a contract that tests check as substrings)::

    RelayError
      ParseError            the text is not a Relay program
      RelayTypeError(rule)  the program is ill-typed; names the rule or relation
      Stuck(rule)           no evaluation rule applies (a bug in the checker or the spec)
      RelayRuntimeError     a real dynamic failure (an incomplete ``match?``, a precondition)
      UndefinedBehavior     a case the spec leaves undefined
      Exhaustion            out of fuel, depth or allocation budget
      PassError(pass)       a pass failed or broke a program
      BackendError(target, op)  a target cannot compile or run something
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True, eq=False)
class SourceFile:
    """A named source text; spans point into it."""

    name: str
    text: str

    def line_text(self, line: int) -> str:
        """The text of the 1-based ``line``, without its line ending."""
        lines = self.text.split("\n")
        if 1 <= line <= len(lines):
            return lines[line - 1].rstrip("\r")
        return ""


@dataclass(frozen=True, slots=True)
class Span:
    """A source region: 1-based line and column of its start and its end (exclusive)."""

    source: SourceFile
    line: int
    column: int
    end_line: int
    end_column: int

    def __repr__(self) -> str:
        return f"Span({self.source.name}:{self.line}:{self.column})"

    def merge(self, other: Span | None) -> Span:
        """The smallest span covering both ``self`` and ``other``."""
        if other is None or other.source is not self.source:
            return self
        start = min((self.line, self.column), (other.line, other.column))
        end = max((self.end_line, self.end_column), (other.end_line, other.end_column))
        return Span(self.source, start[0], start[1], end[0], end[1])


ECHO_WIDTH = 120
"""The most characters of a source line a diagnostic echoes; a longer line is clipped to a
window around the caret, with ``…`` where text was cut."""

_ECHO_BEFORE = 40  # of the window, the characters shown before the caret


def render_diagnostic(message: str, span: Span | None, *, severity: str = "error") -> str:
    """``FILE:LINE:COL: error: message``, then the source line and a caret under the column.

    A line longer than ``ECHO_WIDTH`` is echoed as a window of that many characters around
    the caret, marked ``…`` at each end where text was cut (the underline is clipped with it).
    """
    if span is None:
        return f"{severity}: {message}"
    head = f"{span.source.name}:{span.line}:{span.column}: {severity}: {message}"
    text = span.source.line_text(span.line)
    if not text.strip():
        return head
    start = min(max(span.column - 1, 0), len(text))
    width = 1
    if span.end_line == span.line and span.end_column > span.column:
        width = span.end_column - span.column
    low, high, lead = 0, len(text), ""
    if len(text) > ECHO_WIDTH:
        low = max(0, min(start - _ECHO_BEFORE, len(text) - ECHO_WIDTH))
        high = low + ECHO_WIDTH
        lead = "…" if low > 0 else ""
        width = max(1, min(width, high - start))
    shown = lead + text[low:high] + ("…" if high < len(text) else "")
    # Tabs are kept under the caret so that it lines up in a terminal.
    prefix = " " * len(lead) + "".join("\t" if ch == "\t" else " " for ch in text[low:start])
    return f"{head}\n{shown}\n{prefix}^{'~' * (width - 1)}"


class RelayError(Exception):
    """The root of every error this project raises about a Relay program."""

    def __init__(self, message: str, span: Span | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.span = span
        self.notes: list[tuple[str, Span | None]] = []  # ("previous definition here", span)

    def render(self) -> str:
        """The full diagnostic: location, message, source line and caret; then each note."""
        parts = [render_diagnostic(self.message, self.span)]
        parts.extend(render_diagnostic(m, s, severity="note") for m, s in self.notes)
        return "\n".join(parts)

    def __str__(self) -> str:
        if self.span is None:
            return self.message
        return f"{self.span.source.name}:{self.span.line}:{self.span.column}: {self.message}"


class ParseError(RelayError):
    """The text is not a well-formed Relay program."""


class RelayTypeError(RelayError):
    """The program is ill-typed; ``rule`` names the typing rule or type relation."""

    def __init__(self, message: str, span: Span | None = None, *, rule: str = "") -> None:
        super().__init__(message, span)
        self.rule = rule


class Stuck(RelayError):
    """No evaluation rule applies: impossible for a well-typed program."""

    def __init__(self, message: str, span: Span | None = None, *, rule: str = "") -> None:
        super().__init__(message, span)
        self.rule = rule


class RelayRuntimeError(RelayError):
    """A real dynamic failure, such as an incomplete ``match?`` or an op precondition."""


class UndefinedBehavior(RelayError):
    """The program reached a case that the specification leaves undefined."""


class Exhaustion(RelayError):
    """Evaluation ran out of fuel, depth or allocation budget: the result is inconclusive."""


class PassError(RelayError):
    """A pass failed, or produced a program that does not mean what its input meant."""

    def __init__(self, message: str, span: Span | None = None, *, pass_name: str = "") -> None:
        super().__init__(message, span)
        self.pass_name = pass_name


class BackendError(RelayError):
    """A target cannot compile or run part of a program."""

    def __init__(
        self, message: str, span: Span | None = None, *, target: str = "", op: str = ""
    ) -> None:
        super().__init__(message, span)
        self.target = target
        self.op = op
