"""Dataflow-generator builders of the operators of
``relay.semantics.ops.image`` (well-typed calls by construction).

From the former ``builders_nnnorm`` module:

Dataflow-generator builders of the ``nnnorm`` operator group.

Each builder makes a well-typed call whose meaning is defined for the generator's default
arguments: float data for the float-only normalisations and losses (and positive
probabilities for ``nn.cross_entropy``'s log), ``nn.nll_loss`` targets that are constants
inside ``[0, C)`` or the ignore index, mirror padding of at most one reflection, space/batch
blocks that divide their extents, and no ``align_corners`` resize to an extent of 1 (whose
coordinates are 0 / 0). Float results of integer data stay in range for the default
arguments (small values; interpolation and cubic overshoot keep them inside the dtype).
"""

from __future__ import annotations

from relay.semantics.ops.image import Resize2DAttrs

from .core import _IMAGE_LAYOUTS, ALL, Builder, Built, _Graph, _nonempty

_RESIZE_MODES = (
    *("half_pixel", "asymmetric", "align_corners", "pytorch_half_pixel"),
    *("tf_half_pixel_for_nn", "tf_crop_and_resize"),
)


def _resize2d(g: _Graph) -> Built:
    """4-D data of any dtype; an output size of 1 to 6 per axis (at least 2 for
    align_corners); a float or the data's output dtype."""
    data = g.tensor(ALL, min_rank=4, max_rank=4, fits=_nonempty)
    mode = g.pick(_RESIZE_MODES)
    low = 2 if mode == "align_corners" else 1
    attrs = Resize2DAttrs.from_kwargs(
        {
            "size": (g.integer(low, 6), g.integer(low, 6)),
            "roi": g.pick([(0.0, 0.0, 1.0, 1.0), (0.25, 0.0, 0.75, 1.25)]),
            "layout": g.pick(_IMAGE_LAYOUTS),
            "method": g.pick(["linear", "nearest_neighbor", "cubic"]),
            "coordinate_transformation_mode": mode,
            "rounding_method": g.pick(["round", "", "floor", "ceil", "round_prefer_ceil"]),
            "cubic_alpha": g.pick([-0.5, -0.75]),
            "cubic_exclude": g.integer(0, 1),
            "extrapolation_value": g.pick([0.0, 1.0]),
            "out_dtype": g.pick(["", "float32"]),
        }
    )
    return (data,), attrs


BUILDERS: dict[str, Builder] = {
    "image.resize2d": _resize2d,
}
"""This module's entries, by op name."""
