"""Finite elements: Euler-Bernoulli beam and absolute-nodal string."""
