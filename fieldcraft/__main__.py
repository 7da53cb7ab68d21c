"""``python -m fieldcraft ...``: the same as the ``fieldcraft`` command."""

import sys

from fieldcraft.cli import main

sys.exit(main())
