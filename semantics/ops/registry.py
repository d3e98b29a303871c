"""The operator registry: one record per operator, holding every fact the language needs.

An ``OpDef`` says an operator's text name (``add``, ``nn.conv2d``), its inputs, its typed
attributes class (fields, kinds and defaults), its fusion pattern and a short doc. The type
relation and the reference numpy semantics have their slots here too; they are filled by the
static- and dynamic-semantics chapters. Each op family lives in its own module (the partition
is in the package docstring) and registers its records on import through its ``_op`` helper,
which fills in what the module's operators share.

Attributes classes are frozen dataclasses deriving from ``Attrs``, whose fields are declared
with ``attr_field(kind, default, doc=...)``. The kind says which attribute values the text
format accepts for the field, and how they are normalised (``AttrKind``).
"""

from __future__ import annotations

import dataclasses
import enum
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, ClassVar, TypeAlias, cast

import numpy as np
import numpy.typing as npt

from ..syntax import DTYPES, AttrValue, Type


class AttrKind(enum.Enum):
    """What an attribute field holds, and so which text-format values it accepts."""

    INT = "an integer"
    FLOAT = "a float"
    BOOL = "a bool (True or False)"
    STR = "a string"
    DTYPE = 'a dtype string such as "float32"'
    INTS = "a list of integers"
    INT_OR_INTS = "an integer or a list of integers"
    INTS_2D = "a list of lists of integers"
    FLOATS = "a list of floats"


class AttrError(Exception):
    """An attribute value that its field does not accept; ``key`` names the field."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key
        self.message = message


_MISSING = dataclasses.MISSING


def attr_field(
    kind: AttrKind,
    default: AttrValue | object = _MISSING,
    *,
    optional: bool = False,
    doc: str = "",
) -> Any:
    """Declare a field of an ``Attrs`` class: its kind, default (none: required) and doc.

    ``optional=True`` lets the field hold ``None`` (written ``None`` in the text format).
    The return type is ``Any`` for the same reason as ``dataclasses.field``'s: the field is
    declared with its precise type (``strides: tuple[int, ...] = attr_field(...)``).
    """
    metadata = {"kind": kind, "optional": optional, "doc": doc}
    if default is _MISSING:
        return dataclasses.field(metadata=metadata)
    return dataclasses.field(default=default, metadata=metadata)


@dataclass(frozen=True, slots=True)
class FieldSpec:
    """One attribute field as the text format and the docs see it."""

    name: str
    kind: AttrKind
    optional: bool
    required: bool
    default: AttrValue
    doc: str


def _describe(value: object) -> str:
    if value is None:
        return "None"
    if isinstance(value, bool):
        return f"the bool {value}"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the float {value!r}"
    if isinstance(value, str):
        return f'the string "{value}"'
    if isinstance(value, tuple):
        return "a list"
    return type(value).__name__


def _as_int(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return None


def _as_ints(value: object) -> tuple[int, ...] | None:
    if not isinstance(value, tuple):
        return None
    out = [_as_int(v) for v in value]
    if any(v is None for v in out):
        return None
    return tuple(v for v in out if v is not None)


def convert_attr(spec: FieldSpec, value: object) -> AttrValue:
    """Normalise a parsed attribute ``value`` for ``spec``, or raise ``AttrError``."""
    if value is None:
        if spec.optional:
            return None
        raise AttrError(spec.name, f"attribute '{spec.name}' expects {spec.kind.value}, found None")
    converted: AttrValue = None
    match spec.kind:
        case AttrKind.INT:
            converted = _as_int(value)
        case AttrKind.FLOAT:
            if isinstance(value, float):
                converted = value
            elif _as_int(value) is not None:
                converted = float(value)  # type: ignore[arg-type]
        case AttrKind.BOOL:
            if isinstance(value, bool):
                converted = value
            elif _as_int(value) in (0, 1):
                converted = bool(value)
        case AttrKind.STR:
            if isinstance(value, str):
                converted = value
        case AttrKind.DTYPE:
            if isinstance(value, str) and (value in DTYPES or value == ""):
                converted = value
            elif isinstance(value, str):
                raise AttrError(
                    spec.name,
                    f"attribute '{spec.name}' expects a dtype, found unknown dtype \"{value}\"",
                )
        case AttrKind.INTS:
            converted = _as_ints(value)
        case AttrKind.INT_OR_INTS:
            converted = _as_int(value)
            if converted is None:
                converted = _as_ints(value)
        case AttrKind.INTS_2D:
            if isinstance(value, tuple):
                rows = [_as_ints(v) for v in value]
                if all(r is not None for r in rows):
                    converted = tuple(r for r in rows if r is not None)
        case AttrKind.FLOATS:
            if isinstance(value, tuple) and all(
                isinstance(v, float) or _as_int(v) is not None for v in value
            ):
                converted = tuple(float(v) for v in value if isinstance(v, int | float))
    if converted is None:
        raise AttrError(
            spec.name,
            f"attribute '{spec.name}' expects {spec.kind.value}, found {_describe(value)}",
        )
    return converted


class Attrs:
    """Base of every operator attributes class (each a frozen dataclass)."""

    __slots__ = ()
    type_key: ClassVar[str] = "relay.attrs.Attrs"

    @classmethod
    def field_specs(cls) -> tuple[FieldSpec, ...]:
        """The fields, in declaration order."""
        out = []
        for f in dataclasses.fields(cls):  # type: ignore[arg-type]
            required = f.default is _MISSING
            out.append(
                FieldSpec(
                    name=f.name,
                    kind=f.metadata["kind"],
                    optional=f.metadata["optional"],
                    required=required,
                    default=None if required else cast(AttrValue, f.default),
                    doc=f.metadata["doc"],
                )
            )
        return tuple(out)

    @classmethod
    def from_kwargs(cls, kwargs: dict[str, object]) -> Attrs:
        """Build the attributes from keyword values, checking and normalising each one.

        Raises ``AttrError`` naming the offending key for an unknown key, a value of the wrong
        kind, or a missing required field.
        """
        specs = {s.name: s for s in cls.field_specs()}
        values: dict[str, AttrValue] = {}
        for key, value in kwargs.items():
            if key not in specs:
                known = ", ".join(specs) or "none"
                raise AttrError(key, f"unknown attribute '{key}' (known attributes: {known})")
            values[key] = convert_attr(specs[key], value)
        for spec in specs.values():
            if spec.required and spec.name not in values:
                raise AttrError(spec.name, f"missing required attribute '{spec.name}'")
        return cls(**values)

    def items(self) -> Iterator[tuple[str, AttrValue]]:
        """Every field and its value, in declaration order."""
        for f in dataclasses.fields(self):  # type: ignore[arg-type]
            yield f.name, getattr(self, f.name)

    def non_default_items(self) -> Iterator[tuple[str, AttrValue]]:
        """The fields whose value differs from the default (required fields always), in order."""
        for spec in self.field_specs():
            value = getattr(self, spec.name)
            if spec.required or not _same_value(value, spec.default):
                yield spec.name, value


def _same_value(a: object, b: object) -> bool:
    """Attribute equality that tells ``1`` from ``True`` and ``1`` from ``1.0``."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b, strict=True))
    return a == b


class OpPattern(enum.IntEnum):
    """Fusion patterns, with TVM's numbering (``relay.op.OpPattern``)."""

    ELEMWISE = 0
    BROADCAST = 1
    INJECTIVE = 2
    COMM_REDUCE = 3
    OUT_ELEMWISE_FUSABLE = 4
    TUPLE = 7
    OPAQUE = 8


class RelationError(Exception):
    """A type relation rejects its inputs. The message says what was expected and found."""


Relation: TypeAlias = Callable[[tuple[Type, ...], "Attrs | None"], Type]
"""A type relation: from the (fully known) argument types and the attributes to the result
type, or a ``RelationError``. Dimensions may be ``?`` or symbolic (see ``ops.shapes``)."""

Tensor: TypeAlias = npt.NDArray[np.generic]

OpInput: TypeAlias = "Tensor | tuple[Tensor, ...]"
"""One argument of an operator at run time: an array, or a tuple of arrays for an argument of
tuple type (``concatenate``'s ``data``)."""

Reference: TypeAlias = Callable[
    [tuple[OpInput, ...], "Attrs | None"], "Tensor | tuple[Tensor, ...]"
]
"""Reference semantics: pure numpy, from the arguments (each an array of exactly the dtype and
shape of its type, or a tuple of such arrays for an argument of tuple type) and the attributes
to an array, or a tuple of arrays for an op whose type is a tuple, of exactly the dtype and
shape the relation predicts. Raises ``UndefinedBehavior`` for the cases the spec leaves
undefined and ``RelayRuntimeError`` for a failed precondition."""


TensorReference: TypeAlias = Callable[
    [tuple[Tensor, ...], "Attrs | None"], "Tensor | tuple[Tensor, ...]"
]
"""The reference of an operator none of whose arguments has a tuple type: every argument is an
array."""


def tuple_input(arg: OpInput) -> tuple[Tensor, ...]:
    """An argument of tuple type: its arrays (the relation guarantees it is a tuple)."""
    assert isinstance(arg, tuple), f"expected a tuple argument, found {type(arg).__name__}"
    return arg


def array_input(arg: OpInput) -> Tensor:
    """An argument of tensor type: its array (the relation guarantees it is not a tuple)."""
    assert not isinstance(arg, tuple), "expected an array argument, found a tuple"
    return arg


def tensor_reference(reference: TensorReference) -> Reference:
    """``reference`` as a ``Reference``, for an operator none of whose arguments has a tuple
    type: its relation rejects a tuple argument, so at run time every argument is an array."""
    return cast(Reference, reference)


ShapeFunc: TypeAlias = Callable[
    [tuple[Tensor, ...], "Attrs | None"], "tuple[int, ...] | tuple[tuple[int, ...], ...]"
]
"""A shape function: from the argument arrays and the attributes to the output shape (a tuple
of shapes for an op whose type is a tuple). It agrees with the relation wherever the relation
knows the shape."""


@dataclass(frozen=True, slots=True)
class OpDef:
    """Everything the language knows about one operator.

    ``inputs`` names the positional arguments; ``attrs_type`` is ``None`` for an operator
    without attributes. ``relation_name`` names the type relation as TVM did (``Broadcast``,
    ``Conv2D``) and is the prefix of its error messages. ``family`` is the op family, set by
    ``register`` from the registering module (``elementwise``, ``nn/conv``; see the package
    docstring); the ``relay ops`` table groups by it. ``check`` says how the reference
    semantics is checked independently of itself: ``onnxruntime:<ONNX op>`` where a test compares
    it with onnxruntime on random inputs, otherwise ``independent:<what>`` naming the different
    formulation a test compares it with. ``shape_func`` is the shape function of a dynamic
    operator (``dyn.*``): the output shape from the argument values, where the type relation
    can only say ``?``.
    """

    name: str
    inputs: tuple[str, ...]
    attrs_type: type[Attrs] | None
    pattern: OpPattern
    doc: str
    relation: Relation | None = None
    reference: Reference | None = None
    relation_name: str = ""
    family: str = ""
    check: str = ""
    shape_func: ShapeFunc | None = None

    @property
    def num_inputs(self) -> int:
        """The number of positional arguments."""
        return len(self.inputs)


OPS: dict[str, OpDef] = {}
"""Every registered operator, by name."""


_PACKAGE = __name__.rsplit(".", 1)[0] + "."


def family_of(module: str) -> str:
    """The family of the operators a ``semantics.ops`` module registers: its path below the
    package, ``/``-separated (``relay.semantics.ops.nn.conv`` is ``nn/conv``)."""
    return module.removeprefix(_PACKAGE).replace(".", "/")


def register(op: OpDef, *, module: str | None = None) -> OpDef:
    """Add ``op`` to the registry; a name may be registered only once.

    The family is the one of ``module``, by default the module that calls ``register``.
    """
    if op.name in OPS:
        raise ValueError(f"operator {op.name} is registered twice")
    if module is None:
        module = sys._getframe(1).f_globals["__name__"]
    op = dataclasses.replace(op, family=family_of(module))
    OPS[op.name] = op
    return op


def lookup(name: str) -> OpDef | None:
    """The operator called ``name``, or ``None``."""
    return OPS.get(name)


@dataclass(frozen=True, slots=True)
class OpRegistrar:
    """The ``_op`` helper of one operator module: calling it registers one operator, with its
    independent ``check``, in ``module``'s family. ``relation_name``, ``inputs`` and
    ``pattern`` are what the module's operators share; an operator may give its own, and must
    where the module has none (``None``). Unless told otherwise an operator has no attributes
    and no shape function."""

    module: str
    relation_name: str | None = None
    inputs: tuple[str, ...] | None = None
    pattern: OpPattern | None = None

    def __call__(
        self,
        name: str,
        doc: str,
        *,
        relation: Relation,
        reference: Reference,
        check: str,
        relation_name: str | None = None,
        inputs: tuple[str, ...] | None = None,
        attrs_type: type[Attrs] | None = None,
        pattern: OpPattern | None = None,
        shape_func: ShapeFunc | None = None,
    ) -> None:
        """Register the operator ``name`` (see ``OpDef`` for the fields)."""
        relation_name = self.relation_name if relation_name is None else relation_name
        inputs = self.inputs if inputs is None else inputs
        pattern = self.pattern if pattern is None else pattern
        if relation_name is None or inputs is None or pattern is None:
            raise TypeError(f"operator {name}: no relation_name, inputs or pattern given")
        register(
            OpDef(
                name,
                inputs,
                attrs_type,
                pattern,
                doc,
                relation=relation,
                reference=reference,
                relation_name=relation_name,
                check=check,
                shape_func=shape_func,
            ),
            module=self.module,
        )
