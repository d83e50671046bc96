"""The ``polyopt`` command: C in, C out, and dependence reports."""

from polyopt.cli.command import main

__all__ = ["main"]
