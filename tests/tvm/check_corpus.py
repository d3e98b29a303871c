"""Run TVM's Relay programs through this implementation: parse, print fixpoint, type-check.

Usage: ``python tests/tvm/check_corpus.py PROGRAMS_DIR`` where the folder was written by
``tests/tvm/extract.py``. Each program is parsed, printed, parsed again and printed again (the
two printings must be equal, and the reparsed module alpha-equal to the first), then
type-checked. Programs listed in ``tests/tvm/expected_failures.txt`` with a reason are
expected to fail at the stage named there; the script exits 1 if any other program fails or a
listed one passes.
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

import relay
from relay.semantics.equality import alpha_equal

HERE = Path(__file__).parent
EXPECTED = HERE / "expected_failures.txt"
PRELUDE_USERS = {"std__nat.module.relay": "std__prelude.module.relay"}


def expected_failures() -> dict[str, tuple[str, str]]:
    """``name -> (stage, reason)`` from the expected-failures list."""
    out: dict[str, tuple[str, str]] = {}
    if not EXPECTED.exists():
        return out
    for raw in EXPECTED.read_text("utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        name, stage, reason = (part.strip() for part in line.split("|", 2))
        out[name] = (stage, reason)
    return out


def check_one(path: Path, folder: Path) -> tuple[str, str]:
    """``(stage, message)`` of the first failing stage, or ``("ok", "")``."""
    text = path.read_text("utf-8")
    prelude = PRELUDE_USERS.get(path.name)
    if text.startswith("// prelude: "):
        prelude = text.split("\n", 1)[0].removeprefix("// prelude: ").strip()
    try:
        if prelude is not None:
            base = folder / prelude
            base_module = relay.parse(base.read_text("utf-8"), str(base))
            mod = relay.parse(text, str(path), prelude=base_module)
        else:
            mod = relay.parse(text, str(path))
    except relay.RelayError as err:
        return "parse", str(err).splitlines()[0]
    except Exception as err:  # an escape is a defect: report it as such
        return "parse", f"internal {type(err).__name__}: {err}"
    try:
        first = relay.astext(mod)
        again = relay.parse(first, "<printed>")
        second = relay.astext(again)
        if first != second:
            return "print", "printing is not a fixpoint"
        if not alpha_equal(mod, again):
            return "print", "the reparsed module is not alpha-equal"
    except relay.RelayError as err:
        return "print", str(err).splitlines()[0]
    except Exception as err:
        return "print", f"internal {type(err).__name__}: {err}"
    try:
        relay.infer_types(mod)
    except relay.RelayError as err:
        return "check", str(err).splitlines()[0]
    except Exception as err:
        return "check", f"internal {type(err).__name__}: {err}"
    return "ok", ""


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("programs", type=Path)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    expected = expected_failures()
    stages: collections.Counter[str] = collections.Counter()
    unexpected = 0
    for path in sorted(args.programs.glob("*.relay")):
        has_meta = "meta[" in path.read_text("utf-8")
        stage, message = check_one(path, args.programs)
        group = "meta" if has_meta else "standalone"
        stages[group, stage] += 1
        listed = expected.get(path.name)
        if stage == "check" and ".expr." in path.name and listed is None:
            # TVM's parse_expr did not type-check: a bare expression need only parse.
            stages[group, "check"] -= 1
            stages[group, "ok (expression, not checked in TVM)"] += 1
            if args.verbose:
                print(f"{path.name}: parses; ill-typed, as TVM allowed here ({message})")
            continue
        if stage == "ok" and listed is None:
            continue
        if listed is not None and listed[0] == stage:
            if args.verbose:
                print(f"{path.name}: expected {stage} failure ({listed[1]})")
            continue
        unexpected += 1
        if stage == "ok":
            print(f"{path.name}: passes, but is listed as failing at {listed[0]}")
        else:
            print(f"{path.name}: {stage}: {message}")
    for group in ("standalone", "meta"):
        total = sum(n for (g, _), n in stages.items() if g == group)
        names = ("ok", "ok (expression, not checked in TVM)", "parse", "print", "check")
        parts = ", ".join(f"{s} {stages[group, s]}" for s in names)
        print(f"{group}: {total} programs: {parts}")
    print(f"{unexpected} unexpected result(s)")
    return 1 if unexpected else 0


if __name__ == "__main__":
    sys.exit(main())
