"""The benchmark harness (``python -m bench``, ``make bench``): see ``bench/__main__.py``."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: where measurement processes run: not the checkout, whose ``polyopt/`` would shadow
#: the installed package (the working directory goes first on a process's path)
WORKDIR = tempfile.gettempdir()


def module_command(module: str, *args: str) -> list[str]:
    """``python -m module args`` for a module of the checkout, with the installed polyopt
    imported first and the checkout appended to the path after it."""
    code = ("import runpy, sys; import polyopt; sys.path.append(sys.argv.pop(1)); "
            f"sys.argv[0] = {module!r}; "
            f"runpy.run_module({module!r}, run_name='__main__', alter_sys=True)")
    return [sys.executable, "-c", code, str(ROOT), *args]
