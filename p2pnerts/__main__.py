"""``python -m p2pnerts``: the same as the ``p2pnerts`` command."""

import sys

from p2pnerts.cli import main

sys.exit(main())
