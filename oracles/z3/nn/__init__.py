"""Z3 encodings of the type relations of the ``relay.semantics.ops.nn`` modules, one each.

The parent package imports and assembles them.
"""
