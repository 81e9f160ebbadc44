"""`python -m toolkit.cli ...` runs the `exprscope` command."""

import sys

from .command import main

sys.exit(main())
