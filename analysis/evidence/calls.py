"""Recorded calls as the host keeps them: which function, where the call came from, and the
description of each argument; the pickles themselves sit in the evidence folder, unread.

`Evidence` is one project's recording: the folder the later sessions of the scan see
read-only (`c<n>.pickle` and `index.json`, written here, by the host, from what the child
streamed), the calls by function, and what the run did (entries, tests, calls dropped).
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import shutil
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from analysis.errors import InvalidEvidence
from analysis.evidence.described import MAX_TEXT, Described, Reader, items, text

Passing = Literal["arg", "star", "kw"]
MAX_PARAMS = 64
MAX_PATHS = 10
# Environment variables the project's run set (`os.environ.setdefault("API_ROLE", ...)` in a
# test module): at most this many, each name and value shorter than MAX_TEXT.
MAX_ENVIRON = 32


@dataclass(frozen=True)
class FunctionKey:
    """A function of the project: its file (relative to the project) and qualified name."""

    file: str
    qualname: str


@dataclass(frozen=True)
class RecordedParam:
    name: str  # as the function names it; a `*args` item reads `args[1]`
    how: Passing
    where: int | str  # its position among the call's arguments, or its keyword
    node: Described


@dataclass(frozen=True)
class RecordedCall:
    id: str  # `c12`: its pickle is c12.pickle in the evidence folder
    function: FunctionKey
    source: str  # `tests/test_pricing.py::test_senior`, `examples/demo.py __main__`
    params: tuple[RecordedParam, ...]


@dataclass(frozen=True)
class Replaying:
    """What a replay of one call needs besides its pickle: the import roots the run added
    (test modules' classes load through them), the program that ran as `__main__` and the
    environment variables the run set (a client its test configures from `A207_CALLER`)."""

    paths: tuple[str, ...] = ()
    main: dict[str, str] | None = None
    environ: tuple[tuple[str, str], ...] = ()

    def index_entry(self) -> dict[str, Any]:
        return {"paths": list(self.paths), "main": self.main, "environ": dict(self.environ)}


@dataclass(frozen=True)
class EntryResult:
    label: str
    status: str
    seconds: float = 0.0
    tests: int = 0
    failed_imports: int = 0  # test files that could not be imported (skipped)


@dataclass
class RecordingStats:
    seconds: float = 0.0
    entries: list[EntryResult] = field(default_factory=list)
    kept: int = 0
    # Calls not kept, by why: repeated, unpicklable, oversized, unloadable, invalid.
    dropped: dict[str, int] = field(default_factory=dict)

    @property
    def tests(self) -> int:
        return sum(e.tests for e in self.entries)

    @property
    def failed_imports(self) -> int:
        return sum(e.failed_imports for e in self.entries)

    def drop(self, why: str, count: int = 1) -> None:
        self.dropped[why] = self.dropped.get(why, 0) + count


@dataclass
class Evidence:
    """One project's recorded calls. close() removes the folder."""

    folder: str
    calls: dict[FunctionKey, list[RecordedCall]] = field(default_factory=dict)
    stats: RecordingStats = field(default_factory=RecordingStats)
    index: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Calls from a source past its share (harness/recorder.py SPREAD), in order: they fill
    # what the shares left (fill), once the run is over.
    reserve: dict[FunctionKey, list[RecordedCall]] = field(default_factory=dict)

    def of(self, key: FunctionKey) -> list[RecordedCall]:
        return self.calls.get(key, [])

    def environ(self) -> tuple[tuple[str, str], ...]:
        """The environment the project's run set for its calls (`os.environ.setdefault` in
        its test modules, a fixture's `monkeypatch.setenv`), each variable at the value most
        of its calls had: every function of the project runs in it, the ones its runs never
        called too."""
        seen: dict[str, Counter[str]] = {}
        for entry in self.index.values():
            for name, value in (entry.get("environ") or {}).items():
                seen.setdefault(name, Counter())[value] += 1
        chosen = [(name, values.most_common(1)[0][0]) for name, values in seen.items()]
        return tuple(chosen[:MAX_ENVIRON])

    def keep(
        self,
        call: RecordedCall,
        pickle: bytes,
        replaying: Replaying = Replaying(),
        reserve: bool = False,
    ) -> None:
        """Write one call's pickle (never read here) and remember the call (in reserve)."""
        path = os.path.join(self.folder, f"{call.id}.pickle")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as handle:
            handle.write(pickle)
        self.index[call.id] = replaying.index_entry()
        if reserve:
            self.reserve.setdefault(call.function, []).append(call)
            return
        self.calls.setdefault(call.function, []).append(call)
        self.stats.kept += 1

    def fill(self, per_function: int) -> None:
        """The reserve fills, in the order it was recorded, what the sources' shares left."""
        for key, reserved in self.reserve.items():
            kept = self.calls.setdefault(key, [])
            room = max(0, per_function - len(kept))
            kept += reserved[:room]
            self.stats.kept += len(reserved[:room])
            if not kept:
                del self.calls[key]
        self.reserve = {}

    def write_index(self) -> None:
        path = os.path.join(self.folder, "index.json")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(self.index, handle)

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def read_call(
    data: Any, call_id: str, functions: dict[int, FunctionKey], max_pickle: int, repo_view: str
) -> tuple[RecordedCall, bytes, Replaying]:
    """One streamed call (harness/recorder.py), checked: the call, its pickle's bytes and
    what its replay needs (paths relative to the project)."""
    if not isinstance(data, dict) or not isinstance(data.get("call"), dict):
        raise InvalidEvidence("a recorded call is not an object")
    call = data["call"]
    target = call.get("target")
    if not isinstance(target, int) or isinstance(target, bool) or target not in functions:
        raise InvalidEvidence(f"a recorded call names no function asked for ({target!r})")
    encoded = data.get("pickle")
    if not isinstance(encoded, str) or len(encoded) > (max_pickle * 4) // 3 + 4:
        raise InvalidEvidence("a recorded call's pickle is missing or too large")
    try:
        pickle = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        raise InvalidEvidence("a recorded call's pickle is not base64") from None
    reader = Reader()
    params: list[RecordedParam] = []
    position = 0
    for entry in items(call.get("params", []))[:MAX_PARAMS]:
        if not (isinstance(entry, list) and len(entry) == 3):
            raise InvalidEvidence("a recorded argument is not [name, how, node]")
        name, how, node = entry
        if how not in ("arg", "star", "kw"):
            raise InvalidEvidence(f"unknown way of passing an argument {how!r}")
        where: int | str = position if how != "kw" else text(name, "name")
        if how != "kw":
            position += 1
        params.append(RecordedParam(text(name, "name"), how, where, reader.node(node)))
    source = call.get("source", "")
    paths = [p for p in items(call.get("paths", []))[:MAX_PATHS] if relative_path(p)]
    main = main_program(call.get("main"), repo_view)
    recorded = RecordedCall(
        call_id, functions[target], text(source, "source")[:MAX_TEXT], tuple(params)
    )
    return recorded, pickle, Replaying(tuple(paths), main, environ_set(call.get("environ", {})))


def environ_set(value: Any) -> tuple[tuple[str, str], ...]:
    """The environment variables a run set, as the child reported them: names and values of
    text, a few."""
    if not isinstance(value, dict):
        raise InvalidEvidence("a recorded environment is not an object")
    found = [
        (name, setting)
        for name, setting in value.items()
        if isinstance(name, str)
        and isinstance(setting, str)
        and 0 < len(name) < MAX_TEXT
        and len(setting) < MAX_TEXT
        and "=" not in name
        and "\0" not in name + setting
    ]
    return tuple(found[:MAX_ENVIRON])


def main_program(value: Any, repo_view: str) -> dict[str, str] | None:
    """The program a call's objects may name as `__main__`: a file relative to the project,
    or a module by its dotted name."""
    if value is None:
        return None
    if isinstance(value, dict) and isinstance(value.get("module"), str):
        name = value["module"]
        if name.replace(".", "").replace("_", "").isalnum() and len(name) < MAX_TEXT:
            return {"module": name}
    if isinstance(value, dict) and isinstance(value.get("path"), str):
        inside = repo_view.rstrip("/") + "/"
        if value["path"].startswith(inside) and relative_path(value["path"][len(inside) :]):
            return {"path": value["path"][len(inside) :]}
    raise InvalidEvidence("a recorded call names a program outside the project")


def relative_path(value: Any) -> bool:
    """A path inside the project as the child reported it: relative, no `..`."""
    return (
        isinstance(value, str)
        and len(value) < MAX_TEXT
        and not value.startswith("/")
        and ".." not in value.split("/")
        and "\0" not in value
    )


__all__ = [
    "Evidence",
    "EntryResult",
    "FunctionKey",
    "RecordedCall",
    "RecordedParam",
    "RecordingStats",
    "Replaying",
    "read_call",
]
