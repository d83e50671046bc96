"""``@polyopt.jit``: compile a Python loop function to C on its first call per signature.

:mod:`~polyopt.kernel.decorator` is the decorator, :mod:`~polyopt.kernel.kernel` the
compiled-on-demand :class:`Kernel` it makes; :mod:`~polyopt.kernel.globals_watch` notices
a changed global or closure value compiled in, and :mod:`~polyopt.kernel.cache_key` keys
the disk cache.
"""

from polyopt.kernel.decorator import jit
from polyopt.kernel.kernel import Kernel

__all__ = ["Kernel", "jit"]
