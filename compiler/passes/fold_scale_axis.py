"""FoldScaleAxis: fold a per-channel constant scale into the weight of a convolution or dense.

TVM 0.18's ``FoldScaleAxis`` (``src/relay/transforms/fold_scale_axis.cc``, opt level 3) runs a
forward and a backward analysis. Forward, a ``multiply`` by a per-channel constant that flows
(through positively homogeneous operators) into the data of ``nn.conv2d`` or ``nn.dense`` is
moved into the weight's input-channel axis; backward, a ``multiply`` by a per-channel constant
applied to the output of ``nn.conv2d`` or ``nn.dense`` (through bias additions and positively
homogeneous operators) is moved into the weight's output-channel axis. The weight becomes
``multiply(w, f)`` with ``f`` a constant that broadcasts to the weight's shape; ``FoldConstant``
folds it when the weight is a constant, so the multiplication disappears from the program.

Notation: ``s`` is a ``Constant`` operand of ``multiply`` whose shape, right-aligned against
the other operand's shape, has extent 1 on every axis except perhaps the channel axis ``c``
(so multiplying neither changes the shape nor mixes channels); ``v`` is ``s`` broadcast to a
vector over the ``C`` channels. The rules::

    conv2d(multiply(x, s), w)          -> conv2d(x, multiply(w, f_in(v)))
    conv2d(relu(multiply(x, s)), w)    -> conv2d(relu(x), multiply(w, f_in(v)))     all v > 0
    dense(multiply(x, s), w)           -> dense(x, multiply(w, v[None, :]))      (also relu)
    multiply(conv2d(x, w), s)          -> conv2d(x, multiply(w, f_out(v)))
    multiply(dense(x, w), s)           -> dense(x, multiply(w, v[:, None]))
    multiply(relu(y), s)               -> relu(multiply(y, s)), continued below y      all v > 0
    multiply(bias_add(y, b), s)        -> bias_add(multiply(y, s), multiply(b, v))     axis = c
    multiply(add(y, b), s)             -> add(multiply(y, s), multiply(b, s))
    multiply(subtract(y, b), s)        -> subtract(multiply(y, s), multiply(b, s))    (either side)

``relu`` stands for ``nn.relu`` and ``nn.leaky_relu`` (positively homogeneous: ``relu(x * a) =
relu(x) * a`` exactly when ``a > 0``; TVM folded through them only for positive scales and so
does this pass, checking the constant's values). A forward chain is the data of the
convolution; a backward chain ends in a convolution or dense whose output reaches the
``multiply`` only through the listed operators. ``f_in`` puts ``v[i]`` on every weight element
that multiplies input channel ``i``, ``f_out`` puts ``v[o]`` on every weight element that
produces output channel ``o``: for a plain or grouped convolution that is the weight's I
(input channels of the group) or O axis, for a depthwise convolution with channel multiplier
``m`` (TVM's weight ``(C, m, kh, kw)``) it is the weight's first axis and ``o = c * m + q``.

Side conditions, all checked:

- the scale is a finite, non-zero float constant (a zero scale would turn an overflowing
  ``inf * 0`` into ``0`` or back; infinities do the same), and for the ``relu`` rules every
  element of ``v`` is positive;
- data, weight, scale and result of the convolution or dense share one float dtype (no
  ``out_dtype`` widening: rounding the scaled data in a narrower type is not what rounding
  the scaled weight does, so the difference would exceed rounding of the result); integer
  dtypes are never folded — ``(x * s) * w`` and ``x * (w * s)`` overflow at different inputs,
  and signed overflow is undefined;
- the channel count and the weight's shape are static;
- every node of the chain other than the outer ``multiply`` has exactly one use, so the
  rewritten nodes replace, rather than duplicate, the computation (TVM required all consumers
  of a scaled value to agree; a value with one consumer is the case that mattered);
- every node of the chain, and the multiply's result, has the same type as the convolution's
  (or dense's) side of it, so the rewritten program has the same types.

Deliberate differences from TVM: the forward rules do not pass through ``add``: TVM rewrote
``conv2d(add(multiply(x, s), b), w)`` with ``b / s``, a division this pass avoids; ``f_in`` is
computed for grouped convolutions too (TVM folded forward only into plain and depthwise ones).
The rewrites reassociate floating-point products (``(x * s) * w`` against ``x * (w * s)``) and
distribute ``s`` over additions, so results agree up to rounding, which the oracle's float
tolerance allows, as it did for TVM's pass.

The pass works on operator calls nested directly (dataflow form); a chain broken by a
``let``-bound variable is left alone. It rebuilds only the chain's nodes; evaluation order of
the remaining operands is unchanged (the scale and the new factors are constants).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from ...semantics.ops.nn.conv import Conv2DAttrs
from ...semantics.ops.nn.dense import BiasAddAttrs, DenseAttrs
from ...semantics.syntax import (
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    IRModule,
    Op,
    TensorType,
    children,
    post_order,
)
from ...semantics.typing import TypeInfo, infer_types
from ..ir import map_functions, rewrite_pairs
from ..pass_manager import Pass, register_pass

POSITIVE_HOMOGENEOUS = frozenset({"nn.relu", "nn.leaky_relu"})
"""Operators with ``op(x * a) = op(x) * a`` for every ``a > 0``."""

FLOAT_DTYPES = frozenset({"float16", "float32", "float64"})

Array = npt.NDArray[Any]
"""A float array (its element type varies with the dtype)."""


def use_counts(root: Expr) -> dict[int, int]:
    """How many parent edges point at each node (a shared node's parent counts once per
    edge)."""
    counts: dict[int, int] = {}
    for e in post_order(root):
        for c in children(e):
            counts[id(c)] = counts.get(id(c), 0) + 1
    return counts


def op_call(e: Expr, *names: str) -> Call | None:
    """``e`` if it is a call of one of the operators ``names``."""
    if isinstance(e, Call) and isinstance(e.op, Op) and e.op.name in names:
        return e
    return None


def op_name(e: Expr) -> str | None:
    """The operator ``e`` calls, if it is an operator call."""
    if isinstance(e, Call) and isinstance(e.op, Op):
        return e.op.name
    return None


def static_tensor(t: object) -> TensorType | None:
    """``t`` if it is a tensor type whose dimensions are all known integers."""
    if isinstance(t, TensorType) and all(isinstance(d, int) for d in t.shape):
        return t
    return None


def channel_vector(scale: Constant, t: TensorType, axis: int) -> Array | None:
    """``scale`` as a vector over the channels (axis ``axis`` of ``t``), if multiplying a tensor
    of type ``t`` by it scales each channel by one finite, non-zero float and keeps ``t``'s
    shape; else ``None``."""
    data = scale.data
    channels = t.shape[axis]
    if data.dtype.name != t.dtype or t.dtype not in FLOAT_DTYPES or not isinstance(channels, int):
        return None
    rank = len(t.shape)
    if data.ndim > rank:
        return None
    offset = rank - data.ndim
    for i, extent in enumerate(data.shape):
        if extent != 1 and not (i + offset == axis and extent == channels):
            return None
    if not np.all(np.isfinite(data)) or np.any(data == 0):
        return None
    return np.ascontiguousarray(np.broadcast_to(data.reshape(-1), (channels,)))


def scaled_operand(mul: Call) -> tuple[int, Constant] | None:
    """For ``multiply(y, s)`` or ``multiply(s, y)`` with a constant ``s`` (and ``y`` not one):
    the index of ``y`` and ``s``."""
    a, b = mul.args
    if isinstance(b, Constant) and not isinstance(a, Constant):
        return 0, b
    if isinstance(a, Constant) and not isinstance(b, Constant):
        return 1, a
    return None


# ---------------------------------------------------------------------------------------------
# The weights


@dataclass(frozen=True)
class Folding:
    """A convolution or dense that can take a fold: where its channels are, its weight's shape
    in canonical order (OIHW, or (units, k) for dense) and how to lay a factor out in the
    weight's layout."""

    call: Call
    data_channel_axis: int
    out_channel_axis: int
    in_channels: int
    weight_oi: tuple[int, int]
    groups: int
    kernel_layout: str  # "" for dense

    def in_channel_of(self) -> npt.NDArray[np.intp]:
        """The input channel each canonical weight element ``[o, i]`` multiplies."""
        o_count, i_count = self.weight_oi
        o = np.arange(o_count)[:, None]
        i = np.arange(i_count)[None, :]
        if self.depthwise_multiplier():
            return np.broadcast_to(o, self.weight_oi)
        per_group_out = o_count // self.groups
        per_group_in = self.in_channels // self.groups
        return np.asarray((o // per_group_out) * per_group_in + i)

    def out_channel_of(self) -> npt.NDArray[np.intp]:
        """The output channel each canonical weight element ``[o, i]`` produces."""
        o_count, i_count = self.weight_oi
        o = np.arange(o_count)[:, None]
        i = np.arange(i_count)[None, :]
        if self.depthwise_multiplier():
            return np.asarray(o * i_count + i)
        return np.broadcast_to(o, self.weight_oi)

    def depthwise_multiplier(self) -> bool:
        """TVM's depthwise weight ``(C, m, kh, kw)`` (the reference's reading of it)."""
        return self.groups > 1 and self.weight_oi[1] != self.in_channels // self.groups

    def factor(self, per_element: Array) -> Constant:
        """A constant of the weight's rank holding ``per_element`` (indexed ``[o, i]``),
        broadcasting along the other axes, in the weight's layout."""
        # Keep a unit axis where the factor does not vary, so the constant stays small.
        if np.all(per_element == per_element[:1, :]):
            per_element = per_element[:1, :]
        if np.all(per_element == per_element[:, :1]):
            per_element = per_element[:, :1]
        if not self.kernel_layout:
            return Constant(np.ascontiguousarray(per_element))
        canonical = per_element[:, :, None, None]
        order = tuple("OIHW".index(axis) for axis in self.kernel_layout)
        return Constant(np.ascontiguousarray(np.transpose(canonical, order)))


def folding(call: Call, info: TypeInfo) -> Folding | None:
    """``call`` as a ``Folding`` if it is an ``nn.conv2d`` or ``nn.dense`` whose data, weight
    and result share one float dtype and whose weight's shape and channels are static."""
    if op_call(call, "nn.conv2d", "nn.dense") is None:
        return None
    data_t = static_tensor(info.expr_types.get(call.args[0]))
    weight_t = static_tensor(info.expr_types.get(call.args[1]))
    out_t = info.expr_types.get(call)
    if data_t is None or weight_t is None or not isinstance(out_t, TensorType):
        return None
    if data_t.dtype not in FLOAT_DTYPES or not data_t.dtype == weight_t.dtype == out_t.dtype:
        return None
    attrs = call.attrs
    if isinstance(attrs, DenseAttrs):
        units, k = weight_t.shape
        assert isinstance(units, int) and isinstance(k, int)
        rank = len(data_t.shape)
        return Folding(call, rank - 1, rank - 1, k, (units, k), 1, "")
    assert isinstance(attrs, Conv2DAttrs)
    canonical = tuple(weight_t.shape[attrs.kernel_layout.index(axis)] for axis in "OIHW")
    channels = data_t.shape[attrs.data_layout.index("C")]
    assert isinstance(canonical[0], int) and isinstance(canonical[1], int)
    assert isinstance(channels, int)
    out_layout = attrs.out_layout or attrs.data_layout
    return Folding(
        call,
        attrs.data_layout.index("C"),
        out_layout.index("C"),
        channels,
        (canonical[0], canonical[1]),
        attrs.groups,
        attrs.kernel_layout,
    )


def scale_weight(new_call: Call, fold: Folding, per_element: Array) -> Call:
    """``new_call`` (the rebuilt convolution or dense) with weight ``multiply(w, factor)``."""
    data, weight = new_call.args
    scaled = Call(Op("multiply"), (weight, fold.factor(per_element)), None, span=weight.span)
    return replace(new_call, args=(data, scaled))


# ---------------------------------------------------------------------------------------------
# The rules


@dataclass
class Folder:
    """The rules, for one global function with its types and use counts."""

    info: TypeInfo
    uses: dict[int, int]

    def single(self, e: Expr) -> bool:
        return self.uses.get(id(e), 0) == 1

    def forward(self, original: Call, rebuilt: Call) -> Expr | None:
        """``conv2d(relu*(multiply(x, s)), w) -> conv2d(relu*(x), multiply(w, f_in(v)))``, and
        the same for ``dense``."""
        fold = folding(original, self.info)
        if fold is None:
            return None
        # Walk down the original data chain, and the rebuilt one beside it.
        node, new = original.args[0], rebuilt.args[0]
        path: list[Call] = []
        while True:
            step = op_call(node, *POSITIVE_HOMOGENEOUS)
            new_step = op_call(new, *POSITIVE_HOMOGENEOUS)
            if step is None or new_step is None or not self.single(step):
                break
            if op_name(new_step) != op_name(step):
                return None
            path.append(new_step)
            node, new = step.args[0], new_step.args[0]
        mul, new_mul = op_call(node, "multiply"), op_call(new, "multiply")
        if mul is None or new_mul is None or not self.single(mul):
            return None
        operand = scaled_operand(mul)
        data_t = self.info.expr_types.get(mul)
        if operand is None or not isinstance(data_t, TensorType):
            return None
        index, scale = operand
        if self.info.expr_types.get(mul.args[index]) != data_t:
            return None
        v = channel_vector(scale, data_t, fold.data_channel_axis)
        if v is None or (path and not np.all(v > 0)):
            return None
        data: Expr = new_mul.args[index]
        for step_call in reversed(path):
            data = replace(step_call, args=(data,))
        out = scale_weight(rebuilt, fold, v[fold.in_channel_of()])
        return replace(out, args=(data, out.args[1]))

    def backward(self, original: Call, rebuilt: Call) -> Expr | None:
        """``multiply(chain(conv2d(x, w)), s) -> chain'(conv2d(x, multiply(w, f_out(v))))``,
        the chain of bias additions and positively homogeneous operators (module docstring)."""
        operand = scaled_operand(original)
        out_t = self.info.expr_types.get(original)
        if operand is None or not isinstance(out_t, TensorType):
            return None
        index, scale = operand
        node, new = original.args[index], rebuilt.args[index]
        if self.info.expr_types.get(node) != out_t:
            return None
        # The chain, top down: (original step, rebuilt step, index of the continuing operand).
        path: list[tuple[Call, Call, int]] = []
        while True:
            if not self.single(node) or not isinstance(node, Call) or not isinstance(new, Call):
                return None
            if op_name(node) is None or op_name(node) != op_name(new):
                return None
            if op_name(node) in ("nn.conv2d", "nn.dense"):
                break
            below = self.continuing_operand(node, out_t)
            if below is None:
                return None
            path.append((node, new, below))
            node, new = node.args[below], new.args[below]
        assert isinstance(node, Call) and isinstance(new, Call)
        fold = folding(node, self.info)
        if fold is None:
            return None
        v = channel_vector(scale, out_t, fold.out_channel_axis)
        if v is None:
            return None
        for step, _, _ in path:
            if op_name(step) in POSITIVE_HOMOGENEOUS and not np.all(v > 0):
                return None
            if isinstance(step.attrs, BiasAddAttrs):
                rank = len(out_t.shape)
                if step.attrs.axis % rank != fold.out_channel_axis:
                    return None
        result: Expr = scale_weight(new, fold, v[fold.out_channel_of()])
        for step, new_step, below in reversed(path):
            result = self.rebuild_step(step, new_step, below, result, scale, v)
        return result

    def continuing_operand(self, node: Call, t: TensorType) -> int | None:
        """Which operand of chain step ``node`` (of type ``t``) the backward chain continues
        through, or ``None`` if the step cannot carry a scale."""
        name = op_name(node)
        if name in POSITIVE_HOMOGENEOUS or name == "nn.bias_add":
            return 0
        if name in ("add", "subtract"):
            candidates = [
                i
                for i, arg in enumerate(node.args)
                if self.info.expr_types.get(arg) == t and op_name(arg) is not None
            ]
            # Prefer the operand that is the convolution itself, then the first.
            for i in candidates:
                if op_call(node.args[i], "nn.conv2d", "nn.dense") is not None:
                    return i
            return candidates[0] if candidates else None
        return None

    def rebuild_step(
        self, step: Call, new_step: Call, below: int, result: Expr, scale: Constant, v: Array
    ) -> Expr:
        """One step of the backward chain, over the already scaled ``result``."""
        name = op_name(step)
        if name in POSITIVE_HOMOGENEOUS:
            return replace(new_step, args=(result,))
        if name == "nn.bias_add":
            bias = new_step.args[1]
            scaled_bias = Call(Op("multiply"), (bias, Constant(v.astype(scale.data.dtype))), None)
            return replace(new_step, args=(result, scaled_bias))
        # add / subtract: the other operand is scaled by s as it is.
        other = 1 - below
        args = list(new_step.args)
        args[below] = result
        args[other] = Call(Op("multiply"), (new_step.args[other], scale), None)
        return replace(new_step, args=tuple(args))

    def visit(self, original: Expr, rebuilt: Expr) -> Expr | None:
        if not isinstance(original, Call) or not isinstance(rebuilt, Call):
            return None
        if op_call(original, "nn.conv2d", "nn.dense") and op_call(rebuilt, "nn.conv2d", "nn.dense"):
            return self.forward(original, rebuilt)
        if op_call(original, "multiply") and op_call(rebuilt, "multiply"):
            return self.backward(original, rebuilt)
        return None


def fold_scales(fn: Function, info: TypeInfo) -> Function:
    """``fn`` with every fold of the module docstring applied."""
    folder = Folder(info, use_counts(fn))
    out = rewrite_pairs(fn, folder.visit)
    assert isinstance(out, Function)
    return out


@register_pass
@dataclass(frozen=True)
class FoldScaleAxis(Pass):
    """Fold per-channel constant scales into convolution and dense weights (forward into the
    input channels, backward into the output channels).

    Pre: well-typed. Post: same types; values equal up to float rounding; a ``multiply`` by a
    per-channel constant next to an ``nn.conv2d`` or ``nn.dense`` (through the operators of the
    module docstring, each used once) is replaced by ``multiply(weight, factor)``.
    """

    opt_level = 3
    focus_ops = frozenset(
        {"nn.conv2d", "nn.dense", "multiply", "nn.relu", "nn.bias_add", "add", "subtract"}
    )

    def transform(self, mod: IRModule) -> IRModule:
        info = infer_types(mod)

        def one(_: GlobalVar, fn: Function) -> Function:
            return fold_scales(fn, info)

        return map_functions(mod, one)
