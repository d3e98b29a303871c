"""``relay run --target cpu`` never dies of SIGFPE: integer division and modulo by zero, and the
smallest signed value divided by -1, in every integer width, give *some* value (the spec
leaves them undefined; native ``idiv`` would trap and kill the process).

One program covers every integer dtype and every division operator, with divisors from the
arguments (so the kernels divide at run time), from constants folded into the kernels, and on
scalars. It runs in a child process, where a trap shows as a negative return code instead of
killing the test run. The defined elements are checked against numpy.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

DTYPES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
OPS = ("divide", "mod", "floor_divide", "floor_mod", "trunc_divide", "trunc_mod")
CONSTANT_OPS = ("divide", "mod", "floor_divide", "floor_mod")


def _reference(op: str, a: int, b: int) -> int:
    """The defined result of ``op`` on Python integers (truncating or flooring)."""
    q = abs(a) // abs(b) * (1 if (a >= 0) == (b >= 0) else -1)  # truncated quotient
    r = a - q * b
    match op:
        case "divide" | "trunc_divide":
            return q
        case "mod" | "trunc_mod":
            return r
        case "floor_divide":
            return a // b
        case "floor_mod":
            return a % b
        case _:
            raise AssertionError(op)


def _program() -> str:
    params, fields = [], []
    for dt in DTYPES:
        params += [f"%a_{dt}: Tensor[(6), {dt}]", f"%b_{dt}: Tensor[(6), {dt}]", f"%s_{dt}: {dt}"]
        zero = f'cast(0, dtype="{dt}")'
        minus_one = f'cast(-1, dtype="{dt}")'
        for op in OPS:
            fields.append(f"{op}(%a_{dt}, %b_{dt})")
        for op in CONSTANT_OPS:
            fields.append(f"{op}(%a_{dt}, {zero})")
            if dt.startswith("int"):
                fields.append(f"{op}(%a_{dt}, {minus_one})")
            fields.append(f"{op}(%s_{dt}, %s_{dt})")
    return f"def @main({', '.join(params)}) {{\n  ({', '.join(fields)})\n}}\n"


def _arguments(dt: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    info = np.iinfo(dt)
    signed = dt.startswith("int")
    a = np.array([info.min, info.min, 7, info.max, 0, -7 if signed else 5], dt)
    b = np.array([0, -1 if signed else 1, 0, 0, 3, 2], dt)
    return a, b, np.array(0, dt)


@pytest.mark.parametrize("threads", [pytest.param(1, marks=pytest.mark.slow), 2])
def test_no_trap_on_undefined_integer_division(tmp_path: Path, threads: int) -> None:
    source = tmp_path / "division.relay"
    source.write_text(_program())
    args: list[str] = []
    for dt in DTYPES:
        for name, array in zip("abs", _arguments(dt), strict=True):
            path = tmp_path / f"{name}_{dt}.npy"
            np.save(path, array)
            args.append(str(path))
    command = [sys.executable, "-m", "relay", "run", "--target", "cpu", "--json"]
    result = subprocess.run(
        [*command, "--threads", str(threads), str(source), *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "RELAY_CACHE_DIR": str(tmp_path / "cache")},
    )
    assert result.returncode == 0, (result.returncode, result.stderr[-2000:])
    fields = iter(json.loads(result.stdout)["fields"])
    for dt in DTYPES:
        a, b, _ = _arguments(dt)
        info = np.iinfo(dt)
        for op in OPS:
            got = next(fields)
            assert got["dtype"] == dt and got["shape"] == [6]
            for x, y, v in zip(a.tolist(), b.tolist(), got["data"], strict=True):
                assert info.min <= v <= info.max  # some value of the dtype
                if y != 0 and not (x == info.min and y == -1 and dt.startswith("int")):
                    assert v == _reference(op, x, y), (op, dt, x, y, v)
        for op in CONSTANT_OPS:
            by_zero = next(fields)
            assert by_zero["shape"] == [6]
            if dt.startswith("int"):
                by_minus_one = next(fields)
                for x, v in zip(a.tolist(), by_minus_one["data"], strict=True):
                    assert info.min <= v <= info.max
                    if x != info.min:  # (the smallest value divided by -1 is undefined)
                        assert v == _reference(op, x, -1), (op, dt, x, v)
            scalar = next(fields)
            assert scalar["shape"] == []
    assert next(fields, None) is None
