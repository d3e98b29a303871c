"""Assembles the converter table: importing this module registers every converter."""

from . import ops_attention, ops_math, ops_nn, ops_rnn, ops_tensor

__all__ = ["ops_attention", "ops_math", "ops_nn", "ops_rnn", "ops_tensor"]
