"""``python -m polyopt``: the ``polyopt`` command."""

import sys

from polyopt.cli import main

sys.exit(main())
