"""Package discovery: ``polyopt/`` as ``polyopt``, and ``frontends/`` and ``backend_c/``
as ``polyopt.frontends`` and ``polyopt.backend_c``.  Every sub-package under them is
found (a hand-kept list once left ``polyopt.transforms`` out of the wheel), and nothing
lands in site-packages but ``polyopt``.  Everything else is in ``setup.cfg``."""

from setuptools import find_packages, setup

ROOTS = {"polyopt": "polyopt", "polyopt.frontends": "frontends", "polyopt.backend_c": "backend_c"}


def packages() -> list[str]:
    found = set(ROOTS)
    for name, where in ROOTS.items():
        found.update(f"{name}.{sub}" for sub in find_packages(where))
    return sorted(found)


# py.typed: the package ships its type hints (PEP 561); call_entry.c is compiled at run time
setup(packages=packages(), package_dir=ROOTS, package_data={"polyopt": ["py.typed"],
                                                                "polyopt.backend_c": ["*.c"]})
