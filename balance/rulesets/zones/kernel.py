"""Vectorised kernel (placeholder)."""
from __future__ import annotations
def simulate(rules, side_a, side_b, *, n, rng):
    raise NotImplementedError
