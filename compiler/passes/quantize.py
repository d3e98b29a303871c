"""Quantize: float32 convolutions and dense layers to int8 with int32 accumulation.

TVM's ``relay.quantize`` in three stages, each a function here, and the pass ``Quantize``
(``quantize``) that runs them on ``@main``:

1. **prepare** (TVM's ``prerequisite_optimize``): ``SimplifyInference`` and ``FoldConstant``,
   then every per-channel affine chain after a convolution or dense layer (what a folded
   ``batch_norm`` leaves: ``subtract``, ``multiply``, ``divide``, ``add``, ``nn.bias_add`` by
   constants) is folded into its weight and one bias, ``conv2d(x, w * a) + b``.
2. **annotate**: choose the calls to quantize (``nn.conv2d`` with NCHW data, OIHW weight and a
   constant float32 weight; ``nn.dense`` with a constant weight unless ``skip_dense_layer``),
   skipping the convolutions whose index in evaluation order is in ``skip_conv_layers``
   (TVM's default ``[0]``: the first convolution stays float), and list the *points*: the
   float tensors whose range sets a scale (the data of each chosen call, and the operands of
   ``add``, which may meet a quantized value).
3. **calibrate**: one power-of-two scale ``2^e`` per point. ``global_scale`` mode: every point
   has the range ``[-global_scale, global_scale]`` (``e = log2(global_scale) - 7``); ``max``
   mode: ``e = ceil(log2(max |x|)) - 7`` over the calibration data, so no calibration value
   is clipped; ``percentile`` mode: the same with the ``percentile`` quantile of ``|x|`` (the
   largest over the calibration inputs) in place of the maximum. Weights always get the
   ``max`` rule of their own values (TVM's ``weight_scale="power2"``).
4. **realize**: each value becomes ``(q, e)``, an integer tensor ``q`` meaning ``q * 2^e``:

   ====================================  ==================================================
   float point ``x`` to int8 at ``e``     ``cast(clip(round(x * 2^-e), -127, 127), int8)``
   int32 ``(q, e0)`` to int8 at ``e``     ``cast(clip(right_shift(q + 2^(k-1), k), -127, 127),
                                          int8)`` with ``k = e - e0`` (the ``+ 2^(k-1)`` only
                                          with ``rounding="UPWARD"``; ``k < 0``: ``left_shift``)
   chosen ``conv2d(x, w)``, ``dense``     ``conv2d(x8, w8, out_dtype="int32")`` at ``ex + ew``
   ``add(q, c)``, ``c`` constant          ``add(q, round(c * 2^-e))`` in int32 at ``e``
   ``add(q1, q2)``                        both int32 at ``max(e1, e2)`` (the finer one shifted
                                          right as above), then ``add``
   ``add(q, x)``, ``x`` float             ``x`` to int8 at its point's scale, then as above
   ``nn.relu(q)``, ``nn.max_pool2d(q)``   the same operator on ``q``, at ``e``
   anything else, and the result          ``cast(q, float32) * 2^e`` (dequantize)
   ====================================  ==================================================

   This is the form VTA runs: int8 ``conv2d`` or ``dense`` accumulating in int32, then
   ``add`` (bias), ``nn.relu``, ``add`` (rounding), ``right_shift``, ``clip`` and ``cast``.

Rounding: ``round`` rounds halves away from zero; ``rounding="UPWARD"`` adds ``2^(k-1)`` before
a right shift by ``k`` (round half up, TVM's ``round_for_shift``), ``"DOWNWARD"`` shifts alone
(floor, truncation of the low bits).

Accuracy bound (``relay.oracles.quantize_oracle`` computes it as numbers). Let
``y = sum_k w_k x_k + b`` be one output of a chosen call and ``y'`` the quantized program's
dequantized value. Write ``x_k = x'_k + dx_k`` with ``x'_k = q_k 2^ex``,
``w_k = w'_k + dw_k`` likewise. With no clipping (``|x| <= 127 * 2^ex``, which ``max``
calibration guarantees on its own data, and ``|w| <= 127 * 2^ew``), rounding gives
``|dx_k| <= 2^ex / 2`` and ``|dw_k| <= 2^ew / 2``, and
``w x - w' x' = w dx + dw x - dw dx``, so
``|sum w x - sum w' x'| <= sum_k (|w_k| 2^ex / 2 + |x_k| 2^ew / 2 + 2^(ex+ew) / 4)``.
The bias adds at most ``2^(ex+ew) / 2`` (rounded to the accumulator's scale), the
dequantization of the int32 result is exact (``2^e`` is a power of two, int32 up to ``2^24``
converts exactly), and ``nn.relu`` and ``nn.max_pool2d`` are 1-Lipschitz, so the bound carries
through them unchanged; a requantization to int8 at ``eo`` adds ``2^eo / 2`` (``UPWARD``) or
``2^eo`` (``DOWNWARD``). The float program itself rounds: the comparison adds the float
tolerance of a sum of ``K`` float32 products, ``K * 2^-23 * sum |w x|``. A clipped input has
no such bound (the clip error is the overflow), which is why ``max`` calibration is the one
that the property tests hold to it; across layers the bounds compose by propagating the
input error through ``|w|`` (``sum_k |w_k| e_k``), which the oracle does for chains.

Undefined, as in the operators: an int32 sum or shift that overflows (an accumulation of more
than ``2^17`` int8 products at full range; ``left_shift`` of a large value).

Only ``@main`` is quantized (its calibration runs ``@main``); other globals are left alone. A
chosen call whose data depends on a ``let``-bound variable or a nested function's parameter
is not chosen (calibration evaluates each point as an expression of ``@main``'s parameters).
"""

from __future__ import annotations

import dataclasses
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from ...semantics.ops import lookup
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
    Tuple,
    children,
    post_order,
)
from ...semantics.typing import TypeInfo, infer_types
from ...semantics.values import TensorValue, TupleValue
from ..ir import free_vars, rewrite_pairs, with_children
from ..pass_manager import Pass, register_pass
from .fold_constant import FoldConstant
from .simplify_inference import SimplifyInference

Array = npt.NDArray[np.float32]

CALIBRATE_MODES = ("global_scale", "max", "percentile")
ROUNDINGS = ("UPWARD", "DOWNWARD")
QMAX = 127
"""int8 values are clipped to ``[-127, 127]`` (symmetric, TVM's ``simulated_quantize``)."""


@dataclass(frozen=True)
class QConfig:
    """Options of ``quantize`` (TVM's ``qconfig``; the defaults are TVM's).

    - ``calibrate_mode``: ``"global_scale"`` (one range ``global_scale`` for every activation),
      ``"max"`` or ``"percentile"`` (per point, from calibration data);
    - ``global_scale``: a power of two, the activation range in ``global_scale`` mode;
    - ``percentile``: the quantile of ``|x|`` in ``percentile`` mode, in ``(0, 1]``;
    - ``skip_conv_layers``: indices (in evaluation order) of ``nn.conv2d`` calls left float;
    - ``skip_dense_layer``: leave every ``nn.dense`` float;
    - ``rounding``: ``"UPWARD"`` (round half up before a right shift) or ``"DOWNWARD"``;
    - ``calibration_samples`` and ``seed``: without a dataset, calibration draws this many
      inputs from the standard normal distribution (uniform over the range for integer
      parameters) with this seed.

    Inputs and weights are int8 and the accumulator int32 (VTA's widths); only those are built.
    """

    calibrate_mode: str = "global_scale"
    global_scale: float = 8.0
    percentile: float = 0.9999
    skip_conv_layers: tuple[int, ...] = (0,)
    skip_dense_layer: bool = True
    rounding: str = "UPWARD"
    calibration_samples: int = 4
    seed: int = 0

    def __post_init__(self) -> None:
        if self.calibrate_mode not in CALIBRATE_MODES:
            raise ValueError(
                f"calibrate_mode={self.calibrate_mode!r} is not one of {', '.join(CALIBRATE_MODES)}"
            )
        if self.rounding not in ROUNDINGS:
            raise ValueError(f"rounding={self.rounding!r} is not one of {', '.join(ROUNDINGS)}")
        g = self.global_scale
        if not (g > 0 and math.isfinite(g) and math.log2(g).is_integer()):
            raise ValueError(f"global_scale={g} must be a power of two (the scales are shifts)")
        if not 0 < self.percentile <= 1:
            raise ValueError(f"percentile={self.percentile} must be in (0, 1]")
        if self.calibration_samples < 1:
            raise ValueError(f"calibration_samples={self.calibration_samples} must be >= 1")


# --------------------------------------------------------------------------------------------
# Building calls


def call(op: str, *args: Expr, **attrs: object) -> Call:
    """``op(args.., attrs..)`` with the operator's registered attributes class."""
    opdef = lookup(op)
    assert opdef is not None, op
    built = opdef.attrs_type.from_kwargs(dict(attrs)) if opdef.attrs_type is not None else None
    return Call(Op(op), args, built)


def scalar(value: float | int, dtype: str) -> Constant:
    """A rank-0 constant."""
    return Constant(np.array(value, dtype=dtype))


def power2_exponent(max_abs: float) -> int:
    """``e`` with ``127 * 2^e >= max_abs`` and ``2^(e+7) = 2^ceil(log2 max_abs)``: the scale
    of a tensor whose largest magnitude is ``max_abs`` (``2^-7`` for an all-zero tensor)."""
    if not max_abs > 0 or not math.isfinite(max_abs):
        return -7
    e = math.ceil(math.log2(max_abs)) - 7
    return e + 1 if max_abs > QMAX * 2.0**e else e


def quantize_array(x: npt.NDArray[np.generic], e: int, dtype: str) -> npt.NDArray[np.generic]:
    """``round(x * 2^-e)`` (halves away from zero) as ``dtype``; int8 values are clipped to
    ``[-127, 127]``."""
    scaled = np.asarray(x, dtype=np.float64) * 2.0 ** (-e)
    rounded = np.sign(scaled) * np.floor(np.abs(scaled) + 0.5)
    if dtype == "int8":
        rounded = np.clip(rounded, -QMAX, QMAX)
    info = np.iinfo(dtype)
    out: npt.NDArray[np.generic] = np.clip(rounded, info.min, info.max).astype(dtype)
    return out


# --------------------------------------------------------------------------------------------
# 1. prepare: fold per-channel affine chains into the weights


_AFFINE = ("add", "subtract", "multiply", "divide", "nn.bias_add")


@dataclass(frozen=True)
class _Affine:
    """``layer(data, weight * a) + b`` pending: ``a``, ``b`` are per-output-channel vectors."""

    layer: Call
    a: npt.NDArray[np.float64]
    b: npt.NDArray[np.float64]


def _foldable_layer(e: Expr, info: TypeInfo) -> bool:
    match e:
        case Call(Op(name="nn.conv2d"), (_, Constant() as w), Conv2DAttrs() as a):
            return (
                a.groups == 1
                and a.data_layout == "NCHW"
                and a.kernel_layout == "OIHW"
                and (a.out_layout or "NCHW") == "NCHW"
                and w.data.dtype == np.float32
                and _is_f32(info.type_of(e))
            )
        case Call(Op(name="nn.dense"), (_, Constant() as w), DenseAttrs()):
            return w.data.dtype == np.float32 and _is_f32(info.type_of(e))
        case _:
            return False


def _is_f32(t: object) -> bool:
    return isinstance(t, TensorType) and t.dtype == "float32"


def _channel_vector(c: Constant, out: TensorType, axis: int) -> npt.NDArray[np.float64] | None:
    """``c`` as a vector over the ``axis`` extent of ``out`` when broadcasting it against
    ``out`` keeps ``out``'s shape and varies only along ``axis``; else ``None``."""
    shape = out.shape
    if not all(isinstance(d, int) for d in shape) or c.data.dtype != np.float32:
        return None
    cshape = c.data.shape
    if len(cshape) > len(shape):
        return None
    aligned = (1,) * (len(shape) - len(cshape)) + cshape
    channels = shape[axis]
    assert isinstance(channels, int)
    for i, d in enumerate(aligned):
        if d != 1 and (i != axis or d != channels):
            return None
    flat = np.asarray(c.data, dtype=np.float64).reshape(aligned)
    return np.broadcast_to(flat.reshape(-1) if flat.size > 1 else flat.reshape(1), (channels,))


def _fold_step(e: Call, pending: _Affine, other: Constant, info: TypeInfo) -> _Affine | None:
    """``op(affine, c)`` as one affine, or ``None`` if ``c`` is not per-channel."""
    out = info.type_of(e)
    if not isinstance(out, TensorType) or out != info.type_of(e.args[0]):
        return None
    assert isinstance(e.op, Op)
    if e.op.name == "nn.bias_add":
        assert isinstance(e.attrs, BiasAddAttrs)
        if e.attrs.axis not in (1, 1 - len(out.shape)):
            return None
        v = np.asarray(other.data, dtype=np.float64)
        if v.shape != (out.shape[1],):
            return None
    else:
        got = _channel_vector(other, out, 1)
        if got is None:
            return None
        v = got
    a, b = pending.a, pending.b
    match e.op.name:
        case "add" | "nn.bias_add":
            return _Affine(pending.layer, a, b + v)
        case "subtract":
            return _Affine(pending.layer, a, b - v)
        case "multiply":
            return _Affine(pending.layer, a * v, b * v)
        case "divide":
            return _Affine(pending.layer, a / v, b / v)
    return None


def _materialise(p: _Affine) -> Expr:
    """``layer(x, w * a) + b`` with the products folded into constants."""
    layer = p.layer
    w = layer.args[1]
    assert isinstance(w, Constant) and isinstance(layer.op, Op)
    wa = np.asarray(w.data, dtype=np.float64)
    wa = wa * p.a.reshape((-1,) + (1,) * (wa.ndim - 1))
    new = Call(layer.op, (layer.args[0], Constant(wa.astype(np.float32))), layer.attrs)
    bshape = (-1, 1, 1) if layer.op.name == "nn.conv2d" else (-1,)
    return call("add", new, Constant(p.b.reshape(bshape).astype(np.float32)))


def fold_affine(fn: Function, info: TypeInfo) -> Function:
    """Fold each single-use per-channel affine chain after a convolution or dense layer
    (``subtract``/``multiply``/``divide``/``add``/``nn.bias_add`` by a constant) into the
    layer's weight and one ``add`` of a bias constant."""
    uses: Counter[Expr] = Counter()
    for e in post_order(fn.body):
        for k in children(e):
            uses[k] += 1
    pending: dict[Expr, _Affine] = {}

    def visit(orig: Expr, rebuilt: Expr) -> Expr | None:
        if _foldable_layer(orig, info):
            assert isinstance(rebuilt, Call)
            t = info.type_of(orig)
            assert isinstance(t, TensorType)
            channels = t.shape[1]
            if isinstance(channels, int):
                ones = np.ones(channels)
                pending[rebuilt] = _Affine(rebuilt, ones, np.zeros(channels))
            return None
        match orig, rebuilt:
            case Call(Op(name=name), (x, Constant())), Call(_, (px, Constant() as c)) if (
                name in _AFFINE and px in pending and uses[x] == 1
            ):
                assert isinstance(rebuilt, Call)
                step = _fold_step(orig, pending[px], c, info)
                if step is None:
                    return None
                pending[rebuilt] = step
                return None
        return None

    rebuilt_body = rewrite_pairs(fn.body, visit)
    extended: set[Expr] = {p.layer for p in pending.values()}
    extended |= {e.args[0] for e in pending if isinstance(e, Call) and e.args[0] in pending}
    body = _materialise_ends(rebuilt_body, pending, extended)
    return Function(fn.params, body, fn.ret_type, fn.type_params, fn.attrs, span=fn.span)


def _materialise_ends(root: Expr, pending: dict[Expr, _Affine], extended: set[Expr]) -> Expr:
    """Replace each chain end (a pending node no other pending node extends) by its
    materialised form, whose layer reads the rewritten data."""
    done: dict[Expr, Expr] = {}
    for e in post_order(root):
        rebuilt = with_children(e, tuple(done[c] for c in children(e)))
        p = pending.get(e)
        if p is not None and e not in extended and not _is_identity(p):
            data = done[p.layer.args[0]]
            layer = with_children(p.layer, (data, *children(p.layer)[1:]))
            assert isinstance(layer, Call)
            rebuilt = _materialise(_Affine(layer, p.a, p.b))
        done[e] = rebuilt
    return done[root]


def _is_identity(p: _Affine) -> bool:
    return bool(np.all(p.a == 1) and np.all(p.b == 0))


def prepare(mod: IRModule) -> IRModule:
    """``SimplifyInference``, ``FoldConstant``, then ``fold_affine`` on ``@main``."""
    mod = FoldConstant().transform(SimplifyInference().transform(mod))
    info = infer_types(mod)
    fns = dict(mod.functions)
    gv = _main(mod)
    fns[gv] = fold_affine(mod.functions[gv], info)
    return IRModule(fns, mod.type_definitions)


def _main(mod: IRModule) -> GlobalVar:
    for gv in mod.functions:
        if gv.name == "main":
            return gv
    raise ValueError("quantize: the module has no @main")


# --------------------------------------------------------------------------------------------
# 2. annotate


@dataclass(frozen=True)
class Annotation:
    """What realize quantizes: the chosen calls and the points that need a scale."""

    chosen: frozenset[Call]
    points: tuple[Expr, ...]


def annotate(mod: IRModule, config: QConfig) -> Annotation:
    """The calls of ``@main`` to quantize and the points to calibrate (module docstring)."""
    fn = mod.functions[_main(mod)]
    info = infer_types(mod)
    params = set(fn.params)
    chosen: set[Call] = set()
    points: dict[Expr, None] = {}

    def calibratable(x: Expr) -> bool:
        return _is_f32(info.expr_types.get(x)) and set(free_vars(x)) <= params

    conv_index = 0
    for e in post_order(fn.body):
        match e:
            case Call(Op(name="nn.conv2d"), (x, Constant() as w), Conv2DAttrs() as a):
                index = conv_index
                conv_index += 1
                if (
                    index not in config.skip_conv_layers
                    and a.data_layout == "NCHW"
                    and a.kernel_layout == "OIHW"
                    and (a.out_layout or "NCHW") == "NCHW"
                    and (a.out_dtype or "float32") == "float32"
                    and w.data.dtype == np.float32
                    and calibratable(x)
                ):
                    chosen.add(e)
                    points[x] = None
            case Call(Op(name="nn.conv2d")):
                conv_index += 1
            case Call(Op(name="nn.dense"), (x, Constant() as w), DenseAttrs() as a) if (
                not config.skip_dense_layer
                and (a.out_dtype or "float32") == "float32"
                and w.data.dtype == np.float32
                and calibratable(x)
            ):
                chosen.add(e)
                points[x] = None
            case Call(Op(name="add"), (x, y)):
                for operand in (x, y):
                    if not isinstance(operand, Constant) and calibratable(operand):
                        points[operand] = None
            case _:
                pass
    return Annotation(frozenset(chosen), tuple(points))


# --------------------------------------------------------------------------------------------
# 3. calibrate


Dataset = Sequence[Sequence[npt.NDArray[np.generic]]]


def random_dataset(fn: Function, info: TypeInfo, count: int, seed: int) -> list[list[Array]]:
    """``count`` argument lists for ``fn``: standard normal float tensors."""
    rng = np.random.default_rng(seed)
    out: list[list[Array]] = []
    for _ in range(count):
        args: list[Array] = []
        for p in fn.params:
            t = info.expr_types.get(p, p.type_annotation)
            if not isinstance(t, TensorType) or not all(isinstance(d, int) for d in t.shape):
                raise ValueError(f"quantize: cannot draw calibration data for %{p.name_hint}")
            shape = tuple(int(str(d)) for d in t.shape)
            args.append(rng.standard_normal(shape).astype(t.dtype))
        out.append(args)
    return out


def calibrate(
    mod: IRModule, annotation: Annotation, config: QConfig, dataset: Dataset | None = None
) -> dict[Expr, int]:
    """The scale exponent of every point (module docstring, stage 3)."""
    if config.calibrate_mode == "global_scale":
        e = round(math.log2(config.global_scale)) - 7
        return {p: e for p in annotation.points}
    if not annotation.points:
        return {}
    from ...interpreter import evaluate

    fn = mod.functions[_main(mod)]
    if dataset is None:
        dataset = random_dataset(fn, infer_types(mod), config.calibration_samples, config.seed)
    probe = Function(fn.params, Tuple(annotation.points))
    probe_mod = IRModule({GlobalVar("main"): probe}, mod.type_definitions)
    stats = np.zeros(len(annotation.points))
    for args in dataset:
        result = evaluate(probe_mod, [TensorValue(np.asarray(a)) for a in args], fuel=None)
        value = result.value
        assert isinstance(value, TupleValue)
        for i, field_value in enumerate(value.fields):
            assert isinstance(field_value, TensorValue)
            magnitude = np.abs(np.asarray(field_value.data, dtype=np.float64))
            if magnitude.size == 0:
                continue
            if config.calibrate_mode == "max":
                stat = float(magnitude.max())
            else:
                stat = float(np.quantile(magnitude, config.percentile))
            stats[i] = max(stats[i], stat)
    return {p: power2_exponent(float(s)) for p, s in zip(annotation.points, stats, strict=True)}


# --------------------------------------------------------------------------------------------
# 4. realize


@dataclass(frozen=True)
class QValue:
    """An integer tensor ``expr`` of ``dtype`` that means ``expr * 2^exponent``."""

    expr: Expr
    dtype: str
    exponent: int


@dataclass
class Realizer:
    """Rewrites ``@main`` bottom-up; ``values`` maps each rewritten expression that stands for
    a quantized value to its ``QValue``."""

    annotation: Annotation
    scales: dict[Expr, int]
    config: QConfig
    info: TypeInfo
    values: dict[Expr, QValue] = field(default_factory=dict)
    memo: dict[tuple[Expr, str, int], Expr] = field(default_factory=dict)

    def shift_right(self, q: Expr, k: int) -> Expr:
        """``q * 2^-k`` in int32, rounded as configured (``k < 0``: a left shift)."""
        if k == 0:
            return q
        if k < 0:
            return call("left_shift", q, scalar(-k, "int32"))
        if self.config.rounding == "UPWARD":
            q = call("add", q, scalar(1 << (k - 1), "int32"))
        return call("right_shift", q, scalar(k, "int32"))

    def to_int32(self, v: QValue, exponent: int) -> Expr:
        """``v`` as int32 at ``2^exponent`` (``exponent >= v.exponent`` loses low bits)."""
        key = (v.expr, "int32", exponent)
        if key not in self.memo:
            q = v.expr if v.dtype == "int32" else call("cast", v.expr, dtype="int32")
            self.memo[key] = self.shift_right(q, exponent - v.exponent)
        return self.memo[key]

    def to_int8(self, x: Expr, exponent: int) -> Expr:
        """The rewritten value ``x`` (quantized or float) as int8 at ``2^exponent``."""
        v = self.values.get(x)
        if v is not None and v.dtype == "int8" and v.exponent == exponent:
            return v.expr
        key = (x, "int8", exponent)
        if key in self.memo:
            return self.memo[key]
        if v is None:
            scaled = call("multiply", x, scalar(2.0 ** (-exponent), "float32"))
            q: Expr = call("round", scaled)
        else:
            q = self.to_int32(v, exponent)
        out = call("cast", call("clip", q, a_min=-QMAX, a_max=QMAX), dtype="int8")
        self.memo[key] = out
        self.values[out] = QValue(out, "int8", exponent)
        return out

    def dequantize(self, x: Expr) -> Expr:
        """The float32 value of a rewritten expression (``x`` itself when it is float)."""
        v = self.values.get(x)
        if v is None:
            return x
        key = (x, "float32", v.exponent)
        if key not in self.memo:
            as_float = call("cast", v.expr, dtype="float32")
            self.memo[key] = call("multiply", as_float, scalar(2.0**v.exponent, "float32"))
        return self.memo[key]

    def quantized(self, e: Expr, dtype: str, exponent: int) -> Expr:
        self.values[e] = QValue(e, dtype, exponent)
        return e

    def visit(self, orig: Expr, rebuilt: Expr) -> Expr | None:
        kids = children(rebuilt)
        if not any(k in self.values for k in kids):
            if orig in self.annotation.chosen:
                return self.layer(orig, rebuilt)
            return None
        if isinstance(rebuilt, Call) and isinstance(rebuilt.op, Op):
            out = self.rule(orig, rebuilt, rebuilt.op.name)
            if out is not None:
                return out
        return with_children(rebuilt, tuple(self.dequantize(k) for k in kids))

    def layer(self, orig: Expr, rebuilt: Expr) -> Expr:
        """A chosen ``nn.conv2d`` or ``nn.dense``: int8 operands, int32 accumulation."""
        assert isinstance(orig, Call) and isinstance(rebuilt, Call)
        assert isinstance(rebuilt.op, Op) and rebuilt.attrs is not None
        x, w = rebuilt.args
        assert isinstance(w, Constant)
        ex = self.scales[orig.args[0]]
        ew = power2_exponent(float(np.abs(w.data).max()) if w.data.size else 0.0)
        x8 = self.to_int8(x, ex)
        w8 = Constant(quantize_array(w.data, ew, "int8"))
        assert isinstance(rebuilt.attrs, Conv2DAttrs | DenseAttrs)
        attrs = dataclasses.replace(rebuilt.attrs, out_dtype="int32")
        return self.quantized(Call(rebuilt.op, (x8, w8), attrs), "int32", ex + ew)

    def rule(self, orig: Expr, e: Call, name: str) -> Expr | None:
        if orig in self.annotation.chosen:
            return self.layer(orig, e)
        match name, e.args:
            case "nn.relu" | "nn.max_pool2d", (x,):
                v = self.values[x]
                return self.quantized(Call(e.op, (v.expr,), e.attrs), v.dtype, v.exponent)
            case "add", (x, y):
                return self.add(orig, x, y)
            case "nn.bias_add", (x, Constant() as b) if x in self.values:
                v = self.values[x]
                qb = self.constant_int32(b, v.exponent)
                if qb is None:
                    return None
                q = self.to_int32(v, v.exponent)
                return self.quantized(Call(e.op, (q, qb), e.attrs), "int32", v.exponent)
        return None

    def constant_int32(self, c: Constant, exponent: int) -> Constant | None:
        """``c`` at ``2^exponent`` as int32, or ``None`` if it does not fit."""
        if c.data.dtype != np.float32:
            return None
        scaled = np.abs(np.asarray(c.data, dtype=np.float64)) * 2.0 ** (-exponent)
        if scaled.size and not float(scaled.max()) < 2.0**30:
            return None
        return Constant(quantize_array(c.data, exponent, "int32"))

    def add(self, orig: Expr, x: Expr, y: Expr) -> Expr | None:
        assert isinstance(orig, Call)
        out_type = self.info.type_of(orig)
        vx, vy = self.values.get(x), self.values.get(y)
        operands: list[QValue] = []
        for v, operand, original in ((vx, x, orig.args[0]), (vy, y, orig.args[1])):
            if v is not None:
                if self.info.type_of(original) != out_type:
                    return None
                operands.append(v)
            elif isinstance(operand, Constant):
                other = vx or vy
                assert other is not None
                qc = self.constant_int32(operand, other.exponent)
                if qc is None:
                    return None
                operands.append(QValue(qc, "int32", other.exponent))
            elif original in self.scales and self.info.type_of(original) == out_type:
                q8 = self.to_int8(operand, self.scales[original])
                operands.append(self.values[q8])
            else:
                return None
        exponent = max(v.exponent for v in operands)
        qx, qy = (self.to_int32(v, exponent) for v in operands)
        return self.quantized(call("add", qx, qy), "int32", exponent)


def realize(
    mod: IRModule, annotation: Annotation, scales: dict[Expr, int], config: QConfig
) -> IRModule:
    """``@main`` rewritten to integer arithmetic (module docstring, stage 4)."""
    gv = _main(mod)
    fn = mod.functions[gv]
    realizer = Realizer(annotation, scales, config, infer_types(mod))
    body = rewrite_pairs(fn.body, realizer.visit)
    body = realizer.dequantize(body)
    fns = dict(mod.functions)
    fns[gv] = Function(fn.params, body, fn.ret_type, fn.type_params, fn.attrs, span=fn.span)
    return IRModule(fns, mod.type_definitions)


def quantize(
    mod: IRModule, config: QConfig | None = None, dataset: Dataset | None = None
) -> IRModule:
    """prepare → annotate → calibrate → realize (the module docstring)."""
    config = config or QConfig()
    mod = prepare(mod)
    annotation = annotate(mod, config)
    scales = calibrate(mod, annotation, config, dataset)
    return realize(mod, annotation, scales, config)


@register_pass
@dataclass(frozen=True)
class Quantize(Pass):
    """Quantize ``@main``'s float32 convolutions (and, unless skipped, dense layers) to int8
    with int32 accumulation and shift/clip requantization (the module docstring).

    Pre: well-typed, with an ``@main``. Post: well-typed, the same type for every global; the
    values approximate the input's within the bound of the module docstring (not equal: the
    pass changes the meaning on purpose, so ``relay fuzz`` does not hold it to equality).
    """

    config: QConfig = QConfig()
    dataset: tuple[tuple[npt.NDArray[np.generic], ...], ...] | None = None
    opt_level = 4
    approximate = True

    def transform(self, mod: IRModule) -> IRModule:
        if not any(gv.name == "main" for gv in mod.functions):
            return mod
        return quantize(mod, self.config, self.dataset)


__all__ = [
    "Annotation",
    "QConfig",
    "QValue",
    "Quantize",
    "annotate",
    "calibrate",
    "fold_affine",
    "power2_exponent",
    "prepare",
    "quantize",
    "quantize_array",
    "realize",
]
