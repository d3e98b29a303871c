"""Gradient: reverse-mode automatic differentiation of ``@main``.

``Gradient(mode="higher_order")`` (the default) is the Relay paper's transformation
(``higher_order.py``): it differentiates through closures, references, ``if``, ``match``,
recursion, data types and tuples. ``Gradient(mode="first_order")`` is TVM's ``first_order``
mode (``first_order.py``): a static tape for dataflow graphs (operators, ``let``, tuples),
whose result has no references or closures. Both use the rules table of ``rules/``.

The pass replaces ``@main(%x1: t1, .., %xn: tn) -> t`` by its gradient,
``fn (%x1, .., %xn) -> (t, (t1, .., tn))`` returning ``@main``'s value and the gradient of
the sum of its elements with respect to each parameter (TVM's ``gradient``); with
``with_cotangent=True`` it takes a last parameter ``%dy: t`` and returns the gradient of
``sum(@main(..) * %dy)``. Parameters and result must be float tensors.

Pre: well-typed; no operator used as a value. Post: well-typed; ``@main`` as above; the
other globals unchanged (the higher-order mode adds ``@f_grad`` for each global ``@main``
reaches, and ``D_grad`` data types where a constructor holds floats).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ....semantics.errors import PassError
from ....semantics.syntax import Function, GlobalVar, IRModule, post_order
from ....semantics.typing import infer_types
from ...ir import map_functions, rewrite
from ...pass_manager import Pass, register_pass
from ..eta_expand import EtaExpand
from ..normal_forms import to_anf
from .first_order import Tape, first_order_gradient
from .higher_order import ReverseAD, fresh_name, reverse_ad
from .rules import RULES, ZERO_GRADIENT, GradCall, GradRule, NoGradient, no_rule_ops

MODES = ("higher_order", "first_order")


def prepare(mod: IRModule) -> IRModule:
    """``mod`` with globals and constructors used as values eta-expanded, in A-normal form."""

    def one(_: GlobalVar, fn: Function) -> Function:
        return to_anf(fn)

    return map_functions(EtaExpand().transform(mod), one)


def gradient(
    mod: IRModule,
    *,
    mode: str = "higher_order",
    entry: str = "main",
    with_cotangent: bool = False,
    rules: Mapping[str, GradRule] = RULES,
    translator: type[ReverseAD] = ReverseAD,
    tape: type[Tape] = Tape,
) -> IRModule:
    """``mod`` with ``@entry`` replaced by its gradient (see the module docstring);
    ``rules``, ``translator`` (higher-order) and ``tape`` (first-order) are what a broken
    gradient replaces."""
    if mode not in MODES:
        raise ValueError(f"mode={mode!r}: expected one of {', '.join(MODES)}")
    if entry not in mod:
        raise PassError(f"Gradient: the module has no @{entry}", pass_name="Gradient")
    prepared = prepare(mod)
    info = infer_types(prepared)
    if mode == "first_order":
        out = first_order_gradient(prepared, info, entry=entry, with_cotangent=with_cotangent,
                                   rules=rules, tape_type=tape)  # fmt: skip
    else:
        out = reverse_ad(prepared, info, entry=entry, with_cotangent=with_cotangent,
                         rules=rules, translator=translator)  # fmt: skip
    return keep_callers(prepared, out, entry)


def keep_callers(before: IRModule, after: IRModule, entry: str) -> IRModule:
    """``after`` where the globals of ``before`` that call ``@entry`` (whose meaning the
    gradient replaced) call ``@entry_primal`` instead: a copy of the original."""
    gv = before.get_global_var(entry)

    def uses(f: Function) -> bool:
        return any(e is gv for e in post_order(f))

    users = [g for g, f in before.functions.items() if g is not gv and uses(f)]
    if not users and not uses(before.functions[gv]):
        return after
    primal = GlobalVar(fresh_name(f"{entry}_primal", {g.name for g in after.functions}))

    def redirect(f: Function) -> Function:
        out = rewrite(f, lambda e: primal if e is gv else None)
        assert isinstance(out, Function)
        return out

    functions = dict(after.functions)
    functions[primal] = redirect(before.functions[gv])
    for g in users:
        functions[g] = redirect(after.functions[g])
    return IRModule(functions, after.type_definitions)


@register_pass
@dataclass(frozen=True)
class Gradient(Pass):
    """Replace ``@main`` by its gradient (see the module docstring for pre/postconditions).

    It changes what ``@main`` means, so ``relay fuzz`` holds it to the AD oracle
    (``oracle = "gradient"``: ``relay fuzz --check gradient``), not to the value oracle.
    """

    mode: str = "higher_order"
    entry: str = "main"
    with_cotangent: bool = False
    rules: Mapping[str, GradRule] = field(default_factory=lambda: RULES)
    translator: type[ReverseAD] = ReverseAD
    tape: type[Tape] = Tape

    oracle = "gradient"

    def transform(self, mod: IRModule) -> IRModule:
        return gradient(mod, mode=self.mode, entry=self.entry,
                        with_cotangent=self.with_cotangent, rules=self.rules,
                        translator=self.translator, tape=self.tape)  # fmt: skip


@register_pass
@dataclass(frozen=True)
class FirstOrderGradient(Gradient):
    """``Gradient(mode="first_order")`` under its own name, so ``relay fuzz`` and the command
    line reach the first-order mode as a built-in pass (``first-order-gradient``)."""

    mode: str = "first_order"


__all__ = [
    "MODES",
    "RULES",
    "ZERO_GRADIENT",
    "FirstOrderGradient",
    "GradCall",
    "GradRule",
    "Gradient",
    "NoGradient",
    "ReverseAD",
    "gradient",
    "no_rule_ops",
    "prepare",
]
