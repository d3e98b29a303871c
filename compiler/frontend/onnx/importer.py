"""The ONNX graph walk: a ``ModelProto`` to a Relay ``IRModule`` with ``@main``.

``@main``'s parameters are the graph inputs that are not initializers, typed from the
graph's declared shapes (a ``dim_value`` is an integer, a ``dim_param`` a symbolic dimension
of that name, a missing dimension ``?``); initializers become ``Constant``s (printed in the
metadata section); each node, in the graph's (topological) order, goes through its
converter (``table.CONVERTERS``). The types of intermediate values come from the Relay type
checker, run on each node's new expressions with the values they read as typed parameters,
so the whole import checks each node once.

Constant propagation: a node whose inputs are all constants, and whose result has at most
``FOLD_LIMIT`` elements, is evaluated by the interpreter at import time and becomes a
constant (a result whose type has a ``?`` dimension, such as ``arange``'s, is evaluated and
kept if it is that small). This is what makes ``Shape -> Gather -> Concat -> Reshape``
chains static (the Relay operators those feed take their shapes as attributes), and it is
the same meaning: the interpreter runs the same Relay expression the converter built.

``from_onnx(model, bind={name: array})`` makes the named graph inputs constants: the model
specialised to those values, which is how ``relay.frontend.onnx_backend`` runs graphs whose
shapes or axes arrive as inputs.

Errors (``OnnxImportError``) say which node and op: an operator without a converter, an
attribute value the converter cannot translate, an input that must be a constant and is not
(``kind="constant"``, naming the graph input it depends on).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from ....semantics.errors import RelayError
from ....semantics.ops import lookup as lookup_op
from ....semantics.ops.registry import AttrError
from ....semantics.syntax import (
    ANY,
    Call,
    Constant,
    Dim,
    Expr,
    Function,
    GlobalVar,
    If,
    IRModule,
    Op,
    TensorType,
    Tuple,
    TupleGetItem,
    Type,
    Var,
    dim_symbol,
)
from ....semantics.typing import infer_types
from ....semantics.values import TensorValue
from . import table

if TYPE_CHECKING:
    import onnx

Array = npt.NDArray[Any]

FOLD_LIMIT = 1 << 16
"""The largest number of elements a node's result may have to be folded to a constant."""

# ONNX TensorProto.DataType codes of the element types Relay has.
ONNX_DTYPES: dict[int, str] = {
    1: "float32",
    2: "uint8",
    3: "int8",
    4: "uint16",
    5: "int16",
    6: "int32",
    7: "int64",
    9: "bool",
    10: "float16",
    11: "float64",
    12: "uint32",
    13: "uint64",
}
_ONNX_DTYPE_NAMES = {
    0: "UNDEFINED",
    8: "STRING",
    14: "COMPLEX64",
    15: "COMPLEX128",
    16: "BFLOAT16",
    17: "FLOAT8E4M3FN",
    18: "FLOAT8E4M3FNUZ",
    19: "FLOAT8E5M2",
    20: "FLOAT8E5M2FNUZ",
    21: "UINT4",
    22: "INT4",
    23: "FLOAT4E2M1",
    24: "FLOAT8E8M0",
    25: "UINT2",
    26: "INT2",
}


class OnnxImportError(RelayError):
    """An ONNX model that cannot be imported; ``source`` names the file (or ``<model>``).

    ``kind`` is ``unsupported`` (an op, element type or feature with no translation),
    ``constant`` (a value Relay takes as an attribute is a graph input: ``value_name`` names
    it, and importing with that input bound, ``from_onnx(..., bind=...)``, may succeed) or
    ``invalid`` (the model itself is malformed).
    """

    def __init__(
        self,
        message: str,
        source: str = "<model>",
        *,
        kind: str = "unsupported",
        value_name: str = "",
    ) -> None:
        super().__init__(message)
        self.source = source
        self.kind = kind
        self.value_name = value_name

    def render(self) -> str:
        """``FILE: error: message`` (a binary file has no source line to show)."""
        return f"{self.source}: error: {self.message}"

    def __str__(self) -> str:
        return f"{self.source}: {self.message}"


def relay_dtype(code: int, what: str) -> str:
    """The Relay dtype of ONNX element type ``code``; ``what`` names the value for errors."""
    dtype = ONNX_DTYPES.get(code)
    if dtype is None:
        name = _ONNX_DTYPE_NAMES.get(code, str(code))
        raise OnnxImportError(f"{what} has ONNX element type {name}, which Relay does not have")
    return dtype


def onnx_dtype_code_of(a: Array) -> int:
    """The ONNX element type code of an array's dtype (0 if Relay has no such dtype)."""
    try:
        return onnx_dtype_code(a.dtype.name)
    except ValueError:
        return 0


def onnx_dtype_code(dtype: str) -> int:
    """The ONNX element type code of Relay dtype ``dtype``."""
    for code, name in ONNX_DTYPES.items():
        if name == dtype:
            return code
    raise ValueError(dtype)


def tensor_type_of(value_info: onnx.ValueInfoProto, what: str) -> TensorType:
    """The Relay type of a graph input or output (its declared element type and shape)."""
    kind = value_info.type.WhichOneof("value")
    if kind != "tensor_type":
        raise OnnxImportError(
            f"{what} is a {kind or 'value of no type'}; only tensors are imported"
        )
    tt = value_info.type.tensor_type
    dtype = relay_dtype(tt.elem_type, what)
    if not tt.HasField("shape"):
        raise OnnxImportError(f"{what} has no declared rank; Relay needs every tensor's rank")
    dims: list[Dim] = []
    for d in tt.shape.dim:
        if d.HasField("dim_value"):
            dims.append(int(d.dim_value))
        elif d.HasField("dim_param") and d.dim_param:
            dims.append(dim_symbol(sanitize(d.dim_param)))
        else:
            dims.append(ANY)
    return TensorType(tuple(dims), dtype)


def sanitize(name: str) -> str:
    """An ONNX name as a Relay identifier (letters, digits and ``_``, not starting a digit)."""
    text = re.sub(r"[^A-Za-z0-9_]", "_", name)
    if not text or text[0].isdigit():
        text = "v" + text
    return text


def _attribute_value(attr: onnx.AttributeProto) -> object:
    from onnx import helper, numpy_helper

    if attr.type == attr.TENSOR:
        return numpy_helper.to_array(attr.t)
    if attr.type == attr.STRING:
        return attr.s.decode("utf-8", "replace")
    if attr.type == attr.STRINGS:
        return [s.decode("utf-8", "replace") for s in attr.strings]
    return helper.get_attribute_value(attr)


@dataclass
class NodeContext:
    """One ONNX node as its converter sees it: inputs, attributes, types, and builders."""

    importer: GraphImporter
    node: onnx.NodeProto
    opset: int
    inputs: list[Expr | None]
    attrs: dict[str, object] = field(default_factory=dict)

    # -- errors ---------------------------------------------------------------------------

    def where(self) -> str:
        """``ONNX op 'Conv' (node 'conv1')``: the node, for messages."""
        name = self.node.name or (self.node.output[0] if self.node.output else "")
        return f"ONNX op '{self.node.op_type}' (node '{name}')"

    def fail(self, message: str) -> OnnxImportError:
        """An import error about this node (raise it)."""
        return OnnxImportError(f"{self.where()}: {message}", self.importer.source)

    # -- inputs ---------------------------------------------------------------------------

    @property
    def num_inputs(self) -> int:
        """The number of inputs the node lists (omitted optional ones included)."""
        return len(self.inputs)

    def input(self, i: int) -> Expr:
        """Input ``i``, which must be present."""
        e = self.inputs[i] if i < len(self.inputs) else None
        if e is None:
            raise self.fail(f"input {i} is required")
        return e

    def optional(self, i: int) -> Expr | None:
        """Input ``i``, or ``None`` when it is omitted."""
        return self.inputs[i] if i < len(self.inputs) else None

    def type(self, i: int) -> TensorType:
        """The tensor type of input ``i``."""
        return self.tensor_type(self.input(i))

    def tensor_type(self, e: Expr) -> TensorType:
        """The tensor type of ``e`` (through the Relay type checker)."""
        t = self.importer.type_of(e)
        if not isinstance(t, TensorType):
            raise self.fail(f"expected a tensor, found a value of type {t}")
        return t

    def dtype(self, i: int) -> str:
        """The dtype of input ``i``."""
        return self.type(i).dtype

    def rank(self, i: int) -> int:
        """The rank of input ``i``."""
        return len(self.type(i).shape)

    def shape(self, i: int) -> tuple[int, ...]:
        """The shape of input ``i``, which must be static (every dimension an integer)."""
        return self.static_shape(self.input(i))

    def static_shape(self, e: Expr) -> tuple[int, ...]:
        """The shape of ``e``, which must be static."""
        dims = self.tensor_type(e).shape
        known = static_dims(dims)
        if known is None:
            shown = ", ".join(str(d) for d in dims)
            raise self.fail(f"needs a static shape, found ({shown})")
        return known

    def const(self, i: int) -> Array | None:
        """The value of input ``i`` when it is a constant, else ``None`` (or when omitted)."""
        e = self.optional(i)
        return e.data if isinstance(e, Constant) else None

    def require_const(self, i: int, what: str) -> Array:
        """The value of input ``i`` (``what`` says what it is), which must be a constant."""
        value = self.const(i)
        if value is None:
            e = self.optional(i)
            if e is None:
                raise self.fail(f"input {i} ({what}) is required")
            err = self.fail(
                f"input {i} ({what}) must be a constant: Relay takes it as an attribute"
            )
            err.kind = "constant"
            err.value_name = next(
                (
                    self.importer.input_names[v]
                    for v in free_vars(e)
                    if v in self.importer.input_names
                ),
                "",
            )
            raise err
        return value

    def ints(self, i: int, what: str) -> list[int]:
        """Input ``i`` as a list of integers (it must be a constant)."""
        return [int(v) for v in self.require_const(i, what).reshape(-1)]

    # -- attributes -----------------------------------------------------------------------

    def attr(self, name: str, default: Any = None) -> Any:
        """Attribute ``name``, or ``default`` when absent."""
        return self.attrs.get(name, default)

    def subgraph(self, name: str, inputs: Sequence[Expr] = ()) -> list[Expr]:
        """The outputs of the graph attribute ``name``, imported in the current scope with
        its inputs bound to ``inputs``."""
        graph = self.attrs.get(name)
        if graph is None or isinstance(graph, str | int | float | list | np.ndarray):
            raise self.fail(f"attribute {name} must be a graph")
        return self.importer.import_subgraph(self, graph, inputs)  # type: ignore[arg-type]

    # -- builders -------------------------------------------------------------------------

    def call(self, op: str, *args: Expr, **attrs: object) -> Call:
        """A call of the Relay operator ``op`` with keyword attributes."""
        opdef = lookup_op(op)
        assert opdef is not None, op
        built = None
        if opdef.attrs_type is not None:
            try:
                built = opdef.attrs_type.from_kwargs(attrs)
            except AttrError as err:
                raise self.fail(f"attribute {err.key} of {op}: {err.message}") from None
        elif attrs:
            raise AssertionError(f"{op} has no attributes")
        return Call(self.importer.op(op), tuple(args), built)

    def scalar(self, value: object, dtype: str) -> Constant:
        """A rank-0 constant of ``dtype``."""
        return Constant(np.array(value, dtype=dtype))

    def constant(self, value: Array) -> Constant:
        """A constant holding ``value``."""
        return Constant(np.array(value, order="C"))


class GraphImporter:
    """Imports one ONNX graph; ``from_onnx`` is the entry point."""

    def __init__(
        self, model: onnx.ModelProto, source: str, bind: Mapping[str, Array] | None = None
    ) -> None:
        self.model = model
        self.source = source
        self.bind = dict(bind or {})
        self.input_names: dict[Expr, str] = {}
        self.values: dict[str, Expr | None] = {"": None}
        self.types: dict[Expr, Type] = {}
        self.ops: dict[str, Op] = {}
        self.names: set[str] = set()
        self.opset = self._default_opset()

    def _default_opset(self) -> int:
        opset = None
        for entry in self.model.opset_import:
            if entry.domain in ("", "ai.onnx"):
                opset = int(entry.version)
        if opset is None:
            domains = ", ".join(f"'{e.domain}'" for e in self.model.opset_import) or "none"
            message = f"the model imports no opset of the default ONNX domain (only {domains})"
            raise OnnxImportError(f"{message}, which is not supported", self.source)
        return opset

    def op(self, name: str) -> Op:
        """The ``Op`` node of ``name`` (one per import)."""
        node = self.ops.get(name)
        if node is None:
            node = self.ops[name] = Op(name)
        return node

    def fresh_name(self, hint: str) -> str:
        """A Relay variable name from ``hint``, distinct from the ones given before."""
        base = sanitize(hint)
        name, n = base, 1
        while name in self.names:
            name, n = f"{base}_{n}", n + 1
        self.names.add(name)
        return name

    # -- types ----------------------------------------------------------------------------

    def type_of(self, e: Expr) -> Type:
        """The type of ``e``, checking the expressions not seen before (``e`` and the new
        sub-expressions it is built from) with the known ones as typed parameters."""
        known = self.types.get(e)
        if known is not None:
            return known
        if isinstance(e, Constant):
            t = self.types[e] = TensorType(e.data.shape, e.data.dtype.name)
            return t
        order: list[Expr] = []
        seen: set[Expr] = set()
        stack: list[tuple[Expr, bool]] = [(e, False)]
        while stack:
            x, done = stack.pop()
            if done:
                order.append(x)
                continue
            if x in seen or x in self.types:
                continue
            if isinstance(x, Constant):
                self.types[x] = TensorType(x.data.shape, x.data.dtype.name)
                continue
            seen.add(x)
            stack.append((x, True))
            stack.extend((c, False) for c in reversed(_operands(x)))
        params: dict[Expr, Var] = {}
        copies: dict[Expr, Expr] = {}

        def copy_of(x: Expr) -> Expr:
            if x in copies:
                return copies[x]
            if x not in params:
                params[x] = Var(f"p{len(params)}", self.types[x])
            return params[x]

        for x in order:
            match x:
                case Call(op, args, attrs):
                    copies[x] = Call(op, tuple(copy_of(a) for a in args), attrs)
                case Tuple(fields):
                    copies[x] = Tuple(tuple(copy_of(f) for f in fields))
                case TupleGetItem(whole, index):
                    copies[x] = TupleGetItem(copy_of(whole), index)
                case If(cond, then, otherwise):
                    copies[x] = If(copy_of(cond), copy_of(then), copy_of(otherwise))
                case _:
                    raise AssertionError(f"the ONNX frontend does not build {type(x).__name__}")
        fn = Function(tuple(params.values()), copies[e])
        info = infer_types(IRModule({GlobalVar("main"): fn}))
        for x in order:
            self.types[x] = info.expr_types[copies[x]]
        return self.types[e]

    # -- the walk -------------------------------------------------------------------------

    def import_model(self) -> IRModule:
        """The module: ``@main`` over the graph's non-initializer inputs."""
        from onnx import numpy_helper

        graph = self.model.graph
        for init in graph.initializer:
            relay_dtype(init.data_type, f"initializer '{init.name}'")
            self.values[init.name] = Constant(np.array(numpy_helper.to_array(init), order="C"))
        for sparse in graph.sparse_initializer:
            raise OnnxImportError(
                f"sparse initializer '{sparse.values.name}' is not supported", self.source
            )
        params: list[Var] = []
        for value_info in graph.input:
            if value_info.name in self.values:
                continue
            if value_info.name in self.bind:
                given = np.array(self.bind[value_info.name], order="C")
                relay_dtype(onnx_dtype_code_of(given), f"graph input '{value_info.name}'")
                self.values[value_info.name] = Constant(given)
                continue
            what = f"graph input '{value_info.name}'"
            try:
                t = tensor_type_of(value_info, what)
            except OnnxImportError as err:
                raise OnnxImportError(err.message, self.source) from None
            var = Var(self.fresh_name(value_info.name), t)
            self.types[var] = t
            self.input_names[var] = value_info.name
            self.values[value_info.name] = var
            params.append(var)
        for node in graph.node:
            self.import_node(node)
        outputs: list[Expr] = []
        for out in graph.output:
            e = self.values.get(out.name)
            if e is None:
                raise OnnxImportError(f"graph output '{out.name}' is not computed by any node",
                                      self.source, kind="invalid")  # fmt: skip
            outputs.append(e)
        body: Expr = outputs[0] if len(outputs) == 1 else Tuple(tuple(outputs))
        mod = IRModule({GlobalVar("main"): Function(tuple(params), body)})
        try:
            infer_types(mod)
        except RelayError as err:  # a converter built an ill-typed program: our bug
            raise AssertionError(f"the imported module is ill-typed: {err}") from err
        return mod

    def import_node(self, node: onnx.NodeProto) -> None:
        """Convert ``node`` and bind its outputs."""
        if node.domain not in ("", "ai.onnx"):
            raise OnnxImportError(
                f"ONNX op '{node.domain}.{node.op_type}' (node '{node.name}'): the domain "
                f"'{node.domain}' is not supported",
                self.source,
            )
        inputs: list[Expr | None] = []
        for name in node.input:
            if name not in self.values:
                raise OnnxImportError(f"node '{node.name}' reads '{name}', which is not defined "
                                      "before it", self.source, kind="invalid")  # fmt: skip
            inputs.append(self.values[name])
        ctx = NodeContext(self, node, self.opset, inputs)
        for attr in node.attribute:
            if attr.type == attr.GRAPHS:
                raise ctx.fail("lists of subgraphs are not supported")
            ctx.attrs[attr.name] = attr.g if attr.type == attr.GRAPH else _attribute_value(attr)
        convert = table.lookup(node.op_type, self.opset)
        if convert is None:
            reason = table.UNSUPPORTED.get(node.op_type) or table.NOT_YET.get(node.op_type)
            detail = f": {reason}" if reason else ""
            raise OnnxImportError(f"{ctx.where()} is not supported{detail}", self.source)
        try:
            result = convert(ctx)
        except RelayError as err:
            if isinstance(err, OnnxImportError):
                raise
            raise ctx.fail(f"the Relay program built for it is rejected: {err}") from err
        outs = result if isinstance(result, list) else [result]
        names = list(node.output)
        for i, name in enumerate(names):
            if not name:
                continue
            if i >= len(outs):
                raise ctx.fail(f"output {i} is not supported")
            self.values[name] = self.fold(ctx, outs[i])

    def import_subgraph(
        self, ctx: NodeContext, graph: onnx.GraphProto, inputs: Sequence[Expr] = ()
    ) -> list[Expr]:
        """The outputs of ``graph`` (an ``If`` branch, a loop body), imported in a scope that
        sees the values defined so far, with the graph's inputs bound to ``inputs``; its own
        names do not leak out. A loop is unrolled by importing its body once per step."""
        from onnx import numpy_helper

        if len(graph.input) != len(inputs):
            raise ctx.fail(f"subgraph '{graph.name}' has {len(graph.input)} inputs, "
                           f"{len(inputs)} given")  # fmt: skip
        outer = self.values
        self.values = dict(outer)
        for value_info, bound in zip(graph.input, inputs, strict=True):
            self.values[value_info.name] = bound
        try:
            for init in graph.initializer:
                relay_dtype(init.data_type, f"initializer '{init.name}'")
                self.values[init.name] = Constant(np.array(numpy_helper.to_array(init), order="C"))
            for node in graph.node:
                self.import_node(node)
            outputs = []
            for out in graph.output:
                e = self.values.get(out.name)
                if e is None:
                    raise ctx.fail(f"subgraph output '{out.name}' is not computed")
                outputs.append(e)
        finally:
            self.values = outer
        return outputs

    def fold(self, ctx: NodeContext, e: Expr) -> Expr:
        """``e`` evaluated to a constant when it reads only constants and is small."""
        try:
            t = self.type_of(e)
        except RelayError as err:
            raise ctx.fail(f"the Relay program built for it is rejected: {err}") from err
        if isinstance(e, Constant | Var) or not isinstance(t, TensorType):
            return e
        dims = static_dims(t.shape)
        if dims is not None and int(np.prod(dims, dtype=np.int64)) > FOLD_LIMIT:
            return e
        if not _reads_only_constants(e):
            return e
        from ....interpreter import evaluate

        try:
            value = evaluate(IRModule({GlobalVar("main"): Function((), e)}), ()).value
        except RelayError:
            return e  # left for run time, where the error belongs
        if not isinstance(value, TensorValue) or value.data.size > FOLD_LIMIT:
            return e
        c = Constant(np.array(value.data, order="C"))
        return c


def static_dims(dims: Sequence[Dim]) -> tuple[int, ...] | None:
    """``dims`` as integers, or ``None`` if one of them is ``?`` or symbolic."""
    out: list[int] = []
    for d in dims:
        if not isinstance(d, int):
            return None
        out.append(d)
    return tuple(out)


def _operands(e: Expr) -> Sequence[Expr]:
    match e:
        case Call(_, args):
            return args
        case Tuple(fields):
            return fields
        case TupleGetItem(t):
            return (t,)
        case If(cond, then, otherwise):
            return (cond, then, otherwise)
        case _:
            return ()


def free_vars(e: Expr) -> list[Var]:
    """The variables ``e`` reads (the graph inputs it depends on), in the order found."""
    out: list[Var] = []
    stack = [e]
    seen: set[Expr] = set()
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        if isinstance(x, Var):
            out.append(x)
        stack.extend(_operands(x))
    return out


def _reads_only_constants(e: Expr) -> bool:
    stack = [e]
    seen: set[Expr] = set()
    while stack:
        x = stack.pop()
        if x in seen:
            continue
        seen.add(x)
        if isinstance(x, Var):
            return False
        if not isinstance(x, Call | Tuple | TupleGetItem | If | Constant):
            return False
        stack.extend(_operands(x))
    return True


def from_onnx(
    model: onnx.ModelProto, *, source: str = "<model>", bind: Mapping[str, Array] | None = None
) -> IRModule:
    """Import ``model`` as a Relay module whose ``@main`` computes the graph's outputs (one
    output: a tensor; several: a tuple). The graph inputs named in ``bind`` are constants of
    the given values (not parameters): the model specialised to them. Raises
    ``OnnxImportError``."""
    try:
        return GraphImporter(model, source, bind).import_model()
    except OnnxImportError as err:
        err.source = source
        raise


__all__ = [
    "FOLD_LIMIT",
    "ONNX_DTYPES",
    "GraphImporter",
    "NodeContext",
    "OnnxImportError",
    "from_onnx",
    "onnx_dtype_code",
    "relay_dtype",
    "sanitize",
    "tensor_type_of",
]
