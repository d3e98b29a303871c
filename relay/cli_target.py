"""The command line's target commands: ``relay compile`` and ``relay conform``, and what
``relay run --target`` and ``relay fuzz --target`` share with them.

- ``relay compile FILE --target cpu --emit llvm|asm|obj|loop-ir -o OUT``: one file per kernel
  in the directory OUT (``NAME.ll``, ``NAME.s``, ``NAME.o``, ``NAME.loop``) and ``index.json``
  listing the kernels (name, file, the operators fused into it); the GPU targets also have
  ``--emit ptx`` (``NAME.ptx``), which prints each kernel's ptxas report (registers, shared
  memory, stack, spills) and adds it to the index as ``"ptxas"``;
- ``relay conform --target NAME``: the conformance corpus and ``--programs N`` generated
  programs on the target, a summary table per construct and operator family, exit 1 on an
  unexpected failure or an unexpected pass (expected-failure files:
  ``relay.oracles.conform_kit``), ``--report FILE.html|FILE.md`` (``conform_report``);
- a kernel the code generator rejects is an internal error (exit 3): its IR is saved to
  ``relay-rejected/KERNEL.ll`` and the message says where.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from .semantics.errors import RelayError

EMIT = {"llvm": ".ll", "asm": ".s", "obj": ".o", "loop-ir": ".loop", "ptx": ".ptx", "insn": ".insn"}
"""``--emit`` kinds and the file suffix of each."""

REJECTED_DIR = "relay-rejected"
"""Where the IR of a kernel the code generator rejected is saved (in the working directory)."""


class TargetUsage(Exception):
    """Bad usage of a target option (exit code 2)."""


def make_target(name: str, threads: int | None) -> Any:
    """The target called ``name``, with ``threads`` for the ``cpu`` target's parallel loops."""
    from .targets import CpuTarget, TargetLoadError, get_target

    try:
        target = get_target(name)
    except TargetLoadError as err:
        raise TargetUsage(str(err)) from None
    if threads is not None and threads != 1:
        if not isinstance(target, CpuTarget):
            raise TargetUsage(f"--threads applies to the cpu target, not {name}")
        target = CpuTarget(threads=threads)
    return target


def is_rejected_kernel(err: Exception) -> bool:
    """Whether ``err`` is a ``KernelRejected`` (imported only if targets were)."""
    base = sys.modules.get("relay.targets.base")
    return base is not None and isinstance(err, base.KernelRejected)


def save_rejected(err: Any) -> str:
    """Save the IR of a rejected kernel (``KernelRejected``); the path written."""
    folder = Path(REJECTED_DIR)
    folder.mkdir(exist_ok=True)
    safe = "".join(ch if ch.isalnum() or ch in "_-." else "_" for ch in err.kernel) or "kernel"
    path = folder / f"{safe}.ll"
    path.write_text(err.ir, encoding="utf-8")
    return str(path)


def rejected_message(err: Any) -> str:
    """The one-line internal error for a rejected kernel, its IR saved first."""
    path = save_rejected(err)
    return (f"relay: internal error: {err}; the kernel's IR is saved in {path}. This is a bug "
            "in relay: please report it with that file.")  # fmt: skip


def cmd_compile(args: argparse.Namespace) -> int:
    """``relay compile``: compile FILE and write each kernel's artifact to OUT."""
    from .cli import UsageError, load_program
    from .semantics.typing import infer_types

    program = load_program(args)
    infer_types(program.module)  # a type error is the program's, reported before compiling
    try:
        target = make_target(args.target, args.threads)
    except TargetUsage as err:
        raise UsageError(str(err)) from None
    exe = target.compile(program.module, opt_level=args.opt_level)
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise UsageError(f"-o {args.out}: exists and is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    suffix = EMIT[args.emit]
    entries = []
    kernels = getattr(exe, "kernels", {})
    for name, artifacts in exe.artifacts().items():
        data = artifacts.get(args.emit)
        if data is None:
            have = ", ".join(sorted(artifacts)) or "none"
            raise UsageError(f"target {args.target} has no {args.emit} artifact for kernel "
                             f"{name}; it has {have}")  # fmt: skip
        path = out / f"{name}{suffix}"
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data, encoding="utf-8")
        entry: dict[str, object] = {"name": name, "file": path.name}
        kernel = kernels.get(name)
        if kernel is not None:
            from .targets.cpu.runtime import _op_names

            entry["ops"] = _op_names(kernel.fn)
        report = artifacts.get("ptxas")
        if args.emit == "ptx" and isinstance(report, str):
            entry["ptxas"] = report.splitlines()
            print("".join(f"{name}: {line}\n" for line in report.splitlines()), end="")
        entries.append(entry)
    index = {"target": args.target, "emit": args.emit, "source": program.name,
             "opt_level": args.opt_level, "kernels": entries}  # fmt: skip
    (out / "index.json").write_text(json.dumps(index, indent=2) + "\n", encoding="utf-8")
    print(f"relay compile: {len(entries)} kernel{'' if len(entries) == 1 else 's'} "
          f"({args.emit}) written to {out}")  # fmt: skip
    return 0


def default_corpus() -> Path | None:
    """The repository's ``tests/conformance``, if this installation has it."""
    here = Path(__file__).resolve().parent.parent / "tests" / "conformance"
    return here if here.is_dir() else None


def conform_inputs(
    target_name: str, corpus: str | None, expected_failures: str | None
) -> tuple[Path | None, Any]:
    """The corpus folder and the expected-failure list (``conform_kit.ExpectedFailures``) of a
    conformance run, shared by ``relay conform`` and the pytest plugin: ``corpus`` or the
    repository's ``tests/conformance``; ``expected_failures`` or, if it exists,
    ``CORPUS/expected-failures-TARGET.txt``. ``TargetUsage`` for a missing folder or file or a
    malformed list."""
    from .oracles.conform_kit import ExpectedFailures

    folder = Path(corpus) if corpus else default_corpus()
    if folder is None or not folder.is_dir():
        where = f"no such folder: {corpus}" if corpus else "no conformance corpus here"
        raise TargetUsage(f"{where}: give --corpus DIR (tests/conformance of the relay "
                          "repository)")  # fmt: skip
    path = Path(expected_failures) if expected_failures else None
    if path is None and (folder / f"expected-failures-{target_name}.txt").is_file():
        path = folder / f"expected-failures-{target_name}.txt"
    if path is None:
        return folder, ExpectedFailures()
    if not path.is_file():
        raise TargetUsage(f"--expected-failures: no such file: {path}")
    try:
        return folder, ExpectedFailures.read(path)
    except ValueError as err:
        raise TargetUsage(str(err)) from None


def cmd_conform(args: argparse.Namespace) -> int:
    """``relay conform``: run the conformance kit on a target; 1 on anything unexpected."""
    from .cli import UsageError
    from .oracles.conform_kit import conform

    report_path = Path(args.report) if args.report else None
    try:
        target = make_target(args.target, args.threads)
        folder, expected = conform_inputs(target.name, args.corpus, args.expected_failures)
        if report_path is not None:
            from .oracles.conform_report import report_format

            report_format(report_path)
    except (TargetUsage, ValueError) as err:
        raise UsageError(str(err)) from None

    def show(outcome: Any) -> None:
        if outcome.status in ("fail", "xpass") or (args.verbose and outcome.status != "pass"):
            print(f"{outcome.status.upper()}: {outcome.name}: {outcome.message}")

    report = conform(target, corpus_dir=folder, programs=args.programs, seed=args.seed,
                     expected_failures=expected, on_outcome=show,
                     shrink=report_path is not None)  # fmt: skip
    print(report.table())
    for name in report.stale:
        print(f"relay conform: warning: expected failure {name} names no case of this run",
              file=sys.stderr)  # fmt: skip
    print(report.summary())
    if report_path is not None:
        from .oracles.conform_report import write_report

        write_report(report, report_path)
        print(f"relay conform: report written to {report_path}")
    return 0 if report.ok else 1


def cmd_fuzz_target(args: argparse.Namespace) -> int:
    """``relay fuzz --target NAME``: the target against the interpreter on generated programs."""
    from .oracles.target_oracle import fuzz_target_jobs, replay_target

    if args.passes:
        print("relay fuzz: error: --pass and --target are exclusive: fuzz passes, or a target's "
              "compile path", file=sys.stderr)  # fmt: skip
        return 2
    try:
        target = make_target(args.target, args.threads)
    except TargetUsage as err:
        print(f"relay fuzz: error: {err}", file=sys.stderr)
        return 2
    if args.replay is not None:
        path = Path(args.replay)
        if not path.is_file():
            print(f"relay fuzz: error: no such file: {args.replay}", file=sys.stderr)
            return 2
        try:
            _, verdict = replay_target(target, path)
        except RelayError as err:
            print(err.render(), file=sys.stderr)
            return 2
        if verdict is None:
            print(f"target {target.name}: the check passes on {path}")
            return 0
        print(verdict.report())
        return 1
    results = fuzz_target_jobs(
        target,
        jobs=args.jobs,
        max_examples=args.max_examples,
        time_budget=args.time,
        seed=args.seed,
        out_dir=Path(args.out),
        database=Path(args.database) if args.database else None,
        progress=lambda line: print(line, file=sys.stderr, flush=True),
    )
    examples = sum(r.examples for r in results)
    seconds = max(r.seconds for r in results)
    skipped = sum(r.skipped for r in results)
    reasons_count: Counter[str] = sum((r.skip_reasons for r in results), Counter())
    coverage: Counter[str] = sum((r.coverage for r in results), Counter())
    rate = examples / seconds if seconds > 0 else 0.0
    reasons = ", ".join(f"{n} {why}" for why, n in sorted(reasons_count.items()))
    jobs = f" in {len(results)} processes" if len(results) > 1 else ""
    print(f"relay fuzz --target {target.name}: {examples} programs in {seconds:.1f} s"
          f"{jobs} ({rate:.1f}/s), {skipped} skipped"
          f"{f' ({reasons})' if reasons else ''}")  # fmt: skip
    if coverage:
        from .oracles.target_oracle import CONSTRUCTS

        constructs = [f"{c} {coverage[c]}" for c in CONSTRUCTS if coverage[c]]
        families = sum(1 for t in coverage if t.startswith("op:"))
        print(f"  checked programs use: {', '.join(constructs) or 'no constructs'}; "
              f"{families} operator families")  # fmt: skip
    status = 0
    for r in results:
        if r.verdict is not None:
            print(f"FAILED: {r.verdict.kind}: {r.verdict.message} -> {r.path}")
            status = 1
        elif r.error is not None:
            print(f"ERROR: {r.error}")
            status = 1
    return status


def add_target_option(p: argparse.ArgumentParser, *, required: bool) -> None:
    """``--target NAME`` and ``--threads N``."""
    p.add_argument("--target", required=required, default=None, metavar="NAME",
                   help="a compiled target: cpu, or one installed through the relay.targets "
                   "entry-point group")  # fmt: skip
    p.add_argument("--threads", type=_positive, default=None, metavar="N",
                   help="threads for the cpu target's parallel loops (default 1)")  # fmt: skip


def _positive(text: str) -> int:
    from .cli import positive_int

    return positive_int(text)


def add_parsers(sub: Any) -> None:
    """Add ``compile`` and ``conform`` to ``sub`` (an argparse subparsers object)."""
    from .cli import add_file_arguments

    p = sub.add_parser(
        "compile",
        help="compile a program for a target and write each kernel's code",
        description="Compile a Relay program for a target; write one file per kernel (LLVM IR, "
        "assembly, object code or loop IR) to the directory OUT, with index.json listing them.",
    )
    add_file_arguments(p)
    add_target_option(p, required=True)
    p.add_argument("--emit", choices=sorted(EMIT), default="llvm",
                   help="what to write for each kernel (default llvm)")  # fmt: skip
    p.add_argument("-o", "--out", required=True, metavar="OUT", help="the output directory")
    p.add_argument("--opt-level", type=int, choices=range(4), default=3, metavar="N",
                   help="the optimisation pipeline opt-level-N (default 3)")  # fmt: skip
    p.set_defaults(handler=cmd_compile)
    c = sub.add_parser(
        "conform",
        help="run the conformance kit on a target",
        description="Run every case of the conformance corpus and N generated programs on a "
        "target, compared with the interpreter; print a summary per construct and operator "
        "family. Exit 1 on an unexpected failure or an unexpected pass (an expected failure "
        "that passes); a case using what the target declares unsupported is skipped.",
    )
    add_target_option(c, required=True)
    c.add_argument("--programs", type=int, default=20, metavar="N",
                   help="generated programs to run after the corpus (default 20)")  # fmt: skip
    c.add_argument("--seed", type=int, default=0, metavar="N",
                   help="the generators' seed (default 0)")  # fmt: skip
    c.add_argument(
        "--corpus",
        default=None,
        metavar="DIR",
        help="the corpus folder (default: the repository's tests/conformance)",
    )
    c.add_argument("--expected-failures", default=None, metavar="FILE",
                   help="expected failures, one 'KEY reason' per line, KEY a case id, "
                   "gen:SEED:INDEX, op:NAME or construct:NAME (default: "
                   "DIR/expected-failures-NAME.txt if it exists)")  # fmt: skip
    c.add_argument("--report", default=None, metavar="FILE",
                   help="write a report (FILE.html or FILE.md): the table per construct and "
                   "operator family, every failure with its program, generated ones "
                   "shrunk")  # fmt: skip
    c.add_argument("-v", "--verbose", action="store_true",
                   help="also list expected failures and skipped cases")  # fmt: skip
    c.set_defaults(handler=cmd_conform)
