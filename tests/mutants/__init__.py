"""Deliberately broken passes: the mutation self-check of ``relay fuzz``.

Each module-level attribute named in ``MUTANTS`` is a pass (a ``Pass`` object or a plain
callable ``IRModule -> IRModule``) that is a realistic variant of a real pass with one real
class of Relay pass bug put in, named in its docstring. One module per family of bugs:

- ``algebra.py``: unsound algebraic simplifications (float reassociation, integer
  reciprocals, min/max and clip bounds swapped, a wrong positivity analysis, fast-math
  identities, a wrong commutativity table, relu legalised as leaky_relu);
- ``folding.py``: constant folding and casts (rounding mode, integer width, truncation);
- ``shapes.py``: axis and layout bookkeeping (transposes, reductions, keepdims, negative
  axes, split and concatenate, conv2d and dense weight layouts, a folded scale's axis);
- ``cse.py``: common-subexpression keys that are too coarse (attributes, signed zeros);
- ``control.py``: branches, match clause order, DCE under closures, beta reduction,
  unrolling, and a substitution by name (shadowing);
- ``effects.py``: effects on references dropped, merged or reordered;
- ``inlining.py``: capture and call-by-name when inlining, an unused-function analysis;
- ``rewrites.py``: side conditions left out of SimplifyExpr / FoldScaleAxis / FoldConstant
  rules (these declare ``focus_ops``; the newer mutants do not, since a pass author does not);
- ``contracts.py``: the pass contract broken (ill-typed output, a mutated input, no module,
  no end).

``witnesses/ATTR.relay`` holds, for each mutant, a small program with arguments (in the
report format ``relay fuzz --replay`` reads) on which it is wrong. ``correct.py`` holds correct
but non-trivial passes, the false-alarm checks, each with ``exercises/NAME.relay``: a
program with the corner cases its rewrite must respect. ``tests/test_mutants.py`` checks all
of them and fuzzes the mutants; ``benchmarks/fuzz.py`` measures the mutation score.

The modules are plain files, so that ``relay fuzz --pass tests/mutants/algebra.py:ATTR`` loads
them the way it loads a user's pass; each imports only ``relay`` (no shared helper module).
"""

from __future__ import annotations

from typing import NamedTuple


class Mutant(NamedTuple):
    """One broken pass: the file and attribute ``relay fuzz --pass`` loads it by, and the
    verdict kinds a correct oracle reports for it."""

    file: str
    attr: str
    verdicts: frozenset[str]

    @property
    def spec(self) -> str:
        return f"tests/mutants/{self.file}:{self.attr}"


def _m(file: str, attr: str, *verdicts: str) -> Mutant:
    return Mutant(file, attr, frozenset(verdicts))


MUTANTS: tuple[Mutant, ...] = (
    _m("effects.py", "dce_ignores_effects", "mismatch", "type-changed"),
    _m("effects.py", "cse_merges_effects", "mismatch"),
    _m("effects.py", "dce_inline_once", "mismatch", "type-changed"),
    _m("effects.py", "float_lets", "mismatch"),
    _m("effects.py", "forward_ref_reads", "mismatch"),
    _m("inlining.py", "inline_shared_binders", "ill-formed"),
    _m("inlining.py", "inline_by_name", "mismatch", "type-changed"),
    _m("inlining.py", "remove_uncalled_functions", "ill-formed", "type-changed"),
    _m("rewrites.py", "fast_math", "mismatch"),
    _m("rewrites.py", "fold_consecutive_casts", "mismatch"),
    _m("rewrites.py", "fold_scale_through_relu", "mismatch"),
    _m("rewrites.py", "int_divide_as_floor", "mismatch"),
    _m("rewrites.py", "float_mod_as_floor", "mismatch"),
    _m("contracts.py", "fold_constant_numpy_dtype", "ill-typed", "type-changed"),
    _m("contracts.py", "cache_in_module", "mutated-input"),
    _m("contracts.py", "dce_returns_none", "not-a-module"),
    _m("contracts.py", "canonicalize_forever", "timeout"),
    _m("effects.py", "swap_write_read_by_name", "mismatch"),
    _m("effects.py", "dead_store_shallow", "mismatch"),
    _m("effects.py", "hoist_read_above_call", "mismatch"),
    _m("effects.py", "sink_into_closure", "mismatch"),
    _m("algebra.py", "add_sub_cancel", "mismatch"),
    _m("algebra.py", "int_div_to_mul", "mismatch"),
    _m("algebra.py", "negate_extremum", "mismatch"),
    _m("algebra.py", "abs_of_non_negative", "mismatch"),
    _m("algebra.py", "mul_by_zero", "mismatch"),
    _m("algebra.py", "sqrt_of_square", "mismatch"),
    _m("algebra.py", "constant_first", "mismatch"),
    _m("algebra.py", "relu_as_leaky_relu", "mismatch"),
    _m("algebra.py", "merge_clips_widening", "mismatch"),
    _m("algebra.py", "clip_from_extrema", "mismatch"),
    _m("folding.py", "fold_round_half_even", "mismatch"),
    _m("folding.py", "fold_int_saturating", "mismatch"),
    _m("folding.py", "widen_before_cast", "mismatch"),
    _m("folding.py", "fold_cast_rounding", "mismatch"),
    _m("shapes.py", "transpose_compose_wrong_order", "mismatch", "type-changed"),
    _m("shapes.py", "reduce_axes_not_renumbered", "mismatch", "type-changed", "ill-typed"),
    _m("shapes.py", "reduce_negative_axis", "mismatch", "type-changed"),
    _m("shapes.py", "expand_dims_negative_axis", "type-changed", "ill-typed"),
    _m("shapes.py", "concat_of_split", "type-changed", "mismatch"),
    _m("shapes.py", "split_sections_off_by_one", "ill-typed"),
    _m("shapes.py", "conv2d_nhwc_wrong_kernel_permutation", "mismatch", "ill-typed"),
    _m("shapes.py", "dense_as_matmul", "mismatch", "ill-typed"),
    _m("shapes.py", "mean_keepdims_lost", "mismatch", "type-changed"),
    _m("shapes.py", "fold_scale_into_dense_wrong_axis", "mismatch", "ill-typed"),
    _m("cse.py", "cse_ignores_attrs", "mismatch", "type-changed", "ill-typed"),
    _m("cse.py", "cse_constants_by_value", "mismatch"),
    _m("control.py", "if_constant_wrong_branch", "mismatch"),
    _m("control.py", "if_not_unswapped", "mismatch"),
    _m("control.py", "match_default_first", "mismatch"),
    _m("control.py", "dce_misses_closure_uses", "ill-formed"),
    _m("control.py", "beta_duplicates_effects", "mismatch"),
    _m("control.py", "unroll_without_binding", "mismatch", "ill-typed", "loops"),
    _m(
        "control.py",
        "copy_propagate_by_name",
        "mismatch",
        "ill-formed",
        "ill-typed",
        "type-changed",
    ),
)
"""Every mutant, in the order the test and the benchmark run them."""
