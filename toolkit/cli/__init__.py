"""The `exprscope` command (`command`, its entry point `main`), what it reads (`inputs`,
`substrait`), and `make demo` (`demo`, `demo_spark`)."""

from .command import main  # noqa: F401  (pyproject's console script is toolkit.cli:main)
