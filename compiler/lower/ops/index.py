"""Lowerings of the ``index`` operators (``semantics/ops/index.py``). None is lowered yet; each
is registered unsupported with its reason."""

from __future__ import annotations

from .. import te

for _op, _why in (
    ("take", "not lowered yet"),
    ("strided_slice", "not lowered yet"),
    ("slice_like", "not lowered yet"),
    ("gather", "not lowered yet"),
    ("gather_nd", "not lowered yet"),
    ("scatter_elements", "not lowered yet: scatters need a copy and a second nest"),
    ("scatter_nd", "not lowered yet: scatters need a copy and a second nest"),
    ("one_hot", "not lowered yet"),
    ("unravel_index", "not lowered yet"),
    ("sparse_to_dense", "not lowered yet: a scatter"),
    ("sequence_mask", "not lowered yet"),
    ("invert_permutation", "not lowered yet: a scatter"),
):
    te.unsupported(_op, _why)
