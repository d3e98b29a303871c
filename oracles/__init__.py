"""The oracles: program generators, value comparison, differential checks and Z3 validation.

What belongs here: Hypothesis strategies that build well-typed Relay programs by construction,
the tolerance policy for comparing values, the pass-preservation and target-conformance checks,
the Z3 encodings of the type relations and their validator, the fuzz campaign driver and the
backend conformance kit. Everything that needs z3 or hypothesis lives here and nowhere else.
"""
