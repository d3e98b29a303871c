"""Relay dataflow functions to ONNX graphs.

``to_onnx(mod, entry)`` turns the global ``entry`` of a type-checked module into one ONNX
model: its parameters (tuples flattened, left to right) become the graph's inputs, its result
(tuples flattened) the outputs, and each operator call one or a few ONNX nodes (``KERNELS``
and the builders below). ``let`` bindings, tuples and projections are resolved while
converting; a call of another global is inlined. Shapes come from the type checker, so every
shape-changing operator (``reshape``, ``expand_dims``, ``squeeze``) is one ONNX ``Reshape`` to
the inferred shape.

What it cannot convert is a ``BackendError`` from ``unsupported``: an operator outside
``KERNELS`` (the target's ``supports`` says so before this runs), a language feature of
control flow, closures, ADTs or references (``supports_feature``), or a *limitation* named
``OP:DTYPE`` (an operator on a dtype onnxruntime has no kernel for), ``dynamic-shape`` (a
``?`` dimension) or ``recursion``, which the target also declares through
``supports_feature``, so the conformance kit skips such programs instead of failing them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np
from onnx import helper, numpy_helper

from relay.semantics.ops.reduce import reduce_axes
from relay.semantics.syntax import (
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    IRModule,
    Let,
    Op,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    Var,
)
from relay.semantics.typing import TypeInfo, infer_types
from relay.targets.base import unsupported

OPSET = 17
"""The ONNX opset of the models made here."""

TARGET = "onnxruntime"

FLOATS = frozenset({"float32", "float64"})
NUMBERS = FLOATS | {"int32", "int64"}
ALL = NUMBERS | {"bool"}

# Relay operator -> (ONNX operator, the input dtypes onnxruntime's CPU kernels take)
KERNELS: dict[str, tuple[str, frozenset[str]]] = {
    "add": ("Add", NUMBERS),
    "subtract": ("Sub", NUMBERS),
    "multiply": ("Mul", NUMBERS),
    "divide": ("Div", FLOATS),
    "maximum": ("Max", NUMBERS),
    "minimum": ("Min", NUMBERS),
    "negative": ("Neg", NUMBERS),
    "abs": ("Abs", NUMBERS),
    "exp": ("Exp", FLOATS),
    "log": ("Log", FLOATS),
    "sqrt": ("Sqrt", FLOATS),
    "tanh": ("Tanh", FLOATS),
    "sigmoid": ("Sigmoid", FLOATS),
    "floor": ("Floor", FLOATS),
    "ceil": ("Ceil", FLOATS),
    "nn.relu": ("Relu", FLOATS),
    "equal": ("Equal", ALL),
    "not_equal": ("Equal", ALL),
    "rsqrt": ("Sqrt", FLOATS),
    "sign": ("Sign", NUMBERS),
    "sin": ("Sin", FLOATS),
    "cos": ("Cos", FLOATS),
    "erf": ("Erf", FLOATS),
    "clip": ("Clip", NUMBERS),
    "nn.leaky_relu": ("LeakyRelu", FLOATS),
    "stack": ("Concat", ALL),
    "less": ("Less", NUMBERS),
    "greater": ("Greater", NUMBERS),
    "less_equal": ("LessOrEqual", NUMBERS),
    "greater_equal": ("GreaterOrEqual", NUMBERS),
    "logical_and": ("And", frozenset({"bool"})),
    "logical_or": ("Or", frozenset({"bool"})),
    "logical_not": ("Not", frozenset({"bool"})),
    "where": ("Where", ALL),
    "cast": ("Cast", ALL),
    "nn.softmax": ("Softmax", FLOATS),
    "nn.log_softmax": ("LogSoftmax", FLOATS),
    "mod": ("Mod", NUMBERS),
    "nn.dense": ("MatMul", NUMBERS),
    "transpose": ("Transpose", ALL),
    "reshape": ("Reshape", ALL),
    "expand_dims": ("Reshape", ALL),
    "squeeze": ("Reshape", ALL),
    "concatenate": ("Concat", ALL),
    "sum": ("ReduceSum", NUMBERS),
    "max": ("ReduceMax", NUMBERS),
    "min": ("ReduceMin", NUMBERS),
    "mean": ("ReduceMean", FLOATS),
}
"""Every operator this target converts."""

Value: TypeAlias = "str | list[Value]"
"""A converted expression: the name of an ONNX value, or a tuple of converted values."""


@dataclass
class Converted:
    """An ONNX model and how to feed and read it: the number of tensors each parameter
    flattens to, and the tuple structure of the result."""

    model: bytes
    inputs: list[str]
    result: Value


@dataclass
class _Graph:
    types: TypeInfo
    mod: IRModule
    nodes: list[Any] = field(default_factory=list)
    initializers: list[Any] = field(default_factory=list)
    count: int = 0
    inlining: list[str] = field(default_factory=list)

    def fresh(self, hint: str) -> str:
        self.count += 1
        return f"{hint.replace('.', '_')}_{self.count}"

    def node(self, op: str, inputs: Sequence[str], **attrs: Any) -> str:
        out = self.fresh(op.lower())
        self.nodes.append(helper.make_node(op, list(inputs), [out], **attrs))
        return out

    def const(self, array: np.ndarray[Any, Any]) -> str:
        name = self.fresh("const")
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name


def _tensor_type(t: Type, e: Expr) -> TensorType:
    if not isinstance(t, TensorType):
        raise unsupported(TARGET, "closures", "only tensors and tuples of tensors", e.span)
    if not all(isinstance(d, int) for d in t.shape):
        raise unsupported(TARGET, "dynamic-shape", "static shapes only", e.span)
    return t


def _flatten_type(t: Type, e: Expr) -> list[TensorType]:
    if isinstance(t, TupleType):
        return [leaf for f in t.fields for leaf in _flatten_type(f, e)]
    return [_tensor_type(t, e)]


def _static(t: TensorType) -> list[int]:
    return [d for d in t.shape if isinstance(d, int)]  # all of them: see _tensor_type


def _shape(g: _Graph, e: Expr) -> tuple[int, ...]:
    return tuple(_static(_tensor_type(g.types.type_of(e), e)))


def _dtype(g: _Graph, e: Expr) -> str:
    return _tensor_type(g.types.type_of(e), e).dtype


def to_onnx(mod: IRModule, entry: str = "main") -> Converted:
    """The ONNX model of ``@entry`` (see the module docstring)."""
    types = infer_types(mod)
    fn = mod[entry]
    g = _Graph(types, mod)
    env: dict[Var, Value] = {}
    graph_inputs = []
    input_names: list[str] = []
    for p in fn.params:
        # An unused parameter has no entry in the side table: its annotation is its type.
        param_type = types.expr_types.get(p) or p.type_annotation
        if param_type is None:
            raise unsupported(TARGET, "dynamic-shape", "an unused, unannotated parameter", p.span)
        leaves = _flatten_type(param_type, p)
        names = [g.fresh(p.name_hint or "arg") for _ in leaves]
        for name, t in zip(names, leaves, strict=True):
            graph_inputs.append(_value_info(name, t))
        input_names += names
        env[p] = _rebuild(param_type, iter(names))
    result = _convert(g, fn.body, env)
    outputs = []
    for leaf, t in zip(_leaves(result), _flatten_type(types.type_of(fn.body), fn.body),
                       strict=True):  # fmt: skip
        name = g.node("Identity", [leaf])  # an output may repeat, or be an input
        outputs.append(_value_info(name, t))
    graph = helper.make_graph(g.nodes, entry, graph_inputs, outputs, g.initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8
    output_names = iter(o.name for o in outputs)
    return Converted(model.SerializeToString(), input_names, _restructure(result, output_names))


def _value_info(name: str, t: TensorType) -> Any:
    dtype = helper.np_dtype_to_tensor_dtype(np.dtype(t.dtype))
    return helper.make_tensor_value_info(name, dtype, _static(t))


def _rebuild(t: Type, names: Any) -> Value:
    if isinstance(t, TupleType):
        return [_rebuild(f, names) for f in t.fields]
    return str(next(names))


def _leaves(v: Value) -> list[str]:
    return [v] if isinstance(v, str) else [leaf for f in v for leaf in _leaves(f)]


def _restructure(v: Value, names: Any) -> Value:
    return str(next(names)) if isinstance(v, str) else [_restructure(f, names) for f in v]


def _convert(g: _Graph, e: Expr, env: dict[Var, Value]) -> Value:
    env = dict(env)
    while isinstance(e, Let):  # let-chains are long: a loop, not recursion
        env[e.var] = _convert(g, e.value, env)
        e = e.body
    match e:
        case Var():
            return env[e]
        case Constant(data):
            if data.dtype.name not in ALL:
                raise unsupported(TARGET, f"constant:{data.dtype.name}", "no such dtype", e.span)
            return g.const(data)
        case Tuple(fields):
            return [_convert(g, f, env) for f in fields]
        case TupleGetItem(tup, index):
            value = _convert(g, tup, env)
            assert isinstance(value, list)
            return value[index]
        case Call(Op(name), args):
            return _call_op(g, e, name, [_convert(g, a, env) for a in args], args)
        case Call(GlobalVar(name), args):
            if name in g.inlining:
                raise unsupported(TARGET, "recursion", "dataflow programs only", e.span)
            callee = g.mod[name]
            values = [_convert(g, a, env) for a in args]
            g.inlining.append(name)
            try:
                return _convert(g, callee.body, dict(zip(callee.params, values, strict=True)))
            finally:
                g.inlining.pop()
        case Function():
            raise unsupported(TARGET, "closures", "dataflow programs only", e.span)
        case _:
            raise unsupported(TARGET, "closures", f"no {type(e).__name__} in a dataflow "
                              "program", e.span)  # fmt: skip


Builder = Callable[[_Graph, Call, list[Value], Sequence[Expr]], str]


def _call_op(g: _Graph, e: Call, name: str, inputs: list[Value], args: Sequence[Expr]) -> str:
    onnx_op, dtypes = KERNELS[name]
    typed = args[1] if name == "where" else args[0]
    dtype = _dtype(g, typed) if not isinstance(inputs[0], list) else _dtype(g, e)
    if dtype not in dtypes:
        raise unsupported(TARGET, f"{name}:{dtype}", "onnxruntime has no kernel", e.span)
    builder = _BUILDERS.get(name)
    if builder is not None:
        return builder(g, e, inputs, args)
    return g.node(onnx_op, [str(v) for v in inputs])


def _cast(g: _Graph, e: Call, inputs: list[Value], args: Sequence[Expr]) -> str:
    to = _dtype(g, e)
    if to not in ALL:
        raise unsupported(TARGET, f"cast:{to}", "onnxruntime has no kernel", e.span)
    return g.node("Cast", [str(inputs[0])], to=helper.np_dtype_to_tensor_dtype(np.dtype(to)))


def _reshape(g: _Graph, e: Call, inputs: list[Value], args: Sequence[Expr]) -> str:
    shape = g.const(np.array(_shape(g, e), np.int64))
    return g.node("Reshape", [str(inputs[0]), shape])


def _softmax(g: _Graph, e: Call, inputs: list[Value], args: Sequence[Expr]) -> str:
    onnx_op = KERNELS[e.op.name][0]  # type: ignore[union-attr]
    return g.node(onnx_op, [str(inputs[0])], axis=e.attrs.axis)  # type: ignore[union-attr]


def _mod(g: _Graph, e: Call, inputs: list[Value], args: Sequence[Expr]) -> str:
    """Relay's ``mod`` truncates (the remainder has the dividend's sign): ONNX's ``fmod=1``."""
    return g.node("Mod", [str(v) for v in inputs], fmod=1)


def _transpose(g: _Graph, e: Call, inputs: list[Value], args: Sequence[Expr]) -> str:
    ndim = len(_shape(g, args[0]))
    axes = e.attrs.axes  # type: ignore[union-attr]
    if ndim == 0:  # a scalar: onnx.helper cannot type an empty ``perm`` attribute
        return g.node("Identity", [str(inputs[0])])
    perm = list(reversed(range(ndim))) if axes is None else [a % ndim for a in axes]
    return g.node("Transpose", [str(inputs[0])], perm=perm)


def _concatenate(g: _Graph, e: Call, inputs: list[Value], args: Sequence[Expr]) -> str:
    fields = inputs[0]
    assert isinstance(fields, list)
    ndim = len(_shape(g, e))
    return g.node("Concat", [str(f) for f in fields], axis=e.attrs.axis % ndim)  # type: ignore[union-attr]


def _dense(g: _Graph, e: Call, inputs: list[Value], args: Sequence[Expr]) -> str:
    data, weight = str(inputs[0]), str(inputs[1])
    out = _dtype(g, e)
    if out != _dtype(g, args[0]):  # both operands are cast to the output dtype first
        to = helper.np_dtype_to_tensor_dtype(np.dtype(out))
        data, weight = g.node("Cast", [data], to=to), g.node("Cast", [weight], to=to)
    return g.node("MatMul", [data, g.node("Transpose", [weight], perm=[1, 0])])


def _reduce(g: _Graph, e: Call, inputs: list[Value], args: Sequence[Expr]) -> str:
    ndim = len(_shape(g, args[0]))
    attrs = e.attrs
    axes = list(reduce_axes(ndim, attrs.axis, attrs.exclude))  # type: ignore[union-attr]
    if not axes:  # no axis reduced: the input unchanged
        return g.node("Identity", [str(inputs[0])])
    keep = int(attrs.keepdims)  # type: ignore[union-attr]
    onnx_op = KERNELS[e.op.name][0]  # type: ignore[union-attr]
    if onnx_op == "ReduceSum":  # since opset 13 its axes are an input
        return g.node(onnx_op, [str(inputs[0]), g.const(np.array(axes, np.int64))],
                      keepdims=keep)  # fmt: skip
    return g.node(onnx_op, [str(inputs[0])], axes=axes, keepdims=keep)


def _not_equal(g: _Graph, e: Call, inputs: list[Value], args: Sequence[Expr]) -> str:
    """Relay's ``!=`` on floats is ordered (LLVM's ``fcmp one``): false when either is NaN,
    so it is ``a < b or a > b``, not ONNX's ``not (a == b)``."""
    names = [str(v) for v in inputs]
    if _dtype(g, args[0]) in FLOATS:
        return g.node("Or", [g.node("Less", names), g.node("Greater", names)])
    return g.node("Not", [g.node("Equal", names)])


def _rsqrt(g: _Graph, e: Call, inputs: list[Value], args: Sequence[Expr]) -> str:
    return g.node("Reciprocal", [g.node("Sqrt", [str(inputs[0])])])


# Relay's maximum and minimum are TVM's selects, ``a > b ? a : b`` and ``a < b ? a : b``: a
# NaN on the left loses (``maximum(NaN, 1f)`` is 1), on the right wins; ONNX's Max and Min
# propagate every NaN. relu, clip and sign are built from the same selects, as TVM's are.


def _select(g: _Graph, compare: str, a: str, b: str) -> str:
    return g.node("Where", [g.node(compare, [a, b]), a, b])


def _maximum(g: _Graph, e: Call, inputs: list[Value], args: Sequence[Expr]) -> str:
    return _select(g, "Greater", str(inputs[0]), str(inputs[1]))


def _minimum(g: _Graph, e: Call, inputs: list[Value], args: Sequence[Expr]) -> str:
    return _select(g, "Less", str(inputs[0]), str(inputs[1]))


def _scalar(g: _Graph, e: Expr, value: float) -> str:
    return g.const(np.array(value).astype(np.dtype(_dtype(g, e))))


def _relu(g: _Graph, e: Call, inputs: list[Value], args: Sequence[Expr]) -> str:
    return _select(g, "Greater", str(inputs[0]), _scalar(g, args[0], 0))


def _clip(g: _Graph, e: Call, inputs: list[Value], args: Sequence[Expr]) -> str:
    """``maximum(minimum(x, a_max), a_min)``: ``clip(NaN)`` is ``a_max``, as in TVM."""
    lo, hi = e.attrs.a_min, e.attrs.a_max  # type: ignore[union-attr]
    upper = _select(g, "Less", str(inputs[0]), _scalar(g, args[0], hi))
    return _select(g, "Greater", upper, _scalar(g, args[0], lo))


def _sign(g: _Graph, e: Call, inputs: list[Value], args: Sequence[Expr]) -> str:
    """``x > 0 ? 1 : x < 0 ? -1 : 0``: ``sign(NaN)`` is 0."""
    x, zero = str(inputs[0]), _scalar(g, args[0], 0)
    one, minus_one = _scalar(g, args[0], 1), _scalar(g, args[0], -1)
    below = g.node("Where", [g.node("Less", [x, zero]), minus_one, zero])
    return g.node("Where", [g.node("Greater", [x, zero]), one, below])


def _leaky_relu(g: _Graph, e: Call, inputs: list[Value], args: Sequence[Expr]) -> str:
    return g.node("LeakyRelu", [str(inputs[0])], alpha=float(e.attrs.alpha))  # type: ignore[union-attr]


def _stack(g: _Graph, e: Call, inputs: list[Value], args: Sequence[Expr]) -> str:
    fields = inputs[0]
    assert isinstance(fields, list)
    out = _shape(g, e)
    axis = e.attrs.axis % len(out)  # type: ignore[union-attr]
    one = [*out[:axis], 1, *out[axis + 1 :]]
    shape = g.const(np.array(one, np.int64))
    return g.node("Concat", [g.node("Reshape", [str(f), shape]) for f in fields], axis=axis)


_BUILDERS: dict[str, Builder] = {
    "maximum": _maximum,
    "minimum": _minimum,
    "nn.relu": _relu,
    "sign": _sign,
    "not_equal": _not_equal,
    "rsqrt": _rsqrt,
    "clip": _clip,
    "nn.leaky_relu": _leaky_relu,
    "stack": _stack,
    "cast": _cast,
    "reshape": _reshape,
    "expand_dims": _reshape,
    "squeeze": _reshape,
    "nn.softmax": _softmax,
    "nn.log_softmax": _softmax,
    "mod": _mod,
    "transpose": _transpose,
    "concatenate": _concatenate,
    "nn.dense": _dense,
    "sum": _reduce,
    "max": _reduce,
    "min": _reduce,
    "mean": _reduce,
}

__all__ = ["KERNELS", "OPSET", "Converted", "to_onnx"]
