"""The built-in passes, one module each, and the default optimisation pipelines.

Importing this package registers every built-in pass in
``relay.compiler.pass_manager.BUILTIN_PASSES`` (by command-line name). ``pipeline(n)`` is the
default optimisation pipeline that ``opt-level-n`` names: TVM's ``relay.build`` sequence,
each pass run when its opt level is at most ``n``.
"""

from __future__ import annotations

from ..pass_manager import BUILTIN_PASSES, Sequential
from . import (
    canonicalize_ops,
    combine_parallel,
    convert_layout,
    dce,
    div_to_mul,
    dynamic_to_static,
    eliminate_common_subexpr,
    eta_expand,
    fold_constant,
    fold_scale_axis,
    fuse_ops,
    graph_pack,
    infer_type,
    inline,
    lambda_lift,
    normal_forms,
    quantize,
    remove_unused_functions,
    simplify_expr,
    simplify_inference,
)

PIPELINE: tuple[str, ...] = (
    "remove-unused-functions",
    "to-basic-block-normal-form",
    "simplify-inference",
    "dynamic-to-static",
    "eliminate-common-subexpr",
    "combine-parallel-conv2d",
    "combine-parallel-dense",
    "fold-constant",
    "fold-scale-axis",
    "simplify-expr",
    "canonicalize-ops",
    "div-to-mul",
    "fold-constant",
    "dead-code-elimination",
    "fuse-ops",
    "infer-type",
)
"""The default optimisation sequence, by command-line name (passes not yet registered are
left out)."""


def pipeline(opt_level: int) -> Sequential:
    """The default optimisation pipeline ``opt-level-<opt_level>``: ``PIPELINE``'s passes
    whose opt level is at most ``opt_level``."""
    passes = tuple(BUILTIN_PASSES[n]() for n in PIPELINE if n in BUILTIN_PASSES)
    return Sequential(passes, label=f"opt-level-{opt_level}", level=opt_level)


__all__ = [
    "BUILTIN_PASSES",
    "PIPELINE",
    "canonicalize_ops",
    "combine_parallel",
    "convert_layout",
    "dce",
    "div_to_mul",
    "dynamic_to_static",
    "eliminate_common_subexpr",
    "eta_expand",
    "fold_constant",
    "fold_scale_axis",
    "fuse_ops",
    "graph_pack",
    "infer_type",
    "inline",
    "lambda_lift",
    "normal_forms",
    "pipeline",
    "quantize",
    "remove_unused_functions",
    "simplify_expr",
    "simplify_inference",
]
