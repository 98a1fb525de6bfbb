"""The copy of a project that sandboxes see (analysis/sandbox/snapshot.py).

Symlinks (issue 25, item 1): the copy was made following links, with the worker's rights, so a
pull request adding `pkg/leak.txt -> /proc/self/environ` (or a link to a file only the worker
may read, or to `../.git/config`) landed the worker's environment and that file in /repo, where
a function could return them into the report. A link is never followed now: one that stays in
the project is copied as a link, one that leaves it is left out, and the copy says so.

Zero-size special files (item 6): a file of /proc reports st_size 0 and reads without end
(`/proc/self/pagemap` ~256 GiB); the copy counted st_size, not what it read. It now counts the
bytes read and stops a file at the per-file limit.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from analysis.sandbox.snapshot import MAX_FILE_BYTES, copy_file, copy_project

SECRET = "worker-secret-5e1d-do-not-leak"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CODEBIAS_PROJECT_COPY_SECRET", SECRET)
    outside = tmp_path / "outside"
    outside.mkdir()
    private = outside / "private.key"
    private.write_text(SECRET)
    private.chmod(0o600)  # only the worker may read it
    root = tmp_path / "repo"
    (root / "pkg").mkdir(parents=True)
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text(f"[http]\n\textraheader = AUTHORIZATION: {SECRET}\n")
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "rules.py").write_text("def f(age):\n    return age > 60\n")
    (root / "pkg" / "same.py").symlink_to("rules.py")  # stays in the project: a link
    (root / "pkg" / "leak.txt").symlink_to("/proc/self/environ")
    (root / "pkg" / "key.txt").symlink_to(private)
    (root / "pkg" / "git.txt").symlink_to("../.git/config")
    (root / "pkg" / "up").symlink_to("../..")  # a folder outside, by a relative link
    (root / "pkg" / "fifo").parent.mkdir(exist_ok=True)
    os.mkfifo(root / "pkg" / "fifo")  # opening it for reading would block the copy
    return root


def every_text(folder: Path) -> str:
    """Everything a sandbox could read in the copy: regular files, and through links."""
    texts = []
    for path in folder.rglob("*"):
        try:
            texts.append(path.read_text(errors="replace"))
        except OSError:
            pass  # a dangling link, a folder
    return "\n".join(texts)


def test_links_are_never_followed_and_what_leaves_the_project_is_left_out(
    project: Path, tmp_path: Path
) -> None:
    copy = tmp_path / "copy"
    copy.mkdir()
    made = copy_project(project, copy)
    assert SECRET not in every_text(copy)
    for name in ("leak.txt", "key.txt", "up", "fifo"):
        assert not os.path.lexists(copy / "pkg" / name), name
    # A link inside the project is copied as the link it is; one into `.git` dangles there.
    assert os.readlink(copy / "pkg" / "same.py") == "rules.py"
    assert (copy / "pkg" / "same.py").read_text() == (project / "pkg" / "rules.py").read_text()
    assert not (copy / "pkg" / "git.txt").exists()
    # The copy says what it left out, and why.
    assert sorted(made.links_out) == ["pkg/key.txt", "pkg/leak.txt", "pkg/up"]
    assert made.special == ["pkg/fifo"]
    assert "pkg/leak.txt" in made.note()


def test_a_file_that_reads_more_than_its_size_says_is_cut_at_the_limit() -> None:
    # pagemap: st_size 0, a regular file, ~256 GiB to read.
    assert os.stat("/proc/self/pagemap").st_size == 0
    started = time.monotonic()
    fd = os.open("/proc/self/pagemap", os.O_RDONLY)
    try:
        with open(os.devnull, "wb") as sink:
            copied = copy_file(fd, sink.fileno())
    finally:
        os.close(fd)
    assert copied is None  # over the limit: left out
    assert time.monotonic() - started < 10


def test_a_link_to_a_special_file_is_not_read(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "pagemap").symlink_to("/proc/self/pagemap")
    (root / "ok.py").write_text("x = 1\n")
    copy = tmp_path / "copy"
    copy.mkdir()
    started = time.monotonic()
    made = copy_project(root, copy)
    assert time.monotonic() - started < 10
    assert made.bytes == len("x = 1\n")
    assert not os.path.lexists(copy / "pagemap")


def test_files_over_the_limit_are_left_out_by_what_was_read(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "big.csv").write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    (root / "small.py").write_text("y = 2\n")
    copy = tmp_path / "copy"
    copy.mkdir()
    made = copy_project(root, copy)
    assert made.too_large == ["big.csv"]
    assert not (copy / "big.csv").exists() and (copy / "small.py").read_text() == "y = 2\n"


REVEAL = """\
import os


def reveal(age):
    here = os.path.dirname(__file__)
    found = {}
    for name in ("leak.txt", "key.txt", "git.txt"):
        try:
            with open(os.path.join(here, name)) as handle:
                found[name] = handle.read()
        except OSError as exc:
            found[name] = type(exc).__name__
    return (age > 60, found)
"""


@pytest.mark.sandbox
def test_a_function_cannot_return_the_workers_secrets_through_a_link(project: Path) -> None:
    from analysis import Engine
    from config.policy import default_policy

    (project / "pkg" / "reveal.py").write_text(REVEAL)
    report = Engine(default_policy()).scan_paths([str(project)])
    [reveal] = [f for f in report.functions if f.qualname == "reveal"]
    assert reveal.status == "biased", reveal  # it ran, and its outputs are in the report
    assert SECRET not in str(report.to_dict())
    assert any("pkg/leak.txt" in w for w in report.warnings), report.warnings
