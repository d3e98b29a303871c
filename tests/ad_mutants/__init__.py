"""Broken gradient passes: each is ``Gradient`` with one rule (or one piece of the higher-order
translation) wrong, and the AD oracle (``relay fuzz --check gradient``) must catch each.

``MUTANTS`` lists them by attribute of ``tests/ad_mutants/broken.py`` with what is wrong.
"""

from __future__ import annotations

MUTANTS: dict[str, str] = {
    "subtract_wrong_sign": "subtract: the gradient of the right operand is +g, not -g",
    "multiply_no_broadcast_reduction": "multiply: contributions not summed back to a "
    "broadcast operand's shape",
    "dense_transposed_weight": "nn.dense: the weight's gradient transposed (x^T g, not g^T x)",
    "if_wrong_branch": "if: the else branch's operators push no backpropagator",
    "dropped_accumulation": "a value used twice keeps only the last contribution",
    "mean_wrong_scale": "mean: the cotangent not divided by the number of elements",
    "ref_cuts_gradient": "ref_write stores a fresh gradient cell: no gradient through references",
    "softmax_diagonal_only": "nn.softmax: g y (1 - y), the Jacobian's diagonal only",
    "tanh_wrong_derivative": "tanh: g (1 - y), not g (1 - y^2)",
    "transpose_not_inverted": "transpose: the cotangent transposed by the axes, not their inverse",
    "divide_wrong_sign": "divide: the gradient of the divisor is +g a / b^2",
    "first_order_dropped_accumulation": "first-order mode: an adjoint keeps only its first "
    "contribution",
}
