"""Transcendental functions for NVPTX: float32 formulas over the hardware's ``ex2``/``lg2``.

LLVM's NVPTX back end has no lowering for ``llvm.exp.f32``, ``llvm.log.f32`` (a fatal "no
libcall available" error that ends the process) or ``llvm.tanh.f32`` (an abort in instruction
selection), and a call of ``expf`` leaves an unresolved symbol that ptxas rejects. What the
hardware has is ``ex2.approx.f32`` (2^x, a relative error of about 2 ulps, subnormal results
supported) and ``lg2.approx.f32`` (log2 x, an absolute error of about 2^-22 near 1 and a
relative one of about 2 ulps elsewhere). The float32 functions of the loop IR that follow
from them are built here; the others (``sin``, ``pow``, ``erf``, every float64 function, C's
``fmod``) come from libdevice (``targets.gpu.libdevice``).

The formulas, for a float32 ``x`` (``L = log2 e`` split into ``L_hi + L_lo``):

- ``exp x``: ``t = x*L_hi`` rounded and ``t_lo = fma(x, L_hi, -t) + x*L_lo`` (``t``'s rounding
  error, exactly, plus the rest of ``L``); ``k = roundeven(t)``, ``f = t - k`` (exact); then
  ``2^f * (1 + t_lo*ln 2)`` scaled by ``2^k`` as two exact powers of two (``2^(k/2)`` twice: the
  scale itself never overflows, gradual underflow is kept); ``t`` is clamped to ±160 first (the
  result is then 0 or inf anyway) and NaN passed through;
- ``log x = lg2(x) * ln 2``, ``log2 x = lg2(x)``, ``log10 x = lg2(x) * log10 2``;
- ``tanh x = copysign(1 - 2/(exp(2|x|) + 1), x)`` (``exp`` overflowing to inf gives 1);
- ``sinh x``, ``cosh x``: ``h = exp(|x|)/2`` (the ``exp`` formula with ``k - 1``: no early
  overflow); ``sinh = copysign(h - 0.25/h, x)``, ``cosh = h + 0.25/h``.

Errors, against the tolerance policy's float32 budget of ``8 * 2^-23`` relative (absolute
below 1): ``exp`` is about 3 ulps (``ex2``'s 2 plus the correction's rounding; the naive
``ex2(x * log2 e)`` would be ``|x log2 e| * 2^-24``, up to 64 ulps near overflow); ``log``
family within ``2^-22`` absolute below 1 and 3 ulps above; ``tanh``, ``sinh``, ``cosh`` below 1
in magnitude lose accuracy to cancellation in relative terms but stay within the absolute
budget there. The tests check every formula on the host, where ``ex2`` and ``lg2`` are the C
library's ``exp2``/``log2`` made worse by the hardware's documented error in both directions
(``HostMath``), against numpy in float64.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import llvmlite.ir as lir

F32 = lir.FloatType()
I32 = lir.IntType(32)

FORMULAS = ("exp", "log", "log2", "log10", "tanh", "sinh", "cosh")
"""The float32 intrinsics this module computes (the others need libdevice)."""

LOG2E = 1.0 / math.log(2.0)
_LOG2E_HI = float.fromhex("0x1.715476p+0")  # log2 e rounded to float32
_LOG2E_LO = LOG2E - _LOG2E_HI  # the rest, as a float32 literal (rounded once more)
_LN2 = math.log(2.0)
_LOG10_2 = math.log10(2.0)
_CLAMP = 160.0  # beyond it 2^t is 0 or inf in float32 whatever the correction

EX2_RELATIVE_ERROR = 2.0**-22
"""The documented worst relative error of ``ex2.approx.f32`` (PTX ISA) that the host model
applies."""

LG2_ABSOLUTE_ERROR = 2.0**-22
"""The documented worst absolute error of ``lg2.approx.f32`` that the host model applies."""

Declare = Callable[[str, lir.Type, Sequence[lir.Type]], lir.Function]
"""How the formulas get a function declaration: ``declare(name, return type, argument
types)``."""


def _f(value: float) -> lir.Constant:
    return lir.Constant(F32, value)


class Formulas:
    """The float32 formulas (the module docstring), emitted with builder ``b``; ``ex2`` and
    ``lg2`` are the hardware's (``llvm.nvvm.ex2.approx.f``, ``llvm.nvvm.lg2.approx.f``)."""

    def __init__(self, b: lir.IRBuilder, declare: Declare) -> None:
        self.b = b
        self.declare = declare

    def _call(self, name: str, *args: lir.Value) -> lir.Value:
        return self.b.call(self.declare(name, args[0].type, [a.type for a in args]), list(args))

    def ex2(self, x: lir.Value) -> lir.Value:
        """2^x (the hardware's approximation)."""
        return self._call("llvm.nvvm.ex2.approx.f", x)

    def lg2(self, x: lir.Value) -> lir.Value:
        """log2 x (the hardware's approximation)."""
        return self._call("llvm.nvvm.lg2.approx.f", x)

    def emit(self, name: str, x: lir.Value) -> lir.Value:
        """The formula for intrinsic ``name`` (one of ``FORMULAS``) applied to float32 ``x``."""
        b = self.b
        match name:
            case "exp":
                return self.exp(x)
            case "log":
                return b.fmul(self.lg2(x), _f(_LN2))
            case "log2":
                return self.lg2(x)
            case "log10":
                return b.fmul(self.lg2(x), _f(_LOG10_2))
            case "tanh":
                e = self.exp(b.fmul(self._call("llvm.fabs.f32", x), _f(2.0)))
                r = b.fsub(_f(1.0), b.fdiv(_f(2.0), b.fadd(e, _f(1.0))))
                return self._call("llvm.copysign.f32", r, x)
            case "sinh" | "cosh":
                h = self.exp(self._call("llvm.fabs.f32", x), scale=-1)
                quarter = b.fdiv(_f(0.25), h)
                if name == "cosh":
                    return b.fadd(h, quarter)
                return self._call("llvm.copysign.f32", b.fsub(h, quarter), x)
            case _:
                raise ValueError(f"no float32 formula for {name!r}")

    def exp(self, x: lir.Value, scale: int = 0) -> lir.Value:
        """``e^x * 2^scale`` (the ``exp`` formula of the module docstring)."""
        b = self.b
        t = b.fmul(x, _f(_LOG2E_HI))
        t_lo = b.fadd(self._call("llvm.fma.f32", x, _f(_LOG2E_HI), b.fneg(t)),
                      b.fmul(x, _f(_LOG2E_LO)))  # fmt: skip
        t = self._call("llvm.minnum.f32", self._call("llvm.maxnum.f32", t, _f(-_CLAMP)),
                       _f(_CLAMP))  # fmt: skip
        finite = b.fcmp_ordered("<", self._call("llvm.fabs.f32", t), _f(_CLAMP))
        t_lo = b.select(finite, t_lo, _f(0.0))  # inf - inf: no correction at the extremes
        k = self._call("llvm.roundeven.f32", t)
        f = b.fsub(t, k)
        y = b.fmul(self.ex2(f), self._call("llvm.fma.f32", t_lo, _f(_LN2), _f(1.0)))
        ki = b.add(b.fptosi(k, I32), lir.Constant(I32, scale))
        half = b.ashr(ki, lir.Constant(I32, 1))
        for part in (half, b.sub(ki, half)):  # 2^part built from its exponent bits
            bits = b.shl(b.add(part, lir.Constant(I32, 127)), lir.Constant(I32, 23))
            y = b.fmul(y, b.bitcast(bits, F32))
        return b.select(b.fcmp_unordered("uno", x, x), x, y)


class HostMath(Formulas):
    """The formulas as the host computes them, for checking their accuracy: ``ex2`` is the C
    library's ``exp2`` times ``1 + sign * EX2_RELATIVE_ERROR`` and ``lg2`` its ``log2`` plus
    ``sign * LG2_ABSOLUTE_ERROR`` (``sign`` -1, 0 or +1: the hardware's worst error either
    way, or none)."""

    def __init__(self, b: lir.IRBuilder, declare: Declare, sign: int = 0) -> None:
        super().__init__(b, declare)
        self.sign = sign

    def ex2(self, x: lir.Value) -> lir.Value:
        """2^x, off by the hardware's worst relative error in the direction ``sign``."""
        y = self._call("llvm.exp2.f32", x)
        return self.b.fmul(y, _f(1.0 + self.sign * EX2_RELATIVE_ERROR))

    def lg2(self, x: lir.Value) -> lir.Value:
        """log2 x, off by the hardware's worst absolute error in the direction ``sign``."""
        return self.b.fadd(self._call("llvm.log2.f32", x), _f(self.sign * LG2_ABSOLUTE_ERROR))


def host_module(triple: str, layout: str, sign: int = 0) -> tuple[str, list[str]]:
    """An LLVM module for the host with ``void relay_formula_NAME(ptr x, ptr y, i64 n)`` for
    each of ``FORMULAS`` (``y[i] = NAME(x[i])`` in float32, through ``HostMath(sign)``): the
    text and the symbols."""
    module = lir.Module(name="relay_gpu_formulas")
    module.triple, module.data_layout = triple, layout
    i64 = lir.IntType(64)
    ptr = lir.PointerType()

    def declare(name: str, ret: lir.Type, args: Sequence[lir.Type]) -> lir.Function:
        found = module.globals.get(name)
        if isinstance(found, lir.Function):
            return found
        return lir.Function(module, lir.FunctionType(ret, list(args)), name=name)

    symbols = []
    for name in FORMULAS:
        symbol = f"relay_formula_{name}"
        fn = lir.Function(module, lir.FunctionType(lir.VoidType(), [ptr, ptr, i64]), symbol)
        xs, ys, n = fn.args
        b = lir.IRBuilder(fn.append_basic_block("entry"))
        head, body, done = (fn.append_basic_block(s) for s in ("head", "body", "done"))
        entry = b.block
        b.branch(head)
        b.position_at_end(head)
        i = b.phi(i64)
        i.add_incoming(lir.Constant(i64, 0), entry)
        b.cbranch(b.icmp_signed("<", i, n), body, done)
        b.position_at_end(body)
        x = b.load(b.gep(xs, [i], source_etype=F32), typ=F32)
        y = HostMath(b, declare, sign).emit(name, x)
        b.store(y, b.gep(ys, [i], source_etype=F32))
        i.add_incoming(b.add(i, lir.Constant(i64, 1)), b.block)
        b.branch(head)
        b.position_at_end(done)
        b.ret_void()
        symbols.append(symbol)
    return str(module), symbols


__all__ = [
    "EX2_RELATIVE_ERROR",
    "FORMULAS",
    "LG2_ABSOLUTE_ERROR",
    "Formulas",
    "HostMath",
    "host_module",
]
