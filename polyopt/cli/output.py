"""Where the ``polyopt`` command writes: standard output, or a file replaced atomically."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from polyopt.cli.errors import CliError


def write_output(out: str, text: str, source: Path) -> None:
    """Write ``text`` to ``out`` atomically ('-' is standard output); never over ``source``.

    A file is written beside the target and renamed over it, so a failure (a read-only
    directory, a full disk) leaves the target as it was and no partial file behind."""
    if out == "-":
        try:
            sys.stdout.buffer.write(text.encode("utf-8", "surrogateescape"))
            sys.stdout.flush()
        except OSError as exc:  # `-o - > /dev/full`, a closed pipe: was an "internal error"
            # nothing more can reach it: the interpreter's own flush at exit would fail again
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise CliError(f"standard output: cannot write the output "
                           f"({exc.strerror or exc})") from None
        return
    target = Path(out)
    try:
        _write_file(target, text, source)
    except OSError as exc:
        raise CliError(f"{target}: cannot write the output ({exc.strerror or exc})") from None


def check_output(out: str, source: Path) -> None:
    """Refuse an output that :func:`write_output` would refuse, before a long run (a
    tuning search) whose result would then be lost."""
    if out == "-":
        return
    target = Path(out)
    _check_target(target, source)
    if target.exists() and not target.is_file():
        return  # /dev/null, a pipe: written through
    try:  # the write makes a temporary file beside the target, then renames it
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                                   dir=target.resolve().parent)
        os.close(fd)
        os.unlink(tmp)
    except OSError as exc:
        raise CliError(f"{target}: cannot write the output ({exc.strerror or exc})") from None


def _check_target(target: Path, source: Path) -> None:
    if target.resolve() == source.resolve() or (target.exists() and os.path.samefile(target, source)):
        raise CliError(f"refusing to write over the input file {source} (choose another -o)")
    if target.is_dir():
        raise CliError(f"{target}: is a directory")
    directory = target.resolve().parent
    if not directory.is_dir():
        raise CliError(f"{target}: the directory {directory} does not exist")


def _write_file(target: Path, text: str, source: Path) -> None:
    _check_target(target, source)
    if target.is_symlink():
        # through the link, as `gcc -o` and `cp` write: the rename would replace the
        # link itself (and fail where its target is on another file system)
        target = target.resolve()
    if target.exists() and not target.is_file():  # /dev/null, a pipe: write through
        with open(target, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
            f.write(text)
        return
    directory = target.resolve().parent
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=directory)
    try:
        os.chmod(tmp, target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~_umask())
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    # the process's umask can only be read by setting it: set it back at once
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
