"""The definitional interpreter: Relay's dynamic semantics engineered for scale.

What belongs here: the same meaning as ``relay.semantics``' big-step rules, but with no Python
recursion on program depth (an explicit machine stack), fast dispatch (the AST compiled to
closures), fuel and allocation limits that raise ``Exhaustion``, and numpy/BLAS-backed kernels.
It is the oracle engine used at scale. It arrives with the dynamic-semantics issue.
"""
