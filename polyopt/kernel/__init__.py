"""``@polyopt.jit``: compile a Python loop function to C on its first call per signature.

:mod:`~polyopt.kernel.decorator` is the decorator, :mod:`~polyopt.kernel.kernel` the
compiled-on-demand :class:`Kernel` it makes; :mod:`~polyopt.kernel.globals_watch` notices
a changed global or closure value compiled in, :mod:`~polyopt.kernel.cache_key` keys
the disk cache, :mod:`~polyopt.kernel.declared` holds signatures given ahead of a call,
:mod:`~polyopt.kernel.threads` the thread count and :mod:`~polyopt.kernel.shipping` the
pickling of a kernel by its source.
"""

from polyopt.kernel.decorator import jit
from polyopt.kernel.kernel import Kernel
from polyopt.kernel.threads import get_num_threads, set_num_threads

__all__ = ["Kernel", "get_num_threads", "jit", "set_num_threads"]
