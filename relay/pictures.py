"""Pictures of programs: a function's dataflow graph with its fused groups (``relay show``).

``dataflow_graph(mod, name)`` runs ``FuseOps`` on the module (unless ``fuse=False``) and
describes the function ``@name`` as a graph (``Picture``): one node per computation, an edge
from each value to each use, and a cluster per group of operator calls that ``FuseOps`` made
into one ``Primitive`` function (the kernel a target compiles), labelled with the group's
fusion pattern (the highest of its operators' patterns) and coloured by it. ``to_dot``
renders the graph as Graphviz DOT source through the ``graphviz`` package, and ``render``
turns it into SVG, PNG or PDF with the system's ``dot`` (``PictureError`` when either is
missing, with how to install it).

**What is drawn.** Parameters (ellipses), constants, operator calls (boxes: the operator,
its non-default attributes, the result's type), calls of globals, closures and constructors,
tuples and projections, ``if`` (edges from the condition and each branch), ``match`` (an
edge from each clause's right-hand side, labelled with its pattern), reference operations,
and the function's result. A ``let`` is not a node: the bound value's node carries the
variable's name and the uses of the variable are edges from it. A function literal that is
not primitive (a closure) is a dashed cluster holding its parameters and body, ending in a
``fn`` node that stands for the closure value. Operators, globals and constructors that are
called are named in the call's node, not drawn apart. The walk is iterative: programs of any
depth draw (Graphviz's own layout is the limit on size).
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .compiler.passes.fuse_ops import FuseOps, is_primitive
from .semantics.ops.registry import OPS, OpPattern
from .semantics.syntax import (
    Call,
    Clause,
    Constant,
    Constructor,
    Expr,
    Function,
    GlobalVar,
    If,
    IRModule,
    Let,
    Match,
    Op,
    Pattern,
    PatternConstructor,
    PatternTuple,
    PatternVar,
    PatternWildcard,
    RefCreate,
    RefRead,
    RefWrite,
    Tuple,
    TupleGetItem,
    Var,
    children,
)
from .semantics.text.printer import format_attr, format_type
from .semantics.typing import TypeInfo, infer_types

FORMATS = ("svg", "png", "pdf", "dot")
"""What ``-o FILE`` may end with: a picture rendered by ``dot``, or DOT source."""

PATTERN_COLOURS = {
    OpPattern.ELEMWISE: "#e3f2fd",
    OpPattern.BROADCAST: "#e8f5e9",
    OpPattern.INJECTIVE: "#fff8e1",
    OpPattern.COMM_REDUCE: "#fce4ec",
    OpPattern.OUT_ELEMWISE_FUSABLE: "#ede7f6",
    OpPattern.TUPLE: "#eceff1",
    OpPattern.OPAQUE: "#efebe9",
}
"""The fill of a fused group's cluster, by the group's pattern."""


class PictureError(Exception):
    """A picture that cannot be made here: Graphviz's ``dot`` or the ``graphviz`` package is
    missing, or the output format is unknown (bad usage: exit 2 at the command line)."""


@dataclass
class Cluster:
    """A group of nodes: a fused group (``kind`` ``"fused"``) or a closure's body
    (``"fn"``), possibly inside another cluster (``parent``)."""

    key: str
    label: str
    kind: str
    parent: str | None
    pattern: OpPattern | None = None


@dataclass
class Picture:
    """A function's dataflow graph: nodes (id, label, shape, cluster), edges (from, to,
    label) and clusters."""

    name: str
    nodes: dict[str, tuple[str, str, str | None]] = field(default_factory=dict)
    edges: list[tuple[str, str, str]] = field(default_factory=list)
    clusters: dict[str, Cluster] = field(default_factory=dict)

    def fused_groups(self) -> list[Cluster]:
        """The clusters of fused groups, in the order they were found."""
        return [c for c in self.clusters.values() if c.kind == "fused"]

    def members(self, cluster: str) -> list[str]:
        """The labels of the nodes directly in ``cluster``."""
        return [label for label, _, c in self.nodes.values() if c == cluster]


def _pattern_text(p: Pattern) -> str:
    match p:
        case PatternWildcard():
            return "_"
        case PatternVar(var):
            return f"%{var.name_hint}"
        case PatternConstructor(constructor, patterns):
            inner = ", ".join(_pattern_text(q) for q in patterns)
            return f"{constructor.name}({inner})" if patterns else constructor.name
        case PatternTuple(patterns):
            return "(" + ", ".join(_pattern_text(q) for q in patterns) + ")"
    return "?"


def _constant_text(c: Constant) -> str:
    if c.data.ndim == 0:
        return f"{c.data.item()!r} ({c.data.dtype})"
    return f"constant {format_type_of_array(c)}"


def format_type_of_array(c: Constant) -> str:
    """``Tensor[(2, 3), float32]`` for a constant's array."""
    dims = ", ".join(str(d) for d in c.data.shape)
    return f"Tensor[({dims}{',' if c.data.ndim == 1 else ''}), {c.data.dtype}]"


def _callee_text(op: Expr) -> str | None:
    match op:
        case Op(name):
            return name
        case GlobalVar(name):
            return f"call @{name}"
        case Constructor(name):
            return name
    return None


class _Builder:
    """Builds the ``Picture`` of one function (see the module docstring)."""

    def __init__(self, fn: Function, info: TypeInfo, name: str) -> None:
        self.info = info
        self.picture = Picture(name)
        self.alias: dict[Expr, Expr] = {}  # an expression drawn as another's node
        self.cluster_of: dict[Expr, str | None] = {}
        self.names: dict[Expr, list[str]] = {}  # let-bound names of a value
        self.names_of: dict[str, list[str]] = {}  # the same, by the node drawn for the value
        self.ids: dict[Expr, str] = {}
        self.hidden: set[Expr] = set()  # primitive functions: drawn as their clusters
        self.fn = fn

    def node_id(self, e: Expr) -> str:
        """The node that stands for ``e`` (following lets, parameters of fused groups and
        calls of them)."""
        seen = 0
        while e in self.alias:
            e = self.alias[e]
            seen += 1
            assert seen <= len(self.alias), "alias cycle"
        return self.ids.setdefault(e, f"n{len(self.ids)}")

    def _type(self, e: Expr) -> str:
        t = self.info.expr_types.get(e)
        return "" if t is None else format_type(t)

    def build(self) -> Picture:
        self._assign_clusters()
        drawn = [
            e
            for e in self.cluster_of
            if e not in self.alias and e not in self.hidden and self._drawn(e)
        ]
        for value, names in self.names.items():
            self.names_of.setdefault(self.node_id(value), []).extend(names)
        for e in drawn:
            self._node(e)
        for e in drawn:
            self._edges(e)
        result = "result"
        self.picture.nodes[result] = (f"result\n{self._type(self.fn.body)}", "house", None)
        self.picture.edges.append((self.node_id(self.fn.body), result, ""))
        return self.picture

    @staticmethod
    def _drawn(e: Expr) -> bool:
        """Whether ``e`` gets a node of its own (callees are named in their call)."""
        return not isinstance(e, Op | GlobalVar | Constructor | Let)

    def _assign_clusters(self) -> None:
        """Pre-order walk: every sub-expression's cluster (the first one it is met in), and
        the aliases of lets and of fused groups' parameters and calls."""
        stack: list[tuple[Expr, str | None]] = [(p, None) for p in self.fn.params]
        stack.append((self.fn.body, None))
        stack.reverse()
        fused = 0
        closures = 0
        while stack:
            e, cluster = stack.pop()
            if e in self.cluster_of:
                continue
            self.cluster_of[e] = cluster
            match e:
                case Call(Function() as prim, args) if is_primitive(prim):
                    fused += 1
                    key = f"cluster_fused_{fused}"
                    pattern = _group_pattern(prim)
                    label = f"fused group {fused}: {pattern.name.lower()}"
                    self.picture.clusters[key] = Cluster(key, label, "fused", cluster, pattern)
                    self.alias[e] = prim.body
                    for param, arg in zip(prim.params, args, strict=False):
                        self.alias[param] = arg
                    self.cluster_of[prim] = cluster
                    self.hidden.add(prim)
                    todo: list[tuple[Expr, str | None]] = [(a, cluster) for a in args]
                    todo.append((prim.body, key))
                    stack.extend(reversed(todo))
                    continue
                case Function(params, body):
                    closures += 1
                    key = f"cluster_fn_{closures}"
                    label = "fn (" + ", ".join(f"%{p.name_hint}" for p in params) + ")"
                    self.picture.clusters[key] = Cluster(key, label, "fn", cluster)
                    self.cluster_of[e] = key
                    stack.extend(reversed([*((p, key) for p in params), (body, key)]))
                    continue
                case Let(var, value, body):
                    self.alias[var] = value
                    self.alias[e] = body
                    self.names.setdefault(value, []).append(f"%{var.name_hint}")
                case Match(_, clauses):
                    for clause in clauses:
                        for v in _clause_vars(clause):
                            stack.append((v, cluster))
            stack.extend(reversed([(c, cluster) for c in children(e)]))

    def _label(self, e: Expr) -> tuple[str, str]:
        """The label and shape of ``e``'s node."""
        t = self._type(e)
        match e:
            case Var(name):
                return f"%{name}\n{t}", "ellipse"
            case Constant():
                return _constant_text(e), "note"
            case Call(op, _, attrs):
                head = _callee_text(op) or "call"
                parts = [head]
                if attrs is not None:
                    parts.extend(f"{k}={format_attr(v)}" for k, v in attrs.non_default_items())
                return "\n".join([*parts, t]), "box"
            case Tuple():
                return f"tuple\n{t}", "box"
            case TupleGetItem(_, index):
                return f".{index}\n{t}", "box"
            case If():
                return f"if\n{t}", "diamond"
            case Match(_, _, complete):
                return f"{'match' if complete else 'match?'}\n{t}", "diamond"
            case RefCreate():
                return f"ref\n{t}", "box"
            case RefRead():
                return f"ref_read\n{t}", "box"
            case RefWrite():
                return "ref_write", "box"
            case Function(params):
                return "fn (" + ", ".join(f"%{p.name_hint}" for p in params) + ")", "component"
        return type(e).__name__, "box"

    def _node(self, e: Expr) -> None:
        label, shape = self._label(e)
        names = self.names_of.get(self.node_id(e))
        if names:
            label = f"{' = '.join(names)} =\n{label}"
        self.picture.nodes[self.node_id(e)] = (label, shape, self.cluster_of.get(e))

    def _edges(self, e: Expr) -> None:
        me = self.node_id(e)
        for source, label in _inputs(e):
            self.picture.edges.append((self.node_id(source), me, label))


def _clause_vars(clause: Clause) -> Iterator[Var]:
    stack = [clause.lhs]
    while stack:
        p = stack.pop()
        match p:
            case PatternVar(var):
                yield var
            case PatternConstructor(_, patterns) | PatternTuple(patterns):
                stack.extend(patterns)


def _inputs(e: Expr) -> list[tuple[Expr, str]]:
    """The values ``e``'s node takes, with edge labels."""
    match e:
        case Call(op, args):
            numbered = len(args) > 1
            out = [(a, str(i) if numbered else "") for i, a in enumerate(args)]
            if _callee_text(op) is None:
                out.insert(0, (op, "fn"))
            return out
        case Tuple(fields):
            return [(f, str(i)) for i, f in enumerate(fields)]
        case TupleGetItem(tup):
            return [(tup, "")]
        case If(cond, then, other):
            return [(cond, "cond"), (then, "then"), (other, "else")]
        case Match(data, clauses):
            return [(data, "data"), *((c.rhs, _pattern_text(c.lhs)) for c in clauses)]
        case RefCreate(value) | RefRead(value):
            return [(value, "")]
        case RefWrite(ref, value):
            return [(ref, "ref"), (value, "value")]
        case Function(_, body):
            return [(body, "body")]
    return []


def _group_pattern(prim: Function) -> OpPattern:
    """The highest fusion pattern of the operators called in a primitive function."""
    pattern = OpPattern.ELEMWISE
    stack = [prim.body]
    seen: set[int] = set()
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, Call) and isinstance(e.op, Op) and e.op.name in OPS:
            pattern = max(pattern, OPS[e.op.name].pattern)
        stack.extend(children(e))
    return pattern


def dataflow_graph(mod: IRModule, name: str = "main", *, fuse: bool = True) -> Picture:
    """The picture of ``@name`` of ``mod`` (after ``FuseOps`` when ``fuse``); ``KeyError``
    if there is no such global, ``RelayTypeError`` if the module does not type-check."""
    infer_types(mod)  # a type error is the program's, reported before fusing
    if fuse:
        mod = FuseOps()(mod)
    fn = mod[name]
    return _Builder(fn, infer_types(mod), name).build()


def to_dot(picture: Picture) -> Any:
    """``picture`` as a ``graphviz.Digraph`` (its ``.source`` is the DOT text)."""
    try:
        import graphviz
    except ImportError:
        raise PictureError(
            "pictures need the graphviz Python package: pip install 'relay-ref[pictures]'"
        ) from None
    graph = graphviz.Digraph(
        name=picture.name,
        graph_attr={"rankdir": "TB", "label": f"@{picture.name}", "fontname": "Helvetica"},
        node_attr={"fontname": "Helvetica", "fontsize": "10"},
        edge_attr={"fontname": "Helvetica", "fontsize": "8"},
    )
    subgraphs: dict[str | None, Any] = {None: graph}

    def holder(key: str | None) -> Any:
        if key not in subgraphs:
            c = picture.clusters[key]  # type: ignore[index]
            sub = graphviz.Digraph(name=c.key)
            sub.attr(label=c.label, fontsize="10")
            if c.kind == "fused":
                assert c.pattern is not None
                sub.attr(style="filled,rounded", fillcolor=PATTERN_COLOURS[c.pattern])
            else:
                sub.attr(style="dashed")
            subgraphs[key] = sub
        return subgraphs[key]

    for node, (label, shape, cluster) in picture.nodes.items():
        holder(cluster).node(node, label=label, shape=shape)
    for a, b, label in picture.edges:
        if label:
            graph.edge(a, b, label=label)
        else:
            graph.edge(a, b)
    # Nest the clusters, innermost first, each into its parent.
    order = _by_depth(picture)
    for key in order:
        holder(key)
    for key in order:
        parent = picture.clusters[key].parent
        holder(parent).subgraph(subgraphs[key])
    return graph


def _by_depth(picture: Picture) -> list[str]:
    """The clusters, deepest first (each is added to its parent once complete)."""

    def depth(key: str) -> int:
        d = 0
        parent = picture.clusters[key].parent
        while parent is not None:
            d += 1
            parent = picture.clusters[parent].parent
        return d

    return sorted(picture.clusters, key=depth, reverse=True)


def render(picture: Picture, out: Path) -> None:
    """Write ``picture`` to ``out``, in the format its suffix names (``FORMATS``):
    DOT source for ``.dot``, else through the system's ``dot``."""
    fmt = out.suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        known = ", ".join(f".{f}" for f in FORMATS)
        raise PictureError(f"cannot tell the format of {out}: expected a name ending {known}")
    graph = to_dot(picture)
    if fmt == "dot":
        out.write_text(graph.source, encoding="utf-8")
        return
    if shutil.which("dot") is None:
        raise PictureError(
            "Graphviz's dot program is not installed (apt-get install graphviz), so no "
            f".{fmt} can be drawn; -o FILE.dot writes the DOT source without it"
        )
    data: bytes = graph.pipe(format=fmt)
    tmp = out.with_name(f".{out.name}.tmp")
    tmp.write_bytes(data)
    tmp.replace(out)


__all__ = [
    "FORMATS",
    "Cluster",
    "Picture",
    "PictureError",
    "dataflow_graph",
    "render",
    "to_dot",
]
