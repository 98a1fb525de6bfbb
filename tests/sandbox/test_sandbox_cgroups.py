"""Which cgroup the sandboxes may use: only one delegated to the worker (issue 11, item 2).

The decisions are tested on directory trees laid out like cgroupfs (the kernel's side, limits
enforced, is test_sandbox_memory_bounds.py's, where the host delegates a cgroup). What must
never happen: touching a cgroup that is not ours (a login shell's scope, the root cgroup).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from analysis.sandbox.cgroups import (
    WORKER_LEAF,
    NotDelegated,
    SlotCgroups,
    detect,
    own_directory,
    take,
)

MOUNTINFO = (
    "24 29 0:22 / /proc rw,nosuid,nodev,noexec,relatime shared:13 - proc proc rw\n"
    "30 24 0:26 {root} {mountpoint} rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 "
    "cgroup2 rw,nsdelegate,memory_recursiveprot\n"
)


@pytest.mark.parametrize(
    ("self_cgroup", "root", "mountpoint", "directory"),
    [
        ("0::/system.slice/codebias.service\n", "/", "/sys/fs/cgroup",
         "/sys/fs/cgroup/system.slice/codebias.service"),
        ("0::/\n", "/", "/sys/fs/cgroup", "/sys/fs/cgroup"),  # a container's own namespace
        ("0::/docker/abc\n", "/docker/abc", "/sys/fs/cgroup", "/sys/fs/cgroup"),  # bind mount
        ("0::/a b\n", "/", "/sys/fs/cgroup\\040x", "/sys/fs/cgroup x/a b"),  # escaped space
    ],
)  # fmt: skip
def test_own_cgroup_is_found_under_its_cgroup2_mount(
    self_cgroup: str, root: str, mountpoint: str, directory: str
) -> None:
    found, _ = own_directory(self_cgroup, MOUNTINFO.format(root=root, mountpoint=mountpoint))
    assert found == directory


def test_cgroup_v1_only_host_has_no_cgroup_to_use() -> None:
    with pytest.raises(NotDelegated, match="cgroup v1 only"):
        own_directory("4:memory:/user.slice\n", MOUNTINFO.format(root="/", mountpoint="/x"))


def cgroup_dir(path: Path, controllers: str = "cpu memory pids", procs: str = "") -> Path:
    path.mkdir(parents=True, exist_ok=True)
    for name, text in (
        ("cgroup.type", "domain\n"),
        ("cgroup.controllers", controllers + "\n"),
        ("cgroup.subtree_control", "\n"),
        ("cgroup.procs", procs),
    ):
        (path / name).write_text(text)
    return path


def test_root_cgroup_is_never_used(tmp_path: Path) -> None:
    root = cgroup_dir(tmp_path / "root")
    (root / "cgroup.type").unlink()  # the hierarchy's root has no cgroup.type
    with pytest.raises(NotDelegated, match="root cgroup"):
        take(str(root), "/")


def test_a_cgroup_not_delegated_to_us_is_left_alone(tmp_path: Path) -> None:
    scope = cgroup_dir(tmp_path / "user.slice" / "session-4.scope", procs="4242\n")
    with pytest.raises(NotDelegated, match="not delegated"):
        take(str(scope), "/user.slice/session-4.scope")
    assert not (scope / WORKER_LEAF).exists()  # nothing moved, nothing created
    assert (scope / "cgroup.subtree_control").read_text() == "\n"


def test_a_delegated_cgroup_without_the_memory_controller_is_not_used(tmp_path: Path) -> None:
    own = cgroup_dir(tmp_path / "container", controllers="cpu pids")
    with pytest.raises(NotDelegated, match="memory controller"):
        take(str(own), "/")


def test_container_cgroup_moves_its_processes_to_a_leaf_and_enables_controllers(
    tmp_path: Path,
) -> None:
    own = cgroup_dir(tmp_path / "container", procs="1\n7\n")
    (own / WORKER_LEAF).mkdir()
    (own / WORKER_LEAF / "cgroup.procs").write_text("")
    cgroups = take(str(own), "/")
    assert cgroups == SlotCgroups(str(own))
    assert (own / WORKER_LEAF / "cgroup.procs").read_text() == "7"  # each pid written in turn
    assert (own / "cgroup.subtree_control").read_text() == "+memory +pids"


def test_worker_already_in_its_leaf_uses_the_parent(tmp_path: Path) -> None:
    own = cgroup_dir(tmp_path / "container")
    (own / "cgroup.subtree_control").write_text("memory pids\n")
    leaf = cgroup_dir(own / WORKER_LEAF, procs="7\n")
    assert take(str(leaf), f"/{WORKER_LEAF}") == SlotCgroups(str(own))


def test_systemd_delegation_mark_makes_a_unit_cgroup_usable(tmp_path: Path) -> None:
    unit = cgroup_dir(tmp_path / "system.slice" / "codebias.service")
    (unit / "cgroup.subtree_control").write_text("memory pids\n")
    try:
        os.setxattr(unit, "user.delegate", b"1")
    except OSError as exc:
        pytest.skip(f"this filesystem keeps no user xattrs: {exc}")
    assert take(str(unit), "/system.slice/codebias.service") == SlotCgroups(str(unit))


def test_slot_cgroup_gets_the_sessions_limits(tmp_path: Path) -> None:
    base = cgroup_dir(tmp_path / "container")
    slot = base / "codebias-slot-3"
    slot.mkdir()
    for name in ("memory.max", "pids.max", "memory.swap.max", "cgroup.procs"):
        (slot / name).write_text("max\n")
    procs = SlotCgroups(str(base)).prepare(3, 288 << 20, 64)
    assert procs == str(slot / "cgroup.procs")
    assert (slot / "memory.max").read_text() == str(288 << 20)
    assert (slot / "pids.max").read_text() == "64"
    assert (slot / "memory.swap.max").read_text() == "0"


def test_detection_here_answers_with_a_bound_or_a_reason() -> None:
    cgroups, said = detect()
    assert said.startswith("cgroup v2 per sandbox under " if cgroups else "no cgroup: ")
