"""What the ``polyopt`` command reads: the ``#pragma scop`` regions of a C file, or
the kernel functions of a Python file and how their argument types are given
(``--signature``) or inferred.

A Python file is imported as a module (its top level runs, as when it is
imported normally); its ``@polyopt.jit`` functions are the candidates, and
``--function NAME`` may also name a plain function.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from polyopt.cli.errors import EXIT_USAGE, CliError
from polyopt.frontends.c import CppOptions, parse_c_file
from polyopt.frontends.python import parse_function
from polyopt.kernel import Kernel
from polyopt.kernel.declared import scop_return_mismatch
from polyopt.model.c_region import CFile, CRegion
from polyopt.model.errors import PolyoptError
from polyopt.model.options import Options
from polyopt.model.signature import ArgType, ArrayType, ScalarType, Signature, parse_declared
from polyopt.report.data import SourceExcerpt


class InputError(PolyoptError):
    """The input cannot be used as asked (no such function, bad signature...)."""


@dataclass(frozen=True)
class PythonKernel:
    """A function of a Python file, with the argument types to compile it for."""

    path: str
    name: str
    kernel: Kernel
    signature: Signature | None  # None: infer the types from the code

    def sample_args(self) -> tuple[Any, ...]:
        """Arguments of the signature's types (values do not matter to code generation)."""
        assert self.signature is not None
        return tuple(_sample(t) for _, t in self.signature.args)

    def source(self) -> SourceExcerpt:
        lines, first = inspect.getsourcelines(self.kernel.py_func)
        return SourceExcerpt(self.path, max(first, 1), tuple(x.rstrip("\n") for x in lines))


def is_python(path: Path) -> bool:
    return path.suffix == ".py"


def check_input(args: argparse.Namespace) -> Path:
    """The input file, once it exists and the options given apply to its language."""
    path: Path = args.file
    if not path.exists():
        raise CliError(f"{path}: no such file")
    if path.is_dir():
        raise CliError(f"{path}: is a directory, not a source file")
    if is_python(path) and (args.include_dirs or args.defines):
        raise CliError("-I and -D apply to C files only", EXIT_USAGE)
    if not is_python(path) and args.signature:
        raise CliError("--signature applies to Python files only", EXIT_USAGE)
    return path


def c_file(args: argparse.Namespace, path: Path) -> CFile:
    return parse_c_file(path, cpp_options(args), getattr(args, "function", None))


def cpp_options(args: argparse.Namespace) -> CppOptions:
    return CppOptions(tuple(args.include_dirs), tuple(args.defines))


def selected_regions(cfile: CFile, function: str | None) -> list[CRegion]:
    """The regions of ``function`` (all of them when None)."""
    if function is None:
        return list(cfile.regions)
    regions = [r for r in cfile.regions if r.function == function]
    if not regions:
        found = ", ".join(sorted({r.function for r in cfile.regions}))
        raise CliError(f"{cfile.path}: no #pragma scop region in a function named {function!r} "
                       f"(regions are in: {found})")
    return regions


def python_kernel(path: Path, function: str | None, signature: str | None) -> PythonKernel:
    """:func:`load_python`, its refusal a command-line error."""
    try:
        return load_python(path, function, signature)
    except InputError as exc:
        raise CliError(str(exc)) from None


def load_python(path: Path, function: str | None, signature: str | None) -> PythonKernel:
    """The kernel ``function`` of the Python file (the only decorated one when None)."""
    module = _import(path)
    kernels = _kernels_of(module)
    if function is None:
        if not kernels:
            raise InputError(f"{path}: no @polyopt.jit function in this file (decorate one, or "
                             "name a plain function with --function NAME)")
        if len(kernels) > 1:
            raise InputError(f"{path}: several @polyopt.jit functions ({', '.join(sorted(kernels))}); "
                             "choose one with --function NAME")
        function = next(iter(kernels))
    obj: Any = module
    for part in function.split("."):  # K.f: a @staticmethod kernel of class K
        obj = getattr(obj, part, None)
    found_kernel = _kernel_in(obj)
    if found_kernel is not None:
        kernel = found_kernel
    elif inspect.isfunction(obj):
        kernel = Kernel(obj, Options())
    else:
        found = ", ".join(sorted(kernels)) or "none"
        raise InputError(f"{path}: no function named {function!r} (@polyopt.jit functions: "
                         f"{found}; a static method is named CLASS.NAME)")
    params = list(inspect.signature(kernel.py_func).parameters)
    sig = None
    if signature is not None:
        try:
            declared = parse_declared(signature)
            sig = declared.bind(params)
        except ValueError as exc:
            raise InputError(f"--signature: {exc}") from None
        if declared.returns is not None:  # checked as the decorator's compile checks it
            wrong = scop_return_mismatch(declared, parse_function(kernel.py_func, sig))
            if wrong is not None:
                raise InputError(f"{function} does not match --signature {signature!r}: {wrong}")
    elif kernel.declared:  # the kernel compiles only its declared types: the first one
        sig = kernel.declared[0].bind(params)
    return PythonKernel(str(path), function, kernel, sig)


def _kernels_of(module: Any) -> dict[str, Kernel]:
    """The module's own ``@polyopt.jit`` functions by the name ``--function`` takes:
    ``CLASS.NAME`` for a static method of one of its classes (hostile session 48b, 08:
    those were left out of the listings, and a file holding only one had "no
    @polyopt.jit function")."""
    out: dict[str, Kernel] = {}
    for name, value in vars(module).items():
        if inspect.isclass(value) and value.__module__ == module.__name__:
            for attr, member in vars(value).items():
                if isinstance(member, staticmethod):
                    k = _kernel_in(member.__func__)
                    if k is not None:
                        out[f"{name}.{attr}"] = k
            continue
        k = _kernel_in(value)
        if k is not None and getattr(k.py_func, "__module__", "") == module.__name__:
            out[name] = k
    return out


def _kernel_in(obj: object) -> Kernel | None:
    """The ``@polyopt.jit`` kernel ``obj`` is, or wraps (``functools.wraps`` over one)."""
    for _ in range(16):  # a __wrapped__ chain, not followed forever
        if isinstance(obj, Kernel):
            return obj
        obj = getattr(obj, "__wrapped__", None) if inspect.isfunction(obj) else None
        if obj is None:
            return None
    return None


def _import(path: Path) -> Any:
    name = "_polyopt_cli_" + "".join(c if c.isalnum() else "_" for c in path.stem)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise InputError(f"{path}: cannot be imported as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    sys.path.insert(0, str(path.resolve().parent))
    try:
        # what the file prints at import goes to stderr: standard output is the command's
        # C or report (hostile session 45b, 01: `deps k.py --format json` began with it)
        with contextlib.redirect_stdout(sys.stderr), _no_os_exit(path):
            spec.loader.exec_module(module)
    except PolyoptError:  # a kernel compiled at import (a declared signature) refused: as
        raise  # any refusal is shown, not as the "syntax error" of a SyntaxError subclass
    except SyntaxError as exc:
        where = ":".join(str(x) for x in (exc.filename or path, exc.lineno, exc.offset) if x)
        raise InputError(f"{where}: syntax error: {exc.msg}{_caret(exc)}") from None
    except SystemExit as exc:  # sys.exit() at import: the file is a script, not a module
        where = _user_frame(exc, path)
        raise InputError(f"{path}: importing it called sys.exit({exc.code!r}){where}; polyopt "
                         "imports the file to find its functions (guard the script part with "
                         "`if __name__ == \"__main__\":`)") from None
    except Exception as exc:  # the user's module failed: say so, without our traceback
        where = _user_frame(exc, path)
        raise InputError(f"{path}: importing it failed{where}: {type(exc).__name__}: {exc}") \
            from None
    finally:
        sys.path.remove(str(path.resolve().parent))
    return module


@contextlib.contextmanager
def _no_os_exit(path: Path) -> Iterator[None]:
    """``os._exit()`` at import ended the command at once, with the file's status (0:
    success, nothing written; hostile session 48b, 05); it raises here instead."""
    def refuse(status: int) -> NoReturn:
        raise InputError(f"{path}: importing it called os._exit({status!r}); polyopt imports "
                         "the file to find its functions (guard the script part with "
                         "`if __name__ == \"__main__\":`)")

    real = os._exit
    os._exit = refuse
    try:
        yield
    finally:
        os._exit = real


def _caret(exc: SyntaxError) -> str:
    """The offending line with a caret under the column, as other refusals show it."""
    if not exc.text or not exc.offset:
        return ""
    line = exc.text.rstrip("\r\n")
    body = line.lstrip()
    col = max(exc.offset - 1 - (len(line) - len(body)), 0)
    return f"\n    {body}\n    {' ' * col}^"


def _user_frame(exc: BaseException, path: Path) -> str:
    tb = exc.__traceback__
    line = None
    while tb is not None:
        if Path(tb.tb_frame.f_code.co_filename).resolve() == path.resolve():
            line = tb.tb_lineno
        tb = tb.tb_next
    return f" at line {line}" if line is not None else ""


def _sample(t: ArgType) -> Any:
    if isinstance(t, ArrayType):
        return np.zeros((1,) * t.ndim, dtype=np.dtype(t.dtype.value))
    assert isinstance(t, ScalarType)
    if t.type.weak:
        return 1 if t.is_int else 1.0
    return np.dtype(t.type.dtype.value).type(1)
