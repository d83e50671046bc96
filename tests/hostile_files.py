"""Shared by the hostile-user tests: a small kernel, and a source file written for the
``polyopt`` command."""

from __future__ import annotations

import textwrap
from pathlib import Path


def scale(x, k):
    for i in range(x.shape[0]):
        x[i] = x[i] * k


def write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    """``text`` (dedented) or ``bytes`` as the file ``name`` under ``tmp_path``."""
    path = tmp_path / name
    if isinstance(text, str):
        path.write_text(textwrap.dedent(text))
    else:
        path.write_bytes(text)
    return path
