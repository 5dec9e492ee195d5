"""The layout algebra under CuTe's names, one implementation for concrete and symbolic layouts (docs/model.md
section 3): coalesce, composition, complement, divides and products, inverses, recast, tile_to_shape, the
NVlabs reference's nullspace, layout_add, greatest_common_domain and coalesce_z, and the expression language
of claims and ``cuteverify algebra``. Every operation exported here takes ``mode=`` (``bymode.by_mode``).

May import: ``errors``, ``symbolic``, ``core``.
"""
from .add import greatest_common_domain, layout_add
from .bymode import by_mode
from .coalesce import coalesce, filter, filter_zeros
from .coalesce_z import coalesce_z
from .complement import complement
from .composition import composition
from .divide import (
           blocked_product,
           flat_divide,
           flat_product,
           logical_divide,
           logical_product,
           raked_product,
           tiled_divide,
           tiled_product,
           zipped_divide,
           zipped_product,
)
from .inverse import left_inverse, max_common_layout, max_common_vector, right_inverse
from .nullspace import nullspace
from .ordered import make_layout_like, make_ordered_layout
from .recast import downcast, recast, upcast
from .tile import tile_to_mma_shape, tile_to_shape

__all__ = ["coalesce", "filter", "filter_zeros", "complement", "composition", "logical_divide", "zipped_divide",
           "tiled_divide", "flat_divide", "logical_product", "zipped_product", "tiled_product", "flat_product",
           "blocked_product", "raked_product", "right_inverse", "left_inverse", "max_common_layout",
           "max_common_vector", "upcast", "downcast", "recast", "tile_to_shape", "tile_to_mma_shape",
           "nullspace", "layout_add", "greatest_common_domain", "coalesce_z", "make_ordered_layout",
           "make_layout_like"]

# The public operations take ``mode=``; the modules keep the plain ones for their own calls.
globals().update({_name: by_mode(globals()[_name]) for _name in __all__})
