"""FakeQuantizationToInteger: float operators between qnn.dequantize and qnn.quantize become
integer qnn operators.

TVM's ``FakeQuantizationToInteger`` (``src/relay/transforms/fake_quantization_to_integer.cc``
and ``python/tvm/relay/transform/fake_quantization_to_integer.py``). A "fake-quantized" graph
dequantizes integer tensors, computes in float, and quantizes the result; the pass computes
in integers instead. Bottom-up, each float value that is an affine image ``s * (q - z)`` of an
integer tensor gets an integer form ``(q, s, z)`` (``s`` a float32 scalar, ``z`` an int32
scalar, both constants, ``s > 0``):

====================================  =======================================================
``qnn.dequantize(q, s, z)``            ``(q, s, z)`` (per-tensor parameters)
``nn.conv2d(A, B)``                    ``(qnn.conv2d(qa, qb, za, zb, sa, sb, out_dtype=int32),
                                       sa * sb, 0)`` (NCHW or NHWC data)
``nn.dense(A, B)``                     ``(qnn.dense(qa, qb, za, zb, sa, sb, out_dtype=int32),
                                       sa * sb, 0)``
``add(A, B)``, ``nn.bias_add(A, B)``   ``(add(qa, qb), sa, 0)`` when both are int32 with zero
                                       points 0 and the same scale (a bias at the accumulator's
                                       scale)
``nn.relu(A)``                         ``(maximum(qa, za), sa, za)``
``nn.max_pool2d``, ``reshape``,        the same operator on ``qa``, at ``(sa, za)`` (they
``transpose``, ``nn.batch_flatten``,   commute with an increasing affine map)
``squeeze``, ``expand_dims``
``qnn.quantize(Y, s, z, out_dtype)``   ``qnn.requantize(qy, sy, zy, s, z, out_dtype)``; for
                                       ``Y = add(A, B)`` of two int8/uint8 forms of the output
                                       dtype: ``qnn.add(qa, qb, sa, za, sb, zb, s, z)``
====================================  =======================================================

A ``qnn.quantize`` whose operand has no integer form is left alone; so is every float value a
non-quantize consumer reads (the float computation stays where it is still used, and dead
code disappears with its last reader).

Meaning. The pass changes rounding: the float program rounds the float result once in
``qnn.quantize``; the integer program sums exactly and rounds once in ``qnn.requantize``
(fixed-point multiplication, round half up). For one layer the two agree up to one unit of
the output's integer grid wherever the float32 sum is within half a unit of the exact one
(``tests/test_fake_quantization_to_integer.py`` holds generated layers to that); like TVM's
pass, it is an approximation that the pass oracle does not hold to equality.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ...semantics.ops.nn.conv import Conv2DAttrs
from ...semantics.ops.nn.dense import DenseAttrs
from ...semantics.syntax import Call, Constant, Expr, Function, IRModule, Op, TensorType
from ...semantics.typing import TypeInfo, infer_types
from ..ir import rewrite_pairs
from ..pass_manager import Pass, register_pass
from .quantize import call

AFFINE_OPS = frozenset(
    {"nn.max_pool2d", "reshape", "transpose", "nn.batch_flatten", "squeeze", "expand_dims"}
)


@dataclass(frozen=True)
class IntForm:
    """The float value ``scale * (q - zero_point)``; ``dtype`` is ``q``'s."""

    q: Expr
    scale: float
    zero_point: int
    dtype: str


def _scalar(e: Expr, kind: str) -> float | int | None:
    """The value of a rank-0 constant of the kind ``"f"`` (float32) or ``"i"`` (int32)."""
    if not isinstance(e, Constant) or e.data.shape != ():
        return None
    if kind == "f" and e.data.dtype == np.float32:
        return float(e.data)
    if kind == "i" and e.data.dtype == np.int32:
        return int(e.data)
    return None


def _f32(v: float) -> Constant:
    return Constant(np.array(v, dtype=np.float32))


def _i32(v: int) -> Constant:
    return Constant(np.array(v, dtype=np.int32))


@dataclass
class Converter:
    """Bottom-up rewriter: ``forms`` maps rewritten float expressions to integer forms."""

    info: TypeInfo
    forms: dict[Expr, IntForm] = field(default_factory=dict)

    def dtype(self, e: Expr) -> str | None:
        t = self.info.expr_types.get(e)
        return t.dtype if isinstance(t, TensorType) else None

    def visit(self, orig: Expr, rebuilt: Expr) -> Expr | None:
        if not (isinstance(orig, Call) and isinstance(orig.op, Op) and isinstance(rebuilt, Call)):
            return None
        name = orig.op.name
        if name == "qnn.quantize":
            return self.quantize(orig, rebuilt)
        form = self.form(orig, rebuilt, name)
        if form is not None:
            self.forms[rebuilt] = form
        return None

    def form(self, orig: Call, e: Call, name: str) -> IntForm | None:
        args = [self.forms.get(a) for a in e.args]
        if name == "qnn.dequantize":
            s, z = _scalar(e.args[1], "f"), _scalar(e.args[2], "i")
            dtype = self.dtype(orig.args[0])
            if s is None or z is None or not s > 0 or dtype is None:
                return None
            return IntForm(e.args[0], float(s), int(z), dtype)
        if name in ("nn.conv2d", "nn.dense") and args[0] is not None and args[1] is not None:
            return self.product(e, args[0], args[1], name)
        if name in ("add", "nn.bias_add") and args[0] is not None and args[1] is not None:
            a, b = args[0], args[1]
            same_type = self.info.expr_types.get(orig) == self.info.expr_types.get(orig.args[0])
            if (
                a.dtype == b.dtype == "int32"
                and a.zero_point == b.zero_point == 0
                and np.float32(a.scale) == np.float32(b.scale)
                and same_type
            ):
                return IntForm(Call(e.op, (a.q, b.q), e.attrs), a.scale, 0, "int32")
            return None
        if name == "nn.relu" and args[0] is not None:
            a = args[0]
            zero = Constant(np.array(a.zero_point, dtype=a.dtype))
            if int(zero.data) != a.zero_point:
                return None
            return IntForm(call("maximum", a.q, zero), a.scale, a.zero_point, a.dtype)
        if name in AFFINE_OPS and len(e.args) == 1 and args[0] is not None:
            a = args[0]
            return IntForm(Call(e.op, (a.q,), e.attrs, e.type_args), a.scale, a.zero_point, a.dtype)
        return None

    def product(self, e: Call, a: IntForm, b: IntForm, name: str) -> IntForm | None:
        if a.dtype not in ("int8", "uint8") or b.dtype not in ("int8", "uint8"):
            return None
        attrs = e.attrs
        if isinstance(attrs, Conv2DAttrs):
            if attrs.data_layout not in ("NCHW", "NHWC") or attrs.out_dtype not in ("", "float32"):
                return None
        elif isinstance(attrs, DenseAttrs):
            if attrs.out_dtype not in ("", "float32"):
                return None
        else:
            return None
        new_attrs = replace(attrs, out_dtype="int32")
        q = Call(
            Op(f"qnn.{name.removeprefix('nn.')}"),
            (a.q, b.q, _i32(a.zero_point), _i32(b.zero_point), _f32(a.scale), _f32(b.scale)),
            new_attrs,
        )
        return IntForm(q, float(np.float32(a.scale) * np.float32(b.scale)), 0, "int32")

    def quantize(self, orig: Call, e: Call) -> Expr | None:
        y = e.args[0]
        s, z = _scalar(e.args[1], "f"), _scalar(e.args[2], "i")
        out_dtype = self.dtype(orig)
        if s is None or z is None or out_dtype is None:
            return None
        form = self.forms.get(y)
        if form is not None:
            return call(
                "qnn.requantize",
                form.q,
                _f32(form.scale),
                _i32(form.zero_point),
                e.args[1],
                e.args[2],
                out_dtype=out_dtype,
            )
        match y:
            case Call(Op(name="add"), (lhs, rhs)):
                a, b = self.forms.get(lhs), self.forms.get(rhs)
                if a is None or b is None or not a.dtype == b.dtype == out_dtype:
                    return None
                if out_dtype not in ("int8", "uint8"):
                    return None
                return call(
                    "qnn.add",
                    a.q,
                    b.q,
                    _f32(a.scale),
                    _i32(a.zero_point),
                    _f32(b.scale),
                    _i32(b.zero_point),
                    e.args[1],
                    e.args[2],
                )
        return None


def fake_quantization_to_integer(mod: IRModule) -> IRModule:
    """Every function of ``mod`` rewritten (the module docstring)."""
    info = infer_types(mod)
    converter = Converter(info)
    fns: dict[object, Function] = {}
    changed = False
    for gv, fn in mod.functions.items():
        body = rewrite_pairs(fn.body, converter.visit)
        changed |= body is not fn.body
        fns[gv] = fn if body is fn.body else replace(fn, body=body)
    if not changed:
        return mod
    return IRModule(fns, mod.type_definitions)  # type: ignore[arg-type]


@register_pass
@dataclass(frozen=True)
class FakeQuantizationToInteger(Pass):
    """Replace float computations between ``qnn.dequantize`` and ``qnn.quantize`` by integer
    ``qnn`` operators (the module docstring).

    Pre: well-typed. Post: well-typed, the same global types; results equal up to the
    rounding the module docstring bounds (not held to equality by ``relay fuzz``).
    """

    opt_level = 4
    approximate = True
    focus_ops = frozenset({"qnn.quantize", "qnn.dequantize", "nn.conv2d", "nn.dense"})

    def transform(self, mod: IRModule) -> IRModule:
        return fake_quantization_to_integer(mod)


__all__ = ["FakeQuantizationToInteger", "IntForm", "fake_quantization_to_integer"]
