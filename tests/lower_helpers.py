"""Shared by the ``tests/test_lower_*.py`` files: an operator's lowering checked against its
reference semantics on generated calls.

``check_lowered_op(op, data)`` draws one call of ``op`` from its sampler
(``oracles.samplers``), builds ``fn(params) { op(params) }``, lowers it with
``lower_primitive`` (an ill-typed sample is skipped), checks the kernel's well-formedness,
binds ``n`` to 3 and every ``?`` to 2, draws arguments with ``oracles.gen_args.arrays``, runs
the kernel with ``run_kernel`` and compares every output with ``OPS[op].reference`` under the
project's tolerance policy (``oracles.compare.compare_arrays``). A case the reference leaves
undefined or rejects at run time is skipped. Returns whether the case was compared.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from hypothesis import strategies as st

import relay.compiler.lower.ops  # noqa: F401  (registers the lowerings)
from relay.compiler.lower import te
from relay.compiler.lower.check import check_kernel
from relay.compiler.lower.evaluate import run_kernel
from relay.compiler.lower.lower import lower_primitive, size_bindings
from relay.compiler.lower.printer import kernel_text
from relay.oracles.compare import compare_arrays
from relay.oracles.gen_args import arrays
from relay.oracles.samplers import SAMPLERS
from relay.semantics.errors import RelayError
from relay.semantics.ops import OPS
from relay.semantics.syntax import AnyDim, Call, Function, Op, TensorType, TupleType, Type, Var

N_VALUE = 3
ANY_VALUE = 2


def _concrete(t: Type) -> Type:
    if isinstance(t, TupleType):
        return TupleType(tuple(_concrete(f) for f in t.fields))
    assert isinstance(t, TensorType)
    dims: list[int] = []
    for d in t.shape:
        if isinstance(d, int):
            dims.append(d)
        elif isinstance(d, AnyDim):
            dims.append(ANY_VALUE)
        else:
            dims.append(int(d.subs({s: N_VALUE for s in d.free_symbols})))
    return TensorType(tuple(dims), t.dtype)


def _draw(data: st.DataObject, t: Type) -> object:
    if isinstance(t, TupleType):
        return tuple(_draw(data, f) for f in t.fields)
    assert isinstance(t, TensorType)
    return data.draw(arrays(t.dtype, [int(d) for d in t.shape]))  # type: ignore[arg-type]


def _flat(value: object) -> list[np.ndarray]:
    if isinstance(value, tuple):
        return [a for v in value for a in _flat(v)]
    assert isinstance(value, np.ndarray)
    return [value]


ArgFix = Callable[[list[Any], Any], list[Any]]
"""Makes drawn arguments satisfy an operator's run-time preconditions (indices in range,
distinct scatter targets), so that the case is compared rather than skipped as undefined:
``(arguments, attrs) -> arguments``."""


def check_lowered_op(op: str, data: st.DataObject, fix: ArgFix | None = None) -> bool:
    """See the module docstring; ``fix`` adjusts the drawn arguments first."""
    sample = data.draw(SAMPLERS[op]())
    params = tuple(Var(f"p{k}", t) for k, t in enumerate(sample.arg_types))
    fn = Function(params, Call(Op(op), params, sample.attrs))
    try:
        kernel = lower_primitive(fn, op.replace(".", "_"))
    except RelayError:
        return False  # an ill-typed sample
    except te.LoweringError:
        return False  # a form the lowering declines (named by the error)
    check_kernel(kernel)
    types = [_concrete(t) for t in sample.arg_types]
    args = [_draw(data, t) for t in types]
    if fix is not None:
        args = fix(args, sample.attrs)
    reference = OPS[op].reference
    assert reference is not None
    try:
        with np.errstate(all="ignore"):
            expected = reference(tuple(args), sample.attrs)  # type: ignore[arg-type]
    except RelayError:
        return False  # undefined or a failed precondition: any result is acceptable
    inputs = [a for v in args for a in _flat(v)]
    outputs = _flat(expected)
    sizes = size_bindings(kernel, [a.shape for a in inputs], [a.shape for a in outputs])
    try:
        actual = run_kernel(kernel, inputs, sizes)
    except RelayError:
        # The kernel met a case the reference defines only because it checks the whole
        # tensor first (overflow of a wrapped intermediate): not a lowering bug.
        return False
    for k, (e, a) in enumerate(zip(outputs, actual, strict=True)):
        mismatch = compare_arrays(e, a)
        assert mismatch is None, (
            f"{op} output {k}: {mismatch}\nattrs={sample.attrs}\nargs={args}\n"
            f"expected={e}\nactual={a}\n{kernel_text(kernel)}"
        )
    return True


def lowered_ops(family: str) -> list[str]:
    """The operators of ``family`` that have a lowering."""
    return sorted(n for n, o in OPS.items() if o.family == family and n in te.LOWERINGS)
