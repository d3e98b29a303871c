"""A generator of differentiable programs for the AD oracle (``ad_oracle``).

``differentiable_programs()`` draws a well-typed module whose ``@main`` maps float64 tensors
to a float64 tensor through differentiable operators only, and arguments for it. Every value
in the body has one shape ``S`` (drawn: rank 1 to 3), so any value can feed any operator;
besides parameters of shape ``S`` it may take a bias of shape ``(S[-1],)`` and a weight
matrix for ``nn.dense`` (rank 2) or ``nn.batch_matmul`` (rank 3). A program is a sequence of
steps; each step binds a new value built by one of these constructs around one or two
operator templates:

    op         one to three templates nested, applied to earlier values
    if         if (sum(a) > 0) { t1 } else { t2 }
    closure    a local fn applied twice: %f(%f(a))
    ref        a cell updated through ref_write, then read
    tuple      a pair built and taken apart again
    fold       @foldl of a closure over a List built from earlier values (recursion)
    map        @map over a List, then @total adds the list up (two recursive globals)
    tree       @tree_fold over a polymorphic Tree[A] of earlier values (recursion on trees)
    ttree      @tt_eval of a monomorphic tree whose leaves hold tensors (a data type the
               higher-order gradient translates)
    repeat     a recursive global applying a template n times, counting an int32 down

The templates cover every gradient-rule family: elementwise, broadcasting (with the bias),
reductions kept and put back, shape round trips (transpose, reshape, concatenate/split,
stack, reverse, broadcast_to), ``nn.dense``/``nn.batch_matmul``/``nn.bias_add``, softmax,
activations. Operands are kept in a safe domain (``log(a*a + 1)``, ``exp(tanh(a))``), so the
program is finite on arguments in [-2, 2]; points where it is not differentiable (a ``relu``
at 0, a tie of ``max``, an ``if`` that flips) are rare and the oracle detects them. Programs
are built as text and parsed; every choice is a Hypothesis draw, so they shrink (fewer steps,
earlier templates in the lists).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

from relay.semantics.syntax import IRModule
from relay.semantics.text.parser import parse
from relay.semantics.values import TensorValue, Value

F = "float64"

UNARY = (
    "tanh({a})",
    "negative({a})",
    "sigmoid({a})",
    "exp(tanh({a}))",
    "log({a} * {a} + 1f64)",
    "sqrt({a} * {a} + 1f64)",
    "rsqrt({a} * {a} + 1f64)",
    "sin({a})",
    "cos({a})",
    "atan({a})",
    "erf({a})",
    "abs({a})",
    "nn.relu({a})",
    "nn.leaky_relu({a}, alpha=0.1f)",
    "clip({a}, a_min=-0.5f, a_max=0.5f)",
    "copy({a})",
    "nn.softmax({a}, axis={ax})",
    "nn.log_softmax({a}, axis={ax})",
    "asin(tanh({a}) * 0.9f64)",
    "acos(tanh({a}) * 0.9f64)",
    "sinh(tanh({a}))",
    "cosh(tanh({a}))",
    "asinh({a})",
    "acosh({a} * {a} + 1.5f64)",
    "atanh(tanh({a}) * 0.9f64)",
    "tan(tanh({a}))",
    "log2({a} * {a} + 1f64)",
    "log10({a} * {a} + 1f64)",
    "reverse({a}, axis={ax})",
    "reshape(reshape({a}, newshape=[-1]), newshape={shape})",
    "squeeze(expand_dims({a}, axis=0), axis=[0])",
    "cumsum({a}, axis={ax})",
    "broadcast_to(sum({a}, axis=[{ax}], keepdims=True), shape={shape})",
    "expand_dims(mean({a}, axis=[{ax}]), axis={ax}) * {a}",
)

BINARY = (
    "{a} * {b}",
    "{a} + {b}",
    "{a} - {b}",
    "{a} / ({b} * {b} + 1f64)",
    "maximum({a}, {b})",
    "minimum({a}, {b})",
    "power({a} * {a} + 0.5f64, tanh({b}))",
    "where({a} > {b}, {a} * {b}, {a} - {b})",
    "sum({a}, axis=[{ax}], keepdims=True) * {b}",
    "mean({a}, axis=[{ax}], keepdims=True) * {b}",
    "max({a}, axis=[{ax}], keepdims=True) + {b}",
    "min({a}, axis=[{ax}], keepdims=True) * {b}",
    "prod(tanh({a}) + 2f64, axis=[{ax}], keepdims=True) * {b}",
    "variance({a}, mean({a}, axis=[{ax}], keepdims=True), axis=[{ax}], keepdims=True) + {b}",
    "sum({a}) * {b}",
    "split(concatenate(({a}, {b}), axis={ax}), indices_or_sections=2, axis={ax}).{i}",
    "sum(stack(({a}, {b}), axis={ax}), axis=[{ax}])",
    "{a} * {bias}",
    "{a} + {bias}",
    "nn.bias_add({a}, {bias}, axis=-1) * {b}",
    "collapse_sum_like({a} * {b}, {bias}) * {b}",
)

RANK2 = (
    "nn.dense({a}, {w}, units={k})",
    "nn.matmul({a}, {w}, units=None, transpose_b=True)",
    "transpose(transpose({a}, axes=[1, 0]) * transpose({b}, axes=[1, 0]), axes=[1, 0])",
    "nn.cross_entropy(nn.softmax({a}, axis=1), nn.softmax({b}, axis=1)) * {b}",
    "nn.prelu({a}, {bias}, axis=1)",
)

RANK3 = (
    "nn.batch_matmul({a}, {w}, transpose_a=False, transpose_b=True)",
    "transpose(transpose({a}, axes=[1, 2, 0]), axes=[2, 0, 1])",
)

CONSTRUCTS = ("op", "if", "closure", "ref", "tuple", "fold", "map", "tree", "ttree", "repeat")
DATAFLOW = ("op", "tuple")
"""The constructs of dataflow graphs (what the first-order gradient accepts)."""

LIST = "type List[A] { Cons(A, List[A]), Nil }"
TREE = "type Tree[A] { Leaf(A), Node(Tree[A], Tree[A]) }"
DEFS = {
    "foldl": (
        "def @foldl[A, B](%f: fn (A, B) -> A, %acc: A, %l: List[B]) -> A {\n"
        "  match (%l) { Cons(%h, %t) => @foldl(%f, %f(%acc, %h), %t), Nil => %acc }\n}"
    ),
    "map": (
        "def @map[A, B](%f: fn (A) -> B, %l: List[A]) -> List[B] {\n"
        "  match (%l) { Cons(%h, %t) => Cons(%f(%h), @map(%f, %t)), Nil => Nil }\n}"
    ),
    "total": (
        "def @total(%l: List[{T}], %zero: {T}) -> {T} {\n"
        "  match (%l) { Cons(%h, %t) => %h + @total(%t, %zero), Nil => %zero }\n}"
    ),
    "tree_fold": (
        "def @tree_fold[A](%f: fn (A, A) -> A, %g: fn (A) -> A, %t: Tree[A]) -> A {\n"
        "  match (%t) {\n    Leaf(%x) => %g(%x),\n"
        "    Node(%l, %r) => %f(@tree_fold(%f, %g, %l), @tree_fold(%f, %g, %r)),\n  }\n}"
    ),
}


@dataclass(frozen=True)
class DiffCase:
    """A differentiable program (``@main`` over float64 tensors) and arguments for it."""

    mod: IRModule
    args: tuple[Value, ...]
    text: str

    def __repr__(self) -> str:
        return "DiffCase(\n" + self.text + "\n)"


def _type(shape: tuple[int, ...]) -> str:
    return f"Tensor[({', '.join(map(str, shape))}{',' if len(shape) == 1 else ''}), {F}]"


class _Builder:
    def __init__(self, draw: st.DrawFn, shape: tuple[int, ...]) -> None:
        self.draw = draw
        self.shape = shape
        self.t = _type(shape)
        self.lines: list[str] = []
        self.pool: list[str] = []
        self.defs: dict[str, str] = {}
        self.types: set[str] = set()
        self.extra: dict[str, tuple[int, ...]] = {}
        self.counter = 0

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"%{prefix}{self.counter}"

    def operand(self) -> str:
        # Recent values more often: deeper chains, and every step tends to be used.
        n = len(self.pool)
        back = self.draw(st.integers(0, min(n - 1, 3)))
        return self.pool[n - 1 - back]

    def param(self, name: str, shape: tuple[int, ...]) -> str:
        self.extra.setdefault(name, shape)
        return f"%{name}"

    def template(self, a: str, b: str, *, in_global: bool = False) -> str:
        """A template applied to ``a`` and ``b``; ``in_global``: none that needs a parameter
        of ``@main`` (the bias or the weight), for the body of another global."""
        rank = len(self.shape)
        groups: list[tuple[str, ...]] = [UNARY, BINARY]
        if rank == 2:
            groups.append(RANK2)
        if rank == 3:
            groups.append(RANK3)
        if in_global:
            groups = [tuple(c for c in g if "{bias}" not in c and "{w}" not in c) for g in groups]
        # A family first, then a template of it: the few rank-specific templates (dense,
        # matmul) come up as often as a family, not as one template among sixty.
        group = self.draw(st.sampled_from([g for g in groups if g]))
        text = self.draw(st.sampled_from(group))
        fields = {
            "a": a,
            "b": b,
            "ax": self.draw(st.integers(0, rank - 1)),
            "i": self.draw(st.integers(0, 1)),
            "shape": "[" + ", ".join(map(str, self.shape)) + "]",
            "k": self.shape[-1],
        }
        if "{bias}" in text:
            fields["bias"] = self.param("bias", (self.shape[-1],))
        if "{w}" in text:
            k = self.shape[-1]
            fields["w"] = self.param("w", (k, k) if rank == 2 else (self.shape[0], k, k))
        return text.format(**fields)

    def step(self, constructs: tuple[str, ...]) -> None:
        kind = self.draw(st.sampled_from(constructs))
        a, b = self.operand(), self.operand()
        out = self.fresh("v")
        t = self.t
        match kind:
            case "op":  # one to three templates nested: more rules per program
                e = self.template(a, b)
                for _ in range(self.draw(st.integers(0, 2))):
                    e = self.template(e, self.operand())
                self.lines.append(f"let {out} = {e};")
            case "if":
                t1, t2 = self.template(a, b), self.template(b, a)
                self.lines.append(f"let {out} = if (sum({a}) > 0f64) {{ {t1} }} else {{ {t2} }};")
            case "closure":
                f, z = self.fresh("f"), self.fresh("z")
                body = self.template(z, b)
                self.lines.append(f"let {f} = fn ({z}: {t}) -> {t} {{ {body} }};")
                self.lines.append(f"let {out} = {f}({f}({a}));")
            case "ref":
                r = self.fresh("r")
                self.lines.append(f"let {r} = ref({a});")
                update = self.template(f"ref_read({r})", b)
                self.lines.append(f"let %_ = ref_write({r}, {update});")
                self.lines.append(f"let {out} = ref_read({r});")
            case "tuple":
                p = self.fresh("t")
                self.lines.append(f"let {p} = ({self.template(a, b)}, {b});")
                self.lines.append(f"let {out} = {p}.0 * {p}.1;")
            case "fold":
                self.types.add(LIST)
                self.defs["foldl"] = DEFS["foldl"]
                acc, x = self.fresh("acc"), self.fresh("x")
                body = self.template(acc, x)
                c = self.operand()
                self.lines.append(
                    f"let {out} = @foldl(fn ({acc}: {t}, {x}: {t}) -> {t} {{ {body} }}, {a}, "
                    f"Cons({b}, Cons({c}, Nil)));"
                )
            case "map":
                self.types.add(LIST)
                self.defs["map"] = DEFS["map"]
                self.defs["total"] = DEFS["total"].replace("{T}", t)
                x = self.fresh("x")
                body = self.template(x, b)
                self.lines.append(
                    f"let {out} = @total(@map(fn ({x}: {t}) -> {t} {{ {body} }}, "
                    f"Cons({a}, Cons({b}, Nil))), zeros_like({a}));"
                )
            case "tree":
                self.types.add(TREE)
                self.defs["tree_fold"] = DEFS["tree_fold"]
                left, right, x = self.fresh("l"), self.fresh("r"), self.fresh("x")
                join, leaf = self.template(left, right), self.template(x, b)
                c = self.operand()
                self.lines.append(
                    f"let {out} = @tree_fold(fn ({left}: {t}, {right}: {t}) -> {t} {{ {join} }}, "
                    f"fn ({x}: {t}) -> {t} {{ {leaf} }}, "
                    f"Node(Leaf({a}), Node(Leaf({b}), Leaf({c}))));"
                )
            case "ttree":
                self.types.add(f"type TTree {{ TLeaf({t}), TNode(TTree, TTree) }}")
                x = "%x"
                leaf = self.template(x, x, in_global=True)
                join = self.template("@tt_eval(%l)", "@tt_eval(%r)", in_global=True)
                self.defs["tt_eval"] = (
                    f"def @tt_eval(%tt: TTree) -> {t} {{\n  match (%tt) {{\n"
                    f"    TLeaf({x}) => {leaf},\n    TNode(%l, %r) => {join},\n  }}\n}}"
                )
                self.lines.append(f"let {out} = @tt_eval(TNode(TLeaf({a}), TLeaf({b})));")
            case "repeat":
                name = f"@rep{self.counter}"
                body = self.template("%x", "%y", in_global=True)
                self.defs[name] = (
                    f"def {name}(%x: {t}, %y: {t}, %n: int32) -> {t} {{\n"
                    f"  if (%n > 0) {{ {name}({body}, %y, %n - 1) }} else {{ %x }}\n}}"
                )
                n = self.draw(st.integers(0, 3))
                self.lines.append(f"let {out} = {name}({a}, {b}, {n});")
        self.pool.append(out)


@st.composite
def differentiable_programs(
    draw: st.DrawFn,
    *,
    max_steps: int = 5,
    max_params: int = 3,
    constructs: tuple[str, ...] = CONSTRUCTS,
) -> DiffCase:
    """A ``DiffCase``: a differentiable program and float64 arguments in [-2, 2] (see the
    module docstring), built from ``constructs`` (``DATAFLOW`` for dataflow graphs only).
    Shrinks towards fewer steps, fewer parameters and rank 1."""
    shape = draw(st.sampled_from([(3,), (2, 3), (2, 2, 3), (1,), (3, 2)]))
    n_params = draw(st.integers(1, max_params))
    b = _Builder(draw, shape)
    b.pool = [f"%p{i}" for i in range(n_params)]
    for _ in range(draw(st.integers(1, max_steps))):
        b.step(constructs)
    params = [f"%p{i}: {b.t}" for i in range(n_params)]
    params += [f"%{name}: {_type(s)}" for name, s in b.extra.items()]
    body = "\n  ".join([*b.lines, b.pool[-1]])
    text = "\n".join(
        [
            '#[version = "0.0.5"]',
            *sorted(b.types),
            *b.defs.values(),
            f"def @main({', '.join(params)}) -> {b.t} {{\n  {body}\n}}",
            "",
        ]
    )
    mod = parse(text, "<generated>")
    shapes = [shape] * n_params + list(b.extra.values())
    args = tuple(draw(_tensor(s)) for s in shapes)
    return DiffCase(mod, args, text)


def _tensor(shape: tuple[int, ...]) -> st.SearchStrategy[Value]:
    size = math.prod(shape)
    elements = st.floats(-2.0, 2.0, allow_nan=False, allow_infinity=False, width=64)
    return st.lists(elements, min_size=size, max_size=size).map(
        lambda xs: TensorValue(np.array(xs, dtype=np.float64).reshape(shape))
    )
