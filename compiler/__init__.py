"""The compiler: passes, the pass manager, and lowering of primitive functions to loop IR.

What belongs here: each pass is a pure function ``IRModule -> IRModule`` (fusion, constant
folding, partial evaluation, automatic differentiation, quantization, layout and scale
folding), ``Sequential`` and ``PassContext`` with instruments, the ``opt-level-N`` pipelines,
and the small loop-level IR that targets generate code from. It arrives with the passes issue.
"""
