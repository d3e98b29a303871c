"""What sharing means: where a shared sub-expression is evaluated.

A sub-expression used in several places (``%N = e;`` in the text) is evaluated once, in the
innermost scope that contains all of its uses, before its first use in evaluation order — what
TVM's ToANormalForm makes of it. Scopes are opened by a function body, each ``if`` branch and
each ``match`` clause. This module computes, for one global function, the plan the evaluation
rules follow:

- ``shared``: the non-atomic nodes with more than one use;
- ``scope``: for each node, the scope it is evaluated in (a key ``(opener, position)``);
- ``hoisted``: for a node P that opens scopes (a function, an ``if``, a ``match``), the shared
  nodes of P's own scope whose first use lies inside P's nested scopes. ToANormalForm binds
  them in P's scope before P, so they are evaluated after P's own operands (the condition, the
  scrutinee) and before any of P's scopes is entered.

A shared node first used directly in its own scope is evaluated there, at that use, which is
exactly where ToANormalForm puts its binding. The plan is computed once per global (the one
memo the spec keeps) with explicit stacks, not recursion. Its tables are keyed by the nodes
themselves (expressions hash by identity).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .syntax import ATOMS, Expr, Function, If, Match, children, post_order

ScopeKey = tuple[Expr, int]
"""A scope: ``(opener, position)`` of the child that the opener evaluates in it."""


def opens_scope(node: Expr, position: int) -> bool:
    """Whether child ``position`` of ``node`` is evaluated in a new scope."""
    match node:
        case Function():
            return True
        case If() | Match():
            return position > 0
    return False


def body_scope(fn: Function) -> ScopeKey:
    """The scope of a function's body."""
    return (fn, 0)


@dataclass
class SharingPlan:
    """Where each shared node of one global function is evaluated (see the module doc)."""

    shared: set[Expr] = field(default_factory=set)
    scope: dict[Expr, ScopeKey] = field(default_factory=dict)
    hoisted: dict[Expr, list[Expr]] = field(default_factory=dict)


def sharing_plan(root: Function) -> SharingPlan:
    """The plan for the global function ``root``."""
    order = list(post_order(root))
    plan = SharingPlan()
    uses: dict[Expr, int] = {}
    for node in order:
        for child in children(node):
            if not isinstance(child, ATOMS):
                uses[child] = uses.get(child, 0) + 1
    plan.shared = {k for k, n in uses.items() if n > 1}

    # Scopes: parents are visited before children; a node's scope is the innermost scope
    # containing all its uses (the lowest common ancestor in the tree of scopes).
    parent: dict[ScopeKey, ScopeKey | None] = {body_scope(root): None}
    depth: dict[ScopeKey, int] = {body_scope(root): 0}
    plan.scope[root] = body_scope(root)
    plan.scope[root.body] = body_scope(root)
    for node in reversed(order):
        if isinstance(node, ATOMS) or node not in plan.scope:
            continue
        own = plan.scope[node]
        for position, child in enumerate(children(node)):
            if isinstance(child, ATOMS):
                continue
            where = own
            if opens_scope(node, position):
                where = (node, position)
                if where not in parent:
                    parent[where] = own
                    depth[where] = depth[own] + 1
            if child in plan.scope and plan.scope[child] != where:
                where = _common_ancestor(plan.scope[child], where, parent, depth)
            plan.scope[child] = where

    # Hoisting: walk in evaluation order; a shared node completed for the first time while
    # inside the nested scopes of an opener of its own scope is hoisted before that opener.
    enter, complete, open_nested, close_nested = 0, 1, 2, 3
    openers: list[Expr] = []
    enclosing: list[Expr] = []  # shared nodes being walked
    seen: set[Expr] = set()
    stack: list[tuple[Expr, int]] = [(root.body, enter)]
    while stack:
        node, phase = stack.pop()
        if phase == open_nested:
            openers.append(node)
        elif phase == close_nested:
            openers.pop()
        elif phase == complete:
            if node in plan.shared:
                enclosing.pop()
                # A shared node inside another shared node of its own scope is evaluated
                # when that one is (its first use is there): hoisting it on its own would
                # run it before the variables bound around it inside the enclosing node.
                if not any(plan.scope[m] == plan.scope[node] for m in enclosing):
                    _hoist(plan, node, openers)
        elif node not in seen and not isinstance(node, ATOMS):
            seen.add(node)
            stack.append((node, complete))
            if node in plan.shared:
                enclosing.append(node)
            kids = children(node)
            nested = [c for i, c in enumerate(kids) if opens_scope(node, i)]
            operands = [c for i, c in enumerate(kids) if not opens_scope(node, i)]
            if nested:
                # The opener's own operands first, then its scopes.
                stack.append((node, close_nested))
                stack.extend((c, enter) for c in reversed(nested))
                stack.append((node, open_nested))
            stack.extend((c, enter) for c in reversed(operands))
    return plan


def _hoist(plan: SharingPlan, node: Expr, openers: list[Expr]) -> None:
    target = plan.scope[node]
    for opener in openers:
        if plan.scope.get(opener) == target:
            plan.hoisted.setdefault(opener, []).append(node)
            return


def _common_ancestor(
    a: ScopeKey, b: ScopeKey, parent: dict[ScopeKey, ScopeKey | None], depth: dict[ScopeKey, int]
) -> ScopeKey:
    while depth[a] > depth[b]:
        a = parent[a]  # type: ignore[assignment]
    while depth[b] > depth[a]:
        b = parent[b]  # type: ignore[assignment]
    while a != b:
        a = parent[a]  # type: ignore[assignment]
        b = parent[b]  # type: ignore[assignment]
    return a
