"""Z3 encodings of the type relations of the operators of
``relay.semantics.ops.image``.

From the former ``z3_nnnorm`` module:

Z3 encodings of the type relations of the ``nnnorm`` operator group.

Normalisations and losses (``ops.nn_norm``), resampling (``ops.nn_resample``) and
``image.resize2d`` (``ops.image``), written from TVM 0.18's relations (``src/relay/op/nn/nn.cc``,
``nn/pad.cc``, ``nn/upsampling.cc``, ``image/resize.cc``) and the departures those modules
document (``group_norm``'s groups, ``lrn``'s rank/axis/size, NCHW/NHWC layouts only, TOPI's
divisibility checks for the ``*_nd`` ops). Each encoding's docstring states its rule.
"""

from __future__ import annotations

from collections.abc import Sequence

import z3

from relay.semantics.ops.image import Resize2DAttrs
from relay.semantics.ops.registry import Attrs

from .core import Arg, Encoded, Encoding, IllTyped, _attrs, _hw, _tensor, well_typed

_RESIZE_METHODS = ("nearest_neighbor", "linear", "cubic")


_RESIZE_MODES = (
    *("half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"),
    *("tf_half_pixel_for_nn", "tf_crop_and_resize"),
)


_ROUNDING = ("", "round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil")


def _resize2d(args: Sequence[Arg], attrs: Attrs | None) -> Encoded:
    """Resize2DRel: 4-D NCHW or NHWC; size two non-negative integers, roi four floats, known
    method, coordinate mode and rounding; H, W become size; dtype out_dtype or data's."""
    data = _tensor(args, 0, "data")
    a = _attrs(attrs, Resize2DAttrs)
    hi, wi = _hw(a.layout, len(data.shape))
    if a.size is None or len(a.size) != 2 or min(a.size) < 0:
        raise IllTyped(f"size {a.size}")
    if a.roi is None or len(a.roi) != 4:
        raise IllTyped(f"roi {a.roi}")
    known = (
        a.method in _RESIZE_METHODS
        and a.coordinate_transformation_mode in _RESIZE_MODES
        and a.rounding_method in _ROUNDING
    )
    if not known:
        raise IllTyped("unknown method, coordinate mode or rounding method")
    out = list(data.shape)
    out[hi], out[wi] = z3.IntVal(a.size[0]), z3.IntVal(a.size[1])
    return well_typed([out], dtypes=[a.out_dtype or data.dtype])


RULES: dict[str, Encoding] = {
    "image.resize2d": _resize2d,
}
"""This module's entries, by op name."""
