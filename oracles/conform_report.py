"""The report of a conformance run (``relay conform --report FILE``), in HTML or Markdown.

It holds, in this order: the run (target, seed, number of generated programs, time, the
one-line summary); the table of passes, failures, expected failures, unexpected passes and
skips per construct and operator family (``ConformReport.rows``); then every failure,
unexpected pass and expected failure with its tags, operators, message, the verdict (inputs,
expected and actual values, the failing kernel) and the program, the shrunk one for a
generated program where shrinking found it again; then the stale expected-failure entries and
the skipped cases with their reasons. The HTML is one self-contained file (no scripts, an
inline style sheet); the Markdown is GitHub-flavoured (pipe tables, fenced code).
"""

from __future__ import annotations

import html
from pathlib import Path

from .conform_kit import STATUSES, ConformOutcome, ConformReport

FORMATS = {".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown"}
"""Report file suffixes and the format each selects."""

_TITLE = {"fail": "Failures", "xpass": "Unexpected passes", "xfail": "Expected failures"}


def report_format(path: Path) -> str:
    """``html`` or ``markdown`` from the suffix of ``path``; ``ValueError`` for another."""
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise ValueError(f"--report {path}: the report is .html or .md (found "
                         f"{path.suffix or 'no suffix'!r})")  # fmt: skip
    return kind


def _heading(report: ConformReport) -> list[tuple[str, str]]:
    return [("target", report.target), ("generated programs", f"{report.programs} (seed "
            f"{report.seed})"), ("time", f"{report.seconds:.1f} s"),
            ("verdict", "conforms" if report.ok else "does not conform")]  # fmt: skip


def _sections(report: ConformReport) -> list[tuple[str, list[ConformOutcome]]]:
    return [(_TITLE[s], [o for o in report.outcomes if o.status == s]) for s in _TITLE]


def render_markdown(report: ConformReport) -> str:
    """The report as Markdown."""
    out = [f"# Conformance of target `{report.target}`", ""]
    out += [f"- {k}: {v}" for k, v in _heading(report)]
    out += ["", report.summary(), "", "## Per construct and operator family", ""]
    out.append("| construct / family | " + " | ".join(STATUSES) + " |")
    out.append("|---|" + "---:|" * len(STATUSES))
    for name, counts in report.rows():
        out.append(f"| {name} | " + " | ".join(str(counts[s]) for s in STATUSES) + " |")
    for title, outcomes in _sections(report):
        if not outcomes:
            continue
        out += ["", f"## {title}", ""]
        for o in outcomes:
            out += [f"### `{o.name}`", "", f"- tags: {', '.join(o.tags) or '(none)'}"]
            out.append(f"- operators: {', '.join(o.ops) or '(none)'}")
            if o.listed_as:
                out.append(f"- listed by: `{o.listed_as}`")
            out += [f"- message: {o.message}", ""]
            if o.detail:
                out += ["```", o.detail, "```", ""]
            if o.program:
                kind = "shrunk program" if o.shrunk else "program"
                out += [f"The {kind}:", "", "```", o.program.rstrip(), "```", ""]
    if report.stale:
        out += ["", "## Stale expected-failure entries", ""]
        out += [f"- `{name}` names no case of this run" for name in report.stale]
    skipped = [o for o in report.outcomes if o.status == "skip"]
    if skipped:
        out += ["", "## Skipped", ""]
        out += [f"- `{o.name}`: {o.message}" for o in skipped]
    return "\n".join(out).rstrip() + "\n"


_STYLE = """
body { font-family: sans-serif; max-width: 70em; margin: 2em auto; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 2px 8px; }
td.n { text-align: right; } .fail, .xpass { color: #b00; } .pass { color: #070; }
pre { background: #f6f6f6; padding: 8px; overflow-x: auto; }
"""


def render_html(report: ConformReport) -> str:
    """The report as one self-contained HTML page."""
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>Conformance of target {e(report.target)}</title>",
           f"<style>{_STYLE}</style></head><body>",
           f"<h1>Conformance of target <code>{e(report.target)}</code></h1>", "<ul>"]  # fmt: skip
    out += [f"<li>{e(k)}: {e(v)}</li>" for k, v in _heading(report)]
    out += ["</ul>", f"<p>{e(report.summary())}</p>", "<h2>Per construct and operator family</h2>"]
    out.append("<table><tr><th>construct / family</th>"
               + "".join(f"<th>{s}</th>" for s in STATUSES) + "</tr>")  # fmt: skip
    for name, counts in report.rows():
        cells = "".join(f'<td class="n {s if counts[s] else ""}">{counts[s]}</td>'
                        for s in STATUSES)  # fmt: skip
        out.append(f"<tr><td>{e(name)}</td>{cells}</tr>")
    out.append("</table>")
    for title, outcomes in _sections(report):
        if not outcomes:
            continue
        out.append(f"<h2>{e(title)}</h2>")
        for o in outcomes:
            out.append(f'<h3 id="{e(o.name)}"><code>{e(o.name)}</code></h3><ul>')
            out.append(f"<li>tags: {e(', '.join(o.tags) or '(none)')}</li>")
            out.append(f"<li>operators: {e(', '.join(o.ops) or '(none)')}</li>")
            if o.listed_as:
                out.append(f"<li>listed by: <code>{e(o.listed_as)}</code></li>")
            out.append(f"<li>message: {e(o.message)}</li></ul>")
            if o.detail:
                out.append(f"<pre>{e(o.detail)}</pre>")
            if o.program:
                kind = "shrunk program" if o.shrunk else "program"
                out.append(f"<p>The {kind}:</p><pre>{e(o.program.rstrip())}</pre>")
    if report.stale:
        out.append("<h2>Stale expected-failure entries</h2><ul>")
        out += [f"<li><code>{e(n)}</code> names no case of this run</li>" for n in report.stale]
        out.append("</ul>")
    skipped = [o for o in report.outcomes if o.status == "skip"]
    if skipped:
        out.append("<h2>Skipped</h2><ul>")
        out += [f"<li><code>{e(o.name)}</code>: {e(o.message)}</li>" for o in skipped]
        out.append("</ul>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write_report(report: ConformReport, path: Path) -> None:
    """Write the report to ``path`` in the format its suffix names (``report_format``)."""
    text = render_html(report) if report_format(path) == "html" else render_markdown(report)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


__all__ = ["FORMATS", "render_html", "render_markdown", "report_format", "write_report"]
