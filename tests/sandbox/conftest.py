"""Fixtures of the sandbox suite: a real BwrapExecutor on uids of its own.

The suite runs wherever bubblewrap is installed (CI installs it) and is skipped, with the
reason, only where the `bwrap` binary is absent. A bwrap that is present but cannot isolate
fails the suite (the self-test raises): it never passes by skipping.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sandbox_helpers import BWRAP, SLOTS, UID_BASE, assert_no_survivors

from analysis.sandbox import BwrapExecutor, verify


@pytest.fixture(scope="session")
def executor(tmp_path_factory: pytest.TempPathFactory) -> BwrapExecutor:
    slot_dir = tmp_path_factory.mktemp("slots") / "locks"
    return verify(BwrapExecutor(uid_base=UID_BASE, slots=SLOTS, slot_dir=str(slot_dir)))


@pytest.fixture(scope="module", autouse=True)
def nothing_survives_the_module() -> Iterator[None]:
    yield
    if BWRAP is not None:
        assert_no_survivors()


HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # One worker runs this folder (xdist_group, --dist loadgroup): its survivor checks count
    # every live process on the suite's uids or with its daemon marker, so a module of it
    # running beside another on a second worker would take that module's sandboxes for
    # survivors of its own.
    for item in items:
        if item.path.is_relative_to(HERE):
            item.add_marker(pytest.mark.xdist_group("sandbox-suite"))
