"""Unpacking the corpus's sdists: the same on every Python 3.11, and nothing lands outside.

Each case runs in a child of each interpreter the Quick start supports here: Debian's own
python3 (3.11.2, whose tarfile has no extraction filters) and the Python running the tests.
"""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
DEBIAN_PYTHON = "/usr/bin/python3"


def interpreters() -> list[str]:
    found = [p for p in (DEBIAN_PYTHON, sys.executable) if os.path.exists(p)]
    return list({os.path.realpath(p): p for p in found}.values())


def add(tar: tarfile.TarFile, name: str, kind: bytes = tarfile.REGTYPE, **fields: object) -> None:
    info = tarfile.TarInfo(name)
    info.type = kind
    data = b"x = 1\n" if kind == tarfile.REGTYPE else b""
    info.size = len(data)
    info.mode = 0o755 if kind == tarfile.DIRTYPE else 0o644
    for key, value in fields.items():
        setattr(info, key, value)
    tar.addfile(info, io.BytesIO(data) if data else None)


def archive(path: Path, *members: tuple[str, bytes, dict[str, object]]) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        add(tar, "pkg-1.0", tarfile.DIRTYPE)
        add(tar, "pkg-1.0/setup.py")
        for name, kind, fields in members:
            add(tar, name, kind, **fields)
    return path


def extract_in_child(python: str, source: Path, into: Path) -> str:
    program = (
        "import json, sys\n"
        f"sys.path.insert(0, {str(HERE)!r})\n"
        "from pathlib import Path\n"
        "from sdist_archive import UnsafeArchive, extract\n"
        "try:\n"
        f"    extract(Path({str(source)!r}), Path({str(into)!r}))\n"
        "    print(json.dumps('ok'))\n"
        "except UnsafeArchive as error:\n"
        "    print(json.dumps(f'refused: {error}'))\n"
    )
    done = subprocess.run(
        [python, "-I", "-c", program], capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return str(json.loads(done.stdout))


@pytest.mark.parametrize("python", interpreters())
def test_an_sdist_unpacks_with_its_links_and_without_its_owner_or_setuid(
    python: str, tmp_path: Path
) -> None:
    source = archive(
        tmp_path / "good.tar.gz",
        ("pkg-1.0/mod", tarfile.DIRTYPE, {}),
        ("pkg-1.0/mod/__init__.py", tarfile.REGTYPE, {"mode": 0o4775, "uid": 4242}),
        ("pkg-1.0/alias.py", tarfile.SYMTYPE, {"linkname": "mod/__init__.py"}),
        ("pkg-1.0/copy.py", tarfile.LNKTYPE, {"linkname": "pkg-1.0/setup.py"}),
    )
    into = tmp_path / "into"
    into.mkdir()
    assert extract_in_child(python, source, into) == "ok"
    top = into / "pkg-1.0"
    assert (top / "setup.py").read_text() == "x = 1\n"
    assert (top / "alias.py").read_text() == "x = 1\n" and (top / "alias.py").is_symlink()
    assert (top / "copy.py").read_text() == "x = 1\n"
    unpacked = (top / "mod" / "__init__.py").stat()
    assert not unpacked.st_mode & (stat.S_ISUID | stat.S_IWOTH | stat.S_IWGRP)
    assert unpacked.st_uid == os.getuid()


UNSAFE = {
    "a parent folder": ("pkg-1.0/../../escaped.py", tarfile.REGTYPE, {}),
    "an absolute path": ("/tmp/codebias-escaped.py", tarfile.REGTYPE, {}),
    "a symlink out": ("pkg-1.0/out", tarfile.SYMTYPE, {"linkname": "../../escaped.py"}),
    "an absolute symlink": ("pkg-1.0/passwd", tarfile.SYMTYPE, {"linkname": "/etc/passwd"}),
    "a hard link out": ("pkg-1.0/hard", tarfile.LNKTYPE, {"linkname": "../escaped.py"}),
    "a device": ("pkg-1.0/tty", tarfile.CHRTYPE, {"devmajor": 5, "devminor": 0}),
    "a fifo": ("pkg-1.0/pipe", tarfile.FIFOTYPE, {}),
}


@pytest.mark.parametrize("python", interpreters())
@pytest.mark.parametrize("member", UNSAFE.values(), ids=list(UNSAFE))
def test_an_unsafe_member_refuses_the_whole_archive(
    python: str, member: tuple[str, bytes, dict[str, object]], tmp_path: Path
) -> None:
    source = archive(tmp_path / "bad.tar.gz", member)
    into = tmp_path / "deep" / "into"
    into.mkdir(parents=True)
    answer = extract_in_child(python, source, into)
    assert answer.startswith(f"refused: {member[0]}: "), answer
    assert list(into.iterdir()) == []  # checked before anything is written
    assert not (tmp_path / "escaped.py").exists()
    assert not Path("/tmp/codebias-escaped.py").exists()
