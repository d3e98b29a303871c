"""The pass manager: passes, ``Sequential``, ``PassContext`` and instruments.

A pass is a pure function from ``IRModule`` to ``IRModule``: it never changes its input (modules
and expressions are immutable; a pass builds new nodes) and returns a module that means the
same. A built-in pass is a small frozen class deriving ``Pass``: a ``name`` (the class name),
an ``opt_level`` (the lowest optimisation level that runs it inside ``Sequential``), and a
docstring that states its pre- and postconditions; ``transform`` does the work. Any callable
``IRModule -> IRModule`` can be made a pass with ``FunctionPass``.

``PassContext`` holds the settings passes run under: the optimisation level, passes disabled
or required by name, and *instruments*. An instrument sees the module before and after every
pass (``before_pass``, ``after_pass``); the oracle instrument (``relay.oracles.pass_oracle``)
re-checks types and meaning there, so a broken pass is caught at the pass that broke it.
Contexts nest with ``with PassContext(...):``; outside any, the default context (opt level 2,
no instruments) applies.

``Sequential`` runs passes in order. Inside it, a pass runs when it is required, or when its
``opt_level`` is at most the context's and it is not disabled (TVM's rule). A pass called on its
own always runs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, Protocol, TypeVar

from ..semantics.errors import PassError
from ..semantics.syntax import IRModule


class PassInstrument(Protocol):
    """Sees the module before and after every pass that runs."""

    def before_pass(self, p: Pass, mod: IRModule) -> None:
        """Called with the input of ``p`` before it runs."""

    def after_pass(self, p: Pass, before: IRModule, after: IRModule) -> None:
        """Called with the input and output of ``p`` after it ran."""


@dataclass(frozen=True)
class PassContext:
    """The settings passes run under. ``disabled`` and ``required`` hold pass names (class
    names or command-line names)."""

    opt_level: int = 2
    disabled: frozenset[str] = frozenset()
    required: frozenset[str] = frozenset()
    instruments: tuple[PassInstrument, ...] = ()

    @staticmethod
    def current() -> PassContext:
        """The innermost context entered with ``with``, or the default one."""
        return _ENTERED[-1] if _ENTERED else _DEFAULT

    def __enter__(self) -> PassContext:
        _ENTERED.append(self)
        return self

    def __exit__(self, *exc: object) -> None:
        _ENTERED.pop()


_DEFAULT = PassContext()
_ENTERED: list[PassContext] = []


def cli_name(class_name: str) -> str:
    """The command-line name of a pass class: ``FoldConstant`` -> ``fold-constant``,
    ``ToANormalForm`` -> ``to-a-normal-form``, ``CombineParallelConv2D`` ->
    ``combine-parallel-conv2d``."""
    out = []
    for i, ch in enumerate(class_name):
        prev = class_name[i - 1] if i else ""
        nxt = class_name[i + 1] if i + 1 < len(class_name) else ""
        starts_word = ch.isupper() and (prev.islower() or (prev.isupper() and nxt.islower()))
        out.append(("-" if starts_word else "") + ch.lower())
    return "".join(out)


class Pass:
    """A module-to-module transformation. Subclasses are frozen dataclasses that set
    ``opt_level`` and implement ``transform``; the docstring states the pre- and
    postconditions."""

    opt_level: ClassVar[int] = 0
    focus_ops: ClassVar[frozenset[str]] = frozenset()
    """Operators the pass rewrites: ``relay fuzz`` draws programs rich in them more often."""

    @property
    def name(self) -> str:
        """The pass's name: its class name."""
        return type(self).__name__

    @property
    def cli_name(self) -> str:
        """The name ``relay fuzz --pass`` knows the pass by."""
        return cli_name(self.name)

    def transform(self, mod: IRModule) -> IRModule:
        """The transformation itself (without instruments)."""
        raise NotImplementedError(f"{self.name} does not implement transform")

    def __call__(self, mod: IRModule) -> IRModule:
        """Run the pass under the current context: its instruments see it."""
        return run_pass(self, mod, PassContext.current())


def run_pass(p: Pass, mod: IRModule, ctx: PassContext) -> IRModule:
    """Run ``p`` on ``mod`` with ``ctx``'s instruments around it."""
    for inst in ctx.instruments:
        inst.before_pass(p, mod)
    out = p.transform(mod)
    if not isinstance(out, IRModule):
        raise PassError(
            f"{p.name} returned {type(out).__name__}, not an IRModule", pass_name=p.name
        )
    for inst in ctx.instruments:
        inst.after_pass(p, mod, out)
    return out


@dataclass(frozen=True)
class FunctionPass(Pass):
    """Any callable ``IRModule -> IRModule`` as a pass, under the name ``label``."""

    fn: Callable[[IRModule], IRModule]
    label: str = "FunctionPass"

    @property
    def name(self) -> str:
        return self.label

    @property
    def cli_name(self) -> str:
        return self.label

    def transform(self, mod: IRModule) -> IRModule:
        return self.fn(mod)


@dataclass(frozen=True)
class Sequential(Pass):
    """Run ``passes`` in order. A pass runs if the context requires it, or if its opt level
    is at most the context's and the context does not disable it. Instruments see each pass
    that runs (not the ``Sequential`` itself)."""

    passes: tuple[Pass, ...] = ()
    label: str = "Sequential"
    level: int | None = None
    """The optimisation level the passes are chosen by (default: the context's)."""

    @property
    def name(self) -> str:
        return self.label

    @property
    def cli_name(self) -> str:
        return self.label

    def transform(self, mod: IRModule) -> IRModule:
        ctx = PassContext.current()
        level = ctx.opt_level if self.level is None else self.level
        for p in self.passes:
            if should_run(p, ctx, level):
                mod = p(mod) if isinstance(p, Sequential) else run_pass(p, mod, ctx)
        return mod

    def __call__(self, mod: IRModule) -> IRModule:
        return self.transform(mod)


def should_run(p: Pass, ctx: PassContext, level: int) -> bool:
    """TVM's rule for a pass inside ``Sequential`` run at optimisation level ``level``."""
    names = {p.name, p.cli_name}
    if names & ctx.required:
        return True
    return p.opt_level <= level and not names & ctx.disabled


BUILTIN_PASSES: dict[str, type[Pass]] = {}
"""Every built-in pass class, by command-line name (filled by ``register_pass``)."""

_P = TypeVar("_P", bound=type[Pass])


def register_pass(cls: _P) -> _P:
    """Class decorator: add a built-in pass to ``BUILTIN_PASSES``."""
    name = cli_name(cls.__name__)
    if name in BUILTIN_PASSES:
        raise ValueError(f"pass {cls.__name__} is registered twice")
    BUILTIN_PASSES[name] = cls
    return cls


def as_pass(obj: object, label: str) -> Pass:
    """``obj`` as a pass: a ``Pass`` as it is, a callable wrapped in ``FunctionPass``."""
    if isinstance(obj, Pass):
        return obj
    if callable(obj):
        return FunctionPass(obj, label)
    raise TypeError(f"{label} is a {type(obj).__name__}, neither a pass nor a callable")


def flatten(passes: Sequence[Pass]) -> list[Pass]:
    """The passes of nested ``Sequential``s, in order."""
    out: list[Pass] = []
    for p in passes:
        out.extend(flatten(p.passes) if isinstance(p, Sequential) else [p])
    return out


__all__ = [
    "BUILTIN_PASSES",
    "FunctionPass",
    "Pass",
    "PassContext",
    "PassError",
    "PassInstrument",
    "Sequential",
    "as_pass",
    "cli_name",
    "flatten",
    "register_pass",
    "run_pass",
    "should_run",
]
