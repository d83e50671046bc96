"""The benchmark harness (``python -m bench``, ``make bench``): see ``bench/__main__.py``."""
