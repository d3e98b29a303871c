"""The value-comparison policy: when an actual result counts as equal to the expected one.

Every differential check (pass preservation, target conformance, spec against interpreter)
compares through this one policy, so that "equal" means the same thing everywhere.

**Tensors** (``compare_arrays``). Shapes must be equal and dtypes identical. Then, element by
element:

- bool and integer dtypes: exactly equal.
- float16, float32, float64:

  - NaN is matched as a set: the positions holding NaN must be the same in both (any NaN
    payload or sign counts as NaN);
  - an infinity must be matched exactly, sign included (inf is not close to a large finite
    number, nor to -inf);
  - zeros are equal whatever their sign (-0.0 equals 0.0);
  - finite values are close when ``|actual - expected| <= tol * max(|expected|, |actual|, 1)``
    with ``tol = FLOAT_ULPS[dtype] * eps(dtype) * max(1, reduction_length)``.

  The budget is relative (``FLOAT_ULPS`` ulps of the larger magnitude: libm and LLVM's
  lowerings of ``exp``/``tanh``/``erf`` differ by a few ulps; float16 computed through
  float32 rounds differently from float16 computed step by step). It grows linearly with
  ``reduction_length``, the number of terms combined into each element (a sum over ``n``
  terms, a dot product of length ``n``): the classical bound for reassociated or sequential
  accumulation is ``n * u`` relative to the terms' magnitudes, and TVM's schedules choose the
  order freely. Below magnitude 1 the budget is absolute (the ``1`` in the maximum,
  ``ABSOLUTE_FLOOR``): results near zero come from cancellation (``a*b + c`` with and without a
  fused multiply-add, sums whose terms cancel), where the error is relative to the operands,
  not to the tiny result. The price: values below 1 that differ by less than ``tol`` in
  absolute terms pass, and a cancelling sum of terms much larger than 1 may need a larger
  ``reduction_length`` than its true length.

  With ``finite=False`` two finite floats always match: only where NaN and infinities are
  is compared. The pass oracle compares so on inputs with extreme values (see
  ``pass_oracle.extreme``), where the error of a reassociated computation is relative to
  terms of magnitude 1e9 and more, beyond any budget relative to the result.

**Values** (``compare_values``) compare structurally: tensors through ``compare_arrays``
(above), tuples and constructor values field by field (constructors by name), references by
their contents, with aliasing required to agree (two positions hold the same reference in the
expected value exactly when they do in the actual one) — except for a value read from JSON
(``EXPECT-JSON``), which cannot say which references are the same. Closures and unapplied
constructors are **not compared**: any function value matches any function value — comparing
them would mean applying them to generated arguments, which belongs to the differential
checks, not to a corpus of hand-written answers.

``value_from_json`` reads the JSON form of a value (``value_to_json``'s): non-finite floats
are the strings ``"nan"``, ``"inf"`` and ``"-inf"``, and the kinds are ``{"kind": "tensor",
"dtype": .., "shape": [..], "data": [..]}``, ``{"kind": "tuple", "fields": [..]}``,
``{"kind": "constructor", "name": "Cons", "fields": [..]}``, ``{"kind": "ref", "value": ..}``
and ``{"kind": "closure"}``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ..semantics.syntax import (
    DTYPES,
    Function,
    IRModule,
    Tuple,
)
from ..semantics.values import (
    JSON,
    ClosureValue,
    ConstructorFnValue,
    ConstructorValue,
    RefValue,
    Store,
    TensorValue,
    TupleValue,
    Value,
)

FLOAT_ULPS: dict[str, int] = {"float16": 4, "float32": 8, "float64": 8}
"""The budget for one operation, in units of the dtype's machine epsilon (relative)."""

ABSOLUTE_FLOOR = 1.0
"""Below this magnitude the float budget is absolute rather than relative."""


@dataclass(frozen=True, slots=True)
class Mismatch:
    """The first difference found: where (``None`` for the whole array), both sides, and why."""

    index: tuple[int, ...] | None
    expected: object
    actual: object
    reason: str

    def render(self) -> str:
        """One line: ``at [i, j]: expected 1.0, found 1.5 (differs by ...)``."""
        where = "" if self.index is None else f"at [{', '.join(map(str, self.index))}]: "
        return f"{where}expected {self.expected!r}, found {self.actual!r} ({self.reason})"

    def __str__(self) -> str:
        return self.render()


def float_tolerance(dtype: str, reduction_length: int = 1) -> float:
    """The relative budget for ``dtype`` after combining ``reduction_length`` terms."""
    if dtype not in FLOAT_ULPS:
        raise ValueError(f"dtype={dtype!r} is not a float dtype (expected one of {FLOAT_ULPS})")
    if reduction_length < 0:
        raise ValueError(f"reduction_length={reduction_length} must be at least 0")
    eps = float(np.finfo(np.dtype(dtype)).eps)
    return FLOAT_ULPS[dtype] * eps * max(1, reduction_length)


def _item(a: npt.NDArray[Any], index: tuple[int, ...]) -> object:
    value: object = a[index].item()
    return value


def _first(mask: npt.NDArray[np.bool_]) -> tuple[int, ...] | None:
    """The row-major first position where ``mask`` holds, if any."""
    hits = np.argwhere(mask)
    if len(hits) == 0:
        return None
    return tuple(int(i) for i in hits[0])


def compare_arrays(
    expected: npt.NDArray[Any],
    actual: npt.NDArray[Any],
    *,
    reduction_length: int = 1,
    finite: bool = True,
) -> Mismatch | None:
    """``None`` when ``actual`` is equal to ``expected`` under the policy, else the first
    ``Mismatch`` in row-major order (see the module docstring for the policy). Without
    ``finite``, two finite floats always match (only NaN and infinities are compared)."""
    expected = np.asarray(expected)
    actual = np.asarray(actual)
    if expected.shape != actual.shape:
        return Mismatch(None, expected.shape, actual.shape, "the shapes differ")
    if expected.dtype != actual.dtype:
        return Mismatch(None, str(expected.dtype), str(actual.dtype), "the dtypes differ")
    name = str(expected.dtype)
    if name not in FLOAT_ULPS:
        index = _first(expected != actual)
        if index is None:
            return None
        return Mismatch(index, _item(expected, index), _item(actual, index), "not equal")
    tol = float_tolerance(name, reduction_length)
    e = expected.astype(np.float64)
    a = actual.astype(np.float64)
    e_nan, a_nan = np.isnan(e), np.isnan(a)
    e_inf, a_inf = np.isinf(e), np.isinf(a)
    with np.errstate(invalid="ignore", over="ignore"):
        error = np.abs(a - e)
        budget = tol * np.maximum(np.maximum(np.abs(e), np.abs(a)), ABSOLUTE_FLOOR)
    nan_differs = e_nan != a_nan
    inf_differs = ~nan_differs & ~e_nan & (e_inf | a_inf) & (e != a)
    both_finite = ~(e_nan | a_nan | e_inf | a_inf)
    too_far = both_finite & (error > budget) if finite else np.zeros_like(both_finite)
    index = _first(nan_differs | inf_differs | too_far)
    if index is None:
        return None
    if nan_differs[index]:
        reason = "NaN where a number was expected" if a_nan[index] else "expected NaN"
    elif inf_differs[index]:
        reason = "an infinity must match exactly"
    else:
        ulps = float(error[index] / (np.finfo(expected.dtype).eps * max(abs(e[index]), 1.0)))
        reason = (
            f"differs by {error[index]:.3g}, about {ulps:.3g} ulps; the budget is {tol:.3g} "
            f"relative ({FLOAT_ULPS[name]} ulps x reduction length {max(1, reduction_length)})"
        )
    return Mismatch(index, _item(expected, index), _item(actual, index), reason)


# A closure that stands for "some function" in an expected value: closures are not compared.
_ANY_FUNCTION = Function((), Tuple(()))


def _json_float(x: JSON) -> float | int | bool:
    if isinstance(x, str):
        special = {"nan": float("nan"), "inf": float("inf"), "-inf": float("-inf")}
        if x not in special:
            raise ValueError(f'expected a number, "nan", "inf" or "-inf", found {x!r}')
        return special[x]
    if isinstance(x, bool | int | float):
        return x
    raise ValueError(f"expected a number, found {json.dumps(x)}")


def _json_data(x: JSON) -> object:
    if isinstance(x, list):
        return [_json_data(item) for item in x]
    return _json_float(x)


def value_from_json(data: JSON, module: IRModule, store: dict[int, Value]) -> Value:
    """The value that ``value_to_json`` prints as ``data`` (references go into ``store``);
    ``ValueError`` if ``data`` is not of that form."""
    if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
        raise ValueError(f"expected an object with a 'kind', found {json.dumps(data)[:60]}")
    kind = data["kind"]

    def fields() -> list[JSON]:
        items = data.get("fields")
        if not isinstance(items, list):
            raise ValueError(f"a {kind} needs a 'fields' list")
        return items

    match kind:
        case "tensor":
            dtype, shape = data.get("dtype"), data.get("shape")
            if not isinstance(dtype, str) or dtype not in DTYPES:
                raise ValueError(f"a tensor needs a 'dtype' among {', '.join(DTYPES)}")
            if not isinstance(shape, list) or not all(isinstance(d, int) for d in shape):
                raise ValueError("a tensor needs a 'shape' list of integers")
            array = np.array(_json_data(data.get("data")), dtype=dtype)
            if list(array.shape) != shape:
                raise ValueError(f"the data has shape {list(array.shape)}, not {shape}")
            return TensorValue(array)
        case "tuple":
            return TupleValue(tuple(value_from_json(f, module, store) for f in fields()))
        case "constructor":
            name = data.get("name")
            ctor = module.constructors().get(name) if isinstance(name, str) else None
            if ctor is None:
                raise ValueError(f"no constructor called {name!r} in the module")
            values = tuple(value_from_json(f, module, store) for f in fields())
            if len(values) != len(ctor.inputs):
                raise ValueError(f"{ctor.name} takes {len(ctor.inputs)} fields, "
                                 f"found {len(values)}")  # fmt: skip
            return ConstructorValue(ctor, values)
        case "ref":
            inner = value_from_json(data.get("value"), module, store)
            location = len(store)
            store[location] = inner
            return RefValue(location)
        case "closure":
            return ClosureValue(_ANY_FUNCTION)
    raise ValueError(f"unknown kind {kind!r}: expected tensor, tuple, constructor, ref or closure")


def _kind(v: Value) -> str:
    match v:
        case TensorValue():
            return "a tensor"
        case TupleValue():
            return "a tuple"
        case ConstructorValue(ctor):
            return f"constructor {ctor.name}"
        case RefValue():
            return "a reference"
        case ClosureValue() | ConstructorFnValue():
            return "a function"
    raise AssertionError(f"unknown value {v!r}")


def compare_values(
    expected: Value,
    actual: Value,
    *,
    expected_store: Store | None = None,
    actual_store: Store | None = None,
    reduction_length: int = 1,
    aliasing: bool = True,
    finite: bool = True,
) -> str | None:
    """``None`` when ``actual`` equals ``expected`` under the policy of the module docstring,
    else one line saying where (``result.1.Cons.0``: field 1 of a tuple, then field 0 of a
    ``Cons``) and how they differ. Iterative, so long lists compare without deep recursion.
    Without ``aliasing``, references compare by contents only (for an expected value read
    from JSON, which cannot say which references are the same); without ``finite``, finite
    floats are not compared (``compare_arrays``)."""
    expected_store = expected_store or {}
    actual_store = actual_store or {}
    forward: dict[int, int] = {}  # expected location -> actual location (aliasing agrees)
    backward: dict[int, int] = {}
    seen_at: dict[int, str] = {}  # expected location -> the path where it was first met
    compared: set[tuple[int, int]] = set()
    stack: list[tuple[Value, Value, str]] = [(expected, actual, "result")]
    while stack:
        e, a, path = stack.pop()
        match e, a:
            case TensorValue(e_data), TensorValue(a_data):
                mismatch = compare_arrays(
                    e_data, a_data, reduction_length=reduction_length, finite=finite
                )
                if mismatch is not None and mismatch.index == ():
                    mismatch = replace(mismatch, index=None)  # a scalar: no "at []"
                if mismatch is not None:
                    return f"{path}: {mismatch.render()}"
            case TupleValue(e_fields), TupleValue(a_fields):
                if len(e_fields) != len(a_fields):
                    return (f"{path}: expected a tuple of {len(e_fields)} fields, found "
                            f"{len(a_fields)}")  # fmt: skip
                for i in reversed(range(len(e_fields))):
                    stack.append((e_fields[i], a_fields[i], f"{path}.{i}"))
            case ConstructorValue(e_ctor, e_fields), ConstructorValue(a_ctor, a_fields):
                if e_ctor.name != a_ctor.name or len(e_fields) != len(a_fields):
                    return f"{path}: expected constructor {e_ctor.name}, found {a_ctor.name}"
                for i in reversed(range(len(e_fields))):
                    stack.append((e_fields[i], a_fields[i], f"{path}.{e_ctor.name}.{i}"))
            case RefValue(e_loc), RefValue(a_loc) if not aliasing:
                if e_loc not in expected_store or a_loc not in actual_store:
                    return f"{path}: a reference whose location is not in its store"
                if (e_loc, a_loc) not in compared:  # (cycles stop here)
                    compared.add((e_loc, a_loc))
                    stack.append((expected_store[e_loc], actual_store[a_loc], f"{path}.ref"))
            case RefValue(e_loc), RefValue(a_loc):
                if e_loc in forward and forward[e_loc] != a_loc:
                    return (f"{path}: the references alias differently: expected the same "
                            f"reference as at {seen_at[e_loc]}, found a different one")  # fmt: skip
                if a_loc in backward and backward[a_loc] != e_loc:
                    return (f"{path}: the references alias differently: expected a reference "
                            f"other than the one at {seen_at[backward[a_loc]]}, found the same "
                            "one")  # fmt: skip
                if e_loc in forward:
                    continue  # contents already compared (and cycles stop here)
                forward[e_loc], backward[a_loc], seen_at[e_loc] = a_loc, e_loc, path
                if e_loc not in expected_store or a_loc not in actual_store:
                    return f"{path}: a reference whose location is not in its store"
                stack.append((expected_store[e_loc], actual_store[a_loc], f"{path}.ref"))
            case ClosureValue() | ConstructorFnValue(), ClosureValue() | ConstructorFnValue():
                pass  # function values are not compared (see the module docstring)
            case _:
                return f"{path}: expected {_kind(e)}, found {_kind(a)}"
    return None
