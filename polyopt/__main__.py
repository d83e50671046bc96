"""``python -m polyopt``: the ``polyopt`` command."""

import sys

from polyopt.cli.command import main

sys.exit(main())
