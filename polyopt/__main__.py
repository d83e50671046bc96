"""``python -m polyopt``: the ``polyopt`` command."""

import sys

from polyopt.cli.main import main

sys.exit(main())
