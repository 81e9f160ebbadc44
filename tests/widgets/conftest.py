"""Shared data for the widget tests: real penguins, and IPython's test shell with the magics."""

import sys
from pathlib import Path

import pyarrow as pa
import pytest

# `pytest` (unlike `python -m pytest`) leaves the repository off sys.path while tests/ is on
# it, so this folder would be imported as a namespace package named `widgets`; put the
# real package first.
_REPO = str(Path(__file__).resolve().parents[2])
if _REPO not in sys.path:
    sys.path.insert(0, _REPO)


@pytest.fixture(scope="session")
def penguins() -> pa.Table:
    from palmerpenguins import load_penguins

    return pa.Table.from_pandas(load_penguins(), preserve_index=False)


@pytest.fixture(scope="session")
def shell():
    """IPython's test shell with `%load_ext widgets` done, as a notebook user would."""
    from IPython.testing.globalipapp import start_ipython

    ip = start_ipython()
    ip.run_line_magic("load_ext", "widgets")
    return ip


@pytest.fixture
def ip(shell):
    """The test shell with this test's variables removed afterwards."""
    before = set(shell.user_ns)
    yield shell
    for name in set(shell.user_ns) - before:
        shell.user_ns.pop(name, None)
