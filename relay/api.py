"""What the public API and the command line share: preludes, argument checks, engines.

- ``parse_in_scope(text, source_name, prelude)``: the definitions of ``text`` read with the
  globals, types and constructors of ``prelude`` (a module) in scope;
- ``merge(prelude, mod)``: one module holding both, the prelude's definitions first;
- ``check_entry(mod, entry, count, name)``: the entry function, which must exist and take
  ``count`` arguments;
- ``check_call(mod, entry, args, labels)``: type-check ``mod`` together with a call of its
  global ``entry`` on ``args``; raises ``ArgumentError`` when the arguments are at fault and
  ``RelayTypeError`` when the module is;
- ``value_expr(value, mod, span)``: the closed expression that denotes a value, if any;
- ``evaluate_entry(mod, args, entry=, engine=, fuel=)``: run one of ``ENGINES``
  (``NO_FUEL_LIMIT`` is the fuel of an evaluation that was given none);
- ``Built``: what ``relay.build`` returns, a compiled module whose ``run`` checks its arguments
  with ``check_call`` (once per distinct argument signature) before the compiled code runs.

``relay.evaluate`` and ``relay run`` both go through ``check_call``, so an argument that does
not fit is reported in the same words by both (arguments are numbered from 1), and the
program is type-checked once, together with the call.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, assert_never

from .semantics.errors import ParseError, RelayTypeError, SourceFile, Span
from .semantics.syntax import (
    Call,
    Constant,
    Expr,
    Function,
    GlobalVar,
    IRModule,
    Tuple,
    Var,
)
from .semantics.text.parser import parse
from .semantics.typing import TypeInfo, infer_types
from .semantics.values import (
    ClosureValue,
    ConstructorFnValue,
    ConstructorValue,
    RefValue,
    TensorValue,
    TupleValue,
    Value,
)

if TYPE_CHECKING:
    from .semantics.evaluation import Result
    from .targets.base import Executable

NO_FUEL_LIMIT = sys.maxsize
"""The fuel an evaluation gets when none is given: no limit an ordinary program meets."""

ENGINES = ("interpreter", "spec")
"""The evaluators: the definitional interpreter, and the big-step rules of the spec."""


class ArgumentError(TypeError):
    """The arguments do not fit the entry function: an unknown entry, the wrong number of
    arguments, or an argument of the wrong type. The command line reports it as bad usage
    (exit code 2)."""


def parse_in_scope(text: str, source_name: str, prelude: IRModule | None) -> IRModule:
    """The definitions of ``text`` alone, read with ``prelude``'s globals, types and
    constructors in scope; redefining one of its names is a ``ParseError``."""
    if prelude is None:
        return parse(text, source_name)
    own = parse(text, source_name, scope=prelude)
    for gv in own.functions:
        if gv.name in prelude:  # a bare expression's @main; the parser catches a def
            raise ParseError(f"duplicate definition of @{gv.name}: the prelude defines it",
                             gv.span)  # fmt: skip
    return own


def merge(prelude: IRModule | None, mod: IRModule) -> IRModule:
    """One module with the definitions of ``prelude`` (first) and of ``mod``, which was read
    with ``prelude`` in scope (``parse_in_scope``)."""
    if prelude is None:
        return mod
    return IRModule(
        {**prelude.functions, **mod.functions},
        {**prelude.type_definitions, **mod.type_definitions},
    )


def value_expr(value: Value, mod: IRModule, span: Span) -> Expr | None:
    """A closed expression of ``value``'s type (tensors, tuples, and constructors of ``mod``
    and their values), every node at ``span``, sharing kept; ``None`` if part of it is a
    closure or a reference, which have none. Iterative: a list of any length converts."""
    constructors = mod.constructors()
    done: dict[Value, Expr | None] = {}
    stack: list[tuple[Value, bool]] = [(value, False)]
    while stack:
        v, fields_done = stack.pop()
        if v in done:
            continue
        match v:
            case TensorValue(data):
                done[v] = Constant(data, span=span)
            case TupleValue(fields) | ConstructorValue(_, fields) if not fields_done:
                stack.append((v, True))
                stack.extend((f, False) for f in reversed(fields) if f not in done)
            case TupleValue(fields):
                exprs = tuple(e for f in fields if (e := done[f]) is not None)
                done[v] = Tuple(exprs, span=span) if len(exprs) == len(fields) else None
            case ConstructorValue(ctor, fields):
                exprs = tuple(e for f in fields if (e := done[f]) is not None)
                ok = len(exprs) == len(fields) and constructors.get(ctor.name) is ctor
                done[v] = Call(ctor, exprs, span=span) if ok else None
            case ConstructorFnValue(ctor):
                done[v] = ctor if constructors.get(ctor.name) is ctor else None
            case ClosureValue() | RefValue():
                done[v] = None
            case _:
                assert_never(v)
    return done[value]


def check_entry(mod: IRModule, entry: str, count: int, source_name: str) -> Function:
    """``mod``'s global ``@entry``, which must take ``count`` arguments; ``ArgumentError``
    names the functions there are, or the parameters."""
    if entry not in mod:
        defined = ", ".join(f"@{gv.name}" for gv in mod.functions) or "no functions"
        raise ArgumentError(f"no function @{entry} in {source_name} (it defines {defined})")
    params = mod[entry].params
    if count != len(params):
        wanted = ", ".join(f"%{p.name_hint}" for p in params)
        raise ArgumentError(f"@{entry}({wanted}) takes {len(params)} argument"
                            f"{'' if len(params) == 1 else 's'}, found {count}")  # fmt: skip
    return mod[entry]


def check_call(
    mod: IRModule, entry: str, args: Sequence[Expr | None], labels: Sequence[str]
) -> TypeInfo:
    """Type-check ``mod`` with a call of ``@entry`` (``check_entry``) on ``args``.

    Each argument is a closed expression whose nodes carry spans in a source of its own, or
    ``None`` (a value with no expression: any type is accepted); ``labels[i]`` names argument
    ``i + 1`` in messages, such as ``"argument 1 ('1f')"``. Returns the types of the module
    with the call added; raises ``ArgumentError`` if an argument does not fit, and
    ``RelayTypeError`` if ``mod`` itself is ill-typed.
    """
    fn = check_entry(mod, entry, len(args), "the module")
    name = "argument_check"
    while name in mod:
        name += "_"
    placeholders = [Var(f"argument_{i}") for i in range(1, len(args) + 1)]
    call_args = tuple(p if a is None else a for p, a in zip(placeholders, args, strict=True))
    call = Call(mod.get_global_var(entry), call_args)
    params = tuple(p for p, a in zip(placeholders, args, strict=True) if a is None)
    try:
        return infer_types(mod.with_function(GlobalVar(name), Function(params, call)))
    except RelayTypeError as err:
        where = err.span.source if err.span is not None else None
        at = [a is not None and a.span is not None and a.span.source is where for a in args]
        if True not in at:
            infer_types(mod)  # an error of the module's own is reported as such
            raise ArgumentError(f"the arguments do not fit @{entry}: {err}") from None
        i = at.index(True)
        # T-Call numbers the arguments of a call from 0; here they count from 1, and the
        # parameter's name says more than its position.
        prefix = re.match(rf"T-Call: argument {i}: ", err.message)
        if prefix is None:
            raise ArgumentError(f"{labels[i]} does not fit @{entry}: {err.message}") from None
        param = f"%{fn.params[i].name_hint}"
        raise ArgumentError(f"{labels[i]} does not fit parameter {param} of @{entry}: "
                            f"{err.message[prefix.end() :]}") from None  # fmt: skip


def argument_source(index: int, text: str = "") -> SourceFile:
    """The source an argument's expression is read from (its spans point there)."""
    return SourceFile(f"<argument {index}>", text)


def evaluate_entry(
    mod: IRModule, args: Sequence[Value], *, entry: str, engine: str, fuel: int
) -> Result:
    """Apply ``@entry`` to ``args`` with the engine called ``engine`` (one of ``ENGINES``)."""
    if engine == "interpreter":
        from .interpreter import evaluate as interpret

        return interpret(mod, args, entry=entry, fuel=fuel)
    if engine == "spec":
        from .semantics.evaluation import evaluate as spec

        return spec(mod, args, entry=entry, fuel=fuel)
    raise ValueError(f"engine={engine!r} is not one of {', '.join(map(repr, ENGINES))}")


def _signature(v: Value) -> object:
    """What the type check of an argument depends on, for tensors and tuples of them; ``None``
    for anything else (checked every time)."""
    if isinstance(v, TensorValue):
        return (v.data.shape, v.data.dtype.name)
    if isinstance(v, TupleValue):
        fields = tuple(_signature(f) for f in v.fields)
        return None if None in fields else fields
    return None


class Built:
    """A module compiled for a target (``relay.build``): ``run`` applies a global to arguments
    (numpy arrays or scalars, or values) after the same argument check as ``relay.evaluate``,
    whose ``ArgumentError`` it raises; ``executable`` is the target's ``Executable``."""

    def __init__(
        self,
        mod: IRModule,
        executable: Executable,
        as_value: Callable[[object, int], Value],
        describe: Callable[[Value], str],
    ) -> None:
        self.mod = mod
        self.executable = executable
        self._as_value = as_value
        self._describe = describe
        self._checked: set[tuple[str, tuple[object, ...]]] = set()

    def run(self, *args: object, entry: str = "main") -> Value:
        """Apply ``@entry`` to ``args`` with the compiled code; its value."""
        values = tuple(self._as_value(a, i) for i, a in enumerate(args, start=1))
        key = (entry, tuple(_signature(v) for v in values))
        if None in key[1] or key not in self._checked:
            exprs = [value_expr(v, self.mod, Span(argument_source(i), 1, 1, 1, 1))
                     for i, v in enumerate(values, start=1)]  # fmt: skip
            labels = [f"argument {i} ({self._describe(v)})" for i, v in enumerate(values, 1)]
            check_call(self.mod, entry, exprs, labels)
            if None not in key[1]:
                self._checked.add(key)
        return self.executable.evaluate(values, entry=entry).value

    def artifacts(self) -> dict[str, dict[str, str | bytes]]:
        """Each kernel's code, by kernel name (``Executable.artifacts``)."""
        return self.executable.artifacts()
