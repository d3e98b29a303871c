"""GraphPack: VTA's packed layouts for the integer convolutions of a quantized program.

TVM's ``vta.top.graph_pack``: the quantized convolutions run in the accelerator's blocked
layouts, data ``NCHW<b>n<c>c`` (VTA: ``NCHW1n16c``, shape ``(N/1, C/16, H, W, 1, 16)``) and
weight ``OIHW<c>o<c>i`` (``OIHW16o16i``, ``(O/16, I/16, KH, KW, 16, 16)``), with channels
padded to a multiple of the block. Each value of ``@main`` is *plain* (as in the input) or
*packed* (its NCHW tensor with the channels zero-padded to ``Cp``, in the packed layout):

===============================================  ============================================
``nn.conv2d(x, w)``: int8 data, int8 constant     ``nn.conv2d(pack(x), w', data_layout=
OIHW weight, NCHW, groups 1, ``out_dtype=int32``  "NCHW1n16c", kernel_layout="OIHW16o16i")``,
                                                  packed; ``w'`` the weight padded (O and I to
                                                  multiples of 16, with zeros) and packed, a
                                                  constant
``nn.relu``, ``clip``, ``cast``, ``round``,       the same op on the packed operand, packed
``negative``, ``abs`` of a packed value
``add``, ``subtract``, ``multiply``, ``maximum``,  the same op, packed: a packed operand as it
``minimum``, ``right_shift``, ``left_shift``     is, a rank-0 operand as it is, a per-channel
with a packed operand, the others rank 0,         constant packed (padded with zeros), a plain
per-channel constants or plain values of the      value packed
result's shape
anything else reading a packed value              ``unpack`` of it: ``layout_transform`` back
                                                  to NCHW and ``strided_slice`` off the
                                                  padding channels
===============================================  ============================================

``pack(x) = layout_transform(nn.pad(x, C -> Cp, 0), "NCHW", "NCHW1n16c")`` (no ``nn.pad`` when
``C = Cp``). So layout transforms appear only at the boundaries of the packed region: where a
plain value enters a convolution or meets a packed one, and where a packed value reaches an
operator that is not in the table (a pooling, the result).

Correctness. ``layout_transform`` is a bijection and unpacking slices exactly the channels
the plain program has, so the packed program computes the same values there. The padding
channels hold what the table's operators make of zeros (per-channel constants are padded with
zeros), are multiplied by the zero input-channel padding of the next weight, and are sliced
off at unpacking: they never reach a result. The padding channels of a value entering a
convolution are its zero ``nn.pad``. Every integer operation on them is one on small values
derived from zeros and constants the program already applies, so for the quantized form
(``add`` bias, ``nn.relu``, ``add`` of ``2^(k-1)``, ``right_shift`` by ``k``, ``clip``,
``cast``) they stay zero. Results are bit for bit the input's (the tests hold them equal).

Side conditions, each checked: static shapes, ``N`` divisible by ``bfactor``; a per-channel
constant has shape ``(C, 1, 1)`` or ``(1, C, 1, 1)``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ...semantics.ops.nn.conv import Conv2DAttrs
from ...semantics.syntax import Call, Constant, Expr, Function, IRModule, Op, TensorType, children
from ...semantics.typing import TypeInfo, infer_types
from ..ir import rewrite_pairs, with_children
from ..pass_manager import Pass, register_pass
from .quantize import call

UNARY = frozenset({"nn.relu", "clip", "cast", "round", "negative", "abs"})
BINARY = frozenset(
    {"add", "subtract", "multiply", "maximum", "minimum", "right_shift", "left_shift"}
)


@dataclass(frozen=True)
class Packed:
    """A packed value: its logical NCHW shape and the padded channel count."""

    shape: tuple[int, int, int, int]
    padded: int


def _static4(t: object) -> tuple[int, int, int, int] | None:
    if isinstance(t, TensorType) and len(t.shape) == 4 and all(isinstance(d, int) for d in t.shape):
        n, c, h, w = (int(str(d)) for d in t.shape)
        return n, c, h, w
    return None


def pack_weight(w: npt.NDArray[np.generic], block: int) -> npt.NDArray[np.generic]:
    """An OIHW weight padded with zeros (O and I to multiples of ``block``) and packed into
    ``OIHW<block>o<block>i``: ``out[O, I, h, w, o, i] = w[O*block + o, I*block + i, h, w]``."""
    o, i, kh, kw = w.shape
    po, pi = -(-o // block) * block, -(-i // block) * block
    padded = np.zeros((po, pi, kh, kw), w.dtype)
    padded[:o, :i] = w
    blocks = padded.reshape(po // block, block, pi // block, block, kh, kw)
    return np.ascontiguousarray(blocks.transpose(0, 2, 4, 5, 1, 3))


@dataclass
class Packer:
    """Rewrites ``@main`` bottom-up; ``packed`` maps each rewritten packed expression to its
    logical shape."""

    info: TypeInfo
    bfactor: int
    cfactor: int
    packed: dict[Expr, Packed] = field(default_factory=dict)
    memo: dict[tuple[Expr, str], Expr] = field(default_factory=dict)

    @property
    def data_layout(self) -> str:
        return f"NCHW{self.bfactor}n{self.cfactor}c"

    def padded(self, c: int) -> int:
        return -(-c // self.cfactor) * self.cfactor

    def pack(self, x: Expr, shape: tuple[int, int, int, int]) -> Expr:
        """A plain NCHW value, channel-padded with zeros and packed."""
        key = (x, "pack")
        if key not in self.memo:
            c = shape[1]
            cp = self.padded(c)
            t = self.info.expr_types.get(x)
            dtype = t.dtype if isinstance(t, TensorType) else "float32"
            y = x
            if cp != c:
                zero = Constant(np.array(0, dtype=dtype))
                y = call("nn.pad", x, zero, pad_width=((0, 0), (0, cp - c), (0, 0), (0, 0)))
            out = call("layout_transform", y, src_layout="NCHW", dst_layout=self.data_layout)
            self.packed[out] = Packed(shape, cp)
            self.memo[key] = out
        return self.memo[key]

    def unpack(self, x: Expr) -> Expr:
        """A packed value back in NCHW, without its padding channels."""
        p = self.packed.get(x)
        if p is None:
            return x
        key = (x, "unpack")
        if key not in self.memo:
            y: Expr = call("layout_transform", x, src_layout=self.data_layout, dst_layout="NCHW")
            if p.padded != p.shape[1]:
                y = call(
                    "strided_slice",
                    y,
                    begin=(0, 0, 0, 0),
                    end=p.shape,
                    strides=(1, 1, 1, 1),
                    axes=None,
                )
            self.memo[key] = y
        return self.memo[key]

    def visit(self, orig: Expr, rebuilt: Expr) -> Expr | None:
        if isinstance(orig, Call) and isinstance(orig.op, Op) and isinstance(rebuilt, Call):
            out = self.rule(orig, rebuilt, orig.op.name)
            if out is not None:
                return out
        kids = children(rebuilt)
        if any(k in self.packed for k in kids):
            return with_children(rebuilt, tuple(self.unpack(k) for k in kids))
        return None

    def rule(self, orig: Call, e: Call, name: str) -> Expr | None:
        shape = _static4(self.info.expr_types.get(orig))
        if shape is None or shape[0] % self.bfactor:
            return None
        if name == "nn.conv2d":
            return self.conv2d(orig, e, shape)
        if name in UNARY and len(e.args) == 1 and e.args[0] in self.packed:
            out = Call(e.op, e.args, e.attrs)
            self.packed[out] = Packed(shape, self.packed[e.args[0]].padded)
            return out
        if name in BINARY and any(a in self.packed for a in e.args):
            operands = [self.operand(o, a, shape) for o, a in zip(orig.args, e.args, strict=True)]
            if any(x is None for x in operands):
                return None
            out = Call(e.op, tuple(x for x in operands if x is not None), e.attrs)
            self.packed[out] = Packed(shape, self.padded(shape[1]))
            return out
        return None

    def operand(self, orig: Expr, x: Expr, shape: tuple[int, int, int, int]) -> Expr | None:
        """``x`` as an operand of a packed elementwise call of logical ``shape``."""
        if x in self.packed:
            return x if self.packed[x].shape == shape else None
        t = self.info.expr_types.get(orig)
        if not isinstance(t, TensorType):
            return None
        if not t.shape:
            return x
        if isinstance(x, Constant) and x.data.shape in ((shape[1], 1, 1), (1, shape[1], 1, 1)):
            c = x.data.reshape(shape[1])
            cp = self.padded(shape[1])
            vector = np.zeros(cp, c.dtype)
            vector[: shape[1]] = c
            # Broadcasts against (N/b, Cp/c, H, W, b, c): (Cp/c, 1, 1, 1, c).
            return Constant(vector.reshape(cp // self.cfactor, 1, 1, 1, self.cfactor))
        if _static4(t) == shape:
            return self.pack(x, shape)
        return None

    def conv2d(self, orig: Call, e: Call, shape: tuple[int, int, int, int]) -> Expr | None:
        a = e.attrs
        x, w = e.args
        if not (
            isinstance(a, Conv2DAttrs)
            and isinstance(w, Constant)
            and w.data.dtype == np.int8
            and a.groups == 1
            and a.data_layout == "NCHW"
            and a.kernel_layout == "OIHW"
            and a.out_layout in ("", "NCHW")
            and a.out_dtype == "int32"
        ):
            return None
        data_shape = _static4(self.info.expr_types.get(orig.args[0]))
        dt = self.info.expr_types.get(orig.args[0])
        if data_shape is None or not isinstance(dt, TensorType) or dt.dtype != "int8":
            return None
        if x in self.packed:
            if self.packed[x].shape != data_shape:
                return None
            data = x
        else:
            data = self.pack(x, data_shape)
        weight = Constant(pack_weight(w.data, self.cfactor))
        attrs = Conv2DAttrs(
            strides=a.strides,
            padding=a.padding,
            dilation=a.dilation,
            channels=None if a.channels is None else self.padded(a.channels),
            kernel_size=a.kernel_size,
            data_layout=self.data_layout,
            kernel_layout=f"OIHW{self.cfactor}o{self.cfactor}i",
            out_dtype="int32",
        )
        out = Call(e.op, (data, weight), attrs)
        self.packed[out] = Packed(shape, self.padded(shape[1]))
        return out


def graph_pack(mod: IRModule, bfactor: int = 1, cfactor: int = 16) -> IRModule:
    """``@main`` with its int8 convolutions packed (module docstring)."""
    gv = next((g for g in mod.functions if g.name == "main"), None)
    if gv is None:
        return mod
    fn = mod.functions[gv]
    packer = Packer(infer_types(mod), bfactor, cfactor)
    body = packer.unpack(rewrite_pairs(fn.body, packer.visit))
    if body is fn.body:
        return mod
    fns = dict(mod.functions)
    fns[gv] = Function(fn.params, body, fn.ret_type, fn.type_params, fn.attrs, span=fn.span)
    return IRModule(fns, mod.type_definitions)


@register_pass
@dataclass(frozen=True)
class GraphPack(Pass):
    """Pack ``@main``'s int8 convolutions (int32 accumulation) into VTA's blocked layouts
    (``NCHW<bfactor>n<cfactor>c`` data, ``OIHW<cfactor>o<cfactor>i`` weights, channels
    zero-padded), with layout transforms at the region's boundaries (the module docstring).

    Pre: well-typed. Post: well-typed, the same global types, the same values bit for bit.
    """

    bfactor: int = 1
    cfactor: int = 16
    opt_level = 4
    focus_ops = frozenset({"nn.conv2d", "add", "right_shift", "clip", "cast", "nn.relu"})

    def __post_init__(self) -> None:
        if self.bfactor < 1 or self.cfactor < 1:
            raise ValueError(
                f"bfactor={self.bfactor}, cfactor={self.cfactor}: both must be positive"
            )

    def transform(self, mod: IRModule) -> IRModule:
        return graph_pack(mod, self.bfactor, self.cfactor)


__all__ = ["GraphPack", "graph_pack", "pack_weight"]
