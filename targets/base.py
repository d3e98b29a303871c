"""The ``Target`` interface, and the registry of targets by name.

A target turns a module into an ``Executable``::

    target = get_target("cpu")
    exe = target.compile(mod, opt_level=3)    # BackendError naming what it cannot do
    value = exe.run(x, w)                      # @main applied to values
    exe.artifacts()                            # {kernel name: {"llvm": ..., "asm": ..., ...}}

A target states what it supports: ``supports(op)`` is ``None`` for an operator it compiles
natively, or the reason it does not; ``supports_feature(feature)`` the same for the language's
constructs (``FEATURES``: control flow, closures, ADTs, references, ...). Compiling a program
that uses something unsupported is a ``BackendError`` whose message starts ``target NAME does
not support OP``, located at the first call of it: never a silent fallback to the reference
semantics. The conformance kit (``relay.oracles.target_oracle``) reads the same answers to skip
and report what a target declares unsupported.

**Registry.** Built-in targets are registered by name (``register_target``); third-party ones
are found through the ``relay.targets`` entry-point group, whose entries load to a ``Target``
subclass, a ``Target`` instance or a callable returning one::

    [project.entry-points."relay.targets"]
    mytarget = "my_package.target:MyTarget"

``get_target(name)`` builds (once) and returns the target called ``name``; ``target_names()``
lists built-in and installed ones. A name registered both ways is the built-in one.
"""

from __future__ import annotations

import abc
import importlib.metadata
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..semantics.errors import BackendError, Span
from ..semantics.syntax import (
    Call,
    Constructor,
    Expr,
    Function,
    If,
    IRModule,
    Let,
    Match,
    Op,
    RefCreate,
    RefRead,
    RefWrite,
    children,
)
from ..semantics.values import Value

if TYPE_CHECKING:
    from ..semantics.evaluation import Result

ENTRY_POINT_GROUP = "relay.targets"
"""The entry-point group third-party targets register in."""

FEATURES = ("if", "match", "closures", "recursion", "references", "adts", "tuples")
"""The language features a target may decline (``Target.supports_feature``)."""


class Executable(abc.ABC):
    """A module compiled for a target: run its globals, and inspect the code made for it."""

    @abc.abstractmethod
    def evaluate(self, args: Sequence[Value], *, entry: str = "main", fuel: int | None = None
                 ) -> Result:  # fmt: skip
        """Apply the global ``entry`` to ``args``: the value and the final store (the
        interpreter's ``Result``). ``fuel`` bounds the host runtime's steps (``None``: no
        limit); failures are the interpreter's (``RelayRuntimeError``, ``Exhaustion``, ...)."""

    def run(self, *args: Value) -> Value:
        """``@main`` applied to ``args``; its value."""
        return self.evaluate(args).value

    @abc.abstractmethod
    def artifacts(self) -> dict[str, dict[str, str | bytes]]:
        """For each kernel (by name), what was made for it: ``"loop-ir"``, ``"llvm"``,
        ``"asm"``, ``"obj"`` as the target has them."""


class Target(abc.ABC):
    """A code generator: see the module docstring."""

    name: str = ""
    description: str = ""

    @abc.abstractmethod
    def supports(self, op: str) -> str | None:
        """``None`` if the target compiles the operator ``op``; else why it does not."""

    def supports_feature(self, feature: str) -> str | None:
        """``None`` if the target runs the language feature ``feature`` (one of ``FEATURES``);
        else why not. By default every feature is supported."""
        return None

    @abc.abstractmethod
    def compile(self, mod: IRModule, opt_level: int = 3) -> Executable:
        """``mod`` compiled; ``BackendError`` (``unsupported``) for what the target lacks."""

    def check_supported(self, mod: IRModule) -> None:
        """Raise ``BackendError`` at the first use (in definition and evaluation order) of an
        operator or feature of ``mod`` that this target declares unsupported."""
        found = first_unsupported(self, mod)
        if found is not None:
            what, reason, span = found
            raise unsupported(self.name, what, reason, span)


def unsupported(target: str, what: str, reason: str, span: Span | None) -> BackendError:
    """The error for a program using ``what`` (an operator or feature) that ``target`` lacks:
    ``target NAME does not support WHAT (reason)``."""
    detail = f" ({reason})" if reason else ""
    return BackendError(f"target {target} does not support {what}{detail}", span,
                        target=target, op=what)  # fmt: skip


def expression_feature(e: Expr) -> str | None:
    """The feature of ``FEATURES`` an expression node is an instance of, if any."""
    match e:
        case If():
            return "if"
        case Match():
            return "match"
        case RefCreate() | RefRead() | RefWrite():
            return "references"
        case Call(Constructor()):
            return "adts"
        case _:
            return None


def first_unsupported(target: Target, mod: IRModule) -> tuple[str, str, Span | None] | None:
    """The first operator or feature of ``mod`` that ``target`` lacks: ``(what, reason, span)``;
    ``None`` if it supports them all. A walk with an explicit stack (programs are deep)."""
    seen: set[Expr] = set()
    answers: dict[str, str | None] = {}
    for fn in mod.functions.values():
        stack: list[Expr] = [fn]
        while stack:
            e = stack.pop()
            if e in seen:
                continue
            seen.add(e)
            what: str | None = None
            if isinstance(e, Call) and isinstance(e.op, Op):
                what = e.op.name
                if what not in answers:
                    answers[what] = target.supports(what)
            else:
                what = expression_feature(e)
                if isinstance(e, Function) and e is not fn:
                    what = "closures"
                if what is not None and what not in answers:
                    answers[what] = target.supports_feature(what)
            if what is not None and answers[what] is not None:
                return what, answers[what] or "", e.span
            if isinstance(e, Let):
                stack.extend((e.body, e.value))
            else:
                stack.extend(reversed(children(e)))
    return None


class KernelRejected(Exception):
    """A kernel the target's code generator rejected: an internal error (a bug in lowering or
    code generation, never in the user's program). Carries the kernel's name and the IR that
    was rejected, which the command line saves to a file (exit code 3)."""

    def __init__(self, target: str, kernel: str, message: str, ir: str) -> None:
        super().__init__(f"target {target} rejected kernel {kernel}: {message}")
        self.target = target
        self.kernel = kernel
        self.message = message
        self.ir = ir


def locate(err: BackendError, mod: IRModule) -> BackendError:
    """``err`` with a span: if it has none, the first call in ``mod`` of the operator it names
    (the source program, whose spans the optimised module may have lost)."""
    if err.span is not None or not err.op:
        return err
    for fn in mod.functions.values():
        stack: list[Expr] = [fn]
        seen: set[Expr] = set()
        while stack:
            e = stack.pop()
            if e in seen:
                continue
            seen.add(e)
            if isinstance(e, Call) and isinstance(e.op, Op) and e.op.name == err.op:
                err.span = e.span
                return err
            stack.extend(reversed(children(e)))
    err.span = next(iter(mod.functions.values())).span if mod.functions else None
    return err


# ---------------------------------------------------------------------------------------------
# The registry

TargetFactory = Callable[[], Target]

_BUILTIN: dict[str, TargetFactory] = {}
_INSTANCES: dict[str, Target] = {}


def register_target(name: str, factory: TargetFactory) -> None:
    """Register a built-in target: ``factory()`` builds it on first use."""
    if name in _BUILTIN:
        raise ValueError(f"target {name!r} is registered twice")
    _BUILTIN[name] = factory


@dataclass(frozen=True)
class TargetLoadError(LookupError):
    """A target that is not registered, or whose entry point does not load."""

    message: str

    def __str__(self) -> str:
        return self.message


def _entry_points() -> dict[str, importlib.metadata.EntryPoint]:
    found: dict[str, importlib.metadata.EntryPoint] = {}
    for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep)
    return found


def target_names() -> list[str]:
    """The names of the built-in targets, then of the installed third-party ones, sorted."""
    builtin = sorted(_BUILTIN)
    return builtin + sorted(set(_entry_points()) - set(builtin))


def get_target(name: str) -> Target:
    """The target called ``name``, built on first use; ``TargetLoadError`` (a ``LookupError``)
    naming the known targets if there is none, or saying why its entry point failed."""
    target = _INSTANCES.get(name)
    if target is not None:
        return target
    factory = _BUILTIN.get(name)
    if factory is None:
        ep = _entry_points().get(name)
        if ep is None:
            known = ", ".join(target_names())
            raise TargetLoadError(f"unknown target {name!r}; the targets are: {known}")
        try:
            loaded: object = ep.load()
        except Exception as err:
            raise TargetLoadError(f"target {name!r} (entry point {ep.value} of the "
                                  f"{ENTRY_POINT_GROUP} group) does not load: "
                                  f"{type(err).__name__}: {err}") from err  # fmt: skip
        factory = _as_factory(name, loaded)
    target = factory()
    if not isinstance(target, Target):
        raise TargetLoadError(f"target {name!r} is a {type(target).__name__}, not a "
                              "relay.targets.Target")  # fmt: skip
    if not target.name:
        target.name = name
    _INSTANCES[name] = target
    return target


def _as_factory(name: str, loaded: object) -> TargetFactory:
    if isinstance(loaded, Target):
        return lambda: loaded
    if callable(loaded):
        return lambda: _call_factory(name, loaded)
    raise TargetLoadError(f"target {name!r}: the entry point gives a {type(loaded).__name__}; "
                          "expected a Target subclass, instance or factory")  # fmt: skip


def _call_factory(name: str, factory: Callable[[], object]) -> Target:
    made = factory()
    if not isinstance(made, Target):
        raise TargetLoadError(f"target {name!r}: its entry point made a {type(made).__name__}, "
                              "not a relay.targets.Target")  # fmt: skip
    return made


__all__ = [
    "ENTRY_POINT_GROUP",
    "FEATURES",
    "Executable",
    "KernelRejected",
    "Target",
    "TargetLoadError",
    "expression_feature",
    "first_unsupported",
    "get_target",
    "locate",
    "register_target",
    "target_names",
    "unsupported",
]
