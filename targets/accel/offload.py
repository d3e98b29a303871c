"""Which primitive functions run on the accelerator, and how (``match_region``).

A fused primitive function is offloaded when it is an *anchor* followed by an elementwise
*tail*, each tail operation applied to the previous result and a constant or a parameter:

- anchor: ``nn.conv2d`` (``groups=1``, int8 data and weights, ``out_dtype="int32"``) in layout
  ``NCHW``/``OIHW`` or the packed ``NCHW1n16c``/``OIHW16o16i`` that ``graph_pack`` makes, or
  ``nn.dense`` (int8 × int8 → int32), its inputs parameters or constants;
- tail: ``add``, ``multiply``, ``maximum``, ``minimum`` (with an operand on either side: a
  parameter, a constant, or an int8 parameter cast to int32, as a residual connection is),
  ``right_shift`` (the shifted value on the left), ``clip``, ``nn.relu``, ``cast`` between
  int8 and int32.

Each tail operation becomes ALU steps (``codegen.AluStep``) on int32 accumulators that hold
the exact value of the Relay expression: a scalar constant that fits 16 signed bits is an
immediate, any other operand a tensor loaded into the accumulator (per output channel when it
varies along the channel axes only, else per output element); ``clip`` is MIN then MAX, as its
semantics (``minimum`` then ``maximum`` with the bounds truncated to the dtype) says;
``nn.relu`` is MAX 0; a ``cast`` to int8 whose operand may fall outside int8 is the pair
``SHR -24`` (a left shift) then ``SHR 24``, which wraps to the low 8 bits and sign-extends, as
the cast does; an int8 ``add`` or ``multiply`` that may leave int8 gets the same pair. Value
ranges are tracked through the tail (``Range``) so that these pairs appear only where a value
may need them. The accelerator stores the low 8 bits of each accumulator: the result must be
int8, or an int32 whose range lies in int8 (the host sign-extends it).

Anything else (another anchor, a tail operation the ALU lacks, an operand that depends on the
anchor's result, a layer the buffers cannot hold) runs on the CPU target; ``match_region``
returns why, and the instruction listing says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import numpy.typing as npt

from ...semantics.ops.elementwise import CastAttrs, ClipAttrs
from ...semantics.ops.nn.conv import Conv2DAttrs
from ...semantics.ops.nn.dense import DenseAttrs
from ...semantics.syntax import Call, Constant, Expr, Function, IRModule, Op, TensorType, Var
from .codegen import AluStep, Layer
from .isa import AluOp

Array = npt.NDArray[np.generic]
Source = int | Array
"""Where a tensor comes from: the index of a parameter of the primitive function, or the
value of a constant in it."""

SourceOf = Callable[[Expr], Source | None]

INT32 = (-(1 << 31), (1 << 31) - 1)
INT8 = (-128, 127)


@dataclass(frozen=True)
class Range:
    """An interval the int32 accumulator value is known to lie in."""

    lo: int
    hi: int

    def clamp32(self) -> Range:
        """This range, or all of int32 if it leaves int32 (the arithmetic wrapped)."""
        if self.lo < INT32[0] or self.hi > INT32[1]:
            return Range(*INT32)
        return self

    def within(self, bounds: tuple[int, int]) -> bool:
        """Whether every value lies in ``bounds``."""
        return bounds[0] <= self.lo and self.hi <= bounds[1]


@dataclass(frozen=True)
class Operand:
    """A tensor operand of the tail: where it comes from, its shape, and whether it varies
    per output channel only."""

    source: Source
    shape: tuple[int, ...]
    per: Literal["channel", "element"]


@dataclass
class Region:
    """An offloadable primitive function: the layer, where its data and weights come from,
    the tail's operands, and the layouts of its inputs and output."""

    kind: Literal["conv2d", "dense", "conv2d-packed"]
    layer: Layer
    data: Source
    weight: Source
    operands: list[Operand] = field(default_factory=list)
    out_shape: tuple[int, ...] = ()
    out_dtype: str = "int8"


class NoMatch(Exception):
    """Why a primitive function is not offloaded."""


_CHANNEL_AXES = {"conv2d": (1,), "dense": (1,), "conv2d-packed": (1, 5)}
_COMMUTATIVE = {"add": AluOp.ADD, "multiply": AluOp.MUL, "maximum": AluOp.MAX,
                "minimum": AluOp.MIN}  # fmt: skip


def _tensor_type(e: Expr, types: dict[Expr, object]) -> TensorType:
    t = types.get(e)
    if not isinstance(t, TensorType) or not all(isinstance(d, int) for d in t.shape):
        raise NoMatch("a tensor of static shape is expected")
    return t


def _static(t: TensorType) -> tuple[int, ...]:
    out = []
    for d in t.shape:
        if not isinstance(d, int):
            raise NoMatch("a tensor of static shape is expected")
        out.append(d)
    return tuple(out)


def match_region(fn: Function) -> Region:
    """The region ``fn`` computes on the accelerator; ``NoMatch`` saying why it cannot."""
    from ...semantics.syntax import GlobalVar
    from ...semantics.typing import infer_types

    try:
        info = infer_types(IRModule({GlobalVar("main"): fn}))
    except Exception as err:  # a primitive function that does not type alone: not ours
        raise NoMatch(f"does not type-check alone: {err}") from None
    types: dict[Expr, object] = dict(info.expr_types)
    params = {p: i for i, p in enumerate(fn.params)}
    for p in fn.params:
        if not isinstance(p.type_annotation, TensorType):
            raise NoMatch("a parameter is not a tensor")

    def source(e: Expr) -> Source | None:
        if isinstance(e, Var) and e in params:
            return params[e]
        if isinstance(e, Constant):
            return np.asarray(e.data)
        if (isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == "cast"
                and _tensor_type(e, types).dtype == "int32"
                and _tensor_type(e.args[0], types).dtype == "int8"):  # fmt: skip
            return source(e.args[0])  # widening int8 to int32 keeps every value
        return None

    chain: list[Call] = []
    e = fn.body
    while True:
        if not isinstance(e, Call) or not isinstance(e.op, Op):
            raise NoMatch("the body is not a chain of operator calls")
        chain.append(e)
        name, args = e.op.name, e.args
        if name in ("nn.conv2d", "nn.dense"):
            break
        if name in _COMMUTATIVE:
            if source(args[1]) is not None:
                e = args[0]
            elif source(args[0]) is not None:
                e = args[1]
            else:
                raise NoMatch(f"{name} of two computed values")
        elif name in ("right_shift", "clip", "nn.relu", "cast"):
            e = args[0]
        else:
            raise NoMatch(f"{name} has no ALU equivalent")
    anchor = chain.pop()
    chain.reverse()
    region = _anchor(anchor, types, source)
    out_t = _tensor_type(fn.body, types)
    region.out_shape = _static(out_t)
    region.out_dtype = out_t.dtype
    steps: list[AluStep] = []
    value = Range(*INT32)
    dtype = "int32"
    prev: Expr = anchor
    for i, call in enumerate(chain):
        value, dtype = _tail_op(call, prev, value, dtype, types, source, region, steps,
                                last=i == len(chain) - 1)  # fmt: skip
        prev = call
    if dtype not in ("int8", "int32") or (dtype == "int32" and not value.within(INT8)):
        raise NoMatch(f"the result ({dtype}) may not fit the 8 bits the accelerator stores")
    region.layer = Layer(**{**region.layer.__dict__, "tail": tuple(steps)})
    return region


def _anchor(call: Call, types: dict[Expr, object], source: SourceOf) -> Region:
    args = [source(a) for a in call.args]
    if any(a is None for a in args):
        raise NoMatch(f"{call.op.name if isinstance(call.op, Op) else ''} of computed values")
    d_t, w_t = (_tensor_type(a, types) for a in call.args)
    out_t = _tensor_type(call, types)
    if (d_t.dtype, w_t.dtype, out_t.dtype) != ("int8", "int8", "int32"):
        raise NoMatch(f"not int8 x int8 -> int32 ({d_t.dtype} x {w_t.dtype} -> {out_t.dtype})")
    data, weight = args
    assert data is not None and weight is not None
    if isinstance(call.attrs, DenseAttrs):
        (b, k), (m, _) = _static(d_t), _static(w_t)
        return Region("dense", Layer(1, k, 1, b, m, 1, 1), data, weight)
    attrs = call.attrs
    assert isinstance(attrs, Conv2DAttrs)
    if attrs.groups != 1:
        raise NoMatch("grouped convolution")
    layouts = (attrs.data_layout, attrs.kernel_layout, attrs.out_layout or attrs.data_layout)
    if layouts == ("NCHW", "OIHW", "NCHW"):
        kind: Literal["conv2d", "conv2d-packed"] = "conv2d"
        n, c, h, w = _static(d_t)
        o, _, kh, kw = _static(w_t)
    elif layouts == ("NCHW1n16c", "OIHW16o16i", "NCHW1n16c"):
        kind = "conv2d-packed"
        n, ct, h, w, bn, bc = _static(d_t)
        ot, _, kh, kw, bo, _ = _static(w_t)
        if (bn, bc, bo) != (1, 16, 16):
            raise NoMatch("packed blocks other than 1n16c / 16o16i")
        c, o = ct * 16, ot * 16
    else:
        raise NoMatch(f"layouts {'/'.join(layouts)}")
    pad = tuple(attrs.padding)
    if len(pad) == 1:
        pad = pad * 4
    elif len(pad) == 2:
        pad = pad * 2
    top, left, bottom, right = pad
    layer = Layer(n, c, h, w, o, kh, kw, (attrs.strides[0], attrs.strides[1]),
                  (top, left, bottom, right), (attrs.dilation[0], attrs.dilation[1]))  # fmt: skip
    return Region(kind, layer, data, weight)


def _imm_or_operand(
    src: Source, shape: tuple[int, ...], region: Region, op: AluOp, steps: list[AluStep]
) -> tuple[int, int]:
    """Append the ALU step applying ``op`` with ``src``; the range of ``src``'s values (for a
    parameter, all of int32)."""
    if not isinstance(src, int) and src.size == 1:
        value = int(src.reshape(-1)[0])
        if -(1 << 15) <= value < 1 << 15:
            steps.append(AluStep(op, imm=value))
            return value, value
    out_rank = len(region.out_shape)
    if len(shape) > out_rank:
        raise NoMatch("an operand of higher rank than the result")
    aligned = (1,) * (out_rank - len(shape)) + shape
    axes = _CHANNEL_AXES[region.kind]
    per: Literal["channel", "element"] = "element"
    if all(d == 1 for i, d in enumerate(aligned) if i not in axes):
        per = "channel"
    region.operands.append(Operand(src, shape, per))
    steps.append(AluStep(op, operand=len(region.operands) - 1, per=per))
    if isinstance(src, int):
        return INT32
    values = src.astype(np.int64)
    return int(values.min()), int(values.max())


def _wrap8(steps: list[AluStep]) -> None:
    """The low 8 bits, sign-extended: a left shift by 24, then an arithmetic right shift."""
    steps.extend((AluStep(AluOp.SHR, imm=-24), AluStep(AluOp.SHR, imm=24)))


def _tail_op(call: Call, prev: Expr, value: Range, dtype: str, types: dict[Expr, object],
             source: SourceOf, region: Region, steps: list[AluStep], *, last: bool
             ) -> tuple[Range, str]:  # fmt: skip
    """Append the ALU steps of one tail operation; the new range and dtype."""
    assert isinstance(call.op, Op)
    name = call.op.name
    out_t = _tensor_type(call, types)
    if out_t.dtype not in ("int8", "int32"):
        raise NoMatch(f"{name} gives {out_t.dtype}")
    if _static(out_t) != _static(_tensor_type(prev, types)):
        raise NoMatch(f"{name} broadcasts its result beyond the layer's output")
    bounds = INT8 if out_t.dtype == "int8" else INT32
    if name in _COMMUTATIVE or name == "right_shift":
        other = call.args[1] if call.args[0] is prev else call.args[0]
        src = source(other)
        if src is None:
            raise NoMatch(f"{name} of two computed values")
        shape = _static(_tensor_type(other, types))
        op = _COMMUTATIVE.get(name, AluOp.SHR)
        lo, hi = _imm_or_operand(src, shape, region, op, steps)
        match op:
            case AluOp.ADD:
                r = Range(value.lo + lo, value.hi + hi)
            case AluOp.MUL:
                corners = [value.lo * lo, value.lo * hi, value.hi * lo, value.hi * hi]
                r = Range(min(corners), max(corners))
            case AluOp.MAX:
                r = Range(max(value.lo, lo), max(value.hi, hi))
            case AluOp.MIN:
                r = Range(min(value.lo, lo), min(value.hi, hi))
            case _:  # a right shift by 0 .. width-1 (any other amount is undefined)
                r = Range(min(value.lo, 0), max(value.hi, 0))
        if not r.within(bounds):
            if out_t.dtype == "int8" and not last:
                _wrap8(steps)
                return Range(*INT8), "int8"
            r = r.clamp32()
        return r, out_t.dtype
    if name == "clip":
        attrs = call.attrs
        assert isinstance(attrs, ClipAttrs)
        if not (math.isfinite(attrs.a_min) and math.isfinite(attrs.a_max)):
            raise NoMatch("clip with an infinite bound")
        a_min, a_max = math.trunc(attrs.a_min), math.trunc(attrs.a_max)
        a_max, a_min = (min(max(v, bounds[0]), bounds[1]) for v in (a_max, a_min))
        for op, bound in ((AluOp.MIN, a_max), (AluOp.MAX, a_min)):
            _imm_or_operand(np.asarray(bound, dtype=np.int64), (), region, op, steps)
        lo = max(min(value.lo, a_max), a_min)
        hi = max(min(value.hi, a_max), a_min)
        return Range(lo, hi), out_t.dtype
    if name == "nn.relu":
        steps.append(AluStep(AluOp.MAX, imm=0))
        return Range(max(value.lo, 0), max(value.hi, 0)), out_t.dtype
    if name == "cast":
        assert isinstance(call.attrs, CastAttrs)
        if out_t.dtype == "int8" and not value.within(INT8):
            if not last:
                _wrap8(steps)
            return Range(*INT8), "int8"
        return value, out_t.dtype
    raise NoMatch(f"{name} has no ALU equivalent")


# ---------------------------------------------------------------------------------------------
# Host-side packing: Relay layouts <-> the NCHW view codegen packs from


def data_nchw(region: Region, x: Array) -> Array:
    """The anchor's data in ``(N, C, H, W)``."""
    match region.kind:
        case "conv2d":
            return x
        case "dense":
            return x.T[None, :, None, :]
        case "conv2d-packed":
            n, ct, h, w, _, b = x.shape
            return x.reshape(n, ct, h, w, b).transpose(0, 1, 4, 2, 3).reshape(n, ct * b, h, w)


def weight_oihw(region: Region, w: Array) -> Array:
    """The anchor's weights in ``(O, C, KH, KW)``."""
    match region.kind:
        case "conv2d":
            return w
        case "dense":
            return w[:, :, None, None]
        case "conv2d-packed":
            ot, ct, kh, kw, bo, bi = w.shape
            return w.transpose(0, 4, 1, 5, 2, 3).reshape(ot * bo, ct * bi, kh, kw)


def out_nchw(region: Region, y: Array) -> Array:
    """An array of the result's shape (an operand broadcast to it) in ``(N, O, OH, OW)``."""
    match region.kind:
        case "conv2d":
            return y
        case "dense":
            return y.T[None, :, None, :]
        case "conv2d-packed":
            return data_nchw(region, y)


def nchw_out(region: Region, y: Array) -> Array:
    """``(N, O, OH, OW)`` back to the result's layout."""
    match region.kind:
        case "conv2d":
            return y
        case "dense":
            return y[0, :, 0, :].T
        case "conv2d-packed":
            n, o, oh, ow = y.shape
            return y.reshape(n, o // 16, 16, oh, ow).transpose(0, 1, 3, 4, 2)[:, :, :, :, None]


def resolve(src: Source, inputs: Sequence[Array]) -> Array:
    """The value of a source, given the primitive function's inputs."""
    return inputs[src] if isinstance(src, int) else src


__all__ = [
    "NoMatch",
    "Operand",
    "Range",
    "Region",
    "data_nchw",
    "match_region",
    "nchw_out",
    "out_nchw",
    "resolve",
    "weight_oihw",
]
