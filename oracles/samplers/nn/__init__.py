"""The hypothesis samplers of calls of the ``relay.semantics.ops.nn`` modules, one module each.

The parent package imports and assembles them.
"""
