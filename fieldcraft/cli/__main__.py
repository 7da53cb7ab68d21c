"""``python -m fieldcraft.cli``: the ``fieldcraft`` command without its script."""

import sys

from fieldcraft.cli import main

sys.exit(main())
