"""SimplifyExpr: exact algebraic and structural simplifications of operator calls.

TVM 0.18's ``SimplifyExpr`` (``src/relay/transforms/simplify_expr.cc``) is a set of dataflow
pattern rewrites applied to a fixpoint; this pass keeps the exact ones. Each rule below is a
function ``rule_*`` whose docstring gives the rewrite. Every rule needs the types of the
matched expressions: the pass runs ``infer_types`` once and keeps a table of types by node,
which the driver extends to every node it builds (a rewrite never changes an expression's
type). The rules, in Relay text (``T(e)`` is the inferred type of ``e``; a *static* shape has
only integer dimensions; a *pure* expression is one ``ir.is_pure`` accepts)::

    pattern                                  result                      side condition
    ---------------------------------------  --------------------------  -----------------------
    reshape(x) | squeeze(x) | expand_dims(x) x                           T(x) == T(result), no ?
    S2(S1(x)), S1, S2 in reshape, squeeze,   reshape(x, newshape=shape)  T(result) static
      expand_dims, reshape_like(_, pure y)
    squeeze(expand_dims(x, axis=a,           x                           the squeezed axes are
      num_newaxis=n), axis=[a, .., a+n-1])                                exactly the new ones
    expand_dims(squeeze(x, axis=[a, .., b]), x                           the axes are consecutive
      axis=a, num_newaxis=b-a+1)                                          (b - a + 1 of them)
    cast(x, dtype=d)                         x                           dtype(x) == d
    cast(cast(x, dtype=a), dtype=b)          cast(x, dtype=b)            dtype(x) -> a is exact
    transpose(x, axes=p)                     x                           p is the identity
    transpose(transpose(x, axes=p), axes=q)  transpose(x, axes=p[q])     (x when p[q] = id)
    zeros_like(y) | ones_like(y)             zeros | ones(shape, dtype)  T(y) static, y pure
    full_like(y, v)                          full(v, shape, dtype)       T(y) static, y pure,
                                                                          not (bool <- float)
    reshape_like(x, y)                       reshape(x, newshape)        T(result) static, y pure
    broadcast_to_like(x, y)                  broadcast_to(x, shape)      T(result) static, y pure
    add(x, Z) | add(Z, x) | subtract(x, Z)   x                           T(x) == T(result)
    multiply(x, O) | multiply(O, x)          x                           T(x) == T(result)
      | divide(x, O)
    op(F, x) | op(x, F), op a binary         op(c, x) | op(x, c)          T(x) == T(result)
      broadcast operator, F = full(c) | zeros | ones, c constant

``Z`` is a constant whose every element is zero, ``zeros(...)``, or ``zeros_like(y)`` of a
pure ``y``; ``O`` likewise with one. ``p[q]`` is the composed permutation ``i -> p[q[i]]``.

Why each is exact:

- *Shape-only chains.* ``reshape``, ``squeeze``, ``expand_dims`` and ``reshape_like`` keep the
  elements in row-major order and change only the shape, so a chain of them is one reshape to
  the final shape, and one whose output shape equals its input shape is the identity. The
  final shape must be static (TVM's SimplifyReshape asks the same) because ``newshape`` holds
  integers; ``allowzero`` is set when it has a 0, so that the 0 means an empty axis. The
  identity rule refuses ``?``: two ``?`` in equal types need not be the same size at run time
  (a symbolic size is one size wherever it occurs, so symbols are fine). If an inner step
  fails at run time (a reshape whose ``?`` sizes do not multiply out), the input program is
  undefined and any result is acceptable. The squeeze/expand_dims pairs hold with ``?`` too:
  the axes are put back where they were taken (a squeezed axis whose size is ``?`` must be 1
  at run time, or the input is undefined).
- *Casts.* A cast to the dtype the value already has is the identity. ``cast(cast(x, a), b)``
  is ``cast(x, b)`` when ``dtype(x) -> a`` represents every value of ``dtype(x)`` exactly
  (``exact_widening``): bool to anything; an integer to an integer of the same signedness
  and at least as many bits, or unsigned to a signed integer of more bits; an integer to a
  float whose significand holds all of its values (8-bit integers to float16; up to 16 bits to
  float32; up to 32 bits to float64); a float to a wider float. Then ``a -> b`` sees exactly
  the value ``x`` had, so it converts as ``dtype(x) -> b`` does (one rounding, the same
  truncation; a float-to-integer conversion that overflows is undefined in the input, and any
  result is acceptable). A narrowing first cast is never removed. TVM's ``IsWidenCast`` also
  called int8 -> uint8 and int32 -> float32 widening; neither is exact (-1 becomes 255;
  2**24 + 1 rounds), so they are not.
- *Transposes.* Composition of permutations; a permutation that is the identity does nothing.
- *Concretising ``*_like``.* With a static type the shape is known at compile time, so
  ``zeros_like(y)`` is ``zeros`` of that shape and dtype (TVM's ConcretizeLikeRewrite). The
  argument ``y`` is no longer evaluated, so it must be pure (TVM did not check: it dropped
  effects). ``full_like`` converts its fill value with the cast rules of ``cast`` and ``full``
  with those of its own reference; they agree except for a float fill value converted to
  bool (``full_like`` gives NaN -> False, ``full`` NaN -> True), which is left alone.
- *Identities.* ``x * 1``, ``x / 1`` and ``x - 0.0`` are exact in every dtype (NaN,
  infinities and -0.0 included; integer arithmetic cannot overflow). ``x + 0.0`` is exact
  except that ``-0.0 + 0.0`` is ``+0.0`` (and so is ``-0.0 - (-0.0)``): the value
  comparison (``oracles/compare.py``) treats zeros of either sign as equal, as IEEE ``==``
  does, and TVM made the same trade; ``x + (-0.0)`` is exact outright. The constant may be
  any shape that broadcasts into ``x`` without growing it or changing its dtype: the rule
  requires the result type to equal ``T(x)``.
- *Fill into a broadcast operator* (TVM's FullElementwise). ``op(full(c, shape), x)`` applies
  ``op`` elementwise to ``c`` and the elements of ``x``, as ``op(c, x)`` does; the fill is
  evaluated at compile time with ``full``'s own reference (so a ``dtype`` attribute converts
  ``c`` exactly as ``full`` would), and the rule requires the result type to equal ``T(x)`` so
  that the fill did not widen the shape. TVM took the scalar's dtype from the result, which
  for comparisons is bool; here it is the fill's.

Not kept from TVM: the rewrites that are not exact (``SimplifyRSqrt``; ``SwitchAddMultiply``,
``SimplifyAdjacentMultiplyOrAdd`` and ``SimplifyBinomial`` reassociate float arithmetic),
``SimplifyAdd`` (``x + x`` to ``x * 2``: exact, but not among the rules asked for here), the
``layout_transform`` cases of SimplifyTranspose, ``collapse_sum_like`` (``collapse_sum_to`` is
not registered), ``cast_like`` (not registered) and the quantization and clip rules.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ...semantics.errors import RelayError
from ...semantics.ops import OPS, OpPattern
from ...semantics.ops.create import InitOpAttrs
from ...semantics.ops.elementwise import CastAttrs
from ...semantics.ops.registry import Attrs, Tensor
from ...semantics.ops.shape import ExpandDimsAttrs, ReshapeAttrs, SqueezeAttrs, TransposeAttrs
from ...semantics.syntax import (
    AnyDim,
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    IRModule,
    Op,
    TensorType,
    Type,
)
from ...semantics.typing import infer_types
from ..ir import is_pure, map_functions, rewrite_pairs
from ..pass_manager import Pass, register_pass

Rule = Callable[["Simplifier", Call], Expr | None]

SHAPE_ONLY = frozenset({"reshape", "squeeze", "expand_dims", "reshape_like"})
"""Operators that keep the elements in row-major order and change only the shape."""

MAX_STEPS_PER_NODE = 16
"""How many rules may fire in a row at one node (each firing shrinks the program)."""


def op_name(e: Expr) -> str | None:
    """The operator ``e`` calls, if it is an operator call."""
    if isinstance(e, Call) and isinstance(e.op, Op):
        name: str = e.op.name
        return name
    return None


def static_shape(t: Type | None) -> tuple[int, ...] | None:
    """The shape of a tensor type whose dimensions are all integers."""
    if not isinstance(t, TensorType):
        return None
    dims = [d for d in t.shape if isinstance(d, int)]
    return tuple(dims) if len(dims) == len(t.shape) else None


def no_any(t: Type | None) -> bool:
    """Whether ``t`` is a tensor type without ``?`` dimensions."""
    return isinstance(t, TensorType) and not any(isinstance(d, AnyDim) for d in t.shape)


_FLOAT_SIGNIFICAND = {"float16": 11, "float32": 24, "float64": 53}


def exact_widening(source: str, target: str) -> bool:
    """Whether ``cast`` from ``source`` to ``target`` represents every value exactly."""
    if source == target or source == "bool":
        return True
    s, t = np.dtype(source), np.dtype(target)
    if t.kind == "b":
        return False
    if s.kind == "f":
        return t.kind == "f" and t.itemsize >= s.itemsize
    # An integer dtype: how many bits its largest magnitude needs (2**(n-1) for a signed one).
    bits = 8 * s.itemsize - (1 if s.kind == "i" else 0)
    if t.kind == "f":
        return bits <= _FLOAT_SIGNIFICAND[target]
    if s.kind == t.kind:
        return t.itemsize >= s.itemsize
    return s.kind == "u" and t.kind == "i" and t.itemsize > s.itemsize


def fill_value(e: Expr, wanted: float) -> bool:
    """Whether ``e`` is a constant all of whose elements equal ``wanted``, or a ``zeros`` /
    ``ones`` call (``zeros_like`` / ``ones_like`` of a pure argument) that fills with it."""
    if isinstance(e, Constant):
        data = e.data
        if data.size == 0 or data.dtype.kind not in "biuf":
            return False
        return bool(np.all(data == wanted))
    name = op_name(e)
    assert name is None or isinstance(e, Call)
    if name in ("zeros", "ones"):
        return (name == "zeros") == (wanted == 0)
    if name in ("zeros_like", "ones_like") and isinstance(e, Call) and is_pure(e.args[0]):
        return (name == "zeros_like") == (wanted == 0)
    return False


@dataclass
class Simplifier:
    """The rules' shared state: the type of every node seen or built, by identity."""

    types: dict[Expr, Type]
    keep: list[Expr]

    def type_of(self, e: Expr) -> Type | None:
        return self.types.get(e)

    def typed(self, e: Expr, t: Type | None) -> Expr:
        """Record ``t`` as the type of the new node ``e``; return ``e``."""
        if t is not None:
            self.types[e] = t
            self.keep.append(e)
        return e

    def call(self, name: str, args: tuple[Expr, ...], attrs: Attrs | None, t: Type | None) -> Call:
        out = Call(Op(name), args, attrs)
        self.typed(out, t)
        return out

    def reshape_to(self, x: Expr, shape: tuple[int, ...], t: Type | None) -> Call:
        return self.call("reshape", (x,), ReshapeAttrs(shape, 0 in shape), t)


# ---------------------------------------------------------------------------------------------
# The rules


def rule_shape_identity(s: Simplifier, e: Call) -> Expr | None:
    """``reshape(x) | squeeze(x) | expand_dims(x)`` -> ``x`` when the output type equals the
    input type and has no ``?``."""
    if op_name(e) not in ("reshape", "squeeze", "expand_dims"):
        return None
    (x,) = e.args
    t, u = s.type_of(x), s.type_of(e)
    if t is not None and t == u and no_any(t):
        return x
    return None


def rule_shape_chain(s: Simplifier, e: Call) -> Expr | None:
    """``S2(S1(x))`` -> ``reshape(x, newshape=T(result).shape)`` for shape-only ``S1``, ``S2``
    when the result's shape is static (a ``reshape_like``'s second argument must be pure)."""
    if op_name(e) not in SHAPE_ONLY or op_name(e.args[0]) not in SHAPE_ONLY:
        return None
    inner = e.args[0]
    assert isinstance(inner, Call)
    if op_name(e) == "reshape_like" and not is_pure(e.args[1]):
        return None
    if op_name(inner) == "reshape_like" and not is_pure(inner.args[1]):
        return None
    shape = static_shape(s.type_of(e))
    if shape is None:
        return None
    return s.reshape_to(inner.args[0], shape, s.type_of(e))


def _axes(axes: tuple[int, ...] | None, ndim: int) -> list[int] | None:
    if axes is None:
        return None
    return sorted(a + ndim if a < 0 else a for a in axes)


def rule_squeeze_expand_dims(s: Simplifier, e: Call) -> Expr | None:
    """``squeeze(expand_dims(x, axis=a, num_newaxis=n), axis=[a, .., a+n-1])`` -> ``x``, and
    ``expand_dims(squeeze(x, axis=[a, .., a+n-1]), axis=a, num_newaxis=n)`` -> ``x``."""
    outer = op_name(e)
    if outer not in ("squeeze", "expand_dims"):
        return None
    pair = (outer, op_name(e.args[0]))
    if pair not in (("squeeze", "expand_dims"), ("expand_dims", "squeeze")):
        return None
    mid = e.args[0]
    assert isinstance(mid, Call)
    x = mid.args[0]
    wide = s.type_of(mid) if outer == "squeeze" else s.type_of(x)
    narrow = s.type_of(x) if outer == "squeeze" else s.type_of(mid)
    if not isinstance(wide, TensorType) or not isinstance(narrow, TensorType):
        return None
    expand = mid if outer == "squeeze" else e
    squeeze = e if outer == "squeeze" else mid
    ea, sa = expand.attrs, squeeze.attrs
    if not isinstance(ea, ExpandDimsAttrs) or not isinstance(sa, SqueezeAttrs):
        return None
    n = ea.num_newaxis
    a = ea.axis + len(narrow.shape) + 1 if ea.axis < 0 else ea.axis
    squeezed = _axes(sa.axis, len(wide.shape))
    if n == 0 or squeezed != list(range(a, a + n)):
        return None
    if s.type_of(x) != s.type_of(e):
        return None
    return x


def rule_same_cast(s: Simplifier, e: Call) -> Expr | None:
    """``cast(x, dtype=d)`` -> ``x`` when ``x`` already has dtype ``d``."""
    if op_name(e) != "cast" or not isinstance(e.attrs, CastAttrs):
        return None
    t = s.type_of(e.args[0])
    if isinstance(t, TensorType) and t.dtype == e.attrs.dtype:
        return e.args[0]
    return None


def rule_consecutive_cast(s: Simplifier, e: Call) -> Expr | None:
    """``cast(cast(x, dtype=a), dtype=b)`` -> ``cast(x, dtype=b)`` when ``dtype(x) -> a`` is
    an exact widening."""
    if op_name(e) != "cast" or op_name(e.args[0]) != "cast":
        return None
    inner = e.args[0]
    assert isinstance(inner, Call)
    x = inner.args[0]
    t, mid = s.type_of(x), s.type_of(inner)
    if not isinstance(t, TensorType) or not isinstance(mid, TensorType):
        return None
    if not exact_widening(t.dtype, mid.dtype):
        return None
    return s.call("cast", (x,), e.attrs, s.type_of(e))


def _perm(e: Call, ndim: int) -> list[int] | None:
    a = e.attrs
    if not isinstance(a, TransposeAttrs):
        return None
    if a.axes is None:
        return list(reversed(range(ndim)))
    return [p + ndim if p < 0 else p for p in a.axes]


def rule_noop_transpose(s: Simplifier, e: Call) -> Expr | None:
    """``transpose(x, axes=p)`` -> ``x`` when ``p`` is the identity permutation."""
    if op_name(e) != "transpose":
        return None
    t = s.type_of(e)
    if not isinstance(t, TensorType):
        return None
    if _perm(e, len(t.shape)) == list(range(len(t.shape))):
        return e.args[0]
    return None


def rule_transpose_chain(s: Simplifier, e: Call) -> Expr | None:
    """``transpose(transpose(x, axes=p), axes=q)`` -> ``transpose(x, axes=[p[q[i]] ..])``."""
    if op_name(e) != "transpose" or op_name(e.args[0]) != "transpose":
        return None
    inner = e.args[0]
    assert isinstance(inner, Call)
    t = s.type_of(e)
    if not isinstance(t, TensorType):
        return None
    ndim = len(t.shape)
    p, q = _perm(inner, ndim), _perm(e, ndim)
    if p is None or q is None:
        return None
    composed = tuple(p[i] for i in q)
    return s.call("transpose", (inner.args[0],), TransposeAttrs(composed), t)


def rule_concretize_like(s: Simplifier, e: Call) -> Expr | None:
    """``zeros_like(y)`` -> ``zeros(shape, dtype)``, ``ones_like`` alike, ``full_like(y, v)`` ->
    ``full(v, shape, dtype)``, ``reshape_like(x, y)`` -> ``reshape(x, newshape)``,
    ``broadcast_to_like(x, y)`` -> ``broadcast_to(x, shape)``: when the result's shape is
    static and ``y`` is pure."""
    name = op_name(e)
    if name not in ("zeros_like", "ones_like", "full_like", "reshape_like", "broadcast_to_like"):
        return None
    t = s.type_of(e)
    shape = static_shape(t)
    like = e.args[1] if name in ("reshape_like", "broadcast_to_like") else e.args[0]
    if shape is None or not isinstance(t, TensorType) or not is_pure(like):
        return None
    match name:
        case "zeros_like" | "ones_like":
            return s.call(name[: -len("_like")], (), InitOpAttrs(shape, t.dtype), t)
        case "full_like":
            fill = s.type_of(e.args[1])
            if not isinstance(fill, TensorType):
                return None
            if t.dtype == "bool" and fill.dtype.startswith("float"):
                return None  # full and full_like convert NaN to bool differently
            return s.call("full", (e.args[1],), InitOpAttrs(shape, t.dtype), t)
        case "reshape_like":
            return s.reshape_to(e.args[0], shape, t)
        case _:
            return s.call("broadcast_to", (e.args[0],), InitOpAttrs(shape, ""), t)


def rule_identity(s: Simplifier, e: Call) -> Expr | None:
    """``add(x, Z)``, ``add(Z, x)``, ``subtract(x, Z)``, ``multiply(x, O)``,
    ``multiply(O, x)``, ``divide(x, O)`` -> ``x`` when ``T(x)`` is the result type."""
    name = op_name(e)
    if name not in ("add", "subtract", "multiply", "divide"):
        return None
    neutral = 0.0 if name in ("add", "subtract") else 1.0
    lhs, rhs = e.args
    candidates = [(lhs, rhs)]
    if name in ("add", "multiply"):
        candidates.append((rhs, lhs))
    t = s.type_of(e)
    for x, c in candidates:
        if t is not None and s.type_of(x) == t and fill_value(c, neutral):
            return x
    return None


_BINARY_BROADCAST = frozenset(
    name
    for name, op in OPS.items()
    if op.pattern == OpPattern.BROADCAST
    and op.relation_name in ("Broadcast", "BroadcastComp")
    and op.num_inputs == 2
)


def _fill_scalar(e: Expr) -> Constant | None:
    """The scalar a ``full(c)`` (constant ``c``), ``zeros`` or ``ones`` call fills with,
    computed by the operator's own reference."""
    name = op_name(e)
    if name not in ("full", "zeros", "ones") or not isinstance(e, Call):
        return None
    a = e.attrs
    if not isinstance(a, InitOpAttrs) or a.shape is None:
        return None
    scalar = InitOpAttrs((), a.dtype)
    args: tuple[Tensor, ...] = ()
    if name == "full":
        if not isinstance(e.args[0], Constant):
            return None
        args = (e.args[0].data,)
    reference = OPS[name].reference
    assert reference is not None
    try:
        with np.errstate(all="ignore"):
            out = reference(args, scalar)
    except RelayError:
        return None
    assert isinstance(out, np.ndarray)
    return Constant(np.asarray(out))


def rule_fill_operand(s: Simplifier, e: Call) -> Expr | None:
    """``op(full(c), x)`` -> ``op(c', x)`` (and mirrored) for a binary broadcast ``op``, where
    ``full(c)`` is ``full`` of a constant, ``zeros`` or ``ones`` and ``c'`` is its scalar fill;
    when ``T(x)`` is the result's type."""
    name = op_name(e)
    if name not in _BINARY_BROADCAST or len(e.args) != 2:
        return None
    t = s.type_of(e)
    lhs, rhs = e.args
    for i, (fill, x) in enumerate(((lhs, rhs), (rhs, lhs))):
        tx = s.type_of(x)
        if not isinstance(tx, TensorType) or not isinstance(t, TensorType):
            continue
        if tx.shape != t.shape:
            continue
        c = _fill_scalar(fill)
        if c is None:
            continue
        s.typed(c, TensorType((), c.data.dtype.name))
        args = (c, x) if i == 0 else (x, c)
        return s.typed(Call(e.op, args, e.attrs, e.type_args, span=e.span), t)
    return None


RULES: tuple[Rule, ...] = (
    rule_same_cast,
    rule_consecutive_cast,
    rule_noop_transpose,
    rule_transpose_chain,
    rule_shape_identity,
    rule_squeeze_expand_dims,
    rule_shape_chain,
    rule_concretize_like,
    rule_identity,
    rule_fill_operand,
)
"""Every rule, in the order they are tried at a node."""


def simplify_node(s: Simplifier, e: Expr) -> Expr | None:
    """Apply the rules at ``e`` until none fires; ``None`` when none fired at all."""
    out: Expr | None = None
    current = e
    for _ in range(MAX_STEPS_PER_NODE):
        if not isinstance(current, Call) or not isinstance(current.op, Op):
            break
        for rule in RULES:
            replacement = rule(s, current)
            if replacement is not None:
                current = out = replacement
                break
        else:
            break
    return out


def simplify_function(fn: Function, s: Simplifier) -> Function:
    """``fn`` with every rule applied bottom-up to a fixpoint at each node."""

    def visit(original: Expr, rebuilt: Expr) -> Expr | None:
        t = s.types.get(original)
        if rebuilt is not original:
            s.typed(rebuilt, t)
        out = simplify_node(s, rebuilt)
        if out is not None and out not in s.types:
            s.typed(out, t)
        return out

    out = rewrite_pairs(fn, visit)
    assert isinstance(out, Function)
    return out


@register_pass
@dataclass(frozen=True)
class SimplifyExpr(Pass):
    """Apply the exact rewrite rules of the module docstring, bottom-up, to a fixpoint.

    Pre: well-typed. Post: the same meaning (bit for bit, except that ``x + 0.0`` may turn a
    -0.0 into +0.0) and the same type of every expression; no rule applies at any node
    (a rewrite that exposes a new match above an already visited node is not revisited).
    """

    opt_level = 0
    focus_ops = frozenset(
        {
            "reshape",
            "squeeze",
            "expand_dims",
            "reshape_like",
            "cast",
            "transpose",
            "zeros_like",
            "ones_like",
            "full_like",
            "broadcast_to_like",
            "zeros",
            "ones",
            "full",
            "add",
            "subtract",
            "multiply",
            "divide",
        }
    )

    def transform(self, mod: IRModule) -> IRModule:
        info = infer_types(mod)
        s = Simplifier(dict(info.expr_types), [])

        def one(_: GlobalVar, fn: Function) -> Function:
            return simplify_function(fn, s)

        return map_functions(mod, one)
