"""``relay gen``: write generated programs as ``.relay`` files, and count what they contain.

Programs come from the oracle's Hypothesis strategies: whole modules
(``oracles.gen_modules.modules``: type definitions, global functions, every language feature)
and dataflow graphs of registered operators (``oracles.gen_dataflow.dataflow_programs``).
``--kind mixed`` alternates them, a module first.

**Reproducible by seed.** The strategies are driven the way a test drives them: a
``@given(program=strategy)`` function run under ``hypothesis.seed``, with only the generate
phase (no database, no shrinking), and no deadline or health check. Each program has a run of
its own, seeded from ``--seed`` and its index (``oracles.generate.program_seed``), so that the
programs are independent draws (one long run would make many near-copies: Hypothesis mutates
each new example and starts with nearly-simplest ones, which skews the ``--stats`` counts),
and program ``i`` is the same whatever ``--count``; ``--kind mixed`` takes the even indices
from the module strategy and the odd ones from the dataflow one. The same ``--seed`` (and the
same Hypothesis and generator versions) gives the same programs, byte for byte, in any
process. ``.example()`` is not used: it ignores seeds and is meant for the REPL; ``find``
searches for one example, it does not enumerate them. Program 0 of every seed is the simplest
one the strategy can make (the first example of a run is the all-simplest choice sequence);
every other is the second example of its run. The seeded runs are ``oracles.generate``
(Hypothesis stays in ``oracles/``).

**Files.** Program ``i`` (from 0) is ``DIR/gen_IIII-KIND.relay`` (``KIND`` is ``module`` or
``dataflow``; the index is zero-padded to at least four digits), in canonical text, preceded by
``//`` comment lines saying how it was generated and the parameter types of ``@main`` (for a
dataflow program, also which parameters must be positive for its values to stay finite and
defined; see ``oracles.gen_args``). Existing files of the same names are overwritten. Without
``--out`` (and without ``--stats``) the programs go to standard output, one after another.

**Statistics** (``--stats``): for each feature of ``gen_modules.FEATURES`` (TVM's feature
detector) and ``EXTRA_FEATURES``, the number of programs containing it; for each registered
operator (the registry at run time, so an operator never drawn shows 0), the number of calls
of it, with the balance (the most calls of an operator over the fewest; the generators draw
every operator with the same probability) and how many calls have only constant arguments
(what constant folding folds); and the 50th, 90th and 99th percentiles and the maximum of
program size, in expression nodes (distinct nodes: a shared node counts once), per kind.
"""

from __future__ import annotations

import argparse
import math
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .semantics.ops import OPS
from .semantics.syntax import Call, Constant, Expr, Op, Tuple, post_order
from .semantics.text.printer import astext, format_type

if TYPE_CHECKING:  # the generators import hypothesis: only ``relay gen`` itself loads them
    from .oracles.generate import Generated

MAX_COUNT = 100_000
"""The largest ``--count`` accepted (every program is held in memory until written)."""


class GenUsageError(Exception):
    """Bad usage of ``relay gen``; the command line reports it as ``relay: error: ...``."""


# ---------------------------------------------------------------------------------------------
# Files


def file_name(program: Generated, count: int) -> str:
    """``gen_IIII-KIND.relay``: the index zero-padded to the width of ``count - 1`` (at least 4
    digits), so that the files sort in generation order."""
    width = max(4, len(str(count - 1)))
    return f"gen_{program.index:0{width}d}-{program.kind}.relay"


def program_text(program: Generated, *, count: int, seed: int, kind: str) -> str:
    """The text of a generated file: ``//`` header lines, then the module's canonical text."""
    lines = [
        f"// relay gen --seed {seed} --kind {kind}: program {program.index} of {count}, "
        f"a {'generated module' if program.kind == 'module' else 'dataflow program'}",
    ]
    params = ", ".join(format_type(t) for t in program.param_types) or "none"
    lines.append(f"// parameters of @main: {params}")
    if program.positive is not None and any(program.positive):
        which = ", ".join(str(i) for i, p in enumerate(program.positive) if p)
        lines.append(f"// parameters that must be positive (by position, from 0): {which}")
    return "\n".join(lines) + "\n" + astext(program.mod) + "\n"


def prepare_out(path: str) -> Path:
    """``--out DIR``, created if missing; ``GenUsageError`` if it cannot be written to."""
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise GenUsageError(f"--out {path}: exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise GenUsageError(f"--out {path}: cannot create the directory: {err.strerror}") from None
    try:  # a probe rather than os.access, which says yes to root on a read-only mount
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as err:
        raise GenUsageError(f"--out {path}: cannot write there: {err.strerror}") from None
    return out


# ---------------------------------------------------------------------------------------------
# Statistics


@dataclass
class Stats:
    """What ``--stats`` counts: programs per feature, calls per operator, sizes per kind."""

    programs: int = 0
    features: Counter[str] = field(default_factory=Counter)
    ops: Counter[str] = field(default_factory=Counter)
    sizes: dict[str, list[int]] = field(default_factory=dict)
    constant_calls: int = 0
    """Operator calls with at least one argument, every one a constant (or a tuple of
    constants): what constant folding folds."""

    def add(self, program: Generated) -> None:
        """Count one program."""
        from .oracles.gen_modules import extra_features, features

        self.programs += 1
        self.features.update(features(program.mod))
        self.features.update(extra_features(program.mod))
        nodes = 0
        for fn in program.mod.functions.values():
            for node in post_order(fn):
                nodes += 1
                if isinstance(node, Call) and isinstance(node.op, Op):
                    self.ops[node.op.name] += 1
                    self.constant_calls += all_constant(node)
        self.sizes.setdefault(program.kind, []).append(nodes)

    def missing(self) -> tuple[list[str], list[str]]:
        """The features and the registered operators that no program contained."""
        from .oracles.gen_modules import EXTRA_FEATURES, FEATURES

        features = [f for f in (*FEATURES, *EXTRA_FEATURES) if not self.features[f]]
        return features, sorted(name for name in OPS if not self.ops[name])


def all_constant(call: Call) -> bool:
    """Whether ``call`` has arguments and each is a constant or a tuple of constants."""
    return bool(call.args) and all(
        isinstance(a, Constant) or (isinstance(a, Tuple) and all_constants(a.fields))
        for a in call.args
    )


def all_constants(exprs: Sequence[Expr]) -> bool:
    """Whether every one of ``exprs`` is a constant."""
    return all(isinstance(e, Constant) for e in exprs)


def balance(ops: Counter[str]) -> tuple[float, str, str]:
    """The most and the fewest calls of a registered operator, as ``(max / min, most,
    fewest)`` (``inf`` when some operator has no call)."""
    most = max(OPS, key=lambda name: (ops[name], name))
    fewest = min(OPS, key=lambda name: (ops[name], name))
    ratio = ops[most] / ops[fewest] if ops[fewest] else math.inf
    return ratio, most, fewest


def percentile(sorted_values: Sequence[int], p: float) -> int:
    """The nearest-rank ``p``-th percentile of a non-empty sorted sequence."""
    rank = max(1, math.ceil(p / 100 * len(sorted_values)))
    return sorted_values[rank - 1]


def format_stats(stats: Stats) -> str:
    """The ``--stats`` report: the feature table, the operator table, the size percentiles."""
    from .oracles.gen_modules import EXTRA_FEATURES, FEATURES

    n = stats.programs
    lines = [f"features: programs containing each, of {n}"]
    width = max(len(f) for f in (*FEATURES, *EXTRA_FEATURES))
    for group, names in (("TVM", FEATURES), ("extra", EXTRA_FEATURES)):
        for f in names:
            c = stats.features[f]
            lines.append(f"  {f:<{width}}  {c:>7}  {c / max(n, 1):7.1%}  {group}")
    missing_features, missing_ops = stats.missing()
    total_calls = stats.ops.total()
    lines.append("")
    lines.append(
        f"operators: calls of each, {total_calls} calls of {len(OPS) - len(missing_ops)} of "
        f"the {len(OPS)} registered operators"
    )
    ratio, most, fewest = balance(stats.ops)
    lines.append(
        f"  balance: max/min calls per operator {ratio:.2f} (most: {most} "
        f"{stats.ops[most]}, fewest: {fewest} {stats.ops[fewest]})"
    )
    lines.append(
        f"  all-constant calls (every argument a constant): {stats.constant_calls} "
        f"({stats.constant_calls / max(total_calls, 1):.2%} of the calls)"
    )
    width = max((len(name) for name in OPS), default=0)
    for name in sorted(OPS):
        c = stats.ops[name]
        lines.append(f"  {name:<{width}}  {c:>7}  {c / max(total_calls, 1):7.2%}")
    unregistered = sorted(set(stats.ops) - set(OPS))
    for name in unregistered:
        lines.append(f"  {name:<{width}}  {stats.ops[name]:>7}  (not registered)")
    lines.append("")
    lines.append("size: expression nodes per program (a shared node counts once)")
    lines.append(f"  {'kind':<9} {'programs':>8} {'p50':>6} {'p90':>6} {'p99':>6} {'max':>6}")
    rows = sorted(stats.sizes.items())
    if len(rows) > 1:
        rows.append(("all", [s for _, sizes in rows for s in sizes]))
    for kind, sizes in rows:
        ordered = sorted(sizes)
        cells = [percentile(ordered, p) for p in (50, 90, 99)] + [ordered[-1]]
        lines.append(f"  {kind:<9} {len(ordered):>8} " + " ".join(f"{c:>6}" for c in cells))
    lines.append("")
    lines.append("never generated: " + (", ".join(missing_features + missing_ops) or "nothing"))
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# The subcommand


def parse_count(text: str) -> int:
    """``--count``: an integer from 1 to ``MAX_COUNT`` (``_`` separators allowed)."""
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise GenUsageError(f"--count {text}: expected a positive integer") from None
    if not 1 <= value <= MAX_COUNT:
        raise GenUsageError(f"--count {text}: expected an integer from 1 to {MAX_COUNT:,}")
    return value


def parse_seed(text: str) -> int:
    """``--seed``: a non-negative integer (``_`` separators allowed)."""
    try:
        value = int(text.replace("_", ""))
    except ValueError:
        raise GenUsageError(f"--seed {text}: expected a non-negative integer") from None
    if value < 0:
        raise GenUsageError(f"--seed {text}: expected a non-negative integer")
    return value


def parse_kind(text: str) -> str:
    """``--kind``: one of ``KINDS``."""
    from .oracles.generate import KINDS

    if text not in KINDS:
        raise GenUsageError(f"--kind {text}: expected one of {', '.join(KINDS)}")
    return text


def cmd_gen(args: argparse.Namespace) -> int:
    """Generate ``--count`` programs; write them (``--out`` or standard output) and/or count
    them (``--stats``)."""
    from .cli import UsageError
    from .oracles.generate import generate

    # Checked here rather than by argparse, so that bad usage is one line (argparse prints
    # its usage text first).
    try:
        count, seed, kind = parse_count(args.count), parse_seed(args.seed), parse_kind(args.kind)
        out = prepare_out(args.out) if args.out is not None else None
    except GenUsageError as err:
        raise UsageError(str(err)) from None
    programs = generate(count, seed, kind)
    stats = Stats()
    for program in programs:
        text = program_text(program, count=count, seed=seed, kind=kind)
        if out is not None:
            path = out / file_name(program, count)
            try:
                path.write_text(text, encoding="utf-8")
            except OSError as err:
                raise UsageError(f"cannot write {path}: {err.strerror}") from None
        elif not args.stats:
            sys.stdout.write(text if program.index == 0 else "\n" + text)
        if args.stats:
            stats.add(program)
    if out is not None:
        print(f"wrote {len(programs)} programs to {out}", file=sys.stderr)
    if args.stats:
        print(format_stats(stats))
    return 0


def add_parser(sub: Any) -> None:
    """Add the ``gen`` subcommand to ``sub`` (an argparse subparsers object)."""
    gen = sub.add_parser(
        "gen",
        help="write generated well-typed programs as .relay files",
        description="Generate well-typed Relay programs with the oracle's generators: whole "
        "modules (every language feature), dataflow graphs of registered operators, or both "
        "alternately. The same --seed gives the same programs. Without --out (and --stats) "
        "the programs are printed one after another.",
    )
    gen.add_argument(
        "--count",
        default="10",
        metavar="N",
        help="how many programs (default 10)",
    )
    gen.add_argument(
        "--seed",
        default="0",
        metavar="S",
        help="the seed: the same seed gives the same programs (default 0)",
    )
    gen.add_argument(
        "--kind",
        default="mixed",
        metavar="KIND",
        help="modules (whole modules), dataflow (operator graphs) or mixed (alternating, "
        "the default)",
    )
    gen.add_argument(
        "--out",
        metavar="DIR",
        help="write program I to DIR/gen_IIII-KIND.relay (the directory is created)",
    )
    gen.add_argument(
        "--stats",
        action="store_true",
        help="print how many programs contain each language feature, how many calls each "
        "registered operator got, and percentiles of program size",
    )
    gen.set_defaults(handler=cmd_gen)
