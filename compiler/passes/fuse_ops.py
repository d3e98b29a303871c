"""FuseOps and DefuseOps: group operator calls into primitive functions, and undo it.

**FuseOps** is TVM 0.18's ``FuseOps`` (``src/relay/transforms/fuse_ops.cc`` and
``src/relay/analysis/graph_partitioner.cc``). For each global function it

1. builds the dataflow graph of the function (TVM's ``IndexedForwardGraph``): a node for every
   sub-expression in post-DFS order (evaluation order), and an edge from an operand to its
   user, labelled with a fusion pattern. An operator call's pattern is its ``OpDef.pattern``
   (``opaque`` for a data-dependent dynamic operator with an unknown result shape); each of its
   arguments gets an edge with that pattern, except that a broadcast edge from an argument of
   the result's own shape is elementwise. A tuple is ``tuple`` and its tensor fields get
   injective edges; a projection of a tuple of tensors is injective; a scalar constant of
   int32/int64/float32/float64/bool is elementwise; everything else is opaque. Operands that
   are not dataflow (a function body, an ``if``'s condition and branches, a ``match``'s
   scrutinee and clauses, a ``let``'s variable, value and body, reference operands, a
   callee that is not an operator) get no edge but are marked *externally referenced*;
2. computes the post-dominator tree by least common ancestors over the outputs, in reverse
   post-DFS order, folding the edge patterns met on the way into the tree edge's pattern;
3. runs TVM's three phases over the nodes in post-DFS order, fusing a node (with every node on
   the paths to it) into its immediate post-dominator when each path allows it:
   *phase 0*: an out-elemwise-fusable node (``nn.conv2d``, ``nn.dense``) into a post-dominator
   reached by elementwise edges, every node on the way at most broadcast; an elementwise or
   broadcast node into an injective-or-lower or reduction post-dominator, the nodes on the way
   at most injective and the post-dominator's group at most broadcast, injective, reduction or
   out-elemwise-fusable; *phase 1*: an injective node or a tuple into its post-dominator when
   every node on the way is at most injective; *phase 2*: an injective-or-lower node into a
   tuple that was itself fused into an injective group. Nothing is fused into a tuple in
   phases 0 and 1, a reduction absorbs what precedes it but never fuses onward, opaque nodes
   stay alone, and a fusion that would make a group of more than ``max_depth`` nodes (TVM's
   ``relay.FuseOps.max_depth``, 256) is refused. At optimisation level 0 (``fuse_opt_level``,
   by default the pass context's level) nothing is fused: every call gets its own function;
4. rewrites each group whose root is an operator call (or a projection of a tuple made in the
   group) into a call of a new function literal ``fn (%p0: t0, ..) -> t { body }`` with the
   attribute ``Primitive=1`` (TVM's ``Primitive`` is ``1`` when the body has a call, else
   ``0``), plus ``relay.reshape_only=1`` when every call in it is a reshape-like operator, as
   TVM set. The parameters ``%p0, %p1, ..`` stand for the group's inputs in evaluation order,
   one per distinct input, annotated with the inputs' types; the call takes the inputs in
   that order, so their effects happen in the order they did. ``annotation.stop_fusion`` is
   removed (its operand is never fused into its users, since the annotation is opaque);
   ``on_device`` is not computational and stays a plain call, as in TVM.

**Scopes and effects.** Only operator calls fuse, and they are pure. A group never crosses a
scope of ``semantics.sharing`` (function body, ``if`` branch, ``match`` clause): an operand
evaluated in another scope than its user (a shared node used in a branch, say) gets no edge
and is marked externally referenced, so it ends its own group. TVM put such nodes in one
graph and could fuse a node of the enclosing scope into a branch, moving its evaluation;
this pass does not (a deliberate difference). Calls of functions and constructors,
reference operations, ``let``, ``if`` and ``match`` are opaque or external, so they are group
boundaries, as in TVM. Bodies of functions that already carry ``Primitive`` are left alone
(TVM skipped those whose attribute is non-zero; any ``Primitive`` here, so that a second run
changes nothing).

**DefuseOps** is the inverse (TVM's ``DefuseOps``, opt level 3): every call of a function
literal carrying ``Primitive`` is replaced by the function's body, with fresh binders and the
arguments substituted for the parameters. TVM inlined any function literal whose body was a
call, matching parameters by name; this pass inlines exactly the ``Primitive`` ones, whatever
their body. Substitution is exact for what FuseOps makes (pure bodies that use their
parameters in argument order); for any other ``Primitive`` function an argument that may have
an effect is bound by a ``let`` before the body instead, so call-by-value order is kept. Any
``Primitive`` function left (one that is not called directly, such as a let-bound one) loses
its ``Primitive`` and ``relay.reshape_only`` attributes: it is an ordinary closure.
``DefuseOps(FuseOps(m))`` is alpha-equal to ``m`` for dataflow programs, except that
``annotation.stop_fusion`` is gone.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from ...semantics.ops import OPS
from ...semantics.ops.registry import OpPattern
from ...semantics.sharing import opens_scope, sharing_plan
from ...semantics.syntax import (
    ATOMS,
    AnyDim,
    Call,
    Constant,
    Constructor,
    Expr,
    Function,
    GlobalVar,
    IRModule,
    Let,
    Match,
    Op,
    RefCreate,
    RefRead,
    RefWrite,
    TensorType,
    Tuple,
    TupleGetItem,
    TupleType,
    Type,
    Var,
    children,
    type_children,
)
from ...semantics.typing import TypeInfo, infer_types
from ..ir import fresh_binders, map_functions, rewrite_pairs, substitute, with_children
from ..pass_manager import Pass, PassContext, register_pass
from .infer_type import is_complete

MAX_FUSE_DEPTH = 256
"""TVM's ``kMaxFusedOps``: the default of ``relay.FuseOps.max_depth``."""

SIMPLE_CONSTANT_DTYPES = frozenset({"int32", "int64", "float32", "float64", "bool"})
"""Scalar constants of these dtypes are elementwise and fuse into their users (TVM's rule,
"consistent with the code generator"); other constants are inputs of the groups."""

STOP_FUSION = "annotation.stop_fusion"

NON_COMPUTATIONAL = frozenset({"on_device"})
"""Operators TVM marked ``TNonComputational`` (among those registered here): never wrapped
in a primitive function."""

RESHAPE_OPS = frozenset(
    {
        "reshape",
        "contrib_reverse_reshape",
        "squeeze",
        "expand_dims",
        "nn.batch_flatten",
        "dyn.reshape",
    }
)
"""Operators TVM marked ``TReshapeOp``: a group of only these gets ``relay.reshape_only``."""

PRIMITIVE = "Primitive"
RESHAPE_ONLY = "relay.reshape_only"


def is_primitive(fn: Function) -> bool:
    """Whether ``fn`` carries the ``Primitive`` attribute (whatever its value)."""
    return any(key == PRIMITIVE for key, _ in fn.attrs)


def _walk(root: Expr) -> Iterator[Expr]:
    """``post_order`` of ``root`` that does not enter the bodies of primitive functions."""
    seen: set[int] = set()
    stack: list[tuple[Expr, bool]] = [(root, False)]
    while stack:
        e, expanded = stack.pop()
        if expanded:
            yield e
            continue
        if id(e) in seen:
            continue
        seen.add(id(e))
        stack.append((e, True))
        if isinstance(e, Function) and is_primitive(e):
            continue
        for c in reversed(children(e)):
            if id(c) not in seen:
                stack.append((c, False))


def _has_any(t: Type) -> bool:
    stack = [t]
    while stack:
        u = stack.pop()
        if isinstance(u, TensorType) and any(isinstance(d, AnyDim) for d in u.shape):
            return True
        stack.extend(type_children(u))
    return False


# ---------------------------------------------------------------------------------------------
# The dataflow graph (TVM's IndexedForwardGraph)


@dataclass
class Graph:
    """The dataflow graph of one global function: nodes in post-DFS order."""

    nodes: list[Expr] = field(default_factory=list)
    index: dict[int, int] = field(default_factory=dict)
    pattern: list[OpPattern] = field(default_factory=list)
    extern_ref: list[bool] = field(default_factory=list)
    outputs: list[list[tuple[int, OpPattern]]] = field(default_factory=list)


def _call_pattern(e: Call, info: TypeInfo) -> OpPattern:
    assert isinstance(e.op, Op)
    opdef = OPS.get(e.op.name)
    if opdef is None:
        return OpPattern.OPAQUE
    result = info.expr_types.get(e)
    if opdef.shape_func is not None and (result is None or _has_any(result)):
        # TVM: the output of a shape function cannot feed a data-dependent one.
        return OpPattern.OPAQUE
    return opdef.pattern


def build_graph(fn: Function, info: TypeInfo) -> Graph:
    """The dataflow graph of ``fn`` (see the module docstring)."""
    g = Graph()
    for e in _walk(fn):
        g.index[id(e)] = len(g.nodes)
        g.nodes.append(e)
        g.pattern.append(OpPattern.OPAQUE)
        g.extern_ref.append(False)
        g.outputs.append([])
    plan = sharing_plan(fn)
    g.extern_ref[g.index[id(fn)]] = True

    def edge(child: Expr, parent: Expr, pattern: OpPattern) -> None:
        c = g.index[id(child)]
        if not isinstance(child, ATOMS) and plan.scope.get(child) != plan.scope.get(parent):
            g.extern_ref[c] = True  # evaluated in another scope: never fused across
        else:
            g.outputs[c].append((g.index[id(parent)], pattern))

    def extern(child: Expr) -> None:
        g.extern_ref[g.index[id(child)]] = True

    for i, e in enumerate(g.nodes):
        match e:
            case Call(Op(), args):
                pattern = _call_pattern(e, info)
                g.pattern[i] = pattern
                result = info.expr_types.get(e)
                for a in args:
                    edge_pattern = pattern
                    arg_type = info.expr_types.get(a)
                    if (
                        pattern == OpPattern.BROADCAST
                        and isinstance(arg_type, TensorType)
                        and isinstance(result, TensorType)
                        and arg_type.shape == result.shape
                    ):
                        edge_pattern = OpPattern.ELEMWISE
                    edge(a, e, edge_pattern)
                extern(e.op)
            case Call(callee, args):
                for a in args:
                    edge(a, e, OpPattern.OPAQUE)
                extern(callee)
            case Tuple(fields):
                g.pattern[i] = OpPattern.TUPLE
                for f in fields:
                    if isinstance(info.expr_types.get(f), TensorType):
                        edge(f, e, OpPattern.INJECTIVE)
                    else:
                        extern(f)
            case TupleGetItem(tup):
                tuple_type = info.expr_types.get(tup)
                if isinstance(tuple_type, TupleType) and all(
                    isinstance(t, TensorType) for t in tuple_type.fields
                ):
                    g.pattern[i] = OpPattern.INJECTIVE
                    edge(tup, e, OpPattern.INJECTIVE)
                else:
                    extern(tup)
            case Constant(data):
                if data.ndim == 0 and data.dtype.name in SIMPLE_CONSTANT_DTYPES:
                    g.pattern[i] = OpPattern.ELEMWISE
            case Function() if is_primitive(e):
                pass
            case _:
                for c in children(e):
                    extern(c)
    return g


# ---------------------------------------------------------------------------------------------
# The post-dominator tree


@dataclass
class PostDominatorTree:
    """For each node: its immediate post-dominator (or -1), depth, and the combined pattern
    of the edges from the node to it."""

    parent: list[int]
    depth: list[int]
    pattern: list[OpPattern]


def post_dominators(g: Graph) -> PostDominatorTree:
    """TVM's single-pass construction by least common ancestors (the graph is a DAG whose
    edges point to later nodes)."""
    n = len(g.nodes)
    tree = PostDominatorTree([-1] * n, [1] * n, [OpPattern.OPAQUE] * n)
    for i in reversed(range(n)):
        if g.extern_ref[i] or not g.outputs[i]:
            if not g.extern_ref[i]:
                tree.pattern[i] = OpPattern.ELEMWISE
            continue
        parent, pattern = g.outputs[i][0]
        pattern = max(OpPattern.ELEMWISE, pattern)
        for out, out_pattern in g.outputs[i][1:]:
            parent, pattern = _lca(tree, parent, out, pattern)
            pattern = max(pattern, out_pattern)
        tree.parent[i] = parent
        tree.depth[i] = tree.depth[parent] + 1 if parent >= 0 else 1
        tree.pattern[i] = pattern
    return tree


def _lca(tree: PostDominatorTree, a: int, b: int, pattern: OpPattern) -> tuple[int, OpPattern]:
    while a != b:
        if a < 0 or b < 0:
            return -1, pattern
        if tree.depth[a] < tree.depth[b]:
            pattern = max(pattern, tree.pattern[b])
            b = tree.parent[b]
        elif tree.depth[b] < tree.depth[a]:
            pattern = max(pattern, tree.pattern[a])
            a = tree.parent[a]
        else:
            pattern = max(pattern, tree.pattern[a], tree.pattern[b])
            a = tree.parent[a]
            b = tree.parent[b]
    return a, pattern


# ---------------------------------------------------------------------------------------------
# The partition (TVM's GraphPartitioner): union-find over the nodes


class Partition:
    """Groups of nodes; each group is a union-find tree whose root holds its facts."""

    def __init__(self, g: Graph) -> None:
        n = len(g.nodes)
        self.g = g
        self.up: list[int] = [-1] * n  # union-find parent, -1 at a root
        self.pattern: list[OpPattern] = list(g.pattern)
        self.root_ref: list[int] = list(range(n))
        self.anchored: list[bool] = [p == OpPattern.OUT_ELEMWISE_FUSABLE for p in g.pattern]
        self.num_nodes: list[int] = [1] * n

    def find(self, i: int) -> int:
        root = i
        while self.up[root] >= 0:
            root = self.up[root]
        while self.up[i] >= 0:  # path compression
            self.up[i], i = root, self.up[i]
        return root

    def merge(self, child: int, parent: int) -> None:
        child, parent = self.find(child), self.find(parent)
        if child == parent:
            return
        self.num_nodes[parent] += self.num_nodes[child]
        self.up[child] = parent
        if self.anchored[child]:
            self.anchored[parent] = True
            self.pattern[parent] = max(self.pattern[child], self.pattern[parent])

    def _reach(self, src: int, sink: int) -> Iterator[int]:
        """Every node reachable from ``src``'s outputs, stopping at ``sink`` (yielded)."""
        seen: set[int] = set()
        stack = [out for out, _ in reversed(self.g.outputs[src])]
        while stack:
            i = stack.pop()
            if i in seen:
                continue
            seen.add(i)
            yield i
            if i != sink:
                stack.extend(out for out, _ in reversed(self.g.outputs[i]))

    def check_path(
        self, src: int, sink: int, allowed: set[OpPattern], at_sink: set[OpPattern]
    ) -> bool:
        """Whether every node on a path from ``src`` to ``sink`` is in a group whose pattern
        is ``allowed`` (``at_sink`` for the sink itself)."""
        for i in self._reach(src, sink):
            kinds = at_sink if i == sink else allowed
            if self.pattern[self.find(i)] not in kinds:
                return False
        return True

    def commit(self, src: int, sink: int) -> None:
        """Merge ``src`` and every node on its paths to ``sink`` into ``sink``'s group."""
        self.merge(src, sink)
        for i in self._reach(src, sink):
            if i != sink:
                self.merge(i, sink)

    def count_with(self, child: int, parent: int) -> int:
        """TVM's ``CountFusedNodesWithNewChild``."""
        total = self.num_nodes[self.find(parent)] + self.num_nodes[child]
        for i in self._reach(child, parent):
            if i != parent:
                total += self.num_nodes[i]
        return total


_AT_MOST_BROADCAST = {OpPattern.ELEMWISE, OpPattern.BROADCAST}
_AT_MOST_INJECTIVE = {OpPattern.ELEMWISE, OpPattern.BROADCAST, OpPattern.INJECTIVE}
_BROADCAST_SINKS = {*_AT_MOST_INJECTIVE, OpPattern.COMM_REDUCE, OpPattern.OUT_ELEMWISE_FUSABLE}


def partition(g: Graph, opt_level: int, max_depth: int) -> Partition:
    """TVM's ``GraphPartitioner::Partition``."""
    p = Partition(g)
    if opt_level == 0:
        return p
    tree = post_dominators(g)
    for phase in range(3):
        _run_fuse(p, tree, phase, max_depth)
    return p


def _run_fuse(p: Partition, tree: PostDominatorTree, phase: int, max_depth: int) -> None:
    """One phase of TVM's ``RunFuse``: try to fuse each node into its post-dominator."""
    for nid in range(len(p.g.nodes)):
        own = p.pattern[nid]  # the node's own group record, as TVM reads it
        dom = tree.parent[nid]
        if own == OpPattern.OPAQUE or dom < 0 or p.count_with(nid, dom) > max_depth:
            continue
        if phase == 2:
            # Injective ops into a tuple that was fused into an injective group.
            dom_root = p.find(dom)
            ok = (
                own <= OpPattern.INJECTIVE
                and p.pattern[dom_root] <= OpPattern.INJECTIVE
                and p.pattern[dom] == OpPattern.TUPLE
                and p.check_path(nid, dom, _AT_MOST_INJECTIVE, _AT_MOST_INJECTIVE)
            )
        elif p.find(nid) == p.find(dom) or p.pattern[dom] == OpPattern.TUPLE:
            ok = False  # already fused, or a tuple (not fused into before phase 2)
        elif own == OpPattern.OUT_ELEMWISE_FUSABLE:
            ok = (
                phase == 0
                and tree.pattern[nid] == OpPattern.ELEMWISE
                and p.check_path(nid, dom, _AT_MOST_BROADCAST, _AT_MOST_BROADCAST)
            )
        elif own <= OpPattern.BROADCAST:
            edge = tree.pattern[nid]
            ok = (edge <= OpPattern.INJECTIVE or edge == OpPattern.COMM_REDUCE) and p.check_path(
                nid, dom, _AT_MOST_INJECTIVE, _BROADCAST_SINKS
            )
        elif own in (OpPattern.INJECTIVE, OpPattern.TUPLE):
            ok = phase == 1 and p.check_path(nid, dom, _AT_MOST_INJECTIVE, _AT_MOST_INJECTIVE)
        else:
            ok = False  # a reduction fuses only what precedes it
        if ok:
            p.commit(nid, dom)


# ---------------------------------------------------------------------------------------------
# Rewriting the groups into primitive functions (TVM's FuseMutator)


def _annotation(t: Type | None) -> Type | None:
    return t if t is not None and is_complete(t) else None


class _Fuser:
    """The rewrite of one global function, given its partition."""

    def __init__(self, fn: Function, info: TypeInfo, opt_level: int, max_depth: int) -> None:
        self.fn = fn
        self.info = info
        self.g = build_graph(fn, info)
        self.p = partition(self.g, opt_level, max_depth)
        self.done: dict[int, Expr] = {}

    def group(self, e: Expr) -> int:
        return self.p.find(self.g.index[id(e)])

    def is_root(self, e: Expr) -> bool:
        return self.p.root_ref[self.group(e)] == self.g.index[id(e)]

    def run(self) -> Function:
        for e in self.g.nodes:
            out = self.rewrite(e)
            if out is not None:
                self.done[id(e)] = out
        out = self.done[id(self.fn)]
        assert isinstance(out, Function)
        return out

    def plain(self, e: Expr) -> Expr:
        return with_children(e, tuple(self.done[id(c)] for c in children(e)))

    def rewrite(self, e: Expr) -> Expr | None:
        """The new form of ``e``; ``None`` for a node inside a group (built with its root)."""
        match e:
            case Function() if is_primitive(e):
                return e
            case Call(Op(name), args):
                if name in NON_COMPUTATIONAL:
                    return self.plain(e)
                if name == STOP_FUSION:
                    return self.done[id(args[0])]
                return self.make_function(e) if self.is_root(e) else None
            case Tuple():
                return self.plain(e) if self.is_root(e) else None
            case TupleGetItem(tup):
                if not self.is_root(e):
                    return None
                if self.group(tup) != self.group(e):
                    return self.plain(e)
                return self.make_function(e)
            case Constant():
                return e
        return self.plain(e)

    def make_function(self, root: Expr) -> Expr:
        """A call of a new primitive function computing ``root``'s group."""
        group = self.group(root)
        params: list[Var] = []
        args: list[Expr] = []
        param_of: dict[int, Var] = {}
        body: dict[int, Expr] = {}

        def member(e: Expr) -> bool:
            return (
                isinstance(e, Call | Tuple | TupleGetItem | Constant)
                and id(e) in self.g.index
                and self.group(e) == group
                and not (isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == STOP_FUSION)
            )

        def operand(e: Expr) -> Expr:
            if member(e):
                return body[id(e)]
            return param_of[id(self.done[id(e)])]

        # Depth-first, left to right: inputs get parameters in evaluation order.
        seen: set[int] = set()
        stack: list[tuple[Expr, bool]] = [(root, False)]
        while stack:
            e, expanded = stack.pop()
            if expanded:
                match e:
                    case Call(_, call_args):
                        body[id(e)] = replace(e, args=tuple(operand(a) for a in call_args))
                    case Tuple(fields):
                        body[id(e)] = replace(e, fields=tuple(operand(f) for f in fields))
                    case TupleGetItem(tup):
                        body[id(e)] = replace(e, tuple=operand(tup))
                    case _:
                        body[id(e)] = e  # a scalar constant
                continue
            if id(e) in seen:
                continue
            seen.add(id(e))
            if not member(e):
                new = self.done[id(e)]
                if id(new) not in param_of:
                    t = _annotation(self.info.expr_types.get(e))
                    param_of[id(new)] = Var(f"p{len(params)}", t)
                    params.append(param_of[id(new)])
                    args.append(new)
                continue
            stack.append((e, True))
            operands: tuple[Expr, ...] = ()
            match e:
                case Call(_, call_args):
                    operands = call_args
                case Tuple(fields):
                    operands = fields
                case TupleGetItem(tup):
                    operands = (tup,)
            stack.extend((c, False) for c in reversed(operands) if id(c) not in seen)
        new_body = body[id(root)]
        calls = [c for c in _walk(new_body) if isinstance(c, Call)]
        attrs: list[tuple[str, int]] = [(PRIMITIVE, 1 if calls else 0)]
        if (
            calls
            and all(isinstance(c.op, Op) and c.op.name in RESHAPE_OPS for c in calls)
            and all(isinstance(v.type_annotation, TensorType) for v in params)
        ):
            attrs.append((RESHAPE_ONLY, 1))
        ret = _annotation(self.info.expr_types.get(root))
        fn = Function(tuple(params), new_body, ret, attrs=tuple(attrs), span=root.span)
        return Call(fn, tuple(args), span=root.span)


def fuse(fn: Function, info: TypeInfo, opt_level: int, max_depth: int = MAX_FUSE_DEPTH) -> Function:
    """``fn`` with its operator calls grouped into primitive functions."""
    if is_primitive(fn):
        return fn
    return _Fuser(fn, info, opt_level, max_depth).run()


@register_pass
@dataclass(frozen=True)
class FuseOps(Pass):
    """Group operator calls into ``Primitive`` functions by TVM's post-dominator rule.

    Pre: well-typed. Post: same meaning and global types; every computational operator call
    outside a primitive function sits inside one (``fn (%p0, ..., Primitive=1) { .. }``
    called in its place); groups are those of TVM's FuseOps, never crossing a scope; no
    ``annotation.stop_fusion`` remains.
    """

    fuse_opt_level: int = -1
    """The fusion level; -1 (TVM's default) takes the pass context's opt level. 0 fuses
    nothing (every call gets its own primitive function)."""
    max_depth: int = MAX_FUSE_DEPTH
    """The most nodes in one group (TVM's ``relay.FuseOps.max_depth``)."""

    opt_level = 0
    focus_ops = frozenset(
        {
            "add",
            "multiply",
            "nn.relu",
            "nn.bias_add",
            "nn.conv2d",
            "nn.dense",
            "sum",
            "reshape",
            "transpose",
            "concatenate",
            "split",
            "nn.softmax",
            "annotation.stop_fusion",
        }
    )

    def transform(self, mod: IRModule) -> IRModule:
        level = self.fuse_opt_level
        if level == -1:
            level = PassContext.current().opt_level
        info = infer_types(mod)

        def one(_: GlobalVar, fn: Function) -> Function:
            return fuse(fn, info, level, self.max_depth)

        return map_functions(mod, one)


# ---------------------------------------------------------------------------------------------
# DefuseOps


def _own_scope_vars(root: Expr) -> list[Var]:
    """The variables ``root`` uses outside its nested scopes, in order of first use."""
    out: list[Var] = []
    seen: set[int] = set()
    stack = [root]
    while stack:
        e = stack.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, Var):
            out.append(e)
            continue
        kids = children(e)
        stack.extend(c for i, c in reversed(list(enumerate(kids))) if not opens_scope(e, i))
    return out


class Purity:
    """``ir.is_pure`` with a memo, for asking about many nodes of one growing graph in
    linear time (it keeps the nodes it judged alive, so their ids stay theirs)."""

    def __init__(self) -> None:
        self.memo: dict[int, bool] = {}
        self.keep: list[Expr] = []

    def __call__(self, root: Expr) -> bool:
        memo = self.memo
        stack: list[tuple[Expr, bool]] = [(root, False)]
        while stack:
            e, expanded = stack.pop()
            if id(e) in memo:
                continue
            if expanded:
                memo[id(e)] = _locally_pure(e) and all(memo[id(c)] for c in children(e))
                self.keep.append(e)
                continue
            stack.append((e, True))
            stack.extend((c, False) for c in children(e) if id(c) not in memo)
        return memo[id(root)]


def _locally_pure(e: Expr) -> bool:
    """Whether ``e`` itself (not its operands) is free of effects, as ``ir.is_pure`` says."""
    match e:
        case RefCreate() | RefRead() | RefWrite():
            return False
        case Call(callee):
            return isinstance(callee, Op | Constructor)
        case Match(complete=complete):
            return complete
    return True


def inline(fn: Function, args: tuple[Expr, ...], pure: Purity | None = None) -> Expr:
    """The body of ``fn`` applied to ``args``, with fresh binders.

    An argument is substituted for its parameter when that keeps call-by-value order: it is
    pure, or the body is pure and uses the parameters of the impure arguments, in their own
    scope, first in argument order. Otherwise it is bound by a ``let`` before the body."""
    pure = pure or Purity()
    fresh = fresh_binders(fn)
    assert isinstance(fresh, Function)
    impure = [p for p, a in zip(fresh.params, args, strict=True) if not pure(a)]
    in_order = pure(fresh.body)
    if impure and in_order:
        wanted = {id(p) for p in impure}
        used = [v for v in _own_scope_vars(fresh.body) if id(v) in wanted]
        in_order = [id(v) for v in used] == [id(p) for p in impure]
    mapping: dict[Var, Expr] = {}
    lets: list[tuple[Var, Expr]] = []
    for p, a in zip(fresh.params, args, strict=True):
        if in_order or pure(a):
            mapping[p] = a
        else:
            lets.append((p, a))
    body = substitute(fresh.body, mapping)
    for var, value in reversed(lets):
        body = Let(var, value, body)
    return body


def _strip(fn: Function) -> Function:
    attrs = tuple((k, v) for k, v in fn.attrs if k not in (PRIMITIVE, RESHAPE_ONLY))
    return fn if attrs == fn.attrs else replace(fn, attrs=attrs)


def defuse(fn: Function) -> Function:
    """``fn`` with every call of a primitive function literal inlined, and no primitive
    function left."""

    pure = Purity()

    def visit(original: Expr, e: Expr) -> Expr | None:
        # Bottom-up: the callee is already stripped, so ask the original call.
        called = original.op if isinstance(original, Call) else None
        if isinstance(called, Function) and is_primitive(called):
            assert isinstance(e, Call) and isinstance(e.op, Function)
            return inline(e.op, e.args, pure)
        if isinstance(e, Function) and is_primitive(e):
            return _strip(e)
        return None

    out = rewrite_pairs(fn, visit)
    assert isinstance(out, Function)
    return out


@register_pass
@dataclass(frozen=True)
class DefuseOps(Pass):
    """Inline every call of a ``Primitive`` function literal (the inverse of FuseOps).

    Pre: well-formed. Post: same meaning and types; no function carries ``Primitive``.
    """

    opt_level = 3
    focus_ops = FuseOps.focus_ops

    def transform(self, mod: IRModule) -> IRModule:
        def one(_: GlobalVar, fn: Function) -> Function:
            return defuse(fn)

        return map_functions(mod, one)
