"""Frontends: turn a Python function or a C ``#pragma scop`` region into a :class:`polyopt.model.scop.Scop`."""
