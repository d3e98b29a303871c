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

Values are immutable, but the store can make them cyclic: a reference whose contents contain
the same reference (``ref_write(%r, Link(%r))``). ``value_to_json`` and ``format_value`` give
the two output forms of ``relay run``; both walk a value iteratively (a 100,000-element list
nests 100,000 deep) and write a cyclic reference once, with a label that its contents refer
back to (``#0=ref(Link(#0#))`` in text, ``{"kind": "backref", "label": 0}`` in JSON).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeAlias, assert_never

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


@functools.cache
def _dtype_name(dtype: np.dtype[np.generic]) -> str:
    return dtype.name


def _json_array(data: npt.NDArray[np.generic]) -> JSON:
    # Recursion here is on the tensor's rank (at most numpy's 64), not on the value's depth.
    if data.ndim == 0:
        return _json_number(data[()])
    if data.ndim == 1 and data.dtype.kind in "biu":
        return list(data.tolist())
    return [_json_array(data[i]) for i in range(data.shape[0])]


# Both walks below are iterative (a list of 100,000 ``Cons`` cells nests 100,000 deep) and
# follow references through the store, so they must stop at cycles: a reference whose contents
# reach the same reference again (``ref_write(%r, Link(%r))``). A reference being printed is
# "open" until its contents are done; meeting an open reference again is a back-reference.
# The open reference gets a label, numbered from 0 in the order the labelled references appear
# in the output, and the back-reference prints the label instead of the contents again.
# A reference met twice but not inside itself (shared, not cyclic) is printed each time.


class _Label:
    """The label of a reference that its own contents refer back to."""

    __slots__ = ("number",)

    def __init__(self) -> None:
        self.number = -1


def value_to_json(v: Value, store: Store | None = None) -> JSON:
    """The JSON form of a value (``relay run --json``); non-finite floats become strings.

    ::

        tensor        {"kind": "tensor", "dtype": d, "shape": [..], "data": nested lists}
        tuple         {"kind": "tuple", "fields": [..]}
        C(v1, .., vn) {"kind": "constructor", "name": "C", "fields": [..]}
        ref(v)        {"kind": "ref", "value": v}   (``null`` when ``store`` lacks it)
        closure, C    {"kind": "closure"}

    A cyclic reference (one whose contents contain itself) is written once as
    ``{"kind": "ref", "label": k, "value": ..}``, and inside its own contents as the
    back-reference ``{"kind": "backref", "label": k}``; labels count from 0 in output order.
    """
    root: list[JSON] = []
    refs: list[dict[str, JSON]] = []  # every reference's form, in output order
    open_refs: dict[int, int] = {}  # location -> the index in ``refs`` of the form being filled
    labels: dict[int, _Label] = {}  # index in ``refs`` of a cyclic reference -> its label
    backrefs: list[tuple[dict[str, JSON], _Label]] = []
    # ``(value, where to append its form)``, or ``(location, None)`` closing a reference.
    stack: list[tuple[Value, list[JSON]] | tuple[int, None]] = [(v, root)]
    while stack:
        item = stack.pop()
        if item[1] is None:
            del open_refs[item[0]]
            continue
        value, out = item
        assert not isinstance(value, int)
        match value:
            case TensorValue(data):
                out.append({"kind": "tensor", "dtype": _dtype_name(data.dtype),
                            "shape": list(data.shape), "data": _json_array(data)})  # fmt: skip
            case TupleValue(fields):
                items: list[JSON] = []
                out.append({"kind": "tuple", "fields": items})
                stack.extend((f, items) for f in reversed(fields))
            case ConstructorValue(ctor, fields):
                items = []
                out.append({"kind": "constructor", "name": ctor.name, "fields": items})
                stack.extend((f, items) for f in reversed(fields))
            case RefValue(location):
                if location in open_refs:
                    label = labels.setdefault(open_refs[location], _Label())
                    backref: dict[str, JSON] = {"kind": "backref"}
                    backrefs.append((backref, label))
                    out.append(backref)
                elif store is None or location not in store:
                    out.append({"kind": "ref", "value": None})
                else:
                    inner: list[JSON] = []
                    form: dict[str, JSON] = {"kind": "ref", "value": inner}
                    open_refs[location] = len(refs)
                    refs.append(form)
                    out.append(form)
                    stack.append((location, None))
                    stack.append((store[location], inner))
            case ClosureValue() | ConstructorFnValue():
                out.append({"kind": "closure"})
            case _:
                assert_never(value)
    # Number the labels in output order, and unwrap each reference's one-element list.
    count = 0
    for index, form in enumerate(refs):
        contents = form.pop("value")
        assert isinstance(contents, list)
        cyclic = labels.get(index)
        if cyclic is not None:
            cyclic.number = count
            form["label"] = count
            count += 1
        form["value"] = contents[0]
    for backref, label in backrefs:
        backref["label"] = label.number
    return root[0]


def dump_json(data: JSON) -> str:
    """``json.dumps(data, allow_nan=False)``, written iteratively.

    ``json.dumps`` recurses on nesting and fails past about 1,000 levels, which the JSON form
    of a long list reaches; this gives the same text at any depth.
    """
    pieces: list[str] = []
    stack: list[JSON | tuple[str]] = [data]  # a value, or ``(text,)`` to emit as it is
    while stack:
        item = stack.pop()
        if isinstance(item, tuple):
            pieces.append(item[0])
        elif isinstance(item, list):
            pieces.append("[")
            stack.append(("]",))
            for i in reversed(range(len(item))):
                stack.append(item[i])
                if i:
                    stack.append((", ",))
        elif isinstance(item, dict) and item.get("kind") == "tensor":
            pieces.append(json.dumps(item, allow_nan=False))  # nests only as deep as its rank
        elif isinstance(item, dict):
            pieces.append("{")
            stack.append(("}",))
            entries = list(item.items())
            for i in reversed(range(len(entries))):
                key, value = entries[i]
                stack.append(value)
                stack.append((_json_key(key, first=i == 0),))
        else:
            pieces.append(_json_scalar(item))
    return "".join(pieces)


@functools.cache
def _json_key(key: str, *, first: bool) -> str:
    return ("" if first else ", ") + json.dumps(key) + ": "


def _json_scalar(x: JSON) -> str:
    if x is None:
        return "null"
    if x is True:
        return "true"
    if x is False:
        return "false"
    if isinstance(x, int):
        return int.__repr__(x)
    return json.dumps(x, allow_nan=False)


def format_value(v: Value, store: Store | None = None) -> str:
    """A readable form: tensors as literals or numpy text, ADTs as ``Cons(1, Nil)``.

    ``ref(v)`` shows the contents from ``store`` (``ref(<ℓ>)`` without it). A cyclic
    reference (one whose contents contain itself) is written with a datum label, as Lisp
    prints circular lists: ``#0=ref(Link(#0#))`` is the reference ``#0`` whose contents are
    ``Link`` of that same reference. Labels count from 0 in output order.
    """
    pieces: list[str | _Label] = []
    open_refs: dict[int, int] = {}  # location -> index of its opening piece
    labels: dict[int, _Label] = {}  # index of an opening piece -> its label
    # A value to write, a piece of text to emit, or ``(location,)`` closing a reference.
    stack: list[Value | str | tuple[int]] = [v]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            pieces.append(item)
            continue
        if isinstance(item, tuple):
            del open_refs[item[0]]
            pieces.append(")")
            continue
        match item:
            case TensorValue(data):
                literal = scalar_literal(data) if data.ndim == 0 else None
                if literal is not None:
                    pieces.append(literal)
                else:
                    body = np.array2string(data, separator=", ", threshold=64)
                    pieces.append(f"{body} /* {data.dtype.name}{list(data.shape)} */")
            case TupleValue(fields):
                pieces.append("(")
                stack.append(",)" if len(fields) == 1 else ")")
                _push_fields(stack, fields)
            case ConstructorValue(ctor, fields):
                pieces.append(ctor.name)
                if fields:
                    pieces.append("(")
                    stack.append(")")
                    _push_fields(stack, fields)
            case RefValue(location):
                if location in open_refs:
                    opening = open_refs[location]
                    label = labels.get(opening)
                    if label is None:
                        label = labels[opening] = _Label()
                    pieces.append(label)
                elif store is not None and location in store:
                    open_refs[location] = len(pieces)
                    pieces.append("ref(")
                    stack.append((location,))
                    stack.append(store[location])
                else:
                    pieces.append(f"ref(<{location}>)")
            case ClosureValue():
                pieces.append("<closure>")
            case ConstructorFnValue(ctor):
                pieces.append(f"<constructor {ctor.name}>")
            case _:
                assert_never(item)
    for number, index in enumerate(sorted(labels)):
        labels[index].number = number
        pieces[index] = f"#{number}=ref("
    return "".join(p if isinstance(p, str) else f"#{p.number}#" for p in pieces)


def _push_fields(stack: list[Value | str | tuple[int]], fields: tuple[Value, ...]) -> None:
    """Push ``fields`` so that they pop in order, separated by commas."""
    for i in reversed(range(len(fields))):
        stack.append(fields[i])
        if i:
            stack.append(", ")
