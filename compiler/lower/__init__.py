"""Lowering: each primitive function FuseOps makes becomes one kernel of the loop-level IR.

``ir`` is the loop IR (buffers, loops, loads and stores, scalar arithmetic); ``te`` the
tensor-expression layer in which each operator is described once, as index expressions
(``compiler/lower/ops/`` mirrors ``semantics/ops/`` one module per family). The lowering driver
inlines injective operators into their consumer and gives reductions and scheduled operators
their own loop nests. Targets generate code from the IR (``targets/``).
"""
