"""Fuzz reports: the file a failure is written to, reading it back, and replaying it.

A report is a valid Relay file whose header comment is the report::

    // relay fuzz: counterexample
    // pass: NAME
    // verdict: KIND: MESSAGE            (then inputs, expected and actual values, detail)
    // found after N examples (then shrunk)
    // failure-key: 0123456789abcdef
    // reproduce: relay fuzz --pass SPEC --replay PATH
    // ARG-JSON: [...]                    one line per argument of @main, in order
    // NAMES-JSON: {"main": {"p1": "p"}}  only where a binder is printed under another name

    #[version = "0.0.5"]
    def @main(...) { ... }

**Exact replay.** The program is the failing module printed, and reading the file gives back
that very module, not merely an alpha-equivalent one: the text format keeps everything but
binder names (printing then parsing is the identity up to alpha-equivalence), and the binder
names are kept by the ``NAMES-JSON`` line. The printer gives a binder another name than its
``name_hint`` where the name would shadow one in scope (the generator names every parameter
``%p``, printed ``%p, %p1, %p2``) or cannot be written (characters a name cannot hold); with
``astext(..., renamed=...)`` it records, per global, what each such printed name stands for,
and chooses names so that a printed name never stands for two hints. ``read_case`` renames
the parsed binders back. So a failure that depends on binder names (a pass that looks
parameters up by ``name_hint``) replays; without that line it would not, since the printed
module has three distinct names where the failing one had one.

**Arguments.** ``replay`` applies ``@main`` to the ``ARG-JSON`` arguments. A file without
them (a hand-written program, or one edited down) is compared on ``REPLAY_ARG_SETS`` argument
lists drawn for ``@main``'s parameter types as a campaign draws them for a whole module
(``gen_args.values``, under Hypothesis with a fixed seed, so a replay is repeatable), and
says so; if a parameter type has no generator, nothing can be compared and ``replay`` raises
``ReplayError`` (exit 2 at the command line) rather than pass vacuously.

**One report per failure.** ``write_report`` writes ``<out>/<label>-<n>.relay`` atomically (a
temporary file in the same folder, then a hard link to the first free name, which fails
rather than overwrite: exclusive create), and writes nothing when a report of the same label
with the same ``failure-key`` (``failure_key``: a hash of the program text and the verdict's
kind) is already there, so a rerun that finds the same failure again, or two campaigns that
find it at once, leave one file. The text's ``REPORT_PATH`` placeholder becomes the file's
path: a campaign writes ``write_report(out, label, report_text(verdict, case, spec,
REPORT_PATH, examples=n), failure_key(case, verdict))``.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as hypothesis_seed
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from relay.compiler.ir import rename_binders
from relay.semantics.errors import ParseError, RelayError, RelayTypeError, SourceFile, Span
from relay.semantics.syntax import Function, FuncType, IRModule, Type, Var
from relay.semantics.text.parser import parse
from relay.semantics.text.printer import astext, format_type
from relay.semantics.typing import infer_types
from relay.semantics.values import Value, value_to_json

from .compare import value_from_json
from .gen_args import values
from .pass_oracle import Verdict, check_pass_many
from .stable import stable_draws

if TYPE_CHECKING:  # fuzz imports this module; the names are read from it at call time
    from .fuzz import Case, LoadedPass

ARG_PREFIX = "// ARG-JSON:"
NAMES_PREFIX = "// NAMES-JSON:"
KEY_PREFIX = "// failure-key:"

REPORT_PATH = "{REPORT_PATH}"
"""Placeholder for the report's own path in a report's text; ``write_report`` fills it in."""

REPLAY_ARG_SETS = 8
"""Argument lists drawn for a replayed file that has no ``ARG-JSON`` lines."""

REPLAY_SEED = 0
"""The Hypothesis seed those lists are drawn with."""


class ReplayError(RelayError):
    """A report that cannot be replayed meaningfully (nothing could be compared)."""


# ---------------------------------------------------------------------------------------------
# Writing


def failure_key(case: Case, verdict: Verdict) -> str:
    """What identifies a failure for ``write_report``: a hash of the program's text and the
    verdict's kind (not the message, which may carry values that vary between runs)."""
    digest = hashlib.sha256(f"{astext(case.mod)}\n{verdict.kind}".encode())
    return digest.hexdigest()[:16]


def report_text(verdict: Verdict, case: Case, spec: str, path: str, *, examples: int = 0) -> str:
    """The report file for a failure: header comment, argument and name lines, then the
    program (see the module docstring)."""
    lines = ["relay fuzz: counterexample", *verdict.report().splitlines()]
    if examples:
        plural = "" if examples == 1 else "s"
        lines.append(f"found after {examples} example{plural} (then shrunk)")
    lines.append(f"failure-key: {failure_key(case, verdict)}")
    lines.append(f"reproduce: relay fuzz --pass {spec} --replay {path}")
    header = [f"// {line}".rstrip() for line in lines]
    header += [f"{ARG_PREFIX} {json.dumps(value_to_json(a))}" for a in case.args]
    renamed: dict[str, dict[str, str]] = {}
    program = astext(case.mod, renamed=renamed)
    if renamed:
        header.append(f"{NAMES_PREFIX} {json.dumps(renamed, sort_keys=True)}")
    return "\n".join([*header, "", program, ""])


def _key_of(path: Path) -> str | None:
    try:
        with path.open(encoding="utf-8") as f:
            for line in f:
                if not line.startswith("//"):
                    return None
                if line.startswith(KEY_PREFIX):
                    return line[len(KEY_PREFIX) :].strip()
    except (OSError, UnicodeDecodeError):
        return None
    return None


def _with_key(text: str, key: str) -> str:
    """``text`` with its failure-key line saying ``key`` (added as the second line if it has
    none)."""
    lines = text.split("\n")
    line = f"{KEY_PREFIX} {key}"
    for i, x in enumerate(lines):
        if x.startswith(KEY_PREFIX):
            lines[i] = line
            return "\n".join(lines)
    lines.insert(1 if lines and lines[0].startswith("//") else 0, line)
    return "\n".join(lines)


def write_report(out_dir: Path, label: str, text: str, key: str) -> Path:
    """Write ``text`` to ``out_dir/<label>-<n>.relay`` for the first free ``n`` (atomically,
    never overwriting) and return its path; if a report of ``label`` with failure key ``key``
    already exists, return that one's path and write nothing. The text gets a ``//
    failure-key: KEY`` line (replacing any it has), and ``REPORT_PATH`` in it becomes the
    path."""
    out_dir.mkdir(parents=True, exist_ok=True)
    prefix = f"{label}-"

    def number(p: Path) -> int:
        tail = p.name[len(prefix) : -len(".relay")]
        return int(tail) if tail.isdigit() else 0

    existing = sorted(out_dir.glob(f"{label}-*.relay"), key=number)
    for p in existing:
        if number(p) and _key_of(p) == key:
            return p
    text = _with_key(text, key)
    n = max((number(p) for p in existing), default=0) + 1
    # A temporary name of our own (not mkstemp, whose files are private to their owner: the
    # report gets the permissions the umask gives an ordinary file).
    tmp = out_dir / f".{label}-{os.getpid()}-{secrets.token_hex(8)}.tmp"
    os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
    try:
        while True:
            path = out_dir / f"{label}-{n}.relay"
            tmp.write_text(text.replace(REPORT_PATH, str(path)), encoding="utf-8")
            try:
                _create_exclusive(tmp, path)
                return path
            except FileExistsError:
                if _key_of(path) == key:  # another campaign wrote this failure meanwhile
                    return path
                n += 1
    finally:
        tmp.unlink(missing_ok=True)


def _create_exclusive(tmp: Path, path: Path) -> None:
    """Give ``tmp``'s complete contents the name ``path``, failing with ``FileExistsError``
    if it exists: a hard link, or where links are not supported, an exclusive create of the
    name and then an atomic replace."""
    try:
        os.link(tmp, path)
        return
    except FileExistsError:
        raise
    except OSError:
        pass  # no hard links here
    os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    os.replace(tmp, path)


# ---------------------------------------------------------------------------------------------
# Reading


def _line_span(source: SourceFile, number: int, line: str) -> Span:
    return Span(source, number, 1, number, len(line) + 1)


def read_case(text: str, name: str) -> Case:
    """The program and arguments of a report file, with its exact binder names (``ParseError``
    if it is not one)."""
    from .fuzz import Case

    mod = parse(text, source_name=name)
    source = SourceFile(name, text)
    args: list[Value] = []
    names: dict[str, dict[str, str]] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith(ARG_PREFIX):
            try:
                args.append(value_from_json(json.loads(line[len(ARG_PREFIX) :]), mod, {}))
            except ValueError as err:
                span = _line_span(source, number, line)
                raise ParseError(f"bad ARG-JSON line: {err}", span) from None
        elif line.startswith(NAMES_PREFIX):
            try:
                names.update(_names_table(json.loads(line[len(NAMES_PREFIX) :]), mod))
            except ValueError as err:
                span = _line_span(source, number, line)
                raise ParseError(f"bad NAMES-JSON line: {err}", span) from None
    if args and "main" in mod and len(args) != len(mod["main"].params):
        params = len(mod["main"].params)
        raise ParseError(
            f"{len(args)} ARG-JSON lines for an @main of {params} parameters",
            _line_span(source, 1, source.line_text(1)),
        )
    return Case(restore_names(mod, names), tuple(args))


def _names_table(raw: object, mod: IRModule) -> dict[str, dict[str, str]]:
    if not isinstance(raw, dict):
        raise ValueError("expected an object of globals")
    out: dict[str, dict[str, str]] = {}
    for glob, table in raw.items():
        if glob not in mod:
            raise ValueError(f"no global @{glob} in the program")
        if not isinstance(table, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in table.items()
        ):
            raise ValueError(f"@{glob}: expected an object of printed name to name")
        out[glob] = dict(table)
    return out


def restore_names(mod: IRModule, names: dict[str, dict[str, str]]) -> IRModule:
    """``mod`` with the binders of each global ``g`` of ``names`` renamed from their printed
    name to ``names[g][name]`` (the ``renamed`` table ``astext`` filled in)."""
    if not names:
        return mod
    functions = dict(mod.functions)
    for gv, fn in mod.functions.items():
        table = names.get(gv.name)
        if not table:
            continue

        def make(v: Var, table: dict[str, str] = table) -> Var | None:
            hint = table.get(v.name_hint)
            return None if hint is None else Var(hint, v.type_annotation, span=v.span)

        renamed = rename_binders(fn, make)
        assert isinstance(renamed, Function)
        functions[gv] = renamed
    return IRModule(functions, mod.type_definitions)


# ---------------------------------------------------------------------------------------------
# Replaying


def draw_arguments(param_types: Sequence[Type], count: int, seed: int) -> list[tuple[Value, ...]]:
    """Up to ``count`` distinct argument lists for parameters of ``param_types``, drawn from
    ``gen_args.values`` as a campaign draws them for a module's ``@main``, the same for the
    same ``seed``; ``InvalidArgument`` if a type has no generator."""
    strategies = [values(t, where=f"parameter {i}") for i, t in enumerate(param_types)]
    if not strategies:
        return [()]
    drawn: list[tuple[Value, ...]] = []

    @settings(
        max_examples=count,
        phases=[Phase.generate],
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.tuples(*strategies))
    def one(args: tuple[Value, ...]) -> None:
        if len(drawn) < count:
            drawn.append(tuple(args))

    with stable_draws():
        hypothesis_seed(seed)(one)()
    return drawn


def replay(
    loaded: LoadedPass, path: Path, *, note: Callable[[str], None] | None = None
) -> tuple[Case, Verdict | None]:
    """Re-run the checks of a saved case on ``loaded``'s pass: the verdict, or ``None`` if
    the checks pass. Without ``ARG-JSON`` lines, the arguments are drawn (see the module
    docstring) and ``note`` is told so; ``ReplayError`` if none can be."""
    from .fuzz import EXAMPLE_TIMEOUT, REDUCTION_LENGTH, Case

    text = path.read_text(encoding="utf-8")
    case = read_case(text, str(path))
    arg_sets: list[tuple[Value, ...]] = [case.args]
    if "main" not in case.mod:
        if note is not None:
            note(f"{path}: the module has no @main: only the structural checks ran")
    elif not case.args and case.mod["main"].params:
        main_type = _main_type(case.mod, path, text)
        try:
            arg_sets = draw_arguments(main_type.arg_types, REPLAY_ARG_SETS, REPLAY_SEED)
        except InvalidArgument as err:
            raise ReplayError(
                f"nothing was compared: the file has no ARG-JSON lines, and {err}",
                Span(SourceFile(str(path), text), 1, 1, 1, 1),
            ) from None
        case = Case(case.mod, arg_sets[0])
        if note is not None:
            note(
                f"{path}: no ARG-JSON lines: compared on {len(arg_sets)} argument lists drawn "
                f"for @main's parameters (gen_args.values, seed {REPLAY_SEED})"
            )
    verdict = check_pass_many(
        loaded.pass_,
        case.mod,
        arg_sets,
        timeout=EXAMPLE_TIMEOUT,
        reduction_length=REDUCTION_LENGTH,
    )
    return case, verdict


def _main_type(mod: IRModule, path: Path, text: str) -> FuncType:
    try:
        t = infer_types(mod).global_type("main")
    except RelayTypeError as err:
        raise ReplayError(
            f"nothing was compared: the program does not type-check ({err.message}), so no "
            "arguments can be drawn for it",
            err.span or Span(SourceFile(str(path), text), 1, 1, 1, 1),
        ) from None
    assert isinstance(t, FuncType), format_type(t)
    return t


__all__ = [
    "REPLAY_ARG_SETS",
    "REPORT_PATH",
    "ReplayError",
    "draw_arguments",
    "failure_key",
    "read_case",
    "replay",
    "report_text",
    "restore_names",
    "write_report",
]
