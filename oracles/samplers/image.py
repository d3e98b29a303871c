"""Hypothesis samplers of calls of the operators of
``relay.semantics.ops.image``.

From the former ``samplers_nnnorm`` module:

Samplers of the ``nnnorm`` operator group: normalisations, losses, resampling, resize.

Each draws a call that is well-typed four times in five (``_valid``) and otherwise breaks it
in one way (a wrong vector length or dtype, an axis out of range, a bad attribute value or
length). All randomness is drawn from Hypothesis; samples shrink towards small shapes, default
attributes and the valid variant.
"""

from __future__ import annotations

from hypothesis import strategies as st

from relay.semantics.ops.image import Resize2DAttrs

from .core import NUMERIC, Sample, Sampler, _image, _size, _tensor, _valid


@st.composite
def _resize2d(draw: st.DrawFn) -> Sample:
    valid = _valid(draw)
    shape, layout = _image(draw, valid)
    kwargs: dict[str, object] = {
        "size": (_size(draw), _size(draw)),
        "roi": (0.0, 0.0, 1.0, 1.0),
        "layout": layout,
        "method": draw(st.sampled_from(["linear", "nearest_neighbor", "cubic"])),
        "coordinate_transformation_mode": draw(
            st.sampled_from(["half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize"])
        ),
        "rounding_method": draw(st.sampled_from(["round", "", "floor"])),
        "out_dtype": draw(st.sampled_from(["", "float32", "int8"])),
    }
    if not valid and draw(st.booleans()):
        fault = draw(st.sampled_from(["size", "roi", "method", "negative"]))
        if fault == "size":
            kwargs["size"] = (2,)
        elif fault == "roi":
            kwargs["roi"] = None
        elif fault == "method":
            kwargs["method"] = "area"
        else:
            kwargs["size"] = (2, -1)
    attrs = Resize2DAttrs.from_kwargs(kwargs)
    return Sample((_tensor(shape, draw(st.sampled_from(NUMERIC))),), attrs, valid)


SAMPLERS: dict[str, Sampler] = {
    "image.resize2d": _resize2d,
}
"""This module's entries, by op name."""
