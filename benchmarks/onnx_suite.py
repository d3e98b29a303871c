"""ONNX's node conformance cases on Relay's interpreter: the pass rate by op.

Runs every node case the installed ``onnx`` generates (``relay.frontend.onnx_backend``:
import, run on the interpreter, compare as ``onnx.backend.test`` does) and prints, per ONNX
op (a case counts for each op of its graph), how many cases pass, fail, or need what has no
Relay equivalent, then the totals and the goal figure: the pass rate among the cases whose ops
have a Relay equivalent (every case except those the expected-failure list marks
``unsupported``). Run:

    python benchmarks/onnx_suite.py [--op Conv] [--failures] [--suggest]

``--failures`` lists each failing case with its message; ``--suggest`` prints an
expected-failure list (``tests/onnx_expected_failures.txt``'s format) for the cases that fail
now, with the category and reason derived from the failure, to review before committing.
"""

from __future__ import annotations

import argparse
import collections
import re
import sys
import time
from pathlib import Path

from relay.compiler.frontend.onnx.table import NOT_YET, UNSUPPORTED
from relay.frontend.onnx_backend import Outcome, node_cases, read_expected_failures, run_case

EXPECTED = Path(__file__).resolve().parent.parent / "tests" / "onnx_expected_failures.txt"

# Failures of translated ops (category "wrong"), by case-name pattern: why they differ.
WRONG_REASONS: tuple[tuple[str, str], ...] = (
    (
        r"test_attention_4d_causal_fp16",
        "float16 rounding: Relay rounds each float16 step (products, exp, sums) where the "
        "reference's numpy rounds once per call: 2 of 192 elements differ by 2 float16 ulps "
        "(4.9e-4 at 0.47), beyond rtol 1e-3",
    ),
    (
        r"test_mod_float_edge_cases_fmod_0",
        "floor_mod on floats is x - floor(x / y) * y, NaN for an infinite operand, where ONNX "
        "(numpy's mod) gives x, or inf",
    ),
    (
        r"test_resize_downsample_scales_(cubic|linear)",
        "ONNX maps coordinates with the given scale; image.resize2d with the output/input size "
        "ratio, which differs when input size times scale is not an integer",
    ),
    (
        r"test_resize_upsample_sizes_nearest_round_prefer_ceil",
        "image.resize2d's round_prefer_ceil picks other source pixels than ONNX's with asymmetric "
        "coordinates",
    ),
    (
        r"test_resize_downsample_scales_linear_align_corners",
        "image.resize2d divides by output size - 1 = 0 for a one-pixel output (align_corners): "
        "NaN coordinates are undefined behaviour in the reference",
    ),
)

# Import failures about a feature (not a whole op), by message pattern: category and reason.
FEATURE_REASONS: tuple[tuple[str, str, str], ...] = (
    (r"element type", "unsupported", "uses an element type Relay does not have ({m})"),
    (r"sequence_type|optional_type", "unsupported", "ONNX sequences/optionals: {m}"),
    (r"default ONNX domain|the domain", "unsupported", "operators outside the default domain: {m}"),
    (r"'Dropout'.*training mode", "unsupported", "training-mode Dropout draws random numbers"),
    (r"'BatchNormalization'.*training", "missing", "training-mode BatchNormalization: {m}"),
    (r"3-d transposed", "unsupported", "needs nn.conv3d_transpose, which the registry lacks"),
    (
        r"ScatterND.*reduction",
        "unsupported",
        "needs scatter_nd's mul/min/max modes, which the registry's scatter_nd lacks ({m})",
    ),
    (r"antialias", "unsupported", "image.resize2d has no antialiasing ({m})"),
    (
        r"half_pixel_symmetric",
        "unsupported",
        "image.resize2d has no half_pixel_symmetric coordinate mode ({m})",
    ),
    (r"subgraphs", "missing", "control flow subgraphs are not imported yet: {m}"),
    (r".", "missing", "{m}"),
)


def classify(o: Outcome) -> tuple[str, str]:
    """The suggested category and reason of a failing outcome."""
    message = re.sub(r" \(node '[^']*'\)", "", o.message)
    if o.status in ("mismatch", "error"):
        for pattern, reason in WRONG_REASONS:
            if re.match(pattern, o.name):
                return "wrong", reason
        return "wrong", message[:200]
    found = re.match(r"ONNX op '([^']+)' is not supported", message)
    if found:
        op = found.group(1)
        if op in UNSUPPORTED:
            return "unsupported", f"{op}: {UNSUPPORTED[op]}"
        if op in NOT_YET:
            return "missing", f"{op}: {NOT_YET[op]}"
        return "missing", f"{op}: no converter yet"
    for pattern, category, reason in FEATURE_REASONS:
        if re.search(pattern, o.message):
            return category, reason.format(m=message[:160])
    raise AssertionError("unreachable: the last pattern matches everything")


def main() -> int:
    """Run the cases and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--op", help="only the cases that use this ONNX op")
    parser.add_argument("--failures", action="store_true", help="list each failing case")
    parser.add_argument("--suggest", action="store_true", help="print an expected-failure list")
    args = parser.parse_args()
    start = time.perf_counter()
    cases = node_cases()
    loaded = time.perf_counter() - start
    if args.op:
        cases = [c for c in cases if any(n.op_type == args.op for n in c.model.graph.node)]
    start = time.perf_counter()
    outcomes = [run_case(c) for c in cases]
    ran = time.perf_counter() - start
    if args.suggest:
        print("# suggested by benchmarks/onnx_suite.py --suggest; review the reasons")
        for o in outcomes:
            if o.status != "pass":
                category, reason = classify(o)
                print(f"{o.name}: {category}: {reason}")
        return 0
    expected = read_expected_failures(EXPECTED.read_text(), str(EXPECTED))
    by_op: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
    for o in outcomes:
        kind = "pass" if o.status == "pass" else "fail"
        if o.status != "pass" and o.name in expected:
            kind = expected[o.name].category
        for op in o.ops:
            by_op[op][kind] += 1
    print(f"{'op':<28} {'cases':>5} {'pass':>5} {'fail':>5} {'wrong':>5} {'missing':>7} "
          f"{'unsup':>5} {'rate':>6}")  # fmt: skip
    for op in sorted(by_op):
        c = by_op[op]
        total = sum(c.values())
        counted = total - c["unsupported"]
        rate = f"{100 * c['pass'] / counted:5.1f}%" if counted else "    -"
        print(f"{op:<28} {total:>5} {c['pass']:>5} {c['fail']:>5} {c['wrong']:>5} "
              f"{c['missing']:>7} {c['unsupported']:>5} {rate:>6}")  # fmt: skip
    passed = sum(o.status == "pass" for o in outcomes)
    unsupported = sum(
        o.status != "pass" and expected.get(o.name, None) is not None
        and expected[o.name].category == "unsupported"
        for o in outcomes
    )  # fmt: skip
    counted = len(outcomes) - unsupported
    rate = 100 * passed / max(counted, 1)
    print(f"\n{len(outcomes)} cases: {passed} pass ({100 * passed / len(outcomes):.1f}%); "
          f"{unsupported} need what Relay has no equivalent for; goal figure: {passed} of "
          f"{counted} cases with a Relay equivalent pass ({rate:.1f}%)")  # fmt: skip
    unexpected = [o for o in outcomes if o.status != "pass" and o.name not in expected]
    fixed = [o for o in outcomes if o.status == "pass" and o.name in expected]
    print(f"generated the cases in {loaded:.1f} s, ran them in {ran:.1f} s (measured under load); "
          f"{len(unexpected)} unexpected failures, {len(fixed)} unexpected passes")  # fmt: skip
    if args.failures:
        for o in outcomes:
            if o.status != "pass":
                print(f"{o.name}: {o.status}: {o.message}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
