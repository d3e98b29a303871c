"""The neural-network operators (``nn.*``), one module per kind of layer.

The parent package imports each module (which registers its operators); this one imports
none, so that a module outside ``nn`` may use ``nn.common`` without a cycle.
"""
