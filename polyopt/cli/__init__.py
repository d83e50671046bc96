"""The ``polyopt`` command: C in, C out, and dependence reports."""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    """The command's entry point; its modules load here, so that a Ctrl-C while they do
    (most of a second on a cold start) exits with status 130 like one during the run,
    not with a traceback (hostile session 47b, finding 01)."""
    try:
        from polyopt.cli.command import main as run
    except KeyboardInterrupt:
        return 130
    return run(argv)


__all__ = ["main"]
