"""The dataflow-generator builders of the ``relay.semantics.ops.nn`` modules, one module each.

The parent package imports and assembles them.
"""
