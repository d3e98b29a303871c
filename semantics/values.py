"""Values: what Relay programs evaluate to.

::

    v ::= t                           TensorValue(data)         a numpy array, rank 0 or more
        | (v1, .., vn)                TupleValue(fields)
        | closure(ρ, fn, [x])         ClosureValue(fn, env, rec_var)
        | C(v1, .., vn)               ConstructorValue(constructor, fields)
        | C                           ConstructorFnValue(constructor)   (an unapplied constructor)
        | ref(ℓ)                      RefValue(location)        a location in the store σ

A closure remembers the environment ρ it was created in. ``rec_var`` makes a recursive closure:
the closure of ``let %f = fn (..) { .. %f .. }`` binds ``%f`` to itself when applied, which is
how a value can refer to itself without a mutable environment. A reference is a location;
its contents live in the store σ, which evaluation threads through (``ρ, σ ⊢ e ⇓ v, σ'``).

Values are immutable. ``value_to_json`` and ``format_value`` give the two output forms of
``relay run``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
import numpy.typing as npt

from .syntax import Constructor, Function, Var
from .text.printer import scalar_literal

JSON: TypeAlias = "bool | int | float | str | list[JSON] | dict[str, JSON] | None"


@dataclass(frozen=True, slots=True, eq=False)
class TensorValue:
    """A tensor: a numpy array of exactly the dtype and shape of its type."""

    data: npt.NDArray[np.generic]


@dataclass(frozen=True, slots=True, eq=False)
class TupleValue:
    """``(v1, .., vn)``."""

    fields: tuple[Value, ...]


@dataclass(frozen=True, slots=True, eq=False)
class ClosureValue:
    """A function with the environment it was created in; ``rec_var`` names itself."""

    fn: Function
    env: object = None  # the evaluator's own environment (the spec's ``Env``)
    rec_var: Var | None = None


@dataclass(frozen=True, slots=True, eq=False)
class ConstructorValue:
    """``C(v1, .., vn)``: a value of an algebraic data type."""

    constructor: Constructor
    fields: tuple[Value, ...]


@dataclass(frozen=True, slots=True, eq=False)
class ConstructorFnValue:
    """An unapplied constructor used as a function value (``@map(%f, Cons)``)."""

    constructor: Constructor


@dataclass(frozen=True, slots=True, eq=False)
class RefValue:
    """A reference: a location in the store."""

    location: int


Value: TypeAlias = (
    TensorValue | TupleValue | ClosureValue | ConstructorValue | ConstructorFnValue | RefValue
)

Store: TypeAlias = Mapping[int, Value]
"""σ: the contents of every reference, by location."""


def _json_number(x: object) -> JSON:
    if isinstance(x, bool | np.bool_):
        return bool(x)
    if isinstance(x, int | np.integer):
        return int(x)
    f = float(x)  # type: ignore[arg-type]
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    return f


def _json_array(data: npt.NDArray[np.generic]) -> JSON:
    if data.ndim == 0:
        return _json_number(data[()])
    return [_json_array(data[i]) for i in range(data.shape[0])]


def value_to_json(v: Value, store: Store | None = None) -> JSON:
    """The JSON form of a value (``relay run --json``); non-finite floats become strings."""
    match v:
        case TensorValue(data):
            return {"kind": "tensor", "dtype": data.dtype.name, "shape": list(data.shape),
                    "data": _json_array(data)}  # fmt: skip
        case TupleValue(fields):
            return {"kind": "tuple", "fields": [value_to_json(f, store) for f in fields]}
        case ConstructorValue(ctor, fields):
            return {"kind": "constructor", "name": ctor.name,
                    "fields": [value_to_json(f, store) for f in fields]}  # fmt: skip
        case RefValue(location):
            inner = None if store is None or location not in store else store[location]
            return {"kind": "ref", "value": None if inner is None else value_to_json(inner, store)}
        case ClosureValue() | ConstructorFnValue():
            return {"kind": "closure"}
    raise AssertionError(f"unknown value {v!r}")


def format_value(v: Value, store: Store | None = None) -> str:
    """A readable form: tensors as literals or numpy text, ADTs as ``Cons(1, Nil)``."""
    match v:
        case TensorValue(data):
            literal = scalar_literal(data) if data.ndim == 0 else None
            if literal is not None:
                return literal
            body = np.array2string(data, separator=", ", threshold=64)
            return f"{body} /* {data.dtype.name}{list(data.shape)} */"
        case TupleValue(fields):
            inner = ", ".join(format_value(f, store) for f in fields)
            return f"({inner},)" if len(fields) == 1 else f"({inner})"
        case ConstructorValue(ctor, fields):
            if not fields:
                return ctor.name
            return f"{ctor.name}({', '.join(format_value(f, store) for f in fields)})"
        case RefValue(location):
            if store is not None and location in store:
                return f"ref({format_value(store[location], store)})"
            return f"ref(<{location}>)"
        case ClosureValue():
            return "<closure>"
        case ConstructorFnValue(ctor):
            return f"<constructor {ctor.name}>"
    raise AssertionError(f"unknown value {v!r}")
