"""The printer: canonical Relay text in TVM's printer style.

Layout of a definition's body (TVM's ``relay_text_printer.cc`` conventions):

- atoms (variables, constants, operators, constructors, globals) are written inline;
- a non-atomic node is written inline when it has exactly one use and that use is an inline
  position: the result of a block (function body, ``if`` branch, ``match`` arm, ``let`` body)
  or the right-hand side of a ``let``; every other non-atomic node gets a line ``%N = ...;``;
- a ``%N`` line is placed in the innermost block that contains all uses of its node (what
  ToANormalForm makes of sharing), before the statement of that block where the node is first
  used in evaluation order (a call's arguments before its callee);
- ``%N`` is numbered from 0 in each definition, in evaluation order;
- ``let`` keeps its variable's name; a numeric suffix is added only where the name is already
  bound at that point of the text, so that no name is ever shadowed (and so none captured);
  ``astext``'s ``renamed`` option records the original name of each binder printed otherwise;
- rank-0 constants of bool, int16/32/64 and float16/32/64 are literals, floats written with the
  shortest digits that read back to the same value; every other constant is
  ``meta[relay.Constant][k]``, and the text then ends with TVM's ``#[metadata]`` section.

Nothing here recurses on program depth: expressions are walked with an explicit stack, and so
are types.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import assert_never

import numpy as np
import numpy.typing as npt
import sympy

from ..ops.registry import lookup
from ..syntax import (
    ATOMS,
    DTYPES,
    AnyDim,
    AttrValue,
    Call,
    Constant,
    Constructor,
    Dim,
    Expr,
    Function,
    FuncType,
    GlobalTypeVar,
    GlobalVar,
    If,
    IncompleteType,
    IRModule,
    Let,
    Match,
    Op,
    Pattern,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
    RefCreate,
    RefRead,
    RefType,
    RefWrite,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    TypeCall,
    TypeData,
    TypeVar,
    Var,
    children,
    pattern_vars,
    post_order,
)
from .lexer import is_identifier
from .metadata import write_metadata

VERSION_HEADER = '#[version = "0.0.5"]'
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:/[A-Za-z_][A-Za-z0-9_]*)*\Z")
_RESERVED_TYPE_NAMES = frozenset({*DTYPES, "Tensor", "int"})
_INT_SUFFIX = {"int16": "i16", "int32": "", "int64": "i64"}
_FLOAT_SUFFIX = {"float16": "f16", "float32": "f", "float64": "f64"}

Doc = list[tuple[int, str]]
"""A printed fragment: lines with their indentation (in levels) relative to the fragment's
first line, which continues the current line. Indentation is applied once, at the end, so
nesting costs nothing per level."""


# ---------------------------------------------------------------------------------------------
# Scalars, attributes, types


def format_float(value: float | np.floating[npt.NBitBase], suffix: str) -> str:
    """Shortest digits that read back to the same value, with ``suffix`` (``f``, ``f16`` ...)."""
    if np.isnan(value):
        return "nan" + ("f" if suffix == "f" else suffix)
    if np.isinf(value):
        sign = "-" if value < 0 else ""
        return f"{sign}inf" + ("f" if suffix == "f" else suffix)
    # numpy's ``str`` of a scalar is the shortest text that reads back in its own precision.
    text = str(value) if isinstance(value, np.floating) else repr(float(value))
    if "e" not in text and text.endswith(".0"):
        text = text[:-2]
    text = text.replace(".0e", "e")
    return text + suffix


def _canonical_nan(data: npt.NDArray[np.generic]) -> bool:
    return data.tobytes() == np.array(np.nan, dtype=data.dtype).tobytes()


def scalar_literal(data: npt.NDArray[np.generic]) -> str | None:
    """The literal for a rank-0 constant, or ``None`` if it must go to the metadata."""
    if data.ndim != 0:
        return None
    dtype = data.dtype.name
    if dtype == "bool":
        return "True" if bool(data) else "False"
    if dtype in _INT_SUFFIX:
        return f"{int(data)}{_INT_SUFFIX[dtype]}"
    if dtype in _FLOAT_SUFFIX:
        scalar = data[()]
        if np.isnan(scalar) and not _canonical_nan(data):
            return None  # a NaN with a sign or payload round-trips only bit-exactly via metadata
        if dtype == "float64":
            return format_float(float(scalar), "f64")
        assert isinstance(scalar, np.floating)
        return format_float(scalar, _FLOAT_SUFFIX[dtype])
    return None


def format_string(text: str) -> str:
    """A string literal, with the escapes TVM's printer wrote."""
    out = ['"']
    for ch in text:
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02X}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def format_attr(value: AttrValue) -> str:
    """An attribute value: ``1``, ``0.5f``, ``True``, ``"NCHW"``, ``None``, ``[1, 2]``."""
    match value:
        case None:
            return "None"
        case bool():
            return "True" if value else "False"
        case int():
            return str(value)
        case float():
            return format_float(value, "f")
        case str():
            return format_string(value)
        case tuple():
            return "[" + ", ".join(format_attr(v) for v in value) + "]"
        case _:
            assert_never(value)


def format_dim(d: Dim) -> str:
    """A dimension: ``3``, ``?``, or a symbolic expression in the parser's dimension syntax.

    Every dimension the dimension grammar can produce prints, and reads back as the same sympy
    expression: sums and differences, products and powers with positive integer exponents
    (``n**2`` is written ``n*n``), ``floordiv`` (sympy's ``floor`` of a quotient, whose
    argument may carry rational coefficients) and ``floormod``. Anything else (a rational
    outside a floor, ``zoo``, a symbol whose name is not an identifier) is not a dimension of
    the text format, and raises ``ValueError``.
    """
    if isinstance(d, AnyDim):
        return "?"
    if isinstance(d, int):
        return str(d)
    return _format_sym(d)


def _format_sym(e: sympy.Expr) -> str:
    # Symbolic dimensions are small expressions; their nesting is not program depth.
    if e.is_Integer:
        return str(int(e))
    if e.is_Symbol:
        if not is_identifier(e.name):
            raise ValueError(f"cannot print the dimension {e.name!r}: not an identifier")
        return str(e.name)
    if isinstance(e, sympy.floor):
        num, den = sympy.fraction(sympy.together(e.args[0]))
        return f"floordiv({_format_sym(num)}, {_format_sym(den)})"
    if isinstance(e, sympy.Mod):
        return f"floormod({_format_sym(e.args[0])}, {_format_sym(e.args[1])})"
    if e.is_Add:
        # Terms with a positive coefficient first, so that a sum rarely starts with a sign.
        terms = sorted(
            sympy.Add.make_args(e),
            key=lambda t: (
                bool(t.as_coeff_Mul()[0] < 0),
                bool(t.is_number),
                sympy.default_sort_key(t),
            ),
        )
        parts: list[str] = []
        for i, t in enumerate(terms):
            coeff, rest = t.as_coeff_Mul()
            if i > 0 and coeff < 0:
                parts.append(" - " + _format_product(-coeff, rest))
            else:
                parts.append((" + " if i > 0 else "") + _format_sym(t))
        return "".join(parts)
    if e.is_Mul or e.is_Pow:
        coeff, rest = e.as_coeff_Mul()
        return _format_product(coeff, rest)
    raise ValueError(f"cannot print the dimension {e}")


def _format_product(coeff: sympy.Expr, rest: sympy.Expr) -> str:
    if not coeff.is_Integer:
        raise ValueError(f"cannot print the dimension {coeff * rest}: {coeff} is not an integer")
    pieces = []
    for f in sympy.Mul.make_args(rest):
        if f == 1:
            continue
        if f.is_Pow:
            if not (f.exp.is_Integer and f.exp > 0):
                raise ValueError(f"cannot print the dimension {coeff * rest}: {f} is a quotient")
            pieces.extend([_format_factor(f.base)] * int(f.exp))
        else:
            pieces.append(_format_factor(f))
    if coeff != 1 or not pieces:
        pieces.insert(0, _format_factor(coeff))
    return "*".join(pieces)


def _format_factor(e: sympy.Expr) -> str:
    text = _format_sym(e)
    if e.is_Add or (e.is_Integer and int(e) < 0):
        return f"({text})"
    return text


def global_name(name: str) -> str:
    """``@name``; ``ValueError`` if ``name`` would not read back as that one global."""
    if _NAME.match(name) is None:
        raise ValueError(f"cannot print the global name {name!r}: not an identifier")
    return "@" + name


def type_name(name: str) -> str:
    """A type, type variable or constructor name, checked to read back as itself.

    Names of the text format's own types (dtypes, ``Tensor``) would read back as something
    else, and any other non-identifier could inject text: ``ValueError``.
    """
    if not is_identifier(name) or name in _RESERVED_TYPE_NAMES:
        raise ValueError(f"cannot print the type name {name!r}: not an identifier it can own")
    return name


def constructor_name(name: str) -> str:
    """A constructor's name: an identifier that no operator has (``ValueError`` if not)."""
    if not is_identifier(name) or lookup(name) is not None:
        raise ValueError(f"cannot print the constructor name {name!r}")
    return name


def attr_key(key: str) -> str:
    """A function attribute's key (dotted identifiers), checked to read back as itself."""
    if not all(is_identifier(part) for part in key.split(".")):
        raise ValueError(f"cannot print the attribute key {key!r}: not a dotted identifier")
    return key


def format_type(t: Type) -> str:
    """A type in text-format syntax, built with an explicit stack (types may nest deeply)."""
    # Each task either visits a type or joins the last ``n`` results with a formatter.
    results: list[str] = []
    tasks: list[Type | tuple[int, Callable[[list[str]], str]]] = [t]
    while tasks:
        task = tasks.pop()
        if isinstance(task, tuple):
            n, join = task
            parts = results[len(results) - n :] if n else []
            del results[len(results) - n :]
            results.append(join(parts))
            continue
        match task:
            case TensorType(shape, dtype):
                if dtype not in DTYPES:
                    raise ValueError(f"cannot print the dtype {dtype!r}")
                if not shape:
                    results.append(dtype)
                else:
                    dims = ", ".join(format_dim(d) for d in shape)
                    results.append(f"Tensor[({dims}), {dtype}]")
            case TupleType(fields):
                tasks.append((len(fields), _join_tuple))
                tasks.extend(reversed(fields))
            case FuncType(arg_types, ret_type, type_params):
                tasks.append((len(arg_types) + 1, _func_type_joiner(type_params)))
                tasks.append(ret_type)
                tasks.extend(reversed(arg_types))
            case TypeVar(name) | GlobalTypeVar(name):
                results.append(type_name(name))
            case IncompleteType():
                results.append("_")
            case RefType(value):
                tasks.append((1, lambda parts: f"ref({parts[0]})"))
                tasks.append(value)
            case TypeCall(func, args):
                if not args:
                    results.append(type_name(func.name))
                else:
                    tasks.append((len(args), _type_call_joiner(type_name(func.name))))
                    tasks.extend(reversed(args))
            case _:
                assert_never(task)
    return results[0]


def _type_call_joiner(name: str) -> Callable[[list[str]], str]:
    return lambda parts: f"{name}[{', '.join(parts)}]"


def _join_tuple(parts: list[str]) -> str:
    if len(parts) == 1:
        return f"({parts[0]},)"
    return "(" + ", ".join(parts) + ")"


def _func_type_joiner(type_params: tuple[TypeVar, ...]) -> Callable[[list[str]], str]:
    prefix = "[" + ", ".join(type_name(tv.name) for tv in type_params) + "]" if type_params else ""

    def join(parts: list[str]) -> str:
        return f"fn {prefix}({', '.join(parts[:-1])}) -> {parts[-1]}"

    return join


# ---------------------------------------------------------------------------------------------
# Expressions


@dataclass
class _Block:
    """The statements of one block being printed."""

    lines: Doc = field(default_factory=list)


def _indent(doc: Doc, levels: int = 1) -> Doc:
    return [(depth + levels, text) for depth, text in doc]


def _lines(doc: Doc) -> list[str]:
    return ["  " * depth + text if text else text for depth, text in doc]


def _statement(head: str, doc: Doc, tail: str) -> Doc:
    """``head`` + the doc + ``tail``: the doc's first line continues the head."""
    if len(doc) == 1:
        return [(doc[0][0], head + doc[0][1] + tail)]
    return [(doc[0][0], head + doc[0][1]), *doc[1:-1], (doc[-1][0], doc[-1][1] + tail)]


class _Names:
    """Printed names of variables: a name in use is never reused by an inner binder.

    With ``owner`` (the ``renamed`` option of ``astext``), a printed name is moreover never
    given to binders of two different ``name_hint``s in one definition, and ``owner`` records
    the hint of each printed name: so the printed names determine the original ones.
    """

    def __init__(self, owner: dict[str, str] | None = None) -> None:
        self.printed: dict[Var, str] = {}
        self.active: dict[str, int] = {}
        self.next_suffix: dict[str, int] = {}
        self.owner = owner

    @staticmethod
    def sanitize(hint: str) -> str:
        if _NAME.match(hint):
            return hint
        cleaned = re.sub(r"[^A-Za-z0-9_]", "_", hint)
        if not cleaned or not (cleaned[0].isalpha() or cleaned[0] == "_"):
            cleaned = "v" + cleaned
        return cleaned

    def taken(self, name: str, hint: str) -> bool:
        """Whether a binder of ``hint`` may not be printed as ``name`` here."""
        if name in self.active:
            return True
        return self.owner is not None and self.owner.get(name, hint) != hint

    def bind(self, var: Var) -> str:
        hint = var.name_hint
        base = self.sanitize(hint)
        name = base
        if self.taken(name, hint):
            # Resume the search where the last one for this base stopped: a long chain of
            # lets of one name costs linear, not quadratic, time.
            k = self.next_suffix.get(base, 1)
            while self.taken(f"{base}{k}", hint):
                k += 1
            name = f"{base}{k}"
            self.next_suffix[base] = k + 1
        self.active[name] = self.active.get(name, 0) + 1
        self.printed[var] = name
        if self.owner is not None:
            self.owner[name] = hint
        return name

    def unbind(self, var: Var) -> None:
        name = self.printed[var]
        self.active[name] -= 1
        if not self.active[name]:
            del self.active[name]

    def ref(self, var: Var) -> str:
        return "%" + self.printed.get(var, self.sanitize(var.name_hint))


class _ScopeAnalysis:
    """Which nodes are inline, and the block of every bound node (iterative, one pass)."""

    def __init__(self, body: Expr) -> None:
        order = list(post_order(body))
        uses: dict[Expr, int] = {}
        inline_slot: dict[Expr, bool] = {}
        value_slot: set[Expr] = set()  # lets used as the value of a let
        for node in order:
            for position, child in enumerate(children(node)):
                if isinstance(child, ATOMS):
                    continue
                uses[child] = uses.get(child, 0) + 1
                inline_slot[child] = _inline_position(node, position)
                if isinstance(node, Let) and position == 0:
                    value_slot.add(child)
        self.inline: set[Expr] = {
            n
            for n in order
            if not isinstance(n, ATOMS) and uses.get(n, 0) <= 1 and inline_slot.get(n, True)
        }
        # A let written inline as a block result or a let body continues the enclosing block;
        # any other let is written in parentheses, as a block of its own.
        self.continues: set[Expr] = {
            n for n in order if isinstance(n, Let) and n in self.inline and n not in value_slot
        }
        self.referenced: set[Expr] = {c for n in order for c in children(n) if isinstance(c, Var)}
        # Blocks: 0 is the root; others are (parent node id, child position) pairs.
        self.block_parent: dict[object, object] = {0: None}
        self.block_depth: dict[object, int] = {0: 0}
        self.scope: dict[Expr, object] = {body: 0}
        for node in reversed(order):  # parents before children
            if isinstance(node, ATOMS):
                continue
            own = self.scope[node]
            for position, child in enumerate(children(node)):
                if isinstance(child, ATOMS):
                    continue
                use_block = self._use_block(node, position, own)
                if child in self.scope:
                    self.scope[child] = self._lca(self.scope[child], use_block)
                else:
                    self.scope[child] = use_block

    def opens_block(self, node: Expr, position: int) -> bool:
        match node:
            case Function():
                return True
            case If():
                return position > 0
            case Match():
                return position > 0
            case Let():
                return node not in self.continues
            case (Var() | GlobalVar() | Constant() | Op() | Constructor() | Call() | Tuple()
                  | TupleGetItem() | RefCreate() | RefRead() | RefWrite()):  # fmt: skip
                return False
            case _:
                assert_never(node)

    def block_of(self, node: Expr, position: int) -> object:
        """The block that child ``position`` of ``node`` is printed in, creating it."""
        if isinstance(node, Let):
            position = 0  # a bound let's value and body share one parenthesised block
        key = (node, position)
        if key not in self.block_parent:
            parent = self.scope[node]
            self.block_parent[key] = parent
            self.block_depth[key] = self.block_depth[parent] + 1
        return key

    def _use_block(self, node: Expr, position: int, own: object) -> object:
        if self.opens_block(node, position):
            return self.block_of(node, position)
        return own

    def _lca(self, a: object, b: object) -> object:
        while self.block_depth[a] > self.block_depth[b]:
            a = self.block_parent[a]
        while self.block_depth[b] > self.block_depth[a]:
            b = self.block_parent[b]
        while a != b:
            a = self.block_parent[a]
            b = self.block_parent[b]
        return a


def _inline_position(parent: Expr, position: int) -> bool:
    match parent:
        case Function() | If():
            return position > 0 or isinstance(parent, Function)
        case Match():
            return position > 0
        case Let():
            return True
        case (Var() | GlobalVar() | Constant() | Op() | Constructor() | Call() | Tuple()
              | TupleGetItem() | RefCreate() | RefRead() | RefWrite()):  # fmt: skip
            return False
        case _:
            assert_never(parent)


class Printer:
    """Prints modules; ``meta_constants`` collects the constants written as ``meta[...]``."""

    def __init__(
        self,
        annotate: Callable[[Expr], Type | None] | None = None,
        renamed: dict[str, dict[str, str]] | None = None,
    ) -> None:
        self.meta_constants: list[npt.NDArray[np.generic]] = []
        self.meta_index: dict[Constant, int] = {}
        self.annotate = annotate
        self.renamed = renamed

    # -- modules ---------------------------------------------------------------------------

    def module(self, mod: IRModule) -> str:
        items: list[str] = []
        for data in mod.type_definitions.values():
            items.append(self.type_definition(data))
        for gv, fn in mod.functions.items():
            owner: dict[str, str] | None = None if self.renamed is None else {}
            doc = self.function(fn, f"def {global_name(gv.name)}", owner)
            items.append("\n".join(_lines(doc)))
            changed = {k: v for k, v in (owner or {}).items() if k != v}
            if changed and self.renamed is not None:
                self.renamed[gv.name] = changed
        text = VERSION_HEADER + "\n" + "\n\n".join(items)
        if items:
            text += "\n"
        if self.meta_constants:
            text += "\n#[metadata]\n" + write_metadata(self.meta_constants)
        return text

    def type_definition(self, data: TypeData) -> str:
        head = f"type {type_name(data.header.name)}"
        if data.extern:
            head = "extern " + head
        if data.type_vars:
            head += "[" + ", ".join(type_name(tv.name) for tv in data.type_vars) + "]"
        if not data.constructors:
            return head
        lines = [head + " {"]
        for ctor in data.constructors:
            fields = ""
            if ctor.inputs:
                fields = "(" + ", ".join(format_type(t) for t in ctor.inputs) + ")"
            lines.append(f"  {constructor_name(ctor.name)}{fields},")
        lines.append("}")
        return "\n".join(lines)

    def function(self, fn: Function, head: str, owner: dict[str, str] | None = None) -> Doc:
        """A top-level definition: ``def @f(...) { ... }`` with its own ``%N`` numbering;
        ``owner`` collects the hint of each printed binder name (see ``_Names``)."""
        return _FunctionPrinter(self, owner).definition(fn, head)

    # -- atoms -----------------------------------------------------------------------------

    def constant(self, c: Constant) -> str:
        literal = scalar_literal(c.data)
        if literal is not None:
            return literal
        if c not in self.meta_index:
            self.meta_index[c] = len(self.meta_constants)
            self.meta_constants.append(c.data)
        return f"meta[relay.Constant][{self.meta_index[c]}]"


class _FunctionPrinter:
    """Prints one definition: the scope analysis, then one iterative walk in evaluation order."""

    def __init__(self, printer: Printer, owner: dict[str, str] | None = None) -> None:
        self.printer = printer
        self.names = _Names(owner)
        self.counter = 0
        self.docs: dict[Expr, Doc] = {}
        self.blocks: dict[object, _Block] = {}

    def definition(self, fn: Function, head: str) -> Doc:
        self.root = fn
        self.analysis = _ScopeAnalysis(fn)
        self.walk(fn)
        doc = self.docs[fn]
        # The walk printed it as ``fn ...``; a definition is ``def @f...`` instead.
        return [(0, head + doc[0][1][len("fn ") :]), *doc[1:]]

    def block(self, key: object) -> _Block:
        if key not in self.blocks:
            self.blocks[key] = _Block()
        return self.blocks[key]

    def atom(self, e: Expr) -> str:
        match e:
            case Var():
                return self.names.ref(e)
            case GlobalVar(name):
                return global_name(name)
            case Constant():
                return self.printer.constant(e)
            case Op(name):
                return name
            case Constructor(name):
                return constructor_name(name)
            case (Call() | Tuple() | TupleGetItem() | Function() | Let() | If() | Match()
                  | RefCreate() | RefRead() | RefWrite()):  # fmt: skip
                raise AssertionError("not an atom")
            case _:
                assert_never(e)

    def text(self, e: Expr) -> Doc:
        """How ``e`` is written where it is used: inline, or its ``%N``."""
        if isinstance(e, ATOMS):
            return [(0, self.atom(e))]
        return self.docs[e]

    def one_line(self, e: Expr) -> str:
        doc = self.text(e)
        assert len(doc) == 1, "only inline positions hold multi-line text"
        return doc[0][1]

    def walk(self, root: Expr) -> None:
        # Tasks: ("visit", e), ("finish", e), ("let", e) emits a let line, ("bind", var) and
        # ("unbind", var) open and close a variable's scope.
        tasks: list[tuple[str, object]] = [("visit", root)]
        while tasks:
            kind, item = tasks.pop()
            if kind == "unbind" or kind == "bind":
                assert isinstance(item, Var)
                if kind == "bind":
                    self.names.bind(item)
                else:
                    self.names.unbind(item)
                continue
            e: Expr = item  # type: ignore[assignment]
            if kind == "finish":
                self.finish(e)
            elif kind == "let":
                assert isinstance(e, Let)
                self.let_line(e)
            elif e not in self.docs and not isinstance(e, ATOMS):
                self.docs[e] = []  # visited: later uses find it
                tasks.extend(self.visit(e))

    def visit(self, e: Expr) -> list[tuple[str, object]]:
        """Tasks to run for ``e``, in stack order (the last runs first)."""
        match e:
            case Function(params):
                for p in params:
                    self.names.bind(p)
                unbind = [("unbind", p) for p in params]
                return [*unbind, ("finish", e), ("visit", e.body)]
            case Let(var, value, body):
                self.names.bind(var)
                return [("unbind", var), ("finish", e), ("visit", body), ("let", e),
                        ("visit", value)]  # fmt: skip
            case Match(data, clauses):
                # Pattern variables are bound in their clause only.
                tasks: list[tuple[str, object]] = [("finish", e)]
                for clause in reversed(clauses):
                    bound = pattern_vars(clause.lhs)
                    tasks.extend(("unbind", v) for v in bound)
                    tasks.append(("visit", clause.rhs))
                    tasks.extend(("bind", v) for v in reversed(bound))
                tasks.append(("visit", data))
                return tasks
            case (Var() | GlobalVar() | Constant() | Op() | Constructor() | Call() | Tuple()
                  | TupleGetItem() | If() | RefCreate() | RefRead() | RefWrite()):  # fmt: skip
                return [("finish", e), *(("visit", c) for c in reversed(children(e)))]
            case _:
                assert_never(e)

    def let_line(self, e: Let) -> None:
        var = e.var
        if (
            var.name_hint == "_"
            and var.type_annotation is None
            and (var not in self.analysis.referenced)
        ):
            head = ""  # the sequence ``e1; e2``
        else:
            head = "let " + self.binder(var) + " = "
        key = self.analysis.block_of(e, 0) if e not in self.analysis.continues else None
        block = self.block(key) if key is not None else self.block(self.analysis.scope[e])
        block.lines.extend(_statement(head, self.text(e.value), ";"))

    def block_doc(self, key: object, result: Expr) -> Doc:
        lines = self.blocks.pop(key, _Block()).lines
        return [*lines, *self.text(result)]

    def type_comment(self, e: Expr) -> str:
        """`` /* ty=T */`` when printing with types and ``e``'s type is known."""
        if self.printer.annotate is None:
            return ""
        t = self.printer.annotate(e)
        return "" if t is None else f" /* ty={format_type(t)} */"

    def finish(self, e: Expr) -> None:
        doc = self.render(e)
        if isinstance(e, Call | Tuple | TupleGetItem | Function) and e is not self.root:
            comment = self.type_comment(e)
            if comment:
                depth, last = doc[-1]
                doc = [*doc[:-1], (depth, last + comment)]
        if e in self.analysis.inline:
            self.docs[e] = doc
            return
        name = f"%{self.counter}"
        self.counter += 1
        block = self.block(self.analysis.scope[e])
        block.lines.extend(_statement(f"{name} = ", doc, ";"))
        self.docs[e] = [(0, name)]

    def render(self, e: Expr) -> Doc:
        match e:
            case Call(op, args, attrs):
                parts = [self.one_line(a) for a in args]
                if attrs is not None:
                    parts.extend(f"{k}={format_attr(v)}" for k, v in attrs.non_default_items())
                callee = self.one_line(op)
                if isinstance(op, Constructor) and not args:
                    return [(0, callee)]
                return [(0, f"{callee}({', '.join(parts)})")]
            case Tuple(fields):
                items = [self.one_line(f) for f in fields]
                if len(items) == 1:
                    return [(0, f"({items[0]},)")]
                return [(0, "(" + ", ".join(items) + ")")]
            case TupleGetItem(tup, index):
                return [(0, f"{self.one_line(tup)}.{index}")]
            case RefCreate(value):
                return [(0, f"ref({self.one_line(value)})")]
            case RefRead(ref):
                return [(0, f"ref_read({self.one_line(ref)})")]
            case RefWrite(ref, value):
                return [(0, f"ref_write({self.one_line(ref)}, {self.one_line(value)})")]
            case Function(params, body, ret_type, type_params, attrs):
                head = "fn "
                if type_params:
                    head += "[" + ", ".join(type_name(tv.name) for tv in type_params) + "]"
                items = [self.binder(p) for p in params]
                items.extend(f"{attr_key(k)}={format_attr(v)}" for k, v in attrs)
                head += "(" + ", ".join(items) + ")"
                if ret_type is not None:
                    head += " -> " + format_type(ret_type)
                body_doc = self.block_doc(self.analysis.block_of(e, 0), body)
                return [(0, head + " {"), *_indent(body_doc), (0, "}")]
            case If(cond, then, otherwise):
                then_doc = self.block_doc(self.analysis.block_of(e, 1), then)
                else_doc = self.block_doc(self.analysis.block_of(e, 2), otherwise)
                return [(0, f"if ({self.one_line(cond)}) {{"), *_indent(then_doc),
                        (0, "} else {"), *_indent(else_doc), (0, "}")]  # fmt: skip
            case Match(data, clauses, complete):
                keyword = "match" if complete else "match?"
                lines: Doc = [(0, f"{keyword} ({self.one_line(data)}) {{")]
                for position, clause in enumerate(clauses, start=1):
                    rhs = self.block_doc(self.analysis.block_of(e, position), clause.rhs)
                    lines.append((1, f"{self.pattern(clause.lhs)} => {{"))
                    lines.extend(_indent(rhs, 2))
                    lines.append((1, "},"))
                lines.append((0, "}"))
                return lines
            case Let():
                if e in self.analysis.continues:
                    return self.text(e.body)
                inner = self.block_doc(self.analysis.block_of(e, 0), e.body)
                return [(0, "("), *_indent(inner), (0, ")")]
            case Var() | GlobalVar() | Constant() | Op() | Constructor():
                return [(0, self.atom(e))]
            case _:
                assert_never(e)

    def binder(self, var: Var) -> str:
        text = self.names.ref(var)
        if var.type_annotation is not None:
            text += ": " + format_type(var.type_annotation)
        return text if var.type_annotation is not None else text + self.type_comment(var)

    def pattern(self, p: Pattern) -> str:
        # Patterns are shallow (their depth is that of a value's type), printed directly.
        match p:
            case PatternWildcard():
                return "_"
            case PatternVar(var):
                return self.binder(var)
            case PatternConstructor(ctor, patterns):
                if not patterns:
                    return constructor_name(ctor.name)
                return (
                    constructor_name(ctor.name)
                    + "("
                    + ", ".join(self.pattern(q) for q in patterns)
                    + ")"
                )
            case PatternTuple(patterns):
                return "(" + ", ".join(self.pattern(q) for q in patterns) + ")"
            case _:
                assert_never(p)


def astext(
    mod: IRModule,
    annotate: Callable[[Expr], Type | None] | None = None,
    *,
    renamed: dict[str, dict[str, str]] | None = None,
) -> str:
    """The canonical text of ``mod``: header, type definitions, definitions, metadata.

    With ``annotate`` (a function giving the type of an expression, or ``None``), calls,
    tuples, projections, functions and variable binders carry a ``/* ty=... */`` comment, as
    TVM's printer wrote them.

    With ``renamed`` (a dictionary, filled in), the exact binder names are kept alongside the
    text: for each global whose binders were not all printed under their own ``name_hint``
    (suffixed so as not to shadow, or cleaned of characters a name cannot hold),
    ``renamed[global]`` maps each such printed name, without ``%``, to the ``name_hint`` it
    stands for. Names are then chosen so that one printed name never stands for two hints in
    a definition (which may add a suffix the default text does not have); without
    ``renamed`` the text is the default one, byte for byte.
    """
    return Printer(annotate, renamed).module(mod)
